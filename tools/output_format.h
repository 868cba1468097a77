// Output of `rap cat` and `rap scan`: record batches written as an aligned table, JSON lines, CSV or
// a Parquet file, to stdout or to a file. A file appears atomically (written to a temporary sibling,
// renamed on success; an object-store URL is Put once at the end), so a failed command leaves no
// partial output behind.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::cli {

// The accepted --format values (`none` only where allowed: counts rows, prints nothing).
inline const std::vector<std::string> kOutputFormats = {"table", "jsonl", "csv", "parquet"};

struct OutputFlags {
  std::string format = "table";
  std::string path;  // --output; empty = stdout

  // Adds --format/-f and --output/-o; `allow_none` also accepts --format none.
  void AddTo(CLI::App* cmd, bool allow_none);
};

// --columns "a, b.c" -> {"a", "b.c"} (names trimmed, empty names dropped).
std::vector<std::string> SplitColumns(const std::string& list);

// One CSV field (RFC 4180 quoting; NULL is the empty field).
std::string CsvValue(const ArrayData& array, int64_t i);

class BatchOutput {
 public:
  virtual ~BatchOutput() = default;
  // Appends the rows of `batch` (its columns follow the schema given to OpenBatchOutput).
  virtual Status Write(const RecordBatch& batch) = 0;
  // Flushes and publishes the output. Without Close (an error on the way) a file is not created.
  virtual Status Close() = 0;
};

// Opens the output for rows of `schema`. --format parquet needs --output (binary data is not
// written to a terminal); other formats go to stdout when no path is given.
Result<std::unique_ptr<BatchOutput>> OpenBatchOutput(const OutputFlags& flags, const SchemaPtr& schema);

}  // namespace rap::cli
