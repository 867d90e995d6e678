"""Public elementwise functions, `where`, `cast` and `matmul`.

The unary and binary elementwise functions are generated from the op
declarations (`autograph.tracer.ops.elementwise`): every elementwise op with a
dtype `kind` gets a function of the op's name here, with the declaration's
docstring plus the dtype rules, registered in the table of public functions
under the op's public and NumPy names. Adding such an op adds its function.

Each function normalises its arguments (`autograph.tracer.api.common.prepare`:
weak Python numbers, arrays, lists) and applies one op with
`autograph.tracer.tracing.symbolic.bind`, which records it while tracing or
runs its NumPy reference eagerly. The optional `name` argument of every
function exists for TensorFlow compatibility and is ignored.
"""
from __future__ import annotations

from .. import ops  # noqa: F401  (declares the ops whose functions are generated here)
from .common import locate_errors, prepare
from .public import implements, register_op
from ..core import registry
from ..core.convert import is_weak
from ..core.registry import OpDef
from ..tracing.symbolic import WeakSymbolicTensor, bind, is_traced
from ..core.types import as_dtype


def _stays_weak(operands, result):
    """While a loop body is traced to learn its dtypes, arithmetic on weak
    placeholders and Python numbers only is itself weak (it still adopts the
    dtype of the tensors it meets later), as it would be with Python numbers."""
    if any(getattr(o, "_ag_weak", False) for o in operands):
        # The loop re-types its body from this record, without running it again.
        result.builder.note_weak(result.value, ("op", tuple(operands)))
    if not any(getattr(o, "_ag_weak", False) for o in operands) or not all(is_weak(o) for o in operands):
        return result
    if result.dtype.is_bool:
        return result
    return WeakSymbolicTensor(result.value, result.builder)


_FLOAT_ONLY = " Float tensors only (TypeError for ints: use ag.cast(x, ag.float32))."
_SAME = (" Both operands have one dtype (a Python number adopts the tensor's dtype);"
         " shapes broadcast as in NumPy.")


def _finish(fn, opdef: OpDef):
    """Name `fn` after the op, give it the declaration's docstring and the
    dtype rules, and register it as the op's public function."""
    fn.__name__ = fn.__qualname__ = opdef.name
    fn.__doc__ = (opdef.doc + (_FLOAT_ONLY if opdef.kind == "float" else "")
                  + (_SAME if opdef.elementwise == "binary" else ""))
    fn.__module__ = __name__
    return register_op(opdef.name, locate_errors(fn))


def _unary(opdef: OpDef):
    op = opdef.name

    def fn(x, name=None):
        original = (x,)
        (x,) = prepare(op, x)
        return _stays_weak(original, bind(op, x))
    return _finish(fn, opdef)


def _binary(opdef: OpDef):
    op = opdef.name

    def fn(x, y, name=None):
        original = (x, y)
        x, y = prepare(op, x, y)
        return _stays_weak(original, bind(op, x, y))
    return _finish(fn, opdef)


def _generate():
    """{op name: function} for every unary/binary elementwise op with a kind
    (`cast`, which takes a dtype, is written by hand below)."""
    makers = {"unary": _unary, "binary": _binary}
    return {d.name: makers[d.elementwise](d) for d in registry.REGISTRY.values()
            if d.elementwise in makers and d.kind is not None}


GENERATED = _generate()
globals().update(GENERATED)

__all__ = [*GENERATED, "where", "cast", "matmul"]


@implements("where")
@locate_errors
def where(condition, x=None, y=None, name=None):
    """Elementwise `x if condition else y`, broadcasting the three.

    `condition` is a bool tensor; `x` and `y` share one dtype (Python numbers
    adopt the other's). The one-argument form of `tf.where` (coordinates of
    the true elements) is not supported.
    """
    if x is None or y is None:
        raise TypeError("where: the one-argument form (coordinates of the true elements) is not "
                        "supported; pass x and y, e.g. ag.where(c, x, y)")
    (c,) = prepare("where", condition)
    x, y = prepare("where", x, y)
    return bind("where", c, x, y)


@implements("cast")
@locate_errors
def cast(x, dtype, name=None):
    """`x` converted elementwise to `dtype`.

    float -> int truncates toward zero (NaN gives 0, out-of-range values
    saturate); int -> int wraps; bool -> number is 1/0; number -> bool is
    `x != 0`. A Python number is first given its default dtype (int32 /
    float32), so `cast(3.7, ag.int32)` is 3. A traced tensor that already has
    `dtype` is returned as is.
    """
    dtype = as_dtype(dtype)
    (x,) = prepare("cast", x)
    if is_traced(x) and x.dtype is dtype:
        return x
    return bind("cast", x, dtype=dtype)


@implements("matmul")
@locate_errors
def matmul(a, b, name=None):
    """The matrix product of rank-2 tensors a [m, k] and b [k, n] of one numeric dtype.

    Integer products wrap. Batched (rank > 2) products and transpose flags
    are not supported.
    """
    a, b = prepare("matmul", a, b)
    return bind("matmul", a, b)
