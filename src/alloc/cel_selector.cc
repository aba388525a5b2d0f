// Adapter from SelectorEvaluator to cel::DraEnvironment. The environment
// already reports compile errors as kInvalidArgument and runtime errors with
// other codes, which is the SelectorEvaluator contract.
#include "alloc/cel_selector.h"

#include <array>
#include <atomic>
#include <string>

#include "base/release.h"
#include "cel/dra_env.h"
#include "cel/k8s_lib.h"
#include "fmt/format.h"

namespace dra::alloc {

StatusOr<api::DeviceAttribute> SelectorEvaluator::EvaluateAttribute(std::string_view, const api::Device&,
                                                                    std::string_view) {
  return UnimplementedError("this selector evaluator does not evaluate derived attributes");
}

namespace {

// A derived attribute's CEL value as a DeviceAttribute (upstream
// valToDeviceAttribute): bool, int, string, semver, or a list whose elements
// all have the first element's type (an empty list is an empty string list).
StatusOr<api::DeviceAttribute> ToDeviceAttribute(const cel::Value& v) {
  auto semver_text = [](const cel::Value& e) -> std::optional<std::string> {
    if (!e.is_opaque() || e.opaque().type_name() != cel::kSemverTypeName) return std::nullopt;
    return static_cast<const cel::SemverValue&>(e.opaque()).semver().String();
  };
  if (v.is_bool()) return api::DeviceAttribute::Bool(v.bool_value());
  if (v.is_int()) return api::DeviceAttribute::Int(v.int_value());
  if (v.is_string()) return api::DeviceAttribute::String(v.string_value());
  if (std::optional<std::string> text = semver_text(v)) return api::DeviceAttribute::VersionOf(*text);
  if (!v.is_list()) return FailedPreconditionError(fmt::format("unsupported CEL return type: {}", v.TypeName()));
  const cel::ListObject& list = v.list();
  if (list.size() == 0) return api::DeviceAttribute::Strings({});
  const cel::Value first = list.Get(0);
  auto wrong = [&](size_t i, std::string_view want, const cel::Value& e) {
    return FailedPreconditionError(
        fmt::format("expected list element at index {} to be {}, got {}", i, want, e.TypeName()));
  };
  if (first.is_bool() || first.is_int()) {
    const bool ints = first.is_int();
    std::vector<int64_t> int_values;
    std::vector<bool> bool_values;
    for (size_t i = 0; i < list.size(); ++i) {
      const cel::Value e = list.Get(i);
      if (ints ? !e.is_int() : !e.is_bool()) return wrong(i, ints ? "int" : "bool", e);
      if (ints) {
        int_values.push_back(e.int_value());
      } else {
        bool_values.push_back(e.bool_value());
      }
    }
    return ints ? api::DeviceAttribute::Ints(std::move(int_values))
                : api::DeviceAttribute::Bools(std::move(bool_values));
  }
  const bool strings = first.is_string();
  if (!strings && !semver_text(first)) {
    return FailedPreconditionError(fmt::format("unsupported list element type: {}", first.TypeName()));
  }
  std::vector<api::InternedString> texts;
  for (size_t i = 0; i < list.size(); ++i) {
    const cel::Value e = list.Get(i);
    if (strings) {
      if (!e.is_string()) return wrong(i, "string", e);
      texts.emplace_back(e.string_value());
    } else {
      std::optional<std::string> text = semver_text(e);
      if (!text) return wrong(i, "semver", e);
      texts.emplace_back(*text);
    }
  }
  return strings ? api::DeviceAttribute::Strings(std::move(texts)) : api::DeviceAttribute::Versions(std::move(texts));
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

  // Compiled as any expression of the scheduler's environment (upstream
  // GetOrCompileDerivedAttribute: StoredExpressions, the selector cost limit
  // per evaluation); the result type is checked on the value.
  StatusOr<api::DeviceAttribute> EvaluateAttribute(std::string_view expression, const api::Device& device,
                                                   std::string_view driver) override {
    std::shared_ptr<const cel::CompiledSelector> compiled = env_->CompileExpression(expression);
    if (!compiled->ok()) return InvalidArgumentError(compiled->error());
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
