// A small dense linear program solver (two-phase simplex with Bland's rule),
// for the planner's lower bounds: minimise c·x subject to A x <= b, x >= 0.
// Meant for a few hundred rows and columns; exact enough for a bound (the
// caller keeps a margin), not for an exact optimum.
#pragma once

#include <optional>
#include <vector>

namespace dra::plan {

struct LinearProgram {
  std::vector<double> cost{};               // c, one per variable
  std::vector<std::vector<double>> rows{};  // A, each as long as `cost`
  std::vector<double> bounds{};             // b, one per row
};

enum class LpStatus { kOptimal, kInfeasible, kUnbounded };

struct LpSolution {
  LpStatus status = LpStatus::kInfeasible;
  double value = 0;  // c·x at the optimum
  std::vector<double> x{};
};

LpSolution SolveLinearProgram(const LinearProgram& lp);

}  // namespace dra::plan
