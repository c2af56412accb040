"""The x86-64 CPU the kernels are compiled for: this machine's (LLVM's host CPU, the default), or the one that
TRANSPILER_TARGET_CPU names (an LLVM CPU name: `x86-64-v3` is AVX2 and FMA without AVX-512, `x86-64-v2` SSE4.2,
`znver3` a Zen 3). An AVX-512 machine can then build, test and time the code an AVX2-only machine runs (issue 17,
item 7: float64 tanh cost 5 ns per element on a Zen 3; compiled here for `x86-64-v3` it showed why, see
vector_math._to_int). Only the kernels change: NumPy and OpenBLAS keep their own choice (OPENBLAS_CORETYPE sets
OpenBLAS's)."""
from __future__ import annotations

import os

from mlir import ir

ENV = "TRANSPILER_TARGET_CPU"
# A function's own target features replace the engine's (the host's) only when the attribute is present, so it
# always names one; +cx16 is in every x86-64 level past the first, and harmless to add.
_FEATURES = '#llvm.target_features<["+cx16"]>'


def target_cpu() -> str | None:
    """The CPU named by TRANSPILER_TARGET_CPU, or None: the host's."""
    return os.environ.get(ENV) or None


def apply(module: ir.Module) -> None:
    """Compile every function of `module` (LLVM dialect) for target_cpu(), with that CPU's features only."""
    cpu = target_cpu()
    if cpu is None:
        return
    functions = []
    module.operation.walk(lambda op: (op.name == "llvm.func" and functions.append(op)) or ir.WalkResult.ADVANCE)
    for function in functions:
        if function.regions[0].blocks:     # definitions; declarations are compiled elsewhere
            function.attributes["target_cpu"] = ir.StringAttr.get(cpu)
            function.attributes["target_features"] = ir.Attribute.parse(_FEATURES)
