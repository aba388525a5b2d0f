// Adapter from SelectorEvaluator to cel::DraEnvironment. The environment
// already reports compile errors as kInvalidArgument and runtime errors with
// other codes, which is the SelectorEvaluator contract.
#include "alloc/cel_selector.h"

#include "cel/dra_env.h"

namespace dra::alloc {
namespace {

class CelSelectorEvaluator final : public SelectorEvaluator {
 public:
  explicit CelSelectorEvaluator(std::unique_ptr<cel::DraEnvironment> env) : env_(std::move(env)) {}

  StatusOr<bool> Evaluate(std::string_view expression, const api::Device& device,
                          std::string_view driver) override {
    std::shared_ptr<const cel::CompiledSelector> selector = env_->Compile(expression);
    if (!selector->ok()) return InvalidArgumentError(selector->error());
    // One scratch per thread, reused across evaluations (dra_env.h).
    thread_local cel::EvalScratch scratch;
    return env_->Matches(*selector, device, driver, scratch);
  }

 private:
  std::unique_ptr<cel::DraEnvironment> env_;
};

}  // namespace

StatusOr<std::unique_ptr<SelectorEvaluator>> NewCelSelectorEvaluator(const Features& features) {
  cel::DraEnvOptions options;
  options.minor = 37;
  options.new_expressions = false;  // the scheduler evaluates stored expressions
  options.consumable_capacity = features.consumable_capacity;
  options.list_type_attributes = features.list_type_attributes;
  DRA_ASSIGN_OR_RETURN(std::unique_ptr<cel::DraEnvironment> env, cel::DraEnvironment::New(options));
  return std::unique_ptr<SelectorEvaluator>(std::make_unique<CelSelectorEvaluator>(std::move(env)));
}

}  // namespace dra::alloc
