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

#include "rap/columnar/array.h"
#include "rap/columnar/column_builder.h"
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
// An ORC file (path or URL), stripe by stripe in batches of at most batch_rows (tools/convert_orc.cc).
Result<std::unique_ptr<BatchSource>> OpenOrc(const std::string& url, int64_t batch_rows);

using rap::columnar::ColumnBuilder;
using rap::columnar::MakeColumnBuilder;

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
// other columns as an object {"name": value, ...} in schema order (rap/format/blob_column.h).
// `spec_json` receives the folded columns' schema, for the footer's key-value metadata under
// parquet::kBlobMetadataKey.
Result<std::unique_ptr<BatchSource>> BlobSource(std::unique_ptr<BatchSource> inner,
                                                const std::vector<std::string>& keys, std::string* spec_json);

// "a,b" "c" -> {a, b, c}: the comma-separated lists of a repeatable flag.
std::vector<std::string> SplitLists(const std::vector<std::string>& lists);

}  // namespace rap::cli
