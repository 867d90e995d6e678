"""Packaging and project plumbing: pyproject.toml, Makefile, .ci/run, `python -m autograph`."""
import os
import re
import stat
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("autograph", "tracer", "codegen", "runtime")


@pytest.fixture(scope="module")
def pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)


def test_project_metadata(pyproject):
    project = pyproject["project"]
    assert project["name"] == "autograph-llvm"
    assert project["version"] == "0.1.0"
    assert project["requires-python"] == ">=3.10"
    deps = {re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    assert deps == {"numpy", "llvmlite", "gast"}
    extras = project["optional-dependencies"]
    assert {"pytest", "hypothesis"} <= set(extras["test"])
    assert "numba" in extras["bench"]


def test_console_script_declared(pyproject):
    assert pyproject["project"]["scripts"]["autograph"] == "autograph.cli:main"


def test_import_packages_declared(pyproject):
    find = pyproject["tool"]["setuptools"]["packages"]["find"]
    for pkg in PACKAGES:
        assert any(re.fullmatch(pat.replace(".", r"\.").replace("*", ".*"), pkg)
                   for pat in find["include"]), pkg
        assert os.path.isfile(os.path.join(ROOT, pkg, "__init__.py")), pkg
    assert not any(pat.startswith(("tests", "examples", "bench")) for pat in find["include"])


def test_pytest_config(pyproject):
    ini = pyproject["tool"]["pytest"]["ini_options"]
    assert ini["testpaths"] == ["tests"]
    assert any(m.startswith("slow:") for m in ini["markers"])


def test_makefile_targets():
    with open(os.path.join(ROOT, "Makefile")) as fh:
        text = fh.read()
    for target in ("install", "test", "demo", "bench", "lint"):
        assert re.search(rf"^{target}:", text, re.M), target
    assert "-m venv" in text and "pip" in text and "-e '.[test]'" in text
    assert "pyproject.toml" in text  # re-install when it changes


def test_ci_script_runs_make_test():
    path = os.path.join(ROOT, ".ci", "run")
    assert os.stat(path).st_mode & stat.S_IXUSR
    with open(path) as fh:
        text = fh.read()
    assert text.startswith("#!/usr/bin/env bash") and "make test" in text


def test_python_dash_m_autograph_help():
    proc = subprocess.run([sys.executable, "-m", "autograph", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "usage: autograph" in proc.stdout
    assert "--sig" in proc.stdout and "DTYPE[DIMS]" in proc.stdout


def test_version_matches(pyproject):
    import autograph

    assert getattr(autograph, "__version__", pyproject["project"]["version"]) == \
        pyproject["project"]["version"]
