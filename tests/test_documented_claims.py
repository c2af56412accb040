"""Claims of docs/guarantees.md and docs/semantics.md that no other test checked (#20 item 8): a run-time size of 1
broadcasts through NumPy's run; results that would alias an input are copies; NumPy products in other threads run
single-threaded while a kernel that calls OpenBLAS runs; floor/ceil/trunc/rint bit for bit with signed zeros;
`x ** k` as products; the disk cache for float16. And docs/guarantees.md itself: every claim (table row, bullet)
names the test that checks it, as `file.py::test_name`, and every test it names exists (issue #14)."""
import os
import re
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from transpiler import transpile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOATS = ["float16", "float32", "float64"]


# ---- semantics.md, Shapes: a size that is 1 at run time broadcasts as NumPy's -------------------------------------
def tail_plus(x, y):
    return x[1:] + y


def test_a_run_time_size_of_one_broadcasts_as_numpys():
    """x[1:] has a run-time length (x.shape[0] - 1): with x of shape (2,) it is 1, and NumPy broadcasts it against y.
    The kernel was compiled for equal sizes: the call runs as NumPy (it raised ValueError before)."""
    x, y = np.arange(2.0), np.arange(3.0)
    compiled = transpile(tail_plus)
    np.testing.assert_array_equal(compiled(x, y), tail_plus(x, y), strict=True)      # NumPy broadcasts
    assert compiled.replays == 1
    with pytest.raises(ValueError, match="broadcast"):
        compiled(np.arange(3.0), y)                                                  # 2 against 3: NumPy's error
    np.testing.assert_array_equal(compiled(np.arange(4.0), y), tail_plus(np.arange(4.0), y), strict=True)
    # a dim that is 1 in the arguments is part of the specialization, and broadcasts as in NumPy
    np.testing.assert_array_equal(transpile(lambda a, b: a + b)(np.ones(1), y), np.ones(1) + y, strict=True)


def computed(x):
    return x * 1.0, x + 0, np.maximum(x, x)


def test_computed_results_never_share_memory_with_the_inputs():
    """Values computed from an argument (even ones equal to it) are fresh arrays: the deallocation pipeline clones
    any returned buffer that would alias an input (architecture.md), as NumPy's own results are new arrays."""
    x = np.arange(6.0).reshape(2, 3)
    for got, want in zip(transpile(computed)(x), computed(x)):
        np.testing.assert_array_equal(got, want, strict=True)
        assert not np.shares_memory(got, x)


# ---- guarantees.md, call boundary: OpenBLAS single-threaded while a kernel that calls it runs ---------------------
def product(a, b):
    return a @ b


def test_openblas_is_single_threaded_while_a_blas_kernel_runs():
    """While a kernel that calls OpenBLAS runs, OpenBLAS is set to one thread (a setting of the process, so NumPy's
    products in other threads run single-threaded too), and set back afterwards."""
    from transpiler.runtime import blas

    if not blas.direct_available():
        pytest.fail("OpenBLAS was not found in NumPy's wheel (the dependencies are pinned)")
    lib = blas._openblas()
    saved = lib.get_threads()
    lib.set_threads(2)
    try:
        a = np.random.default_rng(0).standard_normal((400, 400))
        compiled = transpile(product)
        np.testing.assert_array_equal(compiled(a, a), compiled(a, a))   # compiled (and warm) before we watch
        seen, stop = [], threading.Event()

        def run():
            while not stop.is_set():
                compiled(a, a)
        worker = threading.Thread(target=run)
        worker.start()
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline and 1 not in seen:
                seen.append(lib.get_threads())       # what a NumPy product made now by this thread would use
        finally:
            stop.set()
            worker.join()
        assert 1 in seen, f"OpenBLAS never went single-threaded while the kernel ran: {sorted(set(seen))}"
        assert lib.get_threads() == 2                                  # set back when the last kernel left
    finally:
        lib.set_threads(saved)


# ---- guarantees.md, bit for bit: floor/ceil/trunc/rint with signed zeros ------------------------------------------
ROUNDING = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint}


@pytest.mark.parametrize("name", ROUNDING)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rounding_functions_are_bit_for_bit_with_signed_zeros(name, dtype):
    ufunc = ROUNDING[name]
    x = np.array([-0.5, -0.0, 0.0, 0.4, -0.4, 0.5, -0.7, 1.5, 2.5, -1.5, -2.5, 0.49999997, -0.49999997, 1e300,
                  -1e-300, 65504.0, np.inf, -np.inf, np.nan], dtype=np.float64)
    with np.errstate(all="ignore"):
        x = x.astype(dtype)
    got = transpile(lambda v: ufunc(v))(x)
    want = ufunc(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))   # -0.0 where NumPy gives -0.0
    np.testing.assert_array_equal(got, want)
    assert np.signbit(transpile(lambda v: ufunc(v))(np.array([-0.25], dtype)))[0]   # e.g. ceil(-0.25) is -0.0


# ---- guarantees.md, to rounding: x ** k for a constant 2 < |k| <= 4 is computed as products -------------------------
POWERS = {3: lambda x: x ** 3, 4: lambda x: x ** 4, -3: lambda x: x ** -3, -4: lambda x: x ** -4}
POW_RTOL = {"float16": 5e-3, "float32": 1e-5, "float64": 1e-14}


@pytest.mark.parametrize("k", POWERS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_small_integer_powers_are_products(k, dtype):
    """x ** k is ((x * x) * x) ...: bit for bit those products in NumPy (1 / the product for k < 0), and within
    the documented bound of NumPy's pow."""
    x = np.random.default_rng(k + 10).uniform(0.5, 2.0, 200).astype(dtype)
    x[:4] = [-1.5, -0.75, 1.0, 0.5]
    got = transpile(POWERS[k])(x)
    products = x
    for _ in range(abs(k) - 1):
        products = products * x
    if k < 0:
        products = np.asarray(1, dtype) / products
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, products)
    np.testing.assert_allclose(got, POWERS[k](x), rtol=POW_RTOL[dtype], atol=0)


# ---- guarantees.md, disk cache: float16 kernels survive the cache, loaded by a fresh process ------------------------
FLOAT16_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from transpiler import transpile

    def half(x, y):
        return np.tanh(x) * y + x / 3, (x * y).sum(axis=-1), x.astype(np.float32) - y

    x = np.linspace(-3, 3, 70, dtype=np.float16).reshape(7, 10)
    y = (np.arange(70, dtype=np.float16) / 7).reshape(7, 10)
    compiled = transpile(half)
    out = compiled(x, y)
    (_, kernel), _, _ = compiled.specialization((x, y), {})
    np.savez(sys.argv[1], *out)
    print(kernel.origin)
""")


def test_the_disk_cache_works_for_float16(tmp_path):
    """A float16 kernel stored by one process is loaded from TRANSPILER_CACHE_DIR by a fresh one, which gives the
    same result as the compiled kernel, within the documented float16 tolerance of NumPy."""
    script = tmp_path / "half.py"
    script.write_text(FLOAT16_SCRIPT)
    env = {**os.environ, "PYTHONPATH": ROOT, "TRANSPILER_CACHE_DIR": str(tmp_path / "cache")}
    origins = []
    for run in ("first", "second"):
        r = subprocess.run([sys.executable, str(script), str(tmp_path / f"{run}.npz")], capture_output=True,
                           text=True, cwd=ROOT, env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        origins.append(r.stdout.strip())
    assert origins == ["compiled", "disk cache"]
    x = np.linspace(-3, 3, 70, dtype=np.float16).reshape(7, 10)
    y = (np.arange(70, dtype=np.float16) / 7).reshape(7, 10)
    expected = (np.tanh(x) * y + x / 3, (x * y).sum(axis=-1), x.astype(np.float32) - y)
    first, second = np.load(tmp_path / "first.npz"), np.load(tmp_path / "second.npz")
    for i, want in enumerate(expected):
        a, b = first[f"arr_{i}"], second[f"arr_{i}"]
        np.testing.assert_array_equal(a, b, strict=True)                  # the loaded kernel is the stored one
        assert b.dtype == want.dtype
        tol = 2e-3 if want.dtype == np.float16 else 2e-6
        np.testing.assert_allclose(b.astype(np.float64), want.astype(np.float64), rtol=tol,
                                   atol=tol * np.abs(want.astype(np.float64)).max())


# ---- guarantees.md itself: every claim names a test, and every test it names exists -------------------------------
GUARANTEES = os.path.join(ROOT, "docs", "guarantees.md")
REFERENCE = re.compile(r"`(?:tests/)?(test_\w+\.py)::(test_\w+)`")


def _claims(text: str) -> list:
    """The table rows and bullets of guarantees.md (a bullet with its continuation lines), from the suite table to
    the end of "Writes, views and aliasing": each one is a claim, and must name the test that checks it."""
    start, end = text.index("| suite |"), text.index("## Running the long fuzz run")
    claims, current = [], None
    for line in text[start:end].splitlines():
        if line.startswith("|"):
            if current:
                claims.append(current)
            current = None
            if not re.match(r"\|\s*-", line) and not re.match(r"\| (suite|what|promise) \|", line):
                claims.append(line)
        elif re.match(r"\s*- ", line):
            if current:
                claims.append(current)
            current = line
        elif current and line.strip() and not line.startswith("#"):
            current += " " + line.strip()
        elif current:
            claims.append(current)
            current = None
    return claims + ([current] if current else [])


def test_every_test_named_in_guarantees_exists():
    """Each `file.py::test_name` in docs/guarantees.md is a test function defined in tests/file.py (a renamed or
    deleted test fails here), and no reference leaves out its file."""
    text = open(GUARANTEES).read()
    refs = REFERENCE.findall(text)
    assert len(refs) > 100
    missing = []
    for file, name in sorted(set(refs)):
        path = os.path.join(ROOT, "tests", file)
        source = open(path).read() if os.path.exists(path) else ""
        if not re.search(rf"^def {name}\(", source, re.MULTILINE):
            missing.append(f"{file}::{name}")
    assert not missing, f"docs/guarantees.md names tests that do not exist: {missing}"
    assert not re.search(r"`::test_", text), "a test reference without its file"


def test_every_claim_in_guarantees_names_its_test():
    claims = _claims(open(GUARANTEES).read())
    assert len(claims) > 40
    unnamed = [c[:100] for c in claims if not REFERENCE.search(c)]
    assert not unnamed, f"claims in docs/guarantees.md that name no test: {unnamed}"
