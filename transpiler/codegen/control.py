"""Control flow primitives -> scf.if, scf.for and scf.while over tensors (bufferized with everything else)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .emitter import Emitter, emitter
from .indexing import to_index


def condition(em: Emitter, v) -> ir.Value:
    """A 0-d bool tensor (bytes in memory) as an i1."""
    byte = tensor.extract(em[v], [])
    return arith.cmpi(arith.CmpIPredicate.ne, byte, arith.constant(byte.type, 0))


def region(em: Emitter, block, block_args, values) -> list:
    """Emit a region's primitives with its arguments bound; sizes first computed inside stay inside."""
    saved = dict(em.sizes)
    for v, arg in zip(block.args, block_args):
        em.bind(v, arg)
    em.emit_eqns(block.eqns)
    results = [em.cast_to(em[v], out) for v, out in zip(block.results, values)]
    em.sizes = saved
    return results


@emitter("if")
def _if(em: Emitter, e):
    op = scf.IfOp(condition(em, e.inputs[0]), [em.tensor_type(v) for v in e.outputs], has_else=True)
    for block, ir_block in ((e.params["then"], op.then_block), (e.params["else"], op.else_block)):
        with ir.InsertionPoint(ir_block):
            scf.YieldOp(region(em, block, [], e.outputs))
    return list(op.results)


@emitter("for")
def _for(em: Emitter, e):
    start, stop, *inits = e.inputs
    step = arith.constant(ir.IndexType.get(), e.params["step"])
    op = scf.ForOp(to_index(em, start), to_index(em, stop), step,
                   [em.cast_to(em[v], out) for v, out in zip(inits, e.outputs)])
    body = e.params["body"]
    with ir.InsertionPoint(op.body):
        iv = op.body.arguments[0]
        i64 = ir.IntegerType.get_signless(64)
        index = tensor.from_elements(ir.RankedTensorType.get([], i64), [arith.index_cast(i64, iv)])
        scf.YieldOp(region(em, body, [index] + list(op.body.arguments)[1:], e.outputs))
    return list(op.results)


@emitter("while")
def _while(em: Emitter, e):
    types = [em.tensor_type(v) for v in e.outputs]
    op = scf.WhileOp(types, [em.cast_to(em[v], out) for v, out in zip(e.inputs, e.outputs)])
    before = op.regions[0].blocks.append(*types)
    after = op.regions[1].blocks.append(*types)
    cond = e.params["cond"]
    with ir.InsertionPoint(before):
        saved = dict(em.sizes)
        for v, arg in zip(cond.args, before.arguments):
            em.bind(v, arg)
        em.emit_eqns(cond.eqns)
        flag = condition(em, cond.results[0])
        forwarded = [em.cast_to(em[v], out) for v, out in zip(cond.results[1:], e.outputs)]
        em.sizes = saved
        scf.ConditionOp(flag, forwarded)
    with ir.InsertionPoint(after):
        scf.YieldOp(region(em, e.params["body"], list(after.arguments), e.outputs))
    return list(op.results)

