"""The class-based GPT-2 with a KV cache (stdlib/gpt2/cached.py), compiled with `transpile`, against the NumPy run
of the same class-based code and against the recompute model (model.py).

Tolerance: as in test_gpt2.py (its module doc): the first block computes in float32, whose roundings reach the
float64 logits as an absolute error relative to their magnitude.
"""
import numpy as np
import pytest

from test_gpt2 import PROMPT_IDS, TINY, assert_close
from transpiler import transpile
from transpiler.stdlib.gpt2 import cached
from transpiler.stdlib.gpt2.model import generate, gpt2
from transpiler.stdlib.gpt2.weights import CONFIGS, random_params


@pytest.fixture(scope="module")
def tiny_params():
    return random_params(TINY, seed=0)


@pytest.fixture(scope="module")
def forward():
    """One compiled GPT2.__call__ for every model object of these tests: their arrays are kernel inputs."""
    return transpile(cached.GPT2.__call__)


def assert_caches_equal(ours, reference, what):
    for i, (a, b) in enumerate(zip(ours.blocks, reference.blocks)):
        for name in ("cache_k", "cache_v"):
            actual, expected = getattr(a.attn, name), getattr(b.attn, name)
            assert actual.dtype == expected.dtype
            np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max(),
                                       err_msg=f"{what}: block {i} {name}")


def test_prefill_then_decode_matches_numpy_and_writes_the_caches_in_place(tiny_params, forward):
    ours, reference = cached.GPT2(tiny_params, TINY["n_head"]), cached.GPT2(tiny_params, TINY["n_head"])
    ids = np.array(PROMPT_IDS)
    steps = [(ids, 0), (np.array([7]), len(ids)), (np.array([99]), len(ids) + 1), (np.array([5, 6, 7]), 12),
             (np.array([3]), 15)]
    for step, (tokens, start) in enumerate(steps):
        expected = reference(tokens, np.int64(start))
        actual = forward(ours, tokens, np.int64(start))
        assert_close(actual, expected, TINY["n_embd"], f"logits at step {step}")
        assert_caches_equal(ours, reference, f"after step {step}")
    assert ours.blocks[1].attn.cache_k[:, 15].any() and not ours.blocks[1].attn.cache_k[:, 16:].any()
    assert forward.compilations == 2  # one kernel for several tokens, one for a single token: any position


def test_the_logits_of_the_last_position_equal_the_recompute_models(tiny_params, forward):
    model = cached.GPT2(tiny_params, TINY["n_head"])
    ids = PROMPT_IDS + [11, 12, 13]
    forward(model, np.array(PROMPT_IDS), np.int64(0))
    logits = None
    for position in range(len(PROMPT_IDS), len(ids)):
        logits = forward(model, np.array([ids[position]]), np.int64(position))
    assert_close(logits[-1], gpt2(ids, **tiny_params, n_head=TINY["n_head"])[-1], TINY["n_embd"])


def test_generated_ids_equal_the_recompute_models(tiny_params, forward):
    model = cached.GPT2(tiny_params, TINY["n_head"])
    expected = generate(PROMPT_IDS, tiny_params, TINY["n_head"], 24)
    assert list(cached.generate(model, PROMPT_IDS, 24, forward=lambda *a: forward(model, *a))) == expected
    assert list(cached.generate(cached.GPT2(tiny_params, TINY["n_head"]), PROMPT_IDS, 24)) == expected


def test_a_step_past_the_context_raises_like_numpy_and_writes_nothing(tiny_params, forward):
    """A 2-token step at position n_ctx - 1: NumPy raises IndexError (position n_ctx of the position embedding).
    The kernel raises the same, and its cache writes (a 1-row slice for 2 rows: a size only the kernel knows)
    write nothing."""
    n_ctx = TINY["n_ctx"]
    reference = cached.GPT2(tiny_params, TINY["n_head"])
    with pytest.raises(IndexError):
        reference(np.array([1, 2]), np.int64(n_ctx - 1))
    ours = cached.GPT2(tiny_params, TINY["n_head"])
    with pytest.raises(IndexError):
        forward(ours, np.array([1, 2]), np.int64(n_ctx - 1))
    assert not any(b.attn.cache_k.any() or b.attn.cache_v.any() for b in ours.blocks)


@pytest.mark.slow
def test_124m_ids_equal_the_recompute_models_and_logits_match_numpy():
    config = CONFIGS["124M"]
    params = random_params(config, seed=0)
    forward = transpile(cached.GPT2.__call__)
    model, reference = cached.GPT2(params, config["n_head"]), cached.GPT2(params, config["n_head"])
    assert_close(forward(model, np.array(PROMPT_IDS), np.int64(0)), reference(np.array(PROMPT_IDS), np.int64(0)),
                 config["n_embd"], "prefill")
    for position, token in enumerate([5, 500, 50000], start=len(PROMPT_IDS)):
        assert_close(forward(model, np.array([token]), np.int64(position)),
                     reference(np.array([token]), np.int64(position)), config["n_embd"], f"decode at {position}")
    model = cached.GPT2(params, config["n_head"])
    ids = list(cached.generate(model, PROMPT_IDS, 12, forward=lambda *a: forward(model, *a)))
    assert ids == generate(PROMPT_IDS, params, config["n_head"], 12)
