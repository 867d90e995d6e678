"""Packaging and project plumbing: pyproject.toml, Makefile, .ci/run, `python -m autograph`."""
import os
import re
import stat
import subprocess
import sys

import paths

import pytest

ROOT = paths.ROOT
# The repository's top-level folders and the import names they install as.
FOLDERS = {"autograph": "autograph", "tracer": "autograph.tracer", "codegen": "autograph.codegen",
           "runtime": "autograph.runtime"}


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


def _package_folders():
    """Every folder below the four top-level folders that holds an __init__.py,
    as the import name it installs as."""
    names = set()
    for folder, name in FOLDERS.items():
        for d, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            if "__init__.py" in files:
                rel = os.path.relpath(d, os.path.join(ROOT, folder))
                names.add(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    return names


def test_one_import_name_with_every_package_listed(pyproject):
    setuptools_cfg = pyproject["tool"]["setuptools"]
    assert setuptools_cfg["package-dir"] == FOLDERS_AS_PACKAGE_DIR
    assert set(setuptools_cfg["packages"]) == _package_folders()
    assert all(p == "autograph" or p.startswith("autograph.") for p in setuptools_cfg["packages"])


FOLDERS_AS_PACKAGE_DIR = {name: folder for folder, name in FOLDERS.items()}


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


# ---------------------------------------------------------------- the wheel

_USER_MODULE = "raise ImportError('the user\\'s own {name}.py was imported by autograph')\n"

_USER_SCRIPT = '''
import os, sys
import numpy as np
import autograph as ag

@ag.function
def f(x):
    s = ag.constant(0.0, ag.float64)
    for i in ag.range(ag.size(x)):
        if x[i] > 0:
            s += x[i]
    return s

print(f(np.array([1.0, -2.0, 3.0])).numpy())
print(os.path.dirname(ag.__file__))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("tracer", "codegen", "runtime")))
'''


def _copy_sources(dest):
    """The files git tracks (as in a fresh clone), so the build never writes into the checkout."""
    import shutil
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for rel in listed.stdout.decode().split("\0"):
        if rel and os.path.isfile(os.path.join(ROOT, rel)):
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, rel), os.path.join(dest, rel))


@pytest.mark.slow
def test_wheel_installs_one_name_and_ignores_users_modules(tmp_path):
    """Build the wheel, install it into a fresh virtual environment, and from a
    folder holding the user's own runtime.py, tracer.py and codegen.py, import
    autograph and run a compiled function."""
    import sysconfig
    import zipfile

    if not os.path.isdir(os.path.join(ROOT, ".git")):
        pytest.skip("needs a git checkout to list the sources")
    src, dist, venv, work = (tmp_path / n for n in ("src", "dist", "venv", "work"))
    _copy_sources(src)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--no-index", "-q", "-w", str(dist), str(src)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("autograph_llvm-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        tops = {n.split("/")[0] for n in z.namelist() if ".dist-info/" not in n}
        top_level = [n for n in z.namelist() if n.endswith(".dist-info/top_level.txt")]
        if top_level:
            assert z.read(top_level[0]).decode().split() == ["autograph"]
    assert tops == {"autograph"}, tops
    assert "autograph/py.typed" in names        # PEP 561: the package is typed

    # A fresh environment; numpy, llvmlite and gast come from this one's site-packages
    # (a path line, which does not run this environment's editable-install hook).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    vpy = venv / "bin" / "python"
    vsite = subprocess.run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    dep_dirs = {os.path.dirname(os.path.dirname(m.__file__)) for m in _dependency_modules()}
    with open(os.path.join(vsite, "_autograph_test_deps.pth"), "w") as fh:
        fh.write("\n".join(sorted(dep_dirs)) + "\n")
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(vpy), "install", "--no-deps",
                           "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stderr
    added = {n for n in os.listdir(vsite) if not n.endswith((".dist-info", ".pth")) and n != "__pycache__"}
    assert added == {"autograph"}, added

    work.mkdir()
    for name in ("runtime", "tracer", "codegen"):
        (work / f"{name}.py").write_text(_USER_MODULE.format(name=name))
    (work / "user_script.py").write_text(_USER_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["AUTOGRAPH_CACHE_DIR"] = str(tmp_path / "cache")
    run = subprocess.run([str(vpy), "user_script.py"], cwd=work, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    value, location, leaked = run.stdout.splitlines()
    assert float(value) == 4.0
    assert location == os.path.join(vsite, "autograph")
    assert leaked == "[]"
    cli = subprocess.run([str(venv / "bin" / "autograph"), "--help"], cwd=work, env=env,
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0 and "usage: autograph" in cli.stdout, cli.stderr
    assert sysconfig.get_paths()["purelib"] != vsite


def _dependency_modules():
    import gast
    import llvmlite
    import numpy
    return (gast, llvmlite, numpy)
