"""Large buffers on huge pages, as NumPy's own allocator does.

A kernel's buffers come from `malloc` (finalize-memref-to-llvm). glibc serves large blocks with a fresh `mmap` on
every call, and on a kernel whose transparent huge pages are "madvise" only (the common default) each 4 KiB page
then faults on first touch: converting GPT-2's float32 token embedding to float64 (309 MB) took 79 ms this way
against NumPy's 23 ms. NumPy asks for huge pages (`madvise(MADV_HUGEPAGE)`) on every allocation of 4 MiB or more;
`use_huge_pages` makes the kernel's `malloc` calls go through a function that does the same. The memory is still
malloc's; only the page size changes.

With the cache of freed large result buffers on (runtime/result_cache.py, TRANSPILER_RESULT_CACHE_MB), the same
function first asks it for a block of about the size, for sizes of at least its MIN_BYTES: a block from there has been touched (and advised) already,
where a fresh one faults again on every page once glibc has given its heap's top back to the system.
"""
from __future__ import annotations

import sys

from mlir import ir

from ..runtime import result_cache

THRESHOLD = 1 << 22      # bytes: NumPy's threshold (numpy/_core/src/multiarray/alloc.c)
MADV_HUGEPAGE = 14       # Linux
_NAME = "transpiler_malloc"

_TAKE = f"""
  %cache_min = llvm.mlir.constant({result_cache.MIN_BYTES} : i64) : i64
  %cacheable = llvm.icmp "uge" %size, %cache_min : i64
  llvm.cond_br %cacheable, ^take, ^fresh
^take:
  %cached = llvm.call @{result_cache.TAKE_NAME}(%size) : (i64) -> !llvm.ptr
  %hit = llvm.icmp "ne" %cached, %null : !llvm.ptr
  llvm.cond_br %hit, ^reused(%cached : !llvm.ptr), ^fresh
^reused(%block: !llvm.ptr):
  llvm.return %block : !llvm.ptr
"""


def _helper(cache: bool) -> str:
    """transpiler_malloc: with `cache`, a large size first asks the cache of result buffers for a block."""
    return f"""
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @madvise(!llvm.ptr, i64, i32) -> i32
{f"llvm.func @{result_cache.TAKE_NAME}(i64) -> !llvm.ptr" if cache else ""}
llvm.func @{_NAME}(%size: i64) -> !llvm.ptr {{
  %null = llvm.mlir.zero : !llvm.ptr
{_TAKE if cache else "  llvm.br ^fresh"}
^fresh:
  %p = llvm.call @malloc(%size) : (i64) -> !llvm.ptr
  %threshold = llvm.mlir.constant({THRESHOLD} : i64) : i64
  %large = llvm.icmp "uge" %size, %threshold : i64
  %allocated = llvm.icmp "ne" %p, %null : !llvm.ptr
  %advise = llvm.and %large, %allocated : i1
  llvm.cond_br %advise, ^advise, ^done
^advise:
  %page = llvm.mlir.constant(4096 : i64) : i64
  %page_mask = llvm.mlir.constant(-4096 : i64) : i64
  %address = llvm.ptrtoint %p : !llvm.ptr to i64
  %up = llvm.add %address, %page : i64
  %first = llvm.and %up, %page_mask : i64            // the first page boundary after p: the range stays in the block
  %end = llvm.add %address, %size : i64
  %length = llvm.sub %end, %first : i64
  %start = llvm.inttoptr %first : i64 to !llvm.ptr
  %advice = llvm.mlir.constant({MADV_HUGEPAGE} : i32) : i32
  %ignored = llvm.call @madvise(%start, %length, %advice) : (!llvm.ptr, i64, i32) -> i32
  llvm.br ^done
^done:
  llvm.return %p : !llvm.ptr
}}
"""


def use_huge_pages(module: ir.Module) -> None:
    """On an LLVM-dialect module: every call of malloc goes through the huge-page helper (Linux only)."""
    if not sys.platform.startswith("linux"):
        return
    calls = []
    module.operation.walk(lambda op: (op.name == "llvm.call" and "callee" in op.attributes and
                                      ir.FlatSymbolRefAttr(op.attributes["callee"]).value == "malloc"
                                      and calls.append(op)) or ir.WalkResult.ADVANCE)
    if not calls:
        return
    for op in calls:
        op.attributes["callee"] = ir.FlatSymbolRefAttr.get(_NAME)
    # Operations as walk() gives them, not as a block's list: that one builds Python views of the llvm.* ops,
    # whose first use imports (and compiles) the llvm dialect's generated module, 0.14 s of every compilation.
    existing = ir.SymbolTable(module.operation)
    helper = ir.Module.parse(_helper(result_cache.enabled()), module.context)
    functions = []
    helper.operation.walk(lambda op: (op.name == "llvm.func" and functions.append(op)) or ir.WalkResult.ADVANCE)
    for op in functions:
        if ir.StringAttr(op.attributes["sym_name"]).value not in existing:
            module.body.append(op)   # moved out of the parsed module
