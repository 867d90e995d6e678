"""The native entry's ABI as data (autograph.codegen.abi.binding) and the
modules that bind entries without llvmlite (autograph.codegen.entry.layout,
.native, .dispatch, .glue).

The entry's code and the Python side that fills its tables must agree on
every slot; these tests hold the layout to its own description and check
that the binding side stays free of llvmlite (a disk-cache hit and every
cached call go through it).
"""
import subprocess
import sys

import paths

import numpy as np
import pytest

import autograph as ag
from autograph.codegen.abi import binding
from autograph.codegen.entry.layout import layout

ROOT = paths.ROOT

_HEADER = {name: getattr(binding, name) for name in dir(binding)
           if name.startswith("H_") and name not in ("H_SIZE", "H_DESCR", "H_SCALAR")}


def test_header_slots_are_distinct_and_inside_the_header():
    used = list(_HEADER.values())
    used += [binding.H_DESCR + k for k in range(len(binding.DTYPES))]
    used += [binding.H_SCALAR + k for k in range(len(binding.DTYPES))]
    assert len(used) == len(set(used))
    assert all(0 <= s < binding.H_SIZE for s in used)


def test_table_sections_follow_each_other():
    n_in, n_out, n_checks = 3, 2, 4
    assert binding.input_slot(0) == binding.H_SIZE
    assert binding.recycle_slot(n_in, 0) == binding.input_slot(n_in)
    assert binding.checks_slot(n_in, n_out) == binding.recycle_slot(n_in, n_out)
    assert binding.table_size(n_in, n_out, n_checks) == (
        binding.checks_slot(n_in, n_out) + binding.CHECK_SIZE * n_checks)
    assert binding.table_size(0, 0, 0) == binding.H_SIZE


def test_glue_symbols_carry_the_kernel_symbol():
    s = "ag_f_0123"
    names = [binding.entry_symbol(s), binding.dispatch_symbol(s), binding.free_symbol(s)]
    assert names == [s + suffix for suffix in binding.GLUE_SUFFIXES]


def test_supported_graphs():
    from autograph.tracer.core.types import TensorType, float32, string
    from autograph.tracer.tracing.symbolic import GraphBuilder

    def graph(t):
        b = GraphBuilder("g")
        with b:
            x = b.add_input(t, "x")
            return b.finish([b.value_of(x)])

    assert binding.supported(graph(TensorType(float32, (None, 3))))
    assert not binding.supported(graph(TensorType(float32, None)))   # unknown rank
    assert not binding.supported(graph(TensorType(string, ())))       # not one of DTYPES


@pytest.mark.skipif(not layout().ok, reason="no native entries here")
def test_layout_matches_the_table_dtypes():
    lay = layout()
    assert [d.name for d in lay.descrs] == list(binding.DTYPES)
    assert [np.dtype(t).name for t in lay.scalar_types] == list(binding.DTYPES)


def test_binding_side_needs_no_llvmlite():
    """Binding tables, installing the dispatcher, stripping the glue and the
    runtime's fast path import no llvmlite (only emitting an entry does)."""
    code = ("import sys, autograph, autograph.runtime.fastpath, autograph.codegen.entry.native, "
            "autograph.codegen.entry.dispatch, autograph.codegen.entry.glue, autograph.codegen.jit.kernel; "
            "print(sorted(m for m in sys.modules if m.startswith('llvmlite')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_kernel_finds_its_entry_and_dispatcher():
    @ag.function
    def f(x):
        return x * 2.0

    cf = f.get_concrete_function(ag.TensorSpec([3], ag.float32))
    kernel = cf.kernel
    entry = kernel.native_entry
    if not layout().ok:
        assert entry is None
        return
    assert entry is kernel.native_entry          # looked up once
    assert entry.n_inputs == 1 and entry.n_outputs == 1 and entry.variable_inputs == (False,)
    assert kernel.address_of(binding.entry_symbol(kernel.symbol)) == entry.address
    assert kernel.address_of(binding.dispatch_symbol(kernel.symbol)) != 0
    text = cf.llvm_ir()
    assert binding.entry_symbol(kernel.symbol) not in text      # the glue is stripped
    assert binding.GLUE_GLOBALS[0] not in text
