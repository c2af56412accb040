"""Products of 2 to MAX_ROWS rows by a large row-major matrix, `c = a @ b` (a small batch through a dense layer:
the MLP benchmark's (8, 30000) @ (30000, 2000) float32), in register-blocked vector loops.

OpenBLAS's gemm packs `b` and runs a micro-kernel made for many rows: with 8 rows it reaches about 25 GFLOP/s on
one Zen 4 thread (the MLP's second layer: 38-41 ms for 240 MB of weights, 6 GB/s, far below what one core
streams). Here the block's rows of `c` are accumulated DEPTH rows of `b` at a time, one vector of columns at a
time: each vector of `b` feeds every row of `a` (one broadcast element each, folded into the multiply-add), and
each row of `b` is read in order, as a stream. Rows run in blocks of 8, 4, 2 and 1 (each block one sweep over `b`;
7 rows would take three, and stay with gemm); the columns after the last whole vector as one masked vector, in a
pass of its own down b's rows (its lanes past the last column multiply zeros: no floating-point event of their own).

The loops are compiled once per process and element type, as a library (runtime/few_rows_library.py), not into
every kernel: as part of each kernel's BLAS helper they added 120-250 ms to the compilation of every kernel with a
matrix product. The kernel's helper (blas_lowering._chunked_gemm) branches to them at run time, and calls them once
per chunk of columns from its own parallel loop, as it calls gemm: threads, their floating-point flags and the
split are the kernel's.

Each element is the sum over k of the exact products, in order, with fused multiply-adds: within `2 k eps` of
`|a| @ |b|`, not OpenBLAS's bits (docs/guarantees.md, `matmul` row), the same bits whatever the threads.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, func, memref, scf, vector

from .blas_lowering import VECTOR_BYTES, _dynamic, _index, unit_inner

MAX_ROWS = 8          # rows of a in the largest block: 8 accumulators
DEPTH = 8             # rows of b per pass over the block's rows of c (each pass loads and stores them once)
_BLOCKS = (8, 4, 2, 1)
# Where the loops beat OpenBLAS's gemm (one thread, CPU time, Zen 4, 2026-12-02, ours / gemm): float32 (8, 30000) @
# (30000, 2000) 20-21 / 39-41 ms, float64 40 / 60 ms; (8, 2000) @ (2000, 2000) float32 1.85 / 2.95 ms, float64
# 3.0 / 4.2; (3, 768) @ (768, 3072) float32 0.62 / 1.25; (2, 5000) @ (5000, 256) float32 0.14 / 0.27. Not: b of
# 1.5 MB or less ((8, 768) @ (768, 128) float64 0.08 / 0.06 ms), narrow b ((2, 5000) @ (5000, 100) float32 0.15 /
# 0.08, measured when the last columns ran one by one), 7 rows (three sweeps: (7, 30000) @ (30000, 2000) 50 / 45 ms).
MIN_B_BYTES = 4 << 20
MIN_COLUMNS = 256
SYMBOLS = {"f32": "transpiler_few_rows_f32", "f64": "transpiler_few_rows_f64"}


def worth_it(m, n, k, item: int):
    """Whether c = a @ b of these sizes (index values) takes the loops (the measured cases above); b's and c's rows
    must also be contiguous (the caller checks)."""
    index = ir.IndexType.get()

    def at_least(x, y):
        return arith.cmpi(arith.CmpIPredicate.sge, x, y)

    few = arith.andi(at_least(m, _index(2)), arith.cmpi(arith.CmpIPredicate.sle, m, _index(MAX_ROWS)))
    few = arith.andi(few, arith.cmpi(arith.CmpIPredicate.ne, m, _index(7)))
    big = at_least(arith.muli(arith.muli(k, n), arith.constant(index, item)), _index(MIN_B_BYTES))
    return arith.andi(arith.andi(few, big), at_least(n, _index(MIN_COLUMNS)))


def call(module: ir.Module, a, b, c) -> None:
    """c = a @ b (2-D buffers, b's and c's rows contiguous) through the library's function, declared in `module`
    with a C interface: runtime/blas.py binds `_mlir_ciface_<symbol>` to it."""
    element = ir.MemRefType(c.type).element_type
    name = SYMBOLS[str(element)]
    t = _dynamic(ir.MemRefType.get([1, 1], element))
    if name not in ir.SymbolTable(module.operation):
        with ir.InsertionPoint.at_block_begin(module.body):
            fn = func.FuncOp(name, ([t] * 3, []), visibility="private")
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    func.CallOp([], ir.FlatSymbolRefAttr.get(name), [memref.cast(t, v) for v in (a, b, c)])


def define(module: ir.Module, element) -> str:
    """The library function for `element` in `module` (public, with a C interface): c = a @ b on one thread."""
    name = SYMBOLS[str(element)]
    t = _dynamic(ir.MemRefType.get([1, 1], element))
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp(name, ([t] * 3, []))
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    with ir.InsertionPoint(fn.add_entry_block()):
        a, b, c = fn.arguments
        product(a, b, c, memref.dim(a, _index(0)), memref.dim(b, _index(1)), memref.dim(a, _index(1)))
        func.ReturnOp([])
    return name


def product(a, b, c, m, n, k) -> None:
    """c = a @ b, b's and c's rows contiguous, a in any strides: rows in blocks of 8, then 4, 2, 1 as m's bits say."""
    b, c = unit_inner(b), unit_inner(c)
    start, end = _index(0), n
    eight = _index(8)
    full = arith.muli(arith.divui(m, eight), eight)
    loop = scf.ForOp(_index(0), full, eight)
    with ir.InsertionPoint(loop.body):
        _block(a, b, c, loop.induction_variable, 8, k, start, end)
        scf.YieldOp([])
    row = full
    for rows in _BLOCKS[1:]:
        bit = arith.andi(arith.subi(m, full), _index(rows))
        has = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ne, bit, _index(0)), [], has_else=False)
        with ir.InsertionPoint(has.then_block):
            _block(a, b, c, row, rows, k, start, end)
            scf.YieldOp([])
        row = arith.addi(row, bit)


def _block(a, b, c, first_row, rows: int, k, start, end) -> None:
    """c[first_row:first_row + rows, start:end] = a[...] @ b[:, start:end]: zeros, then DEPTH rows of b at a time
    (the last ones one by one) added into the block's rows of c, a vector of columns at a time (each row of b is
    read in order, as a stream); the columns after the last whole vector as one masked vector (_last_columns)."""
    element = ir.MemRefType(c.type).element_type
    lanes = VECTOR_BYTES * 8 // element.width
    vt = ir.VectorType.get([lanes], element)
    row_index = [arith.addi(first_row, _index(r)) if r else first_row for r in range(rows)]
    vectors_end = arith.addi(start, arith.muli(arith.divui(arith.subi(end, start), _index(lanes)), _index(lanes)))
    zero = vector.broadcast(vt, arith.constant(element, ir.FloatAttr.get(element, 0.0)))
    fill = scf.ForOp(start, vectors_end, _index(lanes))
    with ir.InsertionPoint(fill.body):
        for i in row_index:
            vector.store(zero, c, [i, fill.induction_variable])
        scf.YieldOp([])
    depth = _index(DEPTH)
    deep = arith.muli(arith.divui(k, depth), depth)
    for lo, hi, count in ((_index(0), deep, DEPTH), (deep, k, 1)):
        outer = scf.ForOp(lo, hi, _index(count))
        with ir.InsertionPoint(outer.body):
            kk = outer.induction_variable
            ks = [arith.addi(kk, _index(d)) if d else kk for d in range(count)]
            loop = scf.ForOp(start, vectors_end, _index(lanes))
            with ir.InsertionPoint(loop.body):
                j = loop.induction_variable
                sums = [vector.load(vt, c, [i, j]) for i in row_index]
                for kd in ks:
                    value = vector.load(vt, b, [kd, j])
                    sums = [vector.fma(value, vector.broadcast(vt, memref.load(a, [i, kd])), acc)
                            for i, acc in zip(row_index, sums)]
                for i, total in zip(row_index, sums):
                    vector.store(total, c, [i, j])
                scf.YieldOp([])
            scf.YieldOp([])
    tail = arith.subi(end, vectors_end)
    last = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ne, tail, _index(0)), [], has_else=False)
    with ir.InsertionPoint(last.then_block):
        _last_columns(a, b, c, row_index, k, vectors_end, tail, zero)
        scf.YieldOp([])


def _last_columns(a, b, c, row_index: list, k, j, count, zero) -> None:
    """c[i, j:j + count] = a[i, :] @ b[:, j:j + count] for the rows i (count < lanes): one masked vector per row,
    its sums over k in order, with fused multiply-adds, in registers, stored once. The lanes past the last column
    compute 0 * 0 + 0 (the elements of `a` are broadcast to them as zeros: no floating-point event of their own).
    A pass of its own down b's rows: inside the main pass's k loops it ran 0.5-1 ms faster on (8, 8000) @
    (8000, 2015) float32, but the library compiled 130 ms longer (once per process)."""
    vt = ir.VectorType(zero.type)
    mask = vector.create_mask(ir.VectorType.get(vt.shape, ir.IntegerType.get_signless(1)), [count])
    loop = scf.ForOp(_index(0), k, _index(1), [zero] * len(row_index))
    with ir.InsertionPoint(loop.body):
        kd = loop.induction_variable
        value = vector.maskedload(vt, b, [kd, j], mask, zero)
        scf.YieldOp([vector.fma(value, arith.select(mask, vector.broadcast(vt, memref.load(a, [i, kd])), zero), acc)
                     for i, acc in zip(row_index, loop.inner_iter_args)])
    for i, total in zip(row_index, loop.results):
        vector.maskedstore(c, [i, j], mask, total)
