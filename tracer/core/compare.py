"""Structural equality of graphs, for golden and pass tests.

Two graphs are equal when they have the same name, the same input and output
types, and op by op the same names, attributes (constant arrays compared by
dtype, shape and values, NaN equal to NaN, -0.0 unequal to 0.0, as they print),
result types, operand wiring and regions. Value names and locations are
ignored unless asked for.
"""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from .ir import Block, Graph, Value
from .types import DType

__all__ = ["graphs_equal", "graph_difference"]


def graphs_equal(a: Graph, b: Graph, *, check_name: bool = True,
                 check_locations: bool = False) -> bool:
    """True when `a` and `b` are structurally the same graph (see module doc)."""
    return graph_difference(a, b, check_name=check_name, check_locations=check_locations) is None


def graph_difference(a: Graph, b: Graph, *, check_name: bool = True,
                     check_locations: bool = False) -> Optional[str]:
    """None when the graphs are equal, else a sentence naming the first difference."""
    if check_name and a.name != b.name:
        return f"graph names differ: @{a.name} vs @{b.name}"
    # Maps each value of `a` to its counterpart in `b`; wiring must agree with it.
    mapping: Dict[int, Value] = {}
    return _block_difference(a.body, b.body, mapping, "graph body", check_locations)


def _block_difference(a: Block, b: Block, mapping, where: str,
                      check_locations: bool) -> Optional[str]:
    if len(a.args) != len(b.args):
        return f"{where}: {len(a.args)} vs {len(b.args)} arguments"
    for i, (x, y) in enumerate(zip(a.args, b.args)):
        if x.type != y.type:
            return f"{where}: argument {i} has type {x.type} vs {y.type}"
        mapping[id(x)] = y
    if len(a.ops) != len(b.ops):
        return f"{where}: {len(a.ops)} vs {len(b.ops)} ops"
    for k, (p, q) in enumerate(zip(a.ops, b.ops)):
        at = f"{where}, op {k} ({p.name})"
        if p.name != q.name:
            return f"{where}, op {k}: {p.name} vs {q.name}"
        if [r.type for r in p.results] != [r.type for r in q.results]:
            return (f"{at}: result types {[str(r.type) for r in p.results]} vs "
                    f"{[str(r.type) for r in q.results]}")
        if sorted(p.attrs) != sorted(q.attrs):
            return f"{at}: attributes {sorted(p.attrs)} vs {sorted(q.attrs)}"
        for key in p.attrs:
            if not attrs_equal(p.attrs[key], q.attrs[key]):
                return f"{at}: attribute {key} is {p.attrs[key]!r} vs {q.attrs[key]!r}"
        wiring = _wiring_difference(p.operands, q.operands, mapping, f"{at}: operand")
        if wiring:
            return wiring
        if check_locations and _loc_key(p.loc) != _loc_key(q.loc):
            return f"{at}: location {p.loc} vs {q.loc}"
        if len(p.regions) != len(q.regions):
            return f"{at}: {len(p.regions)} vs {len(q.regions)} regions"
        for j, (ra, rb) in enumerate(zip(p.regions, q.regions)):
            diff = _block_difference(ra, rb, mapping, f"{at}, region {j}", check_locations)
            if diff:
                return diff
        for x, y in zip(p.results, q.results):
            mapping[id(x)] = y
    return _wiring_difference(a.results, b.results, mapping, f"{where}: yielded value")


def _wiring_difference(xs, ys, mapping, what: str) -> Optional[str]:
    if len(xs) != len(ys):
        return f"{what} count {len(xs)} vs {len(ys)}"
    for i, (x, y) in enumerate(zip(xs, ys)):
        if mapping.get(id(x)) is not y:
            return f"{what} {i} is wired to a different value"
    return None


def _loc_key(loc):
    return None if loc is None else (loc.file, loc.line)


def _kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    return type(v).__name__


def attrs_equal(x, y) -> bool:
    """Equality of two attribute values as the printer would tell them apart."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
            return False
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.kind == "f":
            # NaN prints as `nan` whatever its sign and payload: all NaNs are one value.
            nan = np.isnan(x)
            return bool(np.array_equal(nan, np.isnan(y)) and np.array_equal(x[~nan], y[~nan])
                        and np.array_equal(np.signbit(x[~nan]), np.signbit(y[~nan])))
        return x.tolist() == y.tolist()
    if isinstance(x, tuple) or isinstance(y, tuple):
        return (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y)
                and all(attrs_equal(p, q) for p, q in zip(x, y)))
    if isinstance(x, DType) or isinstance(y, DType):
        return x is y
    if _kind(x) != _kind(y):
        return False
    if _kind(x) == "float":
        fx, fy = float(x), float(y)
        if np.isnan(fx) or np.isnan(fy):
            return bool(np.isnan(fx) and np.isnan(fy))
        return fx == fy and bool(np.signbit(fx) == np.signbit(fy))
    return bool(x == y)
