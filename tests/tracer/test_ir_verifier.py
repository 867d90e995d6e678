"""The IR verifier: valid graphs pass, each broken invariant is named."""
import numpy as np
import pytest

from autograph.tracer.core import types as T
from autograph.tracer.core.ir import Block, Graph, Location, Op
from autograph.tracer.core.parser import parse_graph
from autograph.tracer.core.verifier import VerificationError, verify

VALID = """\
graph @ok(%x: int32[None], %n: int32[]) -> (int32[None], int32[]) {
  %0: int32[] = constant[value=0]()
  %1: bool[] = less(%n, %0)
  %2: int32[None] = cond(%1) {
    then() {
      %3: int32[None] = negative(%x)
      yield %3
    }
    else() {
      %4: int32[2] = constant[value=[1, 2]]()
      yield %4
    }
  }
  %5: int32[], %6: int32[None] = while(%0, %2) {
    cond(%7: int32[], %8: int32[None]) {
      %9: bool[] = less(%7, %n)
      yield %9
    }
    body(%10: int32[], %11: int32[None]) {
      %12: int32[] = constant[value=1]()
      %13: int32[] = add(%10, %12)
      %14: int32[None] = add(%11, %x)
      yield %13, %14
    }
  }
  %15: bool[] = greater_equal(%5, %0)
  check[message='n was negative'](%15)
  %16: int32[] = reduce_sum[axis=(0,), keepdims=False](%6)
  return %6, %16
}
"""


def test_valid_graph_passes_strict_and_loose():
    g = parse_graph(VALID)
    assert verify(g) is g
    verify(g, strict=True)


def _fails(text_or_graph, *fragments):
    g = parse_graph(text_or_graph) if isinstance(text_or_graph, str) else text_or_graph
    with pytest.raises(VerificationError) as info:
        verify(g)
    for f in fragments:
        assert f in str(info.value), str(info.value)
    return str(info.value)


def _g(*body, header="graph @f(%x: float32[2], %i: int32[]) -> (float32[2]) {", ret="  return %x"):
    return "\n".join([header, *body, ret, "}"]) + "\n"


def test_result_type_must_match_type_rule():
    _fails(_g("  %0: float32[3] = add(%x, %x)"),
           "op 0 'add' in graph @f", "declared result types (float32[3])",
           "type rule gives (float32[2])")


def test_type_rule_errors_are_reported():
    _fails(_g("  %0: float32[2] = add(%x, %i)"), "op 0 'add'", "the type rule rejects operands",
           "different dtypes")


def test_less_specific_declared_type_is_sound_but_not_strict():
    g = parse_graph(_g("  %0: float32[None] = add(%x, %x)"))
    verify(g)
    with pytest.raises(VerificationError, match="type rule gives"):
        verify(g, strict=True)


def test_unregistered_op():
    _fails(_g("  %0: float32[2] = frobnicate(%x)"), "op 'frobnicate' is not registered")


def test_operand_from_another_graph():
    other = parse_graph(_g())
    g = parse_graph(_g("  %0: float32[2] = negative(%x)"))
    g.body.ops[0].operands = [other.inputs[0]]
    _fails(g, "operand 0 (float32[2]) is not defined anywhere in this graph")


def test_operand_used_before_definition():
    g = parse_graph(_g("  %0: float32[2] = negative(%x)", "  %1: float32[2] = negative(%0)"))
    g.body.ops.reverse()
    _fails(g, "op 0 'negative'", "used before it is defined")


def test_value_escaping_its_region():
    g = parse_graph(_g("  %0: bool[] = constant[value=True]()",
                       "  %1: float32[2] = cond(%0) {",
                       "    then() {",
                       "      %2: float32[2] = negative(%x)",
                       "      yield %2",
                       "    }",
                       "    else() {",
                       "      yield %x",
                       "    }",
                       "  }"))
    inner = g.body.ops[1].regions[0].ops[0].result
    g.body.results = [inner]
    _fails(g, "graph output 0", "outside the region that defines it")


def test_op_results_are_not_visible_in_its_own_regions():
    g = parse_graph(_g("  %0: bool[] = constant[value=True]()",
                       "  %1: float32[2] = cond(%0) {",
                       "    then() {",
                       "      yield %x",
                       "    }",
                       "    else() {",
                       "      yield %x",
                       "    }",
                       "  }"))
    cond = g.body.ops[1]
    cond.regions[0].results = [cond.result]
    _fails(g, "the then region of op 1 'cond'", "yielded value 0")


def test_constant_checks():
    g = parse_graph(_g("  %0: int32[2] = constant[value=[1, 2]]()"))
    const = g.body.ops[0]
    const.attrs["value"] = np.array([1, 2], np.int32)  # writable
    _fails(g, "read-only")
    v = np.array([1, 2], np.int64)
    v.setflags(write=False)
    const.attrs["value"] = v
    _fails(g, "the value is int64[2] but the result types are (int32[2])")


def test_cond_checks():
    _fails(_g("  %0: float32[2] = cond(%i) {", "    then() {", "      yield %x", "    }",
              "    else() {", "      yield %x", "    }", "  }"),
           "op 0 'cond'", "the predicate must be a bool scalar, got int32[]")
    _fails(_g("  %0: bool[] = constant[value=True]()",
              "  %1: float32[2] = cond(%0) {", "    then() {", "      yield %x", "    }",
              "    else() {", "      yield %i", "    }", "  }"),
           "the else region yields int32[] as value 0, "
           "which does not fit the result type float32[2]")
    _fails(_g("  %0: bool[] = constant[value=True]()",
              "  %1: float32[2] = cond(%0) {", "    then() {", "      yield %x", "    }", "  }"),
           "cond has 2 regions (then, else), got 1")


def test_cond_yields_may_be_more_specific_than_results():
    verify(parse_graph(_g("  %0: bool[] = constant[value=True]()",
                          "  %1: float32[None] = cond(%0) {",
                          "    then() {", "      yield %x", "    }",
                          "    else() {", "      yield %x", "    }", "  }")))
    _fails(_g("  %0: bool[] = constant[value=True]()",
              "  %1: float32[3] = cond(%0) {", "    then() {", "      yield %x", "    }",
              "    else() {", "      yield %x", "    }", "  }"),
           "the then region yields float32[2] as value 0, "
           "which does not fit the result type float32[3]")


def _loop(cond_yield="%3", body_yield="%5", result="int32[]", arg="int32[]", init="%i"):
    return _g(f"  %0: {result} = while({init}) {{",
              f"    cond(%1: {arg}) {{",
              "      %2: int32[] = constant[value=10]()",
              "      %3: bool[] = less(%1, %2)",
              f"      yield {cond_yield}",
              "    }",
              f"    body(%4: {arg}) {{",
              "      %5: int32[] = add(%4, %4)",
              f"      yield {body_yield}",
              "    }",
              "  }")


def test_while_checks():
    verify(parse_graph(_loop()))
    _fails(_loop(cond_yield="%1"),
           "the cond region's yielded value must be a bool scalar, got int32[]")
    _fails(_loop(cond_yield="%3, %3"), "the cond region yields 2 values, not one bool scalar")
    _fails(_loop(body_yield="%x"), "the body region yields float32[2] as value 0")
    _fails(_loop(init="%x"), "initial value 0 has type float32[2], which does not fit the loop "
                             "variable type int32[]")


def test_while_region_args_must_be_the_loop_types():
    g = parse_graph(_loop())
    g.body.ops[0].regions[1].args[0].type = T.TensorType(T.int64, ())
    _fails(g, "the body region's arguments (int64[]) must be the loop variable types (int32[])")


def test_check_checks():
    _fails(_g("  check[message='m'](%i)"), "op 0 'check'", "must be a bool scalar, got int32[]")
    _fails(_g("  %0: bool[] = constant[value=True]()", "  check(%0)"), "string 'message' attribute")


def test_only_control_flow_has_regions():
    g = parse_graph(_g("  %0: float32[2] = negative(%x)"))
    g.body.ops[0].regions.append(Block())
    _fails(g, "only cond and while ops have regions, not 'negative'")


def test_bookkeeping():
    g = parse_graph(_g("  %0: float32[2] = negative(%x)"))
    g.body.ops[0].block = None
    _fails(g, "op.block is not the block that holds the op")
    g = parse_graph(_g("  %0: float32[2] = negative(%x)"))
    g.body.ops.append(g.body.ops[0])
    _fails(g, "defined twice")


def test_location_is_named():
    g = parse_graph(_g("  %0: float32[3] = add(%x, %x)  # /u/model.py:41"))
    assert "(at /u/model.py:41)" in _fails(g)


def test_hand_built_graph():
    g = Graph("h")
    x = g.body.add_arg(T.TensorType(T.float32, (4,)), "x")
    op = g.body.append(Op("exp", [x], [T.TensorType(T.float32, (4,))], loc=Location("a.py", 1)))
    g.body.results = [op.result]
    verify(g, strict=True)
    g.body.results = [Op("exp", [x], [T.TensorType(T.float32, (4,))]).result]
    _fails(g, "graph output 0 (float32[4]) is not defined anywhere in this graph")
