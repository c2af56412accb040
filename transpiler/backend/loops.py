"""Rewrites on the loops that linalg lowers to, before they become LLVM: loops over the same rows fused
(fuse_parallel_loops), reduction accumulators in registers (promote_accumulators), and which loops run on threads
(outer_parallelism, thread_only_large_loops).

`convert-linalg-to-parallel-loops` turns a reduction into a loop that loads the accumulator from its buffer,
combines one element and stores it back, on every iteration. LLVM only keeps such an accumulator in a register
when it can prove that no other pointer in the loop reaches the buffer; inside the functions that OpenMP outlines
it cannot (the buffers arrive as arguments), and then the loop is bound by a store-to-load round trip per element
and never vectorizes. `promote_accumulators` makes the register explicit: the load moves before the loop, the value
is carried as an `scf.for` iteration argument, and the store moves after it. Loops are visited innermost first, so
a reduction over several dims is promoted through every level.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from .blas_lowering import BLAS_SYMBOLS, WORTH_A_THREAD
from .erasing import erase_with_body
from .written_arguments import is_result_destination

# Ops allowed in a loop whose accumulator is promoted: none of them writes memory (except the one store moved).
_READ_ONLY_PREFIXES = ("arith.", "math.", "index.", "complex.")    # complex.re/im/create ... (a complex sum's parts)
_READ_ONLY = {"memref.load", "memref.dim", "scf.for", "scf.yield", "scf.if", "scf.condition",
              "llvm.intr.fma", "llvm.intr.sqrt"}     # pure: vector_math's expansions of sin, tanh, arcsin ...


def promote_accumulators(module: ir.Module) -> int:
    """Returns how many loops were rewritten."""
    loops = []
    module.operation.walk(lambda op: (op.name == "scf.for" and loops.append(op)) or ir.WalkResult.ADVANCE,
                          ir.WalkOrder.POST_ORDER)
    promoted = 0
    for loop in loops:   # innermost first: an outer loop sees the rewritten inner one in its body
        promoted += _promote_one(loop)
    return promoted


def _ops_inside(op) -> list:
    inner = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                inner.append(child)
                inner.extend(_ops_inside(child))
    return inner


def _defined_inside(value, inside: set) -> bool:
    """Whether `value` is defined by one of the operations `inside` (a set of ir.Operation) or is an argument of
    a block of one of them. Operations hash and compare by identity of the underlying MLIR operation."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        owner = owner.owner
        if owner is None:
            return False
    return owner.operation in inside


def _promote_one(loop) -> bool:
    """Every store in the loop body must be an accumulator: one load of the same buffer element before it, indices
    fixed during the loop, no other use of the buffer in the loop (a compensated sum has two: sum and error)."""
    loop = loop.opview
    if len(loop.results) != 0:
        return False
    body = loop.regions[0].blocks[0]
    inner = _ops_inside(loop.operation)
    if any(not (op.name in _READ_ONLY or op.name.startswith(_READ_ONLY_PREFIXES) or op.name == "memref.store")
           for op in inner):
        return False
    stores = [op for op in inner if op.name == "memref.store"]
    if not stores or not all(_same_block(store, body) for store in stores):
        return False
    inside = {op.operation for op in inner} | {loop.operation}
    pairs = []
    for store in stores:
        buffer, indices = store.operands[1], list(store.operands[2:])
        if any(_defined_inside(i, inside) for i in indices):   # the induction variable included
            return False
        users = [op for op in inner if any(v == buffer for v in op.operands)]
        loads = [op for op in users if op.name == "memref.load"]
        if len(users) != 2 or len(loads) != 1 or not _same_block(loads[0], body):
            return False
        if list(loads[0].operands[1:]) != indices or not _before(loads[0], store, body):
            return False
        pairs.append((loads[0], store, buffer, indices))

    with ir.InsertionPoint(loop.operation), loop.location:
        inits = [memref.load(buffer, indices) for _, _, buffer, indices in pairs]
        new = scf.ForOp(loop.lowerBound, loop.upperBound, loop.step, inits)
        with ir.InsertionPoint(new.body):
            yield_op = scf.YieldOp([store.operands[0] for _, store, _, _ in pairs])
        for result, (_, _, buffer, indices) in zip(new.results, pairs):   # after the new loop, before the old one
            memref.store(result, buffer, indices)
    loop.induction_variable.replace_all_uses_with(new.induction_variable)
    for carried, (load, _, _, _) in zip(new.inner_iter_args, pairs):
        load.results[0].replace_all_uses_with(carried)
    done = [op for load, store, _, _ in pairs for op in (load, store)]
    for op in list(body.operations):
        if not (op.name == "scf.yield" or any(op == d for d in done)):
            op.move_before(yield_op)
    for op in done:
        op.erase()
    erase_with_body(loop)     # (its old scf.yield)
    return True


def forward_stored_values(module: ir.Module) -> int:
    """A load in a loop body of a buffer element that was stored just before the loop, and that the loop does not
    write, reads the stored value: softmax's divide loop reads the row sum the sum loop stored into a buffer, on
    every iteration. LLVM cannot hoist such a load when the loop stores through another pointer it cannot tell
    apart (the numerator is divided in place), and then the loop stays scalar (a `vdivss` per element). The buffer
    must be one the kernel allocates and uses only through loads and stores (no view of it can alias another
    buffer). Returns how many loads were replaced."""
    loads = []
    module.operation.walk(lambda op: (op.name == "memref.load" and loads.append(op)) or ir.WalkResult.ADVANCE)
    forwarded = 0
    for load in loads:
        value = _stored_before_loop(load)
        if value is not None:
            load.results[0].replace_all_uses_with(value)
            load.erase()
            forwarded += 1
    return forwarded


def _stored_before_loop(load):
    """The value stored into `load`'s element right before the loop whose body holds `load`, or None."""
    loop = load.parent
    if loop is None or loop.name != "scf.for":
        return None
    buffer, indices = load.operands[0], list(load.operands[1:])
    if isinstance(buffer.owner, ir.Block) or buffer.owner.name != "memref.alloc" or \
            any(use.owner.name not in ("memref.load", "memref.store", "memref.dealloc") for use in buffer.uses):
        return None
    inside = {op.operation for op in _ops_inside(loop)} | {loop}
    if any(_defined_inside(i, inside) for i in indices) or _may_write(loop.opview, buffer):
        return None
    block_ops = list(loop.block.operations)
    position = next(i for i, op in enumerate(block_ops) if op == loop)
    for op in reversed(block_ops[:position]):
        if op.name == "memref.store" and op.operands[1] == buffer:
            return op.operands[0] if list(op.operands[2:]) == indices else None
        if any(inner.name == "memref.dealloc" and inner.operands[0] == buffer for inner in [op, *_ops_inside(op)]):
            return None
        if any(access is None or (access[0] == "store" and access[1] == buffer) for access in _op_accesses(op)):
            return None
    return None


def _op_accesses(op) -> list:
    """_accesses of one op and the ops it holds."""
    found = []
    for inner in [op, *_ops_inside(op)]:
        if inner.name == "memref.load":
            found.append(("load", inner.operands[0], list(inner.operands[1:])))
        elif inner.name == "memref.store":
            found.append(("store", inner.operands[1], list(inner.operands[2:])))
        elif not (inner.name in _READ_ONLY or inner.name.startswith(_READ_ONLY_PREFIXES) or inner.name in
                  ("scf.reduce", "memref.alloc", "memref.dealloc", "scf.parallel", "scf.reduce.return")):
            found.append(None)
    return found


def _same_block(op, block) -> bool:
    return any(o == op for o in block.operations)


def _before(a, b, block) -> bool:
    for op in block.operations:
        if op == a:
            return True
        if op == b:
            return False
    return False


def outer_parallelism(module: ir.Module) -> None:
    """Keep parallel only what threads should split: an `scf.parallel` that is not inside another loop keeps all its
    dims if its body has loops of its own, else all but the innermost (one contiguous, vectorizable inner loop per
    task); any other (inside a sequential loop, where each iteration would start its own parallel region) becomes
    sequential loops."""
    parallels = []
    module.operation.walk(lambda op: (op.name == "scf.parallel" and parallels.append(op)) or ir.WalkResult.ADVANCE,
                          ir.WalkOrder.POST_ORDER)   # inner loops first: an outer one then moves their new form
    for par in parallels:
        dims = len(par.opview.lowerBound)
        inner = any(op.name == "scf.for" for op in par.opview.regions[0].blocks[0].operations)
        _split_parallel(par.opview, 0 if inside_loop(par) else dims if inner else max(dims - 1, 1))


def inside_loop(op) -> bool:
    """Whether an op is nested in an scf loop of its function."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.for", "scf.parallel", "scf.while"):
            return True
        parent = parent.parent
    return False


def _split_parallel(par, keep: int):
    """Rebuild `par` as an scf.parallel over its first `keep` dims (none if 0) around scf.for loops over the rest;
    returns the new scf.parallel (None when `keep` is 0; `par` itself when there is nothing to split)."""
    lbs, ubs, steps = list(par.lowerBound), list(par.upperBound), list(par.step)
    if keep >= len(lbs) or len(par.results) != 0:
        return par
    outer = None
    index = ir.IndexType.get()
    with ir.InsertionPoint(par.operation), par.location:
        ivs = []
        point = ir.InsertionPoint(par.operation)
        if keep:
            outer = scf.ParallelOp([], lbs[:keep], ubs[:keep], steps[:keep], [])
            block = outer.regions[0].blocks.append(*[index] * keep)
            with ir.InsertionPoint(block):
                anchor = scf.ReduceOp([], 0)
            ivs, point = list(block.arguments), ir.InsertionPoint(anchor)
        for lb, ub, step in zip(lbs[keep:], ubs[keep:], steps[keep:]):
            with point:
                loop = scf.ForOp(lb, ub, step)
                with ir.InsertionPoint(loop.body):
                    anchor = scf.YieldOp([])
            ivs.append(loop.induction_variable)
            point = ir.InsertionPoint(anchor)
    _move_body(par, ivs, anchor)
    return outer


def _move_body(par, ivs: list, anchor) -> None:
    """Move the body of scf.parallel `par` before `anchor`, its induction variables replaced by `ivs`; erase it."""
    body = par.regions[0].blocks[0]
    for old, new in zip(body.arguments, ivs):
        old.replace_all_uses_with(new)
    for op in list(body.operations):
        if op.name != "scf.reduce":
            op.move_before(anchor)
    erase_with_body(par)     # (its scf.reduce)


def fuse_parallel_loops(module: ir.Module) -> int:
    """Fuse consecutive `scf.parallel` loops over the same leading dims into one, so that a row is done with by
    every op before the next row is touched (softmax: max, exp, sum and divide of a row while it is in L1, instead
    of four passes over the whole array). Loops whose dims are a prefix of the other's fuse over the common prefix
    (the longer one keeps its extra dims as inner sequential loops). Legal when each iteration of the common dims
    touches only its own slice of every buffer that either loop writes: all their accesses index those buffers'
    leading dims with the loop's induction variables (written buffers must be allocations or arguments, not views).
    Operations between the loops (memref.dim, allocations, index arithmetic) move above the first. Returns how many
    loops were fused away."""
    blocks = []
    module.operation.walk(lambda op: (op.name == "func.func" and blocks.extend(op.regions[0].blocks))
                          or ir.WalkResult.ADVANCE)
    fused = 0
    for block in blocks:
        current, pending = None, []
        for op in list(block.operations):
            if op.name == "scf.parallel" and current is not None and _fusable(current, op.opview):
                for moved in pending:
                    moved.move_before(current.operation)
                current = _fuse(current, op.opview)
                fused += 1
                pending = []
            elif op.name == "scf.parallel":
                current, pending = op.opview, []
            elif current is not None and _hoistable(op, current, pending):
                pending.append(op)
            else:
                current, pending = None, []
    return fused


_HOISTABLE = {"memref.dim", "memref.alloc", "arith.constant", "arith.index_cast", "arith.addi", "arith.subi",
              "arith.muli", "arith.maxsi", "arith.minsi", "arith.cmpi", "arith.extui", "arith.trunci", "arith.select"}


def _hoistable(op, first, pending: list) -> bool:
    """An op between two loops that can move above the first: operands defined before the first loop or by ops
    already moving, and no memory effect on the loops' buffers: scalar arithmetic, allocations, loads and stores
    of buffers allocated between the loops (a kernel's check flags: `max` of an empty axis ...), which the first
    loop cannot reach, and loads of buffers the first loop does not write."""
    moving = {p.operation for p in pending}

    def ready(v) -> bool:
        return isinstance(v.owner, ir.Block) or v.owner.operation in moving or \
            v.owner.operation.is_before_in_block(first.operation)

    if op.name in ("memref.load", "memref.store"):
        buffer = op.operands[0] if op.name == "memref.load" else op.operands[1]
        fresh = not isinstance(buffer.owner, ir.Block) and buffer.owner.operation in moving and \
            buffer.owner.operation.name == "memref.alloc"
        if not fresh and not (op.name == "memref.load" and not _may_write(first, buffer)):
            return False
    elif op.name not in _HOISTABLE:
        return False
    return all(ready(v) for v in op.operands)


def _may_write(loop, buffer) -> bool:
    """Whether `loop` may write `buffer`: it stores into it, or holds an op that touches memory otherwise."""
    return any(access is None or (access[0] == "store" and access[1] == buffer) for access in _accesses(loop))


def _common_dims(a, b) -> int:
    n = min(len(a.lowerBound), len(b.lowerBound))
    for bounds_a, bounds_b in ((a.lowerBound, b.lowerBound), (a.upperBound, b.upperBound), (a.step, b.step)):
        if list(bounds_a)[:n] != list(bounds_b)[:n]:
            return 0
    return n


def _fusable(a, b) -> bool:
    if len(a.results) or len(b.results):
        return False
    n = _common_dims(a, b)
    if n == 0:
        return False
    accesses = [(acc, list(loop.regions[0].blocks[0].arguments)[:n]) for loop in (a, b) for acc in _accesses(loop)]
    if any(acc is None for acc, _ in accesses):
        return False
    written = {buffer for (kind, buffer, _), _ in accesses if kind == "store"}
    if any(not _plain_buffer(buffer) for buffer in written):
        return False
    # (the returned array the call allocated is no view of another argument: written_arguments.is_result_destination)
    arguments_written = any(isinstance(buffer.owner, ir.Block) and not is_result_destination(buffer)
                            for buffer in written)
    for (kind, buffer, indices), ivs in accesses:
        # a buffer either loop writes, or (when an argument is written, which may alias another argument) any
        # argument: every access stays in this iteration's slice, on the buffer itself (through a view, `np.flip(b)`
        # or `b[1:]`, the same ivs reach other rows: a read of b's last row in iteration 0, before the other loop
        # wrote it there in its last iteration)
        root, through_view = _root(buffer)
        if root in written or (arguments_written and isinstance(root.owner, ir.Block)):
            if through_view or list(indices)[:n] != ivs:
                return False
    return True


_VIEWS = ("memref.subview", "memref.reinterpret_cast", "memref.expand_shape", "memref.collapse_shape",
          "memref.transpose", "memref.view", "memref.cast")


def _root(buffer) -> tuple:
    """(the buffer a view is of, whether any step to it changes which element an index reaches: a memref.cast
    does not)."""
    through_view = False
    while not isinstance(buffer.owner, ir.Block) and buffer.owner.name in _VIEWS:
        through_view = through_view or buffer.owner.name != "memref.cast"
        buffer = buffer.owner.operands[0]
    return buffer, through_view


def _accesses(loop) -> list:
    """(kind, buffer, indices) of every load and store in the loop; None for an op that touches memory otherwise."""
    found = []
    for op in _ops_inside(loop.operation):
        if op.name == "memref.load":
            found.append(("load", op.operands[0], list(op.operands[1:])))
        elif op.name == "memref.store":
            found.append(("store", op.operands[1], list(op.operands[2:])))
        elif not (op.name in _READ_ONLY or op.name.startswith(_READ_ONLY_PREFIXES) or op.name == "scf.reduce"):
            found.append(None)
    return found


def _plain_buffer(buffer) -> bool:
    owner = buffer.owner
    if isinstance(owner, ir.Block):
        return owner.owner is not None and owner.owner.operation.name == "func.func"   # (a FuncOp's .name is its symbol)
    return owner.name == "memref.alloc"


def _fuse(a, b):
    """Move b's body into a's, over their common leading dims; returns the fused loop."""
    n = _common_dims(a, b)
    a, b = _split_parallel(a, n), _split_parallel(b, n)
    target = a.regions[0].blocks[0]
    _move_body(b, list(target.arguments), list(target.operations)[-1])   # before a's scf.reduce terminator
    return a


def thread_only_large_loops(module: ir.Module, min_work: int) -> None:
    """Give every `omp.parallel` an `if`: threads only when the loop nest does at least `min_work` operations
    (iterations times the ops of one iteration, inner sequential loops included, computed from the run-time
    bounds). Waking the OpenMP workers costs tens of microseconds on a virtual machine; a smaller loop runs in
    the calling thread: a plain copy of the loop nest beside the parallel region (`_sequential_beside`), or, where
    it is not copied, the parallel region serialized (no wake-up, no synchronization, but the OpenMP runtime's
    entry and its dynamic schedule's calls: 0.3-0.5 us of a call on 10 elements). Copies cost compile time (LLVM
    compiles and vectorizes each loop twice: layer norm's kernel took 0.2 -> 0.3 s with every nest copied), so only
    SEQUENTIAL_COPY_OPS operations are copied per function, the first nests': small kernels, whose calls are short
    enough for the runtime's entry to show, get them all; a model's kernel its first few."""
    budget = {}       # func.func -> operations still to copy
    regions = []
    module.operation.walk(lambda op: (op.name == "omp.parallel" and regions.append(op)) or ir.WalkResult.ADVANCE)
    index = ir.IndexType.get()
    for par in regions:
        if len(par.operands):
            continue   # has clauses already: not one of ours
        nests = []
        par.walk(lambda op: (op.name == "omp.loop_nest" and nests.append(op)) or ir.WalkResult.ADVANCE)
        if len(nests) != 1:
            continue
        nest = nests[0]
        inside = {op.operation for op in _ops_inside(par)} | {par.operation}
        n = len(nest.operands) // 3
        with ir.InsertionPoint(par), par.location:
            work = _cost(nest.regions[0], inside, index, min_work)
            for lb, ub in zip(nest.operands[:n], nest.operands[n:2 * n]):   # steps are 1 (from linalg loops)
                work = arith.muli(work, arith.subi(ub, lb))
            cond = arith.cmpi(arith.CmpIPredicate.uge, work, arith.constant(index, min_work))
            guarded = ir.Operation.create("omp.parallel", results=[], operands=[cond], regions=1, attributes={
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0, 1, 0, 0, 0])})
        par.regions[0].blocks[0].append_to(guarded.regions[0])
        erase_with_body(par)
        _schedule_in_chunks(guarded, nest)
        function = _function_of(guarded)
        size = _size(guarded)
        if size <= budget.setdefault(function, SEQUENTIAL_COPY_OPS):
            budget[function] -= size
            _sequential_beside(guarded, cond)


# The most operations of parallel loop nests copied as plain loops per function (thread_only_large_loops)
SEQUENTIAL_COPY_OPS = 32


def _function_of(op):
    op = op.operation
    while op.name != "func.func":
        op = op.parent
    return op


def _size(op) -> int:
    count = [0]
    op.operation.walk(lambda nested: count.__setitem__(0, count[0] + 1) or ir.WalkResult.ADVANCE)
    return count[0]


def _sequential_beside(par, cond) -> None:
    """`scf.if cond {par} else {the same loop nest as scf.for loops}`, for a parallel region that is one loop nest
    without reductions (`omp.parallel { omp.wsloop { omp.loop_nest {body} } }`); other regions stay as they are.
    The copy runs the same body over the same iterations, in the calling thread."""
    ops = list(par.regions[0].blocks[0].operations)
    # (before the loop: arithmetic only, its chunk size: _schedule_in_chunks; a reduction's accumulator is an
    # argument of the wsloop's block, which a plain loop has not: its one operand looks like a chunk's)
    if len(ops) < 2 or ops[-2].operation.name != "omp.wsloop" or len(ops[-2].operands) > 1 \
            or len(ops[-2].regions[0].blocks) != 1 or len(ops[-2].regions[0].blocks[0].arguments) \
            or not all(op.operation.name.startswith("arith.") for op in ops[:-2]):
        return
    inner = list(ops[-2].regions[0].blocks[0].operations)
    if len(inner) != 1 or inner[0].operation.name != "omp.loop_nest" or len(inner[0].regions[0].blocks) != 1:
        return
    # the body's `memref.alloca_scope` (convert-scf-to-openmp's) becomes blocks when the OpenMP region is lowered,
    # which an scf.for cannot hold: the copy takes the scope's contents, where it allocates nothing on the stack
    if any(_allocates_on_stack(op) for op in inner[0].regions[0].blocks[0].operations):
        return
    with ir.InsertionPoint(par), par.location:
        branch = scf.IfOp(cond, [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            then_end = scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            else_end = scf.YieldOp([])
    par.move_before(then_end)
    copy = par.clone(ip=ir.InsertionPoint(else_end))
    copied = list(copy.regions[0].blocks[0].operations)
    for op in copied[:-2]:      # (the arithmetic before the loop, used by the loop only if at all)
        op.move_before(copy)
    nest = list(copied[-2].regions[0].blocks[0].operations)[0]
    n = len(nest.operands) // 3
    bounds = list(nest.operands)
    end, ivs = copy, []
    for k in range(n):
        with ir.InsertionPoint(end), par.location:
            loop = scf.ForOp(bounds[k], bounds[n + k], bounds[2 * n + k])
            with ir.InsertionPoint(loop.body):
                end = scf.YieldOp([])
        ivs.append(loop.induction_variable)
    body = nest.regions[0].blocks[0]
    for arg, iv in zip(body.arguments, ivs):
        arg.replace_all_uses_with(iv)
    for op in list(body.operations):
        if op.operation.name == "memref.alloca_scope":
            for scoped in list(op.regions[0].blocks[0].operations)[:-1]:   # (not its terminator)
                scoped.move_before(end)
        elif op.operation.name != "omp.yield":
            op.move_before(end)
    erase_with_body(copy)


def _allocates_on_stack(op) -> bool:
    found = []
    op.operation.walk(lambda nested: (nested.name in ("memref.alloca", "llvm.alloca") and found.append(nested))
                      or ir.WalkResult.ADVANCE)
    return bool(found)


# A threaded loop is handed out in this many chunks (OpenMP's dynamic schedule), not in one static block per thread:
# a worker that sleeps (after KMP_BLOCKTIME, e.g. while NumPy ran) takes 0.1-0.3 ms to wake on a virtual machine,
# and with static blocks the calling thread waited that long at the end for the worker's half; with chunks it takes
# the chunks the worker has not started. Which thread runs a chunk never changes a result: parallel dims never split
# a reduction.
THREAD_CHUNKS = 16


def _schedule_in_chunks(par, nest) -> None:
    """The `omp.wsloop` of `par` with schedule(dynamic, max(1, iterations / THREAD_CHUNKS))."""
    if THREAD_CHUNKS < 2:
        return   # OpenMP's default: one static block per thread
    wsloops = []
    par.walk(lambda op: (op.name == "omp.wsloop" and wsloops.append(op)) or ir.WalkResult.ADVANCE)
    if len(wsloops) != 1 or len(wsloops[0].operands) or "schedule_kind" in wsloops[0].attributes:
        return
    ws = wsloops[0]
    index = ir.IndexType.get()
    n = len(nest.operands) // 3
    with ir.InsertionPoint(ws), ws.location:
        iterations = arith.constant(index, 1)
        for lb, ub in zip(nest.operands[:n], nest.operands[n:2 * n]):
            iterations = arith.muli(iterations, arith.subi(ub, lb))
        chunk = arith.maxui(arith.divui(iterations, arith.constant(index, THREAD_CHUNKS)), arith.constant(index, 1))
        chunked = ir.Operation.create("omp.wsloop", results=[], operands=[chunk], regions=1, attributes={
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0, 0, 0, 0, 0, 1]),   # the last: schedule_chunk
            "schedule_kind": ir.Attribute.parse("#omp<schedulekind dynamic>")})
    ws.regions[0].blocks[0].append_to(chunked.regions[0])
    erase_with_body(ws)


def _lanes(op) -> int:
    """An op's work in elements: the lanes of its vector result (vector_loops' loops of 16), else 1."""
    return max([ir.VectorType(r.type).shape[0] for r in op.results if isinstance(r.type, ir.VectorType)], default=1)


def _worth_a_thread(callee: str) -> bool:
    """A call of BLAS, or of our own loops sized as BLAS chunks are (gemv_pair.py's chunks of rows, few_rows.py)."""
    return callee in BLAS_SYMBOLS or callee.startswith(WORTH_A_THREAD)


def _cost(region, inside: set, index, min_work: int) -> ir.Value:
    """Operations one execution of `region` performs: 1 per op, an inner scf.for's body times its trip count
    (when its bounds are known before the parallel region; else once). A BLAS chunk (blas_lowering.py) is sized
    to be worth a thread: it counts half of `min_work`, so that two chunks or more run on threads (our own loops
    called per chunk too: _worth_a_thread)."""
    fixed, terms = 0, []
    for block in region.blocks:
        for op in block.operations:
            if op.name == "scf.for" and not any(_defined_inside(v, inside) for v in op.operands[:3]):
                trip = arith.subi(op.operands[1], op.operands[0])
                terms.append(arith.muli(trip, _cost(op.regions[0], inside, index, min_work)))
            elif op.name == "func.call" and _worth_a_thread(ir.FlatSymbolRefAttr(op.attributes["callee"]).value):
                fixed += min_work // 2
            elif len(op.regions):
                terms.extend(_cost(r, inside, index, min_work) for r in op.regions)
            else:
                fixed += _lanes(op)
    total = arith.constant(index, max(fixed, 1))
    for term in terms:
        total = arith.addi(total, term)
    return total
