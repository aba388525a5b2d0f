package main

// The scenario generator: deterministic by (seed, index), small (one node,
// at most 4 pools and 16 devices), valid FORMAT.md §1 scenarios that touch
// every allocator feature; a few are deliberately broken (Broken is set).

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

type obj = map[string]any

// Scenario is one generated scenario as a generic document (the shape of
// the YAML file) plus what the generator knows about it.
type Scenario struct {
	Doc    obj
	Broken string // non-empty: deliberately invalid input (what is broken)
}

// coreGates are the gates the allocator of both sides knows;
// extraGates are 1.37's alpha gates: DRADerivedAttributes and
// DRADeviceCompatibilityGroups switch upstream to its experimental variant
// (dractl implements both, src/alloc/README.md §7.4, §8.1);
// DRAPartitionableDevicesType only allows partitionTypeAttribute, which no
// allocator reads; DRAOptionalNodeOperations is not generated.
var coreGates = []string{
	"DRAAdminAccess", "DRAPrioritizedList", "DRAPartitionableDevices", "DRADeviceTaints",
	"DRAConsumableCapacity", "DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus",
	"DRAListTypeAttributes", "DRAFractionalCapacityRange",
}
var extraGates = []string{"DRADerivedAttributes", "DRADeviceCompatibilityGroups", "DRAOptionalNodeOperations",
	"DRAPartitionableDevicesType"}

// FeatureMode says how a scenario's gates are chosen.
type FeatureMode struct {
	Random bool     // random subset of coreGates (and extraGates when All)
	All    bool     // include extraGates in the random pool
	Fixed  []string // the fixed set when not Random
}

type device struct {
	driver, pool, name string
	attrs              map[string]any // unqualified name -> typed value
	caps               map[string]string
	multi              bool
	taints             []obj
	binding            bool
}

type gen struct {
	r           *rand.Rand
	on          map[string]bool
	drivers     []string
	devices     []*device
	classes     []string // class names
	classDriver map[string]string
	broken      []string
	shareN      int
	demand      int
}

var driverNames = []string{"gpu.example.com", "nic.example.com", "fpga.example.com"}

const topo = "topology.example.com"

func (g *gen) p(prob float64) bool { return g.r.Float64() < prob }
func (g *gen) n(lo, hi int) int    { return lo + g.r.IntN(hi-lo+1) }
func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// Generate makes scenario number index of the run with this seed.
func Generate(seed uint64, index int, mode FeatureMode) Scenario {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(index)*0x9E3779B97F4A7C15+1)), on: map[string]bool{}, classDriver: map[string]string{}}
	var features []string
	if mode.Random {
		pool := append([]string{}, coreGates...)
		if mode.All {
			pool = append(pool, extraGates...)
		}
		for _, f := range pool {
			prob := 0.45
			if f == "DRAFractionalCapacityRange" || slices.Contains(extraGates, f) {
				prob = 0.2
			}
			if g.p(prob) {
				g.on[f] = true
			}
		}
		// Binding conditions need both gates: mostly keep them together.
		if g.on["DRADeviceBindingConditions"] != g.on["DRAResourceClaimDeviceStatus"] && g.p(0.7) {
			g.on["DRADeviceBindingConditions"] = true
			g.on["DRAResourceClaimDeviceStatus"] = true
		}
	} else {
		for _, f := range mode.Fixed {
			g.on[f] = true
		}
	}
	for f := range g.on {
		features = append(features, f)
	}
	sort.Strings(features)

	nd := g.n(1, 3)
	g.drivers = append([]string{}, driverNames[:nd]...)
	g.r.Shuffle(len(g.drivers), func(i, j int) { g.drivers[i], g.drivers[j] = g.drivers[j], g.drivers[i] })

	var objects []any
	objects = append(objects, g.genClasses()...)
	objects = append(objects, g.genSlices()...)
	claims, allocate, allocated := g.genClaims()
	objects = append(objects, claims...)

	doc := obj{
		"name":   fmt.Sprintf("difftest-%d-%d", seed, index),
		"source": fmt.Sprintf("tools/difftest --seed %d, scenario %d", seed, index),
		"node": obj{"name": "node-1", "labels": obj{
			"kubernetes.io/hostname": "node-1", "zone": "zone-a", "gpu": "true"}},
		"objects":          objects,
		"allocatedDevices": allocated.devices,
		"allocatedShares":  allocated.shares,
		"allocate":         allocate,
	}
	if len(features) > 0 {
		doc["features"] = features
	} else {
		doc["features"] = []any{}
	}
	if g.p(0.06) {
		g.breakIt(doc)
	}
	return Scenario{Doc: doc, Broken: strings.Join(g.broken, "; ")}
}

// breakIt makes one deliberate mistake in the scenario.
func (g *gen) breakIt(doc obj) {
	objs := doc["objects"].([]any)
	var claims, slices []obj
	for _, o := range objs {
		m := o.(obj)
		md := m["metadata"].(obj)
		if m["kind"] == "ResourceClaim" && md["name"] != "allocated-0" {
			claims = append(claims, m)
		}
		if m["kind"] == "ResourceSlice" {
			if devs, _ := m["spec"].(obj)["devices"].([]any); len(devs) > 0 {
				slices = append(slices, m)
			}
		}
	}
	claim := pick(g, claims)
	reqs := claim["spec"].(obj)["devices"].(obj)["requests"].([]any)
	req := pick(g, reqs).(obj)
	body, _ := req["exactly"].(obj)
	if body == nil {
		body = pick(g, req["firstAvailable"].([]any)).(obj)
	}
	switch g.n(0, 4) {
	case 0:
		body["deviceClassName"] = "class-missing"
		g.broken = append(g.broken, "unknown device class")
	case 1:
		sels, _ := body["selectors"].([]any)
		body["selectors"] = append(sels, obj{"cel": obj{"expression": pick(g, []string{"device.driver == ", "device.driver == 1", "device.attributes.model"})}})
		g.broken = append(g.broken, "bad CEL selector")
	case 2:
		doc["allocate"] = append(doc["allocate"].([]any), "default/claim-missing")
		g.broken = append(g.broken, "allocate names a missing claim")
	case 3:
		if g.on["DRAPrioritizedList"] || body["name"] != nil {
			body["allocationMode"] = "Some"
			g.broken = append(g.broken, "unknown allocation mode")
			return
		}
		sub := deepCopy(body).(obj)
		sub["name"] = "sub-0"
		delete(sub, "adminAccess")
		delete(req, "exactly")
		req["firstAvailable"] = []any{sub}
		g.broken = append(g.broken, "firstAvailable with DRAPrioritizedList off")
	default:
		if len(slices) == 0 {
			body["deviceClassName"] = "class-missing"
			g.broken = append(g.broken, "unknown device class")
			return
		}
		sl := pick(g, slices)
		devs := sl["spec"].(obj)["devices"].([]any)
		d := pick(g, devs).(obj)
		if cc, ok := d["consumesCounters"].([]any); ok && len(cc) > 0 {
			cc[0].(obj)["counterSet"] = "cs-missing"
			g.broken = append(g.broken, "device consumes an unknown counter set")
			return
		}
		// A duplicate device name in the pool.
		sl["spec"].(obj)["devices"] = append(devs, deepCopy(d))
		g.broken = append(g.broken, "duplicate device name")
	}
}

func strs(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// --- classes -------------------------------------------------------------

func (g *gen) genClasses() []any {
	var out []any
	for i, d := range g.drivers {
		name := fmt.Sprintf("class-%c", 'a'+i)
		g.classes = append(g.classes, name)
		g.classDriver[name] = d
		spec := obj{}
		sels := []any{obj{"cel": obj{"expression": fmt.Sprintf("device.driver == %q", d)}}}
		if g.p(0.12) {
			sels = append(sels, obj{"cel": obj{"expression": g.celExpr(d, 1)}})
		}
		spec["selectors"] = sels
		if g.p(0.25) {
			spec["config"] = []any{obj{"opaque": obj{"driver": d, "parameters": obj{"class": name, "level": g.n(1, 3)}}}}
		}
		out = append(out, obj{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
			"metadata": obj{"name": name}, "spec": spec})
	}
	// A class without selectors (matches every driver), sometimes.
	if g.p(0.15) {
		g.classes = append(g.classes, "class-any")
		g.classDriver["class-any"] = ""
		out = append(out, obj{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
			"metadata": obj{"name": "class-any"}, "spec": obj{}})
	}
	return out
}

// --- slices ----------------------------------------------------------------

var models = []string{"a100", "h100", "t4"}
var versions = []string{"1.0.0", "1.2.3", "2.0.0", "2.1.0-rc.1"}
var memories = []string{"4Gi", "8Gi", "16Gi", "40Gi"}

func (g *gen) genAttrs(driver string) map[string]any {
	a := map[string]any{}
	if g.p(0.8) {
		a["model"] = obj{"string": pick(g, models)}
	}
	if g.p(0.7) {
		if g.p(0.05) {
			a["index"] = obj{"string": fmt.Sprint(g.n(0, 3))} // same name, other type
		} else {
			a["index"] = obj{"int": g.n(0, 3)}
		}
	}
	if g.p(0.6) {
		a["healthy"] = obj{"bool": g.p(0.7)}
	}
	if g.p(0.5) {
		a["fw"] = obj{"version": pick(g, versions)}
	}
	if g.p(0.5) {
		a[topo+"/zone"] = obj{"string": pick(g, []string{"z0", "z1"})}
	}
	if g.on["DRAListTypeAttributes"] {
		if g.p(0.5) {
			a["links"] = obj{"strings": strs(g.subset([]string{"l0", "l1", "l2", "l3"}, g.n(1, 3)))}
		}
		if g.p(0.4) {
			var xs []any
			for _, s := range g.subset([]string{"0", "1", "2", "3"}, g.n(1, 2)) {
				var v int
				fmt.Sscan(s, &v)
				xs = append(xs, v)
			}
			a["numa"] = obj{"ints": xs}
		}
		if g.p(0.2) {
			a[topo+"/zone"] = obj{"strings": strs(g.subset([]string{"z0", "z1", "z2"}, g.n(1, 2)))}
		}
		if g.p(0.15) {
			a["fws"] = obj{"versions": strs(g.subset(versions, g.n(1, 2)))}
		}
		if g.p(0.1) {
			a["flags"] = obj{"bools": []any{g.p(0.5)}}
		}
	}
	return a
}

func (g *gen) subset(xs []string, k int) []string {
	c := append([]string{}, xs...)
	g.r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	out := c[:k]
	sort.Strings(out)
	return out
}

type poolPlan struct {
	driver, name string
	placement    string // node, other, all, selector, badselector, perdevice
}

func (g *gen) genSlices() []any {
	npools := g.n(1, 4)
	budget := 16
	var out []any
	used := map[string]bool{}
	for pi := 0; pi < npools && budget > 0; pi++ {
		driver := pick(g, g.drivers)
		// Few pool names, so that pools of different drivers share names.
		name := pick(g, []string{"pool-a", "pool-b", "pool-a", "pool-c"})
		if used[driver+"/"+name] {
			continue
		}
		used[driver+"/"+name] = true
		pl := poolPlan{driver: driver, name: name}
		switch x := g.r.Float64(); {
		case x < 0.6:
			pl.placement = "node"
		case x < 0.72:
			pl.placement = "all"
		case x < 0.82:
			pl.placement = "selector"
		case x < 0.87:
			pl.placement = "badselector"
		case x < 0.92:
			pl.placement = "other"
		default:
			pl.placement = "perdevice"
			if !g.on["DRAPartitionableDevices"] {
				pl.placement = "node"
			}
		}
		ndev := g.n(1, min(6, budget))
		budget -= ndev
		out = append(out, g.genPool(pl, ndev)...)
	}
	return out
}

func (g *gen) placementFields(spec obj, placement string) {
	switch placement {
	case "node":
		spec["nodeName"] = "node-1"
	case "other":
		spec["nodeName"] = "node-2"
	case "all":
		spec["allNodes"] = true
	case "selector":
		spec["nodeSelector"] = g.nodeSelector(true)
	case "badselector":
		spec["nodeSelector"] = g.nodeSelector(false)
	}
}

func (g *gen) nodeSelector(match bool) obj {
	var term obj
	if match {
		switch g.n(0, 2) {
		case 0:
			term = obj{"matchExpressions": []any{obj{"key": "zone", "operator": "In", "values": []any{"zone-a", "zone-b"}}}}
		case 1:
			term = obj{"matchFields": []any{obj{"key": "metadata.name", "operator": "In", "values": []any{"node-1"}}}}
		default:
			term = obj{"matchExpressions": []any{obj{"key": "gpu", "operator": "Exists"}}}
		}
	} else {
		term = obj{"matchExpressions": []any{obj{"key": "zone", "operator": "In", "values": []any{"zone-b"}}}}
	}
	return obj{"nodeSelectorTerms": []any{term}}
}

func (g *gen) genPool(pl poolPlan, ndev int) []any {
	gen := int64(g.n(1, 3))
	nslices := g.n(1, min(3, ndev))
	counters := g.on["DRAPartitionableDevices"] && g.p(0.45)
	total := nslices
	if counters {
		total++
	}
	var counterSets []string
	counterCaps := map[string]map[string]string{}
	if counters {
		n := g.n(1, 2)
		for i := 0; i < n; i++ {
			cs := fmt.Sprintf("cs-%d", i)
			counterSets = append(counterSets, cs)
			counterCaps[cs] = map[string]string{"mem": pick(g, []string{"8Gi", "16Gi", "24Gi"}), "slots": fmt.Sprint(g.n(1, 4))}
		}
	}
	// 1.37 alpha: compatibility groups on the counter consumptions, and a
	// partition type attribute naming each partition's shape. Decided only
	// with their gates, so that other modes draw the same numbers as before.
	grouped := counters && g.on["DRADeviceCompatibilityGroups"] && g.p(0.7)
	partitionType := counters && g.on["DRAPartitionableDevicesType"] && g.p(0.6)
	declared := int64(total)
	incomplete := g.p(0.07)
	if incomplete {
		declared++ // one slice never arrives
	}
	var out []any
	sliceBase := fmt.Sprintf("%s-%s", strings.Split(pl.driver, ".")[0], pl.name)
	mkSlice := func(i int, generation int64) obj {
		spec := obj{"driver": pl.driver, "pool": obj{"name": pl.name, "generation": generation, "resourceSliceCount": declared}}
		return obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
			"metadata": obj{"name": fmt.Sprintf("%s-%d", sliceBase, i)}, "spec": spec}
	}
	// Devices, split over the device slices.
	perSlice := make([][]any, nslices)
	for i := 0; i < ndev; i++ {
		si := i % nslices
		if g.p(0.3) {
			si = g.r.IntN(nslices)
		}
		d := &device{driver: pl.driver, pool: pl.name, name: fmt.Sprintf("dev-%d", i)}
		dv := g.genDevice(d, pl, counterSets, counterCaps)
		g.alphaPartition(d, dv, grouped, partitionType)
		perSlice[si] = append(perSlice[si], dv)
		g.devices = append(g.devices, d)
	}
	order := g.r.Perm(total)
	for i := 0; i < nslices; i++ {
		s := mkSlice(order[i], gen)
		spec := s["spec"].(obj)
		if pl.placement == "perdevice" {
			spec["perDeviceNodeSelection"] = true
		} else {
			g.placementFields(spec, pl.placement)
		}
		if partitionType && consumesCounters(perSlice[i]) {
			// Validation allows it only where some device consumes counters.
			spec["partitionTypeAttribute"] = pl.driver + "/profile"
		}
		if len(perSlice[i]) > 0 {
			spec["devices"] = perSlice[i]
		} else {
			spec["devices"] = []any{}
		}
		out = append(out, s)
	}
	if counters {
		s := mkSlice(order[nslices], gen)
		spec := s["spec"].(obj)
		if pl.placement == "perdevice" || g.p(0.3) {
			spec["allNodes"] = true
		} else {
			g.placementFields(spec, pl.placement)
		}
		var sets []any
		for _, cs := range counterSets {
			c := obj{}
			for k, v := range counterCaps[cs] {
				c[k] = obj{"value": v}
			}
			sets = append(sets, obj{"name": cs, "counters": c})
		}
		spec["sharedCounters"] = sets
		out = append(out, s)
	}
	// An obsolete slice of an older generation, or a newer one for another node.
	if g.p(0.1) && gen > 1 {
		s := mkSlice(total+1, gen-1)
		spec := s["spec"].(obj)
		spec["nodeName"] = "node-1"
		spec["devices"] = []any{obj{"name": "old-dev", "attributes": obj{"model": obj{"string": "a100"}}}}
		out = append(out, s)
	}
	if g.p(0.04) {
		s := mkSlice(total+2, gen+1)
		spec := s["spec"].(obj)
		spec["nodeName"] = "node-2"
		spec["devices"] = []any{obj{"name": "new-dev"}}
		out = append(out, s)
	}
	return out
}

func (g *gen) genDevice(d *device, pl poolPlan, counterSets []string, counterCaps map[string]map[string]string) obj {
	dv := obj{"name": d.name}
	d.attrs = g.genAttrs(pl.driver)
	if len(d.attrs) > 0 {
		a := obj{}
		for k, v := range d.attrs {
			a[k] = v
		}
		dv["attributes"] = a
	}
	d.caps = map[string]string{}
	caps := obj{}
	if g.p(0.7) {
		d.caps["memory"] = pick(g, memories)
	}
	if g.p(0.4) {
		d.caps["cores"] = fmt.Sprint(pick(g, []int{2, 4, 8}))
	}
	if g.on["DRAConsumableCapacity"] && g.p(0.45) {
		d.multi = true
		dv["allowMultipleAllocations"] = true
		if g.p(0.3) {
			d.caps["bw"] = pick(g, []string{"10", "2500m", "4"})
		}
	}
	for _, k := range keysOf(d.caps) {
		v := d.caps[k]
		c := obj{"value": v}
		if d.multi && g.p(0.6) {
			c["requestPolicy"] = g.requestPolicy(k, v)
		}
		caps[k] = c
	}
	if len(caps) > 0 {
		dv["capacity"] = caps
	}
	if len(counterSets) > 0 && g.p(0.8) {
		cs := pick(g, counterSets)
		c := obj{}
		if g.p(0.8) {
			c["mem"] = obj{"value": pick(g, []string{"4Gi", "8Gi", "16Gi"})}
		}
		if g.p(0.6) || len(c) == 0 {
			c["slots"] = obj{"value": fmt.Sprint(g.n(1, 2))}
		}
		dv["consumesCounters"] = []any{obj{"counterSet": cs, "counters": c}}
	}
	if pl.placement == "perdevice" {
		switch g.n(0, 3) {
		case 0:
			dv["nodeName"] = "node-1"
		case 1:
			dv["nodeName"] = "node-2"
		case 2:
			dv["allNodes"] = true
		default:
			dv["nodeSelector"] = g.nodeSelector(g.p(0.6))
		}
	}
	if g.on["DRADeviceTaints"] && g.p(0.15) {
		n := g.n(1, 2)
		var ts []any
		for i := 0; i < n; i++ {
			t := obj{"key": pick(g, []string{"maintenance", "degraded"}), "effect": pick(g, []string{"None", "NoSchedule", "NoExecute"})}
			if g.p(0.6) {
				t["value"] = pick(g, []string{"true", "soon"})
			}
			ts = append(ts, t)
			d.taints = append(d.taints, t)
		}
		dv["taints"] = ts
	}
	if g.on["DRADeviceBindingConditions"] && g.on["DRAResourceClaimDeviceStatus"] && g.p(0.2) {
		d.binding = true
		dv["bindingConditions"] = strs(g.subset([]string{"attached", "ready"}, g.n(1, 2)))
		dv["bindingFailureConditions"] = []any{"failed"}
		if g.p(0.5) {
			dv["bindsToNode"] = true
		}
	}
	return dv
}

func consumesCounters(devices []any) bool {
	for _, d := range devices {
		if _, ok := d.(obj)["consumesCounters"]; ok {
			return true
		}
	}
	return false
}

// alphaPartition adds 1.37's alpha fields to a device that consumes
// counters: compatibilityGroups (gate DRADeviceCompatibilityGroups; most
// devices of a grouped pool declare one or two of three groups, the others
// none) and the partition type attribute "profile" (gate
// DRAPartitionableDevicesType; equal values have equal consumption, as
// validation demands).
func (g *gen) alphaPartition(d *device, dv obj, grouped, partitionType bool) {
	uses, _ := dv["consumesCounters"].([]any)
	if len(uses) == 0 {
		return
	}
	use := uses[0].(obj)
	if grouped && g.p(0.75) {
		use["compatibilityGroups"] = strs(g.subset([]string{"g-a", "g-b", "g-c"}, g.n(1, 2)))
	}
	if partitionType {
		counters := use["counters"].(obj)
		profile := use["counterSet"].(string)
		for _, k := range []string{"mem", "slots"} {
			if c, ok := counters[k].(obj); ok {
				profile += fmt.Sprintf("-%s%v", k, c["value"])
			}
		}
		if d.attrs == nil {
			d.attrs = map[string]any{}
		}
		d.attrs["profile"] = obj{"string": profile}
		attrs, _ := dv["attributes"].(obj)
		if attrs == nil {
			attrs = obj{}
			dv["attributes"] = attrs
		}
		attrs["profile"] = d.attrs["profile"]
	}
}

func (g *gen) requestPolicy(name, value string) obj {
	switch name {
	case "memory":
		if g.p(0.5) {
			return obj{"default": "1Gi", "validRange": obj{"min": "1Gi", "step": "1Gi"}}
		}
		return obj{"default": "2Gi", "validValues": []any{"1Gi", "2Gi", "4Gi"}}
	case "bw":
		if g.p(0.5) {
			return obj{"default": "500m", "validRange": obj{"min": "250m", "max": value, "step": "250m"}}
		}
		return obj{"default": "1", "validRange": obj{"min": "1"}}
	default:
		return obj{"default": "1", "validRange": obj{"min": "1", "max": value}}
	}
}

// --- CEL -------------------------------------------------------------------

// celExpr returns a realistic selector for devices of driver d (or any
// driver when d is empty); depth limits conjunctions.
func (g *gen) celExpr(d string, depth int) string {
	if d == "" {
		d = pick(g, g.drivers)
	}
	at := func(name string) string { return fmt.Sprintf("device.attributes[%q].%s", d, name) }
	// Most real selectors guard attribute access with has(); unguarded ones
	// fail at runtime on devices without the attribute (an allocation error).
	guard := func(name, expr string) string {
		if g.p(0.8) {
			return fmt.Sprintf("has(%s) && %s", at(name), expr)
		}
		return expr
	}
	capx := func(name string) string { return fmt.Sprintf("device.capacity[%q].%s", d, name) }
	if depth > 0 && g.p(0.25) {
		op := pick(g, []string{"&&", "&&", "||"})
		return fmt.Sprintf("(%s) %s (%s)", g.celExpr(d, depth-1), op, g.celExpr(d, depth-1))
	}
	choices := 13
	if g.on["DRAListTypeAttributes"] {
		choices = 15
	}
	switch g.r.IntN(choices) {
	case 0:
		return fmt.Sprintf("device.driver == %q", d)
	case 1:
		return guard("model", fmt.Sprintf("%s == %q", at("model"), pick(g, models)))
	case 2:
		return guard("index", fmt.Sprintf("%s %s %d", at("index"), pick(g, []string{">=", "<", "==", "!="}), g.n(0, 3)))
	case 3:
		return guard("model", fmt.Sprintf("%s in [%q, %q]", at("model"), pick(g, models), pick(g, models)))
	case 4:
		e := fmt.Sprintf("%s.compareTo(quantity(%q)) >= 0", capx("memory"), pick(g, memories))
		if g.p(0.8) {
			e = fmt.Sprintf("has(%s) && %s", capx("memory"), e)
		}
		return e
	case 5:
		e := fmt.Sprintf("%s.isGreaterThan(quantity(%q))", capx("memory"), pick(g, []string{"4Gi", "8Gi", "10Gi"}))
		if g.p(0.8) {
			e = fmt.Sprintf("has(%s) && %s", capx("memory"), e)
		}
		return e
	case 6:
		return guard("fw", fmt.Sprintf("%s.isGreaterThan(semver(%q))", at("fw"), pick(g, []string{"1.0.0", "1.5.0", "2.0.0"})))
	case 7:
		return guard("model", fmt.Sprintf("%s.matches(%q)", at("model"), pick(g, []string{"^a", "100$", "^[ht]"})))
	case 8:
		return fmt.Sprintf("has(%s)", at("healthy"))
	case 9:
		return fmt.Sprintf("has(%s) && %s", at("healthy"), at("healthy"))
	case 10:
		// Runtime error when the device lacks the attribute.
		return fmt.Sprintf("%s == %q", at("model"), "h100")
	case 11:
		if g.on["DRAConsumableCapacity"] {
			return fmt.Sprintf("device.allowMultipleAllocations == %v", g.p(0.5))
		}
		return fmt.Sprintf("%q in device.attributes", d)
	case 12:
		return fmt.Sprintf("has(device.attributes[%q].zone) && device.attributes[%q].zone == %q", topo, topo, pick(g, []string{"z0", "z1"}))
	case 13:
		return guard("links", fmt.Sprintf("%q in %s", pick(g, []string{"l0", "l1", "l2"}), at("links")))
	default:
		return fmt.Sprintf("has(%s) && %s.exists(n, n >= 2)", at("numa"), at("numa"))
	}
}

// --- claims ----------------------------------------------------------------

type allocatedExtra struct {
	devices []any
	shares  []any
}

func (g *gen) shareID() string {
	g.shareN++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", g.shareN)
}

func (g *gen) genClaims() ([]any, []any, allocatedExtra) {
	var out, allocate []any
	var extra allocatedExtra
	// Already-allocated claims and other in-use devices.
	if len(g.devices) > 0 && g.p(0.25) {
		var results []any
		for i, d := range g.subsetDevices(g.n(1, 2)) {
			r := obj{"request": "req-0", "driver": d.driver, "pool": d.pool, "device": d.name}
			if d.multi && g.on["DRAConsumableCapacity"] {
				r["shareID"] = g.shareID()
				if len(d.caps) > 0 && g.p(0.7) {
					cc := obj{}
					for _, k := range keysOf(d.caps) {
						cc[k] = pick(g, []string{"1", "1Gi", "2Gi"})
						break
					}
					r["consumedCapacity"] = cc
				}
			}
			if g.on["DRAAdminAccess"] && g.p(0.15) {
				r["adminAccess"] = true
			}
			_ = i
			results = append(results, r)
		}
		out = append(out, obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
			"metadata": obj{"name": "allocated-0", "namespace": "default"},
			"spec": obj{"devices": obj{"requests": []any{obj{"name": "req-0",
				"exactly": obj{"deviceClassName": g.classes[0], "allocationMode": "ExactCount", "count": len(results)}}}}},
			"status": obj{"allocation": obj{"devices": obj{"results": results},
				"nodeSelector": obj{"nodeSelectorTerms": []any{obj{"matchFields": []any{obj{"key": "metadata.name", "operator": "In", "values": []any{"node-1"}}}}}}}}})
	}
	if len(g.devices) > 0 && g.p(0.2) {
		for _, d := range g.subsetDevices(1) {
			extra.devices = append(extra.devices, d.driver+"/"+d.pool+"/"+d.name)
		}
	}
	if len(g.devices) > 0 && g.on["DRAConsumableCapacity"] && g.p(0.3) {
		for _, d := range g.devices {
			if d.multi && len(d.caps) > 0 && g.p(0.5) {
				cc := obj{}
				for _, k := range keysOf(d.caps) {
					v := d.caps[k]
					if g.p(0.5) {
						cc[k] = v // everything
					} else {
						cc[k] = pick(g, []string{"1", "1Gi"})
					}
				}
				extra.shares = append(extra.shares, obj{"device": d.driver + "/" + d.pool + "/" + d.name, "shareID": g.shareID(), "consumedCapacity": cc})
			}
		}
	}
	if extra.devices == nil {
		extra.devices = []any{}
	}
	if extra.shares == nil {
		extra.shares = []any{}
	}

	g.demand = max(1, len(g.devices)*3/4)
	if g.p(0.15) {
		g.demand += 3 // sometimes too much
	}
	nclaims := min(pick(g, []int{1, 1, 2, 3}), g.demand)
	for i := 0; i < nclaims; i++ {
		name := fmt.Sprintf("claim-%d", i)
		out = append(out, g.genClaim(name))
		allocate = append(allocate, "default/"+name)
	}
	return out, allocate, extra
}

func (g *gen) hasDriver(d string) bool {
	for _, dev := range g.devices {
		if dev.driver == d {
			return true
		}
	}
	return false
}

func (g *gen) subsetDevices(k int) []*device {
	idx := g.r.Perm(len(g.devices))
	var out []*device
	for _, i := range idx[:min(k, len(idx))] {
		out = append(out, g.devices[i])
	}
	return out
}

// attribute names usable in constraints.
func (g *gen) constraintAttr() string {
	d := pick(g, g.drivers)
	names := []string{d + "/model", d + "/index", topo + "/zone", d + "/fw", d + "/healthy"}
	if g.on["DRAListTypeAttributes"] {
		names = append(names, d+"/links", d+"/numa", topo+"/zone")
	}
	if g.on["DRAPartitionableDevicesType"] {
		names = append(names, d+"/profile")
	}
	return pick(g, names)
}

func (g *gen) genClaim(name string) obj {
	nreq := g.n(1, 4)
	if g.p(0.5) {
		nreq = 1
	}
	nreq = max(1, min(nreq, g.demand))
	var reqs []any
	var reqNames []string
	for i := 0; i < nreq; i++ {
		rn := fmt.Sprintf("req-%d", i)
		reqNames = append(reqNames, rn)
		r := obj{"name": rn}
		if g.on["DRAPrioritizedList"] && g.p(0.3) {
			nsub := g.n(1, 3)
			var subs []any
			for j := 0; j < nsub; j++ {
				s := g.exactly(false)
				s["name"] = fmt.Sprintf("sub-%d", j)
				subs = append(subs, s)
			}
			r["firstAvailable"] = subs
		} else {
			r["exactly"] = g.exactly(true)
		}
		reqs = append(reqs, r)
	}
	devices := obj{"requests": reqs}
	// With DRADerivedAttributes more claims get constraints, to derive them.
	if g.p(0.3) || (g.on["DRADerivedAttributes"] && g.p(0.4)) {
		nc := g.n(1, 2)
		var cs []any
		for i := 0; i < nc; i++ {
			c := obj{}
			// distinctAttribute only with its gate: without it the API server
			// drops the field and then refuses the constraint.
			if g.p(0.6) || !g.on["DRAConsumableCapacity"] {
				c["matchAttribute"] = g.constraintAttr()
			} else {
				c["distinctAttribute"] = g.constraintAttr()
			}
			if g.p(0.5) && len(reqNames) > 1 {
				c["requests"] = strs(g.subset(reqNames, g.n(1, len(reqNames))))
			}
			cs = append(cs, c)
		}
		devices["constraints"] = cs
		if g.on["DRADerivedAttributes"] && g.p(0.7) {
			g.derive(reqs, cs)
		}
	}
	if g.p(0.25) {
		c := obj{"opaque": obj{"driver": pick(g, g.drivers), "parameters": obj{"claim": name}}}
		if g.p(0.5) {
			c["requests"] = strs(g.subset(reqNames, g.n(1, len(reqNames))))
		}
		devices["config"] = []any{c}
	}
	return obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
		"metadata": obj{"name": name, "namespace": "default"}, "spec": obj{"devices": devices}}
}

// derive gives some constraints derived attributes (gate
// DRADerivedAttributes): the constraint keeps its attribute (the derived one
// shadows the devices' own) or gets a "derived/..." name, and most of the
// requests it targets define the attribute (each definition must be used by
// a constraint targeting its request, as validation demands; a request
// without it compares the devices' own attribute, which "derived/..." ones
// never have).
func (g *gen) derive(reqs, constraints []any) {
	for i, c := range constraints {
		if g.p(0.3) {
			continue
		}
		co := c.(obj)
		key := "matchAttribute"
		if _, ok := co[key]; !ok {
			key = "distinctAttribute"
		}
		if g.p(0.5) {
			co[key] = fmt.Sprintf("derived/attr%d", i)
		}
		name := co[key].(string)
		targets := map[string]bool{}
		if rs, ok := co["requests"].([]any); ok {
			for _, r := range rs {
				targets[r.(string)] = true
			}
		}
		for _, r := range reqs {
			ro := r.(obj)
			if len(targets) > 0 && !targets[ro["name"].(string)] {
				continue
			}
			bodies := []any{ro["exactly"]}
			if subs, ok := ro["firstAvailable"].([]any); ok {
				bodies = subs
			}
			for _, b := range bodies {
				if b == nil || g.p(0.1) {
					continue
				}
				body := b.(obj)
				list, _ := body["derivedAttributes"].([]any)
				dup := false
				for _, have := range list {
					dup = dup || have.(obj)["name"] == name
				}
				if !dup {
					body["derivedAttributes"] = append(list, obj{"name": name, "expression": g.derivedExpr()})
				}
			}
		}
	}
}

// derivedExpr is a derived attribute's expression: mostly guarded, so that it
// evaluates on every device; sometimes one that fails on devices without the
// attribute (an allocation error on both sides).
func (g *gen) derivedExpr() string {
	at := func(name string) string { return "device.attributes[device.driver]." + name }
	choices := 9
	if g.on["DRAListTypeAttributes"] {
		choices = 11
	}
	switch g.r.IntN(choices) {
	case 0:
		return "device.driver"
	case 1:
		return fmt.Sprintf("has(%s) ? %s : %q", at("model"), at("model"), "none")
	case 2:
		return fmt.Sprintf("has(%s) ? %s %% 2 : -1", at("index"), at("index"))
	case 3:
		return fmt.Sprintf("has(device.attributes[%q].zone) ? device.attributes[%q].zone : %q", topo, topo, "z-none")
	case 4:
		return fmt.Sprintf("has(device.capacity[device.driver].memory) && device.capacity[device.driver].memory.compareTo(quantity(%q)) >= 0",
			pick(g, memories))
	case 5:
		return fmt.Sprintf("has(%s) && %s", at("healthy"), at("healthy"))
	case 6:
		// Fails on a device without the attribute.
		return at(pick(g, []string{"model", "index", "fw"}))
	case 7:
		return fmt.Sprintf("has(%s) ? %s.major() : 0", at("fw"), at("fw"))
	case 8:
		return fmt.Sprintf("has(%s) ? semver(%q) : semver(%q)", at("healthy"), "1.0.0", "2.0.0")
	case 9:
		return fmt.Sprintf("has(%s) ? %s : [%q]", at("links"), at("links"), "l-none")
	default:
		return fmt.Sprintf("[device.driver, has(%s) ? string(%s) : %q]", at("model"), at("model"), "none")
	}
}

// exactly makes an ExactDeviceRequest (top) or a DeviceSubRequest body.
func (g *gen) exactly(top bool) obj {
	class := pick(g, g.classes)
	// Mostly a class whose driver has devices.
	for try := 0; try < 5 && g.p(0.9); try++ {
		if drv := g.classDriver[class]; drv == "" || g.hasDriver(drv) {
			break
		}
		class = pick(g, g.classes)
	}
	e := obj{"deviceClassName": class}
	if g.p(0.35) {
		var sels []any
		for i := g.n(1, 2); i > 0; i-- {
			sels = append(sels, obj{"cel": obj{"expression": g.celExpr(g.classDriver[class], 1)}})
		}
		e["selectors"] = sels
	}
	if g.p(0.15) {
		e["allocationMode"] = "All"
	} else {
		e["allocationMode"] = "ExactCount"
		c := max(1, min(pick(g, []int{1, 1, 1, 1, 2, 2, 3}), g.demand))
		g.demand -= c
		e["count"] = c
	}
	if top && g.on["DRAAdminAccess"] && g.p(0.12) {
		e["adminAccess"] = true
	}
	if g.on["DRADeviceTaints"] && g.p(0.3) {
		t := obj{"key": pick(g, []string{"maintenance", "degraded"})}
		if g.p(0.5) {
			t["operator"] = "Exists"
		} else {
			t["operator"] = "Equal"
			t["value"] = pick(g, []string{"true", "soon"})
		}
		if g.p(0.5) {
			t["effect"] = pick(g, []string{"NoSchedule", "NoExecute", "None"})
		}
		e["tolerations"] = []any{t}
	}
	if g.on["DRAConsumableCapacity"] && g.p(0.35) {
		req := obj{}
		if g.p(0.7) {
			req["memory"] = pick(g, []string{"1Gi", "2Gi", "3Gi", "1500Mi", "8Gi"})
		}
		if g.p(0.3) {
			req["bw"] = pick(g, []string{"1", "300m", "2"})
		}
		if g.p(0.2) {
			req["cores"] = pick(g, []string{"1", "2"})
		}
		if len(req) > 0 {
			e["capacity"] = obj{"requests": req}
		}
	}
	return e
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
