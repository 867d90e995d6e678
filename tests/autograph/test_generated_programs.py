"""Generated programs (tests/autograph/program_generator.py), each run as
plain Python and compiled, must agree: branches on traced values, compiled
and unrolled loops, early returns of nested structures, dict accumulators.

The seeds are fixed, so a failure names a program that can be regenerated
with `program_generator.generate(seed)`; the count is bounded to keep the
test to a few seconds.
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import autograph as ag
from program_generator import generate
from semantics import assert_same_as_python

SEEDS = range(60)
# (n, x): a zero-trip loop, and both sides of the programs' conditions.
INPUTS = [(0, 0.5), (1, 3.0), (3, 2.0), (5, -1.25)]


def _load(tmp_path, seed):
    # From a file: autograph converts functions from their source.
    path = tmp_path / f"generated_seed_{seed}.py"
    path.write_text(generate(seed))
    spec = importlib.util.spec_from_file_location(f"generated_seed_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generated_program_compiles_to_what_python_computes(tmp_path, seed):
    program = _load(tmp_path, seed)
    for n, x in INPUTS:
        try:
            assert_same_as_python(program, ag.constant(np.int32(n)), ag.constant(np.float32(x)))
        except AssertionError as e:
            raise AssertionError(f"seed {seed}, n={n}, x={x}:\n{generate(seed)}\n{e}") from None


def test_the_generator_is_deterministic_and_varied():
    assert generate(7) == generate(7)
    sources = {generate(seed) for seed in SEEDS}
    assert len(sources) >= 0.9 * len(SEEDS)
    text = "".join(sources)
    for construct in ("ag.range(n)", "while j", "range(2)", "return", "else:", "acc['s']"):
        assert construct in text
