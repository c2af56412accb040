"""The CLI: print any stage of the compiled form of the functions in a Python file.

    python -m transpiler FILE [--function NAME ...] [--arg NAME=TYPE ...] [--emit typed|mlir|optimized|llvm]
    python -m transpiler FILE --check
    python -m transpiler --clear-cache

Installed, the `transpiler` command is the same (main() is its entry point, pyproject.toml).
Argument types come from --arg, else from string annotations in the source, else from defaults (see argspec.py).
Errors are printed as `FILE:LINE:COL: error: ...` with the source line and a caret; the exit status is then 1.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import os
import sys

from . import argspec, driver, problems
from .api import Transpiled
from .errors import CompileError
from .runtime import disk_cache


def main(argv=None) -> int:
    # `transpiler` when run as the installed command, `python -m transpiler` otherwise
    prog = "python -m transpiler" if os.path.basename(sys.argv[0]) == "__main__.py" else "transpiler"
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("file", nargs="?", help="a Python file defining NumPy functions")
    p.add_argument("--function", "-f", action="append", default=[], metavar="NAME",
                   help="function to compile (repeatable; default: every function defined in FILE)")
    p.add_argument("--arg", "-a", action="append", default=[], metavar="NAME=TYPE",
                   help="argument type, e.g. x=float32[?,768], n_head=12, eps=float64")
    p.add_argument("--emit", choices=driver.STAGES, default="mlir", help="stage to print (default: mlir)")
    p.add_argument("--check", action="store_true",
                   help="report every unsupported construct in FILE (one FILE:LINE:COL: error: line each) and exit "
                        "1 if there is any, instead of printing IR")
    p.add_argument("--clear-cache", action="store_true",
                   help="remove every compiled kernel from the disk cache (TRANSPILER_CACHE_DIR) and exit")
    ns = p.parse_args(argv)
    if ns.clear_cache:
        removed = disk_cache.clear()
        print(f"removed {removed} cached kernel file(s) from {disk_cache.directory() or '(cache off)'}")
        return 0
    if ns.file is None:
        p.error("the following arguments are required: file")
    if ns.check:
        return _check(ns)
    try:
        module = _load(ns.file)
        arg_types = dict(_split_arg(a) for a in ns.arg)
        for fn in _functions(module, ns.function):
            keys, names = _argument_keys(fn, arg_types)
            typed = driver.trace_free_typing(fn, keys, names)
            sys.stdout.write(driver.stage_text(typed, ns.emit))
    except CompileError as e:
        print(e.format("error"), file=sys.stderr)
        return 1
    except (argspec.ArgSpecError, _UsageError) as e:
        print(f"{ns.file}: error: {e}", file=sys.stderr)
        return 1
    return 0


def _check(ns) -> int:
    """Static scan of the whole file, then a typed compile of each function whose argument types are known."""
    try:
        with open(ns.file) as f:
            source = f.read()
        tree = ast.parse(source, ns.file)
    except OSError as e:
        print(f"{ns.file}: error: {e}", file=sys.stderr)
        return 1
    except SyntaxError as e:
        print(f"{ns.file}:{e.lineno}:{e.offset}: error: SyntaxError: {e.msg}", file=sys.stderr)
        return 1
    errors = problems.scan(tree, os.path.abspath(ns.file))
    flagged = {e.lineno for e in errors}
    try:
        module = _load(ns.file)
        arg_types = dict(_split_arg(a) for a in ns.arg)
        for fn in _functions(module, ns.function):
            try:
                keys, names = _argument_keys(fn, arg_types)
                driver.trace_free_typing(fn, keys, names)
            except (_UsageError, argspec.ArgSpecError):
                continue          # types unknown: the static scan is all we can say
            except CompileError as e:
                if e.lineno not in flagged:
                    errors.append(e)
    except CompileError as e:
        errors.append(e)
    except _UsageError:
        pass
    for e in sorted(errors, key=lambda e: (e.lineno, e.col_offset)):
        print(e.format("error").splitlines()[0])
    if not errors:
        print(f"{ns.file}: no problems found")
    return 1 if errors else 0


class _UsageError(Exception):
    pass


def _load(path: str):
    if not os.path.exists(path):
        raise _UsageError(f"no such file: {path}")
    path = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(path))
    name = "_transpiler_cli_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise CompileError(f"SyntaxError: {e.msg}", e.filename or path, e.lineno or 0, (e.offset or 1) - 1) from None
    return module


def _functions(module, names: list) -> list:
    defined = {n: _unwrap(v) for n, v in vars(module).items()
               if inspect.isfunction(_unwrap(v)) and _unwrap(v).__module__ == module.__name__}
    if not names:
        if not defined:
            raise _UsageError("the file defines no functions")
        return list(defined.values())
    missing = [n for n in names if n not in defined]
    if missing:
        raise _UsageError(f"no function named {', '.join(missing)} (the file defines: {', '.join(defined)})")
    return [defined[n] for n in names]


def _unwrap(value):
    return value.py_func if isinstance(value, Transpiled) else value


def _split_arg(text: str):
    if "=" not in text:
        raise _UsageError(f"--arg needs NAME=TYPE, got {text!r}")
    name, spec = text.split("=", 1)
    return name.strip(), argspec.parse(spec)


def _argument_keys(fn, arg_types: dict):
    keys, names = [], []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        key = arg_types.get(name)
        if key is None:
            default = param.default if param.default is not param.empty else argspec.NO_DEFAULT
            annotation = param.annotation if param.annotation is not param.empty else None
            key = argspec.from_annotation(annotation, default)
        if key is None:
            raise _UsageError(f"{fn.__name__}: the type of argument '{name}' is unknown: pass --arg "
                              f"{name}=float32[?] (or annotate it, e.g. {name}: \"float32[?]\")")
        keys.append(key)
        names.append(name)
    return keys, names


if __name__ == "__main__":
    sys.exit(main())
