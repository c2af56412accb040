"""NumPy's floating-point error state at the call (`np.errstate`, `np.seterr`).

A kernel does not report floating-point events: IEEE arithmetic gives the same values, but no RuntimeWarning and
no FloatingPointError (docs/semantics.md). Where the caller asked for more than warnings (`raise`, `call`, `print`
or `log` for any of divide, over, under, invalid), the compiled function runs as the NumPy code it is instead, so
that NumPy itself raises, calls or prints exactly where and when it would. The check costs one context-variable
read when the error state is the default one (NumPy 2 keeps it in a ContextVar), and a `np.geterr()` only when it
changed since the last call.
"""
from __future__ import annotations

import numpy as np

try:   # NumPy 2: the error state is a ContextVar holding an immutable object, replaced by every errstate/seterr
    from numpy._core._ufunc_config import _extobj_contextvar as _state
except ImportError:   # pragma: no cover (another NumPy layout): read the modes at every call
    _state = None

_QUIET = ("ignore", "warn")
_DEFAULT = _state.get() if _state is not None else None
_last = (_DEFAULT, False)      # (error-state object, whether it asks NumPy to run): a one-entry cache


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
