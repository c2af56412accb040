"""Math on values that are the same for every element of a loop, computed once before it.

Elementwise fusion pulls a 0-d producer into the loops of its consumer (`x * np.sum(x * x) ** -1.5`, `x * y ** -1.5`
of a scalar `y`): the consumer's linalg.generic then reads the 0-d operand through a map with no results, and its
body computes `pow` of that value for every element. vector_math would expand it there into some eighty instructions
per element whose inputs never change; LLVM's loop vectorizer spends time quadratic in such uniform chains (about
2.5 s of compile time for `x * y ** -1.5`, against 0.1 s for `x * np.exp(y)`), and the loop repeats the work n times.

`hoist` moves every such chain that contains a math function out of the generic: the 0-d operands are loaded once
before it, the chain is computed there (scalar code: libm's functions, as NumPy calls them for a scalar), and the body
uses the result. Bufferization has made each input a buffer that the generic does not write, so the value loaded
before the loop is the one every iteration read.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

# pure scalar ops that may be computed before the loop (no memory effects, no regions)
_PURE_PREFIXES = ("arith.", "math.")


def hoist(module: ir.Module) -> int:
    """Returns how many ops were moved out of linalg.generic bodies."""
    generics = []
    module.operation.walk(lambda op: (op.name == "linalg.generic" and generics.append(op)) or ir.WalkResult.ADVANCE)
    return sum(_hoist_one(g) for g in generics)


def _uniform_inputs(generic) -> dict:
    """Block arguments (by position) of inputs read through a map with no results: one value for the whole loop."""
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    inputs = list(generic.opview.inputs)
    uniform = {}
    for k, (operand, amap) in enumerate(zip(inputs, maps)):
        if len(amap.results) == 0 and amap.n_dims > 0:
            uniform[k] = operand
    return uniform


def _hoist_one(generic) -> int:
    body = generic.regions[0].blocks[0]
    uniform_inputs = _uniform_inputs(generic)
    inside = {_identity(op) for op in body.operations}

    def uniform(value, chosen: set) -> bool:
        owner = value.owner
        if isinstance(owner, ir.Block):
            if owner == body:
                return ir.BlockArgument(value).arg_number in uniform_inputs
            return True      # an argument of an enclosing block: defined before the generic
        if _identity(owner) in chosen:
            return True
        return _identity(owner) not in inside

    chosen: set = set()
    chain = []
    for op in body.operations:
        if op.name.startswith(_PURE_PREFIXES) and not len(op.regions) and len(op.results) == 1 \
                and all(uniform(v, chosen) for v in op.operands):
            chosen.add(_identity(op))
            chain.append(op)
    if not any(op.name.startswith("math.") for op in chain):
        return 0
    loaded = {}
    with ir.InsertionPoint(generic), generic.location:
        for k, operand in uniform_inputs.items():
            arg = body.arguments[k]
            if not any(True for _ in arg.uses):
                continue
            if isinstance(operand.type, ir.MemRefType):
                loaded[k] = memref.load(operand, [])
            else:
                loaded[k] = operand        # a scalar operand of the generic
        moved = 0
        for op in chain:
            clone = op.clone(ir.InsertionPoint(generic))
            for i, v in enumerate(op.operands):
                if isinstance(v.owner, ir.Block) and v.owner == body:
                    clone.operands[i] = loaded[ir.BlockArgument(v).arg_number]
            op.results[0].replace_all_uses_with(clone.results[0])
            moved += 1
    for op in reversed(chain):
        op.erase()
    return moved


def _identity(op) -> object:
    """Operations compare by identity of the MLIR operation, not of the Python wrapper."""
    return getattr(op, "operation", op)
