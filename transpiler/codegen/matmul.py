"""Matrix products: linalg.matmul for 2-D float ones; linalg.contract for batched float products with a float32 or
float64 result and for complex products of one dtype (backend/batched_blas.py calls BLAS per matrix on them);
linalg.batch_matmul for other equal 3-D batches, otherwise a linalg.generic contraction whose maps broadcast the
batch dims; always over a zero-filled init. Operands of another dtype than the result are widened element by
element inside the contraction, never converted as whole arrays; a float16 contraction sums in float32, as NumPy's
does."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ..program import Var
from . import scalar
from .elementwise import elementwise
from .emitter import Emitter, emitter


@emitter("matmul")
def _matmul(em: Emitter, e):
    x, y = e.inputs
    out = e.outputs[0]
    init = linalg.fill(scalar.const_stored(out.dtype, 0), outs=[em.empty(out)])
    env = em.program.env
    # float products stay named: they run in BLAS (runtime/blas.py); integer ones are generated loops
    named_ok = out.dtype.kind == "f" and x.dtype.kind == "f" and y.dtype.kind == "f"
    if named_ok and x.ndim == y.ndim == 2:
        return [_matmul_2d(em, x, y, init)]
    # (a mixed stack needs one operand of the result's dtype: blas_lowering.product widens one operand only;
    # np.matmul(a32, b32, dtype=np.float64) stays on the paths below)
    if out.dtype in _PER_MATRIX_BLAS and (x.dtype == y.dtype == out.dtype or named_ok and max(x.ndim, y.ndim) > 2
                                          and out.dtype in (x.dtype, y.dtype)):
        return [_contract(em, x, y, out, init)]
    if named_ok and x.ndim == y.ndim == 3 and env.find(x.shape[0]) is env.find(y.shape[0]) \
            and env.find(x.shape[0]) != 1:
        return [linalg.batch_matmul(em[x], em[y], outs=[init])]
    if out.dtype == np.float16:
        return [_float16_contraction(em, x, y, out)]
    return [_contraction(em, x, y, out, init)]


def _float16_contraction(em: Emitter, x, y, out) -> ir.Value:
    """NumPy's float16 products sum in float32 and round once (a float16 sum rounded at every step differs by a
    float16 ulp or more): the contraction into a float32 accumulator, then one conversion."""
    f32 = np.dtype(np.float32)
    wide = Var(f32, out.shape)        # codegen's own value: the accumulator's type and shape
    init = linalg.fill(scalar.const_stored(f32, 0), outs=[em.empty(wide)])
    total = _contraction(em, x, y, wide, init)
    return elementwise(em, [wide], out, lambda a: scalar.convert(a[0], f32, out.dtype), values=[total])


def _matmul_2d(em: Emitter, x, y, init) -> ir.Value:
    """linalg.matmul; an operand that is the transpose of another 2-D value is read through a transposed map
    instead (`q @ k.T`, `x @ wte.T`), so no transposed copy is made: the BLAS call gets a transposed view."""
    d = [ir.AffineDimExpr.get(i) for i in range(3)]           # (m, n, k)
    maps = [[d[0], d[2]], [d[2], d[1]], [d[0], d[1]]]
    operands = []
    for i, v in enumerate((x, y)):
        source = _transposed_source(em, v)
        if source is not None:
            maps[i] = maps[i][::-1]
            v = source
        operands.append(em[v])
    attrs = [ir.AffineMap.get(3, 0, m) for m in maps]
    return linalg.matmul(*operands, outs=[init], indexing_maps=attrs)


def _transposed_source(em: Emitter, v):
    """The value whose last two axes `v` swaps (v = s.T, s.swapaxes(-1, -2), s.transpose(0, 2, 1)), or None."""
    e = em.producers.get(v.id)
    swapped = tuple(range(v.ndim - 2)) + (v.ndim - 1, v.ndim - 2)
    if e is not None and e.prim == "transpose" and tuple(e.params["perm"]) == swapped:
        return e.inputs[0]
    return None


# Batched float32/float64 products (a narrow operand widened as in 2-D, blas_lowering.py) and complex products of
# one dtype: linalg.contract, BLAS per matrix (backend/batched_blas.py). The named op keeps elementwise fusion from
# pulling producers into the product.
_PER_MATRIX_BLAS = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)}


def _contract(em: Emitter, x, y, out, init) -> ir.Value:
    """out[b..., m, n] = sum_k x[b..., m, k] * y[b..., k, n] as linalg.contract, loops (b..., m, n, k). A batch
    dim an operand broadcasts (missing, or of size 1 against a larger one) is not in its map: a size-1 dim is
    collapsed away first (the map of a named contraction is a projected permutation). An operand that swaps the
    last two axes of another value is read through a transposed map instead (`q @ k.swapaxes(-1, -2)`): no copy."""
    env = em.program.env
    batch = out.ndim - 2
    m, n, k = batch, batch + 1, batch + 2
    d = [ir.AffineDimExpr.get(i) for i in range(batch + 3)]
    operands, maps = [], []
    for v, (rows, cols) in ((x, (m, k)), (y, (k, n))):
        source = _transposed_source(em, v)
        if source is not None:
            v, (rows, cols) = source, (cols, rows)
        offset = batch - (v.ndim - 2)
        kept = [i for i in range(v.ndim - 2)
                if not (env.find(v.shape[i]) == 1 and env.find(out.shape[offset + i]) != 1)]
        value = em[v]
        if len(kept) != v.ndim - 2:
            value = _drop_unit_dims(em, v, value, kept)
        operands.append(value)
        maps.append([d[offset + i] for i in kept] + [d[rows], d[cols]])
    maps.append(d[:batch] + [d[m], d[n]])
    attrs = [ir.AffineMap.get(batch + 3, 0, mp) for mp in maps]
    return linalg.contract(*operands, outs=[init], indexing_maps=attrs)


def _drop_unit_dims(em: Emitter, v, value, kept: list) -> ir.Value:
    """value (v's tensor) without its batch dims of size 1 not in `kept`: a rank-reducing slice (a view once
    bufferized; a collapse_shape would be propagated into the product by elementwise fusion, which then becomes a
    linalg.generic loop nest)."""
    t = ir.RankedTensorType(value.type)
    index = ir.IndexType.get()
    dropped = [i for i in range(v.ndim - 2) if i not in kept]
    # (a static dim stays static: a dynamic size for it makes a slice type that does not verify, `b[:, :, None]`)
    sizes = [1 if i in dropped else t.shape[i] if not t.is_dynamic_dim(i)
             else tensor.dim(value, arith.constant(index, i)) for i in range(v.ndim)]
    result = ir.RankedTensorType.get([t.shape[i] for i in range(v.ndim) if i not in dropped], t.element_type)
    static = [s if isinstance(s, int) else ir.ShapedType.get_dynamic_size() for s in sizes]
    return tensor.extract_slice(result, value, [], [s for s in sizes if not isinstance(s, int)], [],
                                [0] * v.ndim, static, [1] * v.ndim)


def _contraction(em: Emitter, x, y, out, init) -> ir.Value:
    """out[b..., m, n] += x[b..., m, k] * y[b..., k, n] with broadcast batch dims."""
    rank = out.ndim            # loops: batch..., m, n, then k
    k = rank
    batch = rank - 2

    def operand_map(v, rows, cols):
        offset = batch - (v.ndim - 2)
        exprs = []
        for i in range(v.ndim - 2):
            d = offset + i
            exprs.append(ir.AffineConstantExpr.get(0) if v.shape[i] == 1 and out.shape[d] != 1
                         else ir.AffineDimExpr.get(d))
        return ir.AffineMap.get(rank + 1, 0, exprs + [ir.AffineDimExpr.get(rows), ir.AffineDimExpr.get(cols)])

    maps = [operand_map(x, batch, k), operand_map(y, k, batch + 1),
            ir.AffineMap.get(rank + 1, 0, [ir.AffineDimExpr.get(i) for i in range(rank)])]
    iterators = [linalg.IteratorType.parallel] * rank + [linalg.IteratorType.reduction]
    op = linalg.GenericOp_(inputs=[em[x], em[y]], outputs=[init], indexing_maps=maps, iterator_types=iterators)
    block = op.regions[0].blocks[0]
    dt = out.dtype
    with ir.InsertionPoint(block):
        a = scalar.convert(scalar.load(block.arguments[0], x.dtype), x.dtype, dt)
        b = scalar.convert(scalar.load(block.arguments[1], y.dtype), y.dtype, dt)
        acc = scalar.load(block.arguments[2], dt)
        product = scalar.apply("mul", [dt, dt], [a, b])
        linalg.YieldOp([scalar.store(scalar.apply("add", [dt, dt], [acc, product]), dt)])
    return op.result
