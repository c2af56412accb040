"""Shape primitives: inserting size-1 dims (tensor.expand_shape), flattening (tensor.collapse_shape), sizes."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from .emitter import Emitter, emitter


@emitter("expand_dims")
def _expand_dims(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    inserted = set(e.params["axes"])
    groups, current = [], []
    source_dims = [i for i in range(out.ndim) if i not in inserted]
    # each source dim takes the inserted 1-dims before it; trailing ones join the last group
    for i in range(out.ndim):
        current.append(i)
        if i in source_dims:
            groups.append(current)
            current = []
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups = []  # a 0-d source: no groups at all
    dyn = ir.ShapedType.get_dynamic_size()
    static = [d if isinstance(d, int) else dyn for d in (em.program.env.find(d) for d in out.shape)]
    dynamic = [em.size(d) for d, s in zip(out.shape, static) if s == dyn]
    return [tensor.expand_shape(em.tensor_type(out), em[x], _reassociation(groups), dynamic, static)]


@emitter("flatten")
def _flatten(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    return [tensor.collapse_shape(em.tensor_type(out), em[x], _reassociation([list(range(x.ndim))]))]


@emitter("dim_size")
def _dim_size(em: Emitter, e):
    x, out = e.inputs[0], e.outputs[0]
    size = tensor.dim(em[x], arith.constant(ir.IndexType.get(), e.params["axis"]))
    value = arith.index_cast(ir.IntegerType.get_signless(64), size)
    return [tensor.from_elements(em.tensor_type(out), [value])]


def _reassociation(groups) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g]) for g in groups])
