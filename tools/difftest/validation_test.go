package main

import (
	"encoding/json"
	"testing"
)

// Object i of seed S is the same whatever else is generated.
func TestValidationGeneratorReproducible(t *testing.T) {
	bases, err := loadBases("../..")
	if err != nil || len(bases) < 50 {
		t.Fatalf("loadBases: %d objects, %v", len(bases), err)
	}
	seen := map[string]bool{}
	for i := 0; i < 40; i++ {
		a := generateValidation(7, i, bases, nil)
		generateValidation(7, i+1000, bases, nil) // draws in between change nothing
		b := generateValidation(7, i, bases, nil)
		ja, _ := json.Marshal(a.obj)
		jb, _ := json.Marshal(b.obj)
		if string(ja) != string(jb) || a.profile.name != b.profile.name || len(a.muts) != len(b.muts) {
			t.Fatalf("object %d differs between two draws", i)
		}
		seen[string(ja)] = true
		if !vKinds[a.obj["kind"].(string)] {
			t.Errorf("object %d: kind %v", i, a.obj["kind"])
		}
		if a.profile.noTaintRules && a.obj["kind"] == "DeviceTaintRule" {
			t.Errorf("object %d: DeviceTaintRule under profile %s, which does not serve it", i, a.profile.name)
		}
	}
	if len(seen) < 35 {
		t.Errorf("only %d distinct objects of 40", len(seen))
	}
}

func TestCompareVerdicts(t *testing.T) {
	acc := verdict{}
	rej := func(f ...string) verdict { return verdict{reject: true, fields: f} }
	dec := func(f ...string) verdict { return verdict{reject: true, decode: true, fields: f} }
	for _, c := range []struct {
		name       string
		d, s       verdict
		mismatched bool
	}{
		{"both accept", acc, acc, false},
		{"same fields", rej("spec.a[0].b"), rej("spec.a[0].b"), false},
		{"dractl only", rej("spec.a"), acc, true},
		{"server only", acc, rej("spec.a"), true},
		{"different fields", rej("spec.a[0].b"), rej("spec.a[1].b"), true},
		{"extra field", rej("spec.a", "spec.b"), rej("spec.a"), true},
		// Decode errors: the decoder's path has no indices and map keys as elements.
		{"unknown field", rej("spec.devices[3].attributes[x.io/y].bogus"), dec("spec.devices.attributes.x.io/y.bogus"), false},
		// A type error's path leaves out map keys too.
		{"type error", rej("spec.devices[1].attributes[links].strings[1]"), dec("spec.devices.attributes.strings"), false},
		{"decode elsewhere", rej("spec.driver"), dec("spec.devices.attributes.strings"), true},
		{"decode, no path", rej("spec.x"), dec(), false},
		{"decode, dractl accepts", acc, dec("spec.x"), true},
	} {
		if got := compareVerdicts(c.d, c.s) != ""; got != c.mismatched {
			t.Errorf("%s: mismatch %v, want %v (%q)", c.name, got, c.mismatched, compareVerdicts(c.d, c.s))
		}
	}
}
