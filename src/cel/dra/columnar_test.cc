#include "cel/dra/columnar.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cel/dra/dra_env.h"

namespace dra::cel {
namespace {

using api::DeviceAttribute;

constexpr std::string_view kGpu = "gpu.example.com";
constexpr std::string_view kNic = "nic.example.com";

std::unique_ptr<DraEnvironment> NewEnv(DraEnvOptions options = {}) {
  StatusOr<std::unique_ptr<DraEnvironment>> env = DraEnvironment::New(options);
  if (!env.ok()) std::abort();
  return *std::move(env);
}

// Devices meant to hit every corner of the shapes: each attribute is
// present, missing, of another type, a list, or (for versions) invalid, and
// published under its bare name, the driver-qualified name, both, or another
// domain; memory sits on and around 40Gi = 42949672960 in several scales.
api::Device RandomDevice(std::mt19937& rng, int index) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  api::Device d;
  d.name = "dev-" + std::to_string(index);
  auto name = [&](std::string_view id) -> std::string {
    switch (pick(4)) {
      case 0: return std::string(id);
      case 1: return std::string(kGpu) + "/" + std::string(id);
      case 2: return "other.example.com/" + std::string(id);
      default: return std::string(id);
    }
  };
  static const char* kModels[] = {"H100", "H200", "A100", "L4", ""};
  switch (pick(6)) {
    case 0: break;  // missing
    case 1: d.attributes.insert_or_assign(name("model"), DeviceAttribute::Int(100)); break;
    case 2: d.attributes.insert_or_assign(name("model"), DeviceAttribute::Strings({"H100", "A100"})); break;
    default: d.attributes.insert_or_assign(name("model"), DeviceAttribute::String(kModels[pick(5)]));
  }
  if (pick(8) == 0) {  // both the bare and the qualified name: the bare one wins
    d.attributes.insert_or_assign("model", DeviceAttribute::String("H100"));
    d.attributes.insert_or_assign(std::string(kGpu) + "/model", DeviceAttribute::String("A100"));
  }
  switch (pick(5)) {
    case 0: break;
    case 1: d.attributes.insert_or_assign(name("index"), DeviceAttribute::String("3")); break;
    case 2: d.attributes.insert_or_assign(name("index"), DeviceAttribute::Ints({1, 3})); break;
    default: d.attributes.insert_or_assign(name("index"), DeviceAttribute::Int(pick(5) - 1));
  }
  switch (pick(4)) {
    case 0: break;
    case 1: d.attributes.insert_or_assign(name("healthy"), DeviceAttribute::Int(1)); break;
    default: d.attributes.insert_or_assign(name("healthy"), DeviceAttribute::Bool(pick(2) == 0));
  }
  static const char* kVersions[] = {"1.2.3",       "1.2.3-rc.1", "1.10.0", "2.0.0",
                                    "1.2.3+build", "0.9.9",      "1.2",    "v1.2.3"};  // the last two invalid
  switch (pick(5)) {
    case 0: break;
    case 1: d.attributes.insert_or_assign(name("driverVersion"), DeviceAttribute::String("1.2.3")); break;
    default:
      d.attributes.insert_or_assign(name("driverVersion"),
                                    DeviceAttribute::VersionOf(kVersions[pick(pick(4) == 0 ? 8 : 6)]));
  }
  static const char* kMemory[] = {"40Gi",   "42949672960",     "42949672959",  "42949672961", "40960Mi",      "0.5Ti",
                                  "39.5Gi", "42949672960000m", "42949672961m", "43e9",        "4294967296e1", "50M"};
  switch (pick(6)) {
    case 0: break;
    default: {
      api::DeviceCapacity c;
      c.value = *quantity::Quantity::Parse(kMemory[pick(12)]);
      d.capacity.insert_or_assign(name("memory"), c);
    }
  }
  return d;
}

// Every shape of columnar.h, each over present, missing and mistyped values.
const std::vector<std::string>& Selectors() {
  static const std::vector<std::string> selectors = {
      "device.driver == 'gpu.example.com'",
      "device.driver != 'gpu.example.com'",
      "'nic.example.com' == device.driver",
      "device.attributes['gpu.example.com'].model == 'H100'",
      "device.attributes['gpu.example.com'].model != 'H100'",
      "'A100' == device.attributes['gpu.example.com']['model']",
      "device.attributes['gpu.example.com'].model == ''",
      "device.attributes['other.example.com'].model == 'H100'",
      "device.attributes['nic.example.com'].model == 'H100'",
      "device.attributes['gpu.example.com'].index == 1",
      "device.attributes['gpu.example.com'].index != 3",
      "device.attributes['gpu.example.com'].healthy == true",
      "device.attributes['gpu.example.com'].healthy != false",
      "device.attributes['gpu.example.com'].model in ['H100', 'H200', 'A100']",
      "device.attributes['gpu.example.com'].index in [0, 2, 3]",
      "device.attributes['gpu.example.com'].healthy in [true]",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('42949672960')) == 0",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) < 0",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) != 1",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) <= -1",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 5",
      "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('42949672960000m'))",
      "device.capacity['gpu.example.com'].memory.isLessThan(quantity('40Gi'))",
      "device.capacity['other.example.com'].memory.isLessThan(quantity('1Ti'))",
      "device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.2.3')) >= 0",
      "device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.2.3')) == 0",
      "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.2.3-rc.1'))",
      "device.attributes['gpu.example.com'].driverVersion.isLessThan(semver('1.10.0'))",
      "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].model == 'H100'",
      "device.attributes['gpu.example.com'].model == 'H100' && "
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0 && "
      "device.attributes['gpu.example.com'].index in [0, 1]",
      "device.attributes['gpu.example.com'].healthy == true && "
      "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0')) && "
      "device.driver != 'nic.example.com'",
  };
  return selectors;
}

// For every selector and release: the columnar verdict, where it gives one,
// is what Matches returns for that device; where Matches fails (missing
// attribute, wrong type, a device that does not convert), the column says
// unknown. And the columns decide most devices whose values have the right
// type, so the fast path is really taken.
void ExpectColumnsAgree(const DraEnvOptions& options, uint32_t seed) {
  std::unique_ptr<DraEnvironment> env = NewEnv(options);
  std::mt19937 rng(seed);
  std::vector<api::Device> gpus, nics;
  for (int i = 0; i < 400; ++i) gpus.push_back(RandomDevice(rng, i));
  for (int i = 0; i < 100; ++i) nics.push_back(RandomDevice(rng, i));
  EvalScratch scratch;
  for (const std::string& expression : Selectors()) {
    SCOPED_TRACE(expression);
    std::shared_ptr<const CompiledSelector> selector = env->Compile(expression);
    ASSERT_TRUE(selector->ok()) << selector->error();
    ASSERT_NE(selector->columnar(), nullptr);
    size_t decided = 0, matched_ok = 0;
    for (const auto& [driver, devices] : {std::pair{kGpu, &gpus}, std::pair{kNic, &nics}}) {
      // Slices of 1 to 32 devices.
      for (size_t begin = 0; begin < devices->size();) {
        const size_t size = std::min<size_t>(1 + rng() % 32, devices->size() - begin);
        std::span<const api::Device> slice(devices->data() + begin, size);
        std::vector<uint8_t> column(size, 0xff);
        ASSERT_TRUE(env->MatchColumn(*selector, slice, driver, column, scratch));
        for (size_t i = 0; i < size; ++i) {
          StatusOr<bool> want = env->Matches(*selector, slice[i], driver, scratch);
          matched_ok += want.ok();
          SCOPED_TRACE("device " + slice[i].name + " of " + std::string(driver));
          ASSERT_TRUE(column[i] == kColumnUnknown || column[i] == kColumnFalse || column[i] == kColumnTrue);
          if (column[i] == kColumnUnknown) continue;
          ++decided;
          ASSERT_TRUE(want.ok()) << want.status().ToString();
          EXPECT_EQ(*want, column[i] == kColumnTrue);
        }
        begin += size;
      }
    }
    // Every device Matches decides without an error is one the columns
    // could decide; at least a third of them must be (the rest: a wrong type, which is
    // heterogeneous equality in CEL, is left to the interpreter).
    EXPECT_GE(decided * 3, matched_ok) << decided << " of " << matched_ok;
  }
}

TEST(ColumnarTest, AgreesWithInterpreter137) { ExpectColumnsAgree({}, 1); }

TEST(ColumnarTest, AgreesWithInterpreter134WithoutListValues) {
  // Lists do not convert before 1.36/1.37: such devices fail every selector.
  ExpectColumnsAgree({.minor = 34}, 2);
}

TEST(ColumnarTest, AgreesWithInterpreter136ListTypeAttributes) {
  ExpectColumnsAgree({.minor = 36, .list_type_attributes = true}, 3);
}

// Worked by hand: the device has memory 40Gi (42949672960 bytes) and model
// "H100" under its bare name, driver gpu.example.com.
TEST(ColumnarTest, HandWorkedVerdicts) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  api::Device d;
  d.name = "gpu-0";
  d.attributes.insert_or_assign("model", DeviceAttribute::String("H100"));
  d.attributes.insert_or_assign("driverVersion", DeviceAttribute::VersionOf("1.2.3"));
  api::DeviceCapacity memory;
  memory.value = *quantity::Quantity::Parse("40Gi");
  d.capacity.insert_or_assign("memory", memory);
  const std::vector<api::Device> devices = {d};
  struct Case {
    std::string expr;
    uint8_t want;
  };
  const Case cases[] = {
      {"device.capacity['gpu.example.com'].memory.compareTo(quantity('42949672960')) == 0", kColumnTrue},
      {"device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('42949672959999m'))", kColumnTrue},
      {"device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('42949672960001m'))", kColumnFalse},
      {"device.capacity['gpu.example.com'].memory.isLessThan(quantity('43G'))", kColumnTrue},
      {"device.attributes['gpu.example.com'].model in ['A100', 'H100']", kColumnTrue},
      {"device.attributes['gpu.example.com'].driverVersion.isLessThan(semver('1.10.0'))", kColumnTrue},
      {"device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.2.3-rc.1')) > 0", kColumnTrue},
      // Missing attribute: an error for Matches, so unknown here ...
      {"device.attributes['gpu.example.com'].vendor == 'x'", kColumnUnknown},
      // ... unless another conjunct is false (false && error is false) ...
      {"device.attributes['gpu.example.com'].vendor == 'x' && device.driver == 'nic'", kColumnFalse},
      // ... but true && error stays an error.
      {"device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].vendor == 'x'", kColumnUnknown},
      // A string compared with an int: heterogeneous equality, left to the interpreter.
      {"device.attributes['gpu.example.com'].model == 1", kColumnUnknown},
  };
  EvalScratch scratch;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    std::shared_ptr<const CompiledSelector> selector = env->Compile(c.expr);
    ASSERT_TRUE(selector->ok()) << selector->error();
    std::vector<uint8_t> column(1);
    ASSERT_TRUE(env->MatchColumn(*selector, devices, kGpu, column, scratch));
    EXPECT_EQ(column[0], c.want);
  }
}

TEST(ColumnarTest, OtherShapesHaveNoColumnarForm) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  for (const char* expr : {
           "device.attributes['gpu.example.com'].model.matches('^H')",
           "device.driver == 'a' || device.driver == 'b'",
           "has(device.attributes['gpu.example.com'].model)",
           "!(device.driver == 'a')",
           "device.attributes['gpu.example.com'].model == 'a' ? true : false",
           "device.capacity['gpu.example.com'].memory == quantity('1Gi')",
           "device.attributes['gpu.example.com'].index < 3",
           "device.attributes['gpu.example.com'].index == 1.0",
           "device.attributes['gpu/x'].model == 'a'",
           "device.attributes['gpu.example.com']['a/b'] == 'a'",
           "device.attributes['gpu.example.com'].?model.orValue('') == 'a'",
           "device.allowMultipleAllocations == true",
       }) {
    SCOPED_TRACE(expr);
    std::shared_ptr<const CompiledSelector> selector = env->Compile(expr);
    ASSERT_TRUE(selector->ok()) << selector->error();
    EXPECT_EQ(selector->columnar(), nullptr);
    EvalScratch scratch;
    EXPECT_FALSE(env->MatchColumn(*selector, std::span<const api::Device>(), kGpu, {}, scratch));
  }
}

// Under a cost limit the interpreter could reach (here 4: `device`,
// `.attributes`, `[d]`, `.model` and `==` cost 5), the columns decline, so
// the cost-exceeded outcome stays the interpreter's.
TEST(ColumnarTest, DeclinesWhereTheCostLimitCouldBeReached) {
  std::unique_ptr<DraEnvironment> env = NewEnv({.cost_limit = 4});
  std::shared_ptr<const CompiledSelector> selector = env->Compile("device.attributes['gpu.example.com'].model == 'x'");
  ASSERT_TRUE(selector->ok());
  EXPECT_EQ(selector->columnar(), nullptr);
  api::Device d;
  d.attributes.insert_or_assign("model", DeviceAttribute::String("x"));
  EvalScratch scratch;
  StatusOr<bool> m = env->Matches(*selector, d, kGpu, scratch);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kResourceExhausted);
  // Far below the limit of Kubernetes (1,000,000) a selector this long is fine ...
  EXPECT_NE(NewEnv()->Compile("device.attributes['gpu.example.com'].model == 'x'")->columnar(), nullptr);
  // ... and one of 50,000 bytes is not (20 x 50,000 reaches the limit).
  std::string long_list = "device.attributes['gpu.example.com'].model in ['x'";
  while (long_list.size() < 50'000) long_list += ", 'x'";
  long_list += "]";
  std::shared_ptr<const CompiledSelector> big = NewEnv()->Compile(long_list);
  ASSERT_TRUE(big->ok()) << big->error();
  EXPECT_EQ(big->columnar(), nullptr);
}

}  // namespace
}  // namespace dra::cel
