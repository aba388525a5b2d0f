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
// The allocator rules are tools/compare's, which tools/difftest uses too;
// quantities are parsed here as Kubernetes does (resource.ParseQuantity).
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
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"dractl/tools/compare"
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
			fmt.Printf("ok %s: %s\n", name, rules.Summarise(oracle))
		}
		return 1, nil
	}
	return 1, []string{fmt.Sprintf("%s: %s\n    %s: %s\n    oracle: %s", name, diff, otherName, rules.Summarise(other), rules.Summarise(oracle))}
}

// rules: quantities by value as Kubernetes parses them.
var rules = compare.Rules{Quantity: quantityOf}

func quantityOf(v any) (string, bool) {
	if s, ok := v.(string); ok {
		if q, err := resource.ParseQuantity(s); err == nil {
			return quantityKey(q), true
		}
	}
	if f, ok := v.(float64); ok {
		return quantityKey(*resource.NewQuantity(int64(f), resource.DecimalSI)), true
	}
	return "", false
}

// diffOutcomes returns "" when the two outcomes agree, else what differs:
// the results of a claim as a multiset and, with order, also in order.
func diffOutcomes(want, got map[string]any, order bool) string {
	d := rules.Compare(want, got, func(w, g []map[string]any) bool {
		return compare.Unmatched(w, g) == nil && (!order || compare.InOrder(w, g) < 0)
	})
	if d == nil {
		return ""
	}
	switch d.Step {
	case compare.KindStep:
		return fmt.Sprintf("outcome differs (%s vs %s)", d.WantKind, d.GotKind)
	case compare.AllocationCountStep:
		return fmt.Sprintf("%d vs %d allocations", d.WantLen, d.GotLen)
	case compare.ClaimStep:
		return fmt.Sprintf("claim %d: %v vs %v", d.Index, d.WantClaim, d.GotClaim)
	case compare.ResultCountStep:
		return fmt.Sprintf("%s: %d vs %d results", d.Claim, d.WantLen, d.GotLen)
	case compare.ResultsStep:
		if r := compare.Unmatched(d.WantResults, d.GotResults); r != nil {
			return fmt.Sprintf("%s: result %s not matched", d.Claim, compare.DescribeResult(r))
		}
		return fmt.Sprintf("%s: result order differs at %d", d.Claim, compare.InOrder(d.WantResults, d.GotResults))
	case compare.ConfigStep:
		return fmt.Sprintf("%s: config differs", d.Claim)
	default:
		return fmt.Sprintf("%s: nodeSelector differs", d.Claim)
	}
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
