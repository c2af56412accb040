"""Two matrix-vector products of the same matrix, one with the vector on each side (PolyBench's bicg: `q = A @ p`,
`s = r @ A`), in one pass over the matrix.

Each product alone is a gemv that streams the whole matrix from memory; for a matrix larger than the caches both
are memory-bound, and two gemv calls read it twice. Here one loop reads each row of A once and uses it twice:
`q[i] = A[i, :] . p` and `s += r[i] * A[i, :]`, ROWS rows at a time in vector lanes. The rows are split over as
many chunks as the machine has cores (an `scf.parallel` loop, an OpenMP loop like the others), each chunk adds
into its own row of partial sums of `s`, and the partial rows are added at the end, in chunk order.

Where it applies (`fuse`, on buffers, before matmul_lowering lowers each product alone): two `linalg.matmul` of one
float type in one block that read the same matrix value, one as a matrix times a column, the other as a row times
the matrix (either operand read transposed: the roles swap), whose results are fresh buffers that neither product
reads, with only view, size and arithmetic operations between them, and the second product's zero fill. The pair is
computed where the second product was.

Results: each element is the sum of the same exact products as NumPy's gemv, in another order (lanes of the row's
dot product, then rows in order, chunk by chunk), so within `2 k eps` of `|A| @ |p|` (k the summed length), not
NumPy's bits (docs/guarantees.md, `matmul` row). The split depends only on the machine's cores: the same bits with
or without threads.
"""
from __future__ import annotations

import bisect

from mlir import ir
from mlir.dialects import arith, func, memref, scf, vector

from . import blas_lowering
from .blas_lowering import VECTOR_BYTES, _dynamic, _eq, _index, _plain, _strides, unit_inner

ROWS = 4                       # rows of A per pass over a row of partial sums: one load of s feeds 4 rows
_HELPER = "transpiler_gemv_pair_{}"
_CHAIN = "transpiler_gemv_chain_{}"
_VIEWS = {"memref.expand_shape", "memref.collapse_shape", "memref.subview", "memref.cast", "memref.transpose",
          "memref.reinterpret_cast"}
_HARMLESS = _VIEWS | {"memref.dim", "memref.alloc", "memref.alloca", "memref.extract_strided_metadata"}
_CANONICAL = blas_lowering.MATMUL_MAPS


def fuse(module: ir.Module, ops: list, operand_maps, zero_fill_before, erase, chains: bool) -> list:
    """Replace each fusable pair among the linalg ops `ops` by one call of the pair's helper; the ops left.
    `chains`: whether `(A @ x) @ A` may be fused too (its helper calls OpenBLAS for a matrix whose rows are not
    contiguous)."""
    # each product's role once, and candidate pairs only among products of one matrix (in program order)
    roles = {i: _role(op, operand_maps) for i, op in enumerate(ops) if op.name == "linalg.matmul"}
    by_matrix: dict = {}
    for i, role in roles.items():
        if role is not None:
            by_matrix.setdefault(role[0], []).append(i)
    blocks: dict = {}     # block -> _Block, until a fusion changes it
    done = set()
    for i, role in roles.items():
        for j in by_matrix[role[0]] if role is not None else ():
            if j <= i or i in done or j in done:
                continue
            first, second = ops[i], ops[j]
            pair = _pair(first, second, role, roles[j], blocks, zero_fill_before, chains)
            if pair is None:
                continue
            fills = [zero_fill_before(op) for op in (first, second)]
            with ir.InsertionPoint(second), second.location:
                chained, matrix, *columns = pair
                helper = _helper(module, ir.MemRefType(matrix.type).element_type, chained)
                func.CallOp([], ir.FlatSymbolRefAttr.get(helper), [_dynamic_cast(matrix)] + [c() for c in columns])
            blocks.pop(second.operation.block, None)
            for op in (*[f for f in fills if f is not None], first, second):
                erase(op)
            done.update((i, j))
    return [op for i, op in enumerate(ops) if i not in done]


def _role(op, operand_maps):
    """(matrix operand, whether the product is `matrix @ vector` (else `vector @ matrix`), the vector and the
    result as columns (deferred views), the vector operand), for a float matmul of a matrix and one column or one
    row; else None."""
    maps = operand_maps(op)
    if maps[2] not in (None, _CANONICAL[2]):
        return None
    a, b, c = op.operands
    types = [ir.MemRefType(v.type) for v in (a, b, c)]
    if len({str(t.element_type) for t in types}) != 1 or str(types[0].element_type) not in ("f32", "f64"):
        return None
    read = [m is None or m == _CANONICAL[i] for i, m in enumerate(maps[:2])]
    if any(m not in (None, _CANONICAL[i], _CANONICAL[i][::-1]) for i, m in enumerate(maps[:2])):
        return None
    shapes = [t.shape if read[i] else t.shape[::-1] for i, t in enumerate(types[:2])]
    if shapes[1][1] == 1 and types[2].shape[1] == 1:          # matrix @ column
        return a, read[0], _column(b), _column(c), b
    if shapes[0][0] == 1 and types[2].shape[0] == 1:          # row @ matrix
        return b, not read[1], _column(a), _column(c), a
    return None


def _column(v):
    """A deferred view of `v`, (k, 1) or (1, k), as a (k, 1) column."""
    shape = ir.MemRefType(v.type).shape
    row = shape[0] == 1 and shape[1] != 1
    return lambda: blas_lowering._transpose(_dynamic_cast(v)) if row else _dynamic_cast(v)


def _dynamic_cast(v):
    return memref.cast(_dynamic(v.type), v)


def _owner(v) -> str:
    return "" if isinstance(v.owner, ir.Block) else v.owner.operation.name


def _root(v):
    """The buffer a view is of."""
    while _owner(v) in _VIEWS:
        v = v.owner.operands[0]
    return v


class _Block:
    """Where each operation of a block is, and which may read a product's result or write an operand: one pass
    over the block, for every pair in it."""

    def __init__(self, block):
        self.position, self.unsafe_at, self.unsafe = {}, [], []
        for k, op in enumerate(block.operations):
            self.position[op.operation] = k
            if not (op.name in _HARMLESS or op.name.startswith("arith.")):
                self.unsafe_at.append(k)
                self.unsafe.append(op.operation)

    def unsafe_between(self, first, second) -> list:
        lo, hi = self.position[first.operation], self.position[second.operation]
        return self.unsafe[bisect.bisect_right(self.unsafe_at, lo):bisect.bisect_left(self.unsafe_at, hi)]


def _pair(first, second, first_role, second_role, blocks: dict, zero_fill_before, chains: bool):
    """(chained, matrix, the vector A is dotted with, the vector that scales A's rows, A @ u's column, v @ A's
    column) if the two products (their _roles) can run as one pass; else None. Chained: the second product's
    vector is the first's result (`(A @ x) @ A`: row i scales by its own dot product), allowed where `chains`.
    `blocks`: each block's _Block, made here the first time."""
    block = first.operation.block
    if block != second.operation.block:
        return None
    roles = [first_role, second_role]
    if roles[0][0] != roles[1][0] or roles[0][1] == roles[1][1]:
        return None
    outputs = [_root(op.operands[2]) for op in (first, second)]
    chained = _root(roles[1][4]) == outputs[0]
    if chained and not (chains and roles[0][1]):
        return None     # (`A @ (x @ A)` needs the whole first result before any row of the second)
    inputs = [_root(v) for op in (first, second) for v in list(op.operands)[:2] if not (chained and v == roles[1][4])]
    if not all(_owner(v) == "memref.alloc" for v in outputs) or outputs[0] == outputs[1] or \
            any(v in outputs for v in inputs):
        return None    # (a result that is a view of an input)
    if block not in blocks:
        blocks[block] = _Block(block)
    fill = zero_fill_before(second)
    if any(fill is None or op != fill.operation for op in blocks[block].unsafe_between(first, second)):
        return None   # something that may read the first result or write an operand
    dotted, scaled = (roles[0], roles[1]) if roles[0][1] else (roles[1], roles[0])
    return chained, roles[0][0], dotted[2], scaled[2], dotted[3], scaled[3]


def _helper(module: ir.Module, element, chained: bool) -> str:
    """transpiler_gemv_pair_f64(a, u, v, rows_out, cols_out): rows_out = a @ u, cols_out = v @ a (vectors as
    columns) on fully strided buffers, defined once per module. An `a` with contiguous rows runs as it is; with
    contiguous columns, as its transpose with the roles of the vectors swapped; otherwise a row-major copy of it.
    Chained (transpiler_gemv_chain_f64, v is rows_out: `(a @ u) @ a`): contiguous rows only, in one pass; in
    another layout the two products call the BLAS helper one after the other (each row's dot is needed before it
    scales the row, and a column-major a has no contiguous rows)."""
    name = (_CHAIN if chained else _HELPER).format(element)
    if name in ir.SymbolTable(module.operation):
        return name
    gemm = blas_lowering._helper(module, element) if chained else None
    t = _dynamic(ir.MemRefType.get([1, 1], element))
    with ir.InsertionPoint.at_block_begin(module.body):
        fn = func.FuncOp(name, ([t] * 5, []), visibility="private")
    with ir.InsertionPoint(fn.add_entry_block()):
        a, u, v, rows_out, cols_out = fn.arguments
        s0, s1 = _strides(a)
        one = _index(1)
        by_rows = scf.IfOp(_eq(s1, one), [], has_else=True)
        with ir.InsertionPoint(by_rows.then_block):
            _one_pass(module, unit_inner(a), u, v, rows_out, cols_out, chained)
            scf.YieldOp([])
        with ir.InsertionPoint(by_rows.else_block):
            if chained:
                func.CallOp([], ir.FlatSymbolRefAttr.get(gemm), [a, u, rows_out])
                transpose = blas_lowering._transpose
                func.CallOp([], ir.FlatSymbolRefAttr.get(gemm), [transpose(rows_out), a, transpose(cols_out)])
            else:
                _other_layouts(module, a, u, v, rows_out, cols_out, s0)
            scf.YieldOp([])
        func.ReturnOp([])
    return name


def _other_layouts(module, a, u, v, rows_out, cols_out, s0) -> None:
    element = ir.MemRefType(a.type).element_type
    by_columns = scf.IfOp(_eq(s0, _index(1)), [], has_else=True)
    with ir.InsertionPoint(by_columns.then_block):
        _one_pass(module, unit_inner(blas_lowering._transpose(a)), v, u, cols_out, rows_out, False)
        scf.YieldOp([])
    with ir.InsertionPoint(by_columns.else_block):
        copy = memref.alloc(_plain(element), [memref.dim(a, _index(i)) for i in (0, 1)], [])
        blas_lowering._copy(module, a, copy)
        _one_pass(module, unit_inner(copy), u, v, rows_out, cols_out, False)
        memref.dealloc(copy)
        scf.YieldOp([])


def _one_pass(module, a, u, v, dots, sums, chained: bool) -> None:
    """dots[i] = a[i, :] . u, sums[j] = sum_i v[i] * a[i, j]; a's rows contiguous; vectors and results columns.
    Chained: v is dots (each row's dot is stored before it scales the row)."""
    element = ir.MemRefType(a.type).element_type
    rows, cols = memref.dim(a, _index(0)), memref.dim(a, _index(1))
    zero, one = _index(0), _index(1)
    dense = memref.alloc(ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], element), [cols], [])
    loop = scf.ForOp(zero, cols, one)      # u, contiguous: its lanes are loaded with each row's
    with ir.InsertionPoint(loop.body):
        memref.store(memref.load(u, [loop.induction_variable, zero]), dense, [loop.induction_variable])
        scf.YieldOp([])
    chunks = blas_lowering.chunk_count(arith.muli(rows, cols))
    partial = memref.alloc(_plain(element), [chunks, cols], [])
    # (each chunk a call: loops.thread_only_large_loops counts it as worth a thread, as it counts a BLAS call)
    par = scf.ParallelOp([], [zero], [chunks], [one], [])
    body = par.regions[0].blocks.append(ir.IndexType.get())
    with ir.InsertionPoint(body):
        name = _chunk_function(module, a.type, dense.type, v.type, partial.type, chained)
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), [a, dense, v, dots, partial, body.arguments[0], chunks])
        scf.ReduceOp([], 0)
    add = scf.ParallelOp([], [zero], [cols], [one], [])
    body = add.regions[0].blocks.append(ir.IndexType.get())
    with ir.InsertionPoint(body):
        j = body.arguments[0]
        total = scf.ForOp(one, chunks, one, [memref.load(partial, [zero, j])])
        with ir.InsertionPoint(total.body):
            scf.YieldOp([arith.addf(total.inner_iter_args[0], memref.load(partial, [total.induction_variable, j]))])
        memref.store(total.results[0], sums, [j, zero])
        scf.ReduceOp([], 0)
    memref.dealloc(partial)
    memref.dealloc(dense)


def _chunk_function(module, a_type, dense_type, v_type, partial_type, chained: bool) -> str:
    """The function that runs one chunk of rows (a, dense u, v, dots, partial sums, chunk, chunks), once per module."""
    element = ir.MemRefType(a_type).element_type
    name = (blas_lowering.GEMV_CHAIN_CHUNK if chained else blas_lowering.GEMV_PAIR_CHUNK) + str(element)
    if name in ir.SymbolTable(module.operation):
        return name
    index = ir.IndexType.get()
    with ir.InsertionPoint.at_block_begin(module.body):
        fn = func.FuncOp(name, ([a_type, dense_type, v_type, v_type, partial_type, index, index], []),
                         visibility="private")
    with ir.InsertionPoint(fn.add_entry_block()):
        a, dense, v, dots, partial, chunk, chunks = fn.arguments
        zero, one = _index(0), _index(1)
        rows, cols = memref.dim(a, zero), memref.dim(a, one)
        start = arith.divui(arith.muli(rows, chunk), chunks)
        end = arith.divui(arith.muli(rows, arith.addi(chunk, one)), chunks)
        fill = scf.ForOp(zero, cols, one)
        with ir.InsertionPoint(fill.body):
            memref.store(_float(element, 0.0), partial, [chunk, fill.induction_variable])
            scf.YieldOp([])
        block = _index(ROWS)
        blocked = arith.addi(start, arith.muli(arith.divui(arith.subi(end, start), block), block))
        for lo, hi, step, count in ((start, blocked, block, ROWS), (blocked, end, one, 1)):
            over = scf.ForOp(lo, hi, step)
            with ir.InsertionPoint(over.body):
                i = over.induction_variable
                _rows(a, dense, v, dots, partial, chunk,
                      [arith.addi(i, _index(r)) if r else i for r in range(count)], cols, chained)
                scf.YieldOp([])
        func.ReturnOp([])
    return name


def _rows(a, u, v, dots, partial, chunk, rows: list, cols, chained: bool) -> None:
    """For these rows i of a: dots[i] = a[i, :] . u and partial[chunk, :] += v[i] * a[i, :]: one sweep over the
    rows doing both, or (chained) one for the dots, then one that scales the rows (in the L2 cache by then)."""
    if chained:
        _sweep(a, u, dots, partial, chunk, rows, cols, None)
        _sweep(a, None, None, partial, chunk, rows, cols, [memref.load(v, [i, _index(0)]) for i in rows])
    else:
        _sweep(a, u, dots, partial, chunk, rows, cols, [memref.load(v, [i, _index(0)]) for i in rows])


def _sweep(a, u, dots, partial, chunk, rows: list, cols, scales) -> None:
    """Over the columns, in vector lanes then one by one: where u is given, dots[i] = a[i, :] . u; where scales
    are, partial[chunk, :] += scales[r] * a[rows[r], :] (rows in order)."""
    element = ir.MemRefType(a.type).element_type
    lanes = VECTOR_BYTES * 8 // element.width
    vt = ir.VectorType.get([lanes], element)
    zero, one, width = _index(0), _index(1), _index(lanes)
    vscales = [vector.broadcast(vt, s) for s in scales] if scales is not None else None
    whole = arith.muli(arith.divui(cols, width), width)
    inits = [vector.broadcast(vt, _float(element, 0.0)) for _ in rows] if u is not None else []
    loop = scf.ForOp(zero, whole, width, inits)
    with ir.InsertionPoint(loop.body):
        j = loop.induction_variable
        lanes_of = [vector.load(vt, a, [i, j]) for i in rows]
        if u is not None:
            x = vector.load(vt, u, [j])
            sums = [vector.fma(lane, x, acc) for lane, acc in zip(lanes_of, loop.inner_iter_args)]
        if scales is not None:
            s = vector.load(vt, partial, [chunk, j])
            for lane, scale in zip(lanes_of, vscales):
                s = vector.fma(lane, scale, s)
            vector.store(s, partial, [chunk, j])
        scf.YieldOp(sums if u is not None else [])
    kind = ir.Attribute.parse("#vector.kind<add>")
    reassoc = ir.Attribute.parse("#arith.fastmath<reassoc>")
    dots_so_far = [vector.reduction(element, kind, acc, fastmath=reassoc) for acc in loop.results]
    tail = scf.ForOp(whole, cols, one, dots_so_far)
    with ir.InsertionPoint(tail.body):
        j = tail.induction_variable
        lanes_of = [memref.load(a, [i, j]) for i in rows]
        if u is not None:
            x = memref.load(u, [j])
            sums = [arith.addf(acc, arith.mulf(lane, x)) for lane, acc in zip(lanes_of, tail.inner_iter_args)]
        if scales is not None:
            s = memref.load(partial, [chunk, j])
            for lane, scale in zip(lanes_of, scales):
                s = arith.addf(s, arith.mulf(lane, scale))
            memref.store(s, partial, [chunk, j])
        scf.YieldOp(sums if u is not None else [])
    if u is not None:
        for i, total in zip(rows, tail.results):
            memref.store(total, dots, [i, zero])


def _float(element, value: float):
    return arith.constant(element, ir.FloatAttr.get(element, value))
