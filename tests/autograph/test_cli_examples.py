"""The command line's help runs on a pip install (issue 9): its examples use
`autograph.examples`, which ships in the package, and it names the
environment variables. In-process through `main([...])`, and as
`python -m ...` in a subprocess from a folder that holds none of the
repository's files."""
import os
import shlex
import subprocess
import sys

import pytest

import autograph as ag
from autograph import examples
from autograph.cli import command as cli

ENV_VARS = ("AUTOGRAPH_VERBOSITY", "AUTOGRAPH_CACHE_DIR", "AUTOGRAPH_DISABLE_CACHE")


def _help_text(argv, capsys) -> str:
    assert cli.main(argv) == 0
    return capsys.readouterr().out


def _example_lines():
    """The example command lines of `autograph --help` that compile something."""
    lines = [ln.strip() for ln in cli._EXAMPLES.splitlines()[1:] if ln.strip()]
    return [ln for ln in lines if "autograph.examples:" in ln]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "ag-cache"))
    return tmp_path / "ag-cache"


def test_help_names_the_environment_variables(capsys):
    for argv in (["--help"], ["ir", "--help"]):
        text = _help_text(argv, capsys)
        for name in ENV_VARS:
            assert name in text, (argv, name)


def test_help_examples_name_no_repository_file(capsys):
    text = _help_text(["--help"], capsys)
    assert "examples/kernels.py" not in text and "examples.kernels" not in text
    assert "python -m autograph.examples" in text
    assert len(_example_lines()) >= 5


@pytest.mark.parametrize("line", _example_lines())
def test_every_help_example_runs(line, capsys, cache_dir, tmp_path, monkeypatch):
    argv = shlex.split(line)[1:]
    if argv[0] == "dot":          # rendering needs Graphviz: print the DOT text instead
        argv = argv[:argv.index("--format")]
    monkeypatch.chdir(tmp_path)
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip()


def test_examples_module_kernels_compute_the_right_values():
    import numpy as np

    assert int(examples.collatz_total(ag.constant(100, ag.int64))) == 3142
    x = np.linspace(-1.0, 1.0, 11)
    expected = sum(v * v if v > 0 else -v / 2 for v in x)
    assert float(examples.branchy_sum(x)) == pytest.approx(expected)
    assert float(examples.mean_square(x, x)) == pytest.approx(float(np.mean(x ** 2 * 3 + x)))


def _run(args, tmp_path):
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "ag-cache"))
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_python_m_autograph_examples_runs_from_anywhere(tmp_path):
    out = _run(["-m", "autograph.examples"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "collatz_total(100)  = 3142" in out.stdout
    assert "autograph ir" in out.stdout


def test_cli_on_the_shipped_examples_in_a_subprocess(tmp_path):
    out = _run(["-m", "autograph", "ir", "autograph.examples:collatz_total", "--sig", "int64[]"],
               tmp_path)
    assert out.returncode == 0, out.stderr
    assert "graph @collatz_total" in out.stdout
    out = _run(["-m", "autograph", "--help"], tmp_path)
    assert out.returncode == 0 and all(name in out.stdout for name in ENV_VARS)
