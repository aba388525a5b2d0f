#!/usr/bin/env bash
# Live tests: dractl against a real kube-apiserver v1.37.2 + etcd on loopback
# (tests/live/cluster.sh; binaries from scripts/k8s-bins). No mock server.
#
#   tests/live/run.sh BUILD_DIR
#
# BUILD_DIR holds src/cli/dractl and tests/watch_probe (e.g. build/release).
# Prints one "ok"/"FAIL" line per check and exits 1 if any failed. The work
# folder (logs of every process) is kept when a check failed, or always with
# DRA_LIVE_KEEP=1. A check named "serve §9.N" or "reflector §9.N" is acceptance
# test 9.N of src/kube/README.md §9; tests/live/README.md §4 describes the
# six parts below and the cluster each one runs on.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)"
dractl="$build/src/cli/dractl"
probe="$build/tests/watch_probe"
kubectl="$root/tools/k8s-bins/bin/kubectl"
for b in "$dractl" "$probe" "$kubectl" "$root/tools/k8s-bins/bin/kube-controller-manager"; do
  [ -x "$b" ] || { echo "run.sh: $b is missing" >&2; exit 1; }
done

# GenericWorkload keeps spec.schedulingGroup on pods and, with
# scheduling.k8s.io/v1beta1 enabled (beta APIs are off by default), serves
# PodGroups (the pod-group checks).
export DRA_APISERVER_FEATURE_GATES=GenericWorkload=true
export DRA_APISERVER_RUNTIME_CONFIG=scheduling.k8s.io/v1beta1=true
work="$(mktemp -d /tmp/dractl-live.XXXXXX)"
cleanup() {
  "$root/tests/live/cluster.sh" down "$work/cluster" || true
  "$root/tests/live/cluster.sh" down "$work/cluster2" || true
  "$root/tests/live/cluster.sh" down "$work/cluster3" || true
  "$root/tests/live/cluster.sh" down "$work/cluster4" || true
  "$root/tests/live/cluster.sh" down "$work/cluster5" || true
  "$root/tests/live/cluster.sh" down "$work/cluster2b" || true
  if [ "$failures" -eq 0 ] && [ -z "${DRA_LIVE_KEEP:-}" ]; then rm -rf "$work"; else echo "run.sh: kept $work for inspection" >&2; fi
}
failures=0
trap cleanup EXIT
trap 'echo "run.sh: line $LINENO: a setup command failed (exit $?); stopping" >&2' ERR
"$root/tests/live/cluster.sh" up "$work/cluster"
admin="$work/cluster/admin.kubeconfig"
user="$work/cluster/dractl.kubeconfig"
k() { "$kubectl" --kubeconfig "$admin" "$@"; }

# deploy/ (the namespace first: kubectl applies a folder in name order) and
# the test user's binding to its ClusterRole.
apply_deploy() {
  k apply -f "$root/deploy/namespace.yaml" > /dev/null
  k apply -f "$root/deploy/" -f "$root/tests/live/rbac-user.yaml" > /dev/null
}
pass() { echo "ok   $*"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
check() {  # name command... : passes when the command exits 0
  local name=$1; shift
  if "$@" > "$work/out" 2> "$work/err"; then pass "$name"; else fail "$name"; sed 's/^/    /' "$work/err" | tail -20; fi
}

# 1. The server is the version the specs describe.
check "kube-apiserver reports v1.37.2" bash -c "'$kubectl' --kubeconfig '$admin' version -o json | grep -q '\"gitVersion\": \"v1.37.2\"'"

# 2. deploy/ is valid for the real API server (server-side dry run), then applied,
#    with the test user `dractl` bound to exactly that ClusterRole.
#    (A server-side dry run creates nothing, so the namespace must exist first.)
check "deploy/namespace.yaml applies" k apply -f "$root/deploy/namespace.yaml"
check "deploy/ passes kubectl apply --dry-run=server" k apply --dry-run=server -f "$root/deploy/"

# 3. Without the role, dractl is refused and says by whom and for what.
rc=0
"$dractl" schedule --kubeconfig "$user" > "$work/out" 2> "$work/err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q 'list /api/v1/nodes: HTTP 403 Forbidden: nodes is forbidden: User "dractl" cannot list' "$work/err"; then
  pass "without RBAC: exit 1 and the API server's 403 message"
else
  fail "without RBAC: exit 1 and the API server's 403 message (rc=$rc)"; cat "$work/err"
fi
check "apply deploy/ and the test user's binding" apply_deploy
# deploy/flowschema.yaml: the API server puts requests of dractl's service
# account in it (its answer names the FlowSchema that matched).
flowschema_matches() {
  local token uid
  token=$(k create token dractl -n dractl-system) &&
    uid=$(k get flowschema dractl -o jsonpath='{.metadata.uid}') && [ -n "$uid" ] &&
    curl -sS -D - -o /dev/null --cacert "$work/cluster/ca.crt" -H "Authorization: Bearer $token" \
      "https://127.0.0.1:$(cat "$work/cluster/port")/api/v1/nodes?limit=1" |
      tr -d '\r' | grep -qix "x-kubernetes-pf-flowschema-uid: $uid"
}
check "requests of dractl's service account go to FlowSchema dractl (priority level workload-high)" flowschema_matches

# 4. The bundled example cluster is accepted by the real API server's validation.
#    (Nodes keep their status on create; pods and claims lose theirs.)
for ns in $(grep -h '^  namespace:' "$root"/examples/cluster/*.yaml | awk '{print $2}' | sort -u); do
  k create namespace "$ns" > /dev/null
done
k apply -f "$root/tests/live/nad-crd.yaml" > /dev/null
k wait --for=condition=Established --timeout=60s crd/network-attachment-definitions.k8s.cni.cncf.io > /dev/null
check "kube-apiserver accepts every object of examples/cluster" k apply -f "$root/examples/cluster"

# 5. A watch sees what happens: list, then ADDED / DELETED of a pod.
"$probe" "$user" /api/v1/pods 8 2 > "$work/probe.out" 2> "$work/probe.err" &
probe_pid=$!
sleep 2
k run live-probe --image=registry.k8s.io/pause:3.10 --restart=Never > /dev/null
sleep 1
k delete pod live-probe --wait=false > /dev/null
wait "$probe_pid"
if grep -q '^replace ' "$work/probe.out" && grep -q '^ADDED Pod default/live-probe$' "$work/probe.out" &&
   grep -q '^DELETED Pod default/live-probe$' "$work/probe.out" && ! grep -q '^problem' "$work/probe.out" &&
   grep -Eq '^stats lists=1 watches=([3-9]|[1-9][0-9]+) expired=0 errors=0$' "$work/probe.out"; then
  pass "reflector: list, ADDED and DELETED, re-watch after each server timeout"
else
  fail "reflector: list, ADDED and DELETED, re-watch after each server timeout"; cat "$work/probe.out" "$work/probe.err"
fi

# 6. schedule/explain read from the API server decide exactly what they decide
#    on `kubectl get -o yaml` of the same objects.
k get nodes,pods,resourceclaims,resourceclaimtemplates,resourceslices,deviceclasses,devicetaintrules -A -o yaml \
  > "$work/dump.yaml"
for format in table json; do
  "$dractl" schedule -f "$work/dump.yaml" -o "$format" > "$work/files.$format" 2> "$work/files.err"
  "$dractl" schedule --kubeconfig "$user" -o "$format" > "$work/live.$format" 2> "$work/live.err"
  if cmp -s "$work/files.$format" "$work/live.$format"; then
    pass "schedule --kubeconfig -o $format equals schedule -f of kubectl's dump"
  else
    fail "schedule --kubeconfig -o $format equals schedule -f of kubectl's dump"
    diff "$work/files.$format" "$work/live.$format" | head -20; cat "$work/live.err"
  fi
done
placed=$(tail -1 "$work/live.table")
if [[ "$placed" =~ ^([1-9][0-9]*)\ placed,\ ([1-9][0-9]*)\ pending$ ]]; then
  pass "schedule --kubeconfig places pods and leaves some pending ($placed)"
else
  fail "schedule --kubeconfig places pods and leaves some pending ($placed)"
fi
"$dractl" explain -f "$work/dump.yaml" --all-pending > "$work/files.explain" 2>&1 || true
"$dractl" explain --kubeconfig "$user" --all-pending > "$work/live.explain" 2> "$work/live.err" || true
if cmp -s "$work/files.explain" "$work/live.explain" && grep -q 'nodes' "$work/live.explain"; then
  pass "explain --kubeconfig --all-pending equals explain -f of kubectl's dump"
else
  fail "explain --kubeconfig --all-pending equals explain -f of kubectl's dump"
  diff "$work/files.explain" "$work/live.explain" | head -20
fi
# audit reads the same cluster live as from the dump (the test user may not
# list namespaces: both then leave the admin-access label unchecked); the
# JSON differs only in the files' locations.
"$dractl" audit -f "$work/dump.yaml" -o json --fail-on none 2>/dev/null | grep -v '"location"' > "$work/files.audit" || true
"$dractl" audit --kubeconfig "$user" -o json --fail-on none 2> "$work/live.err" | grep -v '"location"' \
  > "$work/live.audit" || true
if cmp -s "$work/files.audit" "$work/live.audit" && grep -q '"summary"' "$work/live.audit"; then
  pass "audit --kubeconfig equals audit -f of kubectl's dump"
else
  fail "audit --kubeconfig equals audit -f of kubectl's dump"
  diff "$work/files.audit" "$work/live.audit" | head -20; cat "$work/live.err"
fi
# migrate --live: the workloads read from the API server, those a controller
# owns left out (vllm-1) and what the server fills in dropped; the real API server
# accepts what it prints (created in a fresh namespace, server-side dry run).
k apply -f "$root/tests/live/migrate-workloads.yaml" > /dev/null
# A pod of the Deployment's, as its ReplicaSet would make it (no Deployment
# controller runs here): owned by a controller, so not migrated on its own.
owner_uid=$(k get deployment vllm -n migrate-live -o jsonpath='{.metadata.uid}')
k create -f - > /dev/null <<EOF_POD
apiVersion: v1
kind: Pod
metadata:
  name: vllm-1
  namespace: migrate-live
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: vllm, uid: "$owner_uid", controller: true}
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
  containers:
  - name: vllm
    image: registry.k8s.io/pause:3.10
    resources:
      limits:
        nvidia.com/gpu: 1
EOF_POD
"$dractl" migrate --kubeconfig "$admin" > "$work/migrate.yaml" 2> "$work/migrate.err" || true
kinds=$(grep -E '^kind: ' "$work/migrate.yaml" | grep -v DeviceClass | sort | uniq -c | tr -s ' ' | tr '\n' ';')
if [ "$kinds" = " 1 kind: Deployment; 1 kind: Pod; 2 kind: ResourceClaimTemplate;" ] &&
   ! grep -qE '^status:|^  uid:|nvidia.com/gpu: |^  nodeName:' "$work/migrate.yaml" &&
   grep -q 'resourceClaimTemplateName: vllm-gpu' "$work/migrate.yaml"; then
  pass "migrate --kubeconfig rewrites the Deployment and the bare Pod, not what the Deployment owns"
else
  fail "migrate --kubeconfig rewrites the Deployment and the bare Pod, not what the Deployment owns"
  echo "    kinds: $kinds"; cat "$work/migrate.err"; head -60 "$work/migrate.yaml"
fi
k create namespace migrate-dry > /dev/null
sed 's/namespace: migrate-live$/namespace: migrate-dry/' "$work/migrate.yaml" > "$work/migrate-dry.yaml"
check "the API server accepts migrate --live's output (create --dry-run=server)" \
  k create --dry-run=server -f "$work/migrate-dry.yaml"
# The kubectl plugin: the real kubectl finds kubectl-dra (the link beside
# dractl) on PATH and runs it with the user's configuration ($KUBECONFIG);
# without -f the plugin reads that cluster.
KUBECONFIG="$user" PATH="$build/src/cli:$PATH" "$kubectl" dra explain --all-pending \
  > "$work/plugin.explain" 2> "$work/plugin.err" || true
if cmp -s "$work/files.explain" "$work/plugin.explain"; then
  pass "kubectl dra explain --all-pending (through kubectl) equals explain -f of kubectl's dump"
else
  fail "kubectl dra explain --all-pending (through kubectl) equals explain -f of kubectl's dump"
  diff "$work/files.explain" "$work/plugin.explain" | head -20; cat "$work/plugin.err"
fi
# kubectl's completion of the plugin: `kubectl __complete` (what its shell
# completion scripts call) runs kubectl_complete-dra, the other link, and
# relays its words and directive.
KUBECONFIG="$user" PATH="$build/src/cli:$PATH" "$kubectl" __complete dra explain -o '' \
  > "$work/plugin.complete" 2> /dev/null || true
if [ "$(cut -f1 "$work/plugin.complete" | tr '\n' ' ')" = "text yaml json :4 " ]; then
  pass "kubectl __complete dra explain -o (through kubectl) offers text yaml json"
else
  fail "kubectl __complete dra explain -o (through kubectl) offers text yaml json"
  cat "$work/plugin.complete"
fi
# explain's pod argument: the cluster's pods, as namespace/name.
KUBECONFIG="$user" PATH="$build/src/cli:$PATH" "$kubectl" __complete dra explain '' 2> /dev/null |
  grep -v '^:' | sort > "$work/plugin.pods" || true
KUBECONFIG="$user" "$kubectl" get pods -A -o 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}' |
  sort > "$work/kubectl.pods"
if [ -s "$work/kubectl.pods" ] && cmp -s "$work/kubectl.pods" "$work/plugin.pods"; then
  pass "kubectl __complete dra explain '' offers the cluster's $(wc -l < "$work/kubectl.pods") pods (through kubectl)"
else
  fail "kubectl __complete dra explain '' offers the cluster's pods (through kubectl)"
  diff "$work/kubectl.pods" "$work/plugin.pods" | head -10
fi

# 7. --live with -f: what the cluster would do with manifests not yet applied.
cat > "$work/extra.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: not-yet-applied, namespace: default}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
EOF
"$dractl" schedule --kubeconfig "$user" -f "$work/extra.yaml" > "$work/out" 2> "$work/err"
if grep -Eq '^default/not-yet-applied +[a-z0-9-]+ ' "$work/out" && ! grep -q 'not-yet-applied.*<pending>' "$work/out"; then
  pass "schedule --kubeconfig -f extra.yaml places the extra pod"
else
  fail "schedule --kubeconfig -f extra.yaml places the extra pod"; cat "$work/out"
fi
if ! k get pod not-yet-applied > /dev/null 2>&1 && [ -z "$(k get pods -A -o jsonpath='{.items[*].spec.nodeName}')" ]; then
  pass "schedule --kubeconfig writes nothing to the cluster"
else
  fail "schedule --kubeconfig writes nothing to the cluster"
fi

"$root/tests/live/cluster.sh" down "$work/cluster"

# ---------------------------------------------------------------------------
# Part 2: dractl serve on a fresh API server, as the user `dractl` with only
# the ClusterRole of deploy/rbac.yaml (the acceptance tests of
# src/kube/README.md §9).
# No kube-controller-manager runs, so dractl creates template claims itself
# (--manage-claims).
"$root/tests/live/cluster.sh" up "$work/cluster2"
admin="$work/cluster2/admin.kubeconfig"
user="$work/cluster2/dractl.kubeconfig"
apply_deploy
k apply -f "$root/tests/live/serve-cluster.yaml" > /dev/null
# Starts `dractl serve --kubeconfig $user FLAGS...` logging to LOG; sets
# serve_pid and metrics_port (from its first log line).
start_serve() {  # LOG FLAGS...
  local log=$1; shift
  "$dractl" serve --kubeconfig "$user" --metrics-address 127.0.0.1:0 --watch-timeout 30 "$@" > /dev/null 2> "$log" &
  serve_pid=$!
  metrics_port=""
  for _ in $(seq 100); do
    # The log may not exist yet: the background process opens it.
    metrics_port=$(sed -n 's/.*readyz on port \([0-9]*\).*/\1/p' "$log" 2>/dev/null || true)
    [ -n "$metrics_port" ] && break
    sleep 0.1
  done
}
stop_serve() { kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true; }
start_serve "$work/serve.log" --manage-claims
trap 'stop_serve; cleanup' EXIT
wait_for() {  # seconds command...: polls until the command succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" > /dev/null 2>&1; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.2
  done
}
ready() { curl -sf "http://127.0.0.1:$metrics_port/readyz" | grep -q ok; }
if wait_for 30 ready; then pass "serve: /readyz once the caches are synced"; else fail "serve: /readyz"; cat "$work/serve.log"; fi

# src/kube/README.md §9.1, template claims: created, allocated, reserved,
# finalizer, bound, events, metrics.
node_of() { k get pod "$1" -o jsonpath='{.spec.nodeName}'; }
bound() { [ -n "$(node_of "$1")" ]; }
k apply -f "$root/tests/live/serve-pods.yaml" > /dev/null
if wait_for 20 bound pod-1 && wait_for 20 bound pod-2; then
  pass "serve §9.1: pods with template claims are bound ($(node_of pod-1), $(node_of pod-2))"
else
  fail "serve §9.1: pods with template claims are bound"; tail -20 "$work/serve.log"
fi
k get resourceclaims -o json > "$work/claims.json"
claims_ok=$(jq -r '[.items[] | select(.metadata.annotations["resource.kubernetes.io/pod-claim-name"] == "gpu")
  | select(.status.allocation != null and (.status.reservedFor | length) == 1
      and (.metadata.finalizers | index("resource.kubernetes.io/delete-protection")) != null
      and .metadata.ownerReferences[0].kind == "Pod" and .metadata.ownerReferences[0].controller == true)
  | .status.reservedFor[0].name] | sort | join(",")' "$work/claims.json")
recorded=$(k get pod pod-1 -o jsonpath='{.status.resourceClaimStatuses[0].name}={.status.resourceClaimStatuses[0].resourceClaimName}')
if [[ "$claims_ok" == pod-1,pod-2* ]] && [[ "$recorded" == gpu=pod-1-gpu-* ]]; then
  pass "serve §9.1: claims owned by their pods, allocated, reserved, with the finalizer; pod status names them"
else
  fail "serve §9.1: claims owned by their pods, allocated, reserved, with the finalizer ($claims_ok; $recorded)"
fi
if k get events --field-selector involvedObject.name=pod-1,reason=Scheduled -o name | grep -q .; then
  pass "serve §9.1: Scheduled event"
else
  fail "serve §9.1: Scheduled event"
fi

# src/kube/README.md §9.2, no free device: PodScheduled=False with the
# kube-scheduler prefix, one FailedScheduling event, then bound once a
# ResourceSlice adds a device.
k apply -f "$root/tests/live/serve-pod-3.yaml" > /dev/null
cond() { k get pod pod-3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}' | grep -q Unschedulable; }
if wait_for 20 cond; then
  msg=$(k get pod pod-3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
  if [[ "$msg" == "0/2 nodes are available: "* ]] && [[ "$msg" == *"cannot allocate all claims"* ]]; then
    pass "serve §9.2: PodScheduled=False: $msg"
  else
    fail "serve §9.2: the message: $msg"
  fi
else
  fail "serve §9.2: PodScheduled=False/Unschedulable"; tail -20 "$work/serve.log"
fi
sleep 2  # later rounds must not repeat the event for an unchanged message
n_events=$(k get events --field-selector involvedObject.name=pod-3,reason=FailedScheduling -o name | wc -l)
if [ "$n_events" -eq 1 ]; then pass "serve §9.2: one FailedScheduling event"; else fail "serve §9.2: $n_events FailedScheduling events"; fi
# Another failure with another message (a taint on node-a) joins that event as
# a series (events.k8s.io/v1, as client-go aggregates): still one Event, count 2.
k taint node node-a live-test=series:NoSchedule > /dev/null
tainted_msg() { k get pod pod-3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' | grep -q taint; }
series_count() {
  k get events.events.k8s.io -o json | jq -r '[.items[] | select(.regarding.name == "pod-3" and .reason == "FailedScheduling")]
    | "\(length) \(.[0].series.count // 1)"'
}
aggregated() { [ "$(series_count)" = "1 2" ]; }
if wait_for 20 tainted_msg && wait_for 10 aggregated; then
  pass "serve: a second FailedScheduling for pod-3 is aggregated: 1 Event, series.count 2"
else
  fail "serve: event aggregation: Events and count '$(series_count)'"; tail -5 "$work/serve.log"
fi
k taint node node-a live-test- > /dev/null
k apply -f "$root/tests/live/serve-slice-more.yaml" > /dev/null
if wait_for 20 bound pod-3; then
  pass "serve §9.2: bound once a ResourceSlice adds a device ($(node_of pod-3))"
else
  fail "serve §9.2: bound once a ResourceSlice adds a device"; tail -20 "$work/serve.log"
fi

# src/kube/README.md §9.3, two pods sharing one claim: one allocation, two
# reservedFor entries, one node.
k apply -f "$root/tests/live/serve-shared.yaml" > /dev/null
if wait_for 20 bound shared-a && wait_for 20 bound shared-b; then
  reserved=$(k get resourceclaim shared -o jsonpath='{range .status.reservedFor[*]}{.name}{" "}{end}')
  if [ "$(node_of shared-a)" = "$(node_of shared-b)" ] && [ "$(echo $reserved | wc -w)" -eq 2 ] &&
     [ "$(k get resourceclaim shared -o json | jq '.status.allocation.devices.results | length')" = 1 ]; then
    pass "serve §9.3: a shared claim: one allocation, reservedFor $reserved, both pods on $(node_of shared-a)"
  else
    fail "serve §9.3: shared claim: reservedFor '$reserved', nodes $(node_of shared-a) $(node_of shared-b)"
  fi
else
  fail "serve §9.3: both pods sharing a claim are bound"; tail -20 "$work/serve.log"
fi

# Extended resources backed by DRA (src/kube/README.md §2.2): every device is
# taken, so the pod waits; a new device gets it the special claim, created by
# dractl as kube-scheduler's PreBind does, and the pod status names it. Then
# the pod, its device and the claim go, so the counts of the stress test
# (src/kube/README.md §9.7) stay as they are.
cat <<EOF | k apply -f - > /dev/null
apiVersion: v1
kind: Pod
metadata: {name: extended, namespace: default}
spec:
  schedulerName: dractl
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {deviceclass.resource.kubernetes.io/gpu.live-test.dractl.dev: "1"}
      limits: {deviceclass.resource.kubernetes.io/gpu.live-test.dractl.dev: "1"}
EOF
extended_waits() {
  k get pod extended -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' |
    grep -q "^0/2 nodes are available: 2 cannot allocate all claims"
}
if wait_for 20 extended_waits && ! bound extended; then
  pass "serve: extended resource backed by DRA, no free device: PodScheduled=False, cannot allocate all claims"
else
  fail "serve: extended resource, no free device: $(k get pod extended -o jsonpath='{.status.conditions}')"
  tail -5 "$work/serve.log"
fi
cat <<EOF | k apply -f - > /dev/null
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-extended}
spec:
  driver: gpu.live-test.dractl.dev
  nodeName: node-a
  pool: {name: node-a-extended, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-x, attributes: {model: {string: H100}}}
EOF
if wait_for 20 bound extended; then
  ext_claim=$(k get pod extended -o jsonpath='{.status.extendedResourceClaimStatus.resourceClaimName}')
  mapping=$(k get pod extended -o jsonpath='{.status.extendedResourceClaimStatus.requestMappings[0].containerName}/{.status.extendedResourceClaimStatus.requestMappings[0].requestName}')
  k get resourceclaim "$ext_claim" -o json > "$work/extended-claim.json" 2>/dev/null || echo '{}' > "$work/extended-claim.json"
  claim_ok=$(jq -r 'select(.metadata.annotations["resource.kubernetes.io/extended-resource-claim"] == "true"
      and .metadata.ownerReferences[0].name == "extended" and .metadata.ownerReferences[0].controller == true
      and .spec.devices.requests[0].name == "container-0-request-0"
      and .status.allocation.devices.results[0].device == "gpu-x"
      and .status.reservedFor[0].name == "extended") | "ok"' "$work/extended-claim.json")
  if [[ "$ext_claim" == extended-extended-resources-* ]] && [ "$mapping" = c/container-0-request-0 ] &&
     [ "$claim_ok" = ok ] && [ "$(node_of extended)" = node-a ]; then
    pass "serve: extended resource backed by DRA: claim $ext_claim created, allocated gpu-x, reserved; pod status names it"
  else
    fail "serve: extended resource claim: '$ext_claim' mapping '$mapping' claim '$claim_ok' node $(node_of extended)"
  fi
  k delete pod extended --grace-period=0 --force > /dev/null 2>&1
  k delete resourceslice node-a-extended > /dev/null
  k patch resourceclaim "$ext_claim" --type=merge -p '{"metadata":{"finalizers":null}}' > /dev/null 2>&1 || true
  k delete resourceclaim "$ext_claim" --wait=false > /dev/null 2>&1 || true
else
  fail "serve: extended resource backed by DRA: bound once a device appears"; tail -20 "$work/serve.log"
fi

# src/kube/README.md §9.5 (the part that needs no race): a claim allocated by
# someone else pins the pod to the allocation's node, and dractl only reserves
# it.
k apply -f "$root/tests/live/serve-preallocated.yaml" > /dev/null
k patch resourceclaim preallocated --subresource=status --type=merge -p '{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.live-test.dractl.dev","pool":"node-b","device":"gpu-3"}]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-b"]}]}]}}}}' > /dev/null
k apply -f "$root/tests/live/serve-preallocated-pod.yaml" > /dev/null
if wait_for 20 bound prealloc-pod && [ "$(node_of prealloc-pod)" = node-b ] &&
   [ "$(k get resourceclaim preallocated -o jsonpath='{.status.reservedFor[0].name}')" = prealloc-pod ]; then
  pass "serve §9.5: a claim allocated elsewhere: the pod goes to its node and reserves it"
else
  fail "serve §9.5: a claim allocated elsewhere"; tail -20 "$work/serve.log"
fi

# src/kube/README.md §9.7, stress: many pods, few devices, no device in two
# claims.
# 60 more devices (64 in all); pod-1..3 and the shared claim hold 4.
python3 - "$work/stress.yaml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for node in ("node-a", "node-b"):
        f.write(f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node}-stress}}
spec:
  driver: gpu.live-test.dractl.dev
  nodeName: {node}
  pool: {{name: {node}-stress, generation: 1, resourceSliceCount: 1}}
  devices:
""")
        for d in range(30):
            f.write(f"  - {{name: gpu-{d}, attributes: {{model: {{string: H100}}}}}}\n")
    for i in range(200):
        f.write(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: stress-{i:03d}, namespace: default}}
spec:
  schedulerName: dractl
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]
  containers: [{{name: c, image: registry.k8s.io/pause:3.10, resources: {{claims: [{{name: gpu}}]}}}}]
""")
PY
k apply -f "$work/stress.yaml" > /dev/null
all_bound_or_reported() {
  k get pods -o json | jq -e '[.items[] | select(.metadata.name | startswith("stress-"))
    | select(.spec.nodeName == null and ([.status.conditions[]? | select(.type=="PodScheduled" and .status=="False")] | length) == 0)]
    | length == 0' > /dev/null
}
if wait_for 120 all_bound_or_reported; then
  k get resourceclaims -o json > "$work/claims.json"
  k get resourceslices -o json > "$work/slices.json"
  devices=$(jq '[.items[] | .spec.driver as $d | .spec.pool.name as $p | .spec.devices[]? | "\($d)/\($p)/\(.name)"]' "$work/slices.json")
  in_use=$(jq '[.items[] | .status.allocation.devices.results[]? | "\(.driver)/\(.pool)/\(.device)"]' "$work/claims.json")
  total=$(echo "$in_use" | jq length)
  distinct=$(echo "$in_use" | jq 'unique | length')
  n_devices=$(echo "$devices" | jq length)
  unused=$(jq -n --argjson d "$devices" --argjson u "$in_use" '$d - $u | length')
  bound_stress=$(k get pods -o json | jq '[.items[] | select((.metadata.name | startswith("stress-")) and .spec.nodeName != null)] | length')
  if [ "$total" -eq "$distinct" ] && [ "$n_devices" -eq 64 ] && [ "$unused" -eq 0 ] && [ "$bound_stress" -eq 60 ]; then
    pass "serve §9.7: 200 pods on 64 devices: 60 stress pods bound, no device in two claims, none left idle"
  else
    fail "serve §9.7: $total allocations, $distinct distinct; $n_devices devices, $unused unused; $bound_stress stress pods bound"
  fi
else
  fail "serve §9.7: every stress pod bound or reported unschedulable within 120 s"; tail -20 "$work/serve.log"
fi

# /metrics: kube-scheduler's names.
curl -sf "http://127.0.0.1:$metrics_port/metrics" > "$work/metrics.txt" || true
scheduled=$(sed -n 's/^scheduler_schedule_attempts_total{profile="dractl",result="scheduled"} \([0-9]*\)$/\1/p' "$work/metrics.txt")
if [ -n "$scheduled" ] && [ "$scheduled" -ge 6 ] && grep -q '^scheduler_pod_scheduling_attempts_bucket{le="+Inf"}' "$work/metrics.txt"; then
  pass "serve: /metrics counts $scheduled scheduled attempts"
else
  fail "serve: /metrics (scheduled=$scheduled)"; head -20 "$work/metrics.txt"
fi
if grep -q ' 403 \|HTTP 403' "$work/serve.log"; then
  fail "serve §9.9: a 403 with only the deploy/rbac.yaml role"; grep 403 "$work/serve.log" | head -5
else
  pass "serve §9.9: no 403 with only the deploy/rbac.yaml role (granular status authorization on)"
fi

# Graceful stop on SIGTERM.
kill -TERM "$serve_pid"
rc=0; wait "$serve_pid" || rc=$?
if [ "$rc" -eq 0 ] && tail -1 "$work/serve.log" | grep -q 'stopped'; then
  pass "serve: SIGTERM stops it cleanly (exit 0)"
else
  fail "serve: SIGTERM stops it cleanly (exit $rc)"; tail -5 "$work/serve.log"
fi

"$root/tests/live/cluster.sh" down "$work/cluster2"

# ---------------------------------------------------------------------------
# Part 2b: PodGroup claims from templates (src/kube/README.md §2.3), on an API
# server and kube-controller-manager with DRAWorkloadResourceClaims on.
# serve-podgroup-claims.yaml in namespace pgc-dractl: `dractl serve
# --manage-claims` creates the group's one claim, records it in the group's
# and both members' status and binds both members on that claim. Then, with
# dractl stopped, the same objects in pgc-kcm go to kube-controller-manager's
# resource-claim controller: its claim and statuses must equal dractl's but
# for the 5 random characters of the name (and the UIDs).
pgc_gates=GenericWorkload=true,DRAWorkloadResourceClaims=true
DRA_APISERVER_FEATURE_GATES=$pgc_gates "$root/tests/live/cluster.sh" up "$work/cluster2b"
admin="$work/cluster2b/admin.kubeconfig"
user="$work/cluster2b/dractl.kubeconfig"
apply_deploy
k apply -f "$root/tests/live/serve-cluster.yaml" > /dev/null
pgc_apply() { sed "s/NAMESPACE/$1/" "$root/tests/live/serve-podgroup-claims.yaml" | k apply -f - > /dev/null; }
pgc_apply pgc-dractl
start_serve "$work/serve2b.log" --manage-claims --feature-gates "$pgc_gates"
pgc_bound() { [ -n "$(k get pod -n pgc-dractl "$1" -o jsonpath='{.spec.nodeName}')" ]; }
pgc_claim() { k get podgroup -n "$1" train -o jsonpath='{.status.resourceClaimStatuses[?(@.name=="gpu")].resourceClaimName}'; }
if wait_for 30 pgc_bound train-0 && wait_for 30 pgc_bound train-1; then
  c=$(pgc_claim pgc-dractl)
  k get resourceclaim -n pgc-dractl "$c" -o json > "$work/pgc-dractl-claim.json"
  group_uid=$(k get podgroup -n pgc-dractl train -o jsonpath='{.metadata.uid}')
  n0=$(k get pod -n pgc-dractl train-0 -o jsonpath='{.spec.nodeName}')
  n1=$(k get pod -n pgc-dractl train-1 -o jsonpath='{.spec.nodeName}')
  if [ "$(k get resourceclaims -n pgc-dractl -o name | wc -l)" -eq 1 ] && [ "$n0" = "$n1" ] &&
     jq -e --arg uid "$group_uid" --arg node "$n0" '
       .metadata.ownerReferences == [{apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", name: "train",
                                      uid: $uid, controller: true}]
       and .status.reservedFor == [{apiGroup: "scheduling.k8s.io", resource: "podgroups", name: "train", uid: $uid}]
       and (.status.allocation.devices.results | length) == 1
       and .status.allocation.devices.results[0].pool == $node' \
       "$work/pgc-dractl-claim.json" > /dev/null &&
     [ "$(k get pod -n pgc-dractl train-0 -o json | jq -c .status.resourceClaimStatuses)" = \
       "[{\"name\":\"gpu\",\"resourceClaimName\":\"$c\"}]" ] &&
     [ "$(k get pod -n pgc-dractl train-1 -o json | jq -c .status.resourceClaimStatuses)" = \
       "[{\"name\":\"gpu\",\"resourceClaimName\":\"$c\"}]" ]; then
    pass "serve --manage-claims, PodGroup claim: one claim ($c) owned by the group, recorded in its and both" \
      "members' status, allocated, reserved for the group; both members bound on $n0"
  else
    fail "serve --manage-claims, PodGroup claim: claim '$c', members on '$n0' '$n1'"
    k get resourceclaims -n pgc-dractl -o yaml | head -60; tail -10 "$work/serve2b.log"
  fi
else
  fail "serve --manage-claims, PodGroup claim: both members bound"; tail -20 "$work/serve2b.log"
fi
# A restart finds the claim recorded and owned by the group: nothing new.
stop_serve
start_serve "$work/serve2b-again.log" --manage-claims --feature-gates "$pgc_gates"
if wait_for 30 ready && sleep 2 && [ "$(k get resourceclaims -n pgc-dractl -o name | wc -l)" -eq 1 ] &&
   ! grep -q 'pod group pgc-dractl/train: \(created\|recorded\)' "$work/serve2b-again.log"; then
  pass "serve --manage-claims, PodGroup claim: after a restart the recorded claim is kept, nothing created or written"
else
  fail "serve --manage-claims, PodGroup claim: restart"; tail -10 "$work/serve2b-again.log"
fi
stop_serve
DRA_APISERVER_FEATURE_GATES=$pgc_gates "$root/tests/live/cluster.sh" start-kcm "$work/cluster2b"
pgc_apply pgc-kcm
kcm_recorded() {
  local c; c=$(pgc_claim pgc-kcm)
  [ -n "$c" ] && [ "$(k get pod -n pgc-kcm train-0 -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}')" = "$c" ] &&
    [ "$(k get pod -n pgc-kcm train-1 -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}')" = "$c" ]
}
# What each wrote, the claim's name and the UIDs written as placeholders.
pgc_written() {  # NAMESPACE
  local c uid
  c=$(pgc_claim "$1"); uid=$(k get podgroup -n "$1" train -o jsonpath='{.metadata.uid}')
  k get resourceclaim -n "$1" "$c" -o json | jq -S --arg c "$c" --arg uid "$uid" '{
      name: (if ($c | test("^train-gpu-[bcdfghjklmnpqrstvwxz2456789]{5}$")) then "train-gpu-XXXXX" else $c end),
      generateName: .metadata.generateName, labels: .metadata.labels, annotations: .metadata.annotations,
      ownerReferences: (.metadata.ownerReferences | map(if .uid == $uid then .uid = "GROUP-UID" else . end)),
      spec: .spec}'
  for o in podgroup/train pod/train-0 pod/train-1; do
    k get -n "$1" "$o" -o json | jq -c --arg c "$c" '{(.metadata.name): (.status.resourceClaimStatuses
      | map(if .resourceClaimName == $c then .resourceClaimName = "CLAIM" else . end))}'
  done
}
if wait_for 30 kcm_recorded; then
  pgc_written pgc-dractl > "$work/pgc-dractl.written"
  pgc_written pgc-kcm > "$work/pgc-kcm.written"
  if cmp -s "$work/pgc-dractl.written" "$work/pgc-kcm.written" && grep -q '"train-gpu-XXXXX"' "$work/pgc-kcm.written" &&
     [ "$(k get resourceclaims -n pgc-kcm -o name | wc -l)" -eq 1 ]; then
    pass "serve --manage-claims, PodGroup claim: as kube-controller-manager's resource-claim controller: the claim" \
      "($(pgc_claim pgc-dractl) / $(pgc_claim pgc-kcm): spec, owner, labels, annotations, generateName) and the" \
      "group's and members' resourceClaimStatuses"
  else
    fail "serve --manage-claims, PodGroup claim: as kube-controller-manager (dractl < > kcm)"
    diff "$work/pgc-dractl.written" "$work/pgc-kcm.written" | head -40
  fi
else
  fail "serve --manage-claims, PodGroup claim: kube-controller-manager records its claim"
  tail -10 "$work/cluster2b/kube-controller-manager.log"
fi
"$root/tests/live/cluster.sh" down "$work/cluster2b"

# ---------------------------------------------------------------------------
# Part 3: races (src/kube/README.md §9.4-9.6) and an API server restart
# (src/kube/README.md §9.8). dractl waits 2 s between planning a pod and
# writing (--debug-write-delay, announced in its log); the test writes to the
# API server in that window.
"$root/tests/live/cluster.sh" up "$work/cluster3"
admin="$work/cluster3/admin.kubeconfig"
user="$work/cluster3/dractl.kubeconfig"
api="https://127.0.0.1:$(cat "$work/cluster3/port")"
apply_deploy
k apply -f "$root/tests/live/serve-cluster.yaml" -f "$root/tests/live/serve-slice-more.yaml" > /dev/null
start_serve "$work/serve3.log" --manage-claims --debug-write-delay 2000
wait_for 30 ready || { fail "serve (part 3): /readyz"; cat "$work/serve3.log"; }
planned() { grep -q "planned default/$1 on" "$work/serve3.log"; }
planned_node() { sed -n "s/.*planned default\/$1 on \([^;]*\);.*/\1/p" "$work/serve3.log" | tail -1; }
claim_of() { k get pod "$1" -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}'; }
pod_yaml() {  # name claim-source
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default}
spec:
  schedulerName: dractl
  resourceClaims: [{name: gpu, $2}]
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {claims: [{name: gpu}]}}]
EOF
}

# src/kube/README.md §9.4, a concurrent writer: a label added between dractl's
# read and its write makes the write conflict (409); dractl reads again, keeps
# the label, succeeds.
pod_yaml race-1 "resourceClaimTemplateName: one-gpu" | k apply -f - > /dev/null
if wait_for 20 planned race-1; then
  k label resourceclaim "$(claim_of race-1)" touched-by=test > /dev/null
fi
if wait_for 20 bound race-1; then
  c=$(claim_of race-1)
  label=$(k get resourceclaim "$c" -o jsonpath='{.metadata.labels.touched-by}')
  reserved=$(k get resourceclaim "$c" -o jsonpath='{.status.reservedFor[0].name}')
  conflicts=$(curl -sf "http://127.0.0.1:$metrics_port/metrics" | sed -n 's/^dractl_api_conflicts_total \([0-9]*\)$/\1/p')
  if [ "$label" = test ] && [ "$reserved" = race-1 ] && [ "${conflicts:-0}" -ge 1 ]; then
    pass "serve §9.4: a write between dractl's read and write: 409, retried ($conflicts conflicts), the label kept"
  else
    fail "serve §9.4: label '$label', reservedFor '$reserved', conflicts '$conflicts'"
  fi
else
  fail "serve §9.4: race-1 bound"; tail -20 "$work/serve3.log"
fi

# src/kube/README.md §9.5, a claim allocated behind dractl's back after it
# planned: it aborts ("allocated elsewhere"), plans again and follows the
# allocation to node-b.
cat <<EOF | k apply -f - > /dev/null
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: race-claim, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.live-test.dractl.dev}
EOF
pod_yaml race-2 "resourceClaimName: race-claim" | k apply -f - > /dev/null
if wait_for 20 planned race-2; then
  k patch resourceclaim race-claim --subresource=status --type=merge -p '{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.live-test.dractl.dev","pool":"node-b","device":"gpu-9"}]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-b"]}]}]}}}}' > /dev/null
fi
if wait_for 20 bound race-2 && [ "$(node_of race-2)" = node-b ] &&
   [ "$(k get resourceclaim race-claim -o jsonpath='{.status.allocation.devices.results[0].device}/{.status.reservedFor[0].name}')" = gpu-9/race-2 ] &&
   grep -q "race-2: claim default/race-claim: allocated elsewhere in the meantime" "$work/serve3.log"; then
  pass "serve §9.5: allocated elsewhere while dractl was writing: aborted, then bound to the allocation's node"
else
  fail "serve §9.5: allocated elsewhere while dractl was writing"; tail -20 "$work/serve3.log"
fi

# src/kube/README.md §9.6, the binding refused: the test binds the pod first;
# dractl's claim write has landed, its binding gets 409, it removes only this
# pod from reservedFor and keeps the allocation.
pod_yaml race-3 "resourceClaimTemplateName: one-gpu" | k apply -f - > /dev/null
if wait_for 20 planned race-3; then
  target=$(planned_node race-3)
  uid=$(k get pod race-3 -o jsonpath='{.metadata.uid}')
  curl -sf --cacert "$work/cluster3/ca.crt" --cert "$work/cluster3/admin.crt" --key "$work/cluster3/admin.key" \
    -H 'Content-Type: application/json' -X POST "$api/api/v1/namespaces/default/pods/race-3/binding" \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"race-3\",\"uid\":\"$uid\"},\"target\":{\"kind\":\"Node\",\"name\":\"$target\"}}" > /dev/null
fi
unreserved() { grep -q "pod default/race-3: binding to .*unreserving" "$work/serve3.log"; }
if wait_for 20 unreserved; then
  sleep 1
  c=$(claim_of race-3)
  state=$(k get resourceclaim "$c" -o json | jq -r '"\(.status.allocation != null)/\(.status.reservedFor // [] | length)"')
  if [ "$state" = true/0 ] && [ "$(node_of race-3)" = "$target" ]; then
    pass "serve §9.6: binding refused (bound by someone else): unreserved, allocation kept"
  else
    fail "serve §9.6: claim allocated/reserved: $state, node $(node_of race-3)"
  fi
else
  fail "serve §9.6: binding refused"; tail -20 "$work/serve3.log"
fi

# src/kube/README.md §9.8, the API server restarts: the reflectors reconnect
# (re-watching or re-listing), and scheduling goes on with nothing lost or
# invented.
"$root/tests/live/cluster.sh" restart-apiserver "$work/cluster3"
pod_yaml after-restart "resourceClaimTemplateName: one-gpu" | k apply -f - > /dev/null
if wait_for 60 bound after-restart; then
  k get resourceclaims -o json > "$work/claims.json"
  dup=$(jq '[.items[] | .status.allocation.devices.results[]? | "\(.driver)/\(.pool)/\(.device)"] | (length - (unique | length))' "$work/claims.json")
  if [ "$dup" -eq 0 ] && grep -q "retrying in\|re-listing" "$work/serve3.log"; then
    pass "serve §9.8: API server restarted: reconnected, after-restart bound on $(node_of after-restart), no device twice"
  else
    fail "serve §9.8: $dup devices in two claims"; tail -20 "$work/serve3.log"
  fi
else
  fail "serve §9.8: a pod created after the API server restarted is bound"; tail -20 "$work/serve3.log"
fi
stop_serve

# src/kube/README.md §9.10, leader election: two replicas, one Lease; only the
# leader binds; kill it (SIGKILL: no release) and the other takes over within
# the lease duration.
cat <<EOF | k apply -f - > /dev/null
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-le}
spec:
  driver: gpu.live-test.dractl.dev
  nodeName: node-a
  pool: {name: node-a-le, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {model: {string: H100}}}
  - {name: gpu-1, attributes: {model: {string: H100}}}
EOF
le=(--kubeconfig "$user" --manage-claims --metrics-address "" --leader-elect-lease-duration 4
    --leader-elect-renew-deadline 3 --leader-elect-retry-period 0.5)
"$dractl" serve "${le[@]}" > /dev/null 2> "$work/replica-a.log" &
replica_a=$!
leading() { grep -q "leader election: leading as" "$1"; }
wait_for 20 leading "$work/replica-a.log" || fail "serve §9.10: replica a leads"
"$dractl" serve "${le[@]}" > /dev/null 2> "$work/replica-b.log" &
replica_b=$!
trap 'kill $replica_a $replica_b 2>/dev/null || true; cleanup' EXIT
pod_yaml le-1 "resourceClaimTemplateName: one-gpu" | k apply -f - > /dev/null
if wait_for 20 bound le-1 && grep -q "bound default/le-1" "$work/replica-a.log" && ! leading "$work/replica-b.log" &&
   ! grep -q "bound default/le-1" "$work/replica-b.log"; then
  pass "serve §9.10: of two replicas only the leader schedules"
else
  fail "serve §9.10: of two replicas only the leader schedules"; tail -n 5 "$work/replica-a.log" "$work/replica-b.log"
fi
kill -KILL "$replica_a"; wait "$replica_a" 2>/dev/null || true
killed_at=$SECONDS
if wait_for 20 leading "$work/replica-b.log"; then
  took=$((SECONDS - killed_at))
  pod_yaml le-2 "resourceClaimTemplateName: one-gpu" | k apply -f - > /dev/null
  synced_line=$(grep -n "caches synced" "$work/replica-b.log" | head -1 | cut -d: -f1)
  leading_line=$(grep -n "leading as" "$work/replica-b.log" | head -1 | cut -d: -f1)
  if wait_for 20 bound le-2 && grep -q "bound default/le-2" "$work/replica-b.log" && [ "$took" -le 15 ] &&
     [ -n "$synced_line" ] && [ "$synced_line" -lt "$leading_line" ]; then
    pass "serve §9.10: the leader killed, the other replica (caches already warm) took over in ${took} s and schedules"
  else
    fail "serve §9.10: takeover in ${took} s"; tail -5 "$work/replica-b.log"
  fi
else
  fail "serve §9.10: the other replica takes over"; tail -5 "$work/replica-b.log"
fi
kill -TERM "$replica_b"; wait "$replica_b" || true
if grep -q "leader election: released the lease" "$work/replica-b.log"; then
  pass "serve §9.10: a clean stop releases the lease"
else
  fail "serve §9.10: a clean stop releases the lease"; tail -3 "$work/replica-b.log"
fi

# src/kube/README.md §9.8, forced compaction: the API server restarted
# without its watch cache and compacting etcd every 2 s, so a watch is served
# by etcd and one resumed from a compacted revision gets 410 Gone. The
# reflector's watches end after 1 s (timeoutSeconds) and resume from the
# list's revision while ConfigMaps move etcd on; once that revision is
# compacted, the reflector must re-list (expired=1) and then still see what
# happens.
"$root/tests/live/cluster.sh" restart-apiserver "$work/cluster3" --watch-cache=false --etcd-compaction-interval=2s
# The probe runs until told to stop (at most 90 s): on a busy machine the steps
# below take longer than the 14 s they take on an idle one.
"$probe" "$user" /apis/resource.k8s.io/v1/resourceslices 90 1 > "$work/probe-410.out" 2> "$work/probe-410.err" &
probe_pid=$!
for i in $(seq 1 10); do
  k create configmap "compaction-$i" --from-literal=i="$i" > /dev/null
  sleep 1
done
cat <<EOF | k apply -f - > /dev/null
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: after-compaction}
spec:
  driver: gpu.live-test.dractl.dev
  nodeName: node-a
  pool: {name: after-compaction, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0}
EOF
# The new slice comes as a watch event, or (when its watch expired right then)
# in a re-list that holds one object more than the first list.
seen_after_compaction() {
  grep -q '^ADDED ResourceSlice after-compaction$' "$work/probe-410.out" ||
    awk '/^replace / { if (first == "") first = $2; else if ($2 > first) found = 1 } END { exit !found }' \
      "$work/probe-410.out"
}
wait_for 30 seen_after_compaction || true
kill -TERM "$probe_pid" 2>/dev/null || true
wait "$probe_pid" || true
if grep -Eq '^stats lists=([2-9]|[1-9][0-9]+) watches=[0-9]+ expired=([1-9][0-9]*) errors=0$' "$work/probe-410.out" &&
   grep -q "resource version expired" "$work/probe-410.err" &&
   [ "$(grep -c '^replace ' "$work/probe-410.out")" -ge 2 ] && seen_after_compaction; then
  pass "reflector §9.8: a watch resumed from a compacted revision gets 410; re-listed, then sees new objects ($(grep '^stats' "$work/probe-410.out"))"
else
  fail "reflector §9.8: 410 after compaction"; cat "$work/probe-410.out"; tail -5 "$work/probe-410.err"
fi

"$root/tests/live/cluster.sh" down "$work/cluster3"

# ---------------------------------------------------------------------------
# Part 4: with a real kube-controller-manager (resource-claim controller and
# garbage collector), dractl serve without --manage-claims (src/kube/README.md
# §9.1 with the real controller, and devices freed when a pod goes away).
"$root/tests/live/cluster.sh" up "$work/cluster4"
"$root/tests/live/cluster.sh" start-kcm "$work/cluster4"
admin="$work/cluster4/admin.kubeconfig"
user="$work/cluster4/dractl.kubeconfig"
apply_deploy
k apply -f "$root/tests/live/serve-cluster.yaml" > /dev/null
start_serve "$work/serve4.log"
trap 'stop_serve; cleanup' EXIT
for p in kcm-1 kcm-2 kcm-3; do pod_yaml "$p" "resourceClaimTemplateName: one-gpu" | k apply -f - > /dev/null; done
if wait_for 30 bound kcm-1 && wait_for 30 bound kcm-2; then
  c=$(claim_of kcm-1)
  manager=$(k get resourceclaim "$c" -o jsonpath='{.metadata.managedFields[*].manager}' --show-managed-fields)
  state=$(k get resourceclaim "$c" -o jsonpath='{.metadata.annotations.resource\.kubernetes\.io/pod-claim-name}/{.status.reservedFor[0].name}/{.metadata.finalizers[0]}')
  if [[ " $manager" == *" kube-controller-manager"* ]] && [ "$state" = gpu/kcm-1/resource.kubernetes.io/delete-protection ]; then
    pass "serve §9.1 with kube-controller-manager: its claim ($c) allocated, reserved, finalizer, pod bound"
  else
    fail "serve §9.1 with kube-controller-manager: manager '$manager', state '$state'"
  fi
else
  fail "serve §9.1 with kube-controller-manager: kcm-1 and kcm-2 bound"; tail -20 "$work/serve4.log"
fi
cond3() { k get pod kcm-3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}' | grep -q Unschedulable; }
wait_for 20 cond3 || fail "serve: kcm-3 reported unschedulable"
k delete pod kcm-1 --grace-period=0 --force > /dev/null 2>&1
if wait_for 60 bound kcm-3; then
  pass "serve: kcm-1 deleted; the controllers free its claim and kcm-3 gets the device ($(node_of kcm-3))"
else
  fail "serve: kcm-3 bound after kcm-1 is deleted"; tail -20 "$work/serve4.log"; tail -5 "$work/cluster4/kube-controller-manager.log"
fi

# Binding conditions (src/kube/README.md §3.4): claims written,
# allocationTimestamp set, event BindingConditionsPending, no Binding until the
# device's status says Attached=True; AttachFailed=True takes the allocation
# back instead.
k apply -f "$root/tests/live/serve-binding.yaml" > /dev/null
waiting() {  # pod claim: allocated with a timestamp, reserved, pod not bound, event posted
  [ "$(k get resourceclaim "$2" -o jsonpath='{.status.reservedFor[0].name}')" = "$1" ] &&
  [ -n "$(k get resourceclaim "$2" -o jsonpath='{.status.allocation.allocationTimestamp}')" ] &&
  ! bound "$1" &&
  k get events.events.k8s.io -o json | jq -e --arg p "$1" \
    '[.items[] | select(.regarding.name == $p and .reason == "BindingConditionsPending")] | length == 1' > /dev/null
}
device_condition() {  # claim type: sets the condition True on the claim's device
  local d p v
  d=$(k get resourceclaim "$1" -o jsonpath='{.status.allocation.devices.results[0].driver}')
  p=$(k get resourceclaim "$1" -o jsonpath='{.status.allocation.devices.results[0].pool}')
  v=$(k get resourceclaim "$1" -o jsonpath='{.status.allocation.devices.results[0].device}')
  k patch resourceclaim "$1" --subresource=status --type=merge -p "{\"status\":{\"devices\":[{\"driver\":\"$d\",
    \"pool\":\"$p\",\"device\":\"$v\",\"conditions\":[{\"type\":\"$2\",\"status\":\"True\",\"reason\":\"LiveTest\",
    \"message\":\"set by run.sh\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}]}}" > /dev/null
}
shares() {  # pod claim: the pod waits on the claim another pod allocated
  k get resourceclaim "$2" -o jsonpath='{.status.reservedFor[*].name}' | grep -qw "$1" && ! bound "$1" &&
  grep -q "pod default/$1: claims written for .*waiting for binding conditions" "$work/serve4.log"
}
if wait_for 30 waiting bc-1 bc-claim-1 && wait_for 10 waiting bc-2 bc-claim-2 && wait_for 10 shares bc-3 bc-claim-2 &&
   sleep 2 && ! bound bc-1; then
  pass "serve binding conditions: claims allocated and reserved (bc-claim-2 for bc-2 and bc-3)," \
    "BindingConditionsPending, pods not bound"
else
  fail "serve binding conditions: waiting state"; tail -10 "$work/serve4.log"
fi
device_condition bc-claim-1 Attached
if wait_for 20 bound bc-1; then
  pass "serve binding conditions: Attached=True, then bc-1 bound ($(node_of bc-1))"
else
  fail "serve binding conditions: bc-1 bound after Attached=True"; tail -10 "$work/serve4.log"
fi
device_condition bc-claim-2 AttachFailed
bc2_failed() {
  k get pod bc-2 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' |
    grep -q 'claim default/bc-claim-2 binding failed: reason=LiveTest, message="set by run.sh"'
}
bc3_failed() {
  k get pod bc-3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' |
    grep -q 'claim default/bc-claim-2 binding failed: reason=LiveTest'
}
# The shared claim: the first pod to fail leaves reservedFor, the second takes
# the allocation back.
if wait_for 20 bc2_failed && wait_for 10 bc3_failed && ! bound bc-2 && ! bound bc-3 &&
   grep -q 'claim default/bc-claim-2: pod default/bc-[23] no longer reserves it' "$work/serve4.log" &&
   grep -q 'deallocated claim default/bc-claim-2' "$work/serve4.log"; then
  pass "serve binding conditions: AttachFailed=True: bc-2 and bc-3 not bound, each leaves the shared claim," \
    "the last deallocates it, the reason on both pods"
else
  fail "serve binding conditions: AttachFailed"; tail -10 "$work/serve4.log"
fi
# bc-2 waits again on a fresh allocation; a replica with --binding-timeout 3
# gives up on it from the claim's allocationTimestamp, takes the allocation
# back (it was another replica's) and tries again.
stop_serve
start_serve "$work/serve4b.log" --binding-timeout 3
bc2_timeout() {
  k get pod bc-2 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' | grep -q 'binding timeout'
}
bc2_reallocated() {  # the stale allocation is taken back and bc-2 gets a fresh one
  grep -q 'deallocated claim default/bc-claim-2' "$work/serve4b.log" &&
    [ "$(grep -c 'pod default/bc-2: claims written for .*waiting for binding conditions' "$work/serve4b.log")" -ge 2 ]
}
if wait_for 40 bc2_timeout && wait_for 30 bc2_reallocated && ! bound bc-2; then
  pass "serve binding conditions: --binding-timeout 3: $(k get pod bc-2 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')"
else
  fail "serve binding conditions: timeout"; tail -10 "$work/serve4b.log"
fi
# Pod groups (src/kube/README.md §2.3): a member of a PodGroup serve has not
# seen is left alone, with kube-scheduler's GangScheduling PreEnqueue reason
# on the pod and in a FailedScheduling event; it is never bound on its own.
k apply -f "$root/tests/live/serve-podgroup.yaml" > /dev/null
gang_reported() {
  k get pod gang-0 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' |
    grep -q 'waiting for pods.s pod group "train-job" to appear in scheduling queue' &&
  k get events.events.k8s.io -o json | jq -e \
    '[.items[] | select(.regarding.name == "gang-0" and .reason == "FailedScheduling")] | length == 1' > /dev/null
}
if [ "$(k get pod gang-0 -o jsonpath='{.spec.schedulingGroup.podGroupName}')" = train-job ] &&
   wait_for 20 gang_reported && sleep 2 && ! bound gang-0; then
  pass "serve pod groups: a member of an unseen pod group train-job is left alone, the reason on the pod and in an event"
else
  fail "serve pod groups: gang-0 reported"; tail -10 "$work/serve4b.log"
fi
# Issue #23 item 6: packing in serve. The same sequence of pods under
# --policy kube and --policy dra-pack, each instance with its own scheduler
# name and 4 nodes of 8 GPUs (serve-packing.yaml): eight 1-GPU pods, then,
# once they are bound, three 8-GPU pods. kube-scheduler's scoring spreads the
# small pods two per node, so no node has 8 GPUs left (8 bound); dra-pack,
# measuring against the workload's profile, keeps whole nodes (11 bound).
k apply -f "$root/tests/live/serve-packing.yaml" > /dev/null
"$dractl" serve --kubeconfig "$user" --metrics-address "" --no-leader-elect --watch-timeout 30 \
  --scheduler-name dractl-kube --policy kube > /dev/null 2> "$work/serve-pack-kube.log" &
pack_kube_pid=$!
"$dractl" serve --kubeconfig "$user" --metrics-address "" --no-leader-elect --watch-timeout 30 \
  --scheduler-name dractl-pack --policy dra-pack --workload-profile "$root/tests/live/serve-packing-profile.yaml" \
  > /dev/null 2> "$work/serve-pack-dra.log" &
pack_dra_pid=$!
# Issue #28: a gang of four (serve-gang.yaml), --gang upstream against
# --gang search, each with its own scheduler name and node; they run while
# the packing pods are placed.
gang_pids=""
for mode in upstream search; do
  "$dractl" serve --kubeconfig "$user" --metrics-address "" --no-leader-elect --watch-timeout 30 \
    --scheduler-name "dractl-gang-${mode/upstream/up}" --gang "$mode" > /dev/null 2> "$work/serve-gang-$mode.log" &
  gang_pids="$gang_pids $!"
done
k apply -f "$root/tests/live/serve-gang.yaml" > /dev/null
pack_pods() {  # SIZE TEMPLATE CPU COUNT: pods SIZE-{kube,dra}-0.. for both schedulers
  local set
  for set in kube:dractl-kube dra:dractl-pack; do
    for i in $(seq 0 $(($4 - 1))); do
      printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s-%d, namespace: default}\nspec:\n' \
        "$1" "${set%%:*}" "$i"
      printf '  schedulerName: %s\n  nodeSelector: {pack-set: %s}\n' "${set#*:}" "${set%%:*}"
      printf '  resourceClaims: [{name: gpu, resourceClaimTemplateName: %s}]\n' "$2"
      printf '  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "%s"}, claims: [{name: gpu}]}}]\n' "$3"
    done
  done
}
bound_count() {  # PREFIX: pods bound whose name starts with it
  k get pods -o json | jq --arg p "$1" '[.items[] | select((.metadata.name | startswith($p)) and .spec.nodeName != null)] | length'
}
unschedulable_count() {  # PREFIX
  k get pods -o json | jq --arg p "$1" '[.items[] | select(.metadata.name | startswith($p)) | .status.conditions[]?
    | select(.type == "PodScheduled" and .status == "False" and .reason == "Unschedulable")] | length'
}
smalls_bound() { [ "$(bound_count small-)" -eq 16 ]; }
larges_decided() { [ "$(bound_count large-dra-)" -eq 3 ] && [ "$(unschedulable_count large-kube-)" -eq 3 ]; }
pack_pods small pack-one-gpu 4 8 | k apply -f - > /dev/null
if wait_for 90 smalls_bound; then
  pack_pods large pack-eight-gpus 32 3 | k apply -f - > /dev/null
  wait_for 60 larges_decided || true
fi
kube_bound=$(( $(bound_count small-kube-) + $(bound_count large-kube-) ))
dra_bound=$(( $(bound_count small-dra-) + $(bound_count large-dra-) ))
kube_nodes=$(k get pods -o json | jq -r '[.items[] | select(.metadata.name | startswith("small-kube-")) | .spec.nodeName] | unique | length')
dra_nodes=$(k get pods -o json | jq -r '[.items[] | select(.metadata.name | startswith("small-dra-")) | .spec.nodeName] | unique | length')
if [ "$kube_bound" -eq 8 ] && [ "$dra_bound" -eq 11 ] && [ "$kube_nodes" -eq 4 ] && [ "$dra_nodes" -eq 1 ] &&
   grep -q "seeded with --workload-profile" "$work/serve-pack-dra.log"; then
  pass "serve --policy dra-pack binds all 11 pods (small pods on 1 node); --policy kube binds 8 (small pods on 4 nodes)"
else
  fail "serve packing: kube bound $kube_bound (small pods on $kube_nodes nodes), dra-pack bound $dra_bound (on $dra_nodes)"
  tail -n 5 "$work/serve-pack-kube.log" "$work/serve-pack-dra.log"
fi
kill "$pack_kube_pid" "$pack_dra_pid" 2>/dev/null || true
wait "$pack_kube_pid" "$pack_dra_pid" 2>/dev/null || true
group_condition() {  # GROUP: status reason message of PodGroupInitiallyScheduled
  k get podgroup "$1" -o jsonpath='{.status.conditions[?(@.type=="PodGroupInitiallyScheduled")].status} {.status.conditions[?(@.type=="PodGroupInitiallyScheduled")].reason} {.status.conditions[?(@.type=="PodGroupInitiallyScheduled")].message}'
}
# quad-up's condition is kube-scheduler 1.37.2's text (tools/oracle `schedule` on
# the same group, node and templates: the status, then PodGroupPostFilter's).
gang_decided() {
  [ "$(bound_count quad-search-)" -eq 4 ] && [ "$(unschedulable_count quad-up-)" -eq 4 ] &&
    group_condition quad-up | grep -q '^False Unschedulable minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor$' &&
    group_condition quad-search | grep -q '^True Scheduled'
}
if wait_for 60 gang_decided && sleep 2 && [ "$(bound_count quad-up-)" -eq 0 ] &&
   [ "$(k get pod quad-search-0 -o json | jq -r '.spec.nodeName')" = gang-search ] &&
   k get resourceclaims -o json | jq -e '[.items[] | select((.metadata.ownerReferences[0].name // "") | startswith("quad-search-"))
     | .status.allocation.devices.results[0].device] | sort == ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]' > /dev/null; then
  pass "serve pod groups: --gang search binds all four members of quad-search (pods 0 and 1 on the Y GPUs);" \
    "--gang upstream binds none of quad-up: $(group_condition quad-up)"
else
  fail "serve pod groups: quad-search bound $(bound_count quad-search-), quad-up bound $(bound_count quad-up-)" \
    "($(group_condition quad-up) / $(group_condition quad-search))"
  tail -n 5 "$work/serve-gang-upstream.log" "$work/serve-gang-search.log"
fi
# shellcheck disable=SC2086
kill $gang_pids 2>/dev/null || true
# shellcheck disable=SC2086
wait $gang_pids 2>/dev/null || true
# Issue #30 item 4: a NoExecute DeviceTaintRule on the device of a pod dractl
# placed. kube-controller-manager's device-taint eviction controller deletes
# the pod (DisruptionTarget, DeletionByDeviceTaintManager); the ReplicaSet's
# new pod is placed by dractl on the other node. Then `dractl simulate
# cluster` on the same nodes, the same pod and the same fault predicts the
# same: one eviction, the pod running again on that other node.
k apply -f "$root/tests/live/serve-taint.yaml" -f "$root/tests/live/serve-taint-rs.yaml" > /dev/null
"$dractl" serve --kubeconfig "$user" --metrics-address "" --no-leader-elect --watch-timeout 30 \
  --scheduler-name dractl-taint > /dev/null 2> "$work/serve-taint.log" &
taint_pid=$!
rs_pod() {  # the bound pod of taint-rs that is not being deleted
  k get pods -l app=taint-rs -o json |
    jq -r '[.items[] | select(.spec.nodeName != null and .metadata.deletionTimestamp == null)][0].metadata.name // empty'
}
first_bound() { [ -n "$(rs_pod)" ]; }
if wait_for 30 first_bound; then
  p1=$(rs_pod)
  n1=$(node_of "$p1")
  c1=$(claim_of "$p1")
  d1=$(k get resourceclaim "$c1" -o jsonpath='{.status.allocation.devices.results[0].driver}/{.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}')
  t0=$(k get pod "$p1" -o jsonpath='{.metadata.creationTimestamp}')
  uid=$(k get replicaset taint-rs -o jsonpath='{.metadata.uid}')
  printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: live-xid}\nspec:\n  deviceSelector: {driver: %s, pool: %s, device: %s}\n  taint: {key: live-test.dractl.dev/xid, value: "79", effect: NoExecute}\n' \
    "${d1%%/*}" "$(echo "$d1" | cut -d/ -f2)" "${d1##*/}" | k apply -f - > /dev/null
  evicted() {
    [ "$(k get pod "$p1" -o jsonpath='{.status.conditions[?(@.type=="DisruptionTarget")].reason}' 2>/dev/null)" = \
      DeletionByDeviceTaintManager ] || ! k get pod "$p1" > /dev/null 2>&1
  }
  replaced() { local p; p=$(rs_pod); [ -n "$p" ] && [ "$p" != "$p1" ]; }
  if wait_for 60 evicted && wait_for 60 replaced; then
    p2=$(rs_pod)
    n2=$(node_of "$p2")
    # The same in the simulator: the pod as it arrived, the fault a minute later.
    fault_at=$(date -u -d "$t0 + 60 seconds" +%Y-%m-%dT%H:%M:%SZ)
    printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: default\n  creationTimestamp: "%s"\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: taint-rs, uid: %s, controller: true}]\nspec:\n  nodeSelector: {taint-set: "yes"}\n  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {claims: [{name: gpu}]}}]\n' \
      "$p1" "$t0" "$uid" > "$work/sim-taint-pod.yaml"
    printf 'apiVersion: dractl.io/v1alpha1\nkind: Faults\nfaults:\n- at: "%s"\n  device: {driver: %s, pool: %s, device: %s}\n  taint: {key: live-test.dractl.dev/xid, value: "79", effect: NoExecute}\n' \
      "$fault_at" "${d1%%/*}" "$(echo "$d1" | cut -d/ -f2)" "${d1##*/}" > "$work/sim-taint-fault.yaml"
    "$dractl" simulate cluster -f "$root/tests/live/serve-cluster.yaml" -f "$root/tests/live/serve-taint.yaml" \
      --workload "$work/sim-taint-pod.yaml" --faults "$work/sim-taint-fault.yaml" -o json > "$work/sim-taint.json" 2>&1 || true
    sim=$(jq -r '"\(.summary.evictions) \(.summary.restarts) \(.pods[0].node)"' "$work/sim-taint.json" 2>/dev/null || true)
    if [ "$n2" != "$n1" ] && [ "$sim" = "1 1 $n2" ]; then
      pass "device taints: NoExecute on $p1's device ($d1 on $n1): kube-controller-manager evicts it, dractl" \
        "places the ReplicaSet's new pod on $n2; simulate cluster predicts the same (1 eviction, running again on $n2)"
    else
      fail "device taints: live $p1 on $n1, replacement $p2 on $n2; simulate: '$sim'"; head -c 600 "$work/sim-taint.json"
    fi
  else
    fail "device taints: $p1 evicted by kube-controller-manager and replaced"; tail -5 "$work/cluster4/kube-controller-manager.log"
    tail -5 "$work/serve-taint.log"
  fi
else
  fail "device taints: the ReplicaSet's pod bound by dractl"; tail -5 "$work/serve-taint.log"
fi
kill "$taint_pid" 2>/dev/null || true
wait "$taint_pid" 2>/dev/null || true
stop_serve
"$root/tests/live/cluster.sh" down "$work/cluster4"

# ---------------------------------------------------------------------------
# Part 5: dractl prints every object of examples/ and testdata/fixtures/ as
# kubectl prints it, read from the files and from the API server
# (tests/live/printing.sh), on a fresh API server.
printing_gates=GenericWorkload=true,DRAListTypeAttributes=true
DRA_APISERVER_FEATURE_GATES=$printing_gates "$root/tests/live/cluster.sh" up "$work/cluster5"
admin="$work/cluster5/admin.kubeconfig"
# shellcheck source=tests/live/printing.sh
. "$root/tests/live/printing.sh"
"$root/tests/live/cluster.sh" down "$work/cluster5"

# A sanitizer build of dractl (scripts/test runs this again with build/asan)
# reports into the logs of the processes the checks above do not wait for.
if grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|WARNING: ThreadSanitizer" \
     "$work"/*.log "$work"/*.err > /dev/null 2>&1; then
  fail "no sanitizer report in any dractl log"
  grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|WARNING: ThreadSanitizer" "$work"/*.log "$work"/*.err
else
  pass "no sanitizer report in any dractl log"
fi

echo "live tests: $failures failed"
if [ "$failures" -ne 0 ]; then exit 1; fi
