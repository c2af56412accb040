"""Lists built by `append` in a run-time loop (frontend/row_lists.py): `hs.append(h)` in a time loop, then
`np.stack(hs)`, `np.array(losses)`, `len`, indexing, a loop over the list; compared with NumPy's run of the same
function, and the refusals where a row (a copy taken at the append) could differ from NumPy's list item (the
object itself)."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError

from helpers import assert_same


def elman_rnn(xs, w, u, b):
    """An Elman network's time loop, elementwise (one hidden unit per input feature), as RNN code writes it."""
    h = np.zeros(xs.shape[1], dtype=xs.dtype)
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] * w + h * u + b)
        hs.append(h)
    return np.stack(hs)


def rnn_rows(xs, w, u):
    h = np.zeros_like(xs[0])
    states = []
    for x in xs:
        h = np.tanh(x * w + h * u)
        states.append(h)
    return np.array(states), len(states)


def loss_history(x, steps, lr):
    """Gradient descent on sum(x**2): the loss of each step, a Python float, as a training loop records it."""
    losses = []
    for _ in range(steps):
        losses.append(float(np.sum(x * x)))
        x = x - lr * 2 * x
    return np.array(losses), np.mean(losses), len(losses), losses[-1] * np.float32(2)


def positives(x):
    found = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            found.append(x[i])
    return np.array(found)


def indices_above(x, t):
    found = []
    for i in range(x.shape[0]):
        if x[i] > t:
            found.append(i)
    return np.array(found, dtype=np.int64)


def two_per_step(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * 2)
        out.append(x[i] - 1)
    return np.stack(out)


def joined(xs):
    rows = []
    for t in range(xs.shape[0]):
        rows.append(xs[t] * (t + 1))
    return np.concatenate(rows), np.vstack(rows), np.hstack(rows), np.stack(rows, axis=1), np.stack(rows[1:])


def read_back(xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(np.cumsum(xs[t]))
    total = np.zeros_like(xs[0])
    for h in hs:
        total = total + h
    return total, hs[0], hs[-1]


def also_written_out(xs):
    out = np.zeros_like(xs)         # made before the loop, written in it, nothing appended shares it: allowed
    hs = []
    h = np.zeros(xs.shape[1])
    for t in range(xs.shape[0]):
        h = np.sqrt(np.abs(xs[t])) + h * 0.5
        out[t] = h
        hs.append(h)
    return np.stack(hs), out


def stacked_nothing(xs, n):
    hs = []
    for t in range(n):
        hs.append(xs[t] * 2)
    return np.stack(hs)


rng = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_time_loops_are_numpys(dtype):
    xs = rng.normal(size=(9, 5)).astype(dtype)
    w, u, b = (rng.normal(size=5).astype(dtype) for _ in range(3))
    assert_same(transpile(elman_rnn)(xs, w, u, b), elman_rnn(xs, w, u, b))
    assert_same(transpile(rnn_rows)(xs, w, u), rnn_rows(xs, w, u))
    assert_same(transpile(read_back)(xs), read_back(xs))
    assert_same(transpile(joined)(xs), joined(xs))
    assert_same(transpile(also_written_out)(xs), also_written_out(xs))


def test_lists_of_numbers_are_numpys():
    x = rng.normal(size=6)
    got, expected = transpile(loss_history)(x, 5, 0.1), loss_history(x, 5, 0.1)
    assert_same(got, expected)
    assert type(got[3]) is type(expected[3])      # a Python float times np.float32 is float32 (NEP 50)
    compiled = transpile(positives)
    for x in (rng.normal(size=12), -np.ones(4)):  # (an empty list: NumPy's float64 array of shape (0,))
        assert_same(compiled(x), positives(x))
        assert_same(transpile(indices_above)(x, 0.5), indices_above(x, 0.5))
    assert_same(transpile(two_per_step)(x), two_per_step(x))


def test_an_empty_list_raises_as_numpy_or_is_refused():
    xs = rng.normal(size=(4, 3))
    with pytest.raises(ValueError, match="need at least one array to stack"):
        stacked_nothing(xs, 0)
    with pytest.raises(ValueError, match="need at least one array to stack"):
        transpile(stacked_nothing)(xs, 0)
    assert_same(transpile(stacked_nothing)(xs, 3), stacked_nothing(xs, 3))
    x32 = -np.ones(4, np.float32)           # NumPy's np.array([]) is float64; the rows would be float32
    with pytest.raises(ValueError, match="empty"):
        transpile(positives)(x32)


def appended_then_written(xs):
    hs = []
    for t in range(xs.shape[0]):
        h = xs[t] * 2
        hs.append(h)
        h += 1                  # NumPy's list item is h: it changes too
    return np.stack(hs)


def written_after_the_loop(xs):
    hs = []
    h = xs[0]
    for t in range(xs.shape[0]):
        h = np.sin(xs[t])
        hs.append(h)
    h[0] = 10.0                 # the last item, in NumPy's list
    return np.stack(hs)


def written_after_the_loop_fresh(xs):
    hs = []
    h = np.zeros(xs.shape[1])
    for t in range(xs.shape[0]):
        h = np.sin(xs[t])
        hs.append(h)
    h[0] = 10.0
    return np.stack(hs)


def written_in_the_next_round(xs):
    hs = []
    h = np.zeros(xs.shape[1])
    for t in range(xs.shape[0]):
        h[0] = 5.0              # the array appended in the round before
        h = h * 2 + xs[t]
        hs.append(h)
    return np.stack(hs)


def one_buffer_appended(xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for t in range(xs.shape[0]):
        h[:] = xs[t]            # the same array every time: NumPy's rows are all the last one
        hs.append(h)
    return np.stack(hs)


def view_of_a_written_array(xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(xs[t])
        xs[t] = 0.0
    return np.stack(hs)


def returned_with_its_last_item(xs):
    hs = []
    h = np.zeros(xs.shape[1])
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] + h)
        hs.append(h)
    return hs, h                # NumPy: hs[-1] is h


@pytest.mark.parametrize("fn", [appended_then_written, written_after_the_loop, written_after_the_loop_fresh,
                                written_in_the_next_round, one_buffer_appended,
                                view_of_a_written_array, returned_with_its_last_item], ids=lambda f: f.__name__)
def test_where_a_copy_could_differ_from_numpys_item_it_is_refused(fn):
    with pytest.raises(CompileError):
        transpile(fn)(rng.normal(size=(4, 3)))


def mixed_types(x):
    items = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            items.append(x[i])
        else:
            items.append(1)
    return np.array(items)


def test_items_of_different_types_are_refused():
    with pytest.raises(CompileError, match="one type"):
        transpile(mixed_types)(rng.normal(size=5))


def held_twice(xs):
    hs = []
    also = hs                   # NumPy: `also` is the same list, with the items
    for t in range(xs.shape[0]):
        hs.append(xs[t] * 2)
    return np.stack(hs), len(also)


def appended_across_an_outer_loop(xs):
    hs = []
    for i in range(xs.shape[0]):
        for j in range(xs.shape[1]):
            hs.append(xs[i, j])     # the list grows over both loops: the inner loop alone does not own it
    return np.array(hs)


def built_per_row(xs):
    rows = []
    for i in range(xs.shape[0]):
        row = []                    # a list per round of the outer loop, appended to by the inner loop
        for j in range(xs.shape[1]):
            row.append(xs[i, j] * j)
        rows.append(np.array(row))
    return np.stack(rows)


def test_lists_the_loop_does_not_own_are_refused_or_exact():
    xs = rng.normal(size=(4, 3))
    with pytest.raises(CompileError, match="made before a run-time loop"):
        transpile(held_twice)(xs)
    assert_same(transpile(built_per_row)(xs), built_per_row(xs))


def runs_above(xs, t):
    """Nested loops appending to one list, a run-time `while` inside a `for`: the count is known only at run time."""
    found = []
    for i in range(xs.shape[0]):
        j = 0
        while j < xs.shape[1] and xs[i, j] > t:
            found.append(xs[i, j:j + 1] * i)
            j += 1
    return np.concatenate(found), len(found)


def test_appends_in_nested_loops_are_numpys():
    xs = rng.normal(size=(4, 3))
    assert_same(transpile(appended_across_an_outer_loop)(xs), appended_across_an_outer_loop(xs))
    assert_same(transpile(appended_across_an_outer_loop)(xs[:0]), appended_across_an_outer_loop(xs[:0]))   # (empty)
    compiled = transpile(runs_above)
    for t in (-0.5, -10.0):
        assert_same(compiled(xs, t), runs_above(xs, t))
    with pytest.raises(ValueError, match="need at least one array to concatenate"):     # none appended, as NumPy's
        compiled(xs, 10.0)


def written_in_the_inner_loop(xs):
    hs = []
    for i in range(xs.shape[0]):
        t = np.zeros(xs.shape[1])
        for j in range(xs.shape[1]):
            t[j] = xs[i, j]         # NumPy's list holds t itself, several times: every item its last contents
            hs.append(t)
    return np.stack(hs)


def written_after_the_inner_loop(xs):
    hs = []
    for i in range(xs.shape[0]):
        t = np.zeros(xs.shape[1])
        for j in range(xs.shape[1]):
            t = t + xs[i, j]
            hs.append(t)
        t[0] = 5.0                  # the last item the inner loop appended
    return np.stack(hs)


def written_outside_what_is_appended(xs):
    hs = []
    for i in range(xs.shape[0]):
        acc = np.zeros(xs.shape[1])
        for j in range(xs.shape[1]):
            acc[j] = xs[i, j] * 2   # (acc is appended after the inner loop, and never written after that)
        hs.append(acc)
    return np.stack(hs)


def test_writes_in_nested_loops_that_could_reach_an_item_are_refused():
    xs = rng.normal(size=(4, 3))
    for fn in (written_in_the_inner_loop, written_after_the_inner_loop):
        with pytest.raises(CompileError, match="appended to the list 'hs'") as e:
            transpile(fn)(xs)
        assert e.value.lineno in (fn.__code__.co_firstlineno + 5, fn.__code__.co_firstlineno + 7)
    assert_same(transpile(written_outside_what_is_appended)(xs), written_outside_what_is_appended(xs))


def newton_sqrt(a, x, tol):
    """Newton's iterations for sqrt(a) until they converge, with the error and the iterate of each step."""
    errors, iterates = [], []
    err = tol + 1.0
    while err > tol:
        new = x - (x * x - a) / (2 * x)
        err = float(np.max(np.abs(new - x)))
        x = new
        errors.append(err)
        iterates.append(x)
    return np.array(errors), np.stack(iterates), len(errors), errors[-1], iterates


def until_negative(x, n):
    out = []
    i = 0
    while i < n.shape[0]:
        if x[i] < 0:
            break
        out.append(x[i:i + 2] * 2)
        i += 1
    return np.stack(out), len(out)


def numbers_in_a_while(x, n):
    values, counts = [], []
    i = 0
    while i < n.shape[0]:
        values.append(float(x[i]))
        counts.append(i)
        i += 1
    return np.array(values), len(values), sum(counts), values, np.array(counts, dtype=np.int64)


def same_buffer_in_a_while(x, n):
    h = np.zeros(x.shape[0])
    hs = []
    i = 0
    while i < n.shape[0]:
        h[:] = x * i                # NumPy's rows are all the last contents
        hs.append(h)
        i += 1
    return np.stack(hs)


def test_while_loops_that_append_are_numpys():
    a = np.array([2.0, 3.0, 10.0])
    compiled = transpile(newton_sqrt)
    for x in (np.ones(3), np.sqrt(a)):          # several steps; one
        assert_same(compiled(a, x, 1e-12), newton_sqrt(a, x, 1e-12))
    x = np.array([1.0, 2.0, 3.0, -1.0, 4.0, 5.0])
    compiled = transpile(until_negative)
    for n in (2, 5):
        assert_same(compiled(x, np.zeros(n)), until_negative(x, np.zeros(n)))
    with pytest.raises(ValueError, match="need at least one array to stack"):   # none appended, as NumPy's
        compiled(x, np.zeros(0))
    compiled = transpile(numbers_in_a_while)
    for n in (0, 3, 6):                         # (0: NumPy's float64 array of shape (0,), an empty list, sum 0)
        assert_same(compiled(x, np.zeros(n)), numbers_in_a_while(x, np.zeros(n)))
    with pytest.raises(CompileError, match="appended to the list 'hs'") as e:
        transpile(same_buffer_in_a_while)(x, np.zeros(3))
    assert e.value.lineno == same_buffer_in_a_while.__code__.co_firstlineno + 5


def read_by_a_closure(xs):
    hs = []

    def so_far():
        return len(hs)          # NumPy: the items appended so far

    total = 0
    for t in range(xs.shape[0]):
        hs.append(xs[t])
        total += so_far()
    return total


def test_a_read_of_the_list_while_the_loop_builds_it_is_refused():
    with pytest.raises(CompileError, match="read while a run-time loop appends to it"):
        transpile(read_by_a_closure)(rng.normal(size=(4, 3)))


def returned_lists(xs, t):
    rows, numbers, scalars, zero_d = [], [], [], []
    for i in range(xs.shape[0]):
        if xs[i, 0] > t:
            rows.append(xs[i] * 2)
            numbers.append(float(xs[i, 1]))
            scalars.append(xs[i, 2])
            zero_d.append(np.asarray(xs[i, 0]))
    return rows, (numbers, scalars), {"zero_d": zero_d}


def test_returned_lists_are_numpys():
    xs = rng.normal(size=(7, 3))
    compiled = transpile(returned_lists)
    for t in (0.0, 10.0):           # (some items; none)
        got, expected = compiled(xs, t), returned_lists(xs, t)
        assert_same(got, expected)
        assert [type(v) for v in got[1][0]] == [type(v) for v in expected[1][0]]      # Python floats
        assert all(type(a) is type(b) and np.shape(a) == np.shape(b) for a, b in zip(got[2]["zero_d"],
                                                                                       expected[2]["zero_d"]))


class LSTMCell:
    """An LSTM cell as class-based NumPy code writes it (gates sliced from one product)."""

    def __init__(self, wx, wh, b):
        self.wx, self.wh, self.b = wx, wh, b

    def __call__(self, x, h, c):
        z = x @ self.wx + h @ self.wh + self.b
        n = self.wh.shape[0]
        i = 1 / (1 + np.exp(-z[..., :n]))
        f = 1 / (1 + np.exp(-z[..., n:2 * n]))
        o = 1 / (1 + np.exp(-z[..., 2 * n:3 * n]))
        g = np.tanh(z[..., 3 * n:])
        c = f * c + i * g
        return o * np.tanh(c), c


def lstm(cell, xs, h, c):
    outputs = []
    for t in range(xs.shape[0]):
        h, c = cell(xs[t], h, c)
        outputs.append(h)
    return np.stack(outputs), h, c


def shrinking(x):
    parts = []
    for t in range(x.shape[0] // 2):
        x = x[1:] * 0.5             # one element fewer each round: NumPy's items differ in size
        parts.append(x)
    return len(parts)


def halved_in_order(x, steps):
    """Items of a size computed in the loop that stays the same (a selection's, sorted and reversed each round)."""
    h = x[x > 0]
    hs = []
    for _ in range(steps.shape[0]):
        h = np.sort(h)[::-1] * 0.5
        hs.append(h)
    return np.stack(hs), np.array(hs), hs[-1]


def test_an_lstm_over_time_is_numpys():
    n = 4
    cell = LSTMCell(rng.normal(size=(3, 4 * n)), rng.normal(size=(n, 4 * n)), rng.normal(size=4 * n))
    args = (cell, rng.normal(size=(6, 3)), np.zeros(n), np.zeros(n))
    assert_same(transpile(lstm)(*args), lstm(*args))


def test_items_of_a_size_computed_in_the_loop_are_numpys_while_it_does_not_change():
    x = rng.normal(size=9)
    compiled = transpile(halved_in_order)
    for n in (1, 2, 5):     # (its first round makes the rows, a loop of its own: the other rounds, none for n = 1)
        assert_same(compiled(x, np.zeros(n)), halved_in_order(x, np.zeros(n)))
    with pytest.raises(ValueError, match="need at least one array to stack"):
        compiled(x, np.zeros(0))
    with pytest.raises(ValueError, match="differ in shape"):      # NumPy's list holds items of 7, 6, 5 ... elements
        transpile(shrinking)(rng.normal(size=8))


def concatenated_with_another(xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(xs[t])
    return np.concatenate([hs, xs])


def test_a_list_inside_another_argument_is_refused():
    with pytest.raises(CompileError, match="built by appends in a run-time loop"):
        transpile(concatenated_with_another)(rng.normal(size=(3, 2)))


def squares(n):
    out = []
    for i in range(n):
        out.append(i ** 2)      # a Python int's power in a run-time loop
    return np.array(out)


def test_python_ints_appended_are_numpys():
    assert_same(transpile(squares)(6), squares(6))
    with pytest.raises(ValueError, match="empty"):      # NumPy's np.array([]) is float64; the rows are int64
        transpile(squares)(0)


def loss_history_in_python(x, steps, lr):
    """A training loop's history of losses as Python floats, then Python's own reductions of it."""
    losses = []
    for _ in range(steps.shape[0]):
        losses.append(float(np.sum(x * x)))
        x = x - lr * 2 * x
    return sum(losses), min(losses), max(losses), losses[-1], np.array(losses), sum(losses, 0.5)


def counts_and_scalars(x, t):
    counts, values = [], []
    for i in range(x.shape[0]):
        if x[i] > t:
            counts.append(i)            # Python ints
            values.append(x[i])         # NumPy scalars
    return sum(counts), len(counts), sum(values)


def counts_only(x, t):
    counts = []
    for i in range(x.shape[0]):
        if x[i] > t:
            counts.append(i)
    return sum(counts), len(counts)


def with_nans(x):
    seen = []
    for i in range(x.shape[0]):
        seen.append(float(x[i]))
    return min(seen), max(seen)         # Python's: by `<`, a NaN first stays, a later one is skipped


def test_python_reductions_of_appended_numbers_are_pythons():
    x = rng.normal(size=5)
    compiled = transpile(loss_history_in_python)
    for n in (1, 6):
        assert_same(compiled(x, np.zeros(n), 0.1), loss_history_in_python(x, np.zeros(n), 0.1))
    compiled = transpile(counts_and_scalars)
    assert_same(compiled(x, 0.0), counts_and_scalars(x, 0.0))
    with pytest.raises(ValueError, match="when it is empty"):     # Python's sum([]) of NumPy scalars is the int 0
        compiled(x, 10.0)
    assert_same(transpile(counts_only)(x, 10.0), counts_only(x, 10.0))      # sum([]) of ints: the int 0
    compiled = transpile(with_nans)
    for v in ([np.nan, 1.0, -2.0], [1.0, np.nan, -2.0]):
        assert_same(compiled(np.array(v)), with_nans(np.array(v)))
    with pytest.raises(ValueError, match=r"min\(\) arg is an empty sequence"):
        compiled(np.zeros(0))


def trajectory(x0, steps):
    """The list starts with the initial state: NumPy's list holds x0 itself."""
    xs = [x0]
    x = x0
    for _ in range(steps.shape[0]):
        x = x * 0.9 + 1.0
        xs.append(x)
    return np.stack(xs), len(xs)


def newton_from_inf(a, x):
    """The condition is True while compiling the first round (err = inf): that round's append happens then, and the
    list the run-time loop appends to holds one item already."""
    errors = []
    err = np.inf
    while err > 1e-12:
        new = x - (x * x - a) / (2 * x)
        err = float(np.max(np.abs(new - x)))
        x = new
        errors.append(err)
    return np.array(errors), x


def start_written_after(x0, steps):
    xs = [x0]
    x = x0 * 1.0
    for _ in range(steps.shape[0]):
        x = x * 0.5
        xs.append(x)
    x0[0] = 7.0                 # NumPy's xs[0] is x0: it changes too
    return np.stack(xs)


def test_a_list_with_items_before_the_loop_is_numpys():
    x0 = rng.normal(size=3)
    compiled = transpile(trajectory)
    for n in (0, 4):
        assert_same(compiled(x0, np.zeros(n)), trajectory(x0, np.zeros(n)))
    a = np.array([2.0, 3.0, 10.0])
    assert_same(transpile(newton_from_inf)(a, np.ones(3)), newton_from_inf(a, np.ones(3)))
    with pytest.raises(CompileError, match="appended to the list 'xs'") as e:
        transpile(start_written_after)(x0.copy(), np.zeros(2))
    assert e.value.lineno == start_written_after.__code__.co_firstlineno + 6


def items_as_int8(x):
    out = []
    for v in x:
        out.append(v if v != 7 else float(v))   # NumPy scalars, and a Python float where v is 7
    return np.array(out, dtype=np.int8)


def test_np_array_of_appended_items_with_an_int_dtype_converts_each_as_numpy():
    """np.array(items, dtype=np.int8) converts each item through a Python int, as a store does: a float64 item
    300.0 is NumPy's OverflowError, a NaN its ValueError, the first bad item deciding; other items as a cast. The
    stacked items were cast: 300.0 became 44, NaN 0."""
    compiled = transpile(items_as_int8)
    for values in ([1.0, 2.5, -128.9], [], [1.0, 300.0, np.nan], [1.0, np.nan, 300.0], [7.0, 1e10]):
        x = np.array(values)
        try:
            want = items_as_int8(x)
        except (OverflowError, ValueError) as error:
            with pytest.raises(type(error)):
                compiled(x)
        else:
            assert_same(compiled(x), want)
