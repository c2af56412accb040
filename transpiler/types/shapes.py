"""Shapes: tuples of dims, each a static int or a `Sym` (a size known only at run time).

Array arguments get one Sym per dim that is not 1 (dims of size 1 are specialized statically, so broadcasting is
always decided at compile time). When broadcasting needs two different Syms to be equal, the requirement is recorded
in the `ShapeEnv` and checked at the call boundary, where NumPy would raise the same ValueError.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..errors import UserError


@dataclass(eq=False)
class Sym:
    """A run-time size. `origin` says where it comes from: ("arg", path, axis) for argument dims, or a
    primitive-specific tag for sizes computed inside the kernel (split pieces, arange lengths ...)."""
    name: str
    origin: tuple

    def __repr__(self) -> str:
        return self.name


Dim = Union[int, Sym]
Shape = tuple


def is_static(shape: Shape) -> bool:
    return all(isinstance(d, int) for d in shape)


def fmt_dim(d: Dim) -> str:
    return str(d) if isinstance(d, int) else "?"


def fmt_shape(shape: Shape) -> str:
    return "[" + ",".join(fmt_dim(d) for d in shape) + "]"


def sym_text(shape: Shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


@dataclass
class ShapeEnv:
    """Facts learned about Syms during inference: which argument dims must be equal."""
    parent: dict = field(default_factory=dict)
    guards: list = field(default_factory=list)  # (Sym, Sym | int) checked before each call
    nonzero: list = field(default_factory=list)  # (Sym, message): sizes that must not be 0 (max of an empty axis)

    def find(self, d: Dim) -> Dim:
        while isinstance(d, Sym) and d in self.parent:
            d = self.parent[d]
        return d

    def unify(self, a: Dim, b: Dim, what: str) -> Dim:
        a, b = self.find(a), self.find(b)
        if a is b or a == b:
            return a
        if isinstance(a, int) and isinstance(b, int):
            raise UserError(what, ValueError)
        if isinstance(a, int):
            a, b = b, a
        if a.origin[0] != "arg" or (isinstance(b, Sym) and b.origin[0] != "arg"):
            raise UserError(f"{what}: cannot prove the run-time sizes {a} and {b} are equal", ValueError)
        self.parent[a] = b
        self.guards.append((a, b))
        return b


    def require_nonzero(self, d: Sym, message: str) -> None:
        if d.origin[0] != "arg":  # a size computed inside the kernel: not checkable before the call
            return
        if all(s is not d for s, _ in self.nonzero):
            self.nonzero.append((d, message))


def broadcast(shapes: list[Shape], env: ShapeEnv) -> Shape:
    """NumPy broadcasting of several shapes; raises a ValueError-kind UserError like NumPy when they do not fit."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        result: Dim = 1
        for d in dims:
            d = env.find(d)
            if d == 1:
                continue
            if result == 1:
                result = d
            else:
                result = env.unify(result, d, "operands could not be broadcast together with shapes "
                                   + " ".join(fmt_shape(s) for s in shapes))
        out.append(result)
    return tuple(out)
