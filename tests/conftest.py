import os
import shutil
import sys
import tempfile
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

# Tests never read or fill the user's kernel cache: one fresh directory per test session (subprocesses inherit it).
# Kernels compiled by one test are loaded from it by later tests with the same MLIR, so both paths run.
_CACHE_DIR = tempfile.mkdtemp(prefix="transpiler-test-cache-")
os.environ["TRANSPILER_CACHE_DIR"] = _CACHE_DIR


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)


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
