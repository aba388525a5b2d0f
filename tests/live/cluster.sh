#!/usr/bin/env bash
# A real etcd + kube-apiserver (v1.37.2, built by scripts/k8s-bins) on loopback,
# for the live tests (tests/live/README.md §2: certificates, flags and why).
#
#   tests/live/cluster.sh up DIR     start; DIR gets the certificates, logs, data,
#                                    admin.kubeconfig (system:masters) and
#                                    dractl.kubeconfig (user dractl, no groups)
#   tests/live/cluster.sh down DIR   stop exactly the processes `up` started
#   tests/live/cluster.sh restart-apiserver DIR [FLAGS]   stop and start
#                                    kube-apiserver (same port, same etcd), with
#                                    FLAGS added for this run only
#   tests/live/cluster.sh start-kcm DIR [FLAGS]   also run kube-controller-manager
#                                    (resource-claim controller + garbage collector)
#
# Authorization is RBAC. Admission plugins off: ServiceAccount (no controller
# creates default service accounts here) and TaintNodesByCondition (no node
# lifecycle controller would ever lift its not-ready taint from the Node
# objects the tests create). No kubelet, no controller manager.
# DRA_APISERVER_FEATURE_GATES (e.g. GenericWorkload=true) is kube-apiserver's
# --feature-gates for clusters brought up with it set, and
# DRA_APISERVER_RUNTIME_CONFIG (e.g. scheduling.k8s.io/v1beta1=true) its
# --runtime-config.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/../../tools/k8s-bins/bin"

usage() { echo "usage: $0 up|down|restart-apiserver DIR | $0 start-kcm DIR [--kube-api-qps N]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
dir=$2
shift 2

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

certs() {
  cd "$dir"
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.crt -days 7 -subj "/CN=dractl-test-ca" 2>/dev/null
  cat > apiserver.ext <<'EOF'
subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, IP:10.0.0.1
extendedKeyUsage = serverAuth
EOF
  printf 'extendedKeyUsage = clientAuth\n' > client.ext
  openssl req "${ec[@]}" -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 7 \
    -extfile apiserver.ext -out apiserver.crt 2>/dev/null
  for who in "admin:/O=system:masters/CN=admin" "dractl:/CN=dractl"; do
    local name=${who%%:*} subj=${who#*:}
    openssl req "${ec[@]}" -keyout "$name.key" -out "$name.csr" -subj "$subj" 2>/dev/null
    openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 7 \
      -extfile client.ext -out "$name.crt" 2>/dev/null
  done
  openssl ecparam -name prime256v1 -genkey -noout -out sa.key 2>/dev/null
  cd - >/dev/null
}

kubeconfig() {  # name port
  cat > "$dir/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster: {server: "https://127.0.0.1:$2", certificate-authority: ca.crt}
users:
- name: $1
  user: {client-certificate: $1.crt, client-key: $1.key}
contexts:
- name: test
  context: {cluster: test, user: $1}
EOF
}

up() {
  for b in etcd kube-apiserver; do
    if [ ! -x "$bin/$b" ]; then echo "cluster.sh: $bin/$b is missing: run scripts/k8s-bins" >&2; exit 1; fi
  done
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  certs
  local client peer api
  client=$(free_port); peer=$(free_port); api=$(free_port)
  setsid "$bin/etcd" --name default --data-dir "$dir/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "default=http://127.0.0.1:$peer" --unsafe-no-fsync --log-level warn \
    > "$dir/etcd.log" 2>&1 < /dev/null &
  echo $! > "$dir/etcd.pid"
  printf '%s\n' --etcd-servers "http://127.0.0.1:$client" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api" \
    --tls-cert-file "$dir/apiserver.crt" --tls-private-key-file "$dir/apiserver.key" \
    --client-ca-file "$dir/ca.crt" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$dir/sa.key" --service-account-signing-key-file "$dir/sa.key" \
    --service-cluster-ip-range 10.0.0.0/24 --authorization-mode RBAC \
    --disable-admission-plugins ServiceAccount,TaintNodesByCondition --allow-privileged=true \
    --endpoint-reconciler-type none ${DRA_APISERVER_FEATURE_GATES:+--feature-gates "$DRA_APISERVER_FEATURE_GATES"} \
    ${DRA_APISERVER_RUNTIME_CONFIG:+--runtime-config "$DRA_APISERVER_RUNTIME_CONFIG"} \
    > "$dir/kube-apiserver.args"
  kubeconfig admin "$api"
  kubeconfig dractl "$api"
  echo "$api" > "$dir/port"
  start_apiserver
}

start_apiserver() {  # [EXTRA FLAGS...] for this start only
  local args=() api
  mapfile -t args < "$dir/kube-apiserver.args"
  args+=("$@")
  api=$(cat "$dir/port")
  setsid "$bin/kube-apiserver" "${args[@]}" >> "$dir/kube-apiserver.log" 2>&1 < /dev/null &
  echo $! > "$dir/kube-apiserver.pid"
  local curl_admin=(curl -sS --cacert "$dir/ca.crt" --cert "$dir/admin.crt" --key "$dir/admin.key")
  local start=$SECONDS
  until [ "$("${curl_admin[@]}" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$api/readyz" 2>/dev/null)" = 200 ]; do
    if ! kill -0 "$(cat "$dir/kube-apiserver.pid")" 2>/dev/null; then
      echo "cluster.sh: kube-apiserver exited; the end of $dir/kube-apiserver.log:" >&2
      tail -20 "$dir/kube-apiserver.log" >&2
      down; exit 1
    fi
    if [ $((SECONDS - start)) -gt 120 ]; then
      echo "cluster.sh: kube-apiserver not ready after 120 s; see $dir/kube-apiserver.log" >&2
      down; exit 1
    fi
    sleep 0.5
  done
  until [ "$("${curl_admin[@]}" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$api/api/v1/namespaces/default")" = 200 ]; do
    if [ $((SECONDS - start)) -gt 120 ]; then echo "cluster.sh: no namespace default after 120 s" >&2; down; exit 1; fi
    sleep 0.2
  done
  echo "cluster.sh: kube-apiserver ready on https://127.0.0.1:$api in $((SECONDS - start)) s ($dir)" >&2
}

stop() {  # name
  if [ -f "$dir/$1.pid" ]; then
    local pid
    pid=$(cat "$dir/$1.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$1.pid"
  fi
}

down() {
  for p in kube-controller-manager kube-apiserver etcd; do stop "$p"; done
}

# kube-controller-manager (with DRA_APISERVER_FEATURE_GATES, as the API server)
# with only the resource-claim controller (claims from
# templates, pod.status.resourceClaimStatuses, reservedFor pruning), the
# garbage collector (tests/live/README.md §3), the device-taint eviction
# controller and the ReplicaSet controller (issue #30: a pod evicted by a
# NoExecute device taint and its ReplicaSet's new pod).
start_kcm() {
  dir="$(cd "$dir" && pwd)"
  if [ ! -x "$bin/kube-controller-manager" ]; then
    echo "cluster.sh: $bin/kube-controller-manager is missing: run scripts/k8s-bins kube-controller-manager" >&2
    exit 1
  fi
  setsid "$bin/kube-controller-manager" --kubeconfig "$dir/admin.kubeconfig" \
    --controllers resourceclaim-controller,garbage-collector-controller,device-taint-eviction-controller,replicaset-controller \
    --use-service-account-credentials=false --leader-elect=false --secure-port 0 \
    ${DRA_APISERVER_FEATURE_GATES:+--feature-gates "$DRA_APISERVER_FEATURE_GATES"} "$@" \
    > "$dir/kube-controller-manager.log" 2>&1 < /dev/null &
  echo $! > "$dir/kube-controller-manager.pid"
  sleep 1
  if ! kill -0 "$(cat "$dir/kube-controller-manager.pid")" 2>/dev/null; then
    echo "cluster.sh: kube-controller-manager exited:" >&2
    tail -20 "$dir/kube-controller-manager.log" >&2
    exit 1
  fi
}

restart() {  # the API server only; etcd keeps the data. [EXTRA FLAGS...]
  dir="$(cd "$dir" && pwd)"
  stop kube-apiserver
  start_apiserver "$@"
}

case "$cmd" in
  up) up ;;
  down) down ;;
  restart-apiserver) restart "$@" ;;
  start-kcm) start_kcm "$@" ;;
  *) usage ;;
esac
