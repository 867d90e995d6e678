"""Arrays in the other byte order (`>f8`, as read from FITS or network files) are
accepted wherever an array of the same dtype is: the values, in native order."""
import numpy as np
import pytest

import autograph as ag

_DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int16, np.uint16, np.complex128]


def _swapped(a: np.ndarray) -> np.ndarray:
    """The same values as `a`, stored in the non-native byte order."""
    out = a.astype(a.dtype.newbyteorder())
    assert not out.dtype.isnative and np.array_equal(out, a)
    return out


def _affine(x):
    return x * 2 + 1, x


@pytest.mark.parametrize("dtype", _DTYPES)
def test_compiled_function_takes_the_values_not_the_bytes(dtype):
    a = np.arange(-3, 9).astype(dtype).reshape(3, 4)
    got, same = ag.function(_affine)(_swapped(a))
    np.testing.assert_array_equal(got.numpy(), a * 2 + 1)
    np.testing.assert_array_equal(same.numpy(), a)
    assert got.dtype == ag.as_dtype(dtype) and got.numpy().dtype.isnative


@pytest.mark.parametrize("dtype", _DTYPES)
def test_eager_tensors_and_variables_hold_native_arrays(dtype):
    a = np.arange(5).astype(dtype)
    for t in (ag.constant(_swapped(a)), ag.convert_to_tensor(_swapped(a)), ag.Variable(_swapped(a))):
        assert t.dtype == ag.as_dtype(dtype)
        assert t.numpy().dtype == np.dtype(dtype) and t.numpy().dtype.isnative
        np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal((ag.constant(_swapped(a)) + ag.constant(a)).numpy(), a + a)


def test_as_dtype_reads_the_other_byte_order_as_the_same_dtype():
    assert ag.as_dtype(np.dtype(">f8")) == ag.float64
    assert ag.as_dtype(np.dtype("<i4").newbyteorder()) == ag.int32


def test_an_unsupported_dtype_in_either_order_still_names_the_supported_ones():
    with pytest.raises(TypeError, match=r"NumPy dtype >f2 is not supported; expected one of bool, int8"):
        ag.as_dtype(np.dtype(">f2"))
    with pytest.raises(TypeError, match=r"float16 is not supported"):
        ag.function(_affine)(np.ones(3, np.float16))
