"""Boolean-mask indexing as NumPy does it (tracer/api/masks.py): `a[mask]`
selects in row-major order, with a first dimension known only at run time;
`a[mask] = v` is a functional update for a scalar `v` (or one shaped like
`a`). Compared with NumPy eagerly, compiled with static shapes and compiled
with unknown dimensions."""
from __future__ import annotations

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import autograph as ag


def select(a, m):
    return a[m]


def select_sum(a, m):
    return a[m].sum()


def assign(a, m):
    b = a.copy()
    b[m] = -1.0
    return b


def _modes(f, a, m):
    yield "eager", f(ag.constant(a), ag.constant(m)) if f is not assign else None
    yield "compiled", ag.function(f)(a, m)
    spec = [ag.TensorSpec([None] * a.ndim, ag.float64), ag.TensorSpec([None] * m.ndim, ag.bool)]
    yield "unknown dims", ag.function(f, input_signature=spec)(a, m)


@st.composite
def array_and_mask(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    k = draw(st.integers(1, len(shape)))
    a = draw(hnp.arrays(np.float64, shape, elements=st.floats(-10, 10)))
    m = draw(hnp.arrays(np.bool_, shape[:k]))
    return a, m


@settings(max_examples=25, deadline=None)
@given(array_and_mask())
def test_masks_match_numpy(am):
    a, m = am
    for f in (select, select_sum, assign):
        expected = f(a, m)
        for mode, got in _modes(f, a, m):
            if got is None:
                continue
            # (sums may differ in the last bits: NumPy sums pairwise, compiled code in order)
            np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{f.__name__} {mode}")


def test_mask_from_a_comparison_and_a_list_of_bools():
    @ag.function
    def f(a):
        return a[a > 3], a[[True, False, True, False]]

    big, picked = f(np.arange(4.0) * 2)
    np.testing.assert_array_equal(big.numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(picked.numpy(), [0.0, 4.0])


def test_mask_of_the_wrong_shape_is_an_index_error():
    with pytest.raises(IndexError, match="boolean index did not match the indexed tensor along "
                                         "axis 0; size of axis is 3 but size of corresponding "
                                         "boolean axis is 2"):
        ag.function(select)(np.ones(3), np.array([True, False]))
    with pytest.raises(IndexError, match="too many indices: the tensor has rank 1 but the boolean "
                                         "mask has rank 2"):
        ag.function(select)(np.ones(3), np.ones((3, 1), bool))


def test_one_value_per_true_element_is_a_scatter():
    # NumPy's other form (tracer/api/masks.py; more in
    # tests/autograph/test_numpy_kernel_habits.py)
    @ag.function
    def f(a):
        b = a.copy()
        b[b > 0] = [7.0, 8.0]
        return b

    np.testing.assert_array_equal(f(np.array([1.0, -1.0, 2.0])), [7.0, -1.0, 8.0])

    @ag.function
    def g(a):
        b = a.copy()
        b[b > 0] = ag.constant([7.0, 8.0])   # float32 values into float64: no promotion
        return b

    with pytest.raises(TypeError, match="cannot assign a float32 value to a float64 tensor"):
        g(np.array([1.0, -1.0, 2.0]))


# ------------------------------------------------------- np.hstack / vstack / column_stack
# (tracer/api/numpy_stacking.py: compositions NumPy dispatches to when it meets a tensor)

STACKING = {
    "hstack_1d": (lambda a, b: np.hstack([a[0], b[0]]), (3,), (3,)),
    "hstack_2d": (lambda a, b: np.hstack((a, b)), (2, 3), (2, 3)),
    "vstack_1d": (lambda a, b: np.vstack([a[0], b[0]]), (2, 3), (2, 3)),
    "vstack_2d": (lambda a, b: np.vstack([a, b]), (2, 3), (2, 3)),
    "column_stack": (lambda a, b: np.column_stack([a[0], b]), (2, 3), (3, 2)),
    "atleast_2d": (lambda a, b: np.atleast_2d(a[0, 0]) + np.atleast_1d(b[0, 0]), (2, 2), (2, 2)),
}


@pytest.mark.parametrize("name", sorted(STACKING))
def test_stacking_matches_numpy(name):
    f, sa, sb = STACKING[name]
    rng = np.random.default_rng(3)
    a, b = rng.random(sa), rng.random(sb)
    expected = f(a, b)
    np.testing.assert_array_equal(np.asarray(f(ag.constant(a), ag.constant(b))), expected)
    np.testing.assert_array_equal(np.asarray(ag.function(f)(a, b)), expected)


def test_stacking_errors_name_the_function():
    with pytest.raises(TypeError, match="np.hstack: expected a non-empty list or tuple of arrays"):
        np.hstack(ag.constant([1.0]))
