"""Scalar semantics of each elementwise primitive, as the body of a linalg.generic.

Every function takes the operand dtypes (all equal to the loop dtype chosen by the frontend) and the block's scalar
values, and returns the scalar result. Integer division and remainder follow NumPy: division by zero gives 0 and
INT_MIN // -1 wraps, instead of trapping. Float floor division and remainder use NumPy's npy_divmod algorithm.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, func, math, scf

from ..types import dtypes
from . import complex_scalar

F = arith.CmpFPredicate
I = arith.CmpIPredicate


def mlir_type(dt: np.dtype) -> ir.Type:
    dt = np.dtype(dt)
    if dt.kind == "b":
        return ir.IntegerType.get_signless(1)
    if dt.kind in "iu":
        return ir.IntegerType.get_signless(dt.itemsize * 8)
    if dt.kind == "c":
        return complex_scalar.mlir_type(dt)
    return {2: ir.F16Type, 4: ir.F32Type, 8: ir.F64Type}[dt.itemsize].get()


def storage_type(dt: np.dtype) -> ir.Type:
    """Element type in memory: NumPy stores a bool in a byte, and memrefs of i1 cannot be loaded anyway."""
    return ir.IntegerType.get_signless(8) if np.dtype(dt).kind == "b" else mlir_type(dt)


def load(x: ir.Value, dt: np.dtype) -> ir.Value:
    """A stored element as a scalar of `mlir_type` (bool bytes -> i1, any non-zero byte is True)."""
    if dt.kind != "b":
        return x
    return arith.cmpi(I.ne, x, arith.constant(x.type, ir.IntegerAttr.get(x.type, 0)))


def store(x: ir.Value, dt: np.dtype) -> ir.Value:
    return arith.extui(storage_type(dt), x) if dt.kind == "b" else x


def const(dt: np.dtype, value) -> ir.Value:
    t = mlir_type(dt)
    if dt.kind == "c":
        return complex_scalar.const(dt, value)
    if dt.kind == "f":
        return arith.constant(t, ir.FloatAttr.get(t, float(value)))
    if dt.kind == "b":
        return arith.constant(t, ir.IntegerAttr.get(t, int(bool(value))))
    v = int(value)
    if dt.kind == "u" and v >= 2 ** (dt.itemsize * 8 - 1):  # signless attribute: store the two's complement
        v -= 2 ** (dt.itemsize * 8)
    return arith.constant(t, ir.IntegerAttr.get(t, v))


def const_stored(dt: np.dtype, value) -> ir.Value:
    """A constant of the storage type (bools as i8), e.g. to fill a tensor."""
    return const(np.dtype(np.int8), int(bool(value))) if dt.kind == "b" else const(dt, value)


# ---- conversions ----------------------------------------------------------------------------------------------
def convert(x: ir.Value, src: np.dtype, dst: np.dtype) -> ir.Value:
    if src == dst:
        return x
    if src.kind == "c" or dst.kind == "c":
        return _convert_complex(x, src, dst)
    t = mlir_type(dst)
    if dst.kind == "b":
        zero = const(src, 0)
        return arith.cmpf(F.UNE, x, zero) if src.kind == "f" else arith.cmpi(I.ne, x, zero)
    if src.kind == "f" and dst.kind == "f":
        return arith.extf(t, x) if dst.itemsize > src.itemsize else arith.truncf(t, x)
    if src.kind == "f":
        return _float_to_int(x, dst)
    if dst.kind == "f":
        return arith.sitofp(t, x) if src.kind == "i" else arith.uitofp(t, x)
    sb, db = dtypes.bits(src), dtypes.bits(dst)
    if db > sb:
        return arith.extsi(t, x) if src.kind == "i" else arith.extui(t, x)
    if db < sb:
        return arith.trunci(t, x)
    return x  # same width, other signedness: signless bits are identical


def _convert_complex(x: ir.Value, src: np.dtype, dst: np.dtype) -> ir.Value:
    """To complex: the value as the real part (converted to the part dtype), imaginary 0. From complex: the real
    part, as NumPy's cast does (it drops the imaginary part, with a ComplexWarning); to bool: either part non-zero."""
    if src.kind == "c" and dst.kind == "c":
        return complex_scalar.convert_complex(x, src, dst)
    if dst.kind == "c":
        return complex_scalar.from_real(convert(x, src, dtypes.real_dtype(dst)), None, dst)
    re, im = complex_scalar.parts(x)
    part = dtypes.real_dtype(src)
    if dst.kind == "b":
        return arith.ori(convert(re, part, dst), convert(im, part, dst))
    return convert(re, part, dst)


def _float_to_int(x: ir.Value, dst: np.dtype) -> ir.Value:
    """As NumPy's C casts compile on x86: narrow ints through a 32-bit conversion, uint32 through int64, so
    in-range negative floats wrap (np.float32(-3).astype(np.uint8) == 253) instead of saturating."""
    if dst == np.uint64:  # negative values wrap as through int64; large positive ones need the unsigned range
        t = mlir_type(dst)
        negative = arith.cmpf(F.OLT, x, arith.constant(x.type, ir.FloatAttr.get(x.type, 0.0)))
        return arith.select(negative, arith.fptosi(t, x), arith.fptoui(t, x))
    wide = np.dtype(np.int64) if dst.itemsize == 8 or dst == np.uint32 else np.dtype(np.int32)
    v = arith.fptosi(mlir_type(wide), x)
    return v if wide.itemsize == dst.itemsize else arith.trunci(mlir_type(dst), v)


# ---- helpers --------------------------------------------------------------------------------------------------
def _f32_detour(fn):
    """libm has no half-precision functions: NumPy computes float16 transcendentals in float32 too."""
    def wrapped(dts, *args):
        dt = dts[0]
        if dt.itemsize == 2 and dt.kind == "f":
            f32 = np.dtype(np.float32)
            r = fn([f32] * len(args), *[convert(a, dt, f32) for a in args])
            return convert(r, f32, dt)
        return fn(dts, *args)
    return wrapped


def _libm(name32: str, name64: str):
    """A call of libm's own function, per element: NumPy's loop calls it (`np.hypot`: npy_hypot is libm's hypot), and
    the kernel, linked against the same libm, gives its results bit for bit. float16 goes through float32."""
    def call(dts, *args):
        name = name32 if dts[0].itemsize == 4 else name64
        t = args[0].type
        declare_external(name, [a.type for a in args], t)
        return func.call([t], ir.FlatSymbolRefAttr.get(name), list(args))
    return _f32_detour(call)


def declare_external(name: str, arg_types: list, result_type, c_interface: bool = False) -> None:
    """The external function `name`, declared once at the top of the module being built: a plain C function, or
    with `c_interface` one that takes memref descriptors by pointer (codegen/numpy_call.py)."""
    op = ir.InsertionPoint.current.block.owner.operation
    while op.name != "builtin.module":
        op = op.parent.operation
    body = op.regions[0].blocks[0]
    if any(o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == name
           for o in body.operations):
        return
    with ir.InsertionPoint.at_block_begin(body):
        f = func.FuncOp(name, (arg_types, [result_type]), visibility="private")
        if c_interface:
            f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def _float_unary(op):
    return _f32_detour(lambda dts, x: op(x))


def _by_kind(f=None, i=None, u=None, b=None):
    def emit(dts, *args):
        kind = dts[0].kind
        fn = {"f": f, "i": i, "u": u or i, "b": b}[kind]
        if fn is None:
            raise NotImplementedError(f"no {kind} implementation")
        return fn(dts, *args)
    return emit


def _is_zero(dt, x):
    return arith.cmpi(I.eq, x, const(dt, 0))


def _safe_divisor(dt, a, b):
    """(divisor with 0 -> 1 and (INT_MIN, -1) -> 1, mask of the zero divisors, whose results NumPy defines as 0)."""
    zero = _is_zero(dt, b)
    bad = zero
    if dt.kind == "i":
        minus_one = arith.cmpi(I.eq, b, const(dt, -1))
        is_min = arith.cmpi(I.eq, a, const(dt, np.iinfo(dt).min))
        bad = arith.ori(zero, arith.andi(minus_one, is_min))
    return arith.select(bad, const(dt, 1), b), _zero_raising_divide(dt, b)


def _zero_raising_divide(dt, b):
    """b == 0, computed as 1.0 / float(b) == inf: that division raises the floating-point divide-by-zero flag in the
    lanes where b is 0, and only there, so that the kernel reports NumPy's "divide by zero encountered in
    floor_divide" (backend/fp_status.py). The comparison's result is used, so the division is not dropped."""
    f64 = ir.F64Type.get()
    wide = (arith.sitofp if dt.kind == "i" else arith.uitofp)(f64, b)
    inverse = arith.divf(arith.constant(f64, 1.0), wide)
    return arith.cmpf(F.OEQ, inverse, arith.constant(f64, float("inf")))


def _int_floordiv(dts, a, b):
    dt = dts[0]
    d, zero = _safe_divisor(dt, a, b)
    q = arith.floordivsi(a, d) if dt.kind == "i" else arith.divui(a, d)
    if dt.kind == "i":  # INT_MIN // -1 == INT_MIN (wraps), as NumPy
        overflow = arith.andi(arith.cmpi(I.eq, b, const(dt, -1)), arith.cmpi(I.eq, a, const(dt, np.iinfo(dt).min)))
        q = arith.select(overflow, a, q)
    return arith.select(zero, const(dt, 0), q)


def _int_mod(dts, a, b):
    dt = dts[0]
    d, zero = _safe_divisor(dt, a, b)
    if dt.kind == "u":
        return arith.select(zero, const(dt, 0), arith.remui(a, d))
    r = arith.remsi(a, d)
    # Python/NumPy sign convention: the remainder takes the divisor's sign
    adjust = arith.andi(arith.cmpi(I.ne, r, const(dt, 0)),
                        arith.cmpi(I.ne, arith.cmpi(I.slt, r, const(dt, 0)), arith.cmpi(I.slt, d, const(dt, 0))))
    r = arith.select(adjust, arith.addi(r, d), r)
    return arith.select(zero, const(dt, 0), r)


def _int_fmod(dts, a, b):
    """C's remainder (the dividend's sign), as NumPy's integer fmod: 0 for a zero divisor (with the divide-by-zero
    warning) and for INT_MIN fmod -1."""
    dt = dts[0]
    d, zero = _safe_divisor(dt, a, b)
    r = arith.remsi(a, d) if dt.kind == "i" else arith.remui(a, d)
    return arith.select(zero, const(dt, 0), r)


def _spacing(dts, x):
    """NumPy's npy_spacing: the step to the next float away from zero (from +0.0 for both zeros), by libm's
    nextafter as NumPy's (its overflow at the largest float included); nan for infinities, quietly."""
    dt = dts[0]
    inf = const(dt, float("inf"))
    toward = arith.select(arith.cmpf(F.OLT, x, const(dt, 0.0)), const(dt, float("-inf")), inf)
    step = arith.subf(_libm("nextafterf", "nextafter")(dts, x, toward), x)
    infinite = arith.cmpf(F.OEQ, math.absf(x), inf)
    return arith.select(infinite, const(dt, float("nan")), step)


def _ldexp(dts, x, n):
    """NumPy's loops: libm's ldexp(x, int), bit for bit (its overflow and underflow flags too); an int64 exponent
    outside a C int is clamped to INT_MAX / INT_MIN as NumPy's int64 loop does (the same inf or zero); float16 through
    float32, where ldexp is exact, then rounded once to float16 as NumPy's half loop does."""
    dt, et = dts
    i32 = ir.IntegerType.get_signless(32)
    if et.itemsize == 8:
        n = arith.maxsi(arith.minsi(n, const(et, 2 ** 31 - 1)), const(et, -2 ** 31))
        n = arith.trunci(i32, n)
    f32 = np.dtype(np.float32)
    wide = convert(x, dt, f32) if dt.itemsize == 2 else x
    name = "ldexp" if dt.itemsize == 8 else "ldexpf"
    declare_external(name, [wide.type, i32], wide.type)
    r = func.call([wide.type], ir.FlatSymbolRefAttr.get(name), [wide, n])
    return convert(r, f32, dt) if dt.itemsize == 2 else r


def _frexp(dt: np.dtype, x: ir.Value):
    """libm's frexp (NumPy's loop calls it) from the bits: (mantissa in [0.5, 1) with x's sign, int32 exponent);
    0, -0.0, inf and nan give x + x and 0, as glibc's. A subnormal's fraction bits converted to a float (exactly)
    give its normalized mantissa and exponent, with no scaling that could raise a flag. float16 through float32,
    as NumPy's half loop (the mantissa is exact in float16)."""
    if dt.itemsize == 2:
        f32 = np.dtype(np.float32)
        m, e = _frexp(f32, convert(x, dt, f32))
        return convert(m, f32, dt), e
    bits_n, frac_n, bias = (64, 52, 1023) if dt.itemsize == 8 else (32, 23, 127)
    it = ir.IntegerType.get_signless(bits_n)
    i32 = ir.IntegerType.get_signless(32)

    def c(v):
        return arith.constant(it, v - 2 ** bits_n if v >= 2 ** (bits_n - 1) else v)
    frac_mask, exp_mask, sign_mask = c(2 ** frac_n - 1), c(2 * bias + 1), c(2 ** (bits_n - 1))
    bits = arith.bitcast(it, x)
    field = arith.andi(arith.shrui(bits, c(frac_n)), exp_mask)
    special = arith.ori(arith.cmpi(I.eq, field, exp_mask), arith.cmpf(F.OEQ, x, const(dt, 0.0)))
    subnormal = arith.cmpi(I.eq, field, c(0))
    scaled = arith.bitcast(it, arith.uitofp(x.type, arith.andi(bits, frac_mask)))   # the fraction's value, exact
    scaled_field = arith.andi(arith.shrui(scaled, c(frac_n)), exp_mask)
    exponent = arith.select(subnormal, arith.subi(scaled_field, c(2 * bias + frac_n - 2)),
                            arith.subi(field, c(bias - 1)))
    fraction = arith.andi(arith.select(subnormal, scaled, bits), frac_mask)
    mantissa_bits = arith.ori(arith.ori(fraction, arith.andi(bits, sign_mask)), c((bias - 1) << frac_n))
    mantissa = arith.select(special, arith.addf(x, x), arith.bitcast(x.type, mantissa_bits))
    exponent = arith.select(special, c(0), exponent)
    return mantissa, exponent if bits_n == 32 else arith.trunci(i32, exponent)


def _float_divmod(dt, a, b):
    """NumPy's npy_divmod: returns (floor quotient, remainder)."""
    zero = const(dt, 0.0)
    mod = arith.remf(a, b)
    div = arith.divf(arith.subf(a, mod), b)
    mod_nonzero = arith.cmpf(F.UNE, mod, zero)
    wrong_sign = arith.cmpi(I.ne, arith.cmpf(F.OLT, b, zero), arith.cmpf(F.OLT, mod, zero))
    fix = arith.andi(mod_nonzero, wrong_sign)
    mod = arith.select(fix, arith.addf(mod, b), mod)
    div = arith.select(fix, arith.subf(div, const(dt, 1.0)), div)
    mod = arith.select(mod_nonzero, mod, _signed_zero(dt, b))
    floordiv = math.floor(div)
    floordiv = arith.select(arith.cmpf(F.OGT, arith.subf(div, floordiv), const(dt, 0.5)),
                            arith.addf(floordiv, const(dt, 1.0)), floordiv)
    div_nonzero = arith.cmpf(F.UNE, div, zero)
    floordiv = arith.select(div_nonzero, floordiv, _signed_zero(dt, arith.divf(a, b)))
    b_zero = arith.cmpf(F.OEQ, b, zero)
    floordiv = arith.select(b_zero, arith.divf(a, b), floordiv)
    return floordiv, mod


def _signed_zero(dt: np.dtype, like: ir.Value) -> ir.Value:
    """copysign(0.0, like): the sign bit read through an integer view (math.copysign has no libm lowering)."""
    int_type = ir.IntegerType.get_signless(dt.itemsize * 8)
    negative = arith.cmpi(I.slt, arith.bitcast(int_type, like), arith.constant(int_type, 0))
    return arith.select(negative, const(dt, -0.0), const(dt, 0.0))


def _float_floordiv(dts, a, b):
    return _float_divmod(dts[0], a, b)[0]


def _float_mod(dts, a, b):
    return _float_divmod(dts[0], a, b)[1]


def _float_sign(dts, x):
    dt = dts[0]
    one, zero = const(dt, 1.0), const(dt, 0.0)
    pos = arith.select(arith.cmpf(F.OGT, x, zero), one, zero)
    r = arith.select(arith.cmpf(F.OLT, x, zero), const(dt, -1.0), pos)
    return arith.select(arith.cmpf(F.UNO, x, x), x, r)


def _int_sign(dts, x):
    dt = dts[0]
    zero = const(dt, 0)
    if dt.kind == "u":
        return arith.select(arith.cmpi(I.ne, x, zero), const(dt, 1), zero)
    pos = arith.select(arith.cmpi(I.sgt, x, zero), const(dt, 1), zero)
    return arith.select(arith.cmpi(I.slt, x, zero), const(dt, -1), pos)


def _int_pow(dts, a, b):
    """Exponentiation by squaring, the exponent read as unsigned (negative signed exponents were refused by a
    check flag, as NumPy refuses them): wraps like NumPy's integer power."""
    t = a.type
    op = scf.WhileOp([t, t, t], [arith.constant(t, 1), a, b])
    before = op.regions[0].blocks.append(t, t, t)
    after = op.regions[1].blocks.append(t, t, t)
    with ir.InsertionPoint(before):
        result, base, exp = before.arguments
        scf.ConditionOp(arith.cmpi(I.ne, exp, arith.constant(t, 0)), [result, base, exp])
    with ir.InsertionPoint(after):
        result, base, exp = after.arguments
        odd = arith.cmpi(I.ne, arith.andi(exp, arith.constant(t, 1)), arith.constant(t, 0))
        result = arith.select(odd, arith.muli(result, base), result)
        scf.YieldOp([result, arith.muli(base, base), arith.shrui(exp, arith.constant(t, 1))])
    return op.results[0]


def _magnitude(dt: np.dtype, x):
    """|x| as the bits of an unsigned value (NumPy's gcd and lcm take `a < 0 ? -a : a` into the unsigned type: the
    smallest signed value is its own magnitude there)."""
    if dt.kind == "u":
        return x
    return arith.select(arith.cmpi(I.slt, x, const(dt, 0)), arith.subi(const(dt, 0), x), x)


def _unsigned_gcd(a, b):
    """npy_gcdu: Euclid's algorithm on unsigned values."""
    t = a.type
    zero = arith.constant(t, 0)
    op = scf.WhileOp([t, t], [a, b])
    before = op.regions[0].blocks.append(t, t)
    after = op.regions[1].blocks.append(t, t)
    with ir.InsertionPoint(before):
        x, y = before.arguments
        scf.ConditionOp(arith.cmpi(I.ne, x, zero), [x, y])
    with ir.InsertionPoint(after):
        x, y = after.arguments
        scf.YieldOp([arith.remui(y, x), x])
    return op.results[1]


def _gcd(dts, a, b):
    return _unsigned_gcd(_magnitude(dts[0], a), _magnitude(dts[1], b))


def _lcm(dts, a, b):
    """npy_lcmu of the magnitudes: a / gcd * b, wrapping in the loop's type as NumPy's does; 0 where gcd is 0."""
    a, b = _magnitude(dts[0], a), _magnitude(dts[1], b)
    g = _unsigned_gcd(a, b)
    zero = arith.constant(a.type, 0)
    none = arith.cmpi(I.eq, g, zero)
    quotient = arith.divui(a, arith.select(none, arith.constant(a.type, 1), g))
    return arith.select(none, zero, arith.muli(quotient, b))


def _float_pow(dts, a, b):
    return math.powf(a, b)


def _reciprocal(dts, x):
    dt = dts[0]
    if dt.kind == "f":
        return arith.divf(const(dt, 1.0), x)
    q = _int_floordiv(dts, const(dt, 1), x) if dt.kind == "u" else _int_trunc_div(dts, const(dt, 1), x)
    if dt.kind == "i" and dt.itemsize >= 4:
        # NumPy's integer loop is (type)(1.0 / x): 1 / 0 is inf, which x86 converts to the "integer indefinite",
        # INT_MIN of int32 / int64 (int8, int16 and the unsigned types keep its low bits: 0, as the division gives)
        q = arith.select(_is_zero(dt, x), const(dt, np.iinfo(dt).min), q)
    return q


def _int_trunc_div(dts, a, b):
    dt = dts[0]
    d, zero = _safe_divisor(dt, a, b)
    return arith.select(zero, const(dt, 0), arith.divsi(a, d))


def _cmp(fpred, spred, upred):
    def emit(dts, a, b):
        if dts[0] != dts[1]:  # NumPy's mixed int64/uint64 loops compare exact values: widen both to i128
            # (to i64 where it holds both, as uint8 against a Python int's int64: i128 does not vectorize)
            bits = 64 if np.dtype(np.uint64) not in dts else 128
            wide = ir.IntegerType.get_signless(bits)

            def widen(x, dt):
                if dt.itemsize * 8 == bits:
                    return x
                return (arith.extui if dt.kind in "ub" else arith.extsi)(wide, x)
            a, b = [widen(x, dt) for x, dt in zip((a, b), dts)]
            return arith.cmpi(spred, a, b)
        kind = dts[0].kind
        if kind == "f":
            return arith.cmpf(fpred, a, b)
        return arith.cmpi(spred if kind == "i" else upred, a, b)
    return emit


def _minmax(fop, sop, uop, bop):
    return _by_kind(f=lambda d, a, b: fop(a, b), i=lambda d, a, b: sop(a, b), u=lambda d, a, b: uop(a, b),
                    b=lambda d, a, b: bop(a, b))


def _fminmax(pick):
    """np.fmax / np.fmin: NaN is ignored unless both are NaN."""
    def emit(dts, a, b):
        if dts[0].kind != "f":
            return BINARY["max" if pick == "max" else "min"](dts, a, b)
        r = (arith.maxnumf if pick == "max" else arith.minnumf)(a, b)
        return r
    return emit


def _isnan(dts, x):
    return arith.cmpf(F.UNO, x, x) if dts[0].kind == "f" else const(np.dtype(bool), False)


def _isinf(dts, x):
    if dts[0].kind != "f":
        return const(np.dtype(bool), False)
    return arith.cmpf(F.OEQ, math.absf(x), const(dts[0], float("inf")))


def _isfinite(dts, x):
    if dts[0].kind != "f":
        return const(np.dtype(bool), True)
    return arith.cmpf(F.ONE, math.absf(x), const(dts[0], float("inf")))


def _int_abs(dts, x):
    if dts[0].kind in "ub":
        return x
    zero = const(dts[0], 0)
    return arith.select(arith.cmpi(I.slt, x, zero), arith.subi(zero, x), x)   # INT_MIN stays INT_MIN, as NumPy


def _neg(dts, x):
    dt = dts[0]
    return arith.negf(x) if dt.kind == "f" else arith.subi(const(dt, 0), x)


def _shift(left):
    def emit(dts, a, b):
        dt = dts[0]
        width = const(dt, dt.itemsize * 8)
        too_far = arith.cmpi(I.uge, b, width)
        if left:
            return arith.select(too_far, const(dt, 0), arith.shli(a, b))
        if dt.kind == "u":
            return arith.select(too_far, const(dt, 0), arith.shrui(a, b))
        fill = arith.select(arith.cmpi(I.slt, a, const(dt, 0)), const(dt, -1), const(dt, 0))
        return arith.select(too_far, fill, arith.shrsi(a, b))
    return emit


def _clip(dts, x, lo, hi):
    return BINARY["min"](dts, BINARY["max"](dts, x, lo), hi)


def _square(dts, x):
    return BINARY["mul"](dts, x, x)


def _rint(dts, x):
    return math.roundeven(x)


def _sign_bits(dt: np.dtype):
    """The integer type of a float's bits and its sign bit's mask."""
    int_type = ir.IntegerType.get_signless(dt.itemsize * 8)
    return int_type, arith.constant(int_type, -(1 << (dt.itemsize * 8 - 1)))


def _signbit(dts, x):
    int_type, _ = _sign_bits(dts[0])     # the bit itself: -0.0 and a negative NaN too, as NumPy's signbit
    return arith.cmpi(I.slt, arith.bitcast(int_type, x), arith.constant(int_type, 0))


def _copysign(dts, a, b):
    int_type, sign = _sign_bits(dts[0])
    magnitude = arith.andi(arith.bitcast(int_type, a), arith.xori(sign, arith.constant(int_type, -1)))
    return arith.bitcast(a.type, arith.ori(magnitude, arith.andi(arith.bitcast(int_type, b), sign)))


def _heaviside(dts, x, h0):
    """npy_heaviside: NPY_NAN (a positive NaN) for a NaN x, h0 at 0 (also -0.0), 0 below, 1 above."""
    dt = dts[0]
    step = arith.select(arith.cmpf(F.OLT, x, const(dt, 0.0)), const(dt, 0.0), const(dt, 1.0))
    step = arith.select(arith.cmpf(F.OEQ, x, const(dt, 0.0)), h0, step)
    return arith.select(arith.cmpf(F.UNO, x, x), const(dt, np.nan), step)


def _logaddexp(base2: bool):
    """npy_logaddexp(2): x + log(2) (x + 1) where x == y (equal infinities without an invalid event), NaN where
    either is, else the larger plus log1p(exp(-|x - y|)) (base 2: log2(1 + 2**-|x - y|))."""
    def emit(dts, x, y):
        dt = dts[0]
        equal = arith.cmpf(F.OEQ, x, y)
        zero = const(dt, 0.0)
        diff = arith.subf(arith.select(equal, zero, x), arith.select(equal, zero, y))
        larger = arith.select(arith.cmpf(F.OGT, diff, zero), x, y)
        if base2:
            tail = arith.mulf(math.log1p(math.exp2(arith.negf(math.absf(diff)))), const(dt, 1.4426950408889634))
            at_equal = arith.addf(x, const(dt, 1.0))
        else:
            tail = math.log1p(math.exp(arith.negf(math.absf(diff))))
            at_equal = arith.addf(x, const(dt, 0.6931471805599453))
        r = arith.select(arith.cmpf(F.UNO, diff, diff), diff, arith.addf(larger, tail))
        return arith.select(equal, at_equal, r)
    return _f32_detour(emit)


def _angle_scale(numerator: float, denominator: float):
    """npy_deg2rad / npy_rad2deg: x times one constant rounded in the loop's dtype (pi as that dtype's NPY_PI)."""
    def emit(dts, x):
        dt = dts[0]
        scale = dt.type(dt.type(numerator) / dt.type(denominator))
        return arith.mulf(x, const(dt, scale))
    return _f32_detour(emit)


UNARY = {
    "neg": _neg, "copy": lambda dts, x: x, "conj": lambda dts, x: x,
    "abs": _by_kind(f=lambda d, x: math.absf(x), i=_int_abs, b=lambda d, x: x),
    "exp": _float_unary(math.exp), "exp2": _float_unary(math.exp2), "log": _float_unary(math.log),
    "log2": _float_unary(math.log2), "log10": _float_unary(math.log10), "log1p": _float_unary(math.log1p),
    "expm1": _float_unary(math.expm1), "sqrt": _float_unary(math.sqrt), "cbrt": _float_unary(math.cbrt),
    "tanh": _float_unary(math.tanh), "sinh": _float_unary(math.sinh), "cosh": _float_unary(math.cosh),
    "sin": _float_unary(math.sin), "cos": _float_unary(math.cos), "tan": _float_unary(math.tan),
    "asin": _float_unary(math.asin), "acos": _float_unary(math.acos), "atan": _float_unary(math.atan),
    "asinh": _float_unary(math.asinh), "acosh": _float_unary(math.acosh), "atanh": _float_unary(math.atanh),
    "floor": _by_kind(f=lambda d, x: math.floor(x), i=lambda d, x: x, b=lambda d, x: x),
    "ceil": _by_kind(f=lambda d, x: math.ceil(x), i=lambda d, x: x, b=lambda d, x: x),
    "trunc": _by_kind(f=lambda d, x: math.trunc(x), i=lambda d, x: x, b=lambda d, x: x),
    "rint": _by_kind(f=_rint, i=lambda d, x: x, b=lambda d, x: x),
    "sign": _by_kind(f=_float_sign, i=_int_sign), "square": _square, "reciprocal": _reciprocal,
    "isnan": _isnan, "isinf": _isinf, "isfinite": _isfinite, "signbit": _by_kind(f=_signbit),
    "spacing": _by_kind(f=_spacing),
    "frexp_mantissa": lambda dts, x: _frexp(dts[0], x)[0], "frexp_exponent": lambda dts, x: _frexp(dts[0], x)[1],
    "deg2rad": _angle_scale(np.pi, 180.0), "rad2deg": _angle_scale(180.0, np.pi),
    "invert": lambda dts, x: arith.xori(x, const(dts[0], -1 if dts[0].kind != "b" else 1)),
    "not": lambda dts, x: arith.xori(x, const(np.dtype(bool), 1)),
}

BINARY = {
    "add": _by_kind(f=lambda d, a, b: arith.addf(a, b), i=lambda d, a, b: arith.addi(a, b),
                    b=lambda d, a, b: arith.ori(a, b)),
    "sub": _by_kind(f=lambda d, a, b: arith.subf(a, b), i=lambda d, a, b: arith.subi(a, b)),
    "mul": _by_kind(f=lambda d, a, b: arith.mulf(a, b), i=lambda d, a, b: arith.muli(a, b),
                    b=lambda d, a, b: arith.andi(a, b)),
    "div": _by_kind(f=lambda d, a, b: arith.divf(a, b)),
    "floordiv": _by_kind(f=_float_floordiv, i=_int_floordiv, b=None),
    "mod": _by_kind(f=_float_mod, i=_int_mod),
    "pow": _by_kind(f=_f32_detour(_float_pow), i=_int_pow),
    "array_pow": _f32_detour(lambda d, a, b: arith.select(arith.cmpf(F.OEQ, b, const(d[0], 0.5)), math.sqrt(a),
                                                          math.powf(a, b))),
    "atan2": _f32_detour(lambda d, a, b: math.atan2(a, b)),
    "hypot": _libm("hypotf", "hypot"), "copysign": _by_kind(f=_copysign), "heaviside": _by_kind(f=_heaviside),
    "logaddexp": _by_kind(f=_logaddexp(False)), "logaddexp2": _by_kind(f=_logaddexp(True)),
    "gcd": _by_kind(i=_gcd), "lcm": _by_kind(i=_lcm),
    "fmod": _by_kind(f=_f32_detour(lambda d, a, b: arith.remf(a, b)), i=_int_fmod, b=_int_fmod),
    "nextafter": _by_kind(f=_libm("nextafterf", "nextafter")), "ldexp": _ldexp,
    "max": _minmax(arith.maximumf, arith.maxsi, arith.maxui, arith.ori),
    "min": _minmax(arith.minimumf, arith.minsi, arith.minui, arith.andi),
    "fmax": _fminmax("max"), "fmin": _fminmax("min"),
    "eq": _cmp(F.OEQ, I.eq, I.eq), "ne": _cmp(F.UNE, I.ne, I.ne), "lt": _cmp(F.OLT, I.slt, I.ult),
    "le": _cmp(F.OLE, I.sle, I.ule), "gt": _cmp(F.OGT, I.sgt, I.ugt), "ge": _cmp(F.OGE, I.sge, I.uge),
    "and": lambda dts, a, b: arith.andi(a, b), "or": lambda dts, a, b: arith.ori(a, b),
    "xor": lambda dts, a, b: arith.xori(a, b), "shl": _shift(True), "shr": _shift(False),
}

TERNARY = {"clip": _clip, "select": lambda dts, c, a, b: arith.select(c, a, b)}


def int_overflows(op: str, args: list) -> ir.Value:
    """Whether int64 `op(*args)` leaves the int64 range, where Python's int would grow (an i1)."""
    i64, i128 = ir.IntegerType.get_signless(64), ir.IntegerType.get_signless(128)
    smallest = arith.constant(i64, -2**63)
    if op in ("add", "sub", "mul"):
        wide = [arith.extsi(i128, a) for a in args]
        exact = {"add": arith.addi, "sub": arith.subi, "mul": arith.muli}[op](*wide)
        return arith.cmpi(I.ne, exact, arith.extsi(i128, arith.trunci(i64, exact)))
    if op in ("neg", "abs"):
        return arith.cmpi(I.eq, args[0], smallest)
    if op == "floordiv":
        return arith.andi(arith.cmpi(I.eq, args[0], smallest), arith.cmpi(I.eq, args[1], arith.constant(i64, -1)))
    if op == "shl":
        a, b = args
        far = arith.cmpi(I.sge, b, arith.constant(i64, 64))
        lost = arith.cmpi(I.ne, arith.shrsi(arith.shli(a, b), b), a)
        return arith.select(far, arith.cmpi(I.ne, a, arith.constant(i64, 0)), lost)
    if op == "pow":    # |a| ** b past 2**63, estimated in float64 a little early rather than late
        f64 = ir.F64Type.get()
        a, b = (arith.sitofp(f64, v) for v in args)
        magnitude = math.powf(math.absf(a), b)
        return arith.cmpf(F.OGE, magnitude, arith.constant(f64, 2.0 ** 63 * (1 - 2.0 ** -40)))
    raise AssertionError(op)


def ipow(dt: np.dtype, x: ir.Value, exponent: int) -> ir.Value:
    """x**k for a small integer k as products (NumPy's own x**2 is x*x; others match pow to rounding)."""
    if exponent == 0:
        return const(dt, 1.0)
    result = x
    for _ in range(abs(exponent) - 1):
        result = arith.mulf(result, x)
    return arith.divf(const(dt, 1.0), result) if exponent < 0 else result


def apply(prim: str, in_dtypes: list, args: list) -> ir.Value:
    if in_dtypes[0].kind == "c":
        return complex_scalar.apply(prim, in_dtypes[0], args)
    table = {1: UNARY, 2: BINARY, 3: TERNARY}[len(args)]
    return table[prim](in_dtypes, *args)
