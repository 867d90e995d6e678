"""Small kernels shipped with the package, for trying autograph and its
command line without writing a file first.

    python -m autograph.examples             run each kernel once and print the result
    autograph ir autograph.examples:collatz_total --sig "int64[]"
    autograph asm autograph.examples:branchy_sum --sig "float64[None]" --time

Each kernel is an `ag.function` written the way a user would write it: plain
Python loops and branches on tensors, converted by AutoGraph.

    collatz_total(n)     total Collatz steps of every start 1..n (a `while` in a `for`)
    branchy_sum(x)       a loop over a vector with a data-dependent branch
    mean_square(x, y)    reduce_mean(x ** 2 * 3 + y), fused into one loop
"""
from __future__ import annotations

import numpy as np

import autograph as ag

__all__ = ["collatz_total", "branchy_sum", "mean_square", "main"]


@ag.function
def collatz_total(n):
    """Total Collatz steps of every start 1..n (`n`: an int64 scalar)."""
    total = ag.constant(0, dtype=ag.int64)
    for start in ag.range(1, n + 1):
        v = start
        while v != 1:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            total += 1
    return total


@ag.function
def branchy_sum(x):
    """Sum of v*v over the positive entries of `x` minus half the others."""
    acc = 0.0
    for i in range(len(x)):
        v = x[i]
        if v > 0:
            acc += v * v
        else:
            acc -= v / 2
    return acc


@ag.function
def mean_square(x, y):
    """reduce_mean(x ** 2 * 3 + y)."""
    return ag.reduce_mean(x ** 2 * 3 + y)


COMMANDS = """\
see what they compile to:
  autograph source    autograph.examples:collatz_total
  autograph converted autograph.examples:branchy_sum
  autograph ir        autograph.examples:collatz_total --sig "int64[]"
  autograph llvm-opt  autograph.examples:mean_square --sig "float32[None], float32[None]"
  autograph asm       autograph.examples:branchy_sum --sig "float64[None]" --time
  AUTOGRAPH_VERBOSITY=3 python -m autograph.examples     (log every stage)"""


def main() -> int:
    """Run each kernel on a small input, print the results and some commands to try."""
    x = np.linspace(-1.0, 1.0, 11)
    print("collatz_total(100)  =", int(collatz_total(ag.constant(100, ag.int64))))
    print("branchy_sum(x)      =", round(float(branchy_sum(x)), 6), "  x = linspace(-1, 1, 11)")
    print("mean_square(x, x)   =", round(float(mean_square(x, x)), 6))
    print()
    print(COMMANDS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
