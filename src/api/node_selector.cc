#include "api/node_selector.h"

#include <charconv>
#include <string>

namespace dra::api {
namespace {

std::string Describe(const NodeSelectorRequirement& r) {
  return "requirement on \"" + r.key + "\" with operator \"" + r.operator_.text() + "\"";
}

StatusOr<int64_t> ParseInt(std::string_view s, const NodeSelectorRequirement& r) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return InvalidArgumentError(Describe(r) + ": value \"" + std::string(s) + "\" is not an integer");
  }
  return v;
}

StatusOr<bool> MatchExpression(const NodeSelectorRequirement& r, const FlatMap<std::string>& labels) {
  const std::string* value = labels.find(r.key);
  std::optional<NodeSelectorOperator> op = r.operator_.value();
  if (!op) return InvalidArgumentError(Describe(r) + ": unsupported operator");
  switch (*op) {
    case NodeSelectorOperator::kIn:
    case NodeSelectorOperator::kNotIn: {
      if (r.values.empty()) return InvalidArgumentError(Describe(r) + ": values must be non-empty");
      bool in = false;
      if (value != nullptr) {
        for (const std::string& v : r.values) in = in || v == *value;
      }
      return *op == NodeSelectorOperator::kIn ? in : !in;
    }
    case NodeSelectorOperator::kExists:
    case NodeSelectorOperator::kDoesNotExist:
      if (!r.values.empty()) return InvalidArgumentError(Describe(r) + ": values must be empty");
      return (*op == NodeSelectorOperator::kExists) == (value != nullptr);
    case NodeSelectorOperator::kGt:
    case NodeSelectorOperator::kLt: {
      if (r.values.size() != 1) {
        return InvalidArgumentError(Describe(r) + ": exactly one value is required");
      }
      DRA_ASSIGN_OR_RETURN(int64_t bound, ParseInt(r.values[0], r));
      if (value == nullptr) return false;
      int64_t actual = 0;
      auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), actual);
      if (ec != std::errc() || ptr != value->data() + value->size() || value->empty()) return false;
      return *op == NodeSelectorOperator::kGt ? actual > bound : actual < bound;
    }
  }
  return false;
}

StatusOr<bool> MatchField(const NodeSelectorRequirement& r, std::string_view node_name) {
  if (r.key != "metadata.name") {
    return InvalidArgumentError("field selector key \"" + r.key + "\" is not supported (only metadata.name)");
  }
  std::optional<NodeSelectorOperator> op = r.operator_.value();
  if (op != NodeSelectorOperator::kIn && op != NodeSelectorOperator::kNotIn) {
    return InvalidArgumentError(Describe(r) + ": field selectors support only In and NotIn");
  }
  if (r.values.size() != 1) {
    return InvalidArgumentError(Describe(r) + ": field selectors need exactly one value, got " +
                                std::to_string(r.values.size()));
  }
  bool equal = r.values[0] == node_name;
  return *op == NodeSelectorOperator::kIn ? equal : !equal;
}

}  // namespace

StatusOr<bool> MatchesNodeSelectorTerm(const NodeSelectorTerm& term, std::string_view node_name,
                                       const FlatMap<std::string>& labels) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  // Every requirement is validated even after a mismatch, so that a broken
  // selector is reported whatever the node.
  bool all = true;
  for (const NodeSelectorRequirement& r : term.match_expressions) {
    DRA_ASSIGN_OR_RETURN(bool ok, MatchExpression(r, labels));
    all = all && ok;
  }
  for (const NodeSelectorRequirement& r : term.match_fields) {
    DRA_ASSIGN_OR_RETURN(bool ok, MatchField(r, node_name));
    all = all && ok;
  }
  return all;
}

StatusOr<bool> MatchesNodeSelector(const NodeSelector& selector, std::string_view node_name,
                                   const FlatMap<std::string>& labels) {
  bool any = false;
  for (const NodeSelectorTerm& term : selector.node_selector_terms) {
    DRA_ASSIGN_OR_RETURN(bool ok, MatchesNodeSelectorTerm(term, node_name, labels));
    any = any || ok;
  }
  return any;
}

}  // namespace dra::api
