"""The command line's `dot` stage (autograph/cli/picture.py): DOT text, rendered
pictures, and its errors (png without -o, Graphviz not installed)."""
import os
import shutil
import subprocess
import sys

import paths

import pytest

from autograph.cli import command as cli

KERNELS = os.path.join(paths.ROOT, "examples", "kernels.py")
TARGET = [f"{KERNELS}:collatz_total", "--sig", "int64[]"]

needs_graphviz = pytest.mark.skipif(shutil.which("dot") is None,
                                    reason="Graphviz's dot program is not installed")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "ag-cache"))


def test_dot_prints_the_graph_as_dot(capsys):
    assert cli.main(["dot", *TARGET]) == 0
    out = capsys.readouterr().out
    assert out.startswith('digraph "collatz_total" {') and out.rstrip().endswith("}")
    assert "subgraph cluster_" in out and "kernels.py:46" in out and "while v != 1:" in out


def test_dot_raw_and_to_a_file(tmp_path, capsys):
    path = tmp_path / "g.dot"
    assert cli.main(["dot", *TARGET, "--raw", "-o", str(path)]) == 0
    out = capsys.readouterr().out
    text = path.read_text()
    assert out.strip() == f"wrote {path} (dot, {len(text.encode())} bytes)"
    assert text.startswith("digraph")
    assert cli.main(["dot", *TARGET]) == 0
    optimised = capsys.readouterr().out
    assert text.count("constant") >= optimised.count("constant")   # raw: before folding and CSE


def test_png_needs_an_output_file(capsys):
    assert cli.main(["dot", *TARGET, "--format", "png"]) == 2
    assert "autograph: error: --format png writes binary data: give -o FILE" in capsys.readouterr().err


@needs_graphviz
def test_dot_renders_svg_and_png(tmp_path, capsys):
    assert cli.main(["dot", *TARGET, "--format", "svg", "--time"]) == 0
    out = capsys.readouterr().out
    assert "<svg" in out and "timings" in out and "render" in out
    png = tmp_path / "g.png"
    assert cli.main(["dot", *TARGET, "--format", "png", "-o", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_without_graphviz_the_message_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "")
    assert cli.main(["dot", *TARGET, "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert "autograph: error: GraphvizNotFoundError: rendering the graph as svg needs Graphviz's " \
           "`dot` program, which is not on PATH; install Graphviz" in err


def test_help_lists_the_dot_stage():
    out = subprocess.run([sys.executable, "-m", "autograph", "dot", "--help"], capture_output=True,
                         text=True, timeout=120, cwd=paths.ROOT)
    assert out.returncode == 0
    assert "--format {dot,svg,png,pdf}" in out.stdout and "-o FILE" in out.stdout
