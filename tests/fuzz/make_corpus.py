#!/usr/bin/env python3
"""Regenerates the fuzz seed corpora from the fixture files (developer tool).

A seed is the fixture's parser name and a newline, an options byte (reasoning: bit 7 = start
in reasoning; tools: bit 7 = typed tools), a chunking seed byte, then the fixture input: the
name keeps each seed on its family whatever the order of the registry.
The vocabulary seeds (corpus/vocab_fuzz/) are tiny GGUF files written here, one per tokenizer
model, and a tokenizer.json: never real vocabulary files.
Usage: tests/fuzz/make_corpus.py  (run from anywhere; rewrites corpus/tool_parser_fuzz/ and
corpus/vocab_fuzz/, and adds the fixture seeds to corpus/reasoning_parser_fuzz/)
"""
import hashlib
import json
import pathlib
import shutil
import struct

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def write(target, selector, data, name=None):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    blob = bytes([selector & 0xFF, 3]) + data.encode()
    if name is not None:
        blob = name.encode() + b"\n" + blob
    (d / hashlib.sha1(blob).hexdigest()[:16]).write_bytes(blob)


def gguf(version, kvs):
    """A GGUF file of metadata only: kvs is a list of (key, type, encoded value)."""
    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs))
    for key, kind, value in kvs:
        out += gguf_str(key) + struct.pack("<I", kind) + value
    return out


def gguf_str(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gguf_array(kind, items):
    return struct.pack("<IQ", kind, len(items)) + b"".join(items)


def write_vocab_seeds():
    d = CORPUS / "vocab_fuzz"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    i32s = lambda values: gguf_array(5, [struct.pack("<i", v) for v in values])
    strs = lambda values: gguf_array(8, [gguf_str(v) for v in values])
    seeds = {
        "gpt2.gguf": gguf(3, [
            ("general.architecture", 8, gguf_str("llama")),
            ("general.alignment", 4, struct.pack("<I", 32)),
            ("tokenizer.ggml.model", 8, gguf_str("gpt2")),
            ("tokenizer.ggml.tokens", 9, strs(["a", "\u0120the", "\u010a", "\u00c3\u00a9",
                                               "<|eot_id|>", "<think>"])),
            ("tokenizer.ggml.token_type", 9, i32s([1, 1, 1, 1, 3, 4])),
            ("tokenizer.ggml.eos_token_id", 4, struct.pack("<I", 4)),
        ]),
        "llama.gguf": gguf(2, [
            ("tokenizer.ggml.model", 8, gguf_str("llama")),
            ("tokenizer.ggml.tokens", 9, strs(["<unk>", "<s>", "</s>", "<0x0A>", "\u2581the",
                                               "<|end|>"])),
            ("tokenizer.ggml.token_type", 9, i32s([2, 3, 3, 6, 1, 3])),
            ("tokenizer.ggml.eos_token_id", 5, struct.pack("<i", 2)),
            ("tokenizer.ggml.eot_token_id", 5, struct.pack("<i", -1)),
            ("general.nested", 9, struct.pack("<IQ", 9, 1) + gguf_array(6, [b"\0\0\0\0"])),
        ]),
        "tokenizer.json": json.dumps({
            "model": {"type": "BPE", "vocab": {"a": 0, "\u0120b": 1, "<0x0A>": 3}},
            "pre_tokenizer": {"type": "ByteLevel"},
            "added_tokens": [{"id": 4, "content": "<|im_end|>", "special": True}],
        }).encode(),
    }
    for name, blob in seeds.items():
        (d / name).write_bytes(blob)


def main():
    write_vocab_seeds()
    # The tool corpus is all seeds; the reasoning corpus may also hold seeds kept by hand.
    shutil.rmtree(CORPUS / "tool_parser_fuzz", ignore_errors=True)
    for path in sorted(FIXTURES.rglob("*.json")):
        doc = json.loads(path.read_text())
        for case in doc["cases"]:
            text = case["input"]
            if "reasoning_parser" in doc and "tool_parser" not in doc:
                opened = case.get("options", {}).get("start_in_reasoning")
                write("reasoning_parser_fuzz", 0x80 if opened else 0, text, doc["reasoning_parser"])
            if "tool_parser" in doc:
                write("tool_parser_fuzz", 0x80, text, doc["tool_parser"])


if __name__ == "__main__":
    main()
