// Compact JSON text <-> Node, for the free-form fields of api structs
// (api::RawJson: opaque driver parameters, device status data, unmodelled
// core/v1 fields), and the number rules both directions share.
//
// Compact JSON here means: no insignificant whitespace, object keys in the
// order given, numbers as JSON numbers, strings escaped minimally (", \ and
// control characters; everything else, including non-ASCII, verbatim).
//
// Internal to manifest/: decode.cc and encode.cc use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest::internal {

// The value of an integer scalar's text as YAML 1.1 and JSON allow it: optional
// sign, decimal digits, or 0x / 0o / 0b / leading-0 (octal) prefixes, with `_`
// separators ("1_000"). nullopt if it is not an integer or does not fit int64.
std::optional<int64_t> ParseIntegerText(std::string_view text);

// `node`'s number text as a JSON number: kept as is when it already is one
// ("12", "-1.5e3"), otherwise rewritten ("0x1F" -> "31", "+5" -> "5",
// ".5" -> "0.5", "1_000" -> "1000"). nullopt for text JSON cannot express
// (".inf", ".nan") or that is not a number at all.
// REQUIRES: node.kind is kInt or kFloat.
std::optional<std::string> JsonNumberText(const Node& node);

// Appends `node` as compact JSON to `out`. On failure (a number JSON cannot
// express) returns false and sets `*bad` to the offending node; `out` then holds
// a partial result.
bool AppendCompactJson(const Node& node, std::string* out, const Node** bad);

// Parses compact (or any valid) JSON text into a Node without marks.
// kInvalidArgument if `text` is not valid JSON.
StatusOr<Node> ParseJsonText(std::string_view text);

}  // namespace dra::manifest::internal
