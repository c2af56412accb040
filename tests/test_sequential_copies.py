"""Loops below the threads' threshold (backend/loops.thread_only_large_loops, `_sequential_beside`): a parallel loop
nest is copied as plain loops beside its OpenMP region, and a loop with too little work runs the copy, without
entering the OpenMP runtime (a serialized parallel region and its dynamic schedule cost 0.3-0.5 us of a call on 10
elements). Both copies give NumPy's answer, and the same bits as a kernel compiled without threads."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.backend.pipeline import THREAD_MIN_WORK


def add_one(x):
    return x + 1


def centered_rows(x):
    return x - x.mean(axis=1, keepdims=True)


def test_a_small_loop_has_a_copy_outside_the_parallel_region():
    """Regression: the loop was only in the OpenMP region, run serialized when small (`omp.parallel if(...)`)."""
    llvm = transpile(add_one).emit(np.arange(10.0), stage="llvm")
    assert llvm.count("omp.parallel") == 1
    assert llvm.count("llvm.fadd") == 2      # the loop's body: once in the region, once in the plain copy


@pytest.mark.parametrize("fn", [add_one, centered_rows])
@pytest.mark.parametrize("rows", [0, 1, 7, THREAD_MIN_WORK // 512 + 3])   # the last: above the threshold
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_copies_give_the_same_bits_as_one_thread(fn, rows, dtype):
    x = (np.random.default_rng(rows).standard_normal((rows, 512)) * 100).astype(dtype)
    threaded, single = transpile(fn), transpile(fn, threads=False)
    for _ in range(2):
        result = threaded(x)
        np.testing.assert_array_equal(result, single(x))
        np.testing.assert_allclose(result, fn(x), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3)
        assert result.dtype == fn(x).dtype and result.shape == x.shape


def long_body(x):
    for k in range(12):
        x = x * 1.5 + k
    return x


def test_only_small_loop_nests_are_copied(monkeypatch):
    """A copy costs compile time (LLVM compiles the loop twice): past SEQUENTIAL_COPY_OPS operations of a function's
    parallel loops, a loop stays in its OpenMP region only, as before."""
    from transpiler.backend import loops
    x = np.arange(10.0)
    assert transpile(long_body).emit(x, stage="llvm").count("llvm.fmul") == 12
    monkeypatch.setattr(loops, "SEQUENTIAL_COPY_OPS", 10**6)
    assert transpile(long_body).emit(x, stage="llvm").count("llvm.fmul") == 24
    np.testing.assert_array_equal(transpile(long_body)(x), long_body(x))


NESTS = """
func.func @rows(%x: memref<?x?xf64>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf64>
  %m = memref.dim %x, %c1 : memref<?x?xf64>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf64>
    %w = arith.addf %v, %v : f64
    memref.store %w, %x[%i, %j] : memref<?x?xf64>
    scf.reduce
  }
  return
}
func.func @total(%x: memref<?xf64>, %cond: i1) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    scf.reduce(%v : f64) {
    ^bb0(%a: f64, %b: f64):
      %t = arith.addf %a, %b : f64
      scf.reduce.return %t : f64
    }
  }
  return %s : f64
}
func.func @scratch(%x: memref<?xf64>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %tmp = memref.alloca() : memref<1xf64>
    %v = memref.load %x[%i] : memref<?xf64>
    memref.store %v, %tmp[%c0] : memref<1xf64>
    scf.reduce
  }
  return
}
"""


def _after_sequential_beside(name: str, chunked: bool = False) -> str:
    """The function `name` of NESTS after convert-scf-to-openmp and loops._sequential_beside of its parallel
    region (its condition: the function's i1 argument); `chunked`: with the dynamic schedule's chunk operand first,
    as thread_only_large_loops gives it."""
    from mlir import ir
    from transpiler.backend import loops, pipeline
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(NESTS)
        pipeline.run(module, pipeline.pipeline_text(pipeline.TO_OPENMP))
        fn = next(op for op in module.body.operations
                  if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name)
        found = {}
        fn.operation.walk(lambda op: found.setdefault(op.name, op) and ir.WalkResult.ADVANCE)
        if chunked:
            loops._schedule_in_chunks(found["omp.parallel"], found["omp.loop_nest"])
        loops._sequential_beside(found["omp.parallel"], fn.regions[0].blocks[0].arguments[1])
        module.operation.verify()
        return str(fn)


@pytest.mark.parametrize("chunked", [False, True])
def test_a_loop_nest_is_copied_as_plain_loops_run_when_the_condition_is_false(chunked):
    text = _after_sequential_beside("rows", chunked)
    branch, copy = text.split("} else {")
    assert "scf.if %arg1 {" in branch and "omp.parallel" in branch and "omp.parallel" not in copy
    assert copy.count("scf.for") == 2 and "alloca_scope" not in copy     # (one loop per dim, the scope's body)
    for op in ("memref.load", "arith.addf", "memref.store"):
        assert branch.count(op) == copy.count(op) == 1


@pytest.mark.parametrize("name", ["total", "scratch"])
def test_a_reduction_or_a_stack_allocation_is_not_copied(name):
    """A reduction's accumulator is the region's block argument, which a plain loop has not (regression: a wsloop
    with one reduction and no schedule has one operand, as one with a chunk and no reduction: it was copied, and
    erasing the copied region failed on its uses); a stack allocation in the body becomes blocks in an scf.for."""
    text = _after_sequential_beside(name)
    assert "scf.if" not in text and "scf.for" not in text and text.count("omp.parallel") == 1
