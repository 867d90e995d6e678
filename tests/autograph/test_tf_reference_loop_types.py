"""Ports of TensorFlow's AutoGraph reference tests for loop variables whose
shape changes under `set_loop_options(shape_invariants=...)`
(`loop_with_variable_type_test.py`) and for loop variables that change
dtype, shape or structure illegally
(`loop_with_variable_type_illegal_cases_test.py`).

Each legal case runs a plain function compiled and plainly and compares them
(tests/autograph/tf_reference.py); each illegal one must raise with a
message naming the variable and the loop's line.
"""
from __future__ import annotations

import collections
import itertools

import pytest

import autograph as ag
from semantics import line_of
from tf_reference import compiled, matches_eager, matches_eager_batch, raises

pytestmark = pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning")

NO_DATASETS = pytest.mark.skip(reason="tf.data datasets (and their iterators) do not exist in autograph")
NO_SPARSE = pytest.mark.skip(reason="sparse tensors (tf.SparseTensor, tf.sparse) do not exist in autograph")
NO_DISTRIBUTE = pytest.mark.skip(reason="distribution strategies (tf.distribute) do not exist in autograph")
set_loop_options = ag.autograph.experimental.set_loop_options


def _cases(*axes):
    return list(itertools.product(*axes))


# --------------------------------------------------- loop_with_variable_type_test


def while_with_variable_shape_growing_vector(n):
    v = ag.constant([0, 0])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
        v = ag.concat((v, [i]), 0)
        i += 1
    return v


def for_with_variable_shape_growing_vector(seq):
    v = ag.constant([0, 0])
    for i in seq:
        set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
        v = ag.concat((v, [i]), 0)
    return v


def while_with_variable_shape_growing_matrix_rows(n):
    m = ag.constant([[0]])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(m, ag.TensorShape([None, 1]))])
        m = ag.concat((m, [[i]]), 0)
        i += 1
    return m


def for_with_variable_shape_growing_matrix_rows(seq):
    m = ag.constant([[0]])
    for i in seq:
        set_loop_options(shape_invariants=[(m, ag.TensorShape([None, 1]))])
        m = ag.concat((m, [[i]]), 0)
    return m


def while_with_variable_shape_growing_matrix_cols(n):
    m = ag.constant([[0, 0]])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(m, ag.TensorShape([1, None]))])
        m = ag.concat((m, [[i]]), 1)
        i += 1
    return m


def for_with_variable_shape_growing_matrix_cols(seq):
    m = ag.constant([[0, 0]])
    for i in seq:
        set_loop_options(shape_invariants=[(m, ag.TensorShape([1, None]))])
        m = ag.concat((m, [[i]]), 1)
    return m


def while_with_variable_shape_growing_matrix(n):
    m = ag.constant([[0, 0], [0, 0]])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(m, ag.TensorShape(None))])
        m = ag.pad(m, [[1, 1], [1, 1]], constant_values=i)
        i += 1
    return m


def for_with_variable_shape_growing_matrix(seq):
    m = ag.constant([[0, 0], [0, 0]])
    for i in seq:
        set_loop_options(shape_invariants=[(m, ag.TensorShape(None))])
        m = ag.pad(m, [[1, 1], [1, 1]], constant_values=i)
    return m


def while_with_variable_shape_inside_if(n):
    v = ag.constant([0, 0])
    i = 0
    if n > 1:
        while i < n:
            set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
            v = ag.concat((v, [i]), 0)
            i += 1
    else:
        v = ag.constant([1, 2, 3])
    return v


def for_with_variable_shape_inside_if(n):
    v = ag.constant([0, 0])
    if n > 1:
        for i in range(n):
            set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
            v = ag.concat((v, [i]), 0)
            i += 1
    else:
        v = ag.constant([1, 2, 3])
    return v


def for_with_nested_variable_shape_inside_if(n):
    Test = collections.namedtuple("Test", ["var"])
    t = Test(var=ag.constant([0]))
    v = ag.constant([0, 0])
    if n > 1:
        for i in range(n):
            set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
            v = ag.concat((v, [i]), 0)
            t = Test(var=t.var + 1)
            i += 1
    else:
        v = ag.constant([1, 2, 3])
        t = Test(var=ag.constant([3]))
    return v


def while_with_variable_shape_and_break(n):
    v = ag.constant([0, 0])
    i = 0
    if n > 1:
        while i < n:
            set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
            v = ag.concat((v, [i]), 0)
            i += 1
            if i > 3:
                break
    else:
        v = ag.constant([1, 2, 3])
    return v


def for_with_variable_shape_and_break(n):
    v = ag.constant([0, 0])
    if n > 1:
        for i in range(n):
            set_loop_options(shape_invariants=[(v, ag.TensorShape([None]))])
            v = ag.concat((v, [i]), 0)
            i += 1
            if i > 3:
                break
    else:
        v = ag.constant([1, 2, 3])
    return v


WHILE_GROWING = [while_with_variable_shape_growing_vector, while_with_variable_shape_growing_matrix_rows,
                 while_with_variable_shape_growing_matrix_cols, while_with_variable_shape_growing_matrix]
FOR_GROWING = [for_with_variable_shape_growing_vector, for_with_variable_shape_growing_matrix_rows,
               for_with_variable_shape_growing_matrix_cols, for_with_variable_shape_growing_matrix]
INSIDE_IF = [while_with_variable_shape_inside_if, for_with_variable_shape_inside_if,
             for_with_nested_variable_shape_inside_if]


# Each test covers TensorFlow's grid for one function: the cases with Python
# arguments in one batch (tf_reference.matches_eager_batch), then the cases
# with tensor arguments one by one (they share traces).
@pytest.mark.parametrize("target", WHILE_GROWING + INSIDE_IF)
def test_variable_shape_in_while(target):
    matches_eager_batch(target, [(n,) for n in (0, 1, 2)])
    for n in (0, 1, 2):
        matches_eager(target, ag.constant(n))


@pytest.mark.parametrize("target", FOR_GROWING)
def test_variable_shape_in_for(target):
    matches_eager_batch(target, [(range(n),) for n in (0, 1, 2)])
    for n in (0, 1, 2):
        matches_eager(target, ag.range(n))


@NO_DATASETS
@pytest.mark.parametrize("target", FOR_GROWING)
def test_variable_shape_in_for_over_a_dataset(target):
    """TensorFlow's `tf.data.Dataset.range` variants."""


@pytest.mark.parametrize("target", [while_with_variable_shape_and_break, for_with_variable_shape_and_break])
def test_variable_shape_and_break(target):
    matches_eager_batch(target, [(n,) for n in (0, 1, 2, 5)])
    for n in (0, 1, 2, 5):
        matches_eager(target, ag.constant(n))


@NO_SPARSE
def test_composite_tensor_shape_invariant():
    """TensorFlow's `while_/for_with_composite_tensor_shape_invariant` (a SparseTensor)."""


# ------------------------------------- loop_with_variable_type_illegal_cases_test


def while_with_variable_py_type():
    n = ag.constant(0, dtype=ag.int32)
    c = True
    while c:
        c = ag.constant(True)
    return n


def while_with_variable_dtype():
    n = ag.constant(0, dtype=ag.int32)
    while ag.constant(True):
        n = ag.constant(0, dtype=ag.float32)
    return n


def while_with_variable_dtype_and_early_stopping():
    n = ag.constant(0, dtype=ag.int32)
    while ag.constant(True):
        n = ag.constant(0, dtype=ag.float32)
        break
    return n


def for_with_variable_dtype(seq):
    n = ag.constant(0, dtype=ag.int32)
    for _ in seq:
        n = ag.constant(0, dtype=ag.float32)
    return n


def for_with_variable_dtype_and_early_stopping(seq):
    n = ag.constant(0, dtype=ag.int32)
    for _ in seq:
        n = ag.constant(0, dtype=ag.float32)
        break
    return n


def while_with_variable_shape():
    t = ag.constant([1])
    while ag.constant(True):
        t = ag.constant([1, 1])
    return t


def for_with_variable_shape(seq):
    t = ag.constant([1])
    for _ in seq:
        t = ag.constant([1, 1])
    return t


def while_with_shape_erasure():
    t = ag.constant([1])
    while ag.constant(True):
        t = ag.range(ag.random.uniform((), 2, 3, dtype=ag.int32))
    return t


def for_with_shape_erasure(seq):
    t = ag.constant([1])
    for _ in seq:
        t = ag.range(ag.random.uniform((), 2, 3, dtype=ag.int32))
    return t


def while_with_shape_invariant_violation():
    t = ag.constant([1])
    while ag.constant(True):
        set_loop_options(shape_invariants=((t, ag.TensorShape([1])),))
        t = ag.range(ag.random.uniform((), 2, 3, dtype=ag.int32))
    return t


def for_with_shape_invariant_violation(seq):
    t = ag.constant([1])
    for _ in seq:
        set_loop_options(shape_invariants=((t, ag.TensorShape([1])),))
        t = ag.range(ag.random.uniform((), 2, 3, dtype=ag.int32))
    return t


def while_with_variable_structure():
    s = {"a": ag.constant(0)}
    while ag.constant(True):
        s = ag.constant(7.0)
    return s


def for_with_variable_structure(seq):
    s = [ag.constant(0)]
    for _ in seq:
        s = s + [ag.constant(0)]
    return s


def _tf_range(seq):
    return ag.range(len(seq))


ITERABLES = {"constant": ag.constant, "range": _tf_range}
DTYPE_CHANGE = "'n' has dtype int32 before the loop, but dtype float32 after"
SHAPE_CHANGE = r"'t' has shape \(1,\) before the loop, but shape \(2,\) after"
SHAPE_ERASURE = r"'t' has shape \(1,\) before the loop, but shape \(None,\) after"


def _raises_at_loop(target, args, error, pattern, loop_line):
    e = raises(target, args, error, pattern)
    assert f"line {line_of(target, loop_line)}" in str(e), str(e)


def test_while_with_variable_py_type():
    # TensorFlow refuses a condition that starts as a Python bool and becomes a
    # tensor. autograph runs the first iteration in Python and continues as a
    # compiled loop (API.md section 9), so here it traces a compiled `while`
    # (which would never end: it is not called).
    cf = compiled(while_with_variable_py_type).get_concrete_function()
    assert "while(" in str(cf.raw_graph)


@pytest.mark.parametrize("target", [while_with_variable_dtype, while_with_variable_dtype_and_early_stopping])
def test_while_with_variable_dtype(target):
    _raises_at_loop(target, (), TypeError, DTYPE_CHANGE, "while ag.constant(True)")


@pytest.mark.parametrize("type_", ITERABLES.values())
@pytest.mark.parametrize("target", [for_with_variable_dtype, for_with_variable_dtype_and_early_stopping])
def test_for_with_variable_dtype(target, type_):
    _raises_at_loop(target, (type_([1, 2, 3]),), TypeError, DTYPE_CHANGE, "for _ in seq")


def test_while_with_variable_shape():
    _raises_at_loop(while_with_variable_shape, (), ValueError, SHAPE_CHANGE, "while ag.constant(True)")


@pytest.mark.parametrize("type_", ITERABLES.values())
def test_for_with_variable_shape(type_):
    _raises_at_loop(for_with_variable_shape, (type_([1, 2, 3]),), ValueError, SHAPE_CHANGE, "for _ in seq")


def test_while_with_shape_erasure():
    _raises_at_loop(while_with_shape_erasure, (), ValueError, SHAPE_ERASURE, "while ag.constant(True)")


@pytest.mark.parametrize("type_", ITERABLES.values())
def test_for_with_shape_erasure(type_):
    _raises_at_loop(for_with_shape_erasure, (type_([1, 2, 3]),), ValueError, SHAPE_ERASURE, "for _ in seq")


def test_while_with_shape_invariant_violation():
    _raises_at_loop(while_with_shape_invariant_violation, (), ValueError,
                    r"'t' has shape \(None,\) after one iteration, which does not conform", "while ag.constant(True)")


@pytest.mark.parametrize("type_", ITERABLES.values())
def test_for_with_shape_invariant_violation(type_):
    _raises_at_loop(for_with_shape_invariant_violation, (type_([1, 2, 3]),), ValueError,
                    r"'t' has shape \(None,\) after one iteration, which does not conform", "for _ in seq")


def test_while_with_variable_structure():
    _raises_at_loop(while_with_variable_structure, (), TypeError, "'s' does not have the same nested structure",
                    "while ag.constant(True)")


@pytest.mark.parametrize("type_", ITERABLES.values())
def test_for_with_variable_structure(type_):
    _raises_at_loop(for_with_variable_structure, (type_([1, 2, 3]),), TypeError,
                    "'s' does not have the same nested structure", "for _ in seq")


@NO_DATASETS
def test_illegal_loop_variables_over_datasets():
    """TensorFlow's `_dataset` and `_dataset_iterator` variants of the cases above."""


@NO_DISTRIBUTE
def test_illegal_loop_variables_over_distributed_datasets():
    """TensorFlow's `_distributed_dataset` variants of the cases above."""


# ------------------------------------------- beyond TensorFlow's cases: invariants


def rank_changing_under_unknown_rank_invariant(n):
    t = ag.constant([1, 2])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(t, ag.TensorShape(None))])
        t = ag.reshape(t, [1, -1])
        i += 1
    return t


def invariant_that_does_not_fit(n):
    t = ag.constant([1, 2])
    for _ in range(n):
        set_loop_options(shape_invariants=[(t, ag.TensorShape([3]))])
        t = t + 1
    return t


def test_an_unknown_rank_invariant_keeps_the_rank_in_a_compiled_loop():
    _raises_at_loop(rank_changing_under_unknown_rank_invariant, (ag.constant(2),), ValueError,
                    r"'t' has shape \(1, None\) after one iteration, which does not conform to the shape "
                    r"invariant <unknown>; a compiled loop keeps a variable's rank", "while i < n")
    # run in Python (a Python bound), the rank changes freely
    matches_eager_batch(rank_changing_under_unknown_rank_invariant, [(0,), (2,)])


@pytest.mark.parametrize("n", (2, ag.constant(2)))
def test_an_invariant_that_does_not_fit_is_an_error_before_the_loop(n):
    _raises_at_loop(invariant_that_does_not_fit, (n,), ValueError,
                    r"shape_invariants\[0\]: the variable has shape \(2,\), which does not fit the invariant \(3,\)",
                    "for _ in range(n)")


def growing_with_positional_options(n):
    v = ag.constant([0])
    i = 0
    while i < n:
        set_loop_options(None, None, None, [(v, ag.TensorShape([None]))])
        v = ag.concat((v, [i]), 0)
        i += 1
    return v


def test_shape_invariants_given_by_position():
    matches_eager(growing_with_positional_options, ag.constant(3))
    assert "int32[None] = while(" in str(compiled(growing_with_positional_options).get_concrete_function(
        ag.constant(3)).graph)
