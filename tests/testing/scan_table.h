// A generated, partitioned table for scan tests (header-only: only tests that link rap::read include
// it), the reference result of a scan (a full scan of every column, filtered and projected by hand)
// and the pages a late-materialised scan must read, computed from the files' OffsetIndex.
//
// The table: `files` files "part=a/data.parquet", "part=b/...", each of `rows_per_file` rows in row
// groups of `row_group_rows` and pages of `page_rows`, with a page index. Columns: id int64 not null
// (the row's ordinal in the table, so pages have narrow, disjoint id ranges), v double (10% NULL),
// s string (one of five words, 12.5% NULL), d date32 (19000..19029); the partition column `part`
// (string, 'a', 'b', ...) comes from the directory name.
#pragma once

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "rap/columnar/take.h"
#include "rap/format/writer.h"
#include "rap/io/object_store.h"
#include "rap/read/fingerprint.h"
#include "rap/read/scanner.h"
#include "testing/arrays.h"
#include "testing/paths.h"

namespace rap::testing {

struct ScanTableOptions {
  int files = 3;
  int64_t rows_per_file = 2000;
  int64_t row_group_rows = 1000;
  int64_t page_rows = 100;
  uint64_t seed = 7;
};

struct ScanTableFile {
  std::string relative_path;  // "part=a/data.parquet"
  std::string partition;      // "a"
  std::string bytes;          // the Parquet file
};

inline const std::vector<std::string>& ScanTableColumns() {
  static const std::vector<std::string> names = {"id", "v", "s", "d", "part"};
  return names;
}

inline Result<std::vector<ScanTableFile>> MakeScanTable(const ScanTableOptions& o = {}) {
  std::mt19937_64 rng(o.seed);
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"id", MakeType(TypeId::kInt64), false},
                    {"v", MakeType(TypeId::kFloat64), true},
                    {"s", MakeType(TypeId::kString), true},
                    {"d", MakeType(TypeId::kDate32), true}};
  const char* kWords[] = {"apple", "kiwi", "melon", "pear", "plum"};
  std::vector<ScanTableFile> out;
  for (int f = 0; f < o.files; ++f) {
    std::vector<std::optional<int64_t>> id;
    std::vector<std::optional<double>> v;
    std::vector<std::optional<std::string>> s;
    std::vector<std::optional<int32_t>> d;
    for (int64_t r = 0; r < o.rows_per_file; ++r) {
      id.push_back(f * o.rows_per_file + r);
      if (rng() % 10) {
        v.push_back(static_cast<double>(rng() % 1000) / 10.0);
      } else {
        v.push_back(std::nullopt);
      }
      if (rng() % 8) {
        s.push_back(kWords[rng() % 5]);
      } else {
        s.push_back(std::nullopt);
      }
      d.push_back(static_cast<int32_t>(19000 + (rng() % 30)));
    }
    RecordBatch b;
    b.schema = schema;
    b.num_rows = o.rows_per_file;
    b.columns = {Fixed<int64_t>(schema->fields[0].type, id), Fixed<double>(schema->fields[1].type, v), Strings(s),
                 Fixed<int32_t>(schema->fields[3].type, d)};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = o.row_group_rows;
    wo.defaults.page_max_rows = o.page_rows;
    RAP_ASSIGN_OR_RETURN(std::string bytes, parquet::WriteParquetToString(schema, {b}, wo));
    const std::string part(1, static_cast<char>('a' + f));
    out.push_back({"part=" + part + "/data.parquet", part, std::move(bytes)});
  }
  return out;
}

// The scan source of the table stored under `root` (a path within `store`).
// Writes the files below `root` ("root/part=a/data.parquet", ...).
inline void WriteScanTable(const std::string& root, const std::vector<ScanTableFile>& files) {
  for (const ScanTableFile& f : files) {
    const std::string path = root + "/" + f.relative_path;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    WriteStringToFile(path, f.bytes);
  }
}

inline read::ScanSource ScanTableSource(io::ObjectStorePtr store, const std::string& root,
                                        const std::vector<ScanTableFile>& files) {
  read::ScanSource src;
  src.store = std::move(store);
  src.partition_columns = {Field{"part", MakeType(TypeId::kString), true}};
  for (const ScanTableFile& f : files) {
    read::ScanFile file;
    file.path = io::JoinPath(root, f.relative_path);
    file.size = f.bytes.size();
    file.partition_values.push_back(Strings({f.partition}));
    src.files.push_back(std::move(file));
  }
  return src;
}

// A scan table written below a temporary directory ("<tmp>/t"), and ScanSources over it.
class LocalScanTable {
 public:
  Status Write(const ScanTableOptions& options = {}) {
    RAP_ASSIGN_OR_RETURN(files_, MakeScanTable(options));
    WriteScanTable(root(), files_);
    return Status::OK();
  }
  std::string root() const { return dir_.Join("t"); }
  const std::vector<ScanTableFile>& files() const { return files_; }
  read::ScanSource Source() const {
    auto store = io::OpenUrl(root());
    return store.ok() ? ScanTableSource(store->store, root(), files_) : read::ScanSource{};
  }

 private:
  TempDir dir_;
  std::vector<ScanTableFile> files_;
};

// A scan's rows: ids, values (FormatValue of each column, '|'-terminated), fingerprint, stats.
struct ScanRows {
  std::vector<uint64_t> ids;
  std::vector<std::string> values;
  std::string fingerprint;
  read::ScanStats stats;
};

inline Result<ScanRows> RunScan(read::ScanSource source, read::ScanOptions options) {
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), std::move(options)));
  ScanRows out;
  read::Fingerprinter fp;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    if (b->batch.num_rows <= 0) return Status::Internal("the scanner returned an empty batch");
    RAP_RETURN_NOT_OK(fp.Add(b->batch, b->row_ids));
    for (int64_t r = 0; r < b->batch.num_rows; ++r) {
      out.values.push_back(RowText(b->batch, r));
      out.ids.push_back(b->row_ids[static_cast<size_t>(r)]);
    }
  }
  out.fingerprint = fp.ToString();
  out.stats = scanner->stats();
  return out;
}

// Every column of every row, as the scanner returns them without filter or projection.
struct FullScan {
  SchemaPtr schema;
  std::vector<RecordBatch> batches;
  std::vector<std::vector<uint64_t>> ids;
};

inline Result<FullScan> ScanEverything(read::ScanSource source) {
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), read::ScanOptions{}));
  FullScan out;
  out.schema = scanner->schema();
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    out.batches.push_back(b->batch);
    out.ids.push_back(b->row_ids);
  }
  return out;
}

// The reference: `full` filtered by `filter` (may be null), projected to `columns` (indices into
// full.schema, in output order) and cut at `limit` (< 0: none) — with its fingerprint.
inline Result<ScanRows> FilterByHand(const FullScan& full, const read::ExprPtr& filter, const std::vector<int>& columns,
                                     int64_t limit) {
  std::optional<read::Predicate> pred;
  if (filter) {
    RAP_ASSIGN_OR_RETURN(read::Predicate p, read::Predicate::Bind(filter, *full.schema));
    pred = std::move(p);
  }
  auto schema = std::make_shared<Schema>();
  for (int c : columns) schema->fields.push_back(full.schema->fields[static_cast<size_t>(c)]);
  ScanRows out;
  read::Fingerprinter fp;
  for (size_t bi = 0; bi < full.batches.size(); ++bi) {
    const RecordBatch& batch = full.batches[bi];
    std::vector<uint8_t> keep(static_cast<size_t>(batch.num_rows), 1);
    if (pred) {
      RAP_ASSIGN_OR_RETURN(keep, pred->Select(batch));
    }
    std::vector<int64_t> rows;
    std::vector<uint64_t> ids;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (!keep[static_cast<size_t>(r)]) continue;
      if (limit >= 0 && static_cast<int64_t>(out.ids.size() + rows.size()) >= limit) break;
      rows.push_back(r);
      ids.push_back(full.ids[bi][static_cast<size_t>(r)]);
    }
    if (rows.empty()) continue;
    RecordBatch taken;
    taken.schema = schema;
    taken.num_rows = static_cast<int64_t>(rows.size());
    for (int c : columns) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, columnar::TakeArray(*batch.columns[static_cast<size_t>(c)], rows));
      taken.columns.push_back(std::move(a));
    }
    RAP_RETURN_NOT_OK(fp.Add(taken, ids));
    for (int64_t r = 0; r < taken.num_rows; ++r) out.values.push_back(RowText(taken, r));
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
  }
  out.fingerprint = fp.ToString();
  return out;
}

// Pages a late-materialised scan of the table reads for the filter "id >= lo AND id < hi" (table
// row ids, which are the id values) and output `columns` (names): per row group, read 1 decodes the
// id pages that the ColumnIndex cannot exclude (those overlapping [lo, hi)), read 2 the pages of
// every other projected data column that hold a selected row. Computed from each file's OffsetIndex.
inline Result<int64_t> ExpectedPagesForIdRange(const read::ScanSource& source, const ScanTableOptions& o, int64_t lo,
                                              int64_t hi, const std::vector<std::string>& columns) {
  int64_t pages = 0;
  for (size_t f = 0; f < source.files.size(); ++f) {
    read::FileReaderOptions ro;
    ro.use_metadata_cache = false;
    RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(source.store, source.files[f].path, ro));
    const int64_t file_first = static_cast<int64_t>(f) * o.rows_per_file;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      const int64_t rg_first = file_first + rg * o.row_group_rows;
      const int64_t rg_rows = std::min(o.row_group_rows, o.rows_per_file - rg * o.row_group_rows);
      const int64_t sel_lo = std::max(lo, rg_first) - rg_first, sel_hi = std::min(hi, rg_first + rg_rows) - rg_first;
      if (sel_lo >= sel_hi) continue;  // pruned by the row-group statistics of id
      // Pages of a column (by its OffsetIndex) overlapping the row-group-relative rows [a, b).
      auto overlapping = [&](const std::string& name, int64_t a, int64_t b) -> Result<int64_t> {
        const int col = reader->schema().FindColumn(name);
        if (col < 0) return Status::Internal("no column " + name);
        RAP_ASSIGN_OR_RETURN(auto index, reader->GetOffsetIndex(rg, col));
        if (!index) return Status::Internal("no OffsetIndex for " + name);
        const auto& locs = index->page_locations;
        int64_t n = 0;
        for (size_t k = 0; k < locs.size(); ++k) {
          const int64_t begin = locs[k].first_row_index;
          const int64_t end = k + 1 < locs.size() ? locs[k + 1].first_row_index : rg_rows;
          if (begin < b && a < end) ++n;
        }
        return n;
      };
      RAP_ASSIGN_OR_RETURN(int64_t id_pages, overlapping("id", sel_lo, sel_hi));
      pages += id_pages;
      for (const std::string& c : columns) {
        if (c == "id" || c == "part") continue;  // id is decoded by read 1; part is a constant
        RAP_ASSIGN_OR_RETURN(int64_t n, overlapping(c, sel_lo, sel_hi));
        pages += n;
      }
    }
  }
  return pages;
}

// A random filter over the table's columns (comparisons, IN, IS [NOT] NULL, AND, OR, NOT), with
// literals in the ranges of the generated values so that filters select some rows and prune some.
inline std::string RandomScanFilter(std::mt19937_64& rng, int64_t total_rows, int depth = 0) {
  const char* kOps[] = {"=", "!=", "<", "<=", ">", ">="};
  const char* kWords[] = {"apple", "kiwi", "melon", "pear", "plum", "b", "z"};
  auto op = [&] { return std::string(kOps[rng() % 6]); };
  if (depth < 2 && rng() % 3 == 0) {
    const std::string a = RandomScanFilter(rng, total_rows, depth + 1), b = RandomScanFilter(rng, total_rows, depth + 1);
    switch (rng() % 3) {
      case 0: return "(" + a + ") AND (" + b + ")";
      case 1: return "(" + a + ") OR (" + b + ")";
      default: return "NOT (" + a + ")";
    }
  }
  switch (rng() % 7) {
    case 0:
    case 1: {
      const int64_t lo = static_cast<int64_t>(rng() % static_cast<uint64_t>(total_rows));
      const int64_t len = static_cast<int64_t>(rng() % 400);
      return "id >= " + std::to_string(lo) + " AND id < " + std::to_string(lo + len);
    }
    case 2: return "v " + op() + " " + std::to_string(rng() % 1000 / 10.0);
    case 3: return "s " + op() + " '" + kWords[rng() % 7] + "'";
    case 4: return "d " + op() + " '2022-01-" + std::to_string(10 + rng() % 20) + "'";
    case 5: return std::string(rng() % 2 ? "v" : "s") + (rng() % 2 ? " IS NULL" : " IS NOT NULL");
    default: return std::string("part IN ('") + static_cast<char>('a' + rng() % 3) + "', 'x')";
  }
}

}  // namespace rap::testing
