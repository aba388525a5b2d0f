package main

import (
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
