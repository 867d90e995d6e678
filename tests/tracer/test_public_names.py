"""An op is declared once: `ag`, `ag.math`, `ag.nn`, `ag.random`, the NumPy
dispatch table and docs/ops.md agree with the op declarations and the table
of public functions, both ways.

Each check is a function returning the problems it finds; the tests run it on
the real library (no problems) and on a copy with one name dropped or added
(the problem is named), so a check that could not fail would show.
"""
from __future__ import annotations

import os
import types

import numpy as np
import pytest

import autograph as ag
import paths
from autograph.tracer.api import docs, numpy_protocol, public
from autograph.tracer.core import registry

OPS_MD = os.path.join(paths.ROOT, "docs", "ops.md")
SPACES = {"": ag, "math": ag.math, "nn": ag.nn, "random": ag.random, "bitwise": ag.bitwise,
          "linalg": ag.linalg}
# ag.nn and ag.random are the modules that define their functions (with helpers imported)
PURE = {"": True, "math": True, "nn": False, "random": False, "bitwise": True, "linalg": True}


# ---------------------------------------------------------------- the checks

def namespace_problems(space: str, module, pure: bool = True) -> list:
    """`module` (ag or one of its namespaces) exports exactly the table's names
    of `space`, as the table's functions; when it is `pure` (a namespace and
    nothing else: ag, ag.math), every public function it holds from the api
    room is one of them (nothing exported without a declaration)."""
    where = f"ag.{space}." if space else "ag."
    table = public.namespace(space)
    exported = set(getattr(module, "__all__", ()))
    out = [f"{where}{n} is public but missing" for n in sorted(set(table) - exported)]
    out += [f"{where}{n} is exported without a declaration or @public"
            for n in sorted(exported - set(table))
            if _is_api_function(getattr(module, n, None))]
    out += [f"{where}{n} is not the table's function" for n in sorted(set(table) & exported)
            if getattr(module, n, None) is not table[n]]
    stray = {n for n, v in vars(module).items()
             if pure and not n.startswith("_") and _is_api_function(v)} - set(table)
    out += [f"{where}{n} holds an api function the table does not list" for n in sorted(stray)]
    return out


def _is_api_function(value) -> bool:
    return (isinstance(value, types.FunctionType)
            and (value.__module__ or "").startswith("autograph.tracer.api"))


def numpy_problems(table: dict) -> list:
    """The dispatch table's keys are the declared NumPy names and NUMPY_ONLY,
    nothing else; every declared name is one NumPy has."""
    declared = {}
    for name in public.numpy_names():
        key = numpy_protocol.numpy_key(name)
        if key is None:
            return [f"np.{name} is declared but NumPy has no such name"]
        declared[key] = name
    expected = set(declared) | set(numpy_protocol.NUMPY_ONLY)
    out = [f"np.{declared.get(k, k)} is declared but not dispatched"
           for k in sorted(expected - set(table))]
    out += [f"np.{k} is dispatched without a declaration" for k in sorted(set(table) - expected)]
    out += [f"np.{k} is in NUMPY_ONLY but also declared" for k in
            sorted(set(declared) & set(numpy_protocol.NUMPY_ONLY))]
    return out


def _op_cells(text: str):
    """The first cells of the rows of every table whose first column is "op"."""
    in_table = False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells is None:
            in_table = False
        elif cells[0] == "op":
            in_table = True
        elif in_table and not set(cells[0]) <= set("-"):
            yield cells[0]


def docs_problems(text: str) -> list:
    """The generated sections of docs/ops.md are current, every name in the
    first column of its op tables is a declared op, and every declared op is
    in one of them."""
    out = []
    if docs.render(text) != text:
        out.append("docs/ops.md is out of date: run python -m autograph.tracer.api.docs docs/ops.md")
    documented = set()
    for cell in _op_cells(text):
        for word in cell.split():
            documented.add(word)
            if word not in registry.REGISTRY:
                out.append(f"docs/ops.md lists {word!r}, which is not a declared op")
    out += [f"op {n!r} is not in docs/ops.md" for n in registry.REGISTRY if n not in documented]
    return out


def _ops_md() -> str:
    with open(OPS_MD) as fh:
        return fh.read()


# ---------------------------------------------------------------- the library agrees

def test_every_declared_public_op_has_its_function():
    assert public.problems() == []


@pytest.mark.parametrize("space", list(SPACES), ids=lambda s: s or "ag")
def test_namespaces_export_the_table(space):
    assert namespace_problems(space, SPACES[space], PURE[space]) == []


def test_numpy_dispatch_table_is_the_declared_names():
    assert numpy_problems(numpy_protocol.dispatch_table()) == []


def test_docs_ops_md_matches_the_declarations():
    assert docs_problems(_ops_md()) == []


def test_every_op_with_public_names_is_reachable_under_each():
    for opdef in registry.REGISTRY.values():
        entry = public.entry_of_op(opdef.name)
        for name in opdef.public:
            space, _, short = name.rpartition(".")
            assert getattr(SPACES[space], short) is entry.function, name


# ---------------------------------------------------------------- the checks can fail

def test_a_public_name_missing_from_a_namespace_is_found():
    fake = types.SimpleNamespace(**{n: f for n, f in public.namespace("math").items() if n != "tanh"})
    fake.__all__ = [n for n in public.namespace("math") if n != "tanh"]
    assert namespace_problems("math", fake) == ["ag.math.tanh is public but missing"]


def test_a_name_exported_without_a_declaration_is_found():
    def cbrt_by_hand(x):
        return x
    cbrt_by_hand.__module__ = "autograph.tracer.api.elementwise"
    fake = types.SimpleNamespace(**public.namespace("math"), cube=cbrt_by_hand)
    fake.__all__ = [*public.namespace("math"), "cube"]
    assert namespace_problems("math", fake) == [
        "ag.math.cube is exported without a declaration or @public",
        "ag.math.cube holds an api function the table does not list"]


def test_a_wrong_function_under_a_public_name_is_found():
    fake = types.SimpleNamespace(**dict(public.namespace("nn"), relu=ag.nn.elu))
    fake.__all__ = list(public.namespace("nn"))
    assert namespace_problems("nn", fake) == ["ag.nn.relu is not the table's function"]


def test_numpy_names_missing_or_undeclared_are_found():
    table = dict(numpy_protocol.dispatch_table())
    del table["tanh"]
    table["sort_complex"] = np.sort_complex
    assert numpy_problems(table) == ["np.tanh is declared but not dispatched",
                                     "np.sort_complex is dispatched without a declaration"]


def test_docs_missing_an_op_or_listing_an_undeclared_one_are_found():
    text = _ops_md()
    broken = text.replace("| matmul |", "| matmul_t |")
    assert docs_problems(broken) == ["docs/ops.md lists 'matmul_t', which is not a declared op",
                                     "op 'matmul' is not in docs/ops.md"]
    stale = text.replace("| tanh | x: a float tensor", "| tanh | x: a flot tensor")
    assert docs_problems(stale)[0].startswith("docs/ops.md is out of date")


def test_an_op_declaring_public_names_without_a_function_is_found(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    registry.declare("erfinv", lambda *a: [], np.tanh, elementwise="unary", kind="float",
                     doc="The inverse error function.", public=("math.erfinv",),
                     numpy=("erfinv",))
    assert public.problems() == ["op 'erfinv' declares ('math.erfinv', 'erfinv') but no public "
                                 "function is registered for it"]


# ---------------------------------------------------------------- registering

def test_public_registration_errors(monkeypatch):
    monkeypatch.setattr(public, "ENTRIES", list(public.ENTRIES))
    monkeypatch.setattr(public, "_by_name", dict(public._by_name))
    monkeypatch.setattr(public, "_by_numpy", dict(public._by_numpy))
    monkeypatch.setattr(public, "_by_op", dict(public._by_op))

    def f(x):
        """A composition."""
        return x
    with pytest.raises(ValueError, match=r"@public: 'tanh' is declared by op 'tanh'; register its "
                                         r"function with @implements\('tanh'\)"):
        public.public("tanh")(f)
    with pytest.raises(ValueError, match=r"@public: 'sum' is declared by op 'reduce_sum'"):
        public.public("total", numpy=("sum",))(f)
    with pytest.raises(ValueError, match=r"public name 'nn.relu' is registered twice"):
        public.public("nn.relu")(f)
    with pytest.raises(ValueError, match=r"public name 'signal.f': expected 'name' or 'space.name' "
                                         r"with space one of \('math', 'nn', 'random', 'bitwise'"):
        public.public("signal.f")(f)
    with pytest.raises(ValueError, match=r"@public needs at least one name"):
        public.public()(f)
    with pytest.raises(ValueError, match=r"op 'tanh' already has a public function"):
        public.register_op("tanh", f)
    with pytest.raises(ValueError, match=r"@implements\('strided_slice'\): the op declares no "
                                         r"public or NumPy names"):
        public.implements("strided_slice")
    with pytest.raises(ValueError, match=r"unknown namespace 'signal'"):
        public.namespace("signal")
    assert public.public("math.f_composed", numpy=("fabs",))(f) is f
    assert public.namespace("math")["f_composed"] is f and public.numpy_names()["fabs"] is f


def test_generated_functions_carry_the_declaration():
    assert ag.tanh.__name__ == "tanh"
    assert ag.tanh.__doc__.startswith(registry.get("tanh").doc)
    # the dtype rules come from the declaration's kind (tracer/api/docgen.py)
    assert "x: a float tensor" in ag.tanh.__doc__ and "ag.cast(x, ag.float32)" in ag.tanh.__doc__
    assert "ag.cast(x, ag.float32)" not in ag.abs.__doc__
    assert "shapes broadcast as in NumPy" in ag.add.__doc__
    assert ag.reduce_sum.__doc__.startswith(registry.get("reduce_sum").doc)
    assert ag.math.floormod is ag.mod and ag.math.truediv is ag.divide and ag.nn.sigmoid is ag.sigmoid


def test_docs_tool_rewrites_and_checks(tmp_path, capsys):
    path = tmp_path / "ops.md"
    path.write_text(_ops_md().replace("| tanh | x: a float tensor", "| tanh | stale"))
    assert docs.main(["--check", str(path)]) == 1
    assert "ops.md is out of date: run make docs" in capsys.readouterr().err
    assert docs.main([str(path)]) == 0
    assert path.read_text() == _ops_md()
    assert docs.main(["--check", str(path)]) == 0
    assert docs.main([]) == 2
    path.write_text("no sections here\n")
    with pytest.raises(ValueError, match=r"docs: no '<!-- generated: elementwise ops -->'"):
        docs.main([str(path)])
