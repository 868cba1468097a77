// Internal to Index::Lookup: the state its phases share (lookup.cc), the rows chosen for each key
// (after page tokens, limits and deletion vectors) and the data reads that fetch them (lookup_data.cc).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "index/index_impl.h"
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

// Page token: "p1:<file ordinal>:<last returned row>".
struct PageToken {
  bool set = false;
  int32_t file = 0;
  int64_t row = 0;
};

// Where an output column comes from: a key part, a data column, or a folded blob field.
enum class ColumnFrom { kKey, kData, kBlob };

// The output columns of a lookup and the data columns read for them.
struct OutputColumns {
  std::shared_ptr<Schema> schema;                       // the output batches' schema
  std::shared_ptr<Schema> data_schema;                  // fields of data_columns
  std::vector<std::string> data_columns;                // read from the data files (not key columns)
  std::vector<std::pair<ColumnFrom, size_t>> source;    // per output column: where from, at which index
  std::vector<int> folded;                              // blob field indexes, in output order
  int blob_data = -1;                                   // the blob's data column, when a folded field is asked for
};

// What the phases of one Index::Lookup share, filled phase by phase.
struct LookupState {
  const Index::Impl* impl = nullptr;
  std::shared_ptr<const Index::Snapshot> snap;
  std::span<const Key> keys;
  const LookupOptions* opt = nullptr;
  std::vector<PageToken> tokens;  // one per key (unset without page tokens)
  OutputColumns out;
  // Per key: the candidate (fragment, page) pairs (page -1 until the pages are expanded).
  std::vector<std::vector<std::pair<int, int>>> candidates;
  std::map<std::pair<int, int>, std::shared_ptr<const RecordBatch>> pages;  // (fragment, page) -> key rows
  std::vector<std::vector<IndexEntry>> entries;                             // per key, by (file, first row)
  std::map<int32_t, std::shared_ptr<const std::vector<uint64_t>>> deleted;  // file -> deleted rows (sorted)
  std::vector<KeyPiece> pieces;  // point into `entries`
  int rounds = 0;                // dependent rounds of requests
  LookupResult res;
};

// Reads the data columns of every piece (one parallel round when footers and page indexes are
// cached, or with covering data).
Status ReadData(const DataRequest& request, DataStats* stats);

}  // namespace rap::index::internal
