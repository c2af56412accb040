"""The public API: decorator forms, argument binding, caching, thread safety, emit stages."""
import subprocess
import sys
import threading

import numpy as np
import pytest

import transpiler
from helpers import assert_same, tolerance
from transpiler import emit, transpile


@transpile
def scale(x, factor=2, *, shift=0.5):
    return x * factor + shift


def test_decorator_forms_and_py_func():
    x = np.arange(6, dtype=np.float32)
    assert_same(scale(x), scale.py_func(x))
    assert_same(scale(x, 3, shift=1.5), scale.py_func(x, 3, shift=1.5))
    assert_same(scale(x, factor=4), scale.py_func(x, factor=4))

    @transpile(static_shapes=True)
    def f(x):
        return -x
    assert_same(f(x), -x)
    g = transpile(lambda x: x + 1)
    assert_same(g(x), x + 1)
    assert transpile(g) is g
    assert scale.__name__ == "scale" and scale.py_func.__name__ == "scale"


def test_wrong_arguments_raise_type_error():
    with pytest.raises(TypeError):
        scale()
    with pytest.raises(TypeError):
        scale(np.ones(3), 1, 2, 3)
    with pytest.raises(TypeError):
        scale(np.ones(3), nope=1)
    with pytest.raises(TypeError):
        scale(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        scale(np.array([object()]))


def test_compiles_once_per_signature():
    f = transpile(lambda x: x * 2)
    for n in (3, 10, 100):
        f(np.ones(n, np.float32))
    assert f.compilations == 1           # run-time sizes do not recompile
    f(np.ones((2, 3), np.float32))
    f(np.ones(3, np.float64))
    f(np.ones(1, np.float32))             # a size-1 dim broadcasts differently: its own specialization
    assert f.compilations == 4


def test_thread_safe_compile_and_call():
    f = transpile(lambda x, y: np.tanh(x) * y)
    errors = []
    rng = np.random.default_rng(0)

    def work(i):
        try:
            dt = [np.float32, np.float64][i % 2]
            for _ in range(20):
                x = rng.standard_normal(17 + i).astype(dt)
                np.testing.assert_allclose(f(x, 2.0), np.tanh(x) * 2.0, rtol=tolerance(dt), atol=tolerance(dt))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert f.compilations <= 2 * 8 and len(f._cache) == 2 * 8 or f.compilations == len(f._cache)


def test_results_are_owned_and_independent():
    f = transpile(lambda x: (x + 1, x * 2, x))
    x = np.arange(4.0)
    a, b, c = f(x)
    assert a.flags.owndata is False or a.base is not None
    a[0] = 100
    assert b[0] == 0 and x[0] == 0
    assert c is x                         # returning an argument returns that very object, as NumPy does
    del a, b


def test_returns_structures_and_constants():
    def f(x):
        return {"y": x + 1, "n": 3, "pair": (x * 2, None)}
    x = np.arange(3, dtype=np.int32)
    assert_same(transpile(f)(x), f(x))


@pytest.mark.parametrize("stage", ["typed", "mlir", "optimized", "llvm"])
def test_emit_stages(stage):
    def gelu(x):
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    text = emit(gelu, np.ones((2, 3), np.float32), stage=stage)
    if stage == "typed":
        assert "tanh" in text and "float64" in text and "test_api.py:" in text
    elif stage == "mlir":
        assert "linalg.generic" in text and "math.tanh" in text and "arith.extf" in text
        assert text.count("linalg.generic") > 3
    elif stage == "optimized":
        assert text.count("linalg.generic") == 1   # the whole elementwise chain fused
    else:
        assert "llvm.func" in text and "linalg" not in text


def test_emit_rejects_unknown_stage():
    with pytest.raises(ValueError):
        emit(lambda x: x, np.ones(2), stage="asm")


def test_primitives_are_numpy_ufuncs():
    for name in transpiler.primitives.__all__:
        assert getattr(transpiler, name) is getattr(np, name)


def test_functions_from_other_modules_and_closures():
    import math_helpers
    k = 3.0

    def f(x):
        return math_helpers.softplus(x) * k + math_helpers.OFFSET
    x = np.linspace(-3, 3, 9)
    assert_same(transpile(f)(x), f(x))


def test_nested_and_indented_functions():
    class Holder:
        @staticmethod
        def make():
            def inner(x):
                def helper(v):
                    return v * v
                return helper(x) + 1
            return inner
    inner = Holder.make()
    assert_same(transpile(inner)(np.arange(4.0)), inner(np.arange(4.0)))


def test_numpy_aliases_resolve():
    import numpy
    import numpy as xp

    def f(x):
        return xp.exp(x) + numpy.sqrt(x)
    x = np.arange(1.0, 5.0)
    assert_same(transpile(f)(x), f(x))


# several lambdas on one line: each compiles its own source (told apart by its instructions' source positions)
plus_one = lambda x: x + 1; times_two = lambda x: x * 2   # noqa: E702, E731
as_pair = (transpile(lambda x: x - 1), transpile(lambda x: x * 3))
in_a_list = [lambda x: x / 2, lambda x: x ** 2, lambda y, z=4: y + z]
make_scaler = lambda k: lambda x: x * k   # noqa: E731  (the outer's code only makes the inner function)
called_inside = lambda x: (lambda y: y * 5)(x) + 1   # noqa: E731
inner_of_the_same_name = (lambda x: (lambda x: x * 7))(None)


@transpile
def apply(fn, x):
    return fn(x)


def test_lambdas_on_one_line_compile_their_own_source():
    """Two lambdas on one line, a tuple or list of them, a lambda returning a lambda (the inner one compiled the
    outer's source: 'cannot return a value of type Closure'), each compiled directly and passed to a compiled
    helper, against NumPy."""
    x = np.arange(-3.0, 4.0)
    functions = [plus_one, times_two, *(f.py_func for f in as_pair), *in_a_list, make_scaler(3), make_scaler(-2),
                 called_inside, inner_of_the_same_name]
    for fn in functions:
        assert_same(transpile(fn)(x), fn(x))
        assert_same(apply(fn, x), fn(x))
    for f in as_pair:
        assert_same(f(x), f.py_func(x))
    assert_same(apply(lambda x: x + 10, x), x + 10); assert_same(apply(lambda x: x * 10, x), x * 10)  # noqa: E702


LAMBDAS_ON_ONE_LINE = """
import numpy as np
from transpiler import CompileError, transpile
first = lambda x: x + 1; second = lambda x: x * 2
alone = lambda x: x - 1
x = np.arange(3.0)
print(transpile(alone)(x).tolist())
for fn in (first, second):
    try:
        print(transpile(fn)(x).tolist())
    except CompileError as e:
        print(type(e).__name__, str(e).splitlines()[0])
"""


def test_lambdas_on_one_line_without_source_positions_are_refused(tmp_path):
    """Without source positions (python -X no_debug_ranges) two lambdas on one line cannot be told apart: a
    CompileError naming the line, never the other one's source (the second one compiled `x + 1`); a lambda on a line
    of its own still compiles."""
    script = tmp_path / "two_lambdas.py"
    script.write_text(LAMBDAS_ON_ONE_LINE)
    out = subprocess.run([sys.executable, "-X", "no_debug_ranges", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[-1.0, 0.0, 1.0]"
    for line in lines[1:]:
        assert line.startswith("CompileTypeError") and "cannot tell which of the 2 definitions on line 4" in line, line
    assert len(lines) == 3
