"""A compiled function named like a C library function (`malloc`, `sin`, `memcpy` ...) gets a symbol of its own.

The kernel's symbol was the function's name: `malloc` was defined over the allocator the kernel calls (the process
aborted in MLIR's Python bindings), `sin`, `exp` and `cos` over libm's (an internal compiler error)."""
import os
import subprocess
import sys
import textwrap

import numpy as np

from transpiler import emit
from transpiler.program import kernel_symbol

PROGRAM = textwrap.dedent('''
    import numpy as np
    from transpiler import transpile

    def malloc(x):
        return np.concatenate([x, x]) * 2

    def free(x):
        return np.concatenate([x, x[::-1]]) + 1

    def memcpy(x):
        return x[::-1].copy() + 1

    def sin(x):
        return np.sin(x) + x

    def exp(z):
        return np.exp(z) * 2

    def cos(x):
        return helper(x) + helper(x * 2)

    def helper(x):          # outlined (called twice): its symbol is checked too
        return np.cos(x)

    x = np.linspace(-3.0, 3.0, 11)
    for fn, arg in ((malloc, x), (free, x), (memcpy, x), (sin, x), (exp, x + 1j * x[::-1]), (cos, x)):
        np.testing.assert_allclose(transpile(fn)(arg), fn(arg), rtol=1e-12)
    print("ok")
''')


def test_functions_named_like_c_library_functions_compile_and_run(tmp_path):
    path = tmp_path / "named_like_libc.py"
    path.write_text(PROGRAM)
    env = dict(os.environ, TRANSPILER_CACHE_DIR="")
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-3000:]


def gelu(x):
    return 0.5 * x * (1 + np.tanh(x))


def test_other_names_are_kept():
    assert kernel_symbol("gelu") == "gelu" and kernel_symbol("<lambda>") == "_lambda_"
    assert kernel_symbol("malloc") == "malloc_k" and kernel_symbol("sin") == "sin_k"
    assert kernel_symbol("llvm_thing") == "k_llvm_thing" and kernel_symbol("__init__") == "k___init__"
    assert "func.func @gelu(" in emit(gelu, np.ones(3), stage="mlir")
