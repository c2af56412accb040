"""The named pass pipelines between the printable stages: mlir -> optimized -> llvm."""
from __future__ import annotations

import hashlib
import os
import tempfile

from mlir import ir
from mlir.dialects import arith
from mlir.passmanager import PassManager

from . import check_versioning, destinations, huge_pages, loops, matmul_lowering, vector_reductions, written_arguments
from . import fp_status, linkage, target, uniform_math, vector_loops, vector_math
from ..runtime import blas

# Still on tensors. Named ops become linalg.generic (GENERALIZE, below) so that elementwise producers fuse into
# reductions and fills; matrix products stay named: they become calls into NumPy's BLAS after bufferization.
# Unit dims (from keepdims) are folded away first, so no reshape stands between a producer and its consumer; CSE
# makes a value with several uses (softmax's numerator) be computed once: fusion only duplicates single-use
# producers.
_FUSE = "linalg-fold-unit-extent-dims, canonicalize, cse, linalg-fuse-elementwise-ops"
# Broadcasts (`x[:, None, :] - y`) read an operand through a map with a constant 0 (a size-1 dim): folding unit dims
# first turns those into reshapes between the broadcast and its reduction, and they no longer fuse (the
# difference, its square and the sum were three passes over an (n, m, d) temporary). So fusion runs once before.
_FUSE_FIRST = "canonicalize, cse, linalg-fuse-elementwise-ops"
OPTIMIZE = ["GENERALIZE", f"func.func({_FUSE_FIRST}, {_FUSE}, {_FUSE}, canonicalize, cse)"]

# Tensors -> buffers (with ownership-based deallocation). Then exp/tanh become polynomials (backend/vector_math.py)
# and matrix products BLAS calls or few-row loops (matmul_lowering.py).
# Written arguments (written_arguments.py) are placed between the steps.
# A value computed only to be stored into a slice of an array (x[1:] = ..., x[i] *= 2) is computed straight into
# that slice: its tensor.empty destination becomes the slice (eliminate-empty-tensors), so no temporary and no copy.
# Canonicalization after it folds loop-carried buffers that every iteration updates in place into the buffer itself,
# so that an argument written in a loop is seen to end in the argument's own memory.
ONE_SHOT = ["eliminate-empty-tensors",
            "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
            " allow-return-allocs-from-loops}", "canonicalize"]
DEALLOCATE = ["drop-equivalent-buffer-results",   # callees write into their caller's destinations: no returned buffers
              "buffer-deallocation-pipeline"]
TO_MEMREF = ["convert-bufferization-to-memref"]
BUFFERIZE = ONE_SHOT + DEALLOCATE + TO_MEMREF
# Buffers -> loops: the parallel dims of every linalg op become one scf.parallel, reduction dims sequential scf.for
# loops inside it (so results never depend on how the parallel loop is split). Then loops.py fuses loops over the
# same rows, keeps reduction accumulators in registers and decides which loops stay parallel.
LOOPS = ["convert-linalg-to-parallel-loops", "canonicalize", "cse"]
# Threads: each outermost scf.parallel (loops.outer_parallelism) becomes an OpenMP worksharing loop, run by the
# OpenMP runtime that the intel-openmp package ships (runtime/jit.py loads it), if its loop nest does at least
# THREAD_MIN_WORK operations (loops.thread_only_large_loops), else in the calling thread.
TO_OPENMP = ["convert-scf-to-openmp"]
THREAD_MIN_WORK = 1 << 20
THREADS = ["convert-openmp-to-llvm"]
# ... -> LLVM dialect.
# Complex values (codegen/complex_scalar.py): exp/log/sqrt/abs become calls of libm's cexp/clog/csqrt/cabs, the
# rest (re, im, create) LLVM structs of two floats, NumPy's memory layout.
TO_LLVM = ["convert-complex-to-libm", "convert-complex-to-standard",
           "convert-scf-to-cf", "convert-vector-to-llvm", "expand-strided-metadata", "lower-affine",
           "finalize-memref-to-llvm", "convert-math-to-funcs",
           "convert-math-to-libm",   # first: log1p, expm1 ... stay accurate libm calls, not log(1 + x) expansions
           "convert-math-to-llvm",
           "convert-arith-to-llvm", "convert-complex-to-llvm", "convert-cf-to-llvm", "convert-func-to-llvm",
           "convert-index-to-llvm",
           "convert-ub-to-llvm", "reconcile-unrealized-casts"]


def pipeline_text(passes: list) -> str:
    steps = [_generalize_passes() if p == "GENERALIZE" else p for p in passes]
    return "builtin.module(" + ", ".join(steps) + ")"


# MLIR's pass manager verifies the whole module after every pass: for GPT-2, ~45 verifications, 0.25-0.3 s of the
# ~0.9 s its passes take. The module is verified once instead, at the end of each stage (`optimize`,
# `lower_to_llvm`), where a broken rewrite still becomes a CompileError (driver._internal_errors) before LLVM sees
# it. TRANSPILER_VERIFY_PASSES=1 verifies after every pass again, to find which pass broke it (the test suite sets it).
VERIFY_PASSES_ENV = "TRANSPILER_VERIFY_PASSES"


def verify_each_pass() -> bool:
    return os.environ.get(VERIFY_PASSES_ENV, "0") == "1"


def run(module: ir.Module, pipeline: str) -> ir.Module:
    manager = PassManager.parse(pipeline, context=module.context)
    manager.enable_verifier(verify_each_pass())
    manager.run(module.operation)
    return module


def verify(module: ir.Module) -> None:
    """Raises MLIRError (with the diagnostics) when the module is invalid."""
    module.operation.verify()


# Every named linalg op but the matrix products becomes a linalg.generic (so elementwise producers fuse into
# reductions and fills, and loops are generated for them); a transform script selects them by name.
_GENERALIZE_SCRIPT = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @generalize(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.fill", "linalg.reduce", "linalg.transpose", "linalg.copy",
                                           "linalg.broadcast", "linalg.map"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %generic = transform.structured.generalize %ops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @respecialize(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.generic"]} attributes{transpiler.matrix_product} in %root
      : (!transform.any_op) -> !transform.any_op
    %named = transform.structured.specialize %ops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


def _generalize_passes() -> str:
    path = os.path.join(tempfile.gettempdir(), f"transpiler-generalize-{os.getuid()}-{_script_hash()}.mlir")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(_GENERALIZE_SCRIPT)
        os.replace(tmp, path)   # atomic: concurrent processes never read a partial script
    return f"transform-preload-library{{transform-library-paths={path}}}, transform-interpreter{{entry-point=generalize}}"


def _script_hash() -> str:
    return hashlib.sha1(_GENERALIZE_SCRIPT.encode()).hexdigest()[:12]


def optimize(module: ir.Module) -> ir.Module:
    _optimize(module)
    verify(module)
    return module


def _optimize(module: ir.Module) -> ir.Module:
    run(module, pipeline_text(OPTIMIZE))
    # Fusion folds reshapes into the ops that consume them by giving those ops more loops, matrix products
    # included: a product whose operand comes from a keepdims result it cannot fold ([n, 1], returned by a call)
    # becomes a linalg.generic with a unit loop, which would run as a plain loop nest instead of BLAS. With the unit
    # loops folded away, such generics are named matrix products again.
    with module.context, ir.Location.unknown():
        if not _float_products(module):
            return module
    run(module, pipeline_text([RESPECIALIZE_PREPARE]))
    with module.context, ir.Location.unknown():
        products = [op for op in _float_products(module) if _is_matmul_form(op)]
        for op in products:
            op.attributes[_PRODUCT_MARK] = ir.UnitAttr.get()
    if products:
        run(module, pipeline_text([RESPECIALIZE]))
    return module


RESPECIALIZE_PREPARE = "func.func(linalg-fold-unit-extent-dims, canonicalize, cse)"
RESPECIALIZE = "transform-interpreter{entry-point=respecialize}"   # the script is loaded by OPTIMIZE's GENERALIZE
_PRODUCT_MARK = "transpiler.matrix_product"
_PRODUCT_BODY = {"arith.extf", "arith.mulf", "arith.addf", "linalg.yield"}


def _float_products(module: ir.Module) -> list:
    """The linalg.generics that are a float32/float64 product-sum over one reduction loop (a multiply-add of two
    operands, widened or not; float16 products are NumPy's, see matmul_lowering): a matrix product rewritten by
    fusion, or one that codegen emits as a generic (broadcast batches); _is_matmul_form tells the 2-D matrix
    products among them."""
    ops = []
    module.operation.walk(lambda op: (op.name == "linalg.generic" and ops.append(op)) or ir.WalkResult.ADVANCE)
    products = []
    for op in ops:
        generic = op.opview
        iterators = [str(t) for t in generic.iterator_types]
        body = [o.operation.name for o in generic.regions[0].blocks[0].operations]
        # (an operand can be a scalar: a fill value fused into the generic)
        types = [v.type.element_type if isinstance(v.type, ir.ShapedType) else v.type
                 for v in op.operands]
        if len(generic.inputs) == 2 and len(generic.outputs) == 1 and iterators.count(_REDUCTION) == 1 \
                and all(isinstance(t, (ir.F32Type, ir.F64Type)) for t in types) \
                and set(body) <= _PRODUCT_BODY and body.count("arith.mulf") == 1 and body.count("arith.addf") == 1:
            products.append(op)
    return products


_REDUCTION = "#linalg.iterator_type<reduction>"


def _is_matmul_form(op) -> bool:
    """Loops (m, n, k) with operands read at (m, k) and (k, n), either of them transposed, and the result written at
    (m, n): the forms of linalg.matmul (with its indexing maps), which the transform's specialize turns into the
    named op. It refuses other contractions (a batch of matrix-vector products, say)."""
    maps = [str(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    form = "affine_map<(d0, d1, d2) -> ({})>"
    return maps[0] in (form.format("d0, d2"), form.format("d2, d0")) and \
        maps[1] in (form.format("d2, d1"), form.format("d1, d2")) and maps[2] == form.format("d0, d1")


def lower_to_llvm(module: ir.Module, threads: bool = True) -> ir.Module:
    """Needs `optimize` to have run in the same context first (it loads the generalization script)."""
    with module.context, ir.Location.unknown():
        destinations.reuse_dying_operands(module)
    run(module, pipeline_text(ONE_SHOT))
    with module.context, ir.Location.unknown():
        written_arguments.drop_in_place(module)
    run(module, pipeline_text(DEALLOCATE))
    with module.context, ir.Location.unknown():
        written_arguments.copy_the_rest(module)
    run(module, pipeline_text(TO_MEMREF))
    with module.context, ir.Location.unknown():
        destinations.strided_copies_as_loops(module)
        uniform_math.hoist(module)     # math on a 0-d operand: once before the loop, not per element
        vector_math.expand(module)
        widen_bool_buffers(module)
        matmul_lowering.matmuls_to_calls(module, blas.direct_available(), threads)
    run(module, pipeline_text(LOOPS))
    with module.context, ir.Location.unknown():
        versioned = check_versioning.version_checked_loops(module)
    if versioned:
        run(module, pipeline_text(["canonicalize", "cse"]))     # folds the checks and flags of the fast copies
    with module.context, ir.Location.unknown():
        loops.fuse_parallel_loops(module)
        loops.promote_accumulators(module)
        loops.forward_stored_values(module)
        loops.outer_parallelism(module)
        vector_loops.vectorize(module)     # loops of table-based math, in 16 or 32 lanes (AVX-512)
        vector_math.expand(module, table_loops=False)     # the math ops of the loops it left scalar
    if threads:
        run(module, pipeline_text(TO_OPENMP))
        with module.context, ir.Location.unknown():
            loops.thread_only_large_loops(module, THREAD_MIN_WORK)
    with module.context, ir.Location.unknown():
        vector_reductions.vectorize_reductions(module)   # max/min and compensated sums in vector lanes
        fp_status.instrument(module)   # the kernel's last argument: the floating-point events it raised
    run(module, pipeline_text((THREADS if threads else []) + TO_LLVM))
    with module.context, ir.Location.unknown():
        huge_pages.use_huge_pages(module)   # on the LLVM dialect: malloc of large buffers asks for huge pages
        target.apply(module)                # TRANSPILER_TARGET_CPU: code for another x86-64 CPU than this one
        linkage.internalize(module)         # only the C interface stays external (compile time)
    verify(module)
    return module


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
