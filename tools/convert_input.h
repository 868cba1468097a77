// Inputs of `rap convert`: CSV and JSON-lines files turned into record batches (schema inferred
// from a sample or given as text), and the schema text form "id:int64 not null, name:string,
// ts:timestamp[us, UTC], price:decimal(10,2), tags:list<string>, pt:struct<x:double, y:double>".
// Errors name the line and the column.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rap/format/array.h"
#include "rap/util/result.h"

namespace rap::cli {

Result<DataTypePtr> ParseTypeSpec(std::string_view text);
Result<SchemaPtr> ParseSchemaSpec(std::string_view text);

// A stream of record batches.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual SchemaPtr schema() const = 0;
  // The next batch, or nullopt at the end.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
  // Progress: input bytes consumed so far and in total (0 when unknown).
  virtual uint64_t bytes_read() const = 0;
  virtual uint64_t total_bytes() const = 0;
};

struct TextInputOptions {
  SchemaPtr schema;  // nullptr: infer from the first infer_rows records
  int64_t infer_rows = 10'000;
  int64_t batch_rows = 65'536;
  char delimiter = ',';
  bool header = true;     // CSV: the first record names the columns
  std::string null_text;  // CSV: a field equal to this (besides an empty field) is null
};

Result<std::unique_ptr<BatchSource>> OpenCsv(const std::string& path, const TextInputOptions& options);
Result<std::unique_ptr<BatchSource>> OpenJsonLines(const std::string& path, const TextInputOptions& options);

// Appends parsed values of one column and hands out the Arrow array (shared by the CSV and JSON
// readers). Errors say what was wrong with the value; callers add the line and column.
class ColumnBuilder {
 public:
  explicit ColumnBuilder(const Field& field);
  virtual ~ColumnBuilder();
  Status AppendNull();
  Status AppendText(std::string_view text);
  Status AppendJson(const nlohmann::ordered_json& value);
  // The values appended since the last Finish() as one array.
  ArrayPtr Finish();

 protected:
  virtual void AppendEmpty() = 0;  // placeholder value under a null
  virtual Status AppendTextValue(std::string_view text) = 0;
  virtual Status AppendJsonValue(const nlohmann::ordered_json& value);
  virtual void FinishInto(ArrayData* array) = 0;
  Field field_;
  std::vector<bool> valid_;
};

std::unique_ptr<ColumnBuilder> MakeColumnBuilder(const Field& field);

}  // namespace rap::cli

namespace rap::cli {

// `rap convert --sort-by`: reads every batch of `inner` into memory and yields its rows stably
// sorted by `keys` (top-level primitive columns, lexicographic; nulls first; strings and binary
// bytewise unsigned, floats by value), in batches of `batch_rows`.
Result<std::unique_ptr<BatchSource>> SortedSource(std::unique_ptr<BatchSource> inner,
                                                  const std::vector<std::string>& keys, int64_t batch_rows);

}  // namespace rap::cli

namespace rap::cli {

// `rap convert --blob`: the `keys` columns, then one non-null JSON column "blob" holding each row's
// other columns as an object {"name": value, ...} in schema order (values as FormatJsonValue
// writes them: numbers and booleans bare, strings/dates/times/timestamps quoted, binary with \xNN
// escapes, lists as arrays, structs and maps as objects, null as null).
Result<std::unique_ptr<BatchSource>> BlobSource(std::unique_ptr<BatchSource> inner,
                                                const std::vector<std::string>& keys);

// "a,b" "c" -> {a, b, c}: the comma-separated lists of a repeatable flag.
std::vector<std::string> SplitLists(const std::vector<std::string>& lists);

}  // namespace rap::cli
