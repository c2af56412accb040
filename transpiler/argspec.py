"""Argument types written as text, for the CLI (`--arg x=float32[?,768]`) and for string annotations
(`def f(x: "float32[?,768]", n_head: int = 12)`).

    DTYPE[D1,D2,...]   a C-contiguous array; each D is an int (a static size) or ? (a run-time size); DTYPE[] is 0-d
    float64 | float    a Python float (a run-time, weak scalar)
    complex            a Python complex (a run-time, weak scalar; complex128 is a NumPy scalar)
    DTYPE              a NumPy scalar of that dtype (run time, strong), e.g. float32
    12, -1, True, 'a'  a Python int, bool or str: compile-time values the program is specialized on
"""
from __future__ import annotations

import ast
import re

import numpy as np

from .types import dtypes

NO_DEFAULT = object()
_ARRAY = re.compile(r"^\s*(\w+)\s*\[(.*)\]\s*$")


class ArgSpecError(ValueError):
    pass


def parse(text: str):
    """The specialization key (see runtime.signature) that `text` describes."""
    text = text.strip()
    m = _ARRAY.match(text)
    if m:
        dt = _dtype(m.group(1))
        body = m.group(2).strip()
        dims = [d.strip() for d in body.split(",")] if body else []
        return ("A", dt.str, len(dims), tuple(_dim(d) for d in dims), True)   # C-contiguous, as NumPy makes arrays
    if text in ("float", "float64"):
        return ("F",)
    if text == "complex":
        return ("Z",)
    if text == "int" or text == "bool" or text == "str":
        raise ArgSpecError(f"a Python {text} argument specializes the program by value: give the value, e.g. 12")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ("S", _dtype(text).str)
    if isinstance(value, float):
        return ("F",)
    if isinstance(value, complex):
        return ("Z",)
    if isinstance(value, (bool, int, str)) or value is None:
        return ("C", type(value), value)
    raise ArgSpecError(f"cannot use {text!r} as an argument type")


def _dtype(name: str) -> np.dtype:
    try:
        dt = np.dtype(name)
    except TypeError:
        raise ArgSpecError(f"unknown dtype {name!r}") from None
    if dt not in dtypes.SUPPORTED:
        raise ArgSpecError(f"unsupported dtype {name!r}")
    return dt


def _dim(d: str):
    if d == "?":
        return False          # a run-time size
    try:
        n = int(d)
    except ValueError:
        raise ArgSpecError(f"bad dim {d!r}: use an int or ?") from None
    if n < 0:
        raise ArgSpecError(f"bad dim {d!r}: sizes are >= 0")
    return n


def from_annotation(annotation, default):
    """The key for a parameter from its annotation and default, or None when neither says enough."""
    if isinstance(annotation, str):
        return parse(annotation)
    if annotation is float:
        return ("F",)
    if default is NO_DEFAULT:
        return None
    if isinstance(default, float):
        return ("F",)
    if isinstance(default, (bool, int, str)) or default is None:
        return ("C", type(default), default)
    return None
