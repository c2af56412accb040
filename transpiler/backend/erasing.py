"""Erasing an op that has regions (a loop, a linalg op) from a pass written in Python, safely.

Two ways such an erase goes wrong, both found in vector_loops (a process abort in the test suite):
- A value defined inside the op (its results, a nested op's result, a block argument) still used outside it: MLIR
  then ends the process ("LLVM ERROR: operation destroyed but still has uses"), with no Python exception and no
  traceback. `erase_with_body` checks first and raises RuntimeError naming the op, which the driver reports as an
  internal compiler error at the user's function.
- A Python handle to a nested op used after the erase. These bindings hand out a new handle each time an op is
  asked for (a walk, `.parent`, `block.operations`: there is no map from ops to handles), and `erase()` invalidates
  only the handle it is called on; every other handle to the op or to an op nested in it points at freed memory,
  which a later op may reuse (then `==` takes it for that op). Erasing the nested ops one by one through fresh
  handles does not change that. So passes collect only the ops they rewrite (not a whole walk's list, which holds
  the nested ops of those they erase) and drop their handles after the erase.
"""
from __future__ import annotations

from mlir import ir


def erase_with_body(op) -> None:
    """Erase `op` (an ir.Operation or OpView) with everything nested in it, after checking that nothing outside uses
    a value defined inside."""
    op = op.operation
    inside = set()
    op.walk(lambda nested: inside.add(nested) or ir.WalkResult.ADVANCE)
    for nested in inside:
        values = list(nested.results)
        for region in nested.regions:
            for block in region.blocks:
                values.extend(block.arguments)
        for value in values:
            for use in value.uses:
                if use.owner.operation not in inside:
                    raise RuntimeError(f"erasing {op.name}: a value of its {nested.name} is still used by "
                                       f"{use.owner.operation.name} outside it")
    op.erase()
