"""The pure-NumPy parts of GPT-2 (stdlib/gpt2): tokenizer, weights, the NumPy model and the demo's --numpy path."""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

from transpiler.stdlib.gpt2 import tokenizer
from transpiler.stdlib.gpt2.model import generate, gpt2, gpt2_with_residuals
from transpiler.stdlib.gpt2.weights import (CONFIGS, hf_tensors, load_safetensors, random_params,
                                            save_safetensors)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT = "Alan Turing theorized that computers would one day become"
PROMPT_IDS = [36235, 39141, 18765, 1143, 326, 9061, 561, 530, 1110, 1716]
TINY = CONFIGS["tiny"]
SMALL = {"n_vocab": 96, "n_ctx": 16, "n_embd": 128, "n_head": 4, "n_layer": 2}  # for checkpoints written to disk


@pytest.fixture(scope="module")
def tiny_params():
    return random_params(TINY, seed=0)


def random_ids(n, n_vocab, seed=0):
    return [int(i) for i in np.random.default_rng(seed).integers(0, n_vocab, n)]


def assert_tree_equal(actual, expected):
    if isinstance(expected, dict):
        assert actual.keys() == expected.keys()
        for key in expected:
            assert_tree_equal(actual[key], expected[key])
    elif isinstance(expected, list):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_tree_equal(a, e)
    else:
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        np.testing.assert_array_equal(actual, expected)


# --- tokenizer ---

def test_tokenizer_exact_ids_and_round_trip():
    assert tokenizer.encode(PROMPT) == PROMPT_IDS
    assert tokenizer.decode(PROMPT_IDS) == PROMPT
    for text in ["héllo 日本語 \x00\t  x\n\n", " it's   42 ", "<|endoftext|>"]:
        assert tokenizer.decode(tokenizer.encode(text)) == text
    assert tokenizer.encode("<|endoftext|>") != [50256]  # ordinary text, as in OpenAI's encoder.py
    assert tokenizer.decode([50256]) == "<|endoftext|>"
    assert tokenizer.encoding().n_vocab == tokenizer.N_VOCAB == 50257


def test_tokenizer_never_touches_network_or_cache(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the tokenizer must build offline, from the installed files only")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr("tiktoken.load.read_file_cached", refuse)
    monkeypatch.setattr("tiktoken.load.read_file", refuse)
    for name in ["TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"]:
        monkeypatch.delenv(name, raising=False)
    tokenizer.encoding.cache_clear()
    try:
        assert tokenizer.encode(PROMPT) == PROMPT_IDS
    finally:
        tokenizer.encoding.cache_clear()


# --- weights ---

def test_random_params_shapes_dtype_and_seed():
    params = random_params(SMALL, seed=3)
    e, layers = SMALL["n_embd"], SMALL["n_layer"]
    assert params["wte"].shape == (SMALL["n_vocab"], e) and params["wpe"].shape == (SMALL["n_ctx"], e)
    assert len(params["blocks"]) == layers
    shapes = {name: array.shape for name, array in hf_tensors(params["blocks"][0], "").items()}
    assert shapes == {"ln_1.weight": (e,), "ln_1.bias": (e,), "ln_2.weight": (e,), "ln_2.bias": (e,),
                      "attn.c_attn.weight": (e, 3 * e), "attn.c_attn.bias": (3 * e,),
                      "attn.c_proj.weight": (e, e), "attn.c_proj.bias": (e,),
                      "mlp.c_fc.weight": (e, 4 * e), "mlp.c_fc.bias": (4 * e,),
                      "mlp.c_proj.weight": (4 * e, e), "mlp.c_proj.bias": (e,)}
    arrays = list(hf_tensors(params["blocks"][1], "").values()) + [params["wte"], params["wpe"]]
    assert all(a.dtype == np.float32 for a in arrays)
    assert_tree_equal(random_params(SMALL, seed=3), params)
    assert not np.array_equal(random_params(SMALL, seed=4)["wte"], params["wte"])
    as64 = random_params(SMALL, seed=3, dtype=np.float64)
    assert as64["wte"].dtype == np.float64 and np.array_equal(as64["wte"], params["wte"])


def test_configs():
    assert TINY["n_vocab"] == tokenizer.N_VOCAB  # any prompt encodes and every generated id decodes
    assert CONFIGS["124M"] == {"n_vocab": 50257, "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12}
    v, c, e, layers = (CONFIGS["124M"][k] for k in ["n_vocab", "n_ctx", "n_embd", "n_layer"])
    assert v * e + c * e + layers * (12 * e * e + 13 * e) + 2 * e == 124_439_808  # GPT-2 small, without allocating it


def test_safetensors_round_trip(tmp_path):
    params = random_params(SMALL, seed=1)
    path = tmp_path / "model.safetensors"
    save_safetensors(params, path, n_head=SMALL["n_head"])
    with safe_open(path, framework="numpy") as f:
        names = set(f.keys())
    assert {"wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias", "h.1.attn.c_attn.weight", "h.1.mlp.c_proj.bias",
            "h.0.ln_2.weight"} <= names and len(names) == 4 + 12 * SMALL["n_layer"]
    loaded, config = load_safetensors(path)
    assert config == SMALL  # n_head from the metadata, the rest from the shapes
    assert_tree_equal(loaded, params)


def test_safetensors_hugging_face_layout_with_prefix(tmp_path):
    """As HF's checkpoints are: names under `transformer.`, extra buffers and lm_head, no n_head anywhere."""
    params = random_params(SMALL, seed=2)
    tensors = {"wte.weight": params["wte"], "wpe.weight": params["wpe"], **hf_tensors(params["ln_f"], "ln_f.")}
    for i, block in enumerate(params["blocks"]):
        tensors.update(hf_tensors(block, f"h.{i}."))
        tensors[f"h.{i}.attn.bias"] = np.tri(SMALL["n_ctx"], dtype=np.float32)[None, None]  # the causal-mask buffer
    tensors = {"transformer." + name: array for name, array in tensors.items()}
    tensors["lm_head.weight"] = params["wte"]
    path = tmp_path / "model.safetensors"
    save_file(tensors, path, metadata={"format": "pt"})

    loaded, config = load_safetensors(path)
    assert config == {**SMALL, "n_head": SMALL["n_embd"] // 64}  # GPT-2's head size when nothing says otherwise
    assert_tree_equal(loaded, params)
    assert load_safetensors(path, n_head=4)[1] == SMALL
    with pytest.raises(ValueError, match="n_head"):
        load_safetensors(path, n_head=3)
    ids = random_ids(5, SMALL["n_vocab"])
    np.testing.assert_array_equal(gpt2(ids, **loaded, n_head=4), gpt2(ids, **params, n_head=4))


# --- the NumPy model ---

def test_forward_shape_dtype_and_residuals(tiny_params):
    ids = random_ids(7, TINY["n_vocab"])
    logits = gpt2(ids, **tiny_params, n_head=TINY["n_head"])
    assert logits.shape == (7, TINY["n_vocab"])
    assert logits.dtype == np.float64  # NEP 50: np.sqrt(...) is a float64 NumPy scalar, and it is strong
    assert np.all(np.isfinite(logits))

    logits_too, residuals = gpt2_with_residuals(ids, **tiny_params, n_head=TINY["n_head"])
    np.testing.assert_array_equal(logits_too, logits)
    assert len(residuals) == TINY["n_layer"]
    assert all(x.shape == (7, TINY["n_embd"]) for x in residuals)
    assert not np.allclose(residuals[0], residuals[1])  # each block changes the stream


def test_forward_is_causal(tiny_params):
    ids = random_ids(6, TINY["n_vocab"], seed=1)
    full = gpt2(ids, **tiny_params, n_head=TINY["n_head"])
    prefix = gpt2(ids[:4], **tiny_params, n_head=TINY["n_head"])
    np.testing.assert_allclose(prefix, full[:4], rtol=1e-5, atol=1e-6)  # later tokens don't change earlier logits


def test_generate_is_deterministic_and_uses_forward(tiny_params):
    ids = random_ids(4, TINY["n_vocab"], seed=2)
    calls, wrapped = [], []

    def forward(inputs, **kwargs):
        calls.append(len(inputs))
        return gpt2(inputs, **kwargs)

    def progress(steps):
        wrapped.append(len(steps))
        return steps

    new_ids = generate(ids, tiny_params, TINY["n_head"], 5, forward=forward, progress=progress)
    assert new_ids == generate(ids, tiny_params, TINY["n_head"], 5)
    assert len(new_ids) == 5 and all(type(i) is int and 0 <= i < TINY["n_vocab"] for i in new_ids)
    assert len(set(new_ids)) > 1  # the random weights do not just repeat one token
    assert calls == [4, 5, 6, 7, 8] and wrapped == [5]
    assert len(ids) == 4  # the caller's list is not grown


# --- the demo ---

def test_demo_numpy_prints_ids(tiny_params):
    r = subprocess.run([sys.executable, "-m", "transpiler.stdlib.gpt2", PROMPT, "--numpy", "--tokens", "3",
                        "--model", "tiny"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "prompt ids: " + ", ".join(map(str, PROMPT_IDS))
    expected = generate(PROMPT_IDS, tiny_params, TINY["n_head"], 3)  # seed 0, as the demo's default
    assert "new ids: " + ", ".join(map(str, expected)) in lines
    assert "text: " + PROMPT + tokenizer.decode(expected) in lines
    assert "tokens/s (numpy)" in r.stdout


def test_demo_check_names_first_differing_id(monkeypatch, capsys):
    import transpiler.stdlib.gpt2.__main__ as demo

    def off_by_one_from_the_second_step(inputs, **kwargs):
        logits = gpt2(inputs, **kwargs)
        return logits if len(inputs) == len(PROMPT_IDS) else np.roll(logits, 1, axis=-1)

    monkeypatch.setattr(demo, "compiled_forward", lambda ids, params, n_head: off_by_one_from_the_second_step)
    assert demo.main([PROMPT, "--tokens", "3", "--check", "--no-cache"]) == 1
    expected = generate(PROMPT_IDS, random_params(TINY, seed=0), TINY["n_head"], 2)
    assert (f"check failed at new token 1 (sequence position 11): compiled gave {expected[1] + 1}, NumPy gave "
            f"{expected[1]}") in capsys.readouterr().err
