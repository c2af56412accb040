"""The named pass pipelines between the printable stages: mlir -> optimized -> llvm."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.passmanager import PassManager

# Still on tensors. Named ops (reduce, fill, matmul) become linalg.generic so that elementwise producers fuse into
# them; unit dims (from keepdims) are folded away first, so no reshape stands between a producer and its consumer;
# CSE makes a value with several uses (softmax's numerator) be computed once: fusion only duplicates single-use
# producers.
_FUSE = "linalg-fold-unit-extent-dims, canonicalize, cse, linalg-fuse-elementwise-ops"
OPTIMIZE = (f"builtin.module(func.func(linalg-generalize-named-ops, {_FUSE}, {_FUSE}, canonicalize, cse))")

# Tensors -> buffers (with ownership-based deallocation) ...
BUFFERIZE = ("builtin.module("
             "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
             " allow-return-allocs-from-loops},"
             "drop-equivalent-buffer-results,"   # callees write into their caller's destinations: no returned buffers
             "buffer-deallocation-pipeline, convert-bufferization-to-memref)")
# ... -> loops -> LLVM dialect.
TO_LLVM = ("builtin.module("
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
    run(module, BUFFERIZE)
    with module.context, ir.Location.unknown():
        widen_bool_buffers(module)
    return run(module, TO_LLVM)


def widen_bool_buffers(module: ir.Module) -> None:
    """Store i1 buffers as bytes. Deallocation of buffers whose ownership is only known at run time (loops,
    branches) keeps ownership flags in memref<?xi1>, which the LLVM lowering cannot load or store: retype those
    buffers to i8, widening stored flags and narrowing loaded ones. Our own bool tensors are i8 already."""
    i1, i8 = ir.IntegerType.get_signless(1, module.context), ir.IntegerType.get_signless(8, module.context)

    def wide(t):
        if isinstance(t, ir.MemRefType) or _is_memref(t):
            m = ir.MemRefType(t)
            if m.element_type == i1:
                return ir.MemRefType.get(m.shape, i8, m.layout, m.memory_space)
        return None

    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    for op in ops:
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if wide(arg.type):
                        arg.set_type(wide(arg.type))
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            inputs = [wide(t) or t for t in ftype.inputs]
            results = [wide(t) or t for t in ftype.results]
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
        for r in op.results:
            if wide(r.type):
                r.set_type(wide(r.type))
    for op in ops:
        if op.name == "memref.load" and op.results[0].type == i1:
            result = op.results[0]
            result.set_type(i8)
            narrow = _after(op, lambda: arith.TruncIOp(i1, result))
            result.replace_all_uses_except(narrow.result, narrow.operation)
        elif op.name == "memref.store" and op.operands[0].type == i1:
            with ir.InsertionPoint(op), op.location:
                widened = arith.ExtUIOp(i8, op.operands[0])
            op.operands[0] = widened.result


def _is_memref(t) -> bool:
    try:
        ir.MemRefType(t)
        return True
    except ValueError:
        return False


def _after(op, build):
    """Build an op right after `op` (built before it, then moved: it uses op's result)."""
    with ir.InsertionPoint(op), op.location:
        new = build()
    new.operation.move_after(op)
    return new
