package main

// `oracle compare`: runs dractl and the oracle on every allocator scenario
// (*.yaml) and every Kubernetes-profile CEL file (dra-*.jsonl, k8s-*.jsonl)
// under the given paths and compares the outcomes semantically:
//
//   - allocator: error / unsatisfiable / allocations must agree; for errors
//     only the kind counts; allocations per claim in order, results within a
//     claim as a multiset (as tests/conformance/allocator_conformance_test.cc
//     does), quantities by value, empty lists and false adminAccess dropped,
//     toleration operator defaulted, share IDs wildcards (any non-empty value
//     matches any other);
//   - CEL: per vector, error against error (any message) or equal typed values.
//
// One line per mismatch, then `N compared, M mismatches`. Exit 0 iff M == 0.
//
// With --against expect the oracle is compared with the vectors' own
// `expect` instead of with dractl (checks the vectors against upstream).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

type compareOptions struct {
	dractl  string
	against string // "dractl" or "expect"
	order   bool   // also require the result order within a claim to agree
	timeout time.Duration
	verbose bool
	// corrections: a directory whose files replace same-named vector files
	// found in the given directories (tests/conformance/corrections).
	corrections string
}

func cmdCompare(args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var o compareOptions
	fs.StringVar(&o.dractl, "dractl", "build/release/src/cli/dractl", "the dractl binary")
	fs.StringVar(&o.against, "against", "dractl", "compare the oracle with `dractl` or with the vectors' `expect`")
	fs.BoolVar(&o.order, "order", false, "also require the same result order within a claim (the reference search order)")
	fs.DurationVar(&o.timeout, "timeout", 120*time.Second, "per scenario, for each side")
	fs.BoolVar(&o.verbose, "v", false, "print every comparison, not only mismatches")
	fs.StringVar(&o.corrections, "corrections", "", "directory of corrected vector files that replace same-named ones")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: oracle compare [flags] DIR_OR_FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.against != "dractl" && o.against != "expect" {
		fmt.Fprintln(os.Stderr, "oracle compare: --against must be dractl or expect")
		return 2
	}
	files, err := collectFiles(fs.Args(), o.corrections)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle compare: %v\n", err)
		return 2
	}
	// Per kind: [compared, mismatches].
	counts := map[string]*[2]int{"allocator scenarios": {}, "cel vectors": {}}
	for _, f := range files {
		var lines []string
		var n int
		kind := "allocator scenarios"
		if strings.HasSuffix(f, ".jsonl") {
			kind = "cel vectors"
			n, lines = compareCelFile(f, o)
		} else {
			n, lines = compareScenario(f, o)
		}
		counts[kind][0] += n
		counts[kind][1] += len(lines)
		for _, l := range lines {
			fmt.Println(l)
		}
	}
	compared, mismatches := 0, 0
	for _, kind := range []string{"allocator scenarios", "cel vectors"} {
		c := counts[kind]
		if c[0] > 0 {
			fmt.Printf("%s: %d compared, %d mismatches\n", kind, c[0], c[1])
		}
		compared += c[0]
		mismatches += c[1]
	}
	fmt.Printf("%d compared, %d mismatches\n", compared, mismatches)
	if mismatches != 0 {
		return 1
	}
	return 0
}

// collectFiles expands directories: *.yaml scenarios (not INDEX or README),
// and dra-*.jsonl / k8s-*.jsonl CEL files. Files named explicitly are taken as they are.
func collectFiles(paths []string, corrections string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if !strings.HasSuffix(n, ".yaml") &&
				!(strings.HasSuffix(n, ".jsonl") && (strings.HasPrefix(n, "dra-") || strings.HasPrefix(n, "k8s-"))) {
				continue
			}
			path := filepath.Join(p, n)
			if corrections != "" {
				if c := filepath.Join(corrections, n); c != path {
					if _, err := os.Stat(c); err == nil {
						fmt.Fprintf(os.Stderr, "using correction %s\n", c)
						path = c
					}
				}
			}
			names = append(names, path)
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out, nil
}

// --- Allocator -----------------------------------------------------------------------

// runDractlScenario returns dractl's printed outcome as a generic document.
func runDractlScenario(path string, o compareOptions) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.dractl, "allocate", "--scenario", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dractl: %v: %s", err, firstLine(stderr.String()))
	}
	return yamlDoc(stdout.Bytes())
}

// runOracleScenario runs the oracle in this process, as `oracle allocate`
// would, and returns the same generic document.
func runOracleScenario(path string, o compareOptions) (doc map[string]any, err error) {
	s, err := loadScenario(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("oracle panicked: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	data, err := outcomeJSON(runScenarioContext(ctx, s))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(data, &m)
}

func yamlDoc(text []byte) (map[string]any, error) {
	data, err := yamlToJSON(text)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func compareScenario(path string, o compareOptions) (int, []string) {
	name := filepath.Base(path)
	oracle, err := runOracleScenario(path, o)
	if err != nil {
		return 1, []string{fmt.Sprintf("%s: oracle failed: %v", name, err)}
	}
	var other map[string]any
	otherName := "dractl"
	if o.against == "expect" {
		otherName = "expect"
		f, err := readScenarioFile(path)
		if err != nil {
			return 1, []string{fmt.Sprintf("%s: %v", name, err)}
		}
		other = f.Expect
	} else {
		other, err = runDractlScenario(path, o)
		if err != nil {
			return 1, []string{fmt.Sprintf("%s: %v", name, err)}
		}
	}
	diff := diffOutcomes(other, oracle, o.order)
	if diff == "" {
		if o.verbose {
			fmt.Printf("ok %s: %s\n", name, summarise(oracle))
		}
		return 1, nil
	}
	return 1, []string{fmt.Sprintf("%s: %s\n    %s: %s\n    oracle: %s", name, diff, otherName, summarise(other), summarise(oracle))}
}

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

// diffOutcomes returns "" when the two outcomes agree, else what differs.
func diffOutcomes(want, got map[string]any, order bool) string {
	wk, gk := outcomeKind(want), outcomeKind(got)
	if wk != gk {
		return fmt.Sprintf("outcome differs (%s vs %s)", wk, gk)
	}
	if wk != "allocations" {
		return ""
	}
	wl, _ := want["allocations"].([]any)
	gl, _ := got["allocations"].([]any)
	if len(wl) != len(gl) {
		return fmt.Sprintf("%d vs %d allocations", len(wl), len(gl))
	}
	for i := range wl {
		w, _ := wl[i].(map[string]any)
		g, _ := gl[i].(map[string]any)
		claim, _ := w["claim"].(string)
		if claim != g["claim"] {
			return fmt.Sprintf("claim %d: %v vs %v", i, w["claim"], g["claim"])
		}
		wd, _ := w["devices"].(map[string]any)
		gd, _ := g["devices"].(map[string]any)
		wr := normaliseResults(wd["results"])
		gr := normaliseResults(gd["results"])
		if len(wr) != len(gr) {
			return fmt.Sprintf("%s: %d vs %d results", claim, len(wr), len(gr))
		}
		used := make([]bool, len(gr))
		for _, r := range wr {
			found := false
			for j := range gr {
				if !used[j] && resultsEqual(r, gr[j]) {
					used[j], found = true, true
					break
				}
			}
			if !found {
				return fmt.Sprintf("%s: result %s not matched", claim, describeResult(r))
			}
		}
		if order {
			for j := range wr {
				if !resultsEqual(wr[j], gr[j]) {
					return fmt.Sprintf("%s: result order differs at %d", claim, j)
				}
			}
		}
		if !reflect.DeepEqual(normalise(wd["config"], ""), normalise(gd["config"], "")) {
			return fmt.Sprintf("%s: config differs", claim)
		}
		if !reflect.DeepEqual(normalise(w["nodeSelector"], ""), normalise(g["nodeSelector"], "")) {
			return fmt.Sprintf("%s: nodeSelector differs", claim)
		}
	}
	return ""
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

// resultsEqual compares two normalised results with share IDs as wildcards.
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

// normalise drops nulls, empty lists and empty maps, and rewrites quantities
// (values under consumedCapacity) in canonical form.
func normalise(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if key == "consumedCapacity" {
				if s, ok := e.(string); ok {
					if q, err := resource.ParseQuantity(s); err == nil {
						out[k] = quantityKey(q)
						continue
					}
				}
				if f, ok := e.(float64); ok {
					out[k] = quantityKey(*resource.NewQuantity(int64(f), resource.DecimalSI))
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
	default:
		return v
	}
}

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

// quantityKey is the exact value of a quantity as a reduced fraction, so that
// `1Gi` and `1073741824` compare equal.
func quantityKey(q resource.Quantity) string {
	r, ok := new(big.Rat).SetString(q.AsDec().String())
	if !ok {
		return q.String()
	}
	return r.RatString()
}
