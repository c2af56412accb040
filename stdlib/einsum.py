"""np.einsum, compiled like user code: the subscripts are read at compile time and become diagonals, sums,
transpositions and matrix products (each pair of operands is one `@` over its batch, free and contracted labels,
so a contraction runs at BLAS speed, not as a broadcast product).

Results are NumPy's to rounding: NumPy's einsum sums in its own order (and `optimize=` may reorder the operands).
A single operand that is only transposed is a view, as NumPy's."""
import numpy as np

from .functions import known_while_compiling

_ELLIPSIS_LABELS = [chr(0x3B1 + k) for k in range(24)]     # Greek letters: never valid subscripts themselves


def _parse(subscripts, ndims):
    """(labels of each operand, labels of the output): strings of one-character labels, `...` expanded."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        given, output = subscripts.split("->")
    else:
        given, output = subscripts, None
    terms = given.split(",")
    if len(terms) != len(ndims):
        raise ValueError("more operands provided to einstein sum function than specified in the subscripts string"
                         if len(terms) < len(ndims) else
                         "fewer operands provided to einstein sum function than specified in the subscripts string")
    for label in given + (output or ""):
        if not (label.isalpha() and label.isascii() or label in ".,"):
            raise ValueError(f"invalid subscript '{label}' in einstein sum subscripts string, subscripts must be "
                             "letters")
    widest = 0
    labels = []
    for term, ndim in zip(terms, ndims):
        if "..." in term:
            named = len(term) - 3
            extra = ndim - named
            if extra < 0:
                raise ValueError("operand has more dimensions than subscripts given in einstein sum")
            widest = max(widest, extra)
            term = term.replace("...", "".join(_ELLIPSIS_LABELS[len(_ELLIPSIS_LABELS) - extra:]))
        elif len(term) != ndim:
            raise ValueError("operand has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions." if ndim > len(term) else
                             "einstein sum subscripts string contains too many subscripts for operand")
        labels.append(term)
    ellipsis = "".join(_ELLIPSIS_LABELS[len(_ELLIPSIS_LABELS) - widest:])
    if output is None:
        counts = {}
        for term in labels:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis))
    else:
        output = output.replace("...", ellipsis)
        for label in output:
            if output.count(label) > 1:
                raise ValueError(f"einstein sum subscripts string includes output subscript '{label}' multiple times")
            if not any(label in term for term in labels):
                raise ValueError(f"einstein sum subscripts string included output subscript '{label}' which never "
                                 "appeared in an input")
    return labels, output


def _diagonals(labels, x, operand):
    """A label repeated in one operand ('ii'): its diagonal, as the last axis. The repeated dims must be equal, as
    NumPy checks (np.diagonal of a (2, 3) operand would take a shorter diagonal: a silently wrong answer)."""
    while True:
        repeated = [c for c in labels if labels.count(c) > 1]
        if not repeated:
            return labels, x
        repeated = repeated[0]
        first = labels.index(repeated)
        second = labels.index(repeated, first + 1)
        if x.shape[first] != x.shape[second]:
            raise ValueError(f"dimensions in operand {operand} for collapsing index '{repeated}' don't match")
        x = np.diagonal(x, 0, first, second)
        labels = "".join(c for i, c in enumerate(labels) if i not in (first, second)) + repeated


def _broadcast_unit_dims(labels, operands):
    """NumPy's einsum broadcasts a label's dim of size 1 against that label's larger dim in another operand
    (`np.einsum("ij,j->i", a, b)` with b of shape (1,)): such a dim, of a size 1 known when compiling, is dropped
    from its operand with its label, so the products read its one value for every index of the label."""
    larger = {c for term, x in zip(labels, operands) for i, c in enumerate(term) if not _unit(x.shape[i])}
    result_labels, result_operands = [], []
    for term, x in zip(labels, operands):
        dropped = [i for i, c in enumerate(term) if c in larger and _unit(x.shape[i])]
        if dropped:
            x = x.reshape(tuple(x.shape[i] for i in range(x.ndim) if i not in dropped))
            term = "".join(c for i, c in enumerate(term) if i not in dropped)
        result_labels.append(term)
        result_operands.append(x)
    return result_labels, result_operands


def _unit(size):
    return type(size) is int and known_while_compiling(size) and size == 1     # (a run-time size: not known)


def _sum_out(labels, x, keep, dtype):
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return labels, x
    return "".join(c for c in labels if c in keep), np.sum(x, axis=axes, dtype=dtype)


def _size(x, labels, group):
    n = 1
    for c in group:
        n = n * x.shape[labels.index(c)]
    return n


def _contract(la, a, lb, b, keep, dtype):
    """Two operands as one matrix product over (batch, free of a, contracted) x (batch, contracted, free of b)."""
    batch = "".join(c for c in la if c in lb and c in keep)
    summed = "".join(c for c in la if c in lb and c not in keep)
    free_a = "".join(c for c in la if c not in lb)
    free_b = "".join(c for c in lb if c not in la)
    at = a.transpose(tuple(la.index(c) for c in batch + free_a + summed))
    bt = b.transpose(tuple(lb.index(c) for c in batch + summed + free_b))
    batch_a = at.shape[:len(batch)]
    batch_b = bt.shape[:len(batch)]
    if not summed:      # an outer product over the batch: a broadcast multiply
        m, n = _size(a, la, free_a), _size(b, lb, free_b)
        product = at.reshape(batch_a + (m, 1)) * bt.reshape(batch_b + (1, n))
    else:
        m, k, n = _size(a, la, free_a), _size(a, la, summed), _size(b, lb, free_b)
        product = at.reshape(batch_a + (m, k)) @ bt.reshape(batch_b + (k, n))
    shape = product.shape[:len(batch)] + tuple(at.shape[len(batch) + i] for i in range(len(free_a))) \
        + tuple(bt.shape[len(batch) + len(summed) + i] for i in range(len(free_b)))
    return batch + free_a + free_b, product.astype(dtype, copy=False).reshape(shape)


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    if not isinstance(subscripts, str):
        raise TypeError("np.einsum: give the subscripts as a string ('ij,jk->ik'); the interleaved form is not "
                        "supported")
    operands = [np.asarray(x) for x in operands]
    if dtype is not None:
        operands = [x.astype(dtype, casting=casting) for x in operands]
    result_dtype = np.result_type(*[x.dtype for x in operands])
    labels, output = _parse(subscripts, [x.ndim for x in operands])
    diagonals = [_diagonals(term, x, i) for i, (term, x) in enumerate(zip(labels, operands))]
    labels, operands = [t for t, _ in diagonals], [x for _, x in diagonals]
    labels, operands = _broadcast_unit_dims(labels, operands)
    terms = []
    for i, (term, x) in enumerate(zip(labels, operands)):
        elsewhere = set(output).union(*(set(t) for j, t in enumerate(labels) if j != i))
        terms.append(_sum_out(term, x, elsewhere, result_dtype))
    while len(terms) > 1:
        (la, a), (lb, b) = terms[0], terms[1]
        keep = set(output).union(*(set(t) for t, _ in terms[2:]))
        terms = [_contract(la, a, lb, b, keep, result_dtype)] + terms[2:]
    term, x = _sum_out(*terms[0], set(output), result_dtype)
    result = x.transpose(tuple(term.index(c) for c in output))
    if result.ndim == 0:
        result = result[()]       # a NumPy scalar, as NumPy's einsum returns
    if out is not None:
        np.copyto(out, result, casting=casting)
        return out
    return result
