// End-to-end tests of `dractl import openb` and `dractl simulate openb` on a
// tiny hand-written trace:
//
//   nodes  n0: 2 x T4, 16 cores, 64 GiB      n1: 8 x G2, 96 cores, 384 GiB
//   pods   a: 1 x 500 milli, gpu_spec T4     -> only n0 has T4s
//          b: 1 x 600 milli, gpu_spec G2     -> n1, a share of one of its GPUs
//          c: 8 whole GPUs                   -> only n1 has 8 GPUs, and b holds a
//                                               share of one: stays pending
//          d: CPU-only
//          e: 1 whole GPU, gpu_spec V100M32  -> no such node: stays pending
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;

class OpenbCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "openb_cli_test";
    RunCommand("mkdir -p " + ShellQuote(dir_));
    Write("nodes.csv",
          "sn,cpu_milli,memory_mib,gpu,model\n"
          "n0,16000,65536,2,T4\n"
          "n1,96000,393216,8,G2\n");
    Write("pods.csv",
          "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
          "a,4000,1024,1,500,T4,LS\n"
          "b,4000,1024,1,600,G2,LS\n"
          "c,32000,4096,8,1000,,LS\n"
          "d,2000,512,0,0,,BE\n"
          "e,2000,512,1,1000,V100M32,LS\n");
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string Path(const std::string& name) const { return ShellQuote(dir_ + "/" + name); }
  std::string Import(const std::string& output) const {
    return kBin + " import openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") + " -o " + output;
  }

  std::string dir_;
};

TEST_F(OpenbCliTest, ImportValidatesAndSchedules) {
  CommandResult imported = RunCommand(Import("yaml") + " > " + Path("cluster.yaml"));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  CommandResult validated = RunCommand(kBin + " validate --strict -f " + Path("cluster.yaml"));
  EXPECT_EQ(validated.exit_code, 0) << validated.output;
  // 1 class + 2 nodes + 2 slices + 4 templates + 5 pods
  EXPECT_NE(validated.output.find("14 objects"), std::string::npos) << validated.output;

  CommandResult scheduled = RunCommand(kBin + " schedule -f " + Path("cluster.yaml"));
  ASSERT_EQ(scheduled.exit_code, 0) << scheduled.output;
  const std::string& t = scheduled.output;
  EXPECT_NE(t.find("paib-gpu/a  n0"), std::string::npos) << t;
  EXPECT_NE(t.find("paib-gpu/b  n1"), std::string::npos) << t;
  EXPECT_NE(t.find("paib-gpu/c  <pending>  0/2 nodes are available: 1 Insufficient cpu, 1 cannot allocate all claims."),
            std::string::npos) << t;
  EXPECT_NE(t.find("paib-gpu/e  <pending>  0/2 nodes are available: 2 cannot allocate all claims."),
            std::string::npos) << t;
  EXPECT_EQ(t.find("paib-gpu/d  <pending>"), std::string::npos) << t;
}

TEST_F(OpenbCliTest, ImportJsonIsAList) {
  CommandResult r = RunCommand(Import("json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"kind\": \"List\""), std::string::npos);
  EXPECT_NE(r.output.find("\"allowMultipleAllocations\": true"), std::string::npos);
}

TEST_F(OpenbCliTest, BadCsvNamesFileLineColumn) {
  Write("bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,2,1,500\nb,1,2,x,500\n");
  CommandResult r = RunCommand(kBin + " import openb --nodes " + Path("nodes.csv") + " --pods " + Path("bad.csv"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("bad.csv:3:7: num_gpu: \"x\" is not an integer"), std::string::npos) << r.output;
}

TEST_F(OpenbCliTest, SimulatePrintsTheIssueJsonShape) {
  CommandResult r = RunCommand(kBin + " simulate openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") +
                               " --policy fgd --seed 1,2 --check all -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* key : {"\"trace\": \"pods\"", "\"policy\": \"fgd\"", "\"seeds\": [1, 2]", "\"allocation\": {\"100\": {\"mean\": ",
                          "\"130\": {\"mean\": ", "\"frag_amount\": {", "\"frag_ratio\": {", "\"runs\": ["}) {
    EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
  }
  CommandResult bad = RunCommand(kBin + " simulate openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") +
                                 " --policy tetris");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("unknown policy \"tetris\""), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace dra::testing
