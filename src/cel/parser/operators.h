// Function names the parser gives to CEL operators and to the helper calls
// that macro expansion emits. They are cel-go's names (common/operators), so an
// AST printed by us reads like one printed by cel-go, and the checker and
// planner can key overloads on the same strings.
#pragma once

#include <string_view>

namespace dra::cel::op {

// Arithmetic.
inline constexpr std::string_view kAdd = "_+_";
inline constexpr std::string_view kSubtract = "_-_";
inline constexpr std::string_view kMultiply = "_*_";
inline constexpr std::string_view kDivide = "_/_";
inline constexpr std::string_view kModulo = "_%_";
inline constexpr std::string_view kNegate = "-_";

// Relations.
inline constexpr std::string_view kEquals = "_==_";
inline constexpr std::string_view kNotEquals = "_!=_";
inline constexpr std::string_view kLess = "_<_";
inline constexpr std::string_view kLessEquals = "_<=_";
inline constexpr std::string_view kGreater = "_>_";
inline constexpr std::string_view kGreaterEquals = "_>=_";
inline constexpr std::string_view kIn = "@in";

// Logic.
inline constexpr std::string_view kLogicalAnd = "_&&_";
inline constexpr std::string_view kLogicalOr = "_||_";
inline constexpr std::string_view kLogicalNot = "!_";
inline constexpr std::string_view kConditional = "_?_:_";

// Indexing and optional access. `a.?f` parses as `_?._`(a, "f") and `a[?k]` as
// `_[?_]`(a, k), as in cel-go; `a[k]` is `_[_]`(a, k).
inline constexpr std::string_view kIndex = "_[_]";
inline constexpr std::string_view kOptIndex = "_[?_]";
inline constexpr std::string_view kOptSelect = "_?._";

// Emitted only by macro expansion; no user can write these names.
inline constexpr std::string_view kNotStrictlyFalse = "@not_strictly_false";
inline constexpr std::string_view kMapInsert = "cel.@mapInsert";
inline constexpr std::string_view kSortByAssociatedKeys = "@sortByAssociatedKeys";

// Names used in the expansions of the optional-library macros.
inline constexpr std::string_view kHasValue = "hasValue";
inline constexpr std::string_view kValue = "value";
inline constexpr std::string_view kOptionalOf = "optional.of";
inline constexpr std::string_view kOptionalNone = "optional.none";

}  // namespace dra::cel::op
