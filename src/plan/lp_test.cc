#include "plan/lp.h"

#include <gtest/gtest.h>

namespace dra::plan {
namespace {

// min x + y with x + 2y >= 4, 3x + y >= 6 (written as <= with signs turned):
// the corners are (0, 6), (8/5, 6/5) and (4, 0); x + y is 6, 14/5 and 4, so
// the optimum is 14/5 at (8/5, 6/5).
TEST(LinearProgram, TwoCoveringRowsMeetAtTheCheapestCorner) {
  LinearProgram lp{.cost = {1, 1}, .rows = {{-1, -2}, {-3, -1}}, .bounds = {-4, -6}};
  LpSolution s = SolveLinearProgram(lp);
  ASSERT_EQ(s.status, LpStatus::kOptimal);
  EXPECT_NEAR(s.value, 14.0 / 5, 1e-9);
  EXPECT_NEAR(s.x[0], 8.0 / 5, 1e-9);
  EXPECT_NEAR(s.x[1], 6.0 / 5, 1e-9);
}

// Nodes of two groups at 3 and 5, holding 2 and 4 pods: 10 pods at the least
// price per pod (5/4 < 3/2) take 2.5 nodes of the second group, 12.5; with at
// most 2 of those, 8 pods there (10) and 2 on one of the first (3): 13.
TEST(LinearProgram, ACapMovesTheRestToTheDearerGroup) {
  // Variables x1, x2; rows: -(2 x1 + 4 x2) <= -10, x2 <= cap.
  LinearProgram lp{.cost = {3, 5}, .rows = {{-2, -4}}, .bounds = {-10}};
  LpSolution free = SolveLinearProgram(lp);
  ASSERT_EQ(free.status, LpStatus::kOptimal);
  EXPECT_NEAR(free.value, 12.5, 1e-9);
  lp.rows.push_back({0, 1});
  lp.bounds.push_back(2);
  LpSolution capped = SolveLinearProgram(lp);
  ASSERT_EQ(capped.status, LpStatus::kOptimal);
  EXPECT_NEAR(capped.value, 13, 1e-9);
}

TEST(LinearProgram, InfeasibleAndUnboundedAreSaid) {
  // x <= 1 and x >= 2.
  EXPECT_EQ(SolveLinearProgram({.cost = {1}, .rows = {{1}, {-1}}, .bounds = {1, -2}}).status, LpStatus::kInfeasible);
  // min -x with x >= 1 only.
  EXPECT_EQ(SolveLinearProgram({.cost = {-1}, .rows = {{-1}}, .bounds = {-1}}).status, LpStatus::kUnbounded);
}

}  // namespace
}  // namespace dra::plan
