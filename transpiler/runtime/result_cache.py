"""A small cache of freed large result buffers, so that a kernel's fresh output does not page-fault.

A kernel's large output comes from `malloc` (backend/huge_pages.py) and went back to glibc with `free` when NumPy
let go of the result. Right after NumPy code that frees large temporaries, glibc gives the top of its heap back to
the operating system (more than its trim threshold lies free there), the next call's output then gets fresh pages,
and every page faults on first touch: gelu (256, 3072) right after NumPy's own page-faulted its whole 6.3 MB output
in some processes (482 faults, 2.0-2.7 ms a call instead of ~1 ms; docs/performance.md, "Right after NumPy").

Here a freed result buffer of at least MIN_BYTES is kept instead (`release`, which `memref._Owned` calls) and the
kernel's next allocation of about its size takes it back (`take`, which the kernels' `transpiler_malloc` calls
for large sizes). The cache holds at most MAX_BLOCKS blocks and `limit` bytes (TRANSPILER_RESULT_CACHE_MB); the
oldest block is freed to make room. A block is handed out once: a result that is still alive is never in the
cache, so two results never share memory. The blocks stay malloc's (a kernel may free a taken block with `free`),
and keep the huge-page advice they got when first allocated.

Off unless TRANSPILER_RESULT_CACHE_MB is set (DEFAULT_MB): a held block is memory NumPy's own temporaries can no
longer reuse, and in NumPy's gelu right after ours that pushed the free top of glibc's heap past its trim
threshold, so NumPy's call faulted 1764 times and ran 10% slower (docs/performance.md, "Right after NumPy"): the
cache moved the faults from our call to NumPy's. Off, kernels are compiled without the call to `take`.

Native code (the LLVM dialect, compiled once per process by MLIR's ExecutionEngine), so that the kernels call it
without the interpreter and `_Owned` frees through it at the cost of the `free` it replaces. Linux (glibc's
`malloc_usable_size`) only: elsewhere the kernels call plain `malloc` (huge_pages.py) and results are freed.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import sys
import threading

from mlir import ir

from . import memref

TAKE_NAME = "transpiler_result_take"   # the symbol the kernels call: a cached block of about `size` bytes, or null
MIN_BYTES = 1 << 20                    # smaller blocks: glibc's free lists serve them without faults
MAX_BLOCKS = 8
DEFAULT_MB = 0                         # off by default: see the module's doc
# A cached block serves a request of `size` bytes if it holds between size and size + size / FIT_SLACK bytes
FIT_SLACK = 4

_SOURCE = r"""
module {
  llvm.mlir.global internal @lock() {alignment = 64 : i64} : !llvm.array<64 x i8> {
    %z = llvm.mlir.zero : !llvm.array<64 x i8>
    llvm.return %z : !llvm.array<64 x i8>
  }
  // blocks[0 .. count), oldest first, and their usable sizes
  llvm.mlir.global internal @blocks() {alignment = 8 : i64} : !llvm.array<MAX_BLOCKS x ptr> {
    %z = llvm.mlir.zero : !llvm.array<MAX_BLOCKS x ptr>
    llvm.return %z : !llvm.array<MAX_BLOCKS x ptr>
  }
  llvm.mlir.global internal @sizes() {alignment = 8 : i64} : !llvm.array<MAX_BLOCKS x i64> {
    %z = llvm.mlir.zero : !llvm.array<MAX_BLOCKS x i64>
    llvm.return %z : !llvm.array<MAX_BLOCKS x i64>
  }
  llvm.mlir.global internal @count(0 : i64) {alignment = 8 : i64} : i64
  llvm.mlir.global internal @held(0 : i64) {alignment = 8 : i64} : i64
  llvm.mlir.global internal @limit(0 : i64) {alignment = 8 : i64} : i64
  llvm.func @free(!llvm.ptr)
  llvm.func @malloc_usable_size(!llvm.ptr) -> i64
  llvm.func @pthread_mutex_lock(!llvm.ptr) -> i32
  llvm.func @pthread_mutex_unlock(!llvm.ptr) -> i32

  // drop entry i, the later ones move down one (the order stays oldest first); under the lock
  llvm.func @remove(%i: i64) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %countp = llvm.mlir.addressof @count : !llvm.ptr
    %n = llvm.load %countp : !llvm.ptr -> i64
    %last = llvm.sub %n, %c1 : i64
    llvm.store %last, %countp : i64, !llvm.ptr
    llvm.br ^head(%i : i64)
  ^head(%j: i64):
    %more = llvm.icmp "slt" %j, %last : i64
    llvm.cond_br %more, ^move, ^done
  ^move:
    %blocks = llvm.mlir.addressof @blocks : !llvm.ptr
    %sizes = llvm.mlir.addressof @sizes : !llvm.ptr
    %k = llvm.add %j, %c1 : i64
    %bk = llvm.getelementptr %blocks[0, %k] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x ptr>
    %bj = llvm.getelementptr %blocks[0, %j] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x ptr>
    %sk = llvm.getelementptr %sizes[0, %k] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x i64>
    %sj = llvm.getelementptr %sizes[0, %j] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x i64>
    %b = llvm.load %bk : !llvm.ptr -> !llvm.ptr
    %s = llvm.load %sk : !llvm.ptr -> i64
    llvm.store %b, %bj : !llvm.ptr, !llvm.ptr
    llvm.store %s, %sj : i64, !llvm.ptr
    llvm.br ^head(%k : i64)
  ^done:
    llvm.return
  }

  // the oldest block back to malloc; under the lock, with at least one block held
  llvm.func @evict_oldest() {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %blocks = llvm.mlir.addressof @blocks : !llvm.ptr
    %sizes = llvm.mlir.addressof @sizes : !llvm.ptr
    %heldp = llvm.mlir.addressof @held : !llvm.ptr
    %b0 = llvm.load %blocks : !llvm.ptr -> !llvm.ptr
    %s0 = llvm.load %sizes : !llvm.ptr -> i64
    llvm.call @free(%b0) : (!llvm.ptr) -> ()
    %h = llvm.load %heldp : !llvm.ptr -> i64
    %h0 = llvm.sub %h, %s0 : i64
    llvm.store %h0, %heldp : i64, !llvm.ptr
    llvm.call @remove(%c0) : (i64) -> ()
    llvm.return
  }

  // a cached block holding size .. size + size / FIT_SLACK bytes, the newest such, out of the cache; else null
  llvm.func @_mlir_transpiler_result_take(%size: i64) -> !llvm.ptr {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %slack_div = llvm.mlir.constant(FIT_SLACK : i64) : i64
    %lock = llvm.mlir.addressof @lock : !llvm.ptr
    %blocks = llvm.mlir.addressof @blocks : !llvm.ptr
    %sizes = llvm.mlir.addressof @sizes : !llvm.ptr
    %countp = llvm.mlir.addressof @count : !llvm.ptr
    %heldp = llvm.mlir.addressof @held : !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %slack = llvm.udiv %size, %slack_div : i64
    %most = llvm.add %size, %slack : i64
    %r0 = llvm.call @pthread_mutex_lock(%lock) : (!llvm.ptr) -> i32
    %n = llvm.load %countp : !llvm.ptr -> i64
    llvm.br ^scan(%n : i64)
  ^scan(%k: i64):
    %left = llvm.icmp "sgt" %k, %c0 : i64
    llvm.cond_br %left, ^look, ^miss
  ^look:
    %i = llvm.sub %k, %c1 : i64
    %si = llvm.getelementptr %sizes[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x i64>
    %s = llvm.load %si : !llvm.ptr -> i64
    %big_enough = llvm.icmp "uge" %s, %size : i64
    %not_too_big = llvm.icmp "ule" %s, %most : i64
    %fits = llvm.and %big_enough, %not_too_big : i1
    llvm.cond_br %fits, ^hit, ^scan(%i : i64)
  ^hit:
    %bi = llvm.getelementptr %blocks[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x ptr>
    %p = llvm.load %bi : !llvm.ptr -> !llvm.ptr
    %h = llvm.load %heldp : !llvm.ptr -> i64
    %h2 = llvm.sub %h, %s : i64
    llvm.store %h2, %heldp : i64, !llvm.ptr
    llvm.call @remove(%i) : (i64) -> ()
    %r1 = llvm.call @pthread_mutex_unlock(%lock) : (!llvm.ptr) -> i32
    llvm.return %p : !llvm.ptr
  ^miss:
    %r2 = llvm.call @pthread_mutex_unlock(%lock) : (!llvm.ptr) -> i32
    llvm.return %null : !llvm.ptr
  }

  // a result's buffer, no longer used: kept if large and within the limit (the oldest blocks freed to make room),
  // else freed
  llvm.func @_mlir_transpiler_result_release(%p: !llvm.ptr) {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %min = llvm.mlir.constant(MIN_BYTES : i64) : i64
    %max_blocks = llvm.mlir.constant(MAX_BLOCKS : i64) : i64
    %null = llvm.mlir.zero : !llvm.ptr
    %lock = llvm.mlir.addressof @lock : !llvm.ptr
    %blocks = llvm.mlir.addressof @blocks : !llvm.ptr
    %sizes = llvm.mlir.addressof @sizes : !llvm.ptr
    %countp = llvm.mlir.addressof @count : !llvm.ptr
    %heldp = llvm.mlir.addressof @held : !llvm.ptr
    %limitp = llvm.mlir.addressof @limit : !llvm.ptr
    %is_null = llvm.icmp "eq" %p, %null : !llvm.ptr
    llvm.cond_br %is_null, ^done, ^sized
  ^sized:
    %size = llvm.call @malloc_usable_size(%p) : (!llvm.ptr) -> i64
    %limit = llvm.load %limitp : !llvm.ptr -> i64
    %large = llvm.icmp "uge" %size, %min : i64
    %within = llvm.icmp "ule" %size, %limit : i64
    %keep = llvm.and %large, %within : i1
    llvm.cond_br %keep, ^locked, ^drop
  ^drop:
    llvm.call @free(%p) : (!llvm.ptr) -> ()
    llvm.br ^done
  ^locked:
    %r0 = llvm.call @pthread_mutex_lock(%lock) : (!llvm.ptr) -> i32
    llvm.br ^room
  ^room:
    %n = llvm.load %countp : !llvm.ptr -> i64
    %h = llvm.load %heldp : !llvm.ptr -> i64
    %after = llvm.add %h, %size : i64
    %too_many = llvm.icmp "sge" %n, %max_blocks : i64
    %too_much = llvm.icmp "ugt" %after, %limit : i64
    %full = llvm.or %too_many, %too_much : i1
    llvm.cond_br %full, ^evict, ^store
  ^evict:
    // (count > 0 here: with none held, one block within the limit fits)
    llvm.call @evict_oldest() : () -> ()
    llvm.br ^room
  ^store:
    %bn = llvm.getelementptr %blocks[0, %n] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x ptr>
    %sn = llvm.getelementptr %sizes[0, %n] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<MAX_BLOCKS x i64>
    llvm.store %p, %bn : !llvm.ptr, !llvm.ptr
    llvm.store %size, %sn : i64, !llvm.ptr
    %n1 = llvm.add %n, %c1 : i64
    llvm.store %n1, %countp : i64, !llvm.ptr
    llvm.store %after, %heldp : i64, !llvm.ptr
    %r1 = llvm.call @pthread_mutex_unlock(%lock) : (!llvm.ptr) -> i32
    llvm.br ^done
  ^done:
    llvm.return
  }

  // the byte limit (0: nothing is kept); the blocks held beyond it are freed
  llvm.func @_mlir_transpiler_result_limit(%bytes: i64) {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %lock = llvm.mlir.addressof @lock : !llvm.ptr
    %blocks = llvm.mlir.addressof @blocks : !llvm.ptr
    %sizes = llvm.mlir.addressof @sizes : !llvm.ptr
    %countp = llvm.mlir.addressof @count : !llvm.ptr
    %heldp = llvm.mlir.addressof @held : !llvm.ptr
    %limitp = llvm.mlir.addressof @limit : !llvm.ptr
    %r0 = llvm.call @pthread_mutex_lock(%lock) : (!llvm.ptr) -> i32
    llvm.store %bytes, %limitp : i64, !llvm.ptr
    llvm.br ^room
  ^room:
    %n = llvm.load %countp : !llvm.ptr -> i64
    %h = llvm.load %heldp : !llvm.ptr -> i64
    %some = llvm.icmp "sgt" %n, %c0 : i64
    %over = llvm.icmp "ugt" %h, %bytes : i64
    %evict = llvm.and %some, %over : i1
    llvm.cond_br %evict, ^free, ^done
  ^free:
    llvm.call @evict_oldest() : () -> ()
    llvm.br ^room
  ^done:
    %r1 = llvm.call @pthread_mutex_unlock(%lock) : (!llvm.ptr) -> i32
    llvm.return
  }

  // what the cache holds: count in the low 8 bits, bytes above (for tests and measurements)
  llvm.func @_mlir_transpiler_result_held() -> i64 {
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %lock = llvm.mlir.addressof @lock : !llvm.ptr
    %countp = llvm.mlir.addressof @count : !llvm.ptr
    %heldp = llvm.mlir.addressof @held : !llvm.ptr
    %r0 = llvm.call @pthread_mutex_lock(%lock) : (!llvm.ptr) -> i32
    %n = llvm.load %countp : !llvm.ptr -> i64
    %h = llvm.load %heldp : !llvm.ptr -> i64
    %r1 = llvm.call @pthread_mutex_unlock(%lock) : (!llvm.ptr) -> i32
    %hs = llvm.shl %h, %c8 : i64
    %both = llvm.or %hs, %n : i64
    llvm.return %both : i64
  }
}
"""

_compiled = None     # (engine, take, release, set_limit, held): the engine lives as long as the process
_compile_lock = threading.Lock()
_limit = 0


def available() -> bool:
    """Where the kernels' large allocations can go through the cache (glibc's malloc_usable_size sizes a block)."""
    return sys.platform.startswith("linux")


def enabled() -> bool:
    """Whether kernels compiled now call the cache (available, and TRANSPILER_RESULT_CACHE_MB above 0)."""
    return available() and configured_limit() > 0


def configured_limit() -> int:
    """Bytes the cache may hold: TRANSPILER_RESULT_CACHE_MB (0: off), else DEFAULT_MB."""
    value = os.environ.get("TRANSPILER_RESULT_CACHE_MB", "").strip()
    try:
        megabytes = float(value) if value else DEFAULT_MB
    except ValueError:
        megabytes = DEFAULT_MB
    return max(0, int(megabytes * (1 << 20)))


def _compile():
    global _compiled
    with _compile_lock:
        if _compiled is not None:
            return _compiled
        source = (_SOURCE.replace("MAX_BLOCKS", str(MAX_BLOCKS)).replace("MIN_BYTES", str(MIN_BYTES))
                  .replace("FIT_SLACK", str(FIT_SLACK)))
        context = ir.Context()
        context.enable_multithreading(False)    # no pool threads (driver.new_context)
        with context, ir.Location.unknown():
            # O0: ~20 ms once per process against ~80 ms at O2; the functions run once per large allocation
            from mlir.execution_engine import ExecutionEngine   # (only when the opt-in cache is on: a cache hit
            engine = ExecutionEngine(ir.Module.parse(source), opt_level=0)   # imports no engine, test_first_call)
            engine.initialize()
        # raw_lookup(name) finds `_mlir_<name>`: the functions themselves, not packed wrappers
        take = engine.raw_lookup(TAKE_NAME)
        release = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup("transpiler_result_release"))
        set_limit = ctypes.CFUNCTYPE(None, ctypes.c_int64)(engine.raw_lookup("transpiler_result_limit"))
        held = ctypes.CFUNCTYPE(ctypes.c_int64)(engine.raw_lookup("transpiler_result_held"))
        _compiled = (engine, take, release, set_limit, held)
        globals()["_limit"] = configured_limit()
        set_limit(_limit)
        memref.release_results_with(release)
        atexit.register(_shut_down)   # before the engine's memory goes: results freed later use `free`
        return _compiled


def take_address() -> int:
    """The address of `transpiler_result_take`, for the kernels that call it (runtime/blas.bind)."""
    return _compile()[1]


def set_limit(nbytes: int) -> None:
    """The most bytes the cache may hold from now on (0: none); blocks beyond it are freed now."""
    global _limit
    set_native = _compile()[3]       # first: compiling sets the configured limit
    _limit = nbytes
    set_native(nbytes)


def held() -> tuple[int, int]:
    """(blocks, bytes) the cache holds now."""
    if _compiled is None:
        return 0, 0
    both = _compiled[4]()
    return both & 0xFF, both >> 8


def clear() -> None:
    """Free every cached block (the limit stays)."""
    if _compiled is not None:
        _compiled[3](0)
        _compiled[3](_limit)


def _shut_down() -> None:
    memref.release_results_with(None)
    if _compiled is not None:
        _compiled[3](0)
