import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

# Tests never read or fill the user's kernel cache: one fresh directory per test session (subprocesses inherit it).
# Kernels compiled by one test are loaded from it by later tests with the same MLIR, so both paths run.
_CACHE_DIR = tempfile.mkdtemp(prefix="transpiler-test-cache-")
os.environ["TRANSPILER_CACHE_DIR"] = _CACHE_DIR


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
