"""The kernel reports which floating-point events it raised (divide by zero, overflow, underflow, invalid), so that
the call can issue NumPy's RuntimeWarnings (runtime/call.py replays the function as NumPy when one is reported).

IEEE arithmetic records each event in sticky flags of the thread that computed it (MXCSR on x86-64). The entry
function gets one more argument, a `memref<i32>` status word: it clears the flags at entry and stores them at every
return. Flags are per thread, so each OpenMP parallel region does the same for its workers: every thread of the team
but the calling one (thread 0 of the team, whose flags hold the call's events so far) clears its flags at the start of
the region, and every thread ORs them into a slot of the calling function at its end, which the calling thread
sets in its own flags once the region is done. A callee (an outlined `call`) runs in its caller's thread, so its events are its
caller's.

x86-64 only (the flags are read with stmxcsr / written with ldmxcsr, a few cycles each); elsewhere the status word
stays 0 and no warning is issued (docs/guarantees.md).
"""
from __future__ import annotations

import platform

from mlir import ir
from mlir.dialects import arith, llvm, memref

from .blas_lowering import LAPACK_SYMBOLS

# the MXCSR exception flags NumPy reports: invalid (bit 0), divide by zero (2), overflow (3), underflow (4); not
# denormal (1) nor inexact (5). The same bits as glibc's FE_INVALID, FE_DIVBYZERO, FE_OVERFLOW, FE_UNDERFLOW.
INVALID, DIVIDE, OVERFLOW, UNDERFLOW = 1, 4, 8, 16
REPORTED = INVALID | DIVIDE | OVERFLOW | UNDERFLOW
_ALL_FLAGS = 63
SUPPORTED = platform.machine().lower() in ("x86_64", "amd64")
QUIET_CALLS = tuple(LAPACK_SYMBOLS)     # library calls whose events are not the kernel's


def instrument(module: ir.Module) -> None:
    """Add the status argument to the entry function (the one defined with a C interface), last, and the flag
    handling to it and to every omp.parallel region. Runs on func/memref/omp code, before the conversion to the
    LLVM dialect."""
    i32 = ir.IntegerType.get_signless(32)
    status_type = ir.MemRefType.get([], i32)
    entry_fn = None
    for op in module.body.operations:
        if op.operation.name == "func.func" and "llvm.emit_c_interface" in op.attributes and len(op.regions[0].blocks):
            entry_fn = op
    if entry_fn is None:
        raise AssertionError("internal compiler error: no entry function to report floating-point events")
    block = entry_fn.regions[0].blocks[0]
    status = block.add_argument(status_type, entry_fn.location)
    ftype = ir.FunctionType(ir.TypeAttr(entry_fn.attributes["function_type"]).value)
    entry_fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([*ftype.inputs, status_type],
                                                                              ftype.results))
    if "arg_attrs" in entry_fn.attributes:    # one dictionary per argument
        attrs = list(ir.ArrayAttr(entry_fn.attributes["arg_attrs"]))
        entry_fn.attributes["arg_attrs"] = ir.ArrayAttr.get([*attrs, ir.DictAttr.get({})])
    if not SUPPORTED:
        for ret in _returns(entry_fn):
            with ir.InsertionPoint(ret), ret.location:
                memref.store(arith.constant(i32, 0), status, [])
        return
    _quiet_library_calls(module)
    with ir.InsertionPoint(block.operations[0]), entry_fn.location:
        scratch = _slot()
        _clear(scratch)
    for ret in _returns(entry_fn):
        with ir.InsertionPoint(ret), ret.location:
            memref.store(_test(scratch), status, [])
    regions = []
    module.operation.walk(lambda op: (op.name == "omp.parallel" and regions.append(op)) or ir.WalkResult.ADVANCE)
    for par in regions:
        _instrument_region(par)


def _quiet_library_calls(module: ir.Module) -> None:
    """LAPACK's dgesv as NumPy calls it: NumPy's _umath_linalg clears the flags its LAPACK call raised (a NaN in the
    matrix raises no warning); here each such call restores the flags it found."""
    calls = []
    module.operation.walk(lambda op: (op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                                      in QUIET_CALLS and calls.append(op)) or ir.WalkResult.ADVANCE)
    for call in calls:
        fn = call.parent
        while fn.name != "func.func":
            fn = fn.parent
        with ir.InsertionPoint(fn.regions[0].blocks[0].operations[0]), call.location:
            scratch = _slot()
        with ir.InsertionPoint(call), call.location:
            saved = _read(scratch)
        with ir.InsertionPoint.after(call), call.location:
            _write(scratch, saved)


def _returns(fn) -> list:
    found = []
    fn.operation.walk(lambda op: (op.name == "func.return" and found.append(op)) or ir.WalkResult.ADVANCE)
    return found


def _slot():
    """A stack word (for the events, or for stmxcsr / ldmxcsr, which go through memory)."""
    i32 = ir.IntegerType.get_signless(32)
    return llvm.alloca(ir.Type.parse("!llvm.ptr"), arith.constant(i32, 1), i32)


def _instrument_region(par) -> None:
    fn = par.operation.parent
    while fn.name != "func.func":
        fn = fn.parent
    # the calling thread's words live in its function's entry block (an alloca in a loop would grow the stack at
    # every iteration); each thread of the team has its own scratch word, in the region
    with ir.InsertionPoint(fn.regions[0].blocks[0].operations[0]), par.location:
        events, scratch = _slot(), _slot()
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(par), par.location:
        llvm.store(arith.constant(i32, 0), events)
    body = par.regions[0].blocks[0]
    with ir.InsertionPoint(body.operations[0]), par.location:
        # the workers clear their flags (stale ones of earlier work); the calling thread, thread 0 of the team,
        # keeps its own: they hold this call's events so far. (A snapshot of them before the region lost the events
        # of a value computed for it, a hoisted sqrt: LLVM may move pure math past the snapshot, as it may move it
        # anywhere the flags are not read.)
        own = _slot()
        thread = llvm.call(i32, [], [], [], callee=_thread_num(par))
        flags = _read(own)
        cleared = arith.andi(flags, arith.constant(i32, ~_ALL_FLAGS))
        _write(own, arith.select(arith.cmpi(arith.CmpIPredicate.eq, thread, arith.constant(i32, 0)), flags, cleared))
    with ir.InsertionPoint.at_block_terminator(body), par.location:
        llvm.AtomicRMWOp(llvm.AtomicBinOp._or, events, _test(own), llvm.AtomicOrdering.monotonic)
    with ir.InsertionPoint.after(par), par.location:
        _raise(scratch, llvm.load(ir.IntegerType.get_signless(32), events))


def _thread_num(op) -> str:
    """The name of OpenMP's omp_get_thread_num, declared once in the module."""
    module = op.operation
    while module.parent is not None:
        module = module.parent
    name = "omp_get_thread_num"
    body = module.regions[0].blocks[0]
    if not any(o.name == "llvm.func" and ir.StringAttr(o.attributes["sym_name"]).value == name
               for o in body.operations):     # (an llvm.func: the OpenMP lowering declares and reuses this one)
        with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
            llvm.LLVMFuncOp(name, ir.TypeAttr.get(ir.Type.parse("!llvm.func<i32 ()>")))
    return name


def _read(scratch):
    llvm.call_intrinsic(None, "llvm.x86.sse.stmxcsr", [scratch], [], [])
    return llvm.load(ir.IntegerType.get_signless(32), scratch)


def _write(scratch, value) -> None:
    llvm.store(value, scratch)
    llvm.call_intrinsic(None, "llvm.x86.sse.ldmxcsr", [scratch], [], [])


def _test(scratch):
    """The reported flags of this thread, as an i32."""
    return arith.andi(_read(scratch), arith.constant(ir.IntegerType.get_signless(32), REPORTED))


def _clear(scratch) -> None:
    _write(scratch, arith.andi(_read(scratch), arith.constant(ir.IntegerType.get_signless(32), ~_ALL_FLAGS)))


def _raise(scratch, flags) -> None:
    """Set `flags` in this thread's MXCSR (no arithmetic: nothing traps, as the masked exceptions never do)."""
    _write(scratch, arith.ori(_read(scratch), flags))
