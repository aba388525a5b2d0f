#include "base/suggest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dra {
namespace {

TEST(SuggestTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("schedul", "schedule"), 1u);   // insert
  EXPECT_EQ(EditDistance("shcedule", "schedule"), 1u);  // swap
  EXPECT_EQ(EditDistance("Schedule", "schedule"), 0u);  // case
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(SuggestTest, ClosestWithinAQuarterOfTheLength) {
  const std::vector<std::string> commands = {"validate", "summary", "schedule", "simulate", "serve", "explain"};
  EXPECT_THAT(Suggest("schedul", commands), ::testing::ElementsAre("schedule"));
  EXPECT_THAT(Suggest("simulat", commands), ::testing::ElementsAre("simulate"));
  EXPECT_THAT(Suggest("xyz", commands), ::testing::IsEmpty());
  EXPECT_THAT(Suggest("schedule", commands), ::testing::IsEmpty());  // itself
  const std::vector<std::string> classes = {"gpu.nvidia.com", "mig.nvidia.com", "gpu.example.com"};
  // "mig.nvidia.com" is 4 edits away (3 letters and the "m"): more than 13 / 4.
  EXPECT_THAT(Suggest("gpu.nvidia.co", classes), ::testing::ElementsAre("gpu.nvidia.com"));
  // Containment: a Deployment name finds its pods.
  const std::vector<std::string> pods = {"ml/trainer-7d9f-abcde", "ml/trainer-7d9f-fghij", "ml/other"};
  EXPECT_THAT(Suggest("ml/trainer", pods), ::testing::ElementsAre("ml/trainer-7d9f-abcde", "ml/trainer-7d9f-fghij"));
  // ... but only when nothing is close by edits: "image" is inside
  // "imagePulPolicy", one edit from "imagePullPolicy".
  const std::vector<std::string> fields = {"name", "image", "imagePullPolicy", "command"};
  EXPECT_THAT(Suggest("imagePulPolicy", fields), ::testing::ElementsAre("imagePullPolicy"));
  EXPECT_EQ(DidYouMean({"a"}), "; did you mean \"a\"?");
  EXPECT_EQ(DidYouMean({"a", "b", "c"}), "; did you mean \"a\", \"b\" or \"c\"?");
  EXPECT_EQ(DidYouMean({}), "");
}

}  // namespace
}  // namespace dra
