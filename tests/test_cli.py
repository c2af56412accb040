"""The CLI: `python -m transpiler FILE --emit STAGE` with --function and --arg, and its error format."""
import contextlib
import io
import os
import subprocess
import sys

import pytest

from transpiler.__main__ import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_process(*args, cwd=ROOT):
    """`python -m transpiler ARGS` in a child process: the command as a user runs it (its exit status, its stderr)."""
    return subprocess.run([sys.executable, "-m", "transpiler", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT})


def run(*args):
    """The CLI's main(ARGS) in this process, from the repository root (no interpreter to start, no compiler to
    import: the suite's time), giving what run_process gives; the paths and modules the CLI added are removed."""
    out, err = io.StringIO(), io.StringIO()
    saved_path, saved_modules, cwd = list(sys.path), set(sys.modules), os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(cwd)
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if name.startswith("_transpiler_cli_"):
                del sys.modules[name]
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("stage", ["typed", "mlir", "optimized", "llvm"])
def test_example_every_stage(stage):
    r = run("examples/gelu.py", "--emit", stage)
    assert r.returncode == 0, r.stderr
    expected = {"typed": "tanh", "mlir": "linalg.generic", "optimized": "math.tanh", "llvm": "llvm.func"}[stage]
    assert expected in r.stdout


def test_default_stage_is_mlir_and_arg_overrides_annotation():
    r = run_process("examples/gelu.py", "--arg", "x=float64[?,768]")
    assert r.returncode == 0, r.stderr
    assert "tensor<?x768xf64>" in r.stdout and "func.func @gelu" in r.stdout


def test_function_selection_and_scalar_args(tmp_path):
    src = tmp_path / "two.py"
    src.write_text(
        "import numpy as np\n\n"
        "def scale(x, s, n):\n    return x * s + n\n\n"
        "def other(x: 'int32[3]'):\n    return x + 1\n")
    r = run(str(src), "--function", "scale", "--arg", "x=float32[?]", "--arg", "s=float64", "--arg", "n=3",
            "--emit", "typed")
    assert r.returncode == 0, r.stderr
    assert "func scale" in r.stdout and "func other" not in r.stdout
    assert "weak float64" in r.stdout
    r = run(str(src), "--function", "other")
    assert r.returncode == 0 and "tensor<3xi32>" in r.stdout


def test_array_types_are_c_contiguous(tmp_path):
    """An array type describes a C-contiguous array, as NumPy makes them: a write through its reshape compiles (it
    is a view; for an array of another layout it would be refused)."""
    src = tmp_path / "flat.py"
    src.write_text("def f(x: 'float64[?,3]'):\n    x.reshape(-1)[0] = 1.0\n    return x\n")
    r = run(str(src), "--emit", "typed")
    assert r.returncode == 0, r.stderr


def test_errors_are_located_without_traceback(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import numpy as np\n\ndef f(x: 'bool[?]'):\n    return x - x\n")
    r = run_process(str(src))
    assert r.returncode == 1
    assert r.stderr.startswith(f"{src}:4:12: error: ")
    assert "Traceback" not in r.stderr
    assert r.stderr.rstrip().splitlines()[-1].strip() == "^"


def test_missing_type_is_reported(tmp_path):
    src = tmp_path / "untyped.py"
    src.write_text("def f(x):\n    return x\n")
    r = run(str(src))
    assert r.returncode == 1 and "--arg x=" in r.stderr and "Traceback" not in r.stderr


def test_bad_arg_spec_and_missing_function():
    r = run_process("examples/gelu.py", "--arg", "x=float128[?]")
    assert r.returncode == 1 and "dtype" in r.stderr and "Traceback" not in r.stderr
    r = run("examples/gelu.py", "--function", "nope")
    assert r.returncode == 1 and "nope" in r.stderr


def test_check_reports_every_unsupported_construct(tmp_path):
    src = tmp_path / "many.py"
    src.write_text(
        "import numpy as np\n\n"
        "def a(x: 'float32[?]'):\n"
        "    try:\n        y = x\n    except ValueError:\n        pass\n"
        "    print(x)\n    return x\n\n"
        "def b(x: 'bool[?]'):\n    return x - x\n\n"
        "def c(x):\n    global Q\n    with open('f') as fh:\n        pass\n    return x\n\n"
        "def fine(x: 'float32[?]'):\n    return x * 2\n")
    r = run(str(src), "--check")
    assert r.returncode == 1
    lines = r.stdout.strip().splitlines()
    assert [line.split(": error:")[0] for line in lines] == [
        f"{src}:4:5", f"{src}:8:5", f"{src}:12:12", f"{src}:15:5", f"{src}:16:5", f"{src}:16:10"]
    assert all(": error: " in line for line in lines)


def test_check_passes_a_clean_file():
    r = run("examples/gelu.py", "--check")
    assert r.returncode == 0 and r.stdout == "examples/gelu.py: no problems found\n"
    r = run("stdlib/nn.py", "--check")
    assert r.returncode == 0, r.stdout
