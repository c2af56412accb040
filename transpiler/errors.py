"""CompileError: every user-facing error points at a source location.

An error that NumPy would raise as a specific exception type (ValueError for shapes that do not broadcast,
TypeError for an unsupported operand type, OverflowError ...) is raised as a subclass of both CompileError and
that type, so `except ValueError` catches the same mistakes with and without compilation.
"""
from __future__ import annotations

import linecache

_MIXED: dict[type, type] = {}


class CompileError(Exception):
    """A program the compiler cannot compile, with the place in the source that is to blame."""

    def __init__(self, message: str, filename: str = "<unknown>", lineno: int = 0, col_offset: int = 0):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col_offset = col_offset

    def __str__(self) -> str:
        return self.format()

    def format(self, severity: str = "") -> str:
        """`FILE:LINE:COL: [severity: ]message`, then the source line and a caret under the column."""
        head = f"{self.filename}:{self.lineno}:{self.col_offset + 1}: {severity + ': ' if severity else ''}{self.message}"
        line = linecache.getline(self.filename, self.lineno).rstrip("\n") if self.lineno else ""
        if not line:
            return head
        return f"{head}\n    {line}\n    {' ' * self.col_offset}^"

    def __reduce__(self):
        return (_rebuild, (type(self).__mro__[1:], self.message, self.filename, self.lineno, self.col_offset))


def _rebuild(bases, message, filename, lineno, col_offset):
    kind = next((b for b in bases if b is not CompileError and issubclass(b, Exception)), None)
    return compile_error(message, filename, lineno, col_offset, kind)


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
