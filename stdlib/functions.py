"""NumPy functions written over the compiler's primitives (slices, concatenate, broadcasting writes, reductions,
gathers, run-time loops), following numpy/_core and numpy/lib's own implementations step by step so that dtypes
(NEP 50), shapes, values and the order of float operations are NumPy's. Compiled, `np.roll(x, 1)` in user code runs
this source; under plain NumPy these functions compute the same as NumPy's."""
import numpy as np

_NOVALUE = np._NoValue


# ---- helpers ---------------------------------------------------------------------------------------------------
def _axis(axis, ndim):
    """An axis in [0, ndim) (NumPy's normalize_axis_index, with its AxisError)."""
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if axis < 0 else axis


def _at(axis, index):
    """The index tuple that picks `index` along `axis` and everything along the axes before it."""
    return (slice(None),) * axis + (index,)


_INT_TYPES = (int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def known_while_compiling(value):
    """Compiled, whether `value` is known while compiling rather than only when the kernel runs (a dim, an int
    argument, an element of an array are not); under plain NumPy every value is (True)."""
    return True


def _known(n):
    """Whether an int is known while compiling (a run-time int, such as a dim or an int argument, is not)."""
    return type(n) in _INT_TYPES and known_while_compiling(n)


def _flat_or_axis(a, axis):
    """(a, axis) as the accumulating functions read them: axis None means the flattened array's only axis."""
    if axis is None:
        return a.ravel(), 0
    return a, _axis(axis, a.ndim)


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _accumulation_dtype(dtype):
    """The dtype np.add.accumulate / np.multiply.accumulate (and np.sum) compute in: small ints widen to the
    platform's int, bools count as ints."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b" or dtype.kind == "i" and dtype.itemsize < 8:
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    return dtype


# ---- data movement ---------------------------------------------------------------------------------------------
def _mod(shift, m):
    """shift % m as NumPy's roll takes it, of Python ints. A Python int past int64 with a size m known only at run
    time (which cannot meet it in int64: OverflowError) is reduced by Horner's rule over its bits, in uint64: the
    remainder stays below m < 2**63, so 2 * r + 1 fits."""
    if type(shift) is not int or not known_while_compiling(shift) or -2**63 <= shift < 2**63 or _known(m):
        return shift % m
    mu = np.uint64(m)
    r = np.uint64(0)
    for bit in bin(abs(shift))[2:]:
        r = (r * np.uint64(2) + np.uint64(int(bit))) % mu
    r = np.int64(r)
    return (m - r) % m if shift < 0 else r


def _roll_axes(a, shifts, axes):
    """Each element moved forward by its axis's total shift (wrapping): result[i] = a[(i - shift) % n], a gather
    (NumPy copies two slices; the values are the same)."""
    result = a
    for ax in range(a.ndim):
        given = [sh for sh, axis in zip(shifts, axes) if axis == ax]
        if not given:
            continue
        n = a.shape[ax]
        m = max(n, 1)
        # NumPy sums the shifts and takes them modulo n as Python ints: each reduced first, so that an int64 shift
        # near its limits never overflows (np.arange(n) + 2**63 wrapped: np.roll(x, -2**63) was wrong)
        total = _mod(given[0], m)
        for sh in given[1:]:
            total = (total + _mod(sh, m)) % m
        result = np.take(result, (np.arange(n) - total) % m, axis=ax)
    if result is a:
        result = a.copy()
    return result


def roll(a, shift, axis=None):
    a = np.asarray(a)
    if axis is None:
        return _roll_axes(a.ravel(), (shift,), (0,)).reshape(a.shape)
    axes = tuple(_axis(ax, a.ndim) for ax in _as_tuple(axis))
    shifts = _as_tuple(shift)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    elif len(shifts) != len(axes):
        raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
                         f"arg 0 with shape ({len(shifts)},) and arg 1 with shape ({len(axes)},).")
    return _roll_axes(a, shifts, axes)


def _edge_array(value, a, axis):
    """prepend=/append= of np.diff: a scalar becomes a slab one element thick along `axis`."""
    value = np.asarray(value)
    if value.ndim == 0:
        shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
        return np.full(shape, value, dtype=value.dtype)
    return value


def diff(a, n=1, axis=-1, prepend=_NOVALUE, append=_NOVALUE):
    if not _known(n):     # n shapes the result: an int argument specializes by value (a loop of n would not type)
        raise TypeError("np.diff(n=) must be an int known when compiling")
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = np.asarray(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _axis(axis, a.ndim)
    combined = [a]
    if prepend is not _NOVALUE:
        combined = [_edge_array(prepend, a, axis)] + combined
    if append is not _NOVALUE:
        combined = combined + [_edge_array(append, a, axis)]
    if len(combined) > 1:
        a = np.concatenate(combined, axis)
    for _ in range(n):
        upper, lower = a[_at(axis, slice(1, None))], a[_at(axis, slice(None, -1))]
        a = np.not_equal(upper, lower) if a.dtype == np.bool_ else np.subtract(upper, lower)
    return a


def _accumulate(a, axis, dtype, out, multiply):
    if out is not None:
        raise TypeError("out= is not supported here")
    a, axis = _flat_or_axis(np.asarray(a), axis)
    result = a.astype(_accumulation_dtype(a.dtype) if dtype is None else dtype)
    for i in range(1, result.shape[axis]):           # sequential, as NumPy accumulates: acc = acc op x[i]
        if multiply:
            result[_at(axis, i)] = result[_at(axis, i - 1)] * result[_at(axis, i)]
        else:
            result[_at(axis, i)] = result[_at(axis, i - 1)] + result[_at(axis, i)]
    return result


def cumsum(a, axis=None, dtype=None, out=None):
    return _accumulate(a, axis, dtype, out, False)


def cumprod(a, axis=None, dtype=None, out=None):
    return _accumulate(a, axis, dtype, out, True)


def _interleave(x, counts, before):
    """x with every axis i repeated counts[i] times: as a whole block (tile: the new axis `before` the old one)
    or element by element (repeat: after it). One broadcasting write into a new array, then a reshape."""
    shape, expanded = (), ()
    for i in range(x.ndim):
        n, r = x.shape[i], counts[i]
        # NumPy's size along the axis is n * r: a negative count is an error only where the axis has elements. (A
        # run-time count stays the argument's own size, which np.empty checks: clamped, it would be a size computed
        # in the kernel, which the reshape below cannot match; so a negative one is a ValueError even there.)
        if _known(r) and not -2**63 <= r < 2**63:     # NumPy converts a count to intp
            raise OverflowError("Python int too large to convert to C long")
        if _known(r) and r < 0:
            if n != 0:
                raise ValueError("negative dimensions are not allowed")
            r = 0
        shape = shape + ((r, n) if before else (n, r))
        expanded = expanded + ((None, slice(None)) if before else (slice(None), None))
    result = np.empty(shape, dtype=x.dtype)
    result[...] = x[expanded]
    # the merged sizes as products of the new array's own dims: a run-time count is sized (checked) there first
    merged = tuple(result.shape[2 * i] * result.shape[2 * i + 1] for i in range(x.ndim))
    return result.reshape(merged)


def tile(A, reps):
    reps = _as_tuple(reps)
    A = np.asarray(A)
    if len(reps) < A.ndim:
        reps = (1,) * (A.ndim - len(reps)) + reps
    A = A.reshape((1,) * (len(reps) - A.ndim) + A.shape)
    return _interleave(A, reps, True)


def repeat(a, repeats, axis=None):
    if isinstance(repeats, (list, tuple)) or np.ndim(repeats) != 0:
        raise TypeError("np.repeat in compiled code: repeats must be one int (the same count for every element)")
    a, axis = _flat_or_axis(np.asarray(a), axis)
    return _interleave(a, tuple(repeats if i == axis else 1 for i in range(a.ndim)), False)


def _pairs(values, ndim, name):
    """pad_width / constant_values as one (before, after) pair per axis (NumPy's _as_pairs)."""
    if not isinstance(values, (tuple, list)):
        return ((values, values),) * ndim
    if len(values) == 1 and not isinstance(values[0], (tuple, list)):
        return ((values[0], values[0]),) * ndim
    if len(values) == 2 and not isinstance(values[0], (tuple, list)) and not isinstance(values[1], (tuple, list)):
        return ((values[0], values[1]),) * ndim
    if len(values) == 1:
        values = tuple(values) * ndim
    if len(values) != ndim:
        raise ValueError(f"operands could not be broadcast together with remapped shapes: {name} has {len(values)} "
                         f"pairs for an array of dimension {ndim}")
    pairs = ()
    for v in values:
        v = _as_tuple(v)
        if len(v) == 1:
            v = (v[0], v[0])
        if len(v) != 2:
            raise ValueError(f"{name}: each axis takes one value or a (before, after) pair")
        pairs = pairs + ((v[0], v[1]),)
    return pairs


def _edge(padded, axis, i):
    """padded's element `i` along `axis`, as a slab one element thick. An empty axis has no edge (indexing it is an
    IndexError): it has no width either (the ValueError of np.pad otherwise), and reads a slab of zeros that fills
    nothing; read through a slice, with the zeros after it."""
    spare = np.zeros(padded.shape[:axis] + (1,) + padded.shape[axis + 1:], dtype=padded.dtype)
    return np.expand_dims(np.concatenate([padded[_at(axis, slice(i, i + 1))], spare], axis=axis)[_at(axis, 0)], axis)


def pad(array, pad_width, mode="constant", **kwargs):
    if mode not in ("constant", "edge"):
        known = ("empty", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect", "symmetric", "wrap")
        if mode in known or callable(mode):
            raise TypeError(f"np.pad mode {mode!r} is not supported in compiled code (supported: 'constant', "
                            f"'edge')")
        raise ValueError(f"mode '{mode}' is not supported")
    allowed = ("constant_values",) if mode == "constant" else ()
    for key in kwargs:
        if key not in allowed:
            raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(kwargs) - set(allowed)}")
    a = np.asarray(array)
    widths = _pairs(pad_width, a.ndim, "pad_width")
    for w in widths:
        if _known(w[0]) and _known(w[1]) and (w[0] < 0 or w[1] < 0):
            raise ValueError("index can't contain negative values")
        for v in w:     # a run-time width: a check (np.pad(x, ((k, 0), (0, 0))) with k = -1 returned an empty array)
            if not _known(v) and v < 0:
                raise ValueError("index can't contain negative values")
    if mode == "edge":    # an empty axis has no edge to copy (the copies read uninitialized memory)
        for axis in range(a.ndim):
            if a.shape[axis] == 0 and (widths[axis][0] != 0 or widths[axis][1] != 0):
                raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
    shape = tuple(w[0] + n + w[1] for w, n in zip(widths, a.shape))
    padded = np.empty(shape, dtype=a.dtype)
    padded[tuple(slice(w[0], w[0] + n) for w, n in zip(widths, a.shape))] = a
    values = _pairs(kwargs.get("constant_values", 0), a.ndim, "constant_values") if mode == "constant" else None
    for axis in range(a.ndim):
        before, after = widths[axis]
        end = padded.shape[axis] - after
        if mode == "constant":
            left, right = values[axis]
        elif _known(before) and _known(after):
            if before == 0 and after == 0:      # nothing to copy (an empty axis has no edge to read)
                continue
            # (copies: the edges are read before the writes, as NumPy's views are; an empty axis with a width is
            # the ValueError above)
            left = np.expand_dims(padded[_at(axis, before)], axis).copy()
            right = np.expand_dims(padded[_at(axis, end - 1)], axis).copy()
        else:     # run-time widths, which may be 0 on an empty axis: read safely (slower: a slab and a concatenation)
            left, right = _edge(padded, axis, before), _edge(padded, axis, end - 1)
        padded[_at(axis, slice(None, before))] = left
        padded[_at(axis, slice(end, None))] = right
    return padded


# ---- products ----------------------------------------------------------------------------------------------------
def outer(a, b, out=None):
    if out is not None:
        raise TypeError("np.outer(): out= is not supported in compiled code")
    a = np.asarray(a)
    b = np.asarray(b)
    return np.multiply(a.ravel()[:, None], b.ravel()[None, :])


def ufunc_outer(ufunc):
    """`np.add.outer` and the other binary ufuncs' outer: every pair, a.shape + b.shape."""
    def outer(A, B, **kwargs):
        if kwargs:
            raise TypeError(f"np.{ufunc.__name__}.outer(): keyword arguments are not supported in compiled code")
        A = np.asarray(A)
        B = np.asarray(B)
        return ufunc(A.reshape(A.shape + (1,) * B.ndim), B)
    return outer


_REDUCTIONS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
               np.logical_and: np.all, np.logical_or: np.any}


def _fold(ufunc, a, axis, dtype):
    """acc = ufunc(acc, a[i]) along one axis, from a[0]: NumPy's order for a reduction that is not a sum."""
    n = a.shape[axis]
    if ufunc.identity is None:
        raise_if(n == 0, ValueError, f"zero-size array to reduction operation {ufunc.__name__} which has no identity")
    acc = a[_at(axis, 0)].astype(dtype)
    for i in range(1, n):
        acc = ufunc(acc, a[_at(axis, i)]).astype(dtype)
    return acc


def _probe(a):
    """A small array of a's dtype and rank, known at compile time (np.arange folds; np.ones would be run time)."""
    return (np.arange(2 ** a.ndim).reshape((2,) * a.ndim) + 1).astype(a.dtype)


def ufunc_reduce(ufunc):
    """`np.add.reduce` and the other binary ufuncs' reduce (axis 0 by default): the reductions that exist as
    functions (sum, prod, max, min, all, any) are those; the others fold left to right, as NumPy does."""
    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=True):
        if out is not None or initial is not _NOVALUE or where is not True:
            raise TypeError(f"np.{ufunc.__name__}.reduce(): out=, initial= and where= are not supported in compiled "
                            "code")
        if ufunc is np.power or ufunc is np.arctan2:
            raise TypeError(f"np.{ufunc.__name__}.reduce() is not supported: NumPy's own result along a contiguous "
                            "axis is not the left-to-right fold; write the loop")
        a = np.asarray(array)
        # NumPy's dtype rules and errors (a comparison's reduce, a reduction that cannot be reordered over several
        # axes), read off a reduce of a tiny array of the same dtype
        result_dtype = ufunc.reduce(_probe(a), axis=axis, dtype=dtype).dtype
        if ufunc in _REDUCTIONS:
            if ufunc is np.add or ufunc is np.multiply:
                return _REDUCTIONS[ufunc](a, axis=axis, dtype=dtype, keepdims=keepdims)
            return _REDUCTIONS[ufunc](a, axis=axis, keepdims=keepdims).astype(result_dtype, copy=False)
        axes = tuple(range(a.ndim)) if axis is None else tuple(_axis(ax, a.ndim) for ax in _as_tuple(axis))
        result = a
        for ax in sorted(axes, reverse=True):     # several axes: only for reorderable ufuncs (exact in any order)
            result = _fold(ufunc, result, ax, result_dtype)
        if keepdims:
            result = np.expand_dims(result, tuple(sorted(axes)))
        return result
    return reduce


def ufunc_accumulate(ufunc):
    """`np.add.accumulate` and the other binary ufuncs' accumulate (axis 0 by default), sequential as NumPy's:
    out[i] = ufunc(out[i - 1], a[i])."""
    def accumulate(array, axis=0, dtype=None, out=None):
        if out is not None:
            raise TypeError(f"np.{ufunc.__name__}.accumulate(): out= is not supported in compiled code")
        a = np.asarray(array)
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        axis = _axis(axis, a.ndim)
        result = a.astype(ufunc.accumulate(_probe(a), axis=axis, dtype=dtype).dtype)
        for i in range(1, result.shape[axis]):
            result[_at(axis, i)] = ufunc(result[_at(axis, i - 1)], a[_at(axis, i)])
        return result
    return accumulate


def ufunc_at(ufunc):
    """`np.add.at(a, indices, b)` and the other ufuncs' `at`: `a[i] = ufunc(a[i], b[k])` for each index `i` in turn,
    so a repeated index applies again (unlike `a[indices] += b`). NumPy checks every index before it writes any; the
    indices are integers or integer arrays, one per leading axis of `a` (broadcast together), and `b` broadcasts to
    `a[indices]`'s shape. Each step is the ufunc on `a[i]` (a NumPy scalar or a row) and `b`'s element, cast back to
    `a`'s dtype as NumPy's loop casts (unsafe). NumPy makes `b` an array first: a Python scalar is not weak here
    (`np.add.at(int8_array, i, 300)` adds in int64 and wraps)."""
    def at(a, indices, b=_NOVALUE, /):
        if ufunc.nin == 2 and b is _NOVALUE:
            raise ValueError("second operand needed for ufunc")
        if ufunc.nin == 1 and b is not _NOVALUE:
            raise ValueError("second operand provided when ufunc is unary")
        if not isinstance(a, np.ndarray):
            raise TypeError("ufunc.at() in compiled code: the first argument must be an array (written in place)")
        if ufunc.nin == 2:
            b = np.asarray(b)
            ufunc(_probe(a), _probe(b))      # NumPy's error for types the ufunc has no loop for comes first
        else:
            ufunc(_probe(a))
        parts = indices if isinstance(indices, tuple) else (indices,)
        if len(parts) > a.ndim:
            raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {len(parts)} were "
                             "indexed")
        flat = []
        for part in parts:
            if isinstance(part, (slice, type(Ellipsis))) or part is None:
                raise TypeError(f"np.{ufunc.__name__}.at() in compiled code: the indices must be integers or integer "
                                "arrays (one per leading axis); a slice, `...` or None is not supported: index with "
                                "np.arange over that axis")
            part = np.asarray(part)
            if part.dtype == np.bool_ or not np.issubdtype(part.dtype, np.integer):
                raise TypeError(f"np.{ufunc.__name__}.at() in compiled code: the indices must be integers or integer "
                                "arrays; a boolean mask is not supported: use np.nonzero(mask)")
            flat.append(part)
        shape = np.broadcast_shapes(*[part.shape for part in flat])
        flat = [np.broadcast_to(part, shape).reshape(-1) for part in flat]
        for axis, part in enumerate(flat):       # every index checked before any write, as NumPy's
            raise_if((part < -a.shape[axis]) | (part >= a.shape[axis]), IndexError,
                     f"index out of bounds for axis {axis}")
        rows = shape + a.shape[len(flat):]
        count = 1
        for d in shape:
            count = count * d
        if ufunc.nin == 1:
            for k in range(count):
                key = tuple(part[k] for part in flat)
                a[key] = ufunc(a[key]).astype(a.dtype)
            return None
        values = np.broadcast_to(b, rows).reshape((count,) + a.shape[len(flat):])
        for k in range(count):
            key = tuple(part[k] for part in flat)
            a[key] = ufunc(a[key], values[k]).astype(a.dtype)
        return None
    return at


def kron(a, b):
    b = np.asarray(b)
    a = np.asarray(a)
    ndb, nda = b.ndim, a.ndim
    nd = max(ndb, nda)
    if nda == 0 or ndb == 0:
        return np.multiply(a, b)
    as_ = a.shape
    bs = b.shape
    if nda < nd:
        as_ = (1,) * (nd - nda) + as_
    if ndb < nd:
        bs = (1,) * (nd - ndb) + bs
    a_arr = np.expand_dims(a.reshape(as_), axis=tuple(range(1, nd * 2, 2)))
    b_arr = np.expand_dims(b.reshape(bs), axis=tuple(range(0, nd * 2, 2)))
    result = np.multiply(a_arr, b_arr)
    return result.reshape(tuple(x * y for x, y in zip(as_, bs)))


def tensordot(a, b, axes=2):
    if isinstance(axes, (tuple, list)):
        axes_a, axes_b = axes
        axes_a = _as_tuple(axes_a)
        axes_b = _as_tuple(axes_b)
    else:
        axes_a = tuple(range(-axes, 0))
        axes_b = tuple(range(0, axes))
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ValueError("duplicate axes are not allowed in tensordot")
    a, b = np.asarray(a), np.asarray(b)
    nda, ndb = a.ndim, b.ndim
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = tuple(ax + nda if ax < 0 else ax for ax in axes_a)
    axes_b = tuple(ax + ndb if ax < 0 else ax for ax in axes_b)
    for ax, nd in [(ax, nda) for ax in axes_a] + [(ax, ndb) for ax in axes_b]:
        if not 0 <= ax < nd:
            raise IndexError("tuple index out of range")
    for ax_a, ax_b in zip(axes_a, axes_b):
        if a.shape[ax_a] != b.shape[ax_b]:     # (run-time sizes: a check; the product below would not raise)
            raise ValueError("shape-mismatch for sum")
    free_a = tuple(k for k in range(nda) if k not in axes_a)
    free_b = tuple(k for k in range(ndb) if k not in axes_b)
    n2 = 1
    for ax in axes_a:
        n2 = n2 * a.shape[ax]
    m = 1
    for ax in free_a:
        m = m * a.shape[ax]
    k = 1
    for ax in free_b:
        k = k * b.shape[ax]
    at = a.transpose(free_a + axes_a).reshape((m, n2))
    bt = b.transpose(axes_b + free_b).reshape((n2, k))
    res = np.dot(at, bt)
    return res.reshape(tuple(a.shape[ax] for ax in free_a) + tuple(b.shape[ax] for ax in free_b))


# ---- diagonals ---------------------------------------------------------------------------------------------------
def diagonal(a, offset=0, axis1=0, axis2=1):
    a = np.asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    # NumPy takes the offset as a C int (at -2**31 its negation wraps, and the diagonal it returns means nothing)
    if _known(offset) and offset > 2**31 - 1:
        raise OverflowError("signed integer is greater than maximum")
    if _known(offset) and offset < -2**31 + 1:
        raise OverflowError("signed integer is less than minimum" if offset < -2**31 else
                            "an offset of -2**31 is not supported (NumPy's C int negation of it wraps)")
    if not _known(offset):
        raise_if(offset > 2**31 - 1, OverflowError, "signed integer is greater than maximum")
        raise_if(offset < -2**31 + 1, OverflowError, "signed integer is less than minimum (or -2**31, whose "
                                                     "negation in NumPy's C int wraps: not supported)")
    rest = tuple(k for k in range(a.ndim) if k != axis1 and k != axis2)
    x = a.transpose(rest + (axis1, axis2))
    n1, n2 = a.shape[axis1], a.shape[axis2]
    row, col = max(-offset, offset * 0), max(offset, offset * 0)    # (0 of offset's type: a NumPy int or int)
    flat = x.reshape(tuple(a.shape[k] for k in rest) + (n1 * n2,))
    # the rows and columns of the diagonal's elements, by slicing (so the compiler knows their common length)
    rows, cols = np.arange(n1)[row:], np.arange(n2)[col:]
    rows = rows[:cols.shape[0]]
    cols = cols[:rows.shape[0]]
    return np.take(flat, rows * n2 + cols, axis=-1)


def diag(v, k=0):
    v = np.asarray(v)
    if v.ndim == 1:
        # v along the k-th diagonal, zeros elsewhere: v padded to n and read by row (k >= 0) or column (k < 0)
        n = v.shape[0] + abs(k)
        padded = np.concatenate((v, np.zeros(abs(k), dtype=v.dtype)))
        mask, zero = np.eye(n, k=k, dtype=np.bool_), np.zeros((1, 1), dtype=v.dtype)
        if _known(k):
            return np.where(mask, padded[:, None] if k >= 0 else padded[None, :], zero)
        # a run-time k: both readings, chosen by k's sign (one value of shape (n, 1) or (1, n) by a run-time
        # condition would be a shape the compiler cannot join)
        return np.where(k >= 0, np.where(mask, padded[:, None], zero), np.where(mask, padded[None, :], zero))
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise TypeError("np.trace(): out= is not supported in compiled code")
    return np.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


# ---- statistics and rounding ---------------------------------------------------------------------------------------
def ptp(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise TypeError("np.ptp(): out= is not supported in compiled code")
    high, low = np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims)
    if np.asarray(a).dtype == np.bool_:
        # NumPy refuses to subtract bools, but only after np.max, whose empty axis is its ValueError: a raise when
        # the kernel runs (a condition known only then), after np.max's check, as in NumPy
        if np.asarray(a).size >= 0:
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
                            "`^` operator, or the logical_xor function instead.")
        return high     # (never reached)
    return np.subtract(high, low)


def round(a, decimals=0, out=None):
    """NumPy's PyArray_Round: ints are copied for decimals >= 0; floats are rint(a * 10**d) / 10**d (divided first
    for a negative d); ints with a negative d go through float64 and are cast back; complex values have each part
    rounded so, into the parts of a new array."""
    if out is not None:
        raise TypeError("np.round(): out= is not supported in compiled code")
    a = np.asarray(a)
    if a.dtype.kind == "c":
        result = np.empty(a.shape, a.dtype)
        result.real[...] = _round_real(a.real, decimals)
        result.imag[...] = _round_real(a.imag, decimals)
        return result[()] if a.ndim == 0 else result
    return _round_real(a, decimals)


def _power_of_ten(n):
    """NumPy's power_of_ten (multiarray/calculation.c): 1e9 times 10, n - 9 times, each product rounded, which is
    not always 10.0 ** n (1e23 differs in its last bit), and inf past the doubles where Python's pow raises. Here
    10 times 10 ... from 1 (exact up to 1e22, as NumPy's table), also for an n known only at run time (it was
    10.0 ** n there: an OverflowError past 308 where NumPy's is inf, and 1e23 in another last bit)."""
    result, power = 1.0, 0
    while power < n and result <= 1.7976931348623157e308:     # (inf stays inf)
        result, power = result * 10.0, power + 1
    return result


def _round_real(a, decimals):
    integer = a.dtype.kind in "iu"
    if _known(decimals):      # NumPy takes decimals as a C int (at -2**31 its negation wraps)
        if decimals > 2**31 - 1:
            raise OverflowError("signed integer is greater than maximum")
        if decimals < -2**31:
            raise OverflowError("signed integer is less than minimum")
        if decimals == -2**31:
            raise OverflowError("decimals=-2**31 is not supported (NumPy's C int negation of it wraps)")
    else:
        raise_if(decimals > 2**31 - 1, OverflowError, "signed integer is greater than maximum")
        raise_if(decimals < -2**31, OverflowError, "signed integer is less than minimum")
        raise_if(decimals == -2**31, OverflowError, "decimals=-2**31 is not supported (NumPy's C int negation of it "
                                                    "wraps)")
    if decimals >= 0:
        if integer:
            return a.copy()
        if decimals == 0:
            return np.rint(a)
        f = _power_of_ten(decimals)
        if a.dtype == np.bool_:
            raise TypeError("Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('bool') with "
                            "casting rule 'same_kind'")
        return np.true_divide(np.rint(np.multiply(a, f)), f)
    f = _power_of_ten(-decimals)
    if a.dtype == np.bool_:
        raise TypeError("Cannot cast ufunc 'divide' output from dtype('float64') to dtype('bool') with casting "
                        "rule 'same_kind'")
    result = np.multiply(np.rint(np.true_divide(a, f)), f)
    return result.astype(a.dtype) if integer else result


def raise_if(flag, kind, message):
    """Raise kind(message) if any of `flag` is true. Compiled with a run-time flag it is a check the kernel makes
    (raised when the call returns), so library code can validate data it only sees at run time."""
    if np.any(flag):
        raise kind(message)


# ---- axis moves: views, as NumPy's (transposes of the argument) ---------------------------------------------------
def _axis_tuple(axis, ndim, argname):
    """NumPy's normalize_axis_tuple: each axis in [0, ndim), none repeated."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if not all(isinstance(a, _INT_TYPES) and not isinstance(a, bool) for a in axes):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(f"{argname}: axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in `{argname}` argument")
    return tuple(out)


def moveaxis(a, source, destination):
    a = np.asarray(a)
    source, destination = _axis_tuple(source, a.ndim, "source"), _axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


def rollaxis(a, axis, start=0):
    a = np.asarray(a)
    n = a.ndim
    axis = _axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:       # the axis goes before the one that is now at `start`
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


def matrix_transpose(x):
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return np.swapaxes(x, -1, -2)


# ---- append, delete, insert (numpy/lib/_function_base_impl.py) ---------------------------------------------------
def _flat_unless_axis(arr, axis):
    """(arr, axis) as append/delete/insert take them: axis None flattens arr (a 1-d arr as it is)."""
    arr = np.asarray(arr)
    if axis is None:
        return (arr if arr.ndim == 1 else arr.ravel()), 0
    return arr, _axis(axis, arr.ndim)


def _is_single_index(obj):
    return (isinstance(obj, _INT_TYPES) or isinstance(obj, np.ndarray) and obj.ndim == 0 and obj.dtype.kind in "iu"
            or _run_time_int(obj)) and not isinstance(obj, bool)


def _run_time_int(obj):
    """A NumPy int scalar or Python int known only when the kernel runs."""
    return not isinstance(obj, (list, tuple, slice, range)) and np.ndim(obj) == 0 \
        and np.asarray(obj).dtype.kind in "iu" and not _known(obj)


def _check_index(index, n, axis, high):
    """NumPy's IndexError for an index outside [-n, high) along `axis` (the value in the message when it is known
    while compiling)."""
    if _known(index) and _known(n):
        if index < -n or index >= high:
            raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
        return
    raise_if((index < -n) | (index >= high), IndexError, f"index is out of bounds for axis {axis}")


def append(arr, values, axis=None):
    arr = np.asarray(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        values = np.ravel(values)
        axis = arr.ndim - 1
    return np.concatenate((arr, values), axis=axis)


def delete(arr, obj, axis=None):
    arr, axis = _flat_unless_axis(arr, axis)
    n = arr.shape[axis]
    if _is_single_index(obj):
        _check_index(obj, n, axis, n)
        index = obj + n if _known(obj) and obj < 0 else obj if _known(obj) else np.where(obj < 0, obj + n, obj)
        return np.concatenate((arr[_at(axis, slice(None, index))], arr[_at(axis, slice(index + 1, None))]),
                              axis=axis)
    if isinstance(obj, slice):
        keep = np.ones(n, dtype=bool)
        keep[obj] = False
        return arr[_at(axis, keep)]
    indices = np.asarray(obj)
    if indices.dtype == np.bool_:
        if indices.shape != (n,):
            raise ValueError("boolean array argument obj to delete must be one dimensional and match the axis "
                             + (f"length of {n}" if _known(n) else "length"))
        return arr[_at(axis, ~indices)]
    if indices.size == 0 and not isinstance(obj, np.ndarray):
        indices = indices.astype(np.intp)
    if indices.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    keep = np.ones(n, dtype=bool)
    keep[indices] = False
    return arr[_at(axis, keep)]


def insert(arr, obj, values, axis=None):
    arr, axis = _flat_unless_axis(arr, axis)
    n = arr.shape[axis]
    if not _is_single_index(obj):
        raise TypeError("np.insert() at several positions (a slice or a sequence of indices) is not supported in "
                        "compiled code: insert at one index at a time, or build the result with np.concatenate")
    _check_index(obj, n, axis, n + 1)
    index = obj + n if _known(obj) and obj < 0 else obj if _known(obj) else np.where(obj < 0, obj + n, obj)
    # one index: values go in as a[:, index:index + 1, :] = ... would take them (NumPy's own comment)
    values = np.array(values, dtype=arr.dtype)      # (cast as setitem casts: a Python int too large is OverflowError)
    if values.ndim < arr.ndim:                       # NumPy's ndmin=arr.ndim
        values = values.reshape((1,) * (arr.ndim - values.ndim) + values.shape)
    values = np.moveaxis(values, 0, axis)
    block = np.empty(arr.shape[:axis] + (values.shape[axis],) + arr.shape[axis + 1:], dtype=arr.dtype)
    block[...] = values       # (broadcast as NumPy's new[slobj] = values broadcasts)
    return np.concatenate((arr[_at(axis, slice(None, index))], block, arr[_at(axis, slice(index, None))]), axis=axis)


# ---- comparisons and counts ----------------------------------------------------------------------------------------
def _weak(x):
    """Whether x is a Python scalar (NEP 50's weak operand)."""
    return isinstance(x, (int, float, complex)) and not isinstance(x, np.generic)


def _default_dtype(x):
    """The dtype NumPy gives a Python scalar made into an array."""
    for kind, dtype in ((bool, np.bool_), (int, np.int64), (float, np.float64)):
        if isinstance(x, kind):
            return np.dtype(dtype)
    return np.dtype(np.complex128)


def _stand_in(x):
    """A compile-time value with x's dtype and weakness, for np.result_type."""
    if _weak(x):
        return _default_dtype(x).type(0).item()
    return np.asarray(x).dtype


def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    x = a if _weak(a) else np.asarray(a)
    y = b if _weak(b) else np.asarray(b)
    if not _weak(y):
        y = y.astype(np.result_type(_stand_in(y), 1.), copy=False)
    elif isinstance(y, int):
        y = float(y)
    result = np.bitwise_or(np.bitwise_and(np.less_equal(abs(x - y), atol + rtol * abs(y)), np.isfinite(y)),
                           x == y)
    if equal_nan:
        result = result | (np.isnan(x) & np.isnan(y))
    return result[()]


def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    return bool(np.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def count_nonzero(a, axis=None, *, keepdims=False):
    a = np.asarray(a)
    if axis is None and not keepdims:
        return np.sum(a != 0, dtype=np.intp)
    return np.sum(a.astype(np.bool_, copy=False), axis=axis, dtype=np.intp, keepdims=keepdims)


# ---- grids and ranges ----------------------------------------------------------------------------------------------
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    ndim = len(xi)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    if not copy:
        raise TypeError("np.meshgrid(copy=False) is not supported in compiled code (its results are views)")
    xs = [np.asarray(x).ravel() for x in xi]
    sizes = [x.shape[0] for x in xs]
    where = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        where[0], where[1] = 1, 0
    shape = [1] * ndim
    for i in range(ndim):
        shape[where[i]] = sizes[i]
    output = ()
    for i in range(ndim):
        one = [1] * ndim
        one[where[i]] = sizes[i]
        x = xs[i].reshape(tuple(one))
        if sparse:
            output = output + (x.copy(),)
        else:
            full = np.empty(tuple(shape), dtype=x.dtype)
            full[...] = x
            output = output + (full,)
    return output


def _float_dtype(start, stop):
    """linspace's dtype: NumPy's _array_converter(start, stop).result_type(ensure_inexact=True), where Python scalars
    are weak only next to an array or a NumPy scalar."""
    if _weak(start) and _weak(stop):
        return np.result_type(_default_dtype(start), _default_dtype(stop), 0.0)
    return np.result_type(_stand_in(start), _stand_in(stop), 0.0)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    if _known(num) and num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if not _known(num):    # (a run-time num: NumPy's message names its value, which the check cannot)
        raise_if(num < 0, ValueError, "Number of samples, a negative run-time value, must be non-negative.")
    div = (num - 1) if endpoint else num
    dt = _float_dtype(start, stop)
    if _weak(start) and _weak(stop):               # no array among them: Python scalars become arrays
        start = np.asarray(start, dtype=_default_dtype(start))
        stop = np.asarray(stop, dtype=_default_dtype(stop))
    integer_dtype = dtype is not None and np.issubdtype(dtype, np.integer)
    if dtype is None:
        dtype = dt
    delta = np.subtract(stop, start, dtype=dt)
    y = np.arange(0, num, dtype=dt).reshape((-1,) + (1,) * np.ndim(delta))
    step = np.nan
    if div > 0:
        step = delta / div
        any_step_zero = step == 0 if np.ndim(delta) == 0 else np.any(step == 0)
        if any_step_zero:
            y = y / div
            y = y * delta
        else:
            y = y * step
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    if axis != 0:
        axis = _axis(axis, y.ndim)
        y = y.transpose(tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, y.ndim)))   # np.moveaxis
    if integer_dtype:
        y = np.floor(y)
    y = y.astype(dtype, copy=False)
    if retstep:
        return y, step
    return y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    if not isinstance(base, (float, int)) and np.ndim(base):
        ndmax = max(np.ndim(start), np.ndim(stop), np.ndim(base))
        start, stop, base = (np.asarray(x, dtype=_default_dtype(x)) if _weak(x) else np.asarray(x)
                             for x in (start, stop, base))
        start, stop, base = (x.reshape((1,) * (ndmax - x.ndim) + x.shape) for x in (start, stop, base))
        base = np.expand_dims(base, axis=axis)
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    if dtype is None:
        return np.power(base, y)
    return np.power(base, y).astype(dtype, copy=False)


# ---- statistics --------------------------------------------------------------------------------------------------
def average(a, axis=None, weights=None, returned=False, *, keepdims=_NOVALUE):
    a = np.asarray(a)
    if axis is not None:
        axis = tuple(_axis(ax, a.ndim) for ax in _as_tuple(axis))
    keep = False if keepdims is _NOVALUE else keepdims
    if weights is None:
        avg = np.mean(a, axis=axis, keepdims=keep)
        count = 1
        for ax in range(a.ndim) if axis is None else axis:
            count = count * a.shape[ax]
        scl = np.asarray(avg).dtype.type(count)
        size = 1
        for n in np.shape(avg):
            size = size * n
        if size == 0:     # NumPy's scale is a.size / avg.size, a Python division
            raise ZeroDivisionError("division by zero")
    else:
        wgt = np.asarray(weights)
        if a.dtype.kind in "biu":
            result_dtype = np.result_type(a.dtype, wgt.dtype, "f8")
        else:
            result_dtype = np.result_type(a.dtype, wgt.dtype)
        if wgt.ndim != a.ndim or any(_known(m) and _known(n) and m != n for m, n in zip(wgt.shape, a.shape)):
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if wgt.ndim != len(axis) or any(_known(m) and _known(a.shape[ax]) and m != a.shape[ax]
                                            for m, ax in zip(wgt.shape, axis)):
                raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
            wgt = wgt.transpose(tuple(int(k) for k in np.argsort(axis)))
            # weights' own sizes (in the order of the sorted axes), not a's: constant weights stay constant
            order = sorted(axis)
            wgt = wgt.reshape(tuple((wgt.shape[order.index(ax)] if ax in axis else 1) for ax in range(a.ndim)))
        scl = wgt.sum(axis=axis, dtype=result_dtype, keepdims=keep)
        raise_if(scl == 0.0, ZeroDivisionError, "Weights sum to zero, can't be normalized")
        avg = np.multiply(a, wgt, dtype=result_dtype).sum(axis, keepdims=keep) / scl
    if returned:
        if np.shape(scl) != np.shape(avg):
            full = np.empty(np.shape(avg), dtype=np.asarray(scl).dtype)
            full[...] = scl
            scl = full
        return avg, scl
    return avg


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if fweights is not None or aweights is not None:
        raise TypeError("np.cov(): fweights= and aweights= are not supported in compiled code")
    m = np.asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = np.asarray(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(_stand_in(m), np.float64) if y is None else \
            np.result_type(_stand_in(m), _stand_in(y), np.float64)
    X = m.astype(dtype)
    if X.ndim < 2:
        X = X.reshape((1,) * (2 - X.ndim) + X.shape)
    if not rowvar and m.ndim != 1:
        X = X.T
    if y is not None:
        y = y.astype(dtype)
        if y.ndim < 2:
            y = y.reshape((1,) * (2 - y.ndim) + y.shape)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = np.concatenate((X, y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    fact = max(X.shape[1] - ddof, 0)
    avg = (np.sum(X, axis=1) / np.intp(X.shape[1])).astype(X.dtype)   # np.mean's steps, inline (see docs)
    X = X - avg[:, None]
    c = np.dot(X, X.T.conj())
    c *= np.true_divide(1, fact)
    return c.squeeze()


def corrcoef(x, y=None, rowvar=True, bias=_NOVALUE, ddof=_NOVALUE, *, dtype=None):
    if bias is not _NOVALUE or ddof is not _NOVALUE:
        raise TypeError("np.corrcoef(): bias= and ddof= (deprecated, without effect) are not supported in compiled "
                        "code")
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    if c.ndim != 2:
        raise ValueError("Input must be 1- or 2-d.")
    d = diagonal(c)
    stddev = np.sqrt(d.real)
    c = c / stddev[:, None]                        # NumPy divides in place: the same values
    c = c / stddev[None, :]
    if c.dtype.kind != "c":
        return np.clip(c, -1, 1)
    c.real[...] = np.clip(c.real, -1, 1)           # complex: each part clipped, as NumPy does
    c.imag[...] = np.clip(c.imag, -1, 1)
    return c
