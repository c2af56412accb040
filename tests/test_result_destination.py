"""The returned array as a destination the call allocates (transpiler/result_destination.py, runtime/call.py's
`into_destination`): a function returning one array computed elementwise gets it from `np.empty` at each call, and
its kernel writes into it. Each answer is compared with NumPy's, on the quick path and the full path; each result is
a fresh array of its own, and the programs the destination does not apply to return as before."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.program import RESULT_DESTINATION


def assert_same(actual, expected):
    assert type(actual) is type(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def add_one(x):
    return x + 1


def scaled_sum(x, y, a):
    return a * x + y


def outer_sum(x, y):
    return x[:, None] + y


def compare(x, y):
    return x < y


def mixed(x, n):
    return x * 0.5 + n


def differences(x):
    return x[1:] - x[:-1]


def every_other(x):
    return x[::2] * 3


def joined(x, y):
    return np.concatenate([x, y]) + 1


def flat(x):
    return x.reshape(-1, 2) * 2


SHAPES = [(), (0,), (1,), (7,), (3, 0), (1, 4), (4, 1), (2, 3), (2, 1, 3), (2, 0, 3, 1)]
DTYPES = [np.float32, np.float64, np.int8, np.int64, np.uint16, np.bool_, np.complex128]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_elementwise_results_are_numpy_s_on_both_paths(shape, dtype):
    f, g = transpile(add_one), transpile(compare)
    rng = np.random.default_rng(1)
    for _ in range(3):    # the first call takes the full path, the next ones the quick one
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        y = (rng.standard_normal(shape) * 10).astype(dtype)
        assert_same(f(x), add_one(x))
        assert_same(g(x, y), compare(x, y))
    assert f.compilations == 1 and g.compilations == 1


def test_the_kernel_writes_into_the_destination_and_allocates_nothing():
    """Regression: the kernel allocated the result and the call adopted its buffer (about 2 us of a call)."""
    x = np.arange(10.0)
    f = transpile(add_one)
    assert f"{RESULT_DESTINATION}: float64[x.shape[0]]" in f.emit(x, stage="typed")
    llvm = f.emit(x, stage="llvm")
    assert "@transpiler_malloc" not in llvm and "memcpy" not in llvm and "memrefCopy" not in llvm
    g = transpile(scaled_sum)
    llvm = g.emit(x, x, 2.5, stage="llvm")
    assert "@transpiler_malloc" not in llvm and "memcpy" not in llvm and "memrefCopy" not in llvm


@pytest.mark.parametrize("fn, args", [
    (scaled_sum, (np.arange(6.0), np.ones(6), 2.5)),
    (scaled_sum, (np.arange(6, dtype=np.float32), np.ones(6, np.float32), -1.5)),
    (outer_sum, (np.arange(3.0), np.arange(4.0))),
    (outer_sum, (np.arange(0.0), np.arange(4.0))),
    (mixed, (np.arange(5, dtype=np.int32), 3)),
    (mixed, (np.arange(5, dtype=np.int32), -2**40)),
    (differences, (np.arange(6.0) ** 2,)),
    (differences, (np.arange(1.0),)),
    (differences, (np.arange(0.0),)),
    (every_other, (np.arange(7),)),
    (every_other, (np.arange(0),)),
    (joined, (np.arange(3.0), np.ones(2))),
    (flat, (np.arange(8.0),)),
])
def test_shapes_computed_from_the_arguments_give_numpy_s_answer(fn, args):
    """The destination's shape is evaluated before the call from the arguments' shapes: broadcasts of two
    arguments, slices, concatenations, reshapes."""
    f = transpile(fn)
    for _ in range(3):
        assert_same(f(*args), fn(*args))


def test_each_call_returns_a_fresh_array_of_its_own():
    f = transpile(scaled_sum)
    x, y = np.arange(5.0), np.ones(5)
    first = f(x, y, 2.0)
    second = f(x, y, 3.0)
    for r in (first, second):
        assert r.flags.owndata and r.base is None and r.flags.writeable and r.flags.c_contiguous
        assert not np.shares_memory(r, x) and not np.shares_memory(r, y)
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, scaled_sum(x, y, 2.0))    # the second call did not write into it
    first[:] = -1
    np.testing.assert_array_equal(f(x, y, 2.0), scaled_sum(x, y, 2.0))
    np.testing.assert_array_equal(second, scaled_sum(x, y, 3.0))


def test_arguments_and_views_of_them_are_still_returned_as_themselves():
    """Programs the destination does not apply to: an argument, a view of one, one written in place, a reduction, a
    tuple of arrays, a size known only in the kernel."""
    def itself(x):
        return x

    def view(x):
        return x[1:]

    def in_place(x):
        x += 1
        return x

    def total(x):
        return x.sum(axis=0)

    def both(x):
        return x + 1, x * 2

    def positives(x):
        return x[x > 0] + 1

    x = np.arange(-2.0, 4.0)
    fs = [transpile(fn) for fn in (itself, view, in_place, total, both, positives)]
    for _ in range(2):
        assert fs[0](x) is x
        v = fs[1](x)
        assert v.base is x or np.shares_memory(v, x)
        assert_same(v, x[1:])
        a = x.copy()
        assert fs[2](a) is a
        np.testing.assert_array_equal(a, in_place(x.copy()))
        assert_same(fs[3](x.reshape(2, 3)), total(x.reshape(2, 3)))
        r1, r2 = fs[4](x)
        assert_same(r1, x + 1) and assert_same(r2, x * 2)
        assert not np.shares_memory(r1, r2)
        assert_same(fs[5](x), positives(x))


def test_errors_are_raised_as_before():
    f, g = transpile(scaled_sum), transpile(outer_sum)
    x = np.arange(4.0)
    f(x, x + 1, 2.0)
    for _ in range(2):
        with pytest.raises(ValueError, match="could not be broadcast"):
            f(x, np.ones(5), 2.0)
    huge = np.ones(2**20)
    with pytest.raises(MemoryError):     # 8 TiB: NumPy's own error, and nothing allocated
        outer_sum(huge, huge)
    for _ in range(2):
        with pytest.raises(MemoryError):
            g(huge, huge)
    assert_same(g(x, x), outer_sum(x, x))


def test_floating_point_events_still_run_the_call_as_numpy(monkeypatch):
    """With NumPy's warnings on (errstate.WARNINGS), an event the kernel reports runs the function again as NumPy,
    which warns; np.errstate(all="raise") makes NumPy raise."""
    from transpiler.runtime import errstate
    monkeypatch.setattr(errstate, "WARNINGS", True)

    def inverse(x):
        return 1.0 / x

    f = transpile(inverse)
    x = np.array([1.0, 2.0, 4.0])
    for _ in range(2):
        assert_same(f(x), inverse(x))
    with np.errstate(all="warn"), pytest.warns(RuntimeWarning, match="divide by zero"):   # (conftest: "ignore")
        r = f(np.array([1.0, 0.0]))
    np.testing.assert_array_equal(r, [1.0, np.inf])
    assert f.replays == 1
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(np.array([0.0]))


BIG_TABLE = np.arange(40_000.0)     # a module-level array too big to fold in: a kernel input at every call


def write_and_return(out, x):
    out[...] = x * 2
    return x + 1


def outer_then_add(x, y):
    return (x[:, None] * y).sum(axis=1) + x


def plus_table(x):
    return x + BIG_TABLE[:x.shape[0]]


def test_destinations_beside_written_arguments_allocation_checks_and_module_arrays():
    """The general per-call path (runtime/call.runner's run) with a destination: an argument written in place, an
    intermediate array whose size is checked before the call, a module-level array passed as an input."""
    f, g, h = transpile(write_and_return), transpile(outer_then_add), transpile(plus_table)
    for n in (0, 1, 5):
        x = np.arange(float(n))
        for _ in range(2):
            out, expected_out = np.zeros(n), np.zeros(n)
            result = f(out, x)
            assert_same(result, write_and_return(expected_out, x))
            assert_same(out, expected_out)
            assert not np.shares_memory(result, out)
            assert_same(g(x, x + 1), outer_then_add(x, x + 1))
            assert_same(h(x), plus_table(x))


DESTINATION_KERNELS = """
func.func @marked(%a: memref<4xf64>, %out: memref<4xf64>) attributes {transpiler.result_destination = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %view = memref.subview %out[0] [2] [1] : memref<4xf64> to memref<2xf64, strided<[1]>>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf64>
    memref.store %x, %out[%i] : memref<4xf64>
  }
  return
}
func.func @unmarked(%a: memref<4xf64>, %out: memref<4xf64>) {
  return
}
"""


def test_only_the_marked_argument_of_its_function_is_the_destination():
    """written_arguments.is_result_destination, what loops._fusable and vector_loops rely on (no other argument
    views it): the function's argument its DESTINATION_ATTR names; not another argument, a view of it, a block
    argument of a loop inside, or an argument of a function without the attribute."""
    from mlir import ir
    from transpiler.backend.written_arguments import is_result_destination
    from transpiler.codegen.emitter import DESTINATION_ATTR
    assert DESTINATION_ATTR in DESTINATION_KERNELS
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(DESTINATION_KERNELS)
        marked, unmarked = module.body.operations
        a, out = marked.regions[0].blocks[0].arguments
        assert is_result_destination(out) and not is_result_destination(a)
        ops = {op.operation.name: op for op in marked.regions[0].blocks[0].operations}
        assert not is_result_destination(ops["memref.subview"].results[0])
        assert not is_result_destination(ops["scf.for"].regions[0].blocks[0].arguments[0])
        assert not any(is_result_destination(v) for v in unmarked.regions[0].blocks[0].arguments)


def test_the_destination_s_shape_is_computed_before_the_call_only_from_the_arguments_shapes():
    """result_destination.shape_source: argument dims, static sizes and their sums, products ... (a division by a
    positive constant only); None (no destination: the kernel allocates) for a size only the kernel knows."""
    from transpiler.result_destination import shape_source
    from transpiler.types.shapes import Sym
    n, m = Sym("n", ("arg", 0, 0)), Sym("m", ("arg", 1, 1))
    assert shape_source([n, 3]) == "(arrays[0].shape[0], 3, )"
    assert shape_source([Sym("a", ("sub", n, 1)), Sym("b", ("floordiv", m, 2))]) == \
        "((arrays[0].shape[0] - 1), (arrays[1].shape[1] // 2), )"
    assert shape_source([n, Sym("k", ("arg", 0, 1))], ranks=[2, 2]) == "arrays[0].shape"
    assert shape_source([Sym("q", ("floordiv", n, m))]) is None      # (a zero size is the size checks' error)
    assert shape_source([Sym("s", ("same", n, m))]) is None          # (a comparison only the kernel makes)
    assert shape_source([Sym("count(x > 0)", ("var", None))]) is None     # (a count only the kernel makes)
