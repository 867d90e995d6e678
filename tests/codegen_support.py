"""Helpers for the codegen tests: build graphs with autograph.tracer.api, compile them,
and compare compiled results with the IR interpreter (the NumPy references)."""
from __future__ import annotations

import re

import numpy as np

from autograph.codegen import compile_graph
from autograph.tracer import api  # noqa: F401  (registers every op)
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.tracing.symbolic import GraphBuilder
from autograph.tracer.core.types import TensorType, as_dtype
from autograph.tracer.core.verifier import verify

__all__ = ["build", "compile_fn", "assert_same", "run_both", "T"]


def T(dtype, shape=()) -> TensorType:
    """TensorType shorthand: T('float32', (None, 3))."""
    return TensorType(as_dtype(dtype), tuple(shape) if shape is not None else None)


def build(fn, *types, name="f"):
    """Trace `fn` on symbolic inputs of `types` into a verified Graph."""
    with GraphBuilder(name) as b:
        ins = [b.add_input(t, f"x{i}") for i, t in enumerate(types)]
        outs = fn(*ins)
        if not isinstance(outs, (tuple, list)):
            outs = [outs]
        g = b.finish([b.value_of(o) for o in outs])
    return verify(g)


def compile_fn(fn, *types, boundscheck=True, name="f"):
    """(graph, kernel) for `fn` traced on `types`."""
    g = build(fn, *types, name=name)
    return g, compile_graph(g, boundscheck=boundscheck)


def assert_same(got, want, rtol=0.0, atol=0.0, what=""):
    """Same dtype, shape and values (NaN equals NaN; tolerances for floats)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if got.dtype.kind == "f" and (rtol or atol):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def run_both(graph, kernel, inputs, rtol=0.0, atol=0.0):
    """Run compiled and interpreted; compare every output."""
    got = kernel(*inputs)
    want = run_graph(graph, inputs)
    assert len(got) == len(want)
    for i, (g_, w_) in enumerate(zip(got, want)):
        assert_same(g_, w_, rtol, atol, what=f"output {i}")
    return got


# Vectorisation checks that hold on any x86-64 host: SSE gives 4 floats per
# vector (xmm), AVX2 8 (ymm), AVX-512 16 (zmm); the tests never assume one.
VECTOR_FLOAT = re.compile(r"<(?:4|8|16|32) x float>")
VECTOR_REGISTER = re.compile(r"%[xyz]mm\d+")
