"""LLVM-dialect modules to object files (runtime/machine_code.py): the ExecutionEngine's object in one part, LLVM's
`default<O3>` in two halves, and a module split in parts giving the same kernel as one part."""
import ctypes
import os
import tempfile

import numpy as np
import pytest
from mlir.execution_engine import ExecutionEngine

from transpiler import driver, transpile
from transpiler.backend import pipeline
from transpiler.runtime import jit, machine_code
from transpiler.stdlib import nn
from transpiler.stdlib.gpt2.model import gpt2
from transpiler.stdlib.gpt2.weights import CONFIGS, random_params


def lowered(fn, *args):
    """(MLIR context, LLVM-dialect module) of `fn` specialized for `args`."""
    f = transpile(fn, disk_cache=False)
    bound = f._bind(args, {})
    key, _, _ = f._flatten(bound)
    _, typed = f._typed(key, bound)
    context = driver.new_context()
    with context:
        module = driver.to_mlir(typed, context)
        pipeline.optimize(module)
        pipeline.lower_to_llvm(module)
    return context, module


def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def two_calls(x, y):
    return nn.layer_norm(x, y, y) + nn.gelu(x) * nn.softmax(x).sum()


@pytest.fixture
def llvm_options():
    jit.load_runtime_libraries()     # LLVM's code generation options, as every kernel is compiled with


def test_one_part_is_the_object_the_execution_engine_made(llvm_options):
    """Same triple, data layout, packed wrapper, passes and code generation level as MLIR's ExecutionEngine, which
    compiled the kernels before: its object file, byte for byte."""
    context, module = lowered(softmax_rows, np.ones((4, 8), np.float32))
    engine = ExecutionEngine(module, opt_level=3)
    engine.initialize()
    engine.lookup("softmax_rows")
    with tempfile.TemporaryDirectory() as tmp:
        engine.dump_to_object_file(os.path.join(tmp, "k.o"))
        expected = open(os.path.join(tmp, "k.o"), "rb").read()
    assert machine_code.compile_module(module, 3, parts=1) == [expected]


def test_the_pipeline_in_two_halves_is_llvms_default_o3(llvm_options, monkeypatch):
    """SIMPLIFY then OPTIMIZE (the pass list `opt -O3 -print-pipeline-passes` prints, cut in two) gives the object
    `default<O3>` gives; fails when another LLVM changes its pipeline (PIPELINE_LLVM_VERSION then turns the split
    off)."""
    context, module = lowered(two_calls, np.linspace(-2, 2, 96).reshape(8, 12), np.ones(12))
    monkeypatch.setattr(machine_code, "PIPELINE_LLVM_VERSION", machine_code.llvm_version())
    halves = machine_code.compile_module(module, 3, parts=1)
    monkeypatch.setattr(machine_code, "PIPELINE_LLVM_VERSION", "another LLVM")
    assert machine_code.compile_module(module, 3, parts=1) == halves


def test_partition_balances_the_sizes():
    sizes = {"a": 900, "b": 500, "c": 450, "d": 40, "e": 30}
    assert machine_code.partition(sizes, 2) == [["a", "d", "e"], ["b", "c"]]    # 970 and 950
    assert machine_code.partition(sizes, 1) == [["a", "b", "c", "d", "e"]]
    assert machine_code.partition({"a": 5}, 3) == [["a"]]      # no empty parts


def force_parts(monkeypatch, parts):
    monkeypatch.setattr(machine_code, "default_parts", lambda: parts)
    monkeypatch.setattr(machine_code, "SPLIT_MIN_INSTRUCTIONS", 0)


def count_parts(monkeypatch):
    counts = []
    compile_module = machine_code.compile_module

    def counting(*args, **kwargs):
        objects = compile_module(*args, **kwargs)
        counts.append(len(objects))
        return objects
    monkeypatch.setattr(machine_code, "compile_module", counting)
    return counts


def several_calls(x, y):
    a = nn.layer_norm(x, y, y)
    b = nn.layer_norm(a * 2, y, y)
    return nn.gelu(a) + nn.gelu(b) * nn.softmax(a) + nn.softmax(b)


@pytest.mark.parametrize("parts", [2, 5])
def test_a_module_split_in_parts_gives_the_same_results(monkeypatch, parts):
    """Outlined functions called from two places, library calls: every function in one part and declared in the
    others (5 parts: some hold one function). Bit for bit the one-part kernel's results."""
    x, y = np.linspace(-3, 3, 40 * 24).reshape(40, 24), np.linspace(0.5, 1.5, 24)
    counts = count_parts(monkeypatch)
    force_parts(monkeypatch, 1)
    whole = transpile(several_calls, disk_cache=False)(x, y)
    force_parts(monkeypatch, parts)
    split = transpile(several_calls, disk_cache=False)(x, y)
    assert counts == [1, parts]
    assert whole.dtype == split.dtype and whole.tobytes() == split.tobytes()
    np.testing.assert_allclose(split, several_calls(x, y), rtol=1e-12)


def test_gpt2_split_in_parts_gives_the_same_logits(monkeypatch):
    """GPT-2 (tiny): outlined blocks and heads, OpenMP's parallel bodies, BLAS calls; bit for bit the one-part
    kernel's logits."""
    params = random_params(CONFIGS["tiny"], seed=0)
    ids = np.array([5, 17, 3, 99, 2, 41], np.int64)
    n_head = CONFIGS["tiny"]["n_head"]
    counts = count_parts(monkeypatch)
    force_parts(monkeypatch, 1)
    whole = transpile(gpt2, disk_cache=False)(ids, **params, n_head=n_head)
    force_parts(monkeypatch, 3)
    split = transpile(gpt2, disk_cache=False)(ids, **params, n_head=n_head)
    assert counts == [1, 3]
    assert whole.dtype == split.dtype and whole.tobytes() == split.tobytes()
    np.testing.assert_allclose(split, gpt2(ids, **params, n_head=n_head), rtol=1e-5, atol=1e-4)


def test_small_modules_stay_in_one_part(monkeypatch):
    counts = count_parts(monkeypatch)
    monkeypatch.setattr(machine_code, "default_parts", lambda: 4)
    x = np.linspace(-1, 1, 12).reshape(3, 4)
    np.testing.assert_allclose(transpile(softmax_rows, disk_cache=False)(x), softmax_rows(x), rtol=1e-15)
    assert counts == [1]


def test_a_kernel_in_parts_goes_through_the_disk_cache(monkeypatch, tmp_path):
    """The entry keeps every part; a new process (here: a new transpiled function) links them together."""
    monkeypatch.setenv("TRANSPILER_CACHE_DIR", str(tmp_path))
    force_parts(monkeypatch, 3)
    x, y = np.linspace(-2, 2, 96).reshape(8, 12), np.ones(12)
    first = transpile(two_calls)
    expected = first(x, y)
    again = transpile(two_calls)
    np.testing.assert_array_equal(again(x, y), expected)
    kernel = again.specialization((x, y), {})[0][1]
    assert kernel.origin == "disk cache"
    assert len(first.specialization((x, y), {})[0][1].object_code()) == 3
    np.testing.assert_allclose(expected, two_calls(x, y), rtol=1e-12)


def test_llvm_errors_are_compile_errors_not_crashes(llvm_options):
    """A pass list LLVM cannot parse is reported as an exception (driver.py turns it into a CompileError)."""
    context, module = lowered(softmax_rows, np.ones((2, 3)))
    machine = machine_code._TargetMachine()
    lib, capi = machine_code._libraries()
    llvm_context = lib.LLVMContextCreate()
    try:
        translated = capi.mlirTranslateModuleToLLVMIR(machine_code._operation_pointer(module), llvm_context)
        with pytest.raises(machine_code.CompileError, match="no-such-pass"):
            machine.run_passes(translated, "no-such-pass")
        lib.LLVMDisposeModule(translated)
    finally:
        lib.LLVMContextDispose(llvm_context)


GLOBALS = """
module {
  llvm.mlir.global external @shared_value(0 : i64) : i64
  llvm.mlir.global internal @local_counter(0 : i64) : i64
  llvm.func @set_value(%x: i64) {
    %p = llvm.mlir.addressof @shared_value : !llvm.ptr
    llvm.store %x, %p : i64, !llvm.ptr
    llvm.return
  }
  llvm.func @get_value() -> i64 {
    %p = llvm.mlir.addressof @shared_value : !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i64
    llvm.return %v : i64
  }
  LOCAL
}
"""
COUNT = """
  llvm.func @count() -> i64 {
    %p = llvm.mlir.addressof @local_counter : !llvm.ptr
    %one = llvm.mlir.constant(1 : i64) : i64
    %v = llvm.load %p : !llvm.ptr -> i64
    %w = llvm.add %v, %one : i64
    llvm.store %w, %p : i64, !llvm.ptr
    llvm.return %w : i64
  }
"""


@pytest.mark.parametrize("local_variable", [False, True])
def test_variables_are_defined_once_across_parts(llvm_options, monkeypatch, local_variable):
    """A variable visible outside the module is defined by one part and declared by the others (what one function
    writes the others read). A module-local variable that code writes cannot be shared
    that way: such a module stays in one part."""
    from mlir import ir
    from transpiler.runtime import objects
    monkeypatch.setattr(machine_code, "SPLIT_MIN_INSTRUCTIONS", 0)
    context = driver.new_context()
    with context:
        module = ir.Module.parse(GLOBALS.replace("LOCAL", COUNT if local_variable else ""))
    parts = machine_code.compile_module(module, 3, parts=3)
    assert len(parts) == (1 if local_variable else 3)     # (set_value, get_value and their packed wrappers)
    assert sum("shared_value" in objects.symbols(part).defined for part in parts) == 1
    linked = objects.LinkedObject(parts, {})
    set_value = ctypes.CFUNCTYPE(None, ctypes.c_int64)(linked.lookup("set_value"))
    get_value = ctypes.CFUNCTYPE(ctypes.c_int64)(linked.lookup("get_value"))
    set_value(42)
    assert get_value() == 42
