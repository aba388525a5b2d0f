package main

// --level scheduler on clusters with PodGroups (README.md "Pod groups"): the
// oracle runs the whole kube-scheduler 1.37.2 (its queue, the pod-group
// cycle, DefaultPreemption; tools/oracle/scheduler_gang.go), which gives per
// pod its node or PodScheduled message and per PodGroup its
// PodGroupInitiallyScheduled condition, but no per-node verdicts or scores.
// dractl's --trace gives the same per pod and per group (`groups`), with
// its scores, which tell where its choice of node was unique.

import (
	"fmt"
	"strings"
)

// schedGroup is one pod group of dractl's trace (members, tried, result,
// condition) or of the oracle's outcome (status, reason, message of the
// condition).
type schedGroup struct {
	Group   string   `json:"group"`
	Members []string `json:"members,omitempty"` // dractl
	Tried   bool     `json:"tried,omitempty"`   // dractl
	Result  string   `json:"result,omitempty"`  // dractl: placed / unschedulable / error
	Message string   `json:"message,omitempty"` // dractl: its group result; oracle: the condition's
	// dractl: the PodGroupInitiallyScheduled condition it would write.
	Condition *schedCondition `json:"condition,omitempty"`
	// oracle: the condition ("" when kube-scheduler wrote none).
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type schedCondition struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// uniqueChoice: dractl placed the pod on the only node with the top total
// (or on the only feasible node, which is not scored). Upstream breaks
// ties at random, and the oracle cannot steer the real scheduler's choice.
func uniqueChoice(p schedPod) bool {
	if p.Node == "" {
		return true
	}
	return uniqueTop(p)
}

// uniqueTop: one node has the top total, or nothing was scored. Also for a
// member of a group that was not placed: it was scored and placed for the
// rest of the group's cycle (its node is not in the output, its scores are).
func uniqueTop(p schedPod) bool {
	if len(p.Scores) == 0 {
		return true
	}
	best, count := int64(-1), 0
	for _, s := range p.Scores {
		switch t := s["total"]; {
		case t > best:
			best, count = t, 1
		case t == best:
			count++
		}
	}
	return count == 1
}

// singlePreemptionSuffix: a pod of no group that does not fit gets
// DefaultPreemption's PostFilter text after its FitError upstream
// (" preemption: 0/N nodes are available: ..."); dractl models no
// preemption and prints the FitError alone. With no pod priorities
// (sched_gen.go) that text never changes the outcome.
func singlePreemptionSuffix(d, u string) bool {
	return strings.HasPrefix(u, d+" preemption: ")
}

// gangStats counts what the gang comparison saw.
type gangStats struct {
	groups, groupsPlaced, groupsUnschedulable, groupsError, groupsUntried int
	afterTie                                                              int // pods not compared: after a tie
	nodesCompared                                                         int
}

// diffGangScenario compares a cluster with PodGroups: pods in dractl's
// order (a group's members together, at its first member's place). A tie
// in dractl's choice of node for a pod ends the comparison there (for a
// member: before its group), as later states may differ. Returns the first
// mismatch's class and description ("" when none).
func diffGangScenario(d, u schedOutcome, st *gangStats) (string, string) {
	class, what, prebind := diffGangPods(d, u, st)
	if class != "" && class != "member prebind" && prebind {
		// After a pod whose binding failed at PreBind (both sides agree):
		// upstream retries it at once (a single pod: its attempt's
		// PostFilter deallocates its claims, allocated and no longer
		// reserved; a member: with its group, ahead of later pods, where it
		// fails again; README.md); dractl tries each pod once.
		return "prebind retry", fmt.Sprintf("after a PreBind error (%s) %s", class, what)
	}
	return class, what
}

// diffGangPods is diffGangScenario's walk; `prebind`: a pod before the
// mismatch failed at PreBind on both sides.
func diffGangPods(d, u schedOutcome, st *gangStats) (class, what string, prebind bool) {
	upods := map[string]schedPod{}
	for _, p := range u.Pods {
		upods[p.Pod] = p
	}
	ugroups := map[string]schedGroup{}
	for _, g := range u.Groups {
		ugroups[g.Group] = g
	}
	dpods := map[string]schedPod{}
	for _, p := range d.Pods {
		dpods[p.Pod] = p
	}
	groupOf := map[string]int{}
	for i, g := range d.Groups {
		for _, m := range g.Members {
			groupOf[m] = i
		}
	}
	if len(d.Pods) != len(u.Pods) {
		return "pod count", fmt.Sprintf("dractl tried %d pods, upstream %d", len(d.Pods), len(u.Pods)), prebind
	}
	done := map[int]bool{}
	for k, p := range d.Pods {
		up, ok := upods[p.Pod]
		if !ok {
			return "queue order", fmt.Sprintf("dractl tried %s, upstream did not", p.Pod), prebind
		}
		gi, member := groupOf[p.Pod]
		if !member {
			class, what := diffGangPod(p, up, false, st)
			prebind = prebind || (p.Error && up.Error && strings.Contains(p.Message, "running PreBind plugin"))
			if class != "" {
				return class, fmt.Sprintf("pod %s: %s", p.Pod, what), prebind
			}
			if !uniqueChoice(p) {
				st.afterTie += len(d.Pods) - k - 1
				return "", "", prebind
			}
			continue
		}
		if done[gi] {
			continue
		}
		done[gi] = true
		g := d.Groups[gi]
		// A tie in the group's pass: its outcome may differ upstream. Members
		// of a group that failed count too: where the cycle put them decides
		// what the members after them see.
		for _, m := range g.Members {
			if !uniqueTop(dpods[m]) {
				st.afterTie += len(d.Pods) - k
				return "", "", prebind
			}
		}
		st.groups++
		switch {
		case !g.Tried:
			st.groupsUntried++
		case g.Result == "placed":
			st.groupsPlaced++
		case g.Result == "error":
			st.groupsError++
		default:
			st.groupsUnschedulable++
		}
		ug := ugroups[g.Group]
		var dc schedCondition
		if g.Condition != nil {
			dc = *g.Condition
		}
		if strings.Contains(dc.Message, "running PreBind plugin") {
			return "member prebind", fmt.Sprintf("pod group %s: dractl %q, upstream %q %q (%s)",
				g.Group, dc.Message, ug.Status, ug.Reason, ug.Message), prebind
		}
		if dc.Status != ug.Status || dc.Reason != ug.Reason {
			return "group condition", fmt.Sprintf("pod group %s: dractl %q %q (%s), upstream %q %q (%s)",
				g.Group, dc.Status, dc.Reason, dc.Message, ug.Status, ug.Reason, ug.Message), prebind
		}
		if dc.Message != ug.Message {
			return "group message", fmt.Sprintf("pod group %s: dractl %q, upstream %q", g.Group, dc.Message, ug.Message), prebind
		}
		for _, m := range g.Members {
			if class, what := diffGangPod(dpods[m], upods[m], true, st); class != "" {
				return class, fmt.Sprintf("pod %s (group %s): %s", m, g.Group, what), prebind
			}
			// A member whose binding cycle failed at PreBind on both sides.
			dp, up := dpods[m], upods[m]
			prebind = prebind || (dp.Error && up.Error && strings.Contains(dp.Message, "running PreBind plugin"))
		}
	}
	return "", "", prebind
}

// diffGangPod compares one pod: placed or not, the node (dractl's choice
// being unique), the message of an unschedulable pod (a member's exactly;
// a single pod's without upstream's preemption text), an error's kind only.
func diffGangPod(d, u schedPod, member bool, st *gangStats) (string, string) {
	switch {
	case d.Error != u.Error:
		return "error", fmt.Sprintf("error: dractl %v %q, upstream %v %q", d.Error, d.Message, u.Error, u.Message)
	case d.Error:
		return "", ""
	case (d.Node == "") != (u.Node == ""):
		return "placed", fmt.Sprintf("dractl node %q %q, upstream node %q %q", d.Node, d.Message, u.Node, u.Message)
	case d.Node != "":
		if !uniqueChoice(d) {
			return "", ""
		}
		st.nodesCompared++
		if d.Node != u.Node {
			return "node", fmt.Sprintf("dractl %q, upstream %q", d.Node, u.Node)
		}
		return "", ""
	}
	if d.Message == u.Message || (!member && singlePreemptionSuffix(d.Message, u.Message)) {
		return "", ""
	}
	class := "message"
	if member {
		class = "member message"
	}
	return class, fmt.Sprintf("dractl %q, upstream %q", d.Message, u.Message)
}
