package main

import "testing"

// A group member whose binding cycle failed at PreBind on both sides (its
// group placed): a later mismatch is the known "prebind retry" (upstream
// retries the member with its group, ahead of later pods), and the member's
// failure inside dractl's group cycle is "member prebind".
func TestDiffGangScenarioMemberPreBind(t *testing.T) {
	const prebind = `running PreBind plugin "DynamicResources": nil or empty request mappings, no update of pod default/a ExtendedResourceClaimStatus`
	d := schedOutcome{
		Pods: []schedPod{
			{Pod: "default/a", Error: true, Message: prebind},
			{Pod: "default/b", Node: "n1"},
			{Pod: "default/c", Node: "n1"},
		},
		Groups: []schedGroup{{Group: "default/g", Members: []string{"default/a", "default/b"}, Tried: true,
			Result: "placed", Condition: &schedCondition{Status: "True", Reason: "Scheduled"}}},
	}
	u := schedOutcome{
		Pods: []schedPod{
			{Pod: "default/a", Error: true, Message: prebind},
			{Pod: "default/b", Node: "n1"},
			{Pod: "default/c"}, // no outcome: the oracle kept retrying the group
		},
		Groups: []schedGroup{{Group: "default/g", Status: "True", Reason: "Scheduled"}},
	}
	var st gangStats
	if class, what := diffGangScenario(d, u, &st); class != "prebind retry" {
		t.Errorf("later pod after a member's PreBind error: class %q (%s), want prebind retry", class, what)
	}
	// Without the member's error the same difference is a plain mismatch.
	d.Pods[0] = schedPod{Pod: "default/a", Node: "n1"}
	u.Pods[0] = schedPod{Pod: "default/a", Node: "n1"}
	if class, _ := diffGangScenario(d, u, &st); class != "placed" {
		t.Errorf("class %q, want placed", class)
	}
	// dractl ending the group on the member's PreBind is "member prebind".
	d.Pods[0] = schedPod{Pod: "default/a", Error: true, Message: prebind}
	d.Pods[1] = schedPod{Pod: "default/b", Error: true, Message: "failed to schedule other pod from a pod group: " + prebind}
	d.Groups[0].Result = "error"
	d.Groups[0].Condition = &schedCondition{Status: "False", Reason: "SchedulerError",
		Message: "failed to schedule other pod from a pod group: " + prebind}
	u.Pods[0] = schedPod{Pod: "default/a", Error: true, Message: prebind}
	if class, _ := diffGangScenario(d, u, &st); class != "member prebind" {
		t.Errorf("class %q, want member prebind", class)
	}
}
