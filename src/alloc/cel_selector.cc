// Adapter from SelectorEvaluator to cel::DraEnvironment. The environment
// already reports compile errors as kInvalidArgument and runtime errors with
// other codes, which is the SelectorEvaluator contract.
#include "alloc/cel_selector.h"

#include <array>
#include <atomic>
#include <string>

#include "base/release.h"
#include "cel/dra_env.h"

namespace dra::alloc {
namespace {

// Evaluators are told apart in the per-thread cache below by a number that is
// never reused (an address could be, after an evaluator is destroyed).
std::atomic<uint64_t> next_evaluator_id{1};

class CelSelectorEvaluator final : public SelectorEvaluator {
 public:
  explicit CelSelectorEvaluator(std::unique_ptr<cel::DraEnvironment> env)
      : env_(std::move(env)), id_(next_evaluator_id.fetch_add(1, std::memory_order_relaxed)) {}

  StatusOr<bool> Evaluate(std::string_view expression, const api::Device& device,
                          std::string_view driver) override {
    const cel::CompiledSelector& selector = Lookup(expression);
    if (!selector.ok()) return InvalidArgumentError(selector.error());
    // One scratch per thread, reused across evaluations (dra_env.h).
    thread_local cel::EvalScratch scratch;
    return env_->Matches(selector, device, driver, scratch);
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
