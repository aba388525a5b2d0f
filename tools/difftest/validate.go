package main

// Checking generated scenarios with `dractl validate`: the objects of a
// scenario must be valid under its feature gates (gates it does not list are
// turned off, except those locked on in 1.37). An invalid scenario that the
// generator did not break on purpose is a generator bug.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// allGates are the gates dractl knows (src/api/features.h); locked ones are
// never turned off.
var allGates = []string{
	"DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus", "DRASchedulerFilterTimeout",
	"DRAPartitionableDevices", "DRADeviceTaints", "DRADeviceTaintRules", "DRAConsumableCapacity",
	"DRADeviceBindingConditions", "DRAExtendedResource", "DRAListTypeAttributes", "DRANodeAllocatableResources",
	"DRAWorkloadResourceClaims", "DRADerivedAttributes", "DRADeviceCompatibilityGroups",
	"DRAFractionalCapacityRange", "DRAOptionalNodeOperations", "DRAPartitionableDevicesType",
}
var lockedGates = map[string]bool{"DRAPrioritizedList": true, "DRAAdminAccess": true, "DRAResourceClaimDeviceStatus": true, "DRAExtendedResource": true}

func gateFlag(doc obj) string {
	on := map[string]bool{}
	switch fs := doc["features"].(type) {
	case []string:
		for _, f := range fs {
			on[f] = true
		}
	case []any:
		for _, f := range fs {
			on[fmt.Sprint(f)] = true
		}
	}
	var parts []string
	for _, g := range allGates {
		if !on[g] && lockedGates[g] {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%v", g, on[g]))
	}
	return strings.Join(parts, ",")
}

// validateScenario returns "" when the scenario is fine: valid, or invalid
// and deliberately broken. Otherwise what `dractl validate` said.
func validateScenario(dractl, tmp string, s Scenario) string {
	var buf bytes.Buffer
	objs, _ := s.Doc["objects"].([]any)
	for _, o := range objs {
		buf.WriteString("---\n")
		b, err := yamlv3.Marshal(o)
		if err != nil {
			return err.Error()
		}
		buf.Write(b)
	}
	path := filepath.Join(tmp, "validate.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err.Error()
	}
	cmd := exec.Command(dractl, "validate", "--strict", "-f", path, "--kubernetes-version", "1.37", "--feature-gates", gateFlag(s.Doc))
	out, err := cmd.CombinedOutput()
	if err == nil {
		return ""
	}
	if s.Broken != "" {
		return ""
	}
	return strings.ReplaceAll(strings.TrimSpace(string(out)), path, "objects")
}
