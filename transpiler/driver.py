"""The pipeline, top to bottom: source -> typed program -> MLIR -> optimized MLIR -> LLVM dialect -> kernel.
Each stage is a function; `emit` stops at any of them and prints it."""
from __future__ import annotations

import inspect
import io
import re
import types
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.passmanager import PassManager

from . import codegen, compile_log
from .backend import pipeline
from .errors import CompileError, UserError, compile_error
from .frontend.source import function_source
from .frontend.builder import Builder
from .frontend.infer import Interpreter
from .program import Eqn, Program, Var, kernel_symbol
from .result_destination import pass_result_destination
from .runtime import allocation, disk_cache, result_cache
from .runtime.globals_guard import GlobalsGuard
from .runtime import blas, errstate
from .runtime.jit import Kernel, llvm_options, openmp_library
from .runtime.objects import LoadError
from .runtime.signature import abstract, result_template

STAGES = ("typed", "mlir", "optimized", "llvm")


@dataclass
class Typed:
    program: Program
    template: object   # how to rebuild the Python return value from the kernel's results
    # floating-point events NumPy raised in what was folded while compiling (`1 / np.float64(0)`): NumPy raises them
    # at every call, so every call reports them (errstate.py's event bits)
    folded_events: int = 0
    # attributes of argument objects the call rebinds: (the object's index among the call's objects, the attribute's
    # name, how to rebuild its value from the kernel's results), set on the caller's object after the call
    attributes: tuple = ()
    # (class, name) of the attributes among them rebound to Python ints or floats (api.Transpiled makes them run-time
    # values from then on)
    rebound_numbers: frozenset = frozenset()
    # the input the returned array is written into, allocated by the call (result_destination.py); None: the kernel
    # allocates its results
    destination: int | None = None

    def __post_init__(self):
        # what each call checks, derived once: module-level arrays the kernel folded in (valid while unchanged),
        # the shapes of arrays it makes that could exceed memory, and the inputs it writes in place
        self.globals_guard = GlobalsGuard(self.program.globals_read)
        self.allocations = allocation.plan(self.program)
        written = {id(v) for v, _ in self.program.writes}
        self.written = [i for i, v in enumerate(self.program.inputs) if id(v) in written and i != self.destination]


def trace_free_typing(fn, keys: list, names: list) -> Typed:
    """Interpret `fn` over abstract arguments described by their specialization keys."""
    inputs, input_names = [], []
    objects: dict = {}   # argument objects by their index in the key: one object passed twice is one object
    values = {n: abstract(k, n, inputs, input_names, objects) for k, n in zip(keys, names)}
    call = inspect.BoundArguments(inspect.signature(fn), values)  # back to positional/keyword as bound
    program = Program(kernel_symbol(fn.__name__), inputs, input_names)
    builder = Builder(program)
    builder.top_level = True     # (sizes made from its int arguments are checked before the call: kernel_size)
    interp = Interpreter(builder, objects.values())
    interp.attributes.register(objects, values)
    folded: list = []
    try:   # folding `1 / np.float64(0)` while compiling prints no NumPy warning; the call will (Typed.folded_events)
        with np.errstate(all="call", call=lambda kind, flag: folded.append(kind)):
            value = interp.run(fn, list(call.args), call.kwargs)
    except CompileError as e:
        _assumed(e, program)
        raise
    except RecursionError as e:
        raise compile_error(f"program too deeply nested: {e}") from None
    except Exception as e:  # a compiler bug: still point at the source being compiled
        loc = getattr(e, "transpiler_loc", None) or interp.b.loc
        raise compile_error(f"internal compiler error: {type(e).__name__}: {e}", *(
            (loc.filename, loc.lineno, loc.col) if loc else ())) from e
    outputs: list = []
    try:
        template = result_template(value, inputs, outputs)
        attributes = tuple(_attribute_template(interp, write, inputs, outputs) for write in interp.attribute_writes)
        if interp.b.memory is not None:    # a returned value taken before a write it cannot follow: refused
            interp.b.memory.check_returned(outputs)
    except UserError as e:   # (at the last `return` interpreted: the value it returns, or one joined with it)
        src = function_source(fn)
        node = interp.last_return or src.node
        raise _assumed(compile_error(str(e), src.filename, node.lineno, node.col_offset, e.kind), program) from None
    program.outputs = outputs + _packed_flags(program)   # the check flags come back last, as one array
    program.callees = interp.outliner.programs
    destination = pass_result_destination(program, template, attributes)
    program.check()
    rebound_numbers = frozenset((type(objects[index]), name) for index, name, value, _ in interp.attribute_writes
                                if _python_number(value))
    return Typed(program, template, errstate.event_bits(folded), attributes, rebound_numbers, destination)


def _packed_flags(program: Program) -> list:
    """The check flags as one bool[n] result (runtime/call.py reads it): a function with many checks (a loop nest
    has one per index) returned one 0-d buffer per flag, each allocated by the kernel and wrapped in an array by
    the call: 50 flags cost about 10 us a call."""
    if not program.checks:
        return []
    flags = [flag for flag, _, _ in program.checks]
    packed = Var(np.dtype(bool), (len(flags),))
    program.eqns.append(Eqn("pack_flags", flags, [packed], {}, None))
    return [packed]


def _assumed(error: CompileError, program: Program) -> CompileError:
    """Keep with a typing's error the run-time sizes it assumed (shapes.ShapeEnv's guards: a dim unified with a
    constant or another dim by a concatenation or a broadcast): the error may follow from them (`x[:, 3]` after
    `np.concatenate((x, np.zeros((2, 3))))` made x.shape[1] 3), while for sizes that break them NumPy fails earlier
    or not at all. api.py checks them at each call and runs the function as NumPy where they do not hold."""
    env = program.env
    if (env.guards or env.nonzero) and not hasattr(error, "assumed"):
        error.assumed = (env, list(program.implicit), len(program.inputs))
    return error


def _python_number(value) -> bool:
    if isinstance(value, Var):
        return value.weak and value.dtype.kind in "if" and not value.ndim
    return type(value) in (int, float)


def _attribute_template(interp, write, inputs: list, outputs: list) -> tuple:
    """(object index, name, template) of a rebound attribute; a value the call cannot give back is refused at the
    attribute's (first) assignment."""
    index, name, value, key = write
    try:
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type, np.ufunc)):
            return index, name, ("const", value)
        return index, name, result_template(value, inputs, outputs)
    except UserError as e:
        raise compile_error(f"{e} (the value of the attribute '{key}' after the call)", *interp.attributes.where[key],
                            e.kind) from None


def to_mlir(typed: Typed, context: ir.Context) -> ir.Module:
    with context:
        return codegen.lower_program(typed.program)


def _internal_errors(typed: Typed):
    """Anything that fails after typing (an MLIR verifier or pass error) is a compiler bug: report it as a
    CompileError at the compiled function, never as a raw MLIRError."""
    import contextlib

    @contextlib.contextmanager
    def guard():
        try:
            yield
        except CompileError:
            raise
        except Exception as e:
            loc = next((eq.loc for eq in typed.program.eqns if eq.loc), None)
            where = (loc.filename, loc.lineno, loc.col) if loc else ()
            raise compile_error(f"internal compiler error: {type(e).__name__}: {e}", *where) from e
    return guard()


def new_context() -> ir.Context:
    """An MLIR context without its own thread pool. With one, the pass manager runs function passes on pool threads,
    and a context inherited by a forked child (a ProcessPoolExecutor worker: garbage not yet collected when the
    parent forked) joins threads that do not exist there when it is destroyed: a worker crashed with a segmentation
    fault while collecting garbage. Our passes are a small part of compile time (LLVM's code generation, on the
    calling thread, is most of it)."""
    ctx = ir.Context()
    ctx.enable_multithreading(False)
    return ctx


def stage_text(typed: Typed, stage: str) -> str:
    with _internal_errors(typed):
        return _stage_text(typed, stage)


def _stage_text(typed: Typed, stage: str) -> str:
    if stage == "typed":
        return typed.program.text()
    with new_context() as ctx:
        module = to_mlir(typed, ctx)
        if stage in ("optimized", "llvm"):
            pipeline.optimize(module)
        if stage == "llvm":
            pipeline.lower_to_llvm(module)
        return str(module)


def compile_kernel(typed: Typed, opt_level: int = 3, use_disk_cache: bool = True, threads: bool = True,
                   stages=None) -> Kernel:
    """The kernel for this program: from the disk cache when it holds one for the same MLIR and options, else
    compiled (and stored there). Threads need the OpenMP runtime; without it loops stay sequential. `stages`
    (compile_log.Compilation) times each stage and learns where the kernel came from."""
    threads = threads and openmp_library() is not None
    with _internal_errors(typed):
        return _compile_kernel(typed, opt_level, use_disk_cache, threads, stages or compile_log.NoStages())


# What in a program's MLIR can raise a floating-point event: float arithmetic, comparisons and conversions, math and
# complex ops, matrix products, calls (into NumPy or a callee). A kernel with none of them (copies, integer
# arithmetic, indexing) never reports one, so a call that writes an argument need not keep its old contents for a
# replay (runtime/call.py).
_RAISING = re.compile(r"\barith\.(?:addf|subf|mulf|divf|remf|cmpf|maximumf|minimumf|maxnumf|minnumf|fptosi|fptoui|"
                      r"truncf|extf)\b|\b(?:math|complex)\.|\blinalg\.(?:matmul|batch_matmul|contract|matvec|vecmat|dot)\b|"
                      r"\bfunc\.call\b")


def may_raise(mlir_text: str) -> bool:
    return _RAISING.search(mlir_text) is not None


def mlir_identity(module: ir.Module) -> bytes:
    """What the disk cache keys on: the module as MLIR bytecode, without its source locations. It holds what the
    module's text holds (the text prints no locations) and takes 3-5 ms for GPT-2 where printing the text took ~30
    ms of a first call from the cache."""
    copy = module.operation.clone()
    try:
        manager = PassManager.parse("builtin.module(strip-debuginfo)", context=module.context)
        manager.run(copy)
        data = io.BytesIO()
        copy.write_bytecode(data)
        return data.getvalue()
    finally:
        copy.erase()


def _compile_kernel(typed: Typed, opt_level: int, use_disk_cache: bool, threads: bool, stages) -> Kernel:
    outs = typed.program.outputs
    name, dtypes, ranks = typed.program.name, [np.dtype(v.dtype) for v in outs], [v.ndim for v in outs]
    ctx = new_context()
    with ctx:
        with stages.stage("mlir"):
            module = to_mlir(typed, ctx)
        key = None
        if use_disk_cache and disk_cache.directory():
            options = (f"O{opt_level} threads={threads} llvm={' '.join(llvm_options())}"
                       f" openblas={blas.direct_available()} result_cache={result_cache.enabled()}")
            with stages.stage("disk cache"):
                key = disk_cache.key(mlir_identity(module), name, options)
                entry = disk_cache.load(key)
                kernel = None
                if entry is not None:
                    try:
                        kernel = Kernel.load(entry.object_files, entry.library_functions, name, dtypes, ranks)
                    except (LoadError, KeyError, ValueError):
                        disk_cache.discard(key)   # e.g. a symbol this process lacks, an unknown library function
            if kernel is not None:
                stages.source = "loaded from the disk cache"
                kernel.may_raise = entry.may_raise or bool(typed.folded_events)
                kernel.folded_events = typed.folded_events
                return kernel
        stages.source = "compiled" + (" (disk cache miss)" if key else "")
        raises = may_raise(str(module))
        with stages.stage("optimize"):
            pipeline.optimize(module)
        with stages.stage("lower"):
            pipeline.lower_to_llvm(module, threads)
        with stages.stage("llvm"):
            kernel = Kernel.compile(module, name, dtypes, ranks, opt_level=opt_level)
    kernel.context = ctx
    kernel.may_raise = raises or bool(typed.folded_events)
    kernel.folded_events = typed.folded_events
    if key:
        with stages.stage("disk cache"):
            disk_cache.store(key, disk_cache.Entry(kernel.object_code(), kernel.library_functions, raises))
    return kernel
