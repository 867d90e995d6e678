"""`np.linalg` by LAPACK (codegen/abi/lapack.py, codegen/lowering/lapack_call.py,
tracer/api/numpy_lapack.py): differential against NumPy, eagerly and
compiled, with dims known and unknown at trace time. The compiled code calls
the routines NumPy calls with the same arguments, so results are compared
bit for bit (rtol 0) except pinv (a matmul of ours: rtol 1e-12 / 1e-5).
Then the errors (singular, not positive definite, shapes, no LAPACK)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograph as ag
from autograph.codegen.abi import lapack

DYN = {np.float32: ag.float32, np.float64: ag.float64}


def _same(got, want, rtol=0.0):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (type(got), len(got))
        for g, w in zip(got, want):
            _same(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def _well_conditioned(rng, shape, dtype):
    n = shape[-1]
    return (rng.standard_normal(shape) + n * np.eye(n)).astype(dtype)


def _spd(rng, shape, dtype):
    r = rng.standard_normal(shape)
    return (r @ np.swapaxes(r, -1, -2) + np.eye(shape[-1])).astype(dtype)


def _square_ops(a, s, b, v):
    return (np.linalg.inv(a), np.linalg.solve(a, b), np.linalg.solve(a, v), np.linalg.det(a),
            tuple(np.linalg.slogdet(a)), np.linalg.cholesky(s), np.linalg.cholesky(s, upper=True),
            tuple(np.linalg.eigh(s)), np.linalg.eigvalsh(s, UPLO="U"))


_COMPILED = {}


def _compiled_square(dtype):
    """One kernel per dtype, every dim unknown (reused by every example)."""
    if dtype not in _COMPILED:
        d = DYN[dtype]
        sig = [ag.TensorSpec([None, None], d)] * 3 + [ag.TensorSpec([None], d)]
        _COMPILED[dtype] = ag.function(
            lambda a, s, b, v: tuple(tuple(x) if isinstance(x, tuple) else x
                                     for x in _square_ops(a, s, b, v)), input_signature=sig)
    return _COMPILED[dtype]


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 8), k=st.integers(1, 3), seed=st.integers(0, 2 ** 16),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_square_ops_match_numpy_bit_for_bit(n, k, seed, dtype):
    rng = np.random.default_rng(seed)
    a, s = _well_conditioned(rng, (n, n), dtype), _spd(rng, (n, n), dtype)
    b, v = rng.standard_normal((n, k)).astype(dtype), rng.standard_normal(n).astype(dtype)
    want = _square_ops(a, s, b, v)
    _same(_compiled_square(dtype)(a, s, b, v), want)
    _same(tuple(tuple(x) if isinstance(x, tuple) else x     # eager, on tensors
                for x in _square_ops(*map(ag.constant, (a, s, b, v)))), want)


def test_larger_and_batched_static_shapes():
    rng = np.random.default_rng(7)
    for shape, dtype in (((40, 40), np.float64), ((2, 3, 5, 5), np.float32)):
        a, s = _well_conditioned(rng, shape, dtype), _spd(rng, shape, dtype)
        b = rng.standard_normal(shape[:-1] + (2,)).astype(dtype)
        v = rng.standard_normal(shape[-1]).astype(dtype)
        f = ag.function(lambda a, s, b, v: tuple(tuple(x) if isinstance(x, tuple) else x
                                                 for x in _square_ops(a, s, b, v)))
        _same(f(a, s, b, v), _square_ops(a, s, b, v))


@pytest.mark.parametrize("shape, dtype", [((3, 5), np.float64), ((5, 3), np.float32),
                                          ((2, 3, 2), np.float64), ((3, 0), np.float32)])
def test_qr_svd_match_numpy_bit_for_bit(shape, dtype):
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)

    def ops(x):
        return (tuple(np.linalg.qr(x)), tuple(np.linalg.qr(x, mode="complete")),
                np.linalg.qr(x, mode="r"), tuple(np.linalg.svd(x)),
                tuple(np.linalg.svd(x, full_matrices=False)), np.linalg.svd(x, compute_uv=False))

    sig = [ag.TensorSpec([None] * len(shape), DYN[dtype])]
    _same(ag.function(ops, input_signature=sig)(a), ops(a))
    _same(ops(ag.constant(a)), ops(a))


def test_integer_input_computes_in_float64_and_results_are_named():
    a = np.array([[2, 1], [1, 3]], np.int32)
    f = ag.function(lambda x: (np.linalg.det(x), np.linalg.slogdet(x).logabsdet,
                               np.linalg.eigh(x).eigenvectors, np.linalg.svd(x).S))
    want = (np.linalg.det(a), np.linalg.slogdet(a).logabsdet, np.linalg.eigh(a).eigenvectors,
            np.linalg.svd(a).S)
    _same(f(a), want)


def test_singular_det_is_zero_and_slogdet_minus_inf():
    f = ag.function(lambda x: (np.linalg.det(x), tuple(np.linalg.slogdet(x))),
                    input_signature=[ag.TensorSpec([None, None], ag.float64)])
    a = np.ones((3, 3))
    _same(f(a), (np.linalg.det(a), tuple(np.linalg.slogdet(a))))
    assert float(np.asarray(f(a)[1][1])) == -np.inf


def test_solve_broadcasts_batch_dims():
    rng = np.random.default_rng(3)
    a = _well_conditioned(rng, (2, 4, 4), np.float64)
    b = rng.standard_normal((4, 3))
    f = ag.function(lambda a, b: np.linalg.solve(a, b))
    _same(f(a, b), np.linalg.solve(a, b))


def test_lstsq_matches_numpy_bit_for_bit():
    rng = np.random.default_rng(4)
    f = ag.function(lambda a, b: np.linalg.lstsq(a, b, rcond=None),
                    input_signature=[ag.TensorSpec([None, None], ag.float64),
                                     ag.TensorSpec([None], ag.float64)])
    for shape in ((6, 3), (3, 6), (4, 4), (0, 3)):       # residuals only for (6, 3)
        a, b = rng.standard_normal(shape), rng.standard_normal(shape[0])
        _same(f(a, b), np.linalg.lstsq(a, b, rcond=None))
        _same(np.linalg.lstsq(ag.constant(a), ag.constant(b)), np.linalg.lstsq(a, b))
    low = (rng.standard_normal((6, 2)) @ rng.standard_normal((2, 3))).astype(np.float32)
    b = rng.standard_normal((6, 2)).astype(np.float32)     # rank 2 < 3: no residuals
    g = ag.function(lambda a, b: np.linalg.lstsq(a, b, rcond=1e-3))
    _same(g(low, b), np.linalg.lstsq(low, b, rcond=1e-3))


def test_pinv_matrix_rank_cond():
    rng = np.random.default_rng(11)
    low = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))     # rank 2
    for x, rtol in ((low, 1e-12), (low.astype(np.float32), 1e-5)):
        f = ag.function(lambda x: (np.linalg.pinv(x), np.linalg.matrix_rank(x), np.linalg.cond(x),
                                   np.linalg.cond(x, -2), np.linalg.pinv(x, rtol=None)))
        got = f(x)
        want = (np.linalg.pinv(x), np.linalg.matrix_rank(x), np.linalg.cond(x),
                np.linalg.cond(x, -2), np.linalg.pinv(x, rtol=None))
        _same(got[0], want[0], rtol)
        _same(got[1], want[1])
        assert int(np.asarray(got[1])) == 2
        _same(got[2:4], want[2:4], 1e-3 if x.dtype == np.float32 else 1e-6)  # ratio of a tiny s
        _same(got[4], want[4], rtol)


def test_tensorflow_names_and_semantics():
    rng = np.random.default_rng(5)
    a = _well_conditioned(rng, (4, 4), np.float64)
    s = _spd(rng, (4, 4), np.float64)
    b = rng.standard_normal((4, 2))
    _same(ag.linalg.inv(a), np.linalg.inv(a))
    _same(ag.linalg.inv(a, adjoint=True), np.linalg.inv(a.T))
    _same(ag.linalg.solve(a, b, adjoint=True), np.linalg.solve(a.T, b))
    _same(ag.linalg.det(a), np.linalg.det(a))
    _same(ag.linalg.slogdet(a), tuple(np.linalg.slogdet(a)))
    _same(ag.linalg.cholesky(s), np.linalg.cholesky(s))
    _same(ag.linalg.eigh(s), tuple(np.linalg.eigh(s)))
    _same(ag.linalg.eigvalsh(s), np.linalg.eigvalsh(s))
    _same(ag.linalg.qr(b, full_matrices=True), tuple(np.linalg.qr(b, mode="complete")))
    u, sv, vh = np.linalg.svd(b, full_matrices=False)
    _same(ag.linalg.svd(b), (sv, u, vh.T))          # TensorFlow's order; v not transposed
    _same(ag.linalg.svd(b, compute_uv=False), np.linalg.svd(b, compute_uv=False))   # dgesdd 'N'

    eps = np.finfo(np.float64).eps
    _same(ag.linalg.pinv(b), np.linalg.pinv(b, rcond=10 * 4 * eps), 1e-12)
    f = ag.function(lambda m, r: ag.linalg.solve(m, r),
                    input_signature=[ag.TensorSpec([None, None], ag.float64)] * 2)
    _same(f(a, b), np.linalg.solve(a, b))


# ---------------------------------------------------------------- errors

def _run_script(tmp_path, code, env=None):
    script = tmp_path / "script.py"      # a file: the converter reads the function's source
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRAPH_DISABLE_CACHE": "1", **(env or {})},
                          timeout=120)


def test_singular_matrix_in_a_fresh_and_in_a_disk_cached_process(tmp_path):
    # The error exit of the first process's compiled kernel, then a second process
    # that loads the kernel from the disk cache (object code holds the table's
    # symbol, not an address) and calls its own process's LAPACK.
    code = """
        import numpy as np, autograph as ag

        @ag.function(input_signature=[ag.TensorSpec([None, None], ag.float64)])
        def f(a):
            return np.linalg.inv(a)

        for _ in range(3):
            try:
                f(np.ones((4, 4)))
            except ag.errors.InvalidArgumentError as e:
                msg = str(e)
        assert "inv: Singular matrix" in msg and "line 6" in msg, msg
        assert np.array_equal(np.asarray(f(np.eye(4) * 2)), np.eye(4) / 2)
        print(f.get_concrete_function().kernel._jit.origin)
    """
    env = {"AUTOGRAPH_CACHE_DIR": str(tmp_path / "cache"), "AUTOGRAPH_DISABLE_CACHE": "0"}
    for origin in ("compiled", "disk-cache"):
        out = _run_script(tmp_path, code, env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == origin


def test_no_lapack_found_raises_a_clear_error(tmp_path):
    out = _run_script(tmp_path, """
        import numpy as np
        from autograph.codegen.abi import blas, lapack
        blas._candidates = lambda: []
        import autograph as ag
        f = ag.function(lambda a: np.linalg.det(a))
        try:
            f(np.eye(3))
        except ag.errors.InvalidArgumentError as e:
            assert "det: no LAPACK library was found" in str(e), str(e)
        else:
            raise AssertionError("no error")
        assert lapack.library_path() is None and not lapack.available()
        print("ok")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_disabled_table_raises_then_recovers():
    f = ag.function(lambda a: np.linalg.solve(a, a[:, 0]))
    a = np.eye(3) * 4
    f(a)
    with lapack.disabled():
        with pytest.raises(ag.errors.InvalidArgumentError, match="solve: no LAPACK library"):
            f(a)
    _same(f(a), np.linalg.solve(a, a[:, 0]))
    assert lapack.available()


@pytest.mark.parametrize("fn, arg, message, eager", [
    (lambda a: np.linalg.solve(a, a), np.ones((3, 3)), "solve: Singular matrix", None),
    (lambda a: np.linalg.cholesky(a), -np.eye(3), "cholesky: Matrix is not positive definite", None),
    (lambda a: np.linalg.inv(a), np.ones((2, 3)),
     r"inv: Last 2 dimensions of the array must be square \(got 2 x 3\)",
     "inv: Last 2 dimensions of the array must be square"),
    (lambda a: np.linalg.det(a), np.ones((3, 2)), "det: Last 2 dimensions",
     "det: Last 2 dimensions"),
    (lambda a: np.linalg.solve(a, a[:2, :]), np.eye(3),
     "solve: a and b do not match: dimension 0 of a is 3, of b 2",
     r"solve: a has shape \(3, 3\) and b has shape \(2, 3\): b needs 3 rows"),
])
def test_run_time_errors(fn, arg, message, eager):
    f = ag.function(fn, input_signature=[ag.TensorSpec([None, None], ag.float64)])
    with pytest.raises(ag.errors.InvalidArgumentError, match=message) as info:
        f(arg)
    assert "test_lapack_linalg.py" in str(info.value)           # the user's line
    with pytest.raises(ValueError, match=eager or message):     # eagerly (static shapes: at once)
        fn(ag.constant(arg))


@pytest.mark.parametrize("fn, arg, error, message", [
    (lambda a: np.linalg.inv(a), np.ones((2, 3)), ValueError, "Last 2 dimensions of the array"),
    (lambda a: np.linalg.det(a), np.ones(3), ValueError, "1-dimensional array given"),
    (lambda a: np.linalg.qr(a, mode="raw"), np.ones((2, 2)), TypeError, "mode='raw'"),
    (lambda a: np.linalg.qr(a, mode="bad"), np.ones((2, 2)), ValueError, "Unrecognized mode"),
    (lambda a: np.linalg.eigh(a, UPLO="X"), np.eye(2), ValueError, "UPLO argument must be"),
    (lambda a: np.linalg.svd(a, hermitian=True), np.eye(2), TypeError, "hermitian=True"),
    (lambda a: np.linalg.inv(a), np.eye(2) * 1j, TypeError, "complex matrices"),
    (lambda a: np.linalg.cond(a, 1), np.eye(2), TypeError, "p=1"),
])
def test_trace_time_errors(fn, arg, error, message):
    with pytest.raises(error, match=message):
        ag.function(fn)(arg)


# ---------------------------------------------------------------- gradients

def _fd(f, xs, w, eps=1e-6):
    """Central differences of sum(f(*xs) * w) for every element of every x."""
    def value(args):
        return float(np.sum(np.asarray(f(*[ag.constant(a) for a in args])) * w))
    out = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            hi, lo = [a.copy() for a in xs], [a.copy() for a in xs]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            g[idx] = (value(hi) - value(lo)) / (2 * eps)
        out.append(g)
    return out


def _tape(f, xs, w):
    ts = [ag.constant(x) for x in xs]
    with ag.GradientTape() as tape:
        tape.watch(ts)
        loss = ag.reduce_sum(f(*ts) * ag.constant(w))
    return [None if g is None else np.asarray(g) for g in tape.gradient(loss, ts)]


def _sym(x):    # cholesky reads one triangle: differentiate through a symmetric input
    return ag.matmul(x, ag.transpose(x)) + ag.eye(3, dtype=ag.float64)


GRADS = {
    "inv": (lambda a, b: np.linalg.inv(a), 2),
    "solve": (lambda a, b: np.linalg.solve(a, b), 2),
    "det": (lambda a, b: np.linalg.det(a) * b[0, 0], 2),
    "slogdet": (lambda a, b: np.linalg.slogdet(a)[1] + np.linalg.slogdet(a)[0] * b[0, 0], 2),
    "cholesky": (lambda a, b: np.linalg.cholesky(_sym(a)), 2),
    "cholesky_upper": (lambda a, b: np.linalg.cholesky(_sym(a), upper=True), 2),
    "batched_inv_det": (lambda a, b: np.linalg.det(np.linalg.inv(a)) * b[..., 0, 0], 3),
    # distinct eigenvalues (the diagonal 3 * I apart is not enough: a + a.T below)
    "eigh": (lambda a, b: np.linalg.eigh(a + a.T)[0] + np.linalg.eigh(a + a.T)[1][0], 2),
    "eigvalsh_upper": (lambda a, b: np.linalg.eigvalsh(a, UPLO="U"), 2),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients_match_finite_differences(name):
    f, rank = GRADS[name]
    rng = np.random.default_rng(1)
    shape = (2, 3, 3) if rank == 3 else (3, 3)
    a = rng.standard_normal(shape) + 3 * np.eye(3)
    b = rng.standard_normal(shape[:-1] + (2,))
    w = rng.uniform(0.5, 1.5, np.shape(np.asarray(f(ag.constant(a), ag.constant(b)))))
    for got, want in zip(_tape(f, [a, b], w), _fd(f, [a, b], w)):
        np.testing.assert_allclose(0.0 if got is None else got, want, rtol=1e-5, atol=1e-6)


def test_gradient_inside_a_compiled_function():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)

    def grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            loss = ag.reduce_sum(np.linalg.inv(x)) + np.linalg.det(x)
        return tape.gradient(loss, x)

    want = -np.linalg.inv(a).T @ np.ones((3, 3)) @ np.linalg.inv(a).T + np.linalg.det(a) * np.linalg.inv(a).T
    np.testing.assert_allclose(np.asarray(ag.function(grad)(a)), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad(ag.constant(a))), want, rtol=1e-12)


def test_matrix_norms_from_singular_values():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 4, 3))
    y = x[0].astype(np.float32)

    def norms(x, y):
        return (np.linalg.norm(y, 2), np.linalg.norm(y, -2), np.linalg.norm(x, 2, axis=(2, 1)),
                np.linalg.norm(x, -2, axis=(0, 2), keepdims=True))

    want = norms(x, y)
    _same(ag.function(norms)(x, y), want)
    _same(norms(ag.constant(x), ag.constant(y)), want)
    nuc = ag.function(lambda x: np.linalg.norm(x, "nuc", axis=(1, 2)))(x)   # a sum: rounding
    _same(nuc, np.linalg.norm(x, "nuc", axis=(1, 2)), 1e-14)


def test_every_buffer_is_freed_once_also_on_the_error_exits():
    # Scratch buffers, workspaces and results, on success and on each error exit
    # (singular, not positive definite, non-square at run time), batched or not.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from alloc_counting import run_child
    proc = run_child(r"""
        from codegen_support import T, compile_fn
        from autograph.tracer.tracing.symbolic import bind
        from autograph.errors import InvalidArgumentError

        def ops(a):   # inv first (fails on `singular`), cholesky last (fails on `bad_chol`)
            inv, x = bind("matrix_inverse", a), bind("matrix_solve", a, a)
            w, v = bind("self_adjoint_eig", a, lower=True, compute_v=True)
            q, r = bind("qr", a, full=True)
            u, s, vh = bind("svd", a, full_matrices=False, compute_uv=True)
            return [inv, x, bind("matrix_determinant", a), w, v, q, r, u, s, vh,
                    bind("cholesky", a, upper=False)]

        _, k = compile_fn(ops, T("float64", (None, None, None)))
        _, k2 = compile_fn(lambda a, b: list(bind("lstsq", a, b, rcond=None)),
                           T("float64", (None, None)), T("float64", (None, None)))
        for shape in ((5, 2), (2, 5), (3, 3)):
            for _ in range(2):
                outs = k2((np.arange(shape[0] * shape[1]) + 0.5).reshape(shape) ** 2,
                          np.ones((shape[0], 2)))
        try:
            k2(np.ones((3, 2)), np.ones((4, 2)))
        except InvalidArgumentError as e:
            assert "lstsq: Incompatible dimensions" in str(e)
        spd = np.eye(3)[None] * np.array([2.0, 3.0])[:, None, None]
        bad_chol = spd.copy(); bad_chol[1, 0, 0] = -1.0
        singular = spd.copy(); singular[1] = 1.0
        failed = []
        for arg in (spd, bad_chol, singular, np.ones((2, 3, 4)), np.ones((0, 2, 2))):
            for _ in range(2):
                try:
                    outs = k(arg)
                except InvalidArgumentError as e:
                    failed.append(str(e).split(chr(10))[0])
        assert failed == ["cholesky: Matrix is not positive definite"] * 2 + [
            "inv: Singular matrix"] * 2 + [
            "inv: Last 2 dimensions of the array must be square (got 3 x 4)"] * 2, failed
        del outs
        gc.collect()
        assert not problems, problems
        assert not live, f"{len(live)} buffers leaked: {sorted(live.values())}"
        print("balanced")
    """, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "balanced" in proc.stdout


def test_numpy2_linalg_names():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 4, 3))
    a, b, c, d = (rng.standard_normal(s) for s in ((7, 3), (3, 9), (9, 2), (2, 5)))
    v, w = rng.standard_normal(7), rng.standard_normal(5)

    def names(x, a, b, c, d, v, w):
        return (np.linalg.svdvals(x), np.linalg.matrix_norm(x), np.linalg.matrix_norm(x, ord=2),
                np.linalg.vector_norm(x), np.linalg.vector_norm(x, axis=1, keepdims=True, ord=1),
                np.linalg.vector_norm(x, keepdims=True), np.linalg.matrix_transpose(x),
                np.linalg.multi_dot([a, b, c]), np.linalg.multi_dot([a, b, c, d]),
                np.linalg.multi_dot([v, a, b, c, d, w]), np.linalg.multi_dot([v, a]),
                np.linalg.outer(v, w), np.linalg.vecdot(x, x), np.linalg.matmul(a, b))

    args = (x, a, b, c, d, v, w)
    want = names(*args)
    got = ag.function(names)(*args)
    for i, (g, w_) in enumerate(zip(got, want)):
        # sums and matrix products of ours: within rounding (NumPy's pairwise sums, BLAS)
        _same(g, w_, 0.0 if i in (0, 2, 6) else 1e-12)
    _same(names(*map(ag.constant, args))[0], want[0])
    with pytest.raises(TypeError, match="several axes at once"):
        ag.function(lambda x: np.linalg.vector_norm(x, axis=(0, 1)))(x)
    with pytest.raises(ValueError, match="Expecting at least two arrays"):
        ag.function(lambda a: np.linalg.multi_dot([a]))(a)


def test_cholesky_slogdet_solve_gradients_compiled_with_unknown_dims_equal_eager():
    def grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            s = ag.matmul(x, ag.transpose(x)) + ag.eye(3, dtype=ag.float64)
            loss = (ag.reduce_sum(np.linalg.cholesky(s) * np.arange(9.0).reshape(3, 3))
                    + np.linalg.slogdet(s)[1] + ag.reduce_sum(np.linalg.solve(s, x)))
        return tape.gradient(loss, x)

    a = np.random.default_rng(0).standard_normal((3, 3))
    f = ag.function(grad, input_signature=[ag.TensorSpec([None, None], ag.float64)])
    np.testing.assert_allclose(np.asarray(f(a)), np.asarray(grad(ag.constant(a))), rtol=1e-12)
