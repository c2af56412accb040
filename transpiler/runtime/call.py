"""The per-call path of one compiled specialization, from the arguments' flat arrays to the returned value.

Everything that depends only on the specialization (which checks its program needs, the frame layout of its
kernel, how its value is rebuilt) is decided once in `runner`; the closure it returns does only the steps this
program needs. A call with one small array costs a few microseconds of Python this way (docs/performance.md, "A
cheap call"). Checks after the kernel (its check flags) run between `invoke` and the result; the floating-point
status check is in `invoke` itself (runtime/jit.py), which raises errstate.Events for the caller to run the function
as NumPy (api.py).
"""
from __future__ import annotations

import numpy as np

from . import allocation, errstate, numpy_calls, openmp
from .. import result_destination
from .signature import build_result
from ..types.shapes import ConditionalGuardFailed, SizesDiffer


def runner(typed, kernel):
    """run(leaves, originals, arrays) -> the returned value. `leaves` are the flat run-time arrays of the call,
    `originals` what the caller passed for them, `arrays` the leaves as C-contiguous aligned arrays (the leaves
    themselves when they already are)."""
    program = typed.program
    implicit = list(program.implicit)    # module-level arrays passed as inputs (frontend/infer.module_array)
    env = program.env
    check_sizes = env.checker()
    allocations, written, checks = typed.allocations, typed.written, program.checks
    invoke = kernel.invoker(tuple(len(v.shape) for v in program.inputs))
    # a written argument's old contents, for a replay as NumPy after an event: kept only when the kernel can raise
    # one that the error state reports (the replay must start from what the caller passed, and write it once), and
    # only up to KEEP_LIMIT_BYTES (writing one element of a big array stays O(1); an event there is warned from the
    # kernel's flags, errstate.warn_from_flags)
    template = typed.template
    attributes = typed.attributes    # attributes of argument objects the call rebinds (frontend/attributes.py)
    # a call that rebinds attributes and fails a check runs again as Python from the caller's objects (api.py), which
    # then end as Python leaves them (the attributes assigned before the error, and only those): the arguments it
    # writes are kept to be given back their contents first, up to KEEP_LIMIT_BYTES (beyond, the check's error is
    # raised and no attribute is set)
    # a size only the kernel compared that differs (SizesDiffer) may be a 1 that NumPy broadcasts: NumPy's run
    # decides, from the caller's contents (kept as for attributes)
    resized = any(kind is SizesDiffer for _, kind, _ in checks)
    replay = bool(attributes) and bool(checks) or resized
    keep_written = written if kernel.may_raise or replay else []
    # the common return: one array the kernel made, no check flags
    out = template[1] if template[0] == "out" and template[2] == "array" and not checks and not attributes else None
    # a returned array the call allocates and the kernel writes into (result_destination.py): its last input
    destination = typed.destination
    if destination is not None and not (implicit or allocations or written or attributes or checks) \
            and not (kernel.calls_numpy or kernel.calls_openblas):
        return into_destination(typed, kernel, check_sizes)
    if destination is not None:
        result_shape = result_destination.shape_function(program, destination)
        result_dtype, empty = np.dtype(program.inputs[destination].dtype), np.empty

    def run(leaves: list, originals: list, arrays: list, objects=()):
        """`objects`: the argument objects in flatten's order (signature.flatten), for the rebound attributes."""
        if implicit:
            leaves, originals, arrays = [*leaves, *implicit], [*originals, *implicit], [*arrays, *contiguous(implicit)]
        if check_sizes is not None:     # run-time sizes the kernel was compiled to assume equal (or non-zero)
            try:
                check_sizes(arrays)
            except ConditionalGuardFailed:   # assumed on a path the kernel may not take, or a 1: NumPy's run decides
                raise Replay from None
            except (ValueError, IndexError):
                # nothing written yet: Python raises it after the attributes assigned and the arguments written before
                # the statement that needs the sizes (NumPy's writes up to its error)
                if attributes or written:
                    raise Replay from None
                raise
        if allocations:   # an array the kernel could not allocate is NumPy's error here, not a crash
            allocation.check(allocations, arrays)
        if written:
            check_writable(typed, leaves)
        kept = None
        if keep_written and (replay or errstate.any_reported()):
            kept = [(leaves[i], leaves[i].copy()) for i in keep_written] \
                if sum([leaves[i].nbytes for i in keep_written]) <= KEEP_LIMIT_BYTES else False
        if destination is not None:
            result = empty(result_shape(arrays), result_dtype)
            arrays = [*arrays, result]
        try:
            results = invoke(arrays)
            if destination is not None:
                results = [result]
        except errstate.Events as events:
            if destination is not None:
                events.results = [result]
            if checks:   # a failed check is the call's error, as without the event (an int64 overflow, say)
                failed(events.results, kept)
            if kept is False:
                # too big to keep: the kernel's writes and result stand, the warnings come from its flags (api.py)
                events.value = finish(events.results, leaves, originals, arrays, objects, kept)
            elif kept:
                for leaf, old in kept:   # NumPy writes them again, from the start
                    np.copyto(leaf, old)
            raise
        return finish(results, leaves, originals, arrays, objects, kept)

    def failed(results, kept) -> None:
        """Raise the error of the first failed check (or, for a call that rebinds attributes or whose first failed
        check is sizes that differ, Replay)."""
        flags = results[-1]     # (driver._packed_flags)
        first = int(flags.argmax()) if flags.any() else None
        if replay and kept is not False and first is not None and (attributes or checks[first][1] is SizesDiffer):
            for leaf, old in kept or ():     # Python writes them again, from the start
                np.copyto(leaf, old)
            raise Replay
        raise_failed_checks(program, results)

    def finish(results, leaves, originals, arrays, objects, kept):
        for i in written:     # an argument written through a contiguous copy gets the new contents
            if arrays[i] is not leaves[i]:
                np.copyto(leaves[i], arrays[i])
        if out is not None:
            return results[out]
        if checks and results[-1].any():
            failed(results, kept)
        if not attributes:
            return build_result(template, results, originals)
        # (rebuilt together: an array both returned and held by an attribute is one object, as in NumPy)
        made: dict = {}
        value = build_result(template, results, originals, made=made)
        for index, name, attribute in attributes:
            setattr(objects[index], name, build_result(attribute, results, originals, made=made))
        return value
    return run


def into_destination(typed, kernel, check_sizes):
    """run(leaves, originals, arrays) for the common cheap call, in one function generated per specialization: a
    kernel that writes the returned array into a destination the call allocates (result_destination.py), with no
    argument written, no check flags, no library calls; at most a size check first. What `runner`'s general run
    and the kernel's invoker do for it, without their branches and three Python calls (about 1 us of a 3 us call
    on a loaded machine)."""
    program = typed.program
    n = len(program.inputs)
    names = [f"a{i}" for i in range(n)]
    result = names[-1]
    layout = kernel.frame.layout(tuple(v.ndim for v in program.inputs))
    lines = ["def run(leaves, originals, arrays, objects=()):"]
    if n > 1:
        lines.append(f"    {', '.join(names[:-1])}, = arrays")
    if check_sizes is not None:    # (run-time sizes the kernel was compiled to assume equal: runner's run)
        lines += ["    try:",
                  "        check_sizes(arrays)",
                  "    except ConditionalGuardFailed:",
                  "        raise Replay from None"]
    lines += [f"    shape = {result_destination.destination_shape(program, n - 1, 'a{}')}",
              f"    {result} = empty(shape, dtype)",
              "    before_kernel()"]
    lines += layout.call_lines(names, "    ", {result: "shape"})
    lines += ["    status = unpack_from(buffer)[-1]",
              "    free.append((buffer, base))",
              *kernel.after_call_lines(f"[{result}]", "status", "    "),
              f"    return {result}"]
    namespace = {**layout.namespace(), **kernel.after_call_namespace(), "check_sizes": check_sizes,
                 "ConditionalGuardFailed": ConditionalGuardFailed, "Replay": Replay, "empty": np.empty,
                 "dtype": np.dtype(program.inputs[-1].dtype), "before_kernel": openmp.before_kernel,
                 "entry": kernel.fn}
    exec("\n".join(lines), namespace)
    return namespace["run"]


class Replay(Exception):
    """A call the kernel cannot run as NumPy would, which runs as Python instead (api.py): a check failed in a call
    that rebinds attributes (the written arguments were given back their contents first), a size check before the
    call failed in one that writes its arguments, or a written argument overlaps another one (before anything ran)."""


# The most bytes of written arguments a call copies before a kernel that can raise a floating-point event, so that
# an event can be replayed as NumPy from the caller's contents (a copy of 64 KiB takes about 1.5 us)
KEEP_LIMIT_BYTES = 1 << 16


def contiguous(leaves: list) -> list:
    """The leaves as the kernel takes them: C-contiguous and aligned (a copy of those that are not)."""
    return [a if a.flags.c_contiguous and a.flags.aligned else np.ascontiguousarray(a) for a in leaves]


def check_writable(typed, leaves) -> None:
    """Arguments the kernel writes in place: writable (NumPy's ValueError), and sharing no memory with another
    argument (the same object passed twice is one input). Partly overlapping views, `f(a[1:], a[:-1])`, cannot be
    kept apart by a kernel compiled for separate arrays: such a call runs as Python, NumPy's own run (Replay),
    before anything is written."""
    names = typed.program.input_names
    for i in typed.written:
        if not leaves[i].flags.writeable:
            raise ValueError(f"assignment destination is read-only ({names[i]})")
        for j, other in enumerate(leaves):
            if j != i and np.may_share_memory(leaves[i], other) and np.shares_memory(leaves[i], other):
                raise Replay


def raise_failed_checks(program, results) -> None:
    """The kernel's check flags are its last result, one bool array (driver._packed_flags): raise the first that is
    set (e.g. a gather id out of range)."""
    flags = results[-1] if program.checks else []
    for value, (_, kind, message) in zip(flags, program.checks):
        if value:
            if kind is numpy_calls.CallFailed:     # NumPy raised in a call from the kernel: that exception
                raise numpy_calls.take_error()
            raise (ValueError if kind is SizesDiffer else kind)(message)
