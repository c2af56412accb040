"""Kernels compiled for another x86-64 CPU than this one (TRANSPILER_TARGET_CPU, backend/target.py): an AVX-512
machine builds and checks the code an AVX2-only machine runs. The checks of other targets run in a child process,
as the setting is read once per process."""
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from transpiler import emit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AVX2 = "x86-64-v3"     # LLVM's AVX2 level: AVX2 and FMA, no AVX-512

ULP_SCRIPT = """
import json
import numpy as np
from transpiler import transpile
from tests import test_vector_math as vm
from tests.test_target_cpu import MATH, every_function
worst = {}
for dtype in ("float64", "float32"):
    x = np.concatenate([vm.values(dtype, "exp"), vm.expm1_log1p_values(dtype, "log1p")])
    with np.errstate(all="ignore"):
        results = transpile(every_function, disk_cache=False)(x)
        for name, actual in zip(MATH, results):
            worst[f"{name} {dtype}"] = [float(vm.ulps(actual, vm.reference(name, x)).max()), vm.LIMIT[name, dtype]]
print(json.dumps(worst))
"""

MATH = ("exp", "tanh", "log", "sin", "cos", "expm1", "log1p", "sinh", "cosh", "arctan")


def every_function(x):
    return (np.exp(x), np.tanh(x), np.log(x), np.sin(x), np.cos(x), np.expm1(x), np.log1p(x), np.sinh(x),
            np.cosh(x), np.arctan(x))


CODE_SCRIPT = """
import pickle
import sys
import numpy as np
from transpiler import transpile
from tests.test_target_cpu import transcendental
f = transpile(transcendental, disk_cache=False, threads=False)
f(np.linspace(-3, 3, 256).reshape(4, 64))
(entry,) = f._cache.values()
sys.stdout.buffer.write(pickle.dumps(entry[1].object_code()))   # the object file of each part
"""


def transcendental(x):
    return (np.tanh(x) + np.exp(x) + np.log(np.abs(x) + 1) + np.sinh(x) + np.expm1(x) + np.log1p(np.abs(x))
            + np.power(x, x))


def run_child(script, target):
    env = {**os.environ, "TRANSPILER_CACHE_DIR": ""}
    env.pop("TRANSPILER_TARGET_CPU", None)
    if target:
        env["TRANSPILER_TARGET_CPU"] = target
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, timeout=600)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout


@pytest.fixture(scope="module")
def avx2_ulp_reports():
    """The worst errors of ULP_SCRIPT, POWER_SCRIPT and TAN_SCRIPT, run one after the other in one AVX2 child (one
    interpreter and import of the compiler, not three): their JSON lines, by name."""
    names = ("math", "power", "tan")
    script = "\n".join(f"def run_{name}():\n" + textwrap.indent(code, "    ") for name, code in
                       zip(names, (ULP_SCRIPT, POWER_SCRIPT, TAN_SCRIPT)))
    script += "\n" + "\n".join(f"run_{name}()" for name in names) + "\n"
    lines = run_child(script, AVX2).decode().splitlines()
    assert len(lines) == len(names), lines
    return dict(zip(names, map(json.loads, lines)))


def test_avx2_math_keeps_its_ulp_bounds(avx2_ulp_reports):
    worst = avx2_ulp_reports["math"]
    over = {name: error for name, (error, limit) in worst.items() if error > limit}
    assert len(worst) == 20 and over == {}


POWER_SCRIPT = """
import json
import numpy as np
from transpiler import transpile
from tests import test_vector_math as vm
worst = {}
for dtype in ("float64", "float32"):
    for kind, pairs in (("any", vm.power_pairs), ("positive", vm.positive_base_pairs)):
        x, y = pairs(dtype)
        with np.errstate(all="ignore"):
            actual = transpile(vm.power_of, disk_cache=False)(x, y)
            expected = np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(dtype)
        worst[f"{kind} {dtype}"] = [float(vm.ulps(actual, expected).max()),
                                    bool(np.array_equal(np.isnan(actual), np.isnan(expected)))]
print(json.dumps(worst))
"""


def test_avx2_power_keeps_its_ulp_bound(avx2_ulp_reports):
    """float power compiled for AVX2, its complete loop (special bases) and its loop versioned on positive bases
    (float32: the base split in float32, converted with vcvtdq2pd and vcvtps2pd): within 1 ulp, NaN where NumPy's
    is."""
    worst = avx2_ulp_reports["power"]
    assert len(worst) == 4 and all(error <= 1 and same_nan for error, same_nan in worst.values()), worst


def test_float64_math_converts_no_integer_element_by_element():
    """The same kernel's LLVM IR, on any machine (no disassembler needed): no conversion between float64 and int64,
    which AVX2 can only make one element at a time (18 in this kernel before vector_math._to_int)."""
    text = emit(transcendental, np.linspace(-3, 3, 256).reshape(4, 64), stage="llvm")
    conversions = re.findall(r"llvm\.(?:fptosi|sitofp) [^\n]*", text)
    assert not [c for c in conversions if "f64 to i64" in c or "i64 to f64" in c]


def disassembly(pickled_objects: bytes, tmp_path) -> str:
    text = ""
    for k, obj in enumerate(pickle.loads(pickled_objects)):
        path = tmp_path / f"kernel-{k}.o"
        path.write_bytes(obj)
        text += subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True,
                               check=True).stdout
    return text


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils) to read the machine code")
def test_avx2_code_has_no_avx512_and_converts_no_element_alone(tmp_path):
    """AVX2 has no vector conversion between float64 and int64; float64 exp, tanh, log ... convert by the bits of
    a shifted value instead (vector_math._to_int), power finds its exponent's parity the same way: an fptosi
    became a scalar vcvttsd2si per element (40 in this kernel without power), and float64 tanh cost 9.7 ns per
    element instead of 3.1 (Zen 4 compiling for x86-64-v3)."""
    avx2 = disassembly(run_child(CODE_SCRIPT, AVX2), tmp_path)
    assert "ymm" in avx2 and "zmm" not in avx2
    assert "cvttsd2si" not in avx2 and "cvtsi2sd" not in avx2
    host = disassembly(run_child(CODE_SCRIPT, None), tmp_path)
    assert "cvttsd2si" not in host and "cvtsi2sd" not in host


TAN_SCRIPT = """
import json
import numpy as np
from transpiler import transpile
from tests import test_vector_math as vm
worst = {}
for dtype in ("float64", "float32"):
    x = vm.trig_values(dtype)
    with np.errstate(all="ignore"):
        actual = transpile(vm.tan_of, disk_cache=False)(x)
        expected = vm.reference("tan", x)
    numbers = ~np.isnan(expected)
    worst[dtype] = [float(vm.ulps(actual, expected).max()),
                    bool(np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))),
                    bool(np.array_equal(np.isnan(actual), np.isnan(expected)))]
print(json.dumps(worst))
"""


def test_avx2_tan_keeps_its_ulp_bound(avx2_ulp_reports):
    """tan compiled for AVX2 (float64's tail a rational function, one more division; the reduction's parts rounded
    down, which keeps tan(-0.0) = -0.0 without a select): within 2 ulp on the fast range, NumPy's signs and NaNs."""
    worst = avx2_ulp_reports["tan"]
    assert len(worst) == 2 and all(error <= 2 and signs and nans for error, signs, nans in worst.values()), worst
