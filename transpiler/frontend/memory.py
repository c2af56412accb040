"""NumPy's reference semantics over a functional typed program: buffers, views, writes.

The typed program is made of SSA values (tensors in MLIR), so a write makes a new *version* of the whole array
(`update_slice`, `scatter`, `select`); one-shot bufferization later turns each version into a store into the same
memory. This module keeps NumPy's aliasing on top of that (docs/architecture.md, "Mutation and views"):
- every run-time array belongs to a `Buffer` (one NumPy allocation, or one argument). A view (basic slicing, `.T`,
  `reshape` of contiguous data, `expand_dims`, `squeeze`, `x[None]`) records the chain of view primitives (its
  `path`) that derives it from the version of its buffer it was made from;
- a write through any view computes the buffer's new version (the inverse of each step of the path, innermost
  first), and every name that holds the buffer or a view of it, in every active frame and inside lists, tuples and
  dicts, is re-derived from that version;
- a value that may share memory with a buffer in a way the compiler cannot follow (a reshape of data it cannot prove
  contiguous, a value joined from different arrays at a run-time branch) is an `Alias`: reading it is fine, but
  writing through it, or reading it after one of its buffers was written, is a CompileError. Never a stale value:
  `Builder.emit` refuses any input whose buffer has a newer version (`check_current`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError
from ..program import Var, next_var_id
from ..runtime.signature import ArgumentView, Choice, ResultView, object_attributes
from ..types import dtypes
from ..types.shapes import DIM_OPS, Sym, is_checkable

# view primitives whose positions are per axis of their input: a chain of them is a strided view (view_params)
_STRIDED_STEPS = frozenset({"slice", "transpose", "expand_dims", "squeeze", "strided"})

# primitives whose result is a view of their first input in NumPy
VIEW_PRIMS = frozenset({"slice", "transpose", "reshape", "expand_dims", "squeeze", "real", "imag"})


@dataclass(eq=False)
class Buffer:
    what: str                      # for messages
    initial: Var                   # its first version (buffers are made lazily, the first time a value is viewed)
    argument: Var | None = None    # the kernel input this buffer is (written arguments change the caller's array)
    readonly: str | None = None    # why it cannot be written
    contiguous: bool = True        # known to be C-contiguous (arrays made by the program; arguments whose key says so)
    layout: object = None          # an argument's layout from its key (runtime/signature.layout), None if not known
    listed: str | None = None      # why it cannot be written: a list built in a run-time loop kept a copy of it
                                   # (row_lists.py)


@dataclass(eq=False)
class Step:
    """One view primitive: re-emitted on a newer version of the base to re-derive the view."""
    prim: str
    params: dict
    extra: tuple        # run-time operands after the viewed array (slice indices)
    dtype: object
    shape: tuple
    scalar: bool
    readonly: str | None = None    # NumPy's view is read-only (`x.diagonal()`): why, for the error of a write
    # NumPy's view is writable but warns when written (np.broadcast_arrays): a write is refused (TypeError, `readonly`
    # says why), returned it is NumPy's warn-on-write view
    warns_on_write: bool = False


@dataclass(eq=False)
class Ref:
    """The value is `path` applied to version `base` of `buffer`."""
    buffer: Buffer
    base: Var
    path: tuple
    contiguous: bool    # C-contiguous in NumPy's sense (so a reshape of it is a view)


@dataclass(eq=False)
class Alias:
    """The value may share memory with these buffers (as of these versions) in a way not followed."""
    deps: tuple         # ((Buffer, version Var), ...)
    why: str
    chosen: bool = False    # one array or another as a run-time branch or loop decides (as_returned)
    # for a chosen one: which array each path gives, as the call can make it (Control._choice): None (the kernel's
    # value), ("python", a Python number: a scalar a loop left as it was before it, Control._carry_kept),
    # ("local", Buffer, its version after the join: the kernel's value while that is current),
    # ("argument", Buffer), ("steps", Buffer, replayable steps), ("view", Anchor, view_params Vars) or
    # ("choice", flag Var, form if the flag is True, form if False)
    choice: object = None
    # a reshape (or a view of one) of an argument whose strides the kernel does not know: (Buffer, version, path of
    # Steps). Returned while that version is current, the call makes it with NumPy's own reshape of the caller's
    # array (as_inputs): a view where NumPy's is one, a copy where NumPy copies
    replay: object = None
    # a view of an array chosen at run time (`w = v[1:]`, v an Alias with a "choice"): (v, the strided Steps from
    # v to this value). A write through it, or through v, runs once per candidate array (Control.chosen_write)
    view_of: object = None
    # NumPy's value is a read-only view (`x.diagonal()` of such a value): returned, the call must make it (replay)
    readonly: str | None = None
    warns_on_write: bool = False     # (as Step's: a write is refused with `readonly`, a TypeError)


def _contiguous_slice(specs) -> bool:
    """x[i, j, a:b, :, :] keeps C-contiguity: leading integer indices, then one unit-step range, then full dims."""
    k = 0
    while k < len(specs) and specs[k][0] in ("index", "index_var"):
        k += 1
    if k < len(specs) and specs[k][0] == "range" and specs[k][3] == 1:
        k += 1
    return all(s[0] == "all" for s in specs[k:])


class Memory:
    """The current version of every buffer, and the frames whose names are re-derived after a write."""

    def __init__(self, frames: list, argument_objects=()):
        self.current: dict = {}     # Buffer -> its newest version (a Var)
        self.watching: list = []     # lists of the buffers written while a region is watched (row_lists.py)
        self.frames = frames         # the interpreter's active frames (innermost last)
        # objects passed as arguments (runtime/signature.abstract): their attributes are names too
        self.objects = {id(o): o for o in argument_objects}

    # ---- identity ---------------------------------------------------------------------------------------------
    def ref_of(self, v: Var):
        """v's Ref (or Alias); a value seen for the first time is the base of a new buffer."""
        if v.ref is None:
            buffer = Buffer("an array", v)
            v.ref = Ref(buffer, v, (), True)
            self.current[buffer] = v
        return v.ref

    def argument(self, v: Var, name: str) -> None:
        """An argument's buffer. It is `contiguous` when the key says the caller's array is C-contiguous (NumPy makes
        any reshape or ravel of it a view); for other layouts the key says enough for a reshape or ravel of the
        argument itself (see record_view); those of its views depend on strides the kernel does not know (it sees a
        C-contiguous copy): they stay an Alias."""
        if v.from_list:     # data from a Python list: writing into it could not change the caller's list
            buffer = Buffer(f"argument '{name}'", v, readonly=f"'{name}' is a Python list, converted to an array "
                                                               "for the kernel: writing into it would not change it",
                            contiguous=False)
        else:
            buffer = Buffer(f"argument '{name}'", v, argument=v, contiguous=v.layout is True, layout=v.layout)
        v.ref = Ref(buffer, v, (), buffer.contiguous)
        self.current[buffer] = v

    def deps(self, v) -> tuple:
        """The (buffer, version) pairs a value depends on (an array is at least its own buffer)."""
        if isinstance(v, Var) and v.ref is None and not v.scalar and not v.weak:
            self.ref_of(v)
        ref = getattr(v, "ref", None)
        if isinstance(ref, Ref):
            return ((ref.buffer, ref.base),)
        if isinstance(ref, Alias):
            return ref.deps
        return ()

    def is_current(self, v: Var) -> bool:
        return all(self.current.get(buffer, base) is base for buffer, base in self.deps(v))

    def check_current(self, inputs) -> None:
        for v in inputs:
            if isinstance(v, Var) and v.ref is not None and not self.is_current(v):
                raise UserError(self._stale_message(v), TypeError)

    def check_returned(self, outputs) -> None:
        """check_current of the kernel's results, but for the kernel's value of an array chosen on a path
        (Alias.choice, made a runtime Choice by as_inputs): that value is an array made on its path, which no later
        write reached (Control._form); the call returns the caller's own array on the other paths."""
        self.check_current([v for v in outputs if not (isinstance(v.ref, Alias) and v.ref.choice is not None)])

    def _stale_message(self, v: Var) -> str:
        if isinstance(v.ref, Alias):
            return (f"this array may share memory with an array that was written after it was made ({v.ref.why}), "
                    "and the compiler cannot tell whether the write changed it: make a copy with .copy() first")
        return ("this value was taken from an array before a write changed the array (e.g. a bound method like "
                "`f = x.sum` kept across `x[0] = ...`), and the compiler does not follow it: take it after the write")

    # ---- views ------------------------------------------------------------------------------------------------
    def record_view(self, prim: str, inputs: list, out: Var, params: dict) -> None:
        x = inputs[0]
        if not isinstance(x, Var):
            return
        if prim == "slice" and out.scalar or x.scalar or x.weak:
            # x[i, j] is a NumPy scalar: a copy; and a view of a NumPy or Python scalar (`s[None]`, `s.real`) is of a
            # new array NumPy makes from it, not of the scalar (a write through `s[None]` changed `s`)
            return
        ref = self.ref_of(x)
        if isinstance(ref, Alias):
            if ref.choice is not None or ref.view_of is not None:
                # a view of an array chosen at run time: not that array (its choice would return, or write, all of
                # it: `return v[1:]` returned the whole argument); its steps from that array, for a write
                root, path = ref.view_of if ref.view_of is not None else (x, ())
                step = Step(prim, dict(params), tuple(inputs[1:]), out.dtype, out.shape, out.scalar)
                out.ref = Alias(ref.deps, ref.why, chosen=ref.chosen, view_of=(root, path + (step,)))
                return
            if ref.replay is None:
                out.ref = ref
                return
            buffer, base, path = ref.replay     # (a view of it: the same steps, then this one)
            step = Step(prim, dict(params), tuple(inputs[1:]), out.dtype, out.shape, out.scalar)
            out.ref = Alias(ref.deps, ref.why, replay=(buffer, base, path + (step,)), readonly=ref.readonly)
            return
        if prim == "reshape" and not ref.contiguous and not ref.path and ref.buffer.layout == "line":
            # an argument whose elements are one strided line: NumPy's reshape is a view (not C-contiguous)
            out.ref = Ref(ref.buffer, ref.base, (Step(prim, dict(params), (), out.dtype, out.shape, out.scalar),),
                          False)
            return
        if prim == "reshape" and not ref.contiguous and not ref.path and ref.buffer.layout is False \
                and sum(1 for d in out.shape if d != 1) == 1:
            self.ref_of(out)           # NumPy's reshape of this argument into one dim is a copy: a new array
            return
        if prim == "reshape" and not ref.contiguous and (layout := static_layout(ref)) is not None \
                and all(isinstance(d, int) for d in out.shape):
            # sizes and strides known while compiling: NumPy's own decision (a view where its nocopy reshape
            # succeeds, else a copy: a new array)
            strides = _c_strides(out.shape) if c_contiguous(*layout) else nocopy_reshape(*layout, out.shape)
            if strides is None:
                self.ref_of(out)
                return
            out.ref = Ref(ref.buffer, ref.base, ref.path + (Step(prim, dict(params), (), out.dtype, out.shape,
                                                                 out.scalar),), c_contiguous(out.shape, strides))
            return
        if prim == "reshape" and not ref.contiguous:
            step = Step(prim, dict(params), (), out.dtype, out.shape, out.scalar)
            out.ref = Alias(((ref.buffer, ref.base),), "a reshape or ravel of an array that may not be contiguous, "
                                                       "which NumPy makes a view or a copy depending on its strides",
                            replay=(ref.buffer, ref.base, ref.path + (step,)) if ref.buffer.argument is not None
                            else None)
            return
        contiguous = ref.contiguous and prim not in ("transpose", "real", "imag") and (prim != "slice" or _contiguous_slice(
            params["specs"]))
        step = Step(prim, dict(params), tuple(inputs[1:]), out.dtype, out.shape, out.scalar)
        out.ref = Ref(ref.buffer, ref.base, ref.path + (step,), contiguous)

    def readonly_view(self, x: Var, out: Var, params: list, why: str, warns_on_write: bool = False) -> bool:
        """`out` (its value computed from x's current version) is NumPy's read-only view of x whose element i is
        x[starts + sum_k i_k * steps_k] (params: starts over x's axes, out's sizes, steps; as view_params): a write
        through it is NumPy's ValueError, and it is re-derived after x's memory is written. False when x is not a
        view the compiler follows (an Alias)."""
        ref = self.ref_of(x)
        if not isinstance(ref, Ref):
            return False
        step = Step("strided", {}, tuple(params), out.dtype, out.shape, False, readonly=why,
                    warns_on_write=warns_on_write)
        out.ref = Ref(ref.buffer, ref.base, ref.path + (step,), False)
        return True

    def alias(self, buffers, why: str, chosen: bool = False) -> Alias:
        """An Alias of these buffers as of their current versions."""
        return Alias(tuple((buf, self.current[buf]) for buf in buffers), why, chosen)

    def unknown_alias(self, x: Var, out: Var, why: str) -> Var:
        """`out` may or may not share x's memory (NumPy decides from strides the compiler does not know)."""
        out.ref = Alias(tuple(self.deps(x)) or ((self.ref_of(x).buffer, x),), why)
        return out

    def readonly_alias(self, x: Var, out: Var, step: Step, why: str, warns_on_write: bool = False) -> Var:
        """`out` is NumPy's read-only view (`step`: its library call, for the call to replay) of x, a value whose
        memory the compiler does not follow: read, it is the kernel's value; returned, NumPy's own view of the
        caller's array where x is one the call can make (Alias.replay), else a CompileError (readonly)."""
        ref = self.ref_of(x)
        replay = ref.replay if isinstance(ref, Alias) and step is not None else None
        out.ref = Alias(tuple(self.deps(x)), why, readonly=why, warns_on_write=warns_on_write,
                        replay=(replay[0], replay[1], replay[2] + (step,)) if replay is not None else None)
        return out

    # ---- views whose position is a run-time value (codegen/strided.py) ----------------------------------------
    # A view's position is over the axes of its anchor: its buffer, or the array a leading chain of view primitives
    # whose positions are not per axis (a reshape, a complex part: `x.reshape(3, 4)[i]`, `z.real[1:]`) makes of it.
    def view_params(self, b, v) -> list | None:
        """The position of a view `v` in its anchor as 0-d int64 values: one start per axis of the anchor, one size
        per dim of v, then one step vector over the anchor's axes per dim of v. None when v is not such a view (not
        a Ref, or an anchor of steps the join cannot re-derive after it: view_anchor)."""
        anchor = self.view_anchor(v)
        if anchor is None:
            return None
        return _path_params(b, anchor.shape, _split(v.ref.path)[1], v.ndim)

    @staticmethod
    def view_anchor(v) -> "Anchor | None":
        ref = getattr(v, "ref", None)
        if not isinstance(ref, Ref) or v.scalar or v.weak:
            return None
        if any(s.readonly for s in ref.path):
            return None     # (a view at a run-time position is writable: a read-only one is not followed so)
        prefix = _split(ref.path)[0]
        # (re-derived after the join from the buffer's version there: no run-time operand of its own; its dims are
        # checked by Control, which knows where they are computed)
        if any(s.extra for s in prefix):
            return None
        return Anchor(ref.buffer, prefix, prefix[-1].shape if prefix else ref.base.shape)

    def position_count(self, v: Var) -> int | None:
        """How many values view_params gives for `v` (None where it gives none)."""
        anchor = self.view_anchor(v)
        if anchor is None:
            return None
        n, m = len(anchor.shape), v.ndim
        return n + m + m * n

    def strided_view(self, anchor: "Anchor", value: Var, params: list) -> Var:
        """`value` is the view of `anchor` at these positions (view_params), as of its buffer's current version."""
        step = Step("strided", {}, tuple(params), value.dtype, value.shape, False)
        value.ref = Ref(anchor.buffer, self.current[anchor.buffer], anchor.prefix + (step,), False)
        return value

    def derive(self, b, base: Var, path: tuple) -> Var:
        value = base
        for step in path:
            value = b.emit1(step.prim, [value, *step.extra], step.dtype, step.shape, scalar=step.scalar,
                            **step.params)
        return value

    # ---- writes -----------------------------------------------------------------------------------------------
    def write(self, b, target: Var, value: Var) -> None:
        """Store `value` (target's dtype and shape) into the memory `target` is a view of."""
        ref = self.ref_of(target)
        if isinstance(ref, Alias) and ref.readonly:
            if ref.warns_on_write:
                raise UserError(ref.readonly, TypeError)
            raise UserError(f"assignment destination is read-only: {ref.readonly}", ValueError)
        if isinstance(ref, Alias):
            raise UserError(f"writing into an array that may or may not share memory with another ({ref.why}) is "
                            "not supported: make a copy with .copy(), or write into the original array", TypeError)
        self.check_current([target])
        if ref.buffer.readonly:
            raise UserError(ref.buffer.readonly, TypeError)
        if ref.buffer.listed:
            raise UserError(ref.buffer.listed, TypeError)
        if (step := next((s for s in ref.path if s.readonly), None)) is not None:
            if step.warns_on_write:
                raise UserError(step.readonly, TypeError)
            raise UserError(f"assignment destination is read-only: {step.readonly}", ValueError)
        if value.scalar or value.weak:    # the contents of an array: a 0-d array, not a NumPy or Python scalar
            value = b.emit1("copy", [value], target.dtype, target.shape)
        if ref.path and _split(ref.path)[1][:1] and _split(ref.path)[1][0].prim == "strided" \
                and self._write_region(b, ref, target, value):
            return
        new = self._write_through(b, self.current[ref.buffer], ref.path, value)
        self.set_version(b, ref.buffer, new)

    def _write_region(self, b, ref: Ref, target: Var, value: Var) -> bool:
        """A write into a region of a view at a run-time position (`v[i] = s`, `v[1:] = w`: `value` is the
        update_slice of target just emitted) stores that region into the buffer, not the whole view again: one
        element written is one store. An index that may be out of range stores nothing (IndexError after the call),
        as update_slice does. False where it does not apply."""
        last = b.eqns[-1] if b.eqns else None
        if last is None or last.prim != "update_slice" or last.outputs[0] is not value or \
                last.inputs[0] is not target or last.params.get("unless_failed"):
            return False
        _, region, *extra = last.inputs
        specs = last.params["specs"]
        prefix, rest = _split(ref.path)      # (positions over the axes of what the prefix makes: view_anchor)
        params = _path_params(b, prefix[-1].shape if prefix else ref.base.shape,
                              rest + (Step("slice", {"specs": specs}, tuple(extra), region.dtype, region.shape,
                                           False),), region.ndim)
        if params is None:
            return False
        b.eqns.remove(last)
        valid = []
        for axis, spec in enumerate(specs):
            if spec[0] == "index_var" and not spec[2]:     # -n <= i < n
                i, n = extra[spec[1] - 1], b.emit1("size_value", [], dtypes.INT64, (), dim=target.shape[axis])
                i = b.convert(i, dtypes.INT64) if i.dtype != dtypes.INT64 else i
                low = b.emit1("ge", [i, b.emit1("neg", [n], dtypes.INT64, ())], dtypes.BOOL, ())
                valid.append(b.emit1("and", [low, b.emit1("lt", [i, n], dtypes.BOOL, ())], dtypes.BOOL, ()))
        for flag in valid[1:]:
            valid[0] = b.emit1("and", [valid[0], flag], dtypes.BOOL, ())
        base = self.current[ref.buffer]
        inner = self.derive(b, base, prefix)
        new = b.emit1("update_strided", [inner, region, *params, *valid[:1]], inner.dtype, inner.shape,
                      **({"checked": True} if valid else {}))
        self.set_version(b, ref.buffer, self._write_through(b, base, prefix, new))
        return True

    def _write_through(self, b, x: Var, path: tuple, value: Var) -> Var:
        if not path:
            return value
        step = path[0]
        inner = self.derive(b, x, path[:1])
        return _unview(b, x, step, self._write_through(b, inner, path[1:], value))

    def set_version(self, b, buffer: Buffer, version: Var) -> None:
        """`version` is now the buffer's contents: re-derive every name that views the buffer."""
        version.ref = Ref(buffer, version, (), buffer.contiguous)
        self.current[buffer] = version
        for written in self.watching:
            written.append(buffer)
        self.refresh(b, {buffer})

    def watch_writes(self) -> list:
        """The buffers written from now on, until stop_watching (regions may nest)."""
        self.watching.append([])
        return self.watching[-1]

    def stop_watching(self) -> None:
        self.watching.pop()

    def rederive(self, b, value: Var) -> Var:
        """A view as of its buffer's current version."""
        ref = value.ref
        base = self.current[ref.buffer]
        if not ref.path:
            return base
        new = self.derive(b, base, ref.path)
        new.ref = Ref(ref.buffer, base, ref.path, ref.contiguous)
        return new

    def refresh(self, b, buffers: set) -> None:
        memo: dict = {}

        def update(value):
            if isinstance(value, Var):
                ref = value.ref
                if isinstance(ref, Ref) and ref.buffer in buffers and self.current.get(ref.buffer) is not ref.base:
                    if id(value) not in memo:
                        memo[id(value)] = self.rederive(b, value)
                    return memo[id(value)]
                return value
            if isinstance(value, list):
                value[:] = [update(v) for v in value]
                return value
            if isinstance(value, dict):
                for k in list(value):
                    value[k] = update(value[k])
                return value
            if isinstance(value, tuple):
                new = tuple(update(v) for v in value)
                if all(n is o for n, o in zip(new, value)):
                    return value
                return type(value)._make(new) if hasattr(value, "_fields") else new
            if self.objects.get(id(value)) is value and id(value) not in memo:
                memo[id(value)] = value                      # (once: objects may refer to each other)
                for name, attr in object_attributes(value).items():
                    object.__setattr__(value, name, update(attr))
            return value

        for frame in self.frames_in_scope():
            for name in list(frame.locals):
                frame.locals[name] = update(frame.locals[name])

    def frames_in_scope(self):
        """Every frame whose names the program can still reach: the active ones and those they close over, once."""
        seen = set()
        for frame in self.frames:
            while frame is not None and id(frame) not in seen:
                seen.add(id(frame))
                yield frame
                frame = frame.parent

    # ---- control flow -----------------------------------------------------------------------------------------
    # A snapshot is the versions at one point of the interpretation. Buffers are made lazily, so a buffer missing
    # from a snapshot may still belong to a value that existed then: one whose first version is older than the
    # snapshot's watermark (Var ids only grow) had that first version then.
    def snapshot(self) -> "State":
        return State(self.current, next_var_id())

    @staticmethod
    def existed(state: "State", buffer: Buffer) -> bool:
        return buffer in state or buffer.initial.id < state.watermark

    @staticmethod
    def version_in(state: "State", buffer: Buffer) -> Var:
        return state.get(buffer, buffer.initial)

    def changed_since(self, state: "State") -> list:
        """Buffers that existed at `state` and have another version now."""
        return [buf for buf, v in self.current.items()
                if self.existed(state, buf) and v is not self.version_in(state, buf)]

    def restore(self, b, state: "State") -> None:
        """Back to an earlier state (the start of a branch or of a loop round); names re-derived."""
        changed = self.changed_since(state)
        new = {buf: buf.initial for buf in self.current if buf not in state and buf.initial.id < state.watermark}
        new.update(state)
        self.current = new
        if changed:
            self.refresh(b, set(changed))

    def arguments_written(self, inputs=None) -> list:
        """(input Var, final version) for each argument buffer (of these inputs) the program wrote."""
        return [(buf.argument, v) for buf, v in self.current.items()
                if buf.argument is not None and v is not buf.argument and
                (inputs is None or any(buf.argument is i for i in inputs))]

    def as_returned(self, value, b=None):
        """The returned value as the call rebuilds it: arguments and their views as in `as_inputs`; and where two or
        more returned arrays view one array the function made (`return r, r[None]`), each of them is that array's
        final contents with its view replayed at the call (ResultView), so they share memory as NumPy's do."""
        computed = _kernel_values(b) if b is not None else None
        raw: list = []
        var_leaves(value, raw)
        chosen = [v for v in raw if isinstance(v.ref, Alias) and v.ref.chosen and v.ref.choice is not None]
        for v in chosen:
            # (a local array it may be, returned beside it or in another chosen value: the kernel's value of the
            # chosen one is an array of its own, which would not share that array's memory as NumPy's does)
            beside = {w.ref.buffer for w in raw if isinstance(w.ref, Ref)}.union(
                *(_local_forms(w.ref.choice) for w in chosen if w is not v))
            if _local_forms(v.ref.choice) & beside:
                raise UserError(_CHOSEN_RETURNED.format(why=v.ref.why), TypeError)
        value = self.as_inputs(value, computed)
        leaves: list = []
        var_leaves(value, leaves)
        returned = {v.ref.buffer for v in leaves if isinstance(v.ref, Ref)}
        for v in leaves:
            if isinstance(v.ref, Alias) and v.ref.readonly:
                raise UserError(f"returning this array is not supported: {v.ref.readonly}, of an array whose memory "
                                "the compiler does not follow, and the call cannot make that view: it would return "
                                "a writable copy. Return a copy (`.copy()`)", TypeError)
            # (one of the arrays an argument, or returned beside it: the kernel's copy would not share its memory)
            if isinstance(v.ref, Alias) and v.ref.chosen and \
                    any(buf.argument is not None or buf in returned for buf, _ in v.ref.deps):
                raise UserError(_CHOSEN_RETURNED.format(why=v.ref.why), TypeError)
        by_buffer: dict = {}
        for v in leaves:
            ref = v.ref
            # an array the function made: not an argument, not a list argument's array (read-only), not a scalar's
            # (NumPy makes a new array from a scalar each time)
            if isinstance(ref, Ref) and ref.buffer.argument is None and ref.buffer.readonly is None \
                    and self.current.get(ref.buffer) is ref.base \
                    and not (ref.buffer.initial.scalar or ref.buffer.initial.weak):
                by_buffer.setdefault(ref.buffer, []).append(v)
        views = {}
        for buffer, vs in by_buffer.items():
            # (one read-only view of it, `return y.diagonal()`: NumPy's view of y, not a writable array of its own)
            if len({id(v) for v in vs}) < 2 and not any(s.readonly for v in vs for s in v.ref.path):
                continue
            steps = [_replayable(v.ref.path, computed) if v.ref.path else [] for v in vs]
            if all(s is not None for s in steps):
                views.update({id(v): ResultView(self.current[buffer], s) for v, s in zip(vs, steps)})
        for v in leaves:
            if isinstance(v.ref, Ref) and id(v) not in views and any(s.readonly for s in v.ref.path):
                raise UserError("returning this array is not supported: "
                                f"{next(s.readonly for s in v.ref.path if s.readonly)}; here the call cannot make "
                                "that view (its position is computed inside a run-time loop or branch, or its array "
                                "was written after it was made) and would return a writable copy. Return a copy "
                                "(`.copy()`)", TypeError)
        return _replace_leaves(value, views) if views else value

    def as_inputs(self, value, computed=None):
        """A returned value with each argument's current contents replaced by the argument itself (the caller gets
        its own array back, as in NumPy). A view of an argument at positions only the kernel knows (`x[s[0]:]`)
        is the same view of the caller's array, its positions returned by the kernel (`computed`)."""
        ref = value.ref if isinstance(value, Var) else None
        # (also after a write into one of the arrays: the call returns the caller's array as it is then, and the
        # kernel's value on another path is an array made on that path, which no write since can have reached:
        # Control._form)
        if isinstance(ref, Alias) and ref.chosen and ref.choice is not None:
            chosen = _chosen(value, ref.choice, computed, self.current)
            if chosen is not None:
                return chosen
        if isinstance(ref, Ref) and ref.buffer.argument is not None and self.current.get(ref.buffer) is ref.base:
            if not ref.path:
                return ref.buffer.argument
            steps = _replayable(ref.path, computed)
            if steps is not None:
                return ArgumentView(ref.buffer.argument, steps)
        if isinstance(ref, Alias) and ref.replay is not None and self.current.get(ref.replay[0]) is ref.replay[1]:
            # (NumPy's reshape of the caller's array, as it is when the kernel returns: a view or a copy as NumPy's)
            steps = _replayable(ref.replay[2], computed)
            if steps is not None:
                return ArgumentView(ref.replay[0].argument, steps)
        if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
            return type(value)(self.as_inputs(v, computed) for v in value)
        if isinstance(value, dict):
            return {k: self.as_inputs(v, computed) for k, v in value.items()}
        return value


# NumPy returns the argument (or a view of it) on one path and another array on the other: the kernel's result is a
# copy, which a caller writing into it would tell apart
_CHOSEN_RETURNED = ("returning {why}, where one of them is an argument or a view of one, or an array returned "
                    "beside it, is not supported: NumPy returns that array's own memory on that path, the compiled "
                    "function would return a copy. "
                    "Return a copy on every path (`return x.copy()`, `return x[j].copy()`), or return a view of "
                    "one argument on every path (`x[j]` and `x[k]`: a view at a run-time position)")


def _local_forms(form) -> set:
    """The local arrays (Buffers) a chosen value's form (Alias.choice) may be."""
    if form is None or form[0] not in ("local", "choice"):
        return set()
    if form[0] == "local":
        return {form[1]}
    return _local_forms(form[2]) | _local_forms(form[3])


def _chosen(value: Var, form, computed, current):
    """What the call returns for a value that is one array or another as the kernel's path decided (Alias.choice):
    the argument, the same view of it, or the kernel's value, as a flag the kernel returns picks (Choice); None
    when a position or flag is not available at the top level of the program, or a local array chosen on a path
    was written after the join (the kernel's value is then not NumPy's)."""
    if form is None:
        return value
    kind, buffer, *rest = form
    if kind == "python":      # ("python", the Python number a loop left as it was: NumPy returns it itself)
        return buffer
    if kind == "local":
        return value if current.get(buffer, buffer.initial) is rest[0] else None
    if kind == "argument":
        return buffer.argument
    if kind == "steps":
        return ArgumentView(buffer.argument, rest[0])
    if kind == "view":        # ("view", Anchor, positions)
        anchor = buffer
        steps = _replayable(anchor.prefix + (Step("strided", {}, tuple(rest[0]), value.dtype, value.shape, False),),
                            computed)
        return ArgumentView(anchor.buffer.argument, steps) if steps is not None else None
    flag = computed(buffer) if computed is not None else None    # ("choice", flag, then, else)
    then, other = (_chosen(value, f, computed, current) for f in rest)
    return None if flag is None or then is None or other is None else Choice(flag, then, other)


@dataclass(eq=False)
class Anchor:
    """What a view at a run-time position is a view of (Memory.view_anchor): `prefix` applied to `buffer`."""
    buffer: Buffer
    prefix: tuple       # Steps
    shape: tuple

    def same(self, other: "Anchor", env) -> bool:
        return self.buffer is other.buffer and len(self.prefix) == len(other.prefix) and all(
            a is c or a.prim == c.prim and a.params == c.params and a.dtype == c.dtype and not a.extra
            and not c.extra and len(a.shape) == len(c.shape)
            and all(env.find(x) is env.find(y) or env.same_expression(x, y) for x, y in zip(a.shape, c.shape))
            for a, c in zip(self.prefix, other.prefix))


def _split(path: tuple):
    """(the steps up to the last one whose positions are not per axis, the strided steps after it)."""
    k = max((i + 1 for i, s in enumerate(path) if s.prim not in _STRIDED_STEPS), default=0)
    return path[:k], path[k:]


def _path_params(b, base_shape, path: tuple, ndim: int):
    """view_params of the view `path` makes of a buffer of `base_shape` (`ndim` dims), or None."""
    if any(s.prim not in _STRIDED_STEPS for s in path):
        return None
    steps, extras, shape = [], [], base_shape
    for step in path:
        steps.append((step.prim, step.params, len(step.extra), shape))
        extras.extend(step.extra)
        shape = step.shape
    n, m = len(base_shape), ndim
    return b.emit("view_params", extras, [(dtypes.INT64, ())] * (n + m + m * n), steps=tuple(steps),
                  base_shape=tuple(base_shape))


def var_leaves(value, out: list) -> None:
    """The run-time values (Vars) inside a Python value, through lists, tuples and dicts, in order."""
    if isinstance(value, Var):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            var_leaves(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            var_leaves(v, out)


def _replace_leaves(value, views: dict):
    if isinstance(value, Var):
        return views.get(id(value), value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_replace_leaves(v, views) for v in value)
    if isinstance(value, dict):
        return {k: _replace_leaves(v, views) for k, v in value.items()}
    return value


def _kernel_values(b):
    """For _replayable: a function giving a Var that the kernel returns for a run-time index (a 0-d int Var) or a
    dim computed in the kernel (a Sym), or None when it is not available at the top level of the program (a value
    made inside a loop or branch)."""
    top = {id(e_out) for e in b.eqns for e_out in e.outputs} | {id(v) for v in b.program.inputs}
    # sizes of a value's own (a joined value's, read off it by codegen) are available where a top-level value has them
    own = {b.env.find(d) for e in b.eqns for v in e.outputs for d in v.shape if isinstance(b.env.find(d), Sym)}

    def available(d) -> bool:
        if isinstance(d, int):
            return True
        if isinstance(d, Var):
            return id(d) in top
        d = b.env.find(d)
        if isinstance(d, int):
            return True
        kind, *operands = d.origin
        if kind == "var":
            return id(operands[0]) in top
        if kind == "joined":
            return d in own
        return kind == "arg" or kind in DIM_OPS and all(available(o) for o in operands)

    def value(d):
        d = b.env.find(d) if not isinstance(d, Var) else d
        if not available(d):
            return None
        if isinstance(d, Var):
            return d
        return b.emit1("size_value", [], dtypes.INT64, (), dim=d)
    return value


def _replayable(path: tuple, computed=None):
    """The path as steps NumPy can replay on the argument at the call (runtime/signature._replay), or None when
    it depends on a value computed in the kernel (a run-time index, a size read from data) and `computed` (which
    makes the kernel return such a value: a Var in the steps) cannot give it."""
    def dim(d):
        if is_checkable(d):
            return d
        return computed(d) if computed is not None else None

    steps = []
    for step in path:
        p = step.params
        if step.prim == "slice":
            specs = []
            for s in p["specs"]:
                if s[0] == "index_var":
                    i = step.extra[s[1] - 1]
                    s = ("index", i.known if getattr(i, "known", None) is not None else
                         computed(i) if computed is not None else None)
                elif s[0] == "range":
                    s = ("range", *(dim(d) for d in s[1:4]))
                if s[0] == "index" and s[1] is None or s[0] == "range" and any(d is None for d in s[1:4]):
                    return None
                specs.append(s)
            steps.append(("slice", specs))
        elif step.prim == "reshape":
            shape = tuple(dim(d) for d in step.shape)
            if any(d is None for d in shape):
                return None
            steps.append(("reshape", shape))
        elif step.prim in ("real", "imag"):
            steps.append((step.prim, None))
        elif step.prim == "ravel":      # (only in an Alias.replay: NumPy's ravel of the caller's array)
            steps.append(("ravel", p["order"]))
        elif step.prim == "diagonal":   # (only in an Alias.replay: NumPy's read-only diagonal of it)
            offset = step.extra[0] if step.extra else p["offset"]
            if isinstance(offset, Var):
                offset = offset.known if getattr(offset, "known", None) is not None else \
                    computed(offset) if computed is not None else None
            if offset is None:
                return None
            steps.append(("diagonal", (offset, p["axis1"], p["axis2"])))
        elif step.prim == "strided":    # starts, sizes, steps: values the kernel returns
            values = [computed(v) if computed is not None else None for v in step.extra]
            if any(v is None for v in values):
                return None
            n = (len(values) - len(step.shape)) // (len(step.shape) + 1)
            m = len(step.shape)
            steps.append(("strided", (values[:n], values[n:n + m], values[n + m:])))
            if step.readonly:
                steps.append(("warn_on_write" if step.warns_on_write else "readonly", None))
        else:
            steps.append((step.prim, p["perm"] if step.prim == "transpose" else p["axes"]))
    return steps


def static_layout(ref: Ref):
    """(shape, strides in elements) of a view of a C-contiguous array when every size and step on its path is
    known while compiling; None otherwise (NumPy's reshape and ravel then depend on run-time sizes or strides)."""
    shape = ref.base.shape
    if not ref.buffer.contiguous or not all(isinstance(d, int) for d in shape):
        return None
    strides = _c_strides(shape)
    for step in ref.path:
        p = step.params
        if not all(isinstance(d, int) for d in step.shape):
            return None
        if step.prim == "slice":
            specs = list(p["specs"]) + [("all",)] * (len(strides) - len(p["specs"]))
            new = []
            for spec, stride in zip(specs, strides):
                if spec[0] == "all":
                    new.append(stride)
                elif spec[0] == "range":
                    if not isinstance(spec[3], int):
                        return None
                    new.append(stride * spec[3])
            strides = new
        elif step.prim == "transpose":
            strides = [strides[a] for a in p["perm"]]
        elif step.prim == "expand_dims":
            for axis in sorted(p["axes"]):
                strides.insert(axis, 0)
        elif step.prim == "squeeze":
            strides = [st for a, st in enumerate(strides) if a not in p["axes"]]
        elif step.prim == "reshape":
            strides = _c_strides(step.shape) if c_contiguous(shape, strides) else \
                nocopy_reshape(shape, strides, step.shape)
            if strides is None:
                return None
        else:
            return None
        shape = step.shape
    return tuple(shape), tuple(strides)


def _c_strides(shape) -> list:
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


def c_contiguous(shape, strides) -> bool:
    """NumPy's C-contiguous flag (dims of size 1 have any stride; an empty array is contiguous)."""
    if 0 in shape:
        return True
    expected = 1
    for n, stride in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if stride != expected:
                return False
            expected *= n
    return True


def nocopy_reshape(shape, strides, new_shape):
    """NumPy's _attempt_nocopy_reshape (C order): the strides of the reshaped view, or None when it must copy."""
    old = [(n, st) for n, st in zip(shape, strides) if n != 1]
    olddims, oldstrides = [n for n, _ in old], [st for _, st in old]
    newdims, newstrides = list(new_shape), [0] * len(new_shape)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(newdims) and oi < len(olddims):
        np_, op = newdims[ni], olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= newdims[nj]
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * newdims[nk]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    last = newstrides[ni - 1] if ni >= 1 else 1
    for nk in range(ni, len(newdims)):
        newstrides[nk] = last
    return newstrides


class State(dict):
    """Buffer -> version at one point, and the first Var id made after it."""

    def __init__(self, versions: dict, watermark: int):
        super().__init__(versions)
        self.watermark = watermark


def _unview(b, x: Var, step: Step, new_inner: Var) -> Var:
    """The version of `x` whose `step` view is `new_inner`."""
    p = step.params
    if step.prim == "slice":
        return b.emit1("update_slice", [x, new_inner, *step.extra], x.dtype, x.shape, specs=p["specs"])
    if step.prim == "transpose":
        inverse = tuple(sorted(range(len(p["perm"])), key=lambda i: p["perm"][i]))
        return b.emit1("transpose", [new_inner], x.dtype, x.shape, perm=inverse)
    if step.prim == "reshape":
        return b.emit1("reshape", [new_inner], x.dtype, x.shape)
    if step.prim == "expand_dims":
        return b.emit1("squeeze", [new_inner], x.dtype, x.shape, axes=p["axes"])
    if step.prim == "squeeze":
        return b.emit1("expand_dims", [new_inner], x.dtype, x.shape, axes=p["axes"])
    if step.prim == "strided":
        return b.emit1("update_strided", [x, new_inner, *step.extra], x.dtype, x.shape)
    if step.prim in ("real", "imag"):     # the complex array with that part replaced
        return b.emit1(f"with_{step.prim}", [x, new_inner], x.dtype, x.shape)
    raise AssertionError(step.prim)
