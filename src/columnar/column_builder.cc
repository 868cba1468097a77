// Typed column builders (rap/columnar/column_builder.h): text and JSON values parsed into Arrow
// arrays, with errors that say what was wrong with a value.
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/columnar/column_builder.h"
#include "rap/util/civil_date.h"

namespace rap::columnar {
namespace {

using json = nlohmann::ordered_json;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Text -> value parsing.

template <typename T>
Status ParseInt(std::string_view s, T* out, const char* type_name) {
  s = Trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc::result_out_of_range) {
    return Status::InvalidArgument(fmt::format("value '{}' does not fit {}", s, type_name));
  }
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument(fmt::format("value '{}' is not an integer ({})", s, type_name));
  }
  return Status::OK();
}

Status ParseDouble(std::string_view s, double* out) {
  s = Trim(s);
  std::string lower(s);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "nan") {
    *out = std::nan("");
    return Status::OK();
  }
  if (lower == "inf" || lower == "infinity" || lower == "+inf") {
    *out = INFINITY;
    return Status::OK();
  }
  if (lower == "-inf" || lower == "-infinity") {
    *out = -INFINITY;
    return Status::OK();
  }
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument(fmt::format("value '{}' is not a number", s));
  }
  return Status::OK();
}

Status ParseBool(std::string_view s, bool* out) {
  std::string l(Trim(s));
  for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "true" || l == "1" || l == "t" || l == "yes") {
    *out = true;
    return Status::OK();
  }
  if (l == "false" || l == "0" || l == "f" || l == "no") {
    *out = false;
    return Status::OK();
  }
  return Status::InvalidArgument(fmt::format("value '{}' is not a boolean", s));
}

bool Digits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

Status ParseDate(std::string_view s, int64_t* days, size_t* consumed) {
  int64_t y, m, d;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &m) || s[7] != '-' ||
      !Digits(s, 8, 2, &d) || m < 1 || m > 12 || d < 1 ||
      d > DaysInMonth(y, static_cast<unsigned>(m))) {
    return Status::InvalidArgument(fmt::format("value '{}' is not a date (YYYY-MM-DD)", s));
  }
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  *consumed = 10;
  return Status::OK();
}

// "HH:MM[:SS[.fffffffff]]" -> nanoseconds of the day.
Status ParseTimeOfDay(std::string_view s, int64_t* nanos, size_t* consumed) {
  int64_t h, mi, sec = 0, frac = 0;
  size_t pos = 5;
  if (!Digits(s, 0, 2, &h) || s.size() < 5 || s[2] != ':' || !Digits(s, 3, 2, &mi) || h > 23 || mi > 59) {
    return Status::InvalidArgument(fmt::format("value '{}' is not a time (HH:MM:SS[.fraction])", s));
  }
  if (pos < s.size() && s[pos] == ':') {
    if (!Digits(s, pos + 1, 2, &sec) || sec > 60)
      return Status::InvalidArgument(fmt::format("value '{}': bad seconds", s));
    pos += 3;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      int digits = 0;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        if (digits < 9) {
          frac = frac * 10 + (s[pos] - '0');
          ++digits;
        }
        ++pos;
      }
      for (; digits < 9; ++digits) frac *= 10;
    }
  }
  *nanos = ((h * 60 + mi) * 60 + sec) * 1'000'000'000LL + frac;
  *consumed = pos;
  return Status::OK();
}

Status ParseTimestamp(std::string_view s, TimeUnit unit, int64_t* out) {
  s = Trim(s);
  int64_t as_int;
  if (ParseInt(s, &as_int, "int64").ok()) {  // epoch value in the column's unit
    *out = as_int;
    return Status::OK();
  }
  int64_t days = 0, nanos = 0;
  size_t used = 0;
  RAP_RETURN_NOT_OK(ParseDate(s, &days, &used));
  std::string_view rest = s.substr(used);
  if (!rest.empty() && (rest[0] == 'T' || rest[0] == ' ')) {
    rest.remove_prefix(1);
    RAP_RETURN_NOT_OK(ParseTimeOfDay(rest, &nanos, &used));
    rest.remove_prefix(used);
  }
  int64_t offset_s = 0;
  if (rest == "Z" || rest == "z") {
    rest = {};
  } else if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    int64_t oh, om = 0;
    if (!Digits(rest, 1, 2, &oh) || (rest.size() > 3 && !(rest[3] == ':' && Digits(rest, 4, 2, &om)))) {
      return Status::InvalidArgument(fmt::format("value '{}': bad UTC offset", s));
    }
    offset_s = (oh * 60 + om) * 60 * (rest[0] == '-' ? -1 : 1);
    rest = {};
  }
  if (!rest.empty()) return Status::InvalidArgument(fmt::format("value '{}' is not a timestamp", s));
  const __int128 total_ns = (static_cast<__int128>(days) * 86400 - offset_s) * 1'000'000'000 + nanos;
  const __int128 v = total_ns / (1'000'000'000 / UnitsPerSecond(unit));
  if (v > INT64_MAX || v < INT64_MIN) return Status::InvalidArgument(fmt::format("value '{}' overflows int64", s));
  *out = static_cast<int64_t>(v);
  return Status::OK();
}

Status ParseDecimal(std::string_view s, int precision, int scale, __int128* out) {
  s = Trim(s);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  __int128 v = 0;
  int digits = 0, frac = -1;
  bool any = false;
  for (char c : s) {
    if (c == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return Status::InvalidArgument(fmt::format("value '{}' is not a decimal number", s));
    }
    any = true;
    if (frac >= 0) {
      if (frac == scale) {
        if (c != '0')
          return Status::InvalidArgument(fmt::format("value '{}' has more than {} decimal places", s, scale));
        continue;
      }
      ++frac;
    }
    v = v * 10 + (c - '0');
    if (v != 0) ++digits;
    if (digits > 38) break;
  }
  if (!any) return Status::InvalidArgument(fmt::format("value '{}' is not a decimal number", s));
  for (int f = std::max(frac, 0); f < scale; ++f) v *= 10;
  __int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  if (v >= limit)
    return Status::InvalidArgument(fmt::format("value '{}' does not fit decimal({}, {})", s, precision, scale));
  *out = neg ? -v : v;
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Builders: parsed values -> Arrow arrays.

ColumnBuilder::ColumnBuilder(const Field& f, ColumnBuilderOptions options) : field_(f), options_(options) {}
ColumnBuilder::~ColumnBuilder() = default;

Status ColumnBuilder::AppendNull() {
  if (!Supported()) return Status::NotSupported("column type " + field_.type->ToString() + " has no builder");
  if (!field_.nullable) return Status::InvalidArgument("null in non-nullable column '" + field_.name + "'");
  valid_.push_back(false);
  AppendEmpty();
  return Status::OK();
}

Status ColumnBuilder::AppendText(std::string_view s) {
  RAP_RETURN_NOT_OK(AppendTextValue(s));
  valid_.push_back(true);
  return Status::OK();
}

Status ColumnBuilder::AppendJson(const nlohmann::ordered_json& v) {
  if (v.is_null()) return AppendNull();
  RAP_RETURN_NOT_OK(AppendJsonValue(v));
  valid_.push_back(true);
  return Status::OK();
}

Status ColumnBuilder::AppendJsonValue(const nlohmann::ordered_json& v) {
  if (v.is_string()) return AppendTextValue(v.get_ref<const std::string&>());
  if (v.is_primitive()) return AppendTextValue(v.dump());
  return Status::InvalidArgument(fmt::format("expected a {} value, got {}", field_.type->ToString(), v.type_name()));
}

void ColumnBuilder::AppendPlaceholder() {
  valid_.push_back(true);
  AppendEmpty();
}

ArrayPtr ColumnBuilder::Finish() {
  auto a = std::make_shared<ArrayData>();
  a->type = field_.type;
  a->length = static_cast<int64_t>(valid_.size());
  std::vector<uint8_t> bits((valid_.size() + 7) / 8, 0);
  for (size_t i = 0; i < valid_.size(); ++i) {
    if (valid_[i]) {
      bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    } else {
      ++a->null_count;
    }
  }
  a->buffers.push_back(a->null_count ? Buffer::FromVector(std::move(bits)) : Buffer());
  FinishInto(a.get());
  valid_.clear();
  return a;
}

namespace {

class FixedBuilder : public ColumnBuilder {
 public:
  FixedBuilder(const Field& f, ColumnBuilderOptions o) : ColumnBuilder(f, o), width_(f.type->FixedWidth()) {}

 protected:
  void AppendEmpty() override { data_.append(static_cast<size_t>(width_), '\0'); }
  template <typename T>
  void Put(T v) {
    data_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  Status AppendTextValue(std::string_view s) override {
    const DataType& t = *field_.type;
    switch (t.id) {
      case TypeId::kInt8: {
        int8_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "int8"));
        Put(v);
        break;
      }
      case TypeId::kInt16: {
        int16_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "int16"));
        Put(v);
        break;
      }
      case TypeId::kInt32: {
        int32_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "int32"));
        Put(v);
        break;
      }
      case TypeId::kInt64: {
        int64_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "int64"));
        Put(v);
        break;
      }
      case TypeId::kUInt8: {
        uint8_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "uint8"));
        Put(v);
        break;
      }
      case TypeId::kUInt16: {
        uint16_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "uint16"));
        Put(v);
        break;
      }
      case TypeId::kUInt32: {
        uint32_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "uint32"));
        Put(v);
        break;
      }
      case TypeId::kUInt64: {
        uint64_t v = 0;
        RAP_RETURN_NOT_OK(ParseInt(s, &v, "uint64"));
        Put(v);
        break;
      }
      case TypeId::kFloat32: {
        double v = 0;
        RAP_RETURN_NOT_OK(ParseDouble(s, &v));
        Put(static_cast<float>(v));
        break;
      }
      case TypeId::kFloat64: {
        double v = 0;
        RAP_RETURN_NOT_OK(ParseDouble(s, &v));
        Put(v);
        break;
      }
      case TypeId::kDate32: {
        int64_t days = 0;
        size_t used = 0;
        RAP_RETURN_NOT_OK(ParseDate(Trim(s), &days, &used));
        if (used != Trim(s).size()) return Status::InvalidArgument(fmt::format("value '{}' is not a date", s));
        Put(static_cast<int32_t>(days));
        break;
      }
      case TypeId::kTime32:
      case TypeId::kTime64: {
        int64_t nanos = 0;
        size_t used = 0;
        RAP_RETURN_NOT_OK(ParseTimeOfDay(Trim(s), &nanos, &used));
        const int64_t v = nanos / (1'000'000'000 / UnitsPerSecond(t.unit));
        if (t.id == TypeId::kTime32)
          Put(static_cast<int32_t>(v));
        else
          Put(v);
        break;
      }
      case TypeId::kTimestamp: {
        int64_t v = 0;
        RAP_RETURN_NOT_OK(ParseTimestamp(s, t.unit, &v));
        Put(v);
        break;
      }
      case TypeId::kDecimal128: {
        __int128 v = 0;
        RAP_RETURN_NOT_OK(ParseDecimal(s, t.precision, t.scale, &v));
        Put(v);
        break;
      }
      case TypeId::kFixedSizeBinary: {
        std::string hex;
        if (options_.hex_binary && s.substr(0, 2) == "0x") s.remove_prefix(2);
        for (char c : s)
          if (c != '-') hex.push_back(c);
        if (static_cast<int>(hex.size()) != 2 * width_) {
          return Status::InvalidArgument(fmt::format("value '{}': expected {} hex digits", s, 2 * width_));
        }
        for (int i = 0; i < width_; ++i) {
          unsigned v = 0;
          auto [p, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, v, 16);
          if (ec != std::errc() || p != hex.data() + 2 * i + 2) {
            return Status::InvalidArgument(fmt::format("value '{}' is not hexadecimal", s));
          }
          data_.push_back(static_cast<char>(v));
        }
        break;
      }
      default:
        return Status::NotSupported("column type " + t.ToString() + " cannot be read from text");
    }
    return Status::OK();
  }
  Status AppendJsonValue(const json& v) override {
    const TypeId id = field_.type->id;
    if (v.is_boolean()) return Status::InvalidArgument("expected a number, got a boolean");
    if (v.is_number_float() && id != TypeId::kFloat32 && id != TypeId::kFloat64 && id != TypeId::kDecimal128) {
      return Status::InvalidArgument(fmt::format("value {} is not an integer ({})", v.dump(), field_.type->ToString()));
    }
    return ColumnBuilder::AppendJsonValue(v);
  }
  void FinishInto(ArrayData* a) override {
    a->buffers.push_back(Buffer::FromString(std::move(data_)));
    data_.clear();
  }
  int width_;
  std::string data_;
};

class BoolBuilder : public ColumnBuilder {
 public:
  using ColumnBuilder::ColumnBuilder;

 protected:
  void AppendEmpty() override { values_.push_back(false); }
  Status AppendTextValue(std::string_view s) override {
    bool b = false;
    RAP_RETURN_NOT_OK(ParseBool(s, &b));
    values_.push_back(b);
    return Status::OK();
  }
  Status AppendJsonValue(const json& v) override {
    if (v.is_boolean()) {
      values_.push_back(v.get<bool>());
      return Status::OK();
    }
    return ColumnBuilder::AppendJsonValue(v);
  }
  void FinishInto(ArrayData* a) override {
    std::vector<uint8_t> bits((values_.size() + 7) / 8, 0);
    for (size_t i = 0; i < values_.size(); ++i) {
      if (values_[i]) bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
    a->buffers.push_back(Buffer::FromVector(std::move(bits)));
    values_.clear();
  }
  std::vector<bool> values_;
};

class BinaryBuilder : public ColumnBuilder {
 public:
  using ColumnBuilder::ColumnBuilder;

 protected:
  void AppendEmpty() override { offsets_.push_back(static_cast<int32_t>(data_.size())); }
  Status AppendTextValue(std::string_view s) override {
    if (data_.size() + s.size() > static_cast<size_t>(INT32_MAX)) {
      return Status::InvalidArgument("more than 2 GiB of text in one batch; use a smaller batch size");
    }
    if (options_.hex_binary && field_.type->id == TypeId::kBinary) {
      if (s.substr(0, 2) != "0x" || s.size() % 2 != 0) {
        return Status::InvalidArgument(fmt::format("binary value '{}' is not 0x followed by hex digit pairs", s));
      }
      for (size_t i = 2; i < s.size(); i += 2) {
        unsigned v = 0;
        auto [p, ec] = std::from_chars(s.data() + i, s.data() + i + 2, v, 16);
        if (ec != std::errc() || p != s.data() + i + 2) {
          return Status::InvalidArgument(fmt::format("binary value '{}' is not hexadecimal", s));
        }
        data_.push_back(static_cast<char>(v));
      }
      offsets_.push_back(static_cast<int32_t>(data_.size()));
      return Status::OK();
    }
    data_.append(s);
    offsets_.push_back(static_cast<int32_t>(data_.size()));
    return Status::OK();
  }
  Status AppendJsonValue(const json& v) override {
    if (field_.type->extension == "json" && !v.is_string()) return AppendTextValue(v.dump());
    if (v.is_structured()) {
      return Status::InvalidArgument(
          fmt::format("expected a string, got {} (declare the column as json)", v.type_name()));
    }
    return ColumnBuilder::AppendJsonValue(v);
  }
  void FinishInto(ArrayData* a) override {
    a->buffers.push_back(Buffer::Copy(offsets_.data(), offsets_.size() * 4));
    a->buffers.push_back(Buffer::FromString(std::move(data_)));
    offsets_.assign(1, 0);
    data_.clear();
  }
  std::vector<int32_t> offsets_{0};
  std::string data_;
};

class ListBuilder : public ColumnBuilder {
 public:
  ListBuilder(const Field& f, ColumnBuilderOptions o)
      : ColumnBuilder(f, o), child_(MakeColumnBuilder(f.type->children[0], o)) {}

 protected:
  void AppendEmpty() override { offsets_.push_back(count_); }
  Status AppendTextValue(std::string_view s) override {
    json v = json::parse(s, nullptr, false);
    if (v.is_discarded() || !v.is_array())
      return Status::InvalidArgument(fmt::format("value '{}' is not a JSON array", s));
    return AppendJsonValue(v);
  }
  Status AppendJsonValue(const json& v) override {
    if (!v.is_array()) return Status::InvalidArgument(fmt::format("expected an array, got {}", v.type_name()));
    for (size_t i = 0; i < v.size(); ++i) {
      Status st = child_->AppendJson(v[i]);
      if (!st.ok()) return st.WithContext(fmt::format("element {}", i));
      ++count_;
    }
    offsets_.push_back(count_);
    return Status::OK();
  }
  void FinishInto(ArrayData* a) override {
    a->buffers.push_back(Buffer::Copy(offsets_.data(), offsets_.size() * 4));
    a->children.push_back(child_->Finish());
    offsets_.assign(1, 0);
    count_ = 0;
  }
  std::unique_ptr<ColumnBuilder> child_;
  std::vector<int32_t> offsets_{0};
  int32_t count_ = 0;
};

class StructBuilder : public ColumnBuilder {
 public:
  StructBuilder(const Field& f, ColumnBuilderOptions o) : ColumnBuilder(f, o) {
    for (const auto& c : f.type->children) children_.push_back(MakeColumnBuilder(c, o));
  }

 protected:
  void AppendEmpty() override {
    for (size_t i = 0; i < children_.size(); ++i) {
      // A null struct still needs child slots; give them nulls (or zero values when non-nullable).
      if (field_.type->children[i].nullable) {
        (void)children_[i]->AppendNull();
      } else {
        children_[i]->AppendPlaceholder();
      }
    }
  }
  Status AppendTextValue(std::string_view s) override {
    json v = json::parse(s, nullptr, false);
    if (v.is_discarded()) return Status::InvalidArgument(fmt::format("value '{}' is not a JSON object", s));
    return AppendJsonValue(v);
  }
  Status AppendJsonValue(const json& v) override {
    if (!v.is_object()) return Status::InvalidArgument(fmt::format("expected an object, got {}", v.type_name()));
    return AppendFields(v);
  }
  Status AppendFields(const json& obj) {
    const auto& fields = field_.type->children;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool known = false;
      for (const auto& f : fields) known = known || f.name == it.key();
      if (!known) return Status::InvalidArgument("unknown field '" + it.key() + "' (not in the schema)");
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      auto it = obj.find(fields[i].name);
      Status st = it == obj.end() ? children_[i]->AppendNull() : children_[i]->AppendJson(*it);
      if (!st.ok()) return st.WithContext("field '" + fields[i].name + "'");
    }
    return Status::OK();
  }
  void FinishInto(ArrayData* a) override {
    for (auto& c : children_) a->children.push_back(c->Finish());
  }
  std::vector<std::unique_ptr<ColumnBuilder>> children_;
};

// Types without a builder: every append of a value fails; nulls are zero-width placeholders.
class UnsupportedBuilder : public ColumnBuilder {
 public:
  using ColumnBuilder::ColumnBuilder;

 protected:
  bool Supported() const override { return false; }
  void AppendEmpty() override {}
  Status AppendTextValue(std::string_view) override {
    return Status::NotSupported("column type " + field_.type->ToString() + " cannot be read from text or JSON");
  }
  Status AppendJsonValue(const json& v) override { return AppendTextValue(v.dump()); }
  void FinishInto(ArrayData*) override {}
};

}  // namespace

std::unique_ptr<ColumnBuilder> MakeColumnBuilder(const Field& f, ColumnBuilderOptions o) {
  switch (f.type->id) {
    case TypeId::kBool:
      return std::make_unique<BoolBuilder>(f, o);
    case TypeId::kString:
    case TypeId::kBinary:
      return std::make_unique<BinaryBuilder>(f, o);
    case TypeId::kList:
      return std::make_unique<ListBuilder>(f, o);
    case TypeId::kStruct:
      return std::make_unique<StructBuilder>(f, o);
    case TypeId::kNull:
    case TypeId::kFloat16:
    case TypeId::kMap:
      return std::make_unique<UnsupportedBuilder>(f, o);
    default:
      return std::make_unique<FixedBuilder>(f, o);
  }
}

}  // namespace rap::columnar
