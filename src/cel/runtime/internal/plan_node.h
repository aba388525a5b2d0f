// The planned form of a Program, shared by the planner (planner.cc), the
// evaluator (evaluator.cc) and Program's own members (program.cc).
//
// Planned nodes live in one vector and refer to their children by index
// (Program::children_), so evaluation touches contiguous memory and never a
// string map. Nodes are never removed: constant folding turns a node into a
// kConst in place and leaves its former children unreferenced, so values a
// folded constant borrows from them stay valid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cel/runtime/function_registry.h"
#include "cel/runtime/program.h"
#include "cel/runtime/value.h"

namespace dra::cel::internal {

enum class Op : uint8_t {
  kConst,             // value
  kVar,               // activation variable in `slot`
  kLocal,             // comprehension variable in `slot`
  kUnbound,           // undeclared identifier (report_undeclared off): error at run time
  kSelect,            // child 0 . field(value)
  kHas,               // has(child 0 . field)
  kOptSelect,         // child 0 .? field
  kIndex,             // child 0 [child 1]
  kOptIndex,          // child 0 [? child 1]
  kAnd,               // child 0 && child 1
  kOr,                // child 0 || child 1
  kNot,               // !child 0
  kCond,              // child 0 ? child 1 : child 2
  kNotStrictlyFalse,  // @not_strictly_false(child 0)
  kEq,                // child 0 == child 1
  kNe,                // child 0 != child 1
  kIn,                // child 0 in child 1
  kCall,              // overloads(children)
  kList,              // [children], `optional` marks [?e]
  kMap,               // {child 2i: child 2i+1}, `optional` marks {?k: v}
  kComprehension,     // children: range, init, cond, step, result
  kAppendAccu,        // accumulator(slot) + [children] (in place when unshared)
  kMapInsertAccu,     // cel.@mapInsert(accumulator(slot), children...)
  kOptOr,             // child 0 .or(child 1), child 1 only when child 0 is none
  kOptOrValue,        // child 0 .orValue(child 1), likewise
  kPath,              // child 0 (a kVar) followed by the constant steps `path`
};

struct PlanNode {
  Op op = Op::kConst;
  uint32_t first = 0;  // first child in Program::children_
  uint32_t count = 0;  // number of children
  uint32_t slot = 0;   // kVar/kLocal: the slot; comprehension/accu nodes: accumulator slot
  uint32_t iter_slot = 0;
  uint32_t iter2_slot = UINT32_MAX;  // none
  int64_t expr_id = 0;
  Value value;       // kConst: the constant; selects: the field name; kUnbound: the message
  std::string name;  // kCall: function name (for messages)
  std::vector<const Overload*> overloads;
  const Overload* prepared_overload = nullptr;
  const void* prepared = nullptr;
  std::vector<bool> optional;  // kList: per element; kMap: per entry
  std::vector<PathStep> path;  // kPath: the selections and constant indexes
  // kEq/kNe: the child (0 or 1) that is a string constant, or -1; and the
  // constant's size in code points.
  int8_t const_side = -1;
  uint32_t const_cp = 0;
};

// A constant the planner may turn into a map key or list index, and the
// evaluator may look up (`in`, `[]`).
inline bool IsKeyLike(const Value& v) { return IsValidMapKey(v) || v.is_double(); }

// Evaluates node `index` of `program` with `state` (evaluator.cc). The
// planner folds a node whose children are all constants with it.
Value EvaluateNode(const Program& program, EvalState& state, uint32_t index);

}  // namespace dra::cel::internal
