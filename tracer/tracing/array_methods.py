"""NumPy's array methods and attributes on every tensor class (eager `Tensor`,
`SymbolicTensor`, variables): `.T`, `.size`, `.sum()`, `.reshape(...)`,
`.astype(...)`, `.item()`, ... and a helpful AttributeError for the others.

The methods are thin: each forwards to `autograph.tracer.api.ndarray_methods`
(above this room, so installed rather than imported, as the operators of
`tensor_ops` are). `DynamicShape` is what `.shape` of a traced tensor gives
user code when a dimension is only known at run time: a tuple that compares,
prints and measures as the static shape (None for the unknown dimension),
while indexing and unpacking it give weak traced int32 scalars (weak as a
Python int is: they adopt the dtype of the tensors they meet): for the
dimensions known only at run time, and in converted code for every
dimension (constants when static), as `len(x)` is there, so that
`for i in range(x.shape[0])` and `while i < n` compile to loops instead of
unrolling at trace time.
"""
from __future__ import annotations

import difflib
import functools
import sys

from ..core.errors import with_location
from ..core.location import is_library_file, user_location

__all__ = ["ArrayMethods", "DynamicShape", "install", "METHOD_NAMES", "user_shape",
           "caller_kind", "LIBRARY_CODES"]

# NumPy methods every tensor has (their implementations: api/ndarray_methods.py).
METHOD_NAMES = ("sum", "mean", "max", "min", "prod", "any", "all", "argmax", "argmin", "cumsum",
                "var", "std", "reshape", "transpose", "flatten", "ravel", "copy", "astype",
                "item", "dot", "clip", "round", "cumprod", "argsort", "squeeze", "swapaxes",
                "nonzero", "conj", "conjugate", "diagonal", "trace", "repeat", "take",
                "searchsorted", "sort", "fill", "tolist")


class _NotInstalled:
    def __getattr__(self, name):
        raise RuntimeError("array methods are not installed; import autograph.tracer")


_impl = _NotInstalled()


def install(functions) -> None:
    """Give the array methods their implementations: the api package (its
    `ndarray_methods` module and `dim`)."""
    global _impl
    _impl = functions


def _method(name: str):
    def method(self, *args, **kwargs):
        return _impl.ndarray_methods.call(name, self, args, kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"NumPy's `ndarray.{name}` on this tensor (same arguments and result "
                      f"shape; autograph's dtype rules). See docs/API.md section 9.")
    return method


class ArrayMethods:
    """Mixin: NumPy's array methods and attributes (see the module docstring)."""

    __slots__ = ()

    @property
    def T(self):   # noqa: N802  (NumPy's name)
        """The tensor with its axes reversed (unchanged for rank 0 and 1)."""
        return _impl.ndarray_methods.call("T", self, (), {})

    @property
    def size(self):
        """The number of elements: a Python int when the shape is static, else
        a traced int32 scalar (always traced in converted code, as `len()`)."""
        n = _impl.ndarray_methods.call("size", self, (), {})
        if "Symbolic" not in type(self).__name__ or not hasattr(self, "builder"):
            return n
        if not isinstance(n, int):
            return _as_traced(self, n)
        return _as_traced(self, n) if caller_kind(1) == "converted" else n

    @property
    def real(self):
        """The real part (`np.real`): the tensor itself unless complex."""
        return _impl.ndarray_methods.call("real", self, (), {})

    @property
    def imag(self):
        """The imaginary part (`np.imag`): zeros unless complex."""
        return _impl.ndarray_methods.call("imag", self, (), {})

    def __getattr__(self, name: str):
        # Reached only when normal lookup fails. Private and special names are
        # probed by Python and NumPy all the time: answer those fast.
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        raise _unknown(self, name)


for _name in METHOD_NAMES:
    setattr(ArrayMethods, _name, _method(_name))
del _name


@functools.lru_cache(maxsize=256)
def _suggestions(cls: type, name: str) -> tuple:
    known = sorted({n for n in dir(cls) if not n.startswith("_")})
    return tuple(difflib.get_close_matches(name, known, n=3, cutoff=0.6))


def _kind(x) -> str:
    if getattr(x, "_ag_variable", False):
        return "a variable"
    if type(x).__name__ in ("SymbolicTensor", "WeakSymbolicTensor"):
        return "a traced tensor"
    return "a tensor"


def _unknown(x, name: str) -> AttributeError:
    close = _suggestions(type(x), name)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    text = (f"{_kind(x)} ({type(x).__name__}) has no attribute {name!r}{hint} (tensors have "
            f"NumPy's array methods and attributes listed in docs/API.md section 9; for other "
            f"operations use the ag.* functions)")
    exc = AttributeError(text)
    if "Symbolic" in type(x).__name__:   # while tracing: point at the user's line
        return with_location(exc, user_location())
    return exc


def caller_kind(depth: int) -> str:
    """Who called, `depth` frames up: "library" (this package), "converted"
    (code made by autograph's converter) or "user" (other user code)."""
    return _kind_of(sys._getframe(depth + 1).f_code)


# code object -> "library" / "converted" / "user": `.shape` is read very
# often, so each caller's kind is worked out once (bounded: cleared if huge).
_KINDS: dict = {}


def _kind_of(code) -> str:
    # Keyed by id (hashing a code object hashes its contents); the entry holds
    # the code itself, so an id reused by a new code object is not mistaken.
    entry = _KINDS.get(id(code))
    if entry is not None and entry[0] is code:
        return entry[1]
    if is_library_file(code.co_filename):
        kind = "library"
    else:
        kind = "converted" if _is_converted(code) else "user"
    if len(_KINDS) > 50_000:
        _KINDS.clear()
        LIBRARY_CODES.clear()
    _KINDS[id(code)] = (code, kind)
    if kind == "library":
        LIBRARY_CODES[id(code)] = code
    return kind


# id -> code of the library's code objects seen reading `.shape`: the traced
# tensor's `shape` property answers those callers from here directly.
LIBRARY_CODES: dict = {}


def _is_converted(code) -> bool:
    """Whether `code` was made by autograph's converter (which lives above the
    tracer: looked up, never imported)."""
    marks = sys.modules.get("autograph.conversion_marks")
    codes = getattr(marks, "CONVERTED_CODES", None)
    return codes is not None and codes.get(id(code)) is code


def _as_traced(tensor, n):
    """A dimension of `tensor` (a Python int, or a traced int32 scalar) as a
    weak traced int32 scalar of its trace.

    Weak as a Python int is (tracing/weak.py): it adopts the dtype of the
    tensors it meets, so `acc / x.shape[0]` divides a float64 `acc` by a
    float64 count, as the NumPy code it comes from does, while
    `range(x.shape[0])` stays a compiled loop."""
    import numpy as np
    from .symbolic import StaticDimTensor, WeakSymbolicTensor   # (symbolic imports this module)
    builder = tensor.builder
    if isinstance(n, int):   # a static dimension: also an int to Python code that needs one
        return StaticDimTensor(builder.constant(np.array(n, dtype=np.int32)), builder)
    return WeakSymbolicTensor(n.value, builder)


class DynamicShape(tuple):
    """A traced tensor's shape as user code sees it (see the module docstring):
    it compares, prints and measures as the static shape; indexing and
    unpacking give weak traced int32 scalars for the dimensions known only at
    run time, and in converted code for the static ones too (constants)."""

    def __new__(cls, tensor, dims, axes=None, marked: bool = False):
        obj = super().__new__(cls, dims)
        obj._tensor = tensor
        obj._axes = list(range(len(dims))) if axes is None else list(axes)
        obj._marked = marked
        return obj

    def _dim(self, k: int):
        d = tuple.__getitem__(self, k)
        if d is not None:
            return _as_traced(self._tensor, d) if self._marked else d
        return _as_traced(self._tensor, _impl.dim(self._tensor, self._axes[k]))

    def __getitem__(self, k):
        if isinstance(k, slice):
            return DynamicShape(self._tensor, tuple.__getitem__(self, k), self._axes[k],
                                self._marked)
        return self._dim(k)

    def __iter__(self):
        return (self._dim(i) for i in range(len(self)))

    def __reduce__(self):   # (pickles and copies as the plain static shape)
        return (tuple, (tuple(tuple.__iter__(self)),))


_current_builder = None


def _tracing(tensor) -> bool:
    """Whether `tensor`'s trace is the one being built (after it, or outside
    it, the shape is only the static description)."""
    global _current_builder
    if _current_builder is None:
        from .symbolic import current_builder   # (symbolic imports this module)
        _current_builder = current_builder
    return _current_builder() is getattr(tensor, "builder", None)


def user_shape(tensor, shape, depth: int = 2):
    """`shape` of a traced `tensor` as the caller `depth` frames up sees it:
    the library gets `shape` itself; converted code a DynamicShape; other
    user code a DynamicShape when a dimension is unknown, else `shape`."""
    if shape is None:
        return shape
    # The library reads shapes all the time: decide that case first, cheaply.
    kind = _kind_of(sys._getframe(depth).f_code)
    if kind == "library" or (kind == "user" and None not in shape) or not _tracing(tensor):
        return shape
    return DynamicShape(tensor, shape, marked=kind == "converted")
