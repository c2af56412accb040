"""Compiled functions pickle by reference to their Python function and options (transpiler/pickling.py), never
their kernels, so multiprocessing, concurrent.futures and Dask can send them to other processes, which compile the
kernels or load them from the disk cache. The functions sent to spawned processes live in
tests/kernels_for_pickling.py, which those processes can import."""
import collections
import concurrent.futures
import multiprocessing
import os
import pickle
import subprocess
import sys
import weakref

import cloudpickle
import numpy as np
import pytest

from tests import kernels_for_pickling as k
from transpiler import emit, pickling, transpile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTIONS = dict(static_shapes=True, opt_level=1, disk_cache=True, threads=False, max_specializations=3)


def rows(seed, shape=(300, 257)):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.fixture
def elsewhere(monkeypatch):
    """This process forgets the compiled functions it pickled or unpickled, as another process would not know them."""
    monkeypatch.setattr(pickling, "_live", weakref.WeakValueDictionary())
    monkeypatch.setattr(pickling, "_recent", collections.OrderedDict())


@pytest.fixture
def without_cloudpickle(monkeypatch):
    monkeypatch.setitem(sys.modules, "cloudpickle", None)   # `import cloudpickle` raises ImportError


def test_decorated_function_pickles_by_name():
    x = rows(0)
    k.rownorm(x)
    data = pickle.dumps(k.rownorm)
    assert b"tests.kernels_for_pickling" in data and len(data) < 100   # a name, no kernel
    assert pickle.loads(data) is k.rownorm
    np.testing.assert_allclose(pickle.loads(data)(x), np.sqrt((x * x).sum(axis=-1)), rtol=1e-12)
    again = pickle.loads(pickle.dumps(k.scaled_softmax))
    assert again is k.scaled_softmax and again._options() == {**OPTIONS, "opt_level": 2, "max_specializations": 5}


def test_transpiled_function_round_trip_keeps_options_and_compiles_on_first_use(elsewhere, fresh_kernel_cache):
    compiled = transpile(k.affine, **OPTIONS)
    x = rows(1)
    assert k.call_with_origin(compiled, x)[1] == "compiled"    # compiled here, and stored in the (empty) disk cache
    data = pickle.dumps(compiled)
    assert len(data) < 1000
    assert pickle.loads(data) is compiled          # this process has it
    pickling._live.clear()
    pickling._recent.clear()
    copy = pickle.loads(data)
    assert copy is not compiled and copy.py_func is k.affine
    assert copy._options() == OPTIONS
    assert copy.compilations == 0                  # nothing compiled until it is called
    result, origin = k.call_with_origin(copy, x)
    np.testing.assert_array_equal(result, x * 3.0 - 1.0)
    assert origin == "disk cache"
    assert pickle.loads(data) is copy              # unpickled again: the same object, its kernel kept


def test_copy_is_the_same_function():
    import copy
    compiled = transpile(k.affine, threads=False)
    assert copy.copy(k.rownorm) is k.rownorm and copy.deepcopy(compiled) is compiled


def closure(scale):
    return transpile(lambda x: x * scale + 1.0, threads=False)


def test_lambda_without_cloudpickle_is_a_clear_error(without_cloudpickle):
    with pytest.raises(pickle.PicklingError, match="closure.<locals>.<lambda> is not reachable by name.*cloudpickle"):
        pickle.dumps(closure(2.0))


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_lambda_pickles_by_value_with_cloudpickle(dumps, elsewhere):
    compiled = closure(2.5)
    data = dumps(compiled)
    pickling._live.clear()
    copy = pickle.loads(data)
    assert copy is not compiled and copy.threads is False
    x = rows(2)
    np.testing.assert_array_equal(copy(x), x * 2.5 + 1.0)


def test_cloudpickle_pickles_importable_functions_by_reference():
    data = cloudpickle.dumps(k.rownorm)
    assert len(data) < 100 and cloudpickle.loads(data) is k.rownorm
    compiled = transpile(k.affine)
    assert cloudpickle.loads(cloudpickle.dumps(compiled)) is compiled


def test_multiprocessing_fork_after_threaded_kernel():
    """A parent that has run threaded (OpenMP) loops and BLAS products can fork: intel-openmp's runtime and NumPy's
    OpenBLAS start afresh in the child. The children find the parent's compiled functions, kernels included, and
    compile nothing."""
    x = rows(3, (2000, 300))
    assert "omp.parallel" in emit(k.rownorm.py_func, x, stage="llvm")    # the parent's loops are threaded
    k.rownorm(x)
    a, b = rows(4, (300, 300)).astype(np.float32), rows(5, (300, 300)).astype(np.float32)
    k.matmul_tanh(a, b)   # two arrays: one object passed twice would be another specialization
    xs = [x, x * 2, x[:7], rows(4, (3, 5))]   # one specialization: no size-1 dim, which would be another
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(k.rownorm, xs)
        products = pool.starmap(k.matmul_tanh, [(a, b), (b, a)])
        compilations = pool.map(k.options_of, [k.rownorm, k.matmul_tanh])
    for got, arg in zip(results, xs):
        np.testing.assert_allclose(got, np.sqrt((arg * arg).sum(axis=-1)), rtol=1e-12)
    for got, (left, right) in zip(products, [(a, b), (b, a)]):
        # the parent's kernel's answer, and within float32's bound for a sum of 300 products of the exact one
        # (NumPy's own float32 product is 1.6e-5 from it here on a Zen 3: another order of the sums)
        np.testing.assert_array_equal(got, k.matmul_tanh(left, right))
        exact = np.tanh(left.astype(np.float64) @ right.astype(np.float64))
        eps = np.finfo(np.float32).eps
        assert np.all(np.abs(got - exact) <= 300 * eps * (np.abs(left) @ np.abs(right)) + 4 * eps)
    assert [c for _, c in compilations] == [k.rownorm.compilations, k.matmul_tanh.compilations]


def test_multiprocessing_spawn_loads_from_disk_cache(fresh_kernel_cache):
    x = rows(5)
    # compiled here (a new compiled function with k.rownorm's options: k.rownorm itself may hold this kernel from an
    # earlier test, and would not store it again) into the empty disk cache the spawned children inherit
    assert k.call_with_origin(transpile(k.rownorm, **k.rownorm._options()), x)[1] == "compiled"
    xs = [x, x[::2], x * 0.5]
    compiled = transpile(k.affine, **OPTIONS)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.starmap(k.call_with_origin, [(k.rownorm, a) for a in xs])
        options, compilations = pool.apply(k.options_of, (compiled,))
        mapped = pool.map(compiled, xs)
    for (got, origin), arg in zip(results, xs):
        np.testing.assert_allclose(got, np.sqrt((arg * arg).sum(axis=-1)), rtol=1e-12)
        assert origin == "disk cache"
    assert options == OPTIONS and compilations == 0  # a fresh process: options kept, nothing compiled before a call
    for got, arg in zip(mapped, xs):
        np.testing.assert_array_equal(got, arg * 3.0 - 1.0)


def test_process_pool_executor_keeps_options():
    compiled = transpile(k.affine, **OPTIONS)
    xs = [rows(6, (40, 9)), rows(7, (3,)), np.arange(12.0).reshape(3, 4)]
    with concurrent.futures.ProcessPoolExecutor(2) as executor:
        results = list(executor.map(compiled, xs))
        options, _ = executor.submit(k.options_of, compiled).result()
    for got, arg in zip(results, xs):
        np.testing.assert_array_equal(got, arg * 3.0 - 1.0)
    assert options == OPTIONS


MAIN_SCRIPT = '''
import multiprocessing, pickle, sys
import numpy as np
from transpiler import transpile

SCALE = np.float64(3.0)

def helper(x):
    return x * SCALE

@transpile
def f(x):
    return helper(x) + 1

def make(k):
    return transpile(lambda y: helper(y) - k, threads=False)

if __name__ == "__main__":
    x = np.arange(5.0)
    sys.modules["cloudpickle"] = None     # plain pickle only: f goes by name, the child imports this script again
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pickle.dumps(f).count(b"__main__") == 1 and len(pickle.dumps(f)) < 100
        np.testing.assert_array_equal(pool.map(f, [x])[0], 3 * x + 1)
    del sys.modules["cloudpickle"]
    import cloudpickle                    # by value, as Dask sends functions of __main__
    with open(sys.argv[1], "wb") as out:
        cloudpickle.dump([f, make(2.0)], out)
'''

LOADER = '''
import pickle, sys
import numpy as np
f, g = pickle.load(open(sys.argv[1], "rb"))
x = np.arange(5.0)
np.testing.assert_array_equal(f(x), 3 * x + 1)
np.testing.assert_array_equal(g(x), 3 * x - 2)
print("ok")
'''


def test_functions_of_main_by_name_and_by_value(tmp_path):
    """A script's compiled functions: by name through multiprocessing without cloudpickle; by value through
    cloudpickle, to a process where the script's file does not exist (its source travels with the function)."""
    script, payload = tmp_path / "script.py", tmp_path / "payload.pkl"
    script.write_text(MAIN_SCRIPT)
    env = {**os.environ, "PYTHONPATH": ROOT}
    run = subprocess.run([sys.executable, str(script), str(payload)], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path), timeout=120)
    assert run.returncode == 0, run.stderr
    script.unlink()
    load = subprocess.run([sys.executable, "-c", LOADER, str(payload)], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), timeout=120)
    assert load.returncode == 0, load.stderr
    assert load.stdout.strip() == "ok"


def test_dask_map_blocks_on_worker_processes():
    import dask.array as da
    import distributed
    x = rows(8, (1200, 300))
    scale = 0.5
    scaled = transpile(lambda b: b * scale - 1.0)       # a closure: Dask sends it by value (cloudpickle)
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) \
            as cluster, distributed.Client(cluster):
        blocks = da.from_array(x, chunks=(300, 300))
        norms = blocks.map_blocks(k.rownorm, drop_axis=1, dtype=np.float64, meta=np.empty((0,)))
        shifted = blocks.map_blocks(scaled, dtype=np.float64, meta=np.empty((0, 0)))
        got_norms, got_shifted = da.compute(norms, shifted)
    np.testing.assert_allclose(got_norms, np.sqrt((x * x).sum(axis=-1)), rtol=1e-12)
    np.testing.assert_array_equal(got_shifted, x * scale - 1.0)


FORKED_CONTEXT = '''
import gc, os, sys
from mlir import ir, passmanager
from transpiler import driver
ctx = driver.new_context()
with ctx, ir.Location.unknown():
    source = "\\n".join(f"func.func @f{i}(%a: i32) -> i32 {{ %c = arith.constant 0 : i32\\n"
                       f" %b = arith.addi %a, %c : i32\\n return %b : i32 }}" for i in range(16))
    module = ir.Module.parse(source)
    passmanager.PassManager.parse("builtin.module(func.func(canonicalize, cse))").run(module.operation)
pid = os.fork()
if pid == 0:      # a pool worker collecting the parent's garbage: the context is destroyed in the child
    del module, ctx
    gc.collect()
    os._exit(0)
_, status = os.waitpid(pid, 0)
print(os.WIFEXITED(status) and os.WEXITSTATUS(status))
'''


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_can_destroy_the_parents_mlir_context():
    """The compiler's MLIR contexts have no thread pool: one that ran passes on pool threads hung (or crashed, in
    a ProcessPoolExecutor worker collecting garbage) when a forked child destroyed it, joining threads that only
    the parent has."""
    out = subprocess.run([sys.executable, "-c", FORKED_CONTEXT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["0"], out.stderr
