"""Ports of TensorFlow's `tensorflow/python/autograph/impl/api_test.py`, for `ag`.

TensorFlow's test drives `api.converted_call`, `api.convert` and
`api.to_graph` directly; a user reaches the same machinery through
`ag.function` (which converts the function and everything it calls),
`ag.do_not_convert` and `ag.to_code`. Each case here is the user-visible
behaviour of one of those tests: the call it makes (a method, a bound
method made by hand, a partial, a callable object, a builtin, a NumPy
function, a function of another module, ...) happens inside a compiled
function, on tensors whose values need the conversion (a tensor `if` or
`while`), and the result must equal the plain Python run.
"""
from __future__ import annotations

import abc
import collections
import functools
import inspect
import re
import types

import numpy as np
import pytest

import autograph as ag
import tf_port_other_module as other
from tf_reference_support import assert_matches_plain, compiled

pytestmark = [pytest.mark.filterwarnings("ignore::autograph.tracer.core.logs.RetracingWarning"),
              pytest.mark.filterwarnings("ignore:.*is an argument of the function")]


def _c(v):
    return ag.constant(v)


# ------------------------------------------------- decorated methods (recursion)

class Shrinker:
    """A decorated method that calls a plain member with a tensor branch."""

    def magnitude(self, a):
        if a < 0:
            a = -a
        return a

    @ag.do_not_convert
    def negate(self, a):
        # Only ops: works unconverted too.
        return ag.negative(a)

    @ag.function
    def decorated_magnitude(self, a):
        if a < 0:
            a = -a
        return a

    @ag.function
    def shrink(self, x, s, a):
        while ag.reduce_sum(x) > s:
            x //= self.magnitude(a)
        return x

    @ag.function
    def shrink_unconverted(self, x, s, a):
        while ag.reduce_sum(x) > s:
            x //= self.negate(a)
        return x

    @ag.function
    def shrink_decorated(self, x, s, a):
        while ag.reduce_sum(x) > s:
            x //= self.decorated_magnitude(a)
        return x


@pytest.mark.parametrize("method", ["shrink", "shrink_unconverted", "shrink_decorated"])
def test_decorated_method_converts_what_it_calls(method):
    got = getattr(Shrinker(), method)(_c([2, 4]), _c(1), _c(-2))
    assert got.numpy().tolist() == [0, 1]


def test_decorator_keeps_the_signature():
    class Holder:
        def member(self, a, b=2):
            if a < 0:
                a = -a
            return a + b

        member_compiled = ag.function(member)

    h = Holder()
    assert inspect.signature(h.member) == inspect.signature(h.member_compiled)
    assert int(h.member_compiled(_c(-3))) == 5


def test_do_not_convert_keeps_a_method_a_method():
    class Holder:
        def add(self, x, y):
            return x + y

        add_plain = ag.do_not_convert(add)

    h = Holder()
    assert inspect.ismethod(h.add_plain)
    assert h.add_plain(1, 2) == 3


# ------------------------------------------------------ converted calls

def call_builtin_range(n):
    return tuple(range(n))


def call_re_compile(x):
    # A library function of the standard library runs as it is.
    pattern = re.compile(r"layer_\d+/(weights|kernel):0$")
    if pattern.match("layer_4/weights:0") is not None:
        return x + 1
    return x - 1


def branch_abs(x):
    if x < 0:
        return -x
    return x


def triple_negate(x, y, z):
    if x < 0:
        return -x, -y, -z
    return x, y, z


def call_partial(y):
    p = functools.partial(triple_negate, ag.constant(-1), z=-3)
    return p(y)


def call_nested_partial(y):
    p = functools.partial(functools.partial(triple_negate, ag.constant(-1)), z=-3)
    return p(y)


def call_partial_keyword(y):
    p = functools.partial(triple_negate, z=ag.constant(-3))
    return p(ag.constant(-1), y=y)


def test_call_builtin():
    assert_matches_plain(call_builtin_range, 3)


@pytest.mark.parametrize("x", [3, -3])
def test_call_standard_library(x):
    assert_matches_plain(call_re_compile, _c(x))


@pytest.mark.parametrize("x", [-1, 4])
def test_call_function(x):
    assert_matches_plain(branch_abs, _c(x))


@pytest.mark.parametrize("fn", [call_partial, call_nested_partial, call_partial_keyword])
def test_call_partials(fn):
    got = compiled(fn)(_c(-2))
    assert [int(v) for v in got] == [1, 2, 3]
    assert_matches_plain(fn, _c(-2))


def test_compile_a_partial_directly():
    p = ag.function(functools.partial(triple_negate, ag.constant(-1), z=-3))
    assert [int(v) for v in p(_c(-2))] == [1, 2, 3]


class Holder:
    """An object whose attribute is a tensor and whose methods branch on it."""

    def __init__(self, x):
        self.x = x

    def magnitude(self):
        if self.x < 0:
            return -self.x
        return self.x

    def through_other_method(self):
        return self.magnitude()

    def __call__(self):
        if self.x < 0:
            return -self.x
        return self.x


def _free_magnitude(self):
    if self.x < 0:
        return -self.x
    return self.x


def call_bound_method(h):
    return h.magnitude()


def call_method_through_method(h):
    return h.through_other_method()


def call_method_by_class(h):
    return Holder.magnitude(h)


def call_callable_object(h):
    return h()


def call_synthetic_method(h):
    m = types.MethodType(_free_magnitude, h)
    return m()


def call_constructed_object(x):
    return Holder(x).magnitude()


@pytest.mark.parametrize("fn", [call_bound_method, call_method_through_method, call_method_by_class,
                                call_callable_object, call_synthetic_method])
@pytest.mark.parametrize("x", [-1, 5])
def test_call_methods_and_callables(fn, x):
    h = Holder(_c(x))
    got = compiled(fn)(h)
    assert int(got) == abs(x)


@pytest.mark.parametrize("x", [-1, 5])
def test_call_constructor_then_method(x):
    assert_matches_plain(call_constructed_object, _c(x))


@pytest.mark.parametrize("x", [-7, 7])
def test_compile_bound_method_and_callable_object(x):
    h = Holder(_c(x))
    assert int(ag.function(h.magnitude)()) == 7
    assert int(ag.function(h)()) == 7


def test_call_method_stored_as_attribute_of_another_object():
    class Source:
        def __init__(self):
            self.value = ag.constant(1)

        def method(self):
            if self.value > 0:
                return self.value + 1
            return self.value + 10

    class Carrier:
        def __init__(self, fn):
            self.fn = fn

    carrier = Carrier(Source().method)

    @ag.function
    def f():
        return carrier.fn()

    assert int(f()) == 2


def test_call_private_mangled_attribute():
    class Secret:
        def __init__(self, x):
            self.__x = x

        def reveal(self):
            if self.__x < 0:
                return -self.__x
            return self.__x

        def count_down(self):
            # The private attribute as a loop variable and inside a lambda.
            while self.__x > 0:
                self.__x = self.__x - 1
            twice = lambda: self.__x * 2  # noqa: E731
            return twice()

    @ag.function
    def f(x):
        return Secret(x).reveal()

    @ag.function
    def g(x):
        return Secret(x).count_down()

    assert int(f(_c(-4))) == 4
    assert int(g(_c(3))) == 0
    assert int(g(_c(-3))) == -6


def _passing_through(fn):
    @functools.wraps(fn)   # the wrapper takes the method's __qualname__, not its class
    def wrapper(*args):
        return fn(*args)
    return wrapper


class Private:
    def __init__(self, x):
        self.__x = x

    @_passing_through
    def wrapped_reveal(self):
        if self.__x > 0:
            return self.__x
        return -self.__x

    def with_inner_class(self):
        class Inner:
            def __init__(inner):
                inner.__y = 5

            def y(inner):
                return inner.__y
        return Inner().y() + self.__x


@pytest.mark.parametrize("method,want", [("wrapped_reveal", 3), ("with_inner_class", 2)])
def test_private_names_through_decorators_and_inner_classes(method, want):
    f = ag.function(lambda x: getattr(Private(x), method)())
    assert int(f(_c(-3))) == want


def test_call_through_callable_abc_and_metaclass():
    class Base(abc.ABC):
        @abc.abstractmethod
        def __call__(self, x):
            """Implemented below."""

    class Impl(Base):
        def __call__(self, x):
            if x > 0:
                return x * 2
            return x

    class Meta(type):
        def __call__(cls, x):
            obj = super().__call__()
            obj.x = x
            return obj

    class Made(metaclass=Meta):
        def doubled_if_positive(self):
            if self.x > 0:
                return self.x * 2
            return self.x

    @ag.function
    def f(x):
        return Impl()(x) + Made(x).doubled_if_positive()

    assert int(f(_c(3))) == 12
    assert int(f(_c(-3))) == -6


def test_call_an_already_compiled_function_and_one_passed_in():
    @ag.function
    def g(x):
        if x > 0:
            return x
        return -x

    def apply(fn, x):
        return fn(x)

    @ag.function
    def f(x):
        return apply(g, x) + g(x)

    assert int(f(_c(-2))) == 4
    assert int(f(_c(3))) == 6


def test_call_do_not_convert_function_that_needs_no_conversion():
    @ag.do_not_convert
    def plus_one(x):
        return x + 1

    @ag.function
    def f(x):
        return plus_one(x)

    assert int(f(_c(0))) == 1
    assert plus_one(0) == 1


def test_do_not_convert_leaves_python_branch_unconverted():
    # TensorFlow: the unconverted function fails on the tensor condition.
    @ag.function
    def f(x):
        return other.python_branch(x)

    with pytest.raises(TypeError, match="bool"):
        f(_c(1))
    assert other.python_branch(-2) == 2


def keyword_names_like_internals(**kwargs):
    return kwargs["f"] + kwargs["owner"] + kwargs["options"] + kwargs["args"]


@ag.do_not_convert
def keyword_names_like_internals_plain(**kwargs):
    return kwargs["f"] + kwargs["owner"] + kwargs["options"] + kwargs["args"]


def call_with_clashing_keywords():
    return (keyword_names_like_internals(f=1, owner=2, options=3, args=4),
            keyword_names_like_internals_plain(f=1, owner=2, options=3, args=4))


def test_keyword_arguments_named_like_the_converters_own():
    assert_matches_plain(call_with_clashing_keywords)


def call_numpy(x):
    return np.arange(5) + x, np.power(2, 3)


def test_call_numpy_functions():
    assert_matches_plain(call_numpy, _c(np.int64(1)))


def call_namedtuple_factory(x):
    pair = collections.namedtuple("Pair", ("a", "b"))
    p = pair(x, x + 1)
    if p.a > 0:
        return p.b
    return p.a


@pytest.mark.parametrize("x", [-1, 1])
def test_call_namedtuple_factory(x):
    assert_matches_plain(call_namedtuple_factory, _c(x))


def test_compile_a_lambda():
    is_zero = lambda x: x == 0  # noqa: E731
    f = ag.function(is_zero)
    assert bool(f(_c(0))) and not bool(f(_c(1)))


def test_call_a_method_replaced_by_a_compiled_one():
    class Prepared:
        def method(self):
            return ag.constant(1)

        def prepare(self):
            self.method = ag.function(self.method)

    p = Prepared()
    p.prepare()

    @ag.function
    def f():
        return p.method() + 1

    assert int(f()) == 2


class Faulty:
    """An object NumPy cannot read: its error must reach the caller."""

    def __array__(self, dtype=None, copy=None):
        raise ValueError("faulty array")


def test_error_of_a_numpy_call_surfaces():
    @ag.function
    def f():
        return np.power(Faulty(), 2)

    with pytest.raises(ValueError, match="faulty array"):
        f()


def test_generator_called_from_compiled_code():
    # TensorFlow leaves generators unconverted; iterating one runs it in Python.
    def evens(n):
        for i in range(n):
            if i % 2 == 0:
                yield i

    def f(x):
        total = x
        for v in evens(5):
            total = total + v
        return total, list(evens(4))

    assert_matches_plain(f, _c(1))


def test_keyword_only_arguments():
    def f(*, a, b=2):
        if a < 0:
            return -a + b
        return a + b

    g = ag.function(f)
    assert int(g(a=_c(-1))) == 3
    assert int(g(a=_c(4), b=_c(1))) == 5


def star_args_helper(*args, **kwargs):
    total = args[0]
    for a in args[1:]:
        total = total + a
    if kwargs.get("negate", False):
        total = -total
    return total


def call_star_args(x, y):
    parts = (x, y)
    opts = {"negate": True}
    return star_args_helper(*parts, x, **opts), star_args_helper(x, y)


def test_star_args_and_kwargs():
    assert_matches_plain(call_star_args, _c(2), _c(3))


# ------------------------------------------------ class and static methods

class WithClassAndStatic:
    scale = 3

    @classmethod
    def scaled(cls, x):
        if x > 0:
            return x * cls.scale
        return x

    @staticmethod
    def clipped(x):
        if x > 10:
            return x * 0 + 10
        return x


def call_class_and_static(x):
    return WithClassAndStatic.scaled(x) + WithClassAndStatic.clipped(x) + WithClassAndStatic().clipped(x)


@pytest.mark.parametrize("x", [-2, 4, 20])
def test_class_and_static_methods(x):
    assert_matches_plain(call_class_and_static, _c(x))


# ------------------------------------------------------- other modules

def call_other_module(x, n):
    return other.magnitude(n), other.halve_until_below(x, 4), other.Counter(2).advance(n)


@pytest.mark.parametrize("n", [-3, 4])
def test_functions_of_other_modules_are_converted(n):
    assert_matches_plain(call_other_module, _c([4, 8]), _c(n))
