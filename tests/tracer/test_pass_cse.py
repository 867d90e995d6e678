"""Common-subexpression elimination: IR text in, pass (verified), IR text out."""
import textwrap

import numpy as np
import pytest

from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.passes import run_passes
from autograph.tracer.passes.cse import _canonical


def _run(names, text: str) -> str:
    return str(run_passes(parse_graph(textwrap.dedent(text)), names, verify=True))


def _same(before: str, after: str, names=("cse",)) -> None:
    assert _run(names, before) == textwrap.dedent(after)


def _unchanged(text: str) -> None:
    _same(text, text)


# ------------------------------------------------------------------ pure ops and constants


def test_repeated_ops_and_constants_are_merged():
    _same("""\
        graph @f(%x: float32[3], %y: float32[3]) -> (float32[3], float32[3]) {
          %0: float32[] = constant[value=2.0]()
          %1: float32[3] = multiply(%x, %0)
          %2: float32[] = constant[value=2.0]()
          %3: float32[3] = multiply(%x, %2)
          %4: float32[3] = add(%1, %y)
          %5: float32[3] = add(%3, %y)
          %6: float32[3] = subtract(%4, %5)
          return %6, %5
        }
        """, """\
        graph @f(%x: float32[3], %y: float32[3]) -> (float32[3], float32[3]) {
          %0: float32[] = constant[value=2.0]()
          %1: float32[3] = multiply(%x, %0)
          %2: float32[3] = add(%1, %y)
          %3: float32[3] = subtract(%2, %2)
          return %3, %2
        }
        """)


def test_two_outputs_may_become_one_value():
    _same("""\
        graph @f(%x: int32[]) -> (int32[], int32[]) {
          %0: int32[] = negative(%x)
          %1: int32[] = negative(%x)
          return %0, %1
        }
        """, """\
        graph @f(%x: int32[]) -> (int32[], int32[]) {
          %0: int32[] = negative(%x)
          return %0, %0
        }
        """)


def test_operand_order_and_op_name_matter():
    _unchanged("""\
        graph @f(%x: int32[], %y: int32[]) -> (int32[], int32[], int32[]) {
          %0: int32[] = subtract(%x, %y)
          %1: int32[] = subtract(%y, %x)
          %2: int32[] = add(%x, %y)
          return %0, %1, %2
        }
        """)


def test_constants_differ_by_bits_dtype_and_shape():
    # -0.0 and 0.0 compare equal but are different constants (1/x tells them apart);
    # NaN is unequal to itself but the same NaN is the same constant.
    _same("""\
        graph @f() -> (float32[], float32[], float32[], float32[], float64[], float32[1], int32[], float32[]) {
          %0: float32[] = constant[value=0.0]()
          %1: float32[] = constant[value=-0.0]()
          %2: float32[] = constant[value=nan]()
          %3: float32[] = constant[value=nan]()
          %4: float64[] = constant[value=0.0]()
          %5: float32[1] = constant[value=[0.0]]()
          %6: int32[] = constant[value=0]()
          %7: float32[] = constant[value=-0.0]()
          return %0, %1, %2, %3, %4, %5, %6, %7
        }
        """, """\
        graph @f() -> (float32[], float32[], float32[], float32[], float64[], float32[1], int32[], float32[]) {
          %0: float32[] = constant[value=0.0]()
          %1: float32[] = constant[value=-0.0]()
          %2: float32[] = constant[value=nan]()
          %3: float64[] = constant[value=0.0]()
          %4: float32[1] = constant[value=[0.0]]()
          %5: int32[] = constant[value=0]()
          return %0, %1, %2, %2, %3, %4, %5, %1
        }
        """)


def test_string_constants_compare_by_their_elements():
    _same("""\
        graph @f() -> (string[2], string[2], string[2]) {
          %0: string[2] = constant[value=['ab', 'c']]()
          %1: string[2] = constant[value=['ab', 'c']]()
          %2: string[2] = constant[value=['ab', 'd']]()
          return %0, %1, %2
        }
        """, """\
        graph @f() -> (string[2], string[2], string[2]) {
          %0: string[2] = constant[value=['ab', 'c']]()
          %1: string[2] = constant[value=['ab', 'd']]()
          return %0, %0, %1
        }
        """)


def test_attributes_must_be_equal():
    _same("""\
        graph @f(%x: float32[2,3]) -> (float32[3], float32[2], float32[1,3], float32[3]) {
          %0: float32[3] = reduce_sum[axis=(0,), keepdims=False](%x)
          %1: float32[2] = reduce_sum[axis=(1,), keepdims=False](%x)
          %2: float32[1,3] = reduce_sum[axis=(0,), keepdims=True](%x)
          %3: float32[3] = reduce_sum[axis=(0,), keepdims=False](%x)
          return %0, %1, %2, %3
        }
        """, """\
        graph @f(%x: float32[2,3]) -> (float32[3], float32[2], float32[1,3], float32[3]) {
          %0: float32[3] = reduce_sum[axis=(0,), keepdims=False](%x)
          %1: float32[2] = reduce_sum[axis=(1,), keepdims=False](%x)
          %2: float32[1,3] = reduce_sum[axis=(0,), keepdims=True](%x)
          return %0, %1, %2, %0
        }
        """)


@pytest.mark.parametrize("a, b", [
    (1, 1.0), (1, True), (0.0, -0.0), (0, False), ((1, 2), [1, 2]), ((1,), (1.0,)),
    (np.float32(1.5), np.float64(1.5)), (np.array([0.0]), np.array([-0.0])),
    (np.array([1, 2], np.int32), np.array([[1, 2]], np.int32)), (None, 0), ("1", 1),
])
def test_attribute_keys_tell_apart_values_python_calls_equal(a, b):
    assert _canonical(a) != _canonical(b)


@pytest.mark.parametrize("a, b", [
    (float("nan"), float("nan")), (np.float32("nan"), np.float32("nan")), ((1, (2.5, None)), (1, (2.5, None))),
    (np.array([np.nan, -0.0]), np.array([np.nan, -0.0])), (np.arange(6)[::2], np.array([0, 2, 4])),
])
def test_attribute_keys_are_equal_for_interchangeable_values(a, b):
    assert _canonical(a) == _canonical(b)
    assert hash(_canonical(a)) == hash(_canonical(b))


# ------------------------------------------------------------------ effects


def test_stateful_ops_are_never_merged():
    _unchanged("""\
        graph @f(%x: float32[2], %p: bool[]) -> (float32[2], float32[2]) {
          %0: int32[] = constant[value=2]()
          %1: float32[2] = random_uniform[dtype=float32, seed=7](%0)
          %2: float32[2] = random_uniform[dtype=float32, seed=7](%0)
          print[end='\\n', format=(None,), sep=' '](%x)
          print[end='\\n', format=(None,), sep=' '](%x)
          check[message='p'](%p)
          check[message='p'](%p)
          return %1, %2
        }
        """)


def test_control_flow_ops_are_never_merged():
    _unchanged("""\
        graph @f(%p: bool[], %x: int32[]) -> (int32[], int32[]) {
          %0: int32[] = cond(%p) {
            then() {
              yield %x
            }
            else() {
              yield %x
            }
          }
          %1: int32[] = cond(%p) {
            then() {
              yield %x
            }
            else() {
              yield %x
            }
          }
          return %0, %1
        }
        """)


# ------------------------------------------------------------------ regions


def test_values_of_enclosing_blocks_are_reused_in_regions():
    _same("""\
        graph @f(%p: bool[], %x: int32[]) -> (int32[]) {
          %0: int32[] = constant[value=1]()
          %1: int32[] = add(%x, %0)
          %2: int32[] = cond(%p) {
            then() {
              %3: int32[] = constant[value=1]()
              %4: int32[] = add(%x, %3)
              yield %4
            }
            else() {
              %5: int32[] = negative(%x)
              yield %5
            }
          }
          %6: int32[] = add(%1, %2)
          return %6
        }
        """, """\
        graph @f(%p: bool[], %x: int32[]) -> (int32[]) {
          %0: int32[] = constant[value=1]()
          %1: int32[] = add(%x, %0)
          %2: int32[] = cond(%p) {
            then() {
              yield %1
            }
            else() {
              %3: int32[] = negative(%x)
              yield %3
            }
          }
          %4: int32[] = add(%1, %2)
          return %4
        }
        """)


def test_values_of_a_region_are_not_reused_outside_it_or_in_a_sibling():
    # The then-branch's negative(%x) neither replaces the else-branch's nor the one after the cond.
    _unchanged("""\
        graph @f(%p: bool[], %x: int32[]) -> (int32[], int32[]) {
          %0: int32[] = cond(%p) {
            then() {
              %1: int32[] = negative(%x)
              yield %1
            }
            else() {
              %2: int32[] = negative(%x)
              %3: int32[] = add(%2, %2)
              yield %3
            }
          }
          %4: int32[] = negative(%x)
          return %0, %4
        }
        """)


def test_loop_bodies_reuse_outer_values_and_merge_among_themselves():
    _same("""\
        graph @f(%n: int32[], %x: float32[]) -> (float32[]) {
          %0: int32[] = constant[value=0]()
          %1: float32[] = exp(%x)
          %2: int32[], %3: float32[] = while(%0, %x) {
            cond(%4: int32[], %5: float32[]) {
              %6: bool[] = less(%4, %n)
              yield %6
            }
            body(%7: int32[], %8: float32[]) {
              %9: int32[] = constant[value=1]()
              %10: int32[] = add(%7, %9)
              %11: float32[] = exp(%x)
              %12: float32[] = multiply(%8, %11)
              %13: float32[] = multiply(%8, %11)
              %14: float32[] = add(%12, %13)
              yield %10, %14
            }
          }
          %15: float32[] = add(%1, %3)
          return %15
        }
        """, """\
        graph @f(%n: int32[], %x: float32[]) -> (float32[]) {
          %0: int32[] = constant[value=0]()
          %1: float32[] = exp(%x)
          %2: int32[], %3: float32[] = while(%0, %x) {
            cond(%4: int32[], %5: float32[]) {
              %6: bool[] = less(%4, %n)
              yield %6
            }
            body(%7: int32[], %8: float32[]) {
              %9: int32[] = constant[value=1]()
              %10: int32[] = add(%7, %9)
              %11: float32[] = multiply(%8, %1)
              %12: float32[] = add(%11, %11)
              yield %10, %12
            }
          }
          %13: float32[] = add(%1, %3)
          return %13
        }
        """)


# ------------------------------------------------------------------ variables


def test_reads_merge_until_a_write_of_the_variable():
    _same("""\
        graph @f(%v: ref float32[2], %x: float32[2]) -> (float32[2], float32[2], float32[2], float32[2]) {
          %0: float32[2] = read_variable(%v)
          %1: float32[2] = read_variable(%v)
          assign_variable(%v, %x)
          %2: float32[2] = read_variable(%v)
          %3: float32[2] = read_variable(%v)
          return %0, %1, %2, %3
        }
        """, """\
        graph @f(%v: ref float32[2], %x: float32[2]) -> (float32[2], float32[2], float32[2], float32[2]) {
          %0: float32[2] = read_variable(%v)
          assign_variable(%v, %x)
          %1: float32[2] = read_variable(%v)
          return %0, %0, %1, %1
        }
        """)


def test_a_write_counts_for_every_variable_of_its_type():
    # %v and %w may be the same variable (passed twice); %u (another type) cannot be.
    _same("""\
        graph @f(%v: ref float32[], %w: ref float32[], %u: ref int32[]) -> (float32[], float32[], int32[], int32[]) {
          %0: float32[] = read_variable(%v)
          %1: int32[] = read_variable(%u)
          assign_variable(%w, %0)
          %2: float32[] = read_variable(%v)
          %3: int32[] = read_variable(%u)
          return %0, %2, %1, %3
        }
        """, """\
        graph @f(%v: ref float32[], %w: ref float32[], %u: ref int32[]) -> (float32[], float32[], int32[], int32[]) {
          %0: float32[] = read_variable(%v)
          %1: int32[] = read_variable(%u)
          assign_variable(%w, %0)
          %2: float32[] = read_variable(%v)
          return %0, %2, %1, %1
        }
        """)


def test_writes_inside_a_cond():
    # The then-branch does not write: its read is the one before the cond. The
    # else-branch writes before it reads. After the cond the variable may have changed.
    _same("""\
        graph @f(%p: bool[], %v: ref int32[], %x: int32[]) -> (int32[], int32[], int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = cond(%p) {
            then() {
              %2: int32[] = read_variable(%v)
              yield %2
            }
            else() {
              assign_variable(%v, %x)
              %3: int32[] = read_variable(%v)
              yield %3
            }
          }
          %4: int32[] = read_variable(%v)
          return %0, %1, %4
        }
        """, """\
        graph @f(%p: bool[], %v: ref int32[], %x: int32[]) -> (int32[], int32[], int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = cond(%p) {
            then() {
              yield %0
            }
            else() {
              assign_variable(%v, %x)
              %2: int32[] = read_variable(%v)
              yield %2
            }
          }
          %3: int32[] = read_variable(%v)
          return %0, %1, %3
        }
        """)


def test_a_branch_does_not_see_the_writes_of_the_other():
    _same("""\
        graph @f(%p: bool[], %v: ref int32[], %x: int32[]) -> (int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = cond(%p) {
            then() {
              assign_variable(%v, %x)
              yield %x
            }
            else() {
              %2: int32[] = read_variable(%v)
              yield %2
            }
          }
          return %1
        }
        """, """\
        graph @f(%p: bool[], %v: ref int32[], %x: int32[]) -> (int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = cond(%p) {
            then() {
              assign_variable(%v, %x)
              yield %x
            }
            else() {
              yield %0
            }
          }
          return %1
        }
        """)


def test_a_loop_that_writes_sees_its_own_writes_from_the_start():
    # The body's first read comes *after* the assign of the previous iteration: it is not
    # the read before the loop, nor is the cond region's.
    _unchanged("""\
        graph @f(%v: ref int32[], %n: int32[]) -> (int32[], int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = while(%n) {
            cond(%2: int32[]) {
              %3: int32[] = read_variable(%v)
              %4: bool[] = less(%3, %2)
              yield %4
            }
            body(%5: int32[]) {
              %6: int32[] = read_variable(%v)
              %7: int32[] = add(%6, %5)
              assign_variable(%v, %7)
              yield %5
            }
          }
          %8: int32[] = read_variable(%v)
          return %0, %8
        }
        """)


def test_a_loop_that_only_reads_reuses_the_read_before_it():
    _same("""\
        graph @f(%v: ref int32[], %n: int32[]) -> (int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = while(%n) {
            cond(%2: int32[]) {
              %3: int32[] = read_variable(%v)
              %4: bool[] = less(%3, %2)
              yield %4
            }
            body(%5: int32[]) {
              %6: int32[] = read_variable(%v)
              %7: int32[] = add(%6, %5)
              yield %7
            }
          }
          return %1
        }
        """, """\
        graph @f(%v: ref int32[], %n: int32[]) -> (int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = while(%n) {
            cond(%2: int32[]) {
              %3: bool[] = less(%0, %2)
              yield %3
            }
            body(%4: int32[]) {
              %5: int32[] = add(%0, %4)
              yield %5
            }
          }
          return %1
        }
        """)


def test_a_write_in_a_nested_loop_counts_for_the_outer_one():
    _unchanged("""\
        graph @f(%v: ref int32[], %p: bool[], %n: int32[]) -> (int32[], int32[]) {
          %0: int32[] = read_variable(%v)
          %1: int32[] = while(%n) {
            cond(%2: int32[]) {
              yield %p
            }
            body(%3: int32[]) {
              %4: int32[] = read_variable(%v)
              %5: int32[] = cond(%p) {
                then() {
                  assign_variable(%v, %3)
                  yield %3
                }
                else() {
                  yield %4
                }
              }
              yield %5
            }
          }
          %6: int32[] = read_variable(%v)
          return %0, %6
        }
        """)


# ------------------------------------------------------------------ in the pipeline


def test_folded_constants_are_merged_with_existing_ones():
    _same("""\
        graph @f(%x: int32[]) -> (int32[]) {
          %0: int32[] = constant[value=2]()
          %1: int32[] = constant[value=3]()
          %2: int32[] = subtract(%1, %0)
          %3: int32[] = constant[value=1]()
          %4: int32[] = add(%x, %3)
          %5: int32[] = add(%x, %2)
          %6: int32[] = multiply(%4, %5)
          return %6
        }
        """, """\
        graph @f(%x: int32[]) -> (int32[]) {
          %0: int32[] = constant[value=1]()
          %1: int32[] = add(%x, %0)
          %2: int32[] = multiply(%1, %1)
          return %2
        }
        """, names=None)


def test_results_are_preserved():
    text = """\
        graph @f(%p: bool[], %x: float64[4], %v: ref float64[4]) -> (float64[4], float64[4]) {
          %0: float64[4] = sin(%x)
          %1: float64[4] = read_variable(%v)
          %2: float64[4] = cond(%p) {
            then() {
              %3: float64[4] = sin(%x)
              %4: float64[4] = add(%3, %1)
              assign_variable(%v, %4)
              yield %3
            }
            else() {
              %5: float64[4] = read_variable(%v)
              yield %5
            }
          }
          %6: float64[4] = read_variable(%v)
          %7: float64[4] = sin(%x)
          %8: float64[4] = add(%0, %7)
          %9: float64[4] = add(%8, %6)
          return %9, %2
        }
        """
    x = np.array([0.5, -1.0, 2.0, 3.0])
    for p in (True, False):
        want_v, got_v = np.ones(4), np.ones(4)
        want = run_graph(parse_graph(textwrap.dedent(text)), [np.bool_(p), x, want_v])
        optimised = run_passes(parse_graph(textwrap.dedent(text)), ["cse"], verify=True)
        assert sum(1 for op in optimised.walk() if op.name == "sin") == 1
        got = run_graph(optimised, [np.bool_(p), x, got_v])
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(got_v, want_v)
