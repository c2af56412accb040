"""Class-based models that rebind attributes (`self.x = self.F @ self.x`, `self.t += 1`): each test runs the same
code as plain Python/NumPy on a twin of the objects and compares the returned values and the objects' state after
the call (values, dtypes, types, and identity where NumPy gives an argument or a view of one)."""
from dataclasses import dataclass

import numpy as np
import pytest

from transpiler import CompileError, transpile


def _same_state(compiled_obj, python_obj, rtol=1e-10):
    for name, want in vars(python_obj).items():
        got = getattr(compiled_obj, name)
        assert type(got) is type(want), (name, type(got), type(want))
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape, want.shape)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12, err_msg=name)
        elif isinstance(want, (float, np.floating)):
            np.testing.assert_allclose(got, want, rtol=rtol, err_msg=name)
        elif not isinstance(want, (Kalman, Adam, list)):
            assert got == want, (name, got, want)


# ---- a Kalman filter --------------------------------------------------------------------------------------------
class Kalman:
    def __init__(self, F, H, Q, R, x0, P0):
        self.F, self.H, self.Q, self.R, self.x, self.P = F, H, Q, R, x0, P0

    def predict(self):
        self.x = self.F @ self.x
        self.P = self.F @ self.P @ self.F.T + self.Q

    def update(self, z):
        y = z - self.H @ self.x
        S = self.H @ self.P @ self.H.T + self.R
        K = self.P @ self.H.T @ np.linalg.inv(S)
        self.x = self.x + K @ y
        self.P = (np.eye(self.P.shape[0]) - K @ self.H) @ self.P

    def filter(self, zs):
        out = np.empty((zs.shape[0], self.x.shape[0]))
        for t in range(zs.shape[0]):
            self.predict()
            self.update(zs[t])
            out[t] = self.x
        return out


def _kalman(n, m, seed):
    rng = np.random.default_rng(seed)
    F = np.eye(n) + 0.1 * rng.standard_normal((n, n))
    H = rng.standard_normal((m, n))
    return Kalman(F, H, 0.01 * np.eye(n), 0.1 * np.eye(m), rng.standard_normal(n), np.eye(n))


def run_filter(kf, zs):
    return kf.filter(zs)


@pytest.mark.parametrize("n, m, steps", [(4, 2, 10), (3, 3, 1), (2, 1, 25), (5, 2, 0)])
def test_kalman_filter_state_after_each_call(n, m, steps):
    f = transpile(run_filter)
    want, got = _kalman(n, m, n), _kalman(n, m, n)
    x0, P0 = got.x, got.P
    zs = np.random.default_rng(steps).standard_normal((steps, m))
    for _ in range(3):      # each call starts from the state the one before left
        np.testing.assert_allclose(f(got, zs), run_filter(want, zs), rtol=1e-9, atol=1e-12)
        _same_state(got, want, rtol=1e-8)
    if steps == 0:          # the loop never ran: the attributes are still the caller's own arrays
        assert got.x is x0 and got.P is P0
    assert f.compilations == 1


def test_kalman_filter_compiled_as_a_method():
    want, got = _kalman(3, 2, 7), _kalman(3, 2, 7)
    zs = np.random.default_rng(0).standard_normal((12, 2))
    method = transpile(got.filter)
    np.testing.assert_allclose(method(zs), want.filter(zs), rtol=1e-9)
    _same_state(got, want, rtol=1e-9)
    np.testing.assert_allclose(method(zs[:3]), want.filter(zs[:3]), rtol=1e-9)
    _same_state(got, want, rtol=1e-9)


# ---- an optimizer -----------------------------------------------------------------------------------------------
class Adam:
    def __init__(self, shape, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8, dtype=np.float64):
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
        self.m = np.zeros(shape, dtype)
        self.v = np.zeros(shape, dtype)
        self.t = 0

    def step(self, w, g):
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g * g
        m_hat = self.m / (1 - self.b1 ** self.t)
        v_hat = self.v / (1 - self.b2 ** self.t)
        w -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        return w


def adam_steps(opt, w, target, steps):
    for _ in range(steps):
        opt.step(w, 2 * (w - target))
    return w


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adam_optimizer_counts_its_steps_and_keeps_its_moments(dtype):
    f = transpile(adam_steps)
    target = np.linspace(-1, 1, 7).astype(dtype)
    want, got = Adam(7, dtype=dtype), Adam(7, dtype=dtype)
    w_want, w_got = np.zeros(7, dtype), np.zeros(7, dtype)
    for steps in (3, 20, 0, 5):
        assert f(got, w_got, target, steps) is w_got
        adam_steps(want, w_want, target, steps)
        np.testing.assert_allclose(w_got, w_want, rtol=1e-5 if dtype == np.float32 else 1e-12)
        _same_state(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
        assert type(got.t) is int and got.t == want.t
    # the first call compiles with `t` as a constant and rebinds it: from then on it is a run-time int
    assert f.compilations == 2


# ---- a recurrent cell -------------------------------------------------------------------------------------------
class RNN:
    def __init__(self, d_in, d_h, seed):
        rng = np.random.default_rng(seed)
        self.W = rng.standard_normal((d_h, d_in)) * 0.5
        self.U = rng.standard_normal((d_h, d_h)) * 0.5
        self.b = rng.standard_normal(d_h) * 0.1
        self.h = np.zeros(d_h)

    def cell(self, x):
        self.h = np.tanh(self.W @ x + self.U @ self.h + self.b)
        return self.h

    def run(self, xs):
        out = np.empty((xs.shape[0], self.h.shape[0]))
        for t in range(xs.shape[0]):
            out[t] = self.cell(xs[t])
        return out


class LSTM:
    def __init__(self, d_in, d_h, seed):
        rng = np.random.default_rng(seed)
        self.Wx = rng.standard_normal((d_in, 4 * d_h)).astype(np.float32) * 0.3
        self.Wh = rng.standard_normal((d_h, 4 * d_h)).astype(np.float32) * 0.3
        self.h = np.zeros(d_h, np.float32)
        self.c = np.zeros(d_h, np.float32)

    def step(self, x):
        z = x @ self.Wx + self.h @ self.Wh
        i, f, g, o = np.split(z, 4)
        sig = lambda v: 1 / (1 + np.exp(-v))
        self.c = sig(f) * self.c + sig(i) * np.tanh(g)
        self.h = sig(o) * np.tanh(self.c)
        return self.h


def rnn_run(cell, xs):
    return cell.run(xs)


def lstm_run(cell, xs):
    last = cell.h
    for t in range(xs.shape[0]):
        last = cell.step(xs[t])
    return last


@pytest.mark.parametrize("steps", [1, 6, 13])
def test_rnn_cell_keeps_its_hidden_state(steps):
    f = transpile(rnn_run)
    want, got = RNN(3, 5, 1), RNN(3, 5, 1)
    xs = np.random.default_rng(steps).standard_normal((steps, 3))
    for _ in range(2):
        np.testing.assert_allclose(f(got, xs), rnn_run(want, xs), rtol=1e-12)
        _same_state(got, want, rtol=1e-12)


def test_lstm_cell_state_and_the_returned_hidden_state_are_one_array():
    f = transpile(lstm_run)
    want, got = LSTM(4, 3, 2), LSTM(4, 3, 2)
    xs = np.random.default_rng(3).standard_normal((9, 4)).astype(np.float32)
    for _ in range(2):
        h = f(got, xs)
        np.testing.assert_allclose(h, lstm_run(want, xs), rtol=1e-5)
        _same_state(got, want, rtol=1e-5)
        assert h is got.h      # NumPy: step returns self.h itself


# ---- running statistics -------------------------------------------------------------------------------------------
class BatchNorm:
    def __init__(self, d, momentum=0.1, eps=1e-5, dtype=np.float32):
        self.gamma = np.ones(d, dtype)
        self.beta = np.zeros(d, dtype)
        self.running_mean = np.zeros(d, dtype)
        self.running_var = np.ones(d, dtype)
        self.momentum, self.eps = momentum, eps
        self.training = True
        self.batches = 0

    def __call__(self, x):
        if self.training:
            mean, var = x.mean(axis=0), x.var(axis=0)
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * mean
            self.running_var = (1 - self.momentum) * self.running_var + self.momentum * var
            self.batches += 1
        else:
            mean, var = self.running_mean, self.running_var
        return self.gamma * (x - mean) / np.sqrt(var + self.eps) + self.beta


def apply(layer, x):
    return layer(x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batchnorm_running_statistics(dtype):
    f = transpile(apply)
    want, got = BatchNorm(4, dtype=dtype), BatchNorm(4, dtype=dtype)
    rng = np.random.default_rng(0)
    for rows in (8, 3, 8):
        x = rng.standard_normal((rows, 4)).astype(dtype)
        np.testing.assert_allclose(f(got, x), apply(want, x), rtol=1e-5)
        _same_state(got, want, rtol=1e-5)
    want.training = got.training = False     # (a compile-time bool: another specialization)
    x = rng.standard_normal((5, 4)).astype(dtype)
    np.testing.assert_allclose(f(got, x), apply(want, x), rtol=1e-5)
    _same_state(got, want, rtol=1e-5)


# ---- run-time branches and loops -----------------------------------------------------------------------------------
class State:
    def __init__(self, n=4):
        self.a = np.arange(float(n))
        self.acc = np.zeros(n)
        self.total = 0.0
        self.err = 1.0


def rebind_in_branch(s, x):
    if x.sum() > 0:
        s.a = x * 2
    return s.a.sum()


def test_rebinding_in_a_run_time_branch_keeps_the_callers_array_on_the_other_path():
    f = transpile(rebind_in_branch)
    for x in (np.ones(4), -np.ones(4)):
        want, got = State(), State()
        a0 = got.a
        assert f(got, x) == rebind_in_branch(want, x)
        _same_state(got, want)
        assert (got.a is a0) == (x.sum() <= 0)


def accumulate(s, x, n):
    for i in range(n):
        s.acc = s.acc + x[i]
        s.total = s.total + float(x[i].sum())
    return s.acc


def test_rebinding_in_a_run_time_loop():
    f = transpile(accumulate)
    x = np.random.default_rng(0).standard_normal((6, 4))
    for n in (0, 1, 6):
        want, got = State(), State()
        acc0 = got.acc
        r = f(got, x, n)
        np.testing.assert_allclose(r, accumulate(want, x, n))
        _same_state(got, want)
        assert r is got.acc
        assert (got.acc is acc0) == (n == 0)


def relax(s, x, tol):
    while s.err > tol:
        s.a = 0.5 * (s.a + x)
        s.err = float(np.abs(s.a - x).max())
    return s.err


def test_an_attribute_in_a_while_condition():
    f = transpile(relax)
    x = np.full(4, 3.0)
    for tol in (1e-3, 10.0):
        want, got = State(), State()
        want.err = got.err = 5.0
        assert f(got, x, tol) == relax(want, x, tol)
        _same_state(got, want)


def branch_in_loop(s, x):
    for i in range(x.shape[0]):
        if x[i] > 0:
            s.total = s.total + x[i]
        else:
            s.a = s.a - x[i]
    return s.total


def test_rebinding_in_branches_inside_a_loop():
    f = transpile(branch_in_loop)
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal(7)
        want, got = State(), State()
        assert f(got, x) == branch_in_loop(want, x)
        _same_state(got, want)


# ---- aliasing -----------------------------------------------------------------------------------------------------
class Slots:
    def __init__(self, a, b):
        self.a, self.b = a, b


def alias_argument(s, x):
    s.a = x
    s.b = x[1:]
    return s.a


def test_an_attribute_bound_to_an_argument_is_that_array_and_a_view_is_a_view():
    x = np.arange(5.0)
    s = Slots(np.zeros(2), np.zeros(2))
    r = transpile(alias_argument)(s, x)
    assert r is x and s.a is x
    assert s.b.base is x and np.shares_memory(s.b, x)
    np.testing.assert_array_equal(s.b, x[1:])


def swap(s):
    s.a, s.b = s.b, s.a
    s.c = s.a


def test_attributes_swapped_and_shared_are_the_callers_arrays():
    a, b = np.ones(3), np.zeros(3)
    s = Slots(a, b)
    transpile(swap)(s)
    assert s.a is b and s.b is a and s.c is b


def made_and_returned(s, x):
    h = np.tanh(x)
    s.a = h
    s.b = h[::2]
    return h


def test_a_new_array_held_by_an_attribute_and_returned_is_one_object():
    s = Slots(np.zeros(2), np.zeros(2))
    x = np.linspace(-1, 1, 5)
    r = transpile(made_and_returned)(s, x)
    assert s.a is r and s.b.base is r
    np.testing.assert_array_equal(s.b, np.tanh(x)[::2])


class Scalars:
    def __init__(self):
        self.count = 0
        self.mean = 0.0
        self.peak = np.float32(0)
        self.flag = False


def scalars(s, x):
    s.count += 1
    s.mean = float(x.mean())
    s.peak = x.max()
    s.flag = x.sum() > 0


def test_numbers_are_written_back_as_the_types_python_gives():
    f = transpile(scalars)
    for x in (np.arange(4, dtype=np.float32), -np.ones(3, np.float32)):
        want, got = Scalars(), Scalars()
        f(got, x)
        scalars(want, x)
        _same_state(got, want)


class Growing:
    def __init__(self):
        self.buf = np.zeros(2)
        self.v = np.ones(3)


def grow(g, x):
    g.buf = np.concatenate([g.buf, x])
    g.v = g.v[:2] * 2
    return g.buf.sum()


def narrow(g):
    g.v = g.v.astype(np.float32)
    return g.v


def test_a_second_call_sees_the_new_shape_or_dtype():
    f = transpile(grow)
    want, got = Growing(), Growing()
    for k in range(3):      # the shapes change: the same specialization (sizes are run-time)
        x = np.arange(k + 2.0)
        assert f(got, x) == grow(want, x)
        _same_state(got, want)
    assert f.compilations == 1
    h = transpile(narrow)
    want, got = Growing(), Growing()
    for _ in range(2):      # float64 then float32: a second specialization
        np.testing.assert_array_equal(h(got), narrow(want))
        _same_state(got, want)
    assert h.compilations == 2


class Model:
    def __init__(self):
        self.layers = [RNN(2, 3, 0), RNN(3, 3, 1)]
        self.steps = 0


def nested(model, x):
    for layer in model.layers:
        x = layer.cell(x)
    model.steps += 1
    return x


def test_objects_reached_from_an_argument():
    f = transpile(nested)
    want, got = Model(), Model()
    x = np.ones(2)
    for _ in range(3):
        np.testing.assert_allclose(f(got, x), nested(want, x), rtol=1e-12)
        assert got.steps == want.steps
        for g, w in zip(got.layers, want.layers):
            _same_state(g, w)


# ---- refused -------------------------------------------------------------------------------------------------------
GLOBAL = State()


def set_global(x):
    GLOBAL.a = x * 2
    return x


def set_class(s, x):
    type(s).shared = x.sum()
    return x


def set_made(x):
    s = Slots(1, 2)
    s.a = x
    return x


class Guarded:
    def __init__(self):
        self.a = np.ones(2)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)


class WithSetter:
    def __init__(self):
        self._a = np.ones(2)

    @property
    def a(self):
        return self._a

    @a.setter
    def a(self, value):
        self._a = value


def set_a(s, x):
    s.a = x * 2
    return x


def delete_a(s, x):
    del s.a
    return x


def only_on_one_path(s, x):
    if x.sum() > 0:
        s.fresh = x
    return x


def changes_dtype(s, x):
    if x.sum() > 0:
        s.a = x.astype(np.float32)
    return x


class Bumper:
    def __init__(self):
        self.a = np.zeros(4)

    def bump(self, x):
        self.a = x * 2
        return x


def in_conditional_expression(s, x):
    return s.bump(x) if x.sum() > 0 else x


def created_in_loop(s, x):
    for i in range(x.shape[0]):
        s.fresh = x[i]
    return x


class Converging:
    def __init__(self):
        self.err = 1.0
        self.a = np.ones(4)

    def step(self):
        self.a = self.a * 0.5
        self.err = float(self.a.max())
        return self.err


def in_while_condition(s, x):
    while s.step() > x[0]:
        pass
    return x


@pytest.mark.parametrize("fn, args, match", [
    (set_global, lambda: (np.ones(2),), "module-level object"),
    (set_class, lambda: (State(), np.ones(2)), "of a module or a class"),
    (set_made, lambda: (np.ones(2),), "not an argument"),
    (set_a, lambda: (Guarded(), np.ones(2)), "defines __setattr__"),
    (set_a, lambda: (WithSetter(), np.ones(2)), "property"),
    (delete_a, lambda: (State(), np.ones(2)), "deleting an attribute"),
    (only_on_one_path, lambda: (State(), np.ones(4)), "only one path"),
    (changes_dtype, lambda: (State(), np.ones(4)), "s.a"),
    (in_conditional_expression, lambda: (Bumper(), np.ones(4)), "conditional expression"),
    (created_in_loop, lambda: (State(), np.ones(4)), "first assigned inside a run-time loop"),
    (in_while_condition, lambda: (Converging(), np.full(4, 0.1)), "condition of a run-time `while`"),
])
def test_what_cannot_be_followed_is_refused_at_its_line(fn, args, match):
    with pytest.raises(CompileError, match=match) as info:
        transpile(fn)(*args())
    assert info.value.lineno > fn.__code__.co_firstlineno


# ---- one array held by two names after a loop ----------------------------------------------------------------------
def two_names(xs):
    a = xs[0] * 1
    b = a
    for t in range(xs.shape[0]):
        a = np.tanh(xs[t])
        b = a
    b[0] = 5
    return a, b


def two_names_apart(xs):
    a = xs[0] * 1
    b = xs[0] * 2
    for t in range(xs.shape[0]):
        a = np.tanh(xs[t])
        b = a
    b[0] = 5
    return a, b


def test_names_holding_one_array_after_a_loop_are_one_array():
    """Regression: the loop carried `a` and `b` as two arrays, so the write through `b` missed `a` (a[0] stayed
    0.76, NumPy's is 5)."""
    xs = np.random.default_rng(0).standard_normal((5, 4))
    a, b = transpile(two_names)(xs)
    want_a, want_b = two_names(xs)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(b, want_b)
    assert a is b
    # one array only if the loop ran: a write through either afterwards is refused, never a missed write
    with pytest.raises(CompileError, match="may or may not share memory"):
        transpile(two_names_apart)(xs)


# ---- a call that raises ----------------------------------------------------------------------------------------------
def rebind_then_fail(s, x, i):
    x[0] += 1               # (written in place before the error: once, as in NumPy)
    s.a = x * 2
    s.total = float(x[i])   # IndexError for i out of range: s.total keeps its value, s.a is rebound
    s.err = 0.0
    return x[i]


def test_a_call_that_raises_leaves_the_objects_as_python_does():
    """A failed check of a call that rebinds attributes runs the call again as Python, from the caller's objects
    (the written array given back its contents first)."""
    f = transpile(rebind_then_fail)
    for i in (9, 1):
        want, got = State(), State()
        x_want, x_got = np.ones(4), np.ones(4)
        if i == 9:
            with pytest.raises(IndexError):
                rebind_then_fail(want, x_want, i)
            with pytest.raises(IndexError):
                f(got, x_got, i)
        else:
            assert f(got, x_got, i) == rebind_then_fail(want, x_want, i)
        _same_state(got, want)
        np.testing.assert_array_equal(x_got, x_want)


class Steps:
    def __init__(self):
        self.t = 0
        self.w = None


def rebind_then_misshape(p, x, y):
    p.t = p.t + 1
    p.w = x * 2
    x[0] = 5.0
    return p.w.reshape(3, -1) + y


@pytest.mark.parametrize("sizes", [(6, 2), (4, 2), (6, 3)], ids=["fits", "reshape", "broadcast"])
def test_a_failed_size_check_leaves_the_objects_as_python_does(sizes):
    """A size check that fails before the kernel runs (a reshape, a broadcast) in a call that rebinds attributes
    runs the call as Python too: the attributes and writes before the error stand (were: none of them)."""
    f = transpile(rebind_then_misshape)
    want, got = Steps(), Steps()
    x_want, x_got = np.arange(float(sizes[0])), np.arange(float(sizes[0]))
    y = np.ones(sizes[1])
    try:
        expected = rebind_then_misshape(want, x_want, y)
    except ValueError as error:
        with pytest.raises(ValueError):
            f(got, x_got, y)
        assert "reshape" in str(error) or "broadcast" in str(error)
    else:
        np.testing.assert_array_equal(f(got, x_got, y), expected)
    _same_state(got, want)
    np.testing.assert_array_equal(x_got, x_want)


class Toggle:
    def __init__(self):
        self.i = 0.0
        self.calls = 0


def toggle(p, x):
    p.i = 1.0 - p.i
    p.calls += 1
    return x * [10.0, 20.0][int(p.i)]      # (a list index: the value is needed while compiling)


def test_a_rebound_number_the_program_needs_while_compiling_stays_a_constant():
    f = transpile(toggle)
    want, got = Toggle(), Toggle()
    x = np.arange(3.0)
    for _ in range(4):
        np.testing.assert_array_equal(f(got, x), toggle(want, x))
        assert got.i == want.i and type(got.i) is float and got.calls == want.calls


class Filter:
    def __init__(self):
        self.x = np.zeros(3)
        self.skipped = 0

    def update(self, z):
        if np.isnan(z).any():          # a guard clause: the rest of the method is the other branch
            self.skipped += 1
            return self.x
        self.x = 0.5 * (self.x + z)
        return self.x


class Latest(Filter):
    def __init__(self):
        super().__init__()
        self.last = np.zeros(3)

    def update(self, z):
        if np.isnan(z).any():
            self.skipped += 1
            return self.x
        self.last = z
        self.x = 0.5 * (self.x + z)
        return self.x


def feed(flt, zs):
    for k in range(zs.shape[0]):
        flt.update(zs[k])
    return flt.x


def feed_one(flt, z):
    return flt.update(z)


def test_rebinding_in_a_method_that_returns_early():
    zs = np.random.default_rng(0).standard_normal((6, 3))
    zs[2, 1] = np.nan
    f = transpile(feed)
    want, got = Filter(), Filter()
    np.testing.assert_allclose(f(got, zs), feed(want, zs))
    _same_state(got, want)
    g = transpile(feed_one)
    for z in (zs[0], zs[2], zs[3]):
        want, got = Latest(), Latest()
        x0, last0 = got.x, got.last
        r = g(got, z)
        np.testing.assert_allclose(r, feed_one(want, z))
        _same_state(got, want)
        assert r is got.x
        nan = np.isnan(z).any()
        assert (got.x is x0) == nan and (got.last is last0) == nan and (got.last is z) == (not nan)


class WithSlots:
    __slots__ = ("w", "n")

    def __init__(self):
        self.w = np.ones(3)
        self.n = 0


@dataclass
class Params:
    w: np.ndarray
    lr: float = 0.5


@dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    lr: float = 0.5


def sgd(p, g):
    p.w = p.w - p.lr * g
    return p.w


def slot_step(s, g):
    s.w = s.w * g
    s.n += 1
    return s.w


def test_slots_and_dataclasses_and_a_frozen_one_refused():
    g = np.arange(3.0)
    want, got = WithSlots(), WithSlots()
    f = transpile(slot_step)
    for _ in range(2):
        np.testing.assert_array_equal(f(got, g), slot_step(want, g))
        np.testing.assert_array_equal(got.w, want.w)
        assert got.n == want.n
    want, got = Params(np.ones(3)), Params(np.ones(3))
    h = transpile(sgd)
    for _ in range(3):
        np.testing.assert_array_equal(h(got, g), sgd(want, g))
        np.testing.assert_array_equal(got.w, want.w)
    with pytest.raises(CompileError, match="defines __setattr__"):
        h(Frozen(np.ones(3)), g)


def step_all(models, x):
    for name, m in models.items():
        m.h = np.tanh(m.W @ x + m.U @ m.h + m.b)
    return x


def test_objects_in_a_dict_argument():
    f = transpile(step_all)
    want = {"a": RNN(3, 3, 0), "b": RNN(3, 3, 1)}
    got = {"a": RNN(3, 3, 0), "b": RNN(3, 3, 1)}
    x = np.ones(3)
    for _ in range(2):
        assert f(got, x) is x
        step_all(want, x)
        for k in want:
            _same_state(got[k], want[k])


class Stepper:
    def __init__(self):
        self.n = 0
        self.scale = 1.0

    def step(self, x):      # long enough to be compiled as a function of its own, were it not for the state
        self.n += 1
        self.scale = self.scale * 0.5
        y = x * self.scale + x * 0.25 - x * 0.125 + (x + 1.0) * (x - 1.0) * 0.5 + x * x * 0.01
        z = y * 0.5 + x * 0.5 + (y - x) * 0.25 + (y + x) * 0.125 + y * y * 0.001 - x * y * 0.002
        w = (y + z) * (y - z) + np.maximum(y, z) - np.minimum(y, z) * 2.0 + x * 0.001
        return w * 0.5 + y * 0.5 - z * 0.25 + (w - y) * 0.1 + (w + z) * 0.01 - (y + z) * 0.001


def step_twice(s, x):
    return s.step(s.step(x))


def test_a_method_called_twice_that_rebinds_is_inlined_not_outlined():
    f = transpile(step_twice)
    want, got = Stepper(), Stepper()
    x = np.linspace(-2, 2, 9)
    for _ in range(3):
        np.testing.assert_allclose(f(got, x), step_twice(want, x), rtol=1e-12)
        assert got.n == want.n and got.scale == want.scale and type(got.scale) is float


def view_of_attribute(s, x):
    s.b = s.a[::2]          # a view of the caller's array
    s.c = x * 2
    s.d = s.c[1:]           # a view of an array the call made


def test_views_of_attributes_are_views():
    a = np.arange(6.0)
    s = Slots(a, None)
    transpile(view_of_attribute)(s, np.ones(3))
    assert s.a is a and s.b.base is a and np.array_equal(s.b, a[::2])
    assert s.d.base is s.c and np.array_equal(s.d, [2.0, 2.0])
    s.c[1] = 7              # NumPy's sharing: seen through the view
    assert s.d[0] == 7


def walrus_in_while(x):
    k = 0
    while (k := k + 1) < x[0]:
        pass
    return k


def test_a_name_bound_in_a_run_time_while_condition_is_refused():
    """Regression: `k` bound by `:=` in the condition was not carried by the loop (the call returned 1, Python 5)."""
    assert walrus_in_while(np.array([5.0])) == 5
    with pytest.raises(CompileError, match=":="):
        transpile(walrus_in_while)(np.array([5.0]))


def feed_keep_last(flt, zs):
    out = flt.x
    for k in range(zs.shape[0]):
        out = flt.update(zs[k])
    return out


def test_the_value_a_method_returns_and_the_attribute_it_is_stay_one_array_through_a_loop():
    """Regression: `out` (the method's `return self.x`) was carried with a flag the loop could not compute, and
    returning it was refused."""
    f = transpile(feed_keep_last)
    zs = np.random.default_rng(1).standard_normal((5, 3))
    zs[1, 0] = np.nan
    for rows in (5, 0):
        want, got = Filter(), Filter()
        x0 = got.x
        r = f(got, zs[:rows])
        np.testing.assert_allclose(r, feed_keep_last(want, zs[:rows]))
        _same_state(got, want)
        assert r is got.x and (r is x0) == (rows == 0)
