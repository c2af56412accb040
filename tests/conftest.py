import os
import shutil
import sys
import tempfile
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

# The disk cache of compiled kernels (issue #20 item 9). Tests never read or fill the user's cache: one directory per
# test session, shared by all its tests (subprocesses inherit it). A kernel compiled by one test is loaded from it by
# a later test with the same MLIR, so whether a test compiles or loads depends on which tests ran before it.
#
# The rule: a test may depend on that only where it does not matter, i.e. it must pass whether its kernels are
# compiled or loaded. A test whose subject is compiling (the compilation log, stage times, progress, what a fresh
# compilation stores) or loading (`kernel.origin == "disk cache"`, what is on disk, children that load what the
# parent stored) sets up its own cache state and asserts it: the `fresh_kernel_cache` fixture below (an empty
# directory for this test alone; subprocesses and spawned children inherit it through the environment), a
# TRANSPILER_CACHE_DIR of its own for a subprocess, or `disk_cache=False` (always compiled). A warm cache is made
# explicitly inside the test, by a first call (or process) that it asserts was "compiled", in that fresh directory.
_CACHE_DIR = tempfile.mkdtemp(prefix="transpiler-test-cache-")
os.environ["TRANSPILER_CACHE_DIR"] = _CACHE_DIR
# MLIR's verifier after every pass (off by default for compile time, backend/pipeline.py): a broken rewrite is then
# reported at the pass that follows it.
os.environ.setdefault("TRANSPILER_VERIFY_PASSES", "1")


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)


# The heaviest files first (most CPU in a suite run, measured 2026-12-02): under `--dist loadfile` each file runs
# whole in one worker, and a heavy file collected late ran alone at the end while the other worker sat idle. The
# order within a file, and of the other files, is kept (a stable sort).
_HEAVY_FIRST = ("test_fuzz.py", "test_promotion_table.py", "test_numeric_functions.py", "test_gpt2.py",
                "test_target_cpu.py", "test_cli.py", "test_disk_cache.py", "test_resources.py", "test_size_one.py",
                "test_packaging.py", "test_written_buffers.py", "test_pickling.py", "test_vector_math.py",
                "test_library_functions.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(_HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture
def fresh_kernel_cache(tmp_path, monkeypatch):
    """An empty kernel cache directory for this test only (TRANSPILER_CACHE_DIR; inherited by subprocesses)."""
    path = tmp_path / "kernel-cache"
    monkeypatch.setenv("TRANSPILER_CACHE_DIR", str(path))
    return path


def rng_for_test(module_seed: int, test_name: str) -> np.random.Generator:
    """The generator a test of a module with `RNG_SEED` sees as `RNG`: from the module's seed and the test's name
    (parameters included), so that its inputs do not depend on which tests ran before it."""
    return np.random.default_rng([module_seed, zlib.crc32(test_name.encode())])


@pytest.fixture(autouse=True)
def _module_rng_per_test(request, monkeypatch):
    """A module that defines `RNG_SEED` gets a fresh `RNG` for every test (`rng_for_test`): a failure reproduces when
    the test runs alone."""
    seed = getattr(request.module, "RNG_SEED", None) if request.module is not None else None
    if seed is not None:
        monkeypatch.setattr(request.module, "RNG", rng_for_test(seed, request.node.name))


# Modules that test the call under NumPy's default error state (warnings): there a call whose kernel raises a
# floating-point event runs again as NumPy (runtime/errstate.py).
_DEFAULT_ERRSTATE_MODULES = {"test_fp_warnings", "test_errstate"}


@pytest.fixture(autouse=True)
def _kernels_not_numpy_replays(request):
    """Every other test runs under np.errstate(all="ignore"), as helpers.check runs NumPy: a call whose data raise
    an event (a division by zero, log(0), inf - inf: the edge cases these tests are about) then runs the kernel
    only, so that the test compares the kernel's values with NumPy's, not NumPy's replay with NumPy."""
    name = request.module.__name__.rpartition(".")[2] if request.module is not None else ""
    if name in _DEFAULT_ERRSTATE_MODULES:
        yield
        return
    with np.errstate(all="ignore"):
        yield
