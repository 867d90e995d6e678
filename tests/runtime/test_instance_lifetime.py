"""API.md section 1: `self` is never kept alive; each instance has its own PolymorphicFunction.

Calling an `@ag.function` method must not keep the instance alive (through the
per-instance copy, its bound or converted function, its traces or its native
entries), and the copy, bound like a bound method, cannot outlive its instance.
"""
import gc
import pickle
import weakref

import numpy as np
import pytest

import autograph as ag


class Model:
    def __init__(self, k=1.0):
        self.k = k
        self.v = ag.Variable(np.float32(2.0))

    @ag.function
    def call(self, x):
        return x * self.v + self.k

    @ag.function(autograph=False)
    def plain(self, x):
        return x + self.k


def _collect():
    for _ in range(3):
        gc.collect()


def _copy_of(instance, name="call"):
    return getattr(instance, name)


@pytest.mark.parametrize("calls", [1, 5])
def test_instance_collected_after_slow_and_native_calls(calls):
    m = Model()
    for i in range(calls):
        assert float(m.call(ag.constant(float(i)))) == 2.0 * i + 1.0
    copy = _copy_of(m)
    if calls > 1:
        assert copy._native_call is not None   # the native fast path ran
    r = weakref.ref(m)
    del m, copy
    _collect()
    assert r() is None


def test_instance_collected_with_python_argument_and_autograph_off():
    m = Model(3.0)
    for _ in range(3):
        assert float(m.plain(1.0)) == 4.0
        assert float(m.plain(ag.constant(np.zeros(3, np.float32)))[0]) == 3.0
    r = weakref.ref(m)
    del m
    _collect()
    assert r() is None


def test_traces_released_with_the_instance():
    m = Model()
    for _ in range(3):
        m.call(ag.constant(1.0))
    copy = _copy_of(m)
    cf = copy.get_concrete_function(ag.constant(1.0))
    refs = [weakref.ref(copy), weakref.ref(cf)]
    assert copy.tracing_count == 1
    del m, copy, cf
    _collect()
    assert [r() for r in refs] == [None, None]


def test_second_instance_gets_its_own_traces():
    a, b = Model(1.0), Model(10.0)
    assert float(a.call(ag.constant(1.0))) == 3.0
    assert float(b.call(ag.constant(1.0))) == 12.0
    assert a.call is not b.call and a.call is a.call
    assert a.call.tracing_count == 1 and b.call.tracing_count == 1
    ra = weakref.ref(a)
    del a
    _collect()
    assert ra() is None
    assert float(b.call(ag.constant(2.0))) == 14.0   # b's traces are unaffected
    assert b.call.tracing_count == 1


def test_unbound_call_holds_the_instance_weakly():
    m = Model()
    for _ in range(3):
        assert float(Model.call(m, ag.constant(1.0))) == 3.0
    cf = Model.call.get_concrete_function(m, ag.constant(1.0))
    assert cf.structured_input_signature[0][0] is m
    r = weakref.ref(m)
    del m
    _collect()
    assert r() is None
    assert "collected" in repr(cf.structured_input_signature[0][0])


def test_calling_a_dead_instance_is_impossible_by_construction():
    # The copy is bound like a Python bound method: holding it holds the instance.
    f = Model(1.0).call                        # a temporary instance
    assert float(f(ag.constant(1.0))) == 3.0
    assert float(Model(2.0).call(ag.constant(1.0))) == 4.0
    m = Model()
    g = m.call
    for _ in range(3):
        g(ag.constant(1.0))
    r = weakref.ref(m)
    del m
    _collect()
    assert r() is g.python_function.__self__   # alive while its method is held
    assert float(g(ag.constant(1.0))) == 3.0
    del g, f
    _collect()
    assert r() is None


def test_copy_of_an_instance_gets_its_own_function():
    import copy
    m = Model(1.0)
    m.call(ag.constant(1.0))
    for m2 in (copy.copy(m), copy.deepcopy(m)):
        m2.k = 5.0
        assert m2.call is not m.call and m2.call.python_function.__self__ is m2
        assert float(m2.call(ag.constant(1.0))) == 7.0


def test_bound_copy_still_pickles_and_converts():
    m = Model(4.0)
    assert "def " in ag.to_code(m.call)
    blob = pickle.dumps(m)
    m2 = pickle.loads(blob)
    assert float(m2.call(ag.constant(1.0))) == 6.0


def test_instance_without_weakref_is_still_bound():
    class Slotted:
        __slots__ = ("k",)

        def __init__(self):
            self.k = 5.0

        @ag.function
        def call(self, x):
            return x + self.k

    s = Slotted()
    assert float(s.call(ag.constant(1.0))) == 6.0
