package main

// `oracle bench gen|cel|alloc`: upstream's side of bench/compare, the
// side-by-side benchmarks of dractl and Kubernetes (GitHub issue #5).
//
//	oracle bench gen --out DIR
//	    writes the workloads as files: DIR/cel/devices.json (a List of
//	    ResourceSlices holding the 100,000 GPUs of bench/cel_bench.cc) and
//	    DIR/cel/selectors.json; DIR/alloc/<Shape>_<arg>.json, one per
//	    scheduler_perf shape of bench/alloc_bench.cc (all 500 nodes), and
//	    DIR/alloc-check/*.yaml, allocator scenarios (FORMAT.md §1) for a few
//	    nodes of every shape, for `oracle compare` against dractl.
//	oracle bench cel --in DIR [--min-time D] [--reps N] [--verdicts DIR]
//	    compiles every selector as kube-scheduler does (cel.Cache's
//	    options: StoredExpressions, no cost estimation) and times
//	    CompilationResult.DeviceMatches over all devices. --verdicts writes
//	    the matching devices (pool/device, one a line) per selector.
//	oracle bench alloc --in DIR [--min-time D] [--reps N] [--filter RE]
//	    per shape: structured.NewAllocator + Allocate(node) for each of the
//	    500 nodes, as the DynamicResources plugin's PreFilter/Filter do.
//
// The measuring commands print one JSON object a line. Times are medians
// over --reps repetitions, each running the workload until --min-time has
// passed; "cpu" is the process's CPU time (user + system, so the garbage
// collector's work on other threads counts), "wall" the elapsed time.
//
// The generators are ports of this repository's own C++ benchmark code
// (bench/cel_bench.cc MakeGpu, bench/alloc_bench.cc shapes); bench/compare
// checks that both sides see the same inputs by comparing outcomes.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

const benchUsage = `usage:
  oracle bench gen --out DIR
  oracle bench cel --in DIR [--min-time D] [--reps N] [--filter RE] [--verdicts DIR]
  oracle bench alloc --in DIR [--min-time D] [--reps N] [--filter RE]
`

func cmdBench(args []string) int {
	if len(args) < 1 {
		fmt.Fprint(os.Stderr, benchUsage)
		return 2
	}
	switch args[0] {
	case "gen":
		return cmdBenchGen(args[1:])
	case "cel":
		return cmdBenchCel(args[1:])
	case "alloc":
		return cmdBenchAlloc(args[1:])
	}
	fmt.Fprint(os.Stderr, benchUsage)
	return 2
}

// ---------------------------------------------------------------------------
// Workloads (ports of bench/cel_bench.cc and bench/alloc_bench.cc).

const (
	celDevices     = 100_000
	celDriver      = "gpu.nvidia.com"
	allocNodes     = 500
	allocDriver    = "test-driver.cdi.k8s.io"
	classSelector  = `device.driver == "test-driver.cdi.k8s.io"`
	allocCelFilter = `device.attributes["test-driver.cdi.k8s.io"].driverVersion.major() >= 1 && ` +
		`device.capacity["test-driver.cdi.k8s.io"].memory.isGreaterThan(quantity("1Mi"))`
)

// benchSelector is one selector of bench/cel_bench.cc; Bench is the C++
// benchmark's name without its /0 or /1 argument.
type benchSelector struct {
	Name  string `json:"name"`
	Bench string `json:"bench"`
	Expr  string `json:"expr"`
}

var celSelectors = []benchSelector{
	{"driver", "BM_Driver", `device.driver == "gpu.nvidia.com"`},
	{"attribute-string-eq", "BM_AttributeStringEq",
		`device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"`},
	{"attribute-in-list", "BM_AttributeInList",
		`device.attributes["gpu.nvidia.com"].productName in ["NVIDIA A100-SXM4-40GB", "NVIDIA H100 80GB HBM3", "NVIDIA H200"]`},
	{"quantity-compare", "BM_QuantityCompare",
		`device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`},
	{"semver-is-greater-than", "BM_SemverIsGreaterThan",
		`device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.9.0"))`},
	{"matches", "BM_Matches",
		`device.attributes["gpu.nvidia.com"].productName.matches("^NVIDIA H[0-9]+")`},
	{"conjunction", "BM_Conjunction",
		`device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu" && ` +
			`device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`},
}

type gpuModel struct{ product, architecture, computeCapability, memory string }

// The models of bench/cel_bench.cc (kModels), spread evenly over the devices.
var gpuModels = []gpuModel{
	{"NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "81559Mi"},
	{"NVIDIA H200", "Hopper", "9.0.0", "143771Mi"},
	{"NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "40Gi"},
	{"NVIDIA L40S", "Ada Lovelace", "8.9.0", "46068Mi"},
	{"NVIDIA L4", "Ada Lovelace", "8.9.0", "23034Mi"},
	{"NVIDIA A10", "Ampere", "8.6.0", "23028Mi"},
}

func strAttr(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: &s}
}
func intAttr(i int64) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{IntValue: &i} }
func verAttr(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{VersionValue: &s}
}

// celGpu is bench/cel_bench.cc's MakeGpu(index).
func celGpu(index int) resourceapi.Device {
	m := gpuModels[index%len(gpuModels)]
	bus := fmt.Sprintf("0000:%02x:00.0", 0x10+index%8)
	numa := int64(0)
	if index%8 >= 4 {
		numa = 1
	}
	return resourceapi.Device{
		Name: "gpu-" + strconv.Itoa(index%8),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"addressingMode":                  strAttr("HMM"),
			"architecture":                    strAttr(m.architecture),
			"brand":                           strAttr("Nvidia"),
			"cudaComputeCapability":           verAttr(m.computeCapability),
			"cudaDriverVersion":               verAttr("13.0.0"),
			"driverVersion":                   verAttr("580.95.5"),
			"pcieBusID":                       strAttr(bus),
			"productName":                     strAttr(m.product),
			"resource.kubernetes.io/numaNode": intAttr(numa),
			"resource.kubernetes.io/pciBusID": strAttr(bus),
			"resource.kubernetes.io/pcieRoot": strAttr("pci0000:" + strconv.Itoa(index%8)),
			"type":                            strAttr("gpu"),
			"uuid":                            strAttr(fmt.Sprintf("GPU-%08x-4e2b-9c1d-%012x", index, index*7919)),
			"gpuModuleID":                     intAttr(int64(index%8 + 1)),
			"partition8":                      intAttr(0),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory": {Value: resource.MustParse(m.memory)},
		},
	}
}

// celSlices holds the 100,000 GPUs in device order, 8 per slice (device i
// is gpu-(i%8) of slice i/8, so names are unique within a slice).
func celSlices() []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for i := 0; i < celDevices; i++ {
		if i%8 == 0 {
			name := fmt.Sprintf("cel-bench-node-%d", i/8)
			out = append(out, newSlice(name, celDriver, name, name, 1))
		}
		s := out[len(out)-1]
		s.Spec.Devices = append(s.Spec.Devices, celGpu(i))
	}
	return out
}

func newSlice(name, driver, node, pool string, sliceCount int64) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   driver,
			NodeName: &node,
			Pool:     resourceapi.ResourcePool{Name: pool, Generation: 0, ResourceSliceCount: sliceCount},
		},
	}
	return s
}

func allocNodeName(i int) string { return "scheduler-perf-dra-" + strconv.Itoa(i) }

// testDevice is bench/alloc_bench.cc's TestDevice.
func testDevice(name string, index int) resourceapi.Device {
	return resourceapi.Device{
		Name: name,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"driverVersion":        verAttr("1.2.3"),
			"family":               strAttr("GPU"),
			"model":                strAttr("A100"),
			"dra.example.com/numa": intAttr(int64(index)),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory": {Value: resource.MustParse("1Gi")},
		},
	}
}

func request(name string, count int64, selector string) resourceapi.DeviceRequest {
	r := resourceapi.DeviceRequest{
		Name: name,
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: "test-class",
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           count,
		},
	}
	if selector != "" {
		r.Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: selector}}}
	}
	return r
}

// allocShape is one benchmark of bench/alloc_bench.cc, as files. Its
// scenario part (features, objects, allocatedDevices, allocate) is a
// FORMAT.md §1 scenario for all nodes at once.
type allocShape struct {
	scenarioFile
	// Nodes are tried in this order, one Allocate each.
	Nodes []string `json:"nodes"`
	// Bench: the C++ benchmark with the same workload, one Allocator for
	// every pod (BM_Basic/0); Fresh: the one with a new Allocator per pod
	// (BM_BasicFresh/0), empty if there is none.
	Bench string `json:"bench"`
	Fresh string `json:"fresh,omitempty"`
}

func allocShapes() []allocShape {
	var shapes []allocShape
	class := &resourceapi.DeviceClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"},
		ObjectMeta: metav1.ObjectMeta{Name: "test-class"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{
			{CEL: &resourceapi.CELDeviceSelector{Expression: classSelector}}}},
	}
	newClaim := func() *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: "test-claim", Namespace: "default"},
		}
	}
	nodes := make([]string, allocNodes)
	for i := range nodes {
		nodes[i] = allocNodeName(i)
	}
	build := func(name, bench, fresh string, features []string, slices []*resourceapi.ResourceSlice,
		claim *resourceapi.ResourceClaim, allocated []string) allocShape {
		s := allocShape{Nodes: nodes, Bench: bench, Fresh: fresh}
		s.Name = name
		s.Source = "bench/alloc_bench.cc " + bench
		s.Features = features
		if s.Features == nil {
			s.Features = []string{}
		}
		s.Node = scenarioNode{Name: nodes[0]}
		s.Objects = append(s.Objects, mustJSON(class))
		for _, sl := range slices {
			s.Objects = append(s.Objects, mustJSON(sl))
		}
		s.Objects = append(s.Objects, mustJSON(claim))
		s.AllocatedDevices = allocated
		if s.AllocatedDevices == nil {
			s.AllocatedDevices = []string{}
		}
		s.Allocate = []string{"default/test-claim"}
		return s
	}
	// Basic and Cel: 10 devices per node; fill 0 empty, 1 half, 2 full.
	for _, selector := range []string{"", allocCelFilter} {
		for fill := 0; fill <= 2; fill++ {
			var slices []*resourceapi.ResourceSlice
			var allocated []string
			for n := 0; n < allocNodes; n++ {
				s := newSlice(allocNodeName(n), allocDriver, allocNodeName(n), allocNodeName(n), 1)
				taken := []int{0, 5, 10}[fill]
				for d := 0; d < 10; d++ {
					name := "instance-" + strconv.Itoa(d)
					s.Spec.Devices = append(s.Spec.Devices, testDevice(name, d))
					if d < taken {
						allocated = append(allocated, allocDriver+"/"+allocNodeName(n)+"/"+name)
					}
				}
				slices = append(slices, s)
			}
			claim := newClaim()
			claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{request("req-0", 1, selector)}
			shape := "Basic"
			if selector != "" {
				shape = "Cel"
			}
			arg := "/" + strconv.Itoa(fill)
			shapes = append(shapes, build(shape+arg, "BM_"+shape+arg, "BM_"+shape+"Fresh"+arg, nil, slices, claim, allocated))
		}
	}
	// ManyRequests: 64 devices, numaNodes = [i%4, (i+1)%4], list-mode
	// matchAttribute; /0 one request for 32, /1 32 requests for 1.
	for arg := 0; arg <= 1; arg++ {
		var slices []*resourceapi.ResourceSlice
		for n := 0; n < allocNodes; n++ {
			s := newSlice(allocNodeName(n), allocDriver, allocNodeName(n), allocNodeName(n), 1)
			for d := 0; d < 64; d++ {
				dev := testDevice("instance-"+strconv.Itoa(d), d)
				dev.Attributes["numaNodes"] = resourceapi.DeviceAttribute{IntValues: []int64{int64(d % 4), int64((d + 1) % 4)}}
				s.Spec.Devices = append(s.Spec.Devices, dev)
			}
			slices = append(slices, s)
		}
		claim := newClaim()
		if arg == 0 {
			claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{request("req-0", 32, "")}
		} else {
			for r := 0; r < 32; r++ {
				claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, request("req-"+strconv.Itoa(r), 1, ""))
			}
		}
		attr := resourceapi.FullyQualifiedName(allocDriver + "/numaNodes")
		claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: &attr}}
		name := "ManyRequests/" + strconv.Itoa(arg)
		shapes = append(shapes, build(name, "BM_"+name, "", []string{"DRAListTypeAttributes"}, slices, claim, nil))
	}
	// Partitionable: per node a counter slice (gpu-0, gpu-1: memory 8Gi)
	// and a device slice with per GPU the whole (8Gi), 2 halves, 4
	// quarters; 4 devices with matchAttribute gpu. /1: gpu-0 allocated.
	for arg := 0; arg <= 1; arg++ {
		var slices []*resourceapi.ResourceSlice
		var allocated []string
		for n := 0; n < allocNodes; n++ {
			node := allocNodeName(n)
			counters := newSlice(node+"-counters", allocDriver, node, node, 2)
			devices := newSlice(node+"-devices", allocDriver, node, node, 2)
			for gpu := 0; gpu < 2; gpu++ {
				set := "gpu-" + strconv.Itoa(gpu)
				counters.Spec.SharedCounters = append(counters.Spec.SharedCounters, resourceapi.CounterSet{
					Name: set, Counters: map[string]resourceapi.Counter{"memory": {Value: resource.MustParse("8Gi")}}})
				add := func(name, memory string) {
					d := testDevice(name, len(devices.Spec.Devices))
					d.Attributes["gpu"] = intAttr(int64(gpu))
					d.ConsumesCounters = []resourceapi.DeviceCounterConsumption{{
						CounterSet: set, Counters: map[string]resourceapi.Counter{"memory": {Value: resource.MustParse(memory)}}}}
					devices.Spec.Devices = append(devices.Spec.Devices, d)
				}
				add(set, "8Gi")
				for i := 0; i < 2; i++ {
					add(set+"-half-"+strconv.Itoa(i), "4Gi")
				}
				for i := 0; i < 4; i++ {
					add(set+"-quarter-"+strconv.Itoa(i), "2Gi")
				}
			}
			if arg == 1 {
				allocated = append(allocated, allocDriver+"/"+node+"/gpu-0")
			}
			slices = append(slices, counters, devices)
		}
		claim := newClaim()
		claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{request("req-0", 4, "")}
		attr := resourceapi.FullyQualifiedName(allocDriver + "/gpu")
		claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: &attr}}
		name := "Partitionable/" + strconv.Itoa(arg)
		shapes = append(shapes, build(name, "BM_"+name, "", []string{"DRAPartitionableDevices"}, slices, claim, allocated))
	}
	return shapes
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

func shapeFileName(name string) string { return strings.ReplaceAll(name, "/", "_") }

// checkScenario cuts a shape down to one node: its slices and the next
// node's (which must be ignored), the allocated devices of those pools.
func checkScenario(s allocShape, node int) map[string]any {
	keep := map[string]bool{s.Nodes[node]: true, s.Nodes[(node+1)%len(s.Nodes)]: true}
	var objects []json.RawMessage
	for _, raw := range s.Objects {
		var meta struct {
			Kind string `json:"kind"`
			Spec struct {
				Pool struct {
					Name string `json:"name"`
				} `json:"pool"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			panic(err)
		}
		if meta.Kind == "ResourceSlice" && !keep[meta.Spec.Pool.Name] {
			continue
		}
		objects = append(objects, raw)
	}
	allocated := []string{}
	for _, id := range s.AllocatedDevices {
		_, pool, _, err := splitDeviceID(id)
		if err == nil && keep[pool] {
			allocated = append(allocated, id)
		}
	}
	return map[string]any{
		"name":             strings.ToLower(shapeFileName(s.Name)) + "-node-" + strconv.Itoa(node),
		"source":           s.Source + ", node " + s.Nodes[node],
		"features":         s.Features,
		"node":             map[string]any{"name": s.Nodes[node]},
		"objects":          objects,
		"allocatedDevices": allocated,
		"allocate":         s.Allocate,
		// dractl's reader wants an expect block; compare ignores it.
		"expect": map[string]any{"unsatisfiable": true},
	}
}

func writeJSONFile(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func cmdBenchGen(args []string) int {
	fs := flag.NewFlagSet("bench gen", flag.ContinueOnError)
	out := fs.String("out", "", "output directory")
	if err := fs.Parse(args); err != nil || *out == "" {
		fmt.Fprint(os.Stderr, benchUsage)
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "oracle bench gen: %v\n", err)
		return 1
	}
	for _, d := range []string{"cel", "alloc", "alloc-check"} {
		if err := os.MkdirAll(filepath.Join(*out, d), 0o755); err != nil {
			return fail(err)
		}
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": celSlices()}
	if err := writeJSONFile(filepath.Join(*out, "cel", "devices.json"), list); err != nil {
		return fail(err)
	}
	if err := writeJSONFile(filepath.Join(*out, "cel", "selectors.json"), celSelectors); err != nil {
		return fail(err)
	}
	for _, s := range allocShapes() {
		file := shapeFileName(s.Name)
		if err := writeJSONFile(filepath.Join(*out, "alloc", file+".json"), s); err != nil {
			return fail(err)
		}
		for _, node := range []int{0, 1, len(s.Nodes) / 2, len(s.Nodes) - 1} {
			path := filepath.Join(*out, "alloc-check", fmt.Sprintf("%s_node%d.yaml", file, node))
			if err := writeJSONFile(path, checkScenario(s, node)); err != nil {
				return fail(err)
			}
		}
	}
	return 0
}

// ---------------------------------------------------------------------------
// Measuring.

// timing is the median time of one iteration, in nanoseconds.
type timing struct {
	Wall  float64 `json:"wall_ns"`
	CPU   float64 `json:"cpu_ns"`
	Iters int     `json:"iters"`
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs fn repeatedly for at least minTime, reps times, and returns
// the median wall and CPU time per call (each median taken separately).
func measure(minTime time.Duration, reps int, fn func()) timing {
	var walls, cpus []float64
	iters := 0
	for r := 0; r < reps; r++ {
		runtime.GC()
		n := 0
		startWall, startCPU := time.Now(), cpuNow()
		for n == 0 || time.Since(startWall) < minTime {
			fn()
			n++
		}
		wall, cpu := time.Since(startWall), cpuNow()-startCPU
		walls = append(walls, float64(wall.Nanoseconds())/float64(n))
		cpus = append(cpus, float64(cpu.Nanoseconds())/float64(n))
		iters += n
	}
	return timing{Wall: median(walls), CPU: median(cpus), Iters: iters}
}

func median(v []float64) float64 {
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

type benchFlags struct {
	in       string
	minTime  time.Duration
	reps     int
	filter   *regexp.Regexp
	verdicts string
}

func parseBenchFlags(name string, args []string, verdicts bool) (benchFlags, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var f benchFlags
	var filter string
	fs.StringVar(&f.in, "in", "", "directory written by `oracle bench gen`")
	fs.DurationVar(&f.minTime, "min-time", time.Second, "per repetition")
	fs.IntVar(&f.reps, "reps", 3, "repetitions (the median is reported)")
	fs.StringVar(&filter, "filter", "", "only workloads whose name matches this regular expression")
	if verdicts {
		fs.StringVar(&f.verdicts, "verdicts", "", "directory for the matching devices per selector")
	}
	if err := fs.Parse(args); err != nil || f.in == "" || f.reps < 1 {
		fmt.Fprint(os.Stderr, benchUsage)
		return f, false
	}
	var err error
	if f.filter, err = regexp.Compile(filter); err != nil {
		fmt.Fprintf(os.Stderr, "oracle %s: --filter: %v\n", name, err)
		return f, false
	}
	return f, true
}

// readSliceList decodes a List of ResourceSlices with upstream's scheme.
func readSliceList(path string) ([]*resourceapi.ResourceSlice, error) {
	items, err := readListItems(path)
	if err != nil {
		return nil, err
	}
	decoder := strictCodecs.UniversalDeserializer()
	var out []*resourceapi.ResourceSlice
	for i, raw := range items {
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: item %d: %w", path, i, err)
		}
		s, ok := obj.(*resourceapi.ResourceSlice)
		if !ok {
			return nil, fmt.Errorf("%s: item %d: %T, want a ResourceSlice", path, i, obj)
		}
		out = append(out, s)
	}
	return out, nil
}

type celBenchLine struct {
	Name    string `json:"name"`
	Bench   string `json:"bench"`
	Devices int    `json:"devices"`
	Matched int    `json:"matched"`
	Errors  int    `json:"errors"`
	// Per device.
	Time timing `json:"per_device"`
}

func cmdBenchCel(args []string) int {
	f, ok := parseBenchFlags("bench cel", args, true)
	if !ok {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "oracle bench cel: %v\n", err)
		return 1
	}
	slices, err := readSliceList(filepath.Join(f.in, "cel", "devices.json"))
	if err != nil {
		return fail(err)
	}
	var selectors []benchSelector
	data, err := os.ReadFile(filepath.Join(f.in, "cel", "selectors.json"))
	if err != nil {
		return fail(err)
	}
	if err := json.Unmarshal(data, &selectors); err != nil {
		return fail(err)
	}
	// The devices as the allocator hands them to DeviceMatches
	// (allocator_incubating.go builds the same struct per device).
	var devices []cel.Device
	var ids []string
	for _, s := range slices {
		for i := range s.Spec.Devices {
			d := &s.Spec.Devices[i]
			devices = append(devices, cel.Device{Driver: s.Spec.Driver, AllowMultipleAllocations: d.AllowMultipleAllocations,
				Attributes: d.Attributes, Capacity: d.Capacity})
			ids = append(ids, s.Spec.Pool.Name+"/"+d.Name)
		}
	}
	// As kube-scheduler's cel.Cache compiles a selector.
	compiler := cel.GetCompiler(cel.Features{})
	ctx := context.Background()
	enc := json.NewEncoder(os.Stdout)
	for _, sel := range selectors {
		if !f.filter.MatchString(sel.Name) {
			continue
		}
		compiled := compiler.CompileCELExpression(sel.Expr, cel.Options{DisableCostEstimation: true})
		if compiled.Error != nil {
			return fail(fmt.Errorf("%s: %v", sel.Name, compiled.Error))
		}
		line := celBenchLine{Name: sel.Name, Bench: sel.Bench, Devices: len(devices)}
		var matched []string
		for i, d := range devices { // verdicts, and warm-up
			m, _, err := compiled.DeviceMatches(ctx, d)
			switch {
			case err != nil:
				line.Errors++
			case m:
				line.Matched++
				matched = append(matched, ids[i])
			}
		}
		if f.verdicts != "" {
			if err := os.MkdirAll(f.verdicts, 0o755); err != nil {
				return fail(err)
			}
			text := strings.Join(matched, "\n")
			if text != "" {
				text += "\n"
			}
			if err := os.WriteFile(filepath.Join(f.verdicts, sel.Name+".txt"), []byte(text), 0o644); err != nil {
				return fail(err)
			}
		}
		sink := 0
		t := measure(f.minTime, f.reps, func() {
			for _, d := range devices {
				if m, _, _ := compiled.DeviceMatches(ctx, d); m {
					sink++
				}
			}
		})
		n := float64(len(devices))
		line.Time = timing{Wall: t.Wall / n, CPU: t.CPU / n, Iters: t.Iters}
		if err := enc.Encode(line); err != nil {
			return fail(err)
		}
	}
	return 0
}

type allocBenchLine struct {
	Name       string `json:"name"`
	Bench      string `json:"bench"`
	FreshBench string `json:"fresh_bench,omitempty"`
	Nodes      int    `json:"nodes"`
	// Outcome of one pod: nodes where the claim fits, upstream's
	// allocateOne invocations over all nodes, and the distinct results
	// with the node name replaced by NODE (all nodes look alike), with how
	// many nodes produced each.
	NodesFit int            `json:"nodes_fit"`
	Steps    int64          `json:"steps_per_pod"`
	Results  map[string]int `json:"results"`
	// One allocator for every pod, per pod (all nodes).
	Warm timing `json:"warm_per_pod"`
	// A new allocator per pod: NewAllocator + Allocate on every node.
	Fresh timing `json:"fresh_per_pod"`
	// NewAllocator alone.
	New timing `json:"new_allocator"`
}

func cmdBenchAlloc(args []string) int {
	f, ok := parseBenchFlags("bench alloc", args, false)
	if !ok {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "oracle bench alloc: %v\n", err)
		return 1
	}
	files, err := filepath.Glob(filepath.Join(f.in, "alloc", "*.json"))
	if err != nil {
		return fail(err)
	}
	// In generation order (the file names sort differently).
	order := map[string]int{}
	for i, s := range allocShapes0() {
		order[s] = i
	}
	sort.Slice(files, func(i, j int) bool {
		return order[filepath.Base(files[i])] < order[filepath.Base(files[j])]
	})
	enc := json.NewEncoder(os.Stdout)
	ctx := context.Background()
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return fail(err)
		}
		var shape allocShape
		if err := json.Unmarshal(data, &shape); err != nil {
			return fail(fmt.Errorf("%s: %w", file, err))
		}
		if !f.filter.MatchString(shape.Name) {
			continue
		}
		s, err := decodeScenario(&shape.scenarioFile, file)
		if err != nil {
			return fail(err)
		}
		features, err := featuresFromGates(s.file.Features)
		if err != nil {
			return fail(err)
		}
		state, err := allocatedState(s, features)
		if err != nil {
			return fail(err)
		}
		var claims []*resourceapi.ResourceClaim
		for _, name := range shape.Allocate {
			for _, c := range s.claims {
				if c.Namespace+"/"+c.Name == name {
					claims = append(claims, c)
				}
			}
		}
		if len(claims) != len(shape.Allocate) {
			return fail(fmt.Errorf("%s: claims to allocate not found", file))
		}
		var nodes []*v1.Node
		for _, name := range shape.Nodes {
			n := &v1.Node{}
			n.Name = name
			nodes = append(nodes, n)
		}
		// kube-scheduler keeps one CEL cache for all pods.
		celCache := cel.NewCache(10, cel.Features{
			EnableConsumableCapacity: features.ConsumableCapacity,
			EnableListTypeAttributes: features.ListTypeAttributes,
		})
		newAllocator := func() structured.Allocator {
			a, err := structured.NewAllocator(ctx, features, state, classLister(s.classes), s.slices, celCache)
			if err != nil {
				fmt.Fprintf(os.Stderr, "oracle bench alloc: %s: NewAllocator: %v\n", shape.Name, err)
				os.Exit(1)
			}
			return a
		}
		pod := func(a structured.Allocator) int {
			fit := 0
			for _, node := range nodes {
				results, err := a.Allocate(ctx, node, claims)
				if err != nil {
					fmt.Fprintf(os.Stderr, "oracle bench alloc: %s: Allocate on %s: %v\n", shape.Name, node.Name, err)
					os.Exit(1)
				}
				if results != nil {
					fit++
				}
			}
			return fit
		}
		line := allocBenchLine{Name: shape.Name, Bench: shape.Bench, FreshBench: shape.Fresh, Nodes: len(nodes),
			Results: map[string]int{}}
		// The outcome, node by node, with a fresh allocator.
		a := newAllocator()
		for _, node := range nodes {
			results, err := a.Allocate(ctx, node, claims)
			if err != nil {
				return fail(fmt.Errorf("%s: Allocate on %s: %w", shape.Name, node.Name, err))
			}
			key := "unsatisfiable"
			if results != nil {
				line.NodesFit++
				doc, err := json.Marshal(results)
				if err != nil {
					return fail(err)
				}
				key = strings.ReplaceAll(string(doc), `"`+node.Name+`"`, `"NODE"`)
			}
			line.Results[key]++
		}
		line.Steps = allocatorSteps(a)
		// One allocator for all pods (what bench/alloc_bench.cc's BM_Basic
		// etc. time on the dractl side).
		warm := newAllocator()
		pod(warm)
		line.Warm = measure(f.minTime, f.reps, func() { pod(warm) })
		line.Fresh = measure(f.minTime, f.reps, func() { pod(newAllocator()) })
		line.New = measure(f.minTime/4, f.reps, func() { newAllocator() })
		if err := enc.Encode(line); err != nil {
			return fail(err)
		}
	}
	return 0
}

// allocShapes0 lists the shape file names in generation order without
// building the shapes.
func allocShapes0() []string {
	var out []string
	for _, s := range []string{"Basic", "Cel"} {
		for i := 0; i <= 2; i++ {
			out = append(out, s+"_"+strconv.Itoa(i)+".json")
		}
	}
	for _, s := range []string{"ManyRequests", "Partitionable"} {
		for i := 0; i <= 1; i++ {
			out = append(out, s+"_"+strconv.Itoa(i)+".json")
		}
	}
	return out
}
