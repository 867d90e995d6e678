"""The native entry point of a compiled kernel (a CPython builtin emitted in
LLVM IR) and the dispatch in front of it.

Emitting (llvmlite): `emit` (the entry: `arguments`, `results`, on the
helpers of `builder`) and `dispatcher` (the native `__call__`). Binding
(ctypes, no llvmlite): `layout` (the per-process layout check), `methods`
(builtins from native functions), `native` (binding tables) and `dispatch`
(installing the `__call__`). `glue` strips the glue from inspection text.
The numbers they share are in `autograph.codegen.abi.binding`.
"""
