"""The native entry point of a compiled kernel (a CPython builtin emitted in
LLVM IR) and the dispatch in front of it.
"""
