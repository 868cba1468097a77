// ColumnBuilder: typed values parsed from text or JSON appended to one column and handed out as an
// Arrow array. Shared by `rap convert`'s CSV and JSON-lines readers and by the blob column decoder
// (rap/format/blob_column.h). Errors say what was wrong with the value; callers add the line, the
// row or the column.
//
// Text forms: integers and floats in decimal (NaN, inf, -inf), booleans true/false/1/0/t/f/yes/no,
// decimals as plain decimal text, dates YYYY-MM-DD, times HH:MM:SS[.fffffffff], timestamps
// "YYYY-MM-DD[ T]HH:MM:SS[.f][Z|+HH:MM]", fixed-size binary as hex digits (dashes ignored, so a UUID
// reads), lists as JSON arrays and structs as JSON objects.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::columnar {

struct ColumnBuilderOptions {
  // Binary and fixed-size binary values are "0x" followed by lowercase hex digits (the form
  // FormatJsonValue writes), instead of the text itself (binary) or bare hex digits (fixed size).
  bool hex_binary = false;
};

class ColumnBuilder {
 public:
  explicit ColumnBuilder(const Field& field, ColumnBuilderOptions options = {});
  virtual ~ColumnBuilder();
  Status AppendNull();
  Status AppendText(std::string_view text);
  Status AppendJson(const nlohmann::ordered_json& value);
  // A valid placeholder value (zero, empty) — the slot of a non-nullable child under a null parent.
  void AppendPlaceholder();
  // The values appended since the last Finish() as one array.
  ArrayPtr Finish();

 protected:
  virtual bool Supported() const { return true; }  // false: every append fails
  virtual void AppendEmpty() = 0;  // placeholder value under a null
  virtual Status AppendTextValue(std::string_view text) = 0;
  virtual Status AppendJsonValue(const nlohmann::ordered_json& value);
  virtual void FinishInto(ArrayData* array) = 0;
  Field field_;
  ColumnBuilderOptions options_;
  std::vector<bool> valid_;
};

// Builders exist for every type except float16, map and the null type (NotSupported on every append,
// nulls included).
std::unique_ptr<ColumnBuilder> MakeColumnBuilder(const Field& field, ColumnBuilderOptions options = {});

}  // namespace rap::columnar
