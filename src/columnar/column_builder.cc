// Typed column builders (rap/columnar/column_builder.h): text and JSON values parsed into Arrow
// arrays, with errors that say what was wrong with a value.
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/columnar/column_builder.h"
#include "rap/columnar/literal.h"

namespace rap::columnar {
namespace {

using json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// Text -> value: the grammar is columnar/literal.h's (one for every text value rap reads); these
// adapters add the column type's range and unit.

template <typename T>
Status ParseInt(std::string_view s, T* out, const char* type_name) {
  __int128 v = 0;
  Status st = ParseInteger(s, &v);
  if (!st.ok()) return Status::InvalidArgument(fmt::format("{} ({})", st.message(), type_name));
  if (v < static_cast<__int128>(std::numeric_limits<T>::min()) ||
      v > static_cast<__int128>(std::numeric_limits<T>::max())) {
    return Status::InvalidArgument(fmt::format("value '{}' does not fit {}", s, type_name));
  }
  *out = static_cast<T>(v);
  return Status::OK();
}

// An epoch value in the column's unit, or a timestamp literal converted to it (truncated toward zero).
Status ParseTimestampIn(std::string_view s, TimeUnit unit, int64_t* out) {
  __int128 as_int = 0;
  if (ParseInteger(s, &as_int).ok() && as_int >= INT64_MIN && as_int <= INT64_MAX) {
    *out = static_cast<int64_t>(as_int);
    return Status::OK();
  }
  TimestampLiteral t;
  RAP_RETURN_NOT_OK(ParseTimestamp(s, &t));
  const __int128 total_ns = static_cast<__int128>(t.seconds) * 1'000'000'000 + t.nanos;
  const __int128 v = total_ns / (1'000'000'000 / UnitsPerSecond(unit));
  if (v > INT64_MAX || v < INT64_MIN) return Status::InvalidArgument(fmt::format("value '{}' overflows int64", s));
  *out = static_cast<int64_t>(v);
  return Status::OK();
}

Status ParseDecimalIn(std::string_view s, int precision, int scale, __int128* out) {
  __int128 v = 0;
  RAP_RETURN_NOT_OK(ParseDecimal(s, scale, &v));
  __int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  if (v >= limit || v <= -limit) {
    return Status::InvalidArgument(fmt::format("value '{}' does not fit decimal({}, {})", s, precision, scale));
  }
  *out = v;
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
        int32_t days = 0;
        RAP_RETURN_NOT_OK(ParseDate(s, &days));
        Put(days);
        break;
      }
      case TypeId::kTime32:
      case TypeId::kTime64: {
        int64_t nanos = 0;
        RAP_RETURN_NOT_OK(ParseTimeOfDay(s, &nanos));
        const int64_t v = nanos / (1'000'000'000 / UnitsPerSecond(t.unit));
        if (t.id == TypeId::kTime32)
          Put(static_cast<int32_t>(v));
        else
          Put(v);
        break;
      }
      case TypeId::kTimestamp: {
        int64_t v = 0;
        RAP_RETURN_NOT_OK(ParseTimestampIn(s, t.unit, &v));
        Put(v);
        break;
      }
      case TypeId::kDecimal128: {
        __int128 v = 0;
        RAP_RETURN_NOT_OK(ParseDecimalIn(s, t.precision, t.scale, &v));
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
