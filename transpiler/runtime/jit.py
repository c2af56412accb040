"""Machine code: compile an LLVM-dialect module to object files (machine_code.py), link them into the process
(objects.py), and call the kernel on NumPy arrays."""
from __future__ import annotations

import ctypes
import os
import sys
import threading

import mlir
from mlir import ir

from . import blas, blas_pool, errstate, machine_code, numpy_calls, objects, openmp
from .memref import Frame, made_once, results_adopter

def runtime_libraries() -> list:
    """The libraries kernels call into: MLIR's runtime utilities (memrefCopy ...) and, when installed, the OpenMP
    runtime of the intel-openmp package (threaded loops call its __kmpc_* entry points)."""
    return [runner_utils_library()] + ([openmp_library()] if openmp_library() else [])


def runner_utils_library() -> str:
    return os.path.join(list(mlir.__path__)[0], "lib", "libmlir_c_runner_utils.so")


def openmp_library() -> str | None:
    path = os.path.join(sys.prefix, "lib", "libiomp5.so")
    return path if os.path.exists(path) else None


# After a parallel loop, OpenMP's workers spin this long (ms) before they sleep: long enough to catch the next loop
# of the same kernel, and the next kernel after a short NumPy call between them (softmax's 1.2 ms), without a
# wake-up (0.1-0.3 ms on a virtual machine: softmax right after NumPy's 0.33-0.38 ms with 1 ms, 0.31-0.33 with 5);
# short enough not to hold a core long. NumPy's threaded products right after ours were no slower with 5 than with
# 1 (docs/performance.md, "Right after NumPy"). The user's own KMP_BLOCKTIME wins.
OPENMP_BLOCKTIME_MS = "5"
# How many threads a parallel loop gets on a machine that other processes share: the OpenMP runtime's load
# balancing (dynamic adjustment on, Intel's `load_balance` mode) gives each parallel region no more threads than
# there are cores not busy with other processes (it counts running threads in /proc, at most once a second). With
# static halves and a thread that waits at the barrier for a core another process holds, a kernel ran 17x slower
# than on one thread with two busy processes on 2 cores (docs/performance.md). The user's own OMP_DYNAMIC and
# KMP_DYNAMIC_MODE win.
OPENMP_DYNAMIC = {"OMP_DYNAMIC": "true", "KMP_DYNAMIC_MODE": "load_balance"}

_PACKED = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


# LLVM back-end options, set once per process before the first compilation. Three code generation steps took
# two thirds of GPT-2's compile time (measured with py-spy on the 124M model: 5.5 s -> 2.0 s without them) and do
# little for these kernels, whose hot loops LLVM's vectorizer has already shaped: merging of adjacent scalar stores
# (quadratic in the stores of a block), loop strength reduction, and the post-register-allocation scheduler.
# TRANSPILER_LLVM_OPTIONS replaces the list (e.g. an empty value restores LLVM's defaults).
LLVM_OPTIONS = ["-combiner-store-merging=false", "-disable-lsr", "-post-RA-scheduler=false"]


_loaded = False
_loading = threading.Lock()
_runner_utils_loaded = False


def load_runtime_libraries() -> None:
    """Loaded once into the process with RTLD_GLOBAL: linked objects resolve the kernels' external symbols against
    the process. Also sets LLVM's options (above), once. MLIR's runtime utilities are loaded only for a kernel that
    calls one (`load_runtime_symbols`): that library pulls in libMLIR.so, 40-65 ms of a first call."""
    global _loaded
    with _loading:
        if _loaded:
            return
        os.environ.setdefault("KMP_BLOCKTIME", OPENMP_BLOCKTIME_MS)
        if blas_pool.enabled():
            os.environ.setdefault("KMP_USE_YIELD", blas_pool.OPENMP_USE_YIELD)
        for name, value in OPENMP_DYNAMIC.items():
            os.environ.setdefault(name, value)
        if openmp_library():
            ctypes.CDLL(openmp_library(), mode=ctypes.RTLD_GLOBAL)
            openmp.use(openmp_library())
            if blas_pool.enabled() and blas.openblas_path():
                blas_pool.install(blas.openblas_path())   # NumPy's products on the kernels' pool
        objects.set_llvm_options(llvm_options())
        _loaded = True


def load_runtime_symbols(object_files: list, provided: dict) -> None:
    """Load MLIR's runtime utilities if the objects need a symbol that neither they, the process nor `provided`
    (the callbacks given to the linker) define."""
    global _runner_utils_loaded
    join_preload()
    if _runner_utils_loaded:
        return
    process = ctypes.CDLL(None)
    defined, needed = set(provided), set()
    for obj in object_files:
        symbols = objects.symbols(obj)
        defined |= symbols.defined
        needed |= symbols.undefined
    if any(not hasattr(process, name) for name in needed - defined):
        with _loading:
            ctypes.CDLL(runner_utils_library(), mode=ctypes.RTLD_GLOBAL)   # (at once if preloaded)
            _runner_utils_loaded = True


_preload = None


def preload_runtime_libraries() -> None:
    """Start loading MLIR's runtime utilities (libMLIR.so with them: 40-65 ms) on another thread, once per process,
    while the first compilation types its program: most kernels with a copy between strided views call their
    memrefCopy. ctypes holds Python's lock while it opens a library but not while it calls a C function, so the
    thread calls libc's dlopen itself. Joined before the first kernel is linked (load_runtime_symbols) and when
    a compilation ends without one (`join_preload`, after a CompileError), so no thread outlives a compilation
    (a fork meanwhile could leave the loader's lock held in the child)."""
    global _preload
    with _loading:
        if _preload is not None or _runner_utils_loaded:
            return
        _preload = threading.Thread(target=_dlopen_global, args=(runner_utils_library(),), daemon=True,
                                    name="transpiler-preload")
        _preload.start()


_preloaded = False      # the preload thread's dlopen succeeded


def _dlopen_global(path: str) -> None:
    global _preloaded
    libc = ctypes.CDLL(None)
    libc.dlopen.restype, libc.dlopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_int]
    # (never closed: the library stays loaded)
    _preloaded = libc.dlopen(path.encode(), os.RTLD_NOW | os.RTLD_GLOBAL) is not None


def join_preload() -> None:
    """Wait for the preload; once it loaded the library, later links need not look for missing symbols."""
    global _runner_utils_loaded
    thread = _preload
    if thread is not None:
        thread.join()
        if _preloaded:
            _runner_utils_loaded = True


def llvm_options() -> list:
    configured = os.environ.get("TRANSPILER_LLVM_OPTIONS")
    return LLVM_OPTIONS if configured is None else configured.split()


def _function_names(llvm_module) -> str:
    """`@name(` for each function of the module, declared or defined: what blas.library_functions looks for, without
    printing the whole module (~0.1 s for GPT-2)."""
    return "\n".join(f"@{ir.StringAttr(op.operation.attributes['sym_name']).value}("
                     for op in llvm_module.body.operations if op.operation.name == "llvm.func")


class Kernel:
    """One compiled specialization: arrays in (C-contiguous), arrays out (owned by NumPy).

    Made either by compiling an LLVM-dialect module (`compile`) or by linking object code from the disk cache
    (`load`); `object_code` gives what `load` takes: the object files of the module's parts."""

    def __init__(self, fn, keepalive: list, library_functions: list, out_dtypes: list, out_ranks: list,
                 origin: str, object_files: list | None = None):
        self.fn = fn
        self._keepalive = keepalive   # the linked objects and the callbacks the machine code calls
        self._object_files = object_files
        self.library_functions = library_functions
        self.calls_openblas = blas.uses_openblas(library_functions)
        self.calls_numpy = any(map(numpy_calls.is_call, library_functions))
        self.out_dtypes = out_dtypes
        self.out_ranks = out_ranks
        self.frame = Frame(out_ranks)
        self._adopt = results_adopter(out_ranks, out_dtypes)
        self._invokers: dict = {}
        self.origin = origin          # "compiled" or "disk cache"
        self.may_raise = True         # whether it can raise floating-point events (driver.py sets it)
        self.folded_events = 0        # events of what was folded while compiling: reported by every call

    @classmethod
    def compile(cls, llvm_module, name: str, out_dtypes: list, out_ranks: list, opt_level: int = 3,
                parts: int | None = None) -> "Kernel":
        """`parts`: how many parts LLVM compiles in parallel (machine_code.compile_module; default one per core)."""
        load_runtime_libraries()
        names = blas.library_functions(_function_names(llvm_module))
        object_files = machine_code.compile_module(llvm_module, opt_level, parts)
        return cls._link(object_files, names, name, out_dtypes, out_ranks, "compiled")

    @classmethod
    def load(cls, object_files: list, library_functions: list, name: str, out_dtypes: list,
             out_ranks: list) -> "Kernel":
        load_runtime_libraries()
        return cls._link(object_files, library_functions, name, out_dtypes, out_ranks, "disk cache")

    @classmethod
    def _link(cls, object_files: list, library_functions: list, name: str, out_dtypes: list, out_ranks: list,
              origin: str) -> "Kernel":
        symbols, callbacks = blas.bind(library_functions)
        load_runtime_symbols(object_files, symbols)
        linked = objects.LinkedObject(object_files, symbols)
        fn = _PACKED(linked.lookup("_mlir__mlir_ciface_" + name))   # the packed wrapper of the C interface
        return cls(fn, [linked, callbacks], library_functions, out_dtypes, out_ranks, origin,
                   object_files if origin == "compiled" else None)

    def object_code(self) -> list:
        """The object files of a compiled kernel (one per part)."""
        if self._object_files is None:
            raise ValueError("only a compiled kernel keeps its object code")
        return self._object_files

    def __call__(self, arrays: list) -> list:
        """The results of the kernel on C-contiguous `arrays`, as NumPy arrays (errstate.Events instead when it
        raised a floating-point event that the caller's error state reports)."""
        return self.invoker(tuple(len(a.shape) for a in arrays))(arrays)

    def invoker(self, in_ranks: tuple):
        """What __call__ does, for inputs of these ranks, derived once (the per-call path: runtime/call.py)."""
        return made_once(self._invokers, tuple(in_ranks), self._make_invoker)

    def _make_invoker(self, in_ranks: tuple):
        # straight-line code for this kernel: only the steps it needs
        lines = ["def invoke(arrays):",
                 "    before_kernel()"]
        if self.calls_numpy:   # a failure kept from an earlier call whose other check was raised first
            lines.append("    clear_failure()")
        if self.calls_openblas:
            lines += ["    with single_threaded():",
                      "        words, inputs = frame_call(entry, arrays)"]
        else:
            lines.append("    words, inputs = frame_call(entry, arrays)")
        lines.append("    results = adopt(words, inputs)" if self.out_ranks else "    results = []")
        lines += self.after_call_lines("results", "words[-1]", "    ")
        lines.append("    return results")
        namespace = {**self.after_call_namespace(), "before_kernel": openmp.before_kernel,
                     "clear_failure": numpy_calls.clear, "single_threaded": blas.single_threaded,
                     "frame_call": self.frame.caller(in_ranks), "entry": self.fn, "adopt": self._adopt}
        exec("\n".join(lines), namespace)
        return namespace["invoke"]

    def after_call_lines(self, results: str, status: str, indent: str) -> list:
        """The lines after a call of the kernel (its invoker's, and the cheap call's generated run: runtime/call.py):
        a Ctrl-C during a callback raised now, the floating-point events the caller reports (the status word
        `status`, and those folded while compiling) raised as errstate.Events with `results`. Their names:
        after_call_namespace."""
        return [f"{indent}if interrupted.is_set():",     # (the kernel finished: now raise the Ctrl-C)
                f"{indent}    interrupted.clear()",
                f"{indent}    raise KeyboardInterrupt",
                f"{indent}if ({status} or folded) and reported({status} | folded):",
                f"{indent}    raise events({results}, reported({status} | folded))"]

    def after_call_namespace(self) -> dict:
        return {"interrupted": blas.INTERRUPTED, "folded": self.folded_events, "reported": errstate.reported,
                "events": errstate.Events}
