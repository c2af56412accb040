"""exp and tanh as plain floating-point arithmetic, with no libm call, so the loops that use them vectorize.

A call to libm's `exp` or `tanh` in a loop body keeps LLVM's loop vectorizer out: the loop runs one element at a
time. `expand` replaces each scalar `math.exp` / `math.tanh` on float32 or float64 by these, as a lowering step
(pipeline.lower_to_llvm): the `mlir` and `optimized` stages still show `math.exp`. These versions are branch-free
polynomials (selects instead of branches), which LLVM vectorizes for the host's vector width. They follow the
classic scheme of Cody and Waite: exp(x) = 2**n * exp(r) with n = round(x / ln 2) and |r| <= ln(2) / 2, exp(r)
from its Taylor series, 2**n built from its bits.

Accuracy (tests/test_vector_math.py, against a long-double reference): float64 exp within 1 ulp and tanh within 2
(libm's are within 1); float32 exp is computed in float32 (16 lanes per AVX-512 vector) within 1 ulp (NumPy's own
within 2); float32 tanh (and float16, which NumPy computes in float32) in float64, rounded once: correctly rounded
but for rare double-rounding ties. NaN propagates; overflow gives inf, underflow 0 (through subnormals); tanh keeps
the sign of -0.0.
"""
from __future__ import annotations

import math as pymath

import numpy as np
from mlir import ir
from mlir.dialects import arith

F = arith.CmpFPredicate
F64 = np.dtype(np.float64)
_SHIFTER = 6755399441055744.0       # 1.5 * 2**52: x + shifter - shifter rounds x to an integer (ties to even)
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01   # ln 2 with its low 32 bits zero: n * _LN2_HI is exact for |n| < 2**20
_LN2_LO = 1.90821492927058770002e-10   # ln 2 - _LN2_HI
_LN2_HI_F32 = 0.693359375               # ln 2 in 9 bits: n * _LN2_HI_F32 is exact in float32 for |n| < 2**15
_LN2_LO_F32 = -2.12194440e-4            # ln 2 - _LN2_HI_F32


def _float(t: ir.Type, value: float) -> ir.Value:
    return arith.constant(t, ir.FloatAttr.get(t, value))


def _int(t: ir.Type, value: int) -> ir.Value:
    return arith.constant(t, ir.IntegerAttr.get(t, value))


def _f64(value: float) -> ir.Value:
    return _float(ir.F64Type.get(), value)


def _i64(value: int) -> ir.Value:
    return _int(ir.IntegerType.get_signless(64), value)


def _reduce(x: ir.Value):
    """(n, r) with x = n ln 2 + r, n an integer-valued float64, |r| <= ln(2)/2 (two-constant reduction)."""
    n = arith.subf(arith.addf(arith.mulf(x, _f64(_LOG2E)), _f64(_SHIFTER)), _f64(_SHIFTER))
    r = arith.subf(arith.subf(x, arith.mulf(n, _f64(_LN2_HI))), arith.mulf(n, _f64(_LN2_LO)))
    return n, r


def _pow2(n: ir.Value) -> ir.Value:
    """2**n from its bits: an i64 n in [-1022, 1023] gives a float64, an i32 n in [-126, 127] a float32."""
    t, bias, shift = (ir.F64Type.get(), 1023, 52) if ir.IntegerType(n.type).width == 64 else (ir.F32Type.get(), 127, 23)
    return arith.bitcast(t, arith.shli(arith.addi(n, _int(n.type, bias)), _int(n.type, shift)))


_CONTRACT = "#arith.fastmath<contract>"


def _multiply_add(a: ir.Value, b: ir.Value, c: ir.Value) -> ir.Value:
    """a * b + c, which LLVM may fuse into one instruction (one rounding instead of two: half the operations and
    latency of the Horner chain; math.fma would become a libm call per element, see convert-math-to-libm)."""
    product = arith.mulf(a, b)
    product.owner.attributes["fastmath"] = ir.Attribute.parse(_CONTRACT)
    total = arith.addf(product, c)
    total.owner.attributes["fastmath"] = ir.Attribute.parse(_CONTRACT)
    return total


def _taylor(r: ir.Value, first: int, last: int) -> ir.Value:
    """sum of r**k / k! for k = first..last (first is 0 or 1), by Horner's rule with fused multiply-adds, in r's
    type."""
    poly = _float(r.type, 1.0 / pymath.factorial(last))
    for k in range(last - 1, first - 1, -1):
        poly = _multiply_add(poly, r, _float(r.type, 1.0 / pymath.factorial(k)))
    return arith.mulf(poly, r) if first == 1 else poly


def exp_f64(x: ir.Value) -> ir.Value:
    """float64 exp. Past the clamp the result is inf or 0 anyway; 2**n is applied as two factors so that results
    down to the smallest subnormal (n = -1075) and up to overflow (n = 1024) need no special case."""
    xc = arith.minimumf(arith.maximumf(x, _f64(-746.0)), _f64(710.0))
    n, r = _reduce(xc)
    p = _taylor(r, 0, 13)               # |r|**14 / 14! < 2**-60
    ni = arith.fptosi(ir.IntegerType.get_signless(64), n)
    half = arith.shrsi(ni, _i64(1))
    result = arith.mulf(arith.mulf(p, _pow2(half)), _pow2(arith.subi(ni, half)))
    return arith.select(arith.cmpf(F.UNO, x, x), x, result)


def expand(module: ir.Module) -> None:
    """Replace scalar float32/float64 math.exp and math.tanh (float16 ones are float32 already, see scalar.py)."""
    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
    for op in ops:
        if op.name not in ("math.exp", "math.tanh"):
            continue
        t = op.results[0].type
        dt = np.dtype(np.float64) if isinstance(t, ir.F64Type) else np.dtype(np.float32) \
            if isinstance(t, ir.F32Type) else None
        if dt is None:
            continue
        with ir.InsertionPoint(op), op.location:
            x = op.operands[0]
            if op.name == "math.tanh":
                new = tanh(x, dt)
            else:
                new = exp_f64(x) if dt == F64 else exp_f32(x)
        op.results[0].replace_all_uses_with(new)
        op.erase()


def exp_f32(x: ir.Value) -> ir.Value:
    """float32 exp in float32 arithmetic (16 lanes per AVX-512 vector, twice float64's): a two-constant reduction
    (n * _LN2_HI_F32 is exact), the Taylor series to degree 7 (truncation < 0.1 ulp), 2**n as two factors."""
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    xc = arith.minimumf(arith.maximumf(x, _float(f32, -104.0)), _float(f32, 89.0))   # beyond: 0 or inf anyway
    shifter = _float(f32, 12582912.0)                                               # 1.5 * 2**23
    n = arith.subf(arith.addf(arith.mulf(xc, _float(f32, _LOG2E)), shifter), shifter)
    r = arith.subf(arith.subf(xc, arith.mulf(n, _float(f32, _LN2_HI_F32))), arith.mulf(n, _float(f32, _LN2_LO_F32)))
    ni = arith.fptosi(i32, n)
    half = arith.shrsi(ni, _int(i32, 1))
    result = arith.mulf(arith.mulf(_taylor(r, 0, 7), _pow2(half)), _pow2(arith.subi(ni, half)))
    return arith.select(arith.cmpf(F.UNO, x, x), x, result)


def _expm1_small(y: ir.Value) -> ir.Value:
    """expm1(y) for 0 <= y <= 40: 2**n * expm1(r) + (2**n - 1); both terms are exact but for expm1(r), so there is
    no cancellation near 0 (n = 0: the result is the series itself)."""
    n, r = _reduce(y)
    q = _taylor(r, 1, 14)
    scale = _pow2(arith.fptosi(ir.IntegerType.get_signless(64), n))
    return arith.addf(arith.mulf(scale, q), arith.subf(scale, _f64(1.0)))


def tanh(x: ir.Value, dt: np.dtype) -> ir.Value:
    """tanh(x) = sign(x) * u / (u + 2) with u = expm1(2|x|); |x| >= 20 gives +-1 exactly (as tanh rounds to 1
    there). float32 is computed in float64 and rounded once."""
    i64 = ir.IntegerType.get_signless(64)
    xd = x if dt == F64 else arith.extf(ir.F64Type.get(), x)
    bits = arith.bitcast(i64, xd)
    sign = arith.andi(bits, _i64(-(1 << 63)))
    a = arith.bitcast(ir.F64Type.get(), arith.xori(bits, sign))            # |x|
    u = _expm1_small(arith.mulf(arith.minimumf(a, _f64(20.0)), _f64(2.0)))
    t = arith.divf(u, arith.addf(u, _f64(2.0)))
    signed = arith.bitcast(ir.F64Type.get(), arith.ori(arith.bitcast(i64, t), sign))
    result = signed if dt == F64 else arith.truncf(x.type, signed)
    return arith.select(arith.cmpf(F.UNO, x, x), x, result)
