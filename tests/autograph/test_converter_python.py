"""Converted functions called with Python values behave exactly like the originals.

Differential tests: `convert(f)(*args) == f(*args)` for every construct the
converter rewrites (if/elif/else, while, for, break, continue, early return,
nested loops, ternaries, and/or/not, comparison chains, item assignment) and
for closures, methods, lambdas, helpers and defaults.
"""
from __future__ import annotations

import functools

import pytest

from autograph import impl


def same(fn, *args, **kwargs):
    """Assert the converted fn gives the original's result (or raises the same type)."""
    try:
        expected = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - we compare exception types
        with pytest.raises(type(e)):
            impl.convert(fn)(*args, **kwargs)
        return
    assert impl.convert(fn)(*args, **kwargs) == expected


# ---------------------------------------------------------------- if / elif


def if_elif(x):
    if x > 10:
        y = "big"
    elif x > 0:
        y = "small"
    elif x == 0:
        y = "zero"
    else:
        y = "negative"
    return y


def if_no_else(x):
    y = 1
    if x:
        y = 2
    return y


def if_one_branch_defines(x):
    if x > 0:
        y = x
    return y  # UnboundLocalError for x <= 0, as in Python


def if_input_only(x):
    t = x + 1
    if x > 0:
        t = t * 2
        r = t
    else:
        r = t - 100
    return r


def if_nested_returns(x):
    if x > 0:
        if x < 5:
            return "small"
        return "large"
    return "negative"


@pytest.mark.parametrize("x", [-5, 0, 3, 10, 11])
def test_if_statements(x):
    for fn in (if_elif, if_no_else, if_one_branch_defines, if_input_only, if_nested_returns):
        same(fn, x)


def test_unbound_local_message():
    with pytest.raises(UnboundLocalError, match="'y' is used before assignment"):
        impl.convert(if_one_branch_defines)(-1)


# --------------------------------------------------------------------- while


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def while_break_continue(n):
    i, acc = 0, []
    while True:
        i += 1
        if i % 3 == 0:
            continue
        if i > n:
            break
        acc.append(i)
    return acc


def while_return(n):
    i = 0
    while i < n:
        i += 1
        if i * i > n:
            return i
    return -1


def while_else(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        return ("no break", i)
    return ("break", i)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 27, 50])
def test_while_loops(n):
    if n:
        same(collatz, n)
    for fn in (while_break_continue, while_return, while_else):
        same(fn, n)


# ----------------------------------------------------------------------- for


def for_sum(xs):
    s = 0
    for x in xs:
        s += x
    return s


def for_break_continue(xs):
    out = []
    for x in xs:
        if x < 0:
            continue
        if x > 100:
            break
        out.append(x)
    return out


def for_early_return(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i
    return None


def for_target_after_loop(n):
    for i in range(n):
        pass
    return i


def for_else(xs):
    for x in xs:
        if x == 3:
            break
    else:
        return "exhausted"
    return "found"


def nested_loops(n):
    total = 0
    for i in range(n):
        j = 0
        while j < i:
            if (i + j) % 3 == 0:
                j += 1
                continue
            if j > 4:
                break
            total += i * j
            j += 1
    return total


def nested_return(grid, v):
    for r, row in enumerate(grid):
        for c, x in enumerate(row):
            if x == v:
                return (r, c)
    return None


def loop_defines_var(n):
    for i in range(n):
        last = i * 2
    return last


def tuple_target(pairs):
    acc = 0
    for a, (b, c) in pairs:
        acc += a * b - c
    return acc


XS = [[], [1, 2, 3], [5, -1, 7, 200, 3], [3, 3], [-1, -2]]


@pytest.mark.parametrize("xs", XS)
def test_for_loops(xs):
    for fn in (for_sum, for_break_continue, for_else):
        same(fn, xs)
    same(for_early_return, xs, 3)
    same(nested_return, [xs, xs[::-1]], 7)


@pytest.mark.parametrize("n", [0, 1, 5, 12])
def test_for_over_range(n):
    for fn in (for_target_after_loop, nested_loops, loop_defines_var):
        same(fn, n)


def test_tuple_targets():
    same(tuple_target, [(1, (2, 3)), (4, (5, 6))])


def test_break_does_not_consume_extra_item():
    def consume(it):
        for x in it:
            if x == 2:
                break
        return next(it)

    assert impl.convert(consume)(iter([1, 2, 3, 4])) == 3


# --------------------------------------------------------- expressions


def ternary(x):
    return "pos" if x > 0 else "zero" if x == 0 else "neg"


def logic(a, b, c):
    return (a and b, a or b, not a, a and b or c, a < b < c, a == b != c)


def lazy_logic(xs):
    # The second operand must not run when the first decides.
    return len(xs) > 0 and xs[0] > 0, len(xs) == 0 or xs[-1] < 0


@pytest.mark.parametrize("args", [(0, 1, 2), (1, 0, 2), (2, 2, 2), (3, 2, 1), ([], "x", None)])
def test_logic_and_ternary(args):
    same(logic, *args)
    if isinstance(args[0], int):
        same(ternary, args[0] - 1)


def test_lazy_logic():
    for xs in ([], [1], [-1], [2, -3]):
        same(lazy_logic, xs)


def test_compare_chain_evaluates_once():
    calls = []

    def mid():
        calls.append(1)
        return 5

    def chain():
        return 1 < mid() < 10

    assert impl.convert(chain)() is True
    assert len(calls) == 1


# ---------------------------------------------------------- item assignment


def item_assign(xs, d):
    xs[0] = 10
    xs[1] += 5
    d["k"] = xs[0]
    d["k"] *= 2
    xs[1:3] = [7, 8]
    return xs, d


def test_item_assignment_keeps_python_semantics():
    xs, d = [1, 2, 3, 4], {}
    out = impl.convert(item_assign)(xs, d)
    assert out == ([10, 7, 8, 4], {"k": 20})
    assert xs == [10, 7, 8, 4]  # lists are still mutated in place


# ------------------------------------------- calls, closures, methods, lambdas


def helper_sign(v):
    if v > 0:
        return 1
    return -1


def uses_helper(xs):
    return [helper_sign(x) for x in xs] + [(lambda q: q if q > 0 else 0)(-3)]


def make_closure(k):
    scale = [k]

    def inner(x):
        if x > 0:
            return x * scale[0]
        return 0

    return inner


class Counter:
    def __init__(self, start):
        self.start = start

    def count(self, n):
        total = self.start
        for i in range(n):
            if i % 2:
                total += i
        return total

    def __call__(self, x):
        return x if x > self.start else self.start


def defaults(a, b=2, *args, c=3, **kw):
    if kw:
        return a + b + c + sum(args) + sum(kw.values())
    return a + b + c + sum(args)


def test_helpers_and_lambdas():
    same(uses_helper, [1, -2, 0])
    lam = lambda x: "yes" if x and x > 2 else "no"  # noqa: E731
    for v in (0, 1, 3):
        same(lam, v)


def test_closures_stay_live():
    f = make_closure(3)
    g = impl.convert(f)
    assert g(2) == 6 and g(-1) == 0
    # The converted function shares the closure cell: rebinding is visible.
    f.__closure__[0].cell_contents[0] = 10
    assert g(2) == 20


def test_globals_stay_live():
    global GLOBAL_SCALE
    GLOBAL_SCALE = 2

    def scaled(x):
        if x:
            return x * GLOBAL_SCALE
        return 0

    g = impl.convert(scaled)
    assert g(3) == 6
    GLOBAL_SCALE = 5
    assert g(3) == 15


def test_methods_bound_and_unbound():
    c = Counter(10)
    assert impl.convert(c.count)(6) == c.count(6)
    assert impl.convert(Counter.count)(c, 6) == c.count(6)
    # A callable object called from converted code has its __call__ converted.

    def call_it(obj, x):
        return obj(x)

    same(call_it, c, 3)
    same(call_it, c, 30)


def test_defaults_and_varargs():
    same(defaults, 1)
    same(defaults, 1, 5, 6, 7, c=0)
    same(defaults, 1, z=9)


def test_partial_and_builtins():
    def f(xs):
        p = functools.partial(helper_sign)
        return [p(x) for x in xs], len(xs), list(range(len(xs))), max(xs), sorted(xs)

    same(f, [3, -1, 2])


def test_nested_function_definitions():
    def outer(n):
        def inner(m):
            total = 0
            while m > 0:
                total += m
                m -= 1
            return total
        return [inner(i) for i in range(n)]

    same(outer, 5)


def test_global_and_nonlocal_declarations():
    state = {"v": 0}

    def counter():
        hits = 0

        def bump(flag):
            nonlocal hits
            if flag:
                hits += 1
            return hits

        bump(True)
        bump(False)
        bump(True)
        return hits

    assert impl.convert(counter)() == 2
    assert state["v"] == 0


def test_global_statement_in_branch():
    global GLOBAL_COUNT
    GLOBAL_COUNT = 0

    def bump(n):
        for i in range(n):
            if i % 2 == 0:
                global GLOBAL_COUNT
                GLOBAL_COUNT += 1
        return GLOBAL_COUNT

    assert impl.convert(bump)(5) == 3
    assert GLOBAL_COUNT == 3


def test_try_with_and_del():
    def f(x):
        try:
            if x == 0:
                raise ZeroDivisionError
            y = 10 // x
        except ZeroDivisionError:
            y = -1
        finally:
            z = 1
        for i in range(3):
            if i == x:
                del z
                z = 5
        return y + z

    for v in (0, 1, 2, 5):
        same(f, v)


def test_recursion():
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    assert impl.convert(fact)(6) == 720


class _Base:
    def f(self, x):
        return x + 1


class _Child(_Base):
    def f(self, x):
        if x > 2:
            return super().f(x) * 10  # zero-arg super inside a converted branch
        return super().f(x)


def test_zero_argument_super_in_a_branch():
    c = _Child()
    assert [impl.convert(c.f)(v) for v in (1, 5)] == [c.f(1), c.f(5)]


def test_convert_callable_objects_and_partials():
    c = Counter(4)
    assert impl.convert(c)(10) == c(10) and impl.convert(c)(1) == c(1)
    p = functools.partial(defaults, 1, c=10)
    assert impl.convert(p)(2) == p(2)


def test_del_of_a_branch_variable():
    def f(c):
        x = 1
        if c:
            del x
        return x  # UnboundLocalError when c

    same(f, 0)
    with pytest.raises(UnboundLocalError, match="'x'"):
        impl.convert(f)(1)


def test_del_of_a_parameter_in_a_loop():
    def f(x, n):
        for i in range(n):
            if i == 1:
                del x
                x = i * 10
        return x

    for n in (0, 1, 3):
        same(f, 5, n)
