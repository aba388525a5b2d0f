package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The pod-group path (scheduler_gang.go) on a gang of four on one node
// (gpu-0, gpu-1 of model x; gpu-2, gpu-3 of y): m0 and m1 take any GPU, m2
// and m3 need x. kube-scheduler's cycle places m0 and m1 on the x GPUs, m2
// fits nowhere and minCount 4 is out of reach. The pods have no UID (the
// harness gives them one, as the API server would: PodGroupState counts
// members by it). The texts are kube-scheduler's own; this checks that the
// harness reports them per pod and group as the first attempt left them.
func TestGangScheduleQuad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quad.json")
	if err := os.WriteFile(path, []byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},"status":{"allocatable":{"cpu":"8","memory":"32Gi","pods":"110"},"capacity":{"cpu":"8","memory":"32Gi","pods":"110"}}},{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"n1-gpus"},"spec":{"driver":"gpu.example.com","nodeName":"n1","pool":{"name":"n1","generation":1,"resourceSliceCount":1},"devices":[{"name":"gpu-0","attributes":{"model":{"string":"x"}}},{"name":"gpu-1","attributes":{"model":{"string":"x"}}},{"name":"gpu-2","attributes":{"model":{"string":"y"}}},{"name":"gpu-3","attributes":{"model":{"string":"y"}}}]}},{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}]}},{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"any","namespace":"default"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":1}}]}}}},{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"model-x","namespace":"default"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":1,"selectors":[{"cel":{"expression":"device.attributes['gpu.example.com'].model == 'x'"}}]}}]}}}},{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"quad","namespace":"default","uid":"uid-pg-quad"},"spec":{"schedulingPolicy":{"gang":{"minCount":4}}}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"m0","namespace":"default"},"spec":{"schedulingGroup":{"podGroupName":"quad"},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"any"}],"containers":[{"name":"main","image":"x","resources":{"requests":{"cpu":"1"},"claims":[{"name":"gpu"}]}}]}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"m1","namespace":"default"},"spec":{"schedulingGroup":{"podGroupName":"quad"},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"any"}],"containers":[{"name":"main","image":"x","resources":{"requests":{"cpu":"1"},"claims":[{"name":"gpu"}]}}]}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"m2","namespace":"default"},"spec":{"schedulingGroup":{"podGroupName":"quad"},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"model-x"}],"containers":[{"name":"main","image":"x","resources":{"requests":{"cpu":"1"},"claims":[{"name":"gpu"}]}}]}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"m3","namespace":"default"},"spec":{"schedulingGroup":{"podGroupName":"quad"},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"model-x"}],"containers":[{"name":"main","image":"x","resources":{"requests":{"cpu":"1"},"claims":[{"name":"gpu"}]}}]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res := scheduleFile(path, "GenericWorkload=true", 0)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	const group = "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor"
	want := map[string]string{
		"default/m0": "pod group is unschedulable, " + group,
		"default/m1": "pod group is unschedulable, " + group,
		"default/m2": "0/1 nodes are available: 1 cannot allocate all claims.",
		"default/m3": "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining",
	}
	if len(res.Pods) != len(want) {
		t.Fatalf("pods: %+v", res.Pods)
	}
	for _, p := range res.Pods {
		if p.Node != "" || p.Message != want[p.Pod] {
			t.Errorf("%s: node %q message %q, want %q", p.Pod, p.Node, p.Message, want[p.Pod])
		}
	}
	if len(res.Groups) != 1 || res.Groups[0].Status != "False" || res.Groups[0].Reason != "Unschedulable" ||
		res.Groups[0].Message != group {
		t.Errorf("groups: %+v", res.Groups)
	}
}

// samplingCluster writes a List of `n` nodes n000.. (8 cpu, or what `node`
// changes) and `pods` for scheduleFile.
func samplingCluster(t *testing.T, n int, node func(i int, o map[string]any), pods ...map[string]any) string {
	t.Helper()
	var items []any
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("n%03d", i)
		alloc := map[string]any{"cpu": "8", "memory": "32Gi", "pods": "110"}
		o := map[string]any{"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"kubernetes.io/hostname": name}},
			"spec":     map[string]any{},
			"status":   map[string]any{"allocatable": alloc, "capacity": alloc}}
		node(i, o)
		items = append(items, o)
	}
	for _, p := range pods {
		items = append(items, p)
	}
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cluster.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func samplingPod(name string, second int, tolerations ...any) map[string]any {
	spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x",
		"resources": map[string]any{"requests": map[string]any{"cpu": "1"}}}}}
	if len(tolerations) > 0 {
		spec["tolerations"] = tolerations
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "uid-" + name,
			"creationTimestamp": fmt.Sprintf("2026-01-01T00:00:%02dZ", second)},
		"spec": spec}
}

// 150 nodes go to the whole kube-scheduler (parallelism 1), which stops at
// the feasible node after the 100th (numFeasibleNodesToFind(150) = 100)
// and counts the nodes rejected before it as processed (schedule_one.go
// findNodesThatPassFilters). n100-n109 are large (64 cpu, which the scores
// prefer) but tainted: p1 keeps n000-n099, is turned down by n100-n109 and
// stops at n110, so p2 (which tolerates the taint) starts at n110, takes
// n110-n149 and n000-n059 and never sees the large nodes. Were the search to
// stop at the 100th feasible node, p2 would start at n100 and land on one.
func TestWholeSchedulerSamplesNodes(t *testing.T) {
	path := samplingCluster(t, 150, func(i int, o map[string]any) {
		if i >= 100 && i < 110 {
			alloc := map[string]any{"cpu": "64", "memory": "32Gi", "pods": "110"}
			o["status"] = map[string]any{"allocatable": alloc, "capacity": alloc}
			o["spec"] = map[string]any{"taints": []any{map[string]any{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}}}
		}
	}, samplingPod("p1", 1), samplingPod("p2", 2, map[string]any{"key": "dedicated", "operator": "Equal", "value": "ml"}))
	res := scheduleFile(path, "", 0)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if len(res.Pods) != 2 || res.Pods[0].Pod != "default/p1" || res.Pods[1].Pod != "default/p2" {
		t.Fatalf("pods: %+v", res.Pods)
	}
	if n := res.Pods[0].Node; n == "" || n >= "n100" {
		t.Errorf("p1 on %q, want one of n000-n099", n)
	}
	if n := res.Pods[1].Node; n == "" || (n >= "n060" && n < "n110") {
		t.Errorf("p2 on %q, want one of n110-n149, n000-n059", n)
	}
}

// kube-scheduler's nodeTree walks the zones round-robin: with n000-n109 in
// zone a (8 cpu) and n110-n119 in zone b (64 cpu) the first 100 nodes are
// n000, n110, n001, n111, ..., so every large node is among them and the
// pod lands on one; in name order (no zones) the first 100 are all small.
func TestWholeSchedulerWalksZonesRoundRobin(t *testing.T) {
	for _, zones := range []bool{false, true} {
		path := samplingCluster(t, 120, func(i int, o map[string]any) {
			zone := "a"
			if i >= 110 {
				zone = "b"
				alloc := map[string]any{"cpu": "64", "memory": "32Gi", "pods": "110"}
				o["status"] = map[string]any{"allocatable": alloc, "capacity": alloc}
			}
			if zones {
				o["metadata"].(map[string]any)["labels"].(map[string]any)["topology.kubernetes.io/zone"] = zone
			}
		}, samplingPod("p", 1))
		res := scheduleFile(path, "", 0)
		if res.Error != "" {
			t.Fatal(res.Error)
		}
		if len(res.Pods) != 1 {
			t.Fatalf("pods: %+v", res.Pods)
		}
		n := res.Pods[0].Node
		if zones && n < "n110" {
			t.Errorf("with zones: on %q, want a zone-b node (n110-n119)", n)
		}
		if !zones && (n == "" || n >= "n100") {
			t.Errorf("without zones: on %q, want one of n000-n099", n)
		}
	}
}
