"""Issue 10: tensors inside Python lists (TensorFlow's auto-packing), shapes
given as traced vectors, and call-time errors that name the function and the
argument. Programs run eagerly and compiled, compared with NumPy.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def both(fn, *args, **kw):
    return fn(*args), ag.function(fn, **kw)(*args)


# ---------------------------------------------------------------- tensors inside lists

def test_concat_stack_and_operators_pack_lists_holding_tensors():
    def f(v, i):
        return (ag.concat((v, [i]), 0), ag.stack([i, 2 * i, 7]), ag.concat([v, [i, 5]], axis=0),
                v + [i, 1], ag.convert_to_tensor([[i, 1], [2, i]]))

    v, i = ag.constant([1, 2], dtype=ag.int64), ag.constant(3, dtype=ag.int64)
    want = ([1, 2, 3], [3, 6, 7], [1, 2, 3, 5], [4, 3], [[3, 1], [2, 3]])
    for results in both(f, v, i):
        for got, w in zip(results, want):
            assert got.dtype is ag.int64        # the tensor's dtype, not int32 of a Python list
            np.testing.assert_array_equal(got.numpy(), w)


def test_packing_items_of_different_shapes_or_dtypes_is_an_error():
    def f(v, i):
        return ag.concat((v, [i, v]), 0)

    for run in (f, ag.function(f)):
        with pytest.raises(ValueError, match=r"concat: a list holding tensors becomes one tensor, so "
                                             r"its items must have one shape; got shapes \(\), \(2,\)"):
            run(ag.constant([1, 2]), ag.constant(3))

    def g(x, i):
        return ag.concat((x, [i]), 0)

    for run in (g, ag.function(g)):
        with pytest.raises(TypeError, match=r"concat: the operands have different dtypes"):
            run(ag.constant([1.0]), ag.constant(3))


def test_zeros_with_a_traced_shape_vector():
    def f(v):
        n = ag.shape(v)[0]
        return ag.zeros([n, 2]), ag.zeros(ag.shape(v)), ag.ones(ag.stack([n, 1]), dtype=ag.int32)

    x = ag.zeros([3])
    g = ag.function(f, input_signature=[ag.TensorSpec([None], ag.float32)])
    for results in (f(x), g(x)):
        np.testing.assert_array_equal(results[0].numpy(), np.zeros([3, 2]))
        np.testing.assert_array_equal(results[1].numpy(), np.zeros([3]))
        np.testing.assert_array_equal(results[2].numpy(), np.ones([3, 1], np.int32))


def test_zeros_with_a_shape_vector_of_unknown_length_or_rank_is_a_clear_error():
    rank = ag.function(lambda s: ag.zeros(s), input_signature=[ag.TensorSpec(None, ag.int32)])
    with pytest.raises(TypeError, match=r"zeros: a shape given as a traced tensor needs a known rank "
                                        r"and length .* unknown rank"):
        rank(ag.constant([2]))
    length = ag.function(lambda s: ag.zeros(s), input_signature=[ag.TensorSpec([None], ag.int32)])
    with pytest.raises(TypeError, match=r"zeros: a shape given as a traced tensor needs a known "
                                        r"length .*got shape \(None,\)"):
        length(ag.constant([2]))


# ---------------------------------------------------------------- stack / concat shapes

@pytest.mark.parametrize("op,a,b,msg", [
    ("stack", [1.0, 2.0], [1.0, 2.0, 3.0],
     r"stack: part 1 has size 3 in dimension 0 but part 0 has size 2 \(part 1 has shape \(3,\), "
     r"part 0 has shape \(2,\)\)"),
    ("concat", [[1.0, 2.0]], [[1.0, 2.0, 3.0]],
     r"concat: part 1 has size 3 in dimension 1 but part 0 has size 2 \(part 1 has shape \(1, 3\), "
     r"part 0 has shape \(1, 2\)\)"),
])
def test_shape_mismatch_shows_both_shapes(op, a, b, msg):
    def f(x, y):
        return ag.stack([x, y]) if op == "stack" else ag.concat([x, y], 0)

    for run in (f, ag.function(f)):
        with pytest.raises(ag.errors.InvalidArgumentError, match=msg):
            run(ag.constant(a), ag.constant(b))


# ---------------------------------------------------------------- call-time errors

SPEC = ag.TensorSpec([None], ag.float32)


def test_input_not_fitting_the_signature_names_the_parameter_spec_and_value():
    @ag.function(input_signature=[ag.TensorSpec([], ag.float32), SPEC])
    def scale(a, xs):
        return a * xs

    with pytest.raises(ValueError) as e:
        scale(ag.constant(2.0), ag.constant([1, 2]))
    text = str(e.value)
    assert text.startswith("Python inputs incompatible with input_signature")
    assert ("scale: argument 'xs' expected TensorSpec(shape=(None,), dtype=ag.float32, name=None), "
            "got an int32 tensor of shape (2,)") in text
    with pytest.raises(ValueError, match=r"scale: argument 'xs' expected TensorSpec.*got float 1.5"):
        scale(ag.constant(2.0), 1.5)
    np.testing.assert_array_equal(scale(2.0, np.float32([1, 2])).numpy(), [2.0, 4.0])


def test_non_tensor_argument_with_input_signature_is_a_type_error():
    f = ag.function(lambda x: x + 1, input_signature=[SPEC])
    for bad, shown in (("a", "str 'a'"), (None, "NoneType None"), (object, "type <class 'object'>")):
        with pytest.raises(TypeError, match=r"lambda: argument 'x' expected TensorSpec.*got "
                                            + shown.replace("(", r"\(").replace(")", r"\)")
                                            + r"; a function with an input_signature takes tensors"):
            f(bad)


def test_python_bool_for_a_number_spec_is_refused():
    @ag.function(input_signature=[ag.TensorSpec([], ag.float32), ag.TensorSpec([], ag.float32)])
    def add(x, y):
        return x + y

    with pytest.raises(TypeError, match=r"add: argument 'y' expected TensorSpec\(shape=\(\), "
                                        r"dtype=ag.float32.*got bool True; a Python bool is not "
                                        r"converted to float32"):
        add(ag.constant(1.0), True)
    flag = ag.function(lambda b: ag.logical_not(b), input_signature=[ag.TensorSpec([], ag.bool)])
    assert bool(flag(True)) is False


def test_parameter_outside_the_signature_is_not_silently_baked_in():
    @ag.function(input_signature=[ag.TensorSpec([], ag.float32)])
    def f(x, double=False):
        return x * 2 if double else x

    x = ag.constant(1.5)
    assert float(f(x)) == 1.5 and float(f(x, False)) == 1.5 and float(f(x, double=False)) == 1.5
    for call in (lambda: f(x, True), lambda: f(x, double=True)):
        with pytest.raises(TypeError, match=r"f: the input_signature covers 1 parameter\(s\), not "
                                            r"'double', which keeps its default False in the one "
                                            r"compiled trace; got bool True"):
            call()
    # without a signature, True is a Python value of the trace (API.md section 1): one trace each
    g = ag.function(f.python_function)
    assert float(g(x, True)) == 3.0 and float(g(x, False)) == 1.5 and g.tracing_count == 2


@pytest.mark.parametrize("signature", [None, [SPEC]])
def test_wrong_number_of_arguments_names_the_function(signature):
    @ag.function(input_signature=signature)
    def kernel(x):
        return x

    with pytest.raises(TypeError, match=r"kernel\(x\): too many positional arguments \(called with 2 "
                                        r"positional argument\(s\)\)"):
        kernel(ag.constant([1.0]), 2)
    with pytest.raises(TypeError, match=r"kernel\(x\): missing a required argument: 'x'"):
        kernel()
    with pytest.raises(TypeError, match=r"kernel\(x\): got an unexpected keyword argument 'y' "
                                        r"\(called with 1 positional argument\(s\) and keyword "
                                        r"argument\(s\) y\)"):
        kernel(ag.constant([1.0]), y=1)
