"""The Python module over the installed wheel. Every expectation is worked out
by hand from the objects below (one node with two GPUs of 40 and 80 GiB,
three pods that want one GPU each), or from the examples' own reasoning."""

import copy
import json

import pytest

import dractl

GPU_CLASS = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}},
    "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
               "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
}
SLICE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "node-a-gpus"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "node-a",
        "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
        "devices": [
            {"name": "gpu-0", "attributes": {"index": {"int": 0}}, "capacity": {"memory": {"value": "40Gi"}}},
            {"name": "gpu-1", "attributes": {"index": {"int": 1}}, "capacity": {"memory": {"value": "80Gi"}}},
        ],
    },
}


def claim(name, count=1):
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": count}}]}},
    }


def pod(name, claim_name, minute):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default",
                     "creationTimestamp": f"2026-12-01T08:0{minute}:00Z"},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimName": claim_name}],
            "containers": [{"name": "main", "image": "example/app",
                            "resources": {"claims": [{"name": "gpu"}], "requests": {"cpu": "1"}}}],
        },
    }


CLUSTER = [GPU_CLASS, NODE, SLICE]
PODS = [claim("c1"), claim("c2"), claim("c3"), pod("p1", "c1", 1), pod("p2", "c2", 2), pod("p3", "c3", 3)]


def group(name, gpus, price):
    """A NodeGroup of node-a's shape with its first `gpus` GPUs, at most 3 nodes."""
    node = copy.deepcopy(NODE)
    node["metadata"] = {"name": "template", "labels": {"kubernetes.io/hostname": "template"}}
    slice_ = copy.deepcopy(SLICE)
    slice_["metadata"] = {"name": "template-gpus"}
    slice_["spec"]["nodeName"] = "template"
    slice_["spec"]["pool"]["name"] = "template"
    slice_["spec"]["devices"] = slice_["spec"]["devices"][:gpus]
    return {"apiVersion": "dractl.io/v1alpha1", "kind": "NodeGroup", "metadata": {"name": name},
            "spec": {"maxSize": 3, "price": price, "template": {"node": node, "resourceSlices": [slice_]}}}


def by_kind(items, kind):
    return {o["metadata"]["name"]: o for o in items if o["kind"] == kind}


def test_version_and_commands():
    assert dractl.__version__ == "0.1.0"
    assert {"validate", "schedule", "explain", "simulate", "allocate", "eval"} <= set(dractl.commands())


def test_validate_points_at_line_and_field_of_yaml_text():
    text = ("apiVersion: resource.k8s.io/v1\n"
            "kind: DeviceClass\n"
            "metadata:\n"
            "  name: Bad_Name\n")  # line 4; the value starts at column 9
    report = dractl.validate(text)
    assert report["errors"] == 1 and report["objects"] == 1
    (problem,) = report["problems"]
    assert (problem["file"], problem["line"], problem["column"]) == ("<input 1>", 4, 9)
    assert problem["field"] == "metadata.name"
    assert problem["object"] == "DeviceClass Bad_Name"


def test_validate_dicts_and_lists():
    report = dractl.validate(CLUSTER, claim("c1"))
    assert report["errors"] == 0
    assert report["objects"] == 4


def test_input_error_carries_file_and_field():
    # count must be positive (0 would be defaulted to 1, as the API server does)
    bad = claim("negative", count=-1)
    with pytest.raises(dractl.InputError) as info:
        dractl.schedule(CLUSTER, bad)
    errors = info.value.errors
    assert [(e.file, e.field) for e in errors] == [("<input 2>", "spec.devices.requests[0].exactly.count")]
    assert errors[0].line > 0
    assert "<input 2>" in str(info.value)
    assert info.value.exit_code == 1


def test_load_reads_text_and_dicts():
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n"
    objects = dractl.load(text, NODE)
    assert [o["metadata"]["name"] for o in objects] == ["n1", "n2", "node-a"]


def test_schedule_places_two_pods_on_two_gpus():
    result = dractl.schedule(CLUSTER, PODS)
    pods = by_kind(result["items"], "Pod")
    claims = by_kind(result["items"], "ResourceClaim")
    # Oldest first: p1 and p2 take the two GPUs; p3 finds none free.
    assert pods["p1"]["spec"]["nodeName"] == "node-a"
    assert pods["p2"]["spec"]["nodeName"] == "node-a"
    assert "nodeName" not in pods["p3"]["spec"]
    condition = [c for c in pods["p3"]["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    devices = {name: [r["device"] for r in c["status"]["allocation"]["devices"]["results"]]
               for name, c in claims.items()}
    # First fit, in the slice's order: c1 gets gpu-0, c2 gpu-1; c3 is not allocated.
    assert devices == {"c1": ["gpu-0"], "c2": ["gpu-1"]}


def test_explain_names_the_claims_holding_the_devices():
    result = dractl.explain(CLUSTER, PODS, pod="default/p3")
    (entry,) = result["pods"]
    assert entry["pod"] == "default/p3"
    assert entry["outcome"] == "unschedulable"
    (node,) = entry["nodes"]
    assert node["node"] == "node-a"
    assert (node["wanted"], node["devices"], node["inUse"], node["usable"]) == (1, 2, 2, 0)


def test_explain_unknown_pod_is_an_input_error():
    with pytest.raises(dractl.InputError):
        dractl.explain(CLUSTER, PODS, pod="default/nope")


def test_allocate_first_fit_and_unsatisfiable():
    (allocated,) = dractl.allocate(CLUSTER, claim("c1"), node="node-a", claims=["default/c1"])
    assert [r["device"] for r in allocated["status"]["allocation"]["devices"]["results"]] == ["gpu-0"]
    with pytest.raises(dractl.Unsatisfiable) as info:
        dractl.allocate(CLUSTER, claim("three", count=3), node="node-a", claims=["default/three"])
    assert info.value.exit_code == 4


def test_eval_matches_by_capacity():
    result = dractl.eval("device.capacity['gpu.example.com'].memory.compareTo(quantity('50Gi')) >= 0", SLICE)
    matched = {d["device"]: d["result"] for d in result["devices"]}
    assert matched == {"gpu-0": False, "gpu-1": True}  # 40Gi < 50Gi <= 80Gi


def test_eval_error_on_a_device_is_data():
    result = dractl.eval("device.attributes['gpu.example.com'].model == 'x'", SLICE)
    assert all("no such key" in d["error"] for d in result["devices"])


def test_usage_error_is_a_value_error():
    with pytest.raises(ValueError) as info:
        dractl.schedule(CLUSTER, PODS, policy="no-such-policy")
    assert isinstance(info.value, dractl.UsageError)
    assert info.value.exit_code == 2


def test_run_any_command_and_nothing_leaks_to_the_terminal(capfd):
    result = dractl.run("validate", "--help")
    assert result.exit_code == 0 and "Usage: dractl validate" in result.stdout
    result = dractl.run("schedule", "-f", "x", inputs={"x": json.dumps(NODE)})
    assert result.exit_code == 0
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_inputs_are_not_changed():
    pods = copy.deepcopy(PODS)
    dractl.schedule(CLUSTER, pods)
    assert pods == PODS


def test_simulate_cluster_packing_example(root):
    # examples/packing: 4 nodes of 8 GPUs; 8 one-GPU inference pods arrive,
    # then 3 eight-GPU training pods. kube-scheduler's LeastAllocated spreads
    # the inference pods two per node, so no node has 8 free GPUs: 8 start.
    # dra-pack puts them on one node and leaves three nodes whole: all 11.
    cluster = root / "examples/packing/cluster.yaml"
    workload = root / "examples/packing/workloads.yaml"
    kube = dractl.simulate_cluster(cluster, workload=workload)
    pack = dractl.simulate_cluster(cluster, workload=workload, policy="dra-pack")
    assert (kube["summary"]["pods"], kube["summary"]["started"]) == (11, 8)
    assert (pack["summary"]["pods"], pack["summary"]["started"]) == (11, 11)


def test_simulate_cluster_autoscales_a_node_group():
    # node-a's two GPUs take p1 (08:01) and p2 (08:02); p3 (08:03) waits the
    # 10 s scale-up delay, a one-GPU node ("one", 2.5 an hour: cheaper than a
    # two-GPU one) is requested at 08:03:10 and ready 3 min later, p3 runs
    # there for its hour (to 09:06:10), the node is removed 10 min after:
    # 08:03:10 .. 09:16:10 is 73 min, 2.5 * 73 / 60 = 3.0417.
    workload = [pod("p1", "c1", 1), pod("p2", "c2", 2), pod("p3", "c3", 3)]
    for p in workload:
        created = p["metadata"]["creationTimestamp"]
        p["metadata"]["deletionTimestamp"] = "2026-12-01T09" + created[13:]
    run = dractl.simulate_cluster(CLUSTER, claim("c1"), claim("c2"), claim("c3"), workload=workload,
                                  node_groups=[group("one", 1, 2.5), group("two", 2, 4)])
    events = [(e["time"], e["event"], e["node"]) for e in run["autoscaling"]["events"]]
    assert events == [("2026-12-01T08:03:10Z", "scale-up", "one-0"), ("2026-12-01T08:06:10Z", "ready", "one-0"),
                      ("2026-12-01T09:16:10Z", "scale-down", "one-0")]
    assert run["autoscaling"]["cost"] == pytest.approx(2.5 * 73 / 60, abs=1e-4)
    p3 = [p for p in run["pods"] if p["pod"] == "default/p3"][0]
    assert (p3["start"], p3["node"], p3["end"]) == ("2026-12-01T08:06:10Z", "one-0", "2026-12-01T09:06:10Z")


def test_simulate_openb_reaches_fgd_published_numbers(root):
    trace = root / "testdata/traces/alibaba-openb"
    (run,) = dractl.simulate_openb(trace / "openb_node_list_gpu_node.csv", trace / "openb_pod_list_default.csv",
                                   policy="fgd", seeds=42, expected=trace / "expected", series=True)
    assert run["policy"] == "fgd" and run["trace"] == "default"
    # The FGD paper's published mean for fgd on the default trace (Weng et
    # al., from testdata/.../expected), within the simulator's tolerance.
    published = run["published"]["allocation"]["130"]["mean"]
    assert run["allocation"]["130"]["mean"] >= published - run["tolerance"]
    metrics = {row["metric"] for row in run["series"]}
    assert {"allocation", "frag_amount", "frag_ratio"} <= metrics
    allocation = [row for row in run["series"] if row["metric"] == "allocation"][0]
    assert allocation["0"] < allocation["100"] <= allocation["130"]


def test_plan_adds_a_node_for_the_pod_that_is_left():
    # The cluster's one node holds two of the three pods (two GPUs); a group of
    # one-GPU nodes at 2.5 and one of two-GPU nodes at 4: one one-GPU node (2.5)
    # is the cheapest plan that places the third pod.
    result = dractl.plan(CLUSTER, PODS, node_groups=[group("one", 1, 2.5), group("two", 2, 4)])
    assert result["scaleUp"] == [{"nodeGroup": "one", "count": 1, "cost": 2.5}]
    assert result["cost"] == 2.5 and result["lowerBound"] == 2.5
    assert result["pending"] == 1
    assert result["placements"] == [{"pod": "default/p3", "node": "one-0", "newNode": True}]
    assert dractl.plan(CLUSTER, PODS, node_groups=[group("one", 1, 2.5), group("two", 2, 4)],
                       expander="most-pods")["cost"] == 2.5
    bad = group("bad", 1, 1)
    del bad["spec"]["price"]
    with pytest.raises(dractl.InputError) as info:
        dractl.plan(CLUSTER, PODS, node_groups=[bad])
    assert [(e.file, e.field) for e in info.value.errors] == [("<input 3>", "spec.price")]
