"""Where updates and copies land: elementwise results written over an operand that dies with them (so that updates
happen in place), and copies into strided views as loops.

Codegen gives every linalg.generic a fresh `tensor.empty` destination. For `a += b`, or `a[1:] *= 2` after
eliminate-empty-tensors, that means a temporary the size of the update and a copy of it into the array (one-shot
bufferization cannot write over an operand that another tensor value still holds). When an input of the same type,
read elementwise with the same indexing map as the result, has no other use, the generic can take that input as its
destination instead: it is the same computation on tensors (the body never reads its destination), and
bufferization then updates the input's buffer in place, as NumPy's in-place operators do.

Function arguments are only reused where the argument is writable (written arguments); a read-only argument as a
destination would cost a copy of it instead of saving one.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg

from . import written_arguments
from .loops import inside_loop


def reuse_dying_operands(module: ir.Module) -> None:
    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    for op in ops:
        if op.name == "linalg.generic":
            _reuse(op)
    for f in written_arguments.written_functions(module):
        _compute_into_arguments(f)


def _compute_into_arguments(f) -> None:
    """`np.add(x, 1.0, out=out)`, `out[...] = x * 2`: a written argument whose final contents a generic computes,
    and whose old contents nothing reads, is that generic's destination, so that the generic writes into the
    caller's memory. (With its fresh destination, it computed into a temporary that was then copied into the
    argument: 2x NumPy's time for `np.add(x, 1.0, out=out)` on 10^5 float32.)"""
    block, _, _, pairs = written_arguments.split_results(f)
    for i, final in pairs:
        argument = block.arguments[i]
        if not isinstance(final, ir.OpResult) or final.owner.operation.name != "linalg.generic" \
                or final.type != argument.type or _reads_data(argument) or not _may_write(argument):
            continue
        op = final.owner.operation
        n_in = len(op.operands) - len(op.results)
        k = final.result_number
        if _is_empty(op.operands[n_in + k]) and not _has_uses(op.regions[0].blocks[0].arguments[n_in + k]):
            op.operands[n_in + k] = argument


def _reads_data(value) -> bool:
    """Whether anything reads the contents of `value` (tensor.dim reads only its shape)."""
    return any(use.owner.operation.name != "tensor.dim" for use in value.uses)


def _reuse(op) -> None:
    n_in = len(op.operands) - len(op.results)
    if not op.results or n_in < 0:
        return
    maps = list(ir.ArrayAttr(op.attributes["indexing_maps"]))
    body = op.regions[0].blocks[0]
    for k in range(len(op.results)):
        init = op.operands[n_in + k]
        if not _is_empty(init) or _has_uses(body.arguments[n_in + k]):
            continue
        for i in range(n_in):
            candidate = op.operands[i]
            if candidate.type == init.type and str(maps[i]) == str(maps[n_in + k]) and _single_use(candidate, op) \
                    and _may_write(candidate):
                op.operands[n_in + k] = candidate
                break


def _is_empty(value) -> bool:
    return isinstance(value, ir.OpResult) and value.owner.operation.name == "tensor.empty"


def _has_uses(value) -> bool:
    return any(True for _ in value.uses)


def _single_use(value, op) -> bool:
    """One use that reads the data (tensor.dim reads only the shape, which the destination keeps), not counting
    uses on the other branch of an `scf.if` around `op` (a statement run only when no check failed yields the
    array unchanged on the failed path: frontend/control.guarded), which never run with it."""
    return sum(1 for use in value.uses if use.owner.operation.name != "tensor.dim"
               and not _exclusive(use.owner.operation, op.operation)) == 1


def _branches(op) -> dict:
    """The scf.if ops around `op`, each with the block (branch) `op` lies in."""
    out = {}
    while op.name != "func.func":
        parent = op.parent
        if parent.name == "scf.if":
            out[parent] = op.block
        op = parent
    return out


def _exclusive(a, b) -> bool:
    """Whether `a` and `b` lie on different branches of one scf.if."""
    around_b = _branches(b)
    return any(parent in around_b and around_b[parent] != block for parent, block in _branches(a).items())


def _may_write(value) -> bool:
    """Not a function argument marked read-only (bufferization.writable = false)."""
    if not isinstance(value, ir.BlockArgument):
        return True
    owner = value.owner.owner      # the op whose region holds the block
    # (`.operation.name`: a func.func's own `.name` is its symbol's name)
    if owner is None or owner.operation.name != "func.func" or "arg_attrs" not in owner.attributes:
        return True
    attrs = ir.DictAttr(ir.ArrayAttr(owner.attributes["arg_attrs"])[value.arg_number])
    return "bufferization.writable" not in attrs or ir.BoolAttr(attrs["bufferization.writable"]).value


def strided_copies_as_loops(module: ir.Module) -> None:
    """After bufferization: a `memref.copy` into or out of a strided view inside a loop (`x[1:-1, 1:-1] = t` in a
    time loop, where `t` could not be computed in place) becomes a `linalg.copy`, lowered to a loop like every other
    linalg op. Left as it is, it lowers to a call of MLIR's generic `memrefCopy`, which moves one element at a time
    through index arithmetic: 2.5x NumPy's time on Floyd-Warshall's row updates. Copies outside loops run once per
    call and stay calls: as loops they cost LLVM time to compile (0.8 s of GPT-2's 4.2 s, measured). Copies between
    contiguous buffers stay `memcpy`."""
    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    for op in ops:
        if op.name != "memref.copy" or not inside_loop(op):
            continue
        source, target = op.operands
        if not any("strided" in str(v.type) for v in (source, target)):   # identity layouts: a memcpy
            continue
        with ir.InsertionPoint(op), op.location:
            linalg.copy(source, outs=[target])
        op.erase()

