"""One thread pool for NumPy's OpenBLAS and the kernels' loops.

NumPy's OpenBLAS runs its multi-threaded calls on a pool of its own, whose workers spin for about 0.1 s after each
call. A compiled kernel that starts in that window shares the cores with them: one attention head called right
after NumPy's took 0.8 ms instead of 0.3 ms (issue 17, item 5; `python -m benchmarks.interleaved`). OpenBLAS (0.3.27
and later) can hand its jobs to the caller's threading instead (`openblas_set_threads_callback_function`): `install`
gives it `transpiler_blas_jobs`, which runs them on the OpenMP runtime the kernels use, so NumPy's products and the
kernels' loops share one pool, and OpenBLAS's own workers go to sleep for good.

The callback keeps OpenBLAS's rules:
- the jobs of one call run at the same time, one per thread (a threaded gemm's jobs wait for each other): an OpenMP
  team of exactly `numjobs` threads, dynamic adjustment off for it; where OpenMP cannot give one (inside a parallel
  region, a thread limit below OpenBLAS's 64), the jobs run on threads of their own (pthread_create) instead;
- job k uses OpenBLAS's buffer k, which its own pool gives to one call at a time: the callback holds a lock, so
  calls from several Python threads take turns (each uses every core anyway).
The same jobs run with the same arguments as on OpenBLAS's pool, so every result is bit for bit the same
(tests/test_blas_pool.py).

After a call's jobs the team spins as long as OpenBLAS's own workers would (SPIN_MS, through kmp_set_blocktime
around the call's parallel region; the kernels' loops keep their own 5 ms, runtime/jit.py): with 1 ms each of
NumPy's products waited for a worker to wake. With the pool, OpenMP's spinning workers yield the core at every
turn (OPENMP_USE_YIELD): on a loaded machine two jobs that wait for each other otherwise held each other out for a
time slice. (OpenBLAS's own workers do not yield on x86-64: their YIELDING is a row of `nop`s.) Otherwise the jobs
are OpenBLAS's own: its exec_blas hands every job of a call to the callback, job 0 included (on its own pool the
calling thread runs job 0), after the thread count and the split are decided, with the same buffers.

Opt-in (TRANSPILER_BLAS_POOL=1): it brings a compiled attention head right after NumPy's from 1.23x to 2.10x NumPy,
but NumPy's own GPT-2 forward runs slower on it (15-27% by medians once; 1.10-1.22 per pair in three runs of
benchmarks/blas_pools.py on 2026-12-02), and the user's NumPy code must not get slower because a compiled function
ran. The measurements: docs/performance.md, "Right after NumPy".
"""
from __future__ import annotations

import atexit
import ctypes
import os
import threading

from mlir import ir, passmanager

# The callback, in the LLVM dialect. Its name starts with `_mlir_` because the engine's raw_lookup(name) finds the
# symbol `_mlir_<name>` (where the engine puts its packed wrappers): this way it returns the function itself.
CALLBACK_NAME = "transpiler_blas_jobs"
SPIN_SETTER_NAME = "transpiler_blas_spin"
# OpenBLAS's own workers spin 2^28 cycles (its THREAD_TIMEOUT) after a call before they sleep: about 0.1 s.
SPIN_MS = 100
# Spinning OpenMP workers yield the core at every turn (KMP_USE_YIELD=2; the runtime's default, 1, yields only when
# it counts more of its own threads than cores): as OpenBLAS's own workers do, so that on a loaded machine a job
# that waits for another does not hold its core for a time slice. Set when the runtime loads, unless the user set it.
OPENMP_USE_YIELD = "2"
SOURCE = r"""
module {
  llvm.mlir.global internal @pool_lock() {alignment = 64 : i64} : !llvm.array<64 x i8> {
    %z = llvm.mlir.zero : !llvm.array<64 x i8>
    llvm.return %z : !llvm.array<64 x i8>
  }
  llvm.func @pthread_mutex_lock(!llvm.ptr) -> i32
  llvm.func @pthread_mutex_unlock(!llvm.ptr) -> i32
  llvm.func @pthread_create(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
  llvm.func @pthread_join(i64, !llvm.ptr) -> i32
  llvm.func @abort()
  llvm.func @omp_in_parallel() -> i32
  llvm.func @omp_get_thread_limit() -> i32
  llvm.func @omp_get_dynamic() -> i32
  llvm.func @omp_set_dynamic(i32)
  llvm.func @omp_get_thread_num() -> i32
  llvm.func @omp_get_num_threads() -> i32
  llvm.func @kmp_get_blocktime() -> i32
  llvm.func @kmp_set_blocktime(i32)
  // how long (ms) the workers spin after a call's jobs before they sleep; 0: the runtime's block time
  llvm.mlir.global internal @blas_spin_ms(0 : i32) {alignment = 4 : i64} : i32
  llvm.func @_mlir_transpiler_blas_spin(%ms: i32) {
    %g = llvm.mlir.addressof @blas_spin_ms : !llvm.ptr
    llvm.store %ms, %g : i32, !llvm.ptr
    llvm.return
  }

  // jobs first, first + step, ... below numjobs, each dojob(job, jobdata + job * elsize, data)
  llvm.func @run_jobs(%dojob: !llvm.ptr, %first: i32, %step: i32, %numjobs: i32, %elsize: i64, %jobdata: !llvm.ptr, %data: i32) {
    llvm.br ^head(%first : i32)
  ^head(%j: i32):
    %more = llvm.icmp "slt" %j, %numjobs : i32
    llvm.cond_br %more, ^body, ^done
  ^body:
    %j64 = llvm.sext %j : i32 to i64
    %off = llvm.mul %j64, %elsize : i64
    %p = llvm.getelementptr %jobdata[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    llvm.call %dojob(%j, %p, %data) : !llvm.ptr, (i32, !llvm.ptr, i32) -> ()
    %next = llvm.add %j, %step : i32
    llvm.br ^head(%next : i32)
  ^done:
    llvm.return
  }

  // a thread's start routine: one job, from a record {dojob, job, its jobdata, data}
  llvm.func @job_thread(%rec: !llvm.ptr) -> !llvm.ptr {
    %dojob = llvm.load %rec : !llvm.ptr -> !llvm.ptr
    %jp = llvm.getelementptr %rec[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    %j = llvm.load %jp : !llvm.ptr -> i32
    %pp = llvm.getelementptr %rec[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    %p = llvm.load %pp : !llvm.ptr -> !llvm.ptr
    %dp = llvm.getelementptr %rec[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    %d = llvm.load %dp : !llvm.ptr -> i32
    llvm.call %dojob(%j, %p, %d) : !llvm.ptr, (i32, !llvm.ptr, i32) -> ()
    %null = llvm.mlir.zero : !llvm.ptr
    llvm.return %null : !llvm.ptr
  }

  llvm.func @_mlir_transpiler_blas_jobs(%sync: i32, %dojob: !llvm.ptr, %numjobs: i32, %elsize: i64, %jobdata: !llvm.ptr, %data: i32) {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %lock = llvm.mlir.addressof @pool_lock : !llvm.ptr
    %r0 = llvm.call @pthread_mutex_lock(%lock) : (!llvm.ptr) -> i32
    %single = llvm.icmp "sle" %numjobs, %c1 : i32
    llvm.cond_br %single, ^serial, ^check
  ^serial:
    llvm.call @run_jobs(%dojob, %c0, %c1, %numjobs, %elsize, %jobdata, %data) : (!llvm.ptr, i32, i32, i32, i64, !llvm.ptr, i32) -> ()
    llvm.br ^out
  ^check:
    %inpar = llvm.call @omp_in_parallel() : () -> i32
    %nested = llvm.icmp "ne" %inpar, %c0 : i32
    %limit = llvm.call @omp_get_thread_limit() : () -> i32
    %low = llvm.icmp "slt" %limit, %c64 : i32
    %threads = llvm.or %nested, %low : i1
    llvm.cond_br %threads, ^pthreads, ^pool
  ^pool:
    %dyn = llvm.call @omp_get_dynamic() : () -> i32
    llvm.call @omp_set_dynamic(%c0) : (i32) -> ()
    // the team spins after the jobs as long as OpenBLAS's own workers would; the kernels' loops keep theirs
    %bt = llvm.call @kmp_get_blocktime() : () -> i32
    %spinp = llvm.mlir.addressof @blas_spin_ms : !llvm.ptr
    %spin = llvm.load %spinp : !llvm.ptr -> i32
    %setspin = llvm.icmp "sgt" %spin, %c0 : i32
    %newbt = llvm.select %setspin, %spin, %bt : i1, i32
    llvm.call @kmp_set_blocktime(%newbt) : (i32) -> ()
    omp.parallel num_threads(%numjobs : i32) {
      %t = llvm.call @omp_get_thread_num() : () -> i32
      %n = llvm.call @omp_get_num_threads() : () -> i32
      llvm.call @run_jobs(%dojob, %t, %n, %numjobs, %elsize, %jobdata, %data) : (!llvm.ptr, i32, i32, i32, i64, !llvm.ptr, i32) -> ()
      omp.terminator
    }
    llvm.call @omp_set_dynamic(%dyn) : (i32) -> ()
    %restore = llvm.load %spinp : !llvm.ptr -> i32
    %dorestore = llvm.icmp "sgt" %restore, %c0 : i32
    llvm.cond_br %dorestore, ^restorebt, ^out
  ^restorebt:
    llvm.call @kmp_set_blocktime(%bt) : (i32) -> ()
    llvm.br ^out
  ^pthreads:
    %recs = llvm.alloca %numjobs x !llvm.struct<(ptr, i32, ptr, i32)> : (i32) -> !llvm.ptr
    %tids = llvm.alloca %numjobs x i64 : (i32) -> !llvm.ptr
    %start = llvm.mlir.addressof @job_thread : !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    llvm.br ^spawn(%c1 : i32)
  ^spawn(%j: i32):
    %more = llvm.icmp "slt" %j, %numjobs : i32
    llvm.cond_br %more, ^make, ^own
  ^make:
    %rec = llvm.getelementptr %recs[%j] : (!llvm.ptr, i32) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    llvm.store %dojob, %rec : !llvm.ptr, !llvm.ptr
    %jp = llvm.getelementptr %rec[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    llvm.store %j, %jp : i32, !llvm.ptr
    %j64 = llvm.sext %j : i32 to i64
    %off = llvm.mul %j64, %elsize : i64
    %p = llvm.getelementptr %jobdata[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %pp = llvm.getelementptr %rec[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    llvm.store %p, %pp : !llvm.ptr, !llvm.ptr
    %dp = llvm.getelementptr %rec[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i32, ptr, i32)>
    llvm.store %data, %dp : i32, !llvm.ptr
    %tid = llvm.getelementptr %tids[%j] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    %rc = llvm.call @pthread_create(%tid, %null, %start, %rec) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
    %failed = llvm.icmp "ne" %rc, %c0 : i32
    llvm.cond_br %failed, ^abort, ^created
  ^abort:
    // as OpenBLAS does when it cannot start its threads: the jobs cannot run one after the other
    llvm.call @abort() : () -> ()
    llvm.unreachable
  ^created:
    %next = llvm.add %j, %c1 : i32
    llvm.br ^spawn(%next : i32)
  ^own:
    // job 0 on this thread (first 0, step numjobs, below 1)
    llvm.call @run_jobs(%dojob, %c0, %numjobs, %c1, %elsize, %jobdata, %data) : (!llvm.ptr, i32, i32, i32, i64, !llvm.ptr, i32) -> ()
    llvm.br ^join(%c1 : i32)
  ^join(%k: i32):
    %kmore = llvm.icmp "slt" %k, %numjobs : i32
    llvm.cond_br %kmore, ^joinone, ^out
  ^joinone:
    %tk = llvm.getelementptr %tids[%k] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    %tv = llvm.load %tk : !llvm.ptr -> i64
    %rj = llvm.call @pthread_join(%tv, %null) : (i64, !llvm.ptr) -> i32
    %knext = llvm.add %k, %c1 : i32
    llvm.br ^join(%knext : i32)
  ^out:
    %r1 = llvm.call @pthread_mutex_unlock(%lock) : (!llvm.ptr) -> i32
    llvm.return
  }
}
"""

_compiled = None           # (engine, set_callback, address, set_spin): the engine lives as long as the process
_active = False
_install_lock = threading.Lock()


def enabled() -> bool:
    """Opt-in (TRANSPILER_BLAS_POOL=1) until NumPy's own code is no slower on it: see the module's doc."""
    return os.environ.get("TRANSPILER_BLAS_POOL", "0") == "1"


def compile_callback():
    """(engine, address of transpiler_blas_jobs, address of transpiler_blas_spin); the addresses are valid while
    the engine lives."""
    from mlir.execution_engine import ExecutionEngine   # (opt-in: kernels themselves no longer use the engine)
    context = ir.Context()
    context.enable_multithreading(False)    # no pool threads (driver.new_context)
    with context, ir.Location.unknown():
        module = ir.Module.parse(SOURCE)
        passmanager.PassManager.parse("builtin.module(convert-openmp-to-llvm)").run(module.operation)
        engine = ExecutionEngine(module, opt_level=2)
        engine.initialize()
        return engine, engine.raw_lookup(CALLBACK_NAME), engine.raw_lookup(SPIN_SETTER_NAME)


def install(openblas_path: str) -> bool:
    """Route the OpenBLAS at `openblas_path` (NumPy's) through the kernels' OpenMP runtime, which must be loaded
    (runtime/jit.load_runtime_libraries). False where this OpenBLAS has no callback."""
    global _compiled, _active
    with _install_lock:
        if _compiled is None:
            set_callback = getattr(ctypes.CDLL(openblas_path), "scipy_openblas_set_threads_callback_function64_",
                                   None)
            if set_callback is None:
                return False
            set_callback.argtypes = [ctypes.c_void_p]
            engine, address, spin_address = compile_callback()
            set_spin = ctypes.CFUNCTYPE(None, ctypes.c_int32)(spin_address)
            set_spin(SPIN_MS)
            _compiled = (engine, set_callback, address, set_spin)
            atexit.register(uninstall)   # before the engine's memory goes at exit: NumPy calls in atexit handlers
        _compiled[1](_compiled[2])
        _active = True
        return True


def set_spin_ms(ms: int) -> None:
    """How long the workers spin after a call's jobs (0: the runtime's KMP_BLOCKTIME); for measurements."""
    if _compiled is None:
        raise RuntimeError("the pool is not compiled yet: install it first")
    _compiled[3](ms)


def uninstall() -> None:
    """OpenBLAS's own pool again (its workers wake on the next threaded call)."""
    global _active
    with _install_lock:
        if _compiled is not None and _active:
            _compiled[1](None)
            _active = False


def installed() -> bool:
    return _active
