#!/usr/bin/env python3
"""Regenerates the fuzz seed corpora from the fixture files (developer tool).

Each seed is: selector byte (parser row in the group or reasoning table, bit 7 = typed tools /
start in reasoning), chunking seed byte, then the fixture input.
Usage: tests/fuzz/make_corpus.py  (run from anywhere; rewrites tests/fuzz/corpus/*)
"""
import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def write(target, selector, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    blob = bytes([selector & 0xFF, 3]) + data.encode()
    (d / hashlib.sha1(blob).hexdigest()[:16]).write_bytes(blob)


def main():
    # Tool seeds go to every group's corpus: libFuzzer mutates the selector byte anyway.
    for path in sorted(FIXTURES.rglob("*.json")):
        doc = json.loads(path.read_text())
        for case in doc["cases"]:
            text = case["input"]
            if "reasoning_parser" in doc and "tool_parser" not in doc:
                write("reasoning_parser_fuzz", 0x80 if case.get("options", {}).get("start_in_reasoning") else 0, text)
            if "tool_parser" in doc:
                for group in ("tags", "tokens", "other"):
                    write(f"tool_parser_{group}_fuzz", 0x80, text)


if __name__ == "__main__":
    main()
