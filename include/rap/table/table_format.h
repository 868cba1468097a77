// TableFormat: the seam between a table format and everything that reads tables (the scan, the
// index build, rewrite, the server). A format recognises its tables and gives a scan the table at a
// version: the live files, the rows deleted in them, the schema and partitioning (TableSnapshot).
// Each format lives in its own folder, src/table/<format>/ (delta/, iceberg/, paimon/); OpenTable asks the
// formats in turn, and a folder none of them claims is a folder (prefix) of Parquet files
// (file_listing.h). Tables of a format rap recognises but does not read yet (Hudi)
// are refused with NotSupported naming the format, never scanned as a plain folder of their files.
// A new format is a new folder with a TableFormat and one line in TableFormats().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/table/table.h"
#include "rap/util/result.h"

namespace rap::table {

// What detection looks at: the table's URL (for messages), store and root, and the objects under
// the root, listed once on demand and shared by every format and the folder fallback.
class TableProbe {
 public:
  TableProbe(std::string url, io::ObjectStorePtr store, std::string root);
  const std::string& url() const { return url_; }
  const io::ObjectStorePtr& store() const { return store_; }
  const std::string& root() const { return root_; }
  // The objects under the root, recursively (one List on the first call). A root that names one
  // `.parquet` object is that object alone (a Head; single_file() is then true). The listing's error
  // when it failed.
  Result<const std::vector<io::ObjectInfo>*> Listing();
  bool single_file() const { return single_file_; }
  // The paths of Listing() relative to the root (empty when the listing failed).
  std::vector<std::string> RelativePaths();

 private:
  std::string url_;
  io::ObjectStorePtr store_;
  std::string root_;
  bool listed_ = false;
  bool single_file_ = false;
  Status listing_status_;
  std::vector<io::ObjectInfo> listing_;
};

class TableFormat {
 public:
  virtual ~TableFormat() = default;
  // The format's name in outputs and messages ("delta").
  virtual std::string_view name() const = 0;
  // True when the probed root holds a table of this format.
  virtual Result<bool> Detect(TableProbe& probe) const = 0;
  // True when the root's name alone says it is this format's (an Iceberg `*.metadata.json`): then it
  // is opened as such without asking the other formats (each ask can be a round trip).
  virtual bool NamedByRoot(const std::string& /*root*/) const { return false; }
  // The table at options.version (the latest when unset).
  virtual Result<TableSnapshot> Open(TableProbe& probe, const OpenTableOptions& options) const = 0;
  // The rows of `file` that the table deletes (sorted file row numbers; empty when none).
  virtual Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file) const = 0;
  // The rows of `file` that the table deletes, asked by a scan when it reaches the file (after
  // pruning; ToScanSource makes it a read::ScanFile::deleted_rows_loader): false = the scan source
  // holds every file's deleted rows before the scan starts (DeletedRows). Paimon: true — a
  // primary-key bucket is merged when the scan reaches its first file (with the few after it), so the
  // first merged batch waits for one bucket's merge, not for every bucket's. Must be thread-safe.
  virtual bool DeletesOnDemand() const { return false; }
  virtual Result<std::vector<uint64_t>> DeletedRowsOnDemand(const TableSnapshot& snapshot, const DataFile& file) const {
    return DeletedRows(snapshot, file);
  }
};

// Every format, in the order OpenTable asks them (the formats rap reads first).
const std::vector<const TableFormat*>& TableFormats();

// The format of the table at the probed root; null for a folder (prefix) of Parquet files.
Result<const TableFormat*> DetectTableFormat(TableProbe& probe);

// The rows of `file` deleted by its table (through snapshot.format; none in a folder table).
Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file);

// The snapshot's format name, "directory" for a folder of Parquet files.
std::string_view FormatName(const TableSnapshot& snapshot);

}  // namespace rap::table
