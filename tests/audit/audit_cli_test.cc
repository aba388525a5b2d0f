// End-to-end tests of `dractl audit` on tests/audit: the findings, where
// they point in the files, --fail-on and the JSON shape. What each input must
// give is worked out by hand in the data's comments; the checks themselves
// are tested one by one in src/audit/audit_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "cli/run_command.h"
#include "manifest/json_parser.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;
const std::string kData = std::string(DRA_SOURCE_DIR) + "/tests/audit";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The admin-access claim of ops is an error, at the adminAccess line (15);
// mon's label makes its claim fine; nothing else is wrong.
TEST(AuditCliTest, TableNamesTheFindingWithItsLineAndFailsOnErrors) {
  const CommandResult r = RunCommand(kBin + " audit -f " + ShellQuote(kData + "/data"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "error    admin-access-namespace  ResourceClaim ops/watch  (" + kData + "/data/claims.yaml:15)"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "  spec.devices.requests[0].exactly.adminAccess: requests admin access in namespace "
                       "ops, which lacks the label resource.kubernetes.io/admin-access: \"true\""))
      << r.output;
  EXPECT_FALSE(Contains(r.output, "mon/watch")) << r.output;
  EXPECT_TRUE(Contains(r.output, "1 finding: 1 error, 0 warnings, 0 info")) << r.output;
  EXPECT_EQ(RunCommand(kBin + " audit --fail-on none -f " + ShellQuote(kData + "/data")).exit_code, 0);
}

// The TPU class passes none of the one GPU: a warning (at the selectors'
// first item, line 17), so exit 0 unless --fail-on warning.
TEST(AuditCliTest, FailOnDecidesTheExitCode) {
  const std::string files = " -f " + ShellQuote(kData + "/warn");
  const CommandResult r = RunCommand(kBin + " audit" + files);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      Contains(r.output, "warning  class-matches-nothing  DeviceClass tpu  (" + kData + "/warn/cluster.yaml:17)"))
      << r.output;
  EXPECT_EQ(RunCommand(kBin + " audit --fail-on warning" + files).exit_code, 1);
  EXPECT_EQ(RunCommand(kBin + " audit --fail-on info" + files).exit_code, 1);
}

TEST(AuditCliTest, JsonHasFindingsAndASummary) {
  const CommandResult r = RunCommand(kBin + " audit -o json -f " + ShellQuote(kData + "/data") + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 1) << r.output;
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(r.output, "out.json");
  ASSERT_TRUE(docs.ok() && docs->size() == 1) << docs.status().ToString() << "\n" << r.output;
  const manifest::Node* root = &(*docs)[0].root;
  const manifest::Node* findings = root->Find("findings");
  ASSERT_TRUE(findings != nullptr && findings->is_sequence());
  ASSERT_EQ(findings->items.size(), 1u);
  const manifest::Node& f = findings->items[0];
  for (const char* key : {"id", "severity", "object", "field", "message", "fix", "location"}) {
    EXPECT_NE(f.Find(key), nullptr) << key;
  }
  EXPECT_EQ(f.Find("id")->text, "admin-access-namespace");
  EXPECT_EQ(f.Find("severity")->text, "error");
  EXPECT_EQ(f.Find("object")->text, "ResourceClaim ops/watch");
  EXPECT_EQ(f.Find("field")->text, "spec.devices.requests[0].exactly.adminAccess");
  const manifest::Node* summary = root->Find("summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->Find("errors")->text, "1");
  EXPECT_EQ(summary->Find("warnings")->text, "0");
  EXPECT_EQ(summary->Find("devices")->text, "2");
  EXPECT_EQ(summary->Find("byId")->Find("admin-access-namespace")->text, "1");
}

TEST(AuditCliTest, UsageErrors) {
  EXPECT_EQ(RunCommand(kBin + " audit").exit_code, 2);
  EXPECT_EQ(RunCommand(kBin + " audit --fail-on sometimes -f " + ShellQuote(kData + "/data")).exit_code, 2);
  const CommandResult help = RunCommand(kBin + " audit --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "claim-fits-no-node")) << help.output;
}

}  // namespace
}  // namespace dra::testing
