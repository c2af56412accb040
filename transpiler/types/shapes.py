"""Shapes: tuples of dims, each a static int or a `Sym` (a size known only at run time).

A Sym says how its value is found: an argument's dim (`("arg", input_index, axis)`), an arithmetic expression of
other dims (`("floordiv", d, 3)` for a third of a dim after np.split, `("add", a, b)` after a concatenation ...), or
a run-time value computed inside the kernel (`("var", var)`, e.g. a slice bound read from an array). Array
arguments get one Sym per dim that is not 1 (dims of size 1 are specialized statically, so broadcasting is always
decided at compile time).

When broadcasting or a contraction needs two dims to be equal, the `ShapeEnv` records the requirement as a guard.
Guards over argument dims and expressions of them are evaluated in Python before each call, where NumPy would
raise the same ValueError; the kernel never runs with sizes that disagree.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Union

import numpy as np

from ..errors import UserError

_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
        "min": min, "max": max,
        "wrap": lambda i, n: i + n if i < 0 else i,   # a Python index or slice bound: negative counts from the end
        "same": lambda a, b: a if a == b else 0,      # two sizes checked equal in the kernel: 0 (nothing) if not
        # two sizes broadcast together in the kernel (one may be 1 there): 0 (nothing) where they do not broadcast
        "bcast": lambda a, b: a if a == b or b == 1 else b if a == 1 else 0,
        "upto": lambda a, b: a if a <= b else 0,      # a size checked against a limit in the kernel: 0 if beyond
        "ifneg": lambda k, a, b: a if k < 0 else b}   # a slice's geometry for a step whose sign only the kernel knows


DIM_OPS = frozenset(_OPS)     # the operations of dim expressions (the kernel computes them too)


@dataclass(eq=False)
class Sym:
    name: str
    origin: tuple

    def __repr__(self) -> str:
        return self.name


Dim = Union[int, Sym]
Shape = tuple


def derived(op: str, *operands) -> Dim:
    """The dim `op(*operands)`, folded when every operand is static."""
    if all(isinstance(o, int) for o in operands):
        return _OPS[op](*operands)
    if op == "mul" and 1 in operands:
        return next(o for o in operands if o != 1) if operands.count(1) == 1 else 1
    if op == "floordiv" and operands[1] == 1:
        return operands[0]
    if op in ("add", "sub") and operands[1] == 0:
        return operands[0]
    if op == "floordiv" and operands[0] is operands[1]:
        return 1                                 # d // d: callers guard d != 0 where NumPy would fail
    if op == "floordiv" and isinstance(operands[0], Sym) and operands[0].origin[0] == "mul" \
            and any(o is operands[1] for o in operands[0].origin[1:]):
        x, y = operands[0].origin[1:]            # (x * y) // x (reshape(n, -1) of an (n, m) array): y, guarded
        return y if x is operands[1] else x      # as d // d is
    if op == "max" and 0 in operands and all(o == 0 or nonnegative(o) for o in operands):
        return next((o for o in operands if o != 0), 0)
    if op in ("add", "sub") and isinstance(operands[1], int):    # (x + a) + b is x + (a + b)
        x, c = operands[0], operands[1] if op == "add" else -operands[1]
        if isinstance(x, Sym) and x.origin[0] in ("add", "sub") and isinstance(x.origin[2], int):
            x, c = x.origin[1], c + (x.origin[2] if x.origin[0] == "add" else -x.origin[2])
        if c == 0:
            return x
        operands, op = (x, abs(c)), "add" if c > 0 else "sub"
    if op == "add" and operands[0] == 0:
        return operands[1]
    sign = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//"}.get(op)
    name = f"({operands[0]}{sign}{operands[1]})" if sign else f"{op}({', '.join(map(str, operands))})"
    return Sym(name, (op, *operands))


def readable(d: Dim) -> str:
    """A dim as a refusal shows it: a slice bound's normalization (`wrap`, and the clamps of a length at 0) and a
    size's limits are left out, so `x[a:a + n]`'s length reads `(min((int(a)+int(n)), x.shape[0])-min(int(a),
    x.shape[0]))`, not the kernel's full arithmetic (`--emit typed` shows that)."""
    if not isinstance(d, Sym) or d.origin[0] not in _OPS:
        return str(d)
    op, *operands = d.origin
    if op in ("wrap", "upto"):
        return readable(operands[0])
    rest = [o for o in operands if not (isinstance(o, int) and o <= 0)]
    if op == "max" and len(rest) == 1 and len(operands) == 2:
        return readable(rest[0])
    sign = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//"}.get(op)
    texts = [readable(o) for o in operands]
    return f"({texts[0]}{sign}{texts[1]})" if sign else f"{op}({', '.join(texts)})"


def data_sized(d: Dim) -> bool:
    """Whether a dim depends on a size computed from the data (an `upto` of frontend/shape_ops.limited)."""
    return isinstance(d, Sym) and (d.origin[0] == "upto" or d.origin == ("joined", "data")
                                   or d.origin[0] in DIM_OPS and any(data_sized(o) for o in d.origin[1:]))


def _same_form(a: Dim, b: Dim) -> bool:
    """Two expressions with the same operation at the top (operands not compared)."""
    return isinstance(a, Sym) and isinstance(b, Sym) and a.origin[0] == b.origin[0] and a.origin[0] in _OPS \
        and len(a.origin) == len(b.origin)


def nonnegative(d: Dim) -> bool:
    """Sizes and sums, products, quotients, minima and maxima of sizes are never negative."""
    if isinstance(d, int):
        return d >= 0
    kind = d.origin[0]
    if kind in ("arg", "joined", "result"):     # sizes of arrays (an argument's, or read off a computed array)
        return True
    if kind == "max":
        return any(nonnegative(o) for o in d.origin[1:])
    if kind == "upto":
        return nonnegative(d.origin[1])
    if kind == "ifneg":
        return all(nonnegative(o) for o in d.origin[2:])
    return kind in ("add", "mul", "floordiv", "min", "same", "bcast") and all(nonnegative(o) for o in d.origin[1:])


def _rank(d: Dim) -> int:
    if isinstance(d, int):
        return 0
    return 1 if d.origin[0] == "arg" else 2


def _occurs(d: Dim, expr: Dim) -> bool:
    """Whether `d` appears inside the expression `expr`."""
    if expr is d:
        return True
    if isinstance(expr, Sym) and expr.origin[0] in _OPS:
        return any(_occurs(d, o) for o in expr.origin[1:])
    return False


def is_checkable(d: Dim) -> bool:
    """Whether the value of `d` follows from the arguments' shapes alone (so a guard on it can run in Python)."""
    if isinstance(d, int):
        return True
    kind = d.origin[0]
    if kind in ("arg", "input"):
        return True
    if kind in _OPS:
        return all(is_checkable(o) for o in d.origin[1:])
    return False


def evaluate(d: Dim, arrays: list) -> int:
    if isinstance(d, int):
        return d
    kind = d.origin[0]
    if kind == "arg":
        return arrays[d.origin[1]].shape[d.origin[2]]
    if kind == "input":        # a Python int argument, a 0-d int64 input (shape_ops.kernel_size)
        return _int_of(arrays[d.origin[1]])
    return _OPS[kind](*(evaluate(o, arrays) for o in d.origin[1:]))


def evaluator(dims: list):
    """arrays -> [evaluate(d, arrays) for d in dims], compiled once into one Python expression per dim (evaluating
    the expressions cost a few recursive calls per dim at every call)."""
    def source(d: Dim) -> str:
        if isinstance(d, int):
            return repr(d)
        kind = d.origin[0]
        if kind == "arg":
            return f"arrays[{d.origin[1]}].shape[{d.origin[2]}]"
        if kind == "input":
            return f"_int_of(arrays[{d.origin[1]}])"
        return f"_ops[{kind!r}](" + ", ".join(source(o) for o in d.origin[1:]) + ")"
    namespace = {"_ops": _OPS, "_int_of": _int_of}
    exec(f"def sizes(arrays):\n    return [{', '.join(source(d) for d in dims)}]", namespace)
    return namespace["sizes"]


def _int_of(value) -> int:
    return int(value[()] if isinstance(value, np.ndarray) else value)


def fmt_dim(d: Dim) -> str:
    return str(d) if isinstance(d, int) else "?"


def fmt_shape(shape: Shape) -> str:
    return "[" + ",".join(fmt_dim(d) for d in shape) + "]"


def sym_text(shape: Shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def readable_shape(shape: Shape) -> str:
    return "[" + ",".join(readable(d) for d in shape) + "]"


@dataclass
class ShapeEnv:
    """Facts learned about Syms during inference: which dims must be equal, which must not be 0."""
    parent: dict = field(default_factory=dict)
    guards: list = field(default_factory=list)   # (Dim, Dim, message): checked before each call
    nonzero: list = field(default_factory=list)  # (Sym, message): sizes that must not be 0 (max of an empty axis)
    loc: object = None                           # the source position being compiled (frontend/builder.py)
    # > 0 while a run-time branch or loop body is compiled (frontend/control.py): a guard made there is needed only if
    # the kernel takes that path, so its failure runs the call as NumPy, which raises only if it gets there
    conditional: int = 0

    def find(self, d: Dim) -> Dim:
        while isinstance(d, Sym) and d in self.parent:
            d = self.parent[d]
        return d

    def unify(self, a: Dim, b: Dim, what: str, kind: type = ValueError) -> Dim:
        """a == b, or `kind` (NumPy's exception for the mismatch) with message `what`: now, or before the call."""
        a, b = self.find(a), self.find(b)
        if a is b or a == b or self.same_expression(a, b):
            return a
        if isinstance(a, int) and isinstance(b, int):
            raise UserError(what, kind)
        if self.needs_kernel_check(a, b):
            raise UserError(f"{what}: cannot check that the sizes {readable(a)} and {readable(b)}, known only when "
                            "the kernel runs, are equal", kind)
        if not (is_checkable(a) and is_checkable(b)):
            # the same expression over sizes that may differ (x[i, :j] and x[:j, i]: x.shape[1] and x.shape[0]):
            # equal operands are sufficient, and those that follow from the arguments are checked before the call
            for x, y in zip(a.origin[1:], b.origin[1:]):
                self.unify(x, y, what, kind)
            self.parent[a] = b
            return b
        if _occurs(a, b):
            a, b = b, a   # b is an expression of a: b must point to a, not the other way (no cycle)
        elif not _occurs(b, a) and _rank(a) < _rank(b):
            a, b = b, a   # keep the simplest representative: a static size, else an argument's dim
        self.parent[a] = b
        what = required_by(what, self.loc)
        self.guards.append((a, b, what if kind is ValueError and not self.conditional
                            else GuardMessage(what, kind, conditional=bool(self.conditional))))
        return b

    def needs_kernel_check(self, a: Dim, b: Dim) -> bool:
        """Whether only the kernel can compare a and b: a size computed inside it (a slice bound read from an
        array) meets another expression. `unify` refuses such a pair; a setitem checks it in the kernel."""
        a, b = self.find(a), self.find(b)
        if a is b or a == b or self.same_expression(a, b) or isinstance(a, int) and isinstance(b, int):
            return False
        if is_checkable(a) and is_checkable(b):
            return False
        if not _same_form(a, b):
            return True
        return any(self.needs_kernel_check(x, y) for x, y in zip(a.origin[1:], b.origin[1:]))

    def same_expression(self, a: Dim, b: Dim) -> bool:
        """The same expression of the same sizes (two slices `x[:j]` and `y[:j]` with one run-time j)."""
        a, b = self.find(a), self.find(b)
        if a is b or a == b:
            return True
        for op in ("mul", "add"):     # products and sums in any grouping and order: (a*b)*c is a*(b*c)
            if isinstance(a, Sym) and isinstance(b, Sym) and a.origin[0] == op and b.origin[0] == op:
                return self._same_terms(self._terms(a, op), self._terms(b, op))
        if not _same_form(a, b):
            return False
        return all(self.same_expression(x, y) for x, y in zip(a.origin[1:], b.origin[1:]))

    def _terms(self, d: Dim, op: str) -> list:
        d = self.find(d)
        if isinstance(d, Sym) and d.origin[0] == op:
            return self._terms(d.origin[1], op) + self._terms(d.origin[2], op)
        return [d]

    def _same_terms(self, xs: list, ys: list) -> bool:
        if len(xs) != len(ys):
            return False
        left = list(ys)
        for x in xs:
            match = next((i for i, y in enumerate(left) if self.same_expression(x, y)), None)
            if match is None:
                return False
            del left[match]
        return True

    def require_nonzero(self, d: Sym, message: str) -> None:
        """d != 0, or NumPy's ValueError with `message` before the call. A size only the kernel knows cannot be
        checked here: callers check it in the kernel (shape_ops.require_nonzero); one that reaches this is refused,
        never assumed."""
        if not is_checkable(d):
            raise UserError(f"{message.partition(chr(10))[0]}: cannot check before the call that the run-time size "
                            f"{d} is not 0", ValueError)
        if all(s is not d for s, _ in self.nonzero):
            self.nonzero.append((d, required_by(message, self.loc)))

    def checker(self):
        """check, or None when there is nothing to check. When every guard compares argument dims and static sizes
        (`x.shape[0] == y.shape[0]`, the common case), straight-line code generated once compares them, and only a
        mismatch runs `check` for its message: evaluating each guard's expressions cost ~0.4 us per call."""
        if not (self.guards or self.nonzero):
            return None
        pairs = [(dim_source(a), dim_source(b)) for a, b, _ in self.guards]
        nonzero = [dim_source(d) for d, _ in self.nonzero]
        if any(None in pair for pair in pairs) or None in nonzero:
            return self.check
        terms = [f"{x} == {y}" for x, y in pairs] + [f"{x} != 0" for x in nonzero]
        namespace = {"check": self.check}
        exec(f"def fast(arrays):\n    if not ({' and '.join(terms)}):\n        check(arrays)", namespace)
        return namespace["fast"]

    def check(self, arrays: list) -> None:
        """Raise NumPy's ValueError if the arguments' sizes break an assumption the kernel was compiled with."""
        for a, b, what in self.guards:
            try:
                va, vb = evaluate(a, arrays), evaluate(b, arrays)
            except ZeroDivisionError:   # e.g. reshape(-1) of an empty array: NumPy cannot infer the size either
                raise ValueError(what) from None
            if va != vb:
                # (on a path the kernel may not take, or a size of 1 that NumPy may broadcast where the kernel was
                # compiled for equal sizes: NumPy's run decides)
                if getattr(what, "conditional", False) or (va == 1 or vb == 1) and what_kind(what) is ValueError:
                    raise ConditionalGuardFailed
                head, line, where = what.partition("\n")
                raise what_kind(what)(f"{head} (at run time {a} is {va} but {b} is {vb}){line}{where}")
        for d, message in self.nonzero:
            if evaluate(d, arrays) == 0:
                raise ValueError(message)


def dim_source(d: Dim, array: str = "arrays[{}]") -> str | None:
    """A size as a Python expression over the kernel's input arrays (`array`: how the i-th one is written), or None
    when it is not a static size or an argument's dim (ShapeEnv.checker; result_destination adds arithmetic)."""
    if isinstance(d, int):
        return repr(d)
    if isinstance(d, Sym) and d.origin[0] == "arg" and isinstance(d.origin[1], int) and isinstance(d.origin[2], int):
        return f"{array.format(d.origin[1])}.shape[{d.origin[2]}]"
    return None


class GuardMessage(str):
    """A guard's message whose mismatch is not NumPy's ValueError (index arrays that do not broadcast: IndexError),
    or that a run-time branch or loop body needed (`conditional`: its failure is NumPy's to decide)."""

    def __new__(cls, text: str, kind: type, conditional: bool = False):
        self = super().__new__(cls, text)
        self.kind = kind
        self.conditional = conditional
        return self

    def __reduce__(self):
        return GuardMessage, (str(self), self.kind, self.conditional)


class ConditionalGuardFailed(Exception):
    """Sizes the kernel was compiled to assume equal differ where NumPy may not raise: on a run-time branch or loop
    body it may not take, or with one of them 1, which NumPy may broadcast. The call runs as NumPy (runtime/call.py)."""


class SizesDiffer(ValueError):
    """A check the kernel makes: sizes only it knows, compiled as equal, differ. NumPy's ValueError, unless one of
    them is 1 and NumPy broadcasts it: the call runs again as NumPy where the written arguments can be given back
    their contents (runtime/call.py), and raises ValueError otherwise."""


def what_kind(what) -> type:
    return getattr(what, "kind", ValueError)


def required_by(message: str, loc) -> str:
    """A run-time check's message with the source line that required it on a second line (once: a guard copied
    from an outlined function keeps the callee's line)."""
    if loc is None or "\n" in message:
        return message
    import linecache
    line = linecache.getline(loc.filename, loc.lineno).strip()
    return f"{message}\n  required by {loc.filename}:{loc.lineno}:{loc.col + 1}: {line}"


def _at_most_one(d: Dim) -> bool:
    """A size that is 0 or 1: `min(1, n)`, the length of `x[:1]` or `x[-1:]`."""
    return isinstance(d, Sym) and d.origin[0] == "min" and 1 in d.origin[1:]


def broadcast(shapes: list[Shape], env: ShapeEnv, what: str | None = None, kind: type = ValueError) -> Shape:
    """NumPy broadcasting of several shapes; raises a ValueError-kind UserError like NumPy when they do not fit
    (or `kind` with message `what`)."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        result: Dim = 1
        message = what or "operands could not be broadcast together with shapes " + " ".join(map(fmt_shape, shapes))
        for d in dims:
            d = env.find(d)
            if d == 1:
                continue
            if result == 1:
                result = d
            elif env.same_expression(result, d):
                continue
            elif _at_most_one(d) and not _at_most_one(result):
                # x[:1] of a run-time length meeting another size: it must be 1 (NumPy fails for 0 too, unless
                # the other size is 0 as well: that case is refused, the broadcast read needs a size of 1)
                env.unify(d, 1, message, kind)
            elif _at_most_one(result) and not _at_most_one(d):
                env.unify(result, 1, message, kind)
                result = d
            else:
                result = env.unify(result, d, message, kind)
        out.append(result)
    return tuple(out)
