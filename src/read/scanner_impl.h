// Scanner internals shared by scanner.cc (tables, files, ordering, limit), scanner_warmup.cc (the
// next file prepared ahead) and scanner_row_group.cc (one read range: pruning, read 1 + filter,
// read 2).
#pragma once

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rap/read/orc_file_reader.h"
#include "rap/read/prefetch_reader.h"
#include "rap/read/read_ahead_cache.h"
#include "rap/read/read_range.h"
#include "rap/read/scanner.h"

namespace rap::read {

constexpr int kRowIdFileShift = 40;  // row id = file ordinal << 40 | row in file (docs/fingerprint.md)

// Where an output or filter column comes from.
struct ColumnSource {
  std::string name;      // logical name
  std::string physical;  // in-file name
  DataTypePtr type;      // table type
  DataTypePtr file_type; // in-file names of nested fields (ScanSource::physical_types), or null
  int partition = -1;    // index into partition_columns, or -1 for a data column
  int field = -1;        // index into the table schema
  bool by_id = false;    // found in files by field id (ScanSource::field_ids)
  FieldIdTree ids;       // when by_id
  ArrayPtr absent;       // 1 row: the value where a file lacks the column (ScanSource::defaults); null: NULL
  // A struct field projected as a column of its own (ScanOptions::columns "s.x"): the child indices
  // from the top-level column (`type`) down to it; empty = the whole column.
  std::vector<size_t> path;
};

// Where a data column is in one file: its in-file name and the in-file names of its nested fields.
struct FileColumn {
  bool present = false;   // the file holds it (false: partition column, or absent: NULL)
  std::string name;       // in-file top-level name
  DataTypePtr file_type;  // for ConformArray (null: the table type's names)
};
struct FileColumns {
  std::vector<FileColumn> out, filter;  // per out_cols / filter_cols entry
};
// The binding of `cs` in the file `reader` reads (src/read/conform_array.cc): by field id when
// cs.by_id (struct fields at any depth too; ids the file lacks are absent), else by cs.physical.
FileColumn BindColumn(const ColumnSource& cs, const std::vector<parquet::FieldNode>& fields);
// The column `cs` of `rows` rows in a file that lacks it: its default (ColumnSource::absent) or NULL.
Result<ArrayPtr> AbsentColumn(const ColumnSource& cs, int64_t rows);
// Statistics of such a column over `rows` rows (all NULL, or the default `rows` times).
ColumnStats AbsentStats(const ColumnSource& cs, int64_t rows);
// The fields of an ORC file's root struct as Parquet field nodes (names, types, Iceberg field ids from
// the "iceberg.id" type attributes, children), for BindColumn.
Result<std::vector<parquet::FieldNode>> OrcFieldNodes(const orc::TypeTree& types);
// Gives the fields of a file written without field ids (and the fields inside them) the ids of
// `mapping` by name (ScanSource::name_mapping); names the mapping lacks keep no id.
void ApplyNameMapping(const NameMapping& mapping, std::vector<parquet::FieldNode>& fields);
// `cs` with the in-file name `file` gives it (ScanFile::physical_names), else `cs` itself.
ColumnSource ForFile(const ColumnSource& cs, const ScanFile& file);
// The struct field at `path` (child indices) of a struct column: its values, NULL where it or any
// struct above it is NULL.
Result<ArrayPtr> StructFieldAt(const ArrayPtr& column, const std::vector<size_t>& path);

// One conjunct of the filter's top-level AND, bound to its own columns.
struct FilterStage {
  Predicate predicate;       // bound against `schema`
  SchemaPtr schema;          // the conjunct's columns
  std::vector<size_t> cols;  // indices into filter_cols, in `schema` order
};

// The filter's result over one read range (scanner_row_group.cc): the rows it selects and the
// filter columns' values read 1 produced, which read 2 reuses instead of reading them again.
struct RangeSelection {
  std::vector<int64_t> selected_rows;   // row numbers within the row group
  std::vector<int64_t> keep_positions;  // their positions within the candidate rows (under a filter)
  std::vector<ArrayPtr> filter_arrays;  // per filter column: the values of the candidate rows, or
  // for a dictionary-coded one its codes per candidate row and its dictionary (cast to the table type)
  std::vector<std::optional<FileReader::DictionaryCodes>> codes;
  std::vector<ArrayPtr> coded_dict;

  Result<ArrayPtr> Dictionary(size_t c, const DataTypePtr& type);
};

struct Scanner::Impl {
  ScanSource source;
  ScanOptions options;
  std::shared_ptr<MemoryBudget> memory;  // ScanOptions::memory_limit (null: none)
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
  std::atomic<int64_t> emitted_hint{0};  // `emitted` for range tasks on producer threads
  bool done = false;
  Status failure;  // the first error; every later Next() returns it

  // A file of the scan, prepared (pruned, opened, its ranges planned) and being read.
  struct OpenedFile {
    size_t index = 0;
    ScanStats counts;            // files, files_pruned, files_pruned_by_stats (added when it is taken)
    bool pruned = false;         // nothing to read
    std::shared_ptr<io::CancellationToken> cancel;  // the reader's io.cancel: a limit cancels its reads
    std::shared_ptr<ReadAheadCache> cache;          // warmed bytes (null: not warmed)
    std::shared_ptr<FileReader> reader;     // a Parquet file
    std::shared_ptr<OrcFileReader> orc;     // or an ORC file (scanner_orc.cc): ranges are its stripes
    std::vector<int> orc_fields;            // the ORC fields the scan reads (indexes into its schema)
    std::vector<int> filter_leaf;  // leaf column of each filter column (-1: partition column or absent)
    std::shared_ptr<const FileColumns> columns;  // where the output and filter columns are in the file
    std::vector<int> leaves;       // leaf columns the scan reads (filter and output data columns)
    std::vector<ReadRange> ranges;
    bool finished = false;         // its counters were added to `stats`
    bool first_item = true;        // no item taken yet (file-boundary wait)
    std::unique_ptr<PrefetchReader> prefetch;  // last: destroyed (joined) first
    ~OpenedFile() { if (prefetch) prefetch->Cancel(); }
  };
  std::shared_ptr<OpenedFile> current;  // the file being read
  double boundary_start_s = -1;         // when the previous file ended (file-boundary wait)
  size_t next_file = 0;                 // next file to take

  // Warmup (scanner_warmup.cc): the next file, prepared on its own thread — the file after
  // `current`, or, once that one was started early (`started`), the file after it.
  struct Warming {
    size_t index = 0;
    // DECODED: the thread starts the file's producers once prepared (false while the file is two
    // ahead of the consumer; set when the consumer takes the file before it).
    std::atomic<bool> decode{true};
    bool ahead = false;                // begun before the consumer reached the file before it
    std::shared_ptr<OpenedFile> file;  // set by the thread
    Status status;                     // of the thread's work
    std::shared_ptr<io::CancellationToken> cancel;  // stops the thread's reads (the file's token)
    std::atomic<bool> ready{false};                 // the thread's work is done (file and status set)
    // The file is prepared and its fetch reserved (`file` set, its counters final; at DECODED its
    // producers run): it can be started while the thread's fetch is still in flight.
    std::atomic<bool> prepared{false};
    std::thread thread;
  };
  std::unique_ptr<Warming> warming;
  // The file after `current`, taken from the warmup early (its producers run; StartWarmedFileEarly),
  // so that the file after it is warmed while the consumer is still on `current`. Its warmup thread
  // may still be fetching.
  std::unique_ptr<Warming> started;

  Status Init();
  // The deleted rows of a file: ScanFile::deleted_rows, or what its loader gave when the file was
  // prepared (`loaded_deletes`).
  const std::vector<uint64_t>& DeletedRowsOf(size_t file_index) const {
    const ScanFile& f = source.files[file_index];
    return f.deleted_rows_loader ? loaded_deletes[file_index] : f.deleted_rows;
  }
  // Per file with a ScanFile::deleted_rows_loader: its rows, written by PrepareFile (on the thread
  // preparing that file, before its ranges are read) and read by the file's range tasks afterwards.
  // Sized by Init and never resized, so threads preparing different files write different slots.
  mutable std::vector<std::vector<uint64_t>> loaded_deletes;
  // Prunes by partition values and file statistics, opens the file and plans its ranges. Touches no
  // state of the scan but the file's `loaded_deletes` slot (it runs on the warmup thread too). `cancel` becomes the reader's io.cancel.
  Result<std::shared_ptr<OpenedFile>> PrepareFile(size_t file_index, std::shared_ptr<io::CancellationToken> cancel) const;
  // Starts reading a prepared file: its PrefetchReader. `ahead` (DECODED warmup): a file on the
  // plain path decodes its first range on a thread of its own right away.
  void StartReading(OpenedFile& file, bool ahead = false) const;
  // The next file to read (warmed or prepared now), or null at the end of the table; starts warming
  // the one after it.
  Result<std::shared_ptr<OpenedFile>> TakeNextFile();
  // Starts warming file `index` (when warmup is on, the file exists and is not warming already);
  // `decode`: at DECODED its producers start as soon as it is prepared.
  void StartWarmup(size_t index, bool decode = true);
  // The warmup thread's work.
  Status WarmFile(Warming* w) const;
  // Takes the warmed file early (into `started`) and starts its producers — at RAW once every
  // producer of the current file has begun its last range, at DECODED as soon as its warmup is
  // prepared — so its first ranges are decoded while the current file's queues drain; then warms the
  // file after it (not under a limit).
  void StartWarmedFileEarly();
  // Adds a taken file's open and warmup counters to `stats`.
  void CountOpened(const OpenedFile& file);
  // Cancels and joins the warmup thread; counts what it fetched as unused.
  void StopWarmup();
  // Adds a file's reader, prefetch and warmup counters to `stats` (once).
  void FinishFile(OpenedFile& file);
  // Stops the current file and the warmup (at the end, on a limit or error).
  void Drain();

  ~Impl() { Drain(); }

  // The rows of a range that may match: statistics and page-index pruning, deletion vectors; empty
  // when none may. Counts into `stats`. (The range task's first step; the fetch-ahead and the warmup
  // plan their reads with it too.)
  Result<RowSelection> RangeCandidates(size_t file_index, FileReader& reader, const ReadRange& range,
                                       const std::vector<int>& filter_leaf, ScanStats& stats) const;
  // The leaves of a range's first read: the filter's data columns (read 1), or without a filter the
  // output columns.
  Projection FirstReadProjection(const OpenedFile& file) const;
  // The leaves of read 2 under a filter: the output's data columns the filter does not read.
  Projection SecondReadProjection(const OpenedFile& file) const;
  // The byte ranges a read of `projection` over `rows` of range `r` requests (a shared page as a
  // run of its own), each only once over calls sharing `seen`.
  Result<std::vector<ByteRange>> RangeReadBytes(const OpenedFile& file, const ReadRange& r, const RowSelection& rows,
                                                const Projection& projection,
                                                std::set<std::pair<uint64_t, uint64_t>>& seen) const;
  // A producer's fetch-ahead of `ranges` (prefetch_reader.h): reserves their first reads' bytes in
  // the file's cache (claims their free shared pages in the row groups' shares) and returns their
  // fetch, one planned read.
  std::function<void()> PlanFetchAhead(OpenedFile& file, const std::vector<const ReadRange*>& ranges) const;

  // Evaluates one read range (reads, filter, late materialisation) into `out`; touches no state of
  // the scan, so ranges run in parallel. `room`: at most this many rows are wanted (< 0: no limit).
  Status ScanRange(size_t file_index, FileReader& reader, const ReadRange& range, const std::vector<int>& filter_leaf,
                   const FileColumns& columns, int64_t room, RangeOutput* out) const;
  // ScanRange's phases: read 1 and the filter over the candidate rows, the filter's stages, and
  // read 2 with the output batches.
  Status FilterRange(size_t file_index, FileReader& reader, const ReadRange& range, const std::vector<int>& filter_leaf,
                     const FileColumns& columns, const RowSelection& candidates, RangeSelection& sel,
                     ScanStats& stats) const;
  Result<std::vector<uint8_t>> EvaluateStages(int64_t n, RangeSelection& sel, ScanStats& stats) const;
  Status MaterializeRange(size_t file_index, FileReader& reader, const ReadRange& range, const FileColumns& columns,
                          RangeSelection& sel, RangeOutput* out) const;
  // ORC files (scanner_orc.cc). PrepareOrcFile opens the file, binds the columns and plans one range
  // per stripe (its selected streams' compressed bytes); the rest mirror their Parquet counterparts.
  Status PrepareOrcFile(OpenedFile& opened, const FileReaderOptions& ro) const;
  // False when the stripe's statistics (or the partition values) rule the filter out.
  bool OrcStripeMayMatch(size_t file_index, const OrcFileReader& reader, size_t stripe,
                         const FileColumns& columns) const;
  // The same for `rows` rows whose ORC statistics of a type id `stats_of` gives (null: unknown).
  // `bloom_of` (optional) gives a type id's bloom filter over those rows (null: none).
  bool OrcStatsMayMatch(size_t file_index, const OrcFileReader& reader, const FileColumns& columns, int64_t rows,
                        const std::function<const orc::ColumnStats*(uint32_t)>& stats_of,
                        const std::function<const orc::BloomFilter*(uint32_t)>& bloom_of = nullptr) const;
  // The type ids (sorted) whose bloom filters can prune the filter: columns of the file compared by
  // `=` or IN, of types whose bloom filter hash rap follows (ScanOptions::use_bloom_filters).
  std::vector<uint32_t> OrcBloomColumns(const OrcFileReader& reader, const FileColumns& columns) const;
  // Filters and outputs `n` decoded rows of stripe `stripe` from its row `offset` (`batch`: the
  // fields read) into `result`; `room` as in ScanOrcRange, lowered by the rows output.
  Status EmitOrcRows(size_t file_index, const OrcFileReader& reader, size_t stripe, int64_t offset, int64_t n,
                     const RecordBatch& batch, const FileColumns& columns, int64_t* room, RangeOutput* result) const;
  // Whether a range of `stripe` reads its row index (a filter, statistics and the page index on,
  // more than one row group, or one with bloom filters of `bloom_columns`).
  bool OrcUsesRowIndex(const OrcFileReader& reader, size_t stripe, const std::vector<int>& fields,
                       const std::vector<uint32_t>& bloom_columns) const;
  // The bytes range `r`'s read requests (none for a pruned stripe).
  std::vector<ByteRange> OrcRangeBytes(const OpenedFile& file, const ReadRange& r) const;
  Status ScanOrcRange(size_t file_index, OrcFileReader& reader, const ReadRange& range, const std::vector<int>& fields,
                      const FileColumns& columns, int64_t room, RangeOutput* out) const;
  std::function<void()> PlanOrcFetchAhead(OpenedFile& file, const std::vector<const ReadRange*>& ranges) const;
  Status WarmOrcFile(Warming* w, const std::shared_ptr<OpenedFile>& file) const;

  // Appends a batch to the scan, honouring the limit.
  void MergeBatch(ScanBatch&& b);
  // Adds a range's counters.
  void MergeRangeStats(const ScanStats& d);
  // Rows the limit still allows (< 0: no limit).
  int64_t Room() const { return options.limit < 0 ? -1 : options.limit - emitted; }
  int64_t RoomHint() const { return options.limit < 0 ? -1 : std::max<int64_t>(0, options.limit - emitted_hint.load()); }
  std::string Physical(int field) const {
    return source.physical_names.size() > static_cast<size_t>(field) ? source.physical_names[static_cast<size_t>(field)]
                                                                    : table_schema->fields[static_cast<size_t>(field)].name;
  }
  ColumnSource Resolve(int field) const {
    ColumnSource c;
    c.name = table_schema->fields[static_cast<size_t>(field)].name;
    c.physical = Physical(field);
    c.field = field;
    c.type = table_schema->fields[static_cast<size_t>(field)].type;
    if (static_cast<size_t>(field) < source.physical_types.size()) c.file_type = source.physical_types[static_cast<size_t>(field)];
    if (static_cast<size_t>(field) < source.field_ids.size()) {
      c.by_id = true;
      c.ids = source.field_ids[static_cast<size_t>(field)];
    }
    if (static_cast<size_t>(field) < source.defaults.size()) c.absent = source.defaults[static_cast<size_t>(field)];
    for (size_t p = 0; p < source.partition_columns.size(); ++p) {
      if (source.partition_columns[p].name == c.name) c.partition = static_cast<int>(p);
    }
    return c;
  }

};

}  // namespace rap::read
