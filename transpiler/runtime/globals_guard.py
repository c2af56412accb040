"""Module-level arrays a compiled function reads are folded into its kernel as constants. The kernel stays valid
only while each module-level name (or item of a module-level list, tuple or dict, or attribute of a module-level
object) still holds the same array with the same contents: this guard is checked at every call, and a change makes
the call compile again (the disk cache then finds or stores the kernel for the new values).

Identity is checked for every array (a rebinding: `W = np.ones(3)` at module level). Contents are compared for
arrays of at most `MAX_COMPARED_BYTES` (an in-place change: `W[0] = 5`); larger arrays changed in place are not
detected, which docs/semantics.md says."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

MAX_COMPARED_BYTES = 1 << 16


LENGTH = object()   # the key of an entry that guards a container's length (a loop over it was unrolled)


def _lookup(container, key):
    """What `container[key]` holds now (a namespace or dict by name, a list or tuple by position), or None."""
    if key is LENGTH:
        return len(container)
    if isinstance(container, Mapping):      # a namespace, a dict, a class's attributes (a mappingproxy)
        return container.get(key)
    return container[key] if -len(container) <= key < len(container) else None


class GlobalsGuard:
    def __init__(self, reads: list):
        seen, self.entries = set(), []
        for namespace, name, array in reads:
            if (id(namespace), name) not in seen:
                seen.add((id(namespace), name))
                small = isinstance(array, np.ndarray) and array.nbytes <= MAX_COMPARED_BYTES
                copy = array.copy() if small else None   # (a length, a container: identity or value only)
                self.entries.append((namespace, name, array, copy))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def unchanged(self) -> bool:
        for namespace, name, array, copy in self.entries:
            now = _lookup(namespace, name)
            if now != array if name is LENGTH else now is not array:
                return False
            if copy is not None and not np.array_equal(array, copy, equal_nan=True):
                return False
        return True
