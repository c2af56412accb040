"""What a user sees: tracebacks without the compiler's frames, run-time guard failures that name their source line,
transpiler.check(), the compilation log (TRANSPILER_LOG) and progress on a terminal for long compilations."""
import io
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import transpiler
from transpiler import CompileError, compile_log, transpile

HERE = os.path.abspath(__file__)
PACKAGE = os.path.dirname(os.path.abspath(transpiler.__file__)) + os.sep


def line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, line in enumerate(lines) if text in line)


def compiler_frames(error):
    tb, frames = error.__traceback__, []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
            frames.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return frames


# ---- tracebacks ------------------------------------------------------------------------------------------------
def test_a_compile_error_from_a_call_keeps_only_the_entry_frame():
    def f(x):
        return x.no_such_method()

    with pytest.raises(CompileError) as info:
        transpile(f)(np.ones(3))
    assert compiler_frames(info.value) == ["__call__"]          # the one `raise` that hands the error to the user
    assert any("TRANSPILER_TRACEBACK_FILTERING=off" in n for n in info.value.__notes__)
    with pytest.raises(CompileError) as again:                   # the cached failure, raised again: same filtering
        transpile(f)(np.ones(3))
    assert compiler_frames(again.value) == ["__call__"]


def test_run_time_errors_and_emit_are_filtered_too():
    f = transpile(lambda x, y: x + y)
    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.ones(4))
    assert compiler_frames(info.value) == ["__call__"]
    with pytest.raises(CompileError) as info:
        transpile(lambda x: x.no_such_method()).emit(np.ones(3))
    assert compiler_frames(info.value) == ["emit"]


def test_an_internal_error_keeps_its_cause_in_full(monkeypatch):
    from transpiler import driver

    def broken(*args, **kwargs):
        raise RuntimeError("a compiler bug")
    monkeypatch.setattr(driver, "to_mlir", broken)
    with pytest.raises(CompileError, match="internal compiler error") as info:
        transpile(lambda x: x * 3, disk_cache=False)(np.ones(3))
    cause = info.value.__cause__
    assert isinstance(cause, RuntimeError) and "_compile_kernel" in compiler_frames(cause)   # the bug report


SCRIPT = textwrap.dedent("""
    import numpy as np
    from transpiler import transpile

    @transpile
    def f(x):
        return x.no_such_method()

    def main():
        f(np.ones(3))

    main()
""")


@pytest.mark.parametrize("filtering", ["on", "off"])
def test_an_uncaught_compile_error_prints_the_users_frames(tmp_path, filtering):
    script = tmp_path / "user.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "TRANSPILER_TRACEBACK_FILTERING": filtering,
           "PYTHONPATH": os.path.dirname(PACKAGE.rstrip(os.sep))}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    internal = [line for line in lines if line.strip().startswith(f'File "{PACKAGE}')]
    assert f'{script}", line 10, in main' in r.stderr and f"{script}:7:12: 'numpy.ndarray' attribute" in r.stderr
    if filtering == "on":
        assert len(internal) == 1 and len(lines) <= 12, r.stderr
    else:
        assert len(internal) > 1, r.stderr


# ---- run-time guards name their source line ----------------------------------------------------------------------
def guard_error(fn, args, kind=ValueError):
    with pytest.raises(kind) as info:
        transpile(fn)(*args)
    head, *rest = str(info.value).splitlines()
    return head, "\n".join(rest)


def test_a_broadcast_guard_names_its_line():
    def f(x, y):
        z = x * 2
        return z + y   # the guard

    head, where = guard_error(f, (np.ones(3), np.ones(4)))
    assert head.startswith("operands could not be broadcast together")
    assert where == f"  required by {HERE}:{line_of(f, 'the guard')}:16: return z + y   # the guard"


def test_reshape_split_and_index_guards_name_their_lines():
    def reshape(x):
        return x.reshape(2, -1)   # reshape

    def split(x):
        a, b = np.split(x, 2)     # split
        return a - b

    def gather(x, i):
        return x[i] * 2           # gather

    for fn, args, kind, marker in [(reshape, (np.ones(5),), ValueError, "# reshape"),
                                   (split, (np.ones(5),), ValueError, "# split"),
                                   (gather, (np.ones(3), np.array([7])), IndexError, "# gather")]:
        _, where = guard_error(fn, args, kind)
        assert where.startswith(f"  required by {HERE}:{line_of(fn, marker)}:"), (fn.__name__, where)


def test_a_guard_inside_a_called_function_names_the_callees_line():
    def inner(a, b):
        return a + b   # inner line

    def outer(x, y):
        return inner(x, y) * 2

    _, where = guard_error(outer, (np.ones(3), np.ones(4)))
    assert f"{HERE}:{line_of(inner, 'inner line')}:" in where


# ---- transpiler.check ----------------------------------------------------------------------------------------------
def test_check_reports_every_unsupported_construct_without_compiling():
    def f(x):
        try:
            y = x + 1
        except ValueError:
            y = x
        with open(os.devnull):
            pass
        return y

    compiled = transpile(f)
    problems = transpiler.check(compiled, np.ones(3))
    assert [(p.lineno, p.message) for p in problems] == [
        (line_of(f, "try:"), "unsupported statement: try/except"),
        (line_of(f, "with open"), "unsupported statement: with"),
        (line_of(f, "with open"), "open() is not supported in compiled code")]
    assert compiled.compilations == 0


def test_check_finds_type_errors_the_static_scan_cannot():
    def f(x):
        return (x > 0) - True   # bool minus bool

    [problem] = transpiler.check(f, np.ones(3))
    assert isinstance(problem, TypeError) and problem.lineno == line_of(f, "bool minus bool")
    assert transpiler.check(lambda x: np.tanh(x) * 2, np.ones(3, np.float32)) == []


# ---- the compilation log and progress ------------------------------------------------------------------------------
def test_each_compilation_is_logged_with_signature_source_and_stage_times(caplog, fresh_kernel_cache):
    caplog.set_level(logging.INFO, logger="transpiler")

    def scale(x, a):
        return x * a

    transpile(scale)(np.ones((2, 3), np.float32), 2.0)
    transpile(scale)(np.ones((2, 3), np.float32), 2.0)   # a new Transpiled: this time from the disk cache
    transpile(scale)(np.ones(3, np.int8), np.float32(2))
    records = [r.getMessage() for r in caplog.records if r.name == "transpiler"]
    assert len(records) == 3, records
    assert records[0].startswith("scale(x: float32[?,?], a: float): compiled (disk cache miss) in ")
    for stage in ("typing", "mlir", "optimize", "lower", "llvm"):
        assert f"{stage} " in records[0]
    assert "): loaded from the disk cache in " in records[1] and "llvm" not in records[1]
    assert "scale(x: int8[?], a: float32): compiled" in records[2]


def test_transpiler_log_sends_the_log_to_stderr(tmp_path):
    script = tmp_path / "user.py"
    script.write_text("import numpy as np\nfrom transpiler import transpile\n"
                      "print(transpile(lambda x: x + 1)(np.arange(3)).sum())\n")
    env = {**os.environ, "TRANSPILER_LOG": "1", "TRANSPILER_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.path.dirname(PACKAGE.rstrip(os.sep))}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout == "6\n"
    assert r.stderr.startswith("transpiler: <lambda>(x: int64[?]): compiled (disk cache miss) in "), r.stderr


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_long_compilation_shows_its_stage_on_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(compile_log, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(compile_log, "_REFRESH", 0.01)
    transpile(lambda x: np.tanh(x) + 1, disk_cache=False)(np.ones(4))
    shown = terminal.getvalue()
    assert "\rtranspiler: compiling <lambda>: " in shown and " s)" in shown
    assert shown.endswith("\r\x1b[K")    # the line is cleared when the compilation ends


def test_no_progress_when_stderr_is_not_a_terminal(monkeypatch):
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    monkeypatch.setattr(compile_log, "PROGRESS_AFTER", 0.0)
    transpile(lambda x: np.tanh(x) + 2, disk_cache=False)(np.ones(4))
    assert plain.getvalue() == ""
