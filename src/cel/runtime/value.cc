// Values: construction, equality and ordering per cel-spec, the built-in map.
#include "cel/runtime/value.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

namespace dra::cel {

std::string_view ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull: return "null_type";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int";
    case ValueKind::kUint: return "uint";
    case ValueKind::kDouble: return "double";
    case ValueKind::kString: return "string";
    case ValueKind::kBytes: return "bytes";
    case ValueKind::kList: return "list";
    case ValueKind::kMap: return "map";
    case ValueKind::kType: return "type";
    case ValueKind::kOptional: return "optional_type";
    case ValueKind::kError: return "*error*";
    case ValueKind::kOpaque: return "opaque";
  }
  return "unknown";
}

// --- Construction ------------------------------------------------------------------

Value Value::OwnedCopy(ValueKind kind, std::string_view s) {
  return FromObject(kind, new StringObject(std::string(s)));
}
Value Value::String(std::string s) { return FromObject(ValueKind::kString, new StringObject(std::move(s))); }
Value Value::Bytes(std::string s) { return FromObject(ValueKind::kBytes, new StringObject(std::move(s))); }
Value Value::List(std::vector<Value> elements) {
  return FromObject(ValueKind::kList, new VectorList(std::move(elements)));
}
Value Value::List(RefPtr<ListObject> list) { return FromObject(ValueKind::kList, list.release()); }
Value Value::Map(RefPtr<MapObject> map) { return FromObject(ValueKind::kMap, map.release()); }
Value Value::Opaque(RefPtr<OpaqueObject> object) { return FromObject(ValueKind::kOpaque, object.release()); }
Value Value::Optional(Value v) { return FromObject(ValueKind::kOptional, new OptionalObject(std::move(v))); }
Value Value::Error(std::string message) { return FromObject(ValueKind::kError, new ErrorObject(std::move(message))); }

// --- Access ----------------------------------------------------------------------------

const ListObject& Value::list() const { return *static_cast<const ListObject*>(u_.obj); }
const MapObject& Value::map() const { return *static_cast<const MapObject*>(u_.obj); }
const OpaqueObject& Value::opaque() const { return *static_cast<const OpaqueObject*>(u_.obj); }
const Value& Value::optional_value() const { return static_cast<const OptionalObject*>(u_.obj)->value; }
std::string_view Value::error_message() const { return static_cast<const ErrorObject*>(u_.obj)->message; }

std::string_view Value::TypeName() const {
  if (kind_ == ValueKind::kOpaque) return opaque().type_name();
  return ValueKindName(kind_);
}

Value Value::GetType() const {
  if (kind_ == ValueKind::kOpaque) return Type(opaque().type_name());
  return Type(ValueKindName(kind_));
}

namespace {

void AppendQuoted(std::string_view s, bool bytes, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (bytes) out.push_back('b');
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
          out += "\\x";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

void AppendDebug(const Value& v, std::string& out) {
  switch (v.kind()) {
    case ValueKind::kNull: out += "null"; return;
    case ValueKind::kBool: out += v.bool_value() ? "true" : "false"; return;
    case ValueKind::kInt: out += std::to_string(v.int_value()); return;
    case ValueKind::kUint:
      out += std::to_string(v.uint_value());
      out.push_back('u');
      return;
    case ValueKind::kDouble: {
      std::string s = FormatDoubleCel(v.double_value());
      const bool integral = s.find_first_of(".eIN") == std::string::npos;
      out += s;
      if (integral) out += ".0";
      return;
    }
    case ValueKind::kString: AppendQuoted(v.string_value(), false, out); return;
    case ValueKind::kBytes: AppendQuoted(v.bytes_value(), true, out); return;
    case ValueKind::kList: {
      out.push_back('[');
      const ListObject& l = v.list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i > 0) out += ", ";
        AppendDebug(l.Get(i), out);
      }
      out.push_back(']');
      return;
    }
    case ValueKind::kMap: {
      out.push_back('{');
      const MapObject& m = v.map();
      for (size_t i = 0; i < m.size(); ++i) {
        if (i > 0) out += ", ";
        AppendDebug(m.KeyAt(i), out);
        out += ": ";
        AppendDebug(m.ValueAt(i), out);
      }
      out.push_back('}');
      return;
    }
    case ValueKind::kType: out += v.type_name_value(); return;
    case ValueKind::kOptional:
      if (!v.has_optional_value()) {
        out += "optional.none()";
      } else {
        out += "optional.of(";
        AppendDebug(v.optional_value(), out);
        out.push_back(')');
      }
      return;
    case ValueKind::kError:
      out += "error(";
      AppendQuoted(v.error_message(), false, out);
      out.push_back(')');
      return;
    case ValueKind::kOpaque:
      out += v.opaque().type_name();
      out.push_back('(');
      out += v.opaque().DebugString();
      out.push_back(')');
      return;
  }
}

}  // namespace

std::string Value::DebugString() const {
  std::string out;
  AppendDebug(*this, out);
  return out;
}

// --- Map keys ----------------------------------------------------------------------

namespace {

// A key reduced so that equal keys (1, 1u, 1.0) have equal representations.
struct KeyRep {
  enum class Class : uint8_t { kBool, kNonNegative, kNegative, kString } cls = Class::kBool;
  uint64_t bits = 0;  // bool, magnitude as uint64, or the int64 bits of a negative
  std::string_view s;

  bool operator==(const KeyRep& o) const {
    if (cls != o.cls) return false;
    if (cls == Class::kString) return s == o.s;
    return bits == o.bits;
  }
};

// False if `v` can match no key (wrong kind, or a double with a fraction or
// out of the int/uint range).
bool ToKeyRep(const Value& v, KeyRep* rep) {
  switch (v.kind()) {
    case ValueKind::kBool: *rep = {KeyRep::Class::kBool, v.bool_value() ? 1u : 0u, {}}; return true;
    case ValueKind::kInt:
      if (v.int_value() >= 0) {
        *rep = {KeyRep::Class::kNonNegative, static_cast<uint64_t>(v.int_value()), {}};
      } else {
        *rep = {KeyRep::Class::kNegative, static_cast<uint64_t>(v.int_value()), {}};
      }
      return true;
    case ValueKind::kUint: *rep = {KeyRep::Class::kNonNegative, v.uint_value(), {}}; return true;
    case ValueKind::kDouble: {
      const double d = v.double_value();
      if (!std::isfinite(d) || std::trunc(d) != d) return false;
      if (d >= 0) {
        if (d >= 18446744073709551616.0) return false;
        *rep = {KeyRep::Class::kNonNegative, static_cast<uint64_t>(d), {}};
        return true;
      }
      if (d < -9223372036854775808.0) return false;
      *rep = {KeyRep::Class::kNegative, static_cast<uint64_t>(static_cast<int64_t>(d)), {}};
      return true;
    }
    case ValueKind::kString: *rep = {KeyRep::Class::kString, 0, v.string_value()}; return true;
    default: return false;
  }
}

size_t HashKey(const KeyRep& k) {
  if (k.cls == KeyRep::Class::kString) return std::hash<std::string_view>()(k.s);
  uint64_t x = k.bits ^ (static_cast<uint64_t>(k.cls) << 62);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<size_t>(x);
}

constexpr size_t kLinearLimit = 8;

}  // namespace

bool IsValidMapKey(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kString: return true;
    default: return false;
  }
}

int64_t HashMap::IndexOf(const Value& key) const {
  KeyRep want;
  if (!ToKeyRep(key, &want)) return -1;
  if (index_.empty()) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      KeyRep have;
      ToKeyRep(entries_[i].first, &have);
      if (have == want) return static_cast<int64_t>(i);
    }
    return -1;
  }
  const size_t mask = index_.size() - 1;
  for (size_t slot = HashKey(want) & mask;; slot = (slot + 1) & mask) {
    const int32_t e = index_[slot];
    if (e < 0) return -1;
    KeyRep have;
    ToKeyRep(entries_[static_cast<size_t>(e)].first, &have);
    if (have == want) return e;
  }
}

std::optional<Value> HashMap::Find(const Value& key) const {
  const int64_t i = IndexOf(key);
  if (i < 0) return std::nullopt;
  return entries_[static_cast<size_t>(i)].second;
}

bool HashMap::Insert(Value key, Value value) {
  if (IndexOf(key) >= 0) return false;
  entries_.emplace_back(std::move(key), std::move(value));
  if (entries_.size() > kLinearLimit && entries_.size() * 2 > index_.size()) {
    Rehash();
  } else if (!index_.empty()) {
    KeyRep rep;
    ToKeyRep(entries_.back().first, &rep);
    const size_t mask = index_.size() - 1;
    size_t slot = HashKey(rep) & mask;
    while (index_[slot] >= 0) slot = (slot + 1) & mask;
    index_[slot] = static_cast<int32_t>(entries_.size() - 1);
  }
  return true;
}

void HashMap::Rehash() {
  size_t capacity = 16;
  while (capacity < entries_.size() * 4) capacity *= 2;
  index_.assign(capacity, -1);
  const size_t mask = capacity - 1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    KeyRep rep;
    ToKeyRep(entries_[i].first, &rep);
    size_t slot = HashKey(rep) & mask;
    while (index_[slot] >= 0) slot = (slot + 1) & mask;
    index_[slot] = static_cast<int32_t>(i);
  }
}

// --- Opaque defaults ---------------------------------------------------------------

Value OpaqueObject::Equals(const Value& other) const {
  if (!other.is_opaque() || other.opaque().type_name() != type_name()) return Value::Bool(false);
  return Value::Bool(&other.opaque() == this);
}
std::optional<Value> OpaqueObject::GetField(std::string_view) const { return std::nullopt; }
bool OpaqueObject::HasField(std::string_view field) const { return GetField(field).has_value(); }
bool OpaqueObject::ResolvePath(std::span<const PathStep>, const void*, Value*) const { return false; }
Ordering OpaqueObject::Compare(const Value&) const { return Ordering::kInvalid; }

// --- Equality and ordering ---------------------------------------------------------------

namespace {

Ordering FromInts(bool less, bool greater) {
  if (less) return Ordering::kLess;
  if (greater) return Ordering::kGreater;
  return Ordering::kEqual;
}

Ordering CompareIntUint(int64_t a, uint64_t b) {
  if (a < 0) return Ordering::kLess;
  const auto ua = static_cast<uint64_t>(a);
  return FromInts(ua<b, ua> b);
}

Ordering Reverse(Ordering o) {
  if (o == Ordering::kLess) return Ordering::kGreater;
  if (o == Ordering::kGreater) return Ordering::kLess;
  return o;
}

Ordering CompareDoubles(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return Ordering::kUnordered;
  return FromInts(a<b, a> b);
}

// int and uint against double compare as cel-go does (types/compare.go):
// out-of-range doubles order outside, otherwise the integer is converted to
// double (so 2^63-1 and 2^63 as a double compare equal, as cel-spec's
// comparisons vectors expect).
Ordering CompareIntDouble(int64_t a, double b) {
  if (std::isnan(b)) return Ordering::kUnordered;
  if (b < -9223372036854775808.0) return Ordering::kGreater;
  if (b > 9223372036854775808.0) return Ordering::kLess;
  return CompareDoubles(static_cast<double>(a), b);
}

Ordering CompareUintDouble(uint64_t a, double b) {
  if (std::isnan(b)) return Ordering::kUnordered;
  if (b < 0) return Ordering::kGreater;
  if (b > 18446744073709551616.0) return Ordering::kLess;
  return CompareDoubles(static_cast<double>(a), b);
}

Ordering CompareNumbers(const Value& a, const Value& b) {
  switch (a.kind()) {
    case ValueKind::kInt:
      if (b.is_int()) return FromInts(a.int_value() < b.int_value(), a.int_value() > b.int_value());
      if (b.is_uint()) return CompareIntUint(a.int_value(), b.uint_value());
      return CompareIntDouble(a.int_value(), b.double_value());
    case ValueKind::kUint:
      if (b.is_uint()) {
        return FromInts(a.uint_value() < b.uint_value(), a.uint_value() > b.uint_value());
      }
      if (b.is_int()) return Reverse(CompareIntUint(b.int_value(), a.uint_value()));
      return CompareUintDouble(a.uint_value(), b.double_value());
    default:
      if (b.is_double()) return CompareDoubles(a.double_value(), b.double_value());
      if (b.is_int()) return Reverse(CompareIntDouble(b.int_value(), a.double_value()));
      return Reverse(CompareUintDouble(b.uint_value(), a.double_value()));
  }
}

}  // namespace

Ordering Compare(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return CompareNumbers(a, b);
  if (a.kind() != b.kind()) return Ordering::kInvalid;
  switch (a.kind()) {
    case ValueKind::kString:
    case ValueKind::kBytes: {
      // Byte order of UTF-8 is code point order.
      const int c = a.string_value().compare(b.string_value());
      return FromInts(c<0, c> 0);
    }
    case ValueKind::kBool: return FromInts(!a.bool_value() && b.bool_value(), a.bool_value() && !b.bool_value());
    case ValueKind::kOpaque: return a.opaque().Compare(b);
    default: return Ordering::kInvalid;
  }
}

Value Equal(const Value& a, const Value& b) {
  if (a.is_error()) return a;
  if (b.is_error()) return b;
  switch (a.kind()) {
    case ValueKind::kNull: return Value::Bool(b.is_null());
    case ValueKind::kBool: return Value::Bool(b.is_bool() && a.bool_value() == b.bool_value());
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kDouble: return Value::Bool(b.is_number() && CompareNumbers(a, b) == Ordering::kEqual);
    case ValueKind::kString:
    case ValueKind::kBytes: return Value::Bool(b.kind() == a.kind() && a.string_value() == b.string_value());
    case ValueKind::kType: return Value::Bool(b.is_type() && a.type_name_value() == b.type_name_value());
    case ValueKind::kList: {
      if (!b.is_list()) return Value::Bool(false);
      const ListObject& x = a.list();
      const ListObject& y = b.list();
      if (x.size() != y.size()) return Value::Bool(false);
      // As cel-go: only an element that is definitely unequal decides.
      for (size_t i = 0; i < x.size(); ++i) {
        if (Equal(x.Get(i), y.Get(i)).is_false()) return Value::Bool(false);
      }
      return Value::Bool(true);
    }
    case ValueKind::kMap: {
      if (!b.is_map()) return Value::Bool(false);
      const MapObject& x = a.map();
      const MapObject& y = b.map();
      if (x.size() != y.size()) return Value::Bool(false);
      for (size_t i = 0; i < x.size(); ++i) {
        std::optional<Value> other = y.Find(x.KeyAt(i));
        if (!other || Equal(x.ValueAt(i), *other).is_false()) return Value::Bool(false);
      }
      return Value::Bool(true);
    }
    case ValueKind::kOptional:
      if (!b.is_optional()) return Value::Bool(false);
      if (!a.has_optional_value() || !b.has_optional_value()) {
        return Value::Bool(a.has_optional_value() == b.has_optional_value());
      }
      return Equal(a.optional_value(), b.optional_value());
    case ValueKind::kOpaque: return a.opaque().Equals(b);
    case ValueKind::kError: return a;
  }
  return Value::Bool(false);
}

bool EqualBool(const Value& a, const Value& b) { return Equal(a, b).is_true(); }

namespace {

// The number of UTF-8 continuation bytes (10xxxxxx) among the 8 bytes of `w`:
// the 0x80 bit of each such byte, moved to bit 0 and summed over the bytes by
// the multiplication.
inline size_t ContinuationBytes(uint64_t w) {
  const uint64_t marks = ((w & ~(w << 1)) & 0x8080808080808080ULL) >> 7;
  return static_cast<size_t>((marks * 0x0101010101010101ULL) >> 56);
}

}  // namespace

size_t CodePointCount(std::string_view s) {
  // Every byte except a continuation byte starts a code point.
  const size_t n = s.size();
  const char* p = s.data();
  if (n < 8) {
    size_t continuation = 0;
    for (size_t i = 0; i < n; ++i) continuation += (static_cast<unsigned char>(p[i]) & 0xC0) == 0x80;
    return n - continuation;
  }
  size_t continuation = 0;
  size_t i = 0;
  uint64_t w;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&w, p + i, 8);
    continuation += ContinuationBytes(w);
  }
  if (i < n) {
    // The last 8 bytes, without the ones counted already (the low ones).
    std::memcpy(&w, p + n - 8, 8);
    continuation += ContinuationBytes(w >> (8 * (8 - (n - i))));
  }
  return n - continuation;
}

uint64_t CostSize(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString: return CodePointCount(v.string_value());
    case ValueKind::kBytes: return v.bytes_value().size();
    case ValueKind::kList: return v.list().size();
    case ValueKind::kMap: return v.map().size();
    default: return 1;
  }
}

std::string FormatDoubleCel(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  // sci is [-]D[.DDD]e(+|-)XX
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::string_view exp_text = sci.substr(e + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);
  const int nd = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    const int ax = exp < 0 ? -exp : exp;
    if (ax < 10) out.push_back('0');
    out += std::to_string(ax);
    return out;
  }
  const int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-dp), '0');
    out += digits;
  } else if (dp >= nd) {
    out += digits;
    out.append(static_cast<size_t>(dp - nd), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(dp));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(dp), std::string::npos);
  }
  return out;
}

Value NoMatchingOverload(std::string_view function, std::span<const Value> args) {
  std::string msg = "no matching overload for '";
  msg += function;
  msg += "' applied to '(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) msg += ", ";
    msg += args[i].TypeName();
  }
  msg += ")'";
  return Value::Error(std::move(msg));
}

Value NoSuchKeyError(const Value& key) {
  std::string msg = "no such key: ";
  if (key.is_string()) {
    msg += key.string_value();
  } else {
    msg += key.DebugString();
  }
  return Value::Error(std::move(msg));
}

}  // namespace dra::cel
