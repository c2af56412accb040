"""Run-time sizes a concatenation or a broadcast makes equal to a constant or to another size while compiling.

The compiler unifies them (shapes.ShapeEnv.unify) and checks the equality before each call; later statements are
compiled with the unified size. What follows from it must hold only where the check does: a compile-time error
derived from it is raised only for sizes that fit it, and a failed check leaves the arguments as NumPy's run does
(the writes before the statement that needed the sizes done)."""
import numpy as np

from helpers import assert_same, assert_same_effects
from transpiler import transpile


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
