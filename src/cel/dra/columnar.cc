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
#include <unordered_map>
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
  // Over SliceColumns: kEquals, kIn: the values as a column holds them and
  // their type (DeviceAttribute::Type); kQuantity: the constant in exact
  // milli-units, when it has them.
  uint8_t column_type = 0;
  std::vector<int64_t> column_values;
  std::optional<int64_t> quantity_milli;
};

// Column tags: attributes hold the DeviceAttribute::Type; capacities one of
// kExactQuantity (the value in exact milli-units) or kInexactQuantity (read
// the device's Quantity).
constexpr uint8_t kAbsent = 0xff, kExactQuantity = 1, kInexactQuantity = 2;

struct SliceColumns::Column {
  bool capacity = false;
  api::InternedString qualified, bare;
  std::vector<uint8_t> tag;
  std::vector<int64_t> value;  // int; bool 0/1; a string's interned address; a version's index in `versions`
  std::vector<std::optional<lib::SemVer>> versions;  // the distinct version texts; nullopt: does not parse
  const Column* next = nullptr;
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

// A scalar attribute value as a column holds it (REQUIRES int, bool or string).
int64_t ColumnValue(const api::DeviceAttribute& a) {
  if (const int64_t* i = a.int_value()) return *i;
  if (const bool* b = a.bool_value()) return *b ? 1 : 0;
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(&a.string_value()->str()));
}

// `q` in milli-units when that is exact and fits.
std::optional<int64_t> ExactMilli(const quantity::Quantity& q) {
  const int64_t milli = q.ScaledValue(-3);
  if (quantity::Quantity::FromMilli(milli).Compare(q) != 0) return std::nullopt;
  return milli;
}

// Prepares `leaf` for evaluation over columns.
void PrepareForColumns(Leaf& leaf) {
  if (leaf.kind == Leaf::Kind::kEquals || leaf.kind == Leaf::Kind::kIn) {
    leaf.column_type = static_cast<uint8_t>(leaf.values.front().type());
    for (const api::DeviceAttribute& v : leaf.values) leaf.column_values.push_back(ColumnValue(v));
  }
  if (leaf.kind == Leaf::Kind::kQuantity) leaf.quantity_milli = ExactMilli(*leaf.quantity);
}

bool OwnDomain(api::InternedString qualified, std::string_view driver) {
  const std::string_view q = qualified.view();
  return q.substr(0, q.find('/')) == driver;
}

std::unique_ptr<SliceColumns::Column> BuildColumn(std::span<const api::Device> devices, std::string_view driver,
                                                  bool capacity, api::InternedString qualified,
                                                  api::InternedString bare) {
  auto column = std::make_unique<SliceColumns::Column>();
  column->capacity = capacity;
  column->qualified = qualified;
  column->bare = bare;
  column->tag.assign(devices.size(), kAbsent);
  column->value.assign(devices.size(), 0);
  const bool own_domain = OwnDomain(qualified, driver);
  uint32_t hint = 0;
  std::unordered_map<const std::string*, int64_t> version_index;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (capacity) {
      const api::DeviceCapacity* c = FindDeviceEntry(devices[i].capacity, qualified, bare, own_domain, hint);
      if (c == nullptr) continue;
      const std::optional<int64_t> milli = ExactMilli(c->value);
      column->tag[i] = milli ? kExactQuantity : kInexactQuantity;
      column->value[i] = milli.value_or(0);
      continue;
    }
    const api::DeviceAttribute* a = FindDeviceEntry(devices[i].attributes, qualified, bare, own_domain, hint);
    if (a == nullptr) continue;
    column->tag[i] = static_cast<uint8_t>(a->type());
    switch (a->type()) {
      case api::DeviceAttribute::Type::kInt:
      case api::DeviceAttribute::Type::kBool:
      case api::DeviceAttribute::Type::kString: column->value[i] = ColumnValue(*a); break;
      case api::DeviceAttribute::Type::kVersion: {
        const std::string* text = &a->version_value()->str();
        auto [it, added] = version_index.try_emplace(text, static_cast<int64_t>(column->versions.size()));
        if (added) {
          StatusOr<lib::SemVer> v = lib::SemVer::Parse(*text, false);
          column->versions.push_back(v.ok() ? std::optional<lib::SemVer>(*std::move(v)) : std::nullopt);
        }
        column->value[i] = it->second;
        break;
      }
      default: break;
    }
  }
  return column;
}

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

// One leaf over the columns of a slice, AND-ed into `acc` (internal verdicts).
// The loops are branch-free over the two arrays where the shape allows.
void EvaluateLeafColumns(const Leaf& leaf, const SliceColumns& columns, std::span<uint8_t> acc) {
  const size_t n = acc.size();
  if (leaf.kind == Leaf::Kind::kDriver || (leaf.kind == Leaf::Kind::kQuantity && !leaf.quantity_milli)) {
    EvaluateLeaf(leaf, columns.devices(), columns.driver(), acc);
    return;
  }
  const SliceColumns::Column& column = columns.Get(leaf.capacity, leaf.qualified, leaf.bare);
  const uint8_t* tag = column.tag.data();
  const int64_t* value = column.value.data();
  uint8_t* out = acc.data();
  switch (leaf.kind) {
    case Leaf::Kind::kEquals: {
      const uint8_t type = leaf.column_type;
      const int64_t want = leaf.column_values.front();
      const uint8_t hit = leaf.op == Op::kNe ? kF : kT, miss = leaf.op == Op::kNe ? kT : kF;
      for (size_t i = 0; i < n; ++i) {
        const uint8_t v = tag[i] != type ? kU : value[i] == want ? hit : miss;
        out[i] = std::min(out[i], v);
      }
      return;
    }
    case Leaf::Kind::kIn: {
      const uint8_t type = leaf.column_type;
      const std::span<const int64_t> want = leaf.column_values;
      for (size_t i = 0; i < n; ++i) {
        uint8_t v = kU;
        if (tag[i] == type) {
          v = kF;
          for (const int64_t w : want) v = value[i] == w ? kT : v;
        }
        out[i] = std::min(out[i], v);
      }
      return;
    }
    case Leaf::Kind::kQuantity: {
      const int64_t want = *leaf.quantity_milli;
      const uint8_t by_sign[3] = {Apply(leaf.op, -1, leaf.rhs) ? kT : kF, Apply(leaf.op, 0, leaf.rhs) ? kT : kF,
                                  Apply(leaf.op, 1, leaf.rhs) ? kT : kF};
      const bool own_domain = OwnDomain(leaf.qualified, columns.driver());
      uint32_t hint = 0;
      for (size_t i = 0; i < n; ++i) {
        uint8_t v = kU;
        if (tag[i] == kExactQuantity) {
          v = by_sign[(value[i] > want) - (value[i] < want) + 1];
        } else if (tag[i] == kInexactQuantity) {
          const api::DeviceCapacity* c =
              FindDeviceEntry(columns.devices()[i].capacity, leaf.qualified, leaf.bare, own_domain, hint);
          v = Apply(leaf.op, c->value.Compare(*leaf.quantity), leaf.rhs) ? kT : kF;
        }
        out[i] = std::min(out[i], v);
      }
      return;
    }
    case Leaf::Kind::kSemver: {
      // One compare per distinct version of the slice, then a lookup per device.
      std::array<uint8_t, 64> by_version{};
      const size_t distinct = column.versions.size();
      auto verdict = [&](size_t k) -> uint8_t {
        const std::optional<lib::SemVer>& have = column.versions[k];
        return !have ? kU : Apply(leaf.op, have->Compare(*leaf.semver), leaf.rhs) ? kT : kF;
      };
      for (size_t k = 0; k < std::min(distinct, by_version.size()); ++k) by_version[k] = verdict(k);
      constexpr uint8_t kVersion = static_cast<uint8_t>(api::DeviceAttribute::Type::kVersion);
      for (size_t i = 0; i < n; ++i) {
        uint8_t v = kU;
        if (tag[i] == kVersion) {
          const size_t k = static_cast<size_t>(value[i]);
          v = k < by_version.size() ? by_version[k] : verdict(k);
        }
        out[i] = std::min(out[i], v);
      }
      return;
    }
    case Leaf::Kind::kDriver: break;
  }
}

}  // namespace

SliceColumns::SliceColumns(std::span<const api::Device> devices, std::string_view driver)
    : devices_(devices), driver_(driver) {}
SliceColumns::~SliceColumns() = default;

const SliceColumns::Column& SliceColumns::Get(bool capacity, api::InternedString qualified,
                                              api::InternedString bare) const {
  auto find = [&](std::memory_order order) -> const Column* {
    for (const Column* c = head_.load(order); c != nullptr; c = c->next) {
      if (c->capacity == capacity && c->qualified == qualified && c->bare == bare) return c;
    }
    return nullptr;
  };
  if (const Column* c = find(std::memory_order_acquire)) return *c;
  std::lock_guard<std::mutex> lock(mu_);
  if (const Column* c = find(std::memory_order_relaxed)) return *c;
  std::unique_ptr<Column> column = BuildColumn(devices_, driver_, capacity, qualified, bare);
  column->next = head_.load(std::memory_order_relaxed);
  const Column* built = column.get();
  owned_.push_back(std::move(column));
  head_.store(built, std::memory_order_release);
  return *built;
}

const std::vector<uint8_t>* SliceColumns::Checks(int variant) const {
  return checks_[variant].load(std::memory_order_acquire);
}

const std::vector<uint8_t>& SliceColumns::BuildChecks(int variant,
                                                      const std::function<bool(const api::Device&)>& check) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (const std::vector<uint8_t>* built = checks_[variant].load(std::memory_order_relaxed)) return *built;
  auto checks = std::make_unique<std::vector<uint8_t>>(devices_.size());
  for (size_t i = 0; i < devices_.size(); ++i) (*checks)[i] = check(devices_[i]) ? 1 : 0;
  owned_checks_[variant] = std::move(checks);
  checks_[variant].store(owned_checks_[variant].get(), std::memory_order_release);
  return *owned_checks_[variant];
}

size_t SliceColumns::column_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return owned_.size();
}

ColumnarSelector::ColumnarSelector() = default;
ColumnarSelector::~ColumnarSelector() = default;
size_t ColumnarSelector::leaf_count() const { return leaves_.size(); }

std::unique_ptr<const ColumnarSelector> ColumnarSelector::New(const Expr& expr, size_t source_size,
                                                              std::optional<uint64_t> cost_limit) {
  if (cost_limit && source_size >= *cost_limit / 20) return nullptr;  // columnar.h invariant 3
  std::unique_ptr<ColumnarSelector> out(new ColumnarSelector());
  if (!ParseConjunction(expr, out->leaves_)) return nullptr;
  for (Leaf& leaf : out->leaves_) PrepareForColumns(leaf);
  return out;
}

namespace {

// Internal verdicts (F 0, U 1, T 2) to ColumnVerdicts (U 0, F 1, T 2).
void ToColumnVerdicts(std::span<uint8_t> out) {
  static constexpr uint8_t kToVerdict[3] = {kColumnFalse, kColumnUnknown, kColumnTrue};
  for (uint8_t& v : out) v = kToVerdict[v];
}

}  // namespace

void ColumnarSelector::Evaluate(std::span<const api::Device> devices, std::string_view driver,
                                std::span<uint8_t> out) const {
  std::fill(out.begin(), out.end(), kT);
  for (const Leaf& leaf : leaves_) EvaluateLeaf(leaf, devices, driver, out);
  ToColumnVerdicts(out);
}

void ColumnarSelector::Evaluate(const SliceColumns& columns, std::span<uint8_t> out) const {
  std::fill(out.begin(), out.end(), kT);
  for (const Leaf& leaf : leaves_) EvaluateLeafColumns(leaf, columns, out);
  ToColumnVerdicts(out);
}

}  // namespace dra::cel
