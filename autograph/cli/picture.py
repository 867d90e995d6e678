"""The `dot` stage of the command line: a picture of the typed IR.

    autograph dot FILE:FUNC --sig SIG                      DOT text on stdout
    autograph dot FILE:FUNC --sig SIG -o f.dot             DOT text into a file
    autograph dot FILE:FUNC --sig SIG --format svg [-o f.svg]
    autograph dot FILE:FUNC --sig SIG --format png -o f.png

svg, png and pdf are rendered by Graphviz's `dot` program
(`autograph.tracer.core.dot`); without it the stage fails with a message
saying how to install it (exit status 1). png and pdf are binary, so they
need `-o`. `--raw` draws the graph as traced, before the passes.
"""
from __future__ import annotations

import argparse
from typing import Any, Type

__all__ = ["HELP", "add_arguments", "check_arguments", "dot_output"]

FORMATS = ("dot", "svg", "png", "pdf")
HELP = ("a Graphviz picture of the typed IR for SIG: DOT text, or with --format svg|png|pdf "
        "rendered by Graphviz's dot program")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `dot` stage's own options."""
    parser.add_argument("--format", choices=FORMATS, default="dot",
                        help="dot (the text, the default), or svg, png or pdf rendered by Graphviz "
                             "(its `dot` program must be installed)")
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write the picture to FILE instead of stdout (needed for png and pdf)")
    parser.add_argument("--raw", action="store_true",
                        help="draw the graph as traced, before the passes")


def check_arguments(args: argparse.Namespace, usage_error: Type[Exception]) -> None:
    """Raise `usage_error` for options that cannot work (checked before any tracing)."""
    if args.format in ("png", "pdf") and not args.output:
        raise usage_error(f"--format {args.format} writes binary data: give -o FILE")


def dot_output(args: argparse.Namespace, cf: Any, timer: Any) -> str:
    """What the stage prints: the DOT text or SVG, or a line saying which file it wrote."""
    from autograph.tracer.core.dot import format_dot, render

    graph = cf.raw_graph if args.raw else cf.graph
    text = timer.run("dot", "format_dot(cf.graph)", lambda: format_dot(graph))
    if args.format == "dot":
        data = text.encode("utf-8")
    else:
        data = timer.run("render", f"Graphviz dot -T{args.format}", lambda: render(text, args.format))
    if not args.output:
        return data.decode("utf-8")
    with open(args.output, "wb") as fh:
        fh.write(data)
    return f"wrote {args.output} ({args.format}, {len(data)} bytes)"
