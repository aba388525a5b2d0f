package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A cluster worked out by hand: node-a is tainted, node-b has 2 cpus and one
// GPU. pod-1 (1 cpu, one GPU from a template) fits node-b only; then pod-2
// (2 cpus) fits nowhere, and pod-3 (a GPU, no cpu) finds the only GPU taken.
func TestScheduleHandMadeCluster(t *testing.T) {
	node := func(name string, taint bool) map[string]any {
		spec := map[string]any{}
		if taint {
			spec["taints"] = []any{map[string]any{"key": "k", "effect": "NoSchedule"}}
		}
		return map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name},
			"spec": spec, "status": map[string]any{"allocatable": map[string]any{"cpu": "2", "memory": "4Gi", "pods": "10"}}}
	}
	pod := func(name, cpu string, claim bool, ts string) map[string]any {
		c := map[string]any{"name": "c", "image": "x"}
		spec := map[string]any{"containers": []any{c}}
		res := map[string]any{}
		if cpu != "" {
			res["requests"] = map[string]any{"cpu": cpu}
		}
		if claim {
			res["claims"] = []any{map[string]any{"name": "gpu"}}
			spec["resourceClaims"] = []any{map[string]any{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}}
		}
		c["resources"] = res
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name,
			"namespace": "default", "uid": "uid-" + name, "creationTimestamp": ts}, "spec": spec}
	}
	items := []any{
		node("node-a", true), node("node-b", false),
		map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]any{"name": "gpu"},
			"spec": map[string]any{"selectors": []any{map[string]any{"cel": map[string]any{"expression": `device.driver == "gpu.example.com"`}}}}},
		map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": map[string]any{"name": "s"},
			"spec": map[string]any{"driver": "gpu.example.com", "nodeName": "node-b",
				"pool":    map[string]any{"name": "node-b", "generation": 1, "resourceSliceCount": 1},
				"devices": []any{map[string]any{"name": "gpu-0"}}}},
		map[string]any{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
			"metadata": map[string]any{"name": "one-gpu", "namespace": "default"},
			"spec": map[string]any{"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{
				"name": "g", "exactly": map[string]any{"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}}}}}},
		pod("pod-1", "1", true, "2026-01-01T00:00:01Z"),
		pod("pod-2", "2", false, "2026-01-01T00:00:02Z"),
		pod("pod-3", "", true, "2026-01-01T00:00:03Z"),
	}
	data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	path := filepath.Join(t.TempDir(), "cluster.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := scheduleFile(path, "", 0)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if len(res.Pods) != 3 {
		t.Fatalf("%d pods, want 3: %+v", len(res.Pods), res.Pods)
	}
	taint := schedNodeVerdict{Plugin: "TaintToleration", Code: "UnschedulableAndUnresolvable",
		Reasons: []string{"node(s) had untolerated taint(s)"}}
	if p := res.Pods[0]; p.Node != "node-b" || p.Filter["node-a"].Plugin != taint.Plugin || len(p.Scores) != 0 {
		t.Errorf("pod-1: %+v, want node-b, node-a rejected by its taint, no scores (one feasible node)", p)
	}
	want2 := "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)."
	if p := res.Pods[1]; p.Node != "" || p.Message != want2 {
		t.Errorf("pod-2: %+v, want message %q", p, want2)
	}
	want3 := "0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) had untolerated taint(s)."
	if p := res.Pods[2]; p.Node != "" || p.Message != want3 || p.Filter["node-b"].Plugin != "DynamicResources" {
		t.Errorf("pod-3: %+v, want message %q (pod-1 holds the only GPU)", p, want3)
	}
}
