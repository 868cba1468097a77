// The table most `rap serve` tests serve (header-only; only tests linking rap::server include it):
// the generated scan table (testing/scan_table.h) in a temporary directory, its full scan (the
// oracle), optionally its default RAP index on a key column, and an in-process server serving it
// as table "events" (no access log).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rap/index/build.h"
#include "testing/scan_table.h"
#include "testing/serve_fixture.h"

namespace rap::testing {

// ids of the rows whose string column s equals `word`, in table order.
inline std::vector<int64_t> IdsWithWord(const FullScan& full, const std::string& word) {
  std::vector<int64_t> ids;
  const int s = full.schema->FieldIndex("s"), id = full.schema->FieldIndex("id");
  for (const RecordBatch& b : full.batches) {
    const ArrayData& sc = *b.columns[static_cast<size_t>(s)];
    const int32_t* o = sc.offsets();
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (sc.IsNull(r)) continue;
      const std::string_view v(reinterpret_cast<const char*>(sc.buffers[2].data()) + o[r],
                               static_cast<size_t>(o[r + 1] - o[r]));
      if (v == word) ids.push_back(b.columns[static_cast<size_t>(id)]->values<int64_t>()[r]);
    }
  }
  return ids;
}

class ServedScanTable {
 public:
  // Writes the table and scans it whole; with `index_key` (a column name), builds its default index.
  Status Prepare(const std::string& index_key = "", const ScanTableOptions& options = {}) {
    RAP_RETURN_NOT_OK(table_.Write(options));
    if (!index_key.empty()) {
      index::BuildOptions bo;
      bo.key_columns = {index_key};
      RAP_RETURN_NOT_OK(index::BuildIndex(table_.root(), bo).status());
    }
    RAP_ASSIGN_OR_RETURN(full_, ScanEverything(table_.Source()));
    return Status::OK();
  }
  // A server with `o` (its tables replaced by this one as "events").
  Result<std::unique_ptr<ServeFixture>> Start(server::ServerOptions o = {}) const {
    o.tables = {{"events", table_.root(), ""}};
    o.access_log = "";
    return ServeFixture::Start(std::move(o));
  }
  const LocalScanTable& table() const { return table_; }
  const FullScan& full() const { return full_; }
  std::vector<int64_t> IdsOf(const std::string& word) const { return IdsWithWord(full_, word); }

 private:
  LocalScanTable table_;
  FullScan full_;
};

}  // namespace rap::testing
