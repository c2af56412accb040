"""Differential fuzzing of writes and views: random straight-line programs that take views of their arguments and of
local arrays, write through them (`=`, `op=`, masks, integer lists among ints and slices, `out=`), copy and read, compared with NumPy's own run: every
returned value and the final contents of every argument (issue #13). `FUZZ_EXAMPLES=N` draws N programs of each
kind with fresh seeds instead of the default suite's 20 and 12 derandomized ones (the slow suite's `_more` tests: 60
and 36 others; guarantees.md, "Running the long fuzz run")."""
import os
import random
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import aliasing_mismatch, assert_same
from transpiler import transpile

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))
# argument shapes, size-1 dims included (they are specialized: broadcasting against them is decided while compiling)
SHAPES = [((4, 5), (5,)), ((1, 5), (5,)), ((4, 1), (1,)), ((1, 1), (1,)), ((4, 5), (1,))]


def _slice(rng: random.Random, n: int) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return ":"
    if kind == 1:
        return str(rng.randrange(-n, n)) if n else ":"
    start, stop = rng.randrange(-n - 1, n + 1), rng.randrange(-n - 1, n + 1)
    step = rng.choice([1, 1, 2, -1, -2])
    return f"{start}:{stop}:{step}"


def _view(rng: random.Random, name: str, shape: tuple) -> str:
    kind = rng.randrange(6)
    if kind == 0 and len(shape) >= 2:
        return f"{name}.T"
    if kind == 1:
        return f"{name}[None]"
    if kind == 2 and len(shape) >= 1:
        return f"np.flip({name}, 0)"
    return f"{name}[{', '.join(_slice(rng, n) for n in shape[:rng.randrange(1, len(shape) + 1)])}]" \
        if shape else f"{name}[...]"


def _advanced(rng: random.Random, shape: tuple) -> str:
    """An index with integer lists (NumPy's advanced indexing) among ints and slices: at least one list, all of one
    length (they broadcast), repeats and negative ids included."""
    length = rng.randrange(1, 4)
    items = []
    for n in shape[:rng.randrange(1, len(shape) + 1)]:
        kind = rng.choice([0, 0, 1, 2])
        if kind == 0 or not items and n and rng.random() < 0.5:
            items.append(str([rng.randrange(-n, n) for _ in range(length)]) if n else ":")
        elif kind == 1 and n:
            items.append(str(rng.randrange(-n, n)))
        else:
            items.append(_slice(rng, n))
    return ", ".join(items)


def shapes(seed: int):
    return SHAPES[seed % len(SHAPES)]


def generate(seed: int, joined: bool = False) -> str:
    """A program over the arguments a and b (shapes(seed)); names are tracked with their NumPy values while
    generating so that every statement is valid. With `joined`, also views chosen by a run-time condition
    (`v = a[1:] if (a * 0.0).sum() == 0.0 else a.T[::-1]`: views at run-time positions)."""
    rng = random.Random(seed)
    a_shape, b_shape = shapes(seed)
    env = {"a": np.zeros(a_shape), "b": np.zeros(b_shape), "np": np}
    arrays = ["a", "b"]
    lines, results = [], []
    for k in range(rng.randrange(3, 9)):
        name = rng.choice(arrays)
        shape = env[name].shape
        kind = rng.randrange(9 if joined else 8)
        if kind == 8:
            first, second = _view(rng, name, shape), _view(rng, name, shape)
            try:      # both sides valid, of one rank (NumPy runs only one of them)
                same_rank = eval(first, env).ndim == eval(second, env).ndim
            except (IndexError, ValueError, TypeError):
                continue
            if not same_rank:
                continue
            # a run-time condition whose value does not depend on the data (the program is generated on zeros)
            cond = f"({rng.choice(['a', 'b'])} * 0.0).sum() {rng.choice(['==', '!='])} 0.0"
            stmt = f"v{k} = {first} if {cond} else {second}"
            target = f"v{k}"
        elif kind <= 1:
            stmt = f"v{k} = {_view(rng, name, shape)}"
            target = f"v{k}"
        elif kind == 2:
            stmt = f"c{k} = {name}.copy()" if rng.random() < 0.5 else f"c{k} = {name} * 2.0"
            target = f"c{k}"
        elif kind == 3:
            index = ", ".join(_slice(rng, n) for n in shape) or "..."
            stmt = f"{name}[{index}] = {rng.choice(['1.5', '-2.0', name + '.sum()'])}"
            target = None
        elif kind == 4:
            op = rng.choice(["+=", "*=", "-="])
            stmt = f"{name} {op} {rng.choice(['0.5', '3.0', name + '[...] * 0.25'])}"
            target = None
        elif kind == 5:
            stmt = f"{name}[{name} > {rng.choice(['0.5', '0.0'])}] = {rng.choice(['0.0', '7.0'])}"
            target = None
        elif kind == 6 and rng.random() < 0.5:
            stmt = f"np.multiply({name}, 2.0, out={name})"
            target = None
        elif kind == 6:
            index = _advanced(rng, shape) if shape else "..."
            stmt = f"{name}[{index}] {rng.choice(['=', '+=', '*='])} {rng.choice(['1.5', '-2.0', name + '.sum()'])}"
            target = None
        else:
            stmt = f"r{k} = {name} + 0.0"
            target = f"r{k}"
        try:
            exec(stmt, env)
        except (IndexError, ValueError, TypeError):
            continue
        lines.append(stmt)
        if target is not None:
            arrays.append(target)
            results.append(target)
    body = "\n".join(lines + [f"return ({', '.join(results)}{',' if results else ''})"])
    return "def program(a, b):\n" + textwrap.indent(body, "    ") + "\n"


def check_program(source, seed, tmp_path_factory):
    """Compile `source` (a program of generate) from a file, run it and NumPy on the same arguments, and compare
    results, the arguments' final contents and the aliasing of results and arguments."""
    path = tmp_path_factory.mktemp("fuzz") / f"program_{seed}.py"
    path.write_text("import numpy as np\n\n" + source)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    program = namespace["program"]
    data = np.random.default_rng(seed % 1000)
    a_shape, b_shape = shapes(seed)
    a, b = data.standard_normal(a_shape), data.standard_normal(b_shape)
    ref_a, ref_b = a.copy(), b.copy()
    expected = program(ref_a, ref_b)
    got_a, got_b = a.copy(), b.copy()
    # every view these programs take is one the compiler follows (no reshape of an argument; views of one array at
    # run-time positions): each must compile, and agree with NumPy
    actual = transpile(program)(got_a, got_b)
    assert_same(actual, expected)
    assert_same(got_a, ref_a)
    assert_same(got_b, ref_b)
    # each result aliases the arguments and the other results exactly as NumPy's does: views stay views of the
    # caller's arrays and of one another, copies share nothing (issue #20 item 6)
    ours, numpys = list(actual) + [got_a, got_b], list(expected) + [ref_a, ref_b]
    names = [f"result {i}" for i in range(len(actual))] + ["a", "b"]
    msg = aliasing_mismatch(ours, numpys, names)
    assert msg is None, f"{msg}\n{source}"


# The default suite's share (each program is one compilation); the slow suite's `_more` tests draw three times as
# many, other ones (derandomized from another test name).
PROGRAMS, JOINED_PROGRAMS = FUZZ_EXAMPLES or 20, FUZZ_EXAMPLES or 12
MORE = 1 if FUZZ_EXAMPLES else 3


@settings(max_examples=PROGRAMS, deadline=None, derandomize=not FUZZ_EXAMPLES,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_random_programs_of_views_and_writes(seed, tmp_path_factory):
    check_program(generate(seed), seed, tmp_path_factory)


@settings(max_examples=JOINED_PROGRAMS, deadline=None, derandomize=not FUZZ_EXAMPLES,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_random_programs_with_views_chosen_at_run_time(seed, tmp_path_factory):
    """The same programs with views a run-time condition chooses among (joined at a run-time `if`: positions the
    kernel carries), written through and returned, compared as above."""
    check_program(generate(seed, joined=True), seed, tmp_path_factory)


@pytest.mark.slow
@settings(max_examples=PROGRAMS * MORE, deadline=None, derandomize=not FUZZ_EXAMPLES,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_random_programs_of_views_and_writes_more(seed, tmp_path_factory):
    check_program(generate(seed), seed, tmp_path_factory)


@pytest.mark.slow
@settings(max_examples=JOINED_PROGRAMS * MORE, deadline=None, derandomize=not FUZZ_EXAMPLES,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_random_programs_with_views_chosen_at_run_time_more(seed, tmp_path_factory):
    check_program(generate(seed, joined=True), seed, tmp_path_factory)
