"""Long functions whose statements each follow a check that may fail: past control.MAX_GUARDS guarded statements,
each write keeps the array's old contents when a check before it failed (frontend/kept_writes.py), so the caller's
arrays after the exception are NumPy's at any length. Checked against NumPy on the argument after the call."""

import numpy as np
import pytest

from helpers import assert_same_effects, load_function
from transpiler import transpile
from transpiler.frontend.control import MAX_GUARDS

# one statement of each kind of write, cycled; each reads y[i + k], out of range from k = len(y) - i on
_KINDS = [
    "x[{a}] = y[i + {k}] + {k}.0",                   # one element (update_slice)
    "x[1:4] = x[2:5] * 0.5 + y[i + {k}]",            # a slice, from the array itself
    "x[2:6] += y[i + {k}]",                          # an augmented view
    "x[[0, 3, 0]] = y[i + {k}] - {k}.0",             # integer ids (scatter)
    "x[x > 40.0] = y[i + {k}] * 0.25",               # a mask
    "v = x[4:7]\n    v[1] = y[i + {k}] * 2.0",       # through a view
    "x[j] = y[i + {k}] + 1.0",                       # a run-time index: its own check may fail
]


def _module(tmp_path, name: str, n: int, kinds=_KINDS):
    lines = ["import numpy as np", "", "def f(x, y, i, j):"]
    lines += ["    " + kinds[k % len(kinds)].format(k=k, a=k % 7) for k in range(n)]
    lines += ["    return x"]
    path = tmp_path / f"{name}.py"
    path.write_text("\n".join(lines) + "\n")
    return load_function(path)


def _compare(f, compiled, y, calls):
    for i, j in calls:
        assert_same_effects(f, compiled, np.arange(7.0), y, i, j)


@pytest.mark.slow
def test_writes_past_the_guard_limit_stop_at_a_failed_check(tmp_path):
    """91 statements (MAX_GUARDS = 64): a check failing before the limit, at it, past it, or the write's own
    index past it; every kind of write after it leaves the argument as NumPy left it. (Before kept_writes.py the
    statements past the 64th wrote `x` after the failure.)"""
    n = 91
    assert n > MAX_GUARDS + 20
    f = _module(tmp_path, "long_kinds", n)
    compiled = transpile(f)
    y = np.arange(100.0) / 7.0
    # y[i + k] fails from statement k = 100 - i on: i = 0 never, 40 at 60 (before the limit), 30 at 70 (past it),
    # 12 at 88; j = 9 fails at the first `x[j] = ...` (statement 6), j = -8 too, j = 2 never
    _compare(f, compiled, y, [(0, 2), (40, 2), (36, 2), (30, 2), (12, 2), (0, 9), (30, -8), (0, -7)])


def test_a_failed_check_in_the_last_statements_of_a_long_function(tmp_path):
    """The write's own index out of range past the limit (x[j + 1] from statement 70 on) writes nothing, nor does
    any statement after it."""
    kinds = ["x[{a}] = y[i + {k}] + {k}.0"] * 6 + ["x[j + {k} // 70] = {k}.0"]
    f = _module(tmp_path, "long_own_index", 84, kinds)
    compiled = transpile(f)
    y = np.arange(100.0)
    # j = 6: x[7] at statement 76 fails (past the limit, 7 statements after it); j = 7 or -8: statement 6;
    # j = 5, -7: never; i = 25: y[i + k] at statement 75
    _compare(f, compiled, y, [(0, 6), (0, 7), (0, -8), (0, 5), (0, -7), (25, 5), (25, 6)])


@pytest.mark.slow
def test_whole_array_writes_past_the_limit(tmp_path):
    """out=, np.copyto, an augmented column and sort past the 64th guarded statement (each kept by a select of the
    whole new contents, or of its region), on a 2-d array with a non-contiguous column order."""
    kinds = ["np.add(x, y[i + {k}], out=x)", "x[:, 1] *= y[i + {k}]", "np.copyto(x[1:], y[i + {k}] - 1.0)",
             "x.sort(axis=1)\n    x[0, 0] += y[i + {k}]"]
    lines = ["import numpy as np", "", "def f(x, y, i):"]
    lines += [f"    x[{k % 3}, {k % 4}] = y[i + {k}] + {k}.0" for k in range(66)]
    lines += ["    " + kinds[k % 4].format(k=k) for k in range(66, 74)] + ["    return x"]
    path = tmp_path / "long_whole.py"
    path.write_text("\n".join(lines) + "\n")
    f = load_function(path)
    compiled = transpile(f)
    y = np.linspace(0.5, 2.0, 80)
    # y[i + k] fails from k = 80 - i on: i = 14 at the out= (66), 10 at copyto (70), 8 at the sort (72), 7 at the
    # += after it (73)
    for i in (0, 14, 10, 8, 7, 5):
        assert_same_effects(f, compiled, np.arange(12.0).reshape(3, 4)[:, ::-1].copy(), y, i)


@pytest.mark.slow
def test_writes_past_150_guarded_statements_stop_at_a_failed_check(tmp_path):
    """160 statements: failures before the limit, past it and near the end."""
    f = _module(tmp_path, "long_160", 160)
    compiled = transpile(f)
    y = np.arange(170.0) / 7.0
    _compare(f, compiled, y, [(0, 2), (120, 2), (100, 2), (20, 2), (12, 2), (0, 9)])
