// Compile problems of a CEL expression, and their cel-go style rendering.
//
// Parsing (and, later, checking) reports problems as a list of issues inside an
// OK result rather than as a failed Status: a syntax error is an expected
// answer about the expression, not a failure of the engine. A failed Status
// is kept for a broken input or a broken invariant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace dra::cel {

struct Issue {
  int32_t line = 0;    // 1-based; 0 when the issue has no location
  int32_t column = 0;  // 1-based, in code points; 0 when line is 0
  std::string message;
  friend bool operator==(const Issue&, const Issue&) = default;
};

// Renders `issues` as cel-go does (common.Errors.ToDisplayString): sorted by
// position (stably), one block per issue, blocks joined by '\n':
//
//   ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting ...
//    | x +
//    | ....^
//
// The second line is the source line (tabs shown as spaces), the third a dot
// per code point before the column and a caret under it; on a line holding
// non-ASCII text the dots and caret are the full-width U+FF0E and U+FF3E, as
// cel-go prints them. An issue without a location prints as `<input>:-1:0:`
// with no snippet. `description` replaces "<input>".
std::string FormatIssues(std::string_view source, std::span<const Issue> issues,
                         std::string_view description = "<input>");

}  // namespace dra::cel
