"""Matrix products on buffers, after bufferization: a call of NumPy's matmul (runtime/blas.py), or, for a
mixed-precision product with few rows, generated loops that read the narrow operand as it is.

NumPy 2 promotes `float64 @ float32` to float64 by converting the whole float32 operand first: for GPT-2's weights
that is a full float64 copy of every weight matrix on every call (and for `x @ wte.T` a transposed, cache-hostile
one). With few rows (a short prompt, one decoding step) the product itself is cheap and the conversion dominates.
Below SMALL_M rows the kernel runs a loop nest instead that widens each element as it multiplies (and so it does
for same-type products with few rows, see _small_rows_limit):
- `a @ w.T` with `w` row-major (GPT-2's tied output embedding): for each row of `w`, dot products with every row of
  `a` along the contiguous k axis (the row of `w` stays in L1; reassociable float64 sums, so they vectorize);
- `a @ w`: for each row of `a`, the rows of `w` are scaled and accumulated into the contiguous output row.
Both sum the same exact float64 products as BLAS, in another order: results match NumPy to rounding, not bit for bit.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, func, linalg, memref, scf

def matmuls_to_calls(module: ir.Module) -> None:
    """Replace each linalg.matmul / batch_matmul on buffers by a call of an external function named after its
    operand types (as convert-linalg-to-std names them), which runtime/blas.py provides: NumPy's BLAS."""
    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    declared = {op.attributes["sym_name"].value for op in ops if op.name == "func.func"}
    for op in ops:
        if op.name not in ("linalg.matmul", "linalg.batch_matmul"):
            continue
        with ir.InsertionPoint(op), op.location:
            operands = [_as_indexed(v, m, c) for v, m, c in zip(op.operands, _operand_maps(op), _CANONICAL)]
        types = [_fully_strided(v.type) for v in operands]
        name = op.name.replace(".", "_") + "".join(
            "_view" + "sx" * ir.MemRefType(t).rank + str(ir.MemRefType(t).element_type) for t in types)
        if name not in declared:
            with ir.InsertionPoint.at_block_begin(module.body):
                fn = func.FuncOp(name, (types, []), visibility="private")
                fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            declared.add(name)
        with ir.InsertionPoint(op), op.location:
            casts = [memref.cast(t, v) for t, v in zip(types, operands)]
            limit, transposed = _small_rows_limit(op)
            if limit is None:
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), casts)
            else:
                index = ir.IndexType.get()
                rows = memref.dim(op.operands[0], arith.constant(index, 0))
                branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ule, rows, arith.constant(index, limit)),
                                  [], has_else=True)
                with ir.InsertionPoint(branch.then_block):
                    _widening_loops(*op.operands, transposed)
                    scf.YieldOp([])
                with ir.InsertionPoint(branch.else_block):
                    func.CallOp([], ir.FlatSymbolRefAttr.get(name), casts)
                    scf.YieldOp([])
        op.erase()


SMALL_M = 16              # a @ w: w is read once per row of a
SMALL_M_TRANSPOSED = 64   # mixed a @ w.T: w is read once, each of its rows against every row of a


def _small_rows_limit(op):
    """(row limit, whether b is read transposed) for a float matmul of canonical a and c; else (None, None).
    Mixed-precision products avoid a converted copy below the limit. Same-type products need no conversion, but
    below SMALL_M rows BLAS gains nothing from its threads, and waking them leaves them spinning for a while
    against the kernel's own OpenMP threads (on 2 cores this costs more than the product)."""
    if op.name != "linalg.matmul":
        return None, None
    a, b, c = (ir.MemRefType(v.type).element_type for v in op.operands)
    floats = (ir.F16Type, ir.F32Type, ir.F64Type)
    if not all(isinstance(t, floats) for t in (a, b, c)):
        return None, None
    maps = _operand_maps(op)
    if maps[0] not in (None, _CANONICAL[0]) or maps[2] not in (None, _CANONICAL[2]):
        return None, None
    transposed = maps[1] == _CANONICAL[1][::-1]
    return (SMALL_M_TRANSPOSED if transposed and a != b else SMALL_M), transposed


def _widening_loops(a, b, c, transposed: bool) -> None:
    """c += a @ b (c holds zeros) as a linalg.generic whose loop order suits b's layout (see the module doc);
    each narrow element is widened exactly before its product."""
    d0, d1, d2 = (ir.AffineDimExpr.get(i) for i in range(3))
    par, red = linalg.IteratorType.parallel, linalg.IteratorType.reduction
    if transposed:    # dims (n, m, k): b is (n, k) in memory
        exprs, iterators = [(d1, d2), (d0, d2), (d1, d0)], [par, par, red]
    else:             # dims (m, k, n)
        exprs, iterators = [(d0, d1), (d1, d2), (d0, d2)], [par, red, par]
    maps = [ir.AffineMap.get(3, 0, list(e)) for e in exprs]
    generic = linalg.GenericOp_(inputs=[a, b], outputs=[c], indexing_maps=maps, iterator_types=iterators)
    wide = ir.MemRefType(c.type).element_type
    with ir.InsertionPoint(generic.regions[0].blocks[0]):
        x, y, acc = generic.regions[0].blocks[0].arguments
        x, y = (v if v.type == wide else arith.extf(wide, v) for v in (x, y))
        total = arith.addf(acc, arith.mulf(x, y))
        if transposed:   # a dot product along k: let LLVM split it into vector lanes
            total.owner.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<reassoc>")
        linalg.YieldOp([total])


def _operand_maps(op) -> list:
    """The matmul's indexing maps as result-dim tuples, or Nones for the default maps."""
    if "indexing_maps" not in op.attributes:
        return [None] * len(op.operands)
    maps = ir.ArrayAttr(op.attributes["indexing_maps"])
    return [tuple(str(e) for e in ir.AffineMapAttr(m).value.results) for m in maps]


_CANONICAL = [("d0", "d2"), ("d2", "d1"), ("d0", "d1")]   # matmul's (m, k), (k, n), (m, n)


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
