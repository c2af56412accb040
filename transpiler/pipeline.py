"""The named pass pipelines between the printable stages: mlir -> optimized -> llvm."""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import PassManager

# Still on tensors. Named ops (reduce, fill, matmul) become linalg.generic so that elementwise producers fuse into
# them; unit dims (from keepdims) are folded away first, so no reshape stands between a producer and its consumer;
# CSE makes a value with several uses (softmax's numerator) be computed once: fusion only duplicates single-use
# producers.
_FUSE = "linalg-fold-unit-extent-dims, canonicalize, cse, linalg-fuse-elementwise-ops"
OPTIMIZE = (f"builtin.module(func.func(linalg-generalize-named-ops, {_FUSE}, {_FUSE}, canonicalize, cse))")

# Tensors -> buffers -> loops -> LLVM dialect.
LOWER = ("builtin.module("
         "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
         "drop-equivalent-buffer-results,"   # callees write into their caller's destinations: no returned buffers
         "buffer-deallocation-pipeline, convert-bufferization-to-memref,"
         "convert-linalg-to-loops, convert-scf-to-cf, expand-strided-metadata, lower-affine,"
         "finalize-memref-to-llvm, convert-math-to-funcs, convert-math-to-llvm, convert-math-to-libm,"
         "convert-arith-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-index-to-llvm,"
         "convert-ub-to-llvm, reconcile-unrealized-casts)")


def run(module: ir.Module, pipeline: str) -> ir.Module:
    PassManager.parse(pipeline, context=module.context).run(module.operation)
    return module


def optimize(module: ir.Module) -> ir.Module:
    return run(module, OPTIMIZE)


def lower_to_llvm(module: ir.Module) -> ir.Module:
    return run(module, LOWER)
