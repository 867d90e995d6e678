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

import numpy as np

from .. import ops  # noqa: F401  (declares the ops whose functions are generated here)
from .common import locate_errors, prepare
from .docgen import elementwise_doc
from .public import implements, register_op
from ..core import registry
from ..core.convert import is_python_number, is_weak
from ..core.registry import OpDef
from ..tracing.symbolic import WeakIntTensor, WeakSymbolicTensor, bind, is_traced
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
    if result.dtype.is_integer and all(getattr(o, "_ag_weak_int", False) or is_python_number(o)
                                       for o in operands):
        return WeakIntTensor(result.value, result.builder)   # weak ints and Python ints only
    return WeakSymbolicTensor(result.value, result.builder)


def _finish(fn, opdef: OpDef):
    """Name `fn` after the op, give it the declaration's docstring and the
    dtype rules, and register it as the op's public function."""
    fn.__name__ = fn.__qualname__ = opdef.name
    fn.__doc__ = elementwise_doc(opdef)
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
    """Elementwise `x if condition else y`, or the coordinates of the true elements.

    Args:
        condition: a bool tensor (array, nested list).
        x: the values where `condition` is true; with `y`, of one dtype (Python
            numbers adopt the other's). The three broadcast.
        y: the values where it is false.
        name: ignored (TensorFlow compatibility).

    Returns:
        With `x` and `y`: a tensor of their dtype and the broadcast shape.
        With `condition` alone (as `tf.where`): the coordinates of its true
        elements, an int64 tensor [number of them, rank] whose first dimension
        is known at run time.

    Raises:
        TypeError: `condition` is not bool, `x` and `y` have different dtypes, or
            only one of them is given.
        ValueError: shapes that do not broadcast.

    Example:
        >>> print(ag.where([True, False], [1, 2], [10, 20]))
        ag.Tensor([ 1 20], shape=(2,), dtype=int32)
        >>> print(ag.where([[True, False], [False, True]]))
        ag.Tensor([[0 0]
         [1 1]], shape=(2, 2), dtype=int64)
    """
    if x is None and y is None:
        from .sorting import argwhere   # (sorting builds on this module)
        return argwhere(condition)
    if x is None or y is None:
        raise TypeError("where: pass both x and y (or neither, for the coordinates of the true "
                        "elements), e.g. ag.where(c, x, y)")
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

    Args:
        x: a tensor, array, Python number or nested list.
        dtype: the target dtype (an `ag` dtype, a NumPy dtype or a Python type).
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of `x`'s shape and `dtype`.

    Raises:
        TypeError: `dtype` is not a dtype, or a cast between strings and numbers.

    Example:
        >>> print(ag.cast([1.7, -1.7], ag.int32))
        ag.Tensor([ 1 -1], shape=(2,), dtype=int32)
    """
    dtype = as_dtype(dtype)
    (x,) = prepare("cast", x)
    if is_traced(x) and x.dtype is dtype:
        return x
    return bind("cast", x, dtype=dtype)


@implements("matmul")
@locate_errors
def matmul(a, b, name=None):
    """The matrix product `a @ b`.

    As NumPy's `@`: a [m, k] by b [k, n] gives [m, n]; a 1-D operand is a
    vector: `v @ w` is their inner product (a scalar), `m @ v` has shape [m]
    and `v @ m` shape [n]. Integer products wrap. Operands of rank > 2 are
    stacks of matrices whose leading (batch) dimensions broadcast, as NumPy's
    (tracer/api/batched_matmul.py). Transpose flags are not supported.

    Args:
        a: a tensor (array, nested list) of rank >= 1.
        b: a tensor of `a`'s dtype, of rank >= 1.
        name: ignored (TensorFlow compatibility).

    Returns:
        A tensor of the operands' dtype.

    Raises:
        TypeError: operands of different dtypes, or not numbers.
        ValueError: a scalar operand, or inner dimensions that differ
            (InvalidArgumentError when known only at run time).

    Example:
        >>> print(ag.matmul([[1, 2], [3, 4]], [[5], [6]]))
        ag.Tensor([[17]
         [39]], shape=(2, 1), dtype=int32)
    """
    a, b = prepare("matmul", a, b)
    ra, rb = _rank(a), _rank(b)
    if ra == 0 or rb == 0:
        raise ValueError("matmul: a scalar (0-d) operand has no matrix product; use multiply (*)")
    if (ra or 0) > 2 or (rb or 0) > 2:   # stacks of matrices, NumPy's broadcasting
        from .batched_matmul import batched_matmul
        return batched_matmul(a, b)
    if ra != 1 and rb != 1:
        return _matmul2d(a, b)
    # A vector becomes a one-row (left) or one-column (right) matrix and the
    # added axis is dropped from the product, as NumPy does.
    from .shaping import reshape
    a2 = reshape(a, [1, -1]) if ra == 1 else a
    b2 = reshape(b, [-1, 1]) if rb == 1 else b
    product = _matmul2d(a2, b2)
    if ra == 1 and rb == 1:
        return reshape(product, [])
    keep = 1 if ra == 1 else 0   # the matrix's outer dimension survives
    from .construct import dim
    n = product.shape[keep]
    return reshape(product, [n if n is not None else dim(product, keep)])


def _matmul2d(a, b):
    """The product of two matrices; complex ones as four real products (the op is real):
    (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br)."""
    da, db = as_dtype(a.dtype), as_dtype(b.dtype)   # (eager operands may be arrays)
    if not (da.is_complex and da == db):
        return bind("matmul", a, b)
    ar, ai, br, bi = (bind(part, x) for x in (a, b) for part in ("real", "imag"))
    re = bind("subtract", bind("matmul", ar, br), bind("matmul", ai, bi))
    im = bind("add", bind("matmul", ar, bi), bind("matmul", ai, br))
    unit = np.asarray(1j, da.np_dtype)
    return bind("add", bind("cast", re, dtype=da), bind("multiply", bind("cast", im, dtype=da), unit))


def _rank(x):
    return None if x.shape is None else len(x.shape)
