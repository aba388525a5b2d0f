package main

// Comparing two outcomes (FORMAT.md §3 documents as generic maps): the kind
// (allocations / unsatisfiable / error), then per claim the results in order,
// the config and the node selector. Share IDs are wildcards (any non-empty
// value matches any other), quantities compare by value, empty lists, nulls
// and `adminAccess: false` are dropped, toleration operators default to Equal.
// The same rules as tools/oracle/compare.go with --order.

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"
)

func outcomeKind(doc map[string]any) string {
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

// Diff is what differs between two outcomes: Class is stable across
// scenarios (no names), Detail says where.
type Diff struct {
	Class  string
	Detail string
}

// diffOutcomes compares dractl's outcome (got) with upstream's (want).
func diffOutcomes(got, want map[string]any) *Diff {
	gk, wk := outcomeKind(got), outcomeKind(want)
	if gk != wk {
		return &Diff{Class: fmt.Sprintf("dractl %s, upstream %s", gk, wk), Detail: fmt.Sprintf("outcome differs (dractl %s vs upstream %s)", gk, wk)}
	}
	if wk != "allocations" {
		return nil
	}
	gl, _ := got["allocations"].([]any)
	wl, _ := want["allocations"].([]any)
	if len(gl) != len(wl) {
		return &Diff{Class: "claim count", Detail: fmt.Sprintf("%d vs %d allocations", len(gl), len(wl))}
	}
	for i := range wl {
		g, _ := gl[i].(map[string]any)
		w, _ := wl[i].(map[string]any)
		claim, _ := w["claim"].(string)
		if claim != g["claim"] {
			return &Diff{Class: "claim order", Detail: fmt.Sprintf("claim %d: %v vs %v", i, g["claim"], w["claim"])}
		}
		gd, _ := g["devices"].(map[string]any)
		wd, _ := w["devices"].(map[string]any)
		gr := normaliseResults(gd["results"])
		wr := normaliseResults(wd["results"])
		if len(gr) != len(wr) {
			return &Diff{Class: "result count", Detail: fmt.Sprintf("%s: %d vs %d results", claim, len(gr), len(wr))}
		}
		// Same devices in another order, or different devices?
		for j := range wr {
			if !resultsEqual(gr[j], wr[j]) {
				if multisetEqual(gr, wr) {
					return &Diff{Class: "result order", Detail: fmt.Sprintf("%s: result order differs at %d", claim, j)}
				}
				what := "devices"
				if sameDevices(gr[j], wr[j]) {
					what = "result fields"
					var ks []string
					for _, k := range fieldDiffs(gr[j], wr[j]) {
						ks = append(ks, k)
					}
					what += " " + strings.Join(ks, ",")
				}
				return &Diff{Class: "different " + what, Detail: fmt.Sprintf("%s: result %d: dractl %s, upstream %s", claim, j, describeResult(gr[j]), describeResult(wr[j]))}
			}
		}
		if !reflect.DeepEqual(normalise(gd["config"], ""), normalise(wd["config"], "")) {
			return &Diff{Class: "config", Detail: fmt.Sprintf("%s: config differs", claim)}
		}
		if !reflect.DeepEqual(normalise(g["nodeSelector"], ""), normalise(w["nodeSelector"], "")) {
			return &Diff{Class: "nodeSelector", Detail: fmt.Sprintf("%s: nodeSelector differs", claim)}
		}
	}
	return nil
}

func sameDevices(a, b map[string]any) bool {
	for _, k := range []string{"request", "driver", "pool", "device"} {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

func fieldDiffs(a, b map[string]any) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if k == "shareID" {
			_, aok := a[k].(string)
			_, bok := b[k].(string)
			if aok != bok {
				out = append(out, k)
			}
			continue
		}
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func multisetEqual(a, b []map[string]any) bool {
	used := make([]bool, len(b))
	for _, r := range a {
		found := false
		for j := range b {
			if !used[j] && resultsEqual(r, b[j]) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func normaliseResults(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, r := range list {
		m, _ := normalise(r, "").(map[string]any)
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

func resultsEqual(a, b map[string]any) bool {
	sa, aok := a["shareID"].(string)
	sb, bok := b["shareID"].(string)
	if aok != bok || (aok && (sa == "") != (sb == "")) {
		return false
	}
	ac, bc := shallowCopy(a), shallowCopy(b)
	delete(ac, "shareID")
	delete(bc, "shareID")
	return reflect.DeepEqual(ac, bc)
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// normalise drops nulls, empty lists and maps, and writes quantities under
// consumedCapacity as exact fractions.
func normalise(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if key == "consumedCapacity" {
				if s := fmt.Sprint(e); s != "" {
					out[k] = quantityKey(s)
					continue
				}
			}
			if n := normalise(e, k); n != nil {
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
			out = append(out, normalise(e, ""))
		}
		return out
	case float64:
		// JSON numbers from the oracle vs YAML ints from dractl.
		if x == float64(int64(x)) {
			return int(x)
		}
		return x
	default:
		return v
	}
}

// quantityKey parses a Kubernetes quantity (decimal or binary suffix,
// exponent) into an exact fraction; unparsable text stays as it is.
func quantityKey(s string) string {
	s = strings.TrimSpace(s)
	suffixes := []struct {
		s string
		m *big.Rat
	}{
		{"Ki", pow(2, 10)}, {"Mi", pow(2, 20)}, {"Gi", pow(2, 30)}, {"Ti", pow(2, 40)}, {"Pi", pow(2, 50)}, {"Ei", pow(2, 60)},
		{"n", frac(1, 1e9)}, {"u", frac(1, 1e6)}, {"m", frac(1, 1e3)},
		{"k", pow(10, 3)}, {"M", pow(10, 6)}, {"G", pow(10, 9)}, {"T", pow(10, 12)}, {"P", pow(10, 15)}, {"E", pow(10, 18)},
	}
	mult := big.NewRat(1, 1)
	num := s
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf.s) {
			num = strings.TrimSuffix(s, suf.s)
			mult = suf.m
			break
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return s
	}
	return r.Mul(r, mult).RatString()
}

func pow(b, e int64) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(b), big.NewInt(e), nil))
}
func frac(a, b int64) *big.Rat { return big.NewRat(a, b) }

func describeResult(r map[string]any) string {
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

// summarise prints an outcome on one line.
func summarise(doc map[string]any) string {
	switch outcomeKind(doc) {
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
		for _, r := range normaliseResults(d["results"]) {
			rs = append(rs, describeResult(r))
		}
		s := fmt.Sprintf("%v[%s]", m["claim"], strings.Join(rs, ", "))
		if c := normalise(d["config"], ""); c != nil {
			j, _ := json.Marshal(c)
			s += " config=" + string(j)
		}
		if ns := normalise(m["nodeSelector"], ""); ns != nil {
			j, _ := json.Marshal(ns)
			s += " nodeSelector=" + string(j)
		}
		parts = append(parts, s)
	}
	return "allocations: " + strings.Join(parts, "; ")
}
