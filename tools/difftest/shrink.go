package main

// Shrinking a mismatching scenario: greedily delete parts of the document
// (objects, devices, requests, attributes, any list element or map entry,
// outermost first) as long as the two engines still disagree in the same
// class. Claims deleted from objects are also dropped from `allocate`.

import (
	"fmt"
	"os"
)

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	case []string:
		return strs(x)
	default:
		return v
	}
}

// paths lists every deletable location in pre-order (parents first).
func paths(v any, prefix []any, out *[][]any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p := append(append([]any{}, prefix...), k)
			if deletableKey(prefix, k) {
				*out = append(*out, p)
			}
			paths(x[k], p, out)
		}
	case []any:
		for i := range x {
			p := append(append([]any{}, prefix...), i)
			*out = append(*out, p)
			paths(x[i], p, out)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	// Stable order: plain sort.
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// deletableKey: keys whose removal only makes the scenario malformed are
// skipped to save runs.
func deletableKey(prefix []any, k string) bool {
	if len(prefix) == 0 {
		switch k {
		case "features", "objects", "allocatedShares", "allocatedDevices":
			return k == "features"
		}
		return false
	}
	switch k {
	case "apiVersion", "kind", "metadata", "name", "namespace", "driver", "pool", "generation", "resourceSliceCount", "deviceClassName", "spec", "devices", "requests", "value", "shareID", "allowMultipleAllocations", "cel", "expression",
		"string", "int", "bool", "version", "strings", "ints", "bools", "versions":
		return false
	}
	return true
}

func deletePath(doc obj, p []any) obj {
	c := deepCopy(doc).(map[string]any)
	var parent any = c
	for _, step := range p[:len(p)-1] {
		switch s := step.(type) {
		case string:
			parent = parent.(map[string]any)[s]
		case int:
			parent = parent.([]any)[s]
		}
	}
	last := p[len(p)-1]
	if len(p) == 2 && p[0] == "objects" {
		// Deleting a slice: keep its pool complete.
		if o, _ := c["objects"].([]any)[p[1].(int)].(map[string]any); o["kind"] == "ResourceSlice" {
			adjustSliceCount(c, o)
		}
	}
	switch s := last.(type) {
	case string:
		delete(parent.(map[string]any), s)
	case int:
		list := parent.([]any)
		list = append(list[:s:s], list[s+1:]...)
		setAt(c, p[:len(p)-1], list)
	}
	fixup(c)
	return c
}

func setAt(doc obj, p []any, v any) {
	var parent any = doc
	for _, step := range p[:len(p)-1] {
		switch s := step.(type) {
		case string:
			parent = parent.(map[string]any)[s]
		case int:
			parent = parent.([]any)[s]
		}
	}
	switch s := p[len(p)-1].(type) {
	case string:
		parent.(map[string]any)[s] = v
	case int:
		parent.([]any)[s] = v
	}
}

// fixup drops `allocate` entries whose claim is gone.
func fixup(doc obj) {
	present := map[string]bool{}
	objs, _ := doc["objects"].([]any)
	for _, o := range objs {
		m, _ := o.(map[string]any)
		if m["kind"] != "ResourceClaim" {
			continue
		}
		md, _ := m["metadata"].(map[string]any)
		present[fmt.Sprintf("%v/%v", md["namespace"], md["name"])] = true
	}
	al, _ := doc["allocate"].([]any)
	var keep []any
	for _, a := range al {
		if present[fmt.Sprint(a)] || a == "default/claim-missing" {
			keep = append(keep, a)
		}
	}
	if len(keep) == 0 {
		keep = []any{}
	}
	doc["allocate"] = keep
}

// shrink returns the smallest document found that still mismatches in the
// same class, with both outcomes for it.
func shrink(r *runner, m mismatch) (obj, map[string]any, map[string]any) {
	doc := deepCopy(m.doc).(map[string]any)
	d, u := m.dractl, m.upstream
	budget := 3000
	for pass := 0; pass < 4 && budget > 0; pass++ {
		changed := false
		for i := 0; budget > 0; i++ {
			var ps [][]any
			paths(doc, nil, &ps)
			if i >= len(ps) {
				break
			}
			cand := deletePath(doc, ps[i])
			if al, _ := cand["allocate"].([]any); len(al) == 0 {
				continue
			}
			budget--
			diff, cd, cu, err := r.compare(cand)
			if err != nil {
				fmt.Fprintf(os.Stderr, "difftest: shrinking: %v\n", err)
				return doc, d, u
			}
			if diff != nil && diff.Class == m.diff.Class {
				doc, d, u = cand, cd, cu
				changed = true
				i-- // the next path now sits at i
			}
		}
		if !changed {
			break
		}
	}
	return doc, d, u
}

// adjustSliceCount lowers resourceSliceCount of the other slices of the
// removed slice's pool and generation.
func adjustSliceCount(doc obj, removed map[string]any) {
	spec, _ := removed["spec"].(map[string]any)
	pool, _ := spec["pool"].(map[string]any)
	for _, o := range doc["objects"].([]any) {
		m, _ := o.(map[string]any)
		if m["kind"] != "ResourceSlice" {
			continue
		}
		sp, _ := m["spec"].(map[string]any)
		pl, _ := sp["pool"].(map[string]any)
		if sp["driver"] != spec["driver"] || pl["name"] != pool["name"] || fmt.Sprint(pl["generation"]) != fmt.Sprint(pool["generation"]) {
			continue
		}
		var n int64
		fmt.Sscan(fmt.Sprint(pl["resourceSliceCount"]), &n)
		if n > 1 {
			pl["resourceSliceCount"] = n - 1
		}
	}
}
