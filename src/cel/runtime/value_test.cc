#include "cel/runtime/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dra::cel {
namespace {

Value L(std::vector<Value> v) { return Value::List(std::move(v)); }

Value M(std::vector<std::pair<Value, Value>> entries) {
  auto map = MakeRef<HashMap>();
  for (auto& [k, v] : entries) EXPECT_TRUE(map->Insert(k, v));
  return Value::Map(std::move(map));
}

TEST(ValueTest, IsTwoWords) { EXPECT_EQ(sizeof(Value), 16u); }

TEST(ValueTest, ScalarsRoundTrip) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_EQ(Value::Int(-5).int_value(), -5);
  EXPECT_EQ(Value::Uint(5).uint_value(), 5u);
  EXPECT_EQ(Value::Double(1.5).double_value(), 1.5);
  EXPECT_TRUE(Value::Bool(true).is_true());
  EXPECT_EQ(Value::String("héllo").string_value(), "héllo");
  EXPECT_EQ(Value::Bytes(std::string("\0\xff", 2)).bytes_value(), std::string("\0\xff", 2));
  EXPECT_EQ(Value::Type("int").type_name_value(), "int");
  EXPECT_EQ(Value::Error("boom").error_message(), "boom");
}

TEST(ValueTest, BorrowedStringsDoNotOwn) {
  static const std::string kText = "H100";
  Value v = Value::StringView(kText);
  EXPECT_EQ(v.object(), nullptr);
  EXPECT_EQ(v.string_value().data(), kText.data());
  Value copy = v;
  EXPECT_EQ(copy.string_value().data(), kText.data());
}

TEST(ValueTest, CopiesShareAndBorrowsDoNotCount) {
  Value list = L({Value::Int(1)});
  EXPECT_TRUE(list.IsUniquelyOwned());
  {
    Value copy = list;
    EXPECT_FALSE(list.IsUniquelyOwned());
  }
  EXPECT_TRUE(list.IsUniquelyOwned());
  Value borrowed = Value::Borrow(list);
  EXPECT_TRUE(list.IsUniquelyOwned());
  EXPECT_FALSE(borrowed.IsUniquelyOwned());
  EXPECT_EQ(&borrowed.list(), &list.list());
}

TEST(ValueTest, AssigningAValueFromInsideItselfIsSafe) {
  Value v = Value::Optional(Value::String(std::string(100, 'x')));
  v = v.optional_value();
  ASSERT_TRUE(v.is_string());
  EXPECT_EQ(v.string_value().size(), 100u);
  Value w = Value::Optional(L({Value::Int(1)}));
  w = std::move(const_cast<Value&>(w.optional_value()));
  EXPECT_TRUE(w.is_list());
}

TEST(ValueTest, HeterogeneousNumericEquality) {
  EXPECT_TRUE(Equal(Value::Int(1), Value::Uint(1)).is_true());
  EXPECT_TRUE(Equal(Value::Int(1), Value::Double(1.0)).is_true());
  EXPECT_TRUE(Equal(Value::Uint(1), Value::Double(1.0)).is_true());
  EXPECT_TRUE(Equal(Value::Int(-1), Value::Uint(1)).is_false());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(Equal(Value::Double(nan), Value::Double(nan)).is_false());
  EXPECT_TRUE(Equal(Value::Null(), Value::Null()).is_true());
  EXPECT_TRUE(Equal(Value::Null(), Value::Int(0)).is_false());
  EXPECT_TRUE(Equal(Value::String("1"), Value::Int(1)).is_false());
  EXPECT_TRUE(Equal(Value::String("a"), Value::Bytes("a")).is_false());
}

TEST(ValueTest, AggregateEquality) {
  EXPECT_TRUE(Equal(L({Value::Double(1.0), Value::Int(2)}), L({Value::Uint(1), Value::Int(2)})).is_true());
  EXPECT_TRUE(Equal(L({Value::Int(1)}), L({Value::Int(1), Value::Int(2)})).is_false());
  Value a = M({{Value::String("k"), Value::Int(1)}, {Value::Int(2), Value::Bool(true)}});
  Value b = M({{Value::Uint(2), Value::Bool(true)}, {Value::String("k"), Value::Double(1.0)}});
  EXPECT_TRUE(Equal(a, b).is_true());
  EXPECT_TRUE(Equal(a, M({{Value::String("k"), Value::Int(1)}})).is_false());
  EXPECT_TRUE(Equal(Value::OptionalNone(), Value::OptionalNone()).is_true());
  EXPECT_TRUE(Equal(Value::Optional(Value::Int(1)), Value::OptionalNone()).is_false());
  EXPECT_TRUE(Equal(Value::Type("int"), Value::Type("int")).is_true());
}

TEST(ValueTest, EqualityPropagatesErrors) {
  Value err = Value::Error("e");
  EXPECT_TRUE(Equal(err, Value::Int(1)).is_error());
  EXPECT_TRUE(Equal(Value::Int(1), err).is_error());
}

TEST(ValueTest, CrossTypeOrdering) {
  EXPECT_EQ(Compare(Value::Int(-1), Value::Uint(0)), Ordering::kLess);
  EXPECT_EQ(Compare(Value::Uint(UINT64_MAX), Value::Int(INT64_MAX)), Ordering::kGreater);
  EXPECT_EQ(Compare(Value::Double(1.5), Value::Int(1)), Ordering::kGreater);
  EXPECT_EQ(Compare(Value::Int(2), Value::Double(1.5)), Ordering::kGreater);
  // As cel-go: the int converts to double, so 2^63-1 equals 2^63.
  EXPECT_EQ(Compare(Value::Int(INT64_MAX), Value::Double(9223372036854775808.0)), Ordering::kEqual);
  EXPECT_EQ(Compare(Value::Int(0), Value::Double(std::nan(""))), Ordering::kUnordered);
  EXPECT_EQ(Compare(Value::String("a"), Value::String("b")), Ordering::kLess);
  EXPECT_EQ(Compare(Value::String("α"), Value::String("a")), Ordering::kGreater);
  EXPECT_EQ(Compare(Value::Bool(false), Value::Bool(true)), Ordering::kLess);
  EXPECT_EQ(Compare(Value::String("a"), Value::Int(1)), Ordering::kInvalid);
  EXPECT_EQ(Compare(Value::Null(), Value::Null()), Ordering::kInvalid);
}

TEST(ValueTest, MapKeysUnifyNumbers) {
  auto map = MakeRef<HashMap>();
  EXPECT_TRUE(map->Insert(Value::Int(1), Value::String("one")));
  EXPECT_FALSE(map->Insert(Value::Uint(1), Value::String("uno")));
  EXPECT_TRUE(map->Insert(Value::Int(-1), Value::String("minus")));
  ASSERT_TRUE(map->Find(Value::Double(1.0)).has_value());
  EXPECT_EQ(map->Find(Value::Uint(1))->string_value(), "one");
  EXPECT_FALSE(map->Find(Value::Double(1.5)).has_value());
  EXPECT_FALSE(map->Find(Value::Uint(UINT64_MAX)).has_value());
  EXPECT_EQ(map->Find(Value::Double(-1.0))->string_value(), "minus");
  EXPECT_FALSE(map->Find(Value::Bytes("x")).has_value());
}

std::string Key(int i) {
  std::string s = "k";
  s += std::to_string(i);
  return s;
}

TEST(ValueTest, LargeMapsUseTheIndex) {
  auto map = MakeRef<HashMap>();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(map->Insert(Value::String(Key(i)), Value::Int(i)));
  }
  EXPECT_FALSE(map->Insert(Value::String("k500"), Value::Int(0)));
  for (int i = 0; i < 1000; ++i) {
    std::optional<Value> v = map->Find(Value::String(Key(i)));
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->int_value(), i);
  }
  EXPECT_FALSE(map->Find(Value::String("k1000")).has_value());
  EXPECT_EQ(map->KeyAt(7).string_value(), "k7");  // insertion order
}

TEST(ValueTest, FormatsDoublesLikeCelGo) {
  EXPECT_EQ(FormatDoubleCel(1.5), "1.5");
  EXPECT_EQ(FormatDoubleCel(1e100), "1e+100");
  EXPECT_EQ(FormatDoubleCel(123456789.0), "1.23456789e+08");
  EXPECT_EQ(FormatDoubleCel(100000.0), "100000");
  EXPECT_EQ(FormatDoubleCel(0.0001), "0.0001");
  EXPECT_EQ(FormatDoubleCel(0.00001), "1e-05");
  EXPECT_EQ(FormatDoubleCel(-0.0), "-0");
  EXPECT_EQ(FormatDoubleCel(std::nan("")), "NaN");
  EXPECT_EQ(FormatDoubleCel(-HUGE_VAL), "-Inf");
}

TEST(ValueTest, DebugStringUsesCelSyntax) {
  Value v = L({Value::Int(1), Value::Uint(2), Value::Double(3), Value::String("s\n"), Value::Bytes("\xff"),
               Value::Null(), Value::OptionalNone()});
  EXPECT_EQ(v.DebugString(), "[1, 2u, 3.0, \"s\\n\", b\"\\xff\", null, optional.none()]");
}

TEST(ValueTest, CostSizeCountsCodePoints) {
  EXPECT_EQ(CostSize(Value::String("héllo")), 5u);
  EXPECT_EQ(CostSize(Value::Bytes("héllo")), 6u);
  EXPECT_EQ(CostSize(Value::Int(7)), 1u);
  EXPECT_EQ(CostSize(L({Value::Int(1), Value::Int(2)})), 2u);
}

}  // namespace
}  // namespace dra::cel
