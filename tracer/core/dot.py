"""Pictures of the IR: a Graphviz DOT rendering of a typed graph.

    format_dot(graph) -> str            the DOT text (no Graphviz needed)
    render(dot_text, "svg") -> bytes    run Graphviz's `dot` program on it
    dot_program() -> path or None       where `dot` is, if it is installed

The picture is the data flow of `str(graph)`: one node per op, labelled with
its name, its attributes and the user's line it came from (`kernels.py:14
y = x * 2.0`); one edge per use of a value, labelled with the value's name
as `str(graph)` prints it and its type (`%3: float32[None]`); the graph's
inputs and its `return` as nodes of their own. The regions of a `cond` or
`while` are clusters inside the op's own cluster: a region's arguments
(the loop-carried values of a `while`) are nodes in it, and its `yield` is
the node its results flow to. Values used inside a region but defined
outside it (implicit captures) are edges that cross into the cluster.

`Graph._repr_svg_` (Jupyter) uses `svg_or_none`: the SVG when `dot` is
installed, None otherwise (so that Jupyter shows the text form instead).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, List, Optional

from .ir import Block, Graph, Op, Value, is_resource
from .printer import REGION_NAMES, _Namer, format_attr

__all__ = ["format_dot", "render", "dot_program", "svg_or_none", "GraphvizNotFoundError",
           "RENDER_FORMATS"]

RENDER_FORMATS = ("svg", "png", "pdf")
_MAX_ATTR = 40        # characters of one attribute's value in a node label
_MAX_SOURCE = 48      # characters of the user's line in a node label
_RENDER_TIMEOUT = 120


class GraphvizNotFoundError(RuntimeError):
    """Rendering needs Graphviz's `dot` program and it is not installed."""


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become left-justified line breaks."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\n", "\\l") + ("\\l" if "\n" in text else "") + '"'


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _Writer:
    """Walks a graph in printing order (so value names match `str(graph)`)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.namer = _Namer()
        self.lines: List[str] = []
        self.node_of: Dict[int, str] = {}    # id(Value) -> the node it comes from
        self.edges: List[str] = []
        self.count = 0

    def node_id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def value_label(self, v: Value, name: str) -> str:
        return f"{name}: {v.type}"

    def edge(self, v: Value, target: str, indent: str, extra: str = "") -> None:
        source = self.node_of.get(id(v))
        if source is None:   # not defined where it is visible: the verifier reports that
            return
        label = self.value_label(v, self.namer.ref(v))
        style = ", style=bold, color=firebrick" if is_resource(v) else ""
        self.edges.append(f"{indent}{source} -> {target} [label={_quote(extra + label)}{style}];")

    # ------------------------------------------------------------------ nodes

    def op_label(self, op: Op) -> str:
        parts = [op.name]
        for k in sorted(op.attrs):
            try:
                value = format_attr(op.attrs[k])
            except TypeError:
                value = type(op.attrs[k]).__name__
            parts.append(f"{k}={_short(value, _MAX_ATTR)}")
        loc = op.loc
        if loc is not None:
            where = f"{os.path.basename(loc.file)}:{loc.line}"
            if loc.source:
                where += "  " + _short(loc.source, _MAX_SOURCE)
            parts.append(where)
        return "\n".join(parts)

    def block(self, block: Block, indent: str) -> None:
        for op in block.ops:
            self.op(op, indent)

    def op(self, op: Op, indent: str) -> None:
        node = self.node_id("op")
        for v in op.operands:
            self.edge(v, node, indent)
        for r in op.results:
            self.namer.define(r)
            self.node_of[id(r)] = node
        label = _quote(self.op_label(op))
        if not op.regions:
            self.lines.append(f"{indent}{node} [label={label}];")
            return
        # A control-flow op: a cluster holding the op's node and one cluster per region.
        self.lines.append(f"{indent}subgraph cluster_{node} {{")
        inner = indent + "  "
        title = op.name if op.loc is None else f"{op.name}  {os.path.basename(op.loc.file)}:{op.loc.line}"
        self.lines.append(f"{inner}label={_quote(title)}; style=rounded; color=gray40;")
        self.lines.append(f"{inner}{node} [label={label}, style=\"rounded,filled\", fillcolor=gray92];")
        names = REGION_NAMES.get(op.name, tuple(f"region{i}" for i in range(len(op.regions))))
        for rname, region in zip(names, op.regions):
            self.region(node, rname, region, inner)
        self.lines.append(f"{indent}}}")

    def region(self, owner: str, rname: str, region: Block, indent: str) -> None:
        cluster = f"cluster_{owner}_{rname}"
        self.lines.append(f"{indent}subgraph {cluster} {{")
        inner = indent + "  "
        self.lines.append(f"{inner}label={_quote(rname)}; style=dashed; color=gray60;")
        for a in region.args:
            name = self.namer.define(a)
            node = self.node_id("arg")
            self.node_of[id(a)] = node
            self.lines.append(f"{inner}{node} [label={_quote(self.value_label(a, name))}, shape=ellipse];")
        self.block(region, inner)
        end = self.node_id("yield")
        self.lines.append(f"{inner}{end} [label=\"yield\", shape=invtriangle];")
        for i, v in enumerate(region.results):
            self.edge(v, end, inner, f"#{i} " if len(region.results) > 1 else "")
        self.lines.append(f"{indent}}}")

    # ------------------------------------------------------------------ graph

    def write(self) -> str:
        g = self.graph
        self.lines.append(f"digraph {_quote(g.name)} {{")
        self.lines.append(f"  graph [label={_quote('graph @' + g.name)}, labelloc=t, rankdir=TB, "
                          f"fontname=\"Helvetica\"];")
        self.lines.append("  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];")
        self.lines.append("  edge [fontname=\"Helvetica\", fontsize=9];")
        for a in g.inputs:
            name = self.namer.define(a, a.name_hint)
            node = self.node_id("in")
            self.node_of[id(a)] = node
            shape = "cylinder" if is_resource(a) else "invhouse"
            self.lines.append(f"  {node} [label={_quote(self.value_label(a, name))}, shape={shape}];")
        self.block(g.body, "  ")
        self.lines.append("  outputs [label=\"return\", shape=house];")
        for i, v in enumerate(g.outputs):
            self.edge(v, "outputs", "  ", f"#{i} " if len(g.outputs) > 1 else "")
        return "\n".join(self.lines + self.edges + ["}"]) + "\n"


def format_dot(graph: Graph) -> str:
    """The Graphviz DOT text of `graph` (see the module docstring)."""
    return _Writer(graph).write()


def dot_program() -> Optional[str]:
    """The path of Graphviz's `dot` program, or None when it is not installed."""
    return shutil.which("dot")


def render(dot_text: str, fmt: str = "svg") -> bytes:
    """`dot_text` rendered by Graphviz as `fmt` (svg, png or pdf).

    GraphvizNotFoundError when `dot` is not installed; RuntimeError with
    Graphviz's message when it fails; ValueError for another format.
    """
    if fmt not in RENDER_FORMATS:
        raise ValueError(f"cannot render DOT as {fmt!r}: expected one of {', '.join(RENDER_FORMATS)}")
    program = dot_program()
    if program is None:
        raise GraphvizNotFoundError(
            f"rendering the graph as {fmt} needs Graphviz's `dot` program, which is not on PATH; "
            f"install Graphviz (apt install graphviz, brew install graphviz or conda install "
            f"graphviz), or print the DOT text (`autograph dot`, format_dot) and render it elsewhere")
    try:
        proc = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode("utf-8"),
                              capture_output=True, timeout=_RENDER_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"Graphviz's dot took more than {_RENDER_TIMEOUT} s to render the graph") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz's dot failed (exit status {proc.returncode}): {message}")
    return proc.stdout


def svg_or_none(graph: Graph) -> Optional[str]:
    """The SVG picture of `graph`, or None when Graphviz is not installed (or fails)."""
    if dot_program() is None:
        return None
    try:
        return render(format_dot(graph), "svg").decode("utf-8")
    except (RuntimeError, OSError):
        return None
