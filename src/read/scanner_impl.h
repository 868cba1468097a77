// Scanner internals shared by scanner.cc (tables, files, ordering, limit) and
// scanner_row_group.cc (one row group: pruning, read 1 + filter, read 2).
#pragma once

#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rap/read/scanner.h"
#include "rap/util/thread_pool.h"

namespace rap::read {

constexpr int kRowIdFileShift = 40;  // row id = file ordinal << 40 | row in file (docs/fingerprint.md)

// Where an output or filter column comes from.
struct ColumnSource {
  std::string name;      // logical name
  std::string physical;  // in-file name
  DataTypePtr type;      // table type
  DataTypePtr file_type; // in-file names of nested fields (ScanSource::physical_types), or null
  int partition = -1;    // index into partition_columns, or -1 for a data column
};

// One conjunct of the filter's top-level AND, bound to its own columns.
struct FilterStage {
  Predicate predicate;       // bound against `schema`
  SchemaPtr schema;          // the conjunct's columns
  std::vector<size_t> cols;  // indices into filter_cols, in `schema` order
};

// What one row group contributes: its counters (the row-group ones of ScanStats; rows_output is
// counted when merged) and its batches in row order.
struct RowGroupOutput {
  ScanStats stats;
  std::vector<ScanBatch> batches;
};

struct Scanner::Impl {
  ScanSource source;
  ScanOptions options;
  SchemaPtr table_schema;  // logical table schema
  SchemaPtr out_schema;
  std::vector<ColumnSource> out_cols;     // output columns
  std::vector<ColumnSource> filter_cols;  // columns the filter reads (bound schema order)
  std::optional<Predicate> predicate;
  SchemaPtr filter_schema;
  std::vector<FilterStage> stages;  // the predicate's conjuncts (one when it is not an AND)
  // Per filter column: read as dictionary codes when it can be (a data column, and every conjunct
  // reading it reads nothing else).
  std::vector<bool> dictionary_eligible;
  ScanStats stats;
  std::deque<ScanBatch> pending;
  int64_t emitted = 0;
  bool done = false;
  Status failure;  // the first error; every later Next() returns it

  // A file whose row groups are being scanned.
  struct OpenedFile {
    size_t index = 0;
    std::shared_ptr<FileReader> reader;
    std::vector<int> filter_leaf;  // leaf column of each filter column (-1: partition column or absent)
    int num_row_groups = 0;
    int unmerged = 0;              // row groups not merged yet
    bool finished = false;         // its reader's counters were added to `stats`
  };
  // A row group submitted and not merged yet (scan order).
  struct RowGroupTask {
    std::shared_ptr<OpenedFile> file;
    std::shared_ptr<RowGroupOutput> out;
    std::future<Status> status;
  };
  // Row groups run ahead of the consumer, across file boundaries: up to 2 x threads in flight (1
  // without a pool: each runs in the calling thread when submitted).
  std::deque<RowGroupTask> in_flight;
  size_t next_file = 0;                   // next file to open
  std::shared_ptr<OpenedFile> submitting;  // the file whose row groups are being submitted
  int next_row_group = 0;                 // of `submitting`

  Status Init();
  // Prunes by partition values and file statistics, then opens the file; null when pruned.
  Result<std::shared_ptr<OpenedFile>> OpenNextFile(size_t file_index);
  // Submits row groups until the window is full or the table is exhausted.
  Status FillWindow();
  // Waits for the oldest row group in flight and merges it.
  Status MergeOldest();
  // Adds a file's reader counters to `stats` (once).
  void FinishFile(OpenedFile& file);
  // Waits for every row group in flight and finishes their files (at the end, on a limit or error).
  void Drain();

  ~Impl() { Drain(); }

  // Evaluates one row group (reads, filter, late materialisation) into `out`; touches no state of
  // the scan, so row groups can run in parallel. `room`: at most this many rows are wanted (< 0: no
  // limit).
  Status ScanRowGroup(size_t file_index, FileReader& reader, int rg, const std::vector<int>& filter_leaf, int64_t room,
                      RowGroupOutput* out) const;
  // Appends a row group's batches and counters to the scan (in row-group order), honouring the limit.
  void Merge(RowGroupOutput&& out);
  // Rows the limit still allows (< 0: no limit).
  int64_t Room() const { return options.limit < 0 ? -1 : options.limit - emitted; }
  std::string Physical(int field) const {
    return source.physical_names.size() > static_cast<size_t>(field) ? source.physical_names[static_cast<size_t>(field)]
                                                                    : table_schema->fields[static_cast<size_t>(field)].name;
  }
  ColumnSource Resolve(int field) const {
    ColumnSource c;
    c.name = table_schema->fields[static_cast<size_t>(field)].name;
    c.physical = Physical(field);
    c.type = table_schema->fields[static_cast<size_t>(field)].type;
    if (static_cast<size_t>(field) < source.physical_types.size()) c.file_type = source.physical_types[static_cast<size_t>(field)];
    for (size_t p = 0; p < source.partition_columns.size(); ++p) {
      if (source.partition_columns[p].name == c.name) c.partition = static_cast<int>(p);
    }
    return c;
  }

  // options.threads > 1: runs row groups in parallel. Declared last: destroyed first.
  std::unique_ptr<ThreadPool> pool;
};

}  // namespace rap::read
