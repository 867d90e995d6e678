"""np.lib.stride_tricks.sliding_window_view on tensors (tracer/api/numpy_windows.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from numpy.lib.stride_tricks import sliding_window_view as windows

import autograph as ag

_X = np.arange(24.0).reshape(4, 6)


def _moving_average(a):
    return windows(a, 3, axis=-1).mean(axis=-1)


@pytest.mark.parametrize("fn", [
    lambda a: windows(a[0], 3),
    lambda a: windows(a, (2, 3)),
    lambda a: windows(a, 4, axis=1),
    lambda a: windows(a, (3, 2), axis=(1, 0)),
    lambda a: windows(a, 6, axis=-1),
    _moving_average,
])
def test_compiled_windows_equal_numpy(fn):
    got = np.asarray(ag.function(fn)(_X))
    want = fn(_X)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)), st.data())
def test_eager_windows_equal_numpy_for_any_shape_and_window(x, data):
    axis = data.draw(st.integers(0, x.ndim - 1))
    w = data.draw(st.integers(0, x.shape[axis]))
    np.testing.assert_array_equal(np.asarray(windows(ag.constant(x), w, axis=axis)), windows(x, w, axis=axis))


@pytest.mark.parametrize("fn, error, message", [
    (lambda a: windows(a, 7, axis=1), ValueError, r"window shape cannot be larger than input array shape"),
    (lambda a: windows(a, 2), ValueError, r"Since axis is `None`, must provide window_shape for all dimensions"),
    (lambda a: windows(a, (2, 2), axis=0), ValueError, r"Must provide matching length window_shape and axis"),
    (lambda a: windows(a, -1, axis=0), ValueError, r"`window_shape` cannot contain negative values"),
    (lambda a: windows(a, 2, axis=0, writeable=True), TypeError, r"writeable=True"),
])
def test_errors_say_what_numpy_says(fn, error, message):
    with pytest.raises(error, match=message):
        ag.function(fn)(_X)
