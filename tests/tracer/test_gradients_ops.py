"""Gradients of the differentiable ops against central finite differences (float64).

Each case is a function of NumPy arrays written with `ag` ops; the tape's
gradient of `sum(f(*xs) * w)` (random weights `w`, so every output element
has its own upstream gradient) must equal the finite-difference gradient.
Eager cases run on hypothesis shapes with broadcasting; the compiled check
differentiates the same expressions inside one `ag.function` (a tape inside
the function) and compares with the eager gradients.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from autograph.tracer.api import setitem

EPS = 1e-6


def _scalar(f, xs, w):
    return float(np.sum(np.asarray(f(*[ag.constant(x) for x in xs])) * w))


def numeric_grads(f, xs, w):
    """Central differences of sum(f(*xs) * w) for every element of every x."""
    out = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            hi = [a.copy() for a in xs]
            lo = [a.copy() for a in xs]
            hi[i][idx] += EPS
            lo[i][idx] -= EPS
            g[idx] = (_scalar(f, hi, w) - _scalar(f, lo, w)) / (2 * EPS)
        out.append(g)
    return out


def tape_grads(f, xs, w):
    ts = [ag.constant(x) for x in xs]
    with ag.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
        loss = ag.reduce_sum(y * ag.constant(w))
    return [None if g is None else np.asarray(g) for g in tape.gradient(loss, ts)]


def check(f, *xs, rtol=1e-5, atol=1e-6, seed=0):
    xs = [np.asarray(x, np.float64) for x in xs]
    y = np.asarray(f(*[ag.constant(x) for x in xs]))
    w = np.random.default_rng(seed).uniform(0.5, 1.5, y.shape)
    got = tape_grads(f, xs, w)
    want = numeric_grads(f, xs, w)
    for g, n in zip(got, want):
        if g is None:     # no gradient: the function is flat in this input
            np.testing.assert_allclose(n, 0.0, atol=atol)
            continue
        assert g.shape == n.shape
        np.testing.assert_allclose(g, n, rtol=rtol, atol=atol)


def _floats(shape, lo=-2.0, hi=2.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False))


UNARY = {
    "negative": (ag.negative, -2, 2), "abs": (ag.abs, 0.1, 2), "square": (ag.square, -2, 2),
    "sqrt": (ag.sqrt, 0.2, 3), "exp": (ag.exp, -2, 2), "log": (ag.log, 0.2, 3),
    "sin": (ag.sin, -2, 2), "cos": (ag.cos, -2, 2), "tan": (ag.tan, -1, 1),
    "tanh": (ag.tanh, -2, 2), "cbrt": (ag.math.cbrt, 0.2, 3), "sigmoid": (ag.sigmoid, -3, 3),
    "relu": (ag.nn.relu, 0.1, 2), "elu": (ag.nn.elu, -2, 2),
    "softmax": (ag.nn.softmax, -2, 2),
    # NumPy-style float ops (autograph.tracer.autodiff.rules_numpy)
    "exp2": (ag.math.exp2, -2, 2), "log2": (ag.math.log2, 0.2, 3), "log10": (ag.math.log10, 0.2, 3),
    "log1p": (ag.math.log1p, -0.5, 2), "expm1": (ag.math.expm1, -2, 2),
    "asin": (ag.math.asin, -0.8, 0.8), "acos": (ag.math.acos, -0.8, 0.8), "atan": (ag.math.atan, -2, 2),
    "sinh": (ag.math.sinh, -2, 2), "cosh": (ag.math.cosh, -2, 2), "asinh": (ag.math.asinh, -2, 2),
    "acosh": (ag.math.acosh, 1.2, 3), "atanh": (ag.math.atanh, -0.8, 0.8),
    "cumprod": (lambda t: ag.math.cumprod(t, axis=0) if len(t.shape) else t * 1.0, 0.5, 2),
    "sort": (lambda t: ag.sort(t, axis=-1) if len(t.shape) else t * 1.0, -2, 2),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_unary(name, data):
    fn, lo, hi = UNARY[name]
    shape = data.draw(hnp.array_shapes(min_dims=1 if name == "softmax" else 0, max_dims=2, max_side=3))
    x = data.draw(_floats(shape, lo, hi))
    if name == "elu":
        x = np.where(np.abs(x) < 1e-3, 0.5, x)
    if name == "sort":   # no ties, where sorting is not differentiable
        x = data.draw(hnp.arrays(np.float64, shape, unique=True,
                                 elements=st.integers(-200, 200).map(lambda v: v / 100)))
    check(fn, x)


BINARY = {
    "add": (ag.add, (-2, 2), (-2, 2)), "subtract": (ag.subtract, (-2, 2), (-2, 2)),
    "multiply": (ag.multiply, (-2, 2), (-2, 2)), "divide": (ag.divide, (-2, 2), (0.5, 2)),
    "pow": (ag.pow, (0.5, 2), (-1.5, 1.5)), "maximum": (ag.maximum, (-2, 2), (-2, 2)),
    "minimum": (ag.minimum, (-2, 2), (-2, 2)),
    "atan2": (ag.math.atan2, (0.5, 2), (0.5, 2)), "hypot": (ag.math.hypot, (0.5, 2), (0.5, 2)),
    "fmod": (ag.math.fmod, (0.5, 2), (2.5, 3)), "copysign": (ag.math.copysign, (0.5, 2), (-2, 2)),
    "fmax": (ag.math.fmax, (-2, 2), (-2, 2)), "fmin": (ag.math.fmin, (-2, 2), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_binary_broadcasting(name, data):
    fn, (xl, xh), (yl, yh) = BINARY[name]
    sx, sy = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)).input_shapes
    x = data.draw(_floats(sx, xl, xh))
    y = data.draw(_floats(sy, yl, yh))
    if name in ("maximum", "minimum", "fmax", "fmin"):   # keep ties (derivative jumps) away
        x = np.round(x, 1) + 0.05
        y = np.round(y, 1)
    if name == "copysign":   # keep y off 0, where the sign flips
        y = np.where(np.abs(y) < 0.1, 0.5, y)
    check(fn, x, y)


@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_reductions(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    # distinct values at least 0.01 apart: max/min ties (also near ties within the
    # finite-difference step) have no derivative
    grid = st.integers(50, 200).map(lambda i: i / 100.0)
    x = data.draw(hnp.arrays(np.float64, shape, elements=grid, unique=True))
    axis = data.draw(st.none() | st.integers(0, len(shape) - 1))
    keep = data.draw(st.booleans())
    for fn in (ag.reduce_sum, ag.reduce_mean, ag.reduce_max, ag.reduce_min, ag.reduce_prod):
        check(lambda t: fn(t, axis=axis, keepdims=keep), x)


def test_scans_matmul_where_cast():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (3, 4))
    check(lambda t: ag.cumsum(t, axis=1), x)
    check(lambda t: ag.cumsum(t, axis=0, exclusive=True, reverse=True), x)
    check(lambda t: ag.sort(t, axis=0) * ag.constant(np.arange(1.0, 5.0)), x)
    check(lambda t: ag.math.cumprod(t + 2.0, axis=1, exclusive=True, reverse=True), x)
    check(lambda a, b: ag.matmul(a, b), x, rng.uniform(-1, 1, (4, 2)))
    check(lambda a, b: ag.where(a > 0, a * b, ag.sin(b)), x, rng.uniform(-1, 1, (4,)))
    # cast between float types passes the gradient through (in the source's dtype)
    t = ag.constant(x)
    w = rng.uniform(0.5, 1.5, x.shape).astype(np.float32)
    with ag.GradientTape() as tape:
        tape.watch(t)
        y = ag.reduce_sum(ag.cast(t, ag.float32) * w)
    g = tape.gradient(y, t)
    assert g.dtype == ag.float64
    np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


def test_shaping_ops():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (2, 3))
    y = rng.uniform(-1, 1, (2, 2))
    check(lambda t: ag.reshape(t, [3, 2]) * 2.0, x)
    check(lambda t: ag.transpose(t) * ag.transpose(t), x)
    check(lambda a, b: ag.concat([a, b * b], axis=1), x, y)
    check(lambda a: ag.stack([a, a * a, ag.sin(a)], axis=1), x)
    check(lambda t: ag.expand_dims(t, 1) * 3.0, x)
    check(lambda t: ag.squeeze(ag.reshape(t, [1, 2, 3]), axis=0) ** 2, x)
    check(lambda t: ag.gather(t, [2, 0, 2, 1], axis=1) ** 2, x)
    check(lambda t: ag.gather(t, ag.constant([[1, 0], [-1, 1]]), axis=0) ** 2, x)


def test_slicing_and_item_assignment():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (4, 3))
    check(lambda t: t[1:3, ::2] ** 2, x)
    check(lambda t: t[-1] * t[0], x)
    check(lambda t: t[None, ..., 1] * 2.0, x)

    def assign(a, b):
        out = a * 1.0
        out = setitem(out, (slice(1, 3), 0), b * b)   # out[1:3, 0] = b*b
        return out * out
    check(assign, x, rng.uniform(-1, 1, (2,)))


def test_dropout_gradient_is_its_mask():
    x = ag.constant(np.linspace(0.5, 2.0, 40))
    with ag.GradientTape() as tape:
        tape.watch(x)
        y = ag.nn.dropout(x, rate=0.5)
    g = np.asarray(tape.gradient(y, x))
    np.testing.assert_allclose(g, np.asarray(y) / np.asarray(x))
    assert set(np.round(g, 6)) <= {0.0, 2.0}


def test_integer_and_unconnected_sources_give_none():
    i = ag.constant([1, 2, 3])
    x = ag.constant([1.0, 2.0, 3.0])
    z = ag.constant(5.0)
    with ag.GradientTape() as tape:
        tape.watch([i, x, z])
        y = ag.reduce_sum(x * ag.cast(i, ag.float32)) + ag.cast(ag.reduce_sum(i * 2), ag.float32)
    gi, gx, gz = tape.gradient(y, [i, x, z])
    assert gi is None and gz is None
    np.testing.assert_allclose(np.asarray(gx), [1.0, 2.0, 3.0])


def test_sqrt_and_log_at_zero_follow_the_formula():
    x = ag.constant([0.0, 1.0])
    with ag.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = ag.sqrt(x)
        lg = ag.log(x)
    with np.errstate(divide="ignore"):
        assert np.isinf(np.asarray(tape.gradient(s, x))[0])
        assert np.isinf(np.asarray(tape.gradient(lg, x))[0])


# One compiled function differentiating many expressions (a tape inside it): its
# gradients equal the eager ones, which the tests above check against differences.
EXPRS = {
    "exp_mul": lambda a, b: ag.exp(a) * b,
    "div_pow": lambda a, b: (a * a + 1.0) / (b * b + 1.0) + ag.pow(a * a + 1.0, 1.5),
    "max_min": lambda a, b: ag.maximum(a, b) - ag.minimum(a, 0.25),
    "tanh_sig": lambda a, b: ag.tanh(a) * ag.sigmoid(b),
    "reduce": lambda a, b: ag.reduce_max(a, axis=1) + ag.reduce_mean(a * b, axis=0)[0],
    "matmul": lambda a, b: ag.matmul(a, ag.transpose(a)) * 0.5,
    "slice": lambda a, b: a[1:, :2] * a[0, 1],
    "gather": lambda a, b: ag.gather(a, [0, 0, 2], axis=1) ** 2,
    "softmax": lambda a, b: ag.nn.softmax(a * b),
    "where": lambda a, b: ag.where(a > b, a * a, b * a),
    "concat": lambda a, b: ag.concat([a, ag.sqrt(b * b + 1.0)], axis=0),
}


def test_compiled_gradients_equal_eager():
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (3, 4))
    b = rng.uniform(-1, 1, (3, 4))

    def grads_of(x, y):
        out = {}
        for name, f in EXPRS.items():
            with ag.GradientTape() as tape:
                tape.watch([x, y])
                z = ag.reduce_sum(f(x, y))
            out[name] = tape.gradient(z, [x, y])
        return out

    compiled = ag.function(grads_of, autograph=False)(a, b)
    eager = grads_of(ag.constant(a), ag.constant(b))
    for name in EXPRS:
        for c, e in zip(compiled[name], eager[name]):
            if e is None:
                assert c is None, name
            else:
                np.testing.assert_allclose(np.asarray(c), np.asarray(e), rtol=1e-9, atol=1e-12,
                                           err_msg=name)


def test_no_rule_is_a_lookup_error():
    from autograph.tracer.autodiff.tape import record
    x = ag.constant(2.0)
    with ag.GradientTape() as tape:
        tape.watch(x)
        y = x * 1.0
        z = ag.constant(3.0)
        record("mystery", None, (y,), (z,), {})
    with pytest.raises(LookupError, match="no gradient is defined for op 'mystery'"):
        tape.gradient(z, x)


COMPILED_BINARY = ("add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "hypot",
                   "atan2")
COMPILED_UNARY = ("sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", "square", "abs", "cbrt")


@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_compiled_broadcasting_against_differences(data):
    """Inside one ag.function: the gradients of every binary op on broadcast
    shapes and of the unary ops, against central differences."""
    sx, sy = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)).input_shapes
    x = np.asarray(np.round(data.draw(_floats(sx, 0.5, 2.0)), 1) + 0.05)   # no ties (max/min)
    y = np.asarray(np.round(data.draw(_floats(sy, 0.5, 2.0)), 1))
    cases = [BINARY[n][0] for n in COMPILED_BINARY] + \
        [(lambda f: (lambda a, b: f(a * b)))(UNARY[n][0]) for n in COMPILED_UNARY]
    w = np.random.default_rng(0).uniform(0.5, 1.5, np.broadcast_shapes(sx, sy))

    def all_grads(a, b):
        out = []
        for f in cases:
            with ag.GradientTape() as tape:
                tape.watch([a, b])
                z = ag.reduce_sum(f(a, b) * w)
            out.append(tape.gradient(z, [a, b]))
        return out

    compiled = ag.function(all_grads, autograph=False)(x, y)
    for f, (gx, gy) in zip(cases, compiled):
        nx, ny = numeric_grads(f, [x, y], w)
        np.testing.assert_allclose(np.asarray(gx), nx, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(gy), ny, rtol=1e-5, atol=1e-6)


def test_broadcasting_of_a_dimension_known_only_at_run_time():
    @ag.function(input_signature=[ag.TensorSpec([None], ag.float64), ag.TensorSpec([3], ag.float64)])
    def f(x, y):
        with ag.GradientTape() as tape:
            tape.watch([x, y])
            z = ag.reduce_sum(x * y * y)
        return tape.gradient(z, [x, y])

    y = np.array([1.0, 2.0, 3.0])
    for x in (np.array([2.0]), np.array([1.0, 2.0, 3.0])):     # size 1 broadcasts; 3 does not
        gx, gy = f(x, y)
        np.testing.assert_allclose(np.asarray(gx), np.sum(y * y) if x.size == 1 else y * y)
        np.testing.assert_allclose(np.asarray(gy), 2 * x * y)


def test_gather_and_sort_gradients_are_scatter_adds_not_one_hot_products():
    """The adjoints of gather and sort add each slice of the gradient at its index (repeated
    indices add up): linear in the gradient's size, however long the gathered axis."""
    @ag.function
    def table_grad(table, ids):
        with ag.GradientTape() as tape:
            tape.watch(table)
            loss = ag.reduce_sum(ag.gather(table, ids) ** 2)
        return tape.gradient(loss, table)

    table = np.arange(8.0).reshape(4, 2)
    ids = np.array([1, -1, 1, 0])
    want = np.zeros_like(table)
    np.add.at(want, ids, 2 * table[ids])
    np.testing.assert_array_equal(table_grad(table, ids).numpy(), want)
    ops = {op.name for op in table_grad.get_concrete_function(table, ids).graph.body.ops}
    assert "scatter" in ops and "matmul" not in ops
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    check(lambda t: ag.sort(t, axis=1) * np.array([1.0, 10.0, 100.0]), x)
    check(lambda t: ag.sort(t, axis=0) * np.array([[1.0], [10.0]]), x)
