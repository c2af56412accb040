"""backend/erasing.py: erasing an op with regions checks that nothing outside uses a value defined inside it, and
raises instead of letting MLIR end the process ("operation destroyed but still has uses")."""
import pytest
from mlir import ir

from transpiler.backend.erasing import erase_with_body

LOOP = """
func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.addi %i, %i : index
    scf.for %j = %c0 to %x step %c1 {
      %y = arith.muli %j, %x : index
    }
  }
  return %c0 : index
}"""


def _parts(module):
    entry = module.body.operations[0].regions[0].blocks[0]
    c0, _, loop, ret = list(entry.operations)
    inner_loop = list(loop.regions[0].blocks[0].operations)[1]
    return c0, loop, inner_loop, ret


@pytest.mark.parametrize("leak", ["result", "nested result", "block argument"])
def test_a_value_used_outside_is_refused(leak):
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(LOOP)
        c0, loop, inner_loop, ret = _parts(module)
        body = loop.regions[0].blocks[0]
        value = {"result": list(body.operations)[0].results[0],
                 "nested result": list(inner_loop.regions[0].blocks[0].operations)[0].results[0],
                 "block argument": inner_loop.regions[0].blocks[0].arguments[0]}[leak]
        ret.operands[0] = value
        with pytest.raises(RuntimeError, match="still used by func.return"):
            erase_with_body(loop)
        ret.operands[0] = c0.results[0]     # the loop is still whole: the check comes before the erase
        erase_with_body(loop)
        assert "scf.for" not in str(module)
        module.operation.verify()
