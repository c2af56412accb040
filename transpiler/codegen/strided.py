"""Views whose position is a run-time value (frontend/memory.py, "strided" views): a view joined from different
views of one array at a run-time branch is `start + sum_k i_k * step_k` over the base's axes, with run-time starts
and steps (one vector over the base's axes per view dim), as NumPy's strided views are.

- `view_params`: a chain of view primitives (slices, transposes, new and dropped unit axes, strided views) as those
  values: starts (one per base axis), sizes (one per view dim), then the steps (view dim by view dim);
- `strided`: the view read from the base (a generic reading base[start + i . steps]);
- `update_strided`: the base with the view's elements replaced (a loop nest of stores; a basic view never maps two
  of its positions to one element, so the order does not matter)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from .emitter import Emitter, emitter
from .indexing import condition, index_const, normalize, to_index


def _int(v):
    return index_const(v) if isinstance(v, int) else v


def _add(a, c):
    if isinstance(a, int) and isinstance(c, int):
        return a + c
    if isinstance(a, int) and a == 0:
        return c
    if isinstance(c, int) and c == 0:
        return a
    return arith.addi(_int(a), _int(c))


def _mul(a, c):
    if isinstance(a, int) and isinstance(c, int):
        return a * c
    if isinstance(a, int) and a in (0, 1):
        return c if a == 1 else 0
    if isinstance(c, int) and c in (0, 1):
        return a if c == 1 else 0
    return arith.muli(_int(a), _int(c))


def _dim(em: Emitter, d):
    d = em.program.env.find(d)
    return d if isinstance(d, int) else em.size(d)


@emitter("view_params")
def _view_params(em: Emitter, e):
    base_ndim = len(e.params["base_shape"])
    starts = [0] * base_ndim
    steps = [[int(j == k) for j in range(base_ndim)] for k in range(base_ndim)]    # one vector per current dim
    sizes = [_dim(em, d) for d in e.params["base_shape"]]
    operands = list(e.inputs)
    for prim, params, n_extra, in_shape in e.params["steps"]:
        ops, operands = operands[:n_extra], operands[n_extra:]
        if prim == "slice":
            new_steps, new_sizes = [], []
            specs = list(params["specs"]) + [("all",)] * (len(in_shape) - len(params["specs"]))
            for axis, spec in enumerate(specs):
                vector, kind = steps[axis], spec[0]
                if kind == "all":
                    new_steps.append(vector)
                    new_sizes.append(sizes[axis])
                    continue
                if kind == "range":
                    _, first, length, step = spec
                    first, step = _dim(em, first), _dim(em, step)
                    new_steps.append([_mul(step, s) for s in vector])
                    new_sizes.append(_dim(em, length))
                elif kind == "index":
                    n = _dim(em, in_shape[axis])
                    first = spec[1] if spec[1] >= 0 else normalize(index_const(spec[1]), _int(n))
                else:             # a run-time index, clamped like a read (an index out of range raises after the call)
                    first = normalize(to_index(em, ops[spec[1] - 1]), _int(_dim(em, in_shape[axis])))
                starts = [_add(s, _mul(first, v)) for s, v in zip(starts, vector)]
            steps, sizes = new_steps, new_sizes
        elif prim == "transpose":
            steps, sizes = [steps[p] for p in params["perm"]], [sizes[p] for p in params["perm"]]
        elif prim == "expand_dims":
            for axis in sorted(params["axes"]):
                steps.insert(axis, [0] * base_ndim)
                sizes.insert(axis, 1)
        elif prim == "squeeze":
            steps = [v for k, v in enumerate(steps) if k not in params["axes"]]
            sizes = [s for k, s in enumerate(sizes) if k not in params["axes"]]
        elif prim == "strided":      # starts, sizes and steps over its own input's dims
            n = len(steps)
            m = (n_extra - n) // (n + 1)
            firsts, lengths, by = [to_index(em, v) for v in ops[:n]], ops[n:n + m], ops[n + m:]
            for j, first in enumerate(firsts):
                starts = [_add(s, _mul(first, v)) for s, v in zip(starts, steps[j])]
            new_steps = []
            for k in range(m):
                vector = [0] * base_ndim
                for j in range(n):
                    factor = to_index(em, by[k * n + j])
                    vector = [_add(a, _mul(factor, c)) for a, c in zip(vector, steps[j])]
                new_steps.append(vector)
            steps, sizes = new_steps, [to_index(em, v) for v in lengths]
        else:
            raise AssertionError(f"view_params of {prim}")
    i64 = ir.IntegerType.get_signless(64)
    values = starts + sizes + [s for vector in steps for s in vector]
    return [tensor.from_elements(em.tensor_type(v), [arith.index_cast(i64, _int(x))])
            for v, x in zip(e.outputs, values)]


def _geometry(em: Emitter, base, view, params):
    """(starts, steps) as index values: `params` are the 0-d inputs after the base (and the value, for a write)."""
    n, m = base.ndim, view.ndim
    starts = [to_index(em, v) for v in params[:n]]
    steps = [[to_index(em, params[n + m + k * n + j]) for j in range(n)] for k in range(m)]
    return starts, steps


def _position(starts, steps, indices):
    position = list(starts)
    for i, vector in zip(indices, steps):
        position = [arith.addi(p, arith.muli(i, s)) for p, s in zip(position, vector)]
    return position


@emitter("strided")
def _strided(em: Emitter, e):
    """The view read from the base. Each position is clamped into the base, and an empty base is not read: where a
    check failed before (control.guarded), the position is 0 and the values are never used, but must not be read
    out of bounds."""
    base, out = e.inputs[0], e.outputs[0]
    starts, steps = _geometry(em, base, out, e.inputs[1:])
    sizes = [em.size(d) for d in base.shape]
    nonempty = None
    for n in sizes:
        positive = arith.cmpi(arith.CmpIPredicate.sgt, n, index_const(0))
        nonempty = positive if nonempty is None else arith.andi(nonempty, positive)
    init = em.empty(out)
    if nonempty is None:          # a 0-d base: one element
        return [_gather(em, base, out, init, starts, steps, sizes)]
    branch = scf.IfOp(nonempty, [init.type], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([_gather(em, base, out, init, starts, steps, sizes)])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([init])
    return [branch.results[0]]


def _gather(em: Emitter, base, out, init, starts, steps, sizes):
    rank = out.ndim
    op = linalg.GenericOp_(inputs=[], outputs=[init], indexing_maps=[ir.AffineMap.get_identity(rank)],
                           iterator_types=[linalg.IteratorType.parallel] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        loop = [linalg.IndexOp(d).result for d in range(rank)]
        position = [arith.minsi(arith.maxsi(p, index_const(0)), arith.subi(n, index_const(1)))
                    for p, n in zip(_position(starts, steps, loop), sizes)]
        linalg.YieldOp([tensor.extract(em[base], position)])
    return op.result


@emitter("update_strided")
def _update_strided(em: Emitter, e):
    base, value = e.inputs[:2]
    starts, steps = _geometry(em, base, value, e.inputs[2:])
    sizes = [to_index(em, v) for v in e.inputs[2 + base.ndim:2 + base.ndim + value.ndim]]   # (the view's own)
    if e.params.get("checked"):      # the last input: whether its indices are in range (else nothing is stored)
        valid = condition(em, e.inputs[-1])
        if sizes:
            sizes[0] = arith.select(valid, sizes[0], index_const(0))
        else:
            branch = scf.IfOp(valid, [em[base].type], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp([tensor.insert(tensor.extract(em[value], []), em[base], _position(starts, steps, []))])
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([em[base]])
            return [branch.results[0]]

    def nest(level, indices, acc):
        if level == len(sizes):
            element = tensor.extract(em[value], indices)
            return tensor.insert(element, acc, _position(starts, steps, indices))
        loop = scf.ForOp(index_const(0), sizes[level], index_const(1), [acc])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([nest(level + 1, indices + [loop.induction_variable], loop.inner_iter_args[0])])
        return loop.results[0]
    return [nest(0, [], em[base])]
