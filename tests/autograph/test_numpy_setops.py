"""`np.unique` and `np.einsum` on tensors (tracer/api/numpy_setops.py):
differential against NumPy eagerly and compiled, and their errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag


def _same(got, want, rtol=0.0):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(a=hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                    elements=st.integers(-4, 4)),
       index=st.booleans(), counts=st.booleans())
def test_unique_ints(a, index, counts):
    fn = ag.function(lambda x: np.unique(x, return_index=index, return_counts=counts))
    _same(fn(a), np.unique(a, return_index=index, return_counts=counts))


@settings(max_examples=30, deadline=None)
@given(a=hnp.arrays(np.float64, st.integers(0, 12),
                    elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan, np.inf])))
def test_unique_floats_with_nan_and_unknown_length(a):
    fn = ag.function(lambda x: np.unique(x, return_counts=True),
                     input_signature=[ag.TensorSpec([None], ag.float64)])
    got, want = fn(a), np.unique(a, return_counts=True)
    # -0.0 and 0.0 are one value; which of them NumPy keeps depends on its sort
    np.testing.assert_array_equal(np.asarray(got[0]), want[0])
    np.testing.assert_array_equal(np.asarray(got[1]), want[1])


A = np.random.default_rng(1).standard_normal((3, 4))
B = np.random.default_rng(2).standard_normal((4, 5))
C = np.random.default_rng(3).standard_normal((2, 3, 4))
D = np.random.default_rng(4).standard_normal((2, 4, 5))
V = np.random.default_rng(5).standard_normal(4)
IM = np.arange(12, dtype=np.int32).reshape(3, 4)

EINSUM = [("ij,jk->ik", A, B), ("ij,jk", A, B), ("ij,kj->ik", A, B.T.copy()), ("i,i->", V, V),
          ("ij,j->i", A, V), ("j,ij", V, A), ("bij,bjk->bik", C, D), ("ij->ji", A), ("ij->", A),
          ("ij,ij->ij", A, A), ("...j,j->...", C, V), ("i,j->ij", V, V), ("bij,bjk->ik", C, D),
          ("ijk->kj", C), ("ij,jk,kl->il", A, B, B.T.copy()), ("ij,jk->ik", IM, IM.T.copy()),
          (" i j , j k -> i k ", A, B)]


@pytest.mark.parametrize("case", EINSUM, ids=[c[0] for c in EINSUM])
def test_einsum_matches_numpy(case):
    spec, *ops = case
    want = np.einsum(spec, *ops)
    _same(np.einsum(spec, *[ag.constant(o) for o in ops]), want, rtol=1e-12)
    _same(ag.function(lambda *o: np.einsum(spec, *o))(*ops), want, rtol=1e-12)


def test_einsum_unknown_dims():
    fn = ag.function(lambda a, b: np.einsum("ij,jk->ik", a, b),
                     input_signature=[ag.TensorSpec([None, 4], ag.float64),
                                      ag.TensorSpec([4, None], ag.float64)])
    _same(fn(A, B), A @ B, rtol=1e-12)


def test_errors():
    x = ag.constant(A)
    # return_inverse is supported (test_published_kernels.py checks its values)
    inverse = ag.function(lambda a: np.unique(a, return_inverse=True)[1])(A)
    np.testing.assert_array_equal(np.asarray(inverse), np.unique(A, return_inverse=True)[1])
    with pytest.raises(TypeError, match=r"np.unique: the axis= argument"):
        ag.function(lambda a: np.unique(a, axis=0))(A)
    with pytest.raises(ValueError, match=r"np.einsum: dimensions in operand for collapsing index 'i' "
                                         r"don't match \(2 != 3\)"):
        ag.function(lambda a: np.einsum("ii->i", a))(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"np.einsum: 1 operand subscripts for 2 operands"):
        np.einsum("ij", x, x)
    with pytest.raises(ValueError, match=r"np.einsum: operand subscripts 'ijk' do not match an "
                                         r"operand of rank 2"):
        np.einsum("ijk->i", x)
    with pytest.raises(ValueError, match=r"np.einsum: output subscript 'z' appears in no operand"):
        np.einsum("ij->z", x)
    with pytest.raises(TypeError, match=r"np.einsum: the operands have different dtypes float64, "
                                        r"int32"):
        np.einsum("ij,jk", x, ag.constant(IM.T.copy()))
