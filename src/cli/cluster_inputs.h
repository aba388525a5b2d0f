// Loading a cluster for `dractl schedule` and `dractl explain`: the same
// objects, the same implied nodes and the same expanded workloads, so that
// explain sees exactly the state schedule places pods in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "alloc/best_fit.h"
#include "api/features.h"
#include "manifest/loader.h"

namespace dra::cli {

struct ClusterInputOptions {
  const char* command = "dractl";  // "dractl schedule": prefix of messages
  bool expand_workloads = true;    // Deployments & co. become pods (sched/workloads.h)
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
  std::string version = "1.37";
  std::string gates;
  uint64_t max_steps = 0;
  std::string workloads = "expand";
  int32_t percentage_of_nodes_to_score = 0;
  bool live = false;
  std::string kubeconfig;
  std::string context;
};

// The input options of `command` from its flags; nullopt (with a message)
// when neither -f nor --live/--kubeconfig gives it a cluster.
std::optional<ClusterInputOptions> InputOptions(const char* command, const std::vector<std::string>& files,
                                                const ClusterFlags& flags);

// Adds --policy, --seed, --kubernetes-version, --feature-gates, --max-steps,
// --workloads, --percentage-of-nodes-to-score, --live, --kubeconfig and
// --context to `app`, writing into `flags`.
void AddClusterFlags(CLI::App& app, ClusterFlags& flags);

// --device-choice, else best-fit with --policy binpack or best-fit and
// first-fit (upstream's) with kube.
alloc::DeviceChoice DeviceChoiceFor(std::string_view device_choice, std::string_view policy);

// The --device-choice flag's help text.
inline constexpr char kDeviceChoiceHelp[] =
    "which fitting devices of the chosen node a pod gets: first-fit (upstream: the driver's order) or best-fit "
    "(the same pcieRoot, then NUMA node, as the claim's other devices; the smallest adequate device; MIG "
    "partitions on the fullest GPU, at the placement that leaves the most other placements possible); "
    "default: first-fit with --policy kube, best-fit with binpack and best-fit";

}  // namespace dra::cli
