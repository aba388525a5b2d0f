#!/usr/bin/env python3
"""Regenerates the seed corpora of the fuzzers (fuzz/corpus/<target>/).

cel (fuzz/cel_fuzz.cc): one file per distinct expression: the profile byte that fuzz/cel_fuzz.cc reads
first, then the expression. Sources:

  - every vector of testdata/conformance/cel/*.jsonl (FORMAT.md section 2): the
    cel-spec files in the standard profile (byte ' ', or 0xa0 = unchecked
    for the vectors with "check": false), the k8s-* and dra-* files in the
    Kubernetes profile of release 1.37 with the vector's `env` and
    `features`;
  - every CEL selector (`cel.expression`) of the YAML/JSON objects under
    testdata/fixtures, in the Kubernetes profile (StoredExpressions, 1.37);
  - the inputs of REGRESSIONS below, which found bugs.

load (fuzz/load_fuzz.cc): the option byte 0x03 (release 1.37 defaults), then
one file as a user would give it: each YAML/JSON file of testdata/fixtures,
examples/ and tests/bad_inputs/ that fits in LOAD_MAX_LEN bytes; a bigger one
is cut into groups of whole documents that fit. The bad inputs also come with
byte 0x07 (strict decoding) and fixtures with 0x0b (defaulting on).

quantity (fuzz/quantity_fuzz.cc): pairs "A\0B" of the quantities written in
testdata/fixtures and examples (capacity, counters, allocatable) and of
QUANTITY_EDGES / SEMVER_EDGES below, each paired with its neighbour in the
list.

alloc (fuzz/alloc_fuzz.cc): the input only drives a generator, so the seeds
are ALLOC_SEEDS pseudo-random byte strings (SHA-256 chains of a fixed seed)
of 16 to 400 bytes.

File names are the SHA-1 of the content (as libFuzzer names corpus files), so
the output is deterministic and a rerun changes nothing. Files of a corpus
directory that the sources no longer produce are removed.

Usage: fuzz/make_corpus.py [--testdata DIR] [--target cel|load|quantity|alloc]...
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
MAX_LEN = 4096  # scripts/fuzz runs cel_fuzz with -max_len=4096
LOAD_MAX_LEN = 16384  # ... and load_fuzz with -max_len=16384
ALLOC_SEEDS = 64

QUANTITY_EDGES = [
    "0", "1", "-1", "+1", "1.5", ".5", "5.", "1m", "1500m", "1n", "1u", "1k", "1M", "1G", "1T", "1P",
    "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei", "8Ei", "7Ei", "0.0001Ki", ".5Ki", "1e3", "1E3",
    "1e-9", "1e-10", "1e308", "2e9", "-2e9", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "99999999999999999999999999999999999999",
    "999999999999999999999999999999999999999", "0.000000001", "0.0000000001", "12e6", "1.2.3",
    "1 Gi", "Gi", "m", ".", "+", "-", "e3", "1e", "0x10", "1K", "1mi", "1iB", "80Gi", "40Gi", "5Gi",
    "1536Mi", "1025", "1024", "1023", "123456789012345678901234567890.123456789",
]
SEMVER_EDGES = [
    "1.0.0", "0.0.0", "1.2.3-alpha", "1.2.3-alpha.1", "1.2.3-0.3.7", "1.2.3+build.5",
    "1.2.3-rc.1+build.5", "v1.2.3", "01.2.3", "1.02.3", "1.2", "1", "v1", "1.2-rc", "1.2.3-",
    "1.2.3-01", "18446744073709551615.0.0", "18446744073709551616.0.0", "9223372036854775808.1.1",
    "580.95.05", "12.4.127", "1.2.3-a.b.c.d.e", "1.2.3--", "1.2.3-a..b",
]

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


def vector_inputs(testdata):
    for path in sorted((testdata / "conformance" / "cel").glob("*.jsonl")):
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


def fixture_inputs(testdata):
    root = testdata / "fixtures"
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


def cel_inputs(testdata):
    inputs = []
    sources = list(vector_inputs(testdata)) + list(fixture_inputs(testdata)) + REGRESSIONS
    for profile, expr in sources:
        data = bytes([profile]) + expr.encode("utf-8")
        if len(data) <= MAX_LEN:
            inputs.append(data)
    return inputs


def manifest_files(testdata):
    """(kind, path) of every YAML/JSON file the load seeds come from."""
    for path in sorted((testdata / "fixtures").rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json"):
            yield "fixture", path
    for path in sorted((REPO / "examples").rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json"):
            yield "fixture", path
    for path in sorted((REPO / "tests" / "bad_inputs").iterdir()):
        if path.is_file() and path.name not in ("CASES", "README.md"):
            yield "bad", path


def chunks(data, limit):
    """`data` whole if it fits, else groups of whole YAML documents that fit."""
    if len(data) <= limit:
        return [data]
    out, current = [], b""
    for doc in data.split(b"\n---\n"):
        doc = doc + b"\n---\n"
        if len(doc) > limit:
            continue
        if len(current) + len(doc) > limit:
            out.append(current)
            current = b""
        current += doc
    if current:
        out.append(current)
    return out


def load_inputs(testdata):
    inputs = []
    for kind, path in manifest_files(testdata):
        for chunk in chunks(path.read_bytes(), LOAD_MAX_LEN - 1):
            inputs.append(b"\x03" + chunk)
            inputs.append((b"\x07" if kind == "bad" else b"\x0b") + chunk)
    return inputs


def quantities(node):
    """Quantity strings under capacity/counters/allocatable/requests keys."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "value" and isinstance(value, str):
                yield value
            elif key in ("allocatable", "capacity", "requests", "limits") and isinstance(value, dict):
                for v in value.values():
                    if isinstance(v, str):
                        yield v
            yield from quantities(value)
    elif isinstance(node, list):
        for item in node:
            yield from quantities(item)


def quantity_inputs(testdata):
    values = list(QUANTITY_EDGES)
    for kind, path in manifest_files(testdata):
        if kind != "fixture" or path.suffix == ".json":
            continue
        try:
            docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except yaml.YAMLError:
            continue
        for doc in docs:
            for q in quantities(doc):
                if q not in values:
                    values.append(q)
    values += SEMVER_EDGES
    inputs = []
    for i, a in enumerate(values):
        b = values[(i + 1) % len(values)]
        inputs.append(a.encode("utf-8") + b"\0" + b.encode("utf-8"))
    return inputs


def alloc_inputs(_testdata):
    inputs, state = [], b"dractl alloc_fuzz seeds"
    for i in range(ALLOC_SEEDS):
        data = b""
        length = 16 + (i * 383) % 385
        while len(data) < length:
            state = hashlib.sha256(state).digest()
            data += state
        inputs.append(data[:length])
    return inputs


TARGETS = {"cel": cel_inputs, "load": load_inputs, "quantity": quantity_inputs, "alloc": alloc_inputs}


def write_corpus(out, inputs):
    named = {hashlib.sha1(data).hexdigest(): data for data in inputs}
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.name not in named:
            old.unlink()
    for name, data in sorted(named.items()):
        path = out / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    print(f"{out.name}: {len(named)} inputs, {sum(len(d) for d in named.values())} bytes in {out}",
          file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--testdata", type=pathlib.Path, default=REPO / "testdata")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS),
                        help="corpus to regenerate (repeatable; default: all)")
    args = parser.parse_args()
    for target in args.target or sorted(TARGETS):
        write_corpus(REPO / "fuzz" / "corpus" / target, TARGETS[target](args.testdata))


if __name__ == "__main__":
    main()
