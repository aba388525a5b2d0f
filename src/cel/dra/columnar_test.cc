#include "cel/dra/columnar.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
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
  // The last two have no exact milli-units: SliceColumns reads their Quantity.
  static const char* kMemory[] = {"40Gi",   "42949672960",       "42949672959",  "42949672961", "40960Mi",      "0.5Ti",
                                  "39.5Gi", "42949672960000m",   "42949672961m", "43e9",        "4294967296e1", "50M",
                                  "1n",     "42949672960000001u"};
  switch (pick(6)) {
    case 0: break;
    default: {
      api::DeviceCapacity c;
      c.value = *quantity::Quantity::Parse(kMemory[pick(14)]);
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
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('42949672960000001u')) >= 0",
      "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('1n'))",
      "device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.2.3')) >= 0",
      "device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.2.3')) == 0",
      "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.2.3-rc.1'))",
      "device.attributes['gpu.example.com'].driverVersion.isLessThan(semver('1.10.0'))",
      "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].model == 'H100'",
      std::string("device.attributes['gpu.example.com'].model == 'H100' && ") +
          "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0 && " +
          "device.attributes['gpu.example.com'].index in [0, 1]",
      std::string("device.attributes['gpu.example.com'].healthy == true && ") +
          "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0')) && " +
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
  // Slices of 1 to 32 devices, each with columns every selector below shares
  // (built by the first that reads a name, then reused).
  std::vector<std::unique_ptr<SliceColumns>> slices;
  for (const auto& [driver, devices] : {std::pair{kGpu, &gpus}, std::pair{kNic, &nics}}) {
    for (size_t begin = 0; begin < devices->size();) {
      const size_t size = std::min<size_t>(1 + rng() % 32, devices->size() - begin);
      slices.push_back(std::make_unique<SliceColumns>(std::span(devices->data() + begin, size), driver));
      begin += size;
    }
  }
  EvalScratch scratch;
  for (const std::string& expression : Selectors()) {
    SCOPED_TRACE(expression);
    std::shared_ptr<const CompiledSelector> selector = env->Compile(expression);
    ASSERT_TRUE(selector->ok()) << selector->error();
    ASSERT_NE(selector->columnar(), nullptr);
    size_t decided = 0, matched_ok = 0;
    for (const std::unique_ptr<SliceColumns>& columns : slices) {
      const std::span<const api::Device> slice = columns->devices();
      const std::string_view driver = columns->driver();
      std::vector<uint8_t> column(slice.size(), 0xff), over_columns(slice.size(), 0xff);
      ASSERT_TRUE(env->MatchColumn(*selector, slice, driver, column, scratch));
      ASSERT_TRUE(env->MatchColumn(*selector, *columns, over_columns, scratch));
      for (size_t i = 0; i < slice.size(); ++i) {
        StatusOr<bool> want = env->Matches(*selector, slice[i], driver, scratch);
        matched_ok += want.ok();
        SCOPED_TRACE("device " + slice[i].name + " of " + std::string(driver));
        ASSERT_TRUE(column[i] == kColumnUnknown || column[i] == kColumnFalse || column[i] == kColumnTrue);
        // The kept columns decide exactly the devices the maps do.
        EXPECT_EQ(over_columns[i], column[i]);
        if (column[i] == kColumnUnknown) continue;
        ++decided;
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        EXPECT_EQ(*want, column[i] == kColumnTrue);
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
    const SliceColumns columns(devices, kGpu);
    column[0] = 0xff;
    ASSERT_TRUE(env->MatchColumn(*selector, columns, column, scratch));
    EXPECT_EQ(column[0], c.want);
  }
}

// A column is built once per name and slice, whichever selector reads it;
// the device check once per slice.
TEST(ColumnarTest, ColumnsAreBuiltOncePerName) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  std::vector<api::Device> devices(3);
  devices[0].attributes.insert_or_assign("model", DeviceAttribute::String("H100"));
  devices[1].attributes.insert_or_assign("model", DeviceAttribute::String("A100"));
  devices[2].attributes.insert_or_assign("model", DeviceAttribute{});
  api::DeviceCapacity memory;
  memory.value = *quantity::Quantity::Parse("80Gi");
  devices[1].capacity.insert_or_assign("memory", memory);
  const SliceColumns columns(devices, kGpu);
  EXPECT_EQ(columns.column_count(), 0u);
  EXPECT_EQ(columns.Checks(1), nullptr);
  EvalScratch scratch;
  std::vector<uint8_t> out(3);
  auto run = [&](const char* expression) {
    std::shared_ptr<const CompiledSelector> selector = env->Compile(expression);
    EXPECT_TRUE(env->MatchColumn(*selector, columns, out, scratch)) << expression;
    return out;
  };
  // Device 2's attribute does not convert: every selector fails on it, so unknown.
  using V = std::vector<uint8_t>;
  EXPECT_EQ(run("device.attributes['gpu.example.com'].model == 'H100'"),
            (V{kColumnTrue, kColumnFalse, kColumnUnknown}));
  EXPECT_EQ(columns.column_count(), 1u);
  ASSERT_NE(columns.Checks(1), nullptr);
  EXPECT_EQ(*columns.Checks(1), (V{1, 1, 0}));
  EXPECT_EQ(run("device.attributes['gpu.example.com'].model in ['A100', 'L4']"),
            (V{kColumnFalse, kColumnTrue, kColumnUnknown}));
  EXPECT_EQ(columns.column_count(), 1u);
  EXPECT_EQ(run("device.attributes['gpu.example.com'].model != 'H100' && "
                "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 0"),
            (V{kColumnFalse, kColumnTrue, kColumnUnknown}));
  EXPECT_EQ(columns.column_count(), 2u);
  // Without the check (the caller made it), device 2's missing-type value is
  // not a string: heterogeneous, left to the interpreter all the same.
  std::shared_ptr<const CompiledSelector> selector =
      env->Compile("device.attributes['gpu.example.com'].model == 'H100'");
  ASSERT_TRUE(env->MatchColumn(*selector, columns, out, scratch, DeviceCheck::kDone));
  EXPECT_EQ(out, (V{kColumnTrue, kColumnFalse, kColumnUnknown}));
  EXPECT_EQ(columns.column_count(), 2u);
}

// 100 versions 1.0.0 ... 1.0.99 in one slice (more distinct versions than
// the per-call verdict table holds): above 1.0.49 exactly the last 50.
TEST(ColumnarTest, ManyDistinctVersionsInOneSlice) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  std::vector<api::Device> devices(100);
  for (size_t i = 0; i < devices.size(); ++i) {
    devices[i].attributes.insert_or_assign("v", DeviceAttribute::VersionOf("1.0." + std::to_string(i)));
  }
  const SliceColumns columns(devices, kGpu);
  std::shared_ptr<const CompiledSelector> selector =
      env->Compile("device.attributes['gpu.example.com'].v.isGreaterThan(semver('1.0.49'))");
  EvalScratch scratch;
  std::vector<uint8_t> out(devices.size());
  ASSERT_TRUE(env->MatchColumn(*selector, columns, out, scratch));
  for (size_t i = 0; i < devices.size(); ++i) EXPECT_EQ(out[i], i > 49 ? kColumnTrue : kColumnFalse) << i;
}

// Threads reading one slice's columns at once, each building some of them:
// every thread sees the verdicts worked out by hand (model H100 on even
// devices, A100 on odd ones; memory 10Gi x index).
TEST(ColumnarTest, ColumnsSharedByThreads) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  std::vector<api::Device> devices(64);
  for (size_t i = 0; i < devices.size(); ++i) {
    devices[i].attributes.insert_or_assign("model", DeviceAttribute::String(i % 2 == 0 ? "H100" : "A100"));
    api::DeviceCapacity memory;
    memory.value = *quantity::Quantity::Parse(std::to_string(10 * i) + "Gi");
    devices[i].capacity.insert_or_assign("memory", memory);
  }
  const SliceColumns columns(devices, kGpu);
  const char* expressions[] = {
      "device.attributes['gpu.example.com'].model == 'H100'",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('300Gi')) >= 0",
  };
  std::vector<std::shared_ptr<const CompiledSelector>> selectors;
  for (const char* e : expressions) selectors.push_back(env->Compile(e));
  std::vector<std::vector<uint8_t>> results(8, std::vector<uint8_t>(devices.size()));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      EvalScratch scratch;
      (void)env->MatchColumn(*selectors[t % 2], columns, results[t], scratch);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(columns.column_count(), 2u);
  for (size_t t = 0; t < results.size(); ++t) {
    for (size_t i = 0; i < devices.size(); ++i) {
      const bool want = t % 2 == 0 ? i % 2 == 0 : i >= 30;
      EXPECT_EQ(results[t][i], want ? kColumnTrue : kColumnFalse) << t << " " << i;
    }
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
