"""np.linalg.inv / solve called many times from a run-time loop (issue 17, cheap calls): the kernel's own dgesv
call against NumPy, one thread, CPU time of the thread, interleaved in one process, medians.

    OMP_NUM_THREADS=1 TRANSPILER_CACHE_DIR="" uv run python -m benchmarks.linalg_loops [--repeats N]

Prints NumPy's median, the compiled one and NumPy's over ours (above 1 is faster than NumPy).
"""
import copy
import sys
import time

import numpy as np

from transpiler import transpile
from .harness import cpu_model


def inv_loop(a):
    acc = np.zeros(a.shape[1:])
    for i in range(a.shape[0]):
        acc += np.linalg.inv(a[i])
    return acc


def solve_loop(a, b):
    acc = np.zeros(b.shape[1:])
    for i in range(a.shape[0]):
        acc += np.linalg.solve(a[i], b[i])
    return acc


class Kalman:
    """The filter of tests/test_attribute_state.py."""

    def __init__(self, F, H, Q, R, x0, P0):
        self.F, self.H, self.Q, self.R, self.x, self.P = F, H, Q, R, x0, P0

    def filter(self, zs):
        out = np.empty((zs.shape[0], self.x.shape[0]))
        for t in range(zs.shape[0]):
            self.x = self.F @ self.x
            self.P = self.F @ self.P @ self.F.T + self.Q
            S = self.H @ self.P @ self.H.T + self.R
            K = self.P @ self.H.T @ np.linalg.inv(S)
            self.x = self.x + K @ (zs[t] - self.H @ self.x)
            self.P = (np.eye(self.P.shape[0]) - K @ self.H) @ self.P
            out[t] = self.x
        return out


def run_filter(kf, zs):
    return kf.filter(zs)


def _median(fn, args, repeats):
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn(*args)
        times.append(time.thread_time() - start)
    return float(np.median(times))


def main(argv):
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 7
    rng = np.random.default_rng(1)
    n, m = 4, 2
    kf = Kalman(np.eye(n) + 0.1 * rng.standard_normal((n, n)), rng.standard_normal((m, n)), 0.01 * np.eye(n),
                0.1 * np.eye(m), rng.standard_normal(n), np.eye(n))
    cases = [("2000 inv 4x4", inv_loop, (rng.standard_normal((2000, 4, 4)) + 4 * np.eye(4),)),
             ("2000 solve 4x4", solve_loop, (rng.standard_normal((2000, 4, 4)) + 4 * np.eye(4),
                                             rng.standard_normal((2000, 4)))),
             ("500 inv 16x16", inv_loop, (rng.standard_normal((500, 16, 16)) + 8 * np.eye(16),)),
             ("Kalman n=4 m=2, 500 steps", lambda z: run_filter(copy.deepcopy(kf), z),
              (rng.standard_normal((500, 2)),))]
    print(cpu_model())
    for name, fn, args in cases:
        compiled = transpile(run_filter, threads=False) if name.startswith("Kalman") else transpile(fn, threads=False)
        ours = (lambda z: compiled(copy.deepcopy(kf), z)) if name.startswith("Kalman") else compiled
        assert np.array_equal(ours(*args), fn(*args)), name
        numpy_times, our_times = [], []
        for _ in range(repeats):      # interleaved: the machine's load falls on both alike
            numpy_times.append(_median(fn, args, 1))
            our_times.append(_median(ours, args, 1))
        t_np, t_ours = float(np.median(numpy_times)), float(np.median(our_times))
        print(f"{name:28s} NumPy {t_np * 1e3:8.2f} ms  compiled {t_ours * 1e3:8.2f} ms  {t_np / t_ours:6.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
