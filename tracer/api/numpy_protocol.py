"""NumPy functions on autograph tensors (`__array_ufunc__`, `__array_function__`).

`np.exp(x)`, `np.sum(x, axis=0)`, `np.where(c, x, y)`, `a + b` with an ndarray
on the left, ... on a tensor (traced or eager) call the autograph operation
of the same meaning, so the code computes the same inside and outside
`ag.function`, with autograph's dtype rules (no silent promotion; a Python
number adopts the tensor's dtype; `np.mean` of integers stays an integer, as
`ag.reduce_mean`; `np.argmax` gives int64).

Which autograph function a NumPy name means is not listed here: it is the
`numpy=` of the op declarations and `@public` registrations, gathered in the
table of public functions (`autograph.tracer.api.public`). This module adds
the adapters for NumPy signatures that differ from the autograph function's,
and the few NumPy names without one (`NUMPY_ONLY`).

What has no autograph equivalent (another NumPy function, a ufunc method
such as `np.add.outer`, or arguments such as `out=`, `dtype=`, `where=`):

* on a traced tensor: TypeError naming the function (its value only exists
  when the compiled code runs, so NumPy cannot compute it at trace time);
* on eager tensors: NumPy computes it on their values (a NumPy result).
"""
from __future__ import annotations

import functools

import numpy as np

from .common import is_tensor_like
from .construct import dim
from .elementwise import logical_not, maximum, minimum
from .public import numpy_names
from . import numpy_creation, numpy_functions as nf, numpy_linalg
from .numpy_functions import Unsupported
from .shaping import expand_dims, reshape
from .sorting import argwhere, nonzero
from . import numpy_kernels, numpy_setops, numpy_stacking, numpy_statistics
from . import numpy_editing, numpy_fft, numpy_gradient, numpy_lapack, numpy_linalg_names, numpy_windows
from . import numpy_gcd, numpy_histogram2d, numpy_pairs, numpy_polynomials, numpy_selection
from . import numpy_bessel, numpy_float_bits
from .numpy_reduce_options import reduce_with_options
from .empty_reductions import refuse_empty
from . import numpy_histogram, numpy_indexing
from . import numpy_arrange, numpy_elementwise, numpy_nan, numpy_products
from . import numpy_accumulate, numpy_sets
from ..core.location import user_location
from ..tracing.symbolic import SymbolicTensor, current_builder

__all__ = ["array_ufunc", "array_function", "dispatch_table", "numpy_key", "NUMPY_ONLY"]


# An argument or form without an autograph equivalent (message: which).
_Unsupported = Unsupported


_NO = object()   # "not given"


def _reject(**given) -> None:
    for k, v in given.items():
        if v is not _NO and v is not None:
            raise _Unsupported(f"the {k}= argument")


# ---------------------------------------------------------------- adapters
#
# The table of public functions says which autograph function a NumPy name
# means (its op declaration's or @public's `numpy=`). A ufunc call passes its
# inputs straight through; a NumPy function whose signature differs gets an
# adapter, by NumPy name, that takes the autograph function `fn`.

def _flat(x):
    return reshape(x, [-1])


def _ndim(x) -> int:
    """Rank of a tensor, array or (nested) list argument."""
    n = getattr(x, "ndim", None)
    return n if isinstance(n, int) else np.ndim(x)


def _reduction(fn):
    def adapter(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO, where=_NO):
        _reject(out=out)
        if dtype is None and initial is _NO and where is _NO:
            return nf.numpy_reduction(fn, a, axis, keepdims)
        return reduce_with_options(fn, a, axis, keepdims, dtype, nf.NO if initial is _NO else initial,
                                   nf.NO if where is _NO else where)
    return adapter


def _bool_reduction(fn):
    def adapter(a, axis=None, out=None, keepdims=False, *, where=_NO):
        _reject(out=out, where=where)
        return nf.numpy_reduction(fn, a, axis, keepdims)
    return adapter


def _arg(fn):
    def adapter(a, axis=None, out=None, *, keepdims=False):
        _reject(out=out)
        if axis is None:           # NumPy: the index into the flattened array
            r = fn(_flat(a), axis=0)
            return reshape(r, [1] * _ndim(a)) if keepdims else r
        r = fn(a, axis=axis)
        return expand_dims(r, axis) if keepdims else r
    return adapter


def _cumsum(fn):
    def adapter(a, axis=None, dtype=None, out=None):
        _reject(dtype=dtype, out=out)
        a = nf.bool_as_number("cumsum", a)
        return fn(_flat(a) if axis is None else a, axis=0 if axis is None else axis)
    return adapter


def _reshape(fn):
    def adapter(a, shape=None, order="C", *, copy=None, newshape=None):
        shape = newshape if shape is None else shape
        shape = [shape] if isinstance(shape, int) else shape
        if order == "C":
            return fn(a, shape)
        from .ndarray_methods import ordered_reshape
        return ordered_reshape(nf.tensor_operand("reshape", a), shape, order)
    return adapter


def _ravel(fn):
    reshape_adapter = _reshape(fn)
    return lambda a, order="C": reshape_adapter(a, [-1], order)


def _transpose(fn):
    return lambda a, axes=None: fn(a, perm=axes)


def _expand_dims(fn):
    def adapter(a, axis):
        if isinstance(axis, (tuple, list)):
            rank = _ndim(a) + len(axis)
            for ax in sorted(x % rank for x in axis):
                a = fn(a, ax)
            return a
        return fn(a, axis)
    return adapter


def _squeeze(fn):
    return lambda a, axis=None: fn(a, axis=axis)


def _stack(fn):
    def adapter(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
        _reject(out=out, dtype=dtype)
        return fn(list(arrays), axis=axis)
    return adapter


def _concatenate(fn):
    def adapter(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
        _reject(out=out, dtype=dtype)
        arrays = list(arrays)
        if axis is None:
            return fn([_flat(x) for x in arrays], axis=0)
        return fn(arrays, axis=axis)
    return adapter


def _take(fn):
    def adapter(a, indices, axis=None, out=None, mode="raise"):
        _reject(out=out)
        if mode not in ("raise", "wrap", "clip"):
            raise _Unsupported(f"mode={mode!r}")
        x, axis = (_flat(a), 0) if axis is None else (a, axis)
        if mode != "raise":    # indices brought into range first (numpy_indexing.py)
            indices = numpy_indexing.take_mode_indices(x, indices, axis, mode)
        return fn(x, indices, axis=axis)
    return adapter


def _where(fn):
    def adapter(condition, x=_NO, y=_NO):
        if x is _NO and y is _NO:      # NumPy: np.nonzero(condition)
            return nonzero(condition)
        if x is _NO or y is _NO:
            raise _Unsupported("a call with only one of x and y")
        return fn(condition, x, y)
    return adapter


def _dot(fn):
    return nf.np_dot   # NumPy's dot for every rank (matmul is its 2-D case)


def _like(fn):
    def adapter(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        _reject(shape=shape, device=device)
        return fn(a, dtype=dtype)
    return adapter


def _size(fn):
    def adapter(a, axis=None):
        if axis is None:
            return fn(a)
        return dim(a, axis)
    return adapter


def _invert(fn):
    # np.invert of bools is logical not; of ints bitwise not (`fn`).
    return lambda x: logical_not(x) if x.dtype.is_bool else fn(x)


def _ufunc_reduce(fn):
    def adapter(x, axis=0, keepdims=False, **kwargs):   # NumPy's default axis is 0
        _reject(**kwargs)
        refuse_empty(fn.__name__, x, axis)   # np.maximum.reduce of nothing raises, as NumPy's
        return fn(x, axis=axis, keepdims=keepdims)
    return adapter


def _ufunc_accumulate(fn):
    def adapter(x, axis=0, **kwargs):
        _reject(**kwargs)
        return fn(x, axis=axis)
    return adapter


_ADAPTERS = {
    "sum": _reduction, "mean": _reduction, "prod": _reduction, "max": _reduction,
    "amax": _reduction, "min": _reduction, "amin": _reduction, "any": _bool_reduction,
    "all": _bool_reduction, "argmax": _arg, "argmin": _arg, "cumsum": _cumsum,
    "reshape": _reshape, "ravel": _ravel, "transpose": _transpose, "expand_dims": _expand_dims,
    "squeeze": _squeeze, "stack": _stack, "concatenate": _concatenate, "take": _take,
    "where": _where, "dot": _dot, "zeros_like": _like, "ones_like": _like, "size": _size,
    "invert": _invert,
}


def _clip(a, a_min=_NO, a_max=_NO, out=None, *, min=_NO, max=_NO, **kwargs):
    _reject(out=out, **kwargs)
    lo = min if a_min is _NO else a_min
    hi = max if a_max is _NO else a_max
    if lo is not _NO and lo is not None:
        a = maximum(a, lo)
    if hi is not _NO and hi is not None:
        a = minimum(a, hi)
    return a


def _shares_memory(a, b, max_work=None):
    # Tensors are immutable and every write is a functional update (API.md
    # section 2), so no write through one name is ever seen through another:
    # only the same tensor "shares memory" with itself (a Python bool).
    return a is b


# NumPy names with no autograph function of their own: compositions, or a
# tensor's attributes.
NUMPY_ONLY = {
    "shares_memory": _shares_memory, "may_share_memory": _shares_memory,
    "clip": _clip, "argwhere": argwhere,
    "shape": lambda a: a.shape, "ndim": lambda a: a.ndim,
    # compositions of numeric kernels (numpy_functions.py, numpy_creation.py)
    "var": nf.np_var, "std": nf.np_std, "average": nf.np_average, "diff": nf.np_diff,
    "roll": nf.np_roll, "tile": nf.np_tile, "repeat": nf.np_repeat, "outer": nf.np_outer,
    "vdot": nf.np_vdot, "swapaxes": numpy_linalg.np_swapaxes, "trace": numpy_linalg.np_trace,
    "diagonal": numpy_linalg.np_diagonal, "copy": lambda a, order="K", subok=False: a.copy(),
    **numpy_creation.LIKE,
    # isclose, allclose, nan_to_num, deg2rad/radians, rad2deg/degrees
    **numpy_kernels.FUNCTIONS,
    # hstack, vstack, column_stack, atleast_1d, atleast_2d
    **numpy_stacking.FUNCTIONS,
    # median, quantile, percentile, ptp, nansum/nanmean/nanmax/nanmin, meshgrid, broadcast_to
    **numpy_statistics.FUNCTIONS,
    # unique, einsum
    **numpy_setops.FUNCTIONS,
    # take_along_axis, flatnonzero, ravel_multi_index, unravel_index, ix_, bincount,
    # *_indices_from, compress, extract; in-place put_along_axis/put/fill_diagonal/
    # copyto/putmask refused outside a statement (the converter rewrites those)
    **numpy_indexing.FUNCTIONS,
    # histogram (int bins or explicit edges)
    **numpy_histogram.FUNCTIONS,
    # triu/tril, flip*, rot90, moveaxis, *split, diag/diagflat, pad, (arg)partition
    **numpy_arrange.FUNCTIONS,
    # kron, inner, tensordot, cross, polyval, trapezoid, convolve, correlate, cov, corrcoef
    **numpy_products.FUNCTIONS,
    # gradient
    **numpy_gradient.FUNCTIONS,
    # append, insert, delete, resize, block
    **numpy_editing.FUNCTIONS,
    # vander, polyder, polyint, polyfit
    **numpy_polynomials.FUNCTIONS,
    # modf, divmod, cumulative_sum, cumulative_prod
    **numpy_pairs.FUNCTIONS,
    # unwrap, lexsort, choose
    **numpy_selection.FUNCTIONS,
    # gcd, lcm
    **numpy_gcd.FUNCTIONS,
    # frexp, ldexp, nextafter, spacing (on the bits of floats)
    **numpy_float_bits.FUNCTIONS,
    # i0
    **numpy_bessel.FUNCTIONS,
    # histogram2d
    **numpy_histogram2d.FUNCTIONS,
    # sinc, heaviside, reciprocal, fabs, float_power, logaddexp(2), nancumsum/prod,
    # array_equal/equiv, isin, select, piecewise
    **numpy_elementwise.FUNCTIONS,
    # nanvar/nanstd, nanargmax/nanargmin, nanmedian, nanquantile/nanpercentile
    **numpy_nan.FUNCTIONS,
    # maximum/minimum/fmax/fmin/logical_*/bitwise_* .accumulate
    **numpy_accumulate.FUNCTIONS,
    # union1d, intersect1d, setdiff1d, setxor1d
    **numpy_sets.FUNCTIONS,
}

# NumPy functions outside NumPy's main namespace, by identity.
BY_FUNCTION = {np.linalg.norm: numpy_linalg.np_norm,
               # inv, solve, det, slogdet, cholesky, eigh, eigvalsh, qr, svd, pinv, matrix_rank, cond
               **numpy_lapack.BY_FUNCTION,
               # svdvals, matrix_norm, vector_norm, matrix_transpose, multi_dot, outer, vecdot, matmul
               **numpy_linalg_names.BY_FUNCTION,
               # fft ifft rfft irfft hfft ihfft fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn, shifts
               **numpy_fft.BY_FUNCTION,
               **numpy_windows.BY_FUNCTION,   # lib.stride_tricks.sliding_window_view
               np.linalg.matrix_power: numpy_products.matrix_power}


@functools.lru_cache(maxsize=None)
def dispatch_table():
    """{NumPy name: callable on NumPy's arguments}: the table of public
    functions' NumPy names through their adapters, plus NUMPY_ONLY. Built on
    first use, when every public function is registered."""
    from . import numpy_math   # its adapters build on this module's (API.md section 9)
    adapters = {**_ADAPTERS, **numpy_math.ADAPTERS}
    table = {}
    for name, fn in numpy_names().items():
        key = numpy_key(name)
        if key is None:
            continue
        method = name.partition(".")[2]
        if method == "reduce":
            table[key] = _ufunc_reduce(fn)
        elif method == "accumulate":
            table[key] = _ufunc_accumulate(fn)
        else:
            table[key] = adapters.get(name, lambda f: f)(fn)
    table.update(NUMPY_ONLY)
    return table


def numpy_key(name: str):
    """The key NumPy dispatches `name` by: the `__name__` of np.<name> (NumPy 1
    calls np.divide "true_divide"), with ".method" for a ufunc method; None
    when this NumPy has no such name."""
    base, dot, method = name.partition(".")
    obj = getattr(np, base, None)
    if obj is None or (dot and not isinstance(obj, np.ufunc)):
        return None
    return obj.__name__ + dot + method


def _ufunc_call(ufunc, method, inputs, kwargs):
    name = ufunc.__name__
    if method == "__call__":
        fn = dispatch_table().get(name)
        if fn is None:
            raise _Unsupported("it")
        for k in kwargs:   # out=, dtype=, where=, casting=, ...: NumPy's business
            raise _Unsupported(f"the {k}= argument")
        return fn(*inputs)
    if method == "at":   # in place: the converter rewrites the statement (numpy_indexing.py)
        raise _Unsupported(numpy_indexing.AT_ADVICE)
    if method == "outer":   # np.add.outer(a, b): the ufunc of a[..., None, ...] and b
        fn = dispatch_table().get(name)
        if fn is None or len(inputs) != 2 or ufunc.nin != 2 or kwargs:
            raise _Unsupported("it")
        return fn(*nf.outer_operands(*inputs))
    fn = dispatch_table().get(f"{name}.{method}")
    if fn is None or len(inputs) != 1:
        raise _Unsupported("it")
    return fn(inputs[0], **kwargs)


# ---------------------------------------------------------------- dispatch

def _any_traced(values) -> bool:
    """A traced tensor among `values`, or a variable while tracing (its value
    at trace time is not the value the compiled code will see)."""
    for v in values:
        if isinstance(v, SymbolicTensor):
            return True
        if getattr(v, "_ag_variable", False) and current_builder() is not None:
            return True
        if isinstance(v, (list, tuple)) and _any_traced(v):
            return True
    return False


def _to_numpy(v):
    """Eager tensors (also inside lists/tuples) as NumPy arrays, for a NumPy fallback."""
    if isinstance(v, (list, tuple)):
        return type(v)(_to_numpy(x) for x in v)
    if is_tensor_like(v):
        return np.asarray(v)
    return v


def _fail(name: str, what: str) -> TypeError:
    loc = user_location()
    where = f"\n{loc.describe()}" if loc else ""
    if what == "the out= argument":   # the common case gets its own advice
        return TypeError(f"{name}: the out= argument has no autograph equivalent: tensors are "
                         f"immutable, so a result cannot be written into an existing array; "
                         f"assign the result instead (`y = {name}(...)`){where}")
    subject = f"{name} has" if what == "it" else f"{name}: {what} has"
    return TypeError(f"{subject} no autograph equivalent, so it cannot be applied to a traced "
                     f"tensor (inside ag.function a tensor's value only exists when the compiled "
                     f"code runs); use the ag.* operations, or compute it outside the "
                     f"function{where}")


def _numpy_name(func) -> str:
    module = getattr(func, "__module__", "numpy") or "numpy"
    prefix = "np" + module[len("numpy"):] if module.startswith("numpy") else module
    prefix = prefix.replace("._core", "").replace(".core", "")
    return f"{prefix}.{func.__name__}"


def array_ufunc(ufunc, method, inputs, kwargs):
    """`__array_ufunc__` for tensors (see the module docstring)."""
    traced = _any_traced(inputs) or _any_traced(kwargs.get("out") or ())
    try:
        return _ufunc_call(ufunc, method, inputs, dict(kwargs))
    except _Unsupported as e:
        name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        if traced:
            raise _fail(name, str(e)) from None
    return getattr(ufunc, method)(*_to_numpy(inputs), **_to_numpy_kwargs(kwargs))


def _to_numpy_kwargs(kwargs):
    return {k: _to_numpy(v) for k, v in kwargs.items()}


def array_function(func, args, kwargs):
    """`__array_function__` for tensors (see the module docstring)."""
    traced = _any_traced(args) or _any_traced(tuple(kwargs.values()))
    # Only NumPy's own public functions (np.sum, ...), not same-named ones elsewhere.
    adapter = dispatch_table().get(func.__name__)
    if adapter is not None and getattr(np, func.__name__, None) is not func:
        adapter = None
    if adapter is None:
        adapter = BY_FUNCTION.get(func)
    name = _numpy_name(func)
    if adapter is not None:
        try:
            return adapter(*args, **kwargs)
        except _Unsupported as e:
            if traced:
                raise _fail(name, str(e)) from None
    elif traced:
        raise _fail(name, "it")
    return func(*_to_numpy(args), **_to_numpy_kwargs(kwargs))

