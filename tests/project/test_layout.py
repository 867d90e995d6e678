"""The layout the code must keep: rooms whose imports point one way, no import
cycle inside a package, no module over 600 lines, no file named by a number.

The imports are read from the source (ast), not by importing it. A module's
imports are its `import`/`from` statements anywhere in the file, except under
`if TYPE_CHECKING:`; "module level" means outside any function or class body
(an import inside a function is lazy: it cannot form an import-time cycle, but
it still counts for the direction of dependencies between rooms).
"""
import ast
import os
import re

import paths

import pytest

# The repository's folders and the import names they install as (pyproject's package-dir).
FOLDERS = {"autograph": "autograph", "tracer": "autograph.tracer", "codegen": "autograph.codegen",
           "runtime": "autograph.runtime"}
MAX_LINES = 600


def _modules():
    """{module name: (path, is_package)} for every library module."""
    out = {}
    for folder, name in FOLDERS.items():
        base = os.path.join(paths.ROOT, folder)
        for d, dirs, files in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            rel = os.path.relpath(d, base)
            pkg = name if rel == "." else name + "." + rel.replace(os.sep, ".")
            for f in files:
                if f.endswith(".py"):
                    mod = pkg if f == "__init__.py" else f"{pkg}.{f[:-3]}"
                    out[mod] = (os.path.join(d, f), f == "__init__.py")
    return out


MODULES = _modules()


def _is_type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(module: str):
    """[(target module, at module level)] for every import of `module`."""
    path, is_pkg = MODULES[module]
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    package = module if is_pkg else module.rsplit(".", 1)[0]
    found = []

    def visit(node, top_level):
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            if isinstance(child, ast.Import):
                for a in child.names:
                    found.append((a.name, top_level))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - (child.level - 1)]
                    base = ".".join(parts + ([child.module] if child.module else []))
                else:
                    base = child.module or ""
                for a in child.names:
                    sub = f"{base}.{a.name}"
                    found.append((sub if sub in MODULES else base, top_level))
            else:
                inner = top_level and not isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
                visit(child, inner)

    visit(tree, True)
    return [(t, top) for t, top in found if t in MODULES and t != module]


IMPORTS = {m: _imports(m) for m in MODULES}


def _cycles(nodes, edges):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def _package_of(module):
    return module if MODULES[module][1] else module.rsplit(".", 1)[0]


def test_no_import_cycle_inside_a_package():
    """Within each package, the module-level imports among its own modules form no cycle."""
    problems = []
    for pkg in sorted({_package_of(m) for m in MODULES}):
        members = {m for m in MODULES if _package_of(m) == pkg}
        edges = {m: {t for t, top in IMPORTS[m] if top and t in members} for m in members}
        problems += _cycles(members, edges)
    assert not problems, "import cycles: " + "; ".join(" -> ".join(c) for c in problems)


def _room(module):
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and parts[1] in ("tracer", "codegen", "runtime") \
        else "autograph"


# (importer prefix, imported prefix): dependencies that must not exist (ARCHITECTURE.md).
FORBIDDEN = [
    ("autograph.tracer", "autograph.codegen"), ("autograph.tracer", "autograph.runtime"),
    ("autograph.codegen", "autograph.runtime"),
    ("autograph.tracer.core", "autograph.tracer.ops"), ("autograph.tracer.core", "autograph.tracer.passes"),
    ("autograph.tracer.core", "autograph.tracer.tracing"), ("autograph.tracer.core", "autograph.tracer.api"),
    ("autograph.tracer.ops", "autograph.tracer.tracing"), ("autograph.tracer.ops", "autograph.tracer.api"),
    ("autograph.tracer.tracing", "autograph.tracer.api"),
]

# Known exceptions, each a lazy import (inside a function) with its reason. Adding one
# needs a reason as good as these.
ALLOWED = {
    # the counter of `maximum_iterations` uses the public less/add/logical_and, which
    # give a Python int the counter's dtype (weak-number rules live in the API)
    ("autograph.tracer.tracing.loop", "autograph.tracer.api"),
    # re-typing a loop replays the user's elementwise calls through the same public
    # functions, so weak Python numbers adopt dtypes exactly as in the first trace
    ("autograph.tracer.tracing.retype", "autograph.tracer.api.elementwise"),
}


def _under(module, prefix):
    return module == prefix or module.startswith(prefix + ".")


def _forbidden(importer, target):
    if any(_under(importer, a) and _under(target, b) for a, b in FORBIDDEN):
        return True
    # the tracer and codegen rooms never import the `autograph` room proper (converter, CLI, ...)
    return _room(importer) in ("autograph.tracer", "autograph.codegen") and _room(target) == "autograph"


def test_dependencies_point_one_way():
    """tracer imports none of the others, codegen never imports autograph or runtime, and
    the IR core imports nothing above it (lazy imports count too)."""
    bad = sorted(f"{m} imports {t}" for m in MODULES for t, top in IMPORTS[m]
                 if t != "autograph" and _forbidden(m, t) and not (not top and (m, t) in ALLOWED))
    bad += sorted(f"{m} imports autograph" for m in MODULES for t, _ in IMPORTS[m]
                  if t == "autograph" and _room(m) != "autograph")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size_and_name(module):
    path, _ = MODULES[module]
    with open(path) as fh:
        n = sum(1 for _ in fh)
    assert n <= MAX_LINES, f"{path} has {n} lines (at most {MAX_LINES})"
    stem = os.path.splitext(os.path.basename(path))[0]
    assert not re.search(r"\d+$", stem), f"{path} is named by a number"


def test_the_walk_sees_the_known_cycle_shapes():
    """The cycle finder itself: a two-module and a three-module cycle, and none in a chain."""
    assert _cycles({"a", "b", "c"}, {"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _cycles({"a", "b", "c"}, {"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a", "b", "c"}, {"a": {"b"}, "b": {"c"}}) == []
