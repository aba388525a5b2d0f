// Node groups as `dractl plan` and `dractl simulate cluster` read them:
// --node-groups FILE... and --node-group-from NODE=NAME:MAX:PRICE.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "api/features.h"
#include "plan/node_group.h"
#include "sched/snapshot.h"

namespace dra::cli {

// The flags `dractl plan` and `dractl simulate cluster` share.
struct NodeGroupFlags {
  std::vector<std::string> node_groups{};      // --node-groups FILE...
  std::vector<std::string> node_group_from{};  // --node-group-from NODE=NAME:MAX:PRICE...
  std::string expander = "optimal";
  double max_time = 10;  // optimal: seconds a plan's search may take
  bool given() const { return !node_groups.empty() || !node_group_from.empty(); }
};
void AddNodeGroupFlags(CLI::App& app, NodeGroupFlags* flags);

// Reads the node-group files (files, folders, "-") as -f reads manifests;
// the Python module's in-memory texts too. Returns -1 with `groups` set, else
// the exit code (messages printed, prefixed with `command`).
int LoadNodeGroups(const char* command, const std::vector<std::string>& paths, const api::FeatureGates& gates,
                   std::vector<plan::NodeGroup>* groups);

// --node-group-from NODE=NAME:MAX:PRICE: an existing node of the cluster,
// with its slices, as a group's template (as autoscalers build templates from
// live nodes); appended to `groups`, whose names it must not repeat. Returns
// -1, else the exit code (a message printed).
int NodeGroupsFromNodes(const char* command, const std::vector<std::string>& specs, const sched::Snapshot& cluster,
                        std::vector<plan::NodeGroup>* groups);

}  // namespace dra::cli
