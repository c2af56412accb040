"""What keeps compilation short without changing the kernel: only the C interface is external (backend/linkage.py),
and MLIR's passes run without a verification after each one, the module being verified once per stage
(backend/pipeline.run / verify)."""
import re

import numpy as np
import pytest

from mlir import ir

from transpiler import CompileError, emit, transpile
from transpiler.backend import pipeline, target


def layer_norm(x, g, b):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    return g * (x - mean) / np.sqrt(variance + 1e-5) + b


def block(x, w, g, b):
    return layer_norm(x @ w, g, b) + x


def twice(x, w, g, b):
    return block(block(x, w, g, b), w, g, b)   # the second call of `block` is a func.func of its own (outline.py)


def _functions(text: str) -> dict:
    """name -> linkage ("" for external) of every llvm.func with a body."""
    found = re.findall(r"^  llvm\.func (?:(internal|private|linkonce|weak) )?@([\w.$]+)\((.*)\{$", text, re.M)
    return {name: linkage for linkage, name, _ in found}


def _arguments():
    rng = np.random.default_rng(7)
    return (rng.standard_normal((5, 16)), rng.standard_normal((16, 16)), rng.standard_normal(16),
            rng.standard_normal(16))


def test_only_c_interfaces_are_external():
    text = emit(twice, *_arguments(), stage="llvm")
    functions = _functions(text)
    outlined = [n for n in functions if re.fullmatch(r"(block|layer_norm)_\d+", n)]
    assert "_mlir_ciface_twice" in functions and outlined, functions
    external = sorted(n for n, linkage in functions.items() if linkage == "")
    assert external == ["_mlir_ciface_twice"], external
    entry = re.search(r"^  llvm\.func internal @twice\(.*$", text, re.M).group(0)
    assert "always_inline" in entry      # inlined into its C interface, its only caller


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernel_with_internal_functions_matches_numpy(dtype):
    args = tuple(a.astype(dtype) for a in _arguments())
    compiled = transpile(twice, disk_cache=False)
    for rows in (3, 5, 9):
        x = np.resize(args[0], (rows, 16)).astype(dtype)
        got, want = compiled(x, *args[1:]), twice(x, *args[1:])
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)
    assert compiled.compilations == 1


def _break_module(module):
    """A rewrite gone wrong after the last pass pipeline: the C interface's return is erased."""
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and "_mlir_ciface_" in str(op.operation.attributes["sym_name"]):
            last = list(op.regions[0].blocks[0].operations)[-1]
            last.operation.erase()
            return


@pytest.mark.parametrize("each_pass", ["0", "1"])
def test_broken_module_is_a_compile_error_not_a_crash(monkeypatch, each_pass):
    monkeypatch.setenv(pipeline.VERIFY_PASSES_ENV, each_pass)
    monkeypatch.setattr(target, "apply", _break_module)
    with pytest.raises(CompileError, match="(?s)internal compiler error.*no terminator"):
        transpile(lambda x: x * 2.0 + 1.0, disk_cache=False)(np.arange(4.0))


def test_passes_are_not_verified_one_by_one_by_default(monkeypatch):
    monkeypatch.delenv(pipeline.VERIFY_PASSES_ENV, raising=False)
    assert not pipeline.verify_each_pass()
    monkeypatch.setenv(pipeline.VERIFY_PASSES_ENV, "1")
    assert pipeline.verify_each_pass()


def test_verify_raises_on_an_invalid_module():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("func.func @f() -> i32 {\n %0 = arith.constant 1 : i32\n return %0 : i32\n}")
        pipeline.verify(module)
        list(module.body.operations[0].regions[0].blocks[0].operations)[-1].erase()
        with pytest.raises(ir.MLIRError, match="terminator"):
            pipeline.verify(module)
