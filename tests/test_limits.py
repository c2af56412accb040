"""What the compiler keeps is bounded: compiled specializations per function (least recently used evicted) and
the disk cache's size (least recently used entries removed); options given to transpile() of a compiled function
are honoured (issues #14 and #18)."""
import glob
import os

import numpy as np

from transpiler import transpile
from transpiler.runtime import disk_cache


def scale(x, k):
    return x * float(k)      # k is a string: it specializes (one kernel per value)


def test_specializations_are_bounded_least_recently_used_first(fresh_kernel_cache):
    f = transpile(scale, max_specializations=3)
    x = np.arange(3.0)
    for k in ("1", "2", "3"):
        f(x, k)
    f(x, "1")                     # "1" is now the most recently used
    f(x, "4")                     # evicts "2"
    assert len(f._cache) == 3
    keys = [key[1][2] for key in f._cache]
    assert keys == ["3", "1", "4"]
    np.testing.assert_array_equal(f(x, "2"), x * 2)     # compiled (or loaded) again, still right
    assert f.compilations == 5


def test_the_disk_cache_is_bounded_least_recently_used_first(monkeypatch, fresh_kernel_cache):
    cache = fresh_kernel_cache
    x = np.arange(3.0)
    for k in ("1", "2", "3"):
        transpile(scale)(x, k)
    paths = sorted(glob.glob(str(cache / "*.kernel")), key=os.path.getmtime)
    assert len(paths) == 3
    sizes = [os.path.getsize(p) for p in paths]
    os.utime(paths[0])            # the oldest entry is used again: the second oldest goes first
    removed = disk_cache.evict(str(cache), sum(sizes) - 1)
    assert removed == 1 and not os.path.exists(paths[1]) and os.path.exists(paths[0])
    monkeypatch.setenv("TRANSPILER_CACHE_MAX_MB", "0")
    transpile(scale)(x, "5")      # every store trims the cache to the limit
    assert glob.glob(str(cache / "*.kernel")) == []


def test_new_options_for_a_compiled_function_are_honoured():
    f = transpile(scale)
    g = transpile(f, threads=False, max_specializations=2)
    assert g is not f and g.threads is False and g.max_specializations == 2 and g.py_func is scale
    assert transpile(f) is f
