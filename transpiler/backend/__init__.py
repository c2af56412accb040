"""Optimized MLIR -> LLVM: the named pass pipelines (pipeline.py) and the compiler's own rewrites between them, one
module per rewrite (loops, matmul and BLAS lowering, vector math, vectorized reductions, destinations, written
arguments, huge pages)."""
