// The DRA selector environment: compile-time checks of the `device`
// variable's shape, the view objects that expose an api::Device to CEL, and
// the compile cache.
//
// Object model of one evaluation (all owned by the EvalScratch, borrowed by
// the Values the evaluator handles, reset before the next evaluation):
//
//   DeviceObject            `device`               fields: driver, attributes,
//                                                   capacity, allowMultipleAllocations
//   DomainsMap (x2)         device.attributes /    outer maps: domain -> DomainMap;
//                           device.capacity        unknown domains -> empty DomainMap
//   DomainMap (pool)        device.attributes[d]   the device's entries whose
//                                                   qualified name is in domain d
//   AttributeList (pool)    a list attribute       view of the api vector
//   QuantityValue (pool)    a capacity value       view of api::DeviceCapacity::value
//   SemverCache             version attributes     parsed once per interned text
//
// Why pools rather than fresh objects: a Value may only borrow what outlives
// the evaluation, and allocating per device would cost more than the
// evaluation itself. Pools grow to the largest number of objects one
// evaluation needed and are reused after that.
#include "cel/dra/dra_env.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <functional>

#include "base/release.h"
#include "cel/parser/parser.h"

namespace dra::cel {

std::pair<std::string_view, std::string_view> SplitQualifiedName(std::string_view name, std::string_view driver) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

namespace internal {

namespace {

constexpr std::string_view kDeviceTypeName = "kubernetes.DRADevice";
constexpr std::string_view kDeviceVariable = "device";

uint64_t NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// What a constant path below `device` was prepared into at compile time.
struct DevicePath {
  enum class Kind : uint8_t { kDriver, kDomain, kEntry };
  // Unique for the life of the process (a later path may reuse the memory of
  // a freed one; the scratch's hints must not confuse them).
  uint64_t id = NextId();
  Kind kind = Kind::kDriver;
  bool capacity = false;  // device.capacity rather than device.attributes
  std::string domain;
  // kEntry: the keys `device.<map>[domain][id]` can be stored under.
  api::InternedString qualified;  // "<domain>/<id>"
  api::InternedString bare;       // "<id>", valid when has_bare
  bool has_bare = false;
};

std::optional<std::string_view> StringKey(const PathStep& step) {
  if (!step.key.is_string()) return std::nullopt;
  return step.key.string_value();
}

// PathPreparer of the DRA environment.
std::shared_ptr<const void> PrepareDevicePath(std::string_view variable, std::span<const PathStep> steps) {
  if (variable != kDeviceVariable || steps.empty() || steps[0].is_index) return nullptr;
  const std::string_view field = steps[0].key.string_value();
  auto path = std::make_shared<DevicePath>();
  if (field == "driver" && steps.size() == 1) return path;
  if (field != "attributes" && field != "capacity") return nullptr;
  path->capacity = field == "capacity";
  if (steps.size() < 2 || steps.size() > 3) return nullptr;
  std::optional<std::string_view> domain = StringKey(steps[1]);
  // A domain with a '/' names no entry (the first '/' splits), so let the
  // step-by-step walk handle it.
  if (!domain || domain->find('/') != std::string_view::npos) return nullptr;
  path->domain = std::string(*domain);
  if (steps.size() == 2) {
    path->kind = DevicePath::Kind::kDomain;
    return path;
  }
  std::optional<std::string_view> id = StringKey(steps[2]);
  if (!id) return nullptr;
  path->kind = DevicePath::Kind::kEntry;
  path->qualified = api::InternedString(path->domain + "/" + std::string(*id));
  path->has_bare = id->find('/') == std::string_view::npos;
  if (path->has_bare) path->bare = api::InternedString(*id);
  return path;
}

}  // namespace

class DraScratch;

class DomainMap final : public MapObject {
 public:
  explicit DomainMap(DraScratch* s) : s_(s) {}
  ~DomainMap() override = default;

  void Init(bool capacity, std::string_view domain);
  bool capacity() const { return capacity_; }
  const std::string& domain() const { return domain_; }

  size_t size() const override { return entries_.size(); }
  std::optional<Value> Find(const Value& key) const override;
  Value KeyAt(size_t index) const override;
  Value ValueAt(size_t index) const override;

 private:
  std::string_view IdAt(size_t index) const;

  DraScratch* s_;
  bool capacity_ = false;
  std::string domain_;
  std::vector<uint32_t> entries_;  // indexes into the device's attribute/capacity map
};

class DomainsMap final : public MapObject {
 public:
  DomainsMap(DraScratch* s, bool capacity) : s_(s), capacity_(capacity) {}
  ~DomainsMap() override = default;

  size_t size() const override;
  std::optional<Value> Find(const Value& key) const override;
  bool Contains(const Value& key) const override;
  Value KeyAt(size_t index) const override;
  Value ValueAt(size_t index) const override;

 private:
  DraScratch* s_;
  bool capacity_;
};

class AttributeList final : public ListObject {
 public:
  explicit AttributeList(DraScratch* s) : s_(s) {}
  ~AttributeList() override = default;
  void Init(const api::DeviceAttribute* attr) { attr_ = attr; }
  const api::DeviceAttribute& attribute() const { return *attr_; }
  size_t size() const override;
  Value Get(size_t index) const override;

 private:
  DraScratch* s_;
  const api::DeviceAttribute* attr_ = nullptr;
};

class DeviceObject final : public OpaqueObject {
 public:
  explicit DeviceObject(DraScratch* s) : s_(s) {}
  ~DeviceObject() override = default;
  std::string_view type_name() const override { return kDeviceTypeName; }
  std::optional<Value> GetField(std::string_view field) const override;
  bool ResolvePath(std::span<const PathStep> steps, const void* prepared, Value* out) const override;
  std::string DebugString() const override;

 private:
  DraScratch* s_;
};

// Parsed version strings, by the address of their interned text (which
// never moves or dies: api/intern.h). Direct-mapped, so a lookup is one
// multiply and one compare; a colliding text evicts the older entry, whose
// object is kept until the next evaluation in case a Value still borrows it.
class SemverCache {
 public:
  struct Entry {
    const std::string* key = nullptr;
    RefPtr<SemverValue> value;  // null when the text is not a version
    std::string error;          // "parse semantic version: ..." when null
  };

  const Entry& Lookup(const api::InternedString& text) {
    const std::string* key = &text.str();
    Entry& e = entries_[(reinterpret_cast<uintptr_t>(key) * 0x9E3779B97F4A7C15ULL) >> 56];
    if (e.key == key) [[likely]]
      return e;
    return Fill(e, text);
  }
  void EndEvaluation() {
    if (!evicted_.empty()) evicted_.clear();
  }

 private:
  [[gnu::noinline]] const Entry& Fill(Entry& e, const api::InternedString& text) {
    const std::string* key = &text.str();
    if (e.value) evicted_.push_back(std::move(e.value));
    e.key = key;
    StatusOr<lib::SemVer> v = lib::SemVer::Parse(text.view());
    if (v.ok()) {
      e.value = MakeRef<SemverValue>(*std::move(v));
      e.error.clear();
    } else {
      e.value = RefPtr<SemverValue>();
      e.error = "parse semantic version: " + std::string(v.status().message());
    }
    return e;
  }

  std::array<Entry, 256> entries_;
  std::vector<RefPtr<SemverValue>> evicted_;
};

class DraScratch {
 public:
  DraScratch() : device_object(this), attributes(this, false), capacity(this, true) {}

  void Reset(const api::Device* d, std::string_view drv, const DraEnvOptions& options) {
    device = d;
    driver = drv;
    list_values = options.list_values();
    allow_multi_declared = options.allow_multiple_allocations_declared();
    domain_maps_used = 0;
    lists_used = 0;
    quantities_used = 0;
    domains_valid[0] = domains_valid[1] = false;
    semvers.EndEvaluation();
  }

  // Upstream converts every attribute before evaluating (DeviceMatches):
  // any that does not convert fails the evaluation, whatever the selector.
  Status CheckAttributes() {
    for (const auto& [name, attr] : device->attributes) {
      switch (attr.type()) {
        case api::DeviceAttribute::Type::kInt:
        case api::DeviceAttribute::Type::kBool:
        case api::DeviceAttribute::Type::kString: break;
        case api::DeviceAttribute::Type::kVersion: {
          const SemverCache::Entry& e = semvers.Lookup(*attr.version_value());
          if (!e.value) return FailedPreconditionError("attribute " + name.str() + ": " + e.error);
          break;
        }
        case api::DeviceAttribute::Type::kNone:
          return FailedPreconditionError("attribute " + name.str() + ": unsupported attribute value");
        default:
          if (!list_values) {
            return FailedPreconditionError("attribute " + name.str() + ": unsupported attribute value");
          }
          if (const std::vector<api::InternedString>* versions = attr.versions()) {
            for (const api::InternedString& v : *versions) {
              const SemverCache::Entry& e = semvers.Lookup(v);
              if (!e.value) {
                return FailedPreconditionError("attribute " + name.str() + ": " + e.error);
              }
            }
          }
          break;
      }
    }
    return OkStatus();
  }

  // Inlined into ResolvePath for the scalar kinds; the rest is out of line.
  Value AttributeValue(const api::DeviceAttribute& a) {
    switch (a.type()) {
      case api::DeviceAttribute::Type::kInt: return Value::Int(*a.int_value());
      case api::DeviceAttribute::Type::kBool: return Value::Bool(*a.bool_value());
      case api::DeviceAttribute::Type::kString: return Value::StringView(a.string_value()->view());
      default: return OtherAttributeValue(a);
    }
  }

  [[gnu::noinline]] Value OtherAttributeValue(const api::DeviceAttribute& a) {
    switch (a.type()) {
      case api::DeviceAttribute::Type::kInt: return Value::Int(*a.int_value());
      case api::DeviceAttribute::Type::kBool: return Value::Bool(*a.bool_value());
      case api::DeviceAttribute::Type::kString: return Value::StringView(a.string_value()->view());
      case api::DeviceAttribute::Type::kVersion: return Semver(*a.version_value());
      case api::DeviceAttribute::Type::kNone: return Value::Error("unsupported attribute value");
      default: {
        AttributeList* list = Take(lists, lists_used, this);
        list->Init(&a);
        return Value::BorrowList(list);
      }
    }
  }

  Value Semver(const api::InternedString& text) {
    const SemverCache::Entry& e = semvers.Lookup(text);
    if (!e.value) return Value::Error(e.error);
    return Value::BorrowOpaque(e.value.get());
  }

  Value CapacityValue(const api::DeviceCapacity& c) {
    QuantityValue* q = Take(quantities, quantities_used, &c.value);
    q->set_view(&c.value);
    return Value::BorrowOpaque(q);
  }

  // The entry `device.<map>[path.domain][id]` by its interned keys. When a
  // device lists both `id` and `<driver>/id` (upstream then picks one at
  // random), the bare name wins; DomainMap follows the same rule.
  //
  // Devices of one driver publish the same names in the same order, so the
  // position found last time for this path is tried first: usually one
  // comparison instead of a scan.
  template <typename Map>
  const typename Map::mapped_type* FindEntry(const Map& map, const DevicePath& path) {
    PathHint& hint = hints[(reinterpret_cast<uintptr_t>(&path) >> 4) % hints.size()];
    if (hint.path_id != path.id) {
      hint.path_id = path.id;
      hint.index = 0;
    }
    const bool own_domain = path.has_bare && path.domain == driver;
    return FindDeviceEntry(map, path.qualified, path.bare, own_domain, hint.index);
  }

  // The inner map of `domain`, shared by every lookup of it in this evaluation.
  DomainMap* Domain(bool cap, std::string_view domain) {
    for (size_t i = 0; i < domain_maps_used; ++i) {
      DomainMap* m = domain_maps[i].get();
      if (m->capacity() == cap && m->domain() == domain) return m;
    }
    DomainMap* m = Take(domain_maps, domain_maps_used, this);
    m->Init(cap, domain);
    return m;
  }

  // The distinct domains of the attribute (cap false) or capacity map.
  const std::vector<std::string_view>& Domains(bool cap) {
    std::vector<std::string_view>& out = domains[cap ? 1 : 0];
    if (domains_valid[cap ? 1 : 0]) return out;
    out.clear();
    const auto add = [&](std::string_view key) {
      const std::string_view d = SplitQualifiedName(key, driver).first;
      if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    };
    if (cap) {
      for (const auto& [key, value] : device->capacity) add(key.view());
    } else {
      for (const auto& [key, value] : device->attributes) add(key.view());
    }
    domains_valid[cap ? 1 : 0] = true;
    return out;
  }

  template <typename T, typename... Args>
  static T* Take(std::vector<std::unique_ptr<T>>& pool, size_t& used, Args... args) {
    if (used == pool.size()) pool.push_back(std::make_unique<T>(args...));
    return pool[used++].get();
  }

  EvalState state;
  const api::Device* device = nullptr;
  std::string_view driver;
  bool list_values = true;
  bool allow_multi_declared = true;

  DeviceObject device_object;
  DomainsMap attributes;
  DomainsMap capacity;
  std::vector<std::unique_ptr<DomainMap>> domain_maps;
  size_t domain_maps_used = 0;
  std::vector<std::unique_ptr<AttributeList>> lists;
  size_t lists_used = 0;
  std::vector<std::unique_ptr<QuantityValue>> quantities;
  size_t quantities_used = 0;
  std::vector<std::string_view> domains[2];
  bool domains_valid[2] = {false, false};
  SemverCache semvers;
  struct PathHint {
    uint64_t path_id = 0;
    uint32_t index = 0;
  };
  std::array<PathHint, 32> hints;
};

// --- DomainMap ---------------------------------------------------------------------

void DomainMap::Init(bool capacity, std::string_view domain) {
  capacity_ = capacity;
  domain_.assign(domain);
  entries_.clear();
  bool qualified_own = false;  // `<driver>/id` names in the driver's domain
  uint32_t index = 0;
  const auto add = [&](std::string_view key) {
    if (SplitQualifiedName(key, s_->driver).first == domain_) {
      entries_.push_back(index);
      qualified_own = qualified_own || (domain_ == s_->driver && key.find('/') != key.npos);
    }
    ++index;
  };
  if (capacity_) {
    for (const auto& [key, value] : s_->device->capacity) add(key.view());
  } else {
    for (const auto& [key, value] : s_->device->attributes) add(key.view());
  }
  if (!qualified_own) return;
  // Both `id` and `<driver>/id`: keep the bare one (see DraScratch::FindEntry).
  const auto key_at = [&](uint32_t i) {
    return capacity_ ? (s_->device->capacity.begin() + i)->first.view()
                     : (s_->device->attributes.begin() + i)->first.view();
  };
  std::vector<uint32_t> kept;
  for (uint32_t i : entries_) {
    const std::string_view key = key_at(i);
    const size_t slash = key.find('/');
    bool shadowed = false;
    if (slash != key.npos) {
      for (uint32_t j : entries_) shadowed = shadowed || key_at(j) == key.substr(slash + 1);
    }
    if (!shadowed) kept.push_back(i);
  }
  entries_ = std::move(kept);
}

std::string_view DomainMap::IdAt(size_t index) const {
  const uint32_t i = entries_[index];
  const std::string_view key =
      capacity_ ? (s_->device->capacity.begin() + i)->first.view() : (s_->device->attributes.begin() + i)->first.view();
  return SplitQualifiedName(key, s_->driver).second;
}

std::optional<Value> DomainMap::Find(const Value& key) const {
  if (!key.is_string()) return std::nullopt;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (IdAt(i) == key.string_value()) return ValueAt(i);
  }
  return std::nullopt;
}

Value DomainMap::KeyAt(size_t index) const { return Value::StringView(IdAt(index)); }

Value DomainMap::ValueAt(size_t index) const {
  const uint32_t i = entries_[index];
  if (capacity_) return s_->CapacityValue((s_->device->capacity.begin() + i)->second);
  return s_->AttributeValue((s_->device->attributes.begin() + i)->second);
}

// --- DomainsMap --------------------------------------------------------------------

size_t DomainsMap::size() const { return s_->Domains(capacity_).size(); }

// Any key finds a map: unknown domains read as empty (upstream's
// newStringInterfaceMapWithDefault). A non-string key can name no domain.
std::optional<Value> DomainsMap::Find(const Value& key) const {
  return Value::BorrowMap(s_->Domain(capacity_, key.is_string() ? key.string_value() : "\x01"));
}

bool DomainsMap::Contains(const Value& key) const {
  if (!key.is_string()) return false;
  const std::vector<std::string_view>& d = s_->Domains(capacity_);
  return std::find(d.begin(), d.end(), key.string_value()) != d.end();
}

Value DomainsMap::KeyAt(size_t index) const { return Value::StringView(s_->Domains(capacity_)[index]); }

Value DomainsMap::ValueAt(size_t index) const {
  return Value::BorrowMap(s_->Domain(capacity_, s_->Domains(capacity_)[index]));
}

// --- AttributeList -----------------------------------------------------------------

size_t AttributeList::size() const {
  switch (attr_->type()) {
    case api::DeviceAttribute::Type::kInts: return attr_->ints()->size();
    case api::DeviceAttribute::Type::kBools: return attr_->bools()->size();
    case api::DeviceAttribute::Type::kStrings: return attr_->strings()->size();
    case api::DeviceAttribute::Type::kVersions: return attr_->versions()->size();
    default: return 0;
  }
}

Value AttributeList::Get(size_t index) const {
  switch (attr_->type()) {
    case api::DeviceAttribute::Type::kInts: return Value::Int((*attr_->ints())[index]);
    case api::DeviceAttribute::Type::kBools: return Value::Bool((*attr_->bools())[index]);
    case api::DeviceAttribute::Type::kStrings: return Value::StringView((*attr_->strings())[index].view());
    case api::DeviceAttribute::Type::kVersions: return s_->Semver((*attr_->versions())[index]);
    default: return Value();
  }
}

// --- DeviceObject ------------------------------------------------------------------

std::optional<Value> DeviceObject::GetField(std::string_view field) const {
  if (field == "driver") return Value::StringView(s_->driver);
  if (field == "attributes") return Value::BorrowMap(&s_->attributes);
  if (field == "capacity") return Value::BorrowMap(&s_->capacity);
  if (field == "allowMultipleAllocations" && s_->allow_multi_declared) {
    return Value::Bool(s_->device->allow_multiple_allocations.value_or(false));
  }
  return std::nullopt;
}

bool DeviceObject::ResolvePath(std::span<const PathStep>, const void* prepared, Value* out) const {
  if (prepared == nullptr) return false;
  const auto& path = *static_cast<const DevicePath*>(prepared);
  switch (path.kind) {
    case DevicePath::Kind::kDriver: *out = Value::StringView(s_->driver); return true;
    case DevicePath::Kind::kDomain: *out = Value::BorrowMap(s_->Domain(path.capacity, path.domain)); return true;
    case DevicePath::Kind::kEntry: {
      if (path.capacity) {
        const api::DeviceCapacity* c = s_->FindEntry(s_->device->capacity, path);
        if (c == nullptr) return false;
        *out = s_->CapacityValue(*c);
        return true;
      }
      const api::DeviceAttribute* a = s_->FindEntry(s_->device->attributes, path);
      if (a == nullptr || a->type() == api::DeviceAttribute::Type::kNone) return false;
      *out = s_->AttributeValue(*a);
      return !out->is_error();
    }
  }
  return false;
}

std::string DeviceObject::DebugString() const { return "device of driver \"" + std::string(s_->driver) + "\""; }

}  // namespace internal

std::string_view GoValueTypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "structpb.NullValue";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int64";
    case ValueKind::kUint: return "uint64";
    case ValueKind::kDouble: return "float64";
    case ValueKind::kString:
    case ValueKind::kType: return "string";
    case ValueKind::kBytes: return "[]uint8";
    case ValueKind::kOptional: return v.has_optional_value() ? GoValueTypeName(v.optional_value()) : "<nil>";
    case ValueKind::kError: return "*types.Err";
    case ValueKind::kList: {
      // A list attribute is its api slice ([]cel.Semver: upstream wraps each
      // version); every other list here is built by the evaluator.
      const auto* attr = dynamic_cast<const internal::AttributeList*>(&v.list());
      if (attr == nullptr) return "[]ref.Val";
      switch (attr->attribute().type()) {
        case api::DeviceAttribute::Type::kInts: return "[]int64";
        case api::DeviceAttribute::Type::kBools: return "[]bool";
        case api::DeviceAttribute::Type::kStrings: return "[]string";
        case api::DeviceAttribute::Type::kVersions: return "[]cel.Semver";
        default: return "[]ref.Val";
      }
    }
    case ValueKind::kMap: {
      // device.attributes, device.capacity and their domains are Go maps of
      // interface values, but for a capacity domain that the device has
      // (an unknown domain reads as the shared empty map[string]any).
      if (const auto* domain = dynamic_cast<const internal::DomainMap*>(&v.map())) {
        return domain->capacity() && domain->size() > 0 ? "map[string]cel.Quantity" : "map[string]interface {}";
      }
      if (dynamic_cast<const internal::DomainsMap*>(&v.map()) != nullptr) return "map[string]interface {}";
      return "map[ref.Val]ref.Val";
    }
    case ValueKind::kOpaque: {
      const std::string_view name = v.opaque().type_name();
      if (name == kQuantityTypeName) return "*resource.Quantity";
      if (name == kSemverTypeName) return "semver.Version";
      if (name == kIPTypeName) return "netip.Addr";
      if (name == kCIDRTypeName) return "netip.Prefix";
      if (name == kURLTypeName) return "*url.URL";
      if (name == kNamedFormatTypeName) return "cel.Format";
      if (name == internal::kDeviceTypeName) return "map[string]interface {}";  // `device` is a Go map upstream
      return name;
    }
  }
  return "unknown";
}

// --- EvalScratch ---------------------------------------------------------------------

EvalScratch::EvalScratch() : impl_(std::make_unique<internal::DraScratch>()) {}
EvalScratch::~EvalScratch() = default;
uint64_t EvalScratch::cost() const { return impl_->state.cost(); }

// --- DraEnvironment ------------------------------------------------------------------

StatusOr<std::unique_ptr<DraEnvironment>> DraEnvironment::New(const DraEnvOptions& options) {
  if (options.minor < kOldestMinor || options.minor > kNewestMinor) {
    return InvalidArgumentError("Kubernetes release 1." + std::to_string(options.minor) + " is not supported (1." +
                                std::to_string(kOldestMinor) + " to 1." + std::to_string(kNewestMinor) + " are)");
  }
  std::unique_ptr<DraEnvironment> env(new DraEnvironment(options));
  KubernetesLibraryOptions k = options.new_expressions ? KubernetesLibraryOptions::New(options.minor)
                                                       : KubernetesLibraryOptions::Stored(options.minor);
  k.includes = options.includes();
  // 1.37 registers the lists library's includes() (upstream v0.37.2:
  // library.IncludesOption), which has no length limit; the 48-element limit
  // is the 1.36 DRA function's (src/cel/README.md §3).
  k.includes_max_list_length = k.includes && options.minor <= 36 ? 48 : 0;
  DRA_ASSIGN_OR_RETURN(std::shared_ptr<FunctionRegistry> registry, NewKubernetesRegistry(k));
  env->registry_ = std::move(registry);
  env->parse_options_ = KubernetesLibraryParseOptions(k);
  env->env_.registry = env->registry_;
  env->env_.variables = {std::string(internal::kDeviceVariable)};
  env->env_.options.report_undeclared = true;
  env->env_.options.report_unknown_functions = true;
  env->env_.prepare_path = internal::PrepareDevicePath;
  env->checker_options_.minor = options.minor;
  env->checker_options_.env =
      options.new_expressions ? ExpressionEnv::kNewExpressions : ExpressionEnv::kStoredExpressions;
  env->checker_options_.consumable_capacity = options.consumable_capacity;
  env->checker_options_.list_type_attributes = options.list_type_attributes;
  env->checker_env_ = KubernetesCheckerEnv(env->checker_options_);
  return env;
}

std::shared_ptr<const CompiledSelector> DraEnvironment::Compile(std::string_view expression) const {
  return CompileCached(expression, /*selector=*/true);
}

std::shared_ptr<const CompiledSelector> DraEnvironment::CompileExpression(std::string_view expression) const {
  return CompileCached(expression, /*selector=*/false);
}

std::shared_ptr<const CompiledSelector> DraEnvironment::CompileCached(std::string_view expression,
                                                                      bool selector) const {
  auto& cache = selector ? cache_ : expression_cache_;
  {
    std::shared_lock lock(cache_mu_);
    auto it = cache.find(expression);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<const CompiledSelector> compiled = CompileUncached(expression, selector);
  std::unique_lock lock(cache_mu_);
  auto [it, inserted] = cache.emplace(std::string(expression), std::move(compiled));
  return it->second;
}

std::shared_ptr<const CompiledSelector> DraEnvironment::CompileUncached(std::string_view expression,
                                                                        bool selector) const {
  auto out = std::make_shared<CompiledSelector>();
  out->expression_ = std::string(expression);
  StatusOr<ParseResult> parsed = Parse(expression, parse_options_);
  if (!parsed.ok()) {
    out->error_ = "compilation failed: " + std::string(parsed.status().message());
    return out;
  }
  std::vector<Issue> issues = std::move(parsed->issues);
  if (issues.empty()) {
    // Type-check as Kubernetes compiles selectors: undeclared names and
    // fields, overloads, the attribute types of the release, the literal
    // validators; then, for a selector, the result type.
    CheckResult checked = Check(*parsed->expr, checker_env_);
    if (!checked.ok()) {
      issues = std::move(checked.issues);
    } else if (selector) {
      if (std::optional<std::string> e = SelectorResultTypeError(checked.result_type(), checker_options_)) {
        out->error_ = *std::move(e);
        return out;
      }
    } else if (std::optional<std::string> e =
                   DerivedAttributeResultTypeError(checked.result_type(), checker_options_)) {
      out->derived_attribute_error_ = *std::move(e);
    }
  }
  if (issues.empty()) {
    StatusOr<PlanResult> planned = Plan(*parsed->expr, env_);
    if (!planned.ok()) {
      out->error_ = "compilation failed: " + std::string(planned.status().message());
      return out;
    }
    if (planned->issues.empty()) {
      out->program_ = std::move(planned->program);
      out->device_slot_ = out->program_->VariableSlot(internal::kDeviceVariable);
      if (selector) out->columnar_ = ColumnarSelector::New(parsed->expr->expr, expression.size(), options_.cost_limit);
      return out;
    }
    issues = std::move(planned->issues);
  }
  out->error_ = "compilation failed: " + FormatIssues(expression, issues);
  out->issues_ = std::move(issues);
  return out;
}

bool DraEnvironment::MatchColumn(const CompiledSelector& selector, std::span<const api::Device> devices,
                                 std::string_view driver, std::span<uint8_t> out, EvalScratch& scratch,
                                 DeviceCheck check) const {
  if (selector.columnar_ == nullptr) return false;
  selector.columnar_->Evaluate(devices, driver, out);
  if (check == DeviceCheck::kCheck) {
    // A device whose attributes do not convert fails every selector with an
    // error: leave it to Matches, which reports it.
    internal::DraScratch& s = *scratch.impl_;
    for (size_t i = 0; i < devices.size(); ++i) {
      if (out[i] == kColumnUnknown) continue;
      s.Reset(&devices[i], driver, options_);
      if (!s.CheckAttributes().ok()) out[i] = kColumnUnknown;
    }
  }
  return true;
}

bool DraEnvironment::MatchColumn(const CompiledSelector& selector, const SliceColumns& columns, std::span<uint8_t> out,
                                 EvalScratch& scratch, DeviceCheck check) const {
  if (selector.columnar_ == nullptr) return false;
  selector.columnar_->Evaluate(columns, out);
  if (check == DeviceCheck::kCheck) {
    // As above, with the check's outcome kept per device by the columns.
    const int variant = options_.list_values() ? 1 : 0;
    const std::vector<uint8_t>* passed = columns.Checks(variant);
    if (passed == nullptr) {
      passed = &columns.BuildChecks(
          variant, [&scratch, this](const api::Device& device) { return CheckDevice(device, scratch).ok(); });
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if ((*passed)[i] == 0) out[i] = kColumnUnknown;
    }
  }
  return true;
}

Status DraEnvironment::CheckDevice(const api::Device& device, EvalScratch& scratch) const {
  internal::DraScratch& s = *scratch.impl_;
  s.Reset(&device, "", options_);
  return s.CheckAttributes();
}

StatusOr<Value> DraEnvironment::Evaluate(const CompiledSelector& selector, const api::Device* device,
                                         std::string_view driver, EvalScratch& scratch, DeviceCheck check) const {
  if (!selector.ok()) return InvalidArgumentError(selector.error_);
  internal::DraScratch& s = *scratch.impl_;
  if (s.state.options().cost_limit != options_.cost_limit) SetCostLimit(s.state);
  Value var;
  if (device != nullptr) {
    s.Reset(device, driver, options_);
    if (check == DeviceCheck::kCheck) DRA_RETURN_IF_ERROR(s.CheckAttributes());
    var = Value::BorrowOpaque(&s.device_object);
  } else {
    var = Value::Error("no such attribute: device");
  }
  const size_t count = selector.device_slot_.has_value() ? 1 : 0;
  return selector.program_->Evaluate(std::span<const Value>(&var, count), s.state);
}

void DraEnvironment::SetCostLimit(EvalState& state) const {
  EvalOptions eval_options = state.options();
  eval_options.cost_limit = options_.cost_limit;
  state.set_options(eval_options);
}

// The hot path of the allocator: the same steps as Evaluate, without
// passing the result through another StatusOr.
StatusOr<bool> DraEnvironment::Matches(const CompiledSelector& selector, const api::Device& device,
                                       std::string_view driver, EvalScratch& scratch, DeviceCheck check) const {
  if (!selector.ok()) return InvalidArgumentError(selector.error_);
  internal::DraScratch& s = *scratch.impl_;
  if (s.state.options().cost_limit != options_.cost_limit) SetCostLimit(s.state);
  s.Reset(&device, driver, options_);
  if (check == DeviceCheck::kCheck) DRA_RETURN_IF_ERROR(s.CheckAttributes());
  const Value var = Value::BorrowOpaque(&s.device_object);
  const size_t count = selector.device_slot_.has_value() ? 1 : 0;
  StatusOr<Value> v = selector.program_->Evaluate(std::span<const Value>(&var, count), s.state);
  if (!v.ok()) return v.status();
  if (v->is_bool()) return v->bool_value();
  return NotABool(*v);
}

Status DraEnvironment::NotABool(const Value& v) const {
  if (v.is_error()) {
    std::string message(v.error_message());
    if (options_.no_such_key_hint() && message.starts_with("no such key:")) {
      message += kNoSuchKeyHint;
    }
    return FailedPreconditionError(std::move(message));
  }
  return FailedPreconditionError("CEL result of type " + std::string(v.TypeName()) + " could not be converted to bool");
}

}  // namespace dra::cel
