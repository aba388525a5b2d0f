// Package compare holds the rules by which tools/oracle (`oracle compare`)
// and tools/difftest compare two allocation outcomes (FORMAT.md §3, read as
// generic maps): the kind (allocations / unsatisfiable / error; errors of any
// wording agree), then per claim in order the claim name, the results, the
// config and the node selector. Share IDs are wildcards (any non-empty value
// matches any other), quantities under consumedCapacity compare by value,
// nulls, empty lists and maps and `adminAccess: false` are dropped, and
// toleration operators default to Equal.
//
// What stays with each tool: how a quantity is parsed (Rules.Quantity), how
// the results of a claim must agree (in order or as a multiset, the
// resultsAgree argument of Compare) and the wording of a Difference.
package compare

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Rules are the normalisation rules that differ between the tools.
type Rules struct {
	// Quantity returns the exact value of a value found under
	// consumedCapacity, as a reduced fraction; ok false leaves the value to
	// the generic rules.
	Quantity func(v any) (key string, ok bool)
	// IntegralFloats turns integral float64 numbers into int (JSON numbers
	// against YAML integers).
	IntegralFloats bool
}

// OutcomeKind is "allocations", "unsatisfiable", "error" or "nothing".
func OutcomeKind(doc map[string]any) string {
	switch {
	case doc == nil:
		return "nothing"
	case doc["error"] != nil:
		return "error"
	case doc["unsatisfiable"] == true:
		return "unsatisfiable"
	case doc["allocations"] != nil:
		return "allocations"
	}
	return "nothing"
}

// Step names the comparison at which two outcomes first differ.
type Step int

const (
	// KindStep: the outcome kinds differ (WantKind, GotKind).
	KindStep Step = iota + 1
	// AllocationCountStep: the numbers of allocations differ (WantLen, GotLen).
	AllocationCountStep
	// ClaimStep: the claims at Index differ (WantClaim, GotClaim).
	ClaimStep
	// ResultCountStep: Claim has different numbers of results (WantLen, GotLen).
	ResultCountStep
	// ResultsStep: resultsAgree rejected Claim's results (WantResults, GotResults).
	ResultsStep
	// ConfigStep: Claim's config differs.
	ConfigStep
	// NodeSelectorStep: Claim's node selector differs.
	NodeSelectorStep
)

// Difference is the first difference Compare finds.
type Difference struct {
	Step                    Step
	WantKind, GotKind       string
	WantLen, GotLen         int
	Index                   int
	WantClaim, GotClaim     any
	Claim                   string
	WantResults, GotResults []map[string]any
}

// Compare returns the first difference between two outcomes, nil when they
// agree. The results of a claim, normalised, agree when resultsAgree says so.
func (r Rules) Compare(want, got map[string]any, resultsAgree func(want, got []map[string]any) bool) *Difference {
	wk, gk := OutcomeKind(want), OutcomeKind(got)
	if wk != gk {
		return &Difference{Step: KindStep, WantKind: wk, GotKind: gk}
	}
	if wk != "allocations" {
		return nil
	}
	wl, _ := want["allocations"].([]any)
	gl, _ := got["allocations"].([]any)
	if len(wl) != len(gl) {
		return &Difference{Step: AllocationCountStep, WantLen: len(wl), GotLen: len(gl)}
	}
	for i := range wl {
		w, _ := wl[i].(map[string]any)
		g, _ := gl[i].(map[string]any)
		claim, _ := w["claim"].(string)
		if claim != g["claim"] {
			return &Difference{Step: ClaimStep, Index: i, WantClaim: w["claim"], GotClaim: g["claim"]}
		}
		wd, _ := w["devices"].(map[string]any)
		gd, _ := g["devices"].(map[string]any)
		wr := r.NormaliseResults(wd["results"])
		gr := r.NormaliseResults(gd["results"])
		if len(wr) != len(gr) {
			return &Difference{Step: ResultCountStep, Claim: claim, WantLen: len(wr), GotLen: len(gr)}
		}
		if !resultsAgree(wr, gr) {
			return &Difference{Step: ResultsStep, Claim: claim, WantResults: wr, GotResults: gr}
		}
		if !reflect.DeepEqual(r.Normalise(wd["config"], ""), r.Normalise(gd["config"], "")) {
			return &Difference{Step: ConfigStep, Claim: claim}
		}
		if !reflect.DeepEqual(r.Normalise(w["nodeSelector"], ""), r.Normalise(g["nodeSelector"], "")) {
			return &Difference{Step: NodeSelectorStep, Claim: claim}
		}
	}
	return nil
}

// NormaliseResults normalises a claim's results: adminAccess false dropped,
// toleration operators defaulted to Equal.
func (r Rules) NormaliseResults(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		m, _ := r.Normalise(e, "").(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if m["adminAccess"] == false {
			delete(m, "adminAccess")
		}
		if tl, ok := m["tolerations"].([]any); ok {
			for _, t := range tl {
				if tm, ok := t.(map[string]any); ok && tm["operator"] == nil {
					tm["operator"] = "Equal"
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// Normalise drops nulls, empty lists and empty maps and rewrites the values
// under consumedCapacity with Rules.Quantity; key is v's key in its parent.
func (r Rules) Normalise(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if key == "consumedCapacity" && r.Quantity != nil {
				if q, ok := r.Quantity(e); ok {
					out[k] = q
					continue
				}
			}
			if n := r.Normalise(e, k); n != nil {
				out[k] = n
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, r.Normalise(e, ""))
		}
		return out
	case float64:
		if r.IntegralFloats && x == float64(int64(x)) {
			return int(x)
		}
		return x
	default:
		return v
	}
}

// ResultsEqual compares two normalised results with share IDs as wildcards.
func ResultsEqual(a, b map[string]any) bool {
	sa, aok := a["shareID"].(string)
	sb, bok := b["shareID"].(string)
	if aok != bok || (aok && (sa == "") != (sb == "")) {
		return false
	}
	ac, bc := ShallowCopy(a), ShallowCopy(b)
	delete(ac, "shareID")
	delete(bc, "shareID")
	return reflect.DeepEqual(ac, bc)
}

// InOrder returns the first position where the results differ, -1 when they
// agree position by position.
func InOrder(a, b []map[string]any) int {
	for j := range a {
		if !ResultsEqual(a[j], b[j]) {
			return j
		}
	}
	return -1
}

// Unmatched returns the first result of a that no unused result of b equals
// (results taken as multisets), nil when every result of a is matched.
func Unmatched(a, b []map[string]any) map[string]any {
	used := make([]bool, len(b))
	for _, r := range a {
		found := false
		for j := range b {
			if !used[j] && ResultsEqual(r, b[j]) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return r
		}
	}
	return nil
}

// ShallowCopy copies a map's top level.
func ShallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// DescribeResult writes a result on one line: request:driver/pool/device,
// then admin, share and the other fields as JSON, sorted.
func DescribeResult(r map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v:%v/%v/%v", r["request"], r["driver"], r["pool"], r["device"])
	if r["adminAccess"] == true {
		b.WriteString(" admin")
	}
	if s, ok := r["shareID"].(string); ok {
		if s == "" {
			b.WriteString(" share=\"\"")
		} else {
			b.WriteString(" share")
		}
	}
	var extra []string
	for k, v := range r {
		switch k {
		case "request", "driver", "pool", "device", "adminAccess", "shareID":
			continue
		}
		j, _ := json.Marshal(v)
		extra = append(extra, fmt.Sprintf("%s=%s", k, j))
	}
	sort.Strings(extra)
	for _, e := range extra {
		b.WriteString(" " + e)
	}
	return b.String()
}

// Summarise writes an outcome on one line.
func (r Rules) Summarise(doc map[string]any) string {
	switch OutcomeKind(doc) {
	case "error":
		return fmt.Sprintf("error: %v", doc["error"])
	case "unsatisfiable":
		return "unsatisfiable"
	case "nothing":
		return "(no outcome)"
	}
	var parts []string
	list, _ := doc["allocations"].([]any)
	for _, a := range list {
		m, _ := a.(map[string]any)
		d, _ := m["devices"].(map[string]any)
		var rs []string
		for _, res := range r.NormaliseResults(d["results"]) {
			rs = append(rs, DescribeResult(res))
		}
		s := fmt.Sprintf("%v[%s]", m["claim"], strings.Join(rs, ", "))
		if c := r.Normalise(d["config"], ""); c != nil {
			j, _ := json.Marshal(c)
			s += " config=" + string(j)
		}
		if ns := r.Normalise(m["nodeSelector"], ""); ns != nil {
			j, _ := json.Marshal(ns)
			s += " nodeSelector=" + string(j)
		}
		parts = append(parts, s)
	}
	return "allocations: " + strings.Join(parts, "; ")
}
