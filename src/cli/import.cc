// dractl import openb: the Alibaba openb trace CSVs -> DRA manifests (Nodes,
// one ResourceSlice per GPU node, a DeviceClass, a Pod and a
// ResourceClaimTemplate per task). See sim/import.h for the mapping.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/encode.h"
#include "sim/import.h"
#include "sim/openb.h"

namespace dra::cli {

int RunImport(std::span<const std::string_view> args) {
  CLI::App app{
      "Converts a trace into DRA objects.\n"
      "  dractl import openb --nodes NODES.csv --pods PODS.csv [-o yaml|json]\n"
      "reads the Alibaba openb node and pod lists (Alibaba clusterdata's openb CSVs) and prints\n"
      "Nodes, one ResourceSlice per GPU node (one shareable device per GPU), a DeviceClass,\n"
      "and per task a Pod plus a ResourceClaimTemplate (YAML documents or a JSON List).",
      "dractl import"};
  std::string format;
  std::string nodes_csv, pods_csv, output = "yaml";
  size_t max_nodes = 0, max_pods = 0;
  app.add_option("format", format, "trace format: openb")->required()->check(CLI::IsMember({"openb"}));
  app.add_option("--nodes", nodes_csv, "node list CSV (sn,cpu_milli,memory_mib,gpu,model)")->required();
  app.add_option("--pods", pods_csv, "pod list CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec])")
      ->required();
  app.add_option("-o,--output", output, "yaml or json")->check(CLI::IsMember({"yaml", "json"}))->capture_default_str();
  app.add_option("--max-nodes", max_nodes, "only the first N nodes of the list (0: all)");
  app.add_option("--max-pods", max_pods, "only the first N pods of the list (0: all)");
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  StatusOr<sim::OpenbTrace> input = sim::ReadOpenbTrace(nodes_csv, pods_csv);
  if (!input.ok()) {
    std::fprintf(stderr, "%s\n", input.status().message().c_str());
    return kExitInputError;
  }
  std::vector<sim::OpenbNode>& nodes = input->nodes;
  std::vector<sim::OpenbPod>& pods = input->pods;
  if (max_nodes > 0 && nodes.size() > max_nodes) nodes.resize(max_nodes);
  if (max_pods > 0 && pods.size() > max_pods) pods.resize(max_pods);

  std::vector<manifest::Node> roots;
  for (const api::Object& o : sim::ImportOpenb(nodes, pods)) roots.push_back(manifest::EncodeObject(o));
  PrintDocuments(std::move(roots), output);
  return kExitOk;
}

}  // namespace dra::cli
