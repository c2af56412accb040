"""Fits the polynomial coefficients of transpiler/backend/vector_math.py that were added with this script (arctan's,
tan's (float64: a rational function, RATIONAL_TARGETS), arcsin's, float32 power's, float32 tanh's and sinh's,
float64 exp's so far): near-minimax in the relative error of the result, in 80-digit arithmetic, then rounded to the
target type; and the interval table of backend/vector_loops.py's float32 tanh (TANH_TABLE32, by name only), the
polynomials and tables of backend/vector_power.py's float64 power (POWER_LOG1P_P64, POWER_EXP_Q64; POWER_TABLES64
by name only) and float32 power (POWER_LOG2_P32, POWER_EXP2_Q32; POWER_TABLE32 by name only).

    uv run --with mpmath python tools/fit_polynomials.py [NAME ...]

Lawson's algorithm: weighted least squares on Chebyshev nodes, each weight multiplied by its point's error every
round, which drives the fit toward the minimax (equioscillating) polynomial. It prints each fit's coefficients, as
the module spells them, and the worst error of the rounded coefficients over a fine grid, as a relative error of the function's result.
"""
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 80


def _atan_p(z):
    """P with atan(t) = t + t**3 P(t**2): (atan(sqrt z) / sqrt z - 1) / z, its series -1/3 + z/5 - ... near 0."""
    if z < mp.mpf("1e-30"):
        return -mp.mpf(1) / 3 + z / 5
    s = mp.sqrt(z)
    return (mp.atan(s) / s - 1) / z


def _atan_weight(z):
    """How an error in P moves atan's result, relatively: t**3 / atan(t) (P's own relative error near 0 matters
    little: t dominates there)."""
    s = mp.sqrt(z)
    return z * s / mp.atan(s) if z > 0 else mp.mpf("1e-30")


def _tan_p(z):
    """P with tan(r) = r + r**3 P(r**2)."""
    if z < mp.mpf("1e-30"):
        return mp.mpf(1) / 3 + 2 * z / 15
    s = mp.sqrt(z)
    return (mp.tan(s) / s - 1) / z


def _tan_weight(z):
    s = mp.sqrt(z)
    return z * s / mp.tan(s) if z > 0 else mp.mpf("1e-30")


def _asin_p(z):
    """P with asin(s) = s + s**3 P(s**2)."""
    if z < mp.mpf("1e-30"):
        return mp.mpf(1) / 6 + 3 * z / 40
    s = mp.sqrt(z)
    return (mp.asin(s) / s - 1) / z


def _asin_weight(z):
    s = mp.sqrt(z)
    return z * s / mp.asin(s) if z > 0 else mp.mpf("1e-30")


def _tanh_p(z):
    """P with tanh(a) = a + a**3 P(a**2) (float32 tanh below 0.6)."""
    if z < mp.mpf("1e-30"):
        return -mp.mpf(1) / 3 + 2 * z / 15
    s = mp.sqrt(z)
    return (mp.tanh(s) / s - 1) / z


def _tanh_weight(z):
    s = mp.sqrt(z)
    return z * s / mp.tanh(s) if z > 0 else mp.mpf("1e-30")


_TAN_END = (mp.pi / 4 * mp.mpf("1.0005")) ** 2      # |r| <= pi/4, and a little beyond: the rounded quotient


def _exp_q(r):
    """Q with exp(r) = 1 + r + r**2 Q(r)."""
    if abs(r) < mp.mpf("1e-30"):
        return mp.mpf(1) / 2 + r / 6
    return (mp.exp(r) - 1 - r) / r ** 2


def _exp_weight(r):
    """How an error in Q moves exp's result, relatively: r**2 / exp(r)."""
    return r ** 2 / mp.exp(r)


def _log2_r(z):
    """R with log2(1 + f) = s R(s**2), s = f / (2 + f) (float32 power's log, in float64 arithmetic): 2 atanh(s) / ln 2
    over s."""
    if z < mp.mpf("1e-30"):
        return 2 / mp.log(2) * (1 + z / 3)
    s = mp.sqrt(z)
    return 2 / mp.log(2) * mp.atanh(s) / s


def _exp2_q(r):
    """Q with 2**r = 1 + r Q(r) (float32 power's exp2, in float64 arithmetic)."""
    if abs(r) < mp.mpf("1e-30"):
        return mp.log(2) + r * mp.log(2) ** 2 / 2
    return (mp.power(2, r) - 1) / r


def _exp2_weight(r):
    """How an error in Q moves 2**r, relatively: r / 2**r."""
    return abs(r) / mp.power(2, r) if r != 0 else mp.mpf("1e-30")


def _log1p_p(r):
    """P with log1p(r) = r - r**2/2 + r**3 P(r) (float64 power's log after its table, backend/vector_power.py)."""
    if abs(r) < mp.mpf("1e-30"):
        return mp.mpf(1) / 3 - r / 4
    return (mp.log1p(r) - r + r * r / 2) / r ** 3


def _log2p_p(r):
    """P with log2(1 + r) = r P(r) (float32 power's table log2, backend/vector_power.py power_f32)."""
    if abs(r) < mp.mpf("1e-30"):
        return 1 / mp.log(2) - r / (2 * mp.log(2))
    return mp.log1p(r) / mp.log(2) / r


# float32 power's table log2: r in [-1/32, 1/16] (the first interval, whose invc is 1, reaches 1/16); its exp2:
# |r| <= 1/32
_POWER_R32 = (-0.03125, 0.0625)


# float64 power's table log: |r| <= 2**-5 (the interval around 1), 0.0295 elsewhere; its exp: |r| <= ln(2) / 32
_POWER_R = (-0.0295, 0.03125)
_POWER_EXP_END = 0.0217


# float32 power's log: 1 + f in [sqrt(1/2), sqrt(2)), so |s| <= 3 - 2 sqrt(2)
_LOG_S2_END = (3 - 2 * mp.sqrt(2)) ** 2


# float32 exp's reduced argument: |r| <= ln(2)/2, and a little beyond (n is x log2(e) rounded in float32)
_EXP_END = 0.3466


# name: (function of z, interval, degree, dtype, weight: the result's relative error per unit error of the fit)
TARGETS = {
    "ATAN_P64": (_atan_p, (0, 1), 19, np.float64, _atan_weight),
    "ATAN_P32": (_atan_p, (0, 1), 8, np.float32, _atan_weight),
    "TAN_P32": (_tan_p, (0, _TAN_END), 6, np.float32, _tan_weight),
    "ASIN_P64": (_asin_p, (0, 0.25), 12, np.float64, _asin_weight),
    "ASIN_P32": (_asin_p, (0, 0.25), 5, np.float32, _asin_weight),
    "TANH_P32": (_tanh_p, (0, 0.36), 4, np.float32, _tanh_weight),
    "EXP_Q32": (_exp_q, (-_EXP_END, _EXP_END), 4, np.float32, _exp_weight),
    "EXP_Q64": (_exp_q, (-_EXP_END, _EXP_END), 9, np.float64, _exp_weight),
    "POWER_LOG2_R": (_log2_r, (0, _LOG_S2_END), 4, np.float64, lambda z: mp.mpf(1)),
    "POWER_EXP2_Q": (_exp2_q, (-0.5, 0.5), 5, np.float64, _exp2_weight),
    "POWER_LOG1P_P64": (_log1p_p, _POWER_R, 8, np.float64, lambda r: r * r),
    "POWER_EXP_Q64": (_exp_q, (-_POWER_EXP_END, _POWER_EXP_END), 5, np.float64, _exp_weight),
    "POWER_LOG2_P32": (_log2p_p, _POWER_R32, 6, np.float64, lambda r: mp.mpf(1)),
    "POWER_EXP2_Q32": (_exp2_q, (-1 / 32, 1 / 32), 2, np.float64, _exp2_weight),
}


def power_table32():
    """backend/vector_power.py's LOG2_TABLE32: per interval [1 + i/16, 1 + (i + 1)/16) of z, invc = 1 over its
    middle rounded to float32 (1 for the first interval, 1/2 for the last) and log2(1/invc) rounded to float64."""
    print("LOG2_TABLE32 = (")
    for i in range(16):
        lo, hi = 1 + mp.mpf(i) / 16, 1 + mp.mpf(i + 1) / 16
        invc = 1.0 if i == 0 else 0.5 if i == 15 else float(np.float32(float(2 / (lo + hi))))
        print(f"    ({invc!r}, {float(-mp.log(mp.mpf(invc), 2))!r}),    # r in [{float(lo * invc - 1):.5f}, "
              f"{float(hi * invc - 1):.5f})")
    print(")")


def power_tables64():
    """backend/vector_power.py's LOG_TABLE (per interval of z, OFF plus multiples of 2**48 in bits: invc = 2 over
    the interval's ends' sum, 1 for the interval around 1; log(1/invc) rounded to a multiple of 2**-42, and the rest)
    and EXP_TABLE (bits of 2**(j/16) rounded, less j << 48; the rounding's relative error)."""
    off = 0x3FE6800000000000
    print("LOG_TABLE = (")
    for j in range(16):
        lo, hi = (float(np.array(off + i * 2 ** 48, dtype=np.int64).view(np.float64)) for i in (j, j + 1))
        invc = 1.0 if lo <= 1.0 < hi else float(2 / (mp.mpf(lo) + mp.mpf(hi)))
        logc = -mp.log(mp.mpf(invc))
        logc_hi = float(mp.nint(logc * 2 ** 42) / 2 ** 42)
        print(f"    ({invc!r}, {logc_hi!r}, {float(logc - mp.mpf(logc_hi))!r}),")
    print(")")
    print("EXP_TABLE = (")
    for j in range(16):
        exact = mp.power(2, mp.mpf(j) / 16)
        rounded = float(exact)
        bits = int(np.array(rounded).view(np.int64)) - (j << 48)
        print(f"    ({hex(bits)}, {float((exact - mp.mpf(rounded)) / mp.mpf(rounded))!r}),")
    print(")")


def fit(f, interval, degree, weight, points=400, rounds=40):
    lo, hi = (mp.mpf(v) for v in interval)
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / points) for k in range(points)]
    xs += [lo, hi]
    ys = [f(x) for x in xs]
    scale = [weight(x) for x in xs]
    weights = [mp.mpf(1)] * len(xs)
    coefficients = None
    for _ in range(rounds):
        # minimize sum w ((p(x) - y) scale)**2: normal equations
        rows = [[x ** j * g for j in range(degree + 1)] for x, g in zip(xs, scale)]
        a = mp.matrix(degree + 1, degree + 1)
        b = mp.matrix(degree + 1, 1)
        for row, w, y, g in zip(rows, weights, ys, scale):
            for i in range(degree + 1):
                b[i] += w * row[i] * y * g
                for j in range(i, degree + 1):
                    a[i, j] += w * row[i] * row[j]
        for i in range(degree + 1):
            for j in range(i):
                a[i, j] = a[j, i]
        coefficients = mp.lu_solve(a, b)
        errors = [abs(mp.polyval(list(reversed(coefficients)), x) - y) * g for x, y, g in zip(xs, ys, scale)]
        total = sum(w * e for w, e in zip(weights, errors))
        weights = [w * e / total for w, e in zip(weights, errors)]
    return [coefficients[i] for i in range(degree + 1)]


def worst(f, interval, coefficients, weight, samples=3000):
    lo, hi = (mp.mpf(v) for v in interval)
    exact = [mp.mpf(float(c)) for c in coefficients]
    grid = [lo + (hi - lo) * k / samples for k in range(samples + 1)]
    return max(abs(mp.polyval(list(reversed(exact)), x) - f(x)) * weight(x) for x in grid)


def fit_rational(f, interval, degrees, weight, points=300, rounds=30):
    """P and Q with f(z) ~ P(z) / (1 + z Q(z)) (degrees: the counts of P's and Q's coefficients), near-minimax in
    the weighted error: Sanathanan-Koerner's iteration (the linear problem P - f z Q = f, divided by the previous
    denominator) with Lawson's weights."""
    m, k = degrees
    lo, hi = (mp.mpf(v) for v in interval)
    zs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (i + mp.mpf(1) / 2) / points) for i in range(points)]
    zs += [lo, hi]
    fs, scale = [f(z) for z in zs], [weight(z) for z in zs]
    weights, previous = [mp.mpf(1)] * len(zs), [mp.mpf(1)] * len(zs)
    for _ in range(rounds):
        a, b = mp.matrix(m + k, m + k), mp.matrix(m + k, 1)
        for z, fz, g, w, d in zip(zs, fs, scale, weights, previous):
            row = [z ** j for j in range(m)] + [-fz * z ** (j + 1) for j in range(k)]
            factor = w * (g / d) ** 2
            for i in range(m + k):
                b[i] += factor * row[i] * fz
                for j in range(m + k):
                    a[i, j] += factor * row[i] * row[j]
        c = mp.lu_solve(a, b)
        p, q = [c[i] for i in range(m)], [c[m + i] for i in range(k)]
        previous = [1 + z * mp.polyval(list(reversed(q)), z) for z in zs]
        errors = [abs(mp.polyval(list(reversed(p)), z) / d - fz) * g for z, fz, g, d in zip(zs, fs, scale, previous)]
        total = sum(w * e for w, e in zip(weights, errors))
        weights = [w * e / total for w, e in zip(weights, errors)]
    return p, q


def worst_rational(f, interval, p, q, weight, samples=3000):
    lo, hi = (mp.mpf(v) for v in interval)
    p, q = [mp.mpf(float(c)) for c in p], [mp.mpf(float(c)) for c in q]
    grid = [lo + (hi - lo) * k / samples for k in range(samples + 1)]
    return max(abs(mp.polyval(list(reversed(p)), z) / (1 + z * mp.polyval(list(reversed(q)), z)) - f(z)) * weight(z)
               for z in grid)


# name: (function of z, interval, (P's and Q's numbers of coefficients), dtype, weight), fitted as P / (1 + z Q)
RATIONAL_TARGETS = {
    "TAN_R64": (_tan_p, (0, _TAN_END), (4, 3), np.float64, _tan_weight),
}


def tanh_table32(degree=6):
    """backend/vector_loops.py's TANH_TABLE32: per interval of |x| (see there) a float32 mid whose tanh is nearest
    a float32 (Gal's accurate tables: searched among the float32s near the interval's middle and the atanh of the
    float32s near its tanh), c0 = tanh(mid) rounded, and c1 ... c6 of tanh(mid + t) fitted in turn by least
    squares weighted by 1 / tanh, each rounded to float32 before the next is fitted. [0, 2**-4): tanh's series."""
    with mp.workdps(40):
        edges = [(0.0, 2.0 ** -4)] + [(2.0 ** e * (1 + j / 4), 2.0 ** e * (1 + (j + 1) / 4))
                                      for e in range(-4, 3) for j in range(4)] + [(8.0, 10.0)]
        rows, worst_error = [], 0.0
        for lo, hi in edges:
            if lo == 0:
                mid, c = 0.0, [0.0, 1.0, 0.0, -1 / 3, 0.0, 2 / 15, 0.0][:degree + 1]
            else:
                def distance(m):
                    v = mp.tanh(mp.mpf(float(m)))
                    return abs(float((v - mp.mpf(float(np.float32(float(v))))) / v))
                center = np.float32((lo + hi) / 2)
                candidates = [center]
                up = down = center
                for _ in range(3000):
                    up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(0))
                    candidates += [up, down]
                v = np.float32(float(mp.tanh((lo + hi) / 2)))
                for _ in range(64):
                    if v < 1 and lo <= np.float32(float(mp.atanh(mp.mpf(float(v))))) < hi:
                        candidates.append(np.float32(float(mp.atanh(mp.mpf(float(v))))))
                    v = np.nextafter(v, np.float32(0))
                mid = float(min(candidates, key=distance))
                c = [float(np.float32(float(mp.tanh(mid))))]
                n = 80
                ts = np.array([(lo + hi) / 2 - mid + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n) for k in range(n)])
                exact = np.array([float(mp.tanh(mp.mpf(mid) + mp.mpf(float(t)))) for t in ts])
                for j in range(1, degree + 1):
                    rest = exact - c[0] - sum(ck * ts ** i for i, ck in enumerate(c) if i >= 1)
                    columns = np.vander(ts, degree + 1, increasing=True)[:, j:] / exact[:, None]
                    fitted, *_ = np.linalg.lstsq(columns, rest / exact, rcond=None)
                    c.append(float(np.float32(fitted[0])))
            grid = np.linspace(lo, hi, 600, endpoint=False)[1:]
            error = max(abs(sum(ck * (a - mid) ** k for k, ck in enumerate(c)) - float(mp.tanh(a))) / float(mp.tanh(a))
                        for a in grid)
            worst_error = max(worst_error, error)
            rows.append([float(np.float32(v)) for v in [mid] + c])
    print("TANH_TABLE32 = (")
    for row in rows:
        print(f"    ({', '.join(repr(v) for v in row[:4])},")
        print(f"     {', '.join(repr(v) for v in row[4:])}),")
    print(")")
    print(f"    # relative error 2**{np.log2(worst_error):.1f}")


def main(names):
    if "POWER_TABLE32" in names:
        power_table32()
        names = [n for n in names if n != "POWER_TABLE32"]
        if not names:
            return
    if "POWER_TABLES64" in names:
        power_tables64()
        names = [n for n in names if n != "POWER_TABLES64"]
        if not names:
            return
    if "TANH_TABLE32" in names:
        tanh_table32()
        names = [n for n in names if n != "TANH_TABLE32"]
        if not names:
            return
    for name in [n for n in names or RATIONAL_TARGETS if n in RATIONAL_TARGETS]:
        f, interval, degrees, dtype, weight = RATIONAL_TARGETS[name]
        p, q = fit_rational(f, interval, degrees, weight)
        p, q = [dtype(float(c)) for c in p], [dtype(float(c)) for c in q]
        print(f"{name}: P = ({', '.join(repr(float(c)) for c in p)})")
        print(f"    Q = ({', '.join(repr(float(c)) for c in q)})")
        print(f"    # relative error 2**{float(mp.log(worst_rational(f, interval, p, q, weight), 2)):.1f}")
    for name in [n for n in names or TARGETS if n not in RATIONAL_TARGETS]:
        f, interval, degree, dtype, weight = TARGETS[name]
        coefficients = [dtype(float(c)) for c in fit(f, interval, degree, weight)]
        error = worst(f, interval, coefficients, weight)
        print(f"{name} = ({', '.join(repr(float(c)) for c in coefficients)})")
        print(f"    # relative error 2**{float(mp.log(error, 2)):.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
