"""The rows of the performance table (issue 8): a registry any bench module adds to.

`make bench` (bench/run.py) ends with this table: for every row, autograph
next to its references (NumPy, Numba, ...) measured in the same run, the
ratio reference / autograph (above 1: autograph is faster) and the goal. The
figures are also written to `bench-results/table.json` and, when matplotlib
is installed (the `bench` extra of pyproject.toml), a chart of the ratios to
`bench-results/table.png`.

Adding rows takes a few lines in a module of your own:

    from bench.rows import Row, row

    @row
    def my_rows(ctx):
        x = ctx.rng().standard_normal(100_000)
        return [Row("log on 100k float64", ctx.time(lambda: f(x)),
                    {"NumPy": ctx.time(lambda: np.log(x))}, goal="within 1.2x of NumPy")]

and its module name in `ROW_MODULES` below (imported by `collect`). A row
function takes the `Context` and returns a list of `Row`s (or raises: the
error is printed in place of its rows, the others still run). Keep each one
to a few seconds at `ctx.scale` 1.0; time with `ctx.time` (best of
`ctx.repeat` samples, milliseconds).
"""
from __future__ import annotations

import importlib
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Optional

import numpy as np

__all__ = ["Row", "Context", "row", "ROWS", "ROW_MODULES", "collect"]


@dataclass
class Row:
    """One line of the table.

    `what`: the row's title (as in the issue's table); `autograph`: our figure
    (None: not measured); `refs`: reference name -> figure, in the same unit;
    `unit`: "ms", "us", "s", ...; `goal`: the goal in words; `note`: anything
    else worth printing (a tolerance, why a figure is missing).
    """

    what: str
    autograph: Optional[float]
    refs: Dict[str, Optional[float]] = field(default_factory=dict)
    unit: str = "ms"
    goal: str = ""
    note: str = ""

    def ratios(self) -> Dict[str, Optional[float]]:
        """reference / autograph for each reference (None where a figure is missing)."""
        out = {}
        for name, ref in self.refs.items():
            ok = ref is not None and self.autograph is not None and self.autograph > 0
            out[name] = ref / self.autograph if ok else None
        return out

    def as_dict(self) -> dict:
        d = asdict(self)
        d["ratios"] = self.ratios()
        return d


@dataclass
class Context:
    """What a row function gets: sizes, repetitions, the optional peers."""

    scale: float = 1.0
    repeat: int = 5
    numba: object = None          # the `numba` module, or None when not available
    numba_kernels: object = None  # bench.numba_kernels, or None

    def rng(self, seed: int = 0) -> np.random.Generator:
        return np.random.default_rng(seed)

    def n(self, size: int, minimum: int = 1) -> int:
        """`size` scaled by `scale`."""
        return max(minimum, int(round(size * self.scale)))

    def time(self, fn: Callable[[], object], min_time: float = 0.02, max_calls: int = 1000) -> float:
        """Milliseconds of one call of `fn` (after one warm-up call): the best of
        `repeat` samples, each the mean of enough calls to last `min_time`. The
        best, not the median: on a shared machine the other processes' time
        slices (~20 ms pauses) land in some samples, and the least disturbed
        sample is the figure that compares (the same rule for every column)."""
        fn()
        t0 = time.perf_counter()
        fn()
        once = time.perf_counter() - t0
        number = max(1, min(max_calls, int(min_time / max(once, 1e-9))))
        samples = []
        for _ in range(self.repeat):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - t0) / number)
        return float(np.min(samples)) * 1e3


ROWS: List[Callable[[Context], List[Row]]] = []

# Modules whose import registers rows (each decorates its functions with @row).
ROW_MODULES: List[str] = ["bench.issue_rows", "bench.numpy_style", "bench.native_perf",
                          "bench.slice_views"]


def row(fn: Callable[[Context], List[Row]]) -> Callable[[Context], List[Row]]:
    """Decorator: register a row function (see the module docstring)."""
    ROWS.append(fn)
    return fn


def collect(ctx: Context, only: Optional[str] = None) -> List[Row]:
    """Import `ROW_MODULES`, run every registered row function (those whose
    name contains `only`, if given) and return their rows; a failing function
    gives one row saying why."""
    for name in ROW_MODULES:
        try:
            importlib.import_module(name)
        except Exception as exc:
            print(f"  (rows of {name} not available: {type(exc).__name__}: {exc})")
    rows: List[Row] = []
    for fn in list(ROWS):
        if only and only not in fn.__name__:
            continue
        try:
            rows.extend(fn(ctx))
        except Exception as exc:   # one row must not stop the table
            rows.append(Row(fn.__name__, None, note=f"failed: {type(exc).__name__}: {exc}"))
    return rows
