"""`if`/`while`/`for` statements become calls of `ag__.if_stmt`/`while_stmt`/`for_stmt`.

Each statement turns into small nested functions over the enclosing
function's variables (research notes 1.5):

    def get_state():            # the block variables, as a tuple
        return (x, y)
    def set_state(vars_):       # put new values back into them
        nonlocal x, y
        (x, y) = vars_
    def if_body(): ...          # the branch / loop body, sharing the variables
    ag__.if_stmt(test, if_body, else_body, get_state, set_state, ('x', 'y'), 1)

Block variables come from the static analysis (liveness.py): names modified
in the statement that are live into its blocks or after it, plus modified
globals/nonlocals. An `if`'s outputs (live after it) come first; `nouts`
says how many. Variables that may be unbound when a statement runs are set to
`ag__.Undefined('x')` at function entry, their loads become `ag__.ld(x)`
(raising UnboundLocalError as Python would) and `del x` rebinds the
placeholder: that keeps `get_state` valid on every path.
"""
from __future__ import annotations

from typing import List, Set

import gast

from . import composites, templates
from .liveness import EXTRA_TEST_ATTR, analyze_function

__all__ = ["transform", "extract_loop_options"]

ITER_SOURCE_ATTR = "__ag_iter_source"
LOOP_OPTIONS_ATTR = "__ag_loop_options"

_CONTROL = (gast.If, gast.While, gast.For)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)


class _Scope:
    """What the converter knows about the user function being converted."""

    def __init__(self, globals_: Set[str], nonlocals: Set[str]):
        self.globals = globals_
        self.nonlocals = nonlocals
        self.undefined: Set[str] = set()
        self.block_vars: Set[str] = set()


def _params(fn: gast.AST) -> Set[str]:
    a = fn.args
    names = {x.id for x in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {x.id for x in (a.vararg, a.kwarg) if x is not None}
    return names


def _block_info(node, scope: _Scope):
    """(outputs, input_only, composites) for an if; (loop_vars, (), composites)
    for loops. Cached on the node.

    Composites (`x['b']`, `self.n`) written in the blocks whose root name is
    live into them are state too: outputs of an if, variables of a loop.
    """
    cached = getattr(node, "_ag_block", None)
    if cached is not None:
        return cached
    modified = node._ag_modified
    declared = scope.globals | scope.nonlocals
    live = node._ag_live_in | node._ag_live_out
    block_vars = (modified & live) | (modified & declared)
    if isinstance(node, gast.If):
        outputs = sorted(v for v in block_vars if v in node._ag_live_out or v in declared)
        inputs = sorted(block_vars - set(outputs))
    else:
        outputs, inputs = sorted(block_vars), []
    scope.block_vars |= block_vars
    defined = node._ag_defined_in
    if defined is not None:
        scope.undefined |= block_vars - defined - declared
    found = composites.block_composites(node.body + node.orelse)
    roots_in = node._ag_live_in | declared
    carried = sorted((c for c in found.values() if c.root in roots_in),
                     key=lambda c: (c.depth, c.text))  # containers are written before their items
    node._ag_block = (outputs, inputs, carried)
    return node._ag_block


def _walk_own(stmts):
    """Nodes of a function body, not entering nested functions, lambdas or classes."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(gast.iter_child_nodes(n))


class _LoadWrapper(gast.NodeTransformer):
    """`x` -> `ag__.ld(x)` for possibly-unbound names; `del x` -> placeholder."""

    def __init__(self, names: Set[str]):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names and isinstance(node.ctx, gast.Load):
            return templates.copy_missing_locations(
                templates.ag_call("ld", [node]), node)
        return node

    def visit_FunctionDef(self, node):
        return node  # its own scope; converted separately

    def visit_ClassDef(self, node):
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        t = node.target
        if isinstance(t, gast.Name) and t.id in self.names:
            pre = templates.replace("x = ag__.ld(x_load)", x=t.id,
                                    x_load=templates.name(t.id))
            return templates.copy_missing_locations(pre, node) + [node]
        return node

    def visit_Delete(self, node):
        out = []
        keep = []
        for t in node.targets:
            if isinstance(t, gast.Name) and t.id in self.names:
                out += templates.replace("x = ag__.Undefined(label)", x=t.id,
                                         label=templates.const(t.id))
            else:
                keep.append(self.visit(t))
        if keep:
            node.targets = keep
            out = [node] + out
        return templates.copy_missing_locations(out, node)


class _ControlFlowTransformer(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer
        self.scopes: List[_Scope] = []
        self.vars_name = namer.new("vars_")

    # -- scopes -------------------------------------------------------------

    def visit_FunctionDef(self, node):
        analyze_function(node, _params(node))
        scope = _Scope(getattr(node, "_ag_globals", set()), getattr(node, "_ag_nonlocals", set()))
        deleted = set()
        for n in _walk_own(node.body):
            if isinstance(n, _CONTROL):
                _block_info(n, scope)
            elif isinstance(n, gast.Delete):
                deleted |= {t.id for t in n.targets if isinstance(t, gast.Name)}
        # `del x` of a local becomes `x = ag__.Undefined('x')`, with loads
        # guarded by ag__.ld: a deleted block variable stays readable by
        # get_state, and a `del` inside a branch or loop body (a nested
        # function after conversion) never deletes a name of that function.
        scope.undefined |= deleted - scope.globals - scope.nonlocals
        if scope.undefined:
            wrapper = _LoadWrapper(scope.undefined)
            node.body = _flatten(wrapper.visit(s) for s in node.body)
        self.scopes.append(scope)
        node.body = _flatten(self.visit(s) for s in node.body)
        self.scopes.pop()
        unbound_at_entry = scope.undefined - _params(node)
        if unbound_at_entry:
            inits = []
            for v in sorted(unbound_at_entry):
                inits += templates.replace("x = ag__.Undefined(label)", x=v,
                                           label=templates.const(v))
            templates.copy_missing_locations(inits, node.body[0])
            k = 0
            while k < len(node.body) and isinstance(node.body[k], (gast.Global, gast.Nonlocal)):
                k += 1
            node.body[k:k] = inits
        return node

    def visit_ClassDef(self, node):
        return node  # class bodies stay plain Python

    def visit_Lambda(self, node):
        return node

    # -- helpers ------------------------------------------------------------

    def _declarations(self, names) -> List[gast.stmt]:
        scope = self.scopes[-1]
        names = [n for n in names if n.isidentifier()]   # not composites (`x['b']`)
        glob = [n for n in names if n in scope.globals]
        nonloc = [n for n in names if n not in scope.globals]
        decls = []
        if glob:
            decls.append(gast.Global(names=glob))
        if nonloc:
            decls.append(gast.Nonlocal(names=nonloc))
        return decls

    def _state_functions(self, names, carried=()):
        """`get_state`/`set_state` over `names`; a name that is a composite's
        text is read and written through `ag__.ld_composite`/`store_composite`."""
        get_name, set_name = self.namer.new("get_state"), self.namer.new("set_state")
        by_text = {c.text: c for c in carried}
        state = gast.Tuple(elts=[composites.read_expr(by_text[n]) if n in by_text
                                 else templates.name(n) for n in names], ctx=gast.Load())
        getter = templates.replace("def get_name():\n    return state",
                                   get_name=get_name, state=state)
        if by_text:
            stores = []
            for k, n in enumerate(names):
                item = templates.replace_expr("vars_[k]", vars_=self.vars_name, k=templates.const(k))
                if n in by_text:
                    stores += composites.write_stmts(by_text[n], item)
                else:
                    stores += templates.replace("x = item", x=n, item=item)
            setter = templates.replace(
                "def set_name(vars_):\n    decls\n    stores",
                set_name=set_name, vars_=self.vars_name, decls=self._declarations(names),
                stores=stores)
        elif names:
            target = gast.Tuple(elts=[templates.name(n, gast.Store) for n in names],
                                ctx=gast.Store())
            setter = templates.replace(
                "def set_name(vars_):\n    decls\n    target = vars_",
                set_name=set_name, vars_=self.vars_name, decls=self._declarations(names),
                target=target)
        else:
            setter = templates.replace("def set_name(vars_):\n    pass",
                                       set_name=set_name, vars_=self.vars_name)
        return get_name, set_name, getter + setter

    def _thunk(self, base, names, body, params=()):
        fn_name = self.namer.new(base)
        defn = templates.replace("def fn_name():\n    decls\n    body", fn_name=fn_name,
                                 decls=self._declarations(names), body=body or [gast.Pass()])
        for p in params:
            defn[0].args.args.append(templates.name(p, gast.Param))
        for d in defn:
            setattr(d, templates.GENERATED_MARK, True)
        return fn_name, defn

    @staticmethod
    def _names_tuple(names):
        return gast.Tuple(elts=[templates.const(n) for n in names], ctx=gast.Load())

    # -- statements ---------------------------------------------------------

    def visit_If(self, node):
        outputs, inputs, carried = _block_info(node, self.scopes[-1])
        self.generic_visit(node)
        outputs = outputs + [c.text for c in carried]
        names = outputs + inputs
        get_name, set_name, state_defs = self._state_functions(names, carried)
        body_name, body_def = self._thunk("if_body", names, node.body)
        else_name, else_def = self._thunk("else_body", names, node.orelse)
        call = templates.replace(
            "ag__.if_stmt(test, body, orelse, get_state, set_state, names, nouts)",
            test=node.test, body=templates.name(body_name), orelse=templates.name(else_name),
            get_state=templates.name(get_name), set_state=templates.name(set_name),
            names=self._names_tuple(names), nouts=templates.const(len(outputs)))
        out = state_defs + body_def + else_def + call
        return templates.copy_missing_locations(out, node)

    def visit_While(self, node):
        names, _, carried = _block_info(node, self.scopes[-1])
        self.generic_visit(node)
        names = names + [c.text for c in carried]
        get_name, set_name, state_defs = self._state_functions(names, carried)
        body_name, body_def = self._thunk("loop_body", names, node.body)
        test_name = self.namer.new("loop_test")
        test_def = templates.replace("def test_name():\n    return test",
                                     test_name=test_name, test=node.test)
        call = templates.replace(
            "ag__.while_stmt(test, body, get_state, set_state, names, opts)",
            test=templates.name(test_name), body=templates.name(body_name),
            get_state=templates.name(get_name), set_state=templates.name(set_name),
            names=self._names_tuple(names), opts=_opts(node, *_appended(node, names)))
        out = state_defs + body_def + test_def + call
        return templates.copy_missing_locations(out, node)

    def visit_For(self, node):
        names, _, carried = _block_info(node, self.scopes[-1])
        self.generic_visit(node)
        names = names + [c.text for c in carried]
        get_name, set_name, state_defs = self._state_functions(names, carried)
        itr = self.namer.new("itr")
        unpack = templates.replace("target = itr", target=node.target, itr=templates.name(itr))
        templates.copy_missing_locations(unpack, node.target)
        body_name, body_def = self._thunk("loop_body", names, unpack + node.body, params=[itr])
        extra = getattr(node, EXTRA_TEST_ATTR, None)
        extra_defs = []
        extra_ref = templates.const(None)
        if extra is not None:
            extra_name = self.namer.new("extra_test")
            extra_defs = templates.replace("def extra_name():\n    return extra",
                                           extra_name=extra_name, extra=extra)
            extra_ref = templates.name(extra_name)
        keys, values = ["iterate_names"], [templates.const(_unparse(node.target))]
        if getattr(node, ITER_SOURCE_ATTR, None):   # `range(n)`: for the unrolling warning
            keys.append("iterate_source")
            values.append(templates.const(getattr(node, ITER_SOURCE_ATTR)))
        more_keys, more_values = _appended(node, names)
        opts = _opts(node, keys + more_keys, values + more_values)
        call = templates.replace(
            "ag__.for_stmt(iter_, extra, body, get_state, set_state, names, opts)",
            iter_=node.iter, extra=extra_ref, body=templates.name(body_name),
            get_state=templates.name(get_name), set_state=templates.name(set_name),
            names=self._names_tuple(names), opts=opts)
        out = state_defs + body_def + extra_defs + call
        return templates.copy_missing_locations(out, node)


def _unparse(node) -> str:
    import ast
    import copy
    return ast.unparse(gast.gast_to_ast(copy.deepcopy(node)))


def _flatten(items) -> List[gast.stmt]:
    out = []
    for item in items:
        if item is None:
            continue
        out.extend(item if isinstance(item, list) else [item])
    return out


def _is_set_loop_options(stmt) -> bool:
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


def _own_nodes(fn):
    """The nodes of function `fn`'s own scope (nested functions and classes not entered)."""
    todo = list(fn.body) if isinstance(fn.body, list) else [fn.body]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            todo.extend(gast.iter_child_nodes(n))


def _declarations_by_loop(node) -> dict:
    """id(loop) -> the names its own function declares `global`/`nonlocal`."""
    out = {}
    for fn in gast.walk(node):
        if not isinstance(fn, (gast.FunctionDef, gast.AsyncFunctionDef)):
            continue
        own = list(_own_nodes(fn))
        declared = {name for n in own if isinstance(n, (gast.Global, gast.Nonlocal))
                    for name in n.names}
        if declared:
            for n in own:
                if isinstance(n, (gast.While, gast.For)):
                    out[id(n)] = declared
    return out


def extract_loop_options(node: gast.AST) -> gast.AST:
    """Take `maximum_iterations=` and `shape_invariants=` out of
    `set_loop_options(...)` calls at the top level of each loop body (as
    TensorFlow's directives do) and record them on the loop, for
    `visit_While`/`visit_For` to pass to the loop operator (evaluated before
    the loop, so an invariant names the variable's value before the loop).

    Runs before the calls are routed through `converted_call`. The call stays
    (it checks the other options); a call elsewhere keeps both and refuses
    what it cannot honour when it runs.
    """
    declared_in = _declarations_by_loop(node)
    for loop in gast.walk(node):
        if not isinstance(loop, (gast.While, gast.For)):
            continue
        declared = declared_in.get(id(loop), set())
        written = sorted(declared & {n.id for s in loop.body for n in gast.walk(s)
                                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)})
        if written:   # `global g` / `nonlocal g` assigned in the loop: refused if it compiles
            options = getattr(loop, LOOP_OPTIONS_ATTR, {})
            options["declared_writes"] = gast.Tuple(
                elts=[templates.const(w) for w in written], ctx=gast.Load())
            setattr(loop, LOOP_OPTIONS_ATTR, options)
        if isinstance(loop, gast.For) and isinstance(loop.iter, gast.Call):   # for the warning
            setattr(loop, ITER_SOURCE_ATTR, _unparse(loop.iter))
        for stmt in loop.body:
            if not _is_set_loop_options(stmt):
                continue
            # (parallel_iterations, swap_memory, maximum_iterations, shape_invariants)
            for position, option in ((2, "maximum_iterations"), (3, "shape_invariants")):
                expr = _take_argument(stmt.value, position, option)
                if expr is not None:
                    options = getattr(loop, LOOP_OPTIONS_ATTR, {})
                    options[option] = expr
                    setattr(loop, LOOP_OPTIONS_ATTR, options)
    return node


def _take_argument(call, position: int, keyword: str):
    """Remove argument `keyword` (or positional `position`) from `call`; its
    expression, or None when the call does not pass it."""
    if len(call.args) > position:
        expr = call.args[position]
        call.args[position] = gast.Constant(value=None, kind=None)
        gast.copy_location(call.args[position], expr)
        return expr
    kw = [k for k in call.keywords if k.arg == keyword]
    if not kw:
        return None
    call.keywords = [k for k in call.keywords if k.arg != keyword]
    return kw[0].value


def _appended(node, names):
    """(keys, values) of the loop option naming the lists the loop body appends to."""
    from .lists import appended_names
    appended = sorted(appended_names(node.body) & set(names))
    if not appended:
        return [], []
    return ["appended"], [gast.Tuple(elts=[templates.const(n) for n in appended],
                                     ctx=gast.Load())]


def _opts(node, base_keys=(), base_values=()):
    keys, values = [templates.const(k) for k in base_keys], list(base_values)
    for k, v in getattr(node, LOOP_OPTIONS_ATTR, {}).items():
        keys.append(templates.const(k))
        values.append(v)
    return gast.Dict(keys=keys, values=values)


def transform(node: gast.AST, namer) -> gast.AST:
    """Convert control flow in `node` (a FunctionDef) and every function nested in it."""
    return _ControlFlowTransformer(namer).visit(node)
