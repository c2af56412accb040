"""Loops run a copy without their index checks when none can fail over the whole range.

A scalar loop that reads `x[i, j]` checks every index (IndexError, as NumPy raises) and carries the failure as a
flag: every iteration tests whether an earlier one failed (a failed check ends the loop, control.py) and records its
own checks. Those flags keep LLVM from vectorizing the loop and cost a few instructions per element. Most checks
compare an index that moves monotonically with the induction variable against a bound fixed during the loop
(`j >= n`, `k - i - 1 < -m`): such a check fails at some iteration of [lb, ub) exactly when it fails at lb or at
ub - 1. So the loop becomes

    if no check fails at lb nor at ub - 1:      (computed before the loop, a few comparisons)
        the loop, with those checks false and its failure flags 0 (canonicalization folds them away)
    else:
        the loop as it was (it fails where NumPy does, and stops there)

The fast copy also assumes what in-bounds indices imply, each checked the same way (at lb and ub - 1): a negative
index's wrap (`i < 0`) is false, a write's in-bounds mask is true, the clamps that keep a read inside the array do
nothing. Its index arithmetic is then plain `base + i` (vectorizable: LLVM needs affine addresses); a loop that
reads `x[i - 1]` from i = 0 (a wrap at lb) keeps the checked copy.

Loops are versioned inner ones first. In an outer loop, an inner loop's two versions are `if any check fails at the
inner loop's ends: checked loop, else: fast loop with flags 0`; that condition is made of such checks evaluated at
the inner loop's bounds, which are themselves monotone in the outer induction variable (`range(i + 1, j)`), so they
count as the outer loop's checks too, and a nest where no index fails runs the fast copy at both levels (see
MAX_HEIGHT). Python int
arithmetic's int64 overflow check on a moving index (`k + 1`: the exact sum in i128 compared with its truncation) is
such a check as well: true outside an interval of a monotone value.

Both copies compute the same thing whenever the first is taken, so nothing observable changes; only the cost does.
A failure flag is an i8/i1 value the loop carries from 0 whose yielded value is, whatever the path, an `or` of such
checks and flags (checks under a condition count whatever the condition: a safe over-approximation). A loop with any
other kind of flag, or with a check that is not monotone in the induction variable (`x[a[i]]`, `x[i * i]`), keeps
that flag and, if none is left, is not versioned.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

# arith.cmpi predicates whose true set over a monotone integer function is a half-line: slt, sle, sgt, sge.
_ORDERED = {2, 3, 4, 5}
# Computed ahead of the loop (at its first and last index): arith operations that cannot trap or be undefined
# (no division), so evaluating them where the loop would not is harmless.
_SPECULATABLE = {"arith.constant", "arith.index_cast", "arith.extsi", "arith.extui", "arith.trunci", "arith.addi",
                 "arith.subi", "arith.muli", "arith.cmpi", "arith.select", "arith.andi", "arith.ori", "arith.xori",
                 "arith.maxsi", "arith.minsi"}
# One operand moving with the induction variable, the other fixed: the result moves monotonically with it (index
# arithmetic on sizes and loop bounds, which stays far from overflow).
_MONOTONE = {"arith.index_cast", "arith.extsi", "arith.addi", "arith.subi", "arith.maxsi", "arith.minsi"}


def version_checked_loops(module: ir.Module) -> int:
    """Returns how many loops were versioned."""
    loops = []

    def visit(op):
        if op.name == "scf.for" and _height(op) <= MAX_HEIGHT:
            loops.append(op)
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)      # (post-order: inner loops first, their versions then seen by the outer ones)
    return sum(_version(loop.opview) for loop in loops)


# Loops versioned: innermost ones (height 1) and those whose inner loops are innermost (2). Each level doubles the code
# below it less what the fast copies fold away; a third level (nussinov's i loop) made its compile 1.6 -> 4.4 s for
# flags tested once per outer iteration.
MAX_HEIGHT = 2


def _height(op) -> int:
    """1 for a loop with no loop inside, else 1 + the largest height of the loops inside."""
    inner = [0]

    def visit(nested):
        if nested != op and nested.name in ("scf.for", "scf.while", "scf.parallel", "scf.forall"):
            inner[0] = max(inner[0], _height(nested))
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE
    op.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return 1 + inner[0]


def _inside(value, loop) -> bool:
    """Whether `value` is defined in the loop's body (an operation in it, or one of its block arguments)."""
    owner = value.owner
    op = owner.owner if isinstance(owner, ir.Block) else owner
    while op is not None:
        op = op.operation
        if op == loop.operation:
            return True
        op = op.parent
    return False


def _zero_constant(value) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    return isinstance(attr, ir.IntegerAttr) and ir.IntegerAttr(attr).value == 0


def _computable(value, loop) -> bool:
    """`value` can be computed before the loop for a given induction variable: it is the induction variable, is
    defined outside the loop, or comes from _SPECULATABLE operations on such values (not from a carried value)."""
    if value == loop.induction_variable or not _inside(value, loop):
        return True
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name in _SPECULATABLE \
        and all(_computable(v, loop) for v in owner.operands)


def _moves(value, loop) -> bool:
    if value == loop.induction_variable:
        return True
    owner = value.owner
    return _inside(value, loop) and not isinstance(owner, ir.Block) and any(_moves(v, loop) for v in owner.operands)


def _monotone(value, loop, assumed=()) -> bool:
    """A computable `value` that is fixed during the loop, or the induction variable, or a chain of _MONOTONE ops
    with one operand moving with it, or a select on an `assumed` comparison (op, value) of the one it picks."""
    if value == loop.induction_variable or not _moves(value, loop):
        return True
    owner = value.owner
    if owner.name == "arith.select":
        for op, expected in assumed:
            if owner.operands[0].owner == op:
                return _monotone(owner.operands[1 if expected else 2], loop, assumed)
        return False
    if owner.name not in _MONOTONE:
        return False
    moving = [v for v in owner.operands if _moves(v, loop)]
    return len(moving) == 1 and _monotone(moving[0], loop, assumed)


def _index_assumptions(loop, checks) -> tuple[list, list]:
    """The comparisons and clamps of index arithmetic that have one value in the whole loop when every index is in
    [0, size) (what the fast copy assumes, besides its checks being false): the wrap of a negative index
    (`i < 0` picking `i + n`) false, a write's in-bounds mask (`i >= -n`, `i < n`) true, and the clamps that keep
    a read in bounds (`max(i, 0)`, `min(i, n - 1)`) doing nothing. Comparisons used only by selects and ands
    (not user conditions); returns ([(cmpi, expected)], [clamp])."""
    ops = _walk(loop)
    compares = []
    for op in ops:
        if op.name != "arith.cmpi" or any(op == c for c in checks) or not _monotone_check(op, loop):
            continue
        users = [use.owner for use in op.results[0].uses]
        if not users or any(u.name not in ("arith.select", "arith.andi") for u in users):
            continue
        lhs, rhs = op.operands
        if _moves(rhs, loop) or not _moves(lhs, loop):
            continue
        predicate = ir.IntegerAttr(op.attributes["predicate"]).value
        below = predicate in (2, 3)                                 # slt, sle: "index below the bound"
        # against 0 or -n, an index in [0, n) is above; against anything else (n, n - 1), below
        lower_bound = _zero_constant(rhs) or (not isinstance(rhs.owner, ir.Block) and rhs.owner.name == "arith.subi"
                                              and _zero_constant(rhs.owner.operands[0]))
        compares.append((op, below != lower_bound))
    clamps = [op for op in ops if op.name in ("arith.maxsi", "arith.minsi")
              and sum(_moves(v, loop) for v in op.operands) == 1
              and all(_computable(v, loop) for v in op.operands)
              and _monotone(next(v for v in op.operands if _moves(v, loop)), loop, compares)]
    return compares, clamps


def _monotone_check(op, loop) -> bool:
    if op.name != "arith.cmpi" or ir.IntegerAttr(op.attributes["predicate"]).value not in _ORDERED:
        return False
    if not all(_computable(v, loop) for v in op.operands):
        return False
    moving = [v for v in op.operands if _moves(v, loop)]
    return len(moving) <= 1 and all(_monotone(v, loop) for v in moving)


def _int64_valued(value) -> bool:
    """A sign-extended int64 value, or a constant in the int64 range (canonicalization folds extsi of one)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return False
    if owner.name == "arith.extsi":
        return True
    if owner.name != "arith.constant" or not isinstance(owner.attributes["value"], ir.IntegerAttr):
        return False
    return -2**63 <= ir.IntegerAttr(owner.attributes["value"]).value < 2**63


def _overflow_check(op, loop) -> bool:
    """Python int arithmetic's int64 overflow check (codegen/scalar.int_overflows: `wide != sext(trunc(wide))`, the
    exact sum or difference in i128) on a `wide` that is computable and monotone in the induction variable (`k + 1`).
    It is true where wide leaves [-2**63, 2**63), the complement of an interval: the iterations where it is false
    form an interval too, so it fails somewhere in [lb, ub) exactly when it fails at lb or at ub - 1."""
    if op.name != "arith.cmpi" or ir.IntegerAttr(op.attributes["predicate"]).value != 1:       # ne
        return False
    for wide, narrowed in (op.operands, reversed(list(op.operands))):
        inner = narrowed.owner
        if isinstance(inner, ir.Block) or inner.name != "arith.extsi":
            continue
        truncated = inner.operands[0].owner
        if isinstance(truncated, ir.Block) or truncated.name != "arith.trunci" or truncated.operands[0] != wide:
            continue
        exact = wide.owner
        # i128 sums and differences of sign-extended int64 values are exact: monotone, never wrapping
        if isinstance(exact, ir.Block) or exact.name not in ("arith.addi", "arith.subi") \
                or not all(_int64_valued(v) for v in exact.operands):
            continue
        return _computable(wide, loop) and _monotone(wide, loop)
    return False


def _negated_check(op, loop) -> bool:
    """`not c` for a monotone comparison c (an inner loop's versioning condition holds such, for the index
    assumptions it made: `i >= -n` expected true): the complement of a half-line is one."""
    if op.name != "arith.xori":
        return False
    a, b = op.operands
    for constant, compare in ((a, b), (b, a)):
        owner = constant.owner
        if not isinstance(owner, ir.Block) and owner.name == "arith.constant" \
                and isinstance(owner.attributes["value"], ir.IntegerAttr) \
                and ir.IntegerAttr(owner.attributes["value"]).value in (1, -1) \
                and not isinstance(compare.owner, ir.Block) and _monotone_check(compare.owner, loop):
            return True
    return False


def _leaves(value, loop, flags: set, checks: list) -> bool:
    """Whether `value` is 0 in every iteration once the checks it depends on (appended to `checks`) are false and
    the carried `flags` (block argument numbers) are 0."""
    if _zero_constant(value):
        return True
    owner = value.owner
    if isinstance(owner, ir.Block):
        # the body's arguments: the induction variable, then the carried values
        return owner.owner == loop.operation and ir.BlockArgument(value).arg_number - 1 in flags
    if not _inside(value, loop):
        return False
    name = owner.name
    if name in ("arith.extui", "arith.extsi", "arith.trunci"):
        return _leaves(owner.operands[0], loop, flags, checks)
    if name == "arith.ori":
        return all(_leaves(v, loop, flags, checks) for v in owner.operands)
    if name == "arith.cmpi" and ir.IntegerAttr(owner.attributes["predicate"]).value == 1 \
            and _zero_constant(owner.operands[1]):                   # flag != 0
        return _leaves(owner.operands[0], loop, flags, checks)
    if name == "scf.if":
        number = ir.OpResult(value).result_number
        blocks = [region.blocks[0] for region in owner.regions if len(region.blocks)]
        if len(blocks) != 2:
            return False
        then, else_ = (_terminator(b).operands[number] for b in blocks)
        if _leaves(else_, loop, flags, checks) and _leaves(then, loop, flags, checks):
            return True
        # an inner loop's versions (`if any check fails at its ends: checked loop, else: fast loop, flags 0`): with
        # the checks its condition is made of false, the condition is, and the flag comes from the fast loop
        trial = list(checks)
        if _leaves(else_, loop, flags, trial) and _leaves(owner.operands[0], loop, flags, trial):
            checks[:] = trial
            return True
        return False
    if _monotone_check(owner, loop) or _overflow_check(owner, loop) or _negated_check(owner, loop):
        if not any(owner == c for c in checks):
            checks.append(owner)
        return True
    return False


def _terminator(block):
    ops = list(block.operations)
    return ops[-1]


def _failure_flags(loop) -> tuple[set, list]:
    """The carried failure flags (their numbers among the iteration arguments) and the checks that set them: the
    largest set of i1/i8 arguments starting from 0 whose yielded values are ors of checks and of each other."""
    inits = list(loop.initArgs)
    flags = {n for n, v in enumerate(inits)
             if isinstance(v.type, ir.IntegerType) and ir.IntegerType(v.type).width in (1, 8) and _zero_constant(v)}
    yielded = list(_terminator(loop.body).operands)
    while flags:
        checks: list = []
        bad = {n for n in flags if not _leaves(yielded[n], loop, flags, checks)}
        if not bad:
            return flags, checks
        flags -= bad
    return set(), []


def _evaluate(value, loop, at, ip, memo):
    """`value` computed before the loop with the induction variable equal to `at`."""
    if value == loop.induction_variable:
        return at
    if not _inside(value, loop):
        return value
    key = value
    for known, computed in memo:
        if known == key:
            return computed
    owner = value.owner
    operands = [_evaluate(v, loop, at, ip, memo) for v in owner.operands]
    copy = owner.clone(ip=ip)
    for n, v in enumerate(operands):
        copy.operands[n] = v
    result = copy.results[ir.OpResult(value).result_number]
    memo.append((key, result))
    return result


def _version(loop) -> bool:
    if "unsignedCmp" in loop.attributes:
        return False
    flags, checks = _failure_flags(loop)
    if not flags:
        return False
    compares, clamps = _index_assumptions(loop, checks)
    with ir.InsertionPoint(loop.operation), loop.location:
        ip = ir.InsertionPoint(loop.operation)
        one = arith.ConstantOp(ir.IndexType.get(), 1).result
        last = arith.SubIOp(loop.upperBound, one).result
        true = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
        failing = []
        for at in (loop.lowerBound, last):
            memo: list = []
            failing += [_evaluate(check.results[0], loop, at, ip, memo) for check in checks]
            for op, expected in compares:
                value = _evaluate(op.results[0], loop, at, ip, memo)
                failing.append(arith.XOrIOp(value, true).result if expected else value)
            for op in clamps:
                moving = next(v for v in op.operands if _moves(v, loop))
                bound = next(v for v in op.operands if v != moving)
                predicate = arith.CmpIPredicate.slt if op.name == "arith.maxsi" else arith.CmpIPredicate.sgt
                failing.append(arith.cmpi(predicate, _evaluate(moving, loop, at, ip, memo),
                                          _evaluate(bound, loop, at, ip, memo)))
        any_fails = failing[0] if failing else arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result
        for f in failing[1:]:
            any_fails = arith.OrIOp(any_fails, f).result
        types = [r.type for r in loop.results]
        branch = scf.IfOp(any_fails, types, has_else=True)
    for old, new in zip(loop.results, branch.results):
        old.replace_all_uses_with(new)
    with ir.InsertionPoint(branch.then_block), loop.location:
        checked = scf.YieldOp(list(loop.results))
    loop.operation.move_before(checked)
    with ir.InsertionPoint(branch.else_block), loop.location:
        fast = loop.operation.clone()
        fast_loop = fast.opview
        copied_checks = _same_ops(loop, fast_loop, checks)
        copied_compares = _same_ops(loop, fast_loop, [op for op, _ in compares])
        copied_clamps = _same_ops(loop, fast_loop, clamps)
        with ir.InsertionPoint.at_block_begin(fast_loop.body):
            false = arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result
            true = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
            for check in copied_checks:
                check.results[0].replace_all_uses_with(false)
            for (_, expected), copy in zip(compares, copied_compares):
                copy.results[0].replace_all_uses_with(true if expected else false)
            for clamp in copied_clamps:
                moving = next(v for v in clamp.operands if _moves(v, fast_loop))
                clamp.results[0].replace_all_uses_with(moving)
            for n in sorted(flags):
                arg = fast_loop.inner_iter_args[n]
                arg.replace_all_uses_with(arith.ConstantOp(arg.type, 0).result)
        outs = []
        for n, result in enumerate(fast.results):
            outs.append(arith.ConstantOp(result.type, 0).result if n in flags else result)
        scf.YieldOp(outs)
    return True


def _walk(op) -> list:
    ops = []
    op.operation.walk(lambda inner: ops.append(inner) or ir.WalkResult.ADVANCE)
    return ops


def _same_ops(loop, copy, ops) -> list:
    """The operations of `copy` (a clone of `loop`) at the places of `ops` in `loop`, in the order of `ops`."""
    originals, copies = _walk(loop), _walk(copy)
    return [copies[next(n for n, original in enumerate(originals) if original == op)] for op in ops]
