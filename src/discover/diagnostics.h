// What discover says on stderr besides its output: skipped devices, missing
// attributes and why. A warning marks the run partial (exit 5, README.md §0); a
// note does not.
#pragma once

#include <string>
#include <vector>

namespace dra::discover {

class Diagnostics {
 public:
  // Something was skipped or omitted: the output is partial.
  void Warn(std::string message) {
    messages_.push_back("warning: " + message);
    partial_ = true;
  }
  // Worth saying, output unaffected ("no TPU chips found").
  void Note(std::string message) { messages_.push_back("note: " + message); }

  bool partial() const { return partial_; }
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
  bool partial_ = false;
};

}  // namespace dra::discover
