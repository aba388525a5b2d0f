#!/usr/bin/env python3
"""Differential: CEL selectors with constant arguments, `dractl validate`
against upstream Kubernetes' DRA CEL compiler (tools/oracle).

For each expression below (none reads `device`), the oracle compiles it in
the NewExpressions environment the API server validates new selectors with,
then evaluates it with no variables (`oracle cel run`). Three outcomes:

  compile error   ("compilation failed: ..."): the API server refuses the
                  object -> `dractl validate` must report an error;
  run-time error  (any other error): the API server accepts it and every
                  evaluation fails at scheduling time -> dractl must warn
                  ("fails whenever it is evaluated") and exit 0;
  a value         -> dractl must say nothing about it.

Usage: tools/oracle/cel_literals.py [--dractl BIN] [--oracle BIN]
Prints one line per expression and exits 1 on any disagreement (issue #32
item 3: literal arguments are errors where the API server rejects them and
warnings otherwise).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

EXPRESSIONS = [
    # Checked when compiling (cel-go's literal validators, Kubernetes >= 1.29).
    "duration('1x') > duration('1s')",
    "duration('1s') > duration('0s')",
    "duration('-1.5h') < duration('2h45m')",
    "timestamp('bad') > timestamp('2020-01-01T00:00:00Z')",
    "timestamp('2020-02-30T00:00:00Z') > timestamp(0)",
    "timestamp('2020-01-01T00:00:00+01:00') > timestamp(0)",
    "timestamp(253402300800) > timestamp(0)",
    "'a'.matches('[')",
    "'a'.matches('a+')",
    # Not checked when compiling: they fail at run time.
    "quantity('40GiB').isGreaterThan(quantity('1Gi'))",
    "quantity('40Gi').isGreaterThan(quantity('1Gi'))",
    "semver('v1').major() == 1",
    "semver('1.2.3').major() == 1",
    "semver('1.2', true).minor() == 2",
    "ip('1.2.3').family() == 4",
    "ip('1.2.3.4').family() == 4",
    "cidr('1.2.3.4/99').prefixLength() == 1",
    "url('::').getScheme() == ''",
    "url('https://example.com').getScheme() == 'https'",
    "isQuantity('40GiB') == false",
]


def class_yaml(i, expr):
    return (f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: c{i}\n"
            f"spec:\n  selectors:\n  - cel:\n      expression: {json.dumps(expr)}\n")


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--dractl", default=os.path.join(root, "build/release/src/cli/dractl"))
    ap.add_argument("--oracle", default=os.path.join(root, "build/oracle-go/oracle"))
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        vectors = os.path.join(tmp, "v.jsonl")
        with open(vectors, "w") as f:
            for i, e in enumerate(EXPRESSIONS):
                f.write(json.dumps({"name": f"c{i}", "expr": e, "env": "NewExpressions"}) + "\n")
        out = subprocess.run([args.oracle, "cel", "run", vectors], capture_output=True, text=True, check=True)
        upstream = {}
        for line in out.stdout.splitlines():
            r = json.loads(line)
            if "error" not in r:
                upstream[r["name"]] = "value"
            elif r["error"].startswith("compilation failed"):
                upstream[r["name"]] = "compile error"
            else:
                upstream[r["name"]] = "run-time error"

        manifests = os.path.join(tmp, "classes.yaml")
        with open(manifests, "w") as f:
            f.write("---\n".join(class_yaml(i, e) for i, e in enumerate(EXPRESSIONS)))
        run = subprocess.run([args.dractl, "validate", "-o", "json", "-f", manifests], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print(f"dractl validate exited {run.returncode}: {run.stderr}", file=sys.stderr)
            return 1
        messages = json.loads(run.stdout)["problems"]

    bad = 0
    for i, e in enumerate(EXPRESSIONS):
        name = f"c{i}"
        mine = [m for m in messages if m["object"] == f"DeviceClass {name}"]
        errors = [m for m in mine if m["severity"] == "error"]
        warnings = [m for m in mine if m["severity"] == "warning" and "fails whenever it is evaluated" in m["message"]]
        if errors:
            got = "compile error" if "compilation failed" in errors[0]["message"] else "other error"
        elif warnings:
            got = "run-time error"
        elif mine:
            got = "other warning"
        else:
            got = "value"
        want = upstream.get(name, "missing")
        ok = got == want
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {e!r}: upstream {want}, dractl validate {got}")
    print(f"cel literals: {len(EXPRESSIONS)} expressions, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
