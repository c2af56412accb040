"""Run-time sizes a concatenation or a broadcast makes equal to a constant or to another size while compiling.

The compiler unifies them (shapes.ShapeEnv.unify) and checks the equality before each call; later statements are
compiled with the unified size. What follows from it must hold only where the check does: a compile-time error
derived from it is raised only for sizes that fit it, and a failed check leaves the arguments as NumPy's run does
(the writes before the statement that needed the sizes done)."""
import numpy as np
import pytest

from helpers import assert_same, assert_same_effects, check, raises_like_numpy
from transpiler import CompileError, transpile


def column_after_concatenate(m):
    np.concatenate((m, np.zeros((2, 3))))    # m.shape[1] == 3, or NumPy's ValueError here
    return m[:, 3]


def test_an_error_that_follows_from_an_assumed_size_is_raised_only_where_the_size_holds():
    """With m.shape[1] unified with 3, `m[:, 3]` is out of range while compiling; for 4 columns NumPy fails at the
    concatenation with a ValueError (it was the IndexError of `m[:, 3]`, for every size)."""
    raises_like_numpy(column_after_concatenate, np.ones((2, 4)))
    compiled = transpile(column_after_concatenate)
    for columns, kind in [(3, IndexError), (4, ValueError), (5, ValueError), (3, IndexError)]:
        with pytest.raises(kind) as info:
            compiled(np.ones((2, columns)))
        assert isinstance(info.value, CompileError) == (kind is IndexError), columns
    assert compiled.compilations == 1


def column_after_a_branch(m, c):
    if c[0] > 0:
        np.concatenate((m, np.zeros((2, 3))))   # needs m.shape[1] == 3 only where the branch is taken
    return m[:, 3]


def test_a_size_assumed_on_a_path_not_taken_does_not_make_an_error():
    """The branch NumPy does not take needs nothing: its value (it was a compile-time IndexError)."""
    m = np.arange(8.0).reshape(2, 4)
    check(column_after_a_branch, m, np.zeros(1))
    raises_like_numpy(column_after_a_branch, m, np.ones(1))
    with pytest.raises(IndexError):
        transpile(column_after_a_branch)(np.ones((2, 3)), np.zeros(1))


def written_then_added(x, y, out):
    out[0] = 1.0
    return x + y


def test_a_failed_size_check_leaves_the_writes_numpy_made_before_it():
    """NumPy writes `out[0]` before its ValueError; the check before the call raised it with `out` untouched. The
    call runs as NumPy instead, from the caller's arguments (nothing has run yet)."""
    compiled = transpile(written_then_added)
    assert_same_effects(written_then_added, compiled, np.ones(3), np.ones(4), np.zeros(2), raises=ValueError)
    out = np.zeros(2)
    assert_same(compiled(np.ones(3), np.ones(3), out), np.full(3, 2.0))
    assert_same(out, np.array([1.0, 0.0]))


def written_then_stacked(m, out):
    out[0] = 1.0
    np.dstack((m[0], 1.0))      # m.shape[1] == 1, which an argument's run-time dim never is: NumPy's ValueError
    return np.hsplit(m, 2)[0]   # (an equal division of 1 column, while compiling)


def test_a_size_no_argument_can_have_is_numpys_error_at_its_statement():
    """The dstack unifies a run-time dim with 1 (dims of 1 are specialized: a run-time one is never 1), and the
    split of that 1 column failed while compiling, before `out[0]` was written; NumPy writes it and fails at the
    dstack."""
    assert_same_effects(written_then_stacked, transpile(written_then_stacked), np.ones((2, 4)), np.zeros(2),
                        raises=ValueError)
