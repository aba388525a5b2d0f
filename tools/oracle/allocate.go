package main

// `oracle allocate --scenario FILE`: runs upstream's structured allocator on
// one scenario and prints the outcome as `dractl allocate --scenario` does
// (FORMAT.md §3): `allocations:` / `unsatisfiable: true` / `error: "..."`.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// The reference variant (src/alloc/README.md §15): incubating, or experimental
// when a feature only experimental supports (DRAListTypeAttributes) is on.
// Stable is never used, whatever the feature set. ORACLE_ALLOCATORS (a
// comma-separated list of variant names) overrides this, for experiments.
func init() {
	if v := os.Getenv("ORACLE_ALLOCATORS"); v != "" {
		structured.EnableAllocators(strings.Split(v, ",")...)
		return
	}
	structured.EnableAllocators("incubating", "experimental")
}

// outcome is what one allocator call produced: exactly one of the three.
type outcome struct {
	Allocations []claimAllocation
	Unsat       bool
	Err         string
	// Steps is upstream's count of allocateOne invocations, -1 if unknown.
	Steps int64
}

type claimAllocation struct {
	Claim  string
	Result resourceapi.AllocationResult
}

// featuresFromGates maps the scenario's feature gates (all others off) to
// the allocator's feature set the way kube-scheduler does.
func featuresFromGates(gates []string) (structured.Features, error) {
	on := sets.New(gates...)
	f := structured.Features{
		AdminAccess:             on.Has("DRAAdminAccess"),
		CompatibilityGroups:     on.Has("DRADeviceCompatibilityGroups"),
		ConsumableCapacity:      on.Has("DRAConsumableCapacity"),
		DerivedAttributes:       on.Has("DRADerivedAttributes"),
		DeviceBindingAndStatus:  on.Has("DRADeviceBindingConditions") && on.Has("DRAResourceClaimDeviceStatus"),
		DeviceTaints:            on.Has("DRADeviceTaints"),
		FractionalCapacityRange: on.Has("DRAFractionalCapacityRange"),
		ListTypeAttributes:      on.Has("DRAListTypeAttributes"),
		OptionalNodeOperations:  on.Has("DRAOptionalNodeOperations"),
		PartitionableDevices:    on.Has("DRAPartitionableDevices"),
		PrioritizedList:         on.Has("DRAPrioritizedList"),
	}
	known := sets.New("DRAAdminAccess", "DRADeviceCompatibilityGroups", "DRAConsumableCapacity",
		"DRADerivedAttributes", "DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus",
		"DRADeviceTaints", "DRAFractionalCapacityRange", "DRAListTypeAttributes",
		"DRAOptionalNodeOperations", "DRAPartitionableDevices", "DRAPrioritizedList",
		// Gates that exist but do not change the allocator.
		"DRADeviceTaintRules", "DRAExtendedResource", "DRASchedulerFilterTimeout",
		"DRANodeAllocatableResources", "DRAWorkloadResourceClaims", "DRAPartitionableDevicesType",
		"DynamicResourceAllocation")
	if unknown := on.Difference(known); unknown.Len() > 0 {
		return f, fmt.Errorf("unknown feature gates %v", sets.List(unknown))
	}
	return f, nil
}

// classLister serves the scenario's classes; Get fails as an informer
// lister does.
type classLister []*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) { return l, nil }

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, c := range l {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

// allocatedState builds the in-use state the way kube-scheduler does
// (src/alloc/README.md §1.1; upstream GatherAllocatedState in
// k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go):
// from every claim that already has an allocation, plus the scenario's
// allocatedDevices and allocatedShares.
func allocatedState(s *scenario, features structured.Features) (structured.AllocatedState, error) {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	addShare := func(id structured.DeviceID, shareID string, consumed map[resourceapi.QualifiedName]resource.Quantity) {
		if !features.ConsumableCapacity {
			state.AllocatedDevices.Insert(id)
			return
		}
		uid := types.UID(shareID)
		state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, &uid))
		if consumed == nil {
			consumed = map[resourceapi.QualifiedName]resource.Quantity{}
		}
		state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, consumed))
	}
	for _, claim := range s.claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue // admin access never counts as usage
			}
			id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
			if features.ConsumableCapacity && r.ShareID != nil && *r.ShareID != "" {
				addShare(id, string(*r.ShareID), r.ConsumedCapacity)
				continue
			}
			state.AllocatedDevices.Insert(id)
		}
	}
	for _, d := range s.file.AllocatedDevices {
		driver, pool, device, err := splitDeviceID(d)
		if err != nil {
			return state, fmt.Errorf("allocatedDevices: %w", err)
		}
		state.AllocatedDevices.Insert(structured.MakeDeviceID(driver, pool, device))
	}
	for _, share := range s.file.AllocatedShares {
		driver, pool, device, err := splitDeviceID(share.Device)
		if err != nil {
			return state, fmt.Errorf("allocatedShares: %w", err)
		}
		consumed := map[resourceapi.QualifiedName]resource.Quantity{}
		for name, text := range share.ConsumedCapacity {
			q, err := resource.ParseQuantity(text)
			if err != nil {
				return state, fmt.Errorf("allocatedShares: %s: %w", share.Device, err)
			}
			consumed[resourceapi.QualifiedName(name)] = q
		}
		addShare(structured.MakeDeviceID(driver, pool, device), share.ShareID, consumed)
	}
	return state, nil
}

// runScenario runs upstream's allocator on one scenario. Problems with the
// scenario itself (claims not found, bad device IDs) are errors too, as
// dractl reports them.
func runScenario(s *scenario) outcome {
	return runScenarioContext(context.Background(), s)
}

func runScenarioContext(ctx context.Context, s *scenario) outcome {
	features, err := featuresFromGates(s.file.Features)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	state, err := allocatedState(s, features)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	byName := map[string]*resourceapi.ResourceClaim{}
	for _, c := range s.claims {
		byName[c.Namespace+"/"+c.Name] = c
	}
	var toAllocate []*resourceapi.ResourceClaim
	for _, name := range s.file.Allocate {
		c, ok := byName[name]
		if !ok {
			return outcome{Err: fmt.Sprintf("claim %s not found in the scenario", name)}
		}
		toAllocate = append(toAllocate, c)
	}
	celCache := cel.NewCache(10, cel.Features{
		EnableConsumableCapacity: features.ConsumableCapacity,
		EnableListTypeAttributes: features.ListTypeAttributes,
	})
	allocator, err := structured.NewAllocator(ctx, features, state, classLister(s.classes), s.slices, celCache)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	results, err := allocator.Allocate(ctx, s.node, toAllocate)
	steps := allocatorSteps(allocator)
	if err != nil {
		// Includes errors wrapping ErrFailedAllocationOnNode (invalid pools),
		// which the vectors expect as `error` (src/alloc/README.md §13).
		return outcome{Err: err.Error(), Steps: steps}
	}
	if results == nil {
		return outcome{Unsat: true, Steps: steps}
	}
	out := outcome{Allocations: []claimAllocation{}, Steps: steps}
	for i, r := range results {
		out.Allocations = append(out.Allocations, claimAllocation{Claim: s.file.Allocate[i], Result: r})
	}
	return out
}

// allocatorSteps reads the search-step statistics that the incubating and
// experimental allocators keep (GetStats, whose type is internal to the
// upstream module, hence reflection). -1 when not available.
func allocatorSteps(a structured.Allocator) int64 {
	m := reflect.ValueOf(a).MethodByName("GetStats")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return -1
	}
	stats := m.Call(nil)[0]
	if stats.Kind() != reflect.Struct {
		return -1
	}
	f := stats.FieldByName("NumAllocateOneInvocations")
	if !f.IsValid() || f.Kind() != reflect.Int64 {
		return -1
	}
	return f.Int()
}

// outcomeJSON renders an outcome as the generic document dractl prints.
func outcomeJSON(o outcome) ([]byte, error) {
	type entry struct {
		Claim string `json:"claim"`
		resourceapi.AllocationResult
	}
	switch {
	case o.Err != "":
		return json.Marshal(map[string]string{"error": o.Err})
	case o.Unsat:
		return json.Marshal(map[string]bool{"unsatisfiable": true})
	default:
		entries := []entry{}
		for _, a := range o.Allocations {
			entries = append(entries, entry{Claim: a.Claim, AllocationResult: a.Result})
		}
		return json.Marshal(map[string]any{"allocations": entries})
	}
}

func cmdAllocate(args []string) int {
	var path string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--scenario" && i+1 < len(args):
			path = args[i+1]
			i++
		case strings.HasPrefix(args[i], "--scenario="):
			path = strings.TrimPrefix(args[i], "--scenario=")
		default:
			fmt.Fprintf(os.Stderr, "oracle allocate: unexpected argument %q\n", args[i])
			return 2
		}
	}
	if path == "" {
		fmt.Fprintln(os.Stderr, "usage: oracle allocate --scenario FILE")
		return 2
	}
	s, err := loadScenario(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle allocate: %v\n", err)
		return 1
	}
	out := runScenario(s)
	doc, err := outcomeJSON(out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle allocate: %v\n", err)
		return 1
	}
	text, err := jsonToBlockYAML(doc)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle allocate: %v\n", err)
		return 1
	}
	os.Stdout.Write(text)
	if out.Steps >= 0 {
		fmt.Fprintf(os.Stderr, "search steps: %d (upstream allocateOne invocations)\n", out.Steps)
	}
	return 0
}
