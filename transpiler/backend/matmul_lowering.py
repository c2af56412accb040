"""Matrix products on buffers, after bufferization: OpenBLAS called from the kernel's threads (blas_lowering.py,
float32/float64 2-D products; batched_blas.py, the linalg.contract of stacks and of complex products), a call of
NumPy's matmul (runtime/blas.py: float16 products), or, for few rows, generated loops that read a narrow operand as
it is.

NumPy 2 promotes `float64 @ float32` to float64 by converting the whole float32 operand first: for GPT-2's weights
that is a full float64 copy of every weight matrix on every call (and for `x @ wte.T` a transposed, cache-hostile
one). With few rows (a short prompt, one decoding step) the product itself is cheap and the conversion dominates.
Below a number of rows that a measured cost model gives (FEW_ROWS: it depends on the inner size k, the layout,
which operand is narrow and threads) the kernel runs a loop nest instead, chosen at run time, that widens each
element as it multiplies:
- `a @ w.T` with `w` row-major (GPT-2's tied output embedding): a parallel loop over the rows of `w`, each dotted
  with ROW_BLOCK rows of `a` at a time along the contiguous k axis (reassociable sums, so LLVM vectorizes them);
- `a @ w`: for each row of `a`, the rows of `w` are scaled and accumulated into the contiguous output row.
Same-type products call OpenBLAS, but a dot product (`A[i, :i] @ x[:i]` in a loop body) takes the same loops,
chosen at run time (_tiny): a BLAS call from the kernel, with its copy of a strided column, costs more than the
dot's arithmetic (LU by dot products at n = 120: 14,400 of them, 9 ms against 1.1 ms in loops, Zen 3).
The loops sum the same exact products as BLAS in another order: results match NumPy to rounding, not bit for bit.
"""
from __future__ import annotations

import functools

from mlir import ir
from mlir.dialects import arith, func, linalg, memref, scf

from . import batched_blas, blas_lowering, gemv_pair
from .erasing import erase_with_body


def matmuls_to_calls(module: ir.Module, direct_blas: bool = False, threads: bool = True) -> None:
    """Replace each linalg.matmul / batch_matmul / contract on buffers by BLAS: with `direct_blas`, float32 and
    float64 2-D products call OpenBLAS from the kernel's threads (blas_lowering.py), stacks and complex products
    (linalg.contract) too, per matrix (batched_blas.py); other matmuls call an external function named after their
    operand types (as convert-linalg-to-std names them), which runtime/blas.py provides: NumPy's matmul. A contract
    left in place becomes loops. `threads`: whether the kernel's loops run on threads (the few-row model's case)."""
    ops, declared = [], set()

    def collect(op):
        if op.name == "func.func":
            declared.add(op.attributes["sym_name"].value)
        elif op.name in ("linalg.contract", "linalg.matmul", "linalg.batch_matmul"):
            ops.append(op)    # (not the ops nested in them: their handles would outlive the erase, erasing.py)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect, ir.WalkOrder.PRE_ORDER)
    # A matrix times a vector and a vector times the same matrix, `(A @ x) @ A` too: one pass over A (gemv_pair.py)
    ops = gemv_pair.fuse(module, ops, _operand_maps, _zero_fill_before, erase_with_body, direct_blas)
    for op in ops:
        if op.name == "linalg.contract":    # stacks and complex products (codegen/matmul._contract)
            fill = _zero_fill_before(op)    # BLAS overwrites c
            with ir.InsertionPoint(op), op.location:
                if direct_blas and batched_blas.lower(module, op):
                    if fill is not None:
                        erase_with_body(fill)
                    erase_with_body(op)
            continue                        # (else it becomes loops)
        if op.name not in ("linalg.matmul", "linalg.batch_matmul"):
            continue
        with ir.InsertionPoint(op), op.location:
            operands = [_as_indexed(v, m, c) for v, m, c in zip(op.operands, _operand_maps(op), _CANONICAL)]
            if direct_blas and op.name == "linalg.matmul" and \
                    blas_lowering.supported(ir.MemRefType(op.operands[2].type).element_type):
                call = functools.partial(blas_lowering.product, module, *operands)
            else:
                call = functools.partial(_call_numpy_matmul, module, op.name, operands, declared)
            limit, transposed = _small_rows_limit(op, threads)
            fill = _zero_fill_before(op)   # BLAS overwrites c (beta = 0): only the few-row loops add into zeros
            if limit is None and not _same_type_float(op):
                call()
                if fill is not None:
                    erase_with_body(fill)
            else:
                if limit is None:
                    transposed = _operand_maps(op)[1] == _CANONICAL[1][::-1]
                    chosen = _tiny(*op.operands)
                else:
                    chosen = _few_rows(*op.operands, limit)
                branch = scf.IfOp(chosen, [], has_else=True)
                with ir.InsertionPoint(branch.then_block):
                    _widening_loops(*op.operands, transposed)
                    scf.YieldOp([])
                if fill is not None:
                    fill.move_before(list(branch.then_block.operations)[0])
                with ir.InsertionPoint(branch.else_block):
                    call()
                    scf.YieldOp([])
        erase_with_body(op)


def _call_numpy_matmul(module: ir.Module, op_name: str, operands: list, declared: set) -> None:
    types = [_fully_strided(v.type) for v in operands]
    name = op_name.replace(".", "_") + "".join(
        "_view" + "sx" * ir.MemRefType(t).rank + str(ir.MemRefType(t).element_type) for t in types)
    if name not in declared:
        with ir.InsertionPoint.at_block_begin(module.body):
            fn = func.FuncOp(name, (types, []), visibility="private")
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        declared.add(name)
    casts = [memref.cast(t, v) for t, v in zip(types, operands)]
    func.CallOp([], ir.FlatSymbolRefAttr.get(name), casts)


def _zero_fill_before(op):
    """The operation that fills the product's output with zeros just before it (codegen/matmul.py's init, a
    generalized linalg.fill), if no operation in between touches the output; else None."""
    c = op.operands[2]
    before = []
    for other in op.operation.block.operations:
        if other.operation == op.operation:
            break
        before.append(other.operation)
    for other in reversed(before):
        if c not in list(other.operands):
            continue
        if other.name != "linalg.generic" or list(other.operands) != [c]:
            return None
        body = other.regions[0].blocks[0]
        yielded = list(body.operations)[-1].operands[0]
        constant = None if isinstance(yielded.owner, ir.Block) else yielded.owner
        if constant is None or constant.operation.name != "arith.constant" or \
                not _is_zero(constant.attributes["value"]):
            return None
        return other
    return None


def _is_zero(attr) -> bool:
    return isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)) and attr.value == 0


# The few-row cost model (benchmarks/few_rows.py measures it, docs/performance.md gives its figures and the CPU): a
# mixed product runs the widening loops while its rows m < ROWS + k // K_PER_ROW (no k term where K_PER_ROW is 0),
# else converts the narrow operand and calls BLAS. Why that form: converting a narrow w costs about k * n, once; the
# loops cost m * k * n at a slower rate than BLAS, plus, in `a @ w.T`, a horizontal sum and a store per output
# element, which a long k amortizes: the longer k, the more rows the conversion is worth. Keyed by (narrow
# operand, `a @ w.T`, threads); a narrow a (float32 @ float64) costs BLAS only m * k to convert.
# a @ w keeps the loops to 8 + k // 768 rows where the least-loss fit says 4 + k // 768: nearly as good over the grid
# (mean slowdown 1.7-2.8% against 1.0-2.4%), and GPT-2's (8, 3072) @ (3072, 768) takes 2.5-2.9 ms in the loops
# against 7.2-8.7 ms converted, two threads (docs/performance.md).
FEW_ROWS = {   # fitted 2026-12-01 on a Zen 4 (2 cores; one thread: AVX-512 and x86-64-v3 code pooled)
    ("b", False, False): (8, 768), ("b", False, True): (8, 768),      # float64 @ float32: 8 + k // 768 rows
    ("b", True, False): (9, 256), ("b", True, True): (5, 192),        # float64 @ float32.T: 12 rows at k = 768
    ("a", False, False): (0, 768), ("a", False, True): (0, 768),      # float32 @ float64: loops from k = 768 on
    ("a", True, False): (5, 1024), ("a", True, True): (4, 768),
}


def _small_rows_limit(op, threads: bool = True):
    """((rows, k_per_row) of FEW_ROWS, whether b is read transposed) for a mixed float matmul of canonical a and c;
    else (None, None). Same-type products need no conversion: since they call OpenBLAS from the kernel's own
    threads (blas_lowering.py), BLAS beats the loops or ties at every row count (one thread, minimums, Zen 4,
    2026-12-01, loops / BLAS / NumPy: float64 (4, 768) @ (768, 2304) 1.72 / 1.39 / 0.86-1.29 ms; (8, 768) @ (768,
    3072) 12.5 / 2.15 / 1.8-2.0 ms; (15, 2000) @ (2000, 2000) 29.0 / 6.1 / 5.1-5.6 ms; float32 (15, 2000) @ (2000,
    2000) 4.67 / 3.35 / 2.5-3.2 ms; float32 at 4 and 8 rows of 768 about even; one row, where BLAS is gemv as NumPy
    calls it: see blas_lowering._chunked_row_gemv)."""
    if op.name != "linalg.matmul":
        return None, None
    a, b, c = (ir.MemRefType(v.type).element_type for v in op.operands)
    floats = (ir.F16Type, ir.F32Type, ir.F64Type)
    if not all(isinstance(t, floats) for t in (a, b, c)) or isinstance(c, ir.F16Type):
        return None, None   # (float16 results: NumPy's matmul, which sums in float32 and rounds once)
    maps = _operand_maps(op)
    if maps[0] not in (None, _CANONICAL[0]) or maps[2] not in (None, _CANONICAL[2]):
        return None, None
    if a == b == c:
        return None, None   # no conversion to avoid: OpenBLAS (docstring)
    transposed = maps[1] == _CANONICAL[1][::-1]
    narrow = "b" if b != c else "a"     # (both narrow: a is widened whole, b by tiles, as a narrow b)
    return FEW_ROWS[narrow, transposed, threads and blas_lowering.usable_cores() > 1], transposed


def _same_type_float(op) -> bool:
    """A float32 or float64 2-D product of one type, of canonical a and c (the ones that call OpenBLAS)."""
    if op.name != "linalg.matmul":
        return False
    a, b, c = (ir.MemRefType(v.type).element_type for v in op.operands)
    maps = _operand_maps(op)
    return a == b == c and isinstance(c, (ir.F32Type, ir.F64Type)) \
        and maps[0] in (None, _CANONICAL[0]) and maps[2] in (None, _CANONICAL[2])


def _tiny(a, b, c):
    """Whether a same-type product is a dot product (one row, one column: `A[i, :i] @ x[:i]`), which takes the
    loops, at run time. Small products of more rows stay on gemm, whose bits are NumPy's (tests/test_linalg_gesv.py's
    Kalman filter compares them bit for bit)."""
    index = ir.IndexType.get()
    m, n = memref.dim(a, _dim(0)), memref.dim(c, _dim(1))
    one = arith.constant(index, 1)
    return arith.andi(arith.cmpi(arith.CmpIPredicate.eq, m, one), arith.cmpi(arith.CmpIPredicate.eq, n, one))


def few_rows_limit(entry, k: int, n: int) -> int:
    """The rows from which a product of inner size k and n columns calls BLAS, for a FEW_ROWS entry (_few_rows
    computes the same in the kernel)."""
    rows, k_per_row = entry
    return rows + (k // k_per_row if k_per_row else 0)


def _few_rows(a, b, c, limit):
    """Whether the product takes the widening loops: m < rows + k // k_per_row (few_rows_limit), at run time."""
    index = ir.IndexType.get()
    rows, k_per_row = limit
    m, k = memref.dim(a, _dim(0)), memref.dim(a, _dim(1))
    bound = arith.constant(index, rows)
    if k_per_row:
        bound = arith.addi(bound, arith.divui(k, arith.constant(index, k_per_row)))
    return arith.cmpi(arith.CmpIPredicate.ult, m, bound)


def _dim(i: int):
    return arith.constant(ir.IndexType.get(), i)


def _widening_loops(a, b, c, transposed: bool) -> None:
    """c += a @ b (c holds zeros), in the loop order that suits b's layout (see the module doc); each narrow
    element is widened exactly before its product."""
    if transposed:
        _dot_products(a, b, c)
        return
    d0, d1, d2 = (ir.AffineDimExpr.get(i) for i in range(3))
    par, red = linalg.IteratorType.parallel, linalg.IteratorType.reduction
    maps = [ir.AffineMap.get(3, 0, list(e)) for e in [(d0, d1), (d1, d2), (d0, d2)]]   # dims (m, k, n)
    generic = linalg.GenericOp_(inputs=[a, b], outputs=[c], indexing_maps=maps, iterator_types=[par, red, par])
    wide = ir.MemRefType(c.type).element_type
    with ir.InsertionPoint(generic.regions[0].blocks[0]):
        x, y, acc = generic.regions[0].blocks[0].arguments
        total = arith.addf(acc, _product(x, y, wide))
        # Reassociable like _dot_rows' sums: when n is 1 (a row times a column, `L[i, :i] @ x[:i]`) the k loop is
        # the innermost, and LLVM splits its sum into vector lanes as BLAS's dot does.
        total.owner.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<reassoc>")
        linalg.YieldOp([total])


ROW_BLOCK = 4   # rows of a that share each load of a row of w in _dot_products


def _dot_products(a, w, c) -> None:
    """c[m, n] = a[m, :] . w[n, :] (w is (n, k) in memory): a parallel loop over the rows of w; each is dotted with
    ROW_BLOCK rows of a at once (one load of w feeds ROW_BLOCK products), then with the remaining rows one by one.
    The sums along k are reassociable, so LLVM splits each into vector lanes."""
    index = ir.IndexType.get()
    wide = ir.MemRefType(c.type).element_type
    zero, one = arith.constant(index, 0), arith.constant(index, 1)
    rows, cols, depth = memref.dim(a, zero), memref.dim(w, zero), memref.dim(a, one)
    block = arith.constant(index, ROW_BLOCK)
    blocked = arith.muli(arith.divsi(rows, block), block)
    parallel = scf.ParallelOp([], [zero], [cols], [one], [])
    body = parallel.regions[0].blocks.append(index)
    with ir.InsertionPoint(body):
        n = body.arguments[0]
        outer = scf.ForOp(zero, blocked, block)
        with ir.InsertionPoint(outer.body):
            _dot_rows(a, w, c, [arith.addi(outer.induction_variable, arith.constant(index, i))
                                for i in range(ROW_BLOCK)], n, depth, wide)
            scf.YieldOp([])
        rest = scf.ForOp(blocked, rows, one)
        with ir.InsertionPoint(rest.body):
            _dot_rows(a, w, c, [rest.induction_variable], n, depth, wide)
            scf.YieldOp([])
        scf.ReduceOp([], 0)


def _dot_rows(a, w, c, rows: list, n, depth, wide) -> None:
    zero, one = arith.constant(ir.IndexType.get(), 0), arith.constant(ir.IndexType.get(), 1)
    inits = [memref.load(c, [m, n]) for m in rows]
    loop = scf.ForOp(zero, depth, one, inits)
    with ir.InsertionPoint(loop.body):
        k = loop.induction_variable
        y = memref.load(w, [n, k])
        y = y if y.type == wide else arith.extf(wide, y)
        sums = []
        for m, acc in zip(rows, loop.inner_iter_args):
            total = arith.addf(acc, _product(memref.load(a, [m, k]), y, wide))
            total.owner.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<reassoc>")
            sums.append(total)
        scf.YieldOp(sums)
    for m, total in zip(rows, loop.results):
        memref.store(total, c, [m, n])


def _product(x, y, wide):
    x, y = (v if v.type == wide else arith.extf(wide, v) for v in (x, y))
    return arith.mulf(x, y)


def _operand_maps(op) -> list:
    """The matmul's indexing maps as result-dim tuples, or Nones for the default maps."""
    if "indexing_maps" not in op.attributes:
        return [None] * len(op.operands)
    maps = ir.ArrayAttr(op.attributes["indexing_maps"])
    return [tuple(str(e) for e in ir.AffineMapAttr(m).value.results) for m in maps]


_CANONICAL = blas_lowering.MATMUL_MAPS


def _as_indexed(value, dims, canonical):
    """An operand read through a transposed map becomes a transposed view (strides swapped, no copy)."""
    if dims is None or dims == canonical:
        return value
    if dims != canonical[::-1]:
        raise AssertionError(f"unexpected matmul indexing map {dims}")
    m = ir.MemRefType(value.type)
    strides, offset = m.get_strides_and_offset()
    layout = ir.StridedLayoutAttr.get(offset, strides[::-1])
    result = ir.MemRefType.get(m.shape[::-1], m.element_type, layout, m.memory_space)
    return memref.transpose(result, value, ir.AffineMap.get_permutation([1, 0]))


def _fully_strided(t) -> ir.Type:
    m = ir.MemRefType(t)
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    layout = ir.StridedLayoutAttr.get(dyn, [dyn] * m.rank)
    return ir.MemRefType.get([ir.ShapedType.get_dynamic_size()] * m.rank, m.element_type, layout, m.memory_space)
