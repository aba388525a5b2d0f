package main

// The scheduler level's generator (--level scheduler, README.md): random
// clusters for `dractl schedule` and `oracle schedule` (kube-scheduler
// 1.37.2's plugins). Scenario i of seed S comes from a PCG seeded with S and
// i, so it is the same whatever --count is.

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// SchedScenario is one cluster: a JSON List of objects, and the gate
// overrides both sides get (--feature-gates).
type SchedScenario struct {
	Index int
	Gates string
	Gang  bool // with PodGroups (compared by sched_gang.go)
	Large bool // 101-260 nodes (compared as clusters with PodGroups are)
	List  obj
}

type schedGen struct {
	g      *gen
	gang   bool // a cluster with PodGroups (sched_gang.go): no pod priorities
	large  bool // 101-260 nodes: node sampling (genLarge)
	zones  []string
	nodes  []obj
	taints []obj // every taint some node has, for tolerations
	gpus   map[string][]string
	held   []string // claims allocated before the run
	items  []any
	ts     int
}

const schedDriver = "gpu.example.com"

// schedGangFraction is the share of clusters with PodGroups by default
// (--gangs).
const schedGangFraction = 0.25

// schedLargeFraction is the share of large clusters by default (--large).
const schedLargeFraction = 0.03

// GenerateSched draws scenario `index` of `seed` (with PodGroups in
// schedGangFraction of them, large in schedLargeFraction).
func GenerateSched(seed uint64, index int) SchedScenario {
	return GenerateSchedWith(seed, index, schedGangFraction, schedLargeFraction)
}

// GenerateSchedWith draws scenario `index` of `seed`; a share `gangs` of
// the clusters have PodGroups, a share `large` 101-260 nodes (and no
// PodGroups). Whether one does comes from a generator of its own, so the
// other clusters are the same whatever `gangs` and `large` are (and as
// before PodGroups and large clusters were drawn).
func GenerateSchedWith(seed uint64, index int, gangs, large float64) SchedScenario {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(index)+0x5c4ed))}
	s := &schedGen{g: g, gpus: map[string][]string{}}
	s.gang = rand.New(rand.NewPCG(seed, uint64(index)+0x9a4c)).Float64() < gangs
	if rand.New(rand.NewPCG(seed, uint64(index)+0x1a26e)).Float64() < large {
		s.gang, s.large = false, true
	}
	var gates []string // DRAPrioritizedList and DRAExtendedResource are locked on in 1.37
	s.genClasses()
	if s.large {
		s.genLarge()
		return SchedScenario{Index: index, Large: true,
			List: obj{"apiVersion": "v1", "kind": "List", "items": s.items}}
	}
	n := g.n(2, 6)
	for i := 1; i <= n; i++ {
		s.genNode(fmt.Sprintf("node-%d", i))
	}
	s.genAllocated()
	if s.gang {
		gates = s.genGangs()
	} else {
		pending := g.n(1, 6)
		for i := 0; i < pending; i++ {
			s.genPod(fmt.Sprintf("pod-%d", i))
		}
	}
	return SchedScenario{Index: index, Gates: strings.Join(gates, ","), Gang: s.gang,
		List: obj{"apiVersion": "v1", "kind": "List", "items": s.items}}
}

// genGangs: 1-2 PodGroups of 2-6 pending members and 0-3 pods of no group,
// created in a random order (a single pod sometimes among a group's
// members). Returns the gates: GenericWorkload, and DRAWorkloadResourceClaims
// where a PodGroup has claims.
func (s *schedGen) genGangs() []string {
	g := s.g
	var entities []string
	for k := g.n(1, 2); k > 0; k-- {
		entities = append(entities, fmt.Sprintf("gang-%d", k-1))
	}
	for k := g.n(0, 3); k > 0; k-- {
		entities = append(entities, "")
	}
	g.r.Shuffle(len(entities), func(i, j int) { entities[i], entities[j] = entities[j], entities[i] })
	singles, claims := 0, false
	single := func() {
		s.genPod(fmt.Sprintf("pod-%d", singles))
		singles++
	}
	for _, e := range entities {
		if e == "" {
			single()
			continue
		}
		claims = s.genGroup(e, single) || claims
	}
	gates := []string{"GenericWorkload=true"}
	if claims {
		gates = append(gates, "DRAWorkloadResourceClaims=true")
	}
	return gates
}

// genGroup: PodGroup `name` (gang minCount 1..size, or 15% basic), 2-6
// pending members drawn as other pods are (claims from their own
// templates, the shared and held claims, extended resources, node
// constraints) and sometimes one that fits no node (64 cpus); 40% a
// PodGroup claim from a template that most members name (the group's one
// claim); 15% a member already bound. `single` makes a pod of no group
// (called between members 15% of the time). Returns whether the group has
// claims.
func (s *schedGen) genGroup(name string, single func()) bool {
	g := s.g
	size := g.n(2, 6)
	policy := obj{"basic": obj{}}
	if g.p(0.85) {
		policy = obj{"gang": obj{"minCount": g.n(1, size)}}
	}
	spec := obj{"schedulingPolicy": policy}
	shared := ""
	if g.p(0.4) {
		shared = name + "-shared"
		s.add(obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
			"metadata": obj{"name": shared, "namespace": "default"},
			"spec": obj{"spec": obj{"devices": obj{"requests": []any{obj{"name": "r", "exactly": obj{
				"deviceClassName": pick(g, []string{"gpu", "gpu", "gpu-big"}), "allocationMode": "ExactCount", "count": 1}}}}}}})
		spec["resourceClaims"] = []any{obj{"name": "grp", "resourceClaimTemplateName": shared}}
	}
	s.add(obj{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
		"metadata": obj{"name": name, "namespace": "default", "uid": "uid-pg-" + name},
		"spec":     spec})
	member := func(p obj) {
		p["spec"].(obj)["schedulingGroup"] = obj{"podGroupName": name}
	}
	if g.p(0.15) {
		p := s.podShell(name + "-bound")
		p["spec"].(obj)["nodeName"] = pick(g, s.nodes)["metadata"].(obj)["name"]
		p["spec"].(obj)["schedulerName"] = "default-scheduler" // as genPod's
		member(p)
		s.add(p)
	}
	for i := 0; i < size; i++ {
		if i > 0 && g.p(0.15) {
			single()
		}
		p := s.genPod(fmt.Sprintf("%s-%d", name, i))
		member(p)
		spec := p["spec"].(obj)
		container := spec["containers"].([]any)[0].(obj)
		res, _ := container["resources"].(obj)
		if res == nil {
			res = obj{}
			container["resources"] = res
		}
		if shared != "" && g.p(0.85) {
			claims, _ := spec["resourceClaims"].([]any)
			spec["resourceClaims"] = append(claims, obj{"name": "grp", "resourceClaimTemplateName": shared})
			cc, _ := res["claims"].([]any)
			res["claims"] = append(cc, obj{"name": "grp"})
		}
		if g.p(0.1) {
			req, _ := res["requests"].(obj)
			if req == nil {
				req = obj{}
				res["requests"] = req
			}
			req["cpu"] = "64" // no node has as many
		}
	}
	return shared != ""
}

// genLarge: 101-260 nodes, so kube-scheduler samples them (it stops at
// numFeasibleNodesToFind, 100 or more, feasible nodes and the next pod
// starts where the last one stopped): few taints and cordoned nodes, so
// more than 100 are often feasible; node sizes drawn from a wide range, so
// the scores more often have one best node; 60% with zone labels (2-3
// zones, the nodes drawn at random among them, sometimes with a region or
// the failure-domain.beta labels), which set the order kube-scheduler
// walks the nodes in (its nodeTree). 2-8 pending pods as genPod draws them
// (no priorities and no held claims: the whole kube-scheduler, which the
// oracle runs for these, would preempt or deallocate).
func (s *schedGen) genLarge() {
	g := s.g
	if g.p(0.6) {
		for k := g.n(2, 3); k > 0; k-- {
			zone := []string{"z-a", "z-b", "z-c"}[k-1]
			if g.p(0.3) {
				zone = pick(g, []string{"r1", "r2"}) + "/" + zone
			}
			s.zones = append(s.zones, zone)
		}
	}
	n := g.n(101, 260)
	for i := 1; i <= n; i++ {
		s.genNode(fmt.Sprintf("node-%d", i))
	}
	s.genAllocated()
	pending := g.n(2, 8)
	for i := 0; i < pending; i++ {
		p := s.genPod(fmt.Sprintf("pod-%d", i))
		if g.p(0.8) {
			s.preferHosts(p)
		}
	}
}

// preferHosts: preferred node affinity for 3-6 nodes by name, each with
// its own weight. Among many like nodes the scores tie (only a unique best
// node is compared, the rest of the cluster after a tie is not); these
// nodes, where Filter's sample holds them, stand out, so which ones the
// sample holds decides the node.
func (s *schedGen) preferHosts(p obj) {
	g := s.g
	spec := p["spec"].(obj)
	affinity, _ := spec["affinity"].(obj)
	if affinity == nil {
		affinity = obj{"nodeAffinity": obj{}}
		spec["affinity"] = affinity
	}
	na := affinity["nodeAffinity"].(obj)
	terms, _ := na["preferredDuringSchedulingIgnoredDuringExecution"].([]any)
	weights := []int{100, 90, 70, 50, 30, 10}
	for k := g.n(3, 6); k > 0; k-- {
		host := pick(g, s.nodes)["metadata"].(obj)["name"]
		terms = append(terms, obj{"weight": weights[k-1], "preference": obj{
			"matchExpressions": []any{obj{"key": "kubernetes.io/hostname", "operator": "In", "values": []any{host}}}}})
	}
	na["preferredDuringSchedulingIgnoredDuringExecution"] = terms
}

// zoneLabels: a large cluster's node's zone (and region) labels.
func (s *schedGen) zoneLabels(labels obj) {
	g := s.g
	if len(s.zones) == 0 || g.p(0.05) { // sometimes a node without
		return
	}
	zone := pick(g, s.zones)
	region, z, ok := strings.Cut(zone, "/")
	if !ok {
		region, z = "", zone
	}
	zoneKey, regionKey := "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
	if g.p(0.1) {
		zoneKey, regionKey = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
	}
	labels[zoneKey] = z
	if region != "" {
		labels[regionKey] = region
	}
}

func (s *schedGen) add(o obj) { s.items = append(s.items, o) }

func (s *schedGen) genClasses() {
	g := s.g
	gpu := obj{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
		"metadata": obj{"name": "gpu"},
		"spec":     obj{"selectors": []any{obj{"cel": obj{"expression": fmt.Sprintf("device.driver == %q", schedDriver)}}}}}
	if g.p(0.5) {
		gpu["spec"].(obj)["extendedResourceName"] = "example.com/gpu"
	}
	s.add(gpu)
	s.add(obj{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
		"metadata": obj{"name": "gpu-big"},
		"spec": obj{"selectors": []any{obj{"cel": obj{"expression": fmt.Sprintf(
			"device.driver == %q && device.attributes[%q].model == \"big\"", schedDriver, schedDriver)}}}}})
}

var schedTaintKeys = []string{"dedicated", "gpu", "maintenance"}

func (s *schedGen) genNode(name string) {
	g := s.g
	labels := obj{"kubernetes.io/hostname": name, "zone": pick(g, []string{"a", "b", "c"})}
	if g.p(0.5) {
		labels["tier"] = pick(g, []string{"gold", "silver"})
	}
	alloc := obj{
		"cpu":    pick(g, []string{"2", "4", "8", "16", "3500m"}),
		"memory": pick(g, []string{"4Gi", "8Gi", "16Gi", "32Gi", "6000Mi"}),
		"pods":   pick(g, []string{"2", "4", "110"}),
	}
	unschedulable, tainted := 0.12, 0.35
	if s.large {
		s.zoneLabels(labels)
		alloc["cpu"] = fmt.Sprintf("%dm", g.n(2000, 64000))
		alloc["memory"] = fmt.Sprintf("%dMi", g.n(4096, 131072))
		unschedulable, tainted = 0.03, 0.06
	}
	if g.p(0.15) {
		alloc["example.com/gpu"] = pick(g, []string{"1", "2", "0"})
	}
	spec := obj{}
	if g.p(unschedulable) {
		spec["unschedulable"] = true
	}
	if g.p(tainted) {
		var taints []any
		seen := map[string]bool{} // unique by key and effect (API validation)
		for k := g.n(1, 2); k > 0; k-- {
			t := obj{"key": pick(g, schedTaintKeys), "effect": pick(g, []string{"NoSchedule", "PreferNoSchedule", "PreferNoSchedule", "NoExecute"})}
			if id := fmt.Sprint(t["key"], t["effect"]); seen[id] {
				continue
			} else {
				seen[id] = true
			}
			if g.p(0.6) {
				t["value"] = pick(g, []string{"x", "y"})
			}
			taints = append(taints, t)
			s.taints = append(s.taints, t)
		}
		spec["taints"] = taints
	}
	node := obj{"apiVersion": "v1", "kind": "Node",
		"metadata": obj{"name": name, "labels": labels},
		"spec":     spec,
		"status":   obj{"allocatable": alloc, "capacity": alloc}}
	s.add(node)
	s.nodes = append(s.nodes, node)
	if g.p(0.7) {
		var devices []any
		for d := 0; d < g.n(1, 4); d++ {
			dev := fmt.Sprintf("gpu-%d", d)
			devices = append(devices, obj{"name": dev, "attributes": obj{
				"model": obj{"string": pick(g, []string{"big", "small"})},
			}})
			s.gpus[name] = append(s.gpus[name], dev)
		}
		s.add(obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
			"metadata": obj{"name": name + "-gpu"},
			"spec": obj{"driver": schedDriver, "nodeName": name,
				"pool":    obj{"name": name, "generation": 1, "resourceSliceCount": 1},
				"devices": devices}})
	}
	// Pods already bound there.
	for k := g.n(0, 2); k > 0; k-- {
		p := s.podShell(fmt.Sprintf("%s-running-%d", name, k))
		p["spec"].(obj)["nodeName"] = name
		s.add(p)
	}
}

func (s *schedGen) podShell(name string) obj {
	g := s.g
	res := obj{}
	if g.p(0.8) {
		res["cpu"] = pick(g, []string{"100m", "250m", "500m", "1", "2", "3"})
	}
	if g.p(0.8) {
		res["memory"] = pick(g, []string{"128Mi", "512Mi", "1Gi", "2Gi", "5Gi"})
	}
	container := obj{"name": "c", "image": "busybox"}
	if len(res) > 0 {
		container["resources"] = obj{"requests": res}
	}
	s.ts++
	return obj{"apiVersion": "v1", "kind": "Pod",
		"metadata": obj{"name": name, "namespace": "default", "uid": "uid-" + name,
			"creationTimestamp": fmt.Sprintf("2026-01-01T00:%02d:%02dZ", s.ts/60, s.ts%60)},
		"spec": obj{"containers": []any{container}}}
}

// genAllocated: a claim already allocated on some node's first device, and
// a shared claim not yet allocated, for pods to name.
func (s *schedGen) genAllocated() {
	g := s.g
	for _, n := range s.nodes {
		name := n["metadata"].(obj)["name"].(string)
		if len(s.gpus[name]) == 0 || !g.p(0.3) {
			continue
		}
		s.held = append(s.held, "held-"+name)
		s.add(obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
			"metadata": obj{"name": "held-" + name, "namespace": "default", "uid": "uid-held-" + name},
			"spec":     obj{"devices": obj{"requests": []any{obj{"name": "r", "exactly": obj{"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}}}},
			"status": obj{"allocation": obj{
				"devices": obj{"results": []any{obj{"request": "r", "driver": schedDriver, "pool": name, "device": s.gpus[name][0]}}},
				"nodeSelector": obj{"nodeSelectorTerms": []any{obj{"matchFields": []any{
					obj{"key": "metadata.name", "operator": "In", "values": []any{name}}}}}}}}})
	}
	s.add(obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
		"metadata": obj{"name": "shared", "namespace": "default", "uid": "uid-shared"},
		"spec":     obj{"devices": obj{"requests": []any{obj{"name": "r", "exactly": obj{"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}}}}})
}

func (s *schedGen) genPod(name string) obj {
	g := s.g
	p := s.podShell(name)
	spec := p["spec"].(obj)
	// No priorities with PodGroups: kube-scheduler's DefaultPreemption
	// (which the gang oracle runs) would evict lower-priority pods.
	if !s.gang && !s.large && g.p(0.4) {
		spec["priority"] = pick(g, []int{0, 10, 100})
	}
	if len(s.taints) > 0 && g.p(0.4) {
		var tols []any
		for k := g.n(1, 2); k > 0; k-- {
			t := pick(g, s.taints)
			tol := obj{"key": t["key"]}
			if v, ok := t["value"]; ok && g.p(0.7) {
				tol["operator"], tol["value"] = "Equal", v
			} else {
				tol["operator"] = "Exists"
			}
			if g.p(0.6) {
				tol["effect"] = t["effect"]
			}
			tols = append(tols, tol)
		}
		spec["tolerations"] = tols
	}
	if g.p(0.15) {
		spec["nodeSelector"] = obj{"zone": pick(g, []string{"a", "b"})}
	}
	affinity := obj{}
	if g.p(0.2) {
		affinity["requiredDuringSchedulingIgnoredDuringExecution"] = obj{"nodeSelectorTerms": []any{obj{
			"matchExpressions": []any{obj{"key": "zone", "operator": pick(g, []string{"In", "NotIn"}),
				"values": strs(g.subset([]string{"a", "b", "c"}, g.n(1, 2)))}}}}}
	}
	if g.p(0.35) {
		var terms []any
		for k := g.n(1, 2); k > 0; k-- {
			key, vals := "zone", g.subset([]string{"a", "b", "c"}, 1)
			if g.p(0.5) {
				key, vals = "tier", []string{pick(g, []string{"gold", "silver"})}
			}
			terms = append(terms, obj{"weight": pick(g, []int{1, 5, 50, 100}), "preference": obj{
				"matchExpressions": []any{obj{"key": key, "operator": "In", "values": strs(vals)}}}})
		}
		affinity["preferredDuringSchedulingIgnoredDuringExecution"] = terms
	}
	if len(affinity) > 0 {
		spec["affinity"] = obj{"nodeAffinity": affinity}
	}
	container := spec["containers"].([]any)[0].(obj)
	var podClaims, containerClaims []any
	if g.p(0.5) {
		tmpl := name + "-t"
		var requests []any
		for r := 0; r < g.n(1, 2); r++ {
			rname := fmt.Sprintf("r%d", r)
			if g.p(0.3) {
				requests = append(requests, obj{"name": rname, "firstAvailable": []any{
					obj{"name": "big", "deviceClassName": "gpu-big", "allocationMode": "ExactCount", "count": g.n(1, 2)},
					obj{"name": "any", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}})
			} else {
				requests = append(requests, obj{"name": rname, "exactly": obj{
					"deviceClassName": pick(g, []string{"gpu", "gpu", "gpu-big"}), "allocationMode": "ExactCount", "count": g.n(1, 2)}})
			}
		}
		s.add(obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
			"metadata": obj{"name": tmpl, "namespace": "default"},
			"spec":     obj{"spec": obj{"devices": obj{"requests": requests}}}})
		podClaims = append(podClaims, obj{"name": "gpus", "resourceClaimTemplateName": tmpl})
		containerClaims = append(containerClaims, obj{"name": "gpus"})
	}
	if g.p(0.15) {
		podClaims = append(podClaims, obj{"name": "sh", "resourceClaimName": "shared"})
		containerClaims = append(containerClaims, obj{"name": "sh"})
	}
	// Not with PodGroups: kube-scheduler's DynamicResources PostFilter (and
	// PodGroupPostFilter), which the gang oracle runs, deallocates an
	// allocated claim that nothing reserves when its pod cannot use it, and
	// dractl models no PostFilter.
	if !s.gang && !s.large && len(s.held) > 0 && g.p(0.1) {
		// An allocated claim: only its node is available.
		podClaims = append(podClaims, obj{"name": "held", "resourceClaimName": pick(g, s.held)})
		containerClaims = append(containerClaims, obj{"name": "held"})
	}
	if len(podClaims) > 0 {
		spec["resourceClaims"] = podClaims
		res, _ := container["resources"].(obj)
		if res == nil {
			res = obj{}
			container["resources"] = res
		}
		res["claims"] = containerClaims
	}
	if g.p(0.15) {
		res, _ := container["resources"].(obj)
		if res == nil {
			res = obj{}
			container["resources"] = res
		}
		req, _ := res["requests"].(obj)
		if req == nil {
			req = obj{}
			res["requests"] = req
		}
		req["example.com/gpu"] = "1"
		res["limits"] = obj{"example.com/gpu": "1"}
	}
	if s.gang {
		// The API server's default, written out: dractl compares it between
		// a group's pods (validatePodGroup) as given, and the oracle's fake
		// API does not default pods created bound.
		spec["schedulerName"] = "default-scheduler"
	}
	s.add(p)
	return p
}
