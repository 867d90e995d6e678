"""The public call plan the fast path reads (autograph.runtime.plan): what a
ConcreteFunction records about how it is called, and the classes that take
part in native dispatch."""
import numpy as np
import pytest

import autograph as ag
from autograph.runtime.plan import DISPATCHING_CLASSES, CallPlan, OutputSlot, native_dispatch


def test_plan_of_a_trace():
    v = ag.Variable(np.zeros(3, np.float32))

    @ag.function
    def f(x, k, scale=2.0):
        v.assign_add(x)
        return {"y": x * scale, "tag": "label", "n": None}

    cf = f.get_concrete_function(ag.TensorSpec([3], ag.float32), 7)
    plan = cf.call_plan
    assert isinstance(plan, CallPlan)
    assert plan.name == cf.name
    assert list(plan.signature.parameters) == ["x", "k", "scale"]
    spec, k, scale = plan.arg_leaves
    assert isinstance(spec, ag.TensorSpec) and spec.shape == (3,) and (k, scale) == (7, 2.0)
    assert plan.input_specs == (spec,)
    assert len(plan.capture_buffers) == 1 and plan.capture_buffers[0] is v._buffer
    slots = [x for x in plan.output_template if isinstance(x, OutputSlot)]
    assert [s.index for s in slots] == [0]
    assert None in plan.output_template and "label" in plan.output_template
    with pytest.raises(AttributeError):
        plan.name = "other"            # frozen: built once with its function


def test_plan_results_run_like_the_function():
    """The fast path answers the traced structures the same way the slow path does."""
    @ag.function
    def f(x):
        return {"y": x + 1.0, "n": None}

    x = np.arange(3, dtype=np.float32)
    for _ in range(3):   # slow path, then the learned entry
        out = f(x)
        assert sorted(out) == ["n", "y"] and out["n"] is None
        np.testing.assert_array_equal(out["y"].numpy(), x + 1)


def test_the_dispatching_classes():
    assert ag.PolymorphicFunction in DISPATCHING_CLASSES
    assert ag.ConcreteFunction in DISPATCHING_CLASSES
    for cls in DISPATCHING_CLASSES:
        assert cls.__slots__[0] == "_native_call"


def test_native_dispatch_needs_the_slot_first():
    with pytest.raises(TypeError):
        @native_dispatch
        class Wrong:
            __slots__ = ("__dict__", "_native_call")

            def _call_python(self):
                pass

    with pytest.raises(TypeError):
        @native_dispatch
        class NoFallback:
            __slots__ = ("_native_call",)
