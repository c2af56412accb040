"""A corpus of unsupported or ill-typed programs (tests/error_corpus/programs.py): each must raise a CompileError
that names the file and the marked line (`# error: KIND`), is also an instance of KIND (NumPy's or Python's exception
type for the same mistake), and is a diagnosis, never an internal compiler error."""
import builtins
import inspect
import re

import numpy as np
import pytest

from error_corpus import programs
from transpiler import CompileError, transpile

MARKER = re.compile(r"#\s*error:\s*(\w+)(\s+numpy)?\s*$")
FILE = inspect.getsourcefile(programs)


def expectation(name):
    """(line number, exception class, whether NumPy raises it too) from the marker comment in the function."""
    lines, start = inspect.getsourcelines(getattr(programs, name))
    found = [(start + i, m) for i, line in enumerate(lines) if (m := MARKER.search(line))]
    assert len(found) == 1, f"{name}: expected exactly one '# error:' marker, found {len(found)}"
    lineno, match = found[0]
    kind_name = match.group(1)
    if kind_name == "CompileError":
        kind = CompileError
    elif hasattr(builtins, kind_name):
        kind = getattr(builtins, kind_name)
    else:
        kind = getattr(np.exceptions, kind_name)
    return lineno, kind, bool(match.group(2))


def test_corpus_is_large_and_well_formed():
    assert len(programs.CASES) >= 30
    defined = {n for n, f in vars(programs).items() if inspect.isfunction(f) and f.__module__ == programs.__name__}
    assert defined - {"helper_two_args"} == set(programs.CASES)
    for name in programs.CASES:
        expectation(name)


@pytest.mark.parametrize("name", list(programs.CASES))
def test_error_corpus(name):
    fn = getattr(programs, name)
    args, options = programs.CASES[name]
    lineno, kind, numpy_raises = expectation(name)
    if numpy_raises:   # the expected type is NumPy's own: check the corpus against NumPy
        with pytest.raises(kind), np.errstate(all="ignore"):
            fn(*args)
    with pytest.raises(Exception) as info:
        with np.errstate(all="ignore"):
            transpile(fn, **options)(*args)
    err = info.value
    assert isinstance(err, CompileError), f"{type(err).__name__} is not a CompileError: {err}"
    text = str(err)
    assert "internal compiler error" not in text, text
    assert isinstance(err, kind), f"{type(err).__mro__} is not a {kind.__name__}: {text}"
    assert err.filename == FILE, (err.filename, text)
    assert err.lineno == lineno, f"line {err.lineno}, expected {lineno}: {text}"
    assert text.startswith(f"{FILE}:{lineno}:{err.col_offset + 1}: "), text
    source_line = text.splitlines()[1]
    assert source_line.strip() and source_line.strip() in open(FILE).read().splitlines()[lineno - 1], text
    assert text.splitlines()[-1].strip() == "^", text


def test_errors_do_not_poison_the_cache():
    """After a CompileError the same function still compiles for arguments that are fine."""
    f = transpile(programs.python_int_overflow)
    with pytest.raises(OverflowError):
        f(np.ones(3, np.uint8))
    np.testing.assert_array_equal(f(np.ones(3, np.int32)), np.full(3, 301, np.int32))
    with pytest.raises(OverflowError):
        f(np.ones(3, np.uint8))


def test_function_without_a_source_file():
    """A function made by exec() has no source to read: a CompileError that says so, not an internal error."""
    namespace = {}
    exec("def made(x):\n    return x + 1\n", {"np": np}, namespace)  # noqa: S102
    with pytest.raises(CompileError) as info:
        transpile(namespace["made"])(np.ones(2))
    assert "internal compiler error" not in str(info.value), str(info.value)
    assert "source" in str(info.value)
