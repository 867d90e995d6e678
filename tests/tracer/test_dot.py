"""Pictures of the IR (autograph/tracer/core/dot.py): the DOT text parsed and checked
against the graph, rendering with Graphviz when it is installed, and the
messages when it is not. The command line's `dot` stage is in
tests/autograph/test_cli_dot.py.
"""
import re
import shutil

import numpy as np
import pytest

import autograph as ag
from autograph.tracer.core import dot
from autograph.tracer.core.ir import is_resource
from autograph.tracer.core.types import parse_tensor_type

pydot = pytest.importorskip("pydot")
# pydot 4 uses pyparsing names that pyparsing 3.3 deprecates: not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

needs_graphviz = pytest.mark.skipif(shutil.which("dot") is None,
                                    reason="Graphviz's dot program is not installed")


@ag.function
def loops_and_branches(x, n):
    total = ag.reduce_sum(x)
    i = 0
    while i < n:
        if total > 10.0:
            total = total / 2.0     # halve "big" totals
        else:
            total = total * 3.0
        i += 1
    return total, x * 2.0


def _graph():
    return loops_and_branches.get_concrete_function(np.ones(3, np.float32), np.int32(4)).graph


def _unquote(s):
    s = s[1:-1] if s.startswith('"') else s
    return s.replace("\\l", "\n").replace('\\"', '"').replace("\\\\", "\\")


def _parse(text):
    graphs = pydot.graph_from_dot_data(text)
    assert graphs and len(graphs) == 1, "pydot could not parse the DOT text"
    return graphs[0]


def _all_nodes(g):
    """{name: (label, [cluster names from the outside in])} over every nested subgraph."""
    out = {}

    def walk(sub, path):
        for n in sub.get_nodes():
            if n.get_name() in ("node", "edge", "graph"):
                continue
            out[n.get_name()] = (_unquote(n.get_label() or ""), path)
        for s in sub.get_subgraphs():
            walk(s, path + [s.get_name()])
    walk(g, [])
    return out


def _all_edges(g):
    out = []

    def walk(sub):
        out.extend(sub.get_edges())
        for s in sub.get_subgraphs():
            walk(s)
    walk(g)
    return out


def test_dot_text_parses_and_matches_the_graph():
    graph = _graph()
    text = dot.format_dot(graph)
    assert text == graph.to_dot()
    g = _parse(text)
    nodes = _all_nodes(g)
    ops = list(graph.walk())
    op_nodes = {k: v for k, v in nodes.items() if k.startswith("op")}
    # One node per op, labelled with its name and the user's line.
    assert sorted(label.splitlines()[0] for label, _ in op_nodes.values()) == sorted(op.name for op in ops)
    for op in ops:
        if op.loc is not None:
            where = f"test_dot.py:{op.loc.line}"
            assert any(where in label and label.startswith(op.name) for label, _ in op_nodes.values()), where
    labels = "\n".join(label for label, _ in nodes.values())
    assert 'total = total / 2.0     # halve "big" totals' in labels     # quotes survive
    # Inputs and the return are nodes; every use of a value is an edge labelled `%name: type`.
    assert sum(1 for k in nodes if k.startswith("in")) == len(graph.inputs)
    assert "outputs" in nodes
    uses = sum(len(op.operands) for op in ops) + len(graph.outputs) + sum(
        len(r.results) for op in ops for r in op.regions)
    edges = _all_edges(g)
    assert len(edges) == uses
    for e in edges:
        m = re.fullmatch(r"(?:#\d+ )?%(\w+): (.+)", _unquote(e.get_label()))
        assert m, e.get_label()
        parse_tensor_type(m.group(2))                        # a real type


def test_regions_are_clusters_inside_their_ops_cluster():
    graph = _graph()
    nodes = _all_nodes(_parse(dot.format_dot(graph)))
    whiles = [(k, v) for k, v in nodes.items() if v[0].startswith("while\n")]
    conds = [(k, v) for k, v in nodes.items() if v[0].startswith("cond\n")]
    assert len(whiles) == 1 and len(conds) == 1
    (wname, (_, wpath)), (cname, (_, cpath)) = whiles[0], conds[0]
    assert wpath == [f"cluster_{wname}"]
    # The cond sits in the while's body region, inside the while's cluster.
    assert cpath == [f"cluster_{wname}", f"cluster_{wname}_body", f"cluster_{cname}"]
    paths = [tuple(p) for _, p in nodes.values()]
    for region in (f"cluster_{wname}_cond", f"cluster_{wname}_body"):
        assert (f"cluster_{wname}", region) in paths
    for region in ("then", "else"):
        assert any(p[-1:] == (f"cluster_{cname}_{region}",) for p in paths)
    # The while's regions have the loop-carried values as argument nodes.
    args = [label for label, p in nodes.values() if p == [f"cluster_{wname}", f"cluster_{wname}_cond"]
            and label.startswith("%")]
    assert len(args) == len(next(op for op in graph.walk() if op.name == "while").regions[0].args)


def test_resource_inputs_and_long_attributes():
    v = ag.Variable(np.zeros(3, np.float32))

    @ag.function
    def f(x):
        v.assign_add(x + np.arange(100, dtype=np.float32)[:3])
        return v.read_value()

    graph = f.get_concrete_function(np.ones(3, np.float32)).graph
    assert any(is_resource(a) for a in graph.inputs)
    text = dot.format_dot(graph)
    nodes = _all_nodes(_parse(text))
    assert any(label.startswith("%") and "ref float32[3]" in label for label, _ in nodes.values())
    assert "shape=cylinder" in text and "style=bold" in text
    for label, _ in nodes.values():
        assert all(len(line) < 100 for line in label.splitlines())   # long constants are cut


@needs_graphviz
def test_render_svg_png_and_jupyter():
    graph = _graph()
    svg = dot.render(dot.format_dot(graph), "svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "while" in svg
    png = dot.render(dot.format_dot(graph), "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    shown = graph._repr_svg_()
    assert isinstance(shown, str) and "<svg" in shown


@needs_graphviz
def test_graphviz_failure_is_reported():
    with pytest.raises(RuntimeError, match=r"Graphviz's dot failed \(exit status \d+\): .*syntax error"):
        dot.render("digraph { this is not dot", "svg")


def test_without_graphviz(monkeypatch):
    monkeypatch.setenv("PATH", "")
    assert dot.dot_program() is None
    graph = _graph()
    assert graph._repr_svg_() is None          # Jupyter then shows the text form
    with pytest.raises(dot.GraphvizNotFoundError,
                       match=r"rendering the graph as svg needs Graphviz's `dot` program, which is not "
                             r"on PATH; install Graphviz"):
        dot.render(dot.format_dot(graph), "svg")


def test_unknown_render_format():
    with pytest.raises(ValueError, match=r"cannot render DOT as 'gif': expected one of svg, png, pdf"):
        dot.render("digraph {}", "gif")
