package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func dractlForTest(t *testing.T) string {
	if p := os.Getenv("DRACTL"); p != "" {
		return p
	}
	p, _ := filepath.Abs("../../build/difftest/src/cli/dractl")
	if _, err := os.Stat(p); err != nil {
		t.Skip("no dractl binary; set DRACTL")
	}
	return p
}

func TestDeterministic(t *testing.T) {
	for i := 0; i < 300; i++ {
		a := Generate(7, i, FeatureMode{Random: true, All: true})
		b := Generate(7, i, FeatureMode{Random: true, All: true})
		if !reflect.DeepEqual(scenarioYAML(a.Doc, ""), scenarioYAML(b.Doc, "")) {
			t.Fatalf("scenario %d differs between two runs", i)
		}
	}
}

// TestGeneratedScenariosAreValid runs `dractl validate` on generated
// scenarios of every feature mode; only deliberately broken ones may fail.
func TestGeneratedScenariosAreValid(t *testing.T) {
	dractl := dractlForTest(t)
	tmp := t.TempDir()
	modes := map[string]FeatureMode{
		"random":     {Random: true},
		"random-all": {Random: true, All: true},
		"none":       {},
		"all":        {Fixed: append(append([]string{}, coreGates...), extraGates...)},
	}
	n := 150
	if testing.Short() {
		n = 30
	}
	for name, mode := range modes {
		bad := 0
		for i := 0; i < n; i++ {
			s := Generate(99, i, mode)
			if msg := validateScenario(dractl, tmp, s); msg != "" {
				bad++
				if bad <= 5 {
					t.Errorf("%s: scenario %d invalid:\n%s", name, i, msg)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d scenarios invalid", name, bad, n)
		}
	}
}
