// CEL runtime values.
//
// A `Value` is a small (16-byte) copyable handle: scalars live inline, and
// everything else points to an immutable, reference-counted heap object or
// borrows memory that outlives the evaluation. The evaluator copies Values
// freely, so the common cases (numbers, bools, borrowed strings, borrowed
// maps and lists handed in by an Activation) copy without touching memory
// other than the 16 bytes.
//
// Layout (see the table below for what `payload` holds per kind):
//
//   byte 0      kind (ValueKind)
//   byte 1      flags: kHeap   payload is a RefCounted* (else inline/borrowed)
//                      kCounted copying the Value takes a reference
//   bytes 4..7  size: length of a borrowed string/bytes/type name
//   bytes 8..15 payload
//
//   kind        payload                                       ownership
//   ----------  --------------------------------------------  -----------------------
//   kNull       -                                             -
//   kBool       bool                                          inline
//   kInt        int64                                         inline
//   kUint       uint64                                        inline
//   kDouble     double                                        inline
//   kString     chars (borrowed, + size) or StringObject*    borrowed or counted
//   kBytes      as kString; the bytes need not be UTF-8       borrowed or counted
//   kList       ListObject*                                   counted or borrowed
//   kMap        MapObject*                                    counted or borrowed
//   kType       chars of the type name (+ size)               borrowed (static names)
//   kOptional   OptionalObject* (holds the value), or null    counted; null = none
//               for optional.none()
//   kError      ErrorObject* (the message)                    counted
//   kOpaque     OpaqueObject* (extension types: quantity,     counted or borrowed
//               semver, the DRA device, ...)
//
// Invariants:
//   1. A Value with kCounted holds one reference on its object; a Value
//      without it (a "borrowed" Value) relies on someone else keeping the
//      object or chars alive for as long as the Value is used: the Program
//      for its constants, the caller for the values it passes in through an
//      Activation.
//   2. Objects are immutable once shared. Only the evaluator mutates a list
//      or map it built itself while it holds the only reference (used to
//      build comprehension results in linear time).
//   3. Reference counts are atomic, so counted Values may be copied and
//      dropped on several threads at once; the objects themselves are never
//      written after being shared, so reading them concurrently is safe.
//
// Lifetime of results: a Value produced by Program::Evaluate may borrow from
// the Program (constants) and from the values the Activation supplied. Keep
// both alive while using the result.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace dra::cel {

enum class ValueKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kOptional,
  kError,
  kOpaque,
};
inline constexpr int kValueKindCount = 13;

// "null", "bool", "int", ... (the CEL type names of the standard kinds;
// "optional_type" for kOptional, "error" for kError, "opaque" for kOpaque).
std::string_view ValueKindName(ValueKind kind);

// Base of every heap object a Value can point to.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // True if exactly one reference exists (the caller's).
  bool IsUnique() const { return refs_.load(std::memory_order_acquire) == 1; }

 protected:
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<uint32_t> refs_{1};
};

// An owning pointer to a RefCounted object (one reference).
template <typename T>
class RefPtr {
 public:
  RefPtr() = default;
  // Adopts the reference `p` was created with (new objects start at 1).
  static RefPtr Adopt(T* p) {
    RefPtr r;
    r.p_ = p;
    return r;
  }
  RefPtr(const RefPtr& o) : p_(o.p_) {
    if (p_) p_->Ref();
  }
  RefPtr(RefPtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <typename U>
  requires std::is_convertible_v<U*, T*> RefPtr(RefPtr<U>&& o)
  noexcept : p_(o.release()) {}  // NOLINT: implicit upcast
  RefPtr& operator=(RefPtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~RefPtr() {
    if (p_) p_->Unref();
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Gives up ownership without dropping the reference.
  T* release() { return std::exchange(p_, nullptr); }

 private:
  T* p_ = nullptr;
};

template <typename T, typename... Args>
RefPtr<T> MakeRef(Args&&... args) {
  return RefPtr<T>::Adopt(new T(std::forward<Args>(args)...));
}

class ListObject;
class MapObject;
class OpaqueObject;

// The result of Compare() (below) and OpaqueObject::Compare.
enum class Ordering : uint8_t { kLess, kEqual, kGreater, kUnordered, kInvalid };

class Value {
 public:
  Value() = default;  // null
  Value(const Value& o) : kind_(o.kind_), flags_(o.flags_), size_(o.size_), u_(o.u_) {
    if (flags_ & kCounted) u_.obj->Ref();
  }
  Value(Value&& o) noexcept : kind_(o.kind_), flags_(o.flags_), size_(o.size_), u_(o.u_) {
    o.kind_ = ValueKind::kNull;
    o.flags_ = 0;
  }
  // Both assignments first take hold of `o`, then drop the old value, so
  // assigning a value that lives inside this one (v = v.optional_value())
  // is safe.
  Value& operator=(const Value& o) {
    Value tmp(o);
    Swap(tmp);
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    Value tmp(std::move(o));
    Swap(tmp);
    return *this;
  }
  ~Value() { Release(); }

  // --- Construction ---------------------------------------------------------
  static Value Null() { return Value(); }
  static Value Bool(bool v) {
    Value r(ValueKind::kBool);
    r.u_.b = v;
    return r;
  }
  static Value Int(int64_t v) {
    Value r(ValueKind::kInt);
    r.u_.i = v;
    return r;
  }
  static Value Uint(uint64_t v) {
    Value r(ValueKind::kUint);
    r.u_.u = v;
    return r;
  }
  static Value Double(double v) {
    Value r(ValueKind::kDouble);
    r.u_.d = v;
    return r;
  }
  // An owned copy of `s` (must be valid UTF-8; the evaluator never makes
  // strings that are not).
  static Value String(std::string s);
  // Borrows `s`: the chars must outlive every use of the Value.
  // REQUIRES: s.size() < 2^32.
  static Value StringView(std::string_view s) { return View(ValueKind::kString, s); }
  static Value Bytes(std::string s);
  static Value BytesView(std::string_view s) { return View(ValueKind::kBytes, s); }
  // A type value; `name` must have static storage duration (or outlive every
  // use, like the names OpaqueObject::type_name returns).
  static Value Type(std::string_view name) { return View(ValueKind::kType, name); }
  static Value List(std::vector<Value> elements);
  static Value List(RefPtr<ListObject> list);
  static Value Map(RefPtr<MapObject> map);
  static Value Opaque(RefPtr<OpaqueObject> object);
  static Value Optional(Value v);
  static Value OptionalNone() { return Value(ValueKind::kOptional); }
  static Value Error(std::string message);

  // Makes this a borrowed copy of `v` (as Borrow(v)), releasing what it held.
  void AssignBorrowed(const Value& v) {
    Release();
    kind_ = v.kind_;
    flags_ = static_cast<uint8_t>(v.flags_ & ~kCounted);
    size_ = v.size_;
    u_ = v.u_;
  }

  // A copy that does not take a reference: valid while `v` (or whoever keeps
  // its object alive) is. Used for program constants and activation values.
  static Value Borrow(const Value& v) {
    Value r;
    r.kind_ = v.kind_;
    r.flags_ = static_cast<uint8_t>(v.flags_ & ~kCounted);
    r.size_ = v.size_;
    r.u_ = v.u_;
    return r;
  }
  // Borrowing views of objects the caller keeps alive.
  static Value BorrowList(const ListObject* list);
  static Value BorrowMap(const MapObject* map);
  static Value BorrowOpaque(const OpaqueObject* object);

  // --- Inspection -----------------------------------------------------------
  ValueKind kind() const { return kind_; }
  bool is_null() const { return kind_ == ValueKind::kNull; }
  bool is_bool() const { return kind_ == ValueKind::kBool; }
  bool is_int() const { return kind_ == ValueKind::kInt; }
  bool is_uint() const { return kind_ == ValueKind::kUint; }
  bool is_double() const { return kind_ == ValueKind::kDouble; }
  bool is_string() const { return kind_ == ValueKind::kString; }
  bool is_bytes() const { return kind_ == ValueKind::kBytes; }
  bool is_list() const { return kind_ == ValueKind::kList; }
  bool is_map() const { return kind_ == ValueKind::kMap; }
  bool is_type() const { return kind_ == ValueKind::kType; }
  bool is_optional() const { return kind_ == ValueKind::kOptional; }
  bool is_error() const { return kind_ == ValueKind::kError; }
  bool is_opaque() const { return kind_ == ValueKind::kOpaque; }
  bool is_true() const { return kind_ == ValueKind::kBool && u_.b; }
  bool is_false() const { return kind_ == ValueKind::kBool && !u_.b; }
  bool is_number() const {
    return kind_ == ValueKind::kInt || kind_ == ValueKind::kUint || kind_ == ValueKind::kDouble;
  }

  // Each accessor REQUIRES the matching kind (unchecked in release builds
  // for speed; the evaluator always checks kind() first).
  bool bool_value() const { return u_.b; }
  int64_t int_value() const { return u_.i; }
  uint64_t uint_value() const { return u_.u; }
  double double_value() const { return u_.d; }
  // kString or kBytes.
  std::string_view string_value() const;
  std::string_view bytes_value() const { return string_value(); }
  // kType: the type name ("int", "list", "kubernetes.Quantity", ...).
  std::string_view type_name_value() const { return std::string_view(u_.chars, size_); }
  const ListObject& list() const;
  const MapObject& map() const;
  const OpaqueObject& opaque() const;
  // kOptional.
  bool has_optional_value() const { return u_.obj != nullptr; }
  // REQUIRES: has_optional_value().
  const Value& optional_value() const;
  // kError.
  std::string_view error_message() const;

  // The object behind a kList/kMap/kOpaque/kOptional/kError Value, or of an
  // owned string; nullptr otherwise.
  const RefCounted* object() const { return (flags_ & kHeap) ? u_.obj : nullptr; }
  // True if this Value holds the only reference to its object, so the
  // evaluator may mutate the object in place.
  bool IsUniquelyOwned() const { return (flags_ & kCounted) && u_.obj->IsUnique(); }

  // The CEL type name: "int", "list", "map", "optional_type", "null_type",
  // an opaque object's type name, or "*error*" for errors.
  std::string_view TypeName() const;
  // A type Value for this value's type (type(x)).
  Value GetType() const;

  // A readable rendering for messages and debugging, in CEL syntax where
  // there is one: 1, 2u, 1.5, "s", b"\xff", [1, 2], {"k": v}, int,
  // optional.of(1), optional.none(), error("msg").
  std::string DebugString() const;

 private:
  enum : uint8_t { kHeap = 1, kCounted = 2 };

  explicit Value(ValueKind kind) : kind_(kind) {}
  static Value View(ValueKind kind, std::string_view s) {
    if (s.size() > UINT32_MAX) return OwnedCopy(kind, s);
    Value r(kind);
    r.size_ = static_cast<uint32_t>(s.size());
    r.u_.chars = s.data();
    return r;
  }
  static Value OwnedCopy(ValueKind kind, std::string_view s);
  // REQUIRES: `object` is a ListObject, MapObject or OpaqueObject matching `kind`.
  static Value BorrowObject(ValueKind kind, const RefCounted* object) {
    Value r(kind);
    r.flags_ = kHeap;
    r.u_.obj = object;
    return r;
  }
  static Value FromObject(ValueKind kind, const RefCounted* owned) {
    if (owned == nullptr) return Value();
    Value r(kind);
    r.flags_ = kHeap | kCounted;
    r.u_.obj = owned;
    return r;
  }
  void Release() {
    if (flags_ & kCounted) u_.obj->Unref();
  }
  void Swap(Value& o) noexcept {
    std::swap(kind_, o.kind_);
    std::swap(flags_, o.flags_);
    std::swap(size_, o.size_);
    std::swap(u_, o.u_);
  }

  ValueKind kind_ = ValueKind::kNull;
  uint8_t flags_ = 0;
  uint32_t size_ = 0;
  union Payload {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    const char* chars;
    const RefCounted* obj;
  } u_{.i = 0};
};

static_assert(sizeof(Value) == 16, "Value is meant to be two words");

// --- Heap objects -------------------------------------------------------------

// An owned string or bytes payload.
class StringObject final : public RefCounted {
 public:
  explicit StringObject(std::string s) : value(std::move(s)) {}
  const std::string value;
};

inline std::string_view Value::string_value() const {
  if (flags_ & kHeap) return static_cast<const StringObject*>(u_.obj)->value;
  return std::string_view(u_.chars, size_);
}

// The message of an error value.
class ErrorObject final : public RefCounted {
 public:
  explicit ErrorObject(std::string m) : message(std::move(m)) {}
  const std::string message;
};

class OptionalObject final : public RefCounted {
 public:
  explicit OptionalObject(Value v) : value(std::move(v)) {}
  const Value value;
};

// A CEL list. Implementations other than the built-in one (e.g. a view of
// an api object's list) subclass it; elements must stay valid while the
// object lives.
class ListObject : public RefCounted {
 public:
  virtual size_t size() const = 0;
  // REQUIRES: index < size().
  virtual Value Get(size_t index) const = 0;
  // True only for VectorList (lets the evaluator extend a list it owns
  // without RTTI).
  virtual bool IsVectorList() const { return false; }
};

// The built-in list: a vector of Values.
class VectorList final : public ListObject {
 public:
  VectorList() = default;
  explicit VectorList(std::vector<Value> elements) : elements_(std::move(elements)) {}
  size_t size() const override { return elements_.size(); }
  Value Get(size_t index) const override { return elements_[index]; }
  bool IsVectorList() const override { return true; }
  const std::vector<Value>& elements() const { return elements_; }
  // Only while unshared (invariant 2).
  std::vector<Value>& mutable_elements() { return elements_; }

 private:
  std::vector<Value> elements_;
};

// A CEL map. Keys are bool, int, uint or string; numeric keys compare by
// value across int and uint (and a double key that is a whole number finds
// the int/uint entry), as cel-spec requires. Iteration (KeyAt/ValueAt) goes
// over entries in a fixed order.
class MapObject : public RefCounted {
 public:
  virtual size_t size() const = 0;
  // The value for `key`, or std::nullopt. `key` may be of any kind; kinds
  // that cannot be keys are simply absent (the evaluator reports errors for
  // them before calling). Used by indexing, field selection and has().
  virtual std::optional<Value> Find(const Value& key) const = 0;
  // Whether `key` is a real entry: used by the `in` operator. Differs from
  // Find() only for maps that return a default for absent keys (the DRA
  // attribute domains).
  virtual bool Contains(const Value& key) const { return Find(key).has_value(); }
  // REQUIRES: index < size().
  virtual Value KeyAt(size_t index) const = 0;
  virtual Value ValueAt(size_t index) const = 0;
  // True only for HashMap.
  virtual bool IsHashMap() const { return false; }
};

// The built-in map: entries in insertion order plus a hash index for large
// maps (small maps are searched linearly).
class HashMap final : public MapObject {
 public:
  HashMap() = default;
  size_t size() const override { return entries_.size(); }
  std::optional<Value> Find(const Value& key) const override;
  Value KeyAt(size_t index) const override { return entries_[index].first; }
  Value ValueAt(size_t index) const override { return entries_[index].second; }
  bool IsHashMap() const override { return true; }

  // Adds `key` -> `value`. Returns false (and changes nothing) if an equal key
  // is already present. REQUIRES: IsValidMapKey(key); only while unshared.
  bool Insert(Value key, Value value);
  // The index of `key`'s entry, or -1.
  int64_t IndexOf(const Value& key) const;
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }

 private:
  void Rehash();

  std::vector<std::pair<Value, Value>> entries_;
  std::vector<int32_t> index_;  // open addressing over entries_; empty when small
};

// One step of a constant access path `v.f["k"].g` (see
// OpaqueObject::ResolvePath): a field selection (`key` is the field name as a
// string) or an index with a constant key.
struct PathStep {
  bool is_index = false;
  Value key;
};

// An extension value: quantity, semver, IP, CIDR, URL, or an object such as
// the DRA device. Subclasses are immutable. See function_registry.h for how a
// library registers functions that take them.
class OpaqueObject : public RefCounted {
 public:
  // The CEL type name, e.g. "kubernetes.Quantity". The returned view must
  // stay valid for the life of the program (use a string literal).
  virtual std::string_view type_name() const = 0;
  // `this == other`, where `other` may be of any kind (equal kinds are not
  // guaranteed). Returns Bool, or an error Value when the comparison itself
  // is an error (cel-go lets custom types do that). The default compares
  // identity for objects of the same type name and is false otherwise.
  virtual Value Equals(const Value& other) const;
  // Field selection `obj.field` (for object-like types such as the DRA
  // device): the value, or std::nullopt if there is no such field. The
  // default has no fields.
  virtual std::optional<Value> GetField(std::string_view field) const;
  // Presence test `has(obj.field)`; default: GetField(field).has_value().
  virtual bool HasField(std::string_view field) const;
  // The planner's fast path for a chain of field selections and constant
  // indexes rooted at a variable that holds this object
  // (`device.attributes["d"].model`): the value of the whole chain in one
  // call. `prepared` is what Environment::prepare_path returned for the chain
  // (or nullptr). Sets *out and returns true, or returns false to make the
  // evaluator walk the chain step by step instead, which it must do when a
  // step would fail: a value set is never an error and equals what the
  // step-by-step walk produces. The default declines.
  virtual bool ResolvePath(std::span<const PathStep> steps, const void* prepared, Value* out) const;
  // Orders `this` against `other` (of any kind) for Compare(): kInvalid
  // unless the type is ordered (cel-go's traits.Comparer: timestamps and
  // durations). The default is kInvalid.
  virtual Ordering Compare(const Value& other) const;
  // For DebugString and the CLI's typed output, e.g. "40Gi".
  virtual std::string DebugString() const = 0;
};

inline Value Value::BorrowList(const ListObject* list) { return BorrowObject(ValueKind::kList, list); }
inline Value Value::BorrowMap(const MapObject* map) { return BorrowObject(ValueKind::kMap, map); }
inline Value Value::BorrowOpaque(const OpaqueObject* object) { return BorrowObject(ValueKind::kOpaque, object); }

// --- Operations -----------------------------------------------------------------

// Whether `v` may be a map key (bool, int, uint, string).
bool IsValidMapKey(const Value& v);

// Heterogeneous equality as cel-spec defines it: numbers compare by value
// across int/uint/double (NaN equals nothing), lists and maps element-wise,
// values of unrelated kinds are unequal. Returns Bool, or an error Value if
// either operand is an error or an opaque type's Equals reports one.
Value Equal(const Value& a, const Value& b);
// Equal() as a plain bool (errors count as unequal).
bool EqualBool(const Value& a, const Value& b);

// Orders two values for <, <=, >, >=: numbers across int/uint/double
// (kUnordered when a NaN is involved), strings by code point, bytes by byte,
// bools (false < true), opaque values by OpaqueObject::Compare. Anything
// else is kInvalid ("no such overload").
Ordering Compare(const Value& a, const Value& b);

// Number of Unicode code points of valid UTF-8 `s`.
size_t CodePointCount(std::string_view s);

// The CEL size of a value for the cost model (cel-go's actualSize): string
// length in code points, bytes length, list/map size; 1 for anything else.
uint64_t CostSize(const Value& v);

// Formats a double as cel-go's string(double) does (Go strconv 'g' with the
// shortest round-tripping digits): 1.5 -> "1.5", 1e100 -> "1e+100",
// 123456789.0 -> "1.23456789e+08", NaN -> "NaN", +Inf -> "+Inf".
std::string FormatDoubleCel(double d);

// Error value helpers with cel-go's messages.
Value NoMatchingOverload(std::string_view function, std::span<const Value> args);
Value NoSuchKeyError(const Value& key);

}  // namespace dra::cel
