// Signatures of the CEL libraries for the checker, and the environments made
// of them. Each signature is written as text, "A, list(A) -> bool", parsed by
// ParseSignatureType; one-letter names are type parameters.
#include "cel/checker/checker_decls.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace dra::cel {
namespace {

constexpr std::string_view kQuantity = "kubernetes.Quantity";
constexpr std::string_view kDeviceType = "kubernetes.DRADevice";

// The tables below are ours: a malformed one is a bug, found by the tests.
[[noreturn]] void BadSignature(std::string_view id, std::string_view sig, const Status& s) {
  std::fprintf(stderr, "checker_decls: bad signature of %.*s '%.*s': %s\n", static_cast<int>(id.size()), id.data(),
               static_cast<int>(sig.size()), sig.data(), s.message().c_str());
  std::abort();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Type ParseOrDie(std::string_view id, std::string_view sig, std::string_view text) {
  StatusOr<Type> t = ParseSignatureType(Trim(text));
  if (!t.ok()) BadSignature(id, sig, t.status());
  return *std::move(t);
}

// Parses "T1, T2 -> R" (no parameters: "-> R").
OverloadDecl MakeOverload(std::string_view id, bool member, std::string_view sig) {
  OverloadDecl o;
  o.id = std::string(id);
  o.member = member;
  const size_t arrow = sig.find("->");
  if (arrow == std::string_view::npos) BadSignature(id, sig, InvalidArgumentError("no '->'"));
  std::string_view params = Trim(sig.substr(0, arrow));
  o.result = ParseOrDie(id, sig, sig.substr(arrow + 2));
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= params.size() && !params.empty(); ++i) {
    if (i == params.size() || (params[i] == ',' && depth == 0)) {
      o.params.push_back(ParseOrDie(id, sig, params.substr(start, i - start)));
      start = i + 1;
    } else if (params[i] == '(') {
      ++depth;
    } else if (params[i] == ')') {
      --depth;
    }
  }
  return o;
}

class Declarer {
 public:
  explicit Declarer(CheckerEnv& env) : env_(env) {}

  // A global overload.
  void Global(std::string_view fn, std::string_view id, std::string_view sig) {
    env_.DeclareFunction(fn, MakeOverload(id, false, sig));
  }
  // A member (receiver-style) overload; the receiver is the first parameter.
  void Member(std::string_view fn, std::string_view id, std::string_view sig) {
    env_.DeclareFunction(fn, MakeOverload(id, true, sig));
  }
  // Both styles, as `size` has them.
  void Both(std::string_view fn, std::string_view global_id, std::string_view member_id, std::string_view sig) {
    Global(fn, global_id, sig);
    Member(fn, member_id, sig);
  }

 private:
  CheckerEnv& env_;
};

// cel-go's comparable types (ext.Lists sort, Kubernetes lists), with the
// names used in overload ids.
struct Comparable {
  std::string_view type;
  std::string_view id_name;
};
constexpr Comparable kComparable[] = {
    {"int", "int"},           {"uint", "uint"},           {"double", "double"}, {"bool", "bool"},
    {"duration", "duration"}, {"timestamp", "timestamp"}, {"string", "string"}, {"bytes", "bytes"},
};

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

void DeclareStandard(Declarer& d, const CheckerLibraries& libs) {
  // Logic.
  d.Global("!_", "logical_not", "bool -> bool");
  d.Global("_&&_", "logical_and", "bool, bool -> bool");
  d.Global("_||_", "logical_or", "bool, bool -> bool");
  d.Global("@not_strictly_false", "not_strictly_false", "bool -> bool");
  d.Global("_?_:_", "conditional", "bool, A, A -> A");

  // Equality, membership, indexing.
  d.Global("_==_", "equals", "A, A -> bool");
  d.Global("_!=_", "not_equals", "A, A -> bool");
  d.Global("@in", "in_list", "A, list(A) -> bool");
  d.Global("@in", "in_map", "A, map(A, B) -> bool");
  d.Global("_[_]", "index_list", "list(A), int -> A");
  d.Global("_[_]", "index_map", "map(A, B), A -> B");

  // Arithmetic.
  struct Arith {
    std::string_view fn, id, types;
  };
  for (const Arith& a : {Arith{"_+_", "add", "int uint double string bytes"},
                         Arith{"_-_", "subtract", "int uint double"}, Arith{"_*_", "multiply", "int uint double"},
                         Arith{"_/_", "divide", "int uint double"}, Arith{"_%_", "modulo", "int uint"}}) {
    std::string_view types = a.types;
    while (!types.empty()) {
      const size_t space = types.find(' ');
      const std::string_view t = types.substr(0, space);
      const std::string_view suffix = t == "int" ? "int64" : t == "uint" ? "uint64" : t;
      d.Global(a.fn, Cat({a.id, "_", suffix}), Cat({t, ", ", t, " -> ", t}));
      types = space == std::string_view::npos ? std::string_view() : types.substr(space + 1);
    }
  }
  d.Global("_+_", "add_list", "list(A), list(A) -> list(A)");
  d.Global("-_", "negate_int64", "int -> int");
  d.Global("-_", "negate_double", "double -> double");
  if (libs.timestamps) {
    d.Global("_+_", "add_timestamp_duration", "timestamp, duration -> timestamp");
    d.Global("_+_", "add_duration_timestamp", "duration, timestamp -> timestamp");
    d.Global("_+_", "add_duration_duration", "duration, duration -> duration");
    d.Global("_-_", "subtract_timestamp_timestamp", "timestamp, timestamp -> duration");
    d.Global("_-_", "subtract_timestamp_duration", "timestamp, duration -> timestamp");
    d.Global("_-_", "subtract_duration_duration", "duration, duration -> duration");
  }

  // Ordering.
  struct Rel {
    std::string_view fn, id;
  };
  struct Pair {
    std::string_view a, b, suffix;
  };
  std::vector<Pair> pairs = {{"bool", "bool", "bool"},       {"int", "int", "int64"},
                             {"uint", "uint", "uint64"},     {"double", "double", "double"},
                             {"string", "string", "string"}, {"bytes", "bytes", "bytes"}};
  if (libs.timestamps) {
    pairs.push_back({"timestamp", "timestamp", "timestamp"});
    pairs.push_back({"duration", "duration", "duration"});
  }
  if (libs.cross_type_numeric_comparisons) {
    pairs.insert(pairs.end(), {{"int", "uint", "int64_uint64"},
                               {"int", "double", "int64_double"},
                               {"uint", "int", "uint64_int64"},
                               {"uint", "double", "uint64_double"},
                               {"double", "int", "double_int64"},
                               {"double", "uint", "double_uint64"}});
  }
  for (const Rel& rel :
       {Rel{"_<_", "less"}, Rel{"_<=_", "less_equals"}, Rel{"_>_", "greater"}, Rel{"_>=_", "greater_equals"}}) {
    for (const Pair& p : pairs) {
      d.Global(rel.fn, Cat({rel.id, "_", p.suffix}), Cat({p.a, ", ", p.b, " -> bool"}));
    }
  }

  // size.
  d.Both("size", "size_string", "string_size", "string -> int");
  d.Both("size", "size_bytes", "bytes_size", "bytes -> int");
  d.Both("size", "size_list", "list_size", "list(A) -> int");
  d.Both("size", "size_map", "map_size", "map(A, B) -> int");

  // String predicates.
  d.Member("contains", "contains_string", "string, string -> bool");
  d.Member("endsWith", "ends_with_string", "string, string -> bool");
  d.Member("startsWith", "starts_with_string", "string, string -> bool");
  d.Global("matches", "matches", "string, string -> bool");
  d.Member("matches", "matches_string", "string, string -> bool");

  // Conversions.
  d.Global("int", "int64_to_int64", "int -> int");
  d.Global("int", "uint64_to_int64", "uint -> int");
  d.Global("int", "double_to_int64", "double -> int");
  d.Global("int", "string_to_int64", "string -> int");
  d.Global("uint", "uint64_to_uint64", "uint -> uint");
  d.Global("uint", "int64_to_uint64", "int -> uint");
  d.Global("uint", "double_to_uint64", "double -> uint");
  d.Global("uint", "string_to_uint64", "string -> uint");
  d.Global("double", "double_to_double", "double -> double");
  d.Global("double", "int64_to_double", "int -> double");
  d.Global("double", "uint64_to_double", "uint -> double");
  d.Global("double", "string_to_double", "string -> double");
  d.Global("bool", "bool_to_bool", "bool -> bool");
  d.Global("bool", "string_to_bool", "string -> bool");
  d.Global("bytes", "bytes_to_bytes", "bytes -> bytes");
  d.Global("bytes", "string_to_bytes", "string -> bytes");
  d.Global("string", "string_to_string", "string -> string");
  d.Global("string", "int64_to_string", "int -> string");
  d.Global("string", "uint64_to_string", "uint -> string");
  d.Global("string", "double_to_string", "double -> string");
  d.Global("string", "bool_to_string", "bool -> string");
  d.Global("string", "bytes_to_string", "bytes -> string");
  d.Global("dyn", "to_dyn", "A -> dyn");
  d.Global("type", "type", "A -> type(A)");

  if (libs.timestamps) {
    d.Global("int", "timestamp_to_int64", "timestamp -> int");
    d.Global("int", "duration_to_int64", "duration -> int");
    d.Global("string", "timestamp_to_string", "timestamp -> string");
    d.Global("string", "duration_to_string", "duration -> string");
    d.Global("timestamp", "timestamp_to_timestamp", "timestamp -> timestamp");
    d.Global("timestamp", "string_to_timestamp", "string -> timestamp");
    d.Global("timestamp", "int64_to_timestamp", "int -> timestamp");
    d.Global("duration", "duration_to_duration", "duration -> duration");
    d.Global("duration", "string_to_duration", "string -> duration");
    struct Getter {
      std::string_view fn, id;
      bool duration;
    };
    for (const Getter& g :
         {Getter{"getFullYear", "year", false}, Getter{"getMonth", "month", false},
          Getter{"getDayOfYear", "day_of_year", false}, Getter{"getDayOfMonth", "day_of_month_zero_based", false},
          Getter{"getDate", "day_of_month_one_based", false}, Getter{"getDayOfWeek", "day_of_week", false},
          Getter{"getHours", "hours", true}, Getter{"getMinutes", "minutes", true},
          Getter{"getSeconds", "seconds", true}, Getter{"getMilliseconds", "milliseconds", true}}) {
      d.Member(g.fn, Cat({"timestamp_to_", g.id}), "timestamp -> int");
      d.Member(g.fn, Cat({"timestamp_to_", g.id, "_with_tz"}), "timestamp, string -> int");
      if (g.duration) d.Member(g.fn, Cat({"duration_to_", g.id}), "duration -> int");
    }
  }
}

void DeclareStrings(Declarer& d, int version) {
  if (version < 0) return;
  d.Member("charAt", "string_char_at_int", "string, int -> string");
  d.Member("indexOf", "string_index_of_string", "string, string -> int");
  d.Member("indexOf", "string_index_of_string_int", "string, string, int -> int");
  d.Member("lastIndexOf", "string_last_index_of_string", "string, string -> int");
  d.Member("lastIndexOf", "string_last_index_of_string_int", "string, string, int -> int");
  d.Member("lowerAscii", "string_lower_ascii", "string -> string");
  d.Member("upperAscii", "string_upper_ascii", "string -> string");
  d.Member("replace", "string_replace_string_string", "string, string, string -> string");
  d.Member("replace", "string_replace_string_string_int", "string, string, string, int -> string");
  d.Member("split", "string_split_string", "string, string -> list(string)");
  d.Member("split", "string_split_string_int", "string, string, int -> list(string)");
  d.Member("substring", "string_substring_int", "string, int -> string");
  d.Member("substring", "string_substring_int_int", "string, int, int -> string");
  d.Member("trim", "string_trim", "string -> string");
  d.Member("join", "list_join", "list(string) -> string");
  d.Member("join", "list_join_string", "list(string), string -> string");
  if (version >= 1) {
    d.Member("format", "string_format", "string, list(dyn) -> string");
    d.Global("strings.quote", "strings_quote", "string -> string");
  }
  if (version >= 3) d.Member("reverse", "string_reverse", "string -> string");
}

void DeclareListsExt(Declarer& d) {
  d.Global("lists.range", "lists_range", "int -> list(int)");
  d.Member("slice", "list_slice", "list(A), int, int -> list(A)");
  d.Member("flatten", "list_flatten", "list(list(A)) -> list(A)");
  d.Member("flatten", "list_flatten_int", "list(dyn), int -> list(dyn)");
  d.Member("distinct", "list_distinct", "list(A) -> list(A)");
  d.Member("reverse", "list_reverse", "list(A) -> list(A)");
  for (const Comparable& c : kComparable) {
    d.Member("sort", Cat({"list_", c.id_name, "_sort"}), Cat({"list(", c.type, ") -> list(", c.type, ")"}));
    d.Member("@sortByAssociatedKeys", Cat({"list_", c.id_name, "_sortByAssociatedKeys"}),
             Cat({"list(A), list(", c.type, ") -> list(A)"}));
  }
  d.Member("first", "list_first", "list(A) -> optional_type(A)");
  d.Member("last", "list_last", "list(A) -> optional_type(A)");
}

void DeclareSets(Declarer& d) {
  d.Global("sets.contains", "list_sets_contains_list", "list(A), list(A) -> bool");
  d.Global("sets.equivalent", "list_sets_equivalent_list", "list(A), list(A) -> bool");
  d.Global("sets.intersects", "list_sets_intersects_list", "list(A), list(A) -> bool");
}

void DeclareOptional(Declarer& d) {
  d.Global("optional.of", "optional_of", "A -> optional_type(A)");
  d.Global("optional.ofNonZeroValue", "optional_ofNonZeroValue", "A -> optional_type(A)");
  d.Global("optional.none", "optional_none", "-> optional_type(A)");
  d.Member("value", "optional_value", "optional_type(A) -> A");
  d.Member("hasValue", "optional_hasValue", "optional_type(A) -> bool");
  d.Member("or", "optional_or_optional", "optional_type(A), optional_type(A) -> optional_type(A)");
  d.Member("orValue", "optional_orValue_value", "optional_type(A), A -> A");
  d.Global("_[?_]", "list_optindex_optional_int", "list(A), int -> optional_type(A)");
  d.Global("_[?_]", "optional_list_optindex_optional_int", "optional_type(list(A)), int -> optional_type(A)");
  d.Global("_[?_]", "map_optindex_optional_value", "map(K, V), K -> optional_type(V)");
  d.Global("_[?_]", "optional_map_optindex_optional_value", "optional_type(map(K, V)), K -> optional_type(V)");
  d.Global("_[_]", "optional_list_index_int", "optional_type(list(A)), int -> optional_type(A)");
  d.Global("_[_]", "optional_map_index_value", "optional_type(map(K, V)), K -> optional_type(V)");
  d.Global("optional.unwrap", "optional_unwrap", "list(optional_type(A)) -> list(A)");
  d.Member("unwrapOpt", "optional_unwrapOpt", "list(optional_type(A)) -> list(A)");
  d.Member("first", "list_first", "list(A) -> optional_type(A)");
  d.Member("last", "list_last", "list(A) -> optional_type(A)");
}

void DeclareTwoVarComprehensions(Declarer& d) {
  d.Global("cel.@mapInsert", "@mapInsert_map_key_value", "map(K, V), K, V -> map(K, V)");
  d.Global("cel.@mapInsert", "@mapInsert_map_map", "map(K, V), map(K, V) -> map(K, V)");
}

void DeclareKubernetes(Declarer& d) {
  // Quantity (library/quantity.go). `sign` is a global function.
  d.Global("quantity", "string_to_quantity", "string -> kubernetes.Quantity");
  d.Global("isQuantity", "is_quantity_string", "string -> bool");
  d.Global("sign", "quantity_sign", "kubernetes.Quantity -> int");
  d.Member("isGreaterThan", "quantity_is_greater_than", "kubernetes.Quantity, kubernetes.Quantity -> bool");
  d.Member("isLessThan", "quantity_is_less_than", "kubernetes.Quantity, kubernetes.Quantity -> bool");
  d.Member("compareTo", "quantity_compare_to", "kubernetes.Quantity, kubernetes.Quantity -> int");
  d.Member("add", "quantity_add", "kubernetes.Quantity, kubernetes.Quantity -> kubernetes.Quantity");
  d.Member("add", "quantity_add_int", "kubernetes.Quantity, int -> kubernetes.Quantity");
  d.Member("sub", "quantity_sub", "kubernetes.Quantity, kubernetes.Quantity -> kubernetes.Quantity");
  d.Member("sub", "quantity_sub_int", "kubernetes.Quantity, int -> kubernetes.Quantity");
  d.Member("asInteger", "quantity_get_int", "kubernetes.Quantity -> int");
  d.Member("isInteger", "quantity_is_integer", "kubernetes.Quantity -> bool");
  d.Member("asApproximateFloat", "quantity_get_float", "kubernetes.Quantity -> double");

  // Semver v1 (library/semverlib.go).
  d.Global("semver", "string_to_semver", "string -> kubernetes.Semver");
  d.Global("semver", "string_bool_to_semver_normalize", "string, bool -> kubernetes.Semver");
  d.Global("isSemver", "is_semver_string", "string -> bool");
  d.Global("isSemver", "is_semver_string_bool_normalize", "string, bool -> bool");
  d.Member("isGreaterThan", "semver_is_greater_than", "kubernetes.Semver, kubernetes.Semver -> bool");
  d.Member("isLessThan", "semver_is_less_than", "kubernetes.Semver, kubernetes.Semver -> bool");
  d.Member("compareTo", "semver_compare_to", "kubernetes.Semver, kubernetes.Semver -> int");
  d.Member("major", "semver_major", "kubernetes.Semver -> int");
  d.Member("minor", "semver_minor", "kubernetes.Semver -> int");
  d.Member("patch", "semver_patch", "kubernetes.Semver -> int");

  // Regex (library/regex.go).
  d.Member("find", "string_find_string", "string, string -> string");
  d.Member("findAll", "string_find_all_string", "string, string -> list(string)");
  d.Member("findAll", "string_find_all_string_int", "string, string, int -> list(string)");

  // Lists v0 (library/lists.go).
  for (const Comparable& c : kComparable) {
    const std::string list = Cat({"list(", c.type, ")"});
    d.Member("isSorted", Cat({"list_", c.id_name, "_is_sorted_bool"}), list + " -> bool");
    d.Member("max", Cat({"list_", c.id_name, "_max_", c.id_name}), list + Cat({" -> ", c.type}));
    d.Member("min", Cat({"list_", c.id_name, "_min_", c.id_name}), list + Cat({" -> ", c.type}));
  }
  for (std::string_view t : {"int", "uint", "double", "duration"}) {
    d.Member("sum", Cat({"list_", t, "_sum_", t}), Cat({"list(", t, ") -> ", t}));
  }
  d.Member("indexOf", "list_a_index_of_int", "list(A), A -> int");
  d.Member("lastIndexOf", "list_a_last_index_of_int", "list(A), A -> int");

  // URLs (library/urls.go).
  d.Global("url", "string_to_url", "string -> kubernetes.URL");
  d.Global("isURL", "is_url_string", "string -> bool");
  d.Member("getScheme", "url_get_scheme", "kubernetes.URL -> string");
  d.Member("getHost", "url_get_host", "kubernetes.URL -> string");
  d.Member("getHostname", "url_get_hostname", "kubernetes.URL -> string");
  d.Member("getPort", "url_get_port", "kubernetes.URL -> string");
  d.Member("getEscapedPath", "url_get_escaped_path", "kubernetes.URL -> string");
  d.Member("getQuery", "url_get_query", "kubernetes.URL -> map(string, list(string))");

  // IP (library/ip.go).
  d.Global("ip", "string_to_ip", "string -> net.IP");
  d.Global("isIP", "is_ip", "string -> bool");
  d.Global("ip.isCanonical", "ip_is_canonical", "string -> bool");
  d.Member("family", "ip_family", "net.IP -> int");
  d.Member("isUnspecified", "ip_is_unspecified", "net.IP -> bool");
  d.Member("isLoopback", "ip_is_loopback", "net.IP -> bool");
  d.Member("isLinkLocalMulticast", "ip_is_link_local_multicast", "net.IP -> bool");
  d.Member("isLinkLocalUnicast", "ip_is_link_local_unicast", "net.IP -> bool");
  d.Member("isGlobalUnicast", "ip_is_global_unicast", "net.IP -> bool");
  d.Global("string", "ip_to_string", "net.IP -> string");

  // CIDR (library/cidr.go).
  d.Global("cidr", "string_to_cidr", "string -> net.CIDR");
  d.Global("isCIDR", "is_cidr", "string -> bool");
  d.Member("containsIP", "cidr_contains_ip_string", "net.CIDR, string -> bool");
  d.Member("containsIP", "cidr_contains_ip_ip", "net.CIDR, net.IP -> bool");
  d.Member("containsCIDR", "cidr_contains_cidr_string", "net.CIDR, string -> bool");
  d.Member("containsCIDR", "cidr_contains_cidr", "net.CIDR, net.CIDR -> bool");
  d.Member("ip", "cidr_ip", "net.CIDR -> net.IP");
  d.Member("masked", "cidr_masked", "net.CIDR -> net.CIDR");
  d.Member("prefixLength", "cidr_prefix_length", "net.CIDR -> int");
  d.Global("string", "cidr_to_string", "net.CIDR -> string");

  // Named formats (library/format.go).
  d.Global("format.named", "format-named", "string -> optional_type(kubernetes.NamedFormat)");
  for (std::string_view name :
       {"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
        "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime"}) {
    d.Global(Cat({"format.", name}), Cat({"format-", name}), "-> kubernetes.NamedFormat");
  }
  d.Member("validate", "format-validate", "kubernetes.NamedFormat, string -> optional_type(list(string))");
}

bool ListsAvailable(const KubernetesEnvOptions& o) {
  const int effective = o.env == ExpressionEnv::kNewExpressions ? o.minor - 1 : o.minor;
  return effective >= 34;
}

bool DraIncludesAvailable(const KubernetesEnvOptions& o) {
  if (o.minor < 36) return false;
  return o.env == ExpressionEnv::kStoredExpressions || o.list_type_attributes;
}

}  // namespace

void DeclareLibraries(CheckerEnv& env, const CheckerLibraries& libs) {
  Declarer d(env);
  DeclareStandard(d, libs);
  DeclareStrings(d, libs.strings_version);
  if (libs.lists) DeclareListsExt(d);
  if (libs.sets) DeclareSets(d);
  if (libs.optional) DeclareOptional(d);
  if (libs.two_var_comprehensions) DeclareTwoVarComprehensions(d);
  if (libs.kubernetes) DeclareKubernetes(d);
  if (libs.dra_includes) d.Member("includes", "dra_includes_dyn_dyn", "dyn, dyn -> bool");
  if (libs.kubernetes_lists_includes && !libs.dra_includes) {
    d.Member("includes", "dyn_includes_dyn", "dyn, dyn -> bool");
  }
}

CheckerEnv StandardCheckerEnv() {
  CheckerEnv env;
  DeclareLibraries(env, CheckerLibraries{});
  return env;
}

Type DraAttributeType(const KubernetesEnvOptions& o) {
  if (o.minor <= 35) return Type::Any();
  if (o.minor >= 37 && o.env == ExpressionEnv::kStoredExpressions) return Type::Dyn();
  return o.list_type_attributes ? Type::Dyn() : Type::Any();
}

bool DraDeclaresAllowMultipleAllocations(const KubernetesEnvOptions& o) {
  return o.env == ExpressionEnv::kStoredExpressions || o.consumable_capacity;
}

CheckerLibraries KubernetesLibraries(const KubernetesEnvOptions& o) {
  CheckerLibraries libs;
  libs.strings_version = 2;
  libs.lists = ListsAvailable(o);
  libs.kubernetes = true;
  libs.dra_includes = DraIncludesAvailable(o);
  libs.kubernetes_lists_includes = o.env == ExpressionEnv::kStoredExpressions && o.minor >= 37;
  return libs;
}

ParseOptions KubernetesParseOptions(const KubernetesEnvOptions& o) {
  ParseOptions p;
  p.enable_lists_macros = ListsAvailable(o);
  return p;
}

CheckerEnv KubernetesCheckerEnv(const KubernetesEnvOptions& o) {
  CheckerEnv env;
  DeclareLibraries(env, KubernetesLibraries(o));
  env.options().homogeneous_aggregate_literals = true;
  env.options().validate_regex_literals = true;
  env.options().validate_format_calls = true;
  env.options().validate_time_literals = true;  // from 1.29 (apiserver environment/base.go)
  if (o.declare_device) {
    const Type attribute = DraAttributeType(o);
    std::vector<StructFieldDecl> fields = {
        {"driver", Type::String()},
        {"attributes", Type::Map(Type::String(), Type::Map(Type::String(), attribute))},
        {"capacity", Type::Map(Type::String(), Type::Map(Type::String(), Type::Opaque(std::string(kQuantity))))},
    };
    if (DraDeclaresAllowMultipleAllocations(o)) {
      fields.push_back({"allowMultipleAllocations", Type::Bool()});
    }
    env.DeclareStruct(std::string(kDeviceType), std::move(fields));
    env.Declare("device", Type::Struct(std::string(kDeviceType)));
  }
  return env;
}

std::optional<std::string> SelectorResultTypeError(const Type& result, const KubernetesEnvOptions& o) {
  if (result.kind() == TypeKind::kBool || result.kind() == TypeKind::kAny) return std::nullopt;
  if (result.kind() == TypeKind::kDyn && DraAttributeType(o).kind() == TypeKind::kDyn) {
    return std::nullopt;
  }
  return "must evaluate to bool or the unknown type, not " + result.DeclaredString();
}

namespace {

// upstream isAllowedDerivedAttributeElementType.
bool DerivedAttributeElementType(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kBool:
    case TypeKind::kInt:
    case TypeKind::kString:
    case TypeKind::kAny:
    case TypeKind::kDyn: return true;
    case TypeKind::kOpaque: return t.name() == "kubernetes.Semver" && t.params().empty();
    default: return false;
  }
}

}  // namespace

std::optional<std::string> DerivedAttributeResultTypeError(const Type& t, const KubernetesEnvOptions& o) {
  const bool allow_lists = o.list_type_attributes || o.env == ExpressionEnv::kStoredExpressions;
  if (DerivedAttributeElementType(t)) return std::nullopt;
  if (allow_lists && t.kind() == TypeKind::kList && t.params().size() == 1 &&
      DerivedAttributeElementType(t.params()[0])) {
    return std::nullopt;
  }
  return std::string(allow_lists ? "must evaluate to a primitive scalar (string, integer, boolean, semver) or a "
                                   "list of these scalars, not "
                                 : "must evaluate to a primitive scalar (string, integer, boolean, semver), not ") +
         t.DeclaredString();
}

}  // namespace dra::cel
