"""Support for the ports of TensorFlow's AutoGraph reference tests.

TensorFlow's `tensorflow/python/autograph/tests/*_test.py` run each function
twice, under `tf.function` and eagerly, and require the same results, the
same printed output and the same exception type (`assertFunctionMatchesEager`;
the compiled run must not raise at all). `matches_eager(f, *args)` does that
with `ag.function`. Each Python function is wrapped once (`compiled(f)`), so
cases with the same argument types share a trace; a new Python value as
argument retraces, as in TensorFlow.

Cases whose arguments are all Python values (ints, lists, ranges, functions)
would each need a trace and a compile of their own; `matches_eager_batch`
runs a whole grid of them in one compiled function that calls the target
once per case (converted, with the same Python arguments, as a top-level
`ag.function` call would trace it), which keeps these tests fast.
"""
from __future__ import annotations

import contextlib
import io
import re

import numpy as np

import autograph as ag

_COMPILED: dict = {}


def compiled(f):
    """The one `ag.function(f)` of this test session."""
    pf = _COMPILED.get(f)
    if pf is None:
        pf = _COMPILED[f] = ag.function(f, reduce_retracing=True)
    return pf


def int_tensor(x):
    """TensorFlow's `_int_tensor` helper: an int32 tensor."""
    return ag.constant(x, dtype=ag.int32)


def list_of_int_tensor(rows):
    """A Python list of int32 tensors, one per row."""
    return [int_tensor(r) for r in rows]


def _run(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args), out.getvalue(), None
        except Exception as e:  # noqa: BLE001 - the outcome records it
            return None, out.getvalue(), e


def _numeric(x):
    return hasattr(x, "numpy") or isinstance(x, (np.ndarray, np.generic, int, float, bool))


def deep_equal(left, right) -> bool:
    """Equal values in equal nesting (dtypes aside: a Python int and an int32
    tensor of the same value are equal, as in TensorFlow's comparison)."""
    if isinstance(left, dict) or isinstance(right, dict):
        return (isinstance(left, dict) and isinstance(right, dict) and left.keys() == right.keys()
                and all(deep_equal(left[k], right[k]) for k in left))
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(deep_equal, left, right))
    if _numeric(left) and _numeric(right):
        a, b = np.asarray(left), np.asarray(right)
        return a.shape == b.shape and np.array_equal(a, b)
    return left == right


def matches_eager(f, *args):
    """Run `f` compiled and plainly on `args`; both must agree, and the
    compiled run must succeed."""
    return matches_eager_fresh(f, lambda: args)


def matches_eager_fresh(f, make_args):
    """Like `matches_eager`, with fresh arguments per run (variables)."""
    got, got_out, got_err = _run(compiled(f), make_args())
    if got_err is not None:
        raise AssertionError(f"the compiled {f.__name__} raised {got_err!r}") from got_err
    want, want_out, want_err = _run(f, make_args())
    assert want_err is None, f"plain {f.__name__} raised {want_err!r} where compiled gave {got!r}"
    assert deep_equal(want, got), f"{f.__name__}: plain {want!r}, compiled {got!r}"
    assert got_out == want_out, f"{f.__name__}: plain printed {want_out!r}, compiled {got_out!r}"
    return got


def _leaves(x) -> list:
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


@ag.do_not_convert
def _pack(results):
    """Every case's result as one float64 vector: per leaf its rank, its
    dimensions and its values (one compiled output instead of one per case)."""
    parts = []
    for r in results:
        for leaf in _leaves(r):
            t = ag.cast(ag.convert_to_tensor(leaf), ag.float64)
            parts += [ag.constant([float(len(t.shape))], ag.float64),
                      ag.cast(ag.shape(t), ag.float64), ag.reshape(t, [-1])]
    return ag.concat(parts, 0)


def _pack_plain(result) -> np.ndarray:
    parts = []
    for leaf in _leaves(result):
        a = np.asarray(leaf, dtype=np.float64)
        parts += [[a.ndim], list(a.shape), a.ravel()]
    return np.concatenate([np.asarray(p, np.float64) for p in parts]) if parts else np.zeros(0)


def _each_case(target, cases):
    results = []
    for args in cases:   # a Python list: unrolled, one converted call per case
        results.append(target(*args))
    return _pack(results)


_BATCH = ag.function(_each_case)


def matches_eager_batch(f, cases):
    """`matches_eager(f, *args)` for every tuple `args` of Python values in
    `cases`, with one trace and one compile for all of them (the results are
    compared as their leaves' shapes and values, dtypes aside)."""
    cases = [tuple(c) for c in cases]
    got, got_out, got_err = _run(_BATCH, (f, cases))
    if got_err is not None:
        raise AssertionError(f"the compiled {f.__name__} raised {got_err!r} on one of {cases}") from got_err
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        want = [f(*args) for args in cases]
    got, start = np.asarray(got), 0
    for args, w in zip(cases, want):
        packed = _pack_plain(w)
        g = got[start:start + len(packed)]
        assert np.array_equal(packed, g), f"{f.__name__}{args}: plain {w!r}, compiled (packed) {g!r}"
        start += len(packed)
    assert start == len(got), f"{f.__name__}: the compiled results have {len(got) - start} values too many"
    assert got_out == out.getvalue(), f"{f.__name__}: plain printed {out.getvalue()!r}, compiled {got_out!r}"


def raises(f, args, error, pattern):
    """`ag.function(f)(*args)` raises `error` whose message matches `pattern`
    (a regular expression, searched with DOTALL); returns the exception."""
    try:
        compiled(f)(*args)
    except error as e:
        assert re.search(pattern, str(e), re.DOTALL), f"{type(e).__name__}: {e}\n!~ {pattern}"
        return e
    except Exception as e:  # noqa: BLE001 - reported as the wrong error
        raise AssertionError(f"expected {error.__name__}, got {type(e).__name__}: {e}") from e
    raise AssertionError(f"{f.__name__}{args!r} did not raise {error.__name__}")
