// CEL static types: what the checker (checker.h) assigns to every expression.
//
// A Type is a small immutable value (a shared pointer to its representation),
// shaped like cel-go's common/types.Type: a kind, a name and type parameters.
//
//   kind         name                         params        printed (ToString)
//   -----------  ---------------------------  ------------  ---------------------
//   kError       "*error*"                    -             !error!
//   kDyn         "dyn"                        -             dyn
//   kAny         "google.protobuf.Any"        -             any
//   kNull        "null_type"                  -             null
//   kBool .. kBytes  "bool", "int", ...       -             bool, int, ...
//   kTimestamp   "google.protobuf.Timestamp"  -             timestamp
//   kDuration    "google.protobuf.Duration"   -             duration
//   kList        "list"                       [elem]        list(int)
//   kMap         "map"                        [key, value]  map(string, int)
//   kType        "type"                       [] or [T]     type / type(int)
//   kOpaque      e.g. "optional_type",        any           optional_type(int),
//                "kubernetes.Quantity"                      kubernetes.Quantity
//   kStruct      e.g. "kubernetes.DRADevice"  -             kubernetes.DRADevice
//   kTypeParam   e.g. "A", "_var3"            -             A
//
// `any` is the static "unknown" type Kubernetes gives DRA attribute values
// while DRAListTypeAttributes is off: it behaves like dyn for operators and
// calls, but is not a comprehension range (checker.cc).
//
// Thread-safe: Types are immutable and may be shared across threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dra::cel {

enum class TypeKind : uint8_t {
  kError,
  kDyn,
  kAny,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTimestamp,
  kDuration,
  kList,
  kMap,
  kType,
  kOpaque,
  kStruct,
  kTypeParam,
};

class Type {
 public:
  // dyn.
  Type();

  static Type Error();
  static Type Dyn();
  static Type Any();
  static Type Null();
  static Type Bool();
  static Type Int();
  static Type Uint();
  static Type Double();
  static Type String();
  static Type Bytes();
  static Type Timestamp();
  static Type Duration();
  static Type List(Type element);
  static Type Map(Type key, Type value);
  // type(T): the type of a type value such as `int` or `type(x)`.
  static Type TypeOf(Type type);
  // The plain `type` type (no parameter).
  static Type TypeType();
  // optional_type(T) (an opaque type, as in cel-go).
  static Type Optional(Type value);
  // An opaque type such as "kubernetes.Quantity" or "net.IP".
  static Type Opaque(std::string name, std::vector<Type> params = {});
  // An object type with fields, declared in the CheckerEnv (the DRA device).
  static Type Struct(std::string name);
  // A type parameter of a generic overload ("A") or a checker variable ("_var0").
  static Type Param(std::string name);

  TypeKind kind() const;
  // cel-go's TypeName(): "int", "list", "optional_type", "kubernetes.Quantity",
  // "google.protobuf.Any", "A".
  const std::string& name() const;
  std::span<const Type> params() const;

  bool is_dyn() const { return kind() == TypeKind::kDyn; }
  // dyn or any (cel-go's isDyn).
  bool is_dyn_or_any() const { return kind() == TypeKind::kDyn || kind() == TypeKind::kAny; }
  bool is_error() const { return kind() == TypeKind::kError; }
  bool is_optional() const;
  // The T of optional_type(T). REQUIRES is_optional().
  const Type& optional_value() const;

  // As cel-go's checker prints types in messages (FormatCELType):
  // "list(int)", "map(string, any)", "null", "optional_type(int)".
  std::string ToString() const;
  // As cel-go's Type.String() prints them (the Kubernetes result-type
  // message): like ToString, but "google.protobuf.Any", "null_type",
  // "google.protobuf.Timestamp".
  std::string DeclaredString() const;

  // Same kind, name and (recursively) parameters.
  bool IsExact(const Type& other) const;
  // cel-go's IsEquivalentType, the rule of homogeneous aggregate literals:
  // dyn is equivalent only to dyn, list(int) only to list(int).
  bool IsEquivalent(const Type& other) const { return IsExact(other); }

  friend bool operator==(const Type& a, const Type& b) { return a.IsExact(b); }

 private:
  struct Rep;
  explicit Type(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  static Type Make(TypeKind kind, std::string name, std::vector<Type> params);

  std::shared_ptr<const Rep> rep_;
};

// Parses a type as the conformance vectors' `decls` spell it (INDEX.md):
// "int", "uint", "double", "bool", "string", "bytes", "null_type", "dyn",
// "any", "list(T)", "map(K, V)", "type", "type(T)", "optional_type(T)",
// "timestamp", "duration", the google.protobuf names of Any, Timestamp and
// Duration, and dotted opaque names with optional parameters
// ("kubernetes.Quantity", "net.IP"). A bare "list" is list(dyn) and a bare
// "map" map(dyn, dyn). Returns kInvalidArgument, quoting `text`, for anything
// else (an unknown undotted name, unbalanced parentheses, a wrong number of
// parameters).
StatusOr<Type> ParseTypeName(std::string_view text);

// Like ParseTypeName, but a single upper-case letter ("A", "K", "V") is a
// type parameter. Used to write the library signatures (checker_decls.cc).
StatusOr<Type> ParseSignatureType(std::string_view text);

}  // namespace dra::cel
