"""The call boundary: what a compiled function accepts, what it refuses, and that no input can crash the process.

Contract (docs/guarantees.md): wrong arguments raise TypeError as calling the original would; arrays of unsupported
dtypes (object, str, bytes, long double complex, datetime, structured, non-native byte order, long double) raise TypeError;
run-time sizes that do not fit together raise ValueError; gather ids out of range raise IndexError; every other
array (strided, Fortran order, negative strides, zero strides, zero-size, read-only, misaligned) gives NumPy's answer.
"""
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import transpile


def axpy(a, x, y):
    return a * x + y


def scale(x, factor=2.0, *, shift=0):
    return x * factor + shift


def gather(w, ids):
    return w[ids]


def add(a, b):
    return a + b


def matvec(m, v):
    return m @ v


def concat(a, b):
    return np.concatenate([a, b], axis=1)


def row_sums(x):
    return x.sum(axis=-1)


# ---- arguments ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs", [
    ((), {}),
    ((np.ones(3),), {}),                                   # missing a required positional argument
    ((1.0, np.ones(3), np.ones(3), 4), {}),                # one too many
    ((1.0, np.ones(3)), {"z": np.ones(3)}),                 # unknown keyword
    ((1.0, np.ones(3), np.ones(3)), {"x": np.ones(3)}),     # given twice
])
def test_wrong_argument_count_or_names_is_type_error(args, kwargs):
    with pytest.raises(TypeError):
        axpy(*args, **kwargs)
    with pytest.raises(TypeError):
        transpile(axpy)(*args, **kwargs)


def test_keyword_only_and_defaults_bind_like_python():
    f = transpile(scale)
    x = np.arange(4.0)
    assert_same(f(x, shift=1), scale(x, shift=1))
    assert_same(f(x=x, factor=3.0), scale(x=x, factor=3.0))
    with pytest.raises(TypeError):
        f(x, 2.0, 1)                      # shift is keyword-only
    with pytest.raises(TypeError):
        f(x, shift=1, factor=2.0, extra=0)


@pytest.mark.parametrize("bad", [
    np.array([object(), object()]), np.array(["a", "b"]), np.array([b"a", b"b"]), np.ones(3, np.clongdouble),
    np.array(["2020-01-01"], dtype="datetime64[D]"), np.array([1], dtype="timedelta64[s]"),
    np.zeros(2, dtype=[("a", "f4"), ("b", "i4")]), np.ones(3, np.longdouble), np.zeros(2, dtype="V4"),
], ids=lambda a: str(a.dtype))
def test_unsupported_array_dtypes_are_type_errors(bad):
    with pytest.raises(TypeError):
        transpile(add)(bad, bad)


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i4", ">u2", ">i8"])
def test_non_native_byte_order_is_a_type_error(dtype):
    """docs/guarantees.md: non-native byte order is among the refused dtypes (TypeError), never a wrong value."""
    x = np.arange(6, dtype=dtype).reshape(2, 3)
    with pytest.raises(TypeError, match="unsupported array dtype"):
        transpile(add)(x, x)


def test_unsupported_scalar_types_are_type_errors():
    with pytest.raises(TypeError):
        transpile(add)(np.ones(3), np.clongdouble(1j))
    with pytest.raises(TypeError):
        transpile(add)(np.ones(3), np.longdouble(1))


# ---- run-time sizes -----------------------------------------------------------------------------------------------
def test_runtime_sizes_that_do_not_broadcast_are_value_errors():
    f = transpile(add)
    f(np.ones(3), np.ones(3))            # compiled for run-time sizes
    with pytest.raises(ValueError):
        np.ones(3) + np.ones(4)
    with pytest.raises(ValueError):
        f(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        f(np.ones((2, 3)), np.ones((3, 3)))
    assert_same(f(np.ones((2, 3)), np.ones((2, 3))), np.full((2, 3), 2.0))   # still fine after the errors


def test_runtime_matmul_and_concatenate_mismatches_are_value_errors():
    m = transpile(matvec)
    assert_same(m(np.ones((2, 3)), np.ones(3)), matvec(np.ones((2, 3)), np.ones(3)))
    with pytest.raises(ValueError):
        m(np.ones((2, 3)), np.ones(4))
    c = transpile(concat)
    assert_same(c(np.ones((2, 3)), np.ones((2, 4))), concat(np.ones((2, 3)), np.ones((2, 4))))
    with pytest.raises(ValueError):
        c(np.ones((2, 3)), np.ones((3, 4)))


@pytest.mark.parametrize("ids", [
    np.array([5]), np.array([-6]), np.array([0, 1, 99]), np.array([7], np.int8), np.array([2**31 - 1], np.int32),
    np.array([-(2**63)], np.int64), np.array([5], np.uint8), [0, 5], [-6],
], ids=repr)
def test_out_of_range_gather_ids_are_index_errors(ids):
    w = np.arange(10.0).reshape(5, 2)
    with pytest.raises(IndexError):
        gather(w, ids)
    with pytest.raises(IndexError):
        transpile(gather)(w, ids)


def test_gather_ids_in_range_after_the_error():
    f = transpile(gather)
    w = np.arange(10.0).reshape(5, 2)
    with pytest.raises(IndexError):
        f(w, np.array([9]))
    assert_same(f(w, np.array([4, -5, 0])), gather(w, np.array([4, -5, 0])))


def test_unsigned_gather_ids_are_cast_to_intp_like_numpy():
    """NumPy casts index arrays to intp (same_kind): uint64 2**64-1 is -1, the last row."""
    w = np.arange(10.0).reshape(5, 2)
    ids = np.array([2**64 - 1, 1], np.uint64)
    check(gather, w, ids)


# ---- layouts ------------------------------------------------------------------------------------------------------
def _layouts():
    base = np.arange(48, dtype=np.float32).reshape(6, 8) / 7
    ro = base.copy()
    ro.flags.writeable = False
    raw = np.zeros(6 * 8 * 4 + 1, np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(6, 8)
    misaligned[...] = base
    buffer = b"\x00" + base.tobytes()
    frombuffer = np.frombuffer(buffer, dtype=np.float32, offset=1).reshape(6, 8)
    relaxed = np.lib.stride_tricks.as_strided(base, shape=(6, 1, 8), strides=(32, 12345, 4))
    return {
        "c": base, "fortran": np.asfortranarray(base), "strided": base[::2, ::3], "reversed": base[::-1, ::-1],
        "transposed": base.T, "column": base[:, 3], "readonly": ro, "misaligned_view": misaligned,
        "misaligned_frombuffer": frombuffer, "zero_size": base[:0], "zero_size_cols": base[:, 8:],
        "broadcast_view": np.broadcast_to(base[0], (6, 8)), "relaxed_strides": relaxed[:, 0, :],
        "size1_weird_strides": relaxed, "scalar_view": base[2:3, 4:5],
    }


LAYOUTS = _layouts()


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_any_layout_gives_numpy_answer(name):
    x = LAYOUTS[name]
    assert not (name.startswith("misaligned") and x.flags.aligned)
    check(lambda x: x * 2 + 1, x)
    check(row_sums, x, rtol=1e-6)
    check(lambda x: (x.T, x[::-1], np.exp(x)), x)
    if x.ndim == 2:
        check(lambda x: x @ x.T, x)


def test_mixed_layouts_in_one_call():
    x = LAYOUTS
    check(lambda a, b, c, d: a + b * c - d, x["fortran"], x["reversed"], x["misaligned_view"], x["readonly"])


def test_inputs_are_not_modified():
    x = np.arange(12.0).reshape(3, 4)
    keep = x.copy()
    f = transpile(lambda x: (x * 2, x.T, x[::-1], x + 0, x.reshape(-1)))
    f(x)
    np.testing.assert_array_equal(x, keep)


def test_readonly_input_returned_unchanged():
    x = np.arange(4.0)
    x.flags.writeable = False
    out = transpile(lambda x: x)(x)
    assert out is x


# ---- nothing crashes the process ----------------------------------------------------------------------------------
NASTY = textwrap.dedent(r'''
    import sys, traceback
    import numpy as np
    sys.path.insert(0, ".")
    from transpiler import transpile

    def add(a, b):
        return a + b

    def reduce_all(x):
        return x.sum(), x.max(axis=-1, keepdims=True), x.mean(axis=0)

    def gather(w, ids):
        return w[ids]

    def mm(a, b):
        return a @ b

    def shapes(x):
        return x.reshape(-1), x.T, np.expand_dims(x, 0), x[1:], x[::-1]

    f_add, f_red, f_gather, f_mm, f_shapes = map(transpile, (add, reduce_all, gather, mm, shapes))
    raw = np.zeros(1001, np.uint8)
    misaligned = raw[1:801].view(np.float64)
    V = None    # NumPy's value, compared exactly (dtype, shape, NaNs equal)
    # Each case with what it must give: NumPy's value, or the exception type NumPy raises (the documented refusals:
    # unsupported dtypes and list arguments that NumPy would treat as Python lists are TypeError)
    cases = [
        (f_add, (np.ones(3), np.ones(4)), ValueError),
        (f_add, (np.ones((0, 3)), np.ones((5, 1))), ValueError),
        (f_add, (np.empty((0,)), np.empty((0,))), V),
        (f_add, (np.ones((2, 0, 3)), np.ones(3)), V),
        (f_add, (np.array(["a"]), np.ones(1)), TypeError),
        (f_add, (np.array([None]), np.ones(1)), TypeError),
        (f_add, (np.ones(3, ">f8"), np.ones(3)), TypeError),
        (f_add, (misaligned, misaligned), V),
        (f_add, (misaligned[::-3], np.float32(2)), V),
        (f_add, (np.broadcast_to(np.ones(1), (10**6,)), 1.0), V),
        (f_add, (np.ones((1,) * 32), np.ones((1,) * 32)), V),
        (f_add, (np.ones(5)[::-1], np.ones(5)[::2][:1]), V),
        (f_add, (np.float16(65504), np.float16(65504)), V),
        (f_add, (np.ones(3, np.int8), 10**30), OverflowError),
        (f_add, ([1, 2, 3], [4, 5, 6, 7]), TypeError),
        (f_add, ([1, 2.5, True], [2**70]), TypeError),
        (f_add, ({"a": 1}, np.ones(2)), TypeError),
        (f_add, (np.ones(2), object()), TypeError),
        (f_red, (np.empty((0, 0)),), ValueError),
        (f_red, (np.empty((3, 0)),), ValueError),
        (f_red, (np.empty((0, 4), np.float16),), V),
        (f_red, (np.full((2, 2), np.nan),), V),
        (f_gather, (np.ones((5, 2)), np.array([5])), IndexError),
        (f_gather, (np.ones((5, 2)), np.array([-6])), IndexError),
        (f_gather, (np.ones((5, 2)), np.array([2**62])), IndexError),
        (f_gather, (np.ones((5, 2)), np.array([-(2**63)])), IndexError),
        (f_gather, (np.ones((0, 2)), np.array([0])), IndexError),
        (f_gather, (np.ones((5, 2)), np.array([], np.int64)), V),
        (f_gather, (np.ones((5, 2)), np.array([1.5])), IndexError),
        (f_gather, (np.ones((5, 2)), np.array([True, False, True, False, True])), V),
        (f_gather, (np.ones((5, 2)), np.array([True, False, True])), IndexError),
        (f_gather, (np.ones((5, 2)), np.zeros((0, 2), bool)), IndexError),
        (f_gather, (np.ones((5, 2)), [[0, 1], [2, 3]]), V),
        (f_gather, (np.ones((5, 2)), 7), IndexError),
        (f_gather, (np.ones((5, 2)), -9), IndexError),
        (f_gather, (np.ones((5, 2)), np.int64(7)), IndexError),
        (f_mm, (np.ones((2, 3)), np.ones((4, 2))), ValueError),
        (f_mm, (np.ones((0, 3)), np.ones((3, 0))), V),
        (f_mm, (np.ones(3), np.ones(3)), V),
        (f_mm, (np.ones(()), np.ones(3)), ValueError),
        (f_mm, (np.ones((2, 2, 3)), np.ones((3, 3, 2))), ValueError),
        (f_shapes, (np.ones(()),), IndexError),
        (f_shapes, (np.empty((0, 5)),), V),
        (f_shapes, (np.ones((1, 1)),), V),
    ]

    def same(got, want):
        if isinstance(want, tuple):
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want):
                same(g, w)
            return
        np.testing.assert_array_equal(got, want, strict=True)

    failures = []
    for i, (fn, args, expected) in enumerate(cases):
        name = f"case {i} {fn.py_func.__name__}"
        if expected is V:
            with np.errstate(all="ignore"):
                want = fn.py_func(*args)
        for _ in range(2):
            try:
                with np.errstate(all="ignore"):
                    got = fn(*args)
            except Exception as e:
                if "internal compiler error" in str(e):
                    print("INTERNAL", name, type(e).__name__, str(e).splitlines()[0])
                if expected is V or not isinstance(e, expected):
                    failures.append(f"{name}: raised {type(e).__name__}: {str(e).splitlines()[0]}, expected "
                                    f"{'a value' if expected is V else expected.__name__}")
                continue
            if expected is not V:
                failures.append(f"{name}: gave a value, expected {expected.__name__}")
                continue
            try:
                same(got, want)
            except AssertionError as e:
                failures.append(f"{name}: wrong value: {e}")
    for f in failures:
        print("FAILED", f)
    print("SURVIVED")
''')


def test_nasty_inputs_do_not_kill_the_process(tmp_path):
    """A batch of nasty calls in a child process (compiled functions need a source file: the script is one)."""
    script = tmp_path / "nasty_calls.py"
    script.write_text(NASTY)
    root = pathlib.Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=str(root))
    assert proc.returncode == 0, f"died with return code {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "SURVIVED" in proc.stdout, proc.stdout + proc.stderr[-3000:]
    assert "INTERNAL" not in proc.stdout, proc.stdout
    assert "FAILED" not in proc.stdout, proc.stdout


# ---- Python lists as arguments ------------------------------------------------------------------------------------
def test_list_arguments_that_python_would_concatenate_are_refused():
    """`a + b` of two Python lists concatenates them; a list argument is run-time data, so the compiled function
    refuses (TypeError) rather than add them elementwise."""
    a, b = [1, 2], [3, 4]
    with pytest.raises(TypeError, match="list argument"):
        transpile(add)(a, b)


@pytest.mark.parametrize("value", [[2**70], [1, 2.5, 2**64]], ids=repr)
def test_lists_numpy_makes_object_arrays_of_are_type_errors(value):
    """Lists of numbers are run-time data, but np.asarray of these is an object array: refused with TypeError like
    an object array (not a KeyError from inside the call)."""
    with pytest.raises(TypeError):
        transpile(lambda x: x * 2)(value)


def test_list_of_non_numbers_keeps_python_semantics():
    """[None, 1.0] is not data: it is a Python list, and `* 2` repeats it, compiled or not."""
    f = transpile(lambda x: x * 2)
    assert f([None, 1.0]) == [None, 1.0, None, 1.0]


def test_nested_list_argument_as_gather_ids():
    w = np.arange(10.0).reshape(5, 2)
    check(gather, w, [[0, 1], [2, 3]])
