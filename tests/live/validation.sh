#!/usr/bin/env bash
# Validation differential (GitHub issue #26, part 2): generated and mutated
# DRA objects checked by `dractl validate` and by a real kube-apiserver
# v1.37.2's server-side dry run, one API server per feature-gate profile
# (tools/difftest --level validation starts and stops them with
# tests/live/cluster.sh). Fixed seed, so a failure reproduces with the
# printed command; tools/difftest/README.md "Validation level".
#
#   tests/live/validation.sh BUILD_DIR [COUNT]
#
# BUILD_DIR holds src/cli/dractl (e.g. build/release); COUNT defaults to 300.
# Needs build/difftest-go/difftest (scripts/oracle-build) and tools/k8s-bins/bin
# (scripts/k8s-bins). Exit status 1 on any mismatch outside the known classes.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: validation.sh BUILD_DIR [COUNT]}" && pwd)"
count=${2:-300}
difftest="$root/build/difftest-go/difftest"
if [ ! -x "$difftest" ]; then
  (cd "$root" && scripts/oracle-build)
fi
cd "$root"
cmd=("$difftest" --level validation --seed 20260126 --count "$count" --dractl "$build/src/cli/dractl"
     --cluster-script "$root/tests/live/cluster.sh" --root "$root")
printf '+'; printf ' %q' "${cmd[@]}"; echo
start=$(date +%s)
"${cmd[@]}"
echo "validation differential: $count objects in $(( $(date +%s) - start )) s"
