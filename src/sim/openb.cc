// CSV reading for the openb trace files. The files are plain comma-separated
// values with a header row; a field may be double-quoted ("" inside quotes is
// one quote). Each field remembers its column so that messages can point at it.
#include "sim/openb.h"

#include <charconv>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <unordered_map>

#include "fmt/format.h"

namespace dra::sim {
namespace {

struct Field {
  std::string text;
  size_t column = 1;  // 1-based byte column of the field's first character
};

struct CsvLine {
  size_t line = 0;
  std::vector<Field> fields;
};

// Splits `text` into lines of fields. An unterminated quote is an error.
StatusOr<std::vector<CsvLine>> SplitCsv(std::string_view text, std::string_view file) {
  std::vector<CsvLine> lines;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    CsvLine out{.line = line_no, .fields = {}};
    size_t i = 0;
    while (true) {
      Field f{.text = {}, .column = i + 1};
      if (i < line.size() && line[i] == '"') {
        ++i;
        bool closed = false;
        while (i < line.size()) {
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              f.text.push_back('"');
              i += 2;
              continue;
            }
            closed = true;
            ++i;
            break;
          }
          f.text.push_back(line[i++]);
        }
        if (!closed) {
          return Status(StatusCode::kInvalidArgument,
                        fmt::format("{}:{}:{}: unterminated quoted field", file, line_no, f.column));
        }
        if (i < line.size() && line[i] != ',') {
          return Status(StatusCode::kInvalidArgument,
                        fmt::format("{}:{}:{}: unexpected character after quoted field", file, line_no, i + 1));
        }
      } else {
        size_t comma = line.find(',', i);
        if (comma == std::string_view::npos) comma = line.size();
        f.text = std::string(line.substr(i, comma - i));
        i = comma;
      }
      out.fields.push_back(std::move(f));
      if (i >= line.size()) break;
      ++i;                     // the comma
      if (i == line.size()) {  // a trailing comma: one more empty field
        out.fields.push_back(Field{.text = {}, .column = i + 1});
        break;
      }
    }
    lines.push_back(std::move(out));
  }
  if (lines.empty()) {
    return Status(StatusCode::kInvalidArgument, fmt::format("{}:1:1: empty file (no header row)", file));
  }
  return lines;
}

// Maps header names to field indices; `required` must all be present.
StatusOr<std::vector<int>> FindColumns(const CsvLine& header, std::span<const std::string_view> wanted, size_t required,
                                       std::string_view file) {
  std::vector<int> idx(wanted.size(), -1);
  for (size_t f = 0; f < header.fields.size(); ++f) {
    std::string_view name = header.fields[f].text;
    if (f == 0 && name.starts_with("\xEF\xBB\xBF")) name.remove_prefix(3);  // UTF-8 BOM
    for (size_t w = 0; w < wanted.size(); ++w) {
      if (name == wanted[w] && idx[w] < 0) idx[w] = static_cast<int>(f);
    }
  }
  for (size_t w = 0; w < required; ++w) {
    if (idx[w] < 0) {
      return Status(StatusCode::kInvalidArgument,
                    fmt::format("{}:{}:1: header has no column \"{}\"", file, header.line, wanted[w]));
    }
  }
  return idx;
}

class RowReader {
 public:
  RowReader(const CsvLine& row, std::span<const int> columns, std::span<const std::string_view> names,
            std::string_view file)
      : row_(row), columns_(columns), names_(names), file_(file) {}

  // The text of wanted column `w`, or nullopt if the column is absent from the
  // header. A row with fewer fields than its header is an error.
  StatusOr<std::optional<std::string_view>> Text(size_t w) const {
    if (columns_[w] < 0) return std::optional<std::string_view>();
    size_t f = static_cast<size_t>(columns_[w]);
    if (f >= row_.fields.size()) {
      size_t col = row_.fields.empty() ? 1 : row_.fields.back().column + row_.fields.back().text.size();
      return Status(StatusCode::kInvalidArgument, fmt::format("{}:{}:{}: missing field \"{}\" (row has {} fields)",
                                                              file_, row_.line, col, names_[w], row_.fields.size()));
    }
    return std::optional<std::string_view>(row_.fields[f].text);
  }

  StatusOr<int64_t> Int(size_t w) const {
    DRA_ASSIGN_OR_RETURN(std::optional<std::string_view> text, Text(w));
    if (!text) return int64_t{0};
    int64_t v = 0;
    const char* begin = text->data();
    const char* end = begin + text->size();
    auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end || text->empty()) {
      return Status(StatusCode::kInvalidArgument,
                    fmt::format("{}:{}:{}: {}: \"{}\" is not an integer", file_, row_.line,
                                row_.fields[static_cast<size_t>(columns_[w])].column, names_[w], *text));
    }
    return v;
  }

  Status Error(size_t w, std::string_view message) const {
    size_t col = columns_[w] >= 0 && static_cast<size_t>(columns_[w]) < row_.fields.size()
                     ? row_.fields[static_cast<size_t>(columns_[w])].column
                     : 1;
    return Status(StatusCode::kInvalidArgument,
                  fmt::format("{}:{}:{}: {}: {}", file_, row_.line, col, names_[w], message));
  }

 private:
  const CsvLine& row_;
  std::span<const int> columns_;
  std::span<const std::string_view> names_;
  std::string_view file_;
};

std::string NormalizeSpec(std::string_view spec) {
  if (spec == "nan") return "";
  std::string out;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t bar = spec.find('|', pos);
    if (bar == std::string_view::npos) bar = spec.size();
    std::string_view part = spec.substr(pos, bar - pos);
    if (!part.empty()) {
      if (!out.empty()) out.push_back('|');
      out.append(part);
    }
    pos = bar + 1;
  }
  return out;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, fmt::format("{}: cannot open file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<std::string> OpenbPod::SpecModels() const {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < gpu_spec.size()) {
    size_t bar = gpu_spec.find('|', pos);
    if (bar == std::string::npos) bar = gpu_spec.size();
    out.push_back(gpu_spec.substr(pos, bar - pos));
    pos = bar + 1;
  }
  return out;
}

StatusOr<std::vector<OpenbNode>> ParseOpenbNodes(std::string_view text, std::string_view file) {
  DRA_ASSIGN_OR_RETURN(std::vector<CsvLine> lines, SplitCsv(text, file));
  static constexpr std::string_view kNames[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
  DRA_ASSIGN_OR_RETURN(std::vector<int> cols, FindColumns(lines[0], kNames, 4, file));
  std::vector<OpenbNode> nodes;
  std::unordered_map<std::string_view, size_t> seen;  // name -> line
  for (size_t i = 1; i < lines.size(); ++i) {
    RowReader r(lines[i], cols, kNames, file);
    OpenbNode n;
    DRA_ASSIGN_OR_RETURN(std::optional<std::string_view> name, r.Text(0));
    if (!name || name->empty()) return r.Error(0, "empty node name");
    if (auto [it, fresh] = seen.emplace(*name, lines[i].line); !fresh) {
      return r.Error(0, fmt::format("duplicate node name {} (first on line {})", *name, it->second));
    }
    n.name = std::string(*name);
    DRA_ASSIGN_OR_RETURN(n.cpu_milli, r.Int(1));
    DRA_ASSIGN_OR_RETURN(n.memory_mib, r.Int(2));
    DRA_ASSIGN_OR_RETURN(n.gpus, r.Int(3));
    DRA_ASSIGN_OR_RETURN(std::optional<std::string_view> model, r.Text(4));
    if (model) n.model = std::string(*model);
    if (n.cpu_milli < 0) return r.Error(1, "negative");
    if (n.memory_mib < 0) return r.Error(2, "negative");
    if (n.gpus < 0 || n.gpus > 64) return r.Error(3, "must be 0..64");
    if (n.gpus > 0 && n.model.empty()) return r.Error(4, "a node with GPUs needs a model");
    nodes.push_back(std::move(n));
  }
  return nodes;
}

StatusOr<std::vector<OpenbPod>> ParseOpenbPods(std::string_view text, std::string_view file) {
  DRA_ASSIGN_OR_RETURN(std::vector<CsvLine> lines, SplitCsv(text, file));
  static constexpr std::string_view kNames[] = {"name",      "cpu_milli", "memory_mib",    "num_gpu",
                                                "gpu_milli", "gpu_spec",  "creation_time", "deletion_time"};
  DRA_ASSIGN_OR_RETURN(std::vector<int> cols, FindColumns(lines[0], kNames, 5, file));
  std::vector<OpenbPod> pods;
  std::unordered_map<std::string_view, size_t> seen;  // name -> line
  for (size_t i = 1; i < lines.size(); ++i) {
    RowReader r(lines[i], cols, kNames, file);
    OpenbPod p;
    DRA_ASSIGN_OR_RETURN(std::optional<std::string_view> name, r.Text(0));
    if (!name || name->empty()) return r.Error(0, "empty pod name");
    if (auto [it, fresh] = seen.emplace(*name, lines[i].line); !fresh) {
      return r.Error(0, fmt::format("duplicate pod name {} (first on line {})", *name, it->second));
    }
    p.name = std::string(*name);
    DRA_ASSIGN_OR_RETURN(p.cpu_milli, r.Int(1));
    DRA_ASSIGN_OR_RETURN(p.memory_mib, r.Int(2));
    DRA_ASSIGN_OR_RETURN(p.num_gpu, r.Int(3));
    DRA_ASSIGN_OR_RETURN(int64_t milli, r.Int(4));
    DRA_ASSIGN_OR_RETURN(std::optional<std::string_view> spec, r.Text(5));
    if (p.cpu_milli < 0) return r.Error(1, "negative");
    if (p.memory_mib < 0) return r.Error(2, "negative");
    if (p.num_gpu < 0 || p.num_gpu > 64) return r.Error(3, "must be 0..64");
    if (p.num_gpu != 0) {
      p.gpu_milli = milli <= 0 ? 0 : (milli > 1000 ? 1000 : milli);
      if (spec) p.gpu_spec = NormalizeSpec(*spec);
    }
    DRA_ASSIGN_OR_RETURN(p.creation_time, r.Int(6));
    DRA_ASSIGN_OR_RETURN(std::optional<std::string_view> deletion, r.Text(7));
    if (deletion && !deletion->empty()) {
      DRA_ASSIGN_OR_RETURN(p.deletion_time, r.Int(7));
      if (p.deletion_time < p.creation_time) return r.Error(7, "before creation_time");
    }
    if (p.creation_time < 0) return r.Error(6, "negative");
    pods.push_back(std::move(p));
  }
  return pods;
}

StatusOr<std::vector<OpenbNode>> ReadOpenbNodes(const std::string& path) {
  DRA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseOpenbNodes(text, path);
}

StatusOr<std::vector<OpenbPod>> ReadOpenbPods(const std::string& path) {
  DRA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseOpenbPods(text, path);
}

StatusOr<OpenbTrace> ReadOpenbTrace(const std::string& nodes_path, const std::string& pods_path) {
  OpenbTrace t;
  DRA_ASSIGN_OR_RETURN(t.nodes, ReadOpenbNodes(nodes_path));
  DRA_ASSIGN_OR_RETURN(t.pods, ReadOpenbPods(pods_path));
  return t;
}

}  // namespace dra::sim
