"""The on-disk kernel cache: kernels loaded back from object files match NumPy like compiled ones; damaged entries
are misses; several processes can share one directory; the CLI clears it; an empty TRANSPILER_CACHE_DIR turns it
off."""
import glob
import json
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from helpers import some_slow
from transpiler import transpile
from transpiler.runtime import disk_cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}     # docs/guarantees.md, tests/helpers.py
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


@pytest.fixture
def cache_dir(fresh_kernel_cache):
    """Every test here starts from an empty cache of its own (conftest.py: the rule for tests about the cache)."""
    return fresh_kernel_cache


def kernel_of(compiled, *args, **kwargs):
    (_, kernel), _, _ = compiled.specialization(args, kwargs)
    return kernel


def compiled_then_loaded(fn, *args):
    """Results of a first compile (which stores the kernel) and of a fresh specialization (which loads it)."""
    disk_cache.clear()
    first = transpile(fn)
    out_first = first(*args)
    assert kernel_of(first, *args).origin == "compiled"
    second = transpile(fn)
    out_second = second(*args)
    assert kernel_of(second, *args).origin == "disk cache"
    return out_first, out_second


def assert_same(actual, expected, rtol=None):
    """Floats within `rtol`, by default the documented tolerance of the result's dtype; ints and bools exact."""
    assert type(actual) is type(expected)
    if isinstance(expected, tuple):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, rtol)
        return
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    if np.asarray(expected).dtype.kind == "f":
        r = RTOL[np.asarray(expected).dtype.name] if rtol is None else rtol
        np.testing.assert_allclose(actual, expected, rtol=r, atol=0 if rtol is None else r)
    else:
        np.testing.assert_array_equal(actual, expected, strict=True)      # ints and bools: exact


def mixed(x):
    return (x * 3 + 1) // 2 if x.dtype != np.bool_ else x & ~x[::-1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", some_slow([1, 7, 1000], (7,)))
def test_loaded_kernels_match_numpy(cache_dir, dtype, n):
    x = (np.arange(n * 3) % 5).astype(dtype).reshape(n, 3)
    for arg in (x, x.T, x[::2]):   # contiguous, transposed, strided
        first, second = compiled_then_loaded(mixed, arg)
        assert_same(first, mixed(arg))
        assert_same(second, mixed(arg))


def softmax_and_matmul(x, w):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ w, p.argmax(axis=-1)


def test_matmul_callbacks_and_several_results_survive_the_cache(cache_dir):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((7, 5)).astype(np.float32), rng.standard_normal((5, 3))
    first, second = compiled_then_loaded(softmax_and_matmul, x, w)
    # p is a float32 softmax (float32's 2e-6) before the float64 product
    assert_same(first, softmax_and_matmul(x, w), rtol=2e-6)
    assert_same(second, softmax_and_matmul(x, w), rtol=2e-6)


def gather(table, ids):
    return table[ids] * 2


def test_check_flags_of_a_loaded_kernel_still_raise(cache_dir):
    table = np.arange(12.0).reshape(4, 3)
    compiled_then_loaded(gather, table, np.array([0, 3]))
    with pytest.raises(IndexError):
        transpile(gather)(table, np.array([0, 4]))


def block(x):
    return np.tanh(x) * 2 + x.mean()


def repeated(x):
    for _ in range(3):
        x = block(block(x))
    return x


def test_outlined_callees_are_in_the_object(cache_dir):
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    first, second = compiled_then_loaded(repeated, x)
    np.testing.assert_allclose(second, repeated(x), rtol=2e-6, atol=2e-6)      # float32
    assert np.array_equal(first, second)


def test_key_separates_what_changes_the_code(cache_dir):
    base = disk_cache.key("module {}", "f", "O3 threads=True")
    assert base == disk_cache.key("module {}", "f", "O3 threads=True")
    assert len({base, disk_cache.key("module { }", "f", "O3 threads=True"), disk_cache.key("module {}", "g", "O3"),
                disk_cache.key("module {}", "f", "O0 threads=True"),
                disk_cache.key("module {}", "f", "O3 threads=False")}) == 5


def test_damaged_entries_are_misses_and_get_rewritten(cache_dir):
    x = np.arange(10.0)
    transpile(block)(x)
    [entry] = glob.glob(str(cache_dir / "*.kernel"))
    good = open(entry, "rb").read()
    for damaged in (good[: len(good) // 2], good[:-1] + bytes([good[-1] ^ 1]), b"", b"not a kernel"):
        with open(entry, "wb") as f:
            f.write(damaged)
        again = transpile(block)
        np.testing.assert_allclose(again(x), block(x), rtol=RTOL["float64"], atol=0)
        assert kernel_of(again, x).origin == "compiled"
        assert open(entry, "rb").read() == good   # rewritten whole


def test_temporary_files_of_an_unfinished_write_are_never_read(cache_dir):
    x = np.arange(10.0)
    transpile(block)(x)
    [entry] = glob.glob(str(cache_dir / "*.kernel"))
    good = open(entry, "rb").read()
    os.remove(entry)
    with open(cache_dir / ".tmp-unfinished", "wb") as f:   # a writer that died before its rename
        f.write(good[: len(good) // 3])
    again = transpile(block)
    np.testing.assert_allclose(again(x), block(x), rtol=RTOL["float64"], atol=0)
    assert kernel_of(again, x).origin == "compiled"


def test_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TRANSPILER_CACHE_DIR", str(blocker / "cache"))   # a directory under a file: cannot exist
    x = np.arange(4.0)
    np.testing.assert_allclose(transpile(block)(x), block(x), rtol=RTOL["float64"], atol=0)


def test_empty_cache_dir_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TRANSPILER_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    x = np.arange(4.0)
    for _ in range(2):
        compiled = transpile(block)
        compiled(x)
        assert kernel_of(compiled, x).origin == "compiled"
    assert disk_cache.directory() is None
    assert list(tmp_path.iterdir()) == []


def test_option_disk_cache_false(cache_dir):
    x = np.arange(4.0)
    transpile(block)(x)
    compiled = transpile(block, disk_cache=False)
    compiled(x)
    assert kernel_of(compiled, x).origin == "compiled"


def test_cli_clear_cache(cache_dir):
    transpile(block)(np.arange(4.0))
    transpile(block)(np.arange(4, dtype=np.float32))
    (cache_dir / ".tmp-leftover").write_bytes(b"x")
    from test_cli import run      # the CLI's main() in this process (test_cli.py runs the command itself too)
    r = run("--clear-cache")
    assert r.returncode == 0, r.stderr
    assert "removed 3" in r.stdout
    assert list(cache_dir.iterdir()) == []


WORKER = textwrap.dedent("""
    import sys
    import numpy as np
    from transpiler import transpile

    def f(x, w):
        return np.tanh(x @ w).sum(axis=-1) + x.mean()

    def g(x):
        return np.where(x > 0, x ** 3, -x)

    rng = np.random.default_rng(int(sys.argv[1]))
    origins = []
    for n in (1, 7, 100):
        x, w = rng.standard_normal((n, 5)).astype(np.float32), rng.standard_normal((5, 3))
        for fn, args in ((f, (x, w)), (g, (x,))):
            compiled = transpile(fn)
            want = fn(*args)                 # f: float64, but x.mean() is float32 (its 2e-6)
            np.testing.assert_allclose(compiled(*args), want, rtol=2e-6, atol=2e-6)
            (_, kernel), _, _ = compiled.specialization(args, {})
            origins.append(kernel.origin)
    print(",".join(origins))
""")


@pytest.mark.slow
def test_processes_sharing_one_directory(cache_dir, tmp_path):
    """Four processes race on an empty directory (each compiles, loads or both), then one reads only hits."""
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {**os.environ, "PYTHONPATH": ROOT}

    def start(seed):
        return subprocess.Popen([sys.executable, str(script), str(seed)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    racers = [start(seed) for seed in range(4)]
    for p in racers:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert len(glob.glob(str(cache_dir / "*.kernel"))) == 4   # f and g, each for n == 1 and for any other n
    assert not glob.glob(str(cache_dir / ".tmp-*"))
    late = start(9)
    out, err = late.communicate(timeout=300)
    assert late.returncode == 0, err
    assert out.strip().split(",") == ["disk cache"] * 6


def test_llvm_options_are_part_of_the_key(cache_dir, tmp_path):
    """Kernels compiled with other LLVM options (TRANSPILER_LLVM_OPTIONS) are other entries, and still correct."""
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {**os.environ, "PYTHONPATH": ROOT}
    runs = []
    for options in (None, "", None):
        run_env = dict(env)
        if options is not None:
            run_env["TRANSPILER_LLVM_OPTIONS"] = options
        r = subprocess.run([sys.executable, str(script), "1"], capture_output=True, text=True, cwd=ROOT, env=run_env)
        assert r.returncode == 0, r.stderr
        runs.append(r.stdout.strip().split(","))
    assert runs[0][0] == "compiled" and runs[1][0] == "compiled"   # LLVM's defaults: not the default entry
    assert set(runs[2]) == {"disk cache"}
    assert len(glob.glob(str(cache_dir / "*.kernel"))) == 8


def _entry_parts(data: bytes):
    end = data.find(b"\n", len(disk_cache.FORMAT))
    return json.loads(data[len(disk_cache.FORMAT):end]), data[end + 1:]


def _entry_bytes(header: dict, obj: bytes) -> bytes:
    return disk_cache.FORMAT + json.dumps(header).encode() + b"\n" + obj


def test_a_flipped_header_bit_is_a_miss(cache_dir):
    """The checksum covers the header too: a changed library function name is a miss, not an internal error."""
    a, b = np.ones((3, 3), np.float16), np.ones((3, 3), np.float16)
    transpile(half_product)(a, b)
    [entry] = glob.glob(str(cache_dir / "*.kernel"))
    data = open(entry, "rb").read()
    header, obj = _entry_parts(data)
    assert header["library_functions"], "a float16 product calls back into NumPy"
    flipped = data.replace(header["library_functions"][0].encode(), header["library_functions"][0][:-1].encode()
                           + b"x")
    open(entry, "wb").write(flipped)
    again = transpile(half_product)
    np.testing.assert_array_equal(again(a, b), half_product(a, b))
    assert kernel_of(again, a, b).origin == "compiled"


def test_an_entry_saved_under_another_keys_name_is_a_miss(cache_dir):
    """A valid entry of a float32 kernel put where the int32 kernel's entry goes is never run."""
    x32, i32 = np.arange(6, dtype=np.float32), np.arange(6, dtype=np.int32)
    transpile(block)(x32)
    [float_entry] = glob.glob(str(cache_dir / "*.kernel"))
    transpile(block)(i32)
    [int_entry] = [p for p in glob.glob(str(cache_dir / "*.kernel")) if p != float_entry]
    open(int_entry, "wb").write(open(float_entry, "rb").read())
    again = transpile(block)
    np.testing.assert_array_equal(again(i32), block(i32))
    assert kernel_of(again, i32).origin == "compiled"


def test_a_malformed_object_with_a_recomputed_checksum_is_never_linked(cache_dir):
    """Damage in the ELF structure (a section alignment that is not a power of two makes LLVM abort the process)
    with a checksum made to match: the object is checked before it is linked, and recompiled."""
    x = np.arange(10.0)
    transpile(block)(x)
    [entry] = glob.glob(str(cache_dir / "*.kernel"))
    header, obj = _entry_parts(open(entry, "rb").read())
    shoff = struct.unpack_from("<Q", obj, 40)[0]
    damaged = bytearray(obj)
    struct.pack_into("<Q", damaged, shoff + 64 * 1 + 48, 3)        # section 1: sh_addralign = 3
    fields = {k: header[k] for k in ("key", "library_functions", "size", "parts", "may_raise")}
    header["sha256"] = disk_cache._digest(fields, bytes(damaged))
    open(entry, "wb").write(_entry_bytes(header, bytes(damaged)))
    code = textwrap.dedent(f"""
        import numpy as np, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_disk_cache import block
        from transpiler import transpile
        f = transpile(block)
        print(f(np.arange(10.0)).sum(), f.specialization((np.arange(10.0),), {{}})[0][1].origin)
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={**os.environ, "TRANSPILER_CACHE_DIR": str(cache_dir)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(block(np.arange(10.0)).sum()), "compiled"]


def half_product(a, b):
    return a @ b
