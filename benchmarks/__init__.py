"""Benchmarks: NumPy and the compiled kernel timed side by side, in one process, on the same inputs.

    uv run python -m benchmarks [--quick] [--only NAME,...] [--repeat N] [--out DIR] [--scale small]

See docs/benchmarks.md. Modules: workloads.py (what is timed, reference figures and bars), timing.py (the adaptive,
interleaved timer and statistics), harness.py (checking, timing, the first-call subprocess), firstcall.py (that
subprocess), peers.py (JAX, torch.compile and Numba, live when importable), report.py (table, JSON, PNG).
"""
