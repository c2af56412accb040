"""Only the C interface of a kernel is visible outside its module: every other function is internal, and the
kernel's own function is inlined into that interface.

MLIR's lowering leaves every function of the module external, which costs LLVM compile time three ways. The
ExecutionEngine writes a packed wrapper (`_mlir_f(void **)`) for every external function with a body, unpacking
each of its arguments. The C interface `_mlir_ciface_f` loads every memref descriptor it is given and calls `f`
with each descriptor's fields as separate arguments: GPT-2's `gpt2` takes ~850 of them, most passed on the stack,
and LLVM's instruction selection and scheduling of such a call are quadratic in its memory operations (0.6 s of
code generation for a wrapper that does nothing). And an external function is never dropped once inlined, nor are
its unused arguments: internal, a function called once is inlined and gone, and the others lose the arguments they
do not read (the allocated pointer of each descriptor, mostly).

Only the C interfaces are looked up (runtime/jit.py, runtime/objects.py), so nothing else needs to be external.
"""
from __future__ import annotations

from mlir import ir

C_INTERFACE_PREFIX = "_mlir_ciface_"


def internalize(module: ir.Module) -> None:
    """On an LLVM-dialect module: functions with a body become internal, but the C interfaces; the function each C
    interface wraps is always inlined into it (its only caller)."""
    internal = ir.Attribute.parse("#llvm.linkage<internal>")
    wrapped = set()
    functions = [op.operation for op in module.body.operations if op.operation.name == "llvm.func"]
    for fn in functions:
        name = ir.StringAttr(fn.attributes["sym_name"]).value
        if not name.startswith(C_INTERFACE_PREFIX) or not len(fn.regions[0].blocks):
            continue
        wrapped.add(name[len(C_INTERFACE_PREFIX):])
    for fn in functions:
        name = ir.StringAttr(fn.attributes["sym_name"]).value
        if name.startswith(C_INTERFACE_PREFIX) or not len(fn.regions[0].blocks):
            continue
        fn.attributes["linkage"] = internal
        if name in wrapped:
            fn.attributes["always_inline"] = ir.UnitAttr.get()
