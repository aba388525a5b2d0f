// Function overloads, by name, that the planner binds calls to.
//
// A library registers each overload of a CEL function once, at start-up, into
// a FunctionRegistry; environments share the registry (it is immutable once
// handed to an Environment). The planner finds the candidate overloads of a
// call by name, call style (receiver `x.f(y)` or global `f(x, y)`) and arity;
// the evaluator picks the first candidate whose parameters accept the
// argument kinds (cel-go's dynamic dispatch, which is what an unchecked
// expression gets), or produces a "no matching overload" error value.
//
// How a library adds functions (the DRA environment does the same for
// quantity, semver and the device):
//
//   Value QuantityIsZero(std::span<const Value> args, CallContext& ctx) {
//     const auto& q = static_cast<const QuantityValue&>(args[0].opaque());
//     return Value::Bool(q.quantity().IsZero());
//   }
//   ...
//   DRA_RETURN_IF_ERROR(registry.Register({
//       .id = "quantity_is_zero",
//       .function = "isZero",
//       .receiver_style = true,
//       .params = {Param::Opaque("kubernetes.Quantity")},
//       .impl = QuantityIsZero,
//   }));
//
// An opaque type is an OpaqueObject subclass (value.h) with a type name;
// Param::Opaque(name) matches exactly the objects of that type. Equality of
// opaque values goes through OpaqueObject::Equals, field selection through
// OpaqueObject::GetField, so a type such as the DRA device needs no functions
// at all. Arguments are never errors: the evaluator returns an argument's
// error before calling (all registered functions are strict).
//
// Implementations must be thread-safe (they run concurrently for different
// evaluations), must not keep references to their arguments beyond the
// returned Value unless they hold a counted copy, and report CEL runtime
// errors by returning Value::Error(...). A function that builds a large
// result calls ctx.CheckAllocation() first, so that a hostile expression
// cannot exhaust memory.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cel/runtime/value.h"

namespace dra::cel {

class EvalState;

// What one parameter accepts.
class Param {
 public:
  // Any value (cel `dyn`).
  static Param Any() { return Param(true, ValueKind::kNull, {}); }
  static Param Of(ValueKind kind) { return Param(false, kind, {}); }
  // Opaque values whose type_name() is `type_name` (static storage).
  static Param Opaque(std::string_view type_name) { return Param(false, ValueKind::kOpaque, type_name); }

  bool Accepts(const Value& v) const {
    if (any_) return true;
    if (v.kind() != kind_) return false;
    if (kind_ != ValueKind::kOpaque || opaque_type_.empty()) return true;
    const std::string_view t = v.opaque().type_name();
    // Type names are usually the same constant: compare addresses first.
    return t.data() == opaque_type_.data() ? t.size() == opaque_type_.size() : t == opaque_type_;
  }
  bool is_any() const { return any_; }
  ValueKind kind() const { return kind_; }
  std::string_view opaque_type() const { return opaque_type_; }

 private:
  Param(bool any, ValueKind kind, std::string_view opaque_type) : any_(any), kind_(kind), opaque_type_(opaque_type) {}
  bool any_;
  ValueKind kind_;
  std::string_view opaque_type_;
};

// Passed to every function call: the per-evaluation state and what the
// overload was registered or prepared with.
class CallContext {
 public:
  CallContext(EvalState* state, const void* data, const void* prepared)
      : state_(state), data_(data), prepared_(prepared) {}

  // Overload::data, as registered.
  const void* data() const { return data_; }
  // What Overload::prepare returned for this call site, or nullptr when the
  // prepared argument was not a constant.
  const void* prepared() const { return prepared_; }

  // Accounts for a result of about `units` bytes (or 16 per list element)
  // about to be built. Returns false once the evaluation's allocation budget
  // is spent: the evaluation is then cancelled (Evaluate reports the cost
  // limit), and the function should return an error value without building
  // the result.
  bool CheckAllocation(uint64_t units);

 private:
  EvalState* state_;
  const void* data_;
  const void* prepared_;
};

// Implementation of one overload. `args` includes the receiver first for a
// receiver-style call; their kinds match the overload's params.
using FunctionImpl = Value (*)(std::span<const Value> args, CallContext& ctx);
// Runtime cost of one call (cel-go's CostTracker); nullptr means 1.
using CostFunction = uint64_t (*)(std::span<const Value> args, const Value& result);
// Plan-time preparation from a constant argument, e.g. compiling a regular
// expression once. Returns the prepared state (handed to the call as
// ctx.prepared()), or an error that makes the expression fail to plan (an
// invalid constant regex is a compile error in Kubernetes).
using PrepareFunction = StatusOr<std::shared_ptr<const void>> (*)(const Value& constant);

struct Overload {
  std::string id;        // unique, e.g. "add_int64" (cel-go's overload ids)
  std::string function;  // e.g. "_+_", "size", "charAt", "strings.quote"
  bool receiver_style = false;
  std::vector<Param> params;  // the receiver first for receiver-style calls
  FunctionImpl impl = nullptr;
  CostFunction cost = nullptr;
  // May be evaluated at plan time when every argument is a constant.
  bool pure = true;
  // If set, called at plan time when argument `prepare_arg` is a constant.
  PrepareFunction prepare = nullptr;
  int prepare_arg = -1;
  // Handed to impl as ctx.data().
  const void* data = nullptr;
};

class FunctionRegistry {
 public:
  FunctionRegistry() = default;
  FunctionRegistry(const FunctionRegistry&) = delete;
  FunctionRegistry& operator=(const FunctionRegistry&) = delete;

  // Adds `overload`. Returns kAlreadyExists if its id is taken or an overload
  // with the same function, style and parameters exists; kInvalidArgument if
  // it has no impl or no function name.
  Status Register(Overload overload);

  // The overloads of `function` with `arity` parameters (receiver included)
  // and the given style, in registration order. Pointers stay valid for the
  // life of the registry.
  std::vector<const Overload*> Find(std::string_view function, bool receiver_style, size_t arity) const;
  // Whether any overload of `function` exists.
  bool HasFunction(std::string_view function) const;

 private:
  std::map<std::string, std::vector<std::unique_ptr<Overload>>, std::less<>> functions_;
  std::map<std::string, bool, std::less<>> ids_;
};

}  // namespace dra::cel
