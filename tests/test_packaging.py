"""The wheel installs and works away from the checkout: it is built with `uv build`, installed into a fresh virtual
environment outside the repository, and used from a folder outside it with PYTHONPATH unset: `@transpile` on a
user's function (np.mean and np.var compile from the library code shipped as transpiler/stdlib), the `transpiler`
command, and no generic top-level package (`stdlib`) on the user's path."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UV = os.environ.get("UV") or shutil.which("uv")   # `uv run` names its own binary in $UV



@pytest.fixture(autouse=True)
def _uv():
    if UV is None:   # the README's set-up runs everything through uv: its absence is a broken set-up, not a skip
        pytest.fail("building and installing the wheel needs uv (the README's set-up installs it)")

USER_CODE = '''
import numpy as np
from transpiler import transpile


def normalize(x: "float32[?,?]"):
    return (x - np.mean(x, axis=-1, keepdims=True)) / np.sqrt(np.var(x, axis=-1, keepdims=True) + 1e-5)


def scale(x: "float64[?]", a: "float64"):
    return a * x + 1.0
'''

USER_RUN = '''
import numpy as np
import transpiler
import transpiler.stdlib.numeric
from user import normalize, scale

assert transpiler.stdlib.numeric.__file__.startswith(transpiler.__path__[0]), transpiler.stdlib.numeric.__file__
x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
fn = transpiler.transpile(normalize)
np.testing.assert_allclose(fn(x), normalize(x), rtol=1e-5, atol=1e-6)
assert fn(x).dtype == normalize(x).dtype
np.testing.assert_array_equal(transpiler.transpile(scale)(np.arange(5.0), 2.0), scale(np.arange(5.0), 2.0))
print("ok", transpiler.__file__)
'''


def _env(venv: str) -> dict:
    """The user's environment: the new venv first on PATH, nothing of the checkout's (PYTHONPATH, VIRTUAL_ENV)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    return env


def _run(args, cwd, env, timeout=300):
    r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{args}\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, work folder, env) of a fresh venv outside the checkout with the built wheel installed."""
    base = tmp_path_factory.mktemp("packaging")
    assert not str(base).startswith(ROOT)
    dist, venv, work = base / "dist", str(base / "venv"), base / "work"
    work.mkdir()
    env = _env(venv)
    env["TRANSPILER_CACHE_DIR"] = str(base / "cache")   # compile for real, not from the user's disk cache
    _run([UV, "build", "--wheel", "--out-dir", str(dist), ROOT], cwd=base, env=env)
    (wheel,) = dist.glob("transpiler-*.whl")
    _run([UV, "venv", "--quiet", "--python", sys.executable, venv], cwd=base, env=env)
    python = os.path.join(venv, "bin", "python")
    _run([UV, "pip", "install", "--quiet", "--python", python, str(wheel)], cwd=base, env=env)
    (work / "user.py").write_text(textwrap.dedent(USER_CODE))
    return python, work, env


def test_wheel_compiles_user_code_with_the_shipped_stdlib(installed):
    python, work, env = installed
    r = _run([python, "-c", USER_RUN], cwd=work, env=env)
    assert r.stdout.startswith("ok ") and not r.stdout.split()[1].startswith(ROOT), r.stdout


def test_wheel_installs_the_transpiler_command(installed):
    python, work, env = installed
    command = os.path.join(os.path.dirname(python), "transpiler")
    r = _run([command, "user.py", "--function", "normalize", "--emit", "mlir"], cwd=work, env=env)
    assert "func.func @normalize" in r.stdout
    r = _run([command, "user.py", "--check"], cwd=work, env=env)
    assert "no problems found" in r.stdout


def test_wheel_leaks_no_generic_package_and_keeps_the_gpt2_extra_optional(installed):
    python, work, env = installed
    probe = ("import importlib.util as u; "
             "print([m for m in ('stdlib', 'tests', 'benchmarks', 'tiktoken', 'safetensors') if u.find_spec(m)])")
    assert _run([python, "-c", probe], cwd=work, env=env).stdout.strip() == "[]"
    r = subprocess.run([python, "-m", "transpiler.stdlib.gpt2", "hello"], cwd=work, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0 and "transpiler[gpt2]" in r.stderr
