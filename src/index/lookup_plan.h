// Internal to Index::Lookup: the rows chosen for each key (after page tokens, limits and deletion
// vectors) and the data reads that fetch them (lookup_data.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index_impl.h"
#include "rap/read/row_selection.h"

namespace rap::index::internal {

// Rows of one entry chosen for one key (file rows, within the entry's run).
struct KeyPiece {
  size_t key = 0;
  const IndexEntry* entry = nullptr;
  read::RowSelection rows;  // file row numbers
  std::vector<ArrayPtr> columns;  // filled by the data phase, one per data column
};

enum class DataMode { kNone, kHoisted, kCovered, kFull };

struct DataRequest {
  const Index::Snapshot* snap = nullptr;
  const Index::Impl* impl = nullptr;
  std::vector<std::string> data_columns;  // output columns read from data (not key columns)
  SchemaPtr data_schema;                  // their fields
  DataMode mode = DataMode::kFull;
  std::vector<KeyPiece>* pieces = nullptr;  // sorted by (key, file, first row)
};

struct DataStats {
  int rounds = 0;
  int64_t requests = 0;
  uint64_t bytes = 0;
  int64_t files = 0;
  int64_t covered_files = 0;
};

// Reads the data columns of every piece (one parallel round when footers and page indexes are
// cached, or with covering data).
Status ReadData(const DataRequest& request, DataStats* stats);

}  // namespace rap::index::internal
