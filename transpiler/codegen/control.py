"""Control flow primitives -> scf.if, scf.for and scf.while over tensors (bufferized with everything else)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from . import scalar
from .emitter import Emitter, emitter
from .indexing import condition, to_index


def region(em: Emitter, block, block_args, values) -> list:
    """Emit a region's primitives with its arguments bound; sizes first computed inside stay inside. Returns the
    values to yield (scalars for 0-d values: see `carried_type`)."""
    saved = dict(em.sizes)
    em.in_region += 1
    for v, arg in zip(block.args, block_args):
        em.bind(v, from_carried(em, arg, v))
        em.register_sizes(v, em[v])   # a size a loop carries (a selection's length) is read off its argument
    em.emit_eqns(block.eqns)
    results = [to_carried(em, em[v], out) for v, out in zip(block.results, values)]
    em.in_region -= 1
    em.sizes = saved
    return results


# 0-d values cross region boundaries (scf.if results, loop-carried values) as scalars, not as tensor<T>: a tensor
# would be a buffer allocated in every iteration; the extract/from_elements pairs at the boundaries fold away.
def carried_type(em: Emitter, v) -> ir.Type:
    return scalar.storage_type(v.dtype) if not v.shape else em.tensor_type(v)


def to_carried(em: Emitter, value: ir.Value, v) -> ir.Value:
    return tensor.extract(value, []) if not v.shape else em.cast_to(value, v)


def from_carried(em: Emitter, value: ir.Value, v) -> ir.Value:
    return tensor.from_elements(em.tensor_type(v), [value]) if not v.shape else value


@emitter("if")
def _if(em: Emitter, e):
    op = scf.IfOp(condition(em, e.inputs[0]), [carried_type(em, v) for v in e.outputs], has_else=True)
    for block, ir_block in ((e.params["then"], op.then_block), (e.params["else"], op.else_block)):
        with ir.InsertionPoint(ir_block):
            scf.YieldOp(region(em, block, [], e.outputs))
    return [from_carried(em, r, v) for r, v in zip(op.results, e.outputs)]


@emitter("for")
def _for(em: Emitter, e):
    start, stop, *inits = e.inputs
    step = arith.constant(ir.IndexType.get(), e.params["step"])
    if any(_loses_static_sizes(em, em[v], out) for v, out in zip(inits, e.outputs)):
        return _for_as_while(em, e, to_index(em, start), to_index(em, stop), step)
    op = scf.ForOp(to_index(em, start), to_index(em, stop), step,
                   [to_carried(em, em[v], out) for v, out in zip(inits, e.outputs)])
    body = e.params["body"]
    with ir.InsertionPoint(op.body):
        iv = op.body.arguments[0]
        i64 = ir.IntegerType.get_signless(64)
        index = arith.index_cast(i64, iv)     # the loop variable: a 0-d int64, carried as a scalar
        scf.YieldOp(region(em, body, [index] + list(op.body.arguments)[1:], e.outputs))
    return [from_carried(em, r, v) for r, v in zip(op.results, e.outputs)]


def _loses_static_sizes(em: Emitter, value: ir.Value, v) -> bool:
    """Whether a loop's initial value has a static size where the value it carries has a run-time one (an array
    of a size known while compiling that the loop shrinks by a selection)."""
    if not v.shape:
        return False
    have, want = ir.RankedTensorType(value.type).shape, em.tensor_type(v).shape
    dynamic = ir.ShapedType.get_dynamic_size()
    return any(w == dynamic and h != dynamic for h, w in zip(have, want))


def _for_as_while(em: Emitter, e, lower: ir.Value, upper: ir.Value, step: ir.Value):
    """A for loop whose carried value starts with a static size, as an scf.while counting its index: for an
    scf.for, canonicalization folds the tensor.cast of the initial value into the loop (ForOpTensorCastFolder),
    which then carries the static type, and a size the body changes was read as the static one (a selection in
    a loop over np.arange(6.0) returned six elements, the last ones uninitialized)."""
    index_type = ir.IndexType.get()
    types = [index_type] + [carried_type(em, v) for v in e.outputs]
    op = scf.WhileOp(types, [lower] + [to_carried(em, em[v], out) for v, out in zip(e.inputs[2:], e.outputs)])
    before = op.regions[0].blocks.append(*types)
    after = op.regions[1].blocks.append(*types)
    with ir.InsertionPoint(before):
        # (index < upper: steps are positive, frontend run_for refuses others)
        scf.ConditionOp(arith.cmpi(arith.CmpIPredicate.slt, before.arguments[0], upper), list(before.arguments))
    with ir.InsertionPoint(after):
        iv = after.arguments[0]
        index = arith.index_cast(ir.IntegerType.get_signless(64), iv)   # the loop variable, as in _for
        results = region(em, e.params["body"], [index] + list(after.arguments)[1:], e.outputs)
        scf.YieldOp([arith.addi(iv, step)] + results)
    return [from_carried(em, r, v) for r, v in zip(list(op.results)[1:], e.outputs)]


@emitter("while")
def _while(em: Emitter, e):
    types = [carried_type(em, v) for v in e.outputs]
    op = scf.WhileOp(types, [to_carried(em, em[v], out) for v, out in zip(e.inputs, e.outputs)])
    before = op.regions[0].blocks.append(*types)
    after = op.regions[1].blocks.append(*types)
    cond = e.params["cond"]
    with ir.InsertionPoint(before):
        saved = dict(em.sizes)
        em.in_region += 1
        for v, arg in zip(cond.args, before.arguments):
            em.bind(v, from_carried(em, arg, v))
            em.register_sizes(v, em[v])
        em.emit_eqns(cond.eqns)
        flag = condition(em, cond.results[0])
        forwarded = [to_carried(em, em[v], out) for v, out in zip(cond.results[1:], e.outputs)]
        em.in_region -= 1
        em.sizes = saved
        scf.ConditionOp(flag, forwarded)
    with ir.InsertionPoint(after):
        scf.YieldOp(region(em, e.params["body"], list(after.arguments), e.outputs))
    return [from_carried(em, r, v) for r, v in zip(op.results, e.outputs)]
