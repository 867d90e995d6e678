"""The eager tensor (autograph.runtime.tensor): conversion rules, protocol and text forms."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph.runtime.tensor as rt
from support import ALL, arrays, assert_same, shapes
from autograph.tracer import api
from autograph.tracer.core.types import float32, int32, int64, string


# ---------------------------------------------------------------- conversion

def test_python_values_get_tensorflow_defaults():
    assert rt.constant(1).dtype is int32
    assert rt.constant(2 ** 40).dtype is int64
    assert rt.constant(1.5).dtype is float32
    assert rt.constant(True).dtype.name == "bool"
    assert rt.constant([1, 2.5]).dtype is float32
    assert rt.constant([[1, 2], [3, 4]]).shape == (2, 2)
    assert rt.constant("héllo").numpy() == "héllo".encode()
    assert rt.constant(["a", b"b"]).dtype is string
    assert rt.constant([]).dtype is float32 and rt.constant([]).shape == (0,)


def test_numpy_values_keep_their_dtype_and_are_copied():
    a = np.array([1.0, 2.0])
    t = rt.constant(a)
    a[0] = 99
    assert t.dtype.name == "float64" and t.numpy()[0] == 1.0
    assert rt.constant(np.int64(3)).dtype is int64
    assert rt.convert_to_tensor(np.array([1], np.int32)).dtype is int32


def test_explicit_dtype():
    assert_same(rt.constant([1, 2], dtype="float64"), np.array([1, 2], np.float64))
    assert_same(rt.constant(np.array([1, 2], np.int64), dtype=np.int32), np.array([1, 2], np.int32))
    assert_same(rt.constant(np.array([1, 2], np.uint8), dtype="int32"), np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match=r"constant: cannot use the float 1\.5 with a tensor of dtype int32"):
        rt.constant(1.5, dtype="int32")
    with pytest.raises(TypeError, match=r"constant: the value \[3000000000\] does not fit in int32"):
        rt.constant([3_000_000_000], dtype=int32)
    with pytest.raises(TypeError, match=r"constant: expected a bool value"):
        rt.constant(1, dtype="bool")
    with pytest.raises(ValueError, match=r"constant: requested dtype float32 for a tensor of dtype "
                                         r"int32; use ag\.cast"):
        rt.constant(rt.constant(1), dtype="float32")
    with pytest.raises(ValueError, match=r"convert_to_tensor: requested dtype int64 for a tensor of "
                                         r"dtype int32"):
        rt.convert_to_tensor(rt.constant(1), dtype="int64")


def test_impossible_conversions():
    with pytest.raises(TypeError, match=r"constant: cannot convert NoneType None to a tensor"):
        rt.constant(None)
    with pytest.raises(TypeError, match=r"constant: cannot convert \[1, None\] to a tensor: "
                                        r"expected numbers or strings, found NoneType"):
        rt.constant([1, None])
    with pytest.raises(ValueError, match=r"constant: cannot convert \[\[1, 2\], \[3\]\] to a "
                                         r"tensor: nested lists must be rectangular"):
        rt.constant([[1, 2], [3]])
    with pytest.raises(TypeError, match=r"constant: the integer 1180591620717411303424 does not fit in int64"):
        rt.constant(2 ** 70)
    with pytest.raises(TypeError, match=r"constant: NumPy dtype float16 is not supported"):
        rt.constant(np.zeros(2, np.float16))
    with pytest.raises(TypeError, match=r"convert_to_tensor: cannot convert dict"):
        rt.convert_to_tensor({})


def test_constant_shape_argument():
    assert_same(rt.constant(0, shape=[2, 3]), np.zeros((2, 3), np.int32))
    assert_same(rt.constant([1, 2, 3, 4], shape=(2, 2)), np.array([[1, 2], [3, 4]], np.int32))
    assert_same(rt.constant([7.0], shape=3), np.full(3, 7.0, np.float32))
    assert_same(rt.constant("x", shape=[2]), np.array([b"x", b"x"], dtype=object))
    with pytest.raises(ValueError, match=r"constant: a value with 2 elements cannot have shape "
                                         r"\(2, 2\): expected 4 elements, or 1 to fill the shape"):
        rt.constant([1, 2], shape=[2, 2])
    with pytest.raises(TypeError, match=r"constant: shape must be a list of non-negative ints"):
        rt.constant(1, shape=[-1])


def test_convert_to_tensor_returns_tensors_unchanged():
    t = rt.constant([1])
    assert rt.convert_to_tensor(t) is t
    assert rt.convert_to_tensor(t, dtype="int32") is t
    assert rt.constant(t) is t
    assert_same(rt.convert_to_tensor([1.0, 2.0], dtype="float64"), np.array([1.0, 2.0]))


# ---------------------------------------------------------------- protocol

@settings(max_examples=30, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(ALL))
def test_round_trip_through_numpy(data, dtype):
    a = data.draw(arrays(dtype, shapes()))
    t = rt.constant(a)
    assert t.dtype.name == dtype and t.shape == a.shape and t.ndim == a.ndim
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(t.numpy(), a)
    assert np.array(t, dtype=np.float64).dtype == np.float64


def test_immutability():
    t = rt.constant([1, 2])
    with pytest.raises(TypeError, match="does not support item assignment"):
        t[0] = 5
    with pytest.raises(AttributeError, match="immutable"):
        t.foo = 1
    owned = np.asarray(t)         # NumPy gets a private, writable copy
    owned[0] = 5
    assert t.numpy()[0] == 1
    view = np.asarray(t, copy=False)   # only a no-copy view shares the memory: read-only
    with pytest.raises(ValueError):
        view[0] = 5
    n = t.numpy()
    n[0] = 5                      # numpy() is a private, writable copy
    assert t.numpy()[0] == 1
    r = t + 1                     # op results are frozen too
    np.asarray(r)[0] = 0
    assert r.numpy()[0] == 2
    with pytest.raises(ValueError):
        np.asarray(r, copy=False)[0] = 0
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    assert_same(pickle.loads(pickle.dumps(t)), np.array([1, 2], np.int32))


def test_array_protocol_copy_flag():
    t = rt.constant([1, 2])
    assert t.__array__(copy=True).flags.writeable
    with pytest.raises(ValueError, match=r"needs a copy, but copy=False was given"):
        t.__array__(dtype=np.float64, copy=False)


def test_scalar_conversions():
    assert int(rt.constant(7)) == 7 and float(rt.constant(2.5)) == 2.5
    assert bool(rt.constant(True)) and not bool(rt.constant(0))
    assert [10, 20, 30][rt.constant(1)] == 20
    assert rt.constant(3).numpy() == 3 and isinstance(rt.constant(3).numpy(), np.int32)
    with pytest.raises(TypeError, match=r"only scalar tensors can be converted to a Python int; "
                                        r"got a tensor of shape \(2,\)"):
        int(rt.constant([1, 2]))
    with pytest.raises(ValueError, match=r"the truth value of a tensor of shape \(2,\) is ambiguous"):
        bool(rt.constant([1, 2]))
    with pytest.raises(TypeError, match=r"only int32/int64 scalar tensors can be used as an index; "
                                        r"got dtype float32"):
        [1][rt.constant(0.0)]
    with pytest.raises(TypeError, match="a string tensor cannot be converted to a Python float"):
        float(rt.constant("a"))


def test_len_and_iteration():
    t = rt.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and isinstance(rows[0], rt.Tensor)
    assert_same(rows[2], np.array([5, 6], np.int32))
    with pytest.raises(TypeError, match=r"len\(\) of a scalar"):
        len(rt.constant(1))
    with pytest.raises(TypeError, match="iteration over a scalar"):
        iter(rt.constant(1))


def test_text_forms():
    t = rt.constant([4, 1])
    assert repr(t) == "<ag.Tensor: shape=(2,), dtype=int32, numpy=array([4, 1], dtype=int32)>"
    assert str(t) == "ag.Tensor([4 1], shape=(2,), dtype=int32)"
    assert repr(rt.constant(2.5)) == "<ag.Tensor: shape=(), dtype=float32, numpy=2.5>"
    assert str(rt.constant(b"ab")) == "ag.Tensor(b'ab', shape=(), dtype=string)"
    assert f"{rt.constant(2.5):.3f}" == "2.500"
    assert f"{t}" == str(t)
    with pytest.raises(TypeError, match=r"format spec '\.2f' needs a scalar tensor"):
        f"{t:.2f}"


def test_operators_and_hash():
    t = rt.constant([1, 2, 3])
    assert_same(t == 2, np.array([False, True, False]))
    assert_same(-t, np.array([-1, -2, -3], np.int32))
    assert_same(abs(rt.constant([-1.5])), np.array([1.5], np.float32))
    assert_same(t & 1, np.array([1, 0, 1], np.int32))
    assert_same((t > 1) | (t < 2), np.array([True, True, True]))
    assert_same((t > 1) ^ True, np.array([True, False, False]))
    assert_same(1 - t, np.array([0, -1, -2], np.int32))
    assert_same(7 // t, np.array([7, 3, 2], np.int32))
    assert_same(2 ** t, np.array([2, 4, 8], np.int32))
    assert_same(10 % t, np.array([0, 0, 1], np.int32))
    assert_same(1 / t, 1 / np.array([1, 2, 3]))
    assert hash(t) == hash(t) and {t: 1}[t] == 1
    assert api.is_traced(t) is False
