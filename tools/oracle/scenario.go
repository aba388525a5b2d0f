package main

// Reading an allocator conformance scenario (testdata/conformance/FORMAT.md §1)
// into upstream's API types.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// scenarioFile is the on-disk shape of a scenario. Objects stay raw until the
// upstream codecs decode them; `expect` stays generic for the comparison.
type scenarioFile struct {
	Name             string            `json:"name"`
	Source           string            `json:"source"`
	Features         []string          `json:"features"`
	Node             scenarioNode      `json:"node"`
	Objects          []json.RawMessage `json:"objects"`
	AllocatedDevices []string          `json:"allocatedDevices"`
	AllocatedShares  []allocatedShare  `json:"allocatedShares"`
	Allocate         []string          `json:"allocate"`
	Expect           map[string]any    `json:"expect"`
	MaxSteps         *int64            `json:"maxSteps"` // ours only; ignored
}

type scenarioNode struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

type allocatedShare struct {
	Device           string            `json:"device"`
	ShareID          string            `json:"shareID"`
	ConsumedCapacity map[string]string `json:"consumedCapacity"`
}

// scenario is a scenario with its objects decoded.
type scenario struct {
	file    scenarioFile
	node    *v1.Node
	classes []*resourceapi.DeviceClass
	slices  []*resourceapi.ResourceSlice
	claims  []*resourceapi.ResourceClaim
}

var (
	scheme       = runtime.NewScheme()
	strictCodecs serializer.CodecFactory
)

func init() {
	if err := resourceapi.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := v1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	strictCodecs = serializer.NewCodecFactory(scheme, serializer.EnableStrict)
}

// readScenarioFile parses the YAML without decoding the objects.
func readScenarioFile(path string) (*scenarioFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	jsonData, err := yamlToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var f scenarioFile
	if err := json.Unmarshal(jsonData, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// loadScenario reads a scenario and decodes its objects with upstream's
// scheme. Decoding is strict, so a field that resource.k8s.io/v1 does not
// know is an error rather than silently dropped.
func loadScenario(path string) (*scenario, error) {
	f, err := readScenarioFile(path)
	if err != nil {
		return nil, err
	}
	return decodeScenario(f, path)
}

// decodeScenario decodes the objects of an already parsed scenario file;
// `path` is only for messages.
func decodeScenario(f *scenarioFile, path string) (*scenario, error) {
	s := &scenario{file: *f}
	s.node = &v1.Node{}
	s.node.Name = f.Node.Name
	s.node.Labels = f.Node.Labels
	decoder := strictCodecs.UniversalDeserializer()
	for i, raw := range f.Objects {
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil && runtime.IsStrictDecodingError(err) && obj != nil {
			fmt.Fprintf(os.Stderr, "warning: %s: object %d: %v\n", path, i, err)
			err = nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: object %d: %w", path, i, err)
		}
		switch o := obj.(type) {
		case *resourceapi.DeviceClass:
			s.classes = append(s.classes, o)
		case *resourceapi.ResourceSlice:
			s.slices = append(s.slices, o)
		case *resourceapi.ResourceClaim:
			setClaimDefaults(o)
			s.claims = append(s.claims, o)
		default:
			return nil, fmt.Errorf("%s: object %d: unsupported kind %T", path, i, obj)
		}
	}
	return s, nil
}

// setClaimDefaults applies what the API server's defaulting does to a claim
// (the defaulting functions live in k8s.io/kubernetes, which is not
// importable): allocationMode ExactCount with count 1, and toleration
// operator Equal. Scenarios are meant to read like `kubectl get -o yaml`, so
// these are normally explicit already.
func setClaimDefaults(claim *resourceapi.ResourceClaim) {
	defaultTolerations := func(tolerations []resourceapi.DeviceToleration) {
		for i := range tolerations {
			if tolerations[i].Operator == "" {
				tolerations[i].Operator = resourceapi.DeviceTolerationOpEqual
			}
		}
	}
	defaultMode := func(mode *resourceapi.DeviceAllocationMode, count *int64) {
		if *mode == "" {
			*mode = resourceapi.DeviceAllocationModeExactCount
		}
		if *mode == resourceapi.DeviceAllocationModeExactCount && *count == 0 {
			*count = 1
		}
	}
	for i := range claim.Spec.Devices.Requests {
		r := &claim.Spec.Devices.Requests[i]
		if r.Exactly != nil {
			defaultMode(&r.Exactly.AllocationMode, &r.Exactly.Count)
			defaultTolerations(r.Exactly.Tolerations)
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			defaultMode(&sub.AllocationMode, &sub.Count)
			defaultTolerations(sub.Tolerations)
		}
	}
	if claim.Status.Allocation != nil {
		for i := range claim.Status.Allocation.Devices.Results {
			defaultTolerations(claim.Status.Allocation.Devices.Results[i].Tolerations)
		}
	}
}

// splitDeviceID splits "driver/pool/device". Pool names may contain slashes,
// driver and device names may not.
func splitDeviceID(id string) (driver, pool, device string, err error) {
	first := strings.Index(id, "/")
	last := strings.LastIndex(id, "/")
	if first < 0 || first == last {
		return "", "", "", fmt.Errorf("device ID %q is not driver/pool/device", id)
	}
	return id[:first], id[first+1 : last], id[last+1:], nil
}
