// Adapter from SelectorEvaluator to cel::DraEnvironment. The environment
// already reports compile errors as kInvalidArgument and runtime errors with
// other codes, which is the SelectorEvaluator contract.
#include "alloc/cel_selector.h"

#include <array>
#include <atomic>
#include <string>

#include "base/release.h"
#include "cel/dra/dra_env.h"
#include "cel/libraries/k8s_lib.h"
#include "fmt/format.h"

namespace dra::alloc {

StatusOr<api::DeviceAttribute> SelectorEvaluator::EvaluateAttribute(std::string_view, const api::Device&,
                                                                    std::string_view) {
  return UnimplementedError("this selector evaluator does not evaluate derived attributes");
}

namespace {

// A derived attribute's CEL value as a DeviceAttribute, as upstream's
// valToDeviceAttribute converts it: by the Go value behind the CEL value
// (ref.Val's Value()), which looks through optionals (optional.of(1) is 1,
// optional.none() nothing) and makes a type value its name (type(1) is the
// string "int"). A bool, int, string or semver is that attribute; a list (an
// optional list is not one) whose first element is one of those is a list of
// that type, every element checked; an empty list is an empty string list.
// The errors name the Go type upstream's %T prints (cel::GoValueTypeName).
enum class NativeKind : uint8_t { kOther, kBool, kInt, kString, kSemver };

// The Value that ref.Val.Value() reads: `v` without its optional wrappers,
// or nullptr for optional.none().
const cel::Value* Native(const cel::Value& v) {
  const cel::Value* n = &v;
  while (n->is_optional()) {
    if (!n->has_optional_value()) return nullptr;
    n = &n->optional_value();
  }
  return n;
}

NativeKind KindOf(const cel::Value* n) {
  if (n == nullptr) return NativeKind::kOther;
  if (n->is_bool()) return NativeKind::kBool;
  if (n->is_int()) return NativeKind::kInt;
  if (n->is_string() || n->is_type()) return NativeKind::kString;
  if (n->is_opaque() && n->opaque().type_name() == cel::kSemverTypeName) return NativeKind::kSemver;
  return NativeKind::kOther;
}

// REQUIRES: KindOf(n) is kString / kSemver.
std::string_view StringOf(const cel::Value& n) { return n.is_type() ? n.type_name_value() : n.string_value(); }
std::string SemverOf(const cel::Value& n) { return static_cast<const cel::SemverValue&>(n.opaque()).semver().String(); }

StatusOr<api::DeviceAttribute> ToDeviceAttribute(const cel::Value& v) {
  const cel::Value* n = Native(v);
  switch (KindOf(n)) {
    case NativeKind::kBool: return api::DeviceAttribute::Bool(n->bool_value());
    case NativeKind::kInt: return api::DeviceAttribute::Int(n->int_value());
    case NativeKind::kString: return api::DeviceAttribute::String(StringOf(*n));
    case NativeKind::kSemver: return api::DeviceAttribute::VersionOf(SemverOf(*n));
    case NativeKind::kOther: break;
  }
  if (!v.is_list()) {
    return FailedPreconditionError(fmt::format("unsupported CEL return type: {}", cel::GoValueTypeName(v)));
  }
  const cel::ListObject& list = v.list();
  if (list.size() == 0) return api::DeviceAttribute::Strings({});
  const cel::Value first = list.Get(0);
  const NativeKind kind = KindOf(Native(first));
  static constexpr std::array<std::string_view, 5> kWant = {"", "bool", "int", "string", "semver"};
  if (kind == NativeKind::kOther) {
    return FailedPreconditionError(fmt::format("unsupported list element type: {}", cel::GoValueTypeName(first)));
  }
  std::vector<int64_t> int_values;
  std::vector<bool> bool_values;
  std::vector<api::InternedString> texts;
  for (size_t i = 0; i < list.size(); ++i) {
    const cel::Value e = list.Get(i);
    const cel::Value* en = Native(e);
    if (KindOf(en) != kind) {
      return FailedPreconditionError(fmt::format("expected list element at index {} to be {}, got {}", i,
                                                 kWant[static_cast<size_t>(kind)], cel::GoValueTypeName(e)));
    }
    switch (kind) {
      case NativeKind::kBool: bool_values.push_back(en->bool_value()); break;
      case NativeKind::kInt: int_values.push_back(en->int_value()); break;
      case NativeKind::kString: texts.emplace_back(StringOf(*en)); break;
      case NativeKind::kSemver: texts.emplace_back(SemverOf(*en)); break;
      case NativeKind::kOther: break;
    }
  }
  switch (kind) {
    case NativeKind::kBool: return api::DeviceAttribute::Bools(std::move(bool_values));
    case NativeKind::kInt: return api::DeviceAttribute::Ints(std::move(int_values));
    case NativeKind::kString: return api::DeviceAttribute::Strings(std::move(texts));
    default: return api::DeviceAttribute::Versions(std::move(texts));
  }
}

// Evaluators are told apart in the per-thread cache below by a number that is
// never reused (an address could be, after an evaluator is destroyed).
std::atomic<uint64_t> next_evaluator_id{1};

class CelSelectorEvaluator final : public SelectorEvaluator {
 public:
  explicit CelSelectorEvaluator(std::unique_ptr<cel::DraEnvironment> env)
      : env_(std::move(env)), id_(next_evaluator_id.fetch_add(1, std::memory_order_relaxed)) {}

  StatusOr<bool> Evaluate(std::string_view expression, const api::Device& device, std::string_view driver) override {
    const cel::CompiledSelector& selector = Lookup(expression);
    if (!selector.ok()) return InvalidArgumentError(selector.error());
    // One scratch per thread, reused across evaluations (dra_env.h).
    thread_local cel::EvalScratch scratch;
    return env_->Matches(selector, device, driver, scratch);
  }

  bool EvaluateSlice(std::string_view expression, std::span<const api::Device> devices, std::string_view driver,
                     std::span<uint8_t> out) override {
    thread_local cel::EvalScratch scratch;
    return env_->MatchColumn(Lookup(expression), devices, driver, out, scratch);
  }

  // The columns of a slice (cel/dra/columnar.h), kept by the allocator per
  // snapshot: every selector reading a name reads one column built once.
  struct Columns final : SliceState {
    Columns(std::span<const api::Device> devices, std::string_view driver) : columns(devices, driver) {}
    cel::SliceColumns columns;
  };
  std::unique_ptr<SliceState> NewSliceState(std::span<const api::Device> devices, std::string_view driver) override {
    return std::make_unique<Columns>(devices, driver);
  }
  bool EvaluateSliceWith(std::string_view expression, SliceState* state, std::span<const api::Device> devices,
                         std::string_view driver, std::span<uint8_t> out) override {
    const auto* columns = dynamic_cast<const Columns*>(state);
    if (columns == nullptr || columns->columns.devices().data() != devices.data() ||
        columns->columns.devices().size() != devices.size() || columns->columns.driver() != driver) {
      return EvaluateSlice(expression, devices, driver, out);
    }
    thread_local cel::EvalScratch scratch;
    return env_->MatchColumn(Lookup(expression), columns->columns, out, scratch);
  }

  // Compiled as upstream's GetOrCompileDerivedAttribute: the scheduler's
  // environment (StoredExpressions), the selector cost limit per evaluation,
  // and a result type that can be a derived attribute (bool, int, string,
  // semver, any, dyn or a list of those; e.g. 1.5 does not compile, while
  // dyn(1.5) does and fails when converted).
  StatusOr<api::DeviceAttribute> EvaluateAttribute(std::string_view expression, const api::Device& device,
                                                   std::string_view driver) override {
    std::shared_ptr<const cel::CompiledSelector> compiled = env_->CompileExpression(expression);
    if (!compiled->ok()) return InvalidArgumentError(compiled->error());
    if (!compiled->derived_attribute_error().empty()) {
      return InvalidArgumentError(compiled->derived_attribute_error());
    }
    thread_local cel::EvalScratch scratch;
    DRA_ASSIGN_OR_RETURN(cel::Value value, env_->Evaluate(*compiled, &device, driver, scratch));
    if (value.is_error()) return FailedPreconditionError(std::string(value.error_message()));
    return ToDeviceAttribute(value);
  }

 private:
  // The allocator evaluates the same few expressions on every device of every
  // node. The environment's cache is shared between threads (a lock, a hash of
  // the whole text and a reference count per call); this small per-thread
  // cache in front of it costs one comparison of the text. Entries keep their
  // compiled selector alive until they are replaced.
  struct CacheEntry {
    uint64_t evaluator = 0;
    std::string expression;
    std::shared_ptr<const cel::CompiledSelector> selector;
  };
  static constexpr size_t kCacheSize = 8;

  const cel::CompiledSelector& Lookup(std::string_view expression) {
    thread_local std::array<CacheEntry, kCacheSize> cache;
    thread_local size_t next = 0;
    for (const CacheEntry& e : cache) {
      if (e.evaluator == id_ && e.expression == expression) return *e.selector;
    }
    CacheEntry& e = cache[next];
    next = (next + 1) % kCacheSize;
    e.selector = env_->Compile(expression);
    e.expression.assign(expression);
    e.evaluator = id_;
    return *e.selector;
  }

  std::unique_ptr<cel::DraEnvironment> env_;
  const uint64_t id_;
};

}  // namespace

StatusOr<std::unique_ptr<SelectorEvaluator>> NewCelSelectorEvaluator(const Features& features) {
  cel::DraEnvOptions options;
  options.minor = kDefaultMinor;
  options.new_expressions = false;  // the scheduler evaluates stored expressions
  options.consumable_capacity = features.consumable_capacity;
  options.list_type_attributes = features.list_type_attributes;
  DRA_ASSIGN_OR_RETURN(std::unique_ptr<cel::DraEnvironment> env, cel::DraEnvironment::New(options));
  return std::unique_ptr<SelectorEvaluator>(std::make_unique<CelSelectorEvaluator>(std::move(env)));
}

}  // namespace dra::alloc
