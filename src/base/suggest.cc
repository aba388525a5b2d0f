#include "base/suggest.h"

#include <algorithm>
#include <cctype>

namespace dra {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

}  // namespace

size_t EditDistance(std::string_view a_in, std::string_view b_in) {
  const std::string a = ToLower(a_in), b = ToLower(b_in);
  const size_t n = a.size(), m = b.size();
  // Three rows: i-2, i-1, i.
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::vector<std::string> Suggest(std::string_view word, std::span<const std::string> candidates, size_t limit) {
  const size_t max_distance = std::max<size_t>(1, word.size() / 4);
  const std::string lower = ToLower(word);
  std::vector<std::pair<size_t, size_t>> found;       // (distance, index)
  std::vector<std::pair<size_t, size_t>> containing;  // (max_distance, index): by containment only
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    if (c == word) continue;
    const size_t d = EditDistance(word, c);
    if (d <= max_distance) {
      found.emplace_back(d, i);
    } else if (word.size() >= 4) {
      const std::string lc = ToLower(c);
      if (lc.find(lower) != std::string::npos || lower.find(lc) != std::string::npos) {
        containing.emplace_back(max_distance, i);
      }
    }
  }
  // Containment only when nothing is close: "imagePulPolicy" finds
  // "imagePullPolicy", not also "image".
  if (found.empty()) found = std::move(containing);
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, i] : found) {
    if (out.size() >= limit) break;
    if (std::find(out.begin(), out.end(), candidates[i]) == out.end()) out.push_back(candidates[i]);
  }
  return out;
}

std::string DidYouMean(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return "";
  std::string out = "; did you mean ";
  for (size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) out += i + 1 == suggestions.size() ? " or " : ", ";
    out += "\"" + suggestions[i] + "\"";
  }
  return out + "?";
}

}  // namespace dra
