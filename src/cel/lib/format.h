// FormatString: `<string>.format(<list>)` as Kubernetes evaluates it, i.e.
// cel-go's *legacy* formatter of ext.Strings versions 1-3 (ext/formatting.go,
// default locale en_US), not the cel-spec strings v4 formatter.
//
// Clauses: "%%" is a literal '%'; otherwise '%' [ '.' precision ] verb, each
// consuming the next argument:
//   %s  string form: strings as is, ints/uints in decimal, doubles as CEL's
//       string(double) (shortest, "1e+06", "NaN", "+Inf"), bools, null ->
//       "null", bytes as UTF-8 text, timestamps/durations/types as their CEL
//       string form, lists/maps as CEL-like literals (below)
//   %d  int or uint in decimal
//   %f  double (or the strings "NaN", "Infinity", "-Infinity") rendered by
//       golang.org/x/text for en_US: default precision 6, thousands grouped
//       with ',' ("1,234.500000"), "NaN", "∞", "-∞"
//   %e  same inputs, x/text scientific notation for en_US: one integer digit,
//       always six fraction digits, then U+202F × U+202F 10 and the exponent
//       in superscript digits, at least two ("1.052033 × 10⁰³"). cel-go passes
//       the clause's precision to x/text as a *width*: the result is padded
//       with spaces on the left to that many code points (default 6, so no
//       padding in practice unless a precision above 16 is given).
//   %b  int, uint (binary, '-' for negatives) or bool ("1"/"0")
//   %x %X  int/uint in hex ('-' for negatives), or string/bytes as hex of
//       their bytes; lower/upper case digits
//   %o  int or uint in octal
// A precision is accepted on every verb and used only by %f (precision) and
// %e (width).
//
// Lists and maps under %s: "[e1, e2]" and "{k1:v1, k2:v2}" (no space after
// ':'), entries sorted by the rendered key's bytes; inside them strings are
// Go-quoted ("\"a\""), bytes b"...", doubles "%.6f" ("4.200000", but NaN and
// infinities quoted: "\"NaN\"", "\"+Inf\""), timestamps timestamp("..."),
// durations duration("..."), types by name.
//
// Errors (kInvalidArgument, the exact CEL error text):
//   index N out of range                       too few arguments
//   unexpected end of string                   a lone '%' at the end
//   could not parse formatting clause: unrecognized formatting clause "E"
//   could not parse formatting clause: error while parsing precision: ...
//   error during formatting: <verb> clause can only be used on ..., was given <type>
// Arguments beyond those consumed are ignored at run time (CheckFormatCall,
// below, is the compile-time check that rejects them for literal lists).
//
// Oddities kept on purpose: a %f/%e precision of more than 7 digits above
// 10^6 makes x/text's format parser give up and print "%!(NOVERB)"; %f
// precisions wrap like x/text's uint8/int16 fields (so "%.256f" prints no
// extra zeros beyond the digits, as upstream does).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"

namespace dra::cel::lib {

struct FormatArg;
struct FormatMapEntry;

struct FormatNull {
  friend bool operator==(const FormatNull&, const FormatNull&) = default;
};
struct FormatBytes {
  std::string data;
  friend bool operator==(const FormatBytes&, const FormatBytes&) = default;
};
// A timestamp or duration, as CEL's string() conversion prints it
// ("2023-02-03T23:31:20Z", "6347s").
struct FormatTimestamp {
  std::string text;
  friend bool operator==(const FormatTimestamp&, const FormatTimestamp&) = default;
};
struct FormatDuration {
  std::string text;
  friend bool operator==(const FormatDuration&, const FormatDuration&) = default;
};
// A CEL type value, by name ("int", "string", "kubernetes.Semver").
struct FormatType {
  std::string name;
  friend bool operator==(const FormatType&, const FormatType&) = default;
};
// Any other value (an optional, a quantity, a semver, ...), by CEL type name.
// Every clause rejects it, naming the type.
struct FormatOther {
  std::string type_name;
  friend bool operator==(const FormatOther&, const FormatOther&) = default;
};
struct FormatList {
  std::vector<FormatArg> elements;
};
// Entries in the map's iteration order (the output sorts them anyway).
struct FormatMap {
  std::vector<FormatMapEntry> entries;
};

// One argument of format(): a CEL value reduced to what the formatter looks at.
struct FormatArg {
  using Value = std::variant<FormatNull, bool, int64_t, uint64_t, double, std::string, FormatBytes, FormatTimestamp,
                             FormatDuration, FormatType, FormatList, FormatMap, FormatOther>;
  Value value;

  static FormatArg Null();
  static FormatArg Bool(bool v);
  static FormatArg Int(int64_t v);
  static FormatArg Uint(uint64_t v);
  static FormatArg Double(double v);
  static FormatArg String(std::string v);
  static FormatArg Bytes(std::string v);
  static FormatArg Timestamp(std::string text);
  static FormatArg Duration(std::string text);
  static FormatArg Type(std::string name);
  static FormatArg Other(std::string type_name);
  static FormatArg List(std::vector<FormatArg> elements);
  static FormatArg Map(std::vector<FormatMapEntry> entries);

  // The CEL type name cel-go puts into error messages: "null_type", "bool",
  // "int", "uint", "double", "string", "bytes", "google.protobuf.Timestamp",
  // "google.protobuf.Duration", "type", "list", "map", or FormatOther's name.
  std::string TypeName() const;
};

struct FormatMapEntry {
  FormatArg key;
  FormatArg value;
};

// Formats `format` with `args` as described above. Pure and thread-safe.
StatusOr<std::string> FormatString(std::string_view format, std::span<const FormatArg> args);

// ---------------------------------------------------------------------------
// Compile-time check. cel-go (strings v1-v3) validates every call
// `<string literal>.format(<list literal>)` (resolved to the string_format
// overload, or not yet resolved) while the program is compiled, running the
// same clause parser over the *static* types of the list's elements. Its
// findings are compile errors, not run-time errors:
//   - what FormatString would report for a malformed clause, a missing
//     argument ("index N out of range") or a lone '%' (but the end-of-string
//     error wins over the index error here: '%'.format([]) is "unexpected end
//     of string");
//   - "error during formatting: <clause> ..., was given <static type name>";
//   - "too many arguments supplied to string.format (expected N, got M)".
// An element of static type dyn passes every clause; google.protobuf.Any (the
// type of DRA attribute values while DRAListTypeAttributes is off) and
// optional_type pass none, so '%s'.format([device.attributes["d"].a]) does not
// compile in Kubernetes 1.34/1.35. %f and %e accept doubles and strings.

// The static type of one element of the literal list argument.
struct FormatArgType {
  // As cel-go's Type.TypeName() prints it: "dyn", "int", "uint", "double",
  // "bool", "string", "bytes", "null_type", "type", "list", "map",
  // "google.protobuf.Timestamp", "google.protobuf.Duration",
  // "google.protobuf.Any", "optional_type", "kubernetes.Semver", ...
  std::string type_name;
  // If the element is itself a list or map literal, its elements (for a map:
  // key, value, key, value, ...), which %s checks too. Empty otherwise.
  std::vector<FormatArgType> literal_elements;
};

struct FormatCheckError {
  std::string message;
  // Which expression the error is reported at: empty for the format() call
  // itself; otherwise the index of the offending list element, followed by
  // indices into its literal_elements for a nested offender.
  std::vector<size_t> element_path;
};

// Returns the compile error cel-go reports for `format`.format([args...]), or
// std::nullopt when the call passes. Pure and thread-safe.
std::optional<FormatCheckError> CheckFormatCall(std::string_view format, std::span<const FormatArgType> args);

}  // namespace dra::cel::lib
