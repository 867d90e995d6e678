"""Issue 11: a failing call frees the buffers it had allocated.

When compiled code faults (an index out of bounds, an integer division by
zero, a failed check), its error exit frees what the blocks being lowered
own at that point and what the failing op had allocated for its own result
(`Lowerer._free_owned` in autograph/codegen/lowering/driver.py). Many failing
calls, run in a child process under the counting allocator
(tests/alloc_counting.py), must leave the allocation count where it started,
free nothing twice, and keep the error messages and the results of the
calls that succeed.
"""
from __future__ import annotations

from alloc_counting import run_child

CHILD = r'''
import autograph as ag

@ag.function
def out_of_bounds_after_temporaries(x, i):
    t = ag.concat([x, x], 0)
    u = ag.exp(t) + t
    return u[i] + t[0]

@ag.function
def integer_division_by_zero(x, y):
    s = ag.concat([x, x], 0)
    return s // y

@ag.function
def integer_modulo_by_zero(x, y):
    s = ag.concat([x, x], 0) * 3
    return (s % y) + s

@ag.function
def fault_inside_a_loop(x, n, i):
    acc = ag.concat([x, x], 0)
    for k in ag.range(n):
        acc = acc + x[i * k]
    return acc

@ag.function
def fault_inside_a_branch(x, i):
    t = ag.concat([x, x], 0)
    if i > 2:
        t = t * 2.0 + x[i]
    else:
        t = t - 1.0
    return t

@ag.function
def failed_check_after_a_loop(x, n):
    t = ag.concat([x, x], 0)
    for k in ag.range(n):
        y = t * 2.0
    return y + t

fx, ix = np.arange(4.0), np.arange(1, 5)
cases = [
    (out_of_bounds_after_temporaries, (fx, np.int32(2)), (fx, np.int32(99)),
     lambda x, i: np.exp(np.concatenate([x, x]))[i] + np.concatenate([x, x])[i] + x[0],
     "index 99 is out of bounds for axis 0 with size 8"),
    (integer_division_by_zero, (ix, np.full(8, 2)), (ix, np.array([1, 1, 0, 1, 1, 1, 1, 1])),
     lambda x, y: np.concatenate([x, x]) // y, "integer division by zero"),
    (integer_modulo_by_zero, (ix, np.full(8, 3)), (ix, np.array([1, 1, 1, 1, 1, 1, 1, 0])),
     lambda x, y: (np.concatenate([x, x]) * 3) % y + np.concatenate([x, x]) * 3,
     "by zero"),
    (fault_inside_a_loop, (fx, np.int32(3), np.int32(1)), (fx, np.int32(6), np.int32(1)),
     lambda x, n, i: np.concatenate([x, x]) + sum(x[i * k] for k in range(n)),
     "index 4 is out of bounds for axis 0 with size 4"),
    (fault_inside_a_branch, (fx, np.int32(3)), (fx, np.int32(7)),
     lambda x, i: np.concatenate([x, x]) * 2.0 + x[i],
     "index 7 is out of bounds for axis 0 with size 4"),
    (failed_check_after_a_loop, (fx, np.int32(2)), (fx, np.int32(0)),
     lambda x, n: np.concatenate([x, x]) * 3.0,
     "'y' is used after a loop that ran zero times"),
]
for fn, good, bad, want, message in cases:
    for _ in range(2):                          # trace, then the native path
        np.testing.assert_allclose(fn(*good), want(*good))
    gc.collect()
    start = len(live)
    for _ in range(40):
        try:
            fn(*bad)
        except ag.errors.InvalidArgumentError as e:
            assert message in str(e), (fn, str(e))
        else:
            raise AssertionError(f"{fn} did not fail")
        np.testing.assert_allclose(fn(*good), want(*good))
    gc.collect()
    assert len(live) == start, f"{fn}: {len(live) - start} buffers leaked by 40 failing calls"
assert not problems, problems
print("balanced")
'''


def test_failing_calls_free_every_buffer_they_allocated():
    proc = run_child(CHILD, timeout=300, AUTOGRAPH_DISABLE_CACHE="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout
