"""Errors point at the source: CompileError with file, line, column and a caret; NumPy's exception type where
NumPy raises one for the same mistake."""
import numpy as np
import pytest

from transpiler import CompileError, transpile

HERE = __file__


def line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def raises_at(fn, args, marker, kind=CompileError):
    with pytest.raises(CompileError) as info:
        transpile(fn)(*args)
    err = info.value
    assert isinstance(err, kind), type(err).__mro__
    assert err.filename == HERE
    assert err.lineno == line_of(fn, marker), (err.lineno, str(err))
    text = str(err)
    assert text.startswith(f"{HERE}:{err.lineno}:{err.col_offset + 1}: ")
    assert text.splitlines()[-1].strip() == "^"
    return err


def test_unsupported_statement_names_its_line():
    def f(x):
        y = x + 1
        try:  # unsupported
            y = y * 2
        except ValueError:
            pass
        return y
    err = raises_at(f, [np.ones(3)], "try:  # unsupported")
    assert "try/except" in str(err)


def test_bool_subtract_is_type_error():
    def f(a, b):
        return a - b  # bad
    raises_at(f, [np.ones(3, bool), np.ones(3, bool)], "# bad", TypeError)


def test_static_broadcast_mismatch_is_value_error():
    def f(a, b):
        c = a * 2
        return c + b  # bad
    with pytest.raises(CompileError) as info:
        transpile(f, static_shapes=True)(np.ones((2, 3)), np.ones((4,)))
    assert isinstance(info.value, ValueError)
    assert info.value.lineno == line_of(f, "# bad")
    assert "could not be broadcast" in str(info.value)


def test_caret_points_at_the_column():
    def f(x):
        return x + undefined_name  # noqa: F821
    err = raises_at(f, [np.ones(2)], "undefined_name", NameError)
    lines = str(err).splitlines()
    assert lines[-1].index("^") == lines[-2].index("undefined_name")


def test_unsupported_numpy_function_on_arrays():
    def f(x):
        return np.fft.fft(x)  # unsupported
    err = raises_at(f, [np.ones(4)], "# unsupported", TypeError)
    assert "fft" in str(err)


def test_recursion_is_refused():
    def fact(x, n):
        return x if n == 0 else fact(x, n - 1) * 2  # recursive
    err = raises_at(fact, [np.ones(2), 3], "# recursive", RecursionError)
    assert "recursive" in str(err)


def test_truth_of_array_is_refused():
    def f(x):
        if x > 0:  # truth
            return x
        return -x
    raises_at(f, [np.ones(3)], "# truth", ValueError)


def test_compile_time_raise_becomes_compile_error():
    def f(x):
        if x.ndim != 2:
            raise ValueError(f"expected a matrix, got {x.ndim} dims")  # raise
        return x
    err = raises_at(f, [np.ones(3)], "# raise", ValueError)
    assert "expected a matrix, got 1 dims" in str(err)


def test_unsupported_argument_dtype_is_type_error():
    with pytest.raises(TypeError):
        transpile(lambda x: x + 1)(np.ones(3, np.clongdouble))


@pytest.mark.parametrize("source, kind", [
    ("class A: pass", SyntaxError), ("global G", SyntaxError), ("with open('f') as fh: pass", SyntaxError),
    ("eval('1')", TypeError), ("print(x)", TypeError), ("yield x", SyntaxError), ("async def g(): pass", SyntaxError), ("nonlocal_value = __import__('os')", TypeError),
])
def test_unsupported_constructs(tmp_path, source, kind):
    path = tmp_path / "prog.py"
    path.write_text(f"import numpy as np\n\ndef f(x):\n    {source}\n    return x\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("prog_" + str(abs(hash(source))), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(CompileError) as info:
        transpile(module.f)(np.ones(2))
    assert info.value.lineno == 4 and info.value.filename == str(path)
    assert isinstance(info.value, kind)


def test_compile_error_pickles():
    import pickle
    with pytest.raises(CompileError) as info:
        transpile(lambda a, b: a - b)(np.ones(2, bool), np.ones(2, bool))
    again = pickle.loads(pickle.dumps(info.value))
    assert isinstance(again, TypeError) and isinstance(again, CompileError) and again.lineno == info.value.lineno
