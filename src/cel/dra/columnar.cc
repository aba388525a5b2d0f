// Recognising the columnar shapes (columnar.h) in a parsed selector, and the
// loops that evaluate them over the devices of a slice.
//
// Evaluation works leaf by leaf: one pass over the devices per compare,
// combining into `out` with Kleene's three-valued AND. Internally the
// verdicts are ordered false < unknown < true, so AND is min(); they are
// converted to the ColumnVerdict numbers at the end.
#include "cel/dra/columnar.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "cel/lib/semver.h"
#include "cel/parser/operators.h"
#include "quantity/quantity.h"

namespace dra::cel {

namespace {

// Internal verdicts: AND is min().
constexpr uint8_t kF = 0, kU = 1, kT = 2;

enum class Op : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

bool Apply(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::kEq: return a == b;
    case Op::kNe: return a != b;
    case Op::kLt: return a < b;
    case Op::kLe: return a <= b;
    case Op::kGt: return a > b;
    case Op::kGe: return a >= b;
  }
  return false;
}

std::optional<Op> CompareOp(std::string_view function) {
  if (function == op::kEquals) return Op::kEq;
  if (function == op::kNotEquals) return Op::kNe;
  if (function == op::kLess) return Op::kLt;
  if (function == op::kLessEquals) return Op::kLe;
  if (function == op::kGreater) return Op::kGt;
  if (function == op::kGreaterEquals) return Op::kGe;
  return std::nullopt;
}

// A string key: the constant of `device.x["key"]` or the field of `.key`.
std::optional<std::string_view> Key(const Expr& e, const Expr** operand) {
  if (e.Is<SelectExpr>()) {
    const SelectExpr& s = e.select();
    if (s.test_only) return std::nullopt;
    *operand = &*s.operand;
    return s.field;
  }
  if (!e.Is<CallExpr>()) return std::nullopt;
  const CallExpr& c = e.call();
  if (c.function != op::kIndex || c.has_target() || c.args.size() != 2) return std::nullopt;
  if (!c.args[1].Is<Constant>() || c.args[1].constant().kind() != Constant::Kind::kString) {
    return std::nullopt;
  }
  *operand = &c.args[0];
  return c.args[1].constant().string_value();
}

bool IsDevice(const Expr& e) { return e.Is<IdentExpr>() && e.ident().name == "device"; }

}  // namespace

struct ColumnarSelector::Leaf {
  enum class Kind : uint8_t { kDriver, kEquals, kIn, kQuantity, kSemver };
  Kind kind = Kind::kDriver;
  // kDriver, kEquals, kIn: kEq or kNe (kIn: kEq). kQuantity, kSemver: how
  // compareTo()'s result compares with `rhs`.
  Op op = Op::kEq;
  int64_t rhs = 0;
  // The path (kEquals, kIn, kQuantity, kSemver).
  bool capacity = false;
  std::string domain;
  api::InternedString qualified, bare;
  // kDriver: the text; kEquals: one value; kIn: the list (one type: int,
  // bool or string; strings interned, so equal texts are equal pointers).
  std::string text;
  std::vector<api::DeviceAttribute> values;
  std::optional<quantity::Quantity> quantity;
  std::optional<lib::SemVer> semver;
};

namespace {

using Leaf = ColumnarSelector::Leaf;

// `device.attributes[domain][id]` or `device.capacity[domain][id]`, any mix
// of index and field syntax. Domains and ids with a '/' are left to the
// interpreter (the first '/' splits qualified names).
bool ParsePath(const Expr& e, Leaf& leaf) {
  const Expr* domain_expr = nullptr;
  const Expr* map_expr = nullptr;
  const Expr* device_expr = nullptr;
  std::optional<std::string_view> id = Key(e, &domain_expr);
  if (!id) return false;
  std::optional<std::string_view> domain = Key(*domain_expr, &map_expr);
  if (!domain || !map_expr->Is<SelectExpr>()) return false;
  const SelectExpr& map = map_expr->select();
  if (map.test_only || (map.field != "attributes" && map.field != "capacity")) return false;
  device_expr = &*map.operand;
  if (!IsDevice(*device_expr)) return false;
  if (id->empty() || domain->find('/') != std::string_view::npos || id->find('/') != std::string_view::npos) {
    return false;
  }
  leaf.capacity = map.field == "capacity";
  leaf.domain = std::string(*domain);
  leaf.qualified = api::InternedString(leaf.domain + "/" + std::string(*id));
  leaf.bare = api::InternedString(*id);
  return true;
}

std::optional<api::DeviceAttribute> AttributeConstant(const Expr& e) {
  if (!e.Is<Constant>()) return std::nullopt;
  const Constant& c = e.constant();
  switch (c.kind()) {
    case Constant::Kind::kString: return api::DeviceAttribute::String(c.string_value());
    case Constant::Kind::kInt: return api::DeviceAttribute::Int(c.int_value());
    case Constant::Kind::kBool: return api::DeviceAttribute::Bool(c.bool_value());
    default: return std::nullopt;
  }
}

// `target.fn(conversion("text"))` with conversion quantity or semver.
bool ParseCompareCall(const Expr& e, std::string_view* function, Leaf& leaf) {
  if (!e.Is<CallExpr>()) return false;
  const CallExpr& c = e.call();
  if (!c.has_target() || c.args.size() != 1) return false;
  if (c.function != "compareTo" && c.function != "isGreaterThan" && c.function != "isLessThan") {
    return false;
  }
  const Expr& arg = c.args[0];
  if (!arg.Is<CallExpr>()) return false;
  const CallExpr& conv = arg.call();
  if (conv.has_target() || conv.args.size() != 1 || !conv.args[0].Is<Constant>() ||
      conv.args[0].constant().kind() != Constant::Kind::kString) {
    return false;
  }
  const std::string& text = conv.args[0].constant().string_value();
  if (!ParsePath(*c.target, leaf)) return false;
  if (conv.function == "quantity" && leaf.capacity) {
    StatusOr<quantity::Quantity> q = quantity::Quantity::Parse(text);
    if (!q.ok()) return false;
    leaf.kind = Leaf::Kind::kQuantity;
    leaf.quantity = *std::move(q);
  } else if (conv.function == "semver" && !leaf.capacity) {
    StatusOr<lib::SemVer> v = lib::SemVer::Parse(text, false);
    if (!v.ok()) return false;
    leaf.kind = Leaf::Kind::kSemver;
    leaf.semver = *std::move(v);
  } else {
    return false;
  }
  *function = c.function;
  return true;
}

bool ParseLeaf(const Expr& e, Leaf& leaf) {
  if (!e.Is<CallExpr>()) return false;
  const CallExpr& c = e.call();
  if (c.has_target()) {
    // isGreaterThan / isLessThan
    std::string_view function;
    if (!ParseCompareCall(e, &function, leaf) || function == "compareTo") return false;
    leaf.op = function == "isGreaterThan" ? Op::kGt : Op::kLt;
    leaf.rhs = 0;
    return true;
  }
  if (c.args.size() != 2) return false;
  if (c.function == op::kIn) {
    if (!c.args[1].Is<ListExpr>() || !ParsePath(c.args[0], leaf) || leaf.capacity) return false;
    const ListExpr& list = c.args[1].list();
    if (!list.optional_indices.empty() || list.elements.empty()) return false;
    for (const Expr& element : list.elements) {
      std::optional<api::DeviceAttribute> v = AttributeConstant(element);
      if (!v || (!leaf.values.empty() && v->type() != leaf.values.front().type())) return false;
      leaf.values.push_back(*std::move(v));
    }
    leaf.kind = Leaf::Kind::kIn;
    return true;
  }
  std::optional<Op> cmp = CompareOp(c.function);
  if (!cmp) return false;
  // compareTo(...) <op> int
  std::string_view function;
  if (c.args[1].Is<Constant>() && c.args[1].constant().kind() == Constant::Kind::kInt &&
      ParseCompareCall(c.args[0], &function, leaf)) {
    if (function != "compareTo") return false;
    leaf.op = *cmp;
    leaf.rhs = c.args[1].constant().int_value();
    return true;
  }
  if (*cmp != Op::kEq && *cmp != Op::kNe) return false;
  leaf = Leaf{};
  leaf.op = *cmp;
  for (int side = 0; side < 2; ++side) {
    const Expr& path = c.args[static_cast<size_t>(side)];
    const Expr& constant = c.args[static_cast<size_t>(1 - side)];
    if (!constant.Is<Constant>()) continue;
    // device.driver
    if (path.Is<SelectExpr>() && !path.select().test_only && path.select().field == "driver" &&
        IsDevice(*path.select().operand)) {
      if (constant.constant().kind() != Constant::Kind::kString) return false;
      leaf.kind = Leaf::Kind::kDriver;
      leaf.text = constant.constant().string_value();
      return true;
    }
    std::optional<api::DeviceAttribute> v = AttributeConstant(constant);
    if (!v || !ParsePath(path, leaf) || leaf.capacity) return false;
    leaf.kind = Leaf::Kind::kEquals;
    leaf.values.push_back(*std::move(v));
    return true;
  }
  return false;
}

// Flattens a tree of && into `leaves`.
bool ParseConjunction(const Expr& e, std::vector<Leaf>& leaves) {
  if (e.Is<CallExpr>() && e.call().function == op::kLogicalAnd && !e.call().has_target() && e.call().args.size() == 2) {
    return ParseConjunction(e.call().args[0], leaves) && ParseConjunction(e.call().args[1], leaves);
  }
  Leaf leaf;
  if (!ParseLeaf(e, leaf)) return false;
  leaves.push_back(std::move(leaf));
  return true;
}

// The verdict of `==` between a device's attribute and the constant `want`,
// both of one of the scalar types: kU when the types differ.
uint8_t EqualsVerdict(const api::DeviceAttribute& have, const api::DeviceAttribute& want) {
  if (have.type() != want.type()) return kU;
  switch (want.type()) {
    case api::DeviceAttribute::Type::kString: return *have.string_value() == *want.string_value() ? kT : kF;
    case api::DeviceAttribute::Type::kInt: return *have.int_value() == *want.int_value() ? kT : kF;
    case api::DeviceAttribute::Type::kBool: return *have.bool_value() == *want.bool_value() ? kT : kF;
    default: return kU;
  }
}

uint8_t Not(uint8_t v) { return static_cast<uint8_t>(kT - v); }  // F<->T, U stays

// One leaf over the devices, AND-ed into `acc` (internal verdicts).
void EvaluateLeaf(const Leaf& leaf, std::span<const api::Device> devices, std::string_view driver,
                  std::span<uint8_t> acc) {
  const size_t n = devices.size();
  if (leaf.kind == Leaf::Kind::kDriver) {
    uint8_t v = driver == leaf.text ? kT : kF;
    if (leaf.op == Op::kNe) v = Not(v);
    for (size_t i = 0; i < n; ++i) acc[i] = std::min(acc[i], v);
    return;
  }
  const bool own_domain = leaf.domain == driver;
  uint32_t hint = 0;
  switch (leaf.kind) {
    case Leaf::Kind::kEquals: {
      const api::DeviceAttribute& want = leaf.values.front();
      for (size_t i = 0; i < n; ++i) {
        if (acc[i] == kF) continue;
        const api::DeviceAttribute* a =
            FindDeviceEntry(devices[i].attributes, leaf.qualified, leaf.bare, own_domain, hint);
        uint8_t v = a == nullptr ? kU : EqualsVerdict(*a, want);
        if (leaf.op == Op::kNe) v = Not(v);
        acc[i] = std::min(acc[i], v);
      }
      return;
    }
    case Leaf::Kind::kIn: {
      for (size_t i = 0; i < n; ++i) {
        if (acc[i] == kF) continue;
        const api::DeviceAttribute* a =
            FindDeviceEntry(devices[i].attributes, leaf.qualified, leaf.bare, own_domain, hint);
        uint8_t v = kU;
        if (a != nullptr && a->type() == leaf.values.front().type()) {
          v = kF;
          for (const api::DeviceAttribute& want : leaf.values) {
            if (EqualsVerdict(*a, want) == kT) {
              v = kT;
              break;
            }
          }
        }
        acc[i] = std::min(acc[i], v);
      }
      return;
    }
    case Leaf::Kind::kQuantity: {
      for (size_t i = 0; i < n; ++i) {
        if (acc[i] == kF) continue;
        const api::DeviceCapacity* c =
            FindDeviceEntry(devices[i].capacity, leaf.qualified, leaf.bare, own_domain, hint);
        uint8_t v = kU;
        if (c != nullptr) v = Apply(leaf.op, c->value.Compare(*leaf.quantity), leaf.rhs) ? kT : kF;
        acc[i] = std::min(acc[i], v);
      }
      return;
    }
    case Leaf::Kind::kSemver: {
      // Devices of a slice mostly share a few versions: remember the
      // verdicts of the last 8 distinct texts of this call (interned, so
      // equal texts are equal pointers) instead of parsing per device.
      struct Seen {
        const std::string* text = nullptr;
        uint8_t verdict = kU;
      };
      std::array<Seen, 8> seen{};
      size_t next = 0;
      for (size_t i = 0; i < n; ++i) {
        if (acc[i] == kF) continue;
        const api::DeviceAttribute* a =
            FindDeviceEntry(devices[i].attributes, leaf.qualified, leaf.bare, own_domain, hint);
        const api::InternedString* text = a == nullptr ? nullptr : a->version_value();
        uint8_t v = kU;
        if (text != nullptr) {
          const Seen* hit =
              std::find_if(seen.begin(), seen.end(), [&](const Seen& e) { return e.text == &text->str(); });
          if (hit == seen.end()) {
            StatusOr<lib::SemVer> have = lib::SemVer::Parse(text->view(), false);
            Seen& e = seen[next];
            next = (next + 1) % seen.size();
            e.text = &text->str();
            e.verdict = !have.ok() ? kU : Apply(leaf.op, have->Compare(*leaf.semver), leaf.rhs) ? kT : kF;
            hit = &e;
          }
          v = hit->verdict;
        }
        acc[i] = std::min(acc[i], v);
      }
      return;
    }
    case Leaf::Kind::kDriver: break;
  }
}

}  // namespace

ColumnarSelector::ColumnarSelector() = default;
ColumnarSelector::~ColumnarSelector() = default;
size_t ColumnarSelector::leaf_count() const { return leaves_.size(); }

std::unique_ptr<const ColumnarSelector> ColumnarSelector::New(const Expr& expr, size_t source_size,
                                                              std::optional<uint64_t> cost_limit) {
  if (cost_limit && source_size >= *cost_limit / 20) return nullptr;  // columnar.h invariant 3
  std::unique_ptr<ColumnarSelector> out(new ColumnarSelector());
  if (!ParseConjunction(expr, out->leaves_)) return nullptr;
  return out;
}

void ColumnarSelector::Evaluate(std::span<const api::Device> devices, std::string_view driver,
                                std::span<uint8_t> out) const {
  std::fill(out.begin(), out.end(), kT);
  for (const Leaf& leaf : leaves_) EvaluateLeaf(leaf, devices, driver, out);
  // Internal (F 0, U 1, T 2) to ColumnVerdict (U 0, F 1, T 2).
  static constexpr uint8_t kToVerdict[3] = {kColumnFalse, kColumnUnknown, kColumnTrue};
  for (uint8_t& v : out) v = kToVerdict[v];
}

}  // namespace dra::cel
