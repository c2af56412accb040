"""Math on a value that is the same for every element of a loop (a 0-d operand that fusion pulled into the loop:
`x * y ** -1.5` of a scalar y, `x * np.sum(x * x) ** -1.5`) is computed once before the loop
(backend/uniform_math.py). Its expansion inside the loop cost LLVM's vectorizer seconds of compile time."""
import numpy as np
import pytest
from mlir import ir

from helpers import check
from transpiler import emit
from transpiler.backend import pipeline, uniform_math
from transpiler.driver import new_context


def scaled_power(x, y):
    return x * y ** -1.5


def normalized(x):
    return x * np.sum(x * x) ** -1.5


def several(x, s):
    t = np.tanh(s) + np.log(s * s + 1.0)
    return x * t - np.exp(s) + np.sqrt(s) * x


def in_place_by_own_element(x):
    x[:] = x * x[0] ** -1.5      # x[0] ** -1.5 is computed before x[0] is overwritten, as NumPy does
    return x


def in_a_loop(x, steps):
    for _ in range(steps):
        x = x * (np.sum(np.abs(x)) + 1.0) ** -0.5
    return x


def _hoisted(fn, *args) -> tuple:
    """(ops hoisted, math ops left in linalg.generic bodies) for fn's kernel, up to where vector_math expands."""
    text = emit(fn, *args, stage="optimized")
    with new_context() as ctx:
        module = ir.Module.parse(text, ctx)
        pipeline.run(module, pipeline.pipeline_text(pipeline.ONE_SHOT + pipeline.DEALLOCATE + pipeline.TO_MEMREF))
        with ctx, ir.Location.unknown():
            moved = uniform_math.hoist(module)
        left = []

        def visit(op):
            if op.name.startswith("math.") and op.parent.name == "linalg.generic":
                left.append(op.name)
            return ir.WalkResult.ADVANCE
        module.operation.walk(visit)
    return moved, left


def test_math_of_a_zero_d_operand_leaves_the_loop():
    x = np.random.default_rng(0).random(100)
    moved, left = _hoisted(scaled_power, x, np.float64(2.0))
    assert moved >= 1 and "math.powf" not in left
    moved, left = _hoisted(normalized, x)
    assert moved >= 1 and "math.powf" not in left
    moved, left = _hoisted(several, x, np.float64(0.5))
    assert moved >= 4 and left == []


def test_elementwise_math_stays_in_the_loop():
    x = np.random.default_rng(1).random(100)
    moved, left = _hoisted(lambda x: np.exp(x) * 2.0, x)
    assert moved == 0 and left == ["math.exp"]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hoisted_math_matches_numpy(dtype):
    r = np.random.default_rng(2)
    x = (r.random(257) + 0.5).astype(dtype)
    for y in (2.0, dtype(3.5), np.array(0.25, dtype), dtype(0.0), dtype(-1.0), dtype(np.inf), np.float64(-0.0)):
        check(scaled_power, x, y, rtol=4 * np.finfo(dtype).eps)
    check(normalized, x, rtol=4 * np.finfo(dtype).eps)
    check(several, x, 0.75, rtol=8 * np.finfo(dtype).eps)
    check(several, x, dtype(0.75), rtol=8 * np.finfo(dtype).eps)
    check(in_place_by_own_element, x.copy(), rtol=4 * np.finfo(dtype).eps)
    for steps in (0, 1, 5):
        check(in_a_loop, x, steps, rtol=16 * np.finfo(dtype).eps)
