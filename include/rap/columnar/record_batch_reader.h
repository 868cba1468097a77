// RecordBatchReader: a pull-based sequence of record batches of one schema (what the Arrow C
// stream export, the CLI and scans consume).
#pragma once

#include <optional>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::columnar {

class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  virtual SchemaPtr schema() const = 0;
  // The next batch, or nullopt at the end.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

}  // namespace rap::columnar
