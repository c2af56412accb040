"""A write that keeps the array's old contents when a check before it failed, with no `scf.if`.

Past control.MAX_GUARDS guarded statements in a function, a write into an array (Builder.write) after a check
that may have failed is no longer put under `if not failed` (an scf.if yielding the written arrays: one-shot
bufferization's analysis of many of them grows much faster than the code). It stores instead, unconditionally,
the new contents where no check failed and the old contents where one did, so that after a failed check the array
holds what NumPy left in it (NumPy raised before the write). The selection is made on the region the write
stores (one element for `x[i] = v`), not on the whole array:
- `update_slice` of one element (x[i] = v) takes the flag as an input: the element keeps its value when it is set,
  as when its index is out of range (codegen/indexing.py: a select of the stored element, no tensor read);
- `update_slice` of a region (x[a:b] = v, writes through a view): v becomes select(failed, x[a:b], v), fused with
  the computation of v. (Choosing between the two tensors instead, as codegen does for an index out of range,
  made one-shot bufferization's analysis run for minutes past 100 such writes after 64 guards: measured.)
- `scatter`, `scatter_nd`, `masked_scatter` (x[ids] = v, x[mask] = v): they store nothing when their `bad` flag
  (an index out of range, a count that differs) is set; the failed flag joins it;
- anything else (np.copyto, out=, sort, x[mask] = v as a merge): select(failed, old contents, new contents).
Every write is memory-safe on the failed path as on any other (indices clamped, sizes cut: indexing.py), so only
the values stored need the flag.
"""
from __future__ import annotations

from ..program import Var
from ..types import dtypes

# a write primitive that stores nothing when this input (a 0-d bool) is true
_BAD_INPUT = {"scatter": 3, "scatter_nd": 2, "masked_scatter": 3}


def unless_failed(b, target: Var, new: Var) -> Var:
    """The contents `target` (the current version of an array or a view of one) is to hold after a write whose
    computed contents are `new` (just computed): `new` if no check raised so far on this path failed (b.failed,
    the write's own checks included), target's own contents if one did."""
    if new.scalar or new.weak:      # (memory.write: a scalar stored into an array is broadcast to its shape)
        new = b.emit1("copy", [new], target.dtype, target.shape)
    last = b.eqns[-1] if b.eqns and any(o is new for o in b.eqns[-1].outputs) else None
    if last is not None and last.prim in ("update_slice", *_BAD_INPUT) and last.inputs[0] is target:
        b.eqns.pop()            # made again below, storing what the flag selects
    else:
        last = None
    failed = b.failed_flag()
    if last is not None and last.prim == "update_slice" and not last.inputs[1].shape:
        return b.emit1("update_slice", last.inputs + [failed], new.dtype, new.shape, unless_failed=True,
                       **last.params)
    if last is not None and last.prim == "update_slice":
        x, v, *extra = last.inputs
        specs = last.params["specs"]
        old = b.emit1("slice", [x, *extra], x.dtype, v.shape, specs=specs)
        kept = b.emit1("select", [failed, old, v], v.dtype, v.shape)
        return b.emit1("update_slice", [x, kept, *extra], x.dtype, x.shape, specs=specs)
    if last is not None:
        inputs = list(last.inputs)
        at = _BAD_INPUT[last.prim]
        inputs[at] = b.emit1("or", [inputs[at], failed], dtypes.BOOL, ())
        return b.emit1(last.prim, inputs, new.dtype, new.shape, **last.params)
    return b.emit1("select", [failed, target, new], target.dtype, target.shape)
