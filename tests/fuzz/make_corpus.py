#!/usr/bin/env python3
"""Regenerates the fuzz seed corpora from the fixture files (developer tool).

A seed is the fixture's parser name and a newline, an options byte (reasoning: bit 7 = start
in reasoning; tools: bit 7 = typed tools), a chunking seed byte, then the fixture input: the
name keeps each seed on its family whatever the order of the registry.
Usage: tests/fuzz/make_corpus.py  (run from anywhere; rewrites corpus/tool_parser_fuzz/ and
adds the fixture seeds to corpus/reasoning_parser_fuzz/)
"""
import hashlib
import json
import pathlib
import shutil

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


def main():
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
