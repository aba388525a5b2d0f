// dractl gen: synthetic clusters and pods shaped like kube-scheduler's
// scheduler_perf DRA tests (sched/generate.h), as YAML that `validate`,
// `schedule` and `explain` read like a kubectl dump.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/common.h"
#include "sched/generate.h"

namespace dra::cli {
namespace {

int Write(const StatusOr<std::string>& text, const std::string& out_file, const char* command) {
  if (!text.ok()) {
    std::fprintf(stderr, "%s: %s\n", command, text.status().message().c_str());
    return kExitUsageError;
  }
  std::FILE* f = out_file.empty() || out_file == "-" ? stdout : std::fopen(out_file.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "%s: cannot write %s\n", command, out_file.c_str());
    return kExitInputError;
  }
  const bool ok = std::fwrite(text->data(), 1, text->size(), f) == text->size();
  const bool closed = f == stdout ? std::fflush(f) == 0 : std::fclose(f) == 0;
  if (!ok || !closed) {
    std::fprintf(stderr, "%s: writing %s failed\n", command, out_file.empty() ? "stdout" : out_file.c_str());
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace

int RunGen(std::span<const std::string_view> args) {
  CLI::App app{
      "Generates synthetic inputs shaped like kube-scheduler's scheduler_perf DRA tests, as YAML\n"
      "(one document per object, as kubectl prints them). Deterministic: the same flags give\n"
      "the same bytes. Example:\n"
      "  dractl gen cluster --nodes 500 --devices-per-node 10 > cluster.yaml\n"
      "  dractl gen pods --pods 5000 > pods.yaml\n"
      "  dractl schedule -f cluster.yaml -f pods.yaml",
      "dractl gen"};
  app.require_subcommand(1);

  sched::ClusterShape cluster;
  std::string models = "H100-80GB:80Gi";
  std::string cluster_out;
  CLI::App* gen_cluster =
      app.add_subcommand("cluster",
                         "A DeviceClass, Nodes and one ResourceSlice per node (a node-local pool of GPU-like devices\n"
                         "with productName, index, uuid, driverVersion, pcieRoot attributes and a memory capacity).");
  gen_cluster->add_option("--nodes", cluster.nodes, "number of nodes")->capture_default_str();
  gen_cluster->add_option("--devices-per-node", cluster.devices_per_node, "devices per node (1-128)")
      ->capture_default_str();
  gen_cluster
      ->add_option("--models", models,
                   "NAME:MEMORY,... device models; node i gets model i mod count (e.g. "
                   "H100-80GB:80Gi,L4:24Gi)")
      ->capture_default_str();
  gen_cluster->add_option("--driver", cluster.driver, "driver name of the slices")->capture_default_str();
  gen_cluster->add_option("--class", cluster.device_class, "DeviceClass name (selects the driver)")
      ->capture_default_str();
  gen_cluster->add_option("--node-prefix", cluster.node_prefix, "node names: PREFIX-0000, PREFIX-0001, ...")
      ->capture_default_str();
  gen_cluster->add_option("--node-cpu-milli", cluster.node_cpu_milli, "allocatable cpu per node, millicores")
      ->capture_default_str();
  gen_cluster->add_option("--node-memory-mib", cluster.node_memory_mib, "allocatable memory per node, MiB")
      ->capture_default_str();
  gen_cluster->add_option("--node-pods", cluster.node_pods, "allocatable pods per node")->capture_default_str();
  gen_cluster->add_option("--out", cluster_out, "write to this file instead of stdout");

  sched::PodShape pods;
  std::string pods_out;
  CLI::App* gen_pods =
      app.add_subcommand("pods",
                         "Pending pods, each with one claim for --devices-per-pod devices of --class: from one shared\n"
                         "ResourceClaimTemplate (default) or a ResourceClaim per pod (--claim-per-pod). Pods are\n"
                         "created one second apart, so the scheduling queue takes them in name order.");
  gen_pods->add_option("--pods", pods.pods, "number of pods")->capture_default_str();
  gen_pods->add_option("--namespace", pods.namespace_, "namespace of pods and claims")->capture_default_str();
  gen_pods->add_option("--name-prefix", pods.name_prefix, "pod names: PREFIX-00000, ...")->capture_default_str();
  gen_pods->add_option("--class", pods.device_class, "DeviceClass the claims request")->capture_default_str();
  gen_pods->add_option("--devices-per-pod", pods.devices_per_pod, "devices per claim (1-32)")->capture_default_str();
  gen_pods->add_option("--selector", pods.selector,
                       "CEL request selector, e.g. "
                       "\"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0\"");
  gen_pods->add_flag("--claim-per-pod", pods.claim_per_pod, "a ResourceClaim per pod instead of a template");
  gen_pods->add_option("--cpu-milli", pods.cpu_milli, "cpu request per pod, millicores")->capture_default_str();
  gen_pods->add_option("--memory-mib", pods.memory_mib, "memory request per pod, MiB")->capture_default_str();
  gen_pods->add_option("--out", pods_out, "write to this file instead of stdout");

  sched::MigClusterShape mig_cluster;
  std::string mig_cluster_out;
  CLI::App* gen_mig_cluster =
      app.add_subcommand("mig-cluster",
                         "Nodes whose GPUs are partitioned when claimed (DRAPartitionableDevices), as the NVIDIA DRA\n"
                         "driver publishes them: per GPU a counter set (memory slices, SMs) and one device per valid\n"
                         "placement of each MIG profile (1g, 2g, 3g, 4g, 7g), in DeviceClass mig.nvidia.com.");
  gen_mig_cluster->add_option("--nodes", mig_cluster.nodes, "number of nodes")->capture_default_str();
  gen_mig_cluster->add_option("--gpus-per-node", mig_cluster.gpus_per_node, "GPUs per node (1-16)")
      ->capture_default_str();
  gen_mig_cluster->add_option("--model", mig_cluster.model, "A100-40GB or H100-80GB")->capture_default_str();
  gen_mig_cluster->add_option("--node-prefix", mig_cluster.node_prefix, "node names: PREFIX-0000, ...")
      ->capture_default_str();
  gen_mig_cluster->add_option("--node-cpu-milli", mig_cluster.node_cpu_milli, "allocatable cpu per node, millicores")
      ->capture_default_str();
  gen_mig_cluster->add_option("--out", mig_cluster_out, "write to this file instead of stdout");

  sched::MigPodShape mig_pods;
  std::string mig_mix = "1:40,2:25,3:20,4:10,7:5", mig_pods_out;
  CLI::App* gen_mig_pods = app.add_subcommand(
      "mig-pods",
      "Pods asking for one MIG device each, of a profile drawn from --mix (compute slices:weight) with\n"
      "--seed, arriving --interval seconds apart; with --lifetime S each ends after 0.5-1.5 x S seconds\n"
      "(deletionTimestamp, for `dractl simulate cluster`; `schedule` skips pods being deleted).");
  gen_mig_pods->add_option("--pods", mig_pods.pods, "number of pods")->capture_default_str();
  gen_mig_pods->add_option("--model", mig_pods.model, "A100-40GB or H100-80GB (profile names)")->capture_default_str();
  gen_mig_pods->add_option("--mix", mig_mix, "SLICES:WEIGHT,... with SLICES 1, 2, 3, 4 or 7")->capture_default_str();
  gen_mig_pods->add_option("--seed", mig_pods.seed, "draws of the mix")->capture_default_str();
  gen_mig_pods->add_option("--interval", mig_pods.interval_seconds, "seconds between arrivals")->capture_default_str();
  gen_mig_pods->add_option("--lifetime", mig_pods.lifetime_seconds, "mean lifetime in seconds; 0: pods never end")
      ->capture_default_str();
  gen_mig_pods->add_option("--namespace", mig_pods.namespace_, "namespace of pods and templates")
      ->capture_default_str();
  gen_mig_pods->add_option("--cpu-milli", mig_pods.cpu_milli, "cpu request per pod, millicores")->capture_default_str();
  gen_mig_pods->add_option("--out", mig_pods_out, "write to this file instead of stdout");

  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  if (gen_mig_cluster->parsed()) {
    return Write(sched::GenerateMigCluster(mig_cluster), mig_cluster_out, "dractl gen mig-cluster");
  }
  if (gen_mig_pods->parsed()) {
    StatusOr<std::vector<std::pair<int64_t, int64_t>>> mix = sched::ParseMigMix(mig_mix);
    if (!mix.ok()) {
      std::fprintf(stderr, "dractl gen mig-pods: --mix: %s\n", mix.status().message().c_str());
      return kExitUsageError;
    }
    mig_pods.mix = *std::move(mix);
    return Write(sched::GenerateMigPods(mig_pods), mig_pods_out, "dractl gen mig-pods");
  }

  if (gen_cluster->parsed()) {
    StatusOr<std::vector<sched::GpuModel>> parsed = sched::ParseModels(models);
    if (!parsed.ok()) {
      std::fprintf(stderr, "dractl gen cluster: --models: %s\n", parsed.status().message().c_str());
      return kExitUsageError;
    }
    cluster.models = *std::move(parsed);
    return Write(sched::GenerateCluster(cluster), cluster_out, "dractl gen cluster");
  }
  return Write(sched::GeneratePods(pods), pods_out, "dractl gen pods");
}

}  // namespace dra::cli
