"""`numpy_call`: a call from the kernel into a NumPy function (runtime/numpy_calls.py), on buffers.

The inputs are passed as the buffers of their tensors (`bufferization.to_buffer`, read-only: no copy), with any
strides; each result is a new buffer that NumPy fills, made a tensor again by `bufferization.to_tensor` (restrict:
nothing else refers to it). The call returns 0, or 1 when NumPy raised: the last result, a check flag."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization, func, memref, tensor

from .emitter import Emitter, emitter
from .scalar import declare_external


@emitter("numpy_call")
def _numpy_call(em: Emitter, e):
    name = e.params["symbol"]
    dyn = ir.ShapedType.get_dynamic_size()
    buffers, results = [], []
    # Each call site's to_buffer ops are its own: one-shot bufferization reads the tensor at the to_buffer, and may
    # reuse its buffer once the tensor is dead, so CSE must not merge the to_buffer of a later call into an
    # earlier one (the later call read a buffer that had been overwritten in between)
    site = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _next_site(em))
    for v in e.inputs:
        t = ir.RankedTensorType(em[v].type)
        layout = ir.StridedLayoutAttr.get(dyn, [dyn] * t.rank)
        buffer = bufferization.to_buffer(ir.MemRefType.get(t.shape, t.element_type, layout), em[v], read_only=True)
        buffer.owner.attributes["transpiler.call_site"] = site
        buffers.append(buffer)
    for v in e.outputs[:-1]:
        t = em.tensor_type(v)
        sizes = [em.size(d) for d, n in zip(v.shape, t.shape) if n == dyn]
        results.append(memref.alloc(ir.MemRefType.get(t.shape, t.element_type), sizes, []))
    # one declaration per name, whatever static sizes a call site knows: every operand fully dynamic
    operands = [memref.cast(_dynamic(m.type), m) for m in buffers + results]
    i64 = ir.IntegerType.get_signless(64)
    declare_external(name, [o.type for o in operands], i64, c_interface=True)
    status = func.call([i64], ir.FlatSymbolRefAttr.get(name), operands)
    failed = arith.extui(ir.IntegerType.get_signless(8),
                         arith.cmpi(arith.CmpIPredicate.ne, status, arith.constant(i64, 0)))
    tensors = [bufferization.to_tensor(em.tensor_type(v), m, restrict=True, writable=True)
               for v, m in zip(e.outputs, results)]
    return tensors + [tensor.from_elements(em.tensor_type(e.outputs[-1]), [failed])]


def _next_site(em: Emitter) -> int:
    """A number per numpy_call of one function (deterministic: the MLIR text keys the disk cache)."""
    em.numpy_call_sites = getattr(em, "numpy_call_sites", 0) + 1
    return em.numpy_call_sites


def _dynamic(t) -> ir.MemRefType:
    m = ir.MemRefType(t)
    dyn = ir.ShapedType.get_dynamic_size()
    return ir.MemRefType.get([dyn] * m.rank, m.element_type, ir.StridedLayoutAttr.get(dyn, [dyn] * m.rank))
