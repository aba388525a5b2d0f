// Loading a cluster for `dractl schedule` and `dractl explain`: the same
// objects, the same implied nodes and the same expanded workloads, so that
// explain sees exactly the state schedule places pods in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

#include "api/features.h"
#include "manifest/loader.h"

namespace dra::cli {

struct ClusterInputOptions {
  const char* command = "dractl";  // "dractl schedule": prefix of messages
  bool expand_workloads = true;    // Deployments & co. become pods (sched/workloads.h)
};

// Loads `files` into `loaded`: Node objects implied by ResourceSlices when
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
};

// Adds --policy, --seed, --kubernetes-version, --feature-gates, --max-steps,
// --workloads and --percentage-of-nodes-to-score to `app`, writing into `flags`.
void AddClusterFlags(CLI::App& app, ClusterFlags& flags);

}  // namespace dra::cli
