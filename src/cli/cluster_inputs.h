// Loading a cluster for `dractl schedule` and `dractl explain`: the same
// objects, the same implied nodes and the same expanded workloads, so that
// explain sees exactly the state schedule places pods in.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "alloc/best_fit.h"
#include "api/features.h"
#include "base/release.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "manifest/loader.h"
#include "sched/policy.h"
#include "sched/profile.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::cli {

struct ClusterInputOptions {
  const char* command = "dractl";  // "dractl schedule": prefix of messages
  bool expand_workloads = true;    // Deployments & co. become pods (sched/workloads.h)
  bool namespaces = false;         // keep Namespaces (LoadResult::namespaces); --live lists them too
  // Also read the cluster from an API server (kube/list.h): the kubeconfig
  // file (empty: $KUBECONFIG, ~/.kube/config, else in-cluster) and context.
  bool live = false;
  std::string kubeconfig;
  std::string context;
};

// Loads `files` (and, with options.live, the API server's Nodes, Pods,
// DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates and
// DeviceTaintRules) into `loaded`: Node objects implied by ResourceSlices when
// the input has none (a warning says so), the pods of workload objects,
// then defaults and API validation of every object. Prints the messages.
// Returns -1 when the objects can be used, else the exit code (input errors).
int LoadCluster(const std::vector<std::string>& files, const api::FeatureGates& gates,
                const ClusterInputOptions& options, manifest::LoadResult* loaded);

// The flags `schedule` and `explain` share, so that explain replays the same
// queue schedule runs.
struct ClusterFlags {
  std::string policy = "kube";
  std::string device_choice;  // "", first-fit or best-fit ("": by policy, DeviceChoiceFor)
  uint64_t seed = 0;
  std::string version{kDefaultRelease};
  std::string gates;
  uint64_t max_steps = 0;
  std::string workloads = "expand";
  int32_t percentage_of_nodes_to_score = 0;
  bool live = false;
  std::string kubeconfig;
  std::string context;
  std::vector<std::string> workload_profile;  // --workload-profile FILE...
  std::string gang;                           // "", upstream or search ("": by policy, GangOptionsFor)
  uint64_t gang_search_steps = sched::GangOptions{}.max_steps;
};

// --gang and --gang-search-steps as ScheduleOptions::gang: upstream's group
// cycle with --policy kube, the search with dractl's own policies, unless
// --gang says otherwise.
sched::GangOptions GangOptionsFor(std::string_view gang, std::string_view policy, uint64_t search_steps);
inline sched::GangOptions GangOptionsFor(const ClusterFlags& flags) {
  return GangOptionsFor(flags.gang, flags.policy, flags.gang_search_steps);
}
// Adds --gang and --gang-search-steps (part of AddClusterFlags; serve adds them alone).
void AddGangFlags(CLI::App& app, std::string* gang, uint64_t* search_steps);

// The input options of `command` from its flags; nullopt (with a message)
// when neither -f nor --live/--kubeconfig gives it a cluster.
std::optional<ClusterInputOptions> InputOptions(const char* command, const std::vector<std::string>& files,
                                                const ClusterFlags& flags);

// The API server as kubectl finds it (`kubeconfig`, else $KUBECONFIG,
// ~/.kube/config, in-cluster; `context`, else the current one) and a client
// for it, its configuration in `*config`; null, with the reason printed as
// "<command>: ...", when the configuration cannot be used.
std::unique_ptr<kube::Client> ConnectToApiServer(std::string_view command, const std::string& kubeconfig,
                                                 const std::string& context, kube::RestConfig* config);

// --live (with `live_help`), --kubeconfig (which implies --live: the caller
// sets it after parsing) and --context.
void AddLiveFlags(CLI::App& app, std::string live_help, bool* live, std::string* kubeconfig, std::string* context);

// Adds --policy, --seed, --kubernetes-version, --feature-gates, --max-steps,
// --workloads, --percentage-of-nodes-to-score, --live, --kubeconfig,
// --context and --workload-profile to `app`, writing into `flags`.
void AddClusterFlags(CLI::App& app, ClusterFlags& flags);

// --workload-profile FILE...: the typical pods the packing policies (fgd,
// dra-pack) measure fragmentation against. Each FILE is an openb pod list
// (*.csv) or manifests (a file, a folder or -): pods, workloads (as the
// pods their controllers create) and ResourceClaimTemplates, validated as
// every input is. Pods find their templates in their namespace among the
// profile's objects, else `cluster`'s; a template no pod uses counts as one
// pod of it. Shapes are counted, weighted by count (sched/profile.h); openb
// lists alone give the native simulator's typical pods exactly.
// Returns -1 with `out` set, else the exit code (messages printed).
int LoadWorkloadProfile(const std::vector<std::string>& files, const api::FeatureGates& gates,
                        const sched::Snapshot& cluster, const char* command, sched::WorkloadProfile* out);

// The profile of --policy fgd / dra-pack: --workload-profile's, else the
// pods `default_pods` of `snapshot` (described as `default_source`). Says on
// stderr which one the policy measures against. With another policy, nothing
// (a note says --workload-profile has no effect). Returns -1 (with
// `*profile` set when a packing policy needs it), else the exit code.
int PrepareProfile(const ClusterFlags& flags, const api::FeatureGates& gates, const sched::Snapshot& snapshot,
                   std::span<const size_t> default_pods, std::string default_source, const char* command,
                   std::optional<sched::WorkloadProfile>* profile);

// The ScorePolicy --policy names; null after printing "COMMAND: --policy:
// message" for a name NewPolicy does not know (a usage error).
std::unique_ptr<sched::ScorePolicy> PolicyFromFlag(const char* command, const std::string& name);

// --device-choice, else best-fit with --policy binpack or best-fit and
// first-fit (upstream's) with kube, fgd and dra-pack.
alloc::DeviceChoice DeviceChoiceFor(std::string_view device_choice, std::string_view policy);

// The --device-choice flag's help text.
inline constexpr char kDeviceChoiceHelp[] =
    "which fitting devices of the chosen node a pod gets: first-fit (upstream: the driver's order) or best-fit "
    "(the same pcieRoot, then NUMA node, as the claim's other devices; the smallest adequate device; MIG "
    "partitions on the fullest GPU, at the placement that leaves the most other placements possible); "
    "default: best-fit with --policy binpack and best-fit, else first-fit; with fgd and dra-pack the "
    "policy's own choice (the devices that keep the node's capacity most usable) comes first";

// The --policy flag's help text (schedule, explain, simulate cluster, serve).
inline constexpr char kPolicyHelp[] =
    "kube: LeastAllocated + BalancedAllocation + DRA prioritized-list score (kube-scheduler's); binpack: "
    "MostAllocated over cpu, memory and devices; best-fit: the node left with the fewest free devices, then "
    "the least free cpu and memory; fgd: the node whose fragmentation against the workload profile grows "
    "least (the FGD paper's policy on DRA devices: whole devices, capacity shares, partitions, and the "
    "node's cpu, memory and pod slots); dra-pack: fgd that also counts the device capacity a node's free "
    "cpu cannot feed (ours; the most GPUs in use on the openb traces)";
inline constexpr char kWorkloadProfileHelp[] =
    "fgd, dra-pack: the typical pods fragmentation is measured against: pods, workloads and claim "
    "templates (files, folders) or an openb pod CSV, weighted by count (default: the pending pods)";

}  // namespace dra::cli
