"""The compiled GPT-2 (stdlib/gpt2, compiled unmodified) against the NumPy model it is compiled from.

Tolerance. The residual stream and the logits are float64 (NEP 50: the strong float64 scalars np.sqrt(2 / np.pi) and
np.sqrt(head_dim) promote), but the first block starts in float32: its layer_norm, its c_attn matmul and q @ k.T run
on float32 values, summed in a different (equally valid) order than NumPy's BLAS and pairwise sums. Those few float32
roundings (eps32 = 1.2e-7, growing like sqrt(n_embd) over a dot product) are carried by the residual stream to the
logits, as an absolute error relative to the stream's magnitude: near-zero elements can differ by any relative amount,
so `rtol=1e-6` alone cannot hold. `atol = 2 * eps32 * sqrt(n_embd) * max|expected|` (1.9e-6 of the max at tiny,
6.6e-6 at 124M) bounds it. For scale: NumPy against itself, with the embedding dims merely permuted (the same model,
other summation orders), differs by 4e-7 (tiny) and 6e-7 (124M) of the max; the compiled model by 7e-7 and 1.3e-6.
A real bug (a dropped bias, a wrong mask, a mis-split head) is orders of magnitude larger; a float32-for-float64 bug
would hide inside any tolerance, which is why the dtypes are asserted exactly.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from transpiler import transpile
from transpiler.stdlib.gpt2 import tokenizer
from transpiler.stdlib.gpt2.model import generate, gpt2, gpt2_with_residuals, transformer_block
from transpiler.stdlib.gpt2.weights import CONFIGS, load_safetensors, random_params, save_safetensors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT = "Alan Turing theorized that computers would one day become"
PROMPT_IDS = [36235, 39141, 18765, 1143, 326, 9061, 561, 530, 1110, 1716]
TINY = CONFIGS["tiny"]
EPS32 = float(np.finfo(np.float32).eps)


def assert_close(actual, expected, n_embd, what="logits"):
    """Same type, dtype and shape; values within rtol 1e-6 plus float32 noise relative to the max (module doc)."""
    assert type(actual) is np.ndarray, f"{what}: {type(actual)}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    atol = 2 * EPS32 * np.sqrt(n_embd) * np.abs(expected).max()
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=atol, err_msg=what)


def compiled_residuals(block, inputs, params, n_head):
    """The residual stream after each block, with each block run by `block` (a compiled transformer_block); the
    embedding is gpt2's own line, in NumPy. (gpt2_with_residuals itself does not compile yet: see below.)"""
    x = params["wte"][inputs] + params["wpe"][range(len(inputs))]
    residuals = []
    for p in params["blocks"]:
        x = block(x, **p, n_head=n_head)
        residuals.append(x)
    return residuals


def check_forward(inputs, params, config, forward=None):
    """Compiled residual stream after every block and compiled logits against gpt2_with_residuals in NumPy."""
    n_head, n_embd = config["n_head"], config["n_embd"]
    expected_logits, expected_residuals = gpt2_with_residuals(inputs, **params, n_head=n_head)
    assert expected_logits.dtype == np.float64 and all(r.dtype == np.float64 for r in expected_residuals)

    block = transpile(transformer_block)
    residuals = compiled_residuals(block, inputs, params, n_head)
    assert len(residuals) == len(expected_residuals) == config["n_layer"]
    for i, (actual, expected) in enumerate(zip(residuals, expected_residuals)):
        assert_close(actual, expected, n_embd, f"residual stream after block {i}")
    # One kernel for the float32 embedding into block 0, one for the float64 stream into the others.
    assert block.compilations == min(2, config["n_layer"])

    forward = forward or transpile(gpt2)
    logits = forward(inputs, **params, n_head=n_head)
    assert logits.shape == (len(inputs), config["n_vocab"])
    assert_close(logits, expected_logits, n_embd)
    assert forward.compilations == 1
    return forward


def check_generation(params, config, n_tokens):
    """Greedy ids identical to NumPy's, with one kernel for every sequence length (at most 2 compilations)."""
    forward = transpile(gpt2)
    new_ids = generate(PROMPT_IDS, params, config["n_head"], n_tokens, forward=forward)
    expected = generate(PROMPT_IDS, params, config["n_head"], n_tokens)
    assert new_ids == expected
    assert len(set(expected)) > 1  # the random model does not just repeat one token
    assert 1 <= forward.compilations <= 2, forward.compilations  # 1 today: the ids are a run-time int64[?]


@pytest.fixture(scope="module")
def tiny_params():
    return random_params(TINY, seed=0)


@pytest.fixture(scope="module")
def tiny_forward():
    return transpile(gpt2)


# --- tiny ---

def test_tiny_residuals_and_logits(tiny_params, tiny_forward):
    forward = check_forward(PROMPT_IDS, tiny_params, TINY, tiny_forward)
    # The same kernel serves every length up to the context size; a single token (a length-1 dim, which NumPy
    # would broadcast) gets a second one.
    for n, compilations in [(2, 1), (37, 1), (TINY["n_ctx"], 1), (1, 2)]:
        ids = [int(i) for i in np.random.default_rng(n).integers(0, TINY["n_vocab"], n)]
        expected = gpt2(ids, **tiny_params, n_head=TINY["n_head"])
        actual = forward(ids, **tiny_params, n_head=TINY["n_head"])
        assert_close(actual, expected, TINY["n_embd"], f"logits for {n} ids")
        assert forward.compilations <= compilations


def test_tiny_generate_40_tokens(tiny_params):
    check_generation(tiny_params, TINY, 40)


def test_tiny_out_of_vocabulary_id_raises_index_error(tiny_params, tiny_forward):
    for ids in [[1, TINY["n_vocab"]], [-TINY["n_vocab"] - 1, 5, 6]]:  # NumPy wraps -n_vocab..-1, refuses beyond
        with pytest.raises(IndexError):
            gpt2(ids, **tiny_params, n_head=TINY["n_head"])
        with pytest.raises(IndexError):
            tiny_forward(ids, **tiny_params, n_head=TINY["n_head"])


def test_tiny_gpt2_with_residuals_compiles(tiny_params):
    logits, residuals = transpile(gpt2_with_residuals)(PROMPT_IDS, **tiny_params, n_head=TINY["n_head"])
    expected_logits, expected_residuals = gpt2_with_residuals(PROMPT_IDS, **tiny_params, n_head=TINY["n_head"])
    assert type(residuals) is list and len(residuals) == len(expected_residuals)
    for actual, expected in zip(residuals + [logits], expected_residuals + [expected_logits]):
        assert_close(actual, expected, TINY["n_embd"])


# --- a checkpoint on disk ---

# Full vocabulary (the demo needs any prompt to encode), an odd head count that only the metadata records
# (n_embd // 64 would be 0), a short context.
CHECKPOINT = {"n_vocab": 50257, "n_ctx": 24, "n_embd": 48, "n_head": 3, "n_layer": 1}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    params = random_params(CHECKPOINT, seed=7)
    path = tmp_path_factory.mktemp("gpt2") / "model.safetensors"
    save_safetensors(params, path, n_head=CHECKPOINT["n_head"])
    return path, params


def test_compiled_model_on_a_safetensors_checkpoint(checkpoint):
    path, params = checkpoint
    loaded, config = load_safetensors(path)
    assert config == CHECKPOINT
    forward = check_forward(PROMPT_IDS, loaded, config)
    # What was written is what runs: the compiled model on the loaded weights matches NumPy on the originals.
    assert_close(forward(PROMPT_IDS, **loaded, n_head=config["n_head"]),
                 gpt2(PROMPT_IDS, **params, n_head=CHECKPOINT["n_head"]), CHECKPOINT["n_embd"])
    check_generation(loaded, config, 8)


# --- the demo ---

def run_demo(*args):
    return subprocess.run([sys.executable, "-m", "transpiler.stdlib.gpt2", PROMPT, *args], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)


def assert_demo_output(r, expected, n_tokens):
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "prompt ids: " + ", ".join(map(str, PROMPT_IDS))
    assert lines[1].startswith("compiled in ") and lines[1].endswith(" s")
    assert "new ids: " + ", ".join(map(str, expected)) in lines
    assert "text: " + PROMPT + tokenizer.decode(expected) in lines
    assert any(line.endswith("tokens/s (compiled)") for line in lines), r.stdout
    assert lines[-1] == f"check: the {n_tokens} ids match the NumPy model's"
    assert "does not compile" not in r.stderr


@pytest.mark.slow     # the default suite runs the demo on a weights file (below): one child process, not two
def test_demo_check_tiny(tiny_params):
    r = run_demo("--check", "--tokens", "5", "--model", "tiny")
    assert_demo_output(r, generate(PROMPT_IDS, tiny_params, TINY["n_head"], 5), 5)


def test_demo_check_weights_file(checkpoint):
    path, params = checkpoint
    r = run_demo("--check", "--tokens", "4", "--weights", str(path))
    assert_demo_output(r, generate(PROMPT_IDS, params, CHECKPOINT["n_head"], 4), 4)


# --- 124M, random weights ---

@pytest.mark.slow
def test_124m_residuals_logits_and_generation():
    config = CONFIGS["124M"]
    params = random_params(config, seed=0)
    check_forward(PROMPT_IDS, params, config)
    check_generation(params, config, 20)
