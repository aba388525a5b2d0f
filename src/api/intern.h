// InternedString: an immutable string stored once per process.
//
// Device attribute, capacity and counter names ("productName",
// "resource.kubernetes.io/pcieRoot") and many attribute values ("NVIDIA H100 80GB
// HBM3", "Hopper") repeat on every device of every node. Interning them makes a
// key or value 8 bytes with no heap block of its own, which is what keeps a
// decoded Device under 1 KiB (see resource.h), and makes equality a pointer
// comparison.
//
// Invariants:
//   1. Equal contents <=> equal pointers: every InternedString with the same text
//      points to the same pool entry.
//   2. Pool entries are never freed or moved, so the text of an InternedString
//      stays valid for the life of the process (string_views into it too).
//   3. The default value is the empty string.
//
// Thread-safety: constructing an InternedString locks the process-wide pool;
// copying, comparing and reading never lock. The pool only grows: interning
// unbounded sets of distinct strings (e.g. random UUIDs from a long-running
// watch) costs memory for the life of the process.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace dra::api {

class InternedString {
 public:
  // The empty string.
  InternedString();
  // Interns `text`. Implicit: an InternedString is used like a string value.
  InternedString(std::string_view text);  // NOLINT(google-explicit-constructor)
  InternedString(const std::string& text) : InternedString(std::string_view(text)) {}  // NOLINT
  InternedString(const char* text) : InternedString(std::string_view(text)) {}         // NOLINT

  const std::string& str() const { return *str_; }
  std::string_view view() const { return *str_; }
  operator std::string_view() const { return *str_; }    // NOLINT(google-explicit-constructor)
  operator const std::string&() const { return *str_; }  // NOLINT(google-explicit-constructor)
  const char* c_str() const { return str_->c_str(); }
  bool empty() const { return str_->empty(); }
  size_t size() const { return str_->size(); }

  friend bool operator==(InternedString a, InternedString b) { return a.str_ == b.str_; }
  friend std::strong_ordering operator<=>(InternedString a, InternedString b) {
    if (a.str_ == b.str_) return std::strong_ordering::equal;
    return a.view() <=> b.view();
  }
  friend bool operator==(InternedString a, std::string_view b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(InternedString a, std::string_view b) { return a.view() <=> b; }
  friend bool operator==(InternedString a, const char* b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(InternedString a, const char* b) { return a.view() <=> std::string_view(b); }
  friend bool operator==(InternedString a, const std::string& b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(InternedString a, const std::string& b) {
    return a.view() <=> std::string_view(b);
  }

  friend std::ostream& operator<<(std::ostream& os, InternedString s) { return os << s.view(); }

 private:
  const std::string* str_;
};

// Number of distinct strings interned so far (for tests and memory reports).
size_t InternedStringCount();

}  // namespace dra::api

template <>
struct std::hash<dra::api::InternedString> {
  size_t operator()(dra::api::InternedString s) const noexcept { return std::hash<const void*>()(&s.str()); }
};
