#!/usr/bin/env bash
# Compares dractl with upstream Kubernetes (the oracle) on every allocator
# scenario and every Kubernetes-profile CEL vector file (dra-*, k8s-*).
#
#   tools/oracle/compare.sh [--against expect] [--order] [-v] [PATH...]
#
# Default paths: testdata/conformance/allocator, tests/conformance/allocator and
# testdata/conformance/cel; files of tests/conformance/corrections replace
# same-named files, as the C++ conformance tests do.
# DRACTL (default build/release/src/cli/dractl) names the dractl binary.
# Prints one line (plus indented detail) per mismatch, then
# `N compared, M mismatches`; exits 0 iff M == 0.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

dractl="${DRACTL:-$root/build/release/src/cli/dractl}"
oracle="${ORACLE:-$root/build/oracle-go/oracle}"

# Build (incremental after the first time; the first build of the k8s
# dependencies takes minutes).
mkdir -p "$(dirname "$oracle")"
(cd "$here" && go build -o "$oracle" .)

flags=()
paths=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --against|-against|--timeout|-timeout|--dractl|-dractl|--corrections|-corrections)
      flags+=("$1" "${2:?$1 needs a value}")
      shift 2 ;;
    -*) flags+=("$1"); shift ;;
    *) paths+=("$1"); shift ;;
  esac
done
if [[ ${#paths[@]} -eq 0 ]]; then
  paths=("$root/testdata/conformance/allocator" "$root/tests/conformance/allocator" "$root/testdata/conformance/cel")
fi

exec "$oracle" compare --dractl "$dractl" --corrections "$root/tests/conformance/corrections" \
  ${flags[@]+"${flags[@]}"} "${paths[@]}"
