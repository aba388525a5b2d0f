package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestGenerateSchedIsDeterministic(t *testing.T) {
	for i := 0; i < 20; i++ {
		a, _ := json.Marshal(GenerateSched(7, i).List)
		b, _ := json.Marshal(GenerateSched(7, i).List)
		if string(a) != string(b) {
			t.Fatalf("scenario %d differs between two generations", i)
		}
	}
	a, _ := json.Marshal(GenerateSched(7, 0).List)
	b, _ := json.Marshal(GenerateSched(8, 0).List)
	if string(a) == string(b) {
		t.Fatalf("seeds 7 and 8 gave the same scenario 0")
	}
}

func TestGenerateSchedTaintsAreUniqueByKeyAndEffect(t *testing.T) {
	for i := 0; i < 200; i++ {
		for _, it := range GenerateSched(1, i).List["items"].([]any) {
			o := it.(obj)
			if o["kind"] != "Node" {
				continue
			}
			taints, _ := o["spec"].(obj)["taints"].([]any)
			seen := map[string]bool{}
			for _, tt := range taints {
				id := tt.(obj)["key"].(string) + "/" + tt.(obj)["effect"].(string)
				if seen[id] {
					t.Fatalf("scenario %d: node %v: taint %s twice (the API server refuses it)", i, o["metadata"], id)
				}
				seen[id] = true
			}
		}
	}
}

func TestDiffSchedPods(t *testing.T) {
	base := schedPod{Pod: "default/p", Node: "n1",
		Filter: map[string]schedVerdict{"n2": {Plugin: "TaintToleration", Reasons: []string{"node(s) had untolerated taint(s)"}}},
		Scores: map[string]map[string]int64{"n1": {"NodeResourcesFit": 50, "total": 50}, "n3": {"NodeResourcesFit": 40, "total": 40}}}
	clone := func() schedPod {
		var p schedPod
		b, _ := json.Marshal(base)
		json.Unmarshal(b, &p)
		return p
	}
	if class, what := diffSchedPods(clone(), clone()); class != "" {
		t.Fatalf("equal outcomes: %s %s", class, what)
	}
	cases := []struct {
		name  string
		edit  func(d, u *schedPod)
		class string
	}{
		{"text", func(d, u *schedPod) {
			d.Filter["n2"] = schedVerdict{Plugin: "TaintToleration", Reasons: []string{"node(s) had untolerated taint {a: b}"}}
		}, "filter text TaintToleration"},
		{"plugin", func(d, u *schedPod) { d.Filter["n2"] = schedVerdict{Plugin: "NodeAffinity"} }, "filter plugin"},
		{"feasible on one side", func(d, u *schedPod) { delete(d.Filter, "n2") }, "filter TaintToleration"},
		{"score", func(d, u *schedPod) { d.Scores["n3"]["NodeResourcesFit"] = 41 }, "score NodeResourcesFit"},
		{"score missing", func(d, u *schedPod) { delete(d.Scores["n3"], "NodeResourcesFit") }, "score NodeResourcesFit"},
		{"node", func(d, u *schedPod) { d.Node = "n3" }, "node"},
		{"message", func(d, u *schedPod) { d.Node, u.Node, d.Message, u.Message = "", "", "0/3 a", "0/3 b" }, "message"},
		{"error", func(d, u *schedPod) { u.Error, u.Message = true, "boom" }, "error"},
		// No known class any more: upstream's PreBind error is an error like any other.
		{"prebind", func(d, u *schedPod) {
			u.Error, u.Message = true, "running PreBind plugin \"DynamicResources\": nil or empty request mappings, no update"
		}, "error"},
	}
	for _, c := range cases {
		d, u := clone(), clone()
		c.edit(&d, &u)
		if class, _ := diffSchedPods(d, u); class != c.class {
			t.Errorf("%s: class %q, want %q", c.name, class, c.class)
		}
	}
	// A tie upstream: the node is not compared (dractl breaks ties its own way).
	d, u := clone(), clone()
	d.Node, u.Tie = "n3", true
	if class, _ := diffSchedPods(d, u); class != "" {
		t.Errorf("tie: class %q, want none", class)
	}
	// Scores are compared only where upstream scored (two or more feasible
	// nodes); extra plugins on dractl's side do not matter.
	d, u = clone(), clone()
	u.Scores = nil
	d.Scores["n1"]["Extra"] = 1
	if class, _ := diffSchedPods(d, u); class != "" || !reflect.DeepEqual(d.Filter, u.Filter) {
		t.Errorf("unscored: class %q, want none", class)
	}
}

// PodGroups in a share of the clusters (sched_gen.go genGangs): the other
// clusters are the same whatever the share is; a cluster with PodGroups
// has GenericWorkload on (and DRAWorkloadResourceClaims exactly where a
// PodGroup has claims), 1-2 groups of 2-6 pending members with minCount
// 1..size, no pod priorities, schedulerName written out, no held claims.
func TestGenerateSchedGangs(t *testing.T) {
	gangs := 0
	for i := 0; i < 400; i++ {
		with := GenerateSchedWith(3, i, 0.25, 0)
		without := GenerateSchedWith(3, i, 0, 0)
		if without.Gang {
			t.Fatalf("scenario %d: PodGroups with --gangs 0", i)
		}
		if !with.Gang {
			a, _ := json.Marshal(with.List)
			b, _ := json.Marshal(without.List)
			if string(a) != string(b) || with.Gates != without.Gates {
				t.Fatalf("scenario %d: a cluster without PodGroups changed with --gangs", i)
			}
			continue
		}
		gangs++
		groups := map[string]obj{}
		pending := map[string]int{}
		bound := map[string]int{}
		groupClaims := false
		for _, it := range with.List["items"].([]any) {
			o := it.(obj)
			switch o["kind"] {
			case "PodGroup":
				name := o["metadata"].(obj)["name"].(string)
				groups[name] = o
				if _, ok := o["spec"].(obj)["resourceClaims"]; ok {
					groupClaims = true
				}
			case "Pod":
				spec := o["spec"].(obj)
				if _, ok := spec["priority"]; ok {
					t.Fatalf("scenario %d: pod %v has a priority", i, o["metadata"])
				}
				for _, c := range asList(spec["resourceClaims"]) {
					if name, _ := c.(obj)["resourceClaimName"].(string); strings.HasPrefix(name, "held-") {
						t.Fatalf("scenario %d: pod %v names held claim %s", i, o["metadata"], name)
					}
				}
				if _, running := spec["nodeName"]; running && spec["schedulingGroup"] == nil {
					continue
				}
				if spec["schedulerName"] != "default-scheduler" {
					t.Fatalf("scenario %d: pod %v: schedulerName %v", i, o["metadata"], spec["schedulerName"])
				}
				if sg, ok := spec["schedulingGroup"].(obj); ok {
					if _, ok := spec["nodeName"]; ok {
						bound[sg["podGroupName"].(string)]++
					} else {
						pending[sg["podGroupName"].(string)]++
					}
				}
			}
		}
		if len(groups) < 1 || len(groups) > 2 {
			t.Fatalf("scenario %d: %d PodGroups", i, len(groups))
		}
		for name, g := range groups {
			n := pending[name]
			if n < 2 || n > 6 || bound[name] > 1 {
				t.Fatalf("scenario %d: group %s: %d pending, %d bound members", i, name, n, bound[name])
			}
			if gang, ok := g["spec"].(obj)["schedulingPolicy"].(obj)["gang"].(obj); ok {
				if mc := gang["minCount"].(int); mc < 1 || mc > n {
					t.Fatalf("scenario %d: group %s: minCount %d of %d", i, name, mc, n)
				}
			}
		}
		if !strings.Contains(with.Gates, "GenericWorkload=true") ||
			strings.Contains(with.Gates, "DRAWorkloadResourceClaims=true") != groupClaims {
			t.Fatalf("scenario %d: gates %q (group claims: %v)", i, with.Gates, groupClaims)
		}
	}
	if gangs < 60 || gangs > 140 {
		t.Fatalf("%d of 400 clusters with PodGroups, want about 100", gangs)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// The gang comparison (sched_gang.go): a tie in dractl's choice ends it;
// a member's message must match exactly, a single pod's may lack upstream's
// preemption text.
func TestDiffGangScenario(t *testing.T) {
	d := schedOutcome{
		Pods: []schedPod{
			{Pod: "default/s", Message: "0/2 nodes are available: 2 Insufficient cpu."},
			{Pod: "default/g-0", Node: "n1", Scores: map[string]map[string]int64{"n1": {"total": 300}, "n2": {"total": 200}}},
			{Pod: "default/g-1", Message: "0/2 nodes are available: 2 cannot allocate all claims."},
		},
		Groups: []schedGroup{{Group: "default/g", Members: []string{"default/g-0", "default/g-1"}, Tried: true,
			Result: "placed", Condition: &schedCondition{Status: "True", Reason: "Scheduled"}}},
	}
	u := schedOutcome{
		Pods: []schedPod{
			{Pod: "default/s", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
			{Pod: "default/g-0", Node: "n1"},
			{Pod: "default/g-1", Message: "0/2 nodes are available: 2 cannot allocate all claims."},
		},
		Groups: []schedGroup{{Group: "default/g", Status: "True", Reason: "Scheduled"}},
	}
	var st gangStats
	if class, what := diffGangScenario(d, u, &st); class != "" {
		t.Fatalf("equal: %s %s", class, what)
	}
	u.Pods[1].Node = "n2"
	if class, _ := diffGangScenario(d, u, &st); class != "node" {
		t.Fatalf("other node: class %q", class)
	}
	// A tie: not compared.
	d.Pods[1].Scores["n2"]["total"] = 300
	if class, _ := diffGangScenario(d, u, &st); class != "" || st.afterTie == 0 {
		t.Fatalf("tie: class %q, %d after a tie", class, st.afterTie)
	}
	d.Pods[1].Scores["n2"]["total"] = 200
	u.Pods[1].Node = "n1"
	u.Groups[0] = schedGroup{Group: "default/g", Status: "False", Reason: "Unschedulable", Message: "m"}
	if class, _ := diffGangScenario(d, u, &st); class != "group condition" {
		t.Fatalf("condition: class %q", class)
	}
	u.Groups[0] = schedGroup{Group: "default/g", Status: "True", Reason: "Scheduled"}
	u.Pods[2].Message += " preemption: x"
	if class, _ := diffGangScenario(d, u, &st); class != "member message" {
		t.Fatalf("member message: class %q", class)
	}
	// A tie for a member of a group that was not placed (its node is not
	// printed, its scores are): the members after it may see another
	// cluster upstream (seed 2 scenario 712: a member placed on the other
	// of two nodes tied at 470 left room for a later member upstream).
	failed := d
	failed.Pods = append([]schedPod(nil), d.Pods...)
	failed.Pods[1] = schedPod{Pod: "default/g-0", Scores: map[string]map[string]int64{"n1": {"total": 470}, "n2": {"total": 470}}}
	failed.Groups = []schedGroup{{Group: "default/g", Members: []string{"default/g-0", "default/g-1"}, Tried: true,
		Result: "unschedulable", Condition: &schedCondition{Status: "False", Reason: "Unschedulable", Message: "m"}}}
	failedUp := u
	failedUp.Pods = append([]schedPod(nil), u.Pods...)
	failedUp.Pods[1] = schedPod{Pod: "default/g-0", Message: "m"}
	failedUp.Pods[2].Message = "0/2 nodes are available: 1 Too many pods, 1 cannot allocate all claims."
	failedUp.Groups = []schedGroup{{Group: "default/g", Status: "False", Reason: "Unschedulable", Message: "m"}}
	before := st.afterTie
	if class, what := diffGangScenario(failed, failedUp, &st); class != "" || st.afterTie == before {
		t.Fatalf("tie in a failed group: class %q %s, %d after a tie", class, what, st.afterTie-before)
	}
	// After a pod that failed at PreBind on both sides: its own class.
	prebind := "running PreBind plugin \"DynamicResources\": nil or empty request mappings"
	d.Pods[0] = schedPod{Pod: "default/s", Error: true, Message: prebind}
	u.Pods[0] = schedPod{Pod: "default/s", Error: true, Message: prebind}
	if class, _ := diffGangScenario(d, u, &st); class != "prebind retry" {
		t.Fatalf("after PreBind: class %q", class)
	}
}

// Large clusters in a share of the scenarios (sched_gen.go genLarge): the
// other clusters are the same whatever the share is; a large one has
// 101-260 nodes, no PodGroups, no gates, no pod priorities, 2-8 pending
// pods, and its nodes' zone labels (where it has them) in 2-3 zones.
func TestGenerateSchedLarge(t *testing.T) {
	large, zoned := 0, 0
	for i := 0; i < 300; i++ {
		with := GenerateSchedWith(3, i, 0.25, 0.2)
		without := GenerateSchedWith(3, i, 0.25, 0)
		if without.Large {
			t.Fatalf("scenario %d: large with --large 0", i)
		}
		if !with.Large {
			a, _ := json.Marshal(with.List)
			b, _ := json.Marshal(without.List)
			if string(a) != string(b) || with.Gates != without.Gates || with.Gang != without.Gang {
				t.Fatalf("scenario %d: a small cluster changed with --large", i)
			}
			continue
		}
		large++
		if with.Gang || with.Gates != "" {
			t.Fatalf("scenario %d: large with PodGroups or gates %q", i, with.Gates)
		}
		nodes, pending := 0, 0
		zones := map[string]bool{}
		for _, it := range with.List["items"].([]any) {
			o := it.(obj)
			switch o["kind"] {
			case "PodGroup":
				t.Fatalf("scenario %d: PodGroup in a large cluster", i)
			case "Node":
				nodes++
				labels := o["metadata"].(obj)["labels"].(obj)
				z, _ := labels["topology.kubernetes.io/zone"].(string)
				if b, ok := labels["failure-domain.beta.kubernetes.io/zone"].(string); ok {
					z = b
				}
				if z != "" {
					zones[z] = true
				}
			case "Pod":
				spec := o["spec"].(obj)
				if _, ok := spec["priority"]; ok {
					t.Fatalf("scenario %d: a pod with a priority in a large cluster", i)
				}
				if _, bound := spec["nodeName"]; !bound {
					pending++
				}
			}
		}
		if nodes < 101 || nodes > 260 {
			t.Fatalf("scenario %d: %d nodes", i, nodes)
		}
		if pending < 2 || pending > 8 {
			t.Fatalf("scenario %d: %d pending pods", i, pending)
		}
		if len(zones) > 3 || len(zones) == 1 {
			t.Fatalf("scenario %d: zones %v", i, zones)
		}
		if len(zones) > 0 {
			zoned++
		}
	}
	if large < 30 || zoned == 0 || zoned == large {
		t.Fatalf("%d large clusters of 300 at 0.2, %d with zones", large, zoned)
	}
}
