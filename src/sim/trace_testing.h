// Tests only: the openb traces (node list and one pod list) read from the
// shared data folder, for the tests that run the FGD protocol.
#pragma once

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sim/openb.h"

namespace dra::sim::testing {

inline constexpr char kTraces[] = DRA_TESTDATA_DIR "/traces/alibaba-openb";

struct Trace {
  std::vector<OpenbNode> nodes;
  std::vector<OpenbPod> pods;
};

// The GPU node list and `pods_file` of kTraces; a failed read fails the test.
inline Trace LoadTrace(const std::string& pods_file) {
  Trace t;
  StatusOr<std::vector<OpenbNode>> nodes = ReadOpenbNodes(std::string(kTraces) + "/openb_node_list_gpu_node.csv");
  StatusOr<std::vector<OpenbPod>> pods = ReadOpenbPods(std::string(kTraces) + "/" + pods_file);
  EXPECT_TRUE(nodes.ok() && pods.ok());
  if (nodes.ok()) t.nodes = std::move(*nodes);
  if (pods.ok()) t.pods = std::move(*pods);
  return t;
}

}  // namespace dra::sim::testing
