// Standard base64 (RFC 4648 §4: A-Z a-z 0-9 + /, '=' padding), for
// kubeconfig's *-data fields (kube/kubeconfig.cc) and the bytes of CEL's
// typed JSON values (cli/cel.cc).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace dra {

// `data` in base64, padded with '=' to a multiple of four characters.
std::string Base64Encode(std::string_view data);

// How strictly Base64Decode reads its input.
enum class Base64Syntax {
  // As kubeconfig's *-data fields are read: ' ', '\n', '\r' and '\t' are
  // skipped; the rest must be a multiple of four characters, with '=' only as
  // padding at the end. Errors: "invalid base64: length is not a multiple of
  // 4", "invalid base64: unexpected character at offset N" (N counts the
  // characters left after the whitespace is dropped).
  kStrict,
  // As CEL's typed JSON bytes are read: decoding stops at the first '=' (what
  // follows is ignored), padding may be left out, and the bits of a trailing
  // partial byte are dropped. Any other character outside the alphabet,
  // whitespace included, is the error "invalid base64".
  kLenient,
};

// Decodes base64 `text` read as `syntax` says. kInvalidArgument, with the
// messages above, if it is not base64.
StatusOr<std::string> Base64Decode(std::string_view text, Base64Syntax syntax = Base64Syntax::kStrict);

}  // namespace dra
