package main

import "testing"

func doc(t *testing.T, text string) map[string]any {
	t.Helper()
	m, err := yamlDoc([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiffOutcomes(t *testing.T) {
	base := `
allocations:
- claim: default/c
  devices:
    results:
    - {request: r, driver: d, pool: p, device: a, shareID: x, consumedCapacity: {mem: 1Gi}}
    - {request: r, driver: d, pool: p, device: b}
  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n]}]}]}
`
	for _, tc := range []struct {
		name, other string
		order       bool
		same        bool
	}{
		{"identical", base, false, true},
		{"multiset, share wildcard, quantity by value", `
allocations:
- claim: default/c
  devices:
    results:
    - {request: r, driver: d, pool: p, device: b, adminAccess: false, tolerations: []}
    - {request: r, driver: d, pool: p, device: a, shareID: y, consumedCapacity: {mem: "1073741824"}}
    config: []
  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n]}]}]}
`, false, true},
		{"order required", `
allocations:
- claim: default/c
  devices:
    results:
    - {request: r, driver: d, pool: p, device: b}
    - {request: r, driver: d, pool: p, device: a, shareID: y, consumedCapacity: {mem: 1Gi}}
  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n]}]}]}
`, true, false},
		{"other device", `
allocations:
- claim: default/c
  devices:
    results:
    - {request: r, driver: d, pool: p, device: a, shareID: y, consumedCapacity: {mem: 1Gi}}
    - {request: r, driver: d, pool: p, device: c}
  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n]}]}]}
`, false, false},
		{"missing share", `
allocations:
- claim: default/c
  devices:
    results:
    - {request: r, driver: d, pool: p, device: a, consumedCapacity: {mem: 1Gi}}
    - {request: r, driver: d, pool: p, device: b}
  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n]}]}]}
`, false, false},
		{"no node selector", `
allocations:
- claim: default/c
  devices:
    results:
    - {request: r, driver: d, pool: p, device: a, shareID: x, consumedCapacity: {mem: 1Gi}}
    - {request: r, driver: d, pool: p, device: b}
`, false, false},
		{"unsatisfiable", "unsatisfiable: true\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := diffOutcomes(doc(t, base), doc(t, tc.other), tc.order)
			if (d == "") != tc.same {
				t.Errorf("diff %q, want same=%v", d, tc.same)
			}
		})
	}
	if d := diffOutcomes(doc(t, "error: a\n"), doc(t, "error: b\n"), false); d != "" {
		t.Errorf("errors of any wording should agree, got %q", d)
	}
	if d := diffOutcomes(doc(t, "error: a\n"), doc(t, "unsatisfiable: true\n"), false); d == "" {
		t.Error("error vs unsatisfiable should differ")
	}
}

func TestYAML12Scalars(t *testing.T) {
	m := doc(t, "a: {n: Y, b: off}\n")
	inner := m["a"].(map[string]any)
	if inner["n"] != "Y" || inner["b"] != "off" {
		t.Errorf("got %v, want YAML 1.2 strings", inner)
	}
}

func TestDiffCel(t *testing.T) {
	val := func(s string) celResult { return celResult{Name: "v", Value: []byte(s)} }
	e := "boom"
	for _, tc := range []struct {
		a, b celResult
		same bool
	}{
		{val(`{"quantity":"1Gi"}`), val(`{"quantity":"1073741824"}`), true},
		{val(`{"int":"1"}`), val(`{"uint":"1"}`), false},
		{val(`{"double":1}`), val(`{"double":1.0}`), true},
		{val(`{"map":[[{"int":"1"},{"bool":true}],[{"int":"2"},{"bool":false}]]}`),
			val(`{"map":[[{"int":"2"},{"bool":false}],[{"int":"1"},{"bool":true}]]}`), true},
		{val(`{"bool":true}`), celResult{Name: "v", Error: &e}, false},
		{celResult{Name: "v", Error: &e}, celResult{Name: "v", Error: &e}, true},
	} {
		if d := diffCel(tc.a, tc.b); (d == "") != tc.same {
			t.Errorf("%s vs %s: diff %q, want same=%v", describeCel(tc.a), describeCel(tc.b), d, tc.same)
		}
	}
}

func TestSplitDeviceID(t *testing.T) {
	d, p, dev, err := splitDeviceID("driver.example.com/pool/a/device-1")
	if err != nil || d != "driver.example.com" || p != "pool/a" || dev != "device-1" {
		t.Errorf("got %q %q %q %v", d, p, dev, err)
	}
	if _, _, _, err := splitDeviceID("a/b"); err == nil {
		t.Error("want an error for a/b")
	}
}
