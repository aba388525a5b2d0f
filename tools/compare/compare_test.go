package compare

import (
	"encoding/json"
	"testing"
)

func doc(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A quantity parser for the tests: "1Ki" is 1024, anything else its text.
var testRules = Rules{Quantity: func(v any) (string, bool) {
	if v == "1Ki" {
		return "1024", true
	}
	s, ok := v.(string)
	return s, ok
}}

func inOrder(w, g []map[string]any) bool { return InOrder(w, g) < 0 }

func TestCompareSteps(t *testing.T) {
	base := `{"allocations": [{"claim": "ns/c", "devices": {"results": [
		{"request": "r", "driver": "d", "pool": "p", "device": "a", "shareID": "x", "consumedCapacity": {"mem": "1Ki"}},
		{"request": "r", "driver": "d", "pool": "p", "device": "b"}]},
		"nodeSelector": {"k": ["n"]}}]}`
	for _, tc := range []struct {
		name, other string
		step        Step
	}{
		{"identical", base, 0},
		{"dropped empties, other share ID, quantity by value", `{"allocations": [{"claim": "ns/c", "devices": {"results": [
			{"request": "r", "driver": "d", "pool": "p", "device": "a", "shareID": "y", "consumedCapacity": {"mem": "1024"}},
			{"request": "r", "driver": "d", "pool": "p", "device": "b", "adminAccess": false, "tolerations": []}], "config": []},
			"nodeSelector": {"k": ["n"]}, "extra": null}]}`, 0},
		{"error", `{"error": "x"}`, KindStep},
		{"two allocations", `{"allocations": [{"claim": "ns/c"}, {"claim": "ns/d"}]}`, AllocationCountStep},
		{"other claim", `{"allocations": [{"claim": "ns/d"}]}`, ClaimStep},
		{"one result", `{"allocations": [{"claim": "ns/c", "devices": {"results": [
			{"request": "r", "driver": "d", "pool": "p", "device": "b"}]}}]}`, ResultCountStep},
		{"swapped", `{"allocations": [{"claim": "ns/c", "devices": {"results": [
			{"request": "r", "driver": "d", "pool": "p", "device": "b"},
			{"request": "r", "driver": "d", "pool": "p", "device": "a", "shareID": "x", "consumedCapacity": {"mem": "1Ki"}}]},
			"nodeSelector": {"k": ["n"]}}]}`, ResultsStep},
		{"config", `{"allocations": [{"claim": "ns/c", "devices": {"results": [
			{"request": "r", "driver": "d", "pool": "p", "device": "a", "shareID": "x", "consumedCapacity": {"mem": "1Ki"}},
			{"request": "r", "driver": "d", "pool": "p", "device": "b"}], "config": [{"opaque": 1}]},
			"nodeSelector": {"k": ["n"]}}]}`, ConfigStep},
		{"no node selector", `{"allocations": [{"claim": "ns/c", "devices": {"results": [
			{"request": "r", "driver": "d", "pool": "p", "device": "a", "shareID": "x", "consumedCapacity": {"mem": "1Ki"}},
			{"request": "r", "driver": "d", "pool": "p", "device": "b"}]}}]}`, NodeSelectorStep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testRules.Compare(doc(t, base), doc(t, tc.other), inOrder)
			switch {
			case tc.step == 0 && d != nil:
				t.Errorf("got difference %+v, want none", *d)
			case tc.step != 0 && (d == nil || d.Step != tc.step):
				t.Errorf("got %+v, want step %d", d, tc.step)
			}
		})
	}
	if d := testRules.Compare(doc(t, `{"error": "a"}`), doc(t, `{"error": "b"}`), inOrder); d != nil {
		t.Errorf("errors of any wording should agree, got %+v", *d)
	}
	d := testRules.Compare(doc(t, `{"unsatisfiable": true}`), doc(t, `{"allocations": []}`), inOrder)
	if d == nil || d.WantKind != "unsatisfiable" || d.GotKind != "allocations" {
		t.Errorf("got %+v, want unsatisfiable vs allocations", d)
	}
}

func TestShareIDWildcard(t *testing.T) {
	for _, tc := range []struct {
		a, b map[string]any
		want bool
	}{
		{map[string]any{"device": "a", "shareID": "x"}, map[string]any{"device": "a", "shareID": "y"}, true},
		{map[string]any{"device": "a", "shareID": "x"}, map[string]any{"device": "a"}, false},
		{map[string]any{"device": "a", "shareID": ""}, map[string]any{"device": "a", "shareID": "y"}, false},
		{map[string]any{"device": "a"}, map[string]any{"device": "b"}, false},
	} {
		if got := ResultsEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("ResultsEqual(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMultisetAndOrder(t *testing.T) {
	a := map[string]any{"device": "a"}
	b := map[string]any{"device": "b"}
	c := map[string]any{"device": "c"}
	list := func(rs ...map[string]any) []map[string]any { return rs }
	if r := Unmatched(list(a, b), list(b, a)); r != nil {
		t.Errorf("Unmatched(ab, ba) = %v, want nil", r)
	}
	if r := Unmatched(list(a, a), list(a, b)); r == nil || r["device"] != "a" {
		t.Errorf("Unmatched(aa, ab) = %v, want the second a", r)
	}
	if at := InOrder(list(a, b, c), list(a, c, b)); at != 1 {
		t.Errorf("InOrder(abc, acb) = %d, want 1", at)
	}
	if at := InOrder(list(a, b), list(a, b)); at != -1 {
		t.Errorf("InOrder(ab, ab) = %d, want -1", at)
	}
}

func TestNormalise(t *testing.T) {
	r := Rules{IntegralFloats: true}
	m := r.Normalise(map[string]any{"n": 2.0, "f": 2.5, "e": []any{}, "z": nil}, "").(map[string]any)
	if len(m) != 2 || m["n"] != 2 || m["f"] != 2.5 {
		t.Errorf("Normalise = %v, want map[f:2.5 n:2]", m)
	}
	if v := (Rules{}).Normalise(2.0, ""); v != 2.0 {
		t.Errorf("without IntegralFloats: %v (%T), want float64 2", v, v)
	}
	res := r.NormaliseResults([]any{map[string]any{"device": "a", "adminAccess": false,
		"tolerations": []any{map[string]any{"key": "k"}}}})
	want := `[{"device":"a","tolerations":[{"key":"k","operator":"Equal"}]}]`
	if got, _ := json.Marshal(res); string(got) != want {
		t.Errorf("NormaliseResults = %s, want %s", got, want)
	}
}

func TestDescribeAndSummarise(t *testing.T) {
	r := map[string]any{"request": "r", "driver": "d", "pool": "p", "device": "a", "adminAccess": true,
		"shareID": "", "consumedCapacity": map[string]any{"mem": "1"}, "bindingConditions": []any{"x"}}
	want := `r:d/p/a admin share="" bindingConditions=["x"] consumedCapacity={"mem":"1"}`
	if got := DescribeResult(r); got != want {
		t.Errorf("DescribeResult = %q, want %q", got, want)
	}
	for in, want := range map[string]string{
		`{"error": "boom"}`:       "error: boom",
		`{"unsatisfiable": true}`: "unsatisfiable",
		`{}`:                      "(no outcome)",
		`{"allocations": [{"claim": "ns/c", "devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "a"}], "config": [{"x": 1}]}, "nodeSelector": {"k": "v"}}]}`: `allocations: ns/c[r:d/p/a] config=[{"x":1}] nodeSelector={"k":"v"}`,
	} {
		if got := testRules.Summarise(doc(t, in)); got != want {
			t.Errorf("Summarise(%s) = %q, want %q", in, got, want)
		}
	}
}
