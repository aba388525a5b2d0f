package main

// oracle schedule on clusters with PodGroups (GenericWorkload on): the whole
// kube-scheduler 1.37.2 (k8s.io/kubernetes/pkg/scheduler.New, its queue,
// ScheduleOne and so schedule_one_podgroup.go's pod-group cycle with the
// GangScheduling, TopologyPlacementGenerator, PodGroupPodsCount and
// DynamicResources plugins, Permit and the binding cycle) against a fake
// API, instead of scheduler.go's plugin-by-plugin harness, which has no
// group cycle. For tools/difftest --level scheduler (sched_gang.go).
//
// The profile is 1.37.2's default one (the gates decide the gang plugins),
// DefaultPreemption included: its PodGroupPostFilter writes into the
// group's message ("pod group preemption: No preemption victims found for
// incoming preemptor" where no pod has a lower priority, which the
// generator keeps so: dractl models no preemption itself).
//
// Queue order: the pending pods are created one at a time in dractl's
// queue order (priority, creationTimestamp, name) while the scheduler's
// fake clock advances a second between them, so the queue's timestamps
// (upstream's tie-break after priority, for pods and pod-group entities
// alike) follow that order. ScheduleOne runs while the active queue holds
// something and some pod has no outcome yet; the clock never advances
// afterwards, so backoff never ends, but some entities come back at once (a
// group whose member was bound, a member whose binding failed): only each
// pod's and group's first outcome is kept (dractl schedule tries each once).
//
// Randomness kept: the best-scored node among equals (selectHost), the
// placement evaluated first (a Go map) and the best placement among equals.
// The oracle cannot steer them, so difftest compares a member's node only
// where dractl's own trace shows the choice was unique (README.md).
//
// Claims from templates (the resource-claim controller, not the scheduler):
// created before the run with dractl's deterministic names, per pod as in
// scheduler.go and per PodGroup claim as handlePodGroupClaim does
// (<group>-<claim>-, PodGroup as controller owner, podGroup.status.
// resourceClaimStatuses and the members' pod.status.resourceClaimStatuses).
//
// Output per pending pod: its node (bound through the fake API) or its
// PodScheduled condition's message, `error` for reason SchedulerError;
// per PodGroup its PodGroupInitiallyScheduled condition (none: never tried);
// each as kube-scheduler's first attempt left it (runGangSchedule). A pod
// that a later attempt places is reported as an error (not compared).

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	cgotesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// schedGroupOutcome is one PodGroup's PodGroupInitiallyScheduled condition
// after the run (Status "" when kube-scheduler never wrote it).
type schedGroupOutcome struct {
	Group   string `json:"group"`
	Status  string `json:"status,omitempty"` // True / False
	Reason  string `json:"reason,omitempty"` // Scheduled / Unschedulable / SchedulerError
	Message string `json:"message,omitempty"`
}

// fakeClockTicker is the fake clock the scheduler takes (clock.WithTicker).
var _ clock.WithTicker = (*testingclock.FakeClock)(nil)

// runPodGroupClaimController creates the PodGroup claims from templates
// as kube-controller-manager's handlePodGroupClaim does (dractl's names),
// and points the members' matching pod claims at them (handleClaim).
func runPodGroupClaimController(c *schedCluster) {
	for _, pg := range c.podGroups {
		for _, rc := range pg.Spec.ResourceClaims {
			if rc.ResourceClaimTemplateName == nil {
				continue
			}
			tmpl := c.template(pg.Namespace, *rc.ResourceClaimTemplateName)
			if tmpl == nil {
				continue
			}
			base := pg.Name + "-" + rc.Name + "-"
			if len(base) > 57 {
				base = base[:57]
			}
			name := c.freeClaimName(pg.Namespace, base, pg.Name, rc.Name)
			annotations := map[string]string{}
			for k, v := range tmpl.Spec.Annotations {
				annotations[k] = v
			}
			annotations["resource.kubernetes.io/pod-claim-name"] = rc.Name
			c.claims = append(c.claims, &resourceapi.ResourceClaim{
				ObjectMeta: metav1.ObjectMeta{
					Name: name, GenerateName: base, Namespace: pg.Namespace,
					UID:         types.UID("claim-" + pg.Namespace + "-" + name),
					Labels:      tmpl.Spec.Labels,
					Annotations: annotations,
					OwnerReferences: []metav1.OwnerReference{{
						APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup", Name: pg.Name, UID: pg.UID,
						Controller: ptr.To(true),
					}},
				},
				Spec: *tmpl.Spec.Spec.DeepCopy(),
			})
			pg.Status.ResourceClaimStatuses = append(pg.Status.ResourceClaimStatuses,
				schedulingv1beta1.PodGroupResourceClaimStatus{Name: rc.Name, ResourceClaimName: ptr.To(name)})
			for _, pod := range c.pods {
				if pod.Namespace != pg.Namespace || pod.Spec.SchedulingGroup == nil ||
					ptr.Deref(pod.Spec.SchedulingGroup.PodGroupName, "") != pg.Name {
					continue
				}
				for _, pc := range pod.Spec.ResourceClaims {
					if pc.Name == rc.Name && ptr.Equal(pc.ResourceClaimName, rc.ResourceClaimName) &&
						ptr.Equal(pc.ResourceClaimTemplateName, rc.ResourceClaimTemplateName) {
						pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses,
							v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: ptr.To(name)})
					}
				}
			}
		}
	}
}

func runGangSchedule(c *schedCluster) (res schedScenarioOutcome) {
	// The scheduler logs failures through klog's global logger (stderr).
	klog.SetLogger(logr.Discard())
	// The API server gives every object a UID; kube-scheduler's
	// PodGroupState counts members by it.
	for _, p := range c.pods {
		if p.UID == "" {
			p.UID = types.UID("uid-" + p.Namespace + "-" + p.Name)
		}
	}
	for _, pg := range c.podGroups {
		if pg.UID == "" {
			pg.UID = types.UID("uid-podgroup-" + pg.Namespace + "-" + pg.Name)
		}
	}
	runPodGroupClaimController(c)
	queue := schedQueue(c.pods)
	for _, pod := range queue {
		if err := runClaimController(c, pod); err != nil {
			return schedScenarioOutcome{Error: err.Error()}
		}
	}
	pending := map[*v1.Pod]bool{}
	for _, p := range queue {
		pending[p] = true
	}
	var objs []apiruntime.Object
	for _, n := range c.nodes {
		objs = append(objs, n)
	}
	for _, p := range c.pods {
		if !pending[p] {
			objs = append(objs, p)
		}
	}
	for _, o := range c.claims {
		if o.ResourceVersion == "" {
			o.ResourceVersion = "1"
		}
		objs = append(objs, o)
	}
	for _, o := range c.classes {
		objs = append(objs, o)
	}
	for _, o := range c.slices {
		objs = append(objs, o)
	}
	for _, o := range c.templates {
		objs = append(objs, o)
	}
	for _, o := range c.podGroups {
		objs = append(objs, o)
	}
	client := fake.NewSimpleClientset(objs...)
	nameGeneratedClaims(client)
	// pods/binding: the API server's binding subresource.
	client.PrependReactor("create", "pods", func(action cgotesting.Action) (bool, apiruntime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := action.(cgotesting.CreateAction).GetObject().(*v1.Binding)
		gvr := v1.SchemeGroupVersion.WithResource("pods")
		o, err := client.Tracker().Get(gvr, b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := o.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		return true, b, client.Tracker().Update(gvr, pod, b.Namespace)
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var versioned configv1.KubeSchedulerConfiguration
	schedscheme.Scheme.Default(&versioned)
	var cfg config.KubeSchedulerConfiguration
	if err := schedscheme.Scheme.Convert(&versioned, &cfg, nil); err != nil {
		return schedScenarioOutcome{Error: "scheduler configuration: " + err.Error()}
	}
	fakeClock := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	factory := informers.NewSharedInformerFactory(client, 0)
	sched, err := scheduler.New(ctx, client, factory, nil,
		func(string) events.EventRecorderLogger { return &events.FakeRecorder{} },
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithClock(fakeClock),
		scheduler.WithParallelism(1),
	)
	if err != nil {
		return schedScenarioOutcome{Error: "scheduler.New: " + err.Error()}
	}
	factory.Start(ctx.Done())
	// client-go's and the scheduler's waits poll every 100 ms, most of a
	// small cluster's run: check every millisecond instead (each wait with
	// a stop already closed makes one check).
	if !pollUntil(10*time.Second, func() bool {
		closed := make(chan struct{})
		close(closed)
		for _, synced := range factory.WaitForCacheSync(closed) {
			if !synced {
				return false
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		return sched.WaitForHandlersSync(cancelled) == nil
	}) {
		return schedScenarioOutcome{Error: "informers or handlers did not sync"}
	}
	sched.SchedulingQueue.Run(klog.Background())
	if sched.APIDispatcher != nil {
		sched.APIDispatcher.Run(klog.Background())
	}
	defer sched.SchedulingQueue.Close()

	// The pending pods, one at a time in queue order, a second apart.
	for k, pod := range queue {
		fakeClock.Step(time.Second)
		if pod.Spec.SchedulerName == "" {
			pod.Spec.SchedulerName = v1.DefaultSchedulerName // the API server's defaulting
		}
		if _, err := client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return schedScenarioOutcome{Error: fmt.Sprintf("create pod %s: %v", pod.Name, err)}
		}
		if !pollUntil(5*time.Second, func() bool {
			p, _ := sched.SchedulingQueue.PendingPods()
			return len(p)+len(sched.SchedulingQueue.InFlightPods()) >= k+1
		}) {
			_, summary := sched.SchedulingQueue.PendingPods()
			return schedScenarioOutcome{Error: fmt.Sprintf("pod %s never reached the queue (%s)", pod.Name, summary)}
		}
	}
	// Each cycle's outcome is read once it has settled (status patches may
	// go through the API dispatcher) and the first outcome of each pod and
	// group is kept: a group that placed some members is tried again at
	// once (the members that did not fit come back to the queue when one is
	// bound), and that cycle, which places nothing (the state is the one
	// the first left), writes "pod group is unschedulable" over the first
	// cycle's condition where the informer has not yet seen it. dractl
	// models kube-scheduler's first attempt of each pod and group.
	var out schedScenarioOutcome
	settle := func() bool {
		var cur schedScenarioOutcome
		stable := 0
		var last string
		pollUntil(5*time.Second, func() bool {
			cur = readGangOutcome(ctx, client, queue, c.podGroups)
			s := fmt.Sprint(cur)
			if s == last {
				stable++
			} else {
				stable, last = 0, s
			}
			return stable >= 3
		})
		if cur.Error != "" {
			out = cur
			return false
		}
		if out.Pods == nil {
			out = cur
			return true
		}
		for i, p := range cur.Pods {
			if old := out.Pods[i]; old.Node == "" && old.Message == "" {
				out.Pods[i] = p
			} else if old.Node == "" && p.Node != "" {
				// Placed by a later cycle: not dractl's single attempt.
				out = schedScenarioOutcome{Error: fmt.Sprintf("pod %s placed by a second scheduling attempt", p.Pod)}
				return false
			}
		}
		for i, g := range cur.Groups {
			if out.Groups[i].Status == "" {
				out.Groups[i] = g
			}
		}
		return true
	}
	// Until every pod has its first outcome, and at most two cycles per pod:
	// an entity that keeps coming back to the active queue (a member whose
	// binding cycle fails, PreBind's error, is retried with its group at
	// once, ahead of later pods) would not end the loop; pods it keeps from
	// their turn are left without an outcome.
	done := func() bool {
		for _, p := range out.Pods {
			if p.Node == "" && p.Message == "" {
				return false
			}
		}
		return out.Pods != nil
	}
	for cycles := 0; len(sched.SchedulingQueue.PodsInActiveQ()) > 0 && cycles < 2*len(queue)+3 && !done(); cycles++ {
		sched.ScheduleOne(ctx)
		// The binding cycles (Permit, PreBind, Bind) run on their own
		// goroutines: let them finish before the next entity, as they
		// would long before the next pod's cycle in a real cluster.
		pollUntil(10*time.Second, func() bool { return len(sched.SchedulingQueue.InFlightPods()) == 0 })
		// And until the informer has seen the bindings (an assumed pod is
		// confirmed, or forgotten when its binding cycle fails): the queue
		// moves entities on those events, and the loop must not end on an
		// active queue that is empty only for the moment.
		pollUntil(10*time.Second, func() bool { return sched.Cache.Dump().AssumedPods.Len() == 0 })
		if !settle() {
			return out
		}
	}
	if out.Pods == nil {
		settle()
	}
	return out
}

func pollUntil(limit time.Duration, done func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if done() {
			return true
		}
	}
	return false
}

func readGangOutcome(ctx context.Context, client *fake.Clientset, queue []*v1.Pod, groups []*schedulingv1beta1.PodGroup) schedScenarioOutcome {
	var out schedScenarioOutcome
	for _, want := range queue {
		o := schedPodOutcome{Pod: want.Namespace + "/" + want.Name}
		pod, err := client.CoreV1().Pods(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			return schedScenarioOutcome{Error: err.Error()}
		}
		if pod.Spec.NodeName != "" {
			o.Node = pod.Spec.NodeName
		} else {
			for _, cond := range pod.Status.Conditions {
				if cond.Type == v1.PodScheduled && cond.Status == v1.ConditionFalse {
					o.Message = cond.Message
					o.Error = cond.Reason == "SchedulerError"
				}
			}
		}
		out.Pods = append(out.Pods, o)
	}
	for _, want := range groups {
		g := schedGroupOutcome{Group: want.Namespace + "/" + want.Name}
		pg, err := client.SchedulingV1beta1().PodGroups(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			return schedScenarioOutcome{Error: err.Error()}
		}
		for _, cond := range pg.Status.Conditions {
			if cond.Type == schedulingv1beta1.PodGroupInitiallyScheduled {
				g.Status, g.Reason, g.Message = string(cond.Status), cond.Reason, cond.Message
			}
		}
		out.Groups = append(out.Groups, g)
	}
	sort.SliceStable(out.Groups, func(i, j int) bool { return out.Groups[i].Group < out.Groups[j].Group })
	return out
}

// template is the namespace's ResourceClaimTemplate of that name, or nil.
func (c *schedCluster) template(ns, name string) *resourceapi.ResourceClaimTemplate {
	for _, t := range c.templates {
		if t.Namespace == ns && t.Name == name {
			return t
		}
	}
	return nil
}

// freeClaimName: base and dractl's hashed suffix for (owner, claim), the
// first attempt whose name no claim has yet.
func (c *schedCluster) freeClaimName(ns, base, owner, claim string) string {
	for attempt := 0; ; attempt++ {
		name := base + stableNameSuffix(ns, owner, claim, attempt)
		taken := false
		for _, cl := range c.claims {
			taken = taken || (cl.Namespace == ns && cl.Name == name)
		}
		if !taken {
			return name
		}
	}
}
