"""Arguments the kernel writes (NumPy code that changes its caller's arrays): after bufferization, each one's final
contents are in the argument's own memory (the common case: every write was done in place), or in another buffer
that is copied into the argument at the end.

Codegen returns the final contents of each written argument as an extra result of the kernel (listed in the
function's `transpiler.written_arguments` attribute), with the written arguments marked writable and all others
read-only. One-shot bufferization then decides where each version lives. `drop_in_place` (right after it) removes
the extra results that *are* their argument; `copy_the_rest` (after the deallocation pipeline, which clones any
returned buffer that aliases an argument, so a result can never be clobbered by the copy) copies the others into
their argument and frees them. Either way the kernel's results are the program's own outputs again.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, func, memref, scf

from ..codegen.emitter import DESTINATION_ATTR, WRITTEN_ATTR


def written_functions(module: ir.Module):
    for op in module.body.operations:
        if op.operation.name == "func.func" and WRITTEN_ATTR in op.attributes:
            yield op


def is_result_destination(value) -> bool:
    """Whether `value` is the kernel's argument that is its returned array, allocated by the call for this call alone
    (codegen's DESTINATION_ATTR, result_destination.py): like a buffer the function allocated, no other argument is
    a view of it."""
    if not isinstance(value, ir.BlockArgument):
        return False
    block = value.owner
    function = block.owner.operation if block.owner is not None else None
    if function is None or function.name != "func.func" or DESTINATION_ATTR not in function.attributes \
            or list(function.regions[0].blocks)[0] != block:
        return False
    return ir.IntegerAttr(function.attributes[DESTINATION_ATTR]).value == value.arg_number


def _return_op(f):
    block = f.regions[0].blocks[0]
    return block, list(block.operations)[-1]


def _is_argument(value: ir.Value, arg: ir.Value) -> bool:
    while value != arg and isinstance(value.owner, ir.Operation) and value.owner.name == "memref.cast":
        value = value.owner.operands[0]
    return value == arg


_VIEWS = {"memref.cast", "memref.subview", "memref.reinterpret_cast", "memref.expand_shape", "memref.collapse_shape",
          "memref.transpose", "memref.view", "memref.reshape"}


def _base(value: ir.Value) -> ir.Value:
    """The buffer a memref value views (through casts, subviews and reshapes)."""
    while isinstance(value, ir.OpResult) and value.owner.operation.name in _VIEWS:
        value = value.owner.operation.operands[0]
    return value


def _replace_results(f, ret, operands: list, written: list) -> None:
    with ir.InsertionPoint(ret), ret.location:
        func.ReturnOp(operands)
    ret.erase()
    ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    f.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ftype.inputs, [v.type for v in operands]))
    if written:
        f.attributes[WRITTEN_ATTR] = ir.ArrayAttr.get(
            [ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in written])
    else:
        del f.attributes[WRITTEN_ATTR]
    if "res_attrs" in f.attributes:
        del f.attributes["res_attrs"]


def split_results(f):
    """(entry block, return op, the function's own results, [(argument index, its final version)])."""
    block, ret = _return_op(f)
    written = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(f.attributes[WRITTEN_ATTR])]
    operands = list(ret.operands)
    own = operands[:len(operands) - len(written)]
    return block, ret, own, list(zip(written, operands[len(own):]))


def drop_in_place(module: ir.Module) -> None:
    """Right after one-shot bufferization: drop the extra results that are their argument's own buffer."""
    for f in written_functions(module):
        block, ret, own, pairs = split_results(f)
        rest = [(i, v) for i, v in pairs if not _is_argument(v, block.arguments[i])]
        _replace_results(f, ret, own + [v for _, v in rest], [i for i, _ in rest])


def copy_the_rest(module: ir.Module) -> None:
    """After the deallocation pipeline: copy each remaining final version into its argument, then free it unless
    the kernel also returns it (the caller adopts it then) or it was freed for an earlier argument."""
    for f in written_functions(module):
        block, ret, own, pairs = split_results(f)
        with ir.InsertionPoint(ret), ret.location:
            for i, v in pairs:
                memref.copy(v, block.arguments[i])
            freed: list = []
            for _, v in pairs:
                if any(_base(r) == _base(v) for r in own + freed):    # the same buffer, visibly
                    continue
                _free_unless_kept(v, [r for r in own if isinstance(r.type, ir.MemRefType)] + freed)
                freed.append(v)
        _replace_results(f, ret, own, [])


def _free_unless_kept(v: ir.Value, kept: list) -> None:
    """Free `v` where its buffer is none of `kept`'s, compared at run time: the deallocation pipeline may return one
    buffer as two values (`scf.if` yielding it twice on one path and two clones on the other), and freeing a buffer
    the kernel returns handed the caller freed memory (garbage results, then a double free)."""
    if not kept:
        memref.dealloc(v)
        return
    pointer = memref.extract_aligned_pointer_as_index(v)
    distinct = None
    for r in kept:
        ne = arith.cmpi(arith.CmpIPredicate.ne, pointer, memref.extract_aligned_pointer_as_index(r))
        distinct = ne if distinct is None else arith.andi(distinct, ne)
    branch = scf.IfOp(distinct)
    with ir.InsertionPoint(branch.then_block):
        memref.dealloc(v)
        scf.YieldOp([])
