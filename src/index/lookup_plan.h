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

// A local store (pread from the page cache): a lookup's reads cost a system call each and no
// waiting, so its planned reads merge only gaps up to this many bytes (index pages: instead of the
// lookup rule's megabyte gaps; data pages through a footer: instead of one pread per page). Copying
// megabytes of gap out of the page cache cost more than the extra system calls (issue 36).
inline constexpr uint64_t kLocalGap = 8 << 10;

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
  int64_t pages_decoded = 0;     // data pages decoded
  int64_t page_cache_hits = 0;   // data pages taken from the decoded data page cache
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
  std::vector<DataTypePtr> file_types;                  // per output column: in-file type to conform by (or null)
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

// Phases shared by Index::Lookup (lookup.cc) and Index::LookupRange (lookup_range.cc).
// The output columns (st.opt->columns) and their sources into st.out and st.res.schema.
Status ResolveColumns(LookupState& st);
// Loads the footer and key page directory of the fragments not loaded yet (one round for those).
Status LoadFragmentList(LookupState& st, std::vector<int> to_load);
// st.pages (keys: the (fragment, page) pairs wanted) from the page cache, the others read in one
// parallel round, a task per fragment.
Status ReadIndexPages(LookupState& st);
// The deletion vectors of the files of st.entries (cached per Index; the others in one round).
Status LoadDeletionVectors(LookupState& st);
// The live rows of [begin, end) of `file` (without those its deletion vector names).
std::vector<read::RowRange> LiveRows(const LookupState& st, int32_t file, int64_t begin, int64_t end);
// The pages of fragment `f` whose first key column's [min, max] can hold keys of `r`, in page order
// (pages without bounds: all); locate.cc.
void PagesOf(const FragmentState& f, KeyType t0, const KeyRange& r, std::vector<int>* out);
// Where a page of rows stopped: the key (index into st.keys), file and row last taken.
struct RowCursor {
  size_t key = 0;
  int32_t file = -1;
  int64_t row = -1;
};
// Appends to st.pieces the live rows of entry `e` of key `key` that come after row `after_row` of file
// `after_file` (all of them when after_file < 0), at most *left of them (decremented), and moves *last
// to the last row taken. True when rows are left over: the page ends at *last.
bool TakeEntryRows(LookupState& st, size_t key, const IndexEntry& e, int32_t after_file, int64_t after_row,
                   int64_t* left, RowCursor* last);
// Reads the data columns of st.pieces (none, hoisted, covered or from the data files).
Result<DataMode> ReadDataColumns(LookupState& st);
// One batch per key of st.keys into st.res.keys[i].rows (key columns repeated).
Status AssembleBatches(LookupState& st, DataMode mode);
// The end of one parallel round: the first task error, else the round's requests (added to stats).
Result<int64_t> FinishRound(const std::vector<Status>& errors, const std::vector<std::shared_ptr<CountingStore>>& stores,
                            LookupStats* stats);

// Reads the data columns of every piece (one parallel round when footers and page indexes are
// cached, or with covering data).
Status ReadData(const DataRequest& request, DataStats* stats);

// The data phase's shared steps (lookup_data.cc): errors naming a data file that is gone or
// changed since it was indexed, a key's rows taken out of rows decoded for several keys, and the
// per-file steps run on the calling thread (local data) or the lookup pool, and the read plan.
Status ChangedFile(const FileEntry& fe, const io::ObjectInfo& now);
Status MissingOr(const Status& st, const FileEntry& fe);
// The data file an index entry of fragment `fragment_path` names: nullptr when the file was removed
// from the table; Corrupt when the entry names a file ordinal or rows the manifest does not have.
Result<const FileEntry*> EntryFile(const Manifest& m, const IndexEntry& e, const std::string& fragment_path);
// On an Iceberg or Paimon table: why a lookup may not find a column of the table (a column renamed or
// added after a data file was written: lookups read files by name) and what to do; "" otherwise.
std::string SchemaEvolutionHint(const Manifest& m);
// NotFound: the data file lacks a column the lookup reads (`detail`), with SchemaEvolutionHint.
Status NoColumn(const Manifest& m, const FileEntry& fe, const std::string& detail);
Result<ArrayPtr> TakeSubset(const ArrayPtr& values, const read::RowSelection& all, const read::RowSelection& sub);
Status ConcatInto(std::vector<std::vector<ArrayPtr>>& parts, std::vector<ArrayPtr>* out);
void RunData(const DataRequest& rq, std::vector<std::function<void()>> tasks);
io::PlanOptions DataPlan(const DataRequest& rq);
// The lookup rule of a lookup's remote reads (data and index pages) over `base` (lookup_data.cc).
io::PlanOptions LookupPlanOptions(io::PlanOptions base);

// The chosen rows of ORC data files (lookup_orc.cc): per stripe, only the row groups spanning them.
Status ReadOrc(const DataRequest& rq, const std::map<int32_t, std::vector<KeyPiece*>>& by_file, DataStats* stats);

}  // namespace rap::index::internal
