"""Inputs of unknown rank (`TensorSpec(shape=None)`): traced once, compiled per rank.

`autograph.codegen.jit.ranked.RankedKernel` compiles one kernel per tuple of input ranks
seen at call time from a re-typed copy of the trace (the pass
`autograph.tracer.passes.specialize_rank`, then the default pipeline);
nothing is traced again and every call runs native code.
"""
from __future__ import annotations

import io

import numpy as np
import pytest

import autograph as ag
from autograph.codegen.jit import compile as jit_compile
from autograph.codegen.jit.ranked import RankedKernel
from codegen_support import T, build
from autograph.tracer import api
from autograph.tracer.tracing.control_flow import cond, while_loop
from autograph.tracer.core.interpreter import run_graph
from autograph.tracer.passes import DEFAULT_PIPELINE, run_passes, specialize_rank
from autograph.tracer.passes.specialize_rank import has_unknown_rank

ANY_F32 = ag.TensorSpec(shape=None, dtype=ag.float32)


# ------------------------------------------------------------------ the seeds


def test_seed_input_signature_any_shape_one_trace():
    @ag.function(input_signature=[ag.TensorSpec(shape=None, dtype=ag.float32)])
    def f(x):
        return ag.add(x, 1.)

    scalar = ag.constant(1.0)
    vector = ag.constant([1.0, 1.0])
    matrix = ag.constant([[3.0]])
    assert f(scalar).numpy() == np.float32(2.0) and f(scalar).shape == ()
    np.testing.assert_array_equal(f(vector).numpy(), np.array([2.0, 2.0], np.float32))
    np.testing.assert_array_equal(f(matrix).numpy(), np.array([[4.0]], np.float32))
    assert f.tracing_count == 1
    assert f.get_concrete_function(vector) is f.get_concrete_function(matrix)
    cf = f.get_concrete_function()
    assert isinstance(cf.kernel, RankedKernel)
    assert sorted(cf.kernel.specializations) == [(0,), (1,), (2,)]
    assert "float32[*]" in str(cf.graph)


def test_seed_double_strings_scalars_and_vectors(capsys):
    @ag.function
    def double(a):
        print("Tracing with", a)
        return a + a

    double_strings = double.get_concrete_function(ag.TensorSpec(shape=None, dtype=ag.string))
    assert double_strings(ag.constant("a")).numpy() == b"aa"
    assert double_strings(a=ag.constant("b")).numpy() == b"bb"
    out = double_strings(ag.constant(["x", "yz"]))
    assert out.shape == (2,) and list(out.numpy()) == [b"xx", b"yzyz"]
    out = double_strings(ag.constant([["p"], ["q"]]))
    assert out.shape == (2, 1) and out.numpy()[1, 0] == b"qq"
    with pytest.raises(ag.errors.InvalidArgumentError, match="expected to be a string tensor but is a int32"):
        double_strings(ag.constant(1))
    assert double.tracing_count == 1
    assert capsys.readouterr().out.count("Tracing with") == 1


# ------------------------------------------------------------------ several ranks, one trace


@ag.function(input_signature=[ANY_F32, ANY_F32])
def mixed(x, y):
    print("tracing mixed")
    s = ag.reduce_sum(x)
    i = 0
    while i < 3:
        x = x * 2.0
        i += 1
    if s > 0:
        z = x + y
    else:
        z = x - y
    return z, ag.shape(x), ag.rank(z), ag.size(x), ag.reduce_max(y)


def _mixed_ref(x, y):
    z = x * 8 + y if x.sum() > 0 else x * 8 - y
    return z, np.array(x.shape, np.int32), z.ndim, x.size, y.max()


@pytest.mark.parametrize("xs, ys", [((), ()), ((3,), ()), ((), (2, 2)), ((2, 3), (3,)), ((1, 2, 1, 2), (2, 1)),
                                    ((2, 1, 3), (2, 4, 3))])
def test_several_ranks_one_trace(xs, ys, capsys):
    rng = np.random.default_rng(len(xs) * 10 + len(ys))
    x = rng.standard_normal(xs).astype(np.float32)
    y = rng.standard_normal(ys).astype(np.float32)
    got = mixed(x, y)
    want = _mixed_ref(x, y)
    np.testing.assert_allclose(got[0].numpy(), want[0], rtol=1e-6)
    assert got[0].shape == np.shape(want[0])
    np.testing.assert_array_equal(got[1].numpy(), want[1])
    assert int(got[2]) == want[2] and int(got[3]) == want[3]
    np.testing.assert_allclose(got[4].numpy(), want[4])
    assert mixed.tracing_count == 1
    assert capsys.readouterr().out.count("tracing mixed") <= 1   # only the first test traces


def test_specialisations_are_compiled_once_per_rank():
    @ag.function(input_signature=[ANY_F32])
    def f(x):
        return x * 2.0

    before = jit_compile.LOWERED
    for shape in [(), (3,), (4,), (), (2, 2), (5, 1), (0,)]:
        x = np.ones(shape, np.float32)
        np.testing.assert_array_equal(f(x).numpy(), x * 2)
    kernel = f.get_concrete_function().kernel
    assert sorted(kernel.specializations) == [(0,), (1,), (2,)]
    assert jit_compile.LOWERED - before <= 3     # at most one lowering per rank (cache hits: fewer)
    text = kernel.llvm_ir()
    assert text.count("; specialised for x: float32") == 3 and "define" in text
    assert "specialised for x: float32[None,None]" in kernel.asm()


def test_inspecting_before_any_call_says_what_to_do():
    @ag.function(input_signature=[ANY_F32])
    def f(x):
        return x + 1.0

    with pytest.raises(ValueError, match="compiled per input rank when it is called"):
        f.get_concrete_function().llvm_ir()


def test_a_rank_the_program_cannot_take_names_the_line():
    @ag.function(input_signature=[ANY_F32])
    def first(x):
        return x[0]

    assert float(first(np.array([5.0, 6.0], np.float32))) == 5.0
    with pytest.raises(ag.errors.InvalidArgumentError, match=r"too many indices(.|\n)*return x\[0\]"):
        first(np.float32(1.0))


def test_known_rank_inputs_next_to_unknown_ones():
    @ag.function(input_signature=[ANY_F32, ag.TensorSpec([None], ag.float32), ag.TensorSpec([], ag.int32)])
    def f(x, v, n):
        acc = x
        for _ in ag.range(n):
            acc = acc + v
        return acc

    v = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(f(np.zeros((3, 2), np.float32), v, 2).numpy(), np.tile(v * 2, (3, 1)))
    np.testing.assert_array_equal(f(np.ones(2, np.float32), v, 1).numpy(), 1 + v)
    assert f.tracing_count == 1
    # A scalar x would make the loop variable change rank (() + [None] is [None]): not compilable.
    with pytest.raises(NotImplementedError, match=r"changes rank(.|\n)*for _ in ag.range\(n\)"):
        f(np.float32(1.0), v, 1)


def test_reduce_retracing_across_ranks_compiles():
    @ag.function(reduce_retracing=True)
    def f(x):
        return x * 3.0

    np.testing.assert_array_equal(f(np.ones(2, np.float32)).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(f(np.ones((1, 2), np.float32)).numpy(), [[3.0, 3.0]])   # unknown rank now
    assert f(np.float32(2.0)).numpy() == 6.0
    assert f.tracing_count == 2


# ------------------------------------------------------------------ specialize


def specialize(graph, types):
    """The pass through the manager, verified after it runs."""
    return run_passes(graph, [specialize_rank.pass_for(types)], verify=True)


def test_specialize_retypes_regions():
    def fn(p, x):
        def body(i, v):
            return api.add(i, 1), api.multiply(v, 2.0)
        _, v = while_loop(lambda i, v: api.less(i, 3), body, (np.int32(0), x))
        w = cond(p, lambda: api.add(v, 1.0), lambda: v)
        return [w, api.shape(w), v[..., 0]]

    g = build(fn, T("bool"), T("float32", None))
    assert has_unknown_rank(g)
    s = specialize(g, [T("bool"), T("float32", (None, 4))])
    assert not has_unknown_rank(s)
    assert [str(v.type) for v in s.outputs] == ["float32[None,4]", "int32[2]", "float32[None]"]
    assert str(g).count("[*]") > 0 and "[*]" not in str(s)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    for a, b in zip(run_graph(s, [np.bool_(True), x]), run_graph(g, [np.bool_(True), x])):
        np.testing.assert_array_equal(a, b)


def test_specialize_widens_loop_types_that_change():
    def fn(x):
        def body(v):
            return (api.concat([v, v], axis=0),)
        (v,) = while_loop(lambda v: api.less(api.size(v), 20), body, (x,))
        return [v]

    g = build(fn, T("float32", None))
    s = specialize(g, [T("float32", (3,))])
    assert str(s.outputs[0].type) == "float32[None]"      # the loop doubles it: 3 is widened to None
    (got,) = run_graph(s, [np.ones(3, np.float32)])
    assert got.shape == (24,)


def test_ranked_kernel_runs_graphs_directly():
    g = build(lambda x: [api.add(x, 1.0), api.rank(x)], T("float64", None))
    k = RankedKernel(g)
    for shape in [(), (2,), (2, 3), (1, 1, 1, 1, 1)]:
        x = np.ones(shape)
        out = k(x)
        np.testing.assert_array_equal(out[0], x + 1)
        assert int(out[1]) == len(shape)
    with pytest.raises(TypeError, match="takes 1 inputs"):
        k()


def test_specialised_graphs_go_through_the_pipeline():
    # With the rank known, rank(x) and the cast of it fold to a constant; the size, which
    # depends on the dimensions, stays an op. The ranked kernel's graph is untouched.
    g = build(lambda x: [api.add(api.add(x, 1.0), api.cast(api.rank(x), "float64")), api.size(x)],
              T("float64", None))
    k = RankedKernel(g)
    before = str(g)
    s = k.specialized_graph((2,))
    assert str(g) == before and "rank(" in before
    names = [op.name for op in s.walk()]
    assert "rank" not in names and "cast" not in names and "size" in names
    assert [str(v.type) for v in s.inputs] == ["float64[None,None]"]
    assert "constant[value=2.0]()" in str(s)     # float(rank(x)), x of rank 2
    x = np.ones((2, 3))
    out = k(x)
    np.testing.assert_array_equal(out[0], x + 1.0 + 2.0)
    assert int(out[1]) == 6
    with pytest.raises(ValueError, match="has 1 input"):
        k.specialized_graph((1, 2))


def test_specialize_rank_is_a_parametrised_pass():
    g = build(lambda x: [api.rank(x)], T("float32", None))
    out = io.StringIO()
    s = run_passes(g, [specialize_rank.pass_for([T("float32", (None,))]), *DEFAULT_PIPELINE],
                   verify=True, print_after="specialize_rank", file=out)
    assert out.getvalue().startswith("// IR after specialize_rank\ngraph @f(%x0: float32[None]) -> (int32[])")
    assert "rank(%x0)" in out.getvalue()
    assert str(s) == ("graph @f(%x0: float32[None]) -> (int32[]) {\n"
                      "  %0: int32[] = constant[value=1]()\n  return %0\n}\n")
    with pytest.raises(ValueError, match="specialize_rank: input type float64"):
        run_passes(g, [specialize_rank.pass_for([T("float64", (None,))])])
    with pytest.raises(ValueError, match="specialize_rank: 2 input types for 1 inputs"):
        run_passes(g, [specialize_rank.pass_for([T("float32", ()), T("float32", ())])])

