#include "cel/runtime/function_registry.h"

namespace dra::cel {

namespace {

bool SameParams(const std::vector<Param>& a, const std::vector<Param>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_any() != b[i].is_any() || a[i].kind() != b[i].kind() || a[i].opaque_type() != b[i].opaque_type()) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status FunctionRegistry::Register(Overload overload) {
  if (overload.impl == nullptr || overload.function.empty()) {
    return InvalidArgumentError("overload '" + overload.id + "' has no function name or impl");
  }
  if (ids_.count(overload.id) > 0) {
    return AlreadyExistsError("overload id '" + overload.id + "' is already registered");
  }
  auto& list = functions_[overload.function];
  for (const auto& existing : list) {
    if (existing->receiver_style == overload.receiver_style && SameParams(existing->params, overload.params)) {
      return AlreadyExistsError("overload '" + overload.id + "' has the signature of '" + existing->id + "'");
    }
  }
  ids_[overload.id] = true;
  list.push_back(std::make_unique<Overload>(std::move(overload)));
  return OkStatus();
}

std::vector<const Overload*> FunctionRegistry::Find(std::string_view function, bool receiver_style,
                                                    size_t arity) const {
  std::vector<const Overload*> out;
  auto it = functions_.find(function);
  if (it == functions_.end()) return out;
  for (const auto& o : it->second) {
    if (o->receiver_style == receiver_style && o->params.size() == arity) out.push_back(o.get());
  }
  return out;
}

bool FunctionRegistry::HasFunction(std::string_view function) const {
  return functions_.find(function) != functions_.end();
}

}  // namespace dra::cel
