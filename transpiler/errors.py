"""CompileError: every user-facing error points at a source location.

An error that NumPy would raise as a specific exception type (ValueError for shapes that do not broadcast,
TypeError for an unsupported operand type, OverflowError ...) is raised as a subclass of both CompileError and
that type, so `except ValueError` catches the same mistakes with and without compilation.
"""
from __future__ import annotations

import functools
import linecache
import os

_MIXED: dict[type, type] = {}


class CompileError(Exception):
    """A program the compiler cannot compile, with the place in the source that is to blame."""

    def __init__(self, message: str, filename: str = "<unknown>", lineno: int = 0, col_offset: int = 0):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col_offset = col_offset
        self.context = ""        # where inside the library the error arose (relocated_to_call)

    def __str__(self) -> str:
        return self.format()

    def format(self, severity: str = "") -> str:
        """`FILE:LINE:COL: [severity: ]message`, then the source line and a caret under the column."""
        head = f"{self.filename}:{self.lineno}:{self.col_offset + 1}: {severity + ': ' if severity else ''}{self.message}"
        line = linecache.getline(self.filename, self.lineno).rstrip("\n") if self.lineno else ""
        text = f"{head}\n    {line}\n    {' ' * self.col_offset}^" if line else head
        return f"{text}\n  {self.context}" if self.context else text

    def __reduce__(self):
        return (_rebuild, (type(self).__mro__[1:], self.message, self.filename, self.lineno, self.col_offset,
                           self.context))


def _kind(bases) -> type | None:
    """The built-in exception type among a CompileError subclass's bases (error_class's `kind`)."""
    return next((b for b in bases if b is not CompileError and issubclass(b, Exception)), None)


def _rebuild(bases, message, filename, lineno, col_offset, context=""):
    err = compile_error(message, filename, lineno, col_offset, _kind(bases))
    err.context = context
    return err


def relocated_to_call(error: CompileError, filename: str, lineno: int, col_offset: int) -> CompileError:
    """An error raised inside the library's source (stdlib/: a bad argument of np.diagonal, np.pad ...), reported
    at the user's call, with the library's line as context."""
    err = compile_error(error.message, filename, lineno, col_offset, _kind(type(error).__mro__[1:]))
    err.context = error.context or (f"(raised in the library's code at {error.filename}:"
                                    f"{error.lineno}:{error.col_offset + 1})")
    return err


@functools.lru_cache(maxsize=None)
def _library_dirs() -> tuple:
    from . import stdlib
    return tuple(os.path.realpath(p) + os.sep for p in stdlib.__path__)


@functools.lru_cache(maxsize=256)
def in_library(filename: str) -> bool:
    """Whether a file is the compiler's library code (stdlib/, which ships as transpiler.stdlib). Asked for every
    statement the frontend locates: cached per file name (realpath reads the file system)."""
    return bool(filename) and os.path.realpath(filename).startswith(_library_dirs())



def error_class(kind: type | None) -> type:
    """The CompileError subclass that is also an instance of `kind` (a built-in exception type)."""
    if kind is None or kind is CompileError or not issubclass(kind, Exception):
        return CompileError
    if issubclass(kind, CompileError):
        return kind
    if kind not in _MIXED:
        _MIXED[kind] = type(f"Compile{kind.__name__}", (CompileError, kind), {})
    return _MIXED[kind]


def compile_error(message, filename="<unknown>", lineno=0, col_offset=0, kind: type | None = None) -> CompileError:
    cls = error_class(kind)
    err = cls.__new__(cls)
    CompileError.__init__(err, message, filename, lineno, col_offset)
    return err


class UserError(Exception):
    """Raised inside the compiler without a location; the frontend attaches the node being evaluated.

    `kind` is the NumPy/Python exception type the same mistake raises when run eagerly.
    """

    def __init__(self, message: str, kind: type | None = None):
        super().__init__(message)
        self.kind = kind
