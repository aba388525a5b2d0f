// Program's own members that neither plan nor evaluate (construction,
// variable slots, DebugString), and MapActivation. The planner is in
// planner.cc, the evaluator in evaluator.cc; internal/plan_node.h is the
// planned form they share.
#include "cel/runtime/program.h"

#include "cel/runtime/internal/plan_node.h"

namespace dra::cel {

using internal::Op;
using internal::PlanNode;

std::optional<Value> MapActivation::Find(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return Value::Borrow(it->second);
}

Program::Program() = default;
Program::~Program() = default;

std::optional<size_t> Program::VariableSlot(std::string_view name) const {
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (variables_[i] == name) return i;
  }
  return std::nullopt;
}

namespace {

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kConst: return "const";
    case Op::kVar: return "var";
    case Op::kLocal: return "local";
    case Op::kUnbound: return "unbound";
    case Op::kSelect: return "select";
    case Op::kHas: return "has";
    case Op::kOptSelect: return "opt_select";
    case Op::kIndex: return "index";
    case Op::kOptIndex: return "opt_index";
    case Op::kAnd: return "and";
    case Op::kOr: return "or";
    case Op::kNot: return "not";
    case Op::kCond: return "cond";
    case Op::kNotStrictlyFalse: return "not_strictly_false";
    case Op::kEq: return "eq";
    case Op::kNe: return "ne";
    case Op::kIn: return "in";
    case Op::kCall: return "call";
    case Op::kList: return "list";
    case Op::kMap: return "map";
    case Op::kComprehension: return "comprehension";
    case Op::kAppendAccu: return "append_accu";
    case Op::kMapInsertAccu: return "map_insert_accu";
    case Op::kOptOr: return "opt_or";
    case Op::kOptOrValue: return "opt_or_value";
    case Op::kPath: return "path";
  }
  return "?";
}

}  // namespace

std::string Program::DebugString() const {
  std::string out;
  std::vector<std::pair<uint32_t, size_t>> stack = {{root_, 0}};
  while (!stack.empty()) {
    auto [index, depth] = stack.back();
    stack.pop_back();
    const PlanNode& n = nodes_[index];
    out.append(depth * 2, ' ');
    out += OpName(n.op);
    if (n.op == Op::kConst || n.op == Op::kSelect || n.op == Op::kHas || n.op == Op::kOptSelect) {
      out += ' ';
      out += n.value.DebugString();
    }
    if (n.op == Op::kVar || n.op == Op::kLocal) {
      out += " slot ";
      out += std::to_string(n.slot);
    }
    if (n.op == Op::kCall) {
      out += ' ';
      out += n.name;
    }
    if (n.op == Op::kPath) {
      out += ' ';
      for (const PathStep& step : n.path) {
        if (step.is_index) {
          out += '[';
          out += step.key.DebugString();
          out += ']';
        } else {
          out += '.';
          out += step.key.string_value();
        }
      }
    }
    out.push_back('\n');
    for (uint32_t i = n.count; i > 0; --i) stack.emplace_back(children_[n.first + i - 1], depth + 1);
  }
  return out;
}

}  // namespace dra::cel
