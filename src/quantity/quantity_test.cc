#include "quantity/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/testing/cases.h"

namespace dra::quantity {

// Lets gtest print a Quantity in failure messages.
void PrintTo(const Quantity& q, std::ostream* os) { *os << q.String(); }

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

constexpr Format kDecimalSI = Format::kDecimalSI;
constexpr Format kBinarySI = Format::kBinarySI;
constexpr Format kDecimalExponent = Format::kDecimalExponent;

std::string_view FormatName(Format f) {
  switch (f) {
    case Format::kDecimalSI: return "DecimalSI";
    case Format::kBinarySI: return "BinarySI";
    case Format::kDecimalExponent: return "DecimalExponent";
  }
  return "?";
}

// Parses `text`, failing the test (and returning zero) if it does not parse.
Quantity P(std::string_view text) {
  StatusOr<Quantity> q = Quantity::Parse(text);
  if (!q.ok()) {
    ADD_FAILURE() << "Parse(\"" << text << "\"): " << q.status().ToString();
    return Quantity();
  }
  return *q;
}

// "-" + text (spelled out: GCC 12 warns falsely on operator+ here).
std::string WithMinus(std::string_view text) {
  std::string out(1, '-');
  out.append(text);
  return out;
}

// ---------------------------------------------------------------------------
// Parse + String: the value Kubernetes stores and the canonical form it prints.

struct ParseCase {
  std::string_view name;
  std::string_view in;
  std::string_view want;  // canonical String()
  Format format = kDecimalSI;
};

std::vector<ParseCase> ZeroAndIntegerCases() {
  return {
      // Zero, whatever it is written as, prints "0"; the suffix decides the format.
      {.name = "zero", .in = "0", .want = "0"},
      {.name = "zero_nano", .in = "0n", .want = "0"},
      {.name = "zero_binary_keeps_binary_format", .in = "0Ki", .want = "0", .format = kBinarySI},
      {.name = "zero_negative", .in = "-0", .want = "0"},
      {.name = "zero_plus", .in = "+0", .want = "0"},
      {.name = "zero_fraction", .in = "0.0", .want = "0"},
      {.name = "zero_exponent_keeps_exponent_format", .in = "0e5", .want = "0", .format = kDecimalExponent},
      {.name = "zero_leading_zeros", .in = "000", .want = "0"},
      {.name = "zero_tiny_negative_fraction_digits", .in = "-0.000000000", .want = "0"},
      // Kubernetes' scanner takes a number part without digits as zero.
      {.name = "digitless_dot", .in = ".", .want = "0"},
      {.name = "digitless_plus", .in = "+", .want = "0"},
      {.name = "digitless_minus", .in = "-", .want = "0"},
      {.name = "digitless_signed_dot", .in = "-.", .want = "0"},
      {.name = "digitless_binary_suffix", .in = "Gi", .want = "0", .format = kBinarySI},
      {.name = "digitless_dot_binary_suffix", .in = ".Ki", .want = "0", .format = kBinarySI},
      {.name = "digitless_milli", .in = "m", .want = "0"},
      {.name = "digitless_exponent", .in = "e3", .want = "0", .format = kDecimalExponent},
      {.name = "digitless_nano_exponent", .in = ".e-9", .want = "0", .format = kDecimalExponent},
      {.name = "digitless_nano", .in = "n", .want = "0"},
      {.name = "digitless_Ti", .in = "-Ti", .want = "0", .format = kBinarySI},
      // Plain integers; non-canonical spellings print canonically.
      {.name = "one", .in = "1", .want = "1"},
      {.name = "minus_one", .in = "-1", .want = "-1"},
      {.name = "plus_sign_dropped", .in = "+1", .want = "1"},
      {.name = "leading_zero_dropped", .in = "01", .want = "1"},
      {.name = "trailing_dot_dropped", .in = "5.", .want = "5"},
      {.name = "trailing_dot_one", .in = "1.", .want = "1"},
      {.name = "hundred", .in = "100", .want = "100"},
      {.name = "thousand_becomes_k", .in = "1000", .want = "1k"},
      {.name = "fifteen_hundred_stays", .in = "1500", .want = "1500"},
      {.name = "million_becomes_M", .in = "1000000", .want = "1M"},
      {.name = "nine_digits", .in = "123456789", .want = "123456789"},
      {.name = "eighteen_nines", .in = "999999999999999999", .want = "999999999999999999"},
      {.name = "int64_max", .in = "9223372036854775807", .want = "9223372036854775807"},
      {.name = "int64_min", .in = "-9223372036854775808", .want = "-9223372036854775808"},
      {.name = "beyond_int64_exact", .in = "18446744073709551616", .want = "18446744073709551616"},
      {.name = "ten_exa", .in = "10000000000000000000", .want = "10E"},
      {.name = "ten_exa_with_fraction_zero", .in = "10000000000000000000.0", .want = "10E"},
  };
}

std::vector<ParseCase> DecimalSiCases() {
  return {
      // DecimalSI suffixes.
      {.name = "suffix_n", .in = "5n", .want = "5n"},
      {.name = "suffix_u", .in = "4u", .want = "4u"},
      {.name = "suffix_m", .in = "3m", .want = "3m"},
      {.name = "suffix_k", .in = "8k", .want = "8k"},
      {.name = "suffix_k_fifty", .in = "50k", .want = "50k"},
      {.name = "suffix_M", .in = "7M", .want = "7M"},
      {.name = "suffix_G", .in = "6G", .want = "6G"},
      {.name = "suffix_T", .in = "5T", .want = "5T"},
      {.name = "suffix_T_forty", .in = "40T", .want = "40T"},
      {.name = "suffix_T_three_hundred", .in = "300T", .want = "300T"},
      {.name = "suffix_P", .in = "2P", .want = "2P"},
      {.name = "suffix_E", .in = "1E", .want = "1E"},
      {.name = "suffix_E_beyond_int64", .in = "12E", .want = "12E"},
      {.name = "beyond_E_falls_back_to_exponent", .in = "1000E", .want = "1e21"},
      {.name = "beyond_E_twelve", .in = "12000E", .want = "12e21"},
      {.name = "thousand_milli_is_one", .in = "1000m", .want = "1"},
      {.name = "hundred_milli_stays", .in = "100m", .want = "100m"},
      {.name = "negative_milli", .in = "-100m", .want = "-100m"},
      {.name = "million_nano_is_milli", .in = "1000000n", .want = "1m"},
      {.name = "thousand_k_is_M", .in = "1000k", .want = "1M"},
      {.name = "thousand_G_is_T", .in = "1000G", .want = "1T"},
      // Fractions move to a smaller suffix instead of printing a point.
      {.name = "one_and_a_half", .in = "1.5", .want = "1500m"},
      {.name = "one_tenth", .in = "0.1", .want = "100m"},
      {.name = "minus_one_tenth", .in = "-0.1", .want = "-100m"},
      {.name = "one_point_zero", .in = "1.0", .want = "1"},
      {.name = "trailing_fraction_zeros_k", .in = "1.500k", .want = "1500"},
      {.name = "fraction_k", .in = "1.5k", .want = "1500"},
      {.name = "half", .in = "0.5", .want = "500m"},
      {.name = "leading_dot", .in = ".5", .want = "500m"},
      {.name = "thousandth", .in = "0.001", .want = "1m"},
      {.name = "leading_dot_thousandth", .in = ".001", .want = "1m"},
      {.name = "fraction_of_k", .in = "0.0005k", .want = "500m"},
      {.name = "fraction_of_k_trailing_zero", .in = "0.00050k", .want = "500m"},
      {.name = "leading_dot_fraction_of_k", .in = ".0001k", .want = "100m"},
      {.name = "fraction_k_exact", .in = "100.035k", .want = "100035"},
      {.name = "fraction_M", .in = "10.035M", .want = "10035k"},
      {.name = "fraction_plain", .in = "9.01", .want = "9010m"},
      {.name = "fraction_k_eight", .in = "8.1k", .want = "8100"},
      {.name = "fraction_M_integer", .in = "7.123456M", .want = "7123456"},
      {.name = "fraction_G_integer", .in = "6.987654321G", .want = "6987654321"},
      {.name = "fraction_T", .in = "5.444T", .want = "5444G"},
      {.name = "fraction_T_forty", .in = "40.1T", .want = "40100G"},
      {.name = "fraction_T_three_hundred", .in = "300.2T", .want = "300200G"},
      {.name = "fraction_P", .in = "2.5P", .want = "2500T"},
      {.name = "fraction_E", .in = "1.01E", .want = "1010P"},
      {.name = "dot_then_suffix", .in = "1.G", .want = "1G"},
      {.name = "fraction_milli", .in = "1.1m", .want = "1100u"},
      {.name = "big_with_tenth", .in = "999999999999999999.1", .want = "999999999999999999100m"},
      {.name = "negative_exa_with_tiny_fraction", .in = "-1.0000000000000000001E", .want = "-1000000000000000000100m"},
      {.name = "exa_plus_one", .in = "1.000000000000000001E", .want = "1000000000000000001"},
  };
}

std::vector<ParseCase> BinarySiCases() {
  return {
      // BinarySI: the largest power of 1024 that divides the value picks the suffix.
      {.name = "binary_Ki", .in = "1Ki", .want = "1Ki", .format = kBinarySI},
      {.name = "binary_8Ki", .in = "8Ki", .want = "8Ki", .format = kBinarySI},
      {.name = "binary_Mi", .in = "7Mi", .want = "7Mi", .format = kBinarySI},
      {.name = "binary_Gi", .in = "6Gi", .want = "6Gi", .format = kBinarySI},
      {.name = "binary_Ti", .in = "5Ti", .want = "5Ti", .format = kBinarySI},
      {.name = "binary_Pi", .in = "4Pi", .want = "4Pi", .format = kBinarySI},
      {.name = "binary_Ei", .in = "3Ei", .want = "3Ei", .format = kBinarySI},
      {.name = "binary_100Ti", .in = "100Ti", .want = "100Ti", .format = kBinarySI},
      {.name = "binary_1024Ki_is_Mi", .in = "1024Ki", .want = "1Mi", .format = kBinarySI},
      {.name = "binary_1024Mi_is_Gi", .in = "1024Mi", .want = "1Gi", .format = kBinarySI},
      {.name = "binary_1536Mi_stays", .in = "1536Mi", .want = "1536Mi", .format = kBinarySI},
      {.name = "binary_1025Ki_stays", .in = "1025Ki", .want = "1025Ki", .format = kBinarySI},
      {.name = "binary_fraction_Gi", .in = "1.5Gi", .want = "1536Mi", .format = kBinarySI},
      {.name = "binary_half_Gi", .in = "0.5Gi", .want = "512Mi", .format = kBinarySI},
      {.name = "binary_half_Mi", .in = "0.5Mi", .want = "512Ki", .format = kBinarySI},
      {.name = "binary_fraction_Ei", .in = "1.5Ei", .want = "1536Pi", .format = kBinarySI},
      {.name = "binary_not_multiple_of_1024_prints_plain", .in = "1.5Ki", .want = "1536", .format = kBinarySI},
      {.name = "binary_below_1024_prints_decimal", .in = "0.5Ki", .want = "512", .format = kBinarySI},
      {.name = "binary_fractional_value_prints_decimal", .in = "1.1Ki", .want = "1126400m", .format = kBinarySI},
      {.name = "binary_fraction_Ki", .in = "100.035Ki", .want = "102435840m", .format = kBinarySI},
      {.name = "binary_fraction_Ti", .in = "0.025Ti", .want = "27487790694400m", .format = kBinarySI},
      {.name = "binary_fraction_Gi_small", .in = "0.05Gi", .want = "53687091200m", .format = kBinarySI},
      {.name = "binary_fraction_Ei_nano", .in = "0.000000001Ei", .want = "1152921504606846976n", .format = kBinarySI},
      {.name = "binary_fraction_rounds_up_at_nano",
       .in = "9.5000000001Gi",
       .want = "10200547328107374183n",
       .format = kBinarySI},
      {.name = "binary_fraction_below_cap", .in = "7.9Ei", .want = "9108079886394091110400m", .format = kBinarySI},
      {.name = "binary_negative", .in = "-1Ki", .want = "-1Ki", .format = kBinarySI},
      {.name = "binary_negative_fraction", .in = "-1.5Gi", .want = "-1536Mi", .format = kBinarySI},
      {.name = "binary_at_least_one_stays_binary", .in = ".001Ki", .want = "1024m", .format = kBinarySI},
      {.name = "binary_below_one_becomes_decimal", .in = ".000001Ki", .want = "1024u"},
      {.name = "binary_below_one_nano", .in = ".000000001Ki", .want = "1024n"},
      {.name = "binary_below_nano_rounds_up", .in = ".000000000001Ki", .want = "2n"},
      {.name = "binary_negative_below_one", .in = "-.000001Ki", .want = "-1024u"},
      // Parsing caps BinarySI at 2^63-1 in magnitude (Go's maxAllowed).
      {.name = "binary_8Ei_capped", .in = "8Ei", .want = "9223372036854775807", .format = kBinarySI},
      {.name = "binary_9Ei_capped", .in = "9Ei", .want = "9223372036854775807", .format = kBinarySI},
      {.name = "binary_negative_capped", .in = "-9Ei", .want = "-9223372036854775807", .format = kBinarySI},
      {.name = "binary_huge_Ki_capped",
       .in = "9223372036854775807Ki",
       .want = "9223372036854775807",
       .format = kBinarySI},
      {.name = "binary_very_long_capped",
       .in = "123456789012345678901234567890123456789012345Ki",
       .want = "9223372036854775807",
       .format = kBinarySI},
  };
}

std::vector<ParseCase> DecimalExponentCases() {
  return {
      // DecimalExponent.
      {.name = "exp_1e3", .in = "1e3", .want = "1e3", .format = kDecimalExponent},
      {.name = "exp_capital_E", .in = "1E3", .want = "1e3", .format = kDecimalExponent},
      {.name = "exp_plus_sign", .in = "1e+3", .want = "1e3", .format = kDecimalExponent},
      {.name = "exp_leading_zero", .in = "1e03", .want = "1e3", .format = kDecimalExponent},
      {.name = "exp_12e6", .in = "12e6", .want = "12e6", .format = kDecimalExponent},
      {.name = "exp_zero_exponent_dropped", .in = "1e0", .want = "1", .format = kDecimalExponent},
      {.name = "exp_minus_zero", .in = "1e-0", .want = "1", .format = kDecimalExponent},
      {.name = "exp_123e0", .in = "123e0", .want = "123", .format = kDecimalExponent},
      {.name = "exp_negative", .in = "1E-3", .want = "1e-3", .format = kDecimalExponent},
      {.name = "exp_rounds_down_to_multiple_of_3", .in = "1e-1", .want = "100e-3", .format = kDecimalExponent},
      {.name = "exp_half", .in = "0.5e0", .want = "500e-3", .format = kDecimalExponent},
      {.name = "exp_half_tenth", .in = "0.5e-1", .want = "50e-3", .format = kDecimalExponent},
      {.name = "exp_fraction_integer", .in = "1.2e3", .want = "1200", .format = kDecimalExponent},
      {.name = "exp_fraction_plus", .in = "1.3E+6", .want = "1300e3", .format = kDecimalExponent},
      {.name = "exp_fraction_trailing_zero", .in = "1.40e9", .want = "1400e6", .format = kDecimalExponent},
      {.name = "exp_fraction_E12", .in = "1.53E12", .want = "1530e9", .format = kDecimalExponent},
      {.name = "exp_fraction_E18", .in = "1.7E18", .want = "1700e15", .format = kDecimalExponent},
      {.name = "exp_100e3", .in = "100e3", .want = "100e3", .format = kDecimalExponent},
      {.name = "exp_1000e0", .in = "1000e0", .want = "1e3", .format = kDecimalExponent},
      {.name = "exp_1e21", .in = "1e21", .want = "1e21", .format = kDecimalExponent},
      {.name = "exp_1e100", .in = "1e100", .want = "10e99", .format = kDecimalExponent},
      {.name = "exp_int32_max", .in = "1e2147483647", .want = "10e2147483646", .format = kDecimalExponent},
      {.name = "exp_int32_min_plus_one_rounds_to_nano",
       .in = "1e-2147483647",
       .want = "1e-9",
       .format = kDecimalExponent},
      {.name = "exp_negative_tiny_rounds_away_from_zero",
       .in = "-1e-2147483647",
       .want = "-1e-9",
       .format = kDecimalExponent},
      // Inputs on which Go's inf.Dec path hangs (kubernetes#141166) are exact here.
      {.name = "exp_long_mantissa_huge_exponent",
       .in = "1234567890123456789012345678901234567890e2147483000",
       .want = "123456789012345678901234567890123456789e2147483001",
       .format = kDecimalExponent},
      {.name = "exp_near_int32_min_rounds_to_nano", .in = "1e-2147483630", .want = "1e-9", .format = kDecimalExponent},
      {.name = "exp_nano", .in = "1e-9", .want = "1e-9", .format = kDecimalExponent},
      {.name = "exp_below_nano_rounds_up", .in = "1.1E-9", .want = "2e-9", .format = kDecimalExponent},
      {.name = "exp_half_nano_rounds_up", .in = "0.5e-9", .want = "1e-9", .format = kDecimalExponent},
      {.name = "exp_small_negative", .in = "-.484785E-1", .want = "-48478500e-9", .format = kDecimalExponent},
  };
}

std::vector<ParseCase> RoundingAndLargeCases() {
  return {
      // Rounding: away from zero, to nano.
      {.name = "round_nano_fraction", .in = "3.001n", .want = "4n"},
      {.name = "round_negative_nano_fraction", .in = "-3.001n", .want = "-4n"},
      {.name = "round_below_nano", .in = "0.9n", .want = "1n"},
      {.name = "round_tenth_nano", .in = "0.0000000001", .want = "1n"},
      {.name = "round_negative_tenth_nano", .in = "-0.0000000001", .want = "-1n"},
      {.name = "round_half_nano_up", .in = "0.0000000005", .want = "1n"},
      {.name = "round_trailing_zero_below_nano", .in = "0.00000000050", .want = "1n"},
      {.name = "round_micro_digits", .in = "0.00000012345", .want = "124n"},
      {.name = "round_micro_digits_other", .in = "0.00000012354", .want = "124n"},
      {.name = "round_carries_to_integer", .in = "1.9999999999", .want = "2"},
      {.name = "round_one_plus_tenth_nano", .in = "1.0000000001", .want = "1000000001n"},
      {.name = "round_long_tail", .in = "0.000000001000000000000000000000000000000000000001", .want = "2n"},
      {.name = "round_long_zero_tail_exact", .in = "0.0000000010000000000000000000000000000000000000000", .want = "1n"},
      {.name = "round_before_range_check", .in = "1.0000000000000000000000000000000000000001", .want = "1000000001n"},
      // Large values are exact up to 38 significant digits.
      {.name = "big_37_nines_G",
       .in = "9999999999999999999999999999999999999G",
       .want = "9999999999999999999999999999999999999G"},
      {.name = "big_38_nines",
       .in = "99999999999999999999999999999999999999",
       .want = "99999999999999999999999999999999999999"},
      {.name = "big_int128_max",
       .in = "170141183460469231731687303715884105727",
       .want = "170141183460469231731687303715884105727"},
      {.name = "big_39_digits_with_nanos",
       .in = "123456789012345678901234567890.123456789",
       .want = "123456789012345678901234567890123456789n"},
      {.name = "big_1e40_decimal_si", .in = "10000000000000000000000000000000000000000", .want = "10e39"},
      {.name = "big_leading_zeros_ignored", .in = "000000000000000000000000000000000000000000000001", .want = "1"},
  };
}

const std::vector<ParseCase>& ParseCases() {
  static const std::vector<ParseCase> cases = JoinTestCases<ParseCase>(
      {ZeroAndIntegerCases, DecimalSiCases, BinarySiCases, DecimalExponentCases, RoundingAndLargeCases});
  return cases;
}

class ParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(ParseTest, ParsesToCanonicalStringAndFormat) {
  const ParseCase& c = GetParam();
  StatusOr<Quantity> q = Quantity::Parse(c.in);
  ASSERT_TRUE(q.ok()) << c.in << ": " << q.status().ToString();
  EXPECT_EQ(q->String(), c.want) << c.in;
  EXPECT_EQ(FormatName(q->format()), FormatName(c.format)) << c.in;
}

TEST_P(ParseTest, CanonicalStringRoundTrips) {
  const ParseCase& c = GetParam();
  Quantity q = P(c.in);
  StatusOr<Quantity> again = Quantity::Parse(q.String());
  ASSERT_TRUE(again.ok()) << q.String() << ": " << again.status().ToString();
  EXPECT_EQ(*again, q) << c.in;
  EXPECT_EQ(again->String(), q.String()) << c.in;
}

TEST_P(ParseTest, NegatedInputIsNegatedValue) {
  const ParseCase& c = GetParam();
  if (c.in.empty() || c.in[0] == '-' || c.in[0] == '+') return;  // already signed
  Quantity q = P(c.in);
  Quantity neg = P(WithMinus(c.in));
  EXPECT_EQ(neg, q.Neg()) << c.in;
  if (!q.IsZero()) {
    EXPECT_EQ(neg.String(), WithMinus(q.String())) << c.in;
  }
  EXPECT_EQ(FormatName(neg.format()), FormatName(q.format())) << c.in;
}

INSTANTIATE_TEST_SUITE_P(QuantityTest, ParseTest, testing::ValuesIn(ParseCases()),
                         [](const testing::TestParamInfo<ParseCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// ---------------------------------------------------------------------------
// Rejections.

struct RejectCase {
  std::string_view name;
  std::string_view in;
  StatusCode code = StatusCode::kInvalidArgument;
  std::string_view message;  // a substring of the error message
};

TEST(QuantityTest, RejectsWhatKubernetesRejects) {
  const RejectCase cases[] = {
      {.name = "empty", .in = "", .message = "empty string"},
      {.name = "leading_space", .in = " 1", .message = "\" 1\""},
      {.name = "trailing_space", .in = "1 ", .message = "\"1 \""},
      {.name = "space_before_suffix", .in = "1 Gi", .message = "\"1 Gi\""},
      {.name = "trailing_newline", .in = "1\n", .message = "\"1\\x0a\""},
      {.name = "tab", .in = "\t1", .message = "\\x09"},
      {.name = "two_dots", .in = "1.2.3", .message = "<sign><digits>"},
      {.name = "two_dots_suffix", .in = "1.1.M", .message = "\"1.1.M\""},
      {.name = "plus_inside", .in = "1+1.0M", .message = "\"1+1.0M\""},
      {.name = "lowercase_binary", .in = "0.1mi", .message = "unknown suffix \"mi\""},
      {.name = "lowercase_binary_k", .in = "1ki", .message = "unknown suffix \"ki\""},
      {.name = "unknown_letter", .in = "0.1am", .message = "\"0.1am\""},
      {.name = "word", .in = "aoeu", .message = "\"aoeu\""},
      {.name = "non_numeric", .in = "Non-Numeric", .message = "\"Non-Numeric\""},
      {.name = "bare_i_after_dot", .in = ".5i", .message = "unknown suffix \"i\""},
      {.name = "bare_i", .in = "1i", .message = "unknown suffix"},
      {.name = "negative_bare_i", .in = "-3.01i", .message = "unknown suffix"},
      {.name = "exponent_without_digits", .in = "-3.01e-", .message = "unknown suffix \"e-\""},
      {.name = "exponent_plus_without_digits", .in = "1E+", .message = "unknown suffix"},
      {.name = "bare_e", .in = "1e", .message = "unknown suffix \"e\""},
      {.name = "dot_bare_e", .in = "1.e", .message = "unknown suffix"},
      {.name = "only_e", .in = "e", .message = "unknown suffix"},
      {.name = "double_e", .in = "1ee3", .message = "unknown suffix \"ee3\""},
      {.name = "exponent_then_letter", .in = "1e3e3", .message = "\"1e3e3\""},
      {.name = "exponent_fraction", .in = "1e3.5", .message = "\"1e3.5\""},
      {.name = "upper_K", .in = "1K", .message = "unknown suffix \"K\""},
      {.name = "upper_K_200", .in = "200K", .message = "unknown suffix"},
      {.name = "two_suffixes", .in = "10Mm", .message = "unknown suffix \"Mm\""},
      {.name = "double_k", .in = "1kk", .message = "unknown suffix"},
      {.name = "suffix_then_digits", .in = "1Ki5", .message = "unknown suffix \"Ki5\""},
      {.name = "bytes_unit", .in = "1KiB", .message = "\"1KiB\""},
      {.name = "iB", .in = "1iB", .message = "\"1iB\""},
      {.name = "Mo", .in = "10Mo", .message = "\"10Mo\""},
      {.name = "hex", .in = "0x10", .message = "\"0x10\""},
      {.name = "double_sign", .in = "--1", .message = "\"--1\""},
      {.name = "plus_minus", .in = "+-1", .message = "unknown suffix \"-1\""},
      {.name = "thousands_comma", .in = "1,000", .message = "\"1,000\""},
      {.name = "underscore", .in = "1_000", .message = "\"1_000\""},
      {.name = "unicode_digit", .in = "\xd9\xa1", .message = "\\xd9\\xa1"},
      {.name = "fraction_after_suffix", .in = "1Ki.5", .message = "\"1Ki.5\""},
      // Go's inf.Dec path (taken for these suffixes) needs a digit.
      {.name = "digitless_Pi", .in = "Pi", .message = "no digits"},
      {.name = "digitless_Ei", .in = "-.Ei", .message = "\"-.Ei\": no digits"},
      {.name = "digitless_below_nano", .in = "e-10", .message = "no digits"},
      {.name = "digitless_dot_below_nano", .in = "+.e-12", .message = "no digits"},
      {.name = "exponent_past_int32",
       .in = "1e2147483648",
       .message = "exponent out of range [-2147483647, 2147483647]"},
      {.name = "exponent_int32_min", .in = "1e-2147483648", .message = "exponent out of range"},
      {.name = "exponent_wraps_in_old_go", .in = "1e4294967297", .message = "exponent out of range"},
      {.name = "exponent_past_int64", .in = "1E99999999999999999999", .message = "exponent out of range"},
      {.name = "too_many_digits",
       .in = "1234567890123456789012345678901234567891",
       .code = StatusCode::kOutOfRange,
       .message = "needs more than 38 significant digits"},
      {.name = "int128_max_plus_one",
       .in = "170141183460469231731687303715884105728",
       .code = StatusCode::kOutOfRange,
       .message = "\"170141183460469231731687303715884105728\""},
      {.name = "negative_int128_min",
       .in = "-170141183460469231731687303715884105728",
       .code = StatusCode::kOutOfRange,
       .message = "significant digits"},
      {.name = "huge_with_nano",
       .in = "1000000000000000000000000000000.000000001",
       .code = StatusCode::kOutOfRange,
       .message = "significant digits"},
      {.name = "huge_with_sub_nano_round_up",
       .in = "1000000000000000000000000000000.0000000001",
       .code = StatusCode::kOutOfRange,
       .message = "significant digits"},
      {.name = "huge_exponent_with_many_digits",
       .in = "1234567890123456789012345678901234567891e2147483000",
       .code = StatusCode::kOutOfRange,
       .message = "significant digits"},
  };
  for (const RejectCase& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<Quantity> q = Quantity::Parse(c.in);
    ASSERT_FALSE(q.ok()) << "parsed as " << q->String();
    EXPECT_EQ(q.status().code(), c.code) << q.status().ToString();
    EXPECT_NE(q.status().message().find(c.message), std::string::npos) << q.status().ToString();
  }
}

// ---------------------------------------------------------------------------
// Comparison is by value, exactly.

struct CompareCase {
  std::string_view name;
  std::string_view a;
  std::string_view b;
  int want;
};

TEST(QuantityTest, ComparesByExactValue) {
  const CompareCase cases[] = {
      {.name = "decimal_below_binary", .a = "50M", .b = "50Mi", .want = -1},
      {.name = "binary_above_decimal", .a = "50Mi", .b = "50M", .want = 1},
      {.name = "different_suffix_same_value", .a = "200M", .b = "0.2G", .want = 0},
      {.name = "different_value", .a = "200M", .b = "0.3G", .want = -1},
      {.name = "exponent_equals_suffix", .a = "1e3", .b = "1k", .want = 0},
      {.name = "Gi_equals_bytes", .a = "1Gi", .b = "1073741824", .want = 0},
      {.name = "Ki_equals_1024", .a = "1Ki", .b = "1024", .want = 0},
      {.name = "zero_equals_negative_zero", .a = "0", .b = "-0", .want = 0},
      {.name = "zero_formats_equal", .a = "0", .b = "0Ki", .want = 0},
      {.name = "nano_above_zero", .a = "1n", .b = "0", .want = 1},
      {.name = "negative_nano_below_zero", .a = "-1n", .b = "0", .want = -1},
      {.name = "milli", .a = "100m", .b = "50m", .want = 1},
      {.name = "tera_vs_gibi", .a = "10000T", .b = "100Gi", .want = 1},
      {.name = "fraction_equals_milli", .a = "1.5", .b = "1500m", .want = 0},
      {.name = "transitivity_1", .a = "2M", .b = "0.002G", .want = 0},
      {.name = "transitivity_2", .a = "2000k", .b = "2M", .want = 0},
      {.name = "nano_exponent", .a = "1e-9", .b = "1n", .want = 0},
      {.name = "nines_below_power_of_ten", .a = "999999999999999999999999999999999999", .b = "1e36", .want = -1},
      {.name = "huge_exponent_vs_37_digits", .a = "1e100", .b = "9999999999999999999999999999999999999G", .want = 1},
      {.name = "negative_huge", .a = "-1e100", .b = "-1", .want = -1},
      {.name = "int32_exponents", .a = "1e2147483647", .b = "1e2147483646", .want = 1},
      {.name = "tiny_rounds_to_nano", .a = "1e-2147483647", .b = "1n", .want = 0},
      {.name = "one_nano_more", .a = "1.000000001", .b = "1", .want = 1},
      {.name = "negative_one_nano_more", .a = "-1.000000001", .b = "-1", .want = -1},
      {.name = "beyond_int64", .a = "12E", .b = "9223372036854775807", .want = 1},
      {.name = "binary_cap", .a = "8Ei", .b = "9223372036854775807", .want = 0},
      {.name = "binary_fraction", .a = "1.1Ki", .b = "1126400m", .want = 0},
      {.name = "fraction_exponent", .a = "11", .b = "1.1e1", .want = 0},
      {.name = "same_lead_shorter_smaller", .a = "1.01", .b = "1.1", .want = -1},
      {.name = "same_lead_longer_larger", .a = "1.10000001", .b = "1.1", .want = 1},
      {.name = "sign_decides", .a = "-1e100", .b = "1n", .want = -1},
  };
  for (const CompareCase& c : cases) {
    SCOPED_TRACE(c.name);
    Quantity a = P(c.a);
    Quantity b = P(c.b);
    EXPECT_EQ(a.Compare(b), c.want);
    EXPECT_EQ(b.Compare(a), -c.want);
    EXPECT_EQ(a == b, c.want == 0);
    EXPECT_EQ(a < b, c.want < 0);
    EXPECT_EQ(a > b, c.want > 0);
    EXPECT_EQ(a.Neg().Compare(b.Neg()), -c.want);
  }
}

// ---------------------------------------------------------------------------
// Add / Sub / Neg.

struct ArithmeticCase {
  std::string_view name;
  Quantity a;
  char op;  // '+' or '-'
  Quantity b;
  std::string_view want;  // String() of the result
  Format format = kDecimalSI;
};

TEST(QuantityTest, AddsAndSubtractsExactly) {
  const ArithmeticCase cases[] = {
      {.name = "binary_sum", .a = P("1Gi"), .op = '+', .b = P("512Mi"), .want = "1536Mi", .format = kBinarySI},
      {.name = "k_plus_int", .a = P("50k"), .op = '+', .b = P("20"), .want = "50020"},
      {.name = "k_minus_int", .a = P("50k"), .op = '-', .b = P("20"), .want = "49980"},
      {.name = "zero_receiver_takes_other_format",
       .a = Quantity(),
       .op = '+',
       .b = P("1Gi"),
       .want = "1Gi",
       .format = kBinarySI},
      {.name = "zero_receiver_sub_takes_other_format",
       .a = P("0"),
       .op = '-',
       .b = P("1Gi"),
       .want = "-1Gi",
       .format = kBinarySI},
      {.name = "adding_zero_keeps_receiver", .a = P("1Gi"), .op = '+', .b = P("0"), .want = "1Gi", .format = kBinarySI},
      {.name = "subtracting_zero_keeps_receiver", .a = P("100m"), .op = '-', .b = P("0"), .want = "100m"},
      {.name = "zero_plus_zero_takes_other_format",
       .a = P("0"),
       .op = '+',
       .b = P("0Ki"),
       .want = "0",
       .format = kBinarySI},
      {.name = "decimal_receiver_keeps_decimal", .a = P("10"), .op = '+', .b = P("1Ki"), .want = "1034"},
      {.name = "binary_receiver_keeps_binary",
       .a = P("1Ki"),
       .op = '+',
       .b = P("1"),
       .want = "1025",
       .format = kBinarySI},
      {.name = "binary_minus_decimal",
       .a = Quantity::FromInt(10, kBinarySI),
       .op = '-',
       .b = P("1"),
       .want = "9",
       .format = kBinarySI},
      {.name = "fractions_to_integer", .a = P("1.5"), .op = '+', .b = P("1.5"), .want = "3"},
      {.name = "millis_to_one", .a = P("100m"), .op = '+', .b = P("900m"), .want = "1"},
      {.name = "nano_plus_exa", .a = P("1n"), .op = '+', .b = P("1E"), .want = "1000000000000000000000000001n"},
      {.name = "cancel_to_zero", .a = P("1"), .op = '-', .b = P("1"), .want = "0"},
      {.name = "nano_cancel", .a = P("-1n"), .op = '+', .b = P("1n"), .want = "0"},
      {.name = "binary_difference", .a = P("1Gi"), .op = '-', .b = P("1Mi"), .want = "1023Mi", .format = kBinarySI},
      {.name = "goes_negative", .a = P("1"), .op = '-', .b = P("2"), .want = "-1"},
      {.name = "minus_negative", .a = P("1"), .op = '-', .b = P("-1"), .want = "2"},
      {.name = "exponent_sum",
       .a = P("1e100"),
       .op = '+',
       .b = P("1e100"),
       .want = "20e99",
       .format = kDecimalExponent},
      {.name = "carry_to_38_digits",
       .a = P("9999999999999999999999999999999999999"),
       .op = '+',
       .b = P("1"),
       .want = "10e36"},
      {.name = "carry_past_38_digits_normalises",
       .a = P("99999999999999999999999999999999999999"),
       .op = '+',
       .b = P("1"),
       .want = "100e36"},
      {.name = "cancellation_at_int128_limit",
       .a = P("170141183460469231731687303715884105727"),
       .op = '-',
       .b = P("170141183460469231731687303715884105726"),
       .want = "1"},
      {.name = "sub_nano_exact",
       .a = Quantity::FromScaled(1, -12, kDecimalSI),
       .op = '+',
       .b = P("1"),
       .want = "1000000000001e-12"},
      {.name = "int64_min_negated_into_binary_8Ei",
       .a = Quantity(),
       .op = '-',
       .b = Quantity::FromInt(kInt64Min, kBinarySI),
       .want = "8Ei",
       .format = kBinarySI},
      {.name = "one_minus_int64_min",
       .a = P("1"),
       .op = '-',
       .b = Quantity::FromInt(kInt64Min),
       .want = "9223372036854775809"},
      {.name = "milli_minus_int64_min_milli",
       .a = Quantity::FromMilli(1),
       .op = '-',
       .b = Quantity::FromMilli(kInt64Min),
       .want = "9223372036854775809m"},
      {.name = "binary_large_sum_keeps_Ki",
       .a = Quantity::FromInt(1024, kBinarySI),
       .op = '+',
       .b = P("1e30"),
       .want = "976562500000000000000000001Ki",
       .format = kBinarySI},
  };
  for (const ArithmeticCase& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<Quantity> got = c.op == '+' ? c.a.Add(c.b) : c.a.Sub(c.b);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->String(), c.want);
    EXPECT_EQ(FormatName(got->format()), FormatName(c.format));
  }
}

TEST(QuantityTest, ArithmeticBeyond38DigitsIsOutOfRange) {
  const ArithmeticCase cases[] = {
      {.name = "huge_plus_one", .a = P("1e100"), .op = '+', .b = P("1"), .want = "10e99 + 1"},
      {.name = "one_minus_huge", .a = P("1"), .op = '-', .b = P("1e100"), .want = "1 - 10e99"},
      {.name = "int128_max_plus_one",
       .a = P("170141183460469231731687303715884105727"),
       .op = '+',
       .b = P("1"),
       .want = "significant digits"},
      {.name = "negative_int128_max_minus_one",
       .a = P("-170141183460469231731687303715884105727"),
       .op = '-',
       .b = P("1"),
       .want = "significant digits"},
      {.name = "nano_plus_1e30", .a = P("1n"), .op = '+', .b = P("1e30"), .want = "significant digits"},
  };
  for (const ArithmeticCase& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<Quantity> got = c.op == '+' ? c.a.Add(c.b) : c.a.Sub(c.b);
    ASSERT_FALSE(got.ok()) << got->String();
    EXPECT_EQ(got.status().code(), StatusCode::kOutOfRange);
    EXPECT_NE(got.status().message().find(c.want), std::string::npos) << got.status().ToString();
  }
}

TEST(QuantityTest, AddThenSubRestoresValue) {
  // Upstream's TestAddSubRoundTrip, made deterministic and kept within 38
  // digits: 40-bit values at scales -9..9 summed 200 times need about 33.
  Quantity sum;
  std::vector<Quantity> terms;
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 200; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    const auto value = static_cast<int64_t>(x >> 24);
    const auto scale = static_cast<int32_t>(x % 19) - 9;
    terms.push_back(Quantity::FromScaled(i % 2 == 0 ? value : -value, scale, kDecimalSI));
  }
  for (const Quantity& t : terms) {
    StatusOr<Quantity> next = sum.Add(t);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    sum = *next;
  }
  for (const Quantity& t : terms) {
    StatusOr<Quantity> next = sum.Sub(t);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    sum = *next;
  }
  EXPECT_TRUE(sum.IsZero()) << sum.String();
}

TEST(QuantityTest, NegFlipsSignAndKeepsFormat) {
  struct Case {
    std::string_view in;
    std::string_view want;
    Format format;
  };
  const Case cases[] = {
      {.in = "1Gi", .want = "-1Gi", .format = kBinarySI},
      {.in = "-1Gi", .want = "1Gi", .format = kBinarySI},
      {.in = "0", .want = "0", .format = kDecimalSI},
      {.in = "-1.5", .want = "1500m", .format = kDecimalSI},
      {.in = "1e3", .want = "-1e3", .format = kDecimalExponent},
      {.in = "9.01", .want = "-9010m", .format = kDecimalSI},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    Quantity q = P(c.in).Neg();
    EXPECT_EQ(q.String(), c.want);
    EXPECT_EQ(FormatName(q.format()), FormatName(c.format));
    EXPECT_EQ(q.Neg(), P(c.in));
  }
  // 2^63 needs no special case (Go's int64 fast path wraps here).
  EXPECT_EQ(Quantity::FromInt(kInt64Min).Neg().String(), "9223372036854775808");
}

// ---------------------------------------------------------------------------
// Integer accessors.

struct ValueCase {
  std::string_view in;
  int64_t value;
  int64_t milli;
};

TEST(QuantityTest, ValueAndMilliValueRoundAwayFromZero) {
  const ValueCase cases[] = {
      {.in = "0", .value = 0, .milli = 0},
      {.in = "1", .value = 1, .milli = 1000},
      {.in = "-1", .value = -1, .milli = -1000},
      {.in = "1500m", .value = 2, .milli = 1500},
      {.in = "-1500m", .value = -2, .milli = -1500},
      {.in = "0.0005", .value = 1, .milli = 1},
      {.in = "-0.0005", .value = -1, .milli = -1},
      {.in = "1n", .value = 1, .milli = 1},
      {.in = "-1n", .value = -1, .milli = -1},
      {.in = "999m", .value = 1, .milli = 999},
      {.in = "1.1", .value = 2, .milli = 1100},
      {.in = "1Ki", .value = 1024, .milli = 1024000},
      {.in = "-.484785E-1", .value = -1, .milli = -49},
      {.in = ".484785E-1", .value = 1, .milli = 49},
      {.in = "9.5000000001Gi", .value = 10200547329, .milli = 10200547328108},
      {.in = "-9.5000000001Gi", .value = -10200547329, .milli = -10200547328108},
      {.in = "9223372036854775.807", .value = 9223372036854776, .milli = kInt64Max},
      {.in = "9223372036854775.808", .value = 9223372036854776, .milli = kInt64Max},
      {.in = "9223372036854775807", .value = kInt64Max, .milli = kInt64Max},
      {.in = "-9223372036854775808", .value = kInt64Min, .milli = kInt64Min},
      {.in = "-9223372036854775809", .value = kInt64Min, .milli = kInt64Min},
      {.in = "1e100", .value = kInt64Max, .milli = kInt64Max},
      {.in = "-1e100", .value = kInt64Min, .milli = kInt64Min},
      {.in = "1e-2147483647", .value = 1, .milli = 1},
      {.in = "12e6", .value = 12000000, .milli = 12000000000},
  };
  for (const ValueCase& c : cases) {
    SCOPED_TRACE(c.in);
    Quantity q = P(c.in);
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli);
    EXPECT_EQ(q.ScaledValue(0), c.value);
    EXPECT_EQ(q.ScaledValue(-3), c.milli);
  }
}

TEST(QuantityTest, ScaledValueConvertsBetweenScales) {
  struct Case {
    int32_t from;
    int32_t to;
    int64_t want;
  };
  const Case cases[] = {
      {.from = -9, .to = -9, .want = 1},
      {.from = -9, .to = -6, .want = 1},
      {.from = -9, .to = 0, .want = 1},
      {.from = -6, .to = -9, .want = 1000},
      {.from = -3, .to = -9, .want = 1000000},
      {.from = 0, .to = -9, .want = 1000000000},
      {.from = 0, .to = -3, .want = 1000},
      {.from = 2, .to = -2, .want = 10000},
      {.from = 18, .to = 0, .want = 1000000000000000000},
      {.from = 19, .to = 0, .want = kInt64Max},
      {.from = -2147483647, .to = 2147483647, .want = 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.from << " -> " << c.to);
    EXPECT_EQ(Quantity::FromScaled(1, c.from, kDecimalSI).ScaledValue(c.to), c.want);
    EXPECT_EQ(Quantity::FromScaled(-1, c.from, kDecimalSI).ScaledValue(c.to),
              c.want == kInt64Max ? kInt64Min : -c.want);
  }
}

struct AsInt64Case {
  std::string_view in;
  std::optional<int64_t> want;
};

TEST(QuantityTest, AsInt64IsExactIntegerOrNothing) {
  const AsInt64Case cases[] = {
      {.in = "0", .want = 0},
      {.in = "1", .want = 1},
      {.in = "-1", .want = -1},
      {.in = "1k", .want = 1000},
      {.in = "1000m", .want = 1},
      {.in = "12e6", .want = 12000000},
      {.in = "1E", .want = 1000000000000000000},
      {.in = "1.5", .want = std::nullopt},
      {.in = "1n", .want = std::nullopt},
      {.in = "-1500m", .want = std::nullopt},
      {.in = "9223372036854775807", .want = kInt64Max},
      {.in = "9223372036854775808", .want = std::nullopt},
      {.in = "-9223372036854775808", .want = kInt64Min},
      {.in = "-9223372036854775809", .want = std::nullopt},
      {.in = "1e19", .want = std::nullopt},
      {.in = "8Ei", .want = kInt64Max},
      {.in = "1e2147483647", .want = std::nullopt},
      {.in = "9999999999999999999999999999999999999G", .want = std::nullopt},
  };
  for (const AsInt64Case& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(P(c.in).AsInt64(), c.want);
  }
}

// ---------------------------------------------------------------------------
// Constructors and the canonical form of values parsing cannot produce.

struct ScaledCase {
  std::string_view name;
  Quantity q;
  std::string_view want;
};

TEST(QuantityTest, FromScaledPrintsCanonically) {
  const ScaledCase cases[] = {
      {.name = "nano", .q = Quantity::FromScaled(1, -9, kDecimalSI), .want = "1n"},
      {.name = "thousand_nano", .q = Quantity::FromScaled(1000, -9, kDecimalSI), .want = "1u"},
      {.name = "micro", .q = Quantity::FromScaled(1, -6, kDecimalSI), .want = "1u"},
      {.name = "thousand_micro", .q = Quantity::FromScaled(1000, -6, kDecimalSI), .want = "1m"},
      {.name = "milli", .q = Quantity::FromMilli(1), .want = "1m"},
      {.name = "thousand_milli", .q = Quantity::FromMilli(1000), .want = "1"},
      {.name = "zero_nano", .q = Quantity::FromScaled(0, -9, kDecimalSI), .want = "0"},
      {.name = "exa", .q = Quantity::FromScaled(1, 18, kDecimalSI), .want = "1E"},
      {.name = "past_exa", .q = Quantity::FromScaled(1, 21, kDecimalSI), .want = "1e21"},
      {.name = "past_exa_five", .q = Quantity::FromScaled(5, 21, kDecimalSI), .want = "5e21"},
      {.name = "past_exa_far", .q = Quantity::FromScaled(1, 24, kDecimalSI), .want = "1e24"},
      {.name = "below_nano", .q = Quantity::FromScaled(1, -12, kDecimalSI), .want = "1e-12"},
      {.name = "below_nano_not_multiple_of_3", .q = Quantity::FromScaled(1, -10, kDecimalSI), .want = "100e-12"},
      {.name = "far_below_nano", .q = Quantity::FromScaled(-7, -400, kDecimalSI), .want = "-700e-402"},
      {.name = "int32_min_scale",
       .q = Quantity::FromScaled(7, std::numeric_limits<int32_t>::min(), kDecimalSI),
       .want = "70e-2147483649"},
      {.name = "past_int32_exponent", .q = Quantity::FromScaled(100, 2147483646, kDecimalSI), .want = "100e2147483646"},
      {.name = "binary_past_Ei_exponent", .q = Quantity::FromScaled(1, 70, kBinarySI), .want = "10e69"},
      {.name = "binary_past_Ei_two", .q = Quantity::FromScaled(2, 70, kBinarySI), .want = "20e69"},
      {.name = "binary_past_Ei_72", .q = Quantity::FromScaled(1, 72, kBinarySI), .want = "1e72"},
      {.name = "binary_Ei_wider_than_128_bits",
       .q = Quantity::FromScaled(1, 60, kBinarySI),
       .want = "867361737988403547205962240695953369140625Ei"},
      {.name = "binary_fraction", .q = Quantity::FromScaled(1234567, -3, kBinarySI), .want = "1234567m"},
      {.name = "decimal_mega", .q = Quantity::FromScaled(1234567, 6, kDecimalSI), .want = "1234567M"},
      {.name = "binary_plain", .q = Quantity::FromInt(1025, kBinarySI), .want = "1025"},
      {.name = "binary_2000", .q = Quantity::FromInt(2000, kBinarySI), .want = "2000"},
      {.name = "binary_minus_2000", .q = Quantity::FromInt(-2000, kBinarySI), .want = "-2000"},
      {.name = "binary_small", .q = Quantity::FromInt(5, kBinarySI), .want = "5"},
      {.name = "binary_half", .q = Quantity::FromScaled(500, -3, kBinarySI), .want = "500m"},
      {.name = "exponent_giga", .q = Quantity::FromScaled(1, 9, kDecimalExponent), .want = "1e9"},
      {.name = "exponent_milli", .q = Quantity::FromScaled(80, -3, kDecimalExponent), .want = "80e-3"},
      {.name = "exponent_mega", .q = Quantity::FromScaled(300, 6, kDecimalExponent), .want = "300e6"},
      {.name = "exponent_nano", .q = Quantity::FromScaled(1, -9, kDecimalExponent), .want = "1e-9"},
      {.name = "binary_Ki", .q = Quantity::FromInt(1024, kBinarySI), .want = "1Ki"},
      {.name = "binary_Mi", .q = Quantity::FromInt(1048576, kBinarySI), .want = "1Mi"},
      {.name = "binary_milli_below_1024", .q = Quantity::FromMilli(1024, kBinarySI), .want = "1024m"},
      {.name = "binary_milli_fraction", .q = Quantity::FromMilli(1048576, kBinarySI), .want = "1048576m"},
      {.name = "exponent_int", .q = Quantity::FromInt(1000000, kDecimalExponent), .want = "1e6"},
      {.name = "exponent_milli_int", .q = Quantity::FromMilli(1000000, kDecimalExponent), .want = "1e3"},
      {.name = "h200_memory", .q = Quantity::FromInt(150754820096, kBinarySI), .want = "143771Mi"},
      {.name = "gpu_memory_140Gi", .q = Quantity::FromInt(int64_t{143360} * 1048576, kBinarySI), .want = "140Gi"},
      {.name = "gpu_memory_4864Mi", .q = Quantity::FromInt(int64_t{4864} * 1048576, kBinarySI), .want = "4864Mi"},
      {.name = "count", .q = Quantity::FromInt(14, kBinarySI), .want = "14"},
      {.name = "int64_min_binary", .q = Quantity::FromInt(kInt64Min, kBinarySI), .want = "-8Ei"},
      {.name = "int64_max", .q = Quantity::FromInt(kInt64Max), .want = "9223372036854775807"},
      {.name = "thousand", .q = Quantity::FromInt(1000), .want = "1k"},
      {.name = "thousands", .q = Quantity::FromInt(1234000), .want = "1234k"},
      {.name = "sub_nano_exponent", .q = Quantity::FromScaled(7, -18, kDecimalSI), .want = "7e-18"},
  };
  for (const ScaledCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.q.String(), c.want);
  }
}

TEST(QuantityTest, BinaryPast2To70PrintsDecimalDigits) {
  // 2^70 in BinarySI has no suffix; only arithmetic reaches it.
  Quantity q = Quantity::FromInt(1024, kBinarySI);
  StatusOr<Quantity> grown = q.Add(P("1180591620717411303424"));
  ASSERT_TRUE(grown.ok());
  StatusOr<Quantity> two_to_70 = grown->Sub(Quantity::FromInt(1024));
  ASSERT_TRUE(two_to_70.ok());
  EXPECT_EQ(FormatName(two_to_70->format()), FormatName(kBinarySI));
  EXPECT_EQ(two_to_70->String(), "1180591620717411303424");
  EXPECT_EQ(P(two_to_70->String()), *two_to_70);
}

TEST(QuantityTest, DefaultIsZeroDecimalSI) {
  Quantity q;
  EXPECT_TRUE(q.IsZero());
  EXPECT_EQ(q.Sign(), 0);
  EXPECT_EQ(q.String(), "0");
  EXPECT_EQ(FormatName(q.format()), FormatName(kDecimalSI));
  EXPECT_EQ(q, P("0"));
}

TEST(QuantityTest, SignOfParsedValues) {
  EXPECT_EQ(P("1n").Sign(), 1);
  EXPECT_EQ(P("-1n").Sign(), -1);
  EXPECT_EQ(P("-0").Sign(), 0);
  EXPECT_EQ(P("1e100").Sign(), 1);
  EXPECT_EQ(P("-8Ei").Sign(), -1);
  EXPECT_FALSE(P("1n").IsZero());
  EXPECT_TRUE(P("0Gi").IsZero());
}

// ---------------------------------------------------------------------------
// Floating point.

struct FloatCase {
  std::string_view in;
  double want;
};

TEST(QuantityTest, AsApproximateFloat64IsNearestDouble) {
  const double inf = std::numeric_limits<double>::infinity();
  const FloatCase cases[] = {
      {.in = "0", .want = 0.0},
      {.in = "2Ki", .want = 2048.0},
      {.in = "1.1Ki", .want = 1126.4},
      {.in = "1Mi", .want = 1048576.0},
      {.in = "2Gi", .want = 2147483648.0},
      {.in = "50.703k", .want = 50703.0},
      {.in = "0.1", .want = 0.1},
      {.in = "-1.5", .want = -1.5},
      {.in = "1n", .want = 1e-9},
      {.in = "12E", .want = 1.2e19},
      {.in = "8Ei", .want = 9223372036854775807.0},
      {.in = "1e308", .want = 1e308},
      {.in = "1e500", .want = inf},
      {.in = "-1e500", .want = -inf},
      {.in = "1e-2147483647", .want = 1e-9},
  };
  for (const FloatCase& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(P(c.in).AsApproximateFloat64(), c.want);
  }
  EXPECT_EQ(Quantity::FromScaled(1, -400, kDecimalSI).AsApproximateFloat64(), 0.0);
  EXPECT_EQ(Quantity::FromScaled(7 * 1024 * 1024, -8, kDecimalSI).AsApproximateFloat64(),
            7.0 * 1024 * 1024 / 100000000);
}

}  // namespace
}  // namespace dra::quantity
