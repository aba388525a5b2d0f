// The FGD protocol through the DRA scheduler. The objects are built once per
// run (the tuned copies are pods of their own, named <pod>-copy<k>, that use
// the original's template), and the whole run is one Schedule() call: its
// explicit queue is the plan's order and its after_pod callback logs a row
// per attempt.
#include "sim/dra_engine.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "alloc/cel_selector.h"
#include "api/defaults.h"
#include "base/release.h"
#include "fmt/format.h"
#include "sched/fragmentation.h"
#include "sched/resources.h"
#include "sched/scheduler.h"
#include "sim/import.h"
#include "sim/policies.h"

namespace dra::sim {
namespace {

// The paper's BestFit (docs/fgd.md §4.5) on what the DRA scheduler sees: the node's free
// cpu from NodeResourcesFit's figures, its free GPU milli and the pod's from
// the scheduler's DeviceModel; the arithmetic is BestFitRaw's.
class PaperBestFit : public sched::ScorePolicy {
 public:
  std::string_view name() const override { return "bestfit"; }
  int64_t Score(const sched::NodeState& node, const api::Pod& /*pod*/, const sched::PodFit& fit) const override {
    SimNode n;
    n.cpu_free = node.allocatable->milli_cpu - node.requested->milli_cpu;
    n.gpu_free_total = node.free_device_milli;
    PodShape p;
    p.cpu = fit.requests.milli_cpu;
    p.milli = static_cast<int32_t>(fit.device_milli);
    p.count = 1;
    return BestFitRaw(n, p);
  }
  void Normalize(std::span<int64_t> scores) const override {
    if (scores.empty()) return;
    const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
    const int64_t min = *lo, max = *hi;
    for (int64_t& s : scores) s = MinMaxNormalize(s, min, max);
  }
  bool uses_device_model() const override { return true; }
};

StatusOr<std::unique_ptr<sched::ScorePolicy>> DraPolicy(Policy policy) {
  switch (policy) {
    case Policy::kBestFit: return std::unique_ptr<sched::ScorePolicy>(std::make_unique<PaperBestFit>());
    case Policy::kFgd: return sched::NewPolicy("fgd");
    case Policy::kDraPack: return sched::NewPolicy("dra-pack");
    default:
      return Status(StatusCode::kInvalidArgument,
                    fmt::format("--engine dra runs bestfit, fgd and dra-pack, not {}", PolicyName(policy)));
  }
}

}  // namespace

sched::WorkloadProfile OpenbProfile(const TypicalPods& typical, std::string source) {
  std::vector<sched::WorkloadShape> shapes;
  for (const TypicalPod& t : typical.list) {
    OpenbPod pod;
    pod.cpu_milli = t.shape.cpu;
    pod.num_gpu = t.shape.count;
    pod.gpu_milli = t.shape.milli;
    pod.gpu_spec = t.spec;
    std::vector<const api::ResourceClaimSpec*> specs;
    api::ResourceClaimSpec spec;
    if (pod.uses_gpu()) {
      spec = MakeClaimSpec(pod);
      api::SetDefaults(spec);
      specs.push_back(&spec);
    }
    sched::WorkloadShape shape = sched::ShapeOf(t.shape.cpu, 0, specs);
    shape.pods = t.pods;
    shapes.push_back(std::move(shape));
  }
  return sched::ProfileFromTypical(std::move(shapes), typical.distinct_shapes, typical.total_pods, std::move(source));
}

StatusOr<RunLog> RunOnDraScheduler(const OpenbExperiment& experiment, const RunOptions& options) {
  DRA_ASSIGN_OR_RETURN(std::unique_ptr<sched::ScorePolicy> policy, DraPolicy(options.policy));
  RunPlan plan = experiment.Plan(options);
  RunLog log;
  log.capacity = experiment.cluster().gpu_capacity();
  log.trace_pods = static_cast<int64_t>(experiment.pods().size());
  log.copies = plan.copies;
  log.removed = plan.removed;
  log.submitted = static_cast<int64_t>(plan.list.size());

  // The objects: the GPU nodes (by name, as the native cluster), the class,
  // one template per pod of the trace that runs, one Pod per attempt.
  const std::vector<OpenbPod>& pods = experiment.pods();
  std::vector<api::Object> objects;
  objects.reserve(2 * experiment.nodes().size() + 2 * plan.list.size() + 1);
  objects.emplace_back(MakeDeviceClass());
  for (const OpenbNode& n : experiment.nodes()) {
    objects.emplace_back(MakeNode(n));
    objects.emplace_back(MakeSlice(n));
  }
  std::vector<int64_t> seen(pods.size(), 0);
  for (uint32_t idx : plan.list) {
    if (seen[idx] == 0 && pods[idx].uses_gpu()) objects.emplace_back(MakeClaimTemplate(pods[idx]));
    api::Pod pod = MakePod(pods[idx]);
    if (seen[idx] > 0) pod.metadata.name += fmt::format("-copy{}", seen[idx]);
    ++seen[idx];
    objects.emplace_back(std::move(pod));
  }
  std::vector<const api::Object*> ptrs;
  ptrs.reserve(objects.size());
  for (api::Object& o : objects) {
    api::SetDefaults(o, "2026-01-01T00:00:00Z");
    ptrs.push_back(&o);
  }
  DRA_ASSIGN_OR_RETURN(api::FeatureGates gates, api::FeatureGates::Defaults(kDefaultRelease));
  sched::Snapshot snapshot = sched::NewSnapshot(ptrs, gates);
  objects.clear();
  if (snapshot.pods.size() != plan.list.size() || snapshot.nodes.size() != experiment.nodes().size()) {
    return Status(StatusCode::kInternal, "the DRA engine's objects do not match the run");
  }

  // The rows' fragmentation, from a model of its own that follows the
  // placements (the scheduler's is private to it).
  const sched::WorkloadProfile profile = OpenbProfile(experiment.typical(), "openb typical pods");
  const alloc::Features features = alloc::Features::FromGates(gates);
  DRA_ASSIGN_OR_RETURN(std::unique_ptr<alloc::SelectorEvaluator> cel, alloc::NewCelSelectorEvaluator(features));
  std::unique_ptr<sched::DeviceModel> model = sched::DeviceModel::New(snapshot, &profile, cel.get(), features);
  sched::NodeIndex nodes(snapshot.nodes);

  std::vector<size_t> queue(plan.list.size());
  for (size_t i = 0; i < queue.size(); ++i) queue[i] = i;
  int64_t arrived = 0;
  int64_t allocated = 0;
  Status error;
  log.rows.reserve(plan.list.size());
  sched::ScheduleOptions so{.policy = policy.get(),
                            .seed = options.seed,
                            .percentage_of_nodes_to_score = 100,
                            .device_choice = alloc::DeviceChoice::kFirstFit};
  so.workload_profile = &profile;
  so.queue = queue;
  so.node_rank = plan.rank;
  so.unschedulable_texts = false;
  so.after_pod = [&](size_t pod_idx, const sched::PodOutcome& outcome) {
    const PodShape& shape = experiment.shapes()[plan.list[pod_idx]];
    arrived += shape.gpu_total();
    if (outcome.kind == sched::PodOutcome::Kind::kPlaced) {
      allocated += shape.gpu_total();
      std::optional<size_t> n = nodes.Find(outcome.node);
      if (!n) {
        error = Status(StatusCode::kInternal, "placed on an unknown node " + outcome.node);
        return false;
      }
      model->AddPod(*n, sched::PodRequests(snapshot.pods[pod_idx]));
      for (const sched::ClaimPlacement& c : outcome.claims) {
        if (!c.allocated_now) continue;
        api::AllocationResult a;
        a.devices.results = c.results;
        model->AddAllocation(a);
      }
    } else if (outcome.kind == sched::PodOutcome::Kind::kUnschedulable) {
      ++log.failed;
    } else {
      error = Status(StatusCode::kFailedPrecondition, fmt::format("pod {}: {}", outcome.pod, outcome.message));
      return false;
    }
    log.rows.push_back(
        RunRow{.arrived = arrived, .allocated = allocated, .frag = model->FragTotal(), .idle = model->IdleTotal()});
    return true;
  };
  DRA_ASSIGN_OR_RETURN(sched::ScheduleResult result, sched::Schedule(&snapshot, so));
  DRA_RETURN_IF_ERROR(error);
  (void)result;
  return log;
}

}  // namespace dra::sim
