"""The first call in a fresh process, from the disk cache: nothing loaded that the kernel does not need, and MLIR's
runtime utilities (libMLIR.so with them) loaded off the calling thread, or only for the kernels that call them."""
import os
import subprocess
import sys
import textwrap

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rows_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def strided_copy(x):
    """A copy out of a strided view, outside any loop: a call of MLIR's memrefCopy (runtime utilities)."""
    return np.ascontiguousarray(x[::2, 1:])


def run(code: str, cache_dir, **env) -> list:
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import numpy as np
        from transpiler import transpile
        from test_first_call import rows_softmax, strided_copy
        x = np.linspace(-2, 2, 48).reshape(6, 8)
    """) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "TRANSPILER_CACHE_DIR": str(cache_dir), **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def libmlir_loaded() -> str:
    return "any('/libMLIR.so' in line for line in open('/proc/self/maps'))"


ORIGIN = "f.specialization((x,), {})[0][1].origin.replace(' ', '-')"


def test_a_cache_hit_reads_no_package_metadata_and_no_execution_engine(tmp_path):
    """Regression: the key's package versions came from importlib.metadata (importing email, zipfile, csv ...:
    ~20 ms of a first call from the cache), and the ExecutionEngine's bindings were imported though kernels no
    longer use them."""
    compile_both = """
        for fn in (rows_softmax, strided_copy):
            transpile(fn)(x)
    """
    run(compile_both, tmp_path)
    out = run(f"""
        for fn in (rows_softmax, strided_copy):
            f = transpile(fn)
            assert np.allclose(f(x), fn(x), rtol=1e-12, atol=0)   # (numpy.testing imports importlib.metadata)
            print({ORIGIN})
        print('importlib.metadata' in sys.modules, 'mlir.execution_engine' in sys.modules)
    """, tmp_path)
    assert out == ["disk-cache", "disk-cache", "False", "False"]


def test_runtime_utilities_are_loaded_only_for_a_kernel_that_calls_them(tmp_path):
    """Without the preload (the first compilation's thread), a kernel linked from the cache loads MLIR's runtime
    utilities only if it calls one of their functions."""
    run("""
        for fn in (rows_softmax, strided_copy):
            transpile(fn)(x)
    """, tmp_path)
    out = run(f"""
        from transpiler.runtime import jit
        jit.preload_runtime_libraries = lambda: None
        import transpiler.api
        transpiler.api.preload_runtime_libraries = lambda: None
        f = transpile(rows_softmax)
        assert np.allclose(f(x), rows_softmax(x), rtol=1e-12, atol=0)
        print({ORIGIN}, {libmlir_loaded()})
        f = transpile(strided_copy)
        assert np.array_equal(f(x), strided_copy(x))
        print({ORIGIN}, {libmlir_loaded()})
    """, tmp_path)
    assert out == ["disk-cache", "False", "disk-cache", "True"]


def test_the_preload_thread_ends_with_the_first_compilation(tmp_path):
    """The runtime utilities are loaded by the first compilation's own thread, which is joined before the kernel is
    linked: no thread of ours outlives a call (a fork meanwhile could inherit the loader's lock held)."""
    out = run(f"""
        import threading
        f = transpile(rows_softmax)
        assert np.allclose(f(x), rows_softmax(x), rtol=1e-12, atol=0)
        print({ORIGIN}, {libmlir_loaded()}, [t.name for t in threading.enumerate() if 'transpiler' in t.name])
    """, "")
    assert out == ["compiled", "True", "[]"]


def refused_at_once(x):
    return x.tolist()       # (refused: a list of Python numbers)


def test_the_preload_thread_ends_with_a_compilation_that_fails(tmp_path):
    """A first compilation that raises CompileError links nothing; the preload thread is joined all the same (its
    dlopen made slower here than any typing)."""
    out = run("""
        import threading, time
        from transpiler import CompileError
        from transpiler.runtime import jit
        from test_first_call import refused_at_once
        dlopen = jit._dlopen_global
        jit._dlopen_global = lambda path: (time.sleep(1), dlopen(path))
        f = transpile(refused_at_once)
        try:
            f(x)
        except CompileError:
            print([t.name for t in threading.enumerate() if 'transpiler' in t.name])
    """, "")
    assert out == ["[]"]


def divide_in_place(x, y):
    x /= y


def test_a_kernel_from_the_cache_still_replays_a_floating_point_event(tmp_path):
    """Whether a kernel can raise a floating-point event is stored with it (the cache hit no longer prints the
    MLIR it was read from): with the warnings on, a division by zero into an argument warns as NumPy does, and the
    argument is divided once (its old contents are kept for the replay)."""
    code = """
        import warnings
        from test_first_call import divide_in_place
        x, y = np.arange(1.0, 7.0), np.array([2.0, 0.0, 2.0, 2.0, 2.0, 2.0])
        f = transpile(divide_in_place)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f(x, y)
        print(f.specialization((x, y), {})[0][1].origin.replace(' ', '-'), len(caught), x.tolist() == [0.5, float('inf'), 1.5, 2.0, 2.5, 3.0])
    """
    assert run(code, tmp_path, TRANSPILER_FP_WARNINGS="1") == ["compiled", "1", "True"]
    assert run(code, tmp_path, TRANSPILER_FP_WARNINGS="1") == ["disk-cache", "1", "True"]


def test_the_key_ignores_where_the_source_is(tmp_path):
    """The same function at other lines of another file (the MLIR differs only in its source locations): one
    entry, loaded by the second."""
    for k, blank_lines in enumerate((0, 7)):
        (tmp_path / f"where_{k}.py").write_text("import numpy as np\n" + "\n" * blank_lines
                                                + "def scaled(x):\n    return np.sqrt(x) * 2\n")
    code = f"""
        sys.path.insert(0, {str(tmp_path)!r})
        import where_0, where_1
        for module in (where_0, where_1):
            f = transpile(module.scaled)
            assert np.array_equal(f(x * x), np.sqrt(x * x) * 2)
            print(f.specialization((x * x,), {{}})[0][1].origin.replace(' ', '-'))
    """
    assert run(code, tmp_path / "cache") == ["compiled", "disk-cache"]
