// "Did you mean": the known names closest to a word a user typed, for
// messages about unknown commands, classes, templates, pods and fields.
//
// Distance is the optimal-string-alignment edit distance (insert, delete,
// substitute, swap two neighbours; each 1) after lower-casing. A candidate
// counts when its distance is at most max(1, word length / 4) (so "schedul"
// finds "schedule", "gpu.nvidia.co" finds "gpu.nvidia.com", but "a" finds
// nothing in "b"), or, when no candidate is that close, when one of the two
// contains the other and the word has at least 4 characters ("trainer"
// finds "ml/trainer-7d9f").
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dra {

// Edit distance as above (case-insensitive).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidates that count, closest first (ties in the given order), at
// most `limit`; `word` itself is never suggested.
std::vector<std::string> Suggest(std::string_view word, std::span<const std::string> candidates, size_t limit = 3);

// "; did you mean \"a\"?" / "; did you mean \"a\" or \"b\"?"; "" for none.
std::string DidYouMean(const std::vector<std::string>& suggestions);

}  // namespace dra
