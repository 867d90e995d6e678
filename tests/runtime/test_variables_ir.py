"""Variables in the IR: resource inputs (`ref T`), `read_variable` and
`assign_variable` through the printer, parser, verifier, interpreter, passes
and code generator (the kernel ABI: one slot per resource, written in place).
"""
import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph.codegen import compile_graph
from autograph.tracer.core.compare import graphs_equal
from autograph.tracer.core.errors import InvalidArgumentError
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.core.ir import ResourceType, is_resource
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.passes import run_passes
from autograph.tracer.core.types import TensorType, float32, int32
from autograph.tracer.core.verifier import VerificationError, verify

COUNTER = textwrap.dedent("""\
    graph @count(%x: int32[], %c: ref int32[], %w: ref float32[3]) -> (int32[], float32[3]) {
      %0: int32[] = read_variable(%c)
      %1: int32[] = add(%0, %x)
      assign_variable(%c, %1)
      %2: float32[3] = read_variable(%w)
      %3: float32[] = constant[value=2.0]()
      %4: float32[3] = multiply(%2, %3)
      assign_variable(%w, %4)
      %5: int32[] = read_variable(%c)
      %6: float32[3] = read_variable(%w)
      return %5, %6
    }
    """)

LOOP = textwrap.dedent("""\
    graph @loop(%n: int32[], %v: ref float64[2]) -> (int32[]) {
      %0: int32[] = constant[value=0]()
      %1: int32[] = while(%0) {
        cond(%2: int32[]) {
          %3: bool[] = less(%2, %n)
          yield %3
        }
        body(%4: int32[]) {
          %5: float64[2] = read_variable(%v)
          %6: float64[] = constant[value=1.5]()
          %7: float64[2] = add(%5, %6)
          assign_variable(%v, %7)
          %8: int32[] = constant[value=1]()
          %9: int32[] = add(%4, %8)
          yield %9
        }
      }
      return %1
    }
    """)


# --------------------------------------------------------------------------- text form


@pytest.mark.parametrize("text", [COUNTER, LOOP])
def test_resource_graphs_round_trip(text):
    g = verify(parse_graph(text), strict=True)
    assert str(g) == text
    assert str(parse_graph(str(g))) == text


def test_resource_inputs_have_a_resource_type():
    g = parse_graph(COUNTER)
    x, c, w = g.inputs
    assert not is_resource(x) and is_resource(c) and is_resource(w)
    assert c.type == ResourceType(TensorType(int32, ()))
    assert w.type.value_type == TensorType(float32, (3,))
    assert str(w.type) == "ref float32[3]"
    assert w.name_hint == "w"


def test_traced_graphs_print_and_parse_back():
    v = ag.Variable([1.0, 2.0], name="weights")
    c = ag.Variable(0)

    @ag.function
    def f(x):
        c.assign_add(1)
        if ag.reduce_sum(x) > 0:
            v.assign(v * x)
        for i in ag.range(c):
            v.assign_sub(ag.cast(i, ag.float32))
        return v + 0

    g = f.get_concrete_function(ag.constant([1.0, 1.0])).graph
    text = str(g)
    assert "%weights: ref float32[2]" in text and "%Variable: ref int32[]" in text
    assert graphs_equal(parse_graph(text), g)
    assert str(parse_graph(text)) == text
    verify(parse_graph(g.format(locations=True)), strict=True)


# --------------------------------------------------------------------------- verifier


def _body(*lines, header="graph @f(%x: float32[2], %v: ref float32[2]) -> () {"):
    return "\n".join([header, *("  " + line for line in lines), "}"]) + "\n"


@pytest.mark.parametrize("text, message", [
    (_body("%0: float32[2] = add(%v, %x)", "return"), "operand 0 is a variable"),
    (_body("%0: float32[2] = read_variable(%x)", "return"), "must be a variable"),
    (_body("assign_variable(%v, %v)", "return"), "operand 1 is a variable"),
    (_body("return %v", header="graph @f(%x: float32[2], %v: ref float32[2]) -> (ref float32[2]) {"),
     None),  # a `ref` output type does not even parse
    (_body("%0: int32[2] = constant[value=[1, 2]]()", "assign_variable(%v, %0)", "return"),
     "dtype float32 but the value has dtype int32"),
    (_body("%0: float32[3] = constant[value=[1.0, 2.0, 3.0]]()", "assign_variable(%v, %0)", "return"),
     "shape"),
    (_body("return", header="graph @f(%v: ref float32[None]) -> () {"), "must be fully known"),
    (_body("%0: float32[2] = read_variable(%v)", "%1: bool[] = constant[value=True]()",
           "cond(%1) {", "  then() {", "    yield %v", "  }", "  else() {", "    yield %v", "  }",
           "}", "return"), "yielded value 0 is a variable"),
])
def test_verifier_rejects_misused_resources(text, message):
    if message is None:
        with pytest.raises(ValueError):
            parse_graph(text)
        return
    with pytest.raises(VerificationError, match=message):
        verify(parse_graph(text))


def test_verifier_rejects_resource_region_arguments_and_results():
    text = _body("%0: float32[2] = read_variable(%v)",
                 "%1: float32[2] = while(%0) {",
                 "  cond(%2: ref float32[2]) {",
                 "    %3: bool[] = constant[value=False]()",
                 "    yield %3",
                 "  }",
                 "  body(%4: float32[2]) {",
                 "    yield %4",
                 "  }",
                 "}", "return")
    with pytest.raises(VerificationError, match="region arguments|loop variable types"):
        verify(parse_graph(text))
    text = _body("%0: ref float32[2] = read_variable(%v)", "return")
    with pytest.raises(VerificationError, match="result 0"):
        verify(parse_graph(text))


# --------------------------------------------------------------------------- interpreter


def test_interpreter_reads_and_writes_the_buffers_in_place():
    g = parse_graph(COUNTER)
    c = np.array(5, np.int32)
    w = ag.Variable([1.0, 2.0, 3.0])
    out_c, out_w = run_graph(g, [np.int32(2), c, w])
    assert int(c) == 7 and int(out_c) == 7
    np.testing.assert_array_equal(w.numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(out_w, [2.0, 4.0, 6.0])
    out_w[0] = 100.0                       # outputs are copies
    assert float(w[0]) == 2.0


def test_interpreter_runs_assigns_in_loops():
    v = np.zeros(2)
    (n,) = run_graph(parse_graph(LOOP), [np.int32(4), v])
    assert int(n) == 4
    np.testing.assert_array_equal(v, [6.0, 6.0])


def test_interpreter_rejects_bad_resource_buffers():
    g = parse_graph(COUNTER)
    w = np.zeros(3, np.float32)
    frozen = np.zeros((), np.int32)
    frozen.setflags(write=False)
    for c in [frozen, np.zeros((), np.int64), np.zeros(1, np.int32), 3]:
        with pytest.raises(InvalidArgumentError, match="is a variable"):
            run_graph(g, [np.int32(1), c, w])


def test_interpreter_checks_unknown_dims_of_assigned_values():
    text = _body("assign_variable(%v, %x)", "return",
                 header="graph @f(%x: float32[None], %v: ref float32[2]) -> () {")
    g = verify(parse_graph(text))
    v = np.zeros(2, np.float32)
    run_graph(g, [np.array([1.0, 2.0], np.float32), v])
    np.testing.assert_array_equal(v, [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        run_graph(g, [np.ones(3, np.float32), v])


# --------------------------------------------------------------------------- passes


def test_dce_keeps_assigns_and_drops_unused_reads():
    text = _body("%0: float32[2] = read_variable(%v)",
                 "%1: float32[2] = add(%0, %x)",
                 "%2: float32[2] = read_variable(%v)",
                 "assign_variable(%v, %1)",
                 "%3: float32[2] = read_variable(%v)",
                 "return")
    g = run_passes(parse_graph(text), verify=True)
    assert [op.name for op in g.walk()] == ["read_variable", "add", "assign_variable"]
    assert len(g.inputs) == 2          # inputs (the resource too) stay


def test_passes_keep_effectful_regions_and_never_fold_reads():
    g = run_passes(parse_graph(LOOP), verify=True)
    names = [op.name for op in g.walk()]
    assert "while" in names and "assign_variable" in names and "read_variable" in names
    v = np.zeros(2)
    run_graph(g, [np.int32(2), v])
    np.testing.assert_array_equal(v, [3.0, 3.0])
    # A cond kept only for its assigns survives, with no results.
    text = _body("%0: bool[] = constant[value=True]()",
                 "cond(%0) {", "  then() {", "    assign_variable(%v, %x)", "    yield", "  }",
                 "  else() {", "    yield", "  }", "}", "return")
    g = run_passes(parse_graph(text), verify=True)
    assert [op.name for op in g.walk()] == ["constant", "cond", "assign_variable"]


def test_passes_on_traced_graphs_keep_the_program_order():
    v = ag.Variable(np.array([1.0, 2.0]))

    @ag.function
    def f(x):
        a = v * 1.0
        v.assign(v + x)
        return a, v * 1.0

    g = run_passes(f.get_concrete_function(ag.constant(np.array([1.0, 1.0]))).graph, verify=True)
    names = [op.name for op in g.walk()]
    assert names.index("assign_variable") > names.index("read_variable")
    assert names[names.index("assign_variable") + 1] == "read_variable"
    buf = np.array([1.0, 2.0])
    a, b = run_graph(g, [np.array([1.0, 1.0]), buf])
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(b, [2.0, 3.0])


# --------------------------------------------------------------------------- codegen


def test_kernel_abi_one_slot_per_resource():
    k = compile_graph(verify(parse_graph(COUNTER)))
    # x: 1 slot (scalar); c: 1 slot; w: 1 slot although it has rank 1.
    assert k._n_in == 3
    c = np.array(5, np.int32)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    c_addr, w_addr = c.ctypes.data, w.ctypes.data
    out_c, out_w = k(np.int32(2), c, w)
    assert int(c) == 7 and int(out_c) == 7                  # the compiled code wrote c's memory
    np.testing.assert_array_equal(w, [2.0, 4.0, 6.0])
    assert c.ctypes.data == c_addr and w.ctypes.data == w_addr
    assert out_w.ctypes.data != w.ctypes.data               # outputs are copies
    v = ag.Variable([0.5, 0.5, 0.5])
    k(np.int32(1), c, v)                                    # an ag.Variable works too
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0, 1.0])


def test_kernel_rejects_buffers_it_cannot_write():
    k = compile_graph(verify(parse_graph(COUNTER)))
    w = np.zeros(3, np.float32)
    frozen = np.zeros((), np.int32)
    frozen.setflags(write=False)
    with pytest.raises(InvalidArgumentError, match="writeable"):
        k(np.int32(1), frozen, w)
    with pytest.raises(InvalidArgumentError, match="is a variable"):
        k(np.int32(1), np.zeros((), np.int64), w)
    with pytest.raises(InvalidArgumentError, match="is a variable"):
        k(np.int32(1), np.zeros((), np.int32), np.zeros(4, np.float32))
    with pytest.raises(InvalidArgumentError, match="is a variable"):
        k(np.int32(1), 3, w)
    with pytest.raises(InvalidArgumentError, match="writeable"):
        k(np.int32(1), np.zeros((), np.int32), np.zeros(6, np.float32)[::2])


def test_compiled_loop_agrees_with_the_interpreter():
    g = verify(parse_graph(LOOP))
    k = compile_graph(g)
    a, b = np.array([1.0, -1.0]), np.array([1.0, -1.0])
    for n in [0, 1, 5]:
        (ni,) = run_graph(g, [np.int32(n), a])
        (nc,) = k(np.int32(n), b)
        assert int(ni) == int(nc) == n
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b, [10.0, 8.0])


def test_compiled_assign_checks_unknown_dims_at_run_time():
    text = _body("assign_variable(%v, %x)", "return",
                 header="graph @f(%x: float32[None], %v: ref float32[2]) -> () {")
    k = compile_graph(verify(parse_graph(text)))
    v = np.zeros(2, np.float32)
    k(np.array([3.0, 4.0], np.float32), v)
    np.testing.assert_array_equal(v, [3.0, 4.0])
    with pytest.raises(InvalidArgumentError, match="the variable has size 2"):
        k(np.ones(3, np.float32), v)
    np.testing.assert_array_equal(v, [3.0, 4.0])


def test_reads_borrow_the_buffer_when_nothing_is_assigned():
    # No assign in the graph: the read is a view (no copy), the output a copy.
    text = textwrap.dedent("""\
        graph @f(%x: float32[4], %v: ref float32[4]) -> (float32[4], float32[4]) {
          %0: float32[4] = read_variable(%v)
          %1: float32[4] = add(%0, %x)
          return %1, %0
        }
        """)
    k = compile_graph(verify(parse_graph(text)))
    # Two buffers: the sum and the returned copy (no third one for the read).
    assert k.llvm_ir().count('call ptr @"malloc"') == 2
    v = np.arange(4, dtype=np.float32)
    s, r = k(np.ones(4, np.float32), v)
    np.testing.assert_array_equal(s, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(r, v)
    assert r.ctypes.data != v.ctypes.data
    v[0] = 50.0                          # the returned value does not follow the variable
    assert r[0] == 0.0
    # With an assign in the graph the read is a copy taken at the read.
    k2 = compile_graph(verify(parse_graph(COUNTER)))
    assert "llvm.memcpy" in k2.llvm_ir()


def test_fused_assign_writes_the_variable_without_a_temporary():
    v = ag.Variable(np.zeros(8))

    @ag.function(input_signature=[ag.TensorSpec([8], ag.float64)])
    def f(x):
        v.assign(x * 2.0 + 1.0)

    cf = f.get_concrete_function()
    f(np.arange(8.0))
    np.testing.assert_array_equal(v.numpy(), np.arange(8.0) * 2 + 1)
    assert "malloc" not in cf.llvm_ir(optimized=False)
