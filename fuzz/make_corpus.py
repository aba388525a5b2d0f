#!/usr/bin/env python3
"""Regenerates the seed corpus of the CEL fuzzer (fuzz/corpus/cel/).

One file per distinct expression: the profile byte that fuzz/cel_fuzz.cc reads
first, then the expression. Sources:

  - every vector of shared/conformance/cel/*.jsonl (FORMAT.md section 2): the
    cel-spec files in the standard profile (byte ' ', or 0xa0 = unchecked
    for the vectors with "check": false), the k8s-* and dra-* files in the
    Kubernetes profile of release 1.37 with the vector's `env` and
    `features`;
  - every CEL selector (`cel.expression`) of the YAML/JSON objects under
    shared/fixtures, in the Kubernetes profile (StoredExpressions, 1.37);
  - the inputs of REGRESSIONS below, which found bugs.

File names are the SHA-1 of the content (as libFuzzer names corpus files), so
the output is deterministic and a rerun changes nothing. Files of the corpus
directory that the sources no longer produce are removed.

Usage: fuzz/make_corpus.py [--shared DIR] [--out DIR]
"""
import argparse
import hashlib
import json
import os
import pathlib
import sys

import yaml

REPO = pathlib.Path(__file__).resolve().parent.parent
STANDARD = 0x20  # bit 0 clear: standard profile (printable: ' ')
UNCHECKED = 0x80  # bit 7: evaluate even if the expression does not type-check
# Kubernetes profile: bit 0 set, bits 1-2 release 1.34 + n, bit 3 NewExpressions,
# bit 4 DRAConsumableCapacity, bit 5 DRAListTypeAttributes; bit 6 is ignored
# and set here so that most profile bytes are printable ('G' = 1.37 Stored).
MAX_LEN = 4096  # scripts/fuzz runs with -max_len=4096

# Inputs that found bugs (fuzz/README.md), kept in the corpus so that every
# run replays them: (profile byte, expression).
REGRESSIONS = [
]


def kubernetes_byte(new_expressions=False, consumable_capacity=False, list_type_attributes=False):
    key = 3  # 1.37
    if new_expressions:
        key |= 4
    if consumable_capacity:
        key |= 8
    if list_type_attributes:
        key |= 16
    return 0x40 | (key << 1) | 1


def vector_inputs(shared):
    for path in sorted((shared / "conformance" / "cel").glob("*.jsonl")):
        kubernetes = path.name.startswith(("k8s-", "dra-"))
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                v = json.loads(line)
                if not kubernetes:
                    # Vectors that the reference suite runs without its checker.
                    yield STANDARD | (UNCHECKED if v.get("check") is False else 0), v["expr"]
                    continue
                features = set(v.get("features", []))
                yield kubernetes_byte(
                    new_expressions=v.get("env") == "NewExpressions"
                    or path.name == "dra-validation.jsonl",
                    consumable_capacity="DRAConsumableCapacity" in features,
                    list_type_attributes="DRAListTypeAttributes" in features,
                ), v["expr"]


def selectors(node):
    if isinstance(node, dict):
        cel = node.get("cel")
        if isinstance(cel, dict) and isinstance(cel.get("expression"), str):
            yield cel["expression"]
        for value in node.values():
            yield from selectors(value)
    elif isinstance(node, list):
        for value in node:
            yield from selectors(value)


def fixture_inputs(shared):
    root = shared / "fixtures"
    paths = sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    for path in paths:
        with open(path, encoding="utf-8") as f:
            try:
                docs = list(yaml.safe_load_all(f))
            except yaml.YAMLError:
                continue  # deliberately broken fixtures
        for doc in docs:
            for expr in selectors(doc):
                yield kubernetes_byte(), expr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=pathlib.Path, default=REPO.parent / "shared")
    parser.add_argument("--out", type=pathlib.Path, default=REPO / "fuzz" / "corpus" / "cel")
    args = parser.parse_args()

    inputs = {}
    sources = list(vector_inputs(args.shared)) + list(fixture_inputs(args.shared)) + REGRESSIONS
    for profile, expr in sources:
        data = bytes([profile]) + expr.encode("utf-8")
        if len(data) <= MAX_LEN:
            inputs[hashlib.sha1(data).hexdigest()] = data

    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.iterdir():
        if old.name not in inputs:
            old.unlink()
    for name, data in sorted(inputs.items()):
        path = args.out / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    print(f"{len(inputs)} inputs, {sum(len(d) for d in inputs.values())} bytes in {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
