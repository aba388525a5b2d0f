#include "cel/lib/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/testing/cases.h"

namespace dra::cel::lib {
namespace {

using A = FormatArg;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// "× 10" with the narrow no-break spaces x/text puts around the sign.
constexpr std::string_view kTimesTen = "\u202f\u00d7\u202f10";

std::string Sci(std::string_view mantissa, std::string_view superscript_exponent) {
  std::string out(mantissa);
  out.append(kTimesTen).append(superscript_exponent);
  return out;
}

struct FormatCase {
  std::string_view name;
  std::string_view format;
  std::vector<FormatArg> args;
  std::string want = {};        // output, when formatting succeeds
  std::string want_error = {};  // exact message, when it fails
};

void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.name; }

std::vector<FormatCase> CelGoCases() {
  return {
      // cel-go ext/strings_test.go TestStringFormat (legacy formatter, en_US).
      {.name = "no_op", .format = "no substitution", .args = {}, .want = "no substitution"},
      {.name = "mid_string",
       .format = "str is %s and some more",
       .args = {A::String("filler")},
       .want = "str is filler and some more"},
      {.name = "percent_escaping", .format = "%% and also %%", .args = {}, .want = "% and also %"},
      {.name = "inside_escaped_percents", .format = "%%%s%%", .args = {A::String("text")}, .want = "%text%"},
      {.name = "percent_on_the_right",
       .format = "%s%%",
       .args = {A::String("percent on the right")},
       .want = "percent on the right%"},
      {.name = "multiple",
       .format = "%d %d %d, %s %s %s, %d %d %d, %s %s %s",
       .args = {A::Int(1), A::Int(2), A::Int(3), A::String("A"), A::String("B"), A::String("C"), A::Int(4), A::Int(5),
                A::Int(6), A::String("D"), A::String("E"), A::String("F")},
       .want = "1 2 3, A B C, 4 5 6, D E F"},
      {.name = "fixed_point", .format = "%.3f", .args = {A::Double(1.2345)}, .want = "1.234"},
      {.name = "binary", .format = "this is 5 in binary: %b", .args = {A::Int(5)}, .want = "this is 5 in binary: 101"},
      {.name = "binary_uint", .format = "%b", .args = {A::Uint(64)}, .want = "1000000"},
      {.name = "binary_bool",
       .format = "bit set from bool: %b",
       .args = {A::Bool(true)},
       .want = "bit set from bool: 1"},
      {.name = "binary_false", .format = "%b", .args = {A::Bool(false)}, .want = "0"},
      {.name = "octal", .format = "%o", .args = {A::Int(11)}, .want = "13"},
      {.name = "octal_uint", .format = "%o", .args = {A::Uint(65535)}, .want = "177777"},
      {.name = "hex_lower",
       .format = "%x is 20 in hexadecimal",
       .args = {A::Int(30)},
       .want = "1e is 20 in hexadecimal"},
      {.name = "hex_upper", .format = "%X", .args = {A::Int(30)}, .want = "1E"},
      {.name = "hex_uint", .format = "%X", .args = {A::Uint(6000)}, .want = "1770"},
      {.name = "hex_string", .format = "%x", .args = {A::String("Hello world!")}, .want = "48656c6c6f20776f726c6421"},
      {.name = "hex_string_upper",
       .format = "%X",
       .args = {A::String("Hello world!")},
       .want = "48656C6C6F20776F726C6421"},
      {.name = "hex_bytes", .format = "%x", .args = {A::Bytes("byte string")}, .want = "6279746520737472696e67"},
      {.name = "hex_bytes_upper", .format = "%X", .args = {A::Bytes("byte string")}, .want = "6279746520737472696E67"},
      {.name = "scientific",
       .format = "%.6e",
       .args = {A::Double(1052.032911275)},
       .want = Sci("1.052033", "\u2070\u00b3")},
      {.name = "default_precision_fixed", .format = "%f", .args = {A::Double(2.71828)}, .want = "2.718280"},
      {.name = "default_precision_scientific",
       .format = "%e",
       .args = {A::Double(2.71828)},
       .want = Sci("2.718280", "\u2070\u2070")},
      {.name = "nan_string_fixed", .format = "%f", .args = {A::String("NaN")}, .want = "NaN"},
      {.name = "infinity_string_fixed", .format = "%f", .args = {A::String("Infinity")}, .want = "\u221e"},
      {.name = "negative_infinity_string_fixed", .format = "%f", .args = {A::String("-Infinity")}, .want = "-\u221e"},
      {.name = "nan_fixed",
       .format = "NaN: %f, infinity: %f",
       .args = {A::Double(kNaN), A::Double(kInf)},
       .want = "NaN: NaN, infinity: \u221e"},
      {.name = "uint_decimal", .format = "%d", .args = {A::Uint(64)}, .want = "64"},
      {.name = "null_string", .format = "null: %s", .args = {A::Null()}, .want = "null: null"},
      {.name = "bytes_string", .format = "some bytes: %s", .args = {A::Bytes("xyz")}, .want = "some bytes: xyz"},
      {.name = "type_string", .format = "type is %s", .args = {A::Type("string")}, .want = "type is string"},
      {.name = "timestamp_string",
       .format = "%s",
       .args = {A::Timestamp("2023-02-03T23:31:20Z")},
       .want = "2023-02-03T23:31:20Z"},
      {.name = "duration_string", .format = "%s", .args = {A::Duration("6347s")}, .want = "6347s"},
      {.name = "list_string",
       .format = "%s",
       .args = {A::List({A::String("abc"), A::Double(3.14), A::Null(),
                         A::List({A::Int(9), A::Int(8), A::Int(7), A::Int(6)}), A::Timestamp("2023-02-03T23:31:20Z")})},
       .want = R"(["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")])"},
      {.name = "map_string",
       .format = "%s",
       .args = {A::Map({{A::String("key1"), A::Bytes("xyz")},
                        {A::String("key5"), A::Null()},
                        {A::String("key2"), A::Duration("7200s")},
                        {A::String("key4"), A::Bool(true)},
                        {A::String("key3"), A::Double(2.71828)}})},
       .want = R"({"key1":b"xyz", "key2":duration("7200s"), )"
               R"("key3":2.718280, "key4":true, "key5":null})"},
      {.name = "map_all_key_types",
       .format = "map with multiple key types: %s",
       .args = {A::Map(
           {{A::Int(1), A::String("value1")}, {A::Uint(2), A::String("value2")}, {A::Bool(true), A::Double(kNaN)}})},
       .want = R"(map with multiple key types: {1:"value1", 2:"value2", true:"NaN"})"},
      {.name = "bools",
       .format = "true bool: %s, false bool: %s",
       .args = {A::Bool(true), A::Bool(false)},
       .want = "true bool: true, false bool: false"},
      {.name = "numbers_as_string",
       .format = "dynIntStr: %s dynDoubleStr: %s",
       .args = {A::Int(32), A::Double(56.8)},
       .want = "dynIntStr: 32 dynDoubleStr: 56.8"},
      {.name = "dyn_hex", .format = "dynamic hex int: %x", .args = {A::Int(22)}, .want = "dynamic hex int: 16"},
      {.name = "dyn_hex_unsigned", .format = "%x", .args = {A::Uint(500)}, .want = "1f4"},
      {.name = "dyn_fixed",
       .format = "dynamic double: %.3f",
       .args = {A::Double(4.5)},
       .want = "dynamic double: 4.500"},
      {.name = "dyn_list",
       .format = "dyntype list: %s",
       .args = {A::List({A::Int(6), A::Double(4.2), A::String("a string")})},
       .want = R"(dyntype list: [6, 4.200000, "a string"])"},
      {.name = "dyn_map",
       .format = "dyntype map: %s",
       .args = {A::Map(
           {{A::String("strKey"), A::String("x")}, {A::Bool(true), A::Int(42)}, {A::Int(6), A::Duration("422s")}})},
       .want = R"(dyntype map: {"strKey":"x", 6:duration("422s"), true:42})"},
      {.name = "dyn_duration",
       .format = "dyntype duration: %s",
       .args = {A::Duration("8747s")},
       .want = "dyntype duration: 8747s"},
  };
}

std::vector<FormatCase> CelGoErrorCases() {
  return {
      // Errors from the same table.
      {.name = "unrecognized_clause",
       .format = "%a",
       .args = {A::Int(1)},
       .want_error = R"(could not parse formatting clause: unrecognized formatting clause "a")"},
      {.name = "out_of_bounds_arg",
       .format = "%d %d %d",
       .args = {A::Int(0), A::Int(1)},
       .want_error = "index 2 out of range"},
      {.name = "binary_string",
       .format = "string is %b",
       .args = {A::String("abc")},
       .want_error = "error during formatting: only integers and bools can be formatted as "
                     "binary, was given string"},
      {.name = "decimal_duration",
       .format = "%d",
       .args = {A::Duration("1802s")},
       .want_error = "error during formatting: decimal clause can only be used on integers, was "
                     "given google.protobuf.Duration"},
      {.name = "octal_string",
       .format = "octal: %o",
       .args = {A::String("a string")},
       .want_error = "error during formatting: octal clause can only be used on integers, was "
                     "given string"},
      {.name = "hex_double",
       .format = "double is %x",
       .args = {A::Double(0.5)},
       .want_error = "error during formatting: only integers, byte buffers, and strings can be "
                     "formatted as hex, was given double"},
      {.name = "uppercase_scientific",
       .format = "double is %E",
       .args = {A::Double(0.5)},
       .want_error = R"(could not parse formatting clause: unrecognized formatting clause "E")"},
      {.name = "object",
       .format = "object is %s",
       .args = {A::Other("ext.TestAllTypes")},
       .want_error = "error during formatting: string clause can only be used on strings, bools, "
                     "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was "
                     "given ext.TestAllTypes"},
      {.name = "object_in_list",
       .format = "%s",
       .args = {A::List({A::Int(1), A::Int(2), A::Other("ext.TestAllTypes")})},
       .want_error = "error during formatting: no formatting function for ext.TestAllTypes"},
      {.name = "object_in_map",
       .format = "%s",
       .args = {A::Map({{A::Int(1), A::String("a")}, {A::Int(2), A::Other("ext.TestAllTypes")}})},
       .want_error = "error during formatting: no formatting function for ext.TestAllTypes"},
      {.name = "null_decimal",
       .format = "null: %d",
       .args = {A::Null()},
       .want_error = "error during formatting: decimal clause can only be used on integers, was "
                     "given null_type"},
      {.name = "null_scientific",
       .format = "null: %e",
       .args = {A::Null()},
       .want_error = "error during formatting: scientific clause can only be used on doubles, "
                     "was given null_type"},
      {.name = "null_fixed",
       .format = "null: %f",
       .args = {A::Null()},
       .want_error = "error during formatting: fixed-point clause can only be used on doubles, "
                     "was given null_type"},
      {.name = "null_hex",
       .format = "null: %X",
       .args = {A::Null()},
       .want_error = "error during formatting: only integers, byte buffers, and strings can be "
                     "formatted as hex, was given null_type"},
      {.name = "null_binary",
       .format = "null: %b",
       .args = {A::Null()},
       .want_error = "error during formatting: only integers and bools can be formatted as "
                     "binary, was given null_type"},
      {.name = "null_octal",
       .format = "null: %o",
       .args = {A::Null()},
       .want_error = "error during formatting: octal clause can only be used on integers, was "
                     "given null_type"},
  };
}

std::vector<FormatCase> NumberRenderingCases() {
  return {
      // The legacy formatter where cel-spec's strings v4 differs (string_ext
      // vectors marked k8s: false): %f/%e take only doubles, x/text renders.
      {.name = "fixed_rejects_int",
       .format = "%f",
       .args = {A::Int(1)},
       .want_error = "error during formatting: fixed-point clause can only be used on doubles, "
                     "was given int"},
      {.name = "scientific_rejects_uint",
       .format = "%e",
       .args = {A::Uint(3)},
       .want_error = "error during formatting: scientific clause can only be used on doubles, "
                     "was given uint"},
      {.name = "fixed_rejects_other_strings",
       .format = "%f",
       .args = {A::String("nan")},
       .want_error = "error during formatting: fixed-point clause can only be used on doubles, "
                     "was given string"},
      {.name = "decimal_rejects_double",
       .format = "%d",
       .args = {A::Double(kNaN)},
       .want_error = "error during formatting: decimal clause can only be used on integers, was "
                     "given double"},
      // x/text number rendering for en_US.
      {.name = "fixed_groups_thousands", .format = "%.2f", .args = {A::Double(1234.5)}, .want = "1,234.50"},
      {.name = "fixed_negative_grouped",
       .format = "%f",
       .args = {A::Double(-1234567.891)},
       .want = "-1,234,567.891000"},
      {.name = "fixed_huge", .format = "%f", .args = {A::Double(1e20)}, .want = "100,000,000,000,000,000,000.000000"},
      {.name = "fixed_rounds_into_next_group",
       .format = "%f",
       .args = {A::Double(999999.9999999)},
       .want = "1,000,000.000000"},
      {.name = "fixed_zero_precision_half_even", .format = "%.0f", .args = {A::Double(2.5)}, .want = "2"},
      {.name = "fixed_zero_precision_half_even_odd", .format = "%.0f", .args = {A::Double(1.5)}, .want = "2"},
      {.name = "fixed_zero_precision_carry", .format = "%.0f", .args = {A::Double(9.6)}, .want = "10"},
      {.name = "fixed_exact_binary_value_rounds", .format = "%.1f", .args = {A::Double(0.35)}, .want = "0.3"},
      {.name = "fixed_negative_zero_has_no_sign", .format = "%f", .args = {A::Double(-0.0)}, .want = "0.000000"},
      {.name = "fixed_tiny_negative_keeps_sign", .format = "%.2f", .args = {A::Double(-0.0001)}, .want = "-0.00"},
      {.name = "fixed_small", .format = "%f", .args = {A::Double(0.0025777260126832436)}, .want = "0.002578"},
      {.name = "fixed_negative_infinity", .format = "%f", .args = {A::Double(-kInf)}, .want = "-\u221e"},
      // x/text keeps the precision in a uint8 (minimum) and an int16 (maximum).
      {.name = "fixed_precision_300",
       .format = "%.300f",
       .args = {A::Double(1.5)},
       .want = "1.5" + std::string(43, '0')},
      {.name = "fixed_precision_256", .format = "%.256f", .args = {A::Double(1.5)}, .want = "1.5"},
      {.name = "fixed_precision_65536", .format = "%.65536f", .args = {A::Double(1.25)}, .want = "1"},
      {.name = "fixed_precision_too_long", .format = "%.10000010f", .args = {A::Double(1.5)}, .want = "%!(NOVERB)"},
      {.name = "scientific_negative_exponent",
       .format = "%e",
       .args = {A::Double(-0.00012345)},
       .want = Sci("-1.234500", "\u207b\u2070\u2074")},
      {.name = "scientific_zero", .format = "%e", .args = {A::Double(0.0)}, .want = Sci("0.000000", "\u2070\u2070")},
      {.name = "scientific_three_digit_exponent",
       .format = "%e",
       .args = {A::Double(1e100)},
       .want = Sci("1.000000", "\u00b9\u2070\u2070")},
      {.name = "scientific_rounds_up",
       .format = "%e",
       .args = {A::Double(9.9999999)},
       .want = Sci("1.000000", "\u2070\u00b9")},
      {.name = "scientific_subnormal",
       .format = "%e",
       .args = {A::Double(5e-324)},
       .want = Sci("4.940656", "\u207b\u00b3\u00b2\u2074")},
      // cel-go passes the %e precision to x/text as a width, not a precision.
      {.name = "scientific_precision_is_width",
       .format = "%.3e",
       .args = {A::Double(123456.0)},
       .want = Sci("1.234560", "\u2070\u2075")},
      {.name = "scientific_zero_precision",
       .format = "%.0e",
       .args = {A::Double(2.5)},
       .want = Sci("2.500000", "\u2070\u2070")},
      {.name = "scientific_wide",
       .format = "%.30e",
       .args = {A::Double(-1.5)},
       .want = std::string(14, ' ') + Sci("-1.500000", "\u2070\u2070")},
      {.name = "scientific_nan_padded_to_default_width", .format = "%e", .args = {A::Double(kNaN)}, .want = "   NaN"},
      {.name = "scientific_infinity_padded", .format = "%e", .args = {A::String("-Infinity")}, .want = "    -\u221e"},
      {.name = "scientific_width_too_long", .format = "%.123456789e", .args = {A::Double(1.5)}, .want = "%!(NOVERB)"},
  };
}

std::vector<FormatCase> ValueCases() {
  return {
      // %s of doubles is CEL's string(double), Go's shortest 'g' form.
      {.name = "string_of_large_double", .format = "%s", .args = {A::Double(1e21)}, .want = "1e+21"},
      {.name = "string_of_double_exponent", .format = "%s", .args = {A::Double(123456789.0)}, .want = "1.23456789e+08"},
      {.name = "string_of_small_double", .format = "%s", .args = {A::Double(1e-7)}, .want = "1e-07"},
      {.name = "string_of_negative_zero", .format = "%s", .args = {A::Double(-0.0)}, .want = "-0"},
      {.name = "string_of_infinity", .format = "%s", .args = {A::Double(-kInf)}, .want = "-Inf"},
      {.name = "list_of_non_finite",
       .format = "%s",
       .args = {A::List({A::Double(kNaN), A::Double(kInf), A::Double(-kInf)})},
       .want = R"(["NaN", "+Inf", "-Inf"])"},
      // Integer verbs.
      {.name = "hex_negative", .format = "%x", .args = {A::Int(-255)}, .want = "-ff"},
      {.name = "hex_int_min", .format = "%X", .args = {A::Int(INT64_MIN)}, .want = "-8000000000000000"},
      {.name = "binary_int_min", .format = "%b", .args = {A::Int(INT64_MIN)}, .want = "-1" + std::string(63, '0')},
      {.name = "octal_negative", .format = "%o", .args = {A::Int(-8)}, .want = "-10"},
      {.name = "decimal_uint_max", .format = "%d", .args = {A::Uint(UINT64_MAX)}, .want = "18446744073709551615"},
      // Precision is parsed on every verb but only %f and %e use it.
      {.name = "precision_ignored_on_decimal", .format = "%.2d", .args = {A::Int(7)}, .want = "7"},
      {.name = "precision_ignored_on_string", .format = "%.2s", .args = {A::String("abc")}, .want = "abc"},
      // Extra arguments are ignored at run time.
      {.name = "extra_arguments", .format = "%s", .args = {A::Int(1), A::Int(2)}, .want = "1"},
      // Lists and maps: Go quoting, byte-wise key order, nested values.
      {.name = "list_quotes_strings",
       .format = "%s",
       .args = {A::List({A::String("a\nb"), A::String("\u00e9\u00a0")})},
       .want = R"(["a\nb", "é\u00a0"])"},
      {.name = "list_quotes_bytes", .format = "%s", .args = {A::List({A::Bytes("q\"x")})}, .want = R"([b"q\"x"])"},
      {.name = "list_of_type_and_null",
       .format = "%s",
       .args = {A::List({A::Type("int"), A::Null()})},
       .want = "[int, null]"},
      {.name = "list_of_fractional_duration",
       .format = "%s",
       .args = {A::List({A::Duration("1.5s")})},
       .want = R"([duration("1.5s")])"},
      {.name = "map_keys_sorted_bytewise",
       .format = "%s",
       .args = {A::Map({{A::String(""), A::Int(1)}, {A::Int(2), A::Int(3)}, {A::String("\u00e9"), A::Int(4)}})},
       .want = R"({"":1, "é":4, 2:3})"},
      {.name = "empty_list", .format = "%s", .args = {A::List({})}, .want = "[]"},
      {.name = "empty_map", .format = "%s", .args = {A::Map({})}, .want = "{}"},
      {.name = "map_double_key",
       .format = "%s",
       .args = {A::Map({{A::Double(1.5), A::Int(1)}})},
       .want_error = "error during formatting: no formatting function for map key of type double"},
      {.name = "invalid_utf8_bytes",
       .format = "%s",
       .args = {A::Bytes("\xff")},
       .want_error = "error during formatting: could not convert argument \"invalid UTF-8 in "
                     "bytes, cannot convert to string\" to string"},
      {.name = "invalid_utf8_bytes_in_list",
       .format = "%s",
       .args = {A::List({A::Bytes("\xff")})},
       .want_error = "error during formatting: could not convert argument \"invalid UTF-8 in "
                     "bytes, cannot convert to string\" to string"},
  };
}

std::vector<FormatCase> ClauseErrorCases() {
  return {
      // Clause syntax errors.
      {.name = "lone_percent", .format = "%", .args = {A::Int(1)}, .want_error = "unexpected end of string"},
      {.name = "lone_percent_without_args", .format = "%", .args = {}, .want_error = "index 0 out of range"},
      {.name = "empty_precision",
       .format = "%.f",
       .args = {A::Double(1.0)},
       .want_error = "could not parse formatting clause: error while parsing precision: error "
                     "while converting precision to integer: strconv.Atoi: parsing \"\": "
                     "invalid syntax"},
      {.name = "unterminated_precision",
       .format = "%.3",
       .args = {A::Double(1.0)},
       .want_error = "could not parse formatting clause: error while parsing precision: could "
                     "not find end of precision specifier"},
      {.name = "precision_out_of_range",
       .format = "%.99999999999999999999f",
       .args = {A::Double(1.0)},
       .want_error = "could not parse formatting clause: error while parsing precision: error "
                     "while converting precision to integer: strconv.Atoi: parsing "
                     "\"99999999999999999999\": value out of range"},
      {.name = "width_is_not_a_clause",
       .format = "%5d",
       .args = {A::Int(1)},
       .want_error = R"(could not parse formatting clause: unrecognized formatting clause "5")"},
      {.name = "flag_is_not_a_clause",
       .format = "%-d",
       .args = {A::Int(1)},
       .want_error = R"(could not parse formatting clause: unrecognized formatting clause "-")"},
      // The verb is read as one byte and printed as that code point.
      {.name = "non_ascii_verb",
       .format = "%\u00e9",
       .args = {A::Int(1)},
       .want_error = "could not parse formatting clause: unrecognized formatting clause "
                     "\"\u00c3\""},
  };
}

const std::vector<FormatCase>& FormatCases() {
  static const std::vector<FormatCase> cases =
      JoinTestCases<FormatCase>({CelGoCases, CelGoErrorCases, NumberRenderingCases, ValueCases, ClauseErrorCases});
  return cases;
}

class FormatTest : public testing::TestWithParam<FormatCase> {};

TEST_P(FormatTest, FormatsLikeCelGoLegacyFormatter) {
  const FormatCase& c = GetParam();
  StatusOr<std::string> got = FormatString(c.format, c.args);
  if (c.want_error.empty()) {
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  } else {
    ASSERT_FALSE(got.ok()) << "formatted as " << *got;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), c.want_error);
  }
}

INSTANTIATE_TEST_SUITE_P(FormatTest, FormatTest, testing::ValuesIn(FormatCases()),
                         [](const testing::TestParamInfo<FormatCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// ---------------------------------------------------------------------------
// The compile-time check of literal format() calls (cel-go's
// stringFormatValidator). Expectations from compiling the same expressions
// with cel-go v0.26.0 and ext.Strings(ext.StringsVersion(2)).

FormatArgType T(std::string name, std::vector<FormatArgType> elements = {}) {
  return FormatArgType{std::move(name), std::move(elements)};
}

struct CheckCase {
  std::string_view name;
  std::string_view format;
  std::vector<FormatArgType> args;
  std::string want_error = {};  // empty: the call compiles
  std::vector<size_t> want_path = {};
};

void PrintTo(const CheckCase& c, std::ostream* os) { *os << c.name; }

const std::vector<CheckCase>& CheckCases() {
  static const std::vector<CheckCase> cases = {
      {.name = "string_and_int", .format = "%s-%d", .args = {T("string"), T("int")}},
      {.name = "dyn_passes", .format = "%s %d %f %x", .args = {T("dyn"), T("dyn"), T("dyn"), T("dyn")}},
      {.name = "nested_literals", .format = "%s", .args = {T("list", {T("int"), T("string")})}},
      {.name = "type_value", .format = "%s", .args = {T("type")}},
      {.name = "fixed_takes_string", .format = "%e", .args = {T("string")}},
      {.name = "any_rejected",
       .format = "%s",
       .args = {T("google.protobuf.Any")},
       .want_error = "error during formatting: string clause can only be used on strings, bools, "
                     "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was "
                     "given google.protobuf.Any",
       .want_path = {0}},
      {.name = "any_rejected_by_decimal",
       .format = "%d",
       .args = {T("google.protobuf.Any")},
       .want_error = "error during formatting: decimal clause can only be used on integers, was "
                     "given google.protobuf.Any",
       .want_path = {0}},
      {.name = "wrong_type",
       .format = "%d",
       .args = {T("string")},
       .want_error = "error during formatting: decimal clause can only be used on integers, was "
                     "given string",
       .want_path = {0}},
      {.name = "second_argument",
       .format = "%d %x",
       .args = {T("int"), T("double")},
       .want_error = "error during formatting: only integers, byte buffers, and strings can be "
                     "formatted as hex, was given double",
       .want_path = {1}},
      {.name = "fixed_rejects_int",
       .format = "%.3f",
       .args = {T("int")},
       .want_error = "error during formatting: fixed-point clause can only be used on doubles, "
                     "was given int",
       .want_path = {0}},
      {.name = "optional_in_list_literal",
       .format = "%s",
       .args = {T("list", {T("optional_type")})},
       .want_error = "error during formatting: string clause can only be used on strings, bools, "
                     "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was "
                     "given optional_type",
       .want_path = {0, 0}},
      {.name = "optional_as_map_value",
       .format = "%s",
       .args = {T("map", {T("int"), T("optional_type")})},
       .want_error = "error during formatting: string clause can only be used on strings, bools, "
                     "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was "
                     "given optional_type",
       .want_path = {0, 1}},
      {.name = "deeply_nested",
       .format = "%s",
       .args = {T("list", {T("list", {T("optional_type")})})},
       .want_error = "error during formatting: string clause can only be used on strings, bools, "
                     "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was "
                     "given optional_type",
       .want_path = {0, 0, 0}},
      {.name = "too_few", .format = "%d %d", .args = {T("int")}, .want_error = "index 1 out of range"},
      {.name = "none", .format = "%d", .args = {}, .want_error = "index 0 out of range"},
      {.name = "too_many",
       .format = "%d",
       .args = {T("int"), T("int")},
       .want_error = "too many arguments supplied to string.format (expected 1, got 2)"},
      {.name = "bad_verb",
       .format = "%q",
       .args = {T("int")},
       .want_error = R"(could not parse formatting clause: unrecognized formatting clause "q")"},
      {.name = "lone_percent", .format = "%", .args = {T("int")}, .want_error = "unexpected end of string"},
      // Unlike at run time, the end of the string is checked first.
      {.name = "lone_percent_without_args", .format = "%", .args = {}, .want_error = "unexpected end of string"},
  };
  return cases;
}

class CheckTest : public testing::TestWithParam<CheckCase> {};

TEST_P(CheckTest, ReportsWhatCelGoReportsAtCompileTime) {
  const CheckCase& c = GetParam();
  std::optional<FormatCheckError> err = CheckFormatCall(c.format, c.args);
  if (c.want_error.empty()) {
    EXPECT_FALSE(err.has_value()) << err->message;
  } else {
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->message, c.want_error);
    EXPECT_EQ(err->element_path, c.want_path);
  }
}

INSTANTIATE_TEST_SUITE_P(FormatTest, CheckTest, testing::ValuesIn(CheckCases()),
                         [](const testing::TestParamInfo<CheckCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(FormatTest, TypeNamesMatchCelGo) {
  EXPECT_EQ(A::Null().TypeName(), "null_type");
  EXPECT_EQ(A::Bool(true).TypeName(), "bool");
  EXPECT_EQ(A::Int(1).TypeName(), "int");
  EXPECT_EQ(A::Uint(1).TypeName(), "uint");
  EXPECT_EQ(A::Double(1).TypeName(), "double");
  EXPECT_EQ(A::String("").TypeName(), "string");
  EXPECT_EQ(A::Bytes("").TypeName(), "bytes");
  EXPECT_EQ(A::Timestamp("").TypeName(), "google.protobuf.Timestamp");
  EXPECT_EQ(A::Duration("").TypeName(), "google.protobuf.Duration");
  EXPECT_EQ(A::Type("int").TypeName(), "type");
  EXPECT_EQ(A::List({}).TypeName(), "list");
  EXPECT_EQ(A::Map({}).TypeName(), "map");
  EXPECT_EQ(A::Other("kubernetes.Semver").TypeName(), "kubernetes.Semver");
}

}  // namespace
}  // namespace dra::cel::lib
