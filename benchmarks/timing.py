"""The timer: sides (NumPy, compiled, peers) interleaved in rounds, each call timed alone with time.perf_counter.

Interleaving puts the sides under the same conditions on a noisy machine (another process, frequency changes hit
them alike instead of whichever ran last). A round runs a block of calls per side, sized to about BLOCK_S so that a
short kernel is not timed right after the other side evicted its data from cache on every call. Each side stops on
its own once it has at least `min_repeats` samples and `min_time` seconds of them, or once `max_time` seconds are
spent (the cap, for calls of a minute or more), with at least one sample whatever the cap.

Before each block the timer pauses SWITCH_PAUSE_S, untimed, so that each side runs as it would alone: after a
call, thread pools keep their workers spinning for a while (NumPy's OpenBLAS about 0.1 s, the compiled kernels'
OpenMP 1 ms), and the other side's first calls would share the cores with them. Measured on GPT-2 T=8 without the
pause: the compiled forward took 101 ms right after NumPy's multi-threaded BLAS calls, 46 ms alone.
"""
from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass, field

BLOCK_S = 0.05
LONG_CALL_S = 1.0
SWITCH_PAUSE_S = 0.2


@dataclass
class Budget:
    min_repeats: int      # at least this many timed calls per side
    min_time: float       # and at least this many seconds of them
    max_time: float       # but stop a side after this many seconds (caps slow calls)
    warmup_time: float    # warm-up calls after the first, until this many seconds (short calls only)


@dataclass
class Side:
    name: str
    call: object                          # () -> result
    first_s: float                        # the duration of its warm-up call (the correctness check)
    samples: list = field(default_factory=list)
    spent: float = 0.0
    warmup_reused: bool = False           # the warm-up call was the only sample (it alone exceeded the cap)

    def done(self, budget: Budget) -> bool:
        if self.samples and self.spent >= budget.max_time:
            return True
        return len(self.samples) >= budget.min_repeats and self.spent >= budget.min_time


def warm_up(side: Side, budget: Budget) -> None:
    """More warm-up calls after the checking one, for short calls: caches, page faults, branch predictors."""
    if side.first_s >= budget.max_time:
        side.samples.append(side.first_s)      # one call already spent the budget: it is the sample
        side.spent = side.first_s
        side.warmup_reused = True
        return
    if side.first_s >= LONG_CALL_S:
        return                                  # a call this long: the checking call warmed everything up
    start = time.perf_counter()
    calls = 0
    while calls < 2 or time.perf_counter() - start < budget.warmup_time:
        side.call()
        calls += 1


def run_rounds(sides: list[Side], budget: Budget) -> None:
    """Time the sides, interleaved, until each is done; samples are seconds per call."""
    for side in sides:
        warm_up(side, budget)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()                                # as timeit does: no collection pauses inside a timed call
    try:
        while True:
            pending = [side for side in sides if not side.done(budget)]
            if not pending:
                break
            for side in pending:
                typical = statistics.median(side.samples) if side.samples else side.first_s
                block = max(1, int(BLOCK_S / max(typical, 1e-9)))
                if len(sides) > 1:
                    time.sleep(SWITCH_PAUSE_S)      # the other side's thread pools go idle (module doc)
                for _ in range(block):
                    start = time.perf_counter()
                    side.call()
                    elapsed = time.perf_counter() - start
                    side.samples.append(elapsed)
                    side.spent += elapsed
                    if side.done(budget):
                        break
            gc.collect()                        # between rounds, outside the timed calls
    finally:
        if enabled:
            gc.enable()


def stats(samples: list[float]) -> dict:
    return {"median_s": statistics.median(samples), "min_s": min(samples), "max_s": max(samples), "n": len(samples)}


def timed(call):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start
