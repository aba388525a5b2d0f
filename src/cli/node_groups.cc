// Node groups for `dractl plan` and `dractl simulate cluster` (node_groups.h).
#include "cli/node_groups.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "api/names.h"
#include "cli/common.h"
#include "manifest/loader.h"

namespace dra::cli {

void AddNodeGroupFlags(CLI::App& app, NodeGroupFlags* flags) {
  app.add_option("--node-groups", flags->node_groups, "NodeGroup files or folders; repeatable");
  app.add_option("--node-group-from", flags->node_group_from,
                 "NODE=NAME:MAX:PRICE: a node of the cluster, with its slices, as the template of group NAME; "
                 "repeatable");
  app.add_option("--expander", flags->expander,
                 "how nodes are chosen: optimal (the cheapest), or as the cluster autoscaler's least-waste, price, "
                 "most-pods or random")
      ->check(CLI::IsMember({"optimal", "least-waste", "price", "most-pods", "random"}))
      ->capture_default_str();
  app.add_option("--max-time", flags->max_time, "optimal: seconds before a plan's search stops with a lower bound")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

int LoadNodeGroups(const char* command, const std::vector<std::string>& paths, const api::FeatureGates& gates,
                   std::vector<plan::NodeGroup>* groups) {
  const auto parse = [&](std::string_view text, const std::string& file, std::vector<manifest::LoadMessage>* messages) {
    plan::ParseNodeGroups(text, file, gates, groups, messages);
  };
  if (int rc = ReadOwnFormat(command, "--node-groups", paths, parse); rc >= 0) return rc;
  if (groups->empty()) {
    std::fprintf(stderr, "%s: --node-groups: no NodeGroup in %s\n", command,
                 fmt::format("{}", fmt::join(paths, ", ")).c_str());
    return kExitInputError;
  }
  return -1;
}

int NodeGroupsFromNodes(const char* command, const std::vector<std::string>& specs, const sched::Snapshot& cluster,
                        std::vector<plan::NodeGroup>* groups) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    const size_t c1 = spec.find(':', eq == std::string::npos ? 0 : eq);
    const size_t c2 = c1 == std::string::npos ? c1 : spec.find(':', c1 + 1);
    plan::NodeGroup g;
    char* end = nullptr;
    if (eq == std::string::npos || c2 == std::string::npos) {
      std::fprintf(stderr, "%s: --node-group-from %s: want NODE=NAME:MAX:PRICE\n", command, spec.c_str());
      return kExitUsageError;
    }
    const std::string node = spec.substr(0, eq);
    g.name = spec.substr(eq + 1, c1 - eq - 1);
    const std::string max = spec.substr(c1 + 1, c2 - c1 - 1);
    const std::string price = spec.substr(c2 + 1);
    g.max_size = std::strtoll(max.c_str(), &end, 10);
    const bool max_ok = !max.empty() && *end == '\0' && g.max_size >= 1;
    g.price = std::strtod(price.c_str(), &end);
    if (!max_ok || price.empty() || *end != '\0' || !(g.price >= 0) || !api::IsDNS1123Label(g.name).empty()) {
      std::fprintf(stderr,
                   "%s: --node-group-from %s: want NODE=NAME:MAX:PRICE (NAME a DNS label, MAX >= 1, "
                   "PRICE >= 0)\n",
                   command, spec.c_str());
      return kExitUsageError;
    }
    const auto it = std::find_if(cluster.nodes.begin(), cluster.nodes.end(),
                                 [&](const api::Node& n) { return n.metadata.name == node; });
    if (it == cluster.nodes.end()) {
      std::fprintf(stderr, "%s: --node-group-from %s: no node %s in the cluster\n", command, spec.c_str(),
                   node.c_str());
      return kExitInputError;
    }
    g.node = *it;
    for (const api::ResourceSlice& slice : cluster.slices) {
      if (slice.spec.node_name == node) g.slices.push_back(slice);
    }
    for (const plan::NodeGroup& other : *groups) {
      if (other.name == g.name) {
        std::fprintf(stderr, "%s: --node-group-from %s: a node group %s is already given (%s)\n", command, spec.c_str(),
                     g.name.c_str(), other.file.c_str());
        return kExitUsageError;
      }
    }
    g.file = "--node-group-from";
    groups->push_back(std::move(g));
  }
  return -1;
}

}  // namespace dra::cli
