#include "plan/lp.h"

#include <cmath>
#include <cstddef>
#include <limits>

namespace dra::plan {

namespace {

constexpr double kEps = 1e-9;

// A full simplex tableau: `rows` constraint rows and one objective row (the
// last: reduced costs, and minus the objective's value in the last column).
class Tableau {
 public:
  Tableau(size_t rows, size_t columns)
      : columns_(columns),
        t_(rows + 1, std::vector<double>(columns + 1, 0)),
        basis_(rows, 0),
        allowed_(columns, true) {}

  double& At(size_t r, size_t c) { return t_[r][c]; }
  double& Rhs(size_t r) { return t_[r][columns_]; }
  std::vector<double>& Objective() { return t_.back(); }
  size_t rows() const { return basis_.size(); }
  size_t& Basis(size_t r) { return basis_[r]; }
  void Forbid(size_t c) { allowed_[c] = false; }

  void Pivot(size_t r, size_t s) {
    std::vector<double>& row = t_[r];
    const double inv = 1 / row[s];
    for (double& v : row) v *= inv;
    row[s] = 1;
    for (size_t i = 0; i < t_.size(); ++i) {
      if (i == r) continue;
      const double f = t_[i][s];
      if (std::fabs(f) < kEps) continue;
      for (size_t j = 0; j <= columns_; ++j) t_[i][j] -= f * row[j];
      t_[i][s] = 0;
    }
    basis_[r] = s;
  }

  // Minimises the objective row; false if it is unbounded. Dantzig's rule,
  // then Bland's (which cannot cycle) after many pivots.
  bool Run() {
    const size_t bland_after = 50 * (rows() + columns_);
    for (size_t step = 0;; ++step) {
      const bool bland = step > bland_after;
      std::vector<double>& obj = Objective();
      size_t s = columns_;
      for (size_t j = 0; j < columns_; ++j) {
        if (!allowed_[j] || obj[j] >= -kEps) continue;
        if (s == columns_ || (!bland && obj[j] < obj[s])) s = j;
        if (bland) break;
      }
      if (s == columns_) return true;
      size_t r = rows();
      double best = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < rows(); ++i) {
        if (t_[i][s] <= kEps) continue;
        const double ratio = t_[i][columns_] / t_[i][s];
        if (ratio < best - kEps || (ratio < best + kEps && r < rows() && basis_[i] < basis_[r])) {
          best = ratio;
          r = i;
        }
      }
      if (r == rows()) return false;
      Pivot(r, s);
    }
  }

 private:
  size_t columns_;
  std::vector<std::vector<double>> t_;
  std::vector<size_t> basis_;
  std::vector<bool> allowed_;
};

}  // namespace

LpSolution SolveLinearProgram(const LinearProgram& lp) {
  const size_t n = lp.cost.size(), m = lp.rows.size();
  size_t artificials = 0;
  for (double b : lp.bounds) artificials += b < 0 ? 1 : 0;
  // Columns: the variables, a slack per row, an artificial per row with b < 0.
  const size_t columns = n + m + artificials;
  Tableau t(m, columns);
  size_t next_artificial = n + m;
  for (size_t i = 0; i < m; ++i) {
    const double sign = lp.bounds[i] < 0 ? -1 : 1;
    for (size_t j = 0; j < n; ++j) t.At(i, j) = sign * lp.rows[i][j];
    t.At(i, n + i) = sign;
    t.Rhs(i) = sign * lp.bounds[i];
    if (sign > 0) {
      t.Basis(i) = n + i;
    } else {
      t.At(i, next_artificial) = 1;
      t.Basis(i) = next_artificial++;
    }
  }
  // Phase 1: the artificials to zero.
  std::vector<double>& obj = t.Objective();
  for (size_t i = 0; i < m; ++i) {
    if (t.Basis(i) < n + m) continue;
    for (size_t j = 0; j < n + m; ++j) obj[j] -= t.At(i, j);
    obj[columns] -= t.Rhs(i);
  }
  if (artificials > 0) {
    t.Run();
    if (-obj[columns] > 1e-7) return LpSolution{.status = LpStatus::kInfeasible};
    for (size_t i = 0; i < m; ++i) {
      if (t.Basis(i) < n + m) continue;
      for (size_t j = 0; j < n + m; ++j) {
        if (std::fabs(t.At(i, j)) > 1e-7) {
          t.Pivot(i, j);
          break;
        }
      }
    }
    for (size_t j = n + m; j < columns; ++j) t.Forbid(j);
  }
  // Phase 2: the cost, in terms of the nonbasic columns.
  for (double& v : obj) v = 0;
  for (size_t j = 0; j < n; ++j) obj[j] = lp.cost[j];
  for (size_t i = 0; i < m; ++i) {
    const size_t b = t.Basis(i);
    const double cb = b < n ? lp.cost[b] : 0;
    if (cb == 0) continue;
    for (size_t j = 0; j <= columns; ++j) obj[j] -= cb * (j == columns ? t.Rhs(i) : t.At(i, j));
  }
  if (!t.Run()) return LpSolution{.status = LpStatus::kUnbounded};
  LpSolution out{.status = LpStatus::kOptimal, .value = -obj[columns], .x = std::vector<double>(n, 0)};
  for (size_t i = 0; i < m; ++i) {
    if (t.Basis(i) < n) out.x[t.Basis(i)] = t.Rhs(i);
  }
  return out;
}

}  // namespace dra::plan
