"""Column-major ("F") reshapes of tensors: `np.reshape`, `np.ravel`, `.reshape`,
`.ravel`, `.flatten` with `order="F"` give NumPy's values (tensors are row-major,
so "A" and "K" read as "C")."""
import numpy as np
import pytest

import autograph as ag

_M = np.arange(24).reshape(4, 6)


@pytest.mark.parametrize("fn", [
    lambda m: np.ravel(m, order="F"),
    lambda m: m.reshape(3, 8, order="F"),
    lambda m: np.reshape(m, (2, -1), order="F"),
    lambda m: m.flatten("F"),
    lambda m: m.ravel(order="A"),
    lambda m: m.reshape(2, 3, 4, order="F").reshape(6, 4, order="F"),
])
def test_column_major_reshapes_equal_numpy(fn):
    got, want = np.asarray(ag.function(fn)(_M)), fn(_M)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(fn(ag.constant(_M))), want)   # eager


def test_an_unknown_order_names_the_choices():
    with pytest.raises(ValueError, match=r"order must be one of 'C', 'F', 'A', or 'K' \(got 'X'\)"):
        ag.function(lambda m: m.reshape(3, 8, order="X"))(_M)
