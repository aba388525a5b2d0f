#include "base/strings.h"

#include <algorithm>

namespace dra {

std::vector<std::string_view> SplitN(std::string_view s, char sep, size_t n) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    size_t i = s.find(sep);
    if (i == std::string_view::npos) break;
    parts.push_back(s.substr(0, i));
    s.remove_prefix(i + 1);
  }
  parts.push_back(s);
  return parts;
}

std::vector<std::string_view> Split(std::string_view s, char sep) { return SplitN(s, sep, std::string_view::npos); }

std::string UintToBase(uint64_t v, int base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  if (v == 0) return "0";
  std::string out;
  while (v > 0) {
    out.push_back(digits[v % static_cast<uint64_t>(base)]);
    v /= static_cast<uint64_t>(base);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string IntToBase(int64_t v, int base, bool upper) {
  if (v >= 0) return UintToBase(static_cast<uint64_t>(v), base, upper);
  // The magnitude as uint64_t, so that INT64_MIN works.
  return "-" + UintToBase(0 - static_cast<uint64_t>(v), base, upper);
}

}  // namespace dra
