package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The benchmark shapes decode with upstream's scheme and keep the numbers
// of bench/alloc_bench.cc.
func TestBenchShapesDecode(t *testing.T) {
	wantSlices := map[string]int{"Basic": 500, "Cel": 500, "ManyRequests": 500, "Partitionable": 1000}
	shapes := allocShapes()
	if len(shapes) != len(allocShapes0()) {
		t.Fatalf("%d shapes, allocShapes0 lists %d", len(shapes), len(allocShapes0()))
	}
	for i, shape := range shapes {
		if got := shapeFileName(shape.Name) + ".json"; got != allocShapes0()[i] {
			t.Errorf("shape %d is %s, allocShapes0 says %s", i, got, allocShapes0()[i])
		}
		s, err := decodeScenario(&shape.scenarioFile, shape.Name)
		if err != nil {
			t.Fatalf("%s: %v", shape.Name, err)
		}
		kind := strings.Split(shape.Name, "/")[0]
		if len(s.slices) != wantSlices[kind] || len(s.classes) != 1 || len(s.claims) != 1 || len(shape.Nodes) != 500 {
			t.Errorf("%s: %d slices, %d classes, %d claims, %d nodes", shape.Name, len(s.slices), len(s.classes),
				len(s.claims), len(shape.Nodes))
		}
	}
}

// The CEL devices are bench/cel_bench.cc's: 15 attributes and a capacity,
// names unique within a slice, the uuid formatted as there.
func TestCelGpu(t *testing.T) {
	d := celGpu(13)
	if d.Name != "gpu-5" || len(d.Attributes) != 15 || len(d.Capacity) != 1 {
		t.Fatalf("celGpu(13): %s, %d attributes, %d capacities", d.Name, len(d.Attributes), len(d.Capacity))
	}
	if got := *d.Attributes["uuid"].StringValue; got != "GPU-0000000d-4e2b-9c1d-000000019223" {
		t.Errorf("uuid %s", got)
	}
	if got := *d.Attributes["productName"].StringValue; got != "NVIDIA H200" {
		t.Errorf("productName %s", got)
	}
	slices := celSlices()
	if len(slices) != celDevices/8 || len(slices[0].Spec.Devices) != 8 {
		t.Fatalf("%d slices", len(slices))
	}
	if _, err := json.Marshal(slices[0]); err != nil {
		t.Fatal(err)
	}
}
