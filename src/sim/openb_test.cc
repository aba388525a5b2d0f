#include "sim/openb.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dra::sim {
namespace {

using ::testing::HasSubstr;

TEST(OpenbTest, ParsesNodes) {
  StatusOr<std::vector<OpenbNode>> nodes = ParseOpenbNodes(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "openb-node-0000,64000,262144,2,P100\n"
      "openb-node-0001,32000,262144,0,\n",
      "nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].name, "openb-node-0000");
  EXPECT_EQ((*nodes)[0].cpu_milli, 64000);
  EXPECT_EQ((*nodes)[0].memory_mib, 262144);
  EXPECT_EQ((*nodes)[0].gpus, 2);
  EXPECT_EQ((*nodes)[0].model, "P100");
  EXPECT_EQ((*nodes)[1].gpus, 0);
  EXPECT_EQ((*nodes)[1].model, "");
}

TEST(OpenbTest, ParsesPodsWithClampAndSpecNormalisation) {
  StatusOr<std::vector<OpenbPod>> pods = ParseOpenbPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase\n"
      "p0,12000,16384,1,1000,,LS,Running\n"
      "p1,6000,12288,1,460,V100M16||V100M32|V100M32|,LS,Running\n"
      "p2,4000,100,0,0,T4,BE,Running\n"
      "p3,4000,100,2,1500,nan,BE,Running\n"
      "p4,4000,100,1,-5,,BE,Running\n",
      "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 5u);
  EXPECT_EQ((*pods)[0].gpu_milli, 1000);
  EXPECT_EQ((*pods)[1].gpu_spec, "V100M16|V100M32|V100M32");  // empty parts dropped, duplicates kept
  EXPECT_THAT((*pods)[1].SpecModels(), ::testing::ElementsAre("V100M16", "V100M32", "V100M32"));
  EXPECT_EQ((*pods)[2].gpu_spec, "");  // CPU-only pods carry no GPU fields
  EXPECT_FALSE((*pods)[2].uses_gpu());
  EXPECT_EQ((*pods)[3].gpu_milli, 1000);  // clamped
  EXPECT_EQ((*pods)[3].gpu_spec, "");     // "nan" = no constraint
  EXPECT_EQ((*pods)[3].total_gpu_milli(), 2000);
  EXPECT_EQ((*pods)[4].gpu_milli, 0);
  EXPECT_FALSE((*pods)[4].uses_gpu());
}

TEST(OpenbTest, MultigpuListsHaveFiveColumns) {
  StatusOr<std::vector<OpenbPod>> pods =
      ParseOpenbPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,2,8,1000\n", "m.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  EXPECT_EQ((*pods)[0].num_gpu, 8);
}

struct BadCase {
  const char* name;
  const char* text;
  const char* want;
};

TEST(OpenbTest, BadPodRowsNameFileLineColumn) {
  const BadCase cases[] = {
      {.name = "not_an_integer",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,12x,2,1,1000\n",
       .want = "pods.csv:2:4: cpu_milli: \"12x\" is not an integer"},
      {.name = "missing_field",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,2,1\n",
       .want = "pods.csv:2:9: missing field \"gpu_milli\""},
      {.name = "missing_column",
       .text = "name,cpu_milli,memory_mib,gpu_milli\n",
       .want = "pods.csv:1:1: header has no column \"num_gpu\""},
      {.name = "negative_gpus",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\np0,1,2,-1,5\n",
       .want = "pods.csv:3:8: num_gpu: must be 0..64"},
      {.name = "empty_name",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n,1,2,1,5\n",
       .want = "pods.csv:2:1: name: empty pod name"},
      {.name = "unterminated_quote",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,\"1,2,1,5\n",
       .want = "pods.csv:2:4: unterminated quoted field"},
      {.name = "empty_file", .text = "", .want = "pods.csv:1:1: empty file"},
      {.name = "duplicate_name",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,2,1,5\np1,1,2,1,5\np0,1,2,1,5\n",
       .want = "pods.csv:4:1: name: duplicate pod name p0 (first on line 2)"},
      {.name = "deleted_before_created",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\np0,1,2,1,5,100,40\n",
       .want = "pods.csv:2:16: deletion_time: before creation_time"},
      {.name = "creation_not_a_number",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\np0,1,2,1,5,soon\n",
       .want = "pods.csv:2:12: creation_time: \"soon\" is not an integer"},
      {.name = "negative_creation",
       .text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\np0,1,2,1,5,-3\n",
       .want = "pods.csv:2:12: creation_time: negative"},
  };
  for (const BadCase& c : cases) {
    StatusOr<std::vector<OpenbPod>> pods = ParseOpenbPods(c.text, "pods.csv");
    ASSERT_FALSE(pods.ok()) << c.name;
    EXPECT_EQ(pods.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(pods.status().message(), HasSubstr(c.want)) << c.name;
  }
}

TEST(OpenbTest, ReadsTimesWhenPresent) {
  StatusOr<std::vector<OpenbPod>> pods = ParseOpenbPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\np0,1,2,1,5,7,9\np1,1,2,1,5,8,\n",
      "t.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  EXPECT_EQ((*pods)[0].creation_time, 7);
  EXPECT_EQ((*pods)[0].deletion_time, 9);
  EXPECT_EQ((*pods)[1].creation_time, 8);
  EXPECT_EQ((*pods)[1].deletion_time, -1);  // empty: never deleted
  // Without the columns: created at 0, never deleted.
  StatusOr<std::vector<OpenbPod>> plain =
      ParseOpenbPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,2,1,5\n", "p.csv");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)[0].creation_time, 0);
  EXPECT_EQ((*plain)[0].deletion_time, -1);
}

TEST(OpenbTest, BadNodeRows) {
  StatusOr<std::vector<OpenbNode>> nodes =
      ParseOpenbNodes("sn,cpu_milli,memory_mib,gpu,model\nn0,1,2,4,\n", "nodes.csv");
  ASSERT_FALSE(nodes.ok());
  EXPECT_THAT(nodes.status().message(), HasSubstr("nodes.csv:2:10: model: a node with GPUs needs a model"));
  nodes = ParseOpenbNodes("sn,cpu_milli,memory_mib,gpu,model\nn0,1,2,0,\nn0,1,2,0,\n", "nodes.csv");
  ASSERT_FALSE(nodes.ok());
  EXPECT_THAT(nodes.status().message(), HasSubstr("nodes.csv:3:1: sn: duplicate node name n0 (first on line 2)"));
}

TEST(OpenbTest, ReadsTheSharedTraces) {
  StatusOr<std::vector<OpenbNode>> nodes =
      ReadOpenbNodes(DRA_TESTDATA_DIR "/traces/alibaba-openb/openb_node_list_gpu_node.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  EXPECT_EQ(nodes->size(), 1213u);
  int64_t gpus = 0, cpu = 0;
  for (const OpenbNode& n : *nodes) {
    gpus += n.gpus;
    cpu += n.cpu_milli;
  }
  EXPECT_EQ(gpus, 6212);  // docs/fgd.md §1.1
  EXPECT_EQ(cpu, 107'018'000);
  StatusOr<std::vector<OpenbPod>> pods =
      ReadOpenbPods(DRA_TESTDATA_DIR "/traces/alibaba-openb/openb_pod_list_default.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  EXPECT_EQ(pods->size(), 8152u);  // docs/fgd.md §1.2
  int64_t total = 0;
  for (const OpenbPod& p : *pods) total += p.total_gpu_milli();
  EXPECT_EQ(total, 6'086'800);
}

}  // namespace
}  // namespace dra::sim
