// Derived attributes through the production evaluator (README.md §7.4 item
// 3): which result types compile, how values convert, and the error texts.
// Every expectation is upstream's: tools/oracle (`oracle allocate --scenario`,
// k8s.io/dynamic-resource-allocation v0.37.2) ran each expression as a
// derived attribute on a device like Gpu() below; its messages are "compile
// derived attribute N failed: <compile text>" and "evaluate derived
// attribute N on device D failed: <eval text>", and the allocator adds those
// prefixes itself.
#include "alloc/cel_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quantity/quantity.h"

namespace dra::alloc {
namespace {

using api::DeviceAttribute;

constexpr std::string_view kDriver = "gpu.example.com";

api::Device Gpu() {
  api::Device d;
  d.name = "g0";
  d.attributes.insert_or_assign("numa", DeviceAttribute::Int(1));
  d.attributes.insert_or_assign("model", DeviceAttribute::String("a"));
  d.attributes.insert_or_assign("ints", DeviceAttribute::Ints({1, 2}));
  d.attributes.insert_or_assign("strs", DeviceAttribute::Strings({"a"}));
  d.attributes.insert_or_assign("vers", DeviceAttribute::Versions({"1.0.0"}));
  api::DeviceCapacity memory;
  memory.value = *quantity::Quantity::Parse("8Gi");
  d.capacity.insert_or_assign("memory", memory);
  return d;
}

std::unique_ptr<SelectorEvaluator> Evaluator() {
  StatusOr<std::unique_ptr<SelectorEvaluator>> e =
      NewCelSelectorEvaluator({.derived_attributes = true, .list_type_attributes = true});
  EXPECT_TRUE(e.ok()) << e.status().message();
  return *std::move(e);
}

struct ErrorCase {
  std::string expression;
  StatusCode code;  // kInvalidArgument: compile error; kFailedPrecondition: evaluation error
  std::string message;
};

TEST(CelSelectorDerivedAttribute, ErrorsAsUpstream) {
  constexpr StatusCode kCompile = StatusCode::kInvalidArgument;
  constexpr StatusCode kEval = StatusCode::kFailedPrecondition;
  const std::string scalar =
      "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these "
      "scalars, not ";
  const std::vector<ErrorCase> cases = {
      // A result type that cannot be an attribute does not compile (lists
      // always allowed: StoredExpressions)...
      {"1.5", kCompile, scalar + "double"},
      {"[1.5, 2.5]", kCompile, scalar + "list(double)"},
      {R"({"a": 1})", kCompile, scalar + "map(string, int)"},
      {"null", kCompile, scalar + "null_type"},
      {R"(b"ab")", kCompile, scalar + "bytes"},
      {"1u", kCompile, scalar + "uint"},
      {"[[1]]", kCompile, scalar + "list(list(int))"},
      {R"(quantity("1Gi"))", kCompile, scalar + "kubernetes.Quantity"},
      {"dyn([1,2]).map(x, x*1.5)", kCompile, scalar + "list(double)"},
      {R"(dyn(device.capacity["gpu.example.com"]).map(k, device.capacity["gpu.example.com"][k]))", kCompile,
       scalar + "list(kubernetes.Quantity)"},
      // ... while dyn passes and the value fails to convert, named by its Go type.
      {"dyn(1.5)", kEval, "unsupported CEL return type: float64"},
      {"dyn(1u)", kEval, "unsupported CEL return type: uint64"},
      {R"(dyn(b"ab"))", kEval, "unsupported CEL return type: []uint8"},
      {"dyn(null)", kEval, "unsupported CEL return type: structpb.NullValue"},
      {R"(dyn({"a": 1}))", kEval, "unsupported CEL return type: map[ref.Val]ref.Val"},
      {"dyn(device)", kEval, "unsupported CEL return type: map[string]interface {}"},
      {"dyn(device.attributes)", kEval, "unsupported CEL return type: map[string]interface {}"},
      {R"(dyn(device.attributes["gpu.example.com"]))", kEval, "unsupported CEL return type: map[string]interface {}"},
      {R"(dyn(device.capacity["gpu.example.com"]))", kEval, "unsupported CEL return type: map[string]cel.Quantity"},
      {R"(dyn(device.capacity["other.example"]))", kEval, "unsupported CEL return type: map[string]interface {}"},
      {R"(dyn(quantity("1Gi")))", kEval, "unsupported CEL return type: *resource.Quantity"},
      {R"(dyn(device.capacity["gpu.example.com"].memory))", kEval, "unsupported CEL return type: *resource.Quantity"},
      {R"(dyn(ip("1.2.3.4")))", kEval, "unsupported CEL return type: netip.Addr"},
      {R"(dyn(cidr("1.2.3.0/24")))", kEval, "unsupported CEL return type: netip.Prefix"},
      {R"(dyn(url("https://x.example/a")))", kEval, "unsupported CEL return type: *url.URL"},
      {"dyn(format.dns1123Label())", kEval, "unsupported CEL return type: cel.Format"},
      {"dyn(optional.none())", kEval, "unsupported CEL return type: <nil>"},
      {"dyn(optional.of(1.5))", kEval, "unsupported CEL return type: float64"},
      {"dyn(optional.of([1]))", kEval, "unsupported CEL return type: []ref.Val"},  // an optional is no list
      // The first element of a list picks its type.
      {"dyn([1.5, 2.5])", kEval, "unsupported list element type: float64"},
      {"dyn([[1]])", kEval, "unsupported list element type: []ref.Val"},
      {"dyn([1u])", kEval, "unsupported list element type: uint64"},
      {"dyn([null])", kEval, "unsupported list element type: structpb.NullValue"},
      {R"(dyn([{"a":1}]))", kEval, "unsupported list element type: map[ref.Val]ref.Val"},
      {"dyn([optional.none()])", kEval, "unsupported list element type: <nil>"},
      {R"(dyn([quantity("1")]))", kEval, "unsupported list element type: *resource.Quantity"},
      {R"(dyn([device.attributes["gpu.example.com"].ints]))", kEval, "unsupported list element type: []int64"},
      {R"(dyn([device.attributes["gpu.example.com"].strs]))", kEval, "unsupported list element type: []string"},
      {R"(dyn([device.attributes["gpu.example.com"].vers]))", kEval, "unsupported list element type: []cel.Semver"},
      {"dyn([device.attributes])", kEval, "unsupported list element type: map[string]interface {}"},
      // Every element must have the first one's type.
      {"[dyn(1), dyn(1.5)]", kEval, "expected list element at index 1 to be int, got float64"},
      {R"([dyn(1), dyn("a")])", kEval, "expected list element at index 1 to be int, got string"},
      {R"([dyn(1), dyn(semver("1.0.0"))])", kEval, "expected list element at index 1 to be int, got semver.Version"},
      {"[dyn(1), dyn([1])]", kEval, "expected list element at index 1 to be int, got []ref.Val"},
      {"[dyn(1), dyn(optional.none())]", kEval, "expected list element at index 1 to be int, got <nil>"},
      {R"([dyn(1), dyn(ip("1.2.3.4"))])", kEval, "expected list element at index 1 to be int, got netip.Addr"},
      {"[dyn(true), dyn(1.5)]", kEval, "expected list element at index 1 to be bool, got float64"},
      {R"(dyn([dyn("a"), dyn(1)]))", kEval, "expected list element at index 1 to be string, got int64"},
      {R"([dyn(semver("1.0.0")), dyn(1.5)])", kEval, "expected list element at index 1 to be semver, got float64"},
  };
  std::unique_ptr<SelectorEvaluator> e = Evaluator();
  const api::Device device = Gpu();
  for (const ErrorCase& c : cases) {
    StatusOr<DeviceAttribute> got = e->EvaluateAttribute(c.expression, device, kDriver);
    ASSERT_FALSE(got.ok()) << c.expression;
    EXPECT_EQ(got.status().code(), c.code) << c.expression;
    EXPECT_EQ(got.status().message(), c.message) << c.expression;
  }
}

// Upstream converts by the Go value behind the CEL value (ref.Val's Value()):
// an optional is its value and a type value its name (tools/oracle: each of
// these matched, through matchAttribute, another device's attribute of the
// value shown, and not one of another value; an empty list is an empty
// string list in valToDeviceAttribute's source).
TEST(CelSelectorDerivedAttribute, ValuesAsUpstream) {
  const std::vector<std::pair<std::string, DeviceAttribute>> cases = {
      {R"(device.attributes["gpu.example.com"].numa)", DeviceAttribute::Int(1)},
      {R"(device.attributes["gpu.example.com"].ints)", DeviceAttribute::Ints({1, 2})},
      {"[]", DeviceAttribute::Strings({})},
      {R"(dyn(semver("1.0.0")))", DeviceAttribute::VersionOf("1.0.0")},
      {"dyn(type(1))", DeviceAttribute::String("int")},
      {R"([dyn(type(1)), dyn("b")])", DeviceAttribute::Strings({"int", "b"})},
      {R"(dyn(optional.of("a")))", DeviceAttribute::String("a")},
      {"dyn(optional.of(optional.of(7)))", DeviceAttribute::Int(7)},
      {"dyn([optional.of(7)])", DeviceAttribute::Ints({7})},
      {R"(dyn(device.attributes["gpu.example.com"].?numa))", DeviceAttribute::Int(1)},
  };
  std::unique_ptr<SelectorEvaluator> e = Evaluator();
  const api::Device device = Gpu();
  for (const auto& [expression, want] : cases) {
    StatusOr<DeviceAttribute> got = e->EvaluateAttribute(expression, device, kDriver);
    ASSERT_TRUE(got.ok()) << expression << ": " << got.status().message();
    EXPECT_EQ(*got, want) << expression;
  }
}

// Slice states (selector.h): the columns kept between calls give the
// verdicts the device maps give, worked out by hand for three devices (H100
// with 80Gi, A100 with 40Gi, a third without a model: unknown, left to
// Evaluate); a state made for other devices, or none, falls back.
TEST(CelSelectorSliceState, KeptColumnsGiveTheSameVerdicts) {
  std::unique_ptr<SelectorEvaluator> e = Evaluator();
  std::vector<api::Device> devices(3);
  const char* models[] = {"H100", "A100"};
  const char* memory[] = {"80Gi", "40Gi", "10Gi"};
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i < 2) devices[i].attributes.insert_or_assign("model", DeviceAttribute::String(models[i]));
    api::DeviceCapacity c;
    c.value = *quantity::Quantity::Parse(memory[i]);
    devices[i].capacity.insert_or_assign("memory", c);
  }
  std::unique_ptr<SelectorEvaluator::SliceState> state = e->NewSliceState(devices, kDriver);
  ASSERT_NE(state, nullptr);
  struct Case {
    const char* expression;
    std::vector<uint8_t> want;  // 2 true, 1 false, 0 unknown
  };
  const Case cases[] = {
      {"device.attributes['gpu.example.com'].model == 'H100'", {2, 1, 0}},
      {"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0", {2, 2, 1}},
      {"device.attributes['gpu.example.com'].model in ['A100'] && "
       "device.capacity['gpu.example.com'].memory.isLessThan(quantity('50Gi'))",
       {1, 2, 0}},
  };
  const std::vector<api::Device> others(devices.begin(), devices.begin() + 2);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expression);
    std::vector<uint8_t> kept(3, 9), plain(3, 9), fallback(2, 9), none(3, 9);
    ASSERT_TRUE(e->EvaluateSliceWith(c.expression, state.get(), devices, kDriver, kept));
    ASSERT_TRUE(e->EvaluateSlice(c.expression, devices, kDriver, plain));
    ASSERT_TRUE(e->EvaluateSliceWith(c.expression, state.get(), others, kDriver, fallback));
    ASSERT_TRUE(e->EvaluateSliceWith(c.expression, nullptr, devices, kDriver, none));
    EXPECT_EQ(kept, c.want);
    EXPECT_EQ(plain, c.want);
    EXPECT_EQ(none, c.want);
    EXPECT_EQ(fallback, std::vector<uint8_t>(c.want.begin(), c.want.begin() + 2));
  }
  // No columnar form: false, `out` left alone.
  std::vector<uint8_t> out(3, 9);
  EXPECT_FALSE(e->EvaluateSliceWith("device.attributes['gpu.example.com'].model.startsWith('H')", state.get(), devices,
                                    kDriver, out));
  EXPECT_EQ(out, std::vector<uint8_t>(3, 9));
}

}  // namespace
}  // namespace dra::alloc
