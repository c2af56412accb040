"""Machine code -> call: JIT engine, the NumPy <-> memref calling convention, and the specialization cache."""
