"""float power on 16 or 32 lanes (float64: 32, four AVX-512 registers) with tables in registers, for vector_loops'
loops (a function of its _VECTOR_BODIES; float32: power_f32 at the end, in float64 arithmetic too). float64: log and exp
each reduce their argument by a 16-entry table looked up with `vpermi2pd` (two registers per column, one permute per
8 lanes), so their polynomials are short and there is no division. 32 lanes rather than one register's 8: the loop
is bound by its dependency chain (two polynomials in a row), and two independent halves per iteration took 15% less
time than one (10^5 elements, one thread, Zen 4), four 15-20% less than two on Zen 5 (vector_loops._WIDTHS).

x**y = exp(y log|x|) with log|x| in double-double, as vector_math.power computes it, by another route:
- log: |x| = 2**k z with z in [0.703125, 1.40625) from the bits (OFF), the top 4 bits of z's distance to OFF pick
  one of 16 intervals, and LOG_TABLE gives its invc (about 1 over the interval's middle; exactly 1 for the
  interval around 1, [1 - 2**-6, 1 + 2**-5), so that bases near 1 lose nothing) and log(1/invc) as hi + lo (hi a
  multiple of 2**-42, so that k LN2_HI + hi is exact). r = z invc - 1 is exact as r + r_lo (z invc by a product
  and its fma error, then the exact subtraction of 1), |r| <= 2**-5, and log(z) = log(c) + log1p(r + r_lo) with
  log1p(r) = r - r**2/2 + r**3 P(r), P of degree 8 (relative error 2**-67.4, tools/fit_polynomials.py
  POWER_LOG1P_P64). hi + lo assembled as ARM's optimized-routines pow does (exact sums where one term is known to be
  bigger), with r_lo (1 - r) added to lo: about 2**-66 relative error.
- y log|x| as a product plus its exact error (fma), the error added to exp's reduced argument.
- exp: p = y log|x| clamped to [-746, 710] (0 and inf beyond), n = round(16 p / ln 2), r = p - n ln2/16 (two parts,
  |r| <= ln 2 / 32), 2**(n/16) = 2**(n >> 4) 2**(j/16) with j = n & 15 from EXP_TABLE (the bits of 2**(j/16)
  rounded, less j << 48 so that n << 48 adds both parts, and its relative rounding error `tail`), exp(r) = 1 + r +
  r**2 Q(r), Q of degree 5 (relative error 2**-65.1, POWER_EXP_Q64). The power of two is two factors, so that results
  from overflow down to the smallest subnormal need no special case.
Error: |y log x| <= 746 where the result is finite and nonzero, so log's 2**-66 moves it by 2**-56.5 at most; with
exp's own errors the result is within 1 ulp (tests/test_vector_math.py's float64 power tests, with this pass on).

C99's special values as vector_math.power finds them (sign and parity of y, NaN for a negative base with a
non-integer exponent computed as 0 * inf so that it raises invalid, x**0 = 1, 1**y = 1, (-1)**+-inf = 1; subnormal
bases scaled by 2**52); `positive` (a loop versioned on positive normal finite bases): only 1**y = 1.
"""
from __future__ import annotations

import math as pymath

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, vector

OFF = 0x3FE6800000000000     # bits of 0.703125: z in [OFF, 2 OFF), 16 intervals of 2**48 bit steps each
_LN2_HI = 0.6931471805598903           # ln 2 in 42 bits: k _LN2_HI is exact for |k| < 2**11
_LN2_LO = 5.497923018708371e-14
# (invc, log(1/invc) rounded to a multiple of 2**-42, the rest) per interval of z
LOG_TABLE = (
    (1.391304347826087, -0.33024168687052224, -5.4584388914304586e-14),
    (1.3333333333333333, -0.28768207245184385, 6.297908504131321e-14),
    (1.28, -0.2468600779316148, 8.897769688389272e-14),
    (1.2307692307692308, -0.20763936477828793, 4.3369911444011306e-14),
    (1.1851851851851851, -0.16989903679541385, 1.643178756532876e-14),
    (1.1428571428571428, -0.13353139262449076, -3.1804225197847076e-14),
    (1.103448275862069, -0.09844007281321865, -3.38573632414336e-14),
    (1.0666666666666667, -0.0645385211375924, 2.1239485832617812e-14),
    (1.032258064516129, -0.03174869831468641, 1.061342829278565e-13),
    (1.0, 0.0, 0.0),
    (0.9411764705882353, 0.06062462181648698, -5.2122328603557226e-14),
    (0.8888888888888888, 0.11778303565643, -4.649178632475319e-14),
    (0.8421052631578947, 0.17185025692674571, -8.643688492088945e-14),
    (0.8, 0.22314355131425145, -4.175347699650321e-14),
    (0.7619047619047619, 0.2719337154835557, 8.609857887931859e-14),
    (0.7272727272727273, 0.31845373111855224, -1.765318688778829e-14),
)
# log1p(r) = r - r**2/2 + r**3 P(r), |r| <= 2**-5 (tools/fit_polynomials.py POWER_LOG1P_P64)
_LOG1P_P = (0.3333333333333333, -0.24999999999999375, 0.20000000000022408, -0.16666666672197444, 0.1428571419583357,
            -0.12499983723596772, 0.11111242943173988, -0.10019606054122404, 0.0903306931875804)
# (bits of 2**(j/16) rounded, less j << 48; (2**(j/16) - rounded) / rounded)
EXP_TABLE = (
    (0x3ff0000000000000, 0.0),
    (0x3fefb5586cf9890f, 8.189317638195515e-17),
    (0x3fef72b83c7d517b, -2.7939114859515733e-17),
    (0x3fef387a6e756238, 7.826573258636076e-17),
    (0x3fef06fe0a31b715, 3.3484623336251524e-17),
    (0x3feedea64c123422, 3.750854201303127e-17),
    (0x3feebfdad5362a27, 1.9572585293112036e-17),
    (0x3feeab07dd485429, 5.68648095791174e-17),
    (0x3feea09e667f3bcd, -6.835808657661922e-17),
    (0x3feea11473eb0187, -2.3591094770850053e-17),
    (0x3feeace5422aa0db, 5.1548301170786783e-17),
    (0x3feec49182a3f090, 1.5341410053603723e-17),
    (0x3feee89f995ad3ad, 4.875160526227062e-17),
    (0x3fef199bdd85529c, 1.685487290628973e-17),
    (0x3fef5818dcfba487, 1.790126907604513e-17),
    (0x3fefa4afa2a490da, -5.545065618639427e-17),
)
_INV_LN2_16 = 23.083120654223414       # 16 / ln 2
_LN2_16_HI = 0.043321698783984175      # ln 2 / 16 in 38 bits: n _LN2_16_HI exact for |n| < 2**15
_LN2_16_LO = 1.012406886666035e-12
# exp(r) = 1 + r + r**2 Q(r), |r| <= ln 2 / 32 (tools/fit_polynomials.py POWER_EXP_Q64)
_EXP_Q = (0.5000000000000004, 0.16666666666666635, 0.04166666666055041, 0.008333333334839621, 0.001388911312677413,
          0.0001984121019375879)
_SHIFTER = 6755399441055744.0          # 1.5 * 2**52
_CONTRACT = "#arith.fastmath<contract>"


class _Vector:
    """Constants and arithmetic on vector<Nxf64> / vector<Nxi64>, N = `lanes` (vector_loops': a multiple of 8)."""

    def __init__(self, lanes: int):
        self.lanes = lanes
        self.f = ir.VectorType.get([lanes], ir.F64Type.get())
        self.i = ir.VectorType.get([lanes], ir.IntegerType.get_signless(64))

    def c(self, value: float) -> ir.Value:
        return arith.constant(self.f, ir.DenseElementsAttr.get_splat(self.f, ir.FloatAttr.get(ir.F64Type.get(),
                                                                                                 value)))

    def ci(self, value: int) -> ir.Value:
        i64 = ir.IntegerType.get_signless(64)
        return arith.constant(self.i, ir.DenseElementsAttr.get_splat(self.i, ir.IntegerAttr.get(i64, value)))

    def bits(self, v: ir.Value) -> ir.Value:
        return arith.bitcast(self.i, v)

    def float(self, v: ir.Value) -> ir.Value:
        return arith.bitcast(self.f, v)

    def lookup(self, index: ir.Value, column) -> ir.Value:
        """column[index & 15] per lane: 16 float64 in two registers, one vpermi2pd (its low 4 bits) per 8 lanes."""
        f8 = ir.VectorType.get([8], ir.F64Type.get())
        i8 = ir.VectorType.get([8], ir.IntegerType.get_signless(64))
        halves = [arith.constant(f8, ir.DenseElementsAttr.get(np.array(column[i:i + 8], dtype=np.float64), type=f8))
                  for i in (0, 8)]
        result = arith.constant(self.f, ir.DenseElementsAttr.get_splat(self.f, ir.FloatAttr.get(ir.F64Type.get(), 0.0)))
        for start in range(0, self.lanes, 8):
            part = vector.extract_strided_slice(i8, index, [start], [8], [1])
            looked = llvm.call_intrinsic(f8, "llvm.x86.avx512.vpermi2var.pd.512", [halves[0], part, halves[1]], [], [])
            result = vector.insert_strided_slice(looked, result, [start], [1])
        return result

    @staticmethod
    def fma(a, b, c) -> ir.Value:
        return llvm.intr_fma(a, b, c)

    def mul_add(self, a, b, c) -> ir.Value:
        """a * b + c that LLVM may fuse (a polynomial's step: either rounding is fine)."""
        product = arith.mulf(a, b)
        product.owner.attributes["fastmath"] = ir.Attribute.parse(_CONTRACT)
        total = arith.addf(product, c)
        total.owner.attributes["fastmath"] = ir.Attribute.parse(_CONTRACT)
        return total

    def horner(self, z, coefficients) -> ir.Value:
        result = self.c(coefficients[-1])
        for coefficient in reversed(coefficients[:-1]):
            result = self.mul_add(result, z, self.c(coefficient))
        return result


def _log(v: _Vector, ax: ir.Value, positive: bool):
    """log(ax) as (hi, lo) for ax > 0 finite (normal if `positive`); the special values in hi (lo = 0) otherwise."""
    if positive:
        scaled, k_shift = ax, None
    else:   # subnormals: times 2**52
        subnormal = arith.cmpf(arith.CmpFPredicate.OLT, ax, v.c(2.0 ** -1022))
        scaled = arith.select(subnormal, arith.mulf(ax, v.c(2.0 ** 52)), ax)
        k_shift = arith.select(subnormal, v.c(52.0), v.c(0.0))
    bits = v.bits(scaled)
    distance = arith.subi(bits, v.ci(OFF))
    index = arith.shrui(distance, v.ci(48))                          # vpermi2pd reads its low 4 bits
    k = arith.sitofp(v.f, arith.shrsi(distance, v.ci(52)))
    if k_shift is not None:
        k = arith.subf(k, k_shift)
    z = v.float(arith.subi(bits, arith.andi(distance, v.ci(-(1 << 52)))))
    invc, logc_hi, logc_lo = (v.lookup(index, column) for column in zip(*LOG_TABLE))
    product = arith.mulf(z, invc)
    r_lo = v.fma(z, invc, arith.negf(product))                        # z invc - product, exact
    r = arith.subf(product, v.c(1.0))                                 # exact: product in [1/2, 2]
    t1 = v.fma(k, v.c(_LN2_HI), logc_hi)                             # exact (multiples of 2**-42 below 2**10)
    t2 = arith.addf(t1, r)
    lo2 = arith.addf(arith.subf(t1, t2), r)                           # |t1| >= |r| or t1 = 0
    ar = arith.mulf(r, v.c(-0.5))
    ar2 = arith.mulf(r, ar)                                          # -r**2/2 rounded
    hi = arith.addf(t2, ar2)
    lo3 = v.fma(ar, r, arith.negf(ar2))
    lo4 = arith.addf(arith.subf(t2, hi), ar2)
    p = arith.mulf(arith.mulf(ar2, r), v.horner(r, [-2.0 * c for c in _LOG1P_P]))    # r**3 P(r)
    lo1 = v.fma(k, v.c(_LN2_LO), logc_lo)
    rest = v.fma(arith.negf(r), r_lo, r_lo)                           # log1p(r + r_lo) - log1p(r) ~ r_lo (1 - r)
    lo = arith.addf(arith.addf(arith.addf(lo1, lo2), arith.addf(lo3, lo4)), arith.addf(p, rest))
    total = arith.addf(hi, lo)
    tail = arith.addf(arith.subf(hi, total), lo)
    if positive:
        return total, tail
    # zero, inf, NaN: bits - 1 wraps or reaches those of inf - 1 (one unsigned compare for the three)
    special = arith.cmpi(arith.CmpIPredicate.uge, arith.subi(v.bits(ax), v.ci(1)), v.ci(0x7FF0000000000000 - 1))
    zero = arith.cmpf(arith.CmpFPredicate.OEQ, ax, v.c(0.0))
    total = arith.select(special, arith.select(zero, v.c(-pymath.inf), ax), total)
    return total, arith.select(special, v.c(0.0), tail)


def _exp(v: _Vector, p: ir.Value, p_lo: ir.Value) -> ir.Value:
    """exp(p + p_lo), |p_lo| small."""
    pc = arith.minimumf(arith.maximumf(p, v.c(-746.0)), v.c(710.0))     # 0 and inf beyond; NaN stays
    shifted = v.fma(pc, v.c(_INV_LN2_16), v.c(_SHIFTER))
    n = arith.subf(shifted, v.c(_SHIFTER))
    r = v.fma(n, v.c(-_LN2_16_HI), pc)
    r = arith.addf(v.fma(n, v.c(-_LN2_16_LO), r), p_lo)
    ki = v.bits(shifted)                             # its low 16 bits: n (and its low 4 bits the table's index)
    high, tail = zip(*EXP_TABLE)
    scale_bits = arith.bitcast(v.i, v.lookup(ki, [float(np.array(b, dtype=np.int64).view(np.float64))
                                                  for b in high]))
    t = arith.shli(ki, v.ci(48))                                      # n << 48: (n >> 4) << 52 plus j << 48
    m = arith.shrsi(t, v.ci(52))                                      # n >> 4, in [-1077, 1024]
    m2 = arith.shrsi(arith.addi(m, v.ci(1)), v.ci(1))                 # two factors: 2**(m - m2) and 2**m2, normal
    m2_bits = arith.shli(m2, v.ci(52))
    scale1 = v.float(arith.subi(arith.addi(scale_bits, t), m2_bits))
    scale2 = v.float(arith.addi(m2_bits, v.ci(1023 << 52)))
    r2 = arith.mulf(r, r)
    poly = arith.addf(v.lookup(ki, tail), v.mul_add(r2, v.horner(r, _EXP_Q), r))    # exp(r) 2**(j/16) / T - 1
    return arith.mulf(v.fma(scale1, poly, scale1), scale2)


def power_f64(x: ir.Value, y: ir.Value, positive: bool = False) -> ir.Value:
    """x**y on vector<Nxf64>, N a multiple of 8 (see the module's docstring)."""
    v = _Vector(ir.VectorType(x.type).shape[0])
    F, I = arith.CmpFPredicate, arith.CmpIPredicate
    one = v.c(1.0)
    ax = arith.andi(v.bits(x), v.ci((1 << 63) - 1)) if not positive else None
    log_hi, log_lo = _log(v, v.float(ax) if ax is not None else x, positive)
    product = arith.mulf(y, log_hi)
    error = v.fma(y, log_lo, v.fma(y, log_hi, arith.negf(product)))
    absolute = v.float(arith.andi(v.bits(product), v.ci((1 << 63) - 1)))
    ordinary = arith.cmpf(F.OLT, absolute, v.c(800.0))               # else 0, inf or NaN (error: NaN or junk)
    magnitude = _exp(v, product, arith.select(ordinary, error, v.c(0.0)))
    if positive:
        return arith.select(arith.cmpf(F.OEQ, x, one), one, magnitude)
    ax = v.float(ax)
    ay = v.float(arith.andi(v.bits(y), v.ci((1 << 63) - 1)))
    # y's parity as vector_math.power finds it: |y| + 2**52 rounds |y| below 2**52; from 2**52 every float64 is an
    # integer, odd only below 2**53 with its own last bit set. NaN is no integer.
    two52 = v.c(2.0 ** 52)
    small = arith.cmpf(F.OLT, ay, two52)
    rounded = arith.addf(ay, two52)
    integer = arith.ori(arith.cmpf(F.OEQ, arith.subf(rounded, two52), ay), arith.cmpf(F.OGE, ay, two52))
    last_bit = arith.andi(v.bits(arith.select(small, rounded, ay)), v.ci(1))
    odd = arith.andi(arith.andi(integer, arith.cmpf(F.OLT, ay, v.c(2.0 ** 53))),
                     arith.cmpi(I.ne, last_bit, v.ci(0)))
    sign = arith.andi(v.bits(x), v.ci(-(1 << 63)))
    result = v.float(arith.xori(v.bits(magnitude), arith.select(odd, sign, v.ci(0))))
    finite_negative = arith.andi(arith.cmpf(F.OLT, x, v.c(0.0)), arith.cmpf(F.OGT, x, v.c(-pymath.inf)))
    not_integer = arith.andi(arith.xori(integer, _true(integer)), arith.cmpf(F.OEQ, y, y))
    invalid = arith.mulf(arith.subf(x, x), v.c(pymath.inf))          # NaN where x is finite, raising invalid
    result = arith.select(arith.andi(finite_negative, not_integer), invalid, result)
    unit = arith.ori(arith.ori(arith.cmpf(F.OEQ, y, v.c(0.0)), arith.cmpf(F.OEQ, x, one)),
                     arith.andi(arith.cmpf(F.OEQ, ax, one), arith.cmpf(F.OEQ, ay, v.c(pymath.inf))))
    return arith.select(unit, one, result)


def _true(mask: ir.Value) -> ir.Value:
    t = mask.type
    i1 = ir.IntegerType.get_signless(1)
    return arith.constant(t, ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(i1, 1)))


# float32 power (power_f32): |x| = 2**k z with z in [1, 2) (k by vgetexppd), 16 intervals of z by its top 4 mantissa
# bits: (invc, log2(1/invc)) per interval, invc a float32 near 1 over the interval's middle, so that z invc is exact
# in float64 (24 + 24 bits) and r = z invc - 1 too; exactly 1 for the first interval and 1/2 for the last, so that
# k + log2(1/invc) is 0 for bases next to 1 on either side and log2|x| keeps its relative precision there
# (tools/fit_polynomials.py POWER_TABLE32)
LOG2_TABLE32 = (
    (1.0, 0.0),                                        # r in [0, 0.0625)
    (0.9142857193946838, 0.12928300888327973),         # the others: |r| <= 0.0286
    (0.8648648858070374, 0.20945333069497424),
    (0.8205128312110901, 0.285402200051646),
    (0.7804877758026123, 0.35755205836266307),
    (0.7441860437393188, 0.4262647600765558),
    (0.7111111283302307, 0.4918530613956992),
    (0.6808510422706604, 0.5545888973605297),
    (0.6530612111091614, 0.6147098736747266),
    (0.6274510025978088, 0.672425290914147),
    (0.6037735939025879, 0.727920433065368),
    (0.581818163394928, 0.781359759207552),
    (0.5614035129547119, 0.8328900034158261),
    (0.5423728823661804, 0.8826430466746124),
    (0.5245901346206665, 0.9307374181797561),
    (0.5, 1.0),                                        # r in [-0.03125, 0)
)
# log2(1 + r) = r P(r), r in [-0.03125, 0.0625] (tools/fit_polynomials.py POWER_LOG2_P32: relative error 2**-39.5)
_LOG2_P32 = (1.4426950408898693, -0.7213475203053666, 0.4808983349917884, -0.3606742349205389, 0.28856692354762714,
             -0.24027812711119645, 0.18812692953321877)
# 2**r = 1 + r Q(r), |r| <= 1/32 (tools/fit_polynomials.py POWER_EXP2_Q32: relative error 2**-29.2 of 2**r)
_EXP2_Q32 = (0.6931471826675265, 0.24023428993861348, 0.05550213650354477)
_SHIFTER_16TH = 422212465065984.0        # 1.5 * 2**48: p + it rounds p to a multiple of 1/16, n = 16 p in its low bits


def _getexp(v: _Vector, x: ir.Value) -> ir.Value:
    """floor(log2 x) per lane of a normal float64 (vgetexppd, one per 8 lanes); -inf for 0, inf and NaN as they are."""
    f8 = ir.VectorType.get([8], ir.F64Type.get())
    i8, i32 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(32)
    mask = arith.constant(i8, -1)
    rounding = arith.constant(i32, 4)      # _MM_FROUND_CUR_DIRECTION
    result = v.c(0.0)
    for start in range(0, v.lanes, 8):
        part = vector.extract_strided_slice(f8, x, [start], [8], [1])
        exponent = llvm.call_intrinsic(f8, "llvm.x86.avx512.mask.getexp.pd.512", [part, part, mask, rounding], [], [])
        result = vector.insert_strided_slice(exponent, result, [start], [1])
    return result


def power_f32(x: ir.Value, y: ir.Value, positive: bool = False) -> ir.Value:
    """float32 x**y on vector<Nxf32> = 2**(y log2|x|) in float64 arithmetic (N/8 registers), as glibc's
    and ARM's optimized powf compute it, with tables in registers and no division:
    - log2|x| = k + log2(1/invc) + log2(1 + r): |x| = 2**k z in float64 (float32's subnormals are normal there),
      z in [1, 2) from the bits, k by vgetexppd, invc and log2(1/invc) from LOG2_TABLE32 by z's top 4 bits
      (vpermi2pd), r = z invc - 1 exact, log2(1 + r) = r P(r) (degree 6, 2**-39.5): relative error about 2**-39.
    - p = y log2|x| rounded, clamped to [-160, 130] (0 and inf in float32 beyond; NaN stays), n = rint(16 p),
      r = p - n/16 exact (|r| <= 1/32), 2**(n/16) = 2**(n >> 4) 2**(j/16) from EXP_TABLE's bits plus n << 48 (as
      power_f64), 2**r = 1 + r Q(r) (degree 2, 2**-29.2).
    Where the result is a float32 other than 0 and inf, |p| <= 150, so p is within 150 * 2**-39 of y log2|x| and the
    float64 result within 2**-29 of x**y: rounded once to float32 (subnormals included) it is within 0.53 ulp.
    C99's special values as vector_math._power_f32 gives them, in float32 (one register): y's parity by rounding
    (an integer whose half is not one is odd), zero, inf and NaN bases by vgetexppd's k without a select; `positive`:
    every base is a positive normal finite float32, only 1**y = 1 remains."""
    v = _Vector(ir.VectorType(x.type).shape[0])
    F = arith.CmpFPredicate
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    vf32, vi32 = x.type, ir.VectorType.get([v.lanes], i32)

    def c32(value):
        return arith.constant(vf32, ir.DenseElementsAttr.get_splat(vf32, ir.FloatAttr.get(f32, value)))

    def ci32(value):
        return arith.constant(vi32, ir.DenseElementsAttr.get_splat(vi32, ir.IntegerAttr.get(i32, value)))

    ax32 = x if positive else arith.bitcast(vf32, arith.andi(arith.bitcast(vi32, x), ci32((1 << 31) - 1)))
    ax = arith.extf(v.f, ax32)
    bits = v.bits(ax)
    z = v.float(arith.ori(arith.andi(bits, v.ci((1 << 52) - 1)), v.ci(0x3FF0000000000000)))
    index = arith.shrui(bits, v.ci(48))                              # vpermi2pd reads its low 4 bits
    invc, logc = (v.lookup(index, column) for column in zip(*LOG2_TABLE32))
    r = v.fma(z, invc, v.c(-1.0))                                    # exact
    y0 = arith.addf(_getexp(v, ax), logc)
    # zero, inf and NaN need no select: vgetexppd gives k = -inf, inf, NaN, and z = 1 (r = 0) for 0 and inf
    log2 = v.fma(r, v.horner(r, _LOG2_P32), y0)
    p = arith.mulf(arith.extf(v.f, y), log2)
    p = arith.minimumf(arith.maximumf(p, v.c(-160.0)), v.c(130.0))
    shifted = arith.addf(p, v.c(_SHIFTER_16TH))
    r = arith.subf(p, arith.subf(shifted, v.c(_SHIFTER_16TH)))       # exact
    ki = v.bits(shifted)
    high = [float(np.array(b, dtype=np.int64).view(np.float64)) for b, _ in EXP_TABLE]
    scale = v.float(arith.addi(v.bits(v.lookup(ki, high)), arith.shli(ki, v.ci(48))))
    magnitude = arith.truncf(vf32, v.fma(arith.mulf(scale, r), v.horner(r, _EXP2_Q32), scale))
    one = c32(1.0)
    if positive:
        return arith.select(arith.cmpf(F.OEQ, x, one), one, magnitude)
    # y's parity by rounding (vrndscaleps): an integer whose half is not one is odd; inf counts as an even integer,
    # NaN as no integer (the compares are false); the half of the rounded |y| cannot underflow
    ay = arith.bitcast(vf32, arith.andi(arith.bitcast(vi32, y), ci32((1 << 31) - 1)))
    whole = llvm.intr_roundeven(ay)
    integer = arith.cmpf(F.OEQ, whole, ay)
    half = arith.mulf(whole, c32(0.5))
    odd = arith.andi(integer, arith.cmpf(F.ONE, llvm.intr_roundeven(half), half))
    sign = arith.andi(arith.bitcast(vi32, x), ci32(-(1 << 31)))
    result = arith.bitcast(vf32, arith.xori(arith.bitcast(vi32, magnitude), arith.select(odd, sign, ci32(0))))
    finite_negative = arith.andi(arith.cmpf(F.OLT, x, c32(0.0)), arith.cmpf(F.OGT, x, c32(-pymath.inf)))
    not_integer = arith.andi(arith.xori(integer, _true(integer)), arith.cmpf(F.OEQ, y, y))
    invalid = arith.mulf(arith.subf(x, x), c32(pymath.inf))          # NaN where x is finite, raising invalid
    result = arith.select(arith.andi(finite_negative, not_integer), invalid, result)
    unit = arith.ori(arith.ori(arith.cmpf(F.OEQ, y, c32(0.0)), arith.cmpf(F.OEQ, x, one)),
                     arith.andi(arith.cmpf(F.OEQ, ax32, one), arith.cmpf(F.OEQ, ay, c32(pymath.inf))))
    return arith.select(unit, one, result)
