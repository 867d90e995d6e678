"""The converted source (`to_code`) and the static analysis behind it."""
from __future__ import annotations

import ast

import gast

from autograph import impl
from autograph.converter import liveness, parsing


def code_of(fn):
    text = impl.to_code(fn)
    ast.parse(text)  # always valid Python
    return text


def simple(x):
    return x * 2


def test_straight_line_code_is_left_alone():
    text = code_of(simple)
    assert text.strip() == "def simple(x):\n    return x * 2"


def branch(x):
    if x > 0:
        y = 1
    else:
        y = 2
    return y


def test_if_becomes_if_stmt_with_state_functions():
    text = code_of(branch)
    assert "ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',), 1)" in text
    assert "nonlocal y" in text
    assert "y = ag__.Undefined('y')" in text  # y has no value before the if
    assert "return ag__.ld(y)" in text


def loops(xs, n):
    s = 0
    i = 0
    while i < n:
        i += 1
    for x in xs:
        s += x
    return s, i


def test_loops_become_while_stmt_and_for_stmt():
    text = code_of(loops)
    assert "ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('i',), {})" in text
    assert "ag__.for_stmt(xs, None, loop_body_1, get_state_1, set_state_1, ('s',), " \
           "{'iterate_names': 'x'})" in text
    assert "def loop_body_1(itr):" in text and "x = itr" in text


def breaks(xs):
    for x in xs:
        if x:
            break
    while True:
        break


def test_break_becomes_flag_and_extra_test():
    text = code_of(breaks)
    assert "break_ = False" in text and "break_ = True" in text
    assert "def extra_test():\n        return ag__.not_(break_)" in text
    assert "ag__.and_(lambda: ag__.not_(break_1), lambda: True)" in text
    assert "break\n" not in text


def continues(xs):
    out = []
    for x in xs:
        if x:
            continue
        out.append(x)
    return out


def test_continue_becomes_guard():
    text = code_of(continues)
    assert "continue_ = False" in text and "continue_ = True" in text
    assert "ag__.if_stmt(ag__.not_(continue_)" in text


def last_continue(xs):
    for x in xs:
        if x:
            continue


def test_continue_with_nothing_after_needs_no_flag():
    assert "continue_" not in code_of(last_continue)


def early_returns(x):
    for i in range(x):
        if i > 3:
            return i
    return -1


def test_return_lowering():
    text = code_of(early_returns)
    assert "do_return = False" in text and "retval_ = ag__.UndefinedReturnValue()" in text
    assert "ag__.not_(do_return)" in text
    assert text.rstrip().endswith("return retval_")


def maybe_returns(x):
    if x:
        return 1


def test_function_that_may_fall_through_checks_at_the_end():
    assert code_of(maybe_returns).rstrip().endswith("return ag__.retval(retval_, do_return)")


def expressions(a, b, f):
    return (a if b else f(a), a and b, a or b or f, not a, a < b < 3)


def test_expressions_become_lazy_operators():
    text = code_of(expressions)
    assert "ag__.if_exp(b, lambda: a, lambda: ag__.converted_call(f, (a,), None), " \
           "'a if b else f(a)')" in text
    assert "ag__.and_(lambda: a, lambda: b)" in text
    assert "ag__.or_(lambda: a, lambda: ag__.or_(lambda: b, lambda: f))" in text
    assert "ag__.not_(a)" in text
    assert "ag__.compare_chain(lambda: a, (('<', lambda: b), ('<', lambda: 3)))" in text


def calls(f, xs, **kw):
    return f(1, *xs, k=2, **kw), len(xs), super, print(xs)


def test_calls_go_through_converted_call():
    text = code_of(calls)
    assert "ag__.converted_call(f, (1, *xs), {'k': 2, **kw})" in text
    assert "ag__.converted_call(len, (xs,), None)" in text


def item_updates(x, i, v):
    x[i] = v
    x[i, 0] += v
    x[1:2] = v
    return x


def test_item_assignment_rebinds_the_name():
    text = code_of(item_updates)
    assert "x = ag__.set_item(x, i, v)" in text
    assert "x = ag__.aug_set_item(x, (i, 0), 'iadd', v)" in text
    assert "x = ag__.set_item(x, ag__.slice_(1, 2, None), v)" in text


def decorated(x, y: int = 3) -> int:
    return x + y


def test_signature_details_are_dropped_but_defaults_kept():
    text = code_of(decorated)
    assert "def decorated(x, y=None):" in text
    assert impl.convert(decorated)(1) == 4


def test_lambda_conversion():
    lam = lambda x, y=2: x if x > y else y  # noqa: E731
    text = code_of(lam)
    assert text.startswith("lambda x, y=None: ag__.if_exp(")
    assert impl.convert(lam)(5) == 5 and impl.convert(lam)(1) == 2


def test_two_lambdas_on_one_line_are_told_apart():
    a, b = (lambda x: x + 1), (lambda x: x if x else -1)  # noqa: E731
    assert "if_exp" not in code_of(a)
    assert "if_exp" in code_of(b)


def test_conversion_is_cached_per_code_object():
    def make(k):
        return lambda x: x + k
    f1, f2 = make(1), make(2)
    c1, c2 = impl.convert(f1), impl.convert(f2)
    assert c1.__code__ is c2.__code__
    assert (c1(0), c2(0)) == (1, 2)


def test_converted_functions_are_not_converted_again():
    c = impl.convert(branch)
    assert impl.convert(c) is c
    assert impl.is_converted(c)


def test_do_not_convert():
    def plain(x):
        if x:
            return 1
        return 0

    marked = impl.do_not_convert(plain)
    assert impl.convert(marked) is plain

    def caller(x):
        return plain(x)

    assert impl.convert(caller)(3) == 1


# ---------------------------------------------------------------- analysis


def analyzed(fn):
    node, _ = parsing.parse_function(fn)
    params = {a.id for a in node.args.args}
    liveness.analyze_function(node, params)
    return node


def liveness_example(x, n):
    a = 1
    b = 2
    tmp = 0
    for i in range(n):
        tmp = x * i      # dead after the loop, written before read: loop-local
        a = a + tmp      # carried: read before written
        b = 5            # written, live after: carried
    return a + b


def test_liveness_gives_loop_variables():
    node = analyzed(liveness_example)
    loop = node.body[3]
    assert isinstance(loop, gast.For)
    modified = loop._ag_modified
    live = loop._ag_live_in | loop._ag_live_out
    assert modified == {"tmp", "a", "b", "i"}
    assert modified & live == {"a", "b"}
    assert loop._ag_defined_in >= {"a", "b", "tmp", "x", "n"}


def branch_example(x):
    t = x + 1
    if x > 0:
        t = t * 2
        y = t
        z = 3  # noqa: F841 (a name defined in one branch only)
    else:
        y = 0
    return y


def test_liveness_for_if_outputs_and_inputs():
    node = analyzed(branch_example)
    branch_node = node.body[1]
    assert branch_node._ag_live_out == {"y"}
    assert "t" in branch_node._ag_live_in  # read before written in the body
    assert "z" not in branch_node._ag_live_in | branch_node._ag_live_out


def closure_example(n):
    acc = 0
    get = lambda: acc  # noqa: E731 - reads acc whenever it is called
    for i in range(n):
        acc = i
    return get()


def test_closure_reads_keep_variables_live():
    node = analyzed(closure_example)
    loop = node.body[2]
    assert "acc" in loop._ag_live_out
