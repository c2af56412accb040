"""Name resolution as Python does it: locals, enclosing frames, closure cells, globals, builtins."""
from __future__ import annotations

import builtins
from dataclasses import dataclass, field

from ..errors import UserError

_MISSING = object()


@dataclass(eq=False)
class Frame:
    globals: dict
    filename: str
    function: str
    locals: dict = field(default_factory=dict)
    parent: "Frame | None" = None      # the frame a nested def or lambda closes over
    closure: dict = field(default_factory=dict)  # free variables of a real Python function

    def lookup(self, name: str):
        frame = self
        while frame is not None:
            if name in frame.locals:
                return frame.locals[name]
            if name in frame.closure:
                try:
                    return frame.closure[name].cell_contents
                except ValueError:
                    raise UserError(f"free variable '{name}' referenced before assignment", NameError) from None
            last = frame
            frame = frame.parent
        value = last.globals.get(name, _MISSING)
        if value is _MISSING:
            value = getattr(builtins, name, _MISSING)
        if value is _MISSING:
            raise UserError(f"name '{name}' is not defined", NameError)
        return value
