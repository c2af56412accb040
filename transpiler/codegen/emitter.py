"""The walk over the typed program that builds one func.func, and what every primitive emitter shares:
MLIR types for Vars, SSA values for run-time sizes, `tensor.empty` destinations and source locations."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, bufferization, func, tensor

from ..program import RESULT_DESTINATION, Program, Var
from ..types.shapes import Sym
from .scalar import storage_type

EMITTERS: dict = {}
WRITTEN_ATTR = "transpiler.written_arguments"   # the kernel's last results: final contents of these arguments
# the argument that is the returned array, allocated by the call for this call alone (result_destination.py): no
# other argument views it (backend/vector_loops.py stores into it as into a buffer the function allocated)
DESTINATION_ATTR = "transpiler.result_destination"
_INDEX_OPS = {"add": arith.addi, "sub": arith.subi, "mul": arith.muli, "floordiv": arith.floordivsi,
              "min": arith.minsi, "max": arith.maxsi,
              "wrap": lambda i, n: arith.select(arith.cmpi(arith.CmpIPredicate.slt, i, arith.constant(i.type, 0)),
                                                arith.addi(i, n), i),
              "same": lambda a, b: arith.select(arith.cmpi(arith.CmpIPredicate.eq, a, b), a,
                                                arith.constant(a.type, 0)),
              "bcast": lambda a, b: _bcast(a, b),
              "upto": lambda a, b: arith.select(arith.cmpi(arith.CmpIPredicate.sle, a, b), a,
                                                arith.constant(a.type, 0)),
              "ifneg": lambda k, a, b: arith.select(arith.cmpi(arith.CmpIPredicate.slt, k, arith.constant(k.type, 0)),
                                                    a, b)}


def _bcast(a, b):
    """NumPy's broadcast size of a and b (one may be 1), 0 where they do not broadcast (shapes.py "bcast")."""
    one, zero = arith.constant(a.type, 1), arith.constant(a.type, 0)
    eq = arith.CmpIPredicate.eq
    keep_a = arith.ori(arith.cmpi(eq, a, b), arith.cmpi(eq, b, one))
    return arith.select(keep_a, a, arith.select(arith.cmpi(eq, a, one), b, zero))


def emitter(*prims):
    def register(fn):
        for p in prims:
            EMITTERS[p] = fn
        return fn
    return register


class Emitter:
    def __init__(self, program: Program):
        self.program = program
        self.values: dict = {}   # Var id -> ir.Value
        self.sizes: dict = {}    # Sym -> ir.Value of index type
        self.producers: dict = {}  # Var id -> the Eqn that defines it
        # inside an scf region (a loop body, a branch): one-element values there are emitted as scalar code, not
        # as 0-d linalg ops (which would be 0-d buffers every iteration); at the top level the 0-d ops stay, so that
        # elementwise fusion pulls them into the loops that use them
        self.in_region = 0

    # ---- types and sizes ----------------------------------------------------------------------------------------
    def tensor_type(self, v: Var) -> ir.RankedTensorType:
        return self.tensor_type_in(self.program, v)

    @staticmethod
    def tensor_type_in(program: Program, v: Var) -> ir.RankedTensorType:
        """v's tensor type as `program` (this function or a callee) declares it."""
        dyn = ir.ShapedType.get_dynamic_size()
        dims = [program.env.find(d) for d in v.shape]
        return ir.RankedTensorType.get([d if isinstance(d, int) else dyn for d in dims], storage_type(v.dtype))

    def size(self, d) -> ir.Value:
        """The run-time value of a dim (an index), computed from its Sym's origin the first time it is needed."""
        d = self.program.env.find(d)
        if isinstance(d, int):
            return arith.constant(ir.IndexType.get(), d)
        if d not in self.sizes:
            kind, *operands = d.origin
            if kind in ("var", "input"):     # an int computed inside the kernel, or an int argument
                value = tensor.extract(self[operands[-1]], [])
                # an unsigned int (np.arange(x[0]) of a uint8 255) zero-extends: sign-extended it was a negative size
                cast = arith.index_castui if operands[-1].dtype.kind == "u" else arith.index_cast
                if operands[-1].dtype == np.uint64:
                    # past 2**63 - 1 it saturates (a slice bound, which NumPy clamps to the length: y[:2**64 - 1] is
                    # all of y; as the index type it was -1); a size that large was refused before the kernel
                    value = arith.minui(value, arith.constant(value.type, 2**63 - 1))
                self.sizes[d] = cast(ir.IndexType.get(), value)
            elif kind in _INDEX_OPS:
                self.sizes[d] = _INDEX_OPS[kind](*(self.size(o) for o in operands))
            else:
                raise AssertionError(f"size {d} ({kind}) used before the value that defines it")
        return self.sizes[d]

    def available(self, d) -> bool:
        """Whether `size(d)` can be computed here (a joined value's own size is known once that value is made)."""
        d = self.program.env.find(d)
        if isinstance(d, int) or d in self.sizes:
            return True
        kind, *operands = d.origin
        if kind in _INDEX_OPS:
            return all(self.available(o) for o in operands)
        return kind in ("var", "input")

    def empty(self, v: Var, fresh: bool = False) -> ir.Value:
        """A destination tensor for `v` (uninitialized: callers fill or fully overwrite it); `fresh`: one that CSE
        cannot merge with another of the same shape."""
        sizes = [d if isinstance(d, int) else self.size(d) for d in (self.program.env.find(d) for d in v.shape)]
        if fresh:
            return bufferization.alloc_tensor(self.tensor_type(v), [s for s in sizes if not isinstance(s, int)])
        return tensor.empty(sizes, storage_type(v.dtype))

    def cast_to(self, value: ir.Value, v: Var, declared_in: Program | None = None) -> ir.Value:
        """Make a value's static type agree with `v` as declared here (or in a callee's signature): unification
        can make a `?` dim static on one side only."""
        want = self.tensor_type_in(declared_in or self.program, v)
        return value if value.type == want else tensor.cast(want, value)

    def __getitem__(self, v: Var) -> ir.Value:
        return self.values[v.id]

    def bind(self, v: Var, value: ir.Value) -> None:
        self.values[v.id] = value

    def register_sym(self, d, value: ir.Value) -> None:
        if isinstance(d, Sym):
            self.sizes.setdefault(d, value)
            self.sizes.setdefault(self.program.env.find(d), value)

    # ---- the walk -----------------------------------------------------------------------------------------------
    def emit_function(self, public: bool = True) -> func.FuncOp:
        """The kernel (public: returns its results, which the caller adopts) or a callee (private: writes its
        results into destination tensors its caller passes after the inputs, so no buffer changes owner across a
        call and deallocation stays local to each function)."""
        p = self.program
        written = {id(v): final for v, final in p.writes}
        in_types = [self.tensor_type(v) for v in p.inputs]
        out_types = [self.tensor_type(v) for v in p.outputs]
        # the final contents of each argument the program writes are extra results, removed again once
        # bufferization has placed them (backend: written_arguments.py): in the argument's own memory, or copied in
        written_types = [self.tensor_type(v) for v in p.inputs if id(v) in written]
        arg_types = in_types if public else in_types + out_types
        f = func.FuncOp(p.name, (arg_types, out_types + written_types), visibility=None if public else "private")
        if public:
            f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            if RESULT_DESTINATION in p.input_names:
                f.attributes[DESTINATION_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                                    p.input_names.index(RESULT_DESTINATION))
        if written:
            f.attributes[WRITTEN_ATTR] = ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i)
                                                           for i, v in enumerate(p.inputs) if id(v) in written])
        # arrays the caller passes and the program does not write are read-only: bufferization copies before any
        # in-place update of them instead of writing into the caller's memory
        f.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get({} if id(v) in written else
                                                         {"bufferization.writable": ir.BoolAttr.get(False)})
                                        for v in p.inputs] + [ir.DictAttr.get({})] * (len(arg_types) - len(p.inputs)))
        entry = f.add_entry_block()
        with ir.InsertionPoint(entry):
            for v, arg in zip(p.inputs, entry.arguments):
                self.bind(v, arg)
                for axis, d in enumerate(v.shape):
                    if isinstance(d, Sym) and d not in self.sizes:
                        self.register_sym(d, tensor.dim(arg, arith.constant(ir.IndexType.get(), axis)))
            self.emit_eqns(p.eqns)
            results = [self.cast_to(self[v], v) for v in p.outputs]
            if not public:
                destinations = entry.arguments[len(p.inputs):]
                results = [_into_destination(r, d) for r, d in zip(results, destinations)]
            results += [self.cast_to(self[written[id(v)]], v) for v in p.inputs if id(v) in written]
            func.ReturnOp(results)
        return f

    def emit_eqns(self, eqns) -> None:
        for e in eqns:
            loc = ir.Location.file(e.loc.filename, e.loc.lineno, e.loc.col + 1) if e.loc else ir.Location.unknown()
            with loc:
                results = EMITTERS[e.prim](self, e)
                for v in e.outputs:
                    self.producers[v.id] = e
                for v, r in zip(e.outputs, results):
                    r = self.cast_to(r, v)
                    self.bind(v, r)
                    self.register_sizes(v, r)

    def register_sizes(self, v: Var, value: ir.Value) -> None:
        """Sizes first defined by this result (a flattened length, a split piece ...) are read off it."""
        for axis, d in enumerate(v.shape):
            d = self.program.env.find(d)
            if isinstance(d, Sym) and d not in self.sizes:
                self.register_sym(d, tensor.dim(value, arith.constant(ir.IndexType.get(), axis)))


def _into_destination(value: ir.Value, destination: ir.Value) -> ir.Value:
    """A callee's result written into the destination its caller passed. A 0-d one (a scalar, a check flag) is
    stored as one element: CSE may merge two results computed alike (two emptiness checks of one size), and one
    value materialized into two destinations does not bufferize."""
    if not ir.RankedTensorType(value.type).shape:
        return tensor.insert(tensor.extract(value, []), destination, [])
    return bufferization.materialize_in_destination(value.type, value, destination)


def lower_program(program: Program) -> ir.Module:
    """Build the module for `program` in the current ir.Context."""
    with ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            for callee in program.callees:
                Emitter(callee).emit_function(public=False)
            Emitter(program).emit_function()
    if not module.operation.verify():
        raise AssertionError("generated MLIR does not verify")
    return module


# Ops whose results bufferize to a buffer of their own in the identity layout (or block arguments of a function):
# a call may pass them as they are. Anything else (tensor.extract_slice, a reshape of one, a value joined by scf.if
# or carried by a loop) may bufferize to a strided view of another buffer.
_FRESH_PRODUCERS = ("linalg.", "tensor.empty", "bufferization.alloc_tensor", "func.call", "arith.constant",
                    "tensor.generate", "tensor.from_elements")


def _plain_copy(op) -> bool:
    """A linalg op that only copies its input (`x[:, :3].copy()`): canonicalization erases it, leaving the view."""
    if op.name == "linalg.copy":
        return True
    if op.name != "linalg.generic":
        return False
    ops = list(op.regions[0].blocks[0].operations)
    return len(ops) == 1 and len(ops[0].operands) == 1 and isinstance(ops[0].operands[0].owner, ir.Block)


def _contiguous(value: ir.Value) -> ir.Value:
    """value as a call operand: a copy into a buffer of its own where it may be a strided view. Function
    boundaries are bufferized with identity layouts (backend/pipeline.py), where the call casts its operand's
    memref to one: a strided view (`x[:, :3]`, `x[1]`) was then read as if contiguous from its buffer's start,
    wrong elements (tests/test_views_into_calls.py). Outlined callees never write their arguments
    (frontend/outline.py inlines those), so the copy changes no semantics."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        parent = owner.owner
        if getattr(parent, "operation", parent).name == "func.func":   # (loop-carried values may be views)
            return value
    elif any(owner.name.startswith(p) for p in _FRESH_PRODUCERS) and not _plain_copy(owner):
        return value
    if not isinstance(value.type, ir.RankedTensorType):
        return value
    return bufferization.alloc_tensor(value.type, [], copy=value)


@emitter("pack_flags")
def _pack_flags(em: Emitter, e):
    """The program's 0-d check flags as one bool[n] result (driver._packed_flags)."""
    return [tensor.from_elements(em.tensor_type(e.outputs[0]), [tensor.extract(em[v], []) for v in e.inputs])]


@emitter("call")
def _call(em: Emitter, e):
    callee = e.params["_program"]
    operands = [_contiguous(em.cast_to(em[v], formal, callee)) for v, formal in zip(e.inputs, callee.inputs)]
    # each call its own destinations: an alloc_tensor, unlike tensor.empty, is never merged with another call's by
    # CSE (two calls writing one buffer: the second overwrote the first's result while it was still read)
    destinations = [em.cast_to(em.empty(v, fresh=True), formal, callee) for v, formal in zip(e.outputs, callee.outputs)]
    result_types = [em.tensor_type_in(callee, v) for v in callee.outputs]
    call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(callee.name), operands + destinations)
    return list(call.results)
