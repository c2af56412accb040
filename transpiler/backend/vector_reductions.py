"""Reduction loops that LLVM's vectorizer leaves scalar, split into vector lanes here: float max/min (LLVM does
not reorder NaN-propagating `maximumf`/`minimumf` reductions) and float64 compensated sums (codegen/reduce.py:
the running sum and its error are one dependency chain, about 4 cycles per element).

A candidate is an innermost `scf.for` with step 1 whose body only loads (contiguously along the loop: the
induction variable is the last index of a buffer with unit innermost stride), computes (arith, math) and yields
its accumulators. It becomes a loop over blocks of LANES elements on vectors, the lanes are combined, and the
original loop finishes the remaining elements from the combined values:
- max/min: lanes start at the initial value; combined with `vector.reduction`. The result is exactly the
  sequential one: max and min give the same value in any order (NaN included).
- compensated sum: each lane is a compensated sum of its own elements; the lane sums are then added one by one
  with compensation and the lane errors summed. Like the sequential sum, the result is within rounding of the
  exact sum (the error bound does not grow with the length); it differs from the sequential one in its last bits.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from ..codegen.reduce import COMPENSATED, compensated_add

# Four AVX-512 registers (LLVM splits a vector wider than the host's into registers): four independent chains, as
# one vector max or compensated step takes several cycles before the next one on the same register can start.
VECTOR_BYTES = 256
_MAX_MIN = {"arith.maximumf": "maximumf", "arith.minimumf": "minimumf"}
# The original loop finishes fewer than `lanes` elements: LLVM need not vectorize or unroll it again.
_SCALAR_TAIL = "#llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>"


def vectorize_reductions(module: ir.Module) -> int:
    """Returns how many loops were split into lanes."""
    loops = []
    module.operation.walk(lambda op: (op.name == "scf.for" and loops.append(op)) or ir.WalkResult.ADVANCE,
                          ir.WalkOrder.POST_ORDER)
    count = sum(_vectorize(loop.opview) for loop in loops)
    _vector_fabs(module)
    return count


def _vector_fabs(module: ir.Module) -> None:
    """math.absf on vectors -> llvm.intr.fabs: convert-math-to-libm would make it a fabs call per lane."""
    ops = []
    module.operation.walk(lambda op: (op.name == "math.absf" and ops.append(op)) or ir.WalkResult.ADVANCE)
    for op in ops:
        if _is_vector(op.results[0]):
            with ir.InsertionPoint(op), op.location:
                fabs = ir.Operation.create("llvm.intr.fabs", results=[op.results[0].type], operands=[op.operands[0]])
            op.results[0].replace_all_uses_with(fabs.results[0])
            op.erase()


def _vectorize(loop) -> bool:
    kinds = _reduction_kinds(loop)
    if kinds is None or not _is_const(loop.step, 1):
        return False
    element = loop.inner_iter_args[0].type
    lanes = VECTOR_BYTES * 8 // element.width
    body = list(loop.body.operations)
    varying = {loop.induction_variable, *loop.inner_iter_args}   # values that change along the loop
    for op in body[:-1]:
        if any(v in varying for v in op.operation.operands):
            varying.update(op.operation.results)
    if not all(_vectorizable(op, loop, varying) for op in body[:-1]):
        return False
    with ir.InsertionPoint(loop), loop.location:
        index = ir.IndexType.get()
        width = arith.constant(index, lanes)
        count = arith.subi(loop.upperBound, loop.lowerBound)
        vector_end = arith.addi(loop.lowerBound, arith.muli(arith.divsi(count, width), width))
        vtype = ir.VectorType.get([lanes], element)
        inits = [vector.broadcast(vtype, init if kind in _MAX_MIN.values() else _float(element, 0.0))
                 for kind, init in zip(kinds, loop.initArgs)]
        lanes_loop = scf.ForOp(loop.lowerBound, vector_end, width, inits)
        with ir.InsertionPoint(lanes_loop.body):
            mapped = {loop.induction_variable: lanes_loop.induction_variable}
            mapped.update(zip(loop.inner_iter_args, lanes_loop.inner_iter_args))
            varying = set(mapped)
            for op in body[:-1]:
                _emit(op, mapped, varying, lanes)
            scf.YieldOp([mapped[v] for v in body[-1].operands])
        combined = _combine(kinds, list(loop.initArgs), list(lanes_loop.results), element, lanes)
    loop.operation.operands[0] = vector_end
    loop.operation.attributes["loop_annotation"] = ir.Attribute.parse(_SCALAR_TAIL)
    for i, value in enumerate(combined):
        loop.operation.operands[3 + i] = value
    return True


def _reduction_kinds(loop):
    """Per accumulator: "maximumf"/"minimumf", or "sum"/"error" of a compensated sum; None if not a candidate."""
    if not 1 <= len(loop.inner_iter_args) <= 2:
        return None
    element = loop.inner_iter_args[0].type
    if not any(isinstance(element, t) for t in (ir.F32Type, ir.F64Type)):
        return None
    yields = list(loop.body.operations)[-1].operands
    producers = [None if isinstance(v.owner, ir.Block) else v.owner for v in yields]
    if any(p is None or p.operation.name not in ("arith.addf",) + tuple(_MAX_MIN) for p in producers):
        return None
    if len(yields) == 1:
        op = producers[0].operation
        acc = loop.inner_iter_args[0]
        if op.name in _MAX_MIN and acc in list(op.operands) and len(list(acc.uses)) == 1:
            return [_MAX_MIN[op.name]]
        return None
    marked = [COMPENSATED in p.operation.attributes for p in producers]
    if sorted(marked) != [False, True] or any(a.type != element for a in loop.inner_iter_args):
        return None
    return ["sum" if m else "error" for m in marked]


def _vectorizable(op, loop, varying: set) -> bool:
    op = op.operation
    iv = loop.induction_variable
    if op.name == "memref.load":
        indices = list(op.operands)[1:]
        if not any(i in varying for i in indices):
            return True
        if any(i in varying and i != iv for i in indices):
            return False      # an address computed along the loop (a gather: x[ids[i]]): no contiguous load
        memref_type = ir.MemRefType(op.operands[0].type)
        return indices[-1] == iv and iv not in indices[:-1] and memref_type.get_strides_and_offset()[0][-1] == 1
    if not (op.name.startswith("arith.") or op.name in ("math.absf", "llvm.intr.fma", "llvm.intr.sqrt")) \
            or len(op.regions):
        return False   # other math ops on vectors would become a libm call per lane (vector_math's expansions
        # use only arith ops, fma and sqrt)
    return iv not in list(op.operands)


def _emit(op, mapped: dict, varying: set, lanes: int) -> None:
    """Clone `op` into the lanes loop: on vectors if an operand varies along the loop, else as it is."""
    op = op.operation
    operands = [mapped.get(v, v) for v in op.operands]
    if not any(v in varying for v in op.operands):
        clone = op.clone()
        for i, v in enumerate(operands):
            clone.operands[i] = v
        results = list(clone.results)
    elif op.name == "memref.load":
        vtype = ir.VectorType.get([lanes], op.results[0].type)
        results = [vector.load(vtype, operands[0], operands[1:])]
    else:
        operands = [v if _is_vector(v) else _splat(v, lanes) for v in operands]
        attributes = {named.name: named.attr for named in (op.attributes[i] for i in range(len(op.attributes)))}
        new = ir.Operation.create(op.name, results=[ir.VectorType.get([lanes], r.type) for r in op.results],
                                  operands=operands, attributes=attributes)
        results = list(new.results)
    for old, new in zip(op.results, results):
        mapped[old] = new
        if _is_vector(new):
            varying.add(old)


def _combine(kinds, inits, results, element, lanes) -> list:
    """The scalar accumulators after the lanes loop."""
    if kinds[0] in _MAX_MIN.values():
        return [_combine_max_min(kinds[0], results[0], element, lanes)]
    sums, errors = (results[kinds.index(k)] for k in ("sum", "error"))
    while lanes > 1:   # halves added lane by lane, with compensation: log2(lanes) vector steps
        lanes //= 2
        (s_low, s_high), (e_low, e_high) = (
            [vector.extract_strided_slice(ir.VectorType.get([lanes], element), v, [start], [lanes], [1])
             for start in (0, lanes)] for v in (sums, errors))
        sums, errors = compensated_add(s_low, s_high, arith.addf(e_low, e_high))
    s, e = (inits[kinds.index(k)] for k in ("sum", "error"))
    s, e = compensated_add(s, vector.extract(sums, [], [0]), arith.addf(e, vector.extract(errors, [], [0])))
    return [s if k == "sum" else e for k in kinds]


def _combine_max_min(kind: str, lanes_value, element, lanes: int):
    """The max (min) of the lanes as integers: the bits of a float, its magnitude bits flipped when negative, order
    as signed integers as the floats do (-0.0 just below 0.0), and a NaN lane becomes the largest (smallest) integer,
    whose float is a NaN. A `vector.reduction` of `maximumf` handles NaN and zeros at every step of its shuffle tree
    (~60 dependent instructions for 64 float32 lanes); an integer max tree is one instruction per step."""
    width = element.width
    int_type = ir.IntegerType.get_signless(width)
    vtype = ir.VectorType.get([lanes], int_type)

    def ordered(bits, splat):    # bits ^ (all ones but the sign, when negative); its own inverse: the sign stays
        return arith.xori(bits, arith.shrui(arith.shrsi(bits, splat(width - 1)), splat(1)))

    def vsplat(value):
        return vector.broadcast(vtype, _int_const(int_type, value))

    keys = ordered(vector.bitcast(vtype, lanes_value), vsplat)
    nan_key = (1 << (width - 1)) - 1 if kind == "maximumf" else -(1 << (width - 1))
    unordered = arith.cmpf(arith.CmpFPredicate.UNO, lanes_value, lanes_value)
    keys = arith.select(unordered, vsplat(nan_key), keys)
    best = vector.reduction(int_type, ir.Attribute.parse(f"#vector.kind<{'maxsi' if kind == 'maximumf' else 'minsi'}>"),
                            keys)
    return arith.bitcast(element, ordered(best, lambda v: _int_const(int_type, v)))


def _int_const(int_type, value: int):
    return arith.constant(int_type, ir.IntegerAttr.get(int_type, value))


def _splat(value, lanes: int):
    return vector.broadcast(ir.VectorType.get([lanes], value.type), value)


def _is_vector(value) -> bool:
    return isinstance(value.type, ir.VectorType)


def _float(element, value: float):
    return arith.constant(element, ir.FloatAttr.get(element, value))


def _is_const(value, expected: int) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.operation.name == "arith.constant" and \
        ir.IntegerAttr(owner.attributes["value"]).value == expected
