// Loading a cluster for `dractl schedule` and `dractl explain`: the same
// objects, the same implied nodes and the same expanded workloads, so that
// explain sees exactly the state schedule places pods in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

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

}  // namespace dra::cli
