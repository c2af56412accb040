"""exp, expm1, sinh, cosh, tanh, log, log1p, sin, cos, tan, arcsin, arccos, arctan, arctan2 and float power as
plain floating-point arithmetic, with no libm call, so the loops that use them vectorize.

A call to libm's `exp` or `tanh` in a loop body keeps LLVM's loop vectorizer out: the loop runs one element at a
time. `expand` replaces each scalar math op of EXPANSIONS (`math.exp`, `math.tanh`, `math.log`, `math.sin`, ...)
on float32 or float64 by these, as a lowering step (pipeline.lower_to_llvm): the `mlir` and `optimized` stages
still show the math ops. These versions are branch-free polynomials (selects instead of branches), which LLVM
vectorizes for the host's vector width. exp follows the classic scheme of Cody and Waite: exp(x) = 2**n * exp(r)
with n = round(x / ln 2) and |r| <= ln(2) / 2, exp(r) from a fitted polynomial, 2**n built from its bits; expm1 sums
the same pieces in an order without cancellation; cosh is exp(a) / 2 + 1 / (2 exp(a)) (one division), float32 sinh
(u + u / (u + 1)) / 2 with u = expm1(a) (one division), float64 sinh combines exp(r) and exp(-r) from one reduction;
tanh is an odd polynomial (float64: Cephes' rational function) near 0 and 1 - 2 / (exp(2|x|) + 1) beyond. log splits
x into 2**k (1 + f) by its bits; log1p is log of 1 + x plus the rounding error of that sum over it. sin and cos
reduce by multiples of pi (Cody-Waite with fused multiply-adds) to one odd polynomial, tan by multiples of pi/2 to
its odd polynomial (float64: a rational function) or minus its reciprocal. arctan and arctan2 divide the smaller
magnitude by the bigger one (t in [0, 1]) and add t's polynomial to a multiple of pi/2 by the octant; arcsin and
arccos (fdlibm's reduction) take one polynomial on [0, 1/2], of x or of sqrt((1 - |x|) / 2). power is exp(y log|x|)
in float64 (float64: log in double-double; float32: 2**(y log2|x|) with short polynomials). The polynomials'
coefficients were fitted for this module (weighted least squares refined toward minimax, in 50-digit arithmetic with
mpmath; arctan's, tan's, arcsin's, float32 power's and float32 tanh's by tools/fit_polynomials.py, which reruns the
fit); the arrangements are the textbook ones (fdlibm's for float64 log).

Accuracy (tests/test_vector_math.py, against a long-double reference): float64 exp within 1 ulp and tanh within 2
(libm's are within 1); float32 exp is computed in float32 (16 lanes per AVX-512 vector) within 1 ulp (NumPy's own
within 2); float32 tanh in float32 too, within 1 ulp (an odd polynomial below 0.6, 1 - 2 / (exp(2|x|) + 1) from
there on). log, log1p, expm1, arcsin, arccos, arctan and arctan2 (with C99's special values of atan2) and power
within 1 ulp, sinh and cosh within 2 (float32 and float64). sin, cos and tan within 2 ulp while |x| <=
_TRIG_LIMIT; a loop with a bigger argument runs its libm copy (_version_big_arguments). NaN propagates; overflow
gives inf, underflow 0 (through subnormals); the odd functions keep the sign of -0.0.

Compiled for an AVX-512 CPU, float32 tanh and float power are left marked (vector_loops.MARK) for
backend/vector_loops.py, which vectorizes their loops with tables in registers (power: backend/vector_power.py);
`expand` runs again after it, for the ones it left scalar.
"""
from __future__ import annotations

import math as pymath
import threading

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, llvm, math, memref, scf

from . import vector_loops

F = arith.CmpFPredicate
F64 = np.dtype(np.float64)
_SHIFTER = 6755399441055744.0       # 1.5 * 2**52: x + shifter - shifter rounds x to an integer (ties to even)
_SHIFTER_BITS = 0x4338000000000000   # its bits: those of x + shifter minus these are the integer, |x| < 2**51
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01   # ln 2 with its low 32 bits zero: n * _LN2_HI is exact for |n| < 2**20
_LN2_LO = 1.90821492927058770002e-10   # ln 2 - _LN2_HI
_LN2_HI_F32 = 0.693359375               # ln 2 in 9 bits: n * _LN2_HI_F32 is exact in float32 for |n| < 2**15
_LN2_LO_F32 = -2.12194440e-4            # ln 2 - _LN2_HI_F32


# While `expand` rewrites the ops of one function: where its coefficients go (_coefficient); per thread, as two
# threads may compile at once
_STATE = threading.local()


def _float(t: ir.Type, value: float) -> ir.Value:
    return arith.constant(t, ir.FloatAttr.get(t, value))


def _coefficient(t: ir.Type, value: float) -> ir.Value:
    """A float constant only multiplied and added (a polynomial's coefficient, exp's reduction constants). Inside
    `expand`: a value LLVM cannot fold, made once at the start of the function. A folded constant is a
    constant-pool operand, and the JIT's large code model addresses each through a 64-bit `movabs` into a general
    register; with a polynomial's dozen constants LLVM runs out of those and re-materializes addresses and
    broadcasts inside the loop (float32 exp's loop spent 8 of 31 instructions on them). An opaque value is broadcast
    once before the vector loop and stays in a vector register. (Not for the operands of maximumf/minimumf or
    comparisons: with a constant LLVM knows it is no NaN and not zero, and a clamp is one instruction.)"""
    hoisted = getattr(_STATE, "hoisted", None)
    if hoisted is None:
        return _float(t, value)
    dtype = _float_type(t)
    key = (dtype, np.array(value, dtype=dtype).tobytes())
    if key not in hoisted:
        int_type = ir.IntegerType.get_signless(8 * dtype.itemsize)
        bits = _bits_of(value, dtype)
        with ir.InsertionPoint.at_block_begin(hoisted["entry"]), ir.Location.unknown():
            constant = arith.constant(int_type, ir.IntegerAttr.get(int_type, bits))
            opaque = llvm.inline_asm(int_type, [constant], "", "=r,0")    # the same register, unknown to LLVM
            hoisted[key] = arith.bitcast(t, opaque)
    return hoisted[key]


def _int(t: ir.Type, value: int) -> ir.Value:
    return arith.constant(t, ir.IntegerAttr.get(t, value))


def _f64(value: float) -> ir.Value:
    return _float(ir.F64Type.get(), value)


def _i64(value: int) -> ir.Value:
    return _int(ir.IntegerType.get_signless(64), value)


def _reduce(x: ir.Value):
    """(n, r) with x = n ln 2 + r, n an integer-valued float64, |r| <= ln(2)/2 (two-constant reduction)."""
    n = arith.subf(_multiply_add(x, _f64(_LOG2E), _f64(_SHIFTER)), _f64(_SHIFTER))
    r = _multiply_add(n, _f64(-_LN2_LO), _multiply_add(n, _f64(-_LN2_HI), x))   # (n ln2_hi is exact)
    return n, r


def _pow2(n: ir.Value) -> ir.Value:
    """2**n from its bits: an i64 n in [-1022, 1023] gives a float64, an i32 n in [-126, 127] a float32."""
    t, bias, shift = (ir.F64Type.get(), 1023, 52) if ir.IntegerType(n.type).width == 64 else (ir.F32Type.get(), 127, 23)
    return arith.bitcast(t, arith.shli(arith.addi(n, _int(n.type, bias)), _int(n.type, shift)))



def _bits_of(value: float, dt: np.dtype) -> int:
    """The bits of `value` as a float32 or float64 (dt), as a signed integer of that width."""
    return int(np.array(value, dtype=dt).view(np.int64 if dt == F64 else np.int32))

def _to_int(it: ir.Type, n: ir.Value) -> ir.Value:
    """fptosi of an integer-valued float n (|n| < 2**51). float64 by the bits of n + shifter: AVX2 has no vector
    conversion between float64 and int64, and LLVM converts those element by element (float64 tanh 1.5 -> 9.7 ns
    per element compiled for AVX2 on a Zen 4)."""
    if ir.IntegerType(it).width != 64:
        return arith.fptosi(it, n)
    shifted = arith.bitcast(it, arith.addf(n, _f64(_SHIFTER)))
    return arith.subi(shifted, _i64(_SHIFTER_BITS))


def _to_float(t: ir.Type, k: ir.Value) -> ir.Value:
    """sitofp of an integer k (|k| < 2**51), float64 by the bits of k + shifter's (see _to_int)."""
    if not isinstance(t, ir.F64Type):
        return arith.sitofp(t, k)
    return arith.subf(arith.bitcast(t, arith.addi(k, _i64(_SHIFTER_BITS))), _f64(_SHIFTER))


_CONTRACT = "#arith.fastmath<contract>"


def _multiply_add(a: ir.Value, b: ir.Value, c: ir.Value) -> ir.Value:
    """a * b + c, which LLVM may fuse into one instruction (one rounding instead of two: half the operations and
    latency of the Horner chain; math.fma would become a libm call per element, see convert-math-to-libm)."""
    product = arith.mulf(a, b)
    product.owner.attributes["fastmath"] = ir.Attribute.parse(_CONTRACT)
    total = arith.addf(product, c)
    total.owner.attributes["fastmath"] = ir.Attribute.parse(_CONTRACT)
    return total


# exp(r) = 1 + r + r**2 Q(r) for |r| <= ln(2)/2 (float64), Q fitted by tools/fit_polynomials.py (EXP_Q64): at most
# 2**-56.4 of the result, two multiply-adds fewer than the Taylor series to degree 13 it replaced (float64 exp
# 12% faster)
_EXP_Q64 = (0.5000000000000011, 0.16666666666666413, 0.041666666666530135, 0.008333333333494461,
            0.0013888888943635624, 0.00019841269506602969, 2.4801493093243014e-05, 2.755758633669294e-06,
            2.7630250384482164e-07, 2.50000774645092e-08)


def exp_f64(x: ir.Value, low: ir.Value | None = None) -> ir.Value:
    """float64 exp (of x + low, low a small correction: power's double-double exponent). Past the clamp the result
    is inf or 0 anyway; 2**n is applied as two factors so that results down to the smallest subnormal (n = -1075)
    and up to overflow (n = 1024) need no special case."""
    xc = arith.minimumf(arith.maximumf(x, _f64(-746.0)), _f64(710.0))
    n, r = _reduce(xc)
    if low is not None:
        r = arith.addf(r, low)
    p = _horner(ir.F64Type.get(), r, (1.0, 1.0) + _EXP_Q64)     # within 2**-56.4 (the Taylor series to r**13: 2**-60)
    ni = _to_int(ir.IntegerType.get_signless(64), n)
    half = arith.shrsi(ni, _i64(1))
    result = arith.mulf(arith.mulf(p, _pow2(half)), _pow2(arith.subi(ni, half)))
    return arith.select(arith.cmpf(F.UNO, x, x), x, result)


def _float_type(t: ir.Type) -> np.dtype | None:
    return F64 if isinstance(t, ir.F64Type) else np.dtype(np.float32) if isinstance(t, ir.F32Type) else None


# math op -> its expansion, given the operand and its dtype (float32 or float64)
EXPANSIONS = {
    "math.exp": lambda dt, x: exp_f64(x) if dt == F64 else exp_f32(x),
    "math.tanh": lambda dt, x: tanh(x, dt),
    "math.log": lambda dt, x: log(x, dt),
    "math.sin": lambda dt, x: sin_cos(x, dt, cosine=False),
    "math.cos": lambda dt, x: sin_cos(x, dt, cosine=True),
    "math.tan": lambda dt, x: tan(x, dt),
    "math.asin": lambda dt, x: asin_acos(x, dt, cosine=False),
    "math.acos": lambda dt, x: asin_acos(x, dt, cosine=True),
    "math.powf": lambda dt, x, y: power(x, y, dt),
    "math.atan": lambda dt, x: atan(x, dt),
    "math.atan2": lambda dt, y, x: atan2(y, x, dt),
    "math.expm1": lambda dt, x: expm1(x, dt),
    "math.log1p": lambda dt, x: log1p(x, dt),
    "math.sinh": lambda dt, x: sinh_cosh(x, dt, cosine=False),
    "math.cosh": lambda dt, x: sinh_cosh(x, dt, cosine=True),
}


# functions (and their types) that vector_loops computes with tables in AVX-512 registers, in loops it vectorizes
# (where it does not, they are expanded here on a second call of `expand`, after it)
_TABLE_LOOPS = {"math.tanh": (np.dtype(np.float32),), "math.powf": (np.dtype(np.float32), F64)}


# log and log1p in a loop whose arguments were all found to be positive normal finite numbers (for log1p: 1 + x)
# before it ran (_version_log_arguments): no subnormal scaling and no special values, a third fewer operations;
# power whose bases were: no sign, parity or special bases
NORMAL_EXPANSIONS = {
    "math.log": lambda dt, x: log_normal(x, dt),
    "math.log1p": lambda dt, x: log1p_normal(x, dt),
    "math.powf": lambda dt, x, y: power(x, y, dt, positive=True),
}


def expand(module: ir.Module, table_loops: bool = True) -> None:
    """Replace scalar float32/float64 math ops of EXPANSIONS (float16 ones are float32 already, see scalar.py).
    sin, cos and tan first get their big-argument versions (_version_big_arguments); their exact copies stay libm
    calls, as they do in scalar code (outside linalg.generic: no vector loop to win)."""
    _version_big_arguments(module)
    _version_log_arguments(module)
    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
    tables: list = []     # per function: its entry block and the coefficients made there
    expanded_loops = table_loops and vector_loops.expanded_available()     # (not on expand's second call)
    table_loops = table_loops and vector_loops.available()
    try:
        for op in ops:
            if op.name not in EXPANSIONS or _EXACT in op.attributes or vector_loops.MARK in op.attributes:
                continue
            dt = _float_type(op.results[0].type)
            if dt is None:
                continue
            if op.name in _REDUCED and op.parent.name != "linalg.generic":
                continue   # scalar code (no vector loop to win) without a fast/exact version: libm
            function = op.parent
            while function.operation.name != "func.func":
                function = function.parent
            entry = function.regions[0].blocks[0]
            table = next((t for t in tables if t["entry"] == entry), None)
            if table is None:
                table = {"entry": entry}
                tables.append(table)
            _STATE.hoisted = table
            if dt in _TABLE_LOOPS.get(op.name, ()) and table_loops:
                op.attributes[vector_loops.MARK] = ir.UnitAttr.get()   # vector_loops vectorizes its loop
                continue
            expansion = NORMAL_EXPANSIONS[op.name] if _IN_DOMAIN in op.attributes else EXPANSIONS[op.name]
            with ir.InsertionPoint(op), op.location:
                new = expansion(dt, *op.operands)
            if expanded_loops and op.parent.name == "linalg.generic" and not isinstance(new.owner, ir.Block):
                new.owner.attributes[vector_loops.EXPANDED] = ir.UnitAttr.get()   # its loop in two registers
            op.results[0].replace_all_uses_with(new)
            op.erase()
    finally:
        _STATE.hoisted = None


# float32 exp's shifter: 1.5 * 2**23 + 254. x log2(e) + it rounds to an integer k whose bits are those of the
# shifter (0x4B4000FE) plus n, so that with h = bits >> 1 both h << 23 and (bits - h) << 23 are the bits of the powers
# of two 2**(n >> 1) and 2**(n - (n >> 1)): 0x4B4000FE / 2 = 127 (mod 2**9), the exponent bias, and the higher bits
# shift out.
_EXP_SHIFTER_F32 = 12583166.0


def exp_f32(x: ir.Value) -> ir.Value:
    """float32 exp in float32 arithmetic (16 lanes per AVX-512 vector, twice float64's): a two-constant reduction
    (n * _LN2_HI_F32 is exact), a degree-6 polynomial (_EXP_Q32, error < 0.1 ulp), 2**n as two factors made from
    the bits of the rounded n (_EXP_SHIFTER_F32: no float-to-int conversion, 6 integer and float operations for
    both factors and their products). NaN propagates through the clamp (maximumf and minimumf keep NaN) and the
    arithmetic, so no select is needed: the bits of a NaN k give finite garbage factors, and NaN times them is NaN."""
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    xc = arith.minimumf(arith.maximumf(x, _float(f32, -104.0)), _float(f32, 89.0))   # beyond: 0 or inf anyway
    shifter = _coefficient(f32, _EXP_SHIFTER_F32)
    k = _multiply_add(xc, _coefficient(f32, _LOG2E), shifter)
    n = arith.subf(k, shifter)
    r = _multiply_add(n, _coefficient(f32, -_LN2_LO_F32), _multiply_add(n, _coefficient(f32, -_LN2_HI_F32), xc))
    bits = arith.bitcast(i32, k)
    half = arith.shrsi(bits, _int(i32, 1))
    exponent = _int(i32, 23)
    first = arith.bitcast(f32, arith.shli(half, exponent))                     # 2**(n >> 1)
    second = arith.bitcast(f32, arith.shli(arith.subi(bits, half), exponent))  # 2**(n - (n >> 1))
    return arith.mulf(arith.mulf(_horner(f32, r, (1.0, 1.0) + _EXP_Q32), first), second)


# exp(r) = 1 + r + r**2 Q(r) for |r| <= ln(2)/2 (a little beyond: n is rounded in float32), Q fitted by
# tools/fit_polynomials.py (EXP_Q32): at most 2**-28.0 of the result, one multiply-add fewer than the Taylor series
# to degree 7 it replaced (float32 exp's loop is most of softmax's time)
_EXP_Q32 = (0.4999999403953552, 0.1666652113199234, 0.04166838899254799, 0.008368720300495625, 0.0013814603444188833)


# float64 tanh below _TANH_SMALL: x + x z P(z) / Q(z), z = x**2, Q monic (Cephes' tanh, S. Moshier): within 1 ulp,
# where u / (u + 2) reached 3 ulp there (expm1's error, the sum's and the quotient's add up while tanh(x) ~ x)
_TANH_SMALL = 0.625
_TANH_P = (-1.61468768441708447952e3, -9.92877231001918586564e1, -9.64399179425052238628e-1)
_TANH_Q = (4.84406305325125486048e3, 2.23548839060100448583e3, 1.12811678491632931402e2, 1.0)


def tanh(x: ir.Value, dt: np.dtype) -> ir.Value:
    """float64 tanh(x) = sign(x) * (1 - 2 / (e + 1)) with e = exp(2|x|) from _TANH_SMALL on, the rational function
    of _TANH_P and _TANH_Q below it: one division for both, its operands chosen first. e is 2**n exp(r) (one
    reduction, EXP_Q64's polynomial, one power of two: 2|x| is clamped to 40, where tanh has rounded to 1 since
    19.1); the errors of e, e + 1 and the division reach the result scaled by 2 / (e + 1) / tanh(|x|) <= 0.8:
    within 1 ulp in 10^7 samples (bound 2), where u / (u + 2) with u = expm1(2|x|) (a degree-14 series, three
    operations more to build u) took 47 instructions per vector and 14% more time. NaN propagates through the
    arithmetic (the clamp keeps it, the select takes the second piece); the sign is or'ed back (tanh(-0.0) = -0.0).
    float32 in float32 arithmetic (_tanh_f32)."""
    if dt != F64:
        return _tanh_f32(x)
    i64, f64 = ir.IntegerType.get_signless(64), ir.F64Type.get()
    a, sign = _magnitude_and_sign(x, F64)
    a = arith.minimumf(a, _f64(20.0))
    n, r = _reduce(arith.addf(a, a))
    e = arith.mulf(_horner(f64, r, (1.0, 1.0) + _EXP_Q64), _pow2(_to_int(i64, n)))
    z = arith.mulf(a, a)
    small = arith.cmpf(F.OLT, a, _f64(_TANH_SMALL))
    quotient = arith.divf(arith.select(small, _horner(f64, z, _TANH_P), _f64(2.0)),
                          arith.select(small, _horner(f64, z, _TANH_Q), arith.addf(e, _f64(1.0))))
    t = arith.select(small, _fma(arith.mulf(a, z), quotient, a), arith.subf(_f64(1.0), quotient))
    return arith.bitcast(f64, arith.ori(arith.bitcast(i64, t), sign))


# float32 tanh below _TANH_SMALL_F32: a + a z P(z), z = a**2, P fitted by tools/fit_polynomials.py (TANH_P32): at
# most 2**-27.8 of the result
_TANH_SMALL_F32 = 0.6
_TANH_P32 = (-0.33333298563957214, 0.13331924378871918, -0.053783807903528214, 0.02079589292407036,
             -0.0058950623497366905)
# 1.5 * 2**23 + 127: x log2(e) + it rounds to an integer k whose bits shifted left by 23 are those of 2**n (the
# bias 127 + n in the low 9 bits, which land on the exponent; the higher bits shift out), for n in [-127, 128]
_EXP_SHIFTER_ONE_F32 = 12583039.0


def _tanh_f32(x: ir.Value) -> ir.Value:
    """float32 tanh in float32 (16 lanes), two branch-free pieces and a select: below _TANH_SMALL_F32 the odd
    polynomial a + a z P(z); from there on 1 - 2 / (e + 1) with e = exp(2a) (float32 exp's reduction and
    polynomial, 2**n from the bits of the rounded n: a single factor, as 2a <= 20). The second piece's errors (e's,
    e + 1's and the division's) reach the result scaled by 2 / (e + 1) / tanh(a) <= 0.86, so both pieces are
    within 1 ulp: every float32 in [0, 12] was checked against NumPy's float64 tanh (99.7% correctly rounded).
    It replaced u / (u + 2) with u = expm1(2a) and an exact correction of the quotient (41 instructions per
    vector of 16, 31 now: 0.62x -> 0.8x NumPy's AVX-512 loop). |x| is clamped to 10 (tanh rounds to 1 from 9.01
    on); NaN propagates (the clamp keeps it, the select takes the second piece); the sign is or'ed back, so
    tanh(-0.0) = -0.0."""
    f32 = np.dtype(np.float32)
    t, it = x.type, _int_type(f32)
    a, sign = _magnitude_and_sign(x, f32)
    a = arith.minimumf(a, _float(t, 10.0))     # also keeps inf out of the odd polynomial (inf - inf raises invalid)
    z = arith.mulf(a, a)
    small = _multiply_add(arith.mulf(a, z), _horner(t, z, _TANH_P32), a)
    a2 = arith.addf(a, a)
    shifter = _coefficient(t, _EXP_SHIFTER_ONE_F32)
    k = _multiply_add(a2, _coefficient(t, _LOG2E), shifter)
    n = arith.subf(k, shifter)
    r = _multiply_add(n, _coefficient(t, -_LN2_LO_F32), _multiply_add(n, _coefficient(t, -_LN2_HI_F32), a2))
    scale = arith.bitcast(t, arith.shli(arith.bitcast(it, k), _int(it, 23)))                        # 2**n
    e = arith.mulf(_horner(t, r, (1.0, 1.0) + _EXP_Q32), scale)
    large = arith.subf(_float(t, 1.0), arith.divf(_float(t, 2.0), arith.addf(e, _float(t, 1.0))))
    value = arith.select(arith.cmpf(F.OLT, a, _float(t, _TANH_SMALL_F32)), small, large)
    return arith.bitcast(t, arith.ori(arith.bitcast(it, value), sign))


def _horner(t: ir.Type, z: ir.Value, coefficients) -> ir.Value:
    """c[0] + c[1] z + c[2] z**2 + ... by Horner's rule with multiply-adds, in t."""
    poly = _coefficient(t, coefficients[-1])
    for c in coefficients[-2::-1]:
        poly = _multiply_add(poly, z, _coefficient(t, c))
    return poly


def _short_chain(t: ir.Type, z: ir.Value, coefficients, horner: int) -> ir.Value:
    """c[0] + c[1] z + ... with a short dependency chain: the terms from c[horner] on by Estrin's scheme (pairs
    c[i] + c[i + 1] z, then pairs of those with z**2, z**4 ...: a chain of about log2 of their count multiply-adds),
    the first `horner` by Horner's rule after it, so that the last roundings, which reach the result unscaled, are
    Horner's. A long Horner chain is the loop's latency: LLVM does not interleave these loops, and a 20-step chain
    of 4-cycle multiply-adds per vector kept float64 arctan at 0.75-0.8x NumPy on Zen 5 (docs/performance.md)."""
    terms = [_coefficient(t, c) for c in coefficients[horner:]]
    power = z
    while len(terms) > 1:
        terms = [_multiply_add(terms[i + 1], power, terms[i]) if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
        if len(terms) > 1:
            power = arith.mulf(power, power)
    poly = terms[0]
    for c in coefficients[horner - 1::-1] if horner else ():
        poly = _multiply_add(poly, z, _coefficient(t, c))
    return poly


def _int_type(dt: np.dtype) -> ir.Type:
    return ir.IntegerType.get_signless(8 * dt.itemsize)


# log(1 + f) = 2 atanh(s) with s = f / (2 + f) is 2 s + s R(s**2), R(z) = z (2/3 + 2 z / 5 + ...). These are R(z) / z
# fitted (weighted least squares refined toward minimax, in 50-digit arithmetic) on [0, 0.02944] (|s| <= 3 - 2
# sqrt(2) for f in [sqrt(1/2) - 1, sqrt(2) - 1]); relative error 2**-51 (float64) and 2**-29 (float32), which the
# factor z / 3 <= 0.0098 shrinks further in the result.
_LOG_R64 = (0.66666666666666697016, 0.39999999999899116278, 0.28571428626133077878, 0.22222211111420684471,
            0.18182890691142903871, 0.1533167328306211459, 0.14617008450538025955)
_LOG_R32 = (0.66666666554039901096, 0.40000122129884288864, 0.28550793637806417372, 0.23331102632226127256)
_LN2_HI_LOG32 = 0.693145751953125       # ln 2 in 16 bits: k * _LN2_HI_LOG32 is exact in float32 for |k| < 2**8
_LN2_LO_LOG32 = 1.4286068202862268e-06  # ln 2 - _LN2_HI_LOG32


# float32: log(1 + f) = f - f**2/2 + f**3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1], no division; P fitted like _LOG_R64
# (relative error 2**-23.9 in P, at most 2**-27.7 of the result).
_LOG_P32 = (0.3333333117160973, -0.24999993997629725, 0.20000715273249836, -0.16668057756477217, 0.14249303783276503,
            -0.12420123152891732, 0.11677185387173588, -0.11514844869517878, 0.070374532358396493)


def _split_sqrt2(x: ir.Value, dt: np.dtype):
    """(k, m) with x = 2**k m, m in [sqrt(1/2), sqrt(2)), k an integer of x's width, for positive normal finite x."""
    it, mant = _int_type(dt), (52 if dt == F64 else 23)
    bits = arith.bitcast(it, x)
    k = arith.shrsi(arith.subi(bits, _int(it, _bits_of(np.sqrt(0.5), dt))), _int(it, mant))
    return k, arith.bitcast(x.type, arith.subi(bits, arith.shli(k, _int(it, mant))))


def _log_split(x: ir.Value, dt: np.dtype, normal: bool = False):
    """(k, f) with x = 2**k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), k an integer of x's width, for positive x (the
    others give garbage that the caller replaces): read from the bits, subnormals scaled by 2**54 or 2**25 first
    (`normal`: x is known to be normal, no scaling)."""
    t, it = x.type, _int_type(dt)
    if normal:
        k, m = _split_sqrt2(x, dt)
        return k, arith.subf(m, _float(t, 1.0))
    scale_bits = 54 if dt == F64 else 25
    subnormal = arith.cmpf(F.OLT, x, _float(t, float(np.finfo(dt).tiny)))
    k, m = _split_sqrt2(arith.select(subnormal, arith.mulf(x, _float(t, 2.0 ** scale_bits)), x), dt)
    k = arith.subi(k, arith.select(subnormal, _int(it, scale_bits), _int(it, 0)))
    return k, arith.subf(m, _float(t, 1.0))


def _log_special(x: ir.Value, result: ir.Value, divide_raised: bool = False) -> ir.Value:
    """NumPy's log outside (0, inf): log(+-0) = -inf, log(x < 0) = nan, log(inf) = inf, NaN propagates. Arith ops
    only (no math op: vector_reductions vectorizes reductions over arith ops). nan is computed, not a constant, so
    that it raises NumPy's floating-point event in its lanes (backend/fp_status.py): (x - x) * inf is 0 * inf
    (invalid) where x < 0 (x - x is invalid itself for -inf), and so is -inf where x is +-0, as -1 / |x| (divide by
    zero), unless `divide_raised` (_log_core's float64 division divides by zero there already: no second division).
    Elsewhere nothing is raised but for x = inf (inf - inf) and, by -1 / |x|, subnormal x (overflow): a flag that
    only costs a replay of the call as NumPy, which warns nothing."""
    t = x.type
    inside = arith.andi(arith.cmpf(F.OGT, x, _float(t, 0.0)), arith.cmpf(F.OLT, x, _float(t, pymath.inf)))
    negative = arith.cmpf(F.OLT, x, _float(t, 0.0))
    zero_or_one = arith.select(negative, arith.subf(x, x), _float(t, 1.0))
    special = arith.select(negative, arith.mulf(zero_or_one, _float(t, pymath.inf)), x)    # inf, NaN: x
    minus_inf = _float(t, -pymath.inf) if divide_raised else arith.divf(_float(t, -1.0), math.absf(x))
    special = arith.select(arith.cmpf(F.OEQ, x, _float(t, 0.0)), minus_inf, special)
    return arith.select(inside, result, special)


def log(x: ir.Value, dt: np.dtype) -> ir.Value:
    """Natural log in x's own type, x = 2**k (1 + f) (_log_split). float64 in the arrangement of fdlibm's log that
    keeps the large terms exact: with s = f / (2 + f) (one division, which vectorizes), log(x) = k ln2_hi -
    ((f**2/2 - (s (f**2/2 + R(s**2)) + k ln2_lo)) - f). float32 without division: f - f**2/2 + f**3 P(f) + k ln 2."""
    return _log_special(x, _log_core(x, dt), divide_raised=dt == F64)


def log_normal(x: ir.Value, dt: np.dtype) -> ir.Value:
    """log of x known to be a positive normal finite number (a loop versioned on its arguments,
    _version_log_arguments): no subnormal scaling, no special values."""
    return _log_core(x, dt, normal=True)


def log1p_normal(x: ir.Value, dt: np.dtype) -> ir.Value:
    """log1p of x with 1 + x known to be a positive normal finite number (as log_normal)."""
    return _log1p(x, dt, normal=True)


def _log_core(x: ir.Value, dt: np.dtype, normal: bool = False) -> ir.Value:
    """log(x) for positive finite x (garbage for the others). float64, unless x is known normal: where x is +-0 the
    division is 1 / x, which raises the divide-by-zero flag of NumPy's log(0) (_log_special)."""
    t = x.type
    k, f = _log_split(x, dt, normal)
    kf = _to_float(t, k)
    if dt == F64:
        hfsq = arith.mulf(arith.mulf(f, f), _f64(0.5))
        if normal:
            s = arith.divf(f, arith.addf(f, _f64(2.0)))
        else:
            zero = arith.cmpf(F.OEQ, x, _f64(0.0))
            s = arith.divf(arith.select(zero, _f64(1.0), f), arith.select(zero, x, arith.addf(f, _f64(2.0))))
        z = arith.mulf(s, s)
        r = arith.mulf(z, _horner(t, z, _LOG_R64))
        # (multiply-adds LLVM may fuse: kf * _LN2_HI is exact, so fused or not the result is the same; the inner
        # one, fused, rounds once instead of twice)
        inner = _multiply_add(s, arith.addf(hfsq, r), arith.mulf(kf, _f64(_LN2_LO)))
        result = _multiply_add(kf, _f64(_LN2_HI), arith.negf(arith.subf(arith.subf(hfsq, inner), f)))
    else:
        f2 = arith.mulf(f, f)
        p = _multiply_add(f, _horner(t, f, _LOG_P32), _float(t, -0.5))       # -1/2 + f P(f)
        y = _multiply_add(f2, p, f)                                           # f - f**2/2 + f**3 P(f)
        result = _multiply_add(kf, _float(t, _LN2_HI_LOG32), _multiply_add(kf, _float(t, _LN2_LO_LOG32), y))
    return result


# sin and cos: Cody-Waite reduction by multiples of pi (or odd multiples of pi/2), accurate while |x| <= _TRIG_LIMIT.
# Beyond it (rare) the exact libm version of the whole loop runs instead (_version_big_arguments).
_TRIG_LIMIT = {F64: 2.0 ** 28, np.dtype(np.float32): 2.0 ** 17}
# pi as a sum of float64 (float32) parts, each the rounding of what the previous ones leave (159 and 96 bits).
_PI_PARTS = {F64: (3.141592653589793, 1.2246467991473532e-16, -2.9947698097183397e-33),
             np.dtype(np.float32): (3.1415927410125732, -8.742277657347586e-08, -3.4302490200117637e-15,
                                    2.11259979644063e-23)}
# sin(r) = r + r**3 S(r**2) for |r| <= pi/2 (slightly beyond: the rounded quotient may be off by one): S fitted
# like _LOG_R64 on r**2 in [0, (1.0005 pi/2)**2]; relative error 2**-58.7 (float64), 2**-32.4 (float32).
_SIN_S = {F64: (-0.16666666666666666631, 0.0083333333333333149371, -0.00019841269841254363438,
                2.7557319219013148034e-6, -2.5052107599409601916e-8, 1.6058976254170213932e-10,
                -7.6439387097298593777e-13, 2.7310743321279029603e-15),
          np.dtype(np.float32): (-0.16666666663706692812, 0.0083333327459663184626, -0.00019841081890456029675,
                                 2.7536156488311069243e-6, -2.4073874948261363302e-8)}
_EXACT = "transpiler.exact"          # marks the libm copies of sin/cos/tan: not expanded
_REDUCED = ("math.sin", "math.cos", "math.tan")


def _fma(a: ir.Value, b: ir.Value, c: ir.Value) -> ir.Value:
    """a * b + c rounded once, always (the reduction's exactness needs it): LLVM's fma intrinsic, which vectorizes
    (math.fma would become a libm call)."""
    return llvm.intr_fma(a, b, c)


def sin_cos(x: ir.Value, dt: np.dtype, cosine: bool) -> ir.Value:
    """sin(x) = (-1)**n sin(x - n pi) with n = rint(x / pi); cos(x) = (-1)**(n + 1) sin(x - (n + 1/2) pi) with
    n = rint(x / pi - 1/2). The reduction subtracts q * pi part by part with fused multiply-adds: the first is exact
    (q pi_0 and x are both multiples of a power of two at most the result's ulp), the others are rounded once each.
    n's parity is read from the bits of the rounded quotient (x / pi + 1.5 * 2**52 holds n in its low bits). NaN and
    +-inf give NaN through the arithmetic; sin keeps the sign of -0.0."""
    t, it = x.type, _int_type(dt)
    width = 8 * dt.itemsize
    shifter = _float(t, 1.5 * 2.0 ** (52 if dt == F64 else 23))
    quotient = arith.mulf(x, _float(t, 1 / pymath.pi))
    if cosine:
        quotient = arith.subf(quotient, _float(t, 0.5))
    shifted = arith.addf(quotient, shifter)
    n = arith.subf(shifted, shifter)
    odd = arith.andi(arith.bitcast(it, shifted), _int(it, 1))
    q = arith.addf(n, _float(t, 0.5)) if cosine else n
    neg_q = arith.negf(q)
    r = x
    for part in _PI_PARTS[dt]:
        r = _fma(neg_q, _float(t, part), r)
    z = arith.mulf(r, r)
    sine = _multiply_add(arith.mulf(r, z), _horner(t, z, _SIN_S[dt]), r)
    sine = arith.maximumf(arith.minimumf(sine, _float(t, 1.0)), _float(t, -1.0))   # rounding never leaves [-1, 1]
    flip = arith.xori(odd, _int(it, 1)) if cosine else odd
    result = arith.bitcast(t, arith.xori(arith.bitcast(it, sine), arith.shli(flip, _int(it, width - 1))))
    if not cosine:
        result = arith.select(arith.cmpf(F.OEQ, x, _float(t, 0.0)), x, result)
    return result


# tan(r) = r + r**3 T(r**2) for |r| <= pi/4 (and a little beyond: the rounded quotient), T fitted by
# tools/fit_polynomials.py: float32 a polynomial (TAN_P32), at most 2**-28.5 of the result; float64 a rational
# function P(z) / (1 + z Q(z)) (TAN_R64), at most 2**-56.5, 6 multiply-adds and a division where a polynomial took 15
# multiply-adds (float64 tan's loop 45 -> 34 instructions per vector, 0.8x -> 1.2x NumPy's AVX-512 loop)
_TAN_T32 = (0.33333349227905273, 0.13332659006118774, 0.05406050384044647, 0.021279053762555122, 0.010844176635146141,
            7.863486825954169e-05, 0.004381794948130846)
_TAN_P64 = (0.3333333333333333, -0.02144281492790631, 0.00024489158479846287, -1.7896740870258023e-08)
_TAN_Q64 = (-0.46432844478371865, 0.024561290763117, -0.00025604930559417047)
# pi as a sum of float64 (float32) parts, each rounded down (159 and 72 bits): every part positive, so that each
# step of tan's reduction, r + n (-part / 2) with n = +0, keeps r = -0.0 (a rounded-to-nearest part can be negative,
# and (+0) (+c) + (-0.0) is +0.0), and tan(-0.0) = -0.0 needs no compare and select. float32 takes three parts where
# sin and cos take four: what they leave, n 2**-72, is at most 2**-27 of r for |x| <= 2**17 (the smallest |r| there
# is 4.2e-9, at 252.89821), and tan of the float32s nearest each n pi/2 up to 2**17 (and two on either side) is the
# same bit for bit with four parts
_PI_PARTS_DOWN = {F64: (3.141592653589793, 1.224646799147353e-16, 2.1657133478438278e-32),
                  np.dtype(np.float32): (3.141592502593994, 1.5099578831723193e-07, 1.078060505991553e-14)}


def tan(x: ir.Value, dt: np.dtype) -> ir.Value:
    """tan(x) = tan(r) for even n, -1 / tan(r) for odd n, with r = x - n pi/2 and n = rint(x / (pi/2)) (one
    multiply-add with the shifter, LLVM may fuse it: n is an integer either way, and the reduction exact for it):
    sin_cos's reduction by halves of pi's parts (exact halvings; the parts rounded down, see _PI_PARTS_DOWN), one
    tail (float32 a polynomial, float64 a rational function), one division for the odd n. Accurate, like sin and
    cos, while |x| <= _TRIG_LIMIT; beyond, the loop's libm copy runs. NaN and +-inf give NaN through the arithmetic;
    tan(-0.0) = -0.0 (r keeps the sign, n = 0 is even)."""
    t, it = x.type, _int_type(dt)
    shifter = _coefficient(t, 1.5 * 2.0 ** (52 if dt == F64 else 23))
    shifted = _multiply_add(x, _coefficient(t, 2 / pymath.pi), shifter)
    n = arith.subf(shifted, shifter)
    odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(arith.bitcast(it, shifted), _int(it, 1)), _int(it, 0))
    r = x
    for part in _PI_PARTS_DOWN[dt]:
        r = _fma(n, _coefficient(t, -part / 2), r)
    z = arith.mulf(r, r)
    if dt == F64:
        ratio = arith.divf(_horner(t, z, _TAN_P64), _multiply_add(z, _horner(t, z, _TAN_Q64), _coefficient(t, 1.0)))
    else:
        ratio = _horner(t, z, _TAN_T32)
    rz = arith.mulf(r, z)
    y = _multiply_add(rz, ratio, r)
    # odd n: q = -1/y, refined by the division's residual and y's own rounding error dy = r + rz ratio - y (r - y is
    # exact, y / r in [1, 1.3]; one fused multiply-add, where a rounded tail and Fast2Sum took three operations):
    # -1/(y + dy) = q + q (e + q dy) with e = q y + 1 (fused: exact). Unrefined, -1/y was within 3 ulp.
    dy = _fma(rz, ratio, arith.subf(r, y))
    q = arith.divf(_float(t, -1.0), arith.select(odd, y, _float(t, 1.0)))
    e = _fma(q, y, _float(t, 1.0))
    refined = _fma(q, _fma(q, dy, e), q)
    return arith.select(odd, refined, y)


def _version_big_arguments(module: ir.Module) -> None:
    """Each linalg.generic with float32/float64 sin, cos or tan becomes `if any |argument| > _TRIG_LIMIT: the loop
    with libm's, else: the loop with the polynomials`, decided by a reduction over the arguments first (the
    arguments' computation cloned into it: it reads the same inputs). Branching around the whole loop keeps the
    fast loop free of calls (a per-element branch to libm stops LLVM from vectorizing it). An argument computed from
    the loop's own outputs (a running value) has no cheap test in advance: that loop keeps libm's calls."""
    generics = []
    module.operation.walk(lambda op: generics.append(op) or ir.WalkResult.ADVANCE
                          if op.name == "linalg.generic" else ir.WalkResult.ADVANCE)
    for generic in generics:
        body = generic.regions[0].blocks[0]
        trig = [op for op in body.operations if op.name in _REDUCED and _float_type(op.results[0].type) is not None]
        if not trig:
            continue
        n_inputs = len(generic.opview.inputs)
        sliced = _argument_slice(body, [op.operands[0] for op in trig], n_inputs)
        if sliced is None:
            for op in trig:
                op.attributes[_EXACT] = ir.UnitAttr.get()
            continue
        dts = {_float_type(op.operands[0].type) for op in trig}
        if len(dts) == 1:
            # |a|'s bits minus those of the float after the limit: below inf's minus those for a finite |a| beyond
            # the limit (inf gives NaN either way, and NaN lands above), far above (wrapped) within the limit
            dt = dts.pop()
            above, inf = (_bits_of(v, dt) for v in (_TRIG_LIMIT[dt], np.inf))
            it = _int_type(dt)

            def outside(op, a):
                magnitude = arith.andi(arith.bitcast(it, a), _int(it, (1 << (8 * dt.itemsize - 1)) - 1))
                return arith.subi(magnitude, _int(it, above + 1))
            bound = (it, inf - above - 1, "min")
        else:
            def outside(op, a):   # |a| beyond the reduction's limit (and finite: inf gives NaN either way)
                t = a.type
                magnitude = math.absf(a)
                return arith.andi(arith.cmpf(F.OGT, magnitude, _float(t, _TRIG_LIMIT[_float_type(t)])),
                                  arith.cmpf(F.ONE, magnitude, _float(t, pymath.inf)))
            bound = None

        with ir.InsertionPoint(generic), generic.location:
            _version(generic, body, trig, sliced, n_inputs, outside, slow_mark=_EXACT, bound=bound)


_IN_DOMAIN = "transpiler.normal_arguments"   # marks log/log1p/powf ops whose arguments were checked: NORMAL_EXPANSIONS
_LOGS = ("math.log", "math.log1p", "math.powf")     # powf: its base, the first operand


def _version_log_arguments(module: ir.Module) -> None:
    """Each linalg.generic with float32/float64 log or log1p of values read from the function's own arguments
    becomes `if any argument (log1p: 1 + argument) is not a positive normal finite number: the loop as it is,
    else: the loop with log_normal/log1p_normal`, decided by a reduction over the arguments first (as
    _version_big_arguments does for sin and cos). The fast loop skips the subnormal scaling and the special values
    (zero, negative, inf, NaN): float32 log's loop went from ~35 to ~23 operations per vector. Float power is
    versioned the same way on its base: with every base positive, normal and finite, its fast copy has no sign,
    parity or special base to find (power(positive=True)). Only arguments the
    caller passed: a log of a value computed in the kernel (a row sum) stays as it is, so that its loop still fuses
    with its neighbours (loops.fuse_parallel_loops cannot look into an scf.if)."""
    generics = []
    module.operation.walk(lambda op: generics.append(op) or ir.WalkResult.ADVANCE
                          if op.name == "linalg.generic" else ir.WalkResult.ADVANCE)
    for generic in generics:
        body = generic.regions[0].blocks[0]
        logs = [op for op in body.operations if op.name in _LOGS and _float_type(op.results[0].type) is not None
                and _EXACT not in op.attributes]
        if not logs:
            continue
        n_inputs = len(generic.opview.inputs)
        arguments = [op.operands[0] for op in logs]
        sliced = _argument_slice(body, arguments, n_inputs)
        if sliced is None or not _reads_arguments_only(generic.opview, body, arguments, sliced, n_inputs):
            continue

        dts = {_float_type(op.operands[0].type) for op in logs}
        if len(dts) == 1:
            # a as an integer minus the smallest normal's: a positive normal finite a gives at most the largest
            # normal's minus it, anything else (zeros, subnormals, negative numbers, inf, NaN) more, unsigned
            dt = dts.pop()
            tiny, huge = (_bits_of(v, dt) for v in (np.finfo(dt).tiny, np.finfo(dt).max))
            it = _int_type(dt)

            def outside(op, a):
                if op.name == "math.log1p":
                    a = arith.addf(_float(a.type, 1.0), a)
                return arith.subi(arith.bitcast(it, a), _int(it, tiny))
            bound = (it, huge - tiny, "max")
        else:
            def outside(op, a):
                t = a.type
                dt = _float_type(t)
                if op.name == "math.log1p":
                    a = arith.addf(_float(t, 1.0), a)
                return arith.ori(arith.cmpf(F.ULT, a, _float(t, float(np.finfo(dt).tiny))),
                                 arith.cmpf(F.UGT, a, _float(t, float(np.finfo(dt).max))))
            bound = None

        with ir.InsertionPoint(generic), generic.location:
            _version(generic, body, logs, sliced, n_inputs, outside, slow_mark=None, bound=bound)
        for op in logs:
            op.attributes[_IN_DOMAIN] = ir.UnitAttr.get()


def _reads_arguments_only(generic, body: ir.Block, arguments, sliced, n_inputs: int) -> bool:
    """Whether `arguments` (values of `body`, computed by the ops `sliced`) read only inputs that are the function's
    own arguments (or views of them), at least one of them an array."""
    used = set()
    for v in [*arguments, *(v for op in sliced for v in op.operands)]:
        if isinstance(v.owner, ir.Block) and v.owner == body:
            used.add(ir.BlockArgument(v).arg_number)
    if not used:
        return False
    inputs = list(generic.inputs)
    for i in used:
        value = inputs[i]
        while not isinstance(value.owner, ir.Block) and value.owner.operation.name in _VIEWS:
            value = value.owner.operands[0]
        if not (isinstance(value.owner, ir.Block) and value.owner.owner is not None
                and value.owner.owner.operation.name == "func.func"):
            return False
    return any(ir.MemRefType(inputs[i].type).rank >= 1 for i in used if isinstance(inputs[i].type, ir.MemRefType))


_VIEWS = ("memref.subview", "memref.cast", "memref.reinterpret_cast", "memref.collapse_shape",
          "memref.expand_shape")


def _argument_slice(body: ir.Block, arguments, n_inputs: int):
    """The ops of `body` that the arguments are computed from, in order, or None when one reads an output."""
    needed, stack = set(), list(arguments)
    while stack:
        v = stack.pop()
        if isinstance(v.owner, ir.Block):
            if v.owner == body and ir.BlockArgument(v).arg_number >= n_inputs:
                return None
            continue
        op = v.owner.operation
        if op.block != body or op in needed:
            continue
        if op.regions or op.name not in _SLICEABLE and not op.name.startswith(("arith.", "math.")):
            return None
        needed.add(op)
        stack.extend(op.operands)
    return [op.operation for op in body.operations if op.operation in needed]


_SLICEABLE = ("linalg.index", "memref.load", "llvm.intr.fma")


def _version(generic, body: ir.Block, checked, sliced, n_inputs: int, outside, slow_mark, bound=None) -> None:
    """`if any outside(op, argument) over the loop's elements, for the ops `checked`: a clone of the loop (its
    `checked` ops marked `slow_mark`, unless None), else: the loop itself`. With `bound` (an integer type, a value
    and "max" or "min"), outside gives an unsigned distance of that type instead of a flag, and an argument is
    outside when its distance is above the value ("max") or below it ("min"): the check is then an unsigned max
    (min) reduction, two or three vector instructions per vector of arguments, where or'ing flags took compares
    into mask registers and masked byte merges."""
    i8 = ir.IntegerType.get_signless(8)
    flag_type = i8 if bound is None else bound[0]
    smallest = bound is not None and bound[2] == "min"
    flag = memref.alloca(ir.MemRefType.get([], flag_type), [], [])
    memref.store(_int(flag_type, -1 if smallest else 0), flag, [])
    op = generic.opview
    rank = len(op.iterator_types)
    # the loop's sizes come from its operands' shapes: where no input spans every loop dim (a loop that reads only
    # through linalg.index and loads, `np.sin(x[::-1])`, has none), the outputs go in too, read by nothing (before,
    # the check's loop had no sizes and read out of bounds: a crash)
    n_read = n_inputs if _spans_domain([op.indexing_maps[i] for i in range(n_inputs)], rank) else len(body.arguments)
    inputs = list(op.inputs) + list(op.outputs)[:n_read - n_inputs]
    maps = [op.indexing_maps[i] for i in range(n_read)] + [ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, []))]
    check = linalg.GenericOp([], inputs, [flag], ir.ArrayAttr.get(maps),
                             ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<reduction>")] * rank))
    block = check.regions[0].blocks.append(*[a.type for a in body.arguments][:n_read], flag_type)
    mapping = {body.arguments[i]: block.arguments[i] for i in range(n_inputs)}
    with ir.InsertionPoint(block):
        for old in sliced:
            new = old.clone()
            for i, v in enumerate(old.operands):
                new.operands[i] = mapping.get(v, v)
            for a, b in zip(old.results, new.results):
                mapping[a] = b
        big = None
        for t_op in checked:
            out = outside(t_op, mapping.get(t_op.operands[0], t_op.operands[0]))
            combine = arith.ori if bound is None else arith.minui if smallest else arith.maxui
            big = out if big is None else combine(big, out)
        if bound is None:
            linalg.YieldOp([arith.ori(block.arguments[n_read], arith.extui(i8, big))])
        else:
            linalg.YieldOp([(arith.minui if smallest else arith.maxui)(block.arguments[n_read], big)])
    if bound is None:
        any_big = arith.cmpi(arith.CmpIPredicate.ne, memref.load(flag, []), _int(i8, 0))
    else:
        predicate = arith.CmpIPredicate.ult if smallest else arith.CmpIPredicate.ugt
        any_big = arith.cmpi(predicate, memref.load(flag, []), _int(flag_type, bound[1]))
    branch = scf.IfOp(any_big, [], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        exact = generic.clone()
        if slow_mark is not None:
            names = {op.name for op in checked}
            exact.walk(lambda o: o.attributes.__setitem__(slow_mark, ir.UnitAttr.get()) or ir.WalkResult.ADVANCE
                       if o.name in names else ir.WalkResult.ADVANCE)
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([])
    generic.move_before(branch.else_block.operations[0])


def _spans_domain(maps, rank: int) -> bool:
    """Whether the indexing maps name every loop dim as a plain dim of some operand (which then gives its size)."""
    seen = set()
    for m in maps:
        for e in ir.AffineMapAttr(m).value.results:
            try:
                seen.add(ir.AffineDimExpr(e).position)
            except ValueError:
                pass
    return seen >= set(range(rank))


# atan(t) = t + t**3 P(t**2) for 0 <= t <= 1, P fitted by tools/fit_polynomials.py (ATAN_P64, ATAN_P32): at most
# 2**-55.4 (float64) and 2**-27.9 (float32) of the result.
_ATAN_P = {F64: (-0.3333333333333307, 0.19999999999951448, -0.1428571428257437, 0.11111111007004777,
                 -0.09090907002616208, 0.07692279834924452, -0.06666404021858571, 0.05880527601482625,
                 -0.05253517599570846, 0.04722318960624244, -0.04219170359317402, 0.03664173436704144,
                 -0.029903576089013915, 0.021984503051648882, -0.013900226802395355, 0.0071962647195689435,
                 -0.002884794369098347, 0.0008312775400880373, -0.00015215116007734683, 1.3224092515163296e-05),
           np.dtype(np.float32): (-0.33333298563957214, 0.19998547434806824, -0.14264237880706787,
                                  0.10952164977788925, -0.08403386920690536, 0.05795646458864212,
                                  -0.031176678836345673, 0.01091395691037178, -0.0017934716306626797)}
# pi/2 and pi as a rounded value and the rounding's error, per type
_HALF_PI = {F64: (1.5707963267948966, 6.123233995736766e-17),
            np.dtype(np.float32): (1.5707963705062866, -4.371139000186241e-08)}
_PI = {F64: (3.141592653589793, 1.2246467991473532e-16),
       np.dtype(np.float32): (3.1415927410125732, -8.742277657347586e-08)}


def _magnitude_and_sign(x: ir.Value, dt: np.dtype):
    """(|x|, x's sign bit alone as an integer of x's width)."""
    it = _int_type(dt)
    bits = arith.bitcast(it, x)
    sign = arith.andi(bits, _int(it, -(1 << (8 * dt.itemsize - 1))))
    return arith.bitcast(x.type, arith.xori(bits, sign)), sign


def _atan_tail(t: ir.Value, dt: np.dtype) -> ir.Value:
    """atan(t) - t = t**3 P(t**2) for 0 <= t <= 1 (or NaN). float64's P of 20 coefficients with a short chain
    (Horner for its first 4): 8 multiply-adds on the longest path instead of 20, within 1.27 ulp of the exact
    arctan against Horner's 1.24 (6 million arguments), 0.75x -> 1.0-1.1x NumPy on Zen 5."""
    z = arith.mulf(t, t)
    poly = _short_chain(t.type, z, _ATAN_P[dt], 4) if dt == F64 else _horner(t.type, z, _ATAN_P[dt])
    return arith.mulf(arith.mulf(t, z), poly)


def _atan_finish(t: ir.Value, negate: ir.Value, base, dt: np.dtype) -> ir.Value:
    """base -+ atan(t), base in {0, pi/2, pi} (base = (half, whole): i1s, pi/2 if half, else pi if whole, else 0),
    rounded about once: base's big part plus -+t is summed exactly (Fast2Sum: |base| >= t, or base = 0), its
    rounding error joins the small terms (atan's tail and base's own rounding error), and the result is their sum.
    (Adding a rounded atan(t) to pi/2 instead rounds three times: float64 arctan was within 2 ulp, now 1.)"""
    ft, it = t.type, _int_type(dt)
    flip = arith.shli(arith.extui(it, negate), _int(it, 8 * dt.itemsize - 1))

    def signed(v):
        return arith.bitcast(ft, arith.xori(arith.bitcast(it, v), flip))

    half, whole = base
    hi = arith.select(half, _float(ft, _HALF_PI[dt][0]), arith.select(whole, _float(ft, _PI[dt][0]), _float(ft, 0.0)))
    lo = arith.select(half, _float(ft, _HALF_PI[dt][1]), arith.select(whole, _float(ft, _PI[dt][1]), _float(ft, 0.0)))
    st = signed(t)
    head = arith.addf(hi, st)
    error = arith.addf(arith.subf(hi, head), st)
    return arith.addf(head, arith.addf(arith.addf(lo, signed(_atan_tail(t, dt))), error))


def atan(x: ir.Value, dt: np.dtype) -> ir.Value:
    """atan(x) = sign(x) atan(|x|); |x| > 1 gives pi/2 - atan(1 / |x|): one division (by 1 for |x| <= 1, exact)
    brings the argument to [0, 1], one polynomial. inf gives pi/2 (1 / inf = 0), NaN propagates through the
    arithmetic, -0.0 keeps its sign."""
    t, it = x.type, _int_type(dt)
    a, sign = _magnitude_and_sign(x, dt)
    one = _float(t, 1.0)
    swap = arith.cmpf(F.OGT, a, one)
    q = arith.divf(arith.select(swap, one, a), arith.select(swap, a, one))
    result = _atan_finish(q, swap, (swap, _int(ir.IntegerType.get_signless(1), 0)), dt)
    return arith.bitcast(t, arith.ori(arith.bitcast(it, result), sign))


def atan2(y: ir.Value, x: ir.Value, dt: np.dtype) -> ir.Value:
    """atan2(y, x) = sign(y) (atan(t) or pi/2 -+ atan(t) or pi - atan(t)), t = min(|x|, |y|) / max(|x|, |y|)
    in [0, 1], by the octant: one division, atan's polynomial. C99's special values: 0/0 counts as t = 0 (so
    atan2(+-0, -0) = +-pi, atan2(+-0, +0) = +-0), inf/inf as t = 1 (+-pi/4, +-3pi/4); x's sign is its sign bit
    (-0.0 counts as negative). NaN in either gives NaN."""
    t = y.type
    ay, y_sign = _magnitude_and_sign(y, dt)
    ax, x_sign = _magnitude_and_sign(x, dt)
    swap = arith.cmpf(F.OGT, ay, ax)
    num, den = arith.select(swap, ax, ay), arith.select(swap, ay, ax)
    q = arith.divf(num, den)
    q = arith.select(arith.cmpf(F.OEQ, den, _float(t, 0.0)), _float(t, 0.0), q)
    q = arith.select(arith.cmpf(F.OEQ, num, _float(t, pymath.inf)), _float(t, 1.0), q)
    negative_x = arith.cmpi(arith.CmpIPredicate.ne, x_sign, _int(x_sign.type, 0))
    result = _atan_finish(q, arith.xori(swap, negative_x), (swap, negative_x), dt)
    it = _int_type(dt)
    result = arith.bitcast(t, arith.ori(arith.bitcast(it, result), y_sign))
    return arith.select(arith.cmpf(F.UNO, y, x), arith.addf(y, x), result)


def _exp_reduce(x: ir.Value, dt: np.dtype):
    """(n, r) with x = n ln 2 + r, n an integer-valued float of x's type, |r| <= ln(2)/2 (two-constant reduction;
    float32's first constant has 9 bits so that n ln2_hi is exact). Multiply-adds LLVM may fuse, as float32 exp's
    (three operations fewer per vector of tanh, sinh, cosh and expm1)."""
    if dt == F64:
        return _reduce(x)
    t = x.type
    shifter = _coefficient(t, 12582912.0)                                         # 1.5 * 2**23
    n = arith.subf(_multiply_add(x, _coefficient(t, _LOG2E), shifter), shifter)
    r = _multiply_add(n, _coefficient(t, -_LN2_LO_F32), _multiply_add(n, _coefficient(t, -_LN2_HI_F32), x))
    return n, r


# Taylor degree of float64 expm1(r) for |r| <= ln(2)/2: the first omitted term is below 2**-56 of the result
_EXPM1_DEGREE = 13
# below this magnitude expm1(x) and log1p(x) round to x
_TINY = {F64: 2.0 ** -54, np.dtype(np.float32): 2.0 ** -25}


# float64 sinh: cosh(r) - 1 = z C(z) for |r| <= ln(2)/2 (Taylor series, to below 2**-57 of the result) and sinh's
# series for |r| < 1 (sinh of a < 1 takes n = 0, r = a: the rounding of a reduced r, half an ulp of r, cost 2 ulp at
# n = 1)
_COSH_SERIES = [1 / pymath.factorial(k) for k in range(2, 13, 2)]
_SINH_SERIES_TO_1 = [1 / pymath.factorial(k) for k in range(3, 18, 2)]


def sinh_cosh(x: ir.Value, dt: np.dtype, cosine: bool) -> ir.Value:
    """float32 sinh from expm1 (_sinh_f32), float32 and float64 cosh from one exp and a division (_cosh_by_exp).
    float64 sinh: with
    a = |x| = n ln 2 + r (one reduction, _exp_reduce), exp(+-a) = 2**(+-n) (cosh(r) +- sinh(r)), so sinh(a) =
    c- + (c- (cosh(r) - 1) + c+ sinh(r)) with c+- = (2**n +- 2**-n) / 2, exact powers of two and their exact sums:
    no division, one even and one odd series in r**2 (the cost of exp's one), the big term added last,
    c+ (r + r z S(z)) as one fused multiply-add. sinh of a < 1 takes n = 0 and r = a: the series alone (longer,
    to |r| < 1), no cancellation, no reduction error (exp(a) / 2 - 1 / (2 exp(a)) reached 2 ulp there
    and were slower in float64). The sum is computed for c+- / 2 = 2**(n-2) +- 2**(-n-2) and doubled last (exact,
    or inf where sinh overflows), so that 2**(n-2) is a normal float up to the overflow (a = 710.48; a is clamped
    just beyond); below the smallest normal exponent 2**(-n-2) is negligible and clamped. sinh is odd
    (sinh(-0.0) = -0.0); NaN propagates (the arithmetic's, no select), overflow gives inf."""
    if dt != F64 and not cosine:
        return _sinh_f32(x)
    if cosine:
        return _cosh_by_exp(x, dt)
    t, it = x.type, _int_type(dt)
    a, sign = _magnitude_and_sign(x, dt)
    high = 710.5                                          # overflow from there on; n - 2 at most 1023
    n, r = _exp_reduce(arith.select(arith.cmpf(F.OGT, a, _float(t, high)), _float(t, high), a), dt)
    below_one = arith.cmpf(F.OLT, a, _float(t, 1.0))
    n, r = arith.select(below_one, _float(t, 0.0), n), arith.select(below_one, a, r)
    n = _to_int(it, n)
    z = arith.mulf(r, r)
    cosh_r1 = arith.mulf(z, _horner(t, z, _COSH_SERIES))                    # cosh(r) - 1 (times 0 when n = 0)
    sinh_tail = arith.mulf(arith.mulf(r, z), _horner(t, z, _SINH_SERIES_TO_1))
    # c+- / 2 = first +- small with first = 2**(n-2), small = 2**(-n-2)
    first = _pow2(arith.subi(n, _int(it, 2)))
    small = _pow2(arith.maxsi(arith.subi(_int(it, -2), n), _int(it, -1022)))   # below, negligible
    plus, minus = arith.addf(first, small), arith.subf(first, small)
    middle = _fma(plus, r, arith.addf(arith.mulf(minus, cosh_r1), arith.mulf(plus, sinh_tail)))
    half = arith.addf(minus, middle)
    result = arith.addf(half, half)
    return arith.bitcast(t, arith.ori(arith.bitcast(it, result), sign))   # NaN through the arithmetic


# 1.5 * 2**23 + 125: x log2(e) + it rounds to an integer k whose bits shifted left by 23 are those of 2**(n - 2)
# (as _EXP_SHIFTER_ONE_F32's, with the bias 127 less 2), for n - 2 in [-127, 128]; float64's is 1.5 * 2**52 + 1021
# (the bits shifted left by 52), for n - 2 in [-1023, 1024]
_EXP_SHIFTER_QUARTER_F32 = 12583037.0


def _cosh_by_exp(x: ir.Value, dt: np.dtype) -> ir.Value:
    """float32 and float64 cosh: with q = exp(a) / 4 = 2**(n-2) exp(r) (a = |x| clamped just beyond the overflow,
    exp's reduction and fitted polynomial, one power of two from the bits of the rounded n) and q' = exp(-a) / 4 =
    1 / (16 q), one division, cosh(a) = 2 (q + q'): the quarter keeps 2**(n-2) normal up to the overflow (89.42,
    float64 710.48), and doubling last is exact or the overflow to inf. No cancellation (float32 within 1 ulp: every
    third float32 in [0, 90] checked; float64 within 1 in 1.2 * 10^7 samples). It replaced one reduction with an
    even and an odd series: float32 cosh 36 -> ~20 instructions per vector, 0.83x -> 1.06x NumPy's AVX-512 loop;
    float64 cosh 11% faster (AVX2 code: 7%). NaN propagates through the arithmetic (the clamp keeps it)."""
    t, it = x.type, _int_type(dt)
    a = _magnitude_and_sign(x, dt)[0]
    if dt == F64:
        high, shifter, ln2, mantissa, q_coefficients, clamp = (710.5, _SHIFTER + 1021, (_LN2_HI, _LN2_LO), 52,
                                                               _EXP_Q64, 2.0 ** 512)
    else:
        high, shifter, ln2, mantissa, q_coefficients, clamp = (89.5, _EXP_SHIFTER_QUARTER_F32,
                                                               (_LN2_HI_F32, _LN2_LO_F32), 23, _EXP_Q32, 2.0 ** 64)
    a = arith.minimumf(a, _float(t, high))
    shifter = _coefficient(t, shifter)
    k = _multiply_add(a, _coefficient(t, _LOG2E), shifter)
    n = arith.subf(k, shifter)
    r = _multiply_add(n, _coefficient(t, -ln2[1]), _multiply_add(n, _coefficient(t, -ln2[0]), a))
    scale = arith.bitcast(t, arith.shli(arith.bitcast(it, k), _int(it, mantissa)))                  # 2**(n-2)
    quarter = arith.mulf(_horner(t, r, (1.0, 1.0) + q_coefficients), scale)    # exp(a) / 4
    # exp(-a) / 4, from a quarter clamped to 2**64 (float64 2**512): beyond, exp(-a) is negligible, and 1 / q would
    # underflow (a floating-point event, a replay of the call as NumPy where its warnings are on: runtime/errstate.py)
    small_part = arith.divf(_float(t, 0.0625), arith.minimumf(quarter, _float(t, clamp)))
    half = arith.addf(quarter, small_part)
    return arith.addf(half, half)


def _sinh_f32(x: ir.Value) -> ir.Value:
    """float32 sinh(a) = 2 (w + w / (4w + 1)) with w = expm1(a) / 4 (a = |x|): (e**a - e**-a) / 2 with e**a = 4w + 1,
    no cancellation (w >= 0), one piece for every a, one division. w = 2**(n-2) (r + h) + (2**(n-2) - 1/4) is
    expm1's arrangement (_expm1_core) for the quarter, whose 2**(n-2) stays normal up to the overflow (a is clamped
    to 89.5; 4w + 1 from w clamped to 2**64, where w / (4w + 1) is 1/4 anyway, so that it does not overflow where sinh
    does not); 2**(n-2) from the bits of the rounded n (_EXP_SHIFTER_QUARTER_F32), doubling last exact or the
    overflow to inf. Within 2 ulp: every fifth float32 in [-90, 90] checked, 68,002 of 448 million at 2 (below 1,
    most near 0, where the rounding of 4w + 1 ~ 1 reaches w / (4w + 1) ~ w, a third of an ulp of the result), 95.5%
    correctly rounded. It replaced two pieces (an odd polynomial below 1.5, 2 (exp(a) / 4 - exp(-a) / 4) above: 3 of
    224 million at 2): 39 -> 33 instructions per vector, about 0.75x -> 0.8-1.0x NumPy's AVX-512 loop at 10^6.
    Tiny a (below 2**-12, where sinh(a) rounds to a) and NaN give a; the sign is or'ed back (sinh(-0.0) = -0.0)."""
    f32 = np.dtype(np.float32)
    t, it = x.type, _int_type(f32)
    a, sign = _magnitude_and_sign(x, f32)
    clamped = arith.minimumf(a, _float(t, 89.5))          # sinh overflows from 89.42 on
    shifter = _coefficient(t, _EXP_SHIFTER_QUARTER_F32)
    k = _multiply_add(clamped, _coefficient(t, _LOG2E), shifter)
    n = arith.subf(k, shifter)
    r = _multiply_add(n, _coefficient(t, -_LN2_LO_F32), _multiply_add(n, _coefficient(t, -_LN2_HI_F32), clamped))
    scale = arith.bitcast(t, arith.shli(arith.bitcast(it, k), _int(it, 23)))                        # 2**(n-2)
    h = arith.mulf(arith.mulf(r, r), _horner(t, r, _EXP_Q32))
    w = _multiply_add(scale, h, _fma(scale, r, arith.subf(scale, _coefficient(t, 0.25))))         # expm1(a) / 4
    denominator = _multiply_add(arith.minimumf(w, _float(t, 2.0 ** 64)), _coefficient(t, 4.0), _coefficient(t, 1.0))
    half = arith.addf(w, arith.divf(w, denominator))
    value = arith.select(arith.cmpf(F.ULT, a, _float(t, 2.0 ** -12)), a, arith.addf(half, half))
    return arith.bitcast(t, arith.ori(arith.bitcast(it, value), sign))


def _expm1_core(x: ir.Value, dt: np.dtype) -> ir.Value:
    """expm1's arithmetic (see expm1) for x within its clamps. expm1(r) = r + r**2 Q(r): float32 with exp's fitted
    Q (_EXP_Q32; two multiply-adds fewer than the Taylor series to degree 8, 10% faster, within 1 ulp: every third
    float32 in [-21, 90] checked), float64 with the Taylor series to degree 13 (_EXP_Q64, exp's, reached 2 ulp
    here: its error relative to exp(r) is over three times bigger relative to expm1(r))."""
    t, it = x.type, _int_type(dt)
    n, r = _exp_reduce(x, dt)
    q = _EXP_Q32 if dt != F64 else [1 / pymath.factorial(k) for k in range(2, _EXPM1_DEGREE + 1)]
    h = arith.mulf(arith.mulf(r, r), _horner(t, r, q))
    scale = _pow2(arith.subi(_to_int(it, n), _int(it, 1)))
    head = _fma(scale, r, arith.subf(scale, _float(t, 0.5)))
    return arith.mulf(arith.addf(head, arith.mulf(scale, h)), _float(t, 2.0))


def expm1(x: ir.Value, dt: np.dtype) -> ir.Value:
    """exp(x) - 1 = 2 ((2**(n-1) r + (2**(n-1) - 1/2)) + 2**(n-1) h) with x = n ln 2 + r and expm1(r) = r + h (h
    from the Taylor series): the powers of two and their difference are exact (but where the difference is below the
    result's rounding anyway: n > 54, n < -54), the first sum is one fused multiply-add, and the small h is added
    last, so the result rounds about twice, without the cancellation of 2 expm1(r) + 1 for n = 1 (2 ulp), nor any
    near 0 (n = 0: r + h). x is clamped first to where the result is -1 or overflows anyway (n - 1 then stays a
    normal exponent); tiny x (zeros and subnormals) give x, NaN gives NaN."""
    t = x.type
    low, high = (-40.0, 710.0) if dt == F64 else (-20.0, 89.0)
    xc = arith.select(arith.cmpf(F.OLT, x, _float(t, low)), _float(t, low), x)
    xc = arith.select(arith.cmpf(F.OGT, xc, _float(t, high)), _float(t, high), xc)
    result = _expm1_core(xc, dt)
    # tiny or NaN: x itself, one unordered compare for both
    tiny = arith.cmpf(F.ULT, _magnitude_and_sign(x, dt)[0], _float(t, _TINY[dt]))
    return arith.select(tiny, x, result)


def log1p(x: ir.Value, dt: np.dtype) -> ir.Value:
    """log(1 + x) = log(u) + c / u with u = 1 + x rounded and c = x - (u - 1), its rounding error: log's polynomials
    on u, one division for the correction, which matters when x is small (u - 1 has lost x's low bits). Outside
    (-1, inf) as log(u): log1p(-1) = -inf, log1p(x < -1) = nan; log1p(-0.0) = -0.0."""
    return _log1p(x, dt)


def _log1p(x: ir.Value, dt: np.dtype, normal: bool = False) -> ir.Value:
    """c = x - (u - 1) is exact for -1 <= x < 2**53 (float32: 2**24): u - 1 is exact (Sterbenz for u in [1/2, 2];
    below, 1 + x is exact itself, u - 1 = x; above, u - 1 is a multiple of u's ulp <= 1 smaller than u), and the
    true rounding error 1 + x - u is a float. Beyond, c is off by at most 3 (units), under 3 / u <= 3 2**-53
    (float32: 2**-24), a tenth of the result's ulp (the result is above 36, float32: 16). Two operations where
    Fast2Sum with the bigger magnitude first took six (a magnitude, a compare, two selects, two sums).
    log1p(x) has x's sign (x > -1), and the sum gives +0.0 for x = -0.0 (log(1) + -0.0): x's sign bit is or'ed
    into the result, one instruction (AVX-512's ternary logic) where a compare and a select took two."""
    t = x.type
    one = _float(t, 1.0)
    u = arith.addf(one, x)
    c = arith.subf(x, arith.subf(u, one))
    result = arith.addf(_log_core(u, dt, normal), arith.divf(c, u))
    it = _int_type(dt)
    result = arith.bitcast(t, arith.ori(arith.bitcast(it, result), _magnitude_and_sign(x, dt)[1]))
    return result if normal else _log_special(u, result, divide_raised=dt == F64)


# asin(s) = s + s**3 P(s**2) for 0 <= s <= 1/2, P fitted by tools/fit_polynomials.py (ASIN_P64, ASIN_P32): at most
# 2**-59.3 (float64), 2**-29.8 (float32) of the result.
_ASIN_P = {F64: (0.1666666666666676, 0.07499999999970794, 0.04464285717461767, 0.03038194270751638,
                 0.02237221499499298, 0.017351611883470064, 0.013980822102055203, 0.011398899430480756,
                 0.01078032551548731, 0.003706128603792323, 0.02170814419498362, -0.021000072889186604,
                 0.032629271251670144),
           np.dtype(np.float32): (0.16666659712791443, 0.07500503957271576, 0.04451693966984749,
                                  0.03180786594748497, 0.014438018202781677, 0.03751731663942337)}


def asin_acos(x: ir.Value, dt: np.dtype, cosine: bool) -> ir.Value:
    """fdlibm's reduction: for |x| <= 1/2, asin(x) = x + x**3 P(x**2); beyond, asin(|x|) = pi/2 - 2 asin(s) with
    s = sqrt((1 - |x|) / 2) <= 1/2 (1 - |x| is exact), so one polynomial on [0, 1/2] serves both. acos(x) = pi/2 -
    asin(x) for |x| <= 1/2, 2 asin(s) for x > 1/2, pi - 2 asin(s) for x < -1/2. Every case is base + m (v + tail)
    with base in {0, pi/2, pi} and m in {+-1, +-2}, summed as in _atan_finish: base's big part plus m v exactly
    (Fast2Sum), its error with the small terms. |x| > 1 gives NaN (the square root of a negative), NaN propagates,
    asin keeps the sign of -0.0."""
    t = x.type
    a, sign = _magnitude_and_sign(x, dt)
    large = arith.cmpf(F.OGT, a, _float(t, 0.5))
    z = arith.select(large, arith.mulf(arith.subf(_float(t, 1.0), a), _float(t, 0.5)), arith.mulf(a, a))
    s = llvm.intr_sqrt(z)      # an instruction (math.sqrt would become a libm call, kept out of vector_reductions)
    v = arith.select(large, s, x if cosine else a)
    tail = arith.mulf(arith.mulf(v, z), _horner(t, z, _ASIN_P[dt]))
    zero = _float(t, 0.0)
    if cosine:
        negative = arith.cmpf(F.OLT, x, zero)
        m = arith.select(large, arith.select(negative, _float(t, -2.0), _float(t, 2.0)), _float(t, -1.0))
        hi = arith.select(large, arith.select(negative, _float(t, _PI[dt][0]), zero), _float(t, _HALF_PI[dt][0]))
        lo = arith.select(large, arith.select(negative, _float(t, _PI[dt][1]), zero), _float(t, _HALF_PI[dt][1]))
    else:
        m = arith.select(large, _float(t, -2.0), _float(t, 1.0))
        hi = arith.select(large, _float(t, _HALF_PI[dt][0]), zero)
        lo = arith.select(large, _float(t, _HALF_PI[dt][1]), zero)
    mv = arith.mulf(m, v)
    head = arith.addf(hi, mv)
    error = arith.addf(arith.subf(hi, head), mv)
    result = arith.addf(head, arith.addf(arith.addf(lo, arith.mulf(m, tail)), error))
    if not cosine:
        result = arith.bitcast(t, arith.ori(arith.bitcast(_int_type(dt), result), sign))
    return result


def power(x: ir.Value, y: ir.Value, dt: np.dtype, positive: bool = False) -> ir.Value:
    """x**y = exp(y log|x|) (float32: _power_f32, in float64 arithmetic). float64 takes log|x| in double-double
    (_log_double) and y log|x| as an exact product plus its error, whose exp then loses only exp's own rounding.
    C99's special values by selects: x**0 = 1 and 1**y = 1 (NaN included), (-1)**+-inf = 1; a negative x gives the
    sign of an odd integer y, NaN for a finite non-integer y (computed as 0 * inf, which raises NumPy's invalid
    flag; -0.0 and -inf count as negative only for the sign); +-0 and +-inf follow from log(0) = -inf,
    log(inf) = inf and exp's overflow and underflow. `positive`: every base is known to be a positive normal finite
    number (a loop versioned on its bases, _version_log_arguments), so that only 1**y = 1 remains to be found
    (y = 0 gives exp(0) = 1)."""
    if dt != F64:
        return _power_f32(x, y, positive)
    f64, i64, i1 = ir.F64Type.get(), ir.IntegerType.get_signless(64), ir.IntegerType.get_signless(1)
    xd, yd = x, y
    ax, x_sign = _magnitude_and_sign(xd, F64) if not positive else (x, None)
    log_hi, log_lo = _log_double(ax, positive)
    product = arith.mulf(yd, log_hi)
    error = arith.addf(_fma(yd, log_hi, arith.negf(product)), arith.mulf(yd, log_lo))
    ordinary = arith.cmpf(F.OLT, _magnitude_and_sign(product, F64)[0], _f64(800.0))    # else 0, inf or NaN
    magnitude = exp_f64(product, arith.select(ordinary, error, _f64(0.0)))
    one = _f64(1.0)
    if positive:
        return arith.select(arith.cmpf(F.OEQ, xd, one), one, magnitude)
    ay = _magnitude_and_sign(yd, F64)[0]
    # y's parity without a float-to-int conversion (AVX2 converts float64 to int64 one element at a time, see
    # _to_int): below 2**52, |y| + 2**52 rounds |y| to an integer whose parity is the last bit; from 2**52 every
    # float64 is an integer, odd only below 2**53 with its own last bit set. NaN is no integer.
    two52 = _f64(2.0 ** 52)
    small = arith.cmpf(F.OLT, ay, two52)
    shifted = arith.addf(ay, two52)
    integer = arith.ori(arith.cmpf(F.OEQ, arith.subf(shifted, two52), ay), arith.cmpf(F.OGE, ay, two52))
    last_bit = arith.andi(arith.bitcast(i64, arith.select(small, shifted, ay)), _i64(1))
    odd = arith.andi(arith.andi(integer, arith.cmpf(F.OLT, ay, _f64(2.0 ** 53))),
                     arith.cmpi(arith.CmpIPredicate.ne, last_bit, _i64(0)))
    negative = arith.cmpi(arith.CmpIPredicate.ne, x_sign, _i64(0))
    flip = arith.shli(arith.extui(i64, arith.andi(negative, odd)), _i64(63))
    result = arith.bitcast(f64, arith.xori(arith.bitcast(i64, magnitude), flip))
    finite_negative = arith.andi(arith.cmpf(F.OLT, xd, _f64(0.0)), arith.cmpf(F.OGT, xd, _f64(-pymath.inf)))
    not_integer = arith.andi(arith.xori(integer, _int(i1, 1)), arith.cmpf(F.OEQ, yd, yd))
    invalid = arith.mulf(arith.subf(xd, xd), _f64(pymath.inf))       # NaN where x is finite, raising invalid
    result = arith.select(arith.andi(finite_negative, not_integer), invalid, result)
    unit = arith.ori(arith.ori(arith.cmpf(F.OEQ, yd, _f64(0.0)), arith.cmpf(F.OEQ, xd, one)),
                     arith.andi(arith.cmpf(F.OEQ, ax, one), arith.cmpf(F.OEQ, ay, _f64(pymath.inf))))
    return arith.select(unit, one, result)


# float32 power's log2(1 + f) = s R(s**2) with s = f / (2 + f), |s| <= 3 - 2 sqrt(2) for 1 + f in [sqrt(1/2),
# sqrt(2)), and 2**r = 1 + r Q(r) for |r| <= 1/2, in float64, fitted by tools/fit_polynomials.py (POWER_LOG2_R:
# relative error 2**-36.3; POWER_EXP2_Q: 2**-28.9)
_POWER_LOG2_R = (2.8853900817901206, 0.9617966732910445, 0.5770835939064054, 0.41167223081974247,
                 0.34073835022328736)
_POWER_EXP2_Q = (0.6931472028647603, 0.24022647912676887, 0.05550332449877843, 0.009618437401387632,
                 0.0013398882960598847, 0.00015353369101738434)


def _power_f32(x: ir.Value, y: ir.Value, positive: bool = False) -> ir.Value:
    """float32 x**y = 2**(y log2|x|) in float64 arithmetic, to float64's precision only where it matters:
    |x| = 2**k m with m in [sqrt(1/2), sqrt(2)) from its bits (in float64, where float32's subnormals are normal),
    log2(m) = s R(s**2) with s = (m - 1) / (m + 1) (one division, m - 1 exact; relative error 2**-36 with R's),
    p = y log2|x| rounded, and 2**p = 2**n (1 + r Q(r)) with n = rint(p) and r = p - n exact (no ln 2 in two
    parts, 2**n from the bits of p + shifter). Where the result is a float32 other than 0 and inf, |p| <= 150, so
    p is within 150 * 2**-36 of y log2|x| and the float64 result within 2**-28 of x**y: rounded once to float32 it
    is within 0.56 ulp. Zero, inf and NaN bases take log2 = -inf, inf, NaN; p is clamped to [-160, 130] (0 or inf
    in float32 beyond; NaN stays NaN). The sign and C99's special values are found in float32 (16 lanes) as float64
    power finds them; a negative base with a non-integer exponent gives a NaN computed as 0 * inf, which raises
    NumPy's invalid flag (backend/fp_status.py). `positive`: every base is a positive normal finite number (see
    power): x splits in float32, and only 1**y = 1 remains to be found."""
    f32, f64 = ir.F32Type.get(), ir.F64Type.get()
    i32, i64, i1 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64), ir.IntegerType.get_signless(1)
    if positive:   # x = 2**k m split in float32 (16 lanes; x is normal), m and k converted
        k, m = _split_sqrt2(x, np.dtype(np.float32))
        k, m = arith.sitofp(f64, k), arith.extf(f64, m)
    else:          # in float64, where float32's subnormals are normal
        ax = _magnitude_and_sign(arith.extf(f64, x), F64)[0]
        bits = arith.bitcast(i64, ax)
        k, m = _split_sqrt2(ax, F64)
        k = _to_float(f64, k)
    s = arith.divf(arith.subf(m, _f64(1.0)), arith.addf(m, _f64(1.0)))       # (m - 1 is exact)
    log2 = _multiply_add(s, _horner(f64, arith.mulf(s, s), _POWER_LOG2_R), k)
    if not positive:   # zero, inf, NaN: bits - 1 wraps or reaches those of inf - 1 (one unsigned compare for the three)
        special = arith.cmpi(arith.CmpIPredicate.uge, arith.subi(bits, _i64(1)), _i64(_bits_of(pymath.inf, F64) - 1))
        log2 = arith.select(special, arith.select(arith.cmpf(F.OEQ, ax, _f64(0.0)), _f64(-pymath.inf), ax), log2)
    p = arith.minimumf(arith.maximumf(arith.mulf(arith.extf(f64, y), log2), _f64(-160.0)), _f64(130.0))
    # p + shifter + 1023 rounds p to an integer n whose bits end in those of n + 1023 (the shifter's low 12 bits are
    # 0): shifted left by 52 they are 2**n
    biased_shifter = _f64(_SHIFTER + 1023)
    shifted = arith.addf(p, biased_shifter)
    r = arith.subf(p, arith.subf(shifted, biased_shifter))
    scale = arith.bitcast(f64, arith.shli(arith.bitcast(i64, shifted), _i64(52)))
    magnitude = arith.truncf(f32, arith.mulf(_multiply_add(r, _horner(f64, r, _POWER_EXP2_Q), _f64(1.0)), scale))
    one = _float(f32, 1.0)
    if positive:
        return arith.select(arith.cmpf(F.OEQ, x, one), one, magnitude)
    # y's parity as float64 power finds it (see there), with float32's 2**23 and 2**24
    ay = _magnitude_and_sign(y, np.dtype(np.float32))[0]
    two23 = _float(f32, 2.0 ** 23)
    small = arith.cmpf(F.OLT, ay, two23)
    rounded = arith.addf(ay, two23)
    integer = arith.ori(arith.cmpf(F.OEQ, arith.subf(rounded, two23), ay), arith.cmpf(F.OGE, ay, two23))
    last_bit = arith.andi(arith.bitcast(i32, arith.select(small, rounded, ay)), _int(i32, 1))
    odd = arith.andi(arith.andi(integer, arith.cmpf(F.OLT, ay, _float(f32, 2.0 ** 24))),
                     arith.cmpi(arith.CmpIPredicate.ne, last_bit, _int(i32, 0)))
    x_sign = arith.andi(arith.bitcast(i32, x), _int(i32, -(1 << 31)))
    flip = arith.select(odd, x_sign, _int(i32, 0))
    result = arith.bitcast(f32, arith.xori(arith.bitcast(i32, magnitude), flip))
    finite_negative = arith.andi(arith.cmpf(F.OLT, x, _float(f32, 0.0)), arith.cmpf(F.OGT, x, _float(f32, -pymath.inf)))
    not_integer = arith.andi(arith.xori(integer, _int(i1, 1)), arith.cmpf(F.OEQ, y, y))
    invalid = arith.mulf(arith.subf(x, x), _float(f32, pymath.inf))       # NaN where x is finite, raising invalid
    result = arith.select(arith.andi(finite_negative, not_integer), invalid, result)
    ax32 = _magnitude_and_sign(x, np.dtype(np.float32))[0]
    unit = arith.ori(arith.ori(arith.cmpf(F.OEQ, y, _float(f32, 0.0)), arith.cmpf(F.OEQ, x, one)),
                     arith.andi(arith.cmpf(F.OEQ, ax32, one), arith.cmpf(F.OEQ, ay, _float(f32, pymath.inf))))
    return arith.select(unit, one, result)


_TWO_THIRDS = (0.6666666666666666, 3.700743415417188e-17)     # 2/3 as a rounded value and its rounding error


def _log_double(x: ir.Value, positive: bool = False):
    """log(x) for float64 x as hi + lo, about 2**-66 relative error for positive finite x (-inf, inf, NaN in hi and
    lo = 0 for the others): x = 2**k (1 + f), log(1 + f) = 2 atanh(s) = 2s + 2s**3/3 + s**5 R(s**2) with
    s = f / (2 + f) in double-double (the division's remainder and 2 + f's rounding error, by a second division),
    2s**3/3 in double-double, the rest in float64 (below 6e-5 of the result); k ln 2 from ln 2 in two parts.
    `positive`: x is known to be a positive normal finite number (no subnormal scaling, no special values)."""
    t = x.type
    k, f = _log_split(x, F64, normal=positive)
    kf = _to_float(t, k)
    two = _f64(2.0)
    d = arith.addf(two, f)
    d_lo = arith.addf(arith.subf(two, d), f)                                  # 2 + f - d, exact (|f| < 2)
    s = arith.divf(f, d)
    s_lo = arith.divf(arith.subf(_fma(arith.negf(s), d, f), arith.mulf(s, d_lo)), d)   # f / (d + d_lo) - s
    z = arith.mulf(s, s)
    z_lo = _fma(arith.mulf(_f64(2.0), s), s_lo, _fma(s, s, arith.negf(z)))   # s**2 - z, to first order in s_lo
    c = arith.mulf(z, s)
    c_lo = arith.addf(_fma(z, s, arith.negf(c)), _fma(z_lo, s, arith.mulf(z, s_lo)))      # s**3 - c
    t3 = arith.mulf(c, _f64(_TWO_THIRDS[0]))
    t3_lo = arith.addf(_fma(c, _f64(_TWO_THIRDS[0]), arith.negf(t3)),
                       _fma(c, _f64(_TWO_THIRDS[1]), arith.mulf(c_lo, _f64(_TWO_THIRDS[0]))))
    rest = arith.mulf(arith.mulf(c, z), _horner(t, z, [2 / k for k in range(5, 30, 2)]))   # s**5 (2/5 + 2z/7 ...)
    two_s = arith.mulf(two, s)
    m_hi = arith.addf(two_s, t3)
    m_lo = arith.addf(arith.addf(arith.subf(two_s, m_hi), t3),
                      arith.addf(arith.addf(arith.mulf(two, s_lo), t3_lo), rest))
    big = arith.mulf(kf, _f64(_LN2_HI))                                         # exact: |k| < 2**20
    hi = arith.addf(big, m_hi)
    lo = arith.addf(arith.addf(arith.subf(big, hi), m_hi), arith.addf(arith.mulf(kf, _f64(_LN2_LO)), m_lo))
    total = arith.addf(hi, lo)
    lo = arith.subf(lo, arith.subf(total, hi))                                  # renormalize: |lo| <= ulp(total)/2
    if positive:
        return total, lo
    inside = arith.andi(arith.cmpf(F.OGT, x, _f64(0.0)), arith.cmpf(F.OLT, x, _f64(pymath.inf)))
    return _log_special(x, total), arith.select(inside, lo, _f64(0.0))
