package main

// oracle schedule: kube-scheduler 1.37.2's own plugins (k8s.io/kubernetes/
// pkg/scheduler) on a cluster, one pending pod at a time in queue order, for
// tools/difftest --level scheduler. Per pod it prints, as one JSON line, what
// the framework decides at each extension point:
//
//   - PreFilter of NodeAffinity, NodeResourcesFit, DynamicResources (a
//     rejection ends the cycle: "0/N nodes are available: MSG.");
//   - Filter on every node with the plugins in the order of 1.37's default
//     profile (NodeName, NodeUnschedulable, TaintToleration, NodeAffinity,
//     NodeResourcesFit, DynamicResources), stopping at a node's first
//     rejection, as the framework does: that plugin and its reasons;
//   - PreScore/Score/NormalizeScore of TaintToleration (weight 3),
//     NodeAffinity (2), NodeResourcesFit LeastAllocated (1),
//     NodeResourcesBalancedAllocation (1), DynamicResources (2) on the
//     feasible nodes (only with two or more: the framework does not score
//     one), per plugin the normalized score, and the weighted total;
//   - the chosen node, or the FitError text.
//
// The other default plugins (NodePorts, volumes, PodTopologySpread,
// InterPodAffinity, ImageLocality) are left out: the generated clusters have
// no ports, volumes, spread constraints, pod affinity or images to score.
//
// State between pods is what kube-scheduler's cache and the API would hold:
// the resource-claim controller's claims (named as dractl names them:
// generateName + 5 characters hashed from the pod and claim, README of
// src/sched, "Determinism"), the chosen node's allocation written by
// DynamicResources' own Reserve and PreBind through a fake clientset, and the
// pod bound there. Every pod gets a fresh fake clientset, informers and
// DRA manager built from that state, so no informer lag can leak between
// pods. Ties between the best-scored nodes (upstream: random) go to dractl's
// choice, the smallest FNV-1a 64 of "<seed>/<ns>/<pod>/<node>", so that both
// sides go on from the same state; a tie is reported as such.

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	cgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/featuregate"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	_ "k8s.io/kubernetes/pkg/features" // registers the gates with utilfeature
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodename"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	"k8s.io/utils/ptr"
)

// schedNodeVerdict is the first plugin that rejected a node.
type schedNodeVerdict struct {
	Plugin  string   `json:"plugin"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons"`
}

// schedPodOutcome is one pod's attempt.
type schedPodOutcome struct {
	Pod     string `json:"pod"`
	Node    string `json:"node,omitempty"`
	Tie     bool   `json:"tie,omitempty"`     // the top total was not unique
	Message string `json:"message,omitempty"` // FitError text, or the error
	Error   bool   `json:"error,omitempty"`   // an error status, not unschedulable
	// Rejected nodes: the first plugin that rejected each.
	Filter map[string]schedNodeVerdict `json:"filter,omitempty"`
	// Feasible nodes, when two or more were scored: per plugin the
	// normalized score (0-100, before weights), and "total" (weighted sum).
	Scores map[string]map[string]int64 `json:"scores,omitempty"`
}

type schedScenarioOutcome struct {
	Pods []schedPodOutcome `json:"pods"`
	// Clusters with PodGroups (scheduler_gang.go): per group tried, what
	// its PodGroupInitiallyScheduled condition says.
	Groups []schedGroupOutcome `json:"groups,omitempty"`
	Error  string              `json:"error,omitempty"`
}

// The score plugins and weights of 1.37's default profile
// (pkg/scheduler/apis/config/v1/default_plugins.go) that the oracle runs.
var schedScoreWeights = map[string]int64{
	tainttoleration.Name:                 3,
	nodeaffinity.Name:                    2,
	noderesources.Name:                   1,
	noderesources.BalancedAllocationName: 1,
	dynamicresources.Name:                2,
}

type schedCluster struct {
	nodes     []*v1.Node
	pods      []*v1.Pod
	claims    []*resourceapi.ResourceClaim
	templates []*resourceapi.ResourceClaimTemplate
	classes   []*resourceapi.DeviceClass
	slices    []*resourceapi.ResourceSlice
	podGroups []*schedulingv1beta1.PodGroup // scheduler_gang.go
}

func cmdSchedule(args []string) int {
	fs := flag.NewFlagSet("schedule", flag.ContinueOnError)
	gates := fs.String("feature-gates", "", "gate overrides, as kube-scheduler's --feature-gates (A=true,B=false)")
	batch := fs.Bool("batch", false, "read \"GATES<TAB>PATH\" lines on stdin, print one JSON outcome a line")
	seed := fs.Uint64("seed", 0, "dractl's tie-break seed (dractl schedule --seed)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: oracle schedule [--feature-gates G] [--seed N] FILE | oracle schedule --batch")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	if *batch {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		out := bufio.NewWriter(os.Stdout)
		for in.Scan() {
			g, path, _ := strings.Cut(in.Text(), "\t")
			writeJSONLine(out, scheduleFile(path, g, *seed))
			out.Flush()
		}
		return 0
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	res := scheduleFile(fs.Arg(0), *gates, *seed)
	writeJSONLine(out, res)
	if res.Error != "" {
		return 1
	}
	return 0
}

func writeJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(schedScenarioOutcome{Error: err.Error()})
	}
	fmt.Fprintf(w, "%s\n", b)
}

// schedFeatures sets the gates (1.37's defaults, then `gates`) and returns
// the plugins' view of them.
func schedFeatures(gates string) (feature.Features, error) {
	// schedDefaultsFor resets what an earlier scenario of the batch set.
	if err := utilfeature.DefaultMutableFeatureGate.Set(schedDefaultsFor(gates)); err != nil {
		return feature.Features{}, err
	}
	return feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate), nil
}

// schedTouchedGates remembers every gate a batch set, so that the next
// scenario starts from the defaults again.
var schedTouchedGates = map[string]bool{}

func schedDefaultsFor(gates string) string {
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	set := map[string]string{}
	for name := range schedTouchedGates {
		set[name] = fmt.Sprint(known[featuregate.Feature(name)].Default)
	}
	for _, kv := range strings.Split(gates, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		set[k] = v
		schedTouchedGates[k] = true
	}
	var parts []string
	for k, v := range set {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// wholeSchedulerNodes: clusters of this many nodes or more run through
// the whole kube-scheduler (runGangSchedule), where nodes are sampled.
const wholeSchedulerNodes = 100

func scheduleFile(path, gates string, seed uint64) (res schedScenarioOutcome) {
	defer func() {
		if r := recover(); r != nil {
			res = schedScenarioOutcome{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	fts, err := schedFeatures(gates)
	if err != nil {
		return schedScenarioOutcome{Error: "feature gates: " + err.Error()}
	}
	c, err := readSchedCluster(path)
	if err != nil {
		return schedScenarioOutcome{Error: err.Error()}
	}
	// The plugin-by-plugin harness filters every node; from
	// minFeasibleNodesToFind (100) nodes on kube-scheduler samples them
	// (findNodesThatPassFilters, nextStartNodeIndex, its nodeTree's order):
	// those clusters go to the whole scheduler too.
	if len(c.podGroups) > 0 || len(c.nodes) >= wholeSchedulerNodes {
		return runGangSchedule(c)
	}
	pods, err := runSchedule(c, fts, seed)
	if err != nil {
		return schedScenarioOutcome{Pods: pods, Error: err.Error()}
	}
	return schedScenarioOutcome{Pods: pods}
}

// readListItems reads the items of a JSON List, each left raw for a decoder.
func readListItems(path string) ([]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list.Items, nil
}

// readSchedCluster reads a JSON List of Nodes, Pods,
// ResourceClaims, ResourceClaimTemplates, DeviceClasses and ResourceSlices.
func readSchedCluster(path string) (*schedCluster, error) {
	items, err := readListItems(path)
	if err != nil {
		return nil, err
	}
	decoder := clientscheme.Codecs.UniversalDeserializer()
	c := &schedCluster{}
	for i, raw := range items {
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: items[%d]: %w", path, i, err)
		}
		switch o := obj.(type) {
		case *v1.Node:
			c.nodes = append(c.nodes, o)
		case *v1.Pod:
			c.pods = append(c.pods, o)
		case *resourceapi.ResourceClaim:
			c.claims = append(c.claims, o)
		case *resourceapi.ResourceClaimTemplate:
			c.templates = append(c.templates, o)
		case *resourceapi.DeviceClass:
			c.classes = append(c.classes, o)
		case *resourceapi.ResourceSlice:
			c.slices = append(c.slices, o)
		case *schedulingv1beta1.PodGroup:
			c.podGroups = append(c.podGroups, o)
		default:
			return nil, fmt.Errorf("%s: items[%d]: unexpected %T", path, i, obj)
		}
	}
	return c, nil
}

// schedQueue: pending pods by priority (higher first), creationTimestamp,
// namespace/name (dractl's queue; upstream's PrioritySort, the time of
// entering the queue being the creation time here).
func schedQueue(pods []*v1.Pod) []*v1.Pod {
	var q []*v1.Pod
	for _, p := range pods {
		if p.Spec.NodeName == "" && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			q = append(q, p)
		}
	}
	sort.SliceStable(q, func(i, j int) bool {
		pi, pj := ptr.Deref(q[i].Spec.Priority, 0), ptr.Deref(q[j].Spec.Priority, 0)
		if pi != pj {
			return pi > pj
		}
		ti, tj := q[i].CreationTimestamp, q[j].CreationTimestamp
		if !ti.Equal(&tj) {
			return ti.Before(&tj)
		}
		return q[i].Namespace+"/"+q[i].Name < q[j].Namespace+"/"+q[j].Name
	})
	return q
}

func runSchedule(c *schedCluster, fts feature.Features, seed uint64) ([]schedPodOutcome, error) {
	var out []schedPodOutcome
	for _, pod := range schedQueue(c.pods) {
		if err := runClaimController(c, pod); err != nil {
			return out, err
		}
		o, err := scheduleOne(c, pod, fts, seed)
		if err != nil {
			return out, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		out = append(out, o)
	}
	return out, nil
}

const claimNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// runClaimController creates the pod's claims from templates, as the
// resource-claim controller does, with dractl's deterministic names.
func runClaimController(c *schedCluster, pod *v1.Pod) error {
	for _, pc := range pod.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName == nil {
			continue
		}
		done := false
		for _, st := range pod.Status.ResourceClaimStatuses {
			done = done || st.Name == pc.Name
		}
		if done {
			continue
		}
		tmpl := c.template(pod.Namespace, *pc.ResourceClaimTemplateName)
		if tmpl == nil {
			continue
		}
		base := pod.Name + "-" + pc.Name + "-"
		if len(base) > 57 {
			return fmt.Errorf("pod %s: generated claim name too long for the oracle", pod.Name)
		}
		name := c.freeClaimName(pod.Namespace, base, pod.Name, pc.Name)
		claim := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name:         name,
				GenerateName: base,
				Namespace:    pod.Namespace,
				UID:          types.UID("claim-" + pod.Namespace + "-" + name),
				Labels:       tmpl.Spec.Labels,
				Annotations:  map[string]string{"resource.kubernetes.io/pod-claim-name": pc.Name},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
					Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}},
			},
			Spec: *tmpl.Spec.Spec.DeepCopy(),
		}
		for k, v := range tmpl.Spec.Annotations {
			claim.Annotations[k] = v
		}
		c.claims = append(c.claims, claim)
		pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses,
			v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: ptr.To(name)})
	}
	return nil
}

// stableNameSuffix is dractl's stand-in for the API server's random
// generateName suffix (src/sched/pod_claims.cc StableNameSuffix).
func stableNameSuffix(ns, pod, claim string, attempt int) string {
	key := ns + "/" + pod + "/" + claim
	if attempt > 0 {
		key += fmt.Sprintf("#%d", attempt)
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	v := h.Sum64()
	suffix := make([]byte, 5)
	for i := range suffix {
		suffix[i] = claimNameAlphabet[v%27]
		v /= 27
	}
	return string(suffix)
}

// nameGeneratedClaims gives claims created with generateName (PreBind's
// extended-resource claim) a name, as the API server would: the fake
// clientset does not.
func nameGeneratedClaims(client *fake.Clientset) {
	client.PrependReactor("create", "resourceclaims", func(action cgotesting.Action) (bool, apiruntime.Object, error) {
		claim, ok := action.(cgotesting.CreateAction).GetObject().(*resourceapi.ResourceClaim)
		if !ok || claim.Name != "" || claim.GenerateName == "" {
			return false, nil, nil
		}
		pod := strings.TrimSuffix(claim.GenerateName, "-extended-resources-")
		for attempt := 0; ; attempt++ {
			name := claim.GenerateName + stableNameSuffix(claim.Namespace, pod, "<extended-resources>", attempt)
			if _, err := client.Tracker().Get(resourceapi.SchemeGroupVersion.WithResource("resourceclaims"), claim.Namespace, name); err != nil {
				claim.Name = name
				break
			}
		}
		if claim.ResourceVersion == "" {
			claim.ResourceVersion = "1"
		}
		if claim.UID == "" {
			claim.UID = types.UID("claim-" + claim.Namespace + "-" + claim.Name)
		}
		return false, nil, nil
	})
}

// schedEnv is one pod's view of the cluster: a fake API, informers synced
// from it, the DRA manager and the plugins.
type schedEnv struct {
	client  *fake.Clientset
	filters []fwk.FilterPlugin
	pre     []fwk.PreFilterPlugin
	scorers []fwk.ScorePlugin
	dra     *dynamicresources.DynamicResources
	nodes   []fwk.NodeInfo
	cancel  context.CancelFunc
}

func newSchedEnv(ctx context.Context, c *schedCluster, fts feature.Features) (*schedEnv, error) {
	ctx, cancel := context.WithCancel(ctx)
	env := &schedEnv{cancel: cancel}
	var objs []apiruntime.Object
	var bound []*v1.Pod
	for _, n := range c.nodes {
		objs = append(objs, n)
	}
	for _, p := range c.pods {
		objs = append(objs, p)
		if p.Spec.NodeName != "" {
			bound = append(bound, p)
		}
	}
	for _, o := range c.claims {
		if o.ResourceVersion == "" {
			o.ResourceVersion = "1" // the assume cache compares versions
		}
		objs = append(objs, o)
	}
	for _, o := range c.classes {
		objs = append(objs, o)
	}
	for _, o := range c.slices {
		objs = append(objs, o)
	}
	env.client = fake.NewSimpleClientset(objs...)
	nameGeneratedClaims(env.client)
	factory := informers.NewSharedInformerFactory(env.client, 0)
	tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		EnableDeviceTaintRules:   fts.EnableDRADeviceTaints,
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
		TaintInformer:            factory.Resource().V1().DeviceTaintRules(),
		KubeClient:               env.client,
	})
	if err != nil {
		cancel()
		return nil, err
	}
	logger := klog.FromContext(ctx)
	claims := assumecache.NewAssumeCache(logger, factory.Resource().V1().ResourceClaims().Informer(), "resource claim", "", nil)
	// Everything the plugins read must have seen the objects before the
	// first PreFilter (the tracker and the handlers process events on their
	// own goroutines): as the scheduler waits for its caches.
	synced := []cache.InformerSynced{tracker.HasSynced,
		claims.AddEventHandler(cache.ResourceEventHandlerFuncs{}).HasSynced}
	dm := dynamicresources.NewDRAManager(ctx, claims, tracker, factory)
	if fts.EnableDRAExtendedResource {
		if erc, ok := dm.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache); ok {
			reg, err := factory.Resource().V1().DeviceClasses().Informer().AddEventHandler(erc)
			if err != nil {
				cancel()
				return nil, err
			}
			synced = append(synced, reg.HasSynced)
		}
	}
	snapshot := internalcache.NewSnapshot(bound, c.nodes)
	fh, err := runtime.NewFramework(ctx, nil, nil,
		runtime.WithClientSet(env.client),
		runtime.WithInformerFactory(factory),
		runtime.WithEventRecorder(&events.FakeRecorder{}),
		runtime.WithSharedDRAManager(dm),
		runtime.WithSnapshotSharedLister(snapshot),
	)
	if err != nil {
		cancel()
		return nil, err
	}
	resources := []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
	type ctor func() (fwk.Plugin, error)
	ctors := []ctor{
		func() (fwk.Plugin, error) { return nodename.New(ctx, nil, fh, fts) },
		func() (fwk.Plugin, error) { return nodeunschedulable.New(ctx, nil, fh, fts) },
		func() (fwk.Plugin, error) { return tainttoleration.New(ctx, nil, fh, fts) },
		func() (fwk.Plugin, error) { return nodeaffinity.New(ctx, &config.NodeAffinityArgs{}, fh, fts) },
		func() (fwk.Plugin, error) {
			return noderesources.NewFit(ctx, &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
				Type: config.LeastAllocated, Resources: resources}}, fh, fts)
		},
		func() (fwk.Plugin, error) {
			return noderesources.NewBalancedAllocation(ctx, &config.NodeResourcesBalancedAllocationArgs{Resources: resources}, fh, fts)
		},
		func() (fwk.Plugin, error) {
			return dynamicresources.New(ctx, &config.DynamicResourcesArgs{
				FilterTimeout: &metav1.Duration{Duration: 10 * time.Second}}, fh, fts)
		},
	}
	for _, mk := range ctors {
		p, err := mk()
		if err != nil {
			cancel()
			return nil, err
		}
		if f, ok := p.(fwk.PreFilterPlugin); ok {
			env.pre = append(env.pre, f)
		}
		if f, ok := p.(fwk.FilterPlugin); ok {
			env.filters = append(env.filters, f)
		}
		if s, ok := p.(fwk.ScorePlugin); ok {
			env.scorers = append(env.scorers, s)
		}
		if d, ok := p.(*dynamicresources.DynamicResources); ok {
			env.dra = d
		}
	}
	synced = append(synced,
		factory.Core().V1().Pods().Informer().HasSynced,
		factory.Resource().V1().ResourceClaims().Informer().HasSynced,
		factory.Resource().V1().ResourceSlices().Informer().HasSynced,
		factory.Resource().V1().DeviceClasses().Informer().HasSynced)
	factory.Start(ctx.Done())
	// cache.WaitForCacheSync polls every 100 ms, a long time per pod: poll
	// fast first, after which it returns at once.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		done := true
		for _, f := range synced {
			done = done && f()
		}
		if done {
			break
		}
	}
	factory.WaitForCacheSync(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		cancel()
		return nil, fmt.Errorf("informers did not sync")
	}
	env.nodes, err = snapshot.NodeInfos().List()
	if err != nil {
		cancel()
		return nil, err
	}
	sort.Slice(env.nodes, func(i, j int) bool { return env.nodes[i].Node().Name < env.nodes[j].Node().Name })
	return env, nil
}

func codeName(s *fwk.Status) string {
	return s.Code().String()
}

func scheduleOne(c *schedCluster, pod *v1.Pod, fts feature.Features, seed uint64) (schedPodOutcome, error) {
	out := schedPodOutcome{Pod: pod.Namespace + "/" + pod.Name}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, err := newSchedEnv(ctx, c, fts)
	if err != nil {
		return out, err
	}
	defer env.cancel()
	state := framework.NewCycleState()
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	fail := func(msg string) schedPodOutcome {
		out.Message = msg
		return out
	}
	// PreFilter.
	skipFilter := map[string]bool{}
	for _, pl := range env.pre {
		_, st := pl.PreFilter(ctx, state, pod, env.nodes)
		switch {
		case st.IsSuccess():
		case st.IsSkip():
			skipFilter[pl.Name()] = true
		case st.IsRejected():
			diagnosis.PreFilterMsg = st.Message()
			fe := &framework.FitError{Pod: pod, NumAllNodes: len(env.nodes), Diagnosis: diagnosis}
			return fail(fe.Error()), nil
		default:
			out.Error = true
			return fail(fmt.Sprintf("running PreFilter plugin %q: %v", pl.Name(), st.AsError())), nil
		}
	}
	// Filter, every node, stopping at a node's first rejection.
	var feasible []fwk.NodeInfo
	for _, ni := range env.nodes {
		var rejected *fwk.Status
		for _, pl := range env.filters {
			if skipFilter[pl.Name()] {
				continue
			}
			st := pl.Filter(ctx, state, pod, ni)
			if st.IsSuccess() {
				continue
			}
			if !st.IsRejected() {
				out.Error = true
				return fail(fmt.Sprintf("running %q filter plugin: %v", pl.Name(), st.AsError())), nil
			}
			st.SetPlugin(pl.Name())
			rejected = st
			break
		}
		if rejected != nil {
			diagnosis.NodeToStatus.Set(ni.Node().Name, rejected)
			if out.Filter == nil {
				out.Filter = map[string]schedNodeVerdict{}
			}
			out.Filter[ni.Node().Name] = schedNodeVerdict{Plugin: rejected.Plugin(), Code: codeName(rejected), Reasons: rejected.Reasons()}
			continue
		}
		feasible = append(feasible, ni)
	}
	if len(feasible) == 0 {
		fe := &framework.FitError{Pod: pod, NumAllNodes: len(env.nodes), Diagnosis: diagnosis}
		return fail(fe.Error()), nil
	}
	chosen := feasible[0].Node().Name
	if len(feasible) > 1 {
		totals := make([]int64, len(feasible))
		out.Scores = map[string]map[string]int64{}
		for _, ni := range feasible {
			out.Scores[ni.Node().Name] = map[string]int64{}
		}
		for _, pl := range env.scorers {
			if pre, ok := pl.(fwk.PreScorePlugin); ok {
				st := pre.PreScore(ctx, state, pod, feasible)
				if st.IsSkip() {
					for _, ni := range feasible {
						out.Scores[ni.Node().Name][pl.Name()] = 0
					}
					continue
				}
				if !st.IsSuccess() {
					out.Error = true
					return fail(fmt.Sprintf("running PreScore plugin %q: %v", pl.Name(), st.AsError())), nil
				}
			}
			list := make(fwk.NodeScoreList, len(feasible))
			for i, ni := range feasible {
				s, st := pl.Score(ctx, state, pod, ni)
				if !st.IsSuccess() {
					out.Error = true
					return fail(fmt.Sprintf("running Score plugin %q: %v", pl.Name(), st.AsError())), nil
				}
				list[i] = fwk.NodeScore{Name: ni.Node().Name, Score: s}
			}
			if ext := pl.ScoreExtensions(); ext != nil {
				if st := ext.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
					out.Error = true
					return fail(fmt.Sprintf("running Normalize on Score plugin %q: %v", pl.Name(), st.AsError())), nil
				}
			}
			w := schedScoreWeights[pl.Name()]
			for i, ns := range list {
				out.Scores[ns.Name][pl.Name()] = ns.Score
				totals[i] += ns.Score * w
			}
		}
		best, ties := 0, 0
		prefix := fmt.Sprintf("%d/%s/%s/", seed, pod.Namespace, pod.Name)
		tieHash := func(node string) uint64 {
			h := fnv.New64a()
			h.Write([]byte(prefix + node))
			return h.Sum64()
		}
		for i, ni := range feasible {
			out.Scores[ni.Node().Name]["total"] = totals[i]
			switch {
			case i == 0 || totals[i] > totals[best]:
				best, ties = i, 0
			case totals[i] == totals[best]:
				ties++
				if tieHash(ni.Node().Name) < tieHash(feasible[best].Node().Name) {
					best = i
				}
			}
		}
		out.Tie = ties > 0
		chosen = feasible[best].Node().Name
	}
	out.Node = chosen
	// Reserve and PreBind of DynamicResources: the allocation is written
	// to the claims through the fake API, as the real one would be.
	if env.dra != nil && !skipFilter[dynamicresources.Name] {
		if st := env.dra.Reserve(ctx, state, pod, chosen); !st.IsSuccess() {
			out.Error, out.Node = true, ""
			return fail(fmt.Sprintf("running Reserve plugin %q: %v", dynamicresources.Name, st.AsError())), nil
		}
		readClaims := func() error {
			list, err := env.client.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			c.claims = c.claims[:0]
			for i := range list.Items {
				c.claims = append(c.claims, &list.Items[i])
			}
			sort.Slice(c.claims, func(i, j int) bool {
				return c.claims[i].Namespace+"/"+c.claims[i].Name < c.claims[j].Namespace+"/"+c.claims[j].Name
			})
			return nil
		}
		if st := env.dra.PreBind(ctx, state, pod, chosen); !st.IsSuccess() && !st.IsSkip() {
			// kube-scheduler's binding cycle on a PreBind error
			// (schedule_one.go handleBindingCycleError) runs every Reserve
			// plugin's Unreserve and requeues the pod unbound. What PreBind
			// wrote before it failed stays: DynamicResources' bindClaim
			// stores a user claim's allocation and reservation in the API
			// one claim at a time, and Unreserve only removes the pod from
			// reservedFor and deletes the extended-resource claim it
			// created. (Seen with a pod that has its own claims and a
			// DRA-backed extended resource on a node whose device plugin
			// serves it: 1.37.2's filterExtendedResources then builds a
			// special claim without requests, its empty allocation passes
			// Reserve, and patchPodExtendedResourceClaimStatus refuses the
			// empty request mappings after the user claims were written.)
			// So the next pod sees the claims as the API holds them now.
			env.dra.Unreserve(ctx, state, pod, chosen)
			out.Error, out.Node = true, ""
			if err := readClaims(); err != nil {
				return out, err
			}
			return fail(fmt.Sprintf("running PreBind plugin %q: %v", dynamicresources.Name, st.AsError())), nil
		}
		if err := readClaims(); err != nil {
			return out, err
		}
		if p, err := env.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{}); err == nil {
			pod.Status = p.Status
		}
	}
	pod.Spec.NodeName = chosen
	return out, nil
}
