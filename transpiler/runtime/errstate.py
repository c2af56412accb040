"""NumPy's floating-point error state at the call (`np.errstate`, `np.seterr`).

A kernel reports the floating-point events it raised (backend/fp_status.py: the IEEE flags of its threads, a
filter, not the answer: vector code can raise a flag that NumPy's loops do not, e.g. comparing a NaN). When an event
that the current state reports (`warn`) was raised, the call runs the function again as the NumPy code it is
(`Events`, caught in api.py), so that NumPy issues exactly its own RuntimeWarnings. Where the caller asked for more
than warnings (`raise`, `call`, `print` or `log` for any of divide, over, under, invalid), the compiled function
runs as NumPy code from the start, so that NumPy itself raises, calls or prints exactly where and when it would.
The checks cost one context-variable read when the error state is the default one (NumPy 2 keeps it in a
ContextVar), and a `np.geterr()` only when it changed since the last call.

The warnings are opt-in (`WARNINGS`, TRANSPILER_FP_WARNINGS=1): LLVM compiles as if nobody read the flags, and
raises events that no operation of the program raises. A scalar float64 division done in a whole vector register
(the unused lanes divide 0 by 0) raises "invalid" in every call of a float64 layer_norm, so every call of GPT-2's
forward pass would run twice, the second time as NumPy. Off, a kernel's events are never reported.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import platform
import warnings

import numpy as np

try:   # NumPy 2: the error state is a ContextVar holding an immutable object, replaced by every errstate/seterr
    from numpy._core._ufunc_config import _extobj_contextvar as _state
except ImportError:   # pragma: no cover (another NumPy layout): read the modes at every call
    _state = None

_QUIET = ("ignore", "warn")
_DEFAULT = _state.get() if _state is not None else None
_last = (_DEFAULT, False)      # (error-state object, whether it asks NumPy to run): a one-entry cache
# whether calls report their kernels' floating-point events as NumPy's warnings (module doc: opt-in)
WARNINGS = os.environ.get("TRANSPILER_FP_WARNINGS", "").strip().lower() in ("1", "on", "yes", "true")
# the kernel's event bits (backend/fp_status.py) of each np.errstate category
_BITS = {"invalid": 1, "divide": 4, "over": 8, "under": 16}


class Events(Exception):
    """The kernel raised a floating-point event that the caller's error state reports: the call runs the function
    as NumPy instead (api.py), which issues NumPy's own warnings. `results`: the kernel's; `events`: the reported
    event bits; `value`: the call's value when it cannot run as NumPy (runtime/call.py: an argument written in place
    too big to keep a copy of), and then the warnings come from the bits (`warn_from_flags`)."""

    def __init__(self, results: list, events: int):
        super().__init__()
        self.results, self.events, self.value = results, events, _NO_VALUE


_NO_VALUE = object()


def has_value(events: Events) -> bool:
    return events.value is not _NO_VALUE


def warn_from_flags(events: int, name: str, stacklevel: int) -> None:
    """One RuntimeWarning per reported event, in NumPy's order and wording, naming the compiled function where
    NumPy names the operation (it is not known from the flags)."""
    for kind in ("divide by zero", "overflow", "underflow", "invalid value"):
        if events & _KINDS[kind]:
            warnings.warn(f"{kind} encountered in {name} (an argument written in place was too big to run the call "
                          f"again as NumPy: the kernel's floating-point flags)", RuntimeWarning,
                          stacklevel=stacklevel + 1)


def _warned(modes: dict) -> int:
    return sum(bit for name, bit in _BITS.items() if modes[name] != "ignore")


_last_warned = (_DEFAULT, _warned(np.geterr()))   # (error-state object, its reported event bits): a one-entry cache


def reported(events: int) -> int:
    """The bits of `events` (the kernel's status word) that the current error state does not ignore (none unless
    WARNINGS)."""
    global _last_warned
    if not WARNINGS:
        return 0
    if _state is None:
        return events & _warned(np.geterr())
    current = _state.get()
    seen, bits = _last_warned
    if current is not seen:
        bits = _warned(np.geterr())
        _last_warned = (current, bits)
    return events & bits


def any_reported() -> bool:
    """Whether the current error state reports some event (the default one does: it warns)."""
    return reported(sum(_BITS.values())) != 0


# the per-call test (api.py): `current_state() is not DEFAULT_STATE and numpy_must_run()`, one C call while the error
# state is the default one (without NumPy 2's ContextVar, `object()`: never the default, numpy_must_run decides)
current_state = _state.get if _state is not None else object
DEFAULT_STATE = _DEFAULT


def numpy_must_run() -> bool:
    """Whether the current error state asks for raise, call, print or log on some floating-point event."""
    global _last
    if _state is None:
        return any(mode not in _QUIET for mode in np.geterr().values())
    current = _state.get()
    if current is _DEFAULT:
        return False
    seen, answer = _last
    if current is not seen:
        answer = any(mode not in _QUIET for mode in np.geterr().values())
        _last = (current, answer)
    return answer


_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_libm.fetestexcept.argtypes = [ctypes.c_int]
# (fexcept_t is an unsigned short on x86-64, glibc and macOS)
_libm.fesetexceptflag.argtypes = [ctypes.POINTER(ctypes.c_ushort), ctypes.c_int]
_X86 = platform.machine().lower() in ("x86_64", "amd64")
_KINDS = {"invalid value": 1, "divide by zero": 4, "overflow": 8, "underflow": 16}   # np.errstate's call names


@contextlib.contextmanager
def numpy_inside_kernel():
    """Around NumPy code that a kernel calls back (sorts, float16 products ...): NumPy clears the thread's
    floating-point flags before each ufunc, which would lose the events the kernel raised before the call, and
    checks them after, which would warn in the middle of the kernel. So the events of the NumPy code are collected
    (errstate `call`) and raised, with the kernel's earlier ones, into the flags again when it returns: the kernel
    reports them all, and the replay as NumPy issues the warnings (x86-64's fenv bits are the kernel's event bits)."""
    if not _X86:    # (no events reported there: backend/fp_status.py)
        yield
        return
    before = _libm.fetestexcept(sum(_KINDS.values()))
    seen = []
    try:
        with np.errstate(all="call", call=lambda kind, flag: seen.append(kind)):
            yield
    finally:
        events = before | event_bits(seen)
        if events:
            # into MXCSR, where the kernel reads them: glibc's feraiseexcept sets overflow and underflow in the x87
            # status word only (a float16 product's overflow was lost); fesetexceptflag sets both units' flags
            _libm.fesetexceptflag(ctypes.byref(ctypes.c_ushort(events)), events)


def event_bits(kinds: list) -> int:
    """The event bits of np.errstate `call` kinds ("divide by zero", ...)."""
    bits = 0
    for kind in kinds:
        bits |= _KINDS.get(kind, 0)
    return bits
