// cel-spec timestamps and durations with cel-go's semantics
// (common/types/timestamp.go, duration.go, string.go, int.go and the
// bindings in common/stdlib/standard.go): the values are opaque objects of
// type google.protobuf.Timestamp / google.protobuf.Duration over
// cel/lib/cel_time.h. Every call costs 1, as in cel-go's runtime cost.
#include "cel/lib/cel_time.h"
#include "cel/libraries/internal/lib_util.h"
#include "cel/libraries/library.h"
#include "cel/runtime/value.h"

namespace dra::cel {
namespace {

using namespace internal;  // NOLINT: library-local helpers

constexpr std::string_view kTimestampType = "google.protobuf.Timestamp";
constexpr std::string_view kDurationType = "google.protobuf.Duration";

Ordering OrderingOf(int c) { return c < 0 ? Ordering::kLess : c > 0 ? Ordering::kGreater : Ordering::kEqual; }

class TimestampValue final : public OpaqueObject {
 public:
  explicit TimestampValue(lib::CelTime t) : t_(t) {}
  std::string_view type_name() const override { return kTimestampType; }
  // cel-go's Timestamp.Equal: the same instant, false for other types.
  Value Equals(const Value& other) const override {
    if (!other.is_opaque() || other.opaque().type_name() != kTimestampType) return Value::Bool(false);
    return Value::Bool(lib::CompareTimes(t_, static_cast<const TimestampValue&>(other.opaque()).t_) == 0);
  }
  // cel-go's Timestamp.Compare, by instant.
  Ordering Compare(const Value& other) const override {
    if (!other.is_opaque() || other.opaque().type_name() != kTimestampType) return Ordering::kInvalid;
    return OrderingOf(lib::CompareTimes(t_, static_cast<const TimestampValue&>(other.opaque()).t_));
  }
  std::string DebugString() const override { return lib::FormatGoTime(t_); }
  const lib::CelTime& time() const { return t_; }

 private:
  lib::CelTime t_;
};

class DurationValue final : public OpaqueObject {
 public:
  explicit DurationValue(int64_t nanos) : nanos_(nanos) {}
  std::string_view type_name() const override { return kDurationType; }
  Value Equals(const Value& other) const override {
    if (!other.is_opaque() || other.opaque().type_name() != kDurationType) return Value::Bool(false);
    return Value::Bool(nanos_ == static_cast<const DurationValue&>(other.opaque()).nanos_);
  }
  Ordering Compare(const Value& other) const override {
    if (!other.is_opaque() || other.opaque().type_name() != kDurationType) return Ordering::kInvalid;
    const int64_t y = static_cast<const DurationValue&>(other.opaque()).nanos_;
    return OrderingOf(nanos_ < y ? -1 : nanos_ > y ? 1 : 0);
  }
  std::string DebugString() const override { return lib::FormatGoDuration(nanos_); }
  int64_t nanos() const { return nanos_; }

 private:
  int64_t nanos_;
};

const lib::CelTime& T(const Value& v) { return static_cast<const TimestampValue&>(v.opaque()).time(); }
int64_t D(const Value& v) { return static_cast<const DurationValue&>(v.opaque()).nanos(); }
Value NewTimestamp(const lib::CelTime& t) { return Value::Opaque(MakeRef<TimestampValue>(t)); }
Value NewDuration(int64_t nanos) { return Value::Opaque(MakeRef<DurationValue>(nanos)); }

Value FromStatus(const StatusOr<lib::CelTime>& t) {
  return t.ok() ? NewTimestamp(*t) : Err(std::string(t.status().message()));
}
Value FromStatus(const StatusOr<int64_t>& d) {
  return d.ok() ? NewDuration(*d) : Err(std::string(d.status().message()));
}

// --- Conversions -------------------------------------------------------------------

Value Identity(std::span<const Value> a, CallContext&) { return a[0]; }

Value DurationFromString(std::span<const Value> a, CallContext&) {
  std::optional<int64_t> d = lib::ParseGoDuration(a[0].string_value());
  if (!d) return Err("type conversion error from 'string' to 'google.protobuf.Duration'");
  return NewDuration(*d);
}
Value TimestampFromString(std::span<const Value> a, CallContext&) {
  lib::CelTime t;
  switch (lib::ParseCelTimestamp(a[0].string_value(), &t)) {
    case lib::TimestampParse::kOk: return NewTimestamp(t);
    case lib::TimestampParse::kOutOfRange: return Err("timestamp overflow");
    default: return Err("type conversion error from 'string' to 'google.protobuf.Timestamp'");
  }
}
Value TimestampFromInt(std::span<const Value> a, CallContext&) {
  if (!lib::IsCelTimestampSeconds(a[0].int_value())) return Err("timestamp overflow");
  return NewTimestamp(lib::TimeFromUnix(a[0].int_value()));
}
Value TimestampToString(std::span<const Value> a, CallContext&) {
  return Value::String(lib::FormatRfc3339Nano(T(a[0])));
}
Value DurationToString(std::span<const Value> a, CallContext&) {
  return Value::String(lib::FormatDurationSeconds(D(a[0])));
}
Value TimestampToInt(std::span<const Value> a, CallContext&) { return Value::Int(T(a[0]).seconds); }
Value DurationToInt(std::span<const Value> a, CallContext&) { return Value::Int(D(a[0])); }

// --- Arithmetic and ordering -------------------------------------------------------

Value AddTimestampDuration(std::span<const Value> a, CallContext&) {
  return FromStatus(lib::AddTimeDuration(T(a[0]), D(a[1])));
}
Value AddDurationTimestamp(std::span<const Value> a, CallContext&) {
  return FromStatus(lib::AddTimeDuration(T(a[1]), D(a[0])));
}
Value AddDurationDuration(std::span<const Value> a, CallContext&) {
  return FromStatus(lib::AddDurations(D(a[0]), D(a[1])));
}
Value SubtractTimestampTimestamp(std::span<const Value> a, CallContext&) {
  return FromStatus(lib::SubtractTimes(T(a[0]), T(a[1])));
}
Value SubtractTimestampDuration(std::span<const Value> a, CallContext&) {
  return FromStatus(lib::SubtractTimeDuration(T(a[0]), D(a[1])));
}
Value SubtractDurationDuration(std::span<const Value> a, CallContext&) {
  return FromStatus(lib::SubtractDurations(D(a[0]), D(a[1])));
}

template <int kWhich>  // 0 <, 1 <=, 2 >, 3 >=
Value Order(int c) {
  switch (kWhich) {
    case 0: return Value::Bool(c < 0);
    case 1: return Value::Bool(c <= 0);
    case 2: return Value::Bool(c > 0);
    default: return Value::Bool(c >= 0);
  }
}
template <int kWhich>
Value RelTimestamp(std::span<const Value> a, CallContext&) {
  return Order<kWhich>(lib::CompareTimes(T(a[0]), T(a[1])));
}
template <int kWhich>
Value RelDuration(std::span<const Value> a, CallContext&) {
  const int64_t x = D(a[0]), y = D(a[1]);
  return Order<kWhich>(x < y ? -1 : x > y ? 1 : 0);
}

// --- Getters -----------------------------------------------------------------------

enum class Field : uint8_t {
  kYear,
  kMonth,
  kDayOfYear,
  kDayOfMonth,
  kDate,
  kDayOfWeek,
  kHours,
  kMinutes,
  kSeconds,
  kMillis
};

int64_t FieldOf(const lib::CivilTime& c, Field f) {
  switch (f) {
    case Field::kYear: return c.year;
    case Field::kMonth: return c.month - 1;
    case Field::kDayOfYear: return c.yday - 1;
    case Field::kDayOfMonth: return c.day - 1;
    case Field::kDate: return c.day;
    case Field::kDayOfWeek: return c.weekday;
    case Field::kHours: return c.hour;
    case Field::kMinutes: return c.minute;
    case Field::kSeconds: return c.second;
    case Field::kMillis: return c.nanos / 1000000;
  }
  return 0;
}

template <Field kField>
Value TimestampGet(std::span<const Value> a, CallContext&) {
  return Value::Int(FieldOf(lib::ToCivil(T(a[0]), 0), kField));
}
template <Field kField>
Value TimestampGetTz(std::span<const Value> a, CallContext&) {
  StatusOr<int32_t> offset = lib::ZoneOffsetAt(a[1].string_value(), T(a[0]));
  if (!offset.ok()) return Err(std::string(offset.status().message()));
  return Value::Int(FieldOf(lib::ToCivil(T(a[0]), *offset), kField));
}
template <int64_t (*kGet)(int64_t)>
Value DurationGet(std::span<const Value> a, CallContext&) {
  return Value::Int(kGet(D(a[0])));
}

Status RegisterGetters(FunctionRegistry& r, Param ts, Param dur) {
  const Param s = P(kStringK);
  struct Getter {
    std::string_view fn, id;
    FunctionImpl get, get_tz, get_duration;
  };
  const Getter getters[] = {
      {"getFullYear", "year", TimestampGet<Field::kYear>, TimestampGetTz<Field::kYear>, nullptr},
      {"getMonth", "month", TimestampGet<Field::kMonth>, TimestampGetTz<Field::kMonth>, nullptr},
      {"getDayOfYear", "day_of_year", TimestampGet<Field::kDayOfYear>, TimestampGetTz<Field::kDayOfYear>, nullptr},
      {"getDayOfMonth", "day_of_month_zero_based", TimestampGet<Field::kDayOfMonth>, TimestampGetTz<Field::kDayOfMonth>,
       nullptr},
      {"getDate", "day_of_month_one_based", TimestampGet<Field::kDate>, TimestampGetTz<Field::kDate>, nullptr},
      {"getDayOfWeek", "day_of_week", TimestampGet<Field::kDayOfWeek>, TimestampGetTz<Field::kDayOfWeek>, nullptr},
      {"getHours", "hours", TimestampGet<Field::kHours>, TimestampGetTz<Field::kHours>,
       DurationGet<lib::DurationHours>},
      {"getMinutes", "minutes", TimestampGet<Field::kMinutes>, TimestampGetTz<Field::kMinutes>,
       DurationGet<lib::DurationMinutes>},
      {"getSeconds", "seconds", TimestampGet<Field::kSeconds>, TimestampGetTz<Field::kSeconds>,
       DurationGet<lib::DurationSeconds>},
      {"getMilliseconds", "milliseconds", TimestampGet<Field::kMillis>, TimestampGetTz<Field::kMillis>,
       DurationGet<lib::DurationMilliseconds>},
  };
  for (const Getter& g : getters) {
    const std::string fn(g.fn), id(g.id);
    DRA_RETURN_IF_ERROR(Add(r, "timestamp_to_" + id, fn, true, {ts}, g.get));
    DRA_RETURN_IF_ERROR(Add(r, "timestamp_to_" + id + "_with_tz", fn, true, {ts, s}, g.get_tz));
    if (g.get_duration != nullptr) DRA_RETURN_IF_ERROR(Add(r, "duration_to_" + id, fn, true, {dur}, g.get_duration));
  }
  return OkStatus();
}

Status RegisterRelations(FunctionRegistry& r, Param ts, Param dur) {
  struct Rel {
    std::string_view fn, id;
    FunctionImpl t, d;
  };
  const Rel rels[] = {{"_<_", "less", RelTimestamp<0>, RelDuration<0>},
                      {"_<=_", "less_equals", RelTimestamp<1>, RelDuration<1>},
                      {"_>_", "greater", RelTimestamp<2>, RelDuration<2>},
                      {"_>=_", "greater_equals", RelTimestamp<3>, RelDuration<3>}};
  for (const Rel& rel : rels) {
    DRA_RETURN_IF_ERROR(Add(r, std::string(rel.id) + "_timestamp", std::string(rel.fn), false, {ts, ts}, rel.t));
    DRA_RETURN_IF_ERROR(Add(r, std::string(rel.id) + "_duration", std::string(rel.fn), false, {dur, dur}, rel.d));
  }
  return OkStatus();
}

}  // namespace

namespace internal {

bool IsDuration(const Value& v) { return v.is_opaque() && v.opaque().type_name() == kDurationType; }
int64_t DurationNanos(const Value& v) { return D(v); }
Value NewDurationValue(int64_t nanos) { return NewDuration(nanos); }

}  // namespace internal

Status RegisterTimeLibrary(FunctionRegistry& r) {
  const Param ts = Param::Opaque(kTimestampType), dur = Param::Opaque(kDurationType);
  const Param s = P(kStringK), i = P(kIntK);
  DRA_RETURN_IF_ERROR(Add(r, "duration_to_duration", "duration", false, {dur}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_duration", "duration", false, {s}, DurationFromString));
  DRA_RETURN_IF_ERROR(Add(r, "timestamp_to_timestamp", "timestamp", false, {ts}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_timestamp", "timestamp", false, {s}, TimestampFromString));
  DRA_RETURN_IF_ERROR(Add(r, "int64_to_timestamp", "timestamp", false, {i}, TimestampFromInt));
  DRA_RETURN_IF_ERROR(Add(r, "timestamp_to_string", "string", false, {ts}, TimestampToString));
  DRA_RETURN_IF_ERROR(Add(r, "duration_to_string", "string", false, {dur}, DurationToString));
  DRA_RETURN_IF_ERROR(Add(r, "timestamp_to_int64", "int", false, {ts}, TimestampToInt));
  DRA_RETURN_IF_ERROR(Add(r, "duration_to_int64", "int", false, {dur}, DurationToInt));

  DRA_RETURN_IF_ERROR(Add(r, "add_timestamp_duration", "_+_", false, {ts, dur}, AddTimestampDuration));
  DRA_RETURN_IF_ERROR(Add(r, "add_duration_timestamp", "_+_", false, {dur, ts}, AddDurationTimestamp));
  DRA_RETURN_IF_ERROR(Add(r, "add_duration_duration", "_+_", false, {dur, dur}, AddDurationDuration));
  DRA_RETURN_IF_ERROR(Add(r, "subtract_timestamp_timestamp", "_-_", false, {ts, ts}, SubtractTimestampTimestamp));
  DRA_RETURN_IF_ERROR(Add(r, "subtract_timestamp_duration", "_-_", false, {ts, dur}, SubtractTimestampDuration));
  DRA_RETURN_IF_ERROR(Add(r, "subtract_duration_duration", "_-_", false, {dur, dur}, SubtractDurationDuration));

  DRA_RETURN_IF_ERROR(RegisterRelations(r, ts, dur));
  return RegisterGetters(r, ts, dur);
}

}  // namespace dra::cel
