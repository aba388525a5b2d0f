# Sourced by tests/live/run.sh (part 5, on its own cluster): dractl prints
# objects exactly as kubectl does (issue #26 item 3). Uses run.sh's k, pass,
# fail, $work, $dractl, $root.
#
# For every document of every object file under examples/ and
# testdata/fixtures/ (one document at a time, in its own file):
#  (a) `dractl convert -o yaml` and `-o json` against `kubectl create
#      --dry-run=client -o yaml|json` of the same file;
#  (b) after `kubectl apply`, for each object the API server returns,
#      `kubectl get -o yaml` and `-o json` against dractl's printing of
#      `kubectl get -o json`'s output (`dractl convert -f that.json`).
# Byte for byte, with one deliberate difference, undone before comparing and
# counted: `dractl convert -o json` always prints a v1 List (scripts and the
# Python module read .items), where kubectl prints a lone object bare and
# several one after another (create) -- the List itself is compared as
# kubectl prints one (`kubectl get -o json` of several objects).
# A document is skipped, with a line saying why, when the API server does
# not serve its kind (no CRD: Faults, NodeGroup, PodGroup) or dractl does not
# model it (convert leaves out Namespaces and workloads: it prints what it
# models; only Namespaces are applied, for their labels). The API server and
# dractl run with $printing_gates (run.sh), the gates the files need
# (spec.schedulingGroup, `strings` attributes).

print_same=0 print_differ=0 print_skipped=0 print_known=0
printing_dir="$work/printing"
mkdir -p "$printing_dir"

# dractl convert's List of N objects, as kubectl prints the same N objects
# one after another: the List's framing removed, items de-indented by 8.
unlist() {
  sed -e '1,3d' "$1" | head -n -6 | sed -e 's/^        //' -e 's/^},$/}/'
}

# compare NAME EXPECTED ACTUAL: one ok/FAIL line.
compare() {
  if cmp -s "$2" "$3"; then
    print_same=$((print_same + 1))
  else
    print_differ=$((print_differ + 1))
    fail "printing: $1"
    diff "$2" "$3" | head -15 | sed "s/^/    /" || true
  fi
}

# The namespaces the files name, and the NetworkAttachmentDefinition CRD
# (examples/cluster/gpu-nic-aligned.yaml).
for ns in $(grep -rh '^  namespace:' "$root/examples" "$root/testdata/fixtures" --include='*.yaml' | awk '{print $2}' | sort -u); do
  k get namespace "$ns" > /dev/null 2>&1 || k create namespace "$ns" > /dev/null
done
k apply -f "$root/tests/live/nad-crd.yaml" > /dev/null
k wait --for=condition=Established --timeout=60s crd/network-attachment-definitions.k8s.cni.cncf.io > /dev/null

n_doc=0
for file in $(cd "$root" && find examples testdata/fixtures -name '*.yaml' | sort); do
  # One document a file (the documents of these files start with "---" lines).
  rm -f "$printing_dir"/doc-*.yaml
  awk -v dir="$printing_dir" 'BEGIN { n = 0; out = sprintf("%s/doc-%03d.yaml", dir, n) }
       /^---/ { n++; out = sprintf("%s/doc-%03d.yaml", dir, n); next }
       { print > out }' "$root/$file"
  for doc in "$printing_dir"/doc-*.yaml; do
    kind=$(sed -n 's/^kind: *//p' "$doc" | head -1)
    [ -n "$kind" ] || continue  # an empty document (a leading ---)
    n_doc=$((n_doc + 1))
    what="$file#$(basename "$doc" .yaml | sed 's/doc-0*//;s/^$/0/') ($kind)"
    if ! k create --dry-run=client -o yaml -f "$doc" > "$printing_dir/kubectl.yaml" 2> "$printing_dir/err"; then
      if grep -q 'no matches for kind' "$printing_dir/err"; then
        echo "skip $what: the API server does not serve this kind (no CRD, or its API version is off)"
        print_skipped=$((print_skipped + 1))
      else
        fail "printing: kubectl create --dry-run=client -f $what"; sed 's/^/    /' "$printing_dir/err"
      fi
      continue
    fi
    rc=0
    "$dractl" convert --feature-gates "$printing_gates" -o yaml -f "$doc" > "$printing_dir/dractl.yaml" \
      2> "$printing_dir/err" || rc=$?
    if [ "$rc" -ne 0 ]; then
      fail "printing: dractl convert -f $what (exit $rc)"; sed 's/^/    /' "$printing_dir/err"
      continue
    fi
    if [ ! -s "$printing_dir/dractl.yaml" ]; then
      echo "skip $what: dractl convert does not model this kind ($(tr '\n' ' ' < "$printing_dir/err"))"
      print_skipped=$((print_skipped + 1))
      # A Namespace's labels matter to the claims after it (admin access).
      [ "$kind" = Namespace ] && k apply -f "$doc" > /dev/null 2>&1
      continue
    fi
    applied=1
    if ! k apply -f "$doc" > /dev/null 2> "$printing_dir/err"; then
      fail "printing: kubectl apply -f $what"; sed 's/^/    /' "$printing_dir/err"
      applied=0
    fi
    # (a) the file as kubectl prints it.
    compare "convert -o yaml of $what equals kubectl create --dry-run=client -o yaml" \
      "$printing_dir/kubectl.yaml" "$printing_dir/dractl.yaml"
    k create --dry-run=client -o json -f "$doc" > "$printing_dir/kubectl.json"
    "$dractl" convert --feature-gates "$printing_gates" -o json -f "$doc" > "$printing_dir/dractl-list.json" 2> "$printing_dir/err"
    unlist "$printing_dir/dractl-list.json" > "$printing_dir/dractl.json"
    print_known=$((print_known + 1))
    compare "convert -o json of $what equals kubectl create --dry-run=client -o json (List framing removed)" \
      "$printing_dir/kubectl.json" "$printing_dir/dractl.json"
    # (b) each object as the API server returns it.
    [ "$applied" -eq 1 ] || continue
    k get -f "$doc" -o json > "$printing_dir/got.json"
    "$dractl" convert --feature-gates "$printing_gates" -o json -f "$printing_dir/got.json" > "$printing_dir/dractl-list.json" 2> "$printing_dir/err"
    if grep -q '^    "kind": "List",$' "$printing_dir/got.json"; then
      # Several objects: kubectl's List, byte for byte.
      compare "convert -o json of kubectl get -o json of $what equals it (a List)" \
        "$printing_dir/got.json" "$printing_dir/dractl-list.json"
    else
      unlist "$printing_dir/dractl-list.json" > "$printing_dir/dractl.json"
      print_known=$((print_known + 1))
      compare "convert -o json of kubectl get -o json of $what equals it (List framing removed)" \
        "$printing_dir/got.json" "$printing_dir/dractl.json"
    fi
    # Each object, -o yaml (kubectl get -f of several objects prints a List).
    k get -f "$doc" -o jsonpath='{range .items[*]}{.kind} {.metadata.namespace} {.metadata.name}{"\n"}{end}' \
      > "$printing_dir/objects" 2> /dev/null || true
    [ -s "$printing_dir/objects" ] ||
      k get -f "$doc" -o jsonpath='{.kind} {.metadata.namespace} {.metadata.name}{"\n"}' > "$printing_dir/objects"
    while read -r okind ons oname; do
      [ -n "$oname" ] || { oname=$ons; ons=""; }
      nsflag=()
      [ -n "$ons" ] && nsflag=(-n "$ons")
      k get "$okind" "$oname" "${nsflag[@]}" -o json > "$printing_dir/obj.json"
      k get "$okind" "$oname" "${nsflag[@]}" -o yaml > "$printing_dir/obj.yaml"
      "$dractl" convert --feature-gates "$printing_gates" -o yaml -f "$printing_dir/obj.json" > "$printing_dir/dractl.yaml" 2> "$printing_dir/err"
      compare "convert -o yaml of kubectl get -o json of $okind ${ons:+$ons/}$oname ($file) equals kubectl get -o yaml" \
        "$printing_dir/obj.yaml" "$printing_dir/dractl.yaml"
    done < "$printing_dir/objects"
  done
done
if [ "$print_differ" -eq 0 ] && [ "$print_same" -gt 0 ]; then
  pass "printing: $print_same comparisons of dractl's and kubectl's YAML and JSON byte for byte over $n_doc documents" \
    "of examples/ and testdata/fixtures/ ($print_skipped skipped, said above; $print_known with convert's v1 List" \
    "framing removed, the one deliberate difference)"
else
  fail "printing: $print_differ of $((print_same + print_differ)) comparisons differ ($print_skipped documents skipped)"
fi
