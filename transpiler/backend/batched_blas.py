"""Stacks of matrix products (`np.matmul` of 3-D and larger operands, broadcast batch dims, `q @ k.swapaxes(-1, -2)`
per head) and complex products: one OpenBLAS call per matrix, from the kernel's own OpenMP threads, like the 2-D
float products of blas_lowering.py (whose per-matrix calls, layout checks and copies this module shares).

Codegen emits such a product as a `linalg.contract` (codegen/matmul._contract) with loops (batch..., m, n, k): each
operand's map names the batch loops it has (a broadcast batch dim is absent from it) and reads its matrix straight
or transposed. On buffers, each contract becomes a call of a helper function per form that
- checks at run time that each operand is a stack of BLAS matrices (the last two strides, as blas_lowering checks a
  matrix; batch strides are free) and copies a stack that is not, once for the whole stack;
- with at least as many matrices as cores (and enough work to be worth threads), runs a parallel loop over the
  batch that calls gemm once per matrix, unsplit: each matrix is computed as NumPy's single-threaded matmul computes
  it; with fewer matrices, it multiplies them one after the other, each split into chunks over the threads as
  blas_lowering splits a 2-D product. The choice depends on the shapes and the machine's core count only, never on
  the thread setting, so the bits of a result do not change with OMP_NUM_THREADS.
Complex products call cgemm/zgemm (alpha and beta by pointer); float ones sgemm/dgemm, or gemv for one column, as
NumPy's matmul calls them. A stack of mixed products (float32 @ float64 ...) multiplies its matrices one after
the other, each as blas_lowering multiplies a 2-D mixed product. A contract of another form is left to the loops
(convert-linalg-to-parallel-loops).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, func, linalg, memref, scf

from . import blas_lowering as bl
from .blas_lowering import _address, _dynamic, _index, _strides


def lower(module: ir.Module, op) -> bool:
    """Replace the memref linalg.contract `op` by a call of its helper (at the op); False, and nothing done, if
    `op` is not of codegen's form or its element type has no BLAS."""
    form = _form(op)
    if form is None:
        return False
    batch, (a_batch, a_transposed), (b_batch, b_transposed) = form
    elements = [bl.mangle(ir.MemRefType(v.type).element_type) for v in op.operands]
    element = ir.MemRefType(op.operands[2].type).element_type
    mixed = len(set(elements)) != 1
    name = f"transpiler_batched_{'_'.join(elements) if mixed else elements[0]}_{batch}" \
           f"_a{'x'.join(map(str, a_batch))}_b{'x'.join(map(str, b_batch))}"
    operands = []
    for value, transposed in zip(op.operands, (a_transposed, b_transposed, False)):
        value = memref.cast(_dynamic(value.type), value)
        operands.append(_swap_last(value) if transposed else value)
    if mixed:
        _mixed_helper(module, name, batch, a_batch, b_batch, [v.type for v in operands])
    else:
        _helper(module, name, element, batch, a_batch, b_batch, [v.type for v in operands])
    func.CallOp([], ir.FlatSymbolRefAttr.get(name), operands)
    return True


def _form(op):
    """(batch count, (a's batch loops, a read transposed), (b's ...)) of a contract with loops (batch..., m, n, k)
    and maps (its batch loops, m, k or k, m), (its batch loops, k, n or n, k), (batch..., m, n); else None."""
    types = [ir.MemRefType(v.type).element_type for v in op.operands]
    floats = (ir.F16Type, ir.F32Type, ir.F64Type)
    mixed = len(types) == 3 and bl.supported(types[2]) and all(isinstance(t, floats) for t in types[:2]) and \
        all(t.width <= types[2].width for t in types[:2])
    if len(types) != 3 or not mixed and (len(set(map(str, types))) != 1 or str(types[0]) not in bl.GEMM_SYMBOLS):
        return None
    try:
        maps = [[ir.AffineDimExpr(e).position for e in ir.AffineMapAttr(m).value.results]
                for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    except (ValueError, TypeError):   # a constant or compound expression: not codegen's form
        return None
    a, b, c = maps
    batch = len(c) - 2
    m, n, k = batch, batch + 1, batch + 2
    if c != list(range(batch + 2)):
        return None
    operands = []
    for x, core in ((a, (m, k)), (b, (k, n))):
        dims = x[:-2]
        if len(x) < 2 or dims != sorted(set(dims)) or any(d >= batch for d in dims) or \
                tuple(x[-2:]) not in (core, core[::-1]):
            return None
        operands.append((dims, tuple(x[-2:]) != core))
    return batch, operands[0], operands[1]


def _swap_last(x):
    """x with its last two dims swapped (a view)."""
    rank = ir.MemRefType(x.type).rank
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return memref.transpose(x.type, x, ir.AffineMap.get_permutation(perm))


def _helper(module, name, element, batch, a_batch, b_batch, types) -> None:
    """func name(a, b, c): c = a @ b on stacks, defined once per module (see the module's docstring)."""
    if name in ir.SymbolTable(module.operation):
        return
    gemm, gemv = bl.declare_blas(module, element)
    with ir.InsertionPoint.at_block_begin(module.body):
        fn = func.FuncOp(name, (types, []), visibility="private")
    with ir.InsertionPoint(fn.add_entry_block()):
        a, b, c = fn.arguments
        ra, rb = (ir.MemRefType(v.type).rank for v in (a, b))
        m, k, n = memref.dim(a, _index(ra - 2)), memref.dim(a, _index(ra - 1)), memref.dim(b, _index(rb - 1))
        sizes = [memref.dim(c, _index(j)) for j in range(batch)]
        total = _index(1)
        for size in sizes:
            total = arith.muli(total, size)
        macs = arith.muli(arith.muli(arith.muli(m, n), k), total)
        branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ne, macs, _index(0)), [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            def call():
                _products(module, gemm, gemv, element, (a, a_batch), (b, b_batch), c, sizes, total, m, n, k, macs)
            bl.blas_or_copy(module, name, a, b, c, [(a, m, k), (b, k, n)], call)
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            linalg.fill(bl.zero(element), outs=[c])   # k = 0: sums of nothing (or an empty result)
            scf.YieldOp([])
        func.ReturnOp([])


def _mixed_helper(module, name, batch, a_batch, b_batch, types) -> None:
    """func name(a, b, c) for a stack of mixed products (a float16/float32 operand, a float32/float64 result): the
    matrices one after the other, each as a 2-D mixed product (blas_lowering.product: the narrow operand widened
    tile by tile, each tile's product in chunks over the threads)."""
    if name in ir.SymbolTable(module.operation):
        return
    with ir.InsertionPoint.at_block_begin(module.body):
        fn = func.FuncOp(name, (types, []), visibility="private")
    with ir.InsertionPoint(fn.add_entry_block()):
        a, b, c = fn.arguments
        _one_after_the_other(module, (a, a_batch), (b, b_batch), c, [memref.dim(c, _index(j)) for j in range(batch)])
        func.ReturnOp([])


def _one_after_the_other(module, a, b, c, sizes) -> None:
    """A sequential loop over the batch: each matrix a 2-D product (blas_lowering.product)."""
    total = _index(1)
    for size in sizes:
        total = arith.muli(total, size)
    loop = scf.ForOp(_index(0), total, _index(1))
    with ir.InsertionPoint(loop.body):
        index, rest = [None] * len(sizes), loop.induction_variable
        for j in reversed(range(len(sizes))):       # row-major order of the batch dims
            index[j] = arith.remui(rest, sizes[j])
            rest = arith.divui(rest, sizes[j])
        matrices = [_matrix_at(x, [index[j] for j in dims]) for x, dims in (a, b, (c, list(range(len(sizes)))))]
        bl.product(module, *matrices)
        scf.YieldOp([])


def _matrix_at(x, index):
    """x[index..., :, :] (a 2-D view)."""
    rank = ir.MemRefType(x.type).rank
    sizes = [1] * (rank - 2) + [memref.dim(x, _index(rank - 2)), memref.dim(x, _index(rank - 1))]
    result = _dynamic(ir.MemRefType.get([1, 1], ir.MemRefType(x.type).element_type))
    return memref.subview(x, index + [0, 0], sizes, [1] * rank, result_type=result)


def _products(module, gemm, gemv, element, a, b, c, sizes, total, m, n, k, macs) -> None:
    """The BLAS calls on stacks of BLAS matrices: over the batch in parallel, one call per matrix, when there are
    at least as many matrices as cores and the work is worth threads; else one matrix after the other, each in
    chunks over the threads."""
    item = _index(bl.item_size(element))
    scalars = bl.complex_scalars(element) if bl.is_complex(element) else None
    stacks = []   # (address of the first matrix, its two strides, the stride along each batch loop: 0 if broadcast)
    for x, dims in (a, b, (c, list(range(len(sizes))))):
        strides = _strides(x)
        along = [strides[dims.index(j)] if j in dims else _index(0) for j in range(len(sizes))]
        stacks.append((_address(x, item), strides[-2], strides[-1], along))

    def one_product(t, chunks):
        addresses = []
        for base, _, _, along in stacks:
            offset = _index(0)
            rest = t
            for j in reversed(range(len(sizes))):    # t in row-major order of the batch dims
                offset = arith.addi(offset, arith.muli(arith.remui(rest, sizes[j]), along[j]))
                rest = arith.divui(rest, sizes[j])
            addresses.append(arith.addi(base, arith.muli(offset, item)))
        (_, sa0, sa1, _), (_, sb0, sb1, _), (_, sc0, _, _) = stacks
        bl.gemm_calls(gemm, gemv, element, bl.matrix(addresses[0], sa0, sa1, m, k),
                      bl.matrix(addresses[1], sb0, sb1, k, n), bl.output(addresses[2], sc0, n), m, n, k, item,
                      chunks, scalars)

    if not sizes:
        one_product(_index(0), bl.chunk_count(macs))
        return
    cores = _index(bl.usable_cores())
    worth_threads = arith.cmpi(arith.CmpIPredicate.uge, macs, _index(2 * bl.CHUNK_MIN_MACS))
    over_batch = arith.andi(arith.cmpi(arith.CmpIPredicate.uge, total, cores), worth_threads)
    branch = scf.IfOp(over_batch, [], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        loop = scf.ParallelOp([], [_index(0)], [total], [_index(1)], [])
        body = loop.regions[0].blocks.append(ir.IndexType.get())
        with ir.InsertionPoint(body):
            one_product(body.arguments[0], None)
            scf.ReduceOp([], 0)
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        # each matrix a 2-D product (blas_lowering's helper: its chunk loop is the outermost parallel loop of its
        # function, so it gets threads; nested in this sequential loop it would not)
        _one_after_the_other(module, a, b, c, sizes)
        scf.YieldOp([])
