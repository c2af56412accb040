"""Reductions -> linalg.reduce over a linalg.fill'ed init (the identity); argmax/argmin -> a linalg.generic with a
reduction iterator carrying (best value, its index). Float sums accumulate in a wider type (float16 in float32,
float32 in float64) and round once at the end: NumPy's pairwise summation is accurate to a few ulp, and a
wider sequential sum is the way to stay within rounding of it whatever the order."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, math

from ..types import dtypes
from . import complex_scalar, scalar
from .elementwise import elementwise
from .emitter import Emitter, emitter

_WIDER = {np.dtype(np.float16): np.dtype(np.float32), np.dtype(np.float32): np.dtype(np.float64)}


def identity(kind: str, dt: np.dtype):
    if kind in ("sum", "any"):
        return 0
    if kind in ("prod", "all"):
        return 1
    if dt.kind == "f":
        return -np.inf if kind == "max" else np.inf
    if dt.kind == "b":
        return 0 if kind == "max" else 1
    info = np.iinfo(dt)
    return info.min if kind == "max" else info.max


def combine(kind: str, dt: np.dtype, a: ir.Value, acc: ir.Value) -> ir.Value:
    if kind in ("any", "all") or dt.kind == "b":
        op = {"any": arith.ori, "max": arith.ori, "sum": arith.ori, "all": arith.andi, "min": arith.andi,
              "prod": arith.andi}[kind]
        return op(a, acc)
    prim = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}[kind]
    return scalar.apply(prim, [dt, dt], [a, acc])


def _complex_product(dt: np.dtype, a: ir.Value, acc: ir.Value, along_last_axis: bool) -> ir.Value:
    """NumPy's complex prod: along the last axis (or the whole array) its reduce loop's scalar code, without fused
    multiply-adds; along other axes its array loop, `acc * row` with them (the 1-d prod of random complex64 values
    differed in the last bit with them, the axis-0 prod of a matrix without)."""
    return complex_scalar.mul(dt, acc, a, fused=not along_last_axis)


def fill(em: Emitter, v_shape_like, dt: np.dtype, value) -> ir.Value:
    init = em.empty(v_shape_like)
    return linalg.fill(scalar.const_stored(dt, value), outs=[init])


class _Like:
    """A stand-in Var (dtype, shape) for destinations of intermediate types."""
    def __init__(self, dtype, shape):
        self.dtype, self.shape = np.dtype(dtype), tuple(shape)


@emitter("reduce")
def _reduce(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    kind, axes = e.params["kind"], e.params["axes"]
    if kind == "sum" and out.dtype.kind == "c":
        return [_complex_sum(em, x, out, axes)]
    return [_reduce_values(em, kind, em[x], x, out, axes)]


def _complex_sum(em: Emitter, x, out, axes) -> ir.Value:
    """A complex sum is two float sums, one per part (NumPy's is pairwise per part too), in one pass: one
    linalg.reduce reads each complex value once (x passed twice, one input per init) and adds its parts into two
    accumulators, whose additions LLVM may reorder into vector lanes: complex64 parts summed in float64 (as float32
    sums), complex128 parts in float64, not compensated (the compensated sum's lanes are split by
    vector_reductions.py only from contiguous float loads, and a part is every other float: scalar, it was 40x
    slower than NumPy's). Two passes, one per part, read the array twice: 0.7x NumPy on 10^6 complex128 values."""
    part = dtypes.real_dtype(out.dtype)
    acc_dt = _WIDER.get(part, part)
    acc = _Like(acc_dt, out.shape)
    # NumPy's part sums start at +0.0 (a sum of -0.0 terms is +0.0). The imaginary one starts at -0.0 and gets
    # +0.0 added at the end, which turns a zero of either sign into +0.0 and changes nothing else: two distinct
    # fills, so that CSE does not merge the inits into one buffer that bufferization would then copy
    inits = [fill(em, acc, acc_dt, 0.0), fill(em, acc, acc_dt, -0.0)]
    op = linalg.ReduceOp([inits[0].type, inits[1].type], [em[x], em[x]], inits, list(axes))
    stored, t = scalar.storage_type(x.dtype), scalar.mlir_type(acc_dt)
    block = op.regions[0].blocks.append(stored, stored, t, t)
    with ir.InsertionPoint(block):
        z, _, re_acc, im_acc = block.arguments
        sums = []
        for take, total in ((complex_scalar.real, re_acc), (complex_scalar.imag, im_acc)):
            value = arith.addf(scalar.convert(take(x.dtype, z), part, acc_dt), total)
            value.owner.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<reassoc>")
            sums.append(value)
        linalg.YieldOp(sums)

    def make(a):
        re, im = a[0], arith.addf(a[1], arith.constant(a[1].type, ir.FloatAttr.get(a[1].type, 0.0)))
        return complex_scalar.make(out.dtype, scalar.convert(re, acc_dt, part), scalar.convert(im, acc_dt, part))
    return elementwise(em, [acc, acc], out, make, values=list(op.results))


def _reduce_values(em: Emitter, kind: str, source: ir.Value, x, out, axes) -> ir.Value:
    """The reduction of `source` (x's dtype and shape) into out's."""
    acc_dt = _WIDER.get(out.dtype, out.dtype) if kind == "sum" else out.dtype
    if acc_dt != x.dtype:
        wide = _Like(acc_dt, x.shape)
        source = elementwise(em, [x], wide, lambda a: scalar.convert(a[0], x.dtype, acc_dt), values=[source])
    acc = _Like(acc_dt, out.shape)
    init = fill(em, acc, acc_dt, identity(kind, acc_dt))
    if kind == "sum" and acc_dt == x.dtype and acc_dt.kind == "f":
        # the error starts at -0.0 (also an identity of +): a fill distinct from the sum's, so CSE does not merge
        # the two inits into one buffer that bufferization would then copy twice, between row loops that could fuse
        result = _compensated_sum(em, source, init, fill(em, acc, acc_dt, -0.0), axes, acc)
    else:
        op = linalg.ReduceOp([init.type], [source], [init], list(axes))
        stored = scalar.storage_type(acc_dt)
        block = op.regions[0].blocks.append(stored, stored)
        with ir.InsertionPoint(block):
            if kind == "prod" and acc_dt.kind == "c":
                value = _complex_product(acc_dt, block.arguments[0], block.arguments[1], x.ndim - 1 in axes)
            else:
                value = combine(kind, acc_dt, block.arguments[0], block.arguments[1])
            if kind == "sum" and acc_dt.kind == "f" and acc_dt != x.dtype:
                # A widened float sum: the order of its additions moves the wide sum by far less than the final
                # rounding to the narrow type, so LLVM may reorder them (into vector lanes).
                value.owner.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<reassoc>")
            linalg.YieldOp([value])
        result = op.result
    if acc_dt != out.dtype:
        result = elementwise(em, [_Like(acc_dt, out.shape)], out, lambda a: scalar.convert(a[0], acc_dt, out.dtype),
                             values=[result])
    return result


def _compensated_sum(em: Emitter, source, sum_init, err_init, axes, acc) -> ir.Value:
    """Neumaier's compensated sum (a running sum and its rounding error), for float64, which has no wider type to
    accumulate in: its error does not grow with the length, so it stays within rounding of NumPy's pairwise sum.
    linalg.reduce takes one input per init, so the input is passed twice."""
    op = linalg.ReduceOp([sum_init.type, err_init.type], [source, source], [sum_init, err_init], list(axes))
    t = scalar.mlir_type(acc.dtype)
    block = op.regions[0].blocks.append(t, t, t, t)
    with ir.InsertionPoint(block):
        x, _, s, c = block.arguments
        total, error = compensated_add(s, x, c)
        total.owner.attributes[COMPENSATED] = ir.UnitAttr.get()   # vector_reductions.py splits it into lanes
        linalg.YieldOp([total, error])
    return elementwise(em, [acc, acc], acc, lambda a: arith.addf(a[0], a[1]), values=list(op.results))


COMPENSATED = "transpiler.compensated_sum"


def compensated_add(s, x, c):
    """One step of Neumaier's sum (float scalars or vectors): (s + x, c + the rounding error of s + x)."""
    total = arith.addf(s, x)
    big_s = arith.cmpf(arith.CmpFPredicate.OGE, math.absf(s), math.absf(x))
    lost = arith.select(big_s, arith.addf(arith.subf(s, total), x), arith.addf(arith.subf(x, total), s))
    finite = arith.cmpf(arith.CmpFPredicate.ONE, math.absf(total), _constant_like(total, np.inf))
    lost = arith.select(finite, lost, _constant_like(total, 0.0))   # inf - inf would poison the error term
    return total, arith.addf(c, lost)


def _constant_like(value, constant: float):
    t = value.type
    if isinstance(t, ir.VectorType):
        return arith.constant(t, ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(t.element_type, constant)))
    return arith.constant(t, ir.FloatAttr.get(t, constant))


@emitter("argmax", "argmin")
def _arg_reduce(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    axis, dt = e.params["axis"], x.dtype
    is_max = e.prim == "argmax"
    rank = x.ndim
    best = fill(em, _Like(dt, out.shape), dt, identity("max" if is_max else "min", dt))
    index = fill(em, out, out.dtype, 0)
    out_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(i) for i in range(rank) if i != axis])
    iterators = [linalg.IteratorType.reduction if i == axis else linalg.IteratorType.parallel for i in range(rank)]
    op = linalg.GenericOp_(inputs=[em[x]], outputs=[best, index],
                           indexing_maps=[ir.AffineMap.get_identity(rank), out_map, out_map],
                           iterator_types=iterators)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        v, b, i = block.arguments
        take = _better(dt, is_max, v, b)
        here = arith.index_cast(scalar.mlir_type(out.dtype), linalg.IndexOp(axis).result)
        linalg.YieldOp([arith.select(take, v, b), arith.select(take, here, i)])
    return [op.results[1]]


def _better(dt: np.dtype, is_max: bool, v, best):
    """Strictly better, so the first occurrence wins; the first NaN wins over any number (NumPy's rule)."""
    if dt.kind == "f":
        F = arith.CmpFPredicate
        strictly = arith.cmpf(F.OGT if is_max else F.OLT, v, best)
        first_nan = arith.andi(arith.cmpf(F.UNO, v, v), arith.cmpf(F.ORD, best, best))
        return arith.ori(strictly, first_nan)
    I = arith.CmpIPredicate
    signed = dt.kind == "i"
    pred = (I.sgt if signed else I.ugt) if is_max else (I.slt if signed else I.ult)
    return arith.cmpi(pred, v, best)
