package main

// Comparing two outcomes (FORMAT.md §3 documents as generic maps): the kind
// (allocations / unsatisfiable / error), then per claim the results in order,
// the config and the node selector. Share IDs are wildcards (any non-empty
// value matches any other), quantities compare by value, empty lists, nulls
// and `adminAccess: false` are dropped, toleration operators default to Equal.
// The rules are tools/compare's, which `oracle compare` uses too (these are
// its rules with --order); the wording of a Diff and the quantity parser are
// this tool's.

import (
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"

	"dractl/tools/compare"
)

// rules: quantities parsed here (quantityKey, no Kubernetes dependency), and
// integral JSON numbers compare equal to YAML integers.
var rules = compare.Rules{Quantity: quantityOf, IntegralFloats: true}

func quantityOf(v any) (string, bool) {
	s := fmt.Sprint(v)
	if s == "" {
		return "", false
	}
	return quantityKey(s), true
}

func outcomeKind(doc map[string]any) string { return compare.OutcomeKind(doc) }

func shallowCopy(m map[string]any) map[string]any { return compare.ShallowCopy(m) }

// summarise prints an outcome on one line.
func summarise(doc map[string]any) string { return rules.Summarise(doc) }

// Diff is what differs between two outcomes: Class is stable across
// scenarios (no names), Detail says where.
type Diff struct {
	Class  string
	Detail string
}

// diffOutcomes compares dractl's outcome (got) with upstream's (want): the
// results of a claim in order; when they differ, whether as a multiset
// (order), in the same devices (fields) or in the devices.
func diffOutcomes(got, want map[string]any) *Diff {
	d := rules.Compare(want, got, func(w, g []map[string]any) bool { return compare.InOrder(g, w) < 0 })
	if d == nil {
		return nil
	}
	switch d.Step {
	case compare.KindStep:
		gk, wk := d.GotKind, d.WantKind
		return &Diff{Class: fmt.Sprintf("dractl %s, upstream %s", gk, wk), Detail: fmt.Sprintf("outcome differs (dractl %s vs upstream %s)", gk, wk)}
	case compare.AllocationCountStep:
		return &Diff{Class: "claim count", Detail: fmt.Sprintf("%d vs %d allocations", d.GotLen, d.WantLen)}
	case compare.ClaimStep:
		return &Diff{Class: "claim order", Detail: fmt.Sprintf("claim %d: %v vs %v", d.Index, d.GotClaim, d.WantClaim)}
	case compare.ResultCountStep:
		return &Diff{Class: "result count", Detail: fmt.Sprintf("%s: %d vs %d results", d.Claim, d.GotLen, d.WantLen)}
	case compare.ResultsStep:
		return resultsDiff(d.Claim, d.GotResults, d.WantResults)
	case compare.ConfigStep:
		return &Diff{Class: "config", Detail: fmt.Sprintf("%s: config differs", d.Claim)}
	default:
		return &Diff{Class: "nodeSelector", Detail: fmt.Sprintf("%s: nodeSelector differs", d.Claim)}
	}
}

// resultsDiff says how a claim's results differ at the first position where
// they do: same devices in another order, or different devices or fields.
func resultsDiff(claim string, gr, wr []map[string]any) *Diff {
	j := compare.InOrder(gr, wr)
	if compare.Unmatched(gr, wr) == nil {
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
	return &Diff{Class: "different " + what, Detail: fmt.Sprintf("%s: result %d: dractl %s, upstream %s", claim, j, compare.DescribeResult(gr[j]), compare.DescribeResult(wr[j]))}
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
