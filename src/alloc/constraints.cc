#include "alloc/constraints.h"

#include <algorithm>
#include <optional>
#include <set>

namespace dra::alloc {
namespace {

using Type = api::DeviceAttribute::Type;

// An attribute seen as a set (list mode): element type plus elements as text.
struct AttributeSet {
  Type element = Type::kNone;  // kInt, kBool, kString or kVersion
  std::set<std::string> values;
};

std::optional<AttributeSet> ToSet(const api::DeviceAttribute& a) {
  AttributeSet s;
  switch (a.type()) {
    case Type::kInt:
      s.element = Type::kInt;
      s.values.insert(std::to_string(*a.int_value()));
      break;
    case Type::kBool:
      s.element = Type::kBool;
      s.values.insert(*a.bool_value() ? "true" : "false");
      break;
    case Type::kString:
      s.element = Type::kString;
      s.values.insert(std::string(a.string_value()->view()));
      break;
    case Type::kVersion:
      s.element = Type::kVersion;
      s.values.insert(std::string(a.version_value()->view()));
      break;
    case Type::kInts:
      s.element = Type::kInt;
      for (int64_t v : *a.ints()) s.values.insert(std::to_string(v));
      break;
    case Type::kBools:
      s.element = Type::kBool;
      for (bool v : *a.bools()) s.values.insert(v ? "true" : "false");
      break;
    case Type::kStrings:
      s.element = Type::kString;
      for (const auto& v : *a.strings()) s.values.insert(std::string(v.view()));
      break;
    case Type::kVersions:
      s.element = Type::kVersion;
      for (const auto& v : *a.versions()) s.values.insert(std::string(v.view()));
      break;
    case Type::kNone: return std::nullopt;
  }
  // An empty list is no set at all (upstream: unknown attribute type).
  if (s.values.empty()) return std::nullopt;
  return s;
}

AttributeSet Intersect(const AttributeSet& a, const AttributeSet& b) {
  AttributeSet out{.element = a.element, .values = {}};
  if (a.element != b.element) return out;
  std::set_intersection(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                        std::inserter(out.values, out.values.end()));
  return out;
}

bool IsScalar(const api::DeviceAttribute& a) {
  Type t = a.type();
  return t == Type::kInt || t == Type::kBool || t == Type::kString || t == Type::kVersion;
}

// Scalar equality: same scalar type and value (versions as plain strings).
bool ScalarEqual(const api::DeviceAttribute& a, const api::DeviceAttribute& b) {
  if (!IsScalar(a) || a.type() != b.type()) return false;
  return a == b;
}

class ConstraintBase : public Constraint {
 public:
  ConstraintBase(std::vector<std::string> requests, std::string attribute)
      : requests_(std::move(requests)), attribute_(std::move(attribute)), full_name_(attribute_) {
    const size_t slash = attribute_.find('/');
    if (slash != std::string::npos) {
      domain_ = std::string_view(attribute_).substr(0, slash);
      short_name_ = api::InternedString(std::string_view(attribute_).substr(slash + 1));
    }
  }

 public:
  const std::string& attribute_name() const override { return attribute_; }

  bool Applies(std::string_view request, std::string_view subrequest) const override {
    if (requests_.empty()) return true;
    for (const std::string& r : requests_) {
      if (r == request) return true;
      if (!subrequest.empty() && r.size() == request.size() + 1 + subrequest.size() &&
          std::string_view(r).substr(0, request.size()) == request && r[request.size()] == '/' &&
          std::string_view(r).substr(request.size() + 1) == subrequest) {
        return true;
      }
    }
    return false;
  }

 protected:
  // The constrained attribute of `device` when the constraint applies to
  // (request, subrequest): kSkip if it does not apply, kMissing if the device
  // lacks the attribute, else kFound with `*out` set.
  enum class Lookup { kSkip, kMissing, kFound };
  Lookup Find(std::string_view request, std::string_view subrequest, const api::Device& device, std::string_view driver,
              const api::DeviceAttribute** out) const {
    if (!Applies(request, subrequest)) return Lookup::kSkip;
    *out = Attribute(device, driver);
    return *out == nullptr ? Lookup::kMissing : Lookup::kFound;
  }

  // LookupAttribute(device, driver, attribute_), with the names interned once:
  // attribute keys are interned, so a key equals a name exactly when they are
  // the same pointer (no string compares per device).
  const api::DeviceAttribute* Attribute(const api::Device& device, std::string_view driver) const {
    for (const auto& [key, value] : device.attributes) {
      if (key == full_name_) return &value;
    }
    if (short_name_.empty() || driver != domain_) return nullptr;
    for (const auto& [key, value] : device.attributes) {
      if (key == short_name_) return &value;
    }
    return nullptr;
  }

  std::vector<std::string> requests_;
  std::string attribute_;
  api::InternedString full_name_;
  std::string_view domain_;         // of attribute_, before its '/'; empty without one
  api::InternedString short_name_;  // after the '/'; empty without one
};

class MatchAttribute final : public ConstraintBase {
 public:
  MatchAttribute(std::vector<std::string> requests, std::string attribute, bool list_mode)
      : ConstraintBase(std::move(requests), std::move(attribute)), list_mode_(list_mode) {}

  bool Add(std::string_view request, std::string_view subrequest, const api::Device& device,
           std::string_view driver) override {
    const api::DeviceAttribute* a = nullptr;
    if (Lookup l = Find(request, subrequest, device, driver, &a); l != Lookup::kFound) return l == Lookup::kSkip;
    return AddAttribute(*a);
  }

  bool AddAttribute(const api::DeviceAttribute& attribute) override {
    const api::DeviceAttribute* a = &attribute;
    if (list_mode_) {
      std::optional<AttributeSet> set = ToSet(*a);
      if (!set) return false;
      if (count_ == 0) {
        intersections_.push_back(std::move(*set));
      } else {
        AttributeSet narrowed = Intersect(intersections_.back(), *set);
        if (narrowed.values.empty()) return false;
        intersections_.push_back(std::move(narrowed));
      }
    } else if (count_ == 0) {
      reference_ = a;
    } else if (!ScalarEqual(*a, *reference_)) {
      return false;
    }
    ++count_;
    return true;
  }

  void Remove(std::string_view request, std::string_view subrequest, const api::Device&, std::string_view) override {
    if (!Applies(request, subrequest)) return;
    --count_;
    // Back to the intersection before the removed device.
    if (list_mode_) intersections_.pop_back();
  }

 private:
  bool list_mode_;
  int count_ = 0;
  const api::DeviceAttribute* reference_ = nullptr;  // scalar mode: the first device's value
  std::vector<AttributeSet> intersections_;          // list mode: one per device added
};

class DistinctAttribute final : public ConstraintBase {
 public:
  DistinctAttribute(std::vector<std::string> requests, std::string attribute, bool list_mode)
      : ConstraintBase(std::move(requests), std::move(attribute)), list_mode_(list_mode) {}

  bool Add(std::string_view request, std::string_view subrequest, const api::Device& device,
           std::string_view driver) override {
    const api::DeviceAttribute* a = nullptr;
    if (Lookup l = Find(request, subrequest, device, driver, &a); l != Lookup::kFound) return l == Lookup::kSkip;
    return AddAttribute(*a);
  }

  bool AddAttribute(const api::DeviceAttribute& attribute) override {
    const api::DeviceAttribute* a = &attribute;
    if (list_mode_) {
      // Pairwise disjoint with every device added so far.
      std::optional<AttributeSet> mine = ToSet(*a);
      if (!mine) return false;
      for (const AttributeSet& theirs : added_sets_) {
        if (!Intersect(*mine, theirs).values.empty()) return false;
      }
      added_sets_.push_back(std::move(*mine));
      return true;
    }
    // Distinct from every device added so far (the first may be anything).
    for (const api::DeviceAttribute* stored : added_) {
      if (!IsScalar(*a)) return false;
      if (ScalarEqual(*a, *stored)) return false;
    }
    added_.push_back(a);
    return true;
  }

  void Remove(std::string_view request, std::string_view subrequest, const api::Device&, std::string_view) override {
    if (!Applies(request, subrequest)) return;
    // Calls are LIFO.
    if (list_mode_) {
      added_sets_.pop_back();
    } else {
      added_.pop_back();
    }
  }

 private:
  bool list_mode_;
  // Scalar mode: the attributes of the devices added, in order. They point
  // into the slices, which outlive the Allocate call.
  std::vector<const api::DeviceAttribute*> added_;
  // List mode: the same, already converted to sets.
  std::vector<AttributeSet> added_sets_;
};

}  // namespace

const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver, std::string_view name) {
  if (const api::DeviceAttribute* a = device.attributes.find(name)) return a;
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return nullptr;
  if (name.substr(0, slash) != driver) return nullptr;
  return device.attributes.find(name.substr(slash + 1));
}

std::unique_ptr<Constraint> NewConstraint(const api::DeviceConstraint& spec, bool list_mode) {
  if (spec.match_attribute) {
    return std::make_unique<MatchAttribute>(spec.requests, *spec.match_attribute, list_mode);
  }
  if (spec.distinct_attribute) {
    return std::make_unique<DistinctAttribute>(spec.requests, *spec.distinct_attribute, list_mode);
  }
  return nullptr;
}

}  // namespace dra::alloc
