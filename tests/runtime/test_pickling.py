"""Pickling compiled functions (autograph/runtime/pickling.py), tensors and variables.

Round trips of every kind of function: module-level (by reference), closures,
lambdas, nested helpers and recursion (by value), methods, ConcreteFunctions
(IR text); error paths with their messages; and a fresh process that
unpickles a closure whose source file is gone and a ConcreteFunction from its
disk cache. Process pools and Dask are in test_scaling_out.py.
"""
import copy
import json
import math
import os
import pickle
import subprocess
import sys
import textwrap
import types

import paths

import numpy as np
import pytest

import autograph as ag
from autograph.runtime import pickling
from autograph.runtime.polymorphic import PolymorphicFunction

if paths.ROOT not in sys.path:
    sys.path.insert(0, paths.ROOT)
from examples import kernels  # noqa: E402


@ag.function
def double(x):
    return x * 2.0


class Scaler:
    """A class with a compiled method: its instances pickle, and so do their bound methods."""

    def __init__(self, k):
        self.k = k

    @ag.function
    def apply(self, x):
        return x * self.k


def _roundtrip(obj, protocol=pickle.HIGHEST_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


X = np.arange(4, dtype=np.float32)


# --------------------------------------------------------------------------- by reference


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_module_level_functions_pickle_by_reference(protocol):
    for f in (kernels.mean_square, double):
        data = pickle.dumps(f, protocol=protocol)
        assert len(data) < 200            # a reference, not the code
        assert pickle.loads(data) is f


def test_by_reference_keeps_traces():
    double(X)
    assert _roundtrip(double).tracing_count == double.tracing_count >= 1


def test_methods_pickle_through_their_instance():
    s = Scaler(3.0)
    np.testing.assert_allclose(s.apply(X), X * 3.0)
    bound = _roundtrip(s.apply)
    assert isinstance(bound, PolymorphicFunction)
    np.testing.assert_allclose(bound(X), X * 3.0)
    assert bound.python_function.__self__ is not s and bound.python_function.__self__.k == 3.0
    assert _roundtrip(Scaler.apply) is Scaler.apply


# --------------------------------------------------------------------------- by value


def _make_closure(scale):
    offset = np.float32(1.0)

    def helper(y):
        return y * 2.0

    @ag.function
    def g(x):
        return helper(x) * scale + offset
    return g


def test_closure_by_value_is_a_working_copy_made_once_per_process():
    g = _make_closure(3.0)
    expected = X * 2.0 * 3.0 + 1.0
    np.testing.assert_allclose(g(X), expected)
    data = pickle.dumps(g)
    g2 = pickle.loads(data)
    assert g2 is not g and g2.tracing_count == 0       # traces are not sent
    np.testing.assert_allclose(g2(X), expected)
    np.testing.assert_allclose(g2(X + 1.0), (X + 1.0) * 6.0 + 1.0)
    assert g2.tracing_count == 1
    # Every later copy of the same function resolves to the first: its traces stay.
    assert pickle.loads(data) is g2 and pickle.loads(pickle.dumps(g)) is g2
    # And a copy of the copy is the same function too.
    assert pickle.loads(pickle.dumps(g2)) is g2


def test_lambda_by_value():
    f = ag.function(lambda x, y=2.0: x * y)
    f2 = _roundtrip(f)
    assert f2 is not f and f2.__name__ == "<lambda>"
    np.testing.assert_allclose(f2(X), X * 2.0)
    np.testing.assert_allclose(f2(X, 3.0), X * 3.0)


def _make_recursive(n_default):
    def power(x, n):
        # Plain Python recursion at trace time: the nested helper refers to itself.
        return x if n == 1 else x * power(x, n - 1)

    @ag.function
    def f(x, *, n=n_default):
        return power(x, n) + np.float32(math.pi) * 0.0
    return f


def test_recursive_helpers_modules_and_keyword_defaults():
    f2 = _roundtrip(_make_recursive(3))
    np.testing.assert_allclose(f2(X), X ** 3)
    np.testing.assert_allclose(f2(X, n=2), X ** 2)
    fn = f2.python_function
    assert fn.__globals__["np"] is np and fn.__globals__["math"] is math
    assert fn.__kwdefaults__ == {"n": 3}


def _make_self_referencing():
    @ag.function
    def countdown(x, n):
        if n == 0:
            return x
        return countdown(x + 1.0, n - 1)   # calls itself through its closure cell
    return countdown


def test_function_that_refers_to_itself():
    f = _make_self_referencing()
    f2 = _roundtrip(f)
    assert f2.python_function.__closure__[0].cell_contents is f2
    np.testing.assert_allclose(f2(X, 3), X + 3.0)


def test_options_survive():
    spec = ag.TensorSpec([None], ag.float32)
    f = ag.function(lambda x: x[5], input_signature=[spec], autograph=False, boundscheck=False)
    g = ag.function(lambda x: x + 1.0, reduce_retracing=True)
    f2, g2 = _roundtrip(f), _roundtrip(g)
    assert f2.input_signature == (spec,) and f2._autograph is False and f2._boundscheck is False
    assert g2._reduce_retracing is True
    g2(np.ones(3, np.float32))
    g2(np.ones(4, np.float32))
    g2(np.ones(5, np.float32))
    assert g2.tracing_count == 2                        # relaxed to [None] after the second shape


def test_captured_variable_is_copied():
    v = ag.Variable(np.float32(10.0), name="total")

    @ag.function
    def add(x):
        v.assign_add(ag.reduce_sum(x))
        return v.read_value()

    add2 = _roundtrip(add)
    assert float(add2(X)) == 16.0 and float(add2(X)) == 22.0
    assert float(v.numpy()) == 10.0                     # the original's variable is its own


def test_copy_and_deepcopy_are_the_function_itself():
    g = _make_closure(2.0)
    assert copy.copy(g) is g and copy.deepcopy(g) is g and copy.deepcopy([double])[0] is double
    cf = double.get_concrete_function(X)
    assert copy.copy(cf) is cf and copy.deepcopy(cf) is cf


# --------------------------------------------------------------------------- ConcreteFunction


@ag.function
def branchy(x, n, tag):
    total = ag.constant(0.0)
    for i in ag.range(n):
        if x[i] > 1.0:
            total += x[i]
        else:
            total -= 1.0
    return {"zeta": total, "alpha": x * 2.0, "tag": tag}


def test_concrete_function_round_trip():
    cf = branchy.get_concrete_function(X, np.int32(4), "python value")
    cf2 = _roundtrip(cf)
    assert cf2 is not cf
    assert cf2.graph.format(locations=True) == cf.graph.format(locations=True)
    assert [op.loc for op in cf2.graph.walk()] == [op.loc for op in cf.graph.walk()]
    assert cf2.raw_graph.format() == cf.raw_graph.format()
    assert cf2.structured_input_signature == cf.structured_input_signature
    out = cf2(X, np.int32(4))
    assert list(out) == ["zeta", "alpha", "tag"]        # insertion order, as returned
    assert float(out["zeta"]) == 2.0 + 3.0 - 2.0 and out["tag"] == "python value"
    np.testing.assert_allclose(out["alpha"], X * 2.0)
    data = pickle.dumps(cf)
    assert pickle.loads(data) is pickle.loads(data)     # one copy per process


@ag.function
def pick(x, i):
    return x[i] * 2.0  # the faulting line


def test_unpickled_concrete_function_reports_the_users_line():
    cf2 = _roundtrip(pick.get_concrete_function(X, np.int64(1)))
    assert float(cf2(X, np.int64(1))) == 2.0
    with pytest.raises(ag.errors.InvalidArgumentError, match="index 7 is out of bounds") as e:
        cf2(X, np.int64(7))
    assert "the faulting line" in str(e.value)


def test_concrete_function_with_captured_variable():
    v = ag.Variable(np.zeros(2, np.float64))

    @ag.function
    def bump(x):
        v.assign_add(x)
        return v.read_value() * 1.0

    cf2 = _roundtrip(bump.get_concrete_function(np.ones(2)))
    np.testing.assert_allclose(cf2(np.ones(2)), [1.0, 1.0])
    np.testing.assert_allclose(cf2(np.ones(2)), [2.0, 2.0])
    np.testing.assert_allclose(cf2.variables[0].numpy(), [2.0, 2.0])
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])


# --------------------------------------------------------------------------- values


def test_tensors_variables_specs_and_dtypes_pickle():
    for value in (ag.constant([[1.5, 2.5]]), ag.constant(7), ag.constant([b"a", b"bc"]),
                  double(X)):
        back = _roundtrip(value)
        assert back.dtype is value.dtype and back.shape == value.shape
        np.testing.assert_array_equal(back.numpy(), value.numpy())
    v = ag.Variable([1, 2, 3], name="v")
    v2 = _roundtrip(v)
    assert v2.name == "v" and v2.dtype is ag.int32
    v2.assign([4, 5, 6])
    assert v.numpy().tolist() == [1, 2, 3] and v2.numpy().tolist() == [4, 5, 6]
    spec = ag.TensorSpec([None, 3], ag.float64, "x")
    assert _roundtrip(spec) == spec
    assert _roundtrip(ag.float64) is ag.float64


# --------------------------------------------------------------------------- errors


def test_reference_that_no_longer_resolves(monkeypatch):
    mod = types.ModuleType("ag_pickle_victim")
    exec("import autograph as ag\n@ag.function\ndef f(x):\n    return x\n", mod.__dict__)
    mod.f.__module__ = mod.__name__
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    data = pickle.dumps(mod.f)
    del mod.f
    with pytest.raises(pickling.UnpicklingError,
                       match=r"cannot unpickle the ag.function ag_pickle_victim.f: it was pickled "
                             r"by reference and AttributeError"):
        pickle.loads(data)


def test_code_from_another_python_version(monkeypatch):
    data = pickle.dumps(ag.function(lambda x: x))
    monkeypatch.setattr(pickling, "_PYTHON", (3, 99))
    with pytest.raises(pickling.UnpicklingError,
                       match=r"cannot unpickle the function '.*<lambda>' by value: it was pickled by "
                             r"Python 3\.\d+ and this is Python 3\.99"):
        pickle.loads(data)


def test_ir_tables_that_do_not_match_the_text():
    text = str(double.get_concrete_function(X).graph)
    with pytest.raises(pickling.UnpicklingError,
                       match=r"cannot unpickle the ConcreteFunction double: its IR text has 2 ops "
                             r"and 3 values, its tables 0 and 0"):
        pickling._graph_from_payload((text, [], []), "double")


def test_unpicklable_capture_fails_with_pickles_message():
    import threading
    lock = threading.Lock()
    f = ag.function(lambda x: x if lock else x)
    with pytest.raises(TypeError, match="cannot pickle '_thread.lock' object"):
        pickle.dumps(f)


# --------------------------------------------------------------------------- another process

_SENDER = '''
import pickle, sys
import numpy as np
import autograph as ag

def make(k):
    @ag.function
    def scaled(x):
        s = ag.constant(0.0, ag.float64)
        for i in ag.range(ag.size(x)):
            s += x[i] * k
        return s
    return scaled

f = make(3.0)
cf = f.get_concrete_function(np.arange(4.0))
float(cf(np.arange(4.0)))                      # compiled here: stored in the disk cache
with open(sys.argv[1], "wb") as fh:
    pickle.dump((f, cf), fh)
'''

_RECEIVER = '''
import json, pickle, sys
import numpy as np
import autograph as ag
with open(sys.argv[1], "rb") as fh:
    f, cf = pickle.load(fh)
out = {"f": float(f(np.arange(5.0))), "cf": float(cf(np.arange(4.0))),
       "origin": cf.kernel._jit.origin, "converted": "ag__" in ag.to_code(f.python_function)}
print(json.dumps(out))
'''


def test_another_process_without_the_source_file(tmp_path):
    """A closure made in a script's __main__ runs in a process that cannot read the script
    (its source lines travel with it), and a ConcreteFunction loads from the disk cache."""
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"))
    sender, receiver, data = tmp_path / "sender.py", tmp_path / "receiver.py", tmp_path / "f.pkl"
    sender.write_text(textwrap.dedent(_SENDER))
    receiver.write_text(_RECEIVER)
    run = subprocess.run([sys.executable, str(sender), str(data)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    sender.unlink()
    run = subprocess.run([sys.executable, str(receiver), str(data)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out == {"f": 30.0, "cf": 18.0, "origin": "disk-cache", "converted": True}


def _plain_kernel(x):
    return x * 4.0


fast_kernel = ag.function(_plain_kernel, boundscheck=False)


def test_wrapped_importable_function_sends_the_function_by_reference():
    data = pickle.dumps(fast_kernel)
    assert len(data) < 500 and b"_plain_kernel" in data     # no code, no source lines
    back = pickle.loads(data)
    assert back is not fast_kernel and back.python_function is _plain_kernel
    assert back._boundscheck is False and pickle.loads(data) is back
    np.testing.assert_allclose(back(X), X * 4.0)
