"""A small, seeded generator of programs for differential tests.

`generate(seed)` writes the source of one function `program(n, x)` (`n` an
int32 scalar, `x` a float32 scalar) built from:

* assignments to a float variable `a`, an int variable `b` and the items of
  a dict accumulator `acc` (`acc["s"]`, a float; `acc["k"]`, an int);
* `if` statements on traced conditions (`a > x`, `b > 2`), with or without
  an else branch;
* compiled loops (`for i in ag.range(n)`, `while j < n`) and short Python
  loops (`for k in range(2)`, unrolled at trace time), nested;
* early returns (from branches and from compiled loops) of one nested
  structure, `(a, (b, acc["s"]))` or a dict of it, the same on every path.

Every value stays bounded (floats are contracted, ints stay small) and all
float arithmetic is float32 in both runs, so plain Python and compiled code
give equal results. The generator only builds programs the compiler must
accept: no return inside a Python loop (a return there would depend on a
traced condition), and the function always ends with a return.
"""
from __future__ import annotations

import random
from typing import List

__all__ = ["generate"]

_FLOAT_UPDATES = [
    "a = a * 0.5 + x",
    "a = a - 0.25 * x",
    "a = a * 0.75 + 1.0",
    "acc['s'] = acc['s'] * 0.5 + a",
]
_INT_UPDATES = [
    "b = b + 1",
    "b = b - 2",
    "acc['k'] = acc['k'] + 1",
]
_CONDITIONS = ["a > x", "b > 2", "a < 1.5", "acc['k'] > 1", "x > 0.0"]


class _Writer:
    def __init__(self, rng: random.Random, max_depth: int):
        self.rng = rng
        self.max_depth = max_depth
        self.lines: List[str] = []
        self.loop_ids = 0
        self.returns = rng.choice(["tuple", "dict"])

    def ret(self) -> str:
        if self.returns == "tuple":
            return "return a, (b, acc['s'])"
        return "return {'a': a, 'pair': (b, acc['s'])}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, indent: int, depth: int, in_compiled_loop: bool, in_python_loop: bool,
              loop_var=None) -> None:
        """One to three statements at `indent`."""
        for _ in range(self.rng.randint(1, 3)):
            self.statement(indent, depth, in_compiled_loop, in_python_loop, loop_var)

    def statement(self, indent, depth, in_compiled_loop, in_python_loop, loop_var) -> None:
        rng = self.rng
        kinds = ["float", "int"]
        if loop_var is not None:
            kinds.append("index")
        if depth < self.max_depth:
            kinds += ["if", "if", "for", "while", "pyfor"]
        if not in_python_loop and depth > 0:
            kinds.append("return")
        kind = rng.choice(kinds)
        if kind == "float":
            self.emit(indent, rng.choice(_FLOAT_UPDATES))
        elif kind == "int":
            self.emit(indent, rng.choice(_INT_UPDATES))
        elif kind == "index":
            self.emit(indent, f"b = b + {loop_var} % 3")
        elif kind == "return":
            self.emit(indent, f"if {rng.choice(_CONDITIONS)}:")
            self.emit(indent + 1, self.ret())
        elif kind == "if":
            self.emit(indent, f"if {rng.choice(_CONDITIONS)}:")
            self.block(indent + 1, depth + 1, in_compiled_loop, in_python_loop, loop_var)
            if rng.random() < 0.5:
                self.emit(indent, "else:")
                self.block(indent + 1, depth + 1, in_compiled_loop, in_python_loop, loop_var)
        elif kind == "for":
            self.loop_ids += 1
            name = f"i{self.loop_ids}"
            self.emit(indent, f"for {name} in ag.range(n):")
            self.block(indent + 1, depth + 1, True, in_python_loop, name)
        elif kind == "while":
            self.loop_ids += 1
            name = f"j{self.loop_ids}"
            self.emit(indent, f"{name} = 0")
            self.emit(indent, f"while {name} < n:")
            self.emit(indent + 1, f"{name} += 1")
            self.block(indent + 1, depth + 1, True, in_python_loop, name)
        else:  # a short Python loop, unrolled while tracing
            self.loop_ids += 1
            name = f"k{self.loop_ids}"
            self.emit(indent, f"for {name} in range(2):")
            self.block(indent + 1, depth + 1, in_compiled_loop, True, name)


def generate(seed: int, max_depth: int = 3) -> str:
    """The source of a module defining `program(n, x)`, chosen by `seed`."""
    w = _Writer(random.Random(seed), max_depth)
    w.emit(0, "import autograph as ag")
    w.emit(0, "")
    w.emit(0, "")
    w.emit(0, "def program(n, x):")
    w.emit(1, "a = x * 1.0")
    w.emit(1, "b = 0")
    w.emit(1, "acc = {'s': 0.0, 'k': 0}")
    w.block(1, 0, False, False)
    w.emit(1, w.ret())
    return "\n".join(w.lines) + "\n"
