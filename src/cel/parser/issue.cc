#include "cel/parser/issue.h"

#include <algorithm>
#include <vector>

namespace dra::cel {
namespace {

// The text of 1-based `line` of `source`, without its terminating '\n'.
bool Snippet(std::string_view source, int32_t line, std::string_view* out) {
  if (line < 1) return false;
  size_t start = 0;
  for (int32_t current = 1; current < line; ++current) {
    const size_t nl = source.find('\n', start);
    if (nl == std::string_view::npos) return false;
    start = nl + 1;
  }
  const size_t end = source.find('\n', start);
  *out = source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  return true;
}

void AppendIssue(std::string_view source, const Issue& issue, std::string_view description, std::string& out) {
  out += "ERROR: ";
  out += description;
  out += ':';
  if (issue.line <= 0) {
    out += "-1:0: ";
    out += issue.message;
    return;
  }
  out += std::to_string(issue.line);
  out += ':';
  out += std::to_string(issue.column);
  out += ": ";
  out += issue.message;

  std::string_view raw;
  if (!Snippet(source, issue.line, &raw)) return;
  std::string snippet(raw);
  std::replace(snippet.begin(), snippet.end(), '\t', ' ');
  const bool wide =
      std::any_of(snippet.begin(), snippet.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  out += "\n | ";
  out += snippet;
  out += "\n | ";
  const int32_t dots = std::max(issue.column - 1, 0);
  for (int32_t i = 0; i < dots; ++i) out += wide ? "\uff0e" : ".";
  out += wide ? "\uff3e" : "^";
}

}  // namespace

std::string FormatIssues(std::string_view source, std::span<const Issue> issues, std::string_view description) {
  std::vector<const Issue*> sorted;
  sorted.reserve(issues.size());
  for (const Issue& issue : issues) sorted.push_back(&issue);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Issue* a, const Issue* b) {
    if (a->line != b->line) return a->line < b->line;
    return a->column < b->column;
  });
  std::string out;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) out += '\n';
    AppendIssue(source, *sorted[i], description, out);
  }
  return out;
}

}  // namespace dra::cel
