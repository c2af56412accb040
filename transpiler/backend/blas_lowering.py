"""Matrix products as direct calls of the BLAS that NumPy ships (OpenBLAS), split over the kernel's own OpenMP
threads: one thread pool for the products and the loops around them.

Calling NumPy's matmul from the kernel (runtime/blas.py) runs the product on OpenBLAS's thread pool, whose workers
keep spinning for about 0.1 s afterwards, against the kernel's OpenMP loops that follow (docs/performance.md). Here
the kernel calls OpenBLAS's `cblas_?gemm` itself, once per chunk of the output, from an `scf.parallel` loop that
becomes an OpenMP loop like any other; the runtime keeps OpenBLAS single-threaded while such a kernel runs
(runtime/blas.py), so every chunk runs in the thread that called it.

For each float32 or float64 product `c = a @ b` on buffers:
- at the call site, a narrow operand (float32 or float16 in a float64 product ...) is widened TILE columns (rows)
  at a time into a buffer, by a parallel loop, in its own memory order (a transposed weight, `x @ wte.T`, is read
  row by row), and each tile is multiplied into its columns (rows) of c: no widened copy of the whole operand;
- a helper function per element type (`transpiler_gemm_f32`, `transpiler_gemm_f64`) checks at run time that each
  operand is a BLAS matrix (unit stride along one axis and a large enough leading dimension, transposed or not;
  `c` row by row) and copies any that is not (negative, zero or scattered strides) first;
- it splits the larger of the two output dims into as many chunks as the machine has cores (fewer for a small
  product: at least CHUNK_MIN_MACS multiply-adds each), threads or not, and calls gemm on each chunk.
  2 to 8 rows by a large row-major b call our few-row loops per chunk instead (few_rows.py).
Chunks split the output, never a sum: each element is the sum of the same products, though OpenBLAS does not
always add them in the same order for a chunk as for the whole (float64 results differ in the last bits on a Zen 5
with AVX-512; docs/guarantees.md states the rule).
"""
from __future__ import annotations

import contextlib
import os

from mlir import ir
from mlir.dialects import arith, func, linalg, memref, scf
from mlir.dialects import complex as cx

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112    # CBLAS enums
CHUNK_MIN_MACS = 1 << 18                       # ~10 us of BLAS work: smaller products are not split
CHUNK_ALIGN = 64                               # chunk bounds: a multiple of every micro-kernel's tile size
# Columns of a narrow b (rows of a narrow a) widened at a time: 768 x 1024 float64 is 6 MB, in the shared L3.
# GPT-2 at 256 tokens: 708 ms with 512, 680 ms with 1024, 705 ms with 2048 (743 ms widening whole operands).
TILE = 1024
# The vector our own product loops take at a time (gemv_pair.py, few_rows.py): one AVX-512 register, two AVX2 ones
VECTOR_BYTES = 64

# The external symbols the kernel calls: runtime/blas.py binds them to OpenBLAS's ILP64 cblas_?gemm / cblas_?gemv.
# (Complex products, batched_blas.py, call cgemm/zgemm, which take alpha and beta by pointer.)
GEMM_SYMBOLS = {"f32": "transpiler_cblas_sgemm", "f64": "transpiler_cblas_dgemm",
                "complex<f32>": "transpiler_cblas_cgemm", "complex<f64>": "transpiler_cblas_zgemm"}
GEMV_SYMBOLS = {"f32": "transpiler_cblas_sgemv", "f64": "transpiler_cblas_dgemv"}
BLAS_SYMBOLS = (*GEMM_SYMBOLS.values(), *GEMV_SYMBOLS.values())
# Functions of ours called per chunk as gemm is (each worth a thread: loops.thread_only_large_loops): gemv_pair's
# chunks of rows (of a pair, of a chain), few_rows' loops; each name is the prefix and the element type.
GEMV_PAIR_CHUNK, GEMV_CHAIN_CHUNK = "transpiler_gemv_pair_chunk_", "transpiler_gemv_chain_chunk_"
WORTH_A_THREAD = (GEMV_PAIR_CHUNK, GEMV_CHAIN_CHUNK, "transpiler_few_rows_")
# LAPACK's dgesv (np.linalg.inv and solve, codegen/lapack_call.py): bound to the same library's ILP64 Fortran
# `scipy_dgesv_64_`, the function NumPy's _umath_linalg calls
LAPACK_SYMBOLS = {"transpiler_lapack_dgesv": "scipy_dgesv_64_"}
_HELPER = "transpiler_gemm_{}"


def supported(element_type) -> bool:
    return str(element_type) in GEMM_SYMBOLS


def product(module: ir.Module, a, b, c) -> None:
    """c = a @ b (a, b, c 2-D buffers, c's type f32 or f64; a or b or both may be of a narrower float type), at
    the current insertion point."""
    wide = ir.MemRefType(c.type).element_type
    helper = _helper(module, wide)
    a, b, c = (memref.cast(_dynamic(v.type), v) for v in (a, b, c))
    narrow = [i for i, v in enumerate((a, b)) if ir.MemRefType(v.type).element_type != wide]
    if not narrow:
        func.CallOp([], ir.FlatSymbolRefAttr.get(helper), [a, b, c])
        return
    if len(narrow) == 2:     # both narrower than the result (np.matmul(a32, b32, dtype=np.float64)): a widened whole
        widened = memref.alloc(_plain(wide), [memref.dim(a, _index(0)), memref.dim(a, _index(1))], [])
        _copy(module, a, widened)
        _tiled_widening_product(module, helper, memref.cast(_dynamic(widened.type), widened), b, c, 1, wide)
        memref.dealloc(widened)
        return
    _tiled_widening_product(module, helper, a, b, c, narrow[0], wide)


def _tiled_widening_product(module: ir.Module, helper: str, a, b, c, i: int, wide) -> None:
    """c = a @ b where operand i is narrow: TILE columns of b (rows of a) at a time are widened into a buffer in
    their own memory order, then multiplied into the matching columns (rows) of c. The widened tile is still in
    the cache when gemm reads it, and no widened copy of the whole operand is ever made (NumPy makes one)."""
    x = (a, b)[i]
    free = i                                        # b's columns, a's rows: the dim not summed over
    s0, s1 = _strides(x)
    one = _index(1)
    by_columns = arith.andi(_eq(s0, one), arith.cmpi(arith.CmpIPredicate.ne, s1, one))
    extent, depth = memref.dim(x, _index(free)), memref.dim(x, _index(1 - free))
    tile = _index(TILE)
    branch = scf.IfOp(by_columns, [], has_else=True)
    for block, transposed in ((branch.then_block, True), (branch.else_block, False)):
        with ir.InsertionPoint(block):
            free_in_memory = free if not transposed else 1 - free   # the tile's free dim in its memory order
            sizes = [arith.minsi(tile, extent) if d == free_in_memory else depth for d in (0, 1)]
            buffer = memref.alloc(_plain(wide), sizes, [])   # a small product gets a small buffer
            loop = scf.ForOp(_index(0), extent, tile)
            with ir.InsertionPoint(loop.body):
                start = loop.induction_variable
                size = arith.minsi(tile, arith.subi(extent, start))
                source = _slice(x, free, start, size)
                source = _transpose(source) if transposed else source
                shape = [size if d == free_in_memory else depth for d in (0, 1)]
                widened = _slice(memref.cast(_dynamic(buffer.type), buffer), 0, _index(0), shape[0])
                widened = _slice(widened, 1, _index(0), shape[1])
                _copy(module, source, widened)
                operands = [a, b]
                operands[i] = _transpose(widened) if transposed else widened
                func.CallOp([], ir.FlatSymbolRefAttr.get(helper), operands + [_slice(c, free, start, size)])
                scf.YieldOp([])
            memref.dealloc(buffer)
            scf.YieldOp([])


def _slice(x, dim: int, start, size):
    """x[start:start + size] along `dim` (a view)."""
    offsets, sizes = [0, 0], [memref.dim(x, _index(0)), memref.dim(x, _index(1))]
    offsets[dim], sizes[dim] = start, size
    return memref.subview(x, offsets, sizes, [1, 1], result_type=_dynamic(x.type))


def _helper(module: ir.Module, wide) -> str:
    """The function that multiplies fully strided buffers of one element type, defined once per module."""
    name = _HELPER.format(mangle(wide))
    existing = ir.SymbolTable(module.operation)
    if name in existing:
        return name
    gemm, gemv = declare_blas(module, wide)
    with ir.InsertionPoint.at_block_begin(module.body):
        t = _dynamic(ir.MemRefType.get([1, 1], wide))
        fn = func.FuncOp(name, ([t, t, t], []), visibility="private")
    with ir.InsertionPoint(fn.add_entry_block()):
        a, b, c = fn.arguments
        m, k, n = memref.dim(a, _index(0)), memref.dim(a, _index(1)), memref.dim(b, _index(1))
        # The copies below assume a nonempty product (an empty copy is no BLAS matrix)
        macs = arith.muli(arith.muli(m, n), k)
        branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ne, macs, _index(0)), [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            blas_or_copy(module, name, a, b, c, [(a, m, k), (b, k, n)],
                          lambda: _chunked_gemm(module, gemm, gemv, a, b, c, m, n, k, macs))
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            linalg.fill(zero(wide), outs=[c])   # k = 0: a sum of nothing
            scf.YieldOp([])
        func.ReturnOp([])
    return name


def declare_blas(module: ir.Module, element) -> tuple:
    """(gemm, gemv) symbol names for `element` (gemv None for complex), declared in the module once."""
    index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
    gemm, gemv = GEMM_SYMBOLS[str(element)], GEMV_SYMBOLS.get(str(element))
    scalar = index if is_complex(element) else element    # alpha and beta: by pointer for complex
    existing = ir.SymbolTable(module.operation)
    with ir.InsertionPoint.at_block_begin(module.body):
        if gemm not in existing:
            func.FuncOp(gemm, ([i32, i32, i32, index, index, index, scalar, index, index, index, index, scalar, index,
                                index], []), visibility="private")
        if gemv is not None and gemv not in existing:   # (order, trans, M, N, alpha, A, lda, x, incx, beta, y, incy)
            func.FuncOp(gemv, ([i32, i32, index, index, element, index, index, index, index, element, index, index],
                               []), visibility="private")
    return gemm, gemv


def is_complex(element) -> bool:
    return isinstance(element, ir.ComplexType)


def mangle(element) -> str:
    """The element type in a symbol name: f64, complexf64."""
    return str(element).replace("<", "").replace(">", "")


def complex_scalars(element):
    """Pointers (as indices) to alpha = 1 and beta = 0 of a complex type, cells in the current function's frame
    (create them outside loops)."""
    part = ir.ComplexType(element).element_type
    pointers = []
    for value in (1.0, 0.0):
        cell = memref.alloca(ir.MemRefType.get([2], part), [], [])
        for i, v in enumerate((value, 0.0)):
            memref.store(arith.constant(part, ir.FloatAttr.get(part, v)), cell, [_index(i)])
        pointers.append(memref.ExtractAlignedPointerAsIndexOp(cell).result)
    return pointers


def zero(element):
    if is_complex(element):
        part = ir.ComplexType(element).element_type
        value = ir.FloatAttr.get(part, 0.0)
        return cx.ConstantOp(element, ir.ArrayAttr.get([value, value])).result
    return arith.constant(element, ir.FloatAttr.get(element, 0.0))


def item_size(element) -> int:
    if is_complex(element):
        return 2 * ir.ComplexType(element).element_type.width // 8
    return element.width // 8


def blas_or_copy(module, name, a, b, c, inputs, call) -> None:
    """`call()` if a, b and c are BLAS matrices (stacks of them: the last two dims); else the helper `name` again on
    a copy of the first that is not. `inputs`: (operand, rows, cols) of a and b."""
    if inputs:
        x, rows, cols = inputs[0]
        usable = arith.ori(*_layouts(x, rows, cols))
    else:
        rank = ir.MemRefType(c.type).rank
        usable = _layouts(c, memref.dim(c, _index(rank - 2)), memref.dim(c, _index(rank - 1)))[0]
    branch = scf.IfOp(usable, [], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        if inputs:
            blas_or_copy(module, name, a, b, c, inputs[1:], call)
        else:
            call()
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        x = inputs[0][0] if inputs else c
        rank = ir.MemRefType(x.type).rank
        buffer = memref.alloc(_plain(ir.MemRefType(x.type).element_type, rank),
                              [memref.dim(x, _index(i)) for i in range(rank)], [])
        copy = memref.cast(x.type, buffer)
        if inputs:
            _copy(module, x, buffer)
        operands = [copy if v == x else v for v in (a, b, c)]
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), operands)
        if not inputs:
            _copy(module, buffer, c)
        memref.dealloc(buffer)
        scf.YieldOp([])


def _layouts(x, rows, cols):
    """(by rows, by columns): whether x is a row-major (no-trans) or column-major (trans) BLAS matrix. Strides
    along a dim of size 1 do not matter; the leading dimension must cover a row (column)."""
    return layout_flags(*_strides(x)[-2:], rows, cols)


def layout_flags(s0, s1, rows, cols):
    """_layouts for a matrix of these strides (the last two of a stack's)."""
    one = _index(1)
    by_rows = arith.andi(_eq(s1, one), arith.ori(_ge(s0, _max(cols, one)), _le(rows, one)))
    by_columns = arith.andi(_eq(s0, one), arith.ori(_ge(s1, _max(rows, one)), _le(cols, one)))
    return by_rows, by_columns


def _chunked_gemm(module, gemm, gemv, a, b, c, m, n, k, macs) -> None:
    """c = a @ b on BLAS matrices, in chunks of the output over the threads: gemm, or gemv when b is one column, as
    NumPy calls it for a matrix times a column (its results then are NumPy's, and a matrix-vector product runs at
    gemv's speed, not gemm's)."""
    from . import few_rows     # (it builds on this module)
    wide = ir.MemRefType(c.type).element_type
    item = _index(item_size(wide))
    chunks = chunk_count(macs)

    def blas():
        matrices = [matrix(_address(x, item), *_strides(x), rows, cols) for x, rows, cols in ((a, m, k), (b, k, n))]
        gemm_calls(gemm, gemv, wide, *matrices, output(_address(c, item), _strides(c)[0], n), m, n, k, item, chunks)

    if str(wide) not in few_rows.SYMBOLS:    # (complex products)
        blas()
        return
    one = _index(1)
    # 2 to 8 rows by a large row-major b: our loops, compiled once per process, beat gemm (few_rows.py)
    few = arith.andi(few_rows.worth_it(m, n, k, item_size(wide)),
                     arith.andi(_eq(_strides(b)[1], one), _eq(_strides(c)[1], one)))
    branch = scf.IfOp(few, [], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        with _over_chunks(chunks, n) as (start, size):
            few_rows.call(module, a, _slice(b, 1, start, size), _slice(c, 1, start, size))
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        blas()
        scf.YieldOp([])


def chunk_count(macs):
    """As many chunks as the machine has cores (fewer for a small product), with or without threads: how a product
    is split changes the last bits of float64 results, so it depends on nothing that changes between calls or
    settings (the thread count, OMP_NUM_THREADS, the load): a threaded kernel gives a one-thread kernel's bits."""
    worth = _max(arith.divui(macs, _index(CHUNK_MIN_MACS)), _index(1))
    return arith.minui(_index(usable_cores()), worth)


def matrix(address, s0, s1, rows, cols) -> tuple:
    """(pointer in bytes, trans, leading dim, s0, s1) of a BLAS matrix (_layouts) at `address` with these strides."""
    i32 = ir.IntegerType.get_signless(32)
    one = _index(1)
    by_rows, _ = layout_flags(s0, s1, rows, cols)
    trans = arith.select(by_rows, arith.constant(i32, NO_TRANS), arith.constant(i32, TRANS))
    lead = arith.select(by_rows, _max(s0, _max(cols, one)), _max(s1, _max(rows, one)))
    return address, trans, lead, s0, s1


def output(address, s0, n) -> tuple:
    """(pointer in bytes, leading dim, row stride) of a row-major result of n columns."""
    return address, _max(s0, _max(n, _index(1))), s0


def gemm_calls(gemm, gemv, wide, a, b, c, m, n, k, item, chunks, scalars=None) -> None:
    """c = a @ b (matrix() and output() tuples), gemm or, with one column or one row, gemv (as NumPy calls it for a
    matrix times a column or a row times a matrix: its results then are NumPy's, and a matrix-vector product runs
    at gemv's speed; complex products always gemm); in `chunks`
    pieces over the threads, or one call where chunks is None. `scalars`: alpha and beta (pointers, for complex)."""
    pa, ta, lda, sa0, sa1 = a
    pb, tb, ldb, _, sb1 = b
    if scalars is None:
        scalars = complex_scalars(wide) if is_complex(wide) else \
            [arith.constant(wide, ir.FloatAttr.get(wide, v)) for v in (1.0, 0.0)]
    if gemv is None:
        _chunked_gemm_loop(gemm, chunks, m, n, k, item, scalars, (pa, ta, lda, sa0), (pb, tb, ldb, sb1), c)
        return
    column = scf.IfOp(_eq(n, _index(1)), [], has_else=True)
    with ir.InsertionPoint(column.then_block):
        _chunked_gemv(gemv, chunks, m, k, item, scalars, (pa, ta, lda, sa0), (pb, tb, ldb), c)
        scf.YieldOp([])
    with ir.InsertionPoint(column.else_block):
        row = scf.IfOp(_eq(m, _index(1)), [], has_else=True)
        with ir.InsertionPoint(row.then_block):
            _chunked_row_gemv(gemv, chunks, n, k, item, scalars, (pa, sa1), (pb, tb, ldb), c)
            scf.YieldOp([])
        with ir.InsertionPoint(row.else_block):
            _chunked_gemm_loop(gemm, chunks, m, n, k, item, scalars, (pa, ta, lda, sa0), (pb, tb, ldb, sb1), c)
            scf.YieldOp([])
        scf.YieldOp([])


def _chunked_gemv(gemv, chunks, m, k, item, scalars, a, b, c) -> None:
    """c[:, 0] = a @ b[:, 0], rows of a in chunks (aligned as gemm's are: a row's sum is the one a single call
    computes). A transposed a is a (k, m) row-major matrix, multiplied transposed."""
    (pa, ta, lda, sa0), (pb, tb, ldb), (pc, ldc, sc0) = a, b, c
    i32 = ir.IntegerType.get_signless(32)
    no_trans = arith.cmpi(arith.CmpIPredicate.eq, ta, arith.constant(i32, NO_TRANS))
    incx = arith.select(arith.cmpi(arith.CmpIPredicate.eq, tb, arith.constant(i32, NO_TRANS)), ldb, _index(1))
    with _over_chunks(chunks, m) as (start, size):
        rows, cols = arith.select(no_trans, size, k), arith.select(no_trans, k, size)
        func.CallOp([], ir.FlatSymbolRefAttr.get(gemv), [
            arith.constant(i32, ROW_MAJOR), ta, rows, cols, scalars[0],
            arith.addi(pa, arith.muli(arith.muli(start, sa0), item)), lda, pb, incx,
            scalars[1], arith.addi(pc, arith.muli(arith.muli(start, sc0), item)), ldc])


def _chunked_row_gemv(gemv, chunks, n, k, item, scalars, a, b, c) -> None:
    """c[0, :] = a[0, :] @ b for one row of a, as NumPy calls gemv for a vector times a matrix (one row through
    gemm is twice as slow: float64 (1, 4000) @ (4000, 5000), one thread, 23.8 ms against gemv's 8-12 ms), columns
    of the result in chunks. A row-major b (k, n) is multiplied transposed; a transposed one is an (n, k) row-major
    matrix, multiplied as it is. The row's elements are `a[1]` apart (1, or the stride of a column-major a)."""
    (pa, sa1), (pb, tb, ldb), (pc, _, _) = a, b, c
    i32 = ir.IntegerType.get_signless(32)
    row_major = arith.cmpi(arith.CmpIPredicate.eq, tb, arith.constant(i32, NO_TRANS))
    trans = arith.select(row_major, arith.constant(i32, TRANS), arith.constant(i32, NO_TRANS))
    incx = _max(sa1, _index(1))
    with _over_chunks(chunks, n) as (start, size):
        rows, cols = arith.select(row_major, k, size), arith.select(row_major, size, k)
        shift_b = arith.muli(arith.select(row_major, start, arith.muli(start, ldb)), item)
        func.CallOp([], ir.FlatSymbolRefAttr.get(gemv), [
            arith.constant(i32, ROW_MAJOR), trans, rows, cols, scalars[0], arith.addi(pb, shift_b), ldb,
            pa, incx, scalars[1], arith.addi(pc, arith.muli(start, item)), _index(1)])


@contextlib.contextmanager
def _over_chunks(chunks, extent):
    """The body of a parallel loop over `chunks` pieces of [0, extent) (_chunk_bound's): yields each piece's start
    and size, the insertion point inside the loop. chunks None: one piece, no loop."""
    if chunks is None:
        yield _index(0), extent
        return
    one = _index(1)
    loop = scf.ParallelOp([], [_index(0)], [chunks], [one], [])
    body = loop.regions[0].blocks.append(ir.IndexType.get())
    with ir.InsertionPoint(body):
        i = body.arguments[0]
        start, end = (_chunk_bound(extent, j, chunks) for j in (i, arith.addi(i, one)))
        yield start, arith.subi(end, start)
        scf.ReduceOp([], 0)


def _chunked_gemm_loop(gemm, chunks, m, n, k, item, scalars, a, b, c) -> None:
    (pa, ta, lda, sa0), (pb, tb, ldb, sb1), (pc, ldc, sc0) = a, b, c
    i32 = ir.IntegerType.get_signless(32)
    zero, one = _index(0), _index(1)
    split_n = arith.cmpi(arith.CmpIPredicate.ugt, n, m)      # split the larger output dim
    with _over_chunks(chunks, arith.select(split_n, n, m)) as (start, size):
        shift_a = arith.select(split_n, zero, arith.muli(arith.muli(start, sa0), item))
        shift_b = arith.select(split_n, arith.muli(arith.muli(start, sb1), item), zero)
        shift_c = arith.muli(arith.muli(start, arith.select(split_n, one, sc0)), item)
        rows, cols = arith.select(split_n, m, size), arith.select(split_n, size, n)
        func.CallOp([], ir.FlatSymbolRefAttr.get(gemm), [
            arith.constant(i32, ROW_MAJOR), ta, tb, rows, cols, k, scalars[0],
            arith.addi(pa, shift_a), lda, arith.addi(pb, shift_b), ldb,
            scalars[1], arith.addi(pc, shift_c), ldc])


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask), a constant of the machine for the kernel."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):   # no affinity call on this platform
        return max(1, os.cpu_count() or 1)


def _chunk_bound(extent, i, chunks):
    """Where chunk i starts: i/chunks of the extent, rounded down to a multiple of CHUNK_ALIGN (the last bound is
    the extent). OpenBLAS computes the elements of a partial tile of its micro-kernel in another order than those
    of full tiles: with aligned chunks only the last one has partial tiles, exactly where one call over the whole
    extent has them. (This keeps most, not all, elements as a single call computes them: float64 products split in
    chunks differ from one call in the last bits on a Zen 5 with AVX-512, docs/guarantees.md.)"""
    align = _index(CHUNK_ALIGN)
    rounded = arith.muli(arith.divui(arith.divui(arith.muli(extent, i), chunks), align), align)
    return arith.select(_eq(i, chunks), extent, rounded)


def _copy(module: ir.Module, source, target) -> None:
    """target = source, element by element (widened when target's type is wider): a call of a function with one
    parallel loop nest, defined once per pair of element types (each loop nest is an OpenMP region to compile)."""
    source_type, target_type = (_dynamic(v.type) for v in (source, target))
    rank = ir.MemRefType(source_type).rank
    name = f"transpiler_copy_{ir.MemRefType(source_type).element_type}_{ir.MemRefType(target_type).element_type}"
    name += "" if rank == 2 else f"_{rank}d"
    if name not in ir.SymbolTable(module.operation):
        with ir.InsertionPoint.at_block_begin(module.body), ir.Location.unknown():
            fn = func.FuncOp(name, ([source_type, target_type], []), visibility="private")
        with ir.InsertionPoint(fn.add_entry_block()), ir.Location.unknown():
            identity = ir.AffineMap.get_identity(rank)
            par = linalg.IteratorType.parallel
            generic = linalg.GenericOp_(inputs=[fn.arguments[0]], outputs=[fn.arguments[1]],
                                        indexing_maps=[identity, identity], iterator_types=[par] * rank)
            wide = ir.MemRefType(target_type).element_type
            with ir.InsertionPoint(generic.regions[0].blocks[0]):
                x = generic.regions[0].blocks[0].arguments[0]
                linalg.YieldOp([x if x.type == wide else arith.extf(wide, x)])
            func.ReturnOp([])
    func.CallOp([], ir.FlatSymbolRefAttr.get(name),
                [memref.cast(source_type, source), memref.cast(target_type, target)])


def _strides(x):
    meta = memref.ExtractStridedMetadataOp(x)
    return list(meta.strides)


def _address(x, item):
    """The address of x[0, 0] in bytes, as an index."""
    meta = memref.ExtractStridedMetadataOp(x)
    base = memref.ExtractAlignedPointerAsIndexOp(meta.base_buffer).result
    return arith.addi(base, arith.muli(meta.offset, item))


def _transpose(x):
    t = ir.MemRefType(x.type)
    return memref.transpose(_dynamic(t), x, ir.AffineMap.get_permutation([1, 0]))


def unit_inner(x):
    """x as a memref whose rows are contiguous (checked or made so by the caller): a reinterpret_cast, which
    canonicalization does not fold into the vector loads as it would a memref.cast (they need the static stride)."""
    m = ir.MemRefType(x.type)
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    size = ir.ShapedType.get_dynamic_size()
    t = ir.MemRefType.get([size] * 2, m.element_type, ir.StridedLayoutAttr.get(dyn, [dyn, 1]), m.memory_space)
    meta = memref.ExtractStridedMetadataOp(x)
    return memref.reinterpret_cast(t, meta.base_buffer, [meta.offset], list(meta.sizes), [meta.strides[0]],
                                   [dyn], [size, size], [dyn, 1])


def _dynamic(t) -> ir.Type:
    """memref<?x?xT, strided<[?, ?], offset: ?>> (of t's rank): the type the helper takes."""
    m = ir.MemRefType(t)
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    return ir.MemRefType.get([ir.ShapedType.get_dynamic_size()] * m.rank, m.element_type,
                             ir.StridedLayoutAttr.get(dyn, [dyn] * m.rank), m.memory_space)


def _plain(element, rank: int = 2) -> ir.Type:
    return ir.MemRefType.get([ir.ShapedType.get_dynamic_size()] * rank, element)


def _index(v: int):
    return arith.constant(ir.IndexType.get(), v)


# linalg.matmul's indexing maps as their results: (m, k), (k, n), (m, n)
MATMUL_MAPS = [("d0", "d2"), ("d2", "d1"), ("d0", "d1")]


def _eq(x, y):
    return arith.cmpi(arith.CmpIPredicate.eq, x, y)


def _ge(x, y):
    return arith.cmpi(arith.CmpIPredicate.sge, x, y)


def _le(x, y):
    return arith.cmpi(arith.CmpIPredicate.sle, x, y)


def _max(x, y):
    return arith.maxsi(x, y)
