#include "base/base64.h"

#include <cstdint>

#include "fmt/format.h"

namespace dra {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of `c`, or -1 if it is not in the alphabet.
int SextetOf(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool IsSkippedSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8) |
                       static_cast<unsigned char>(data[i + 2]);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (i + 1 == data.size()) {
    const uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out += "==";
  } else if (i + 2 == data.size()) {
    const uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

StatusOr<std::string> Base64Decode(std::string_view text, Base64Syntax syntax) {
  const bool strict = syntax == Base64Syntax::kStrict;
  std::string clean;
  if (strict) {
    clean.reserve(text.size());
    for (char c : text) {
      if (!IsSkippedSpace(c)) clean.push_back(c);
    }
    if (clean.size() % 4 != 0) return InvalidArgumentError("invalid base64: length is not a multiple of 4");
    text = clean;
  }
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t buffer = 0;  // the bits not yet written, in its low `bits` bits
  int bits = 0;
  bool padded = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '=') {
      if (!strict) break;
      // Padding: the last one or two characters (text.size() is a multiple of 4).
      if (i + 2 >= text.size()) {
        padded = true;
        continue;
      }
    }
    const int v = padded ? -1 : SextetOf(c);
    if (v < 0) {
      if (!strict) return InvalidArgumentError("invalid base64");
      return InvalidArgumentError(fmt::format("invalid base64: unexpected character at offset {}", i));
    }
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace dra
