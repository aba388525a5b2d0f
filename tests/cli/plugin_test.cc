// kubectl-dra, the kubectl plugin (issue #27 item 2): the dractl binary under
// the plugin's name reads the cluster of kubectl's configuration when no -f
// gives files, and explain takes -n as kubectl does. The live path against a
// real API server is in tests/live/run.sh; here a kubeconfig that points at a
// closed port shows which source each command line chose.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

namespace fs = std::filesystem;

const std::string kDractl = DRACTL_BIN;
const std::string kPlugin = (fs::path(DRACTL_BIN).parent_path() / "kubectl-dra").string();
const std::string kData = std::string(DRA_SOURCE_DIR) + "/tests/sched/data";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A kubeconfig whose only cluster listens nowhere (port 1 of localhost).
std::string ClosedKubeconfig() {
  const fs::path path = fs::temp_directory_path() / ("plugin_test_kubeconfig_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "apiVersion: v1\nkind: Config\n"
                         "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
                         "users:\n- name: u\n  user:\n    token: abc\n"
                         "contexts:\n- name: ctx\n  context: {cluster: c, user: u}\n"
                         "current-context: ctx\n";
  return path.string();
}

TEST(PluginTest, InstalledBesideDractlWithItsOwnUsage) {
  ASSERT_TRUE(fs::is_symlink(kPlugin)) << kPlugin;
  EXPECT_EQ(fs::read_symlink(kPlugin), "dractl");
  CommandResult help = RunCommand(kPlugin + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "Usage: kubectl dra <command> [flags]")) << help.output;
  EXPECT_TRUE(Contains(help.output, "explain     why a pending pod does not schedule")) << help.output;
  // dractl under its own name says nothing of the plugin.
  EXPECT_FALSE(Contains(RunCommand(kDractl + " --help").output, "kubectl dra"));
}

TEST(PluginTest, WithoutFilesTheClusterOfTheKubeconfigIsRead) {
  const std::string kubeconfig = ClosedKubeconfig();
  // The request goes to the kubeconfig's server: the plugin added --live.
  CommandResult explain = RunCommand("KUBECONFIG=" + kubeconfig + " " + kPlugin + " explain -n ml trainer-0");
  EXPECT_EQ(explain.exit_code, 1) << explain.output;
  EXPECT_TRUE(Contains(explain.output, "GET https://127.0.0.1:1/api/v1/nodes?limit=500")) << explain.output;
  CommandResult schedule = RunCommand("KUBECONFIG=" + kubeconfig + " " + kPlugin + " schedule");
  EXPECT_EQ(schedule.exit_code, 1) << schedule.output;
  EXPECT_TRUE(Contains(schedule.output, "https://127.0.0.1:1/api/v1/nodes")) << schedule.output;
  // --context means the API server even with -f, as it does for kubectl.
  CommandResult context =
      RunCommand("KUBECONFIG=" + kubeconfig + " " + kPlugin + " explain --context other -f " + kData + " x/y");
  EXPECT_EQ(context.exit_code, 1) << context.output;
  EXPECT_TRUE(Contains(context.output, "context \"other\" is not defined (contexts: ctx)")) << context.output;
  // dractl itself never reads a cluster it was not pointed at.
  CommandResult dractl = RunCommand("KUBECONFIG=" + kubeconfig + " " + kDractl + " explain ml/trainer-0");
  EXPECT_EQ(dractl.exit_code, 2) << dractl.output;
  EXPECT_TRUE(Contains(dractl.output, "no cluster: give -f")) << dractl.output;
  fs::remove(kubeconfig);
}

TEST(PluginTest, FilesAloneAreReadAsByDractl) {
  // tests/sched/data: nccl-2 (namespace rdma-inference) stays pending, as
  // tests/sched/explain_cli_test.cc works out (the two aligned GPU+VF pairs
  // are taken by earlier pods).
  const std::string expected = "pod rdma-inference/nccl-2: pending: 0/4 nodes are available";
  CommandResult plugin = RunCommand(kPlugin + " explain -f " + kData + " -n rdma-inference nccl-2");
  EXPECT_EQ(plugin.exit_code, 0) << plugin.output;
  EXPECT_TRUE(Contains(plugin.output, expected)) << plugin.output;
  CommandResult dractl = RunCommand(kDractl + " explain -f " + kData + " --namespace=rdma-inference nccl-2");
  EXPECT_EQ(dractl.exit_code, 0) << dractl.output;
  EXPECT_EQ(dractl.output, plugin.output);
}

TEST(PluginTest, NamespaceFlagAndQualifiedPodMustAgree) {
  CommandResult r = RunCommand(kDractl + " explain -f " + kData + " -n default rdma-inference/nccl-2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "dractl explain: the pod rdma-inference/nccl-2 is not in namespace default (-n)"))
      << r.output;
  // The same namespace twice is fine.
  EXPECT_EQ(RunCommand(kDractl + " explain -f " + kData + " -n rdma-inference rdma-inference/nccl-2").exit_code, 0);
}

}  // namespace
}  // namespace dra::testing
