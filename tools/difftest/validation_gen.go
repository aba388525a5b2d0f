package main

// --level validation, the generator (GitHub issue #26, part 2): object i of
// seed S is a base object (from the repository's fixtures, examples and
// conformance scenarios, or from the allocator level's generator) with zero to
// three mutations, under one of a few feature-gate profiles. Everything comes
// from a PCG seeded with S and i, so object i of seed S is always the same.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// gateProfile is one kube-apiserver configuration. Its gates are passed to
// kube-apiserver --feature-gates and to dractl validate --feature-gates
// (dractl's defaults are 1.37's, as the API server's).
type gateProfile struct {
	name  string
	gates string
	// serverGates are passed to kube-apiserver only: gates that no checked
	// field depends on but that others need (DRAPartitionableDevicesType
	// depends on DRAResourcePoolStatus, which only gates an API of its own).
	serverGates string
	// noTaintRules: DeviceTaintRule is not served (its gate is off).
	noTaintRules bool
}

var gateProfiles = []gateProfile{
	{name: "default", gates: "GenericWorkload=true"},
	{name: "alpha", gates: "GenericWorkload=true,DRADerivedAttributes=true,DRADeviceCompatibilityGroups=true," +
		"DRAListTypeAttributes=true,DRANodeAllocatableResources=true,DRAOptionalNodeOperations=true," +
		"DRAPartitionableDevicesType=true,DRAWorkloadResourceClaims=true,DRAFractionalCapacityRange=true", serverGates: ",DRAResourcePoolStatus=true"},
	{name: "off", gates: "GenericWorkload=true,DRAConsumableCapacity=false,DRADeviceBindingConditions=false," +
		"DRAPartitionableDevices=false,DRADeviceTaints=false,DRADeviceTaintRules=false,DRAFractionalCapacityRange=false",
		noTaintRules: true},
}

// vKinds are the kinds the validation level checks.
var vKinds = map[string]bool{
	"DeviceClass": true, "ResourceSlice": true, "ResourceClaim": true,
	"ResourceClaimTemplate": true, "DeviceTaintRule": true,
	"Node": true, "Pod": true, "PodGroup": true, "Workload": true,
}

// apiVersions: the version each kind is sent as.
var apiVersions = map[string]string{"Node": "v1", "Pod": "v1", "PodGroup": "scheduling.k8s.io/v1beta1", "Workload": "scheduling.k8s.io/v1beta1"}

// generatedBases are DeviceTaintRules, and PodGroups and Workloads with the
// fields the fixtures' two PodGroups lack (scheduling.k8s.io/v1beta1, Kubernetes 1.37.2's types).
// No priority: the Priority admission plugin compares it with the
// PriorityClass's (HTTP 403), which is not validation.
func generatedBases() []vcase {
	claims := []any{
		obj{"name": "gpu", "resourceClaimTemplateName": "one-gpu"},
		obj{"name": "shared", "resourceClaimName": "shared-gpu"},
	}
	template := func(name string) obj {
		return obj{
			"name":                  name,
			"schedulingPolicy":      obj{"gang": obj{"minCount": 4}},
			"schedulingConstraints": obj{"topology": []any{obj{"key": "topology.kubernetes.io/zone"}}},
			"resourceClaims":        deepCopy(claims),
			"disruptionMode":        obj{"all": obj{}},
			"preemptionPolicy":      "Never",
		}
	}
	var out []vcase
	for i, spec := range []obj{
		{"schedulingPolicy": obj{"basic": obj{}}},
		{"workloadRef": obj{"workloadName": "train"}, "schedulingPolicy": obj{"gang": obj{"minCount": 2}},
			"schedulingConstraints": obj{"topology": []any{obj{"key": "kubernetes.io/hostname"}}},
			"resourceClaims":        deepCopy(claims), "disruptionMode": obj{"single": obj{}},
			"preemptionPolicy": "PreemptLowerPriority"},
	} {
		out = append(out, vcase{base: fmt.Sprintf("generated PodGroup %d", i), obj: normaliseForCreate(obj{
			"kind": "PodGroup", "metadata": obj{"name": fmt.Sprintf("group-%d", i)}, "spec": spec})})
	}
	for i, spec := range []obj{
		{"podGroupTemplates": []any{template("workers"), obj{"name": "driver", "schedulingPolicy": obj{"basic": obj{}}}}},
		{"controllerRef": obj{"apiGroup": "batch", "kind": "Job", "name": "train"},
			"podGroupTemplates": []any{template("workers")}},
	} {
		out = append(out, vcase{base: fmt.Sprintf("generated Workload %d", i), obj: normaliseForCreate(obj{
			"kind": "Workload", "metadata": obj{"name": fmt.Sprintf("workload-%d", i)}, "spec": spec})})
	}
	// The fixtures have no DeviceTaintRule.
	for i, spec := range []obj{
		{"deviceSelector": obj{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
			"taint": obj{"key": "example.com/maintenance", "value": "planned", "effect": "NoExecute"}},
		{"deviceSelector": obj{"driver": "gpu.example.com"}, "taint": obj{"key": "broken", "effect": "NoSchedule"}},
		{"taint": obj{"key": "example.com/all", "effect": "None"}},
	} {
		out = append(out, vcase{base: fmt.Sprintf("generated DeviceTaintRule %d", i), obj: normaliseForCreate(obj{
			"kind": "DeviceTaintRule", "metadata": obj{"name": fmt.Sprintf("rule-%d", i)}, "spec": spec})})
	}
	return out
}

// mutable says where a kind may be mutated. dractl validates only the
// DRA-relevant parts of Nodes and Pods (src/api/validation.h: Node metadata
// and spec.taints; Pod metadata, resourceClaims, containers' resources.claims,
// tolerations, the required node affinity, schedulingGroup), so only those
// are mutated; every other kind anywhere.
func mutable(kind, path string) bool {
	var prefixes []string
	switch kind {
	case "Node":
		prefixes = []string{"metadata", "spec.taints"}
	case "Pod":
		prefixes = []string{"metadata", "spec.resourceClaims", "spec.tolerations", "spec.schedulingGroup",
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"}
		if strings.HasPrefix(path, "spec.containers[") || strings.HasPrefix(path, "spec.initContainers[") {
			return strings.Contains(path, "].resources.claims")
		}
	default:
		return true
	}
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

// vcase is one generated object.
type vcase struct {
	index   int
	profile gateProfile
	base    string   // where the base object came from
	muts    []string // the mutations, as path: what
	obj     obj
}

// loadBases reads every object of a checked kind from the fixtures, the
// examples and the conformance scenarios, in path order, normalised for a
// create: status and server-set metadata dropped, namespaced kinds in
// "default", everything in resource.k8s.io/v1.
func loadBases(root string) ([]vcase, error) {
	var files []string
	for _, dir := range []string{"testdata/fixtures", "examples", "testdata/conformance"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	out := generatedBases()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		dec := yamlv3.NewDecoder(strings.NewReader(string(data)))
		for n := 0; ; n++ {
			var doc any
			if dec.Decode(&doc) != nil {
				break
			}
			m, _ := doc.(map[string]any)
			var items []any
			switch {
			case m == nil:
			case m["kind"] == "List":
				items, _ = m["items"].([]any)
			case m["objects"] != nil: // a conformance scenario
				items, _ = m["objects"].([]any)
			default:
				items = []any{m}
			}
			for k, it := range items {
				o, ok := it.(map[string]any)
				if !ok || !vKinds[fmt.Sprint(o["kind"])] {
					continue
				}
				out = append(out, vcase{base: fmt.Sprintf("%s#%d.%d", rel, n, k), obj: normaliseForCreate(o)})
			}
		}
	}
	return out, nil
}

var namespaced = map[string]bool{"ResourceClaim": true, "ResourceClaimTemplate": true, "Pod": true, "PodGroup": true, "Workload": true}

func normaliseForCreate(o obj) obj {
	o = deepCopy(o).(obj)
	delete(o, "status")
	o["apiVersion"] = "resource.k8s.io/v1"
	if v, ok := apiVersions[fmt.Sprint(o["kind"])]; ok {
		o["apiVersion"] = v
	}
	md, _ := o["metadata"].(obj)
	keep := obj{}
	for _, k := range []string{"name", "labels", "annotations"} {
		if v, ok := md[k]; ok {
			keep[k] = v
		}
	}
	if namespaced[fmt.Sprint(o["kind"])] {
		keep["namespace"] = "default"
	}
	o["metadata"] = keep
	return o
}

// vgen draws object index of seed.
type vgen struct {
	r *rand.Rand
}

func (g *vgen) p(prob float64) bool { return g.r.Float64() < prob }

// generateValidation makes object index of seed from the bases.
// only, if not nil, restricts the kinds (--kinds).
func generateValidation(seed uint64, index int, bases []vcase, only map[string]bool) vcase {
	g := &vgen{r: rand.New(rand.NewPCG(seed^0x5a17da7e, uint64(index)*0x9E3779B97F4A7C15+7))}
	var c vcase
	switch x := g.r.Float64(); {
	case x < 0.5:
		c.profile = gateProfiles[0]
	case x < 0.75:
		c.profile = gateProfiles[1]
	default:
		c.profile = gateProfiles[2]
	}
	for tries := 0; ; tries++ {
		if tries == 200 {
			// --kinds DeviceTaintRule under a profile that does not serve it.
			c.profile = gateProfiles[0]
		}
		if g.p(0.6) {
			b := bases[g.r.IntN(len(bases))]
			c.base, c.obj = b.base, deepCopy(b.obj).(obj)
		} else {
			// An object of an allocator-level scenario (all gates' fields).
			sub := g.r.Uint64()
			s := Generate(seed, int(sub>>33), FeatureMode{Random: true, All: true})
			objs, _ := s.Doc["objects"].([]any)
			k := g.r.IntN(len(objs))
			c.base = fmt.Sprintf("allocator-level seed %d scenario %d object %d", seed, sub>>33, k)
			c.obj = normaliseForCreate(objs[k].(obj))
		}
		kind := fmt.Sprint(c.obj["kind"])
		if !(c.profile.noTaintRules && kind == "DeviceTaintRule") && (only == nil || only[kind]) {
			break
		}
	}
	n := 0
	switch x := g.r.Float64(); {
	case x < 0.1:
	case x < 0.6:
		n = 1
	case x < 0.85:
		n = 2
	default:
		n = 3
	}
	for i := 0; i < n; i++ {
		if m := g.mutate(c.obj); m != "" {
			c.muts = append(c.muts, m)
		}
	}
	c.index = index
	return c
}

// site is one place in an object: a map key or a list index.
type site struct {
	path   string
	parent any // map[string]any or []any
	key    string
	idx    int
}

func (s site) get() any {
	if m, ok := s.parent.(map[string]any); ok {
		return m[s.key]
	}
	return s.parent.([]any)[s.idx]
}

func (s site) set(v any) {
	if m, ok := s.parent.(map[string]any); ok {
		m[s.key] = v
		return
	}
	s.parent.([]any)[s.idx] = v
}

func sites(v any, path string, out []site) []site {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if p == "apiVersion" || p == "kind" || p == "metadata.namespace" {
				continue
			}
			out = append(out, site{path: p, parent: t, key: k})
			out = sites(t[k], p, out)
		}
	case []any:
		for i := range t {
			p := fmt.Sprintf("%s[%d]", path, i)
			out = append(out, site{path: p, parent: t, idx: i})
			out = sites(t[i], p, out)
		}
	}
	return out
}

// Values at and one past the API's limits (k8s.io/api/resource/v1 types.go:
// list sizes, name and value lengths).
var listSizes = []int{2, 4, 5, 8, 9, 16, 17, 32, 33, 48, 49, 64, 65, 128, 129, 256, 257}
var strLens = []int{32, 33, 63, 64, 65, 128, 129, 253, 254, 256, 257, 10240, 10241}

var celPool = []string{
	`true`, `false`, `1`, `"x"`, `device.driver == "gpu.example.com"`, `device.driver ==`, `device.foo`,
	`device.attributes["gpu.example.com"].model == "a"`, `device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0`,
	`device.attributes["gpu.example.com"].missing`, `quantity("abc") == quantity("1")`, `[1,2,3].all(x, x > 0)`,
	`device.attributes.all(d, device.attributes[d].all(a, true))`, `size(device.attributes) > 0`,
	`device.allowMultipleAllocations == true`, `""`, `has(device.attributes["x.example.com"].y)`,
	`device.driver.matches("[")`, `cel.bind(x, 1, x == 1)`, `1 / 0 == 1`,
}

var strPool = []string{
	"", "a", "A", "-a", "a-", "a.b", "a_b", "a/b", "a/b/c", "example.com/a", "Example.com/a", "example.com/", "/a",
	"a..b", "1", "0", "-1", "1Gi", "1.5", "abc", "true", "é", "a b", "ExactCount", "All", "Exists", "Equal",
	"NoSchedule", "NoExecute", "None", "gpu.example.com", "nic.example.com", "node-1", "zone",
}

var quantityPool = []any{"1", "0", "-1", "1Gi", "1.5", "abc", "1e3", "100m", "0.5Gi", "1Ei", "9223372036854775807", 5, -5, 1.5}

var numberPool = []any{-1, 0, 1, 2, 3, 4, 7, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257, 1 << 31, 1<<31 - 1, int64(1) << 53, 1.5}

func longString(g *vgen, n int) string {
	var b strings.Builder
	switch g.r.IntN(3) {
	case 0: // a DNS label/subdomain shape
		for b.Len() < n {
			if b.Len() > 0 && b.Len()%60 == 0 && b.Len() < n-1 {
				b.WriteByte('.')
			} else {
				b.WriteByte('a')
			}
		}
	case 1: // a qualified name: prefix/name
		pre := "example.com/"
		b.WriteString(pre)
		for b.Len() < n {
			b.WriteByte('b')
		}
	default:
		for b.Len() < n {
			b.WriteByte('x')
		}
	}
	return b.String()
}

// mutate changes one place of o and says what it did ("" if nothing).
func (g *vgen) mutate(o obj) string {
	var all []site
	for _, s := range sites(o, "", nil) {
		if mutable(fmt.Sprint(o["kind"]), s.path) {
			all = append(all, s)
		}
	}
	if len(all) == 0 {
		return ""
	}
	s := all[g.r.IntN(len(all))]
	v := s.get()
	kind := g.r.IntN(10)
	switch {
	case kind == 0 && s.parentIsMap():
		delete(s.parent.(map[string]any), s.key)
		return s.path + ": removed"
	case kind == 1:
		w := pickAny(g, []any{"x", 7, true, []any{}, obj{}, nil, []any{"x"}})
		s.set(w)
		return fmt.Sprintf("%s: wrong type %T", s.path, w)
	}
	switch t := v.(type) {
	case string:
		key := s.key
		switch {
		case key == "expression" && g.p(0.7):
			e := pickAny(g, celPool)
			if g.p(0.1) {
				e = `"` + longString(g, pickAny(g, []int{10237, 10238, 10239})) + `" != ""`
			}
			s.set(e)
			return fmt.Sprintf("%s: CEL %.60q", s.path, e)
		case (strings.Contains(strings.ToLower(s.path), "capacity") || strings.Contains(strings.ToLower(s.path), "counter") || key == "value" || key == "default" || key == "min" || key == "max" || key == "step") && g.p(0.6):
			q := pickAny(g, quantityPool)
			s.set(q)
			return fmt.Sprintf("%s: quantity %v", s.path, q)
		case g.p(0.3):
			n := strLens[g.r.IntN(len(strLens))]
			if n > 1000 && g.p(0.7) {
				n = strLens[g.r.IntN(9)]
			}
			s.set(longString(g, n))
			return fmt.Sprintf("%s: string of length %d", s.path, n)
		case g.p(0.2):
			s.set(strings.ToUpper(t))
			return s.path + ": upper case"
		default:
			x := pickAny(g, strPool)
			s.set(x)
			return fmt.Sprintf("%s: %q", s.path, x)
		}
	case int, int64, float64:
		x := pickAny(g, numberPool)
		s.set(x)
		return fmt.Sprintf("%s: number %v", s.path, x)
	case bool:
		s.set(!t)
		return fmt.Sprintf("%s: %v", s.path, !t)
	case []any:
		switch {
		case len(t) > 0 && g.p(0.35): // a duplicate entry (list keys)
			t = append(t, deepCopy(t[g.r.IntN(len(t))]))
			s.set(t)
			return s.path + ": duplicate entry"
		case len(t) > 0 && g.p(0.5): // at or one past a size limit
			n := listSizes[g.r.IntN(len(listSizes))]
			l := make([]any, 0, n)
			for len(l) < n {
				l = append(l, uniquify(deepCopy(t[len(l)%len(t)]), len(l), len(t)))
			}
			s.set(l)
			return fmt.Sprintf("%s: %d entries", s.path, n)
		case g.p(0.5):
			s.set([]any{})
			return s.path + ": empty list"
		default:
			if len(t) > 0 {
				i := g.r.IntN(len(t))
				s.set(append(append([]any{}, t[:i]...), t[i+1:]...))
				return fmt.Sprintf("%s: entry %d removed", s.path, i)
			}
			return ""
		}
	case map[string]any:
		switch {
		case g.p(0.3):
			t["bogusField"] = "x"
			return s.path + ": unknown field"
		case len(t) > 0 && g.p(0.5):
			keys := sortedKeys(t)
			k := keys[g.r.IntN(len(keys))]
			delete(t, k)
			return fmt.Sprintf("%s.%s: removed", s.path, k)
		default:
			// A map with free keys (attributes, capacity, labels,
			// parameters) grows to or past a limit; a struct gets unknown
			// fields, which strict decoding refuses.
			keys := sortedKeys(t)
			if len(keys) == 0 {
				t["x"] = "y"
				return s.path + ": key x added"
			}
			n := listSizes[g.r.IntN(len(listSizes))]
			if n > 64 {
				n = listSizes[g.r.IntN(13)]
			}
			for i := 0; len(t) < n; i++ {
				t[fmt.Sprintf("k%d", i)] = deepCopy(t[keys[i%len(keys)]])
			}
			return fmt.Sprintf("%s: %d keys", s.path, n)
		}
	case nil:
		s.set("x")
		return s.path + `: "x"`
	}
	return ""
}

func (s site) parentIsMap() bool { _, ok := s.parent.(map[string]any); return ok }

func pickAny[T any](g *vgen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// uniquify makes copy number i of a list entry differ from the others in its
// name (the list key of most lists), so that a grown list tests its size
// limit, not duplicates. Copies 0..n-1 are the originals.
func uniquify(v any, i, n int) any {
	if i < n {
		return v
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range []string{"name", "key", "counterSet"} {
			if s, ok := t[k].(string); ok {
				t[k] = fmt.Sprintf("%s%d", s, i)
				return t
			}
		}
	case string:
		return fmt.Sprintf("%s%d", t, i)
	}
	return v
}
