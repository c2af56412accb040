"""Tracebacks of errors raised by a call of a compiled function show the user's frames, not the compiler's.

An uncaught CompileError used to print some 50 lines, 44 of them inside the compiler, with the located message at
the bottom. As JAX does, the frames whose code lives in this package are removed from the traceback of an error
that leaves the public entry points, and a note says so. `TRANSPILER_TRACEBACK_FILTERING=off` keeps every frame
(for reporting a compiler bug). The chained cause of an internal compiler error keeps its full traceback: that one
is the compiler's own fault, and its frames are the report.
"""
from __future__ import annotations

import os
import types

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
NOTE = ("(the compiler's internal frames are hidden from this traceback; set TRANSPILER_TRACEBACK_FILTERING=off "
        "to show them)")


def enabled() -> bool:
    return os.environ.get("TRANSPILER_TRACEBACK_FILTERING", "on").strip().lower() not in ("off", "0", "no", "false")


def user_frames(error: BaseException) -> BaseException:
    """`error` with the compiler's frames taken out of its traceback (in place; returned for `raise`)."""
    if not enabled():
        return error
    kept, tb = [], error.__traceback__
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE):
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for tb in reversed(kept):
        filtered = types.TracebackType(filtered, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    if NOTE not in getattr(error, "__notes__", ()):
        error.add_note(NOTE)
    return error.with_traceback(filtered)
