"""What a compilation is doing: an opt-in log of every compilation, and progress on a terminal for long ones.

The log is Python's `logging` (logger "transpiler"): one INFO record per compilation with the function, its
argument signature, where the kernel came from (compiled, or loaded from the disk cache) and the time of each stage.
`TRANSPILER_LOG=1` (or a level name: `info`, `debug`) sends it to stderr without any logging set-up of one's own.

A compilation that takes longer than PROGRESS_AFTER seconds shows its current stage and the time so far on stderr,
when stderr is a terminal, and clears the line when it ends.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time

logger = logging.getLogger("transpiler")
PROGRESS_AFTER = 2.0     # seconds; shorter compilations stay silent
_REFRESH = 0.25


def _configure_from_environment() -> None:
    level = os.environ.get("TRANSPILER_LOG", "").strip()
    if not level or level.lower() in ("0", "off", "no", "false"):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("transpiler: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level.upper() if level.upper() in logging.getLevelNamesMapping() else logging.INFO)


_configure_from_environment()


class Compilation:
    """The stages of one compilation, timed; `with Compilation(fn):` logs it at the end and shows progress."""

    def __init__(self, fn):
        self.name = getattr(fn, "__qualname__", "?").rpartition("<locals>.")[2]   # f, not test.<locals>.f
        self.signature = ""
        self.source = "compiled"          # or "disk cache"
        self.times: dict[str, float] = {}
        self.current = "typing"
        self._start = time.perf_counter()
        self._done = threading.Event()
        self._shown = False
        self._progress = None
        if sys.stderr is not None and sys.stderr.isatty():
            self._progress = threading.Thread(target=self._show_progress, name="transpiler-progress", daemon=True)

    @contextlib.contextmanager
    def stage(self, name: str):
        self.current, start = name, time.perf_counter()
        try:
            yield
        finally:
            self.times[name] = self.times.get(name, 0.0) + time.perf_counter() - start

    def __enter__(self):
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, kind, error, tb):
        self._done.set()
        if self._progress is not None:
            self._progress.join()
        if logger.isEnabledFor(logging.INFO):
            total = time.perf_counter() - self._start
            stages = ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in self.times.items())
            outcome = f"failed ({type(error).__name__})" if error is not None else f"{self.source}"
            logger.info("%s(%s): %s in %.0f ms (%s)", self.name, self.signature, outcome, total * 1e3, stages)
        return False

    def _show_progress(self) -> None:
        if self._done.wait(PROGRESS_AFTER):
            return
        while not self._done.wait(_REFRESH):
            elapsed = time.perf_counter() - self._start
            sys.stderr.write(f"\rtranspiler: compiling {self.name}: {self.current} ({elapsed:.1f} s)\x1b[K")
            sys.stderr.flush()
            self._shown = True
        if self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


class NoStages:
    """Stage timing for callers that do not log (emit, the CLI)."""
    source = ""

    @contextlib.contextmanager
    def stage(self, name: str):
        yield
