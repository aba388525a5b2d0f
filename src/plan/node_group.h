// NodeGroup files (`dractl plan --node-groups`): a template node, with the
// ResourceSlices its drivers would publish, that can be added 0..maxSize
// times at a price per node and hour; a format of our own:
//
//   apiVersion: dractl.io/v1alpha1
//   kind: NodeGroup
//   metadata: {name: a100x8}          # added nodes are named a100x8-0, a100x8-1, ...
//   spec:
//     minSize: 0                      # default 0
//     maxSize: 20                     # required, >= 1 and >= minSize
//     price: 1.0                      # required, >= 0
//     template:
//       node: {...}                   # a v1 Node
//       resourceSlices: [...]         # resource.k8s.io/v1 ResourceSlices, spec.nodeName = the node's name
//
// The template node and slices are defaulted and validated as the API server
// would; every problem is a message at its file, line and field path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/features.h"
#include "api/resource.h"
#include "manifest/loader.h"

namespace dra::plan {

inline constexpr std::string_view kNodeGroupApiVersion = "dractl.io/v1alpha1";

struct NodeGroup {
  std::string name{};
  int64_t min_size = 0;
  int64_t max_size = 0;
  double price = 0;
  api::Node node{};                          // the template
  std::vector<api::ResourceSlice> slices{};  // spec.nodeName is node's name
  std::string file{};                        // where it was read
  manifest::Mark mark{};
};

// Reads the NodeGroup documents of `text` (YAML or JSON; `file` names it in
// messages) into `groups`; every problem joins `messages`. A group with an
// error is not added.
void ParseNodeGroups(std::string_view text, const std::string& file, const api::FeatureGates& gates,
                     std::vector<NodeGroup>* groups, std::vector<manifest::LoadMessage>* messages);

// The node `index` of `group`, named "<group>-<index>": the template node
// renamed (and its kubernetes.io/hostname label), its slices on that node, with
// pools and slice names made unique to it.
std::string NodeName(const NodeGroup& group, size_t index);  // "<group>-<index>"
struct NodeInstance {
  api::Node node{};
  std::vector<api::ResourceSlice> slices{};
};
NodeInstance Instantiate(const NodeGroup& group, size_t index);

}  // namespace dra::plan
