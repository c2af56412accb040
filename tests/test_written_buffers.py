"""The buffers of written arguments' final contents (backend/written_arguments.copy_the_rest): one the kernel also
returns must not be freed by it. The deallocation pipeline may return one buffer as two values (an `scf.if` that
yields it twice where a check passed, two clones where it failed); freeing "the other" one handed the caller freed
memory: garbage results, then `double free or corruption` when they were collected (three programs of
test_writes_fuzz.py's generator, seeds 1528367, 1480854 and 1591720 with views chosen at run time). They run in a
child process (all three in one), so that a crash fails the tests instead of the test run."""
import os
import subprocess
import sys
import textwrap

import pytest

PROGRAMS = {
    "copy of an argument written through a mask": """
        def program(a, b):
            v0 = b[:]
            v1 = v0[0]
            b[b > 0.0] = 7.0
            c3 = b.copy()
            return (v0, v1, c3,)
        shapes = ((4, 5), (5,))
    """,
    "copy of an argument updated in place": """
        def program(a, b):
            v1 = a[:, -1]
            a[1, 0] = -2.0
            a += a[...] * 0.25
            b *= 3.0
            c5 = a * 2.0
            c6 = a.copy()
            v7 = c6[-3:-1:-1]
            return (v1, c5, c6, v7,)
        shapes = ((4, 5), (1,))
    """,
    "views of a transposed argument written through": """
        def program(a, b):
            v0 = a.T
            v1 = v0.T
            v2 = v0[0:1:1]
            v2[[-1, -1, -1]] *= -2.0
            v2[1:1:-1, 0] *= -2.0
            r5 = a + 0.0
            v1[v1 > 0.5] = 0.0
            c7 = v0.copy()
            return (v0, v1, v2, r5, c7,)
        shapes = ((4, 1), (1,))
    """,
}

RUN = """
import gc
import importlib.util
import sys
import numpy as np
from transpiler import transpile
for path in sys.argv[1:]:
    spec = importlib.util.spec_from_file_location("program", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    program, shapes = module.program, module.shapes
    compiled = transpile(program)
    for seed in range(20):
        data = np.random.default_rng(seed)
        a, b = data.standard_normal(shapes[0]), data.standard_normal(shapes[1])
        want_a, want_b, got_a, got_b = a.copy(), b.copy(), a.copy(), b.copy()
        expected, actual = program(want_a, want_b), compiled(got_a, got_b)
        for x, y in zip(actual, expected):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(got_a, want_a)
        np.testing.assert_array_equal(got_b, want_b)
        del actual, expected
        gc.collect()
    print("ok", path, flush=True)
"""


@pytest.fixture(scope="module")
def child_run(tmp_path_factory):
    """The three programs, one after the other, in one child process (one interpreter and import of the compiler, not
    three; compiled functions are read from their file): the paths it printed "ok" for, and its stderr."""
    tmp = tmp_path_factory.mktemp("written_buffers")
    paths = {}
    for i, (name, source) in enumerate(PROGRAMS.items()):
        paths[name] = tmp / f"program_{i}.py"
        paths[name].write_text("import numpy as np\n" + textwrap.dedent(source))
    script = tmp / "run.py"
    script.write_text(RUN)
    env = dict(os.environ, MALLOC_CHECK_="3")   # glibc: abort at the first misuse of the heap
    done = subprocess.run([sys.executable, str(script), *map(str, paths.values())], capture_output=True, text=True,
                          env=env, timeout=600)
    passed = {line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("ok ")}
    return {name: str(path) in passed for name, path in paths.items()}, done


@pytest.mark.parametrize("name", PROGRAMS)
def test_returned_final_contents_of_a_written_argument_are_not_freed(name, child_run):
    passed, done = child_run
    assert passed[name], f"exit status {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, done.stderr[-3000:]
