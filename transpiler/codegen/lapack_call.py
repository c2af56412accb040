"""`lapack_gesv`: np.linalg.inv and np.linalg.solve as the kernel's own call of LAPACK's dgesv, in the library
NumPy calls it in (the scipy-openblas that NumPy's wheels bundle, runtime/blas.py), instead of a callback into NumPy
(~45 us a call, codegen/numpy_call.py).

NumPy's _umath_linalg does, for each matrix of a stack (numpy/linalg/umath_linalg.cpp, `inv` and `solve`): copy A
into a buffer in Fortran order (linearize), B likewise (the identity for inv, b's matrix or vector for solve),
call `dgesv(N, NRHS, A, LDA, IPIV, B, LDB, INFO)` with LDA = LDB = max(N, 1), and copy B back into the result. The
helpers here do the same steps around the same function, so the results are NumPy's bit for bit (float32 and
integer inputs are converted to float64 first, as NumPy's 'd->d' signature does: frontend/numpy_calls.py). A
nonzero INFO (a zero pivot) sets the op's failed flag, NumPy's LinAlgError("Singular matrix") at the call; the
flags dgesv raises are not the kernel's (NumPy clears them too: backend/fp_status.py).

The operands are strided buffers of any layout (views of the kernel's tensors, no copy in); the copies into Fortran
order are plain loops (no linalg: the helper is defined before the tensor passes run, which must not see it).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization, func, memref, scf, tensor

from ..backend.blas_lowering import LAPACK_SYMBOLS, _dynamic, _index
from .emitter import Emitter, emitter
from .numpy_call import _next_site
from .scalar import declare_external

GESV = next(iter(LAPACK_SYMBOLS))
_HELPER = {"inv": "transpiler_lapack_inv_f64", "solve": "transpiler_lapack_solve_f64"}


@emitter("lapack_gesv")
def _lapack_gesv(em: Emitter, e):
    """inv: inputs (a, the original a) with a of shape (..., n, n); solve: (a, b, the original a and b) with a
    (..., n, n) and b (..., n, k) of the same batch dims. Results: x (float64), the flag of a singular matrix (any
    of the stack), and the flag of the NumPy call made instead where the shapes are not NumPy's (`fallback`,
    codegen/numpy_call.py), which raises NumPy's error."""
    kind = e.params["kind"]
    dyn = ir.ShapedType.get_dynamic_size()
    site = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _next_site(em))
    buffers = []
    for v in e.inputs:
        t = ir.RankedTensorType(em[v].type)
        layout = ir.StridedLayoutAttr.get(dyn, [dyn] * t.rank)
        buffer = bufferization.to_buffer(ir.MemRefType.get(t.shape, t.element_type, layout), em[v], read_only=True)
        buffer.owner.attributes["transpiler.call_site"] = site    # (as codegen/numpy_call.py: never CSE'd)
        buffers.append(buffer)
    count = 1 if kind == "inv" else 2
    operands, originals = buffers[:count], buffers[count:]
    out = e.outputs[0]
    t = em.tensor_type(out)
    result = memref.alloc(ir.MemRefType.get(t.shape, t.element_type),
                          [em.size(d) for d, n in zip(out.shape, t.shape) if n == dyn], [])
    helper = _define_helper(kind)
    i64 = ir.IntegerType.get_signless(64)
    zero = arith.constant(i64, 0)

    def solve_matrix(index: list, failed):
        matrices = [_matrix(x, index) for x in operands + [result]]
        info = func.call([i64], ir.FlatSymbolRefAttr.get(helper), matrices)
        return arith.ori(failed, arith.extui(i64, arith.cmpi(arith.CmpIPredicate.ne, info, zero)))

    branch = scf.IfOp(_numpy_shapes(operands), [i64, i64], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([_over_stack(result, t.rank - 2, [], zero, solve_matrix), zero])
    with ir.InsertionPoint(branch.else_block):
        name = e.params["fallback"]
        passed = [memref.cast(_dynamic(m.type), m) for m in originals + [result]]
        declare_external(name, [p.type for p in passed], i64, c_interface=True)
        status = func.call([i64], ir.FlatSymbolRefAttr.get(name), passed)
        scf.YieldOp([zero, status])
    i8 = ir.IntegerType.get_signless(8)
    flags = [arith.extui(i8, arith.cmpi(arith.CmpIPredicate.ne, r, zero)) for r in branch.results]
    x = bufferization.to_tensor(t, result, restrict=True, writable=True)
    return [x] + [tensor.from_elements(em.tensor_type(v), [f]) for v, f in zip(e.outputs[1:], flags)]


def _numpy_shapes(operands):
    """Whether NumPy takes these shapes: a square (stack of) matrix a, and b (solve) of as many rows."""
    a = operands[0]
    rank = ir.MemRefType(a.type).rank
    n = memref.dim(a, _index(rank - 1))
    ok = arith.cmpi(arith.CmpIPredicate.eq, memref.dim(a, _index(rank - 2)), n)
    if len(operands) == 2:      # (b has a's batch dims, the same while compiling: frontend)
        ok = arith.andi(ok, arith.cmpi(arith.CmpIPredicate.eq, memref.dim(operands[1], _index(rank - 2)), n))
    return ok


def _over_stack(result, batch_dims: int, index: list, failed, body):
    """body(index, failed) for every matrix of the stack (nested loops over the batch dims), OR-ing the flags."""
    if len(index) == batch_dims:
        return body(index, failed)
    loop = scf.ForOp(_index(0), memref.dim(result, _index(len(index))), _index(1), [failed])
    with ir.InsertionPoint(loop.body):
        scf.YieldOp([_over_stack(result, batch_dims, index + [loop.induction_variable], loop.inner_iter_args[0],
                                 body)])
    return loop.results[0]


def _matrix(x, index: list):
    """The matrix x[*index] of a stack (x itself when 2-D), as a fully dynamic strided 2-D buffer."""
    rank = ir.MemRefType(x.type).rank
    target = _dynamic(ir.MemRefType.get([1, 1], ir.MemRefType(x.type).element_type))
    if rank == 2:
        return memref.cast(target, x)
    x = memref.cast(_dynamic(x.type), x)
    sizes = [1] * (rank - 2) + [memref.dim(x, _index(rank - 2)), memref.dim(x, _index(rank - 1))]
    return memref.subview(x, index + [0, 0], sizes, [1] * rank, result_type=target)


def _define_helper(kind: str) -> str:
    """`transpiler_lapack_inv_f64(a, x) -> info` / `transpiler_lapack_solve_f64(a, b, x) -> info`, defined once per
    module: NumPy's linearize, dgesv, delinearize, on one matrix."""
    name = _HELPER[kind]
    module = _module()
    symbols = ir.SymbolTable(module)
    if name in symbols:
        return name
    f64, i64, index = ir.F64Type.get(), ir.IntegerType.get_signless(64), ir.IndexType.get()
    matrix = _dynamic(ir.MemRefType.get([1, 1], f64))
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), ir.Location.unknown():
        if GESV not in symbols:   # (N, NRHS, A, LDA, IPIV, B, LDB, INFO): Fortran, every argument by address
            func.FuncOp(GESV, ([index] * 8, []), visibility="private")
        fn = func.FuncOp(name, ([matrix] * (2 if kind == "inv" else 3), [i64]), visibility="private")
        # never inlined: LLVM moves the caller's math freely (it assumes nobody reads the flags), and math moved
        # between the save and the restore of the flags around dgesv (fp_status.py) would lose its events
        fn.attributes["passthrough"] = ir.ArrayAttr.get([ir.StringAttr.get("noinline")])
    with ir.InsertionPoint(fn.add_entry_block()), ir.Location.unknown():
        a, *rhs, x = fn.arguments
        n = memref.dim(a, _index(0))     # (square, and b of n rows: _numpy_shapes)
        k = n if kind == "inv" else memref.dim(rhs[0], _index(1))
        plain = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()] * 2, f64)
        fortran_a = memref.alloc(plain, [n, n], [])       # fortran_a[j, i] = a[i, j]: column j is row j here
        _transposed_copy(a, fortran_a, n, n)
        fortran_b = memref.alloc(plain, [k, n], [])
        if kind == "inv":
            _identity(fortran_b, n)
        else:
            _transposed_copy(rhs[0], fortran_b, n, k)
        lead = arith.maxsi(n, _index(1))
        pivots = memref.alloc(ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], i64), [lead], [])
        cells = memref.alloca(ir.MemRefType.get([4], i64), [], [])     # N, NRHS, LDA = LDB, INFO
        for i, value in enumerate((n, k, lead, _index(0))):
            memref.store(arith.index_cast(i64, value), cells, [_index(i)])
        base = memref.ExtractAlignedPointerAsIndexOp(cells).result

        def cell(i):
            return arith.addi(base, _index(8 * i))
        address = [memref.ExtractAlignedPointerAsIndexOp(m).result for m in (fortran_a, pivots, fortran_b)]
        func.CallOp([], ir.FlatSymbolRefAttr.get(GESV),
                    [cell(0), cell(1), address[0], cell(2), address[1], address[2], cell(2), cell(3)])
        info = memref.load(cells, [_index(3)])
        _transposed_copy(fortran_b, x, k, n)
        func.ReturnOp([info])
    return name


def _transposed_copy(source, target, rows, cols) -> None:
    """target[j, i] = source[i, j] for source of shape (rows, cols)."""
    outer = scf.ForOp(_index(0), rows, _index(1))
    with ir.InsertionPoint(outer.body):
        inner = scf.ForOp(_index(0), cols, _index(1))
        with ir.InsertionPoint(inner.body):
            i, j = outer.induction_variable, inner.induction_variable
            memref.store(memref.load(source, [i, j]), target, [j, i])
            scf.YieldOp([])
        scf.YieldOp([])


def _identity(target, n) -> None:
    f64 = ir.F64Type.get()
    zero, one = (arith.constant(f64, ir.FloatAttr.get(f64, v)) for v in (0.0, 1.0))
    outer = scf.ForOp(_index(0), n, _index(1))
    with ir.InsertionPoint(outer.body):
        inner = scf.ForOp(_index(0), n, _index(1))
        with ir.InsertionPoint(inner.body):
            i, j = outer.induction_variable, inner.induction_variable
            memref.store(arith.select(arith.cmpi(arith.CmpIPredicate.eq, i, j), one, zero), target, [i, j])
            scf.YieldOp([])
        scf.YieldOp([])


def _module():
    """The module operation being built."""
    op = ir.InsertionPoint.current.block.owner.operation
    while op.name != "builtin.module":
        op = op.parent.operation
    return op
