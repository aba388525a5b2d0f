package main

import (
	"encoding/json"
	"reflect"
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
