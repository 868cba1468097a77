// The data phase of a lookup on ORC files (rap/read/orc_file_reader.h): per file, its tail (one
// read; the stripe footers in one more), then per stripe holding chosen rows, the row index of the
// data columns and only the row groups (rowIndexStride rows) spanning those rows, decoded once for
// every key of the stripe and sliced per key. A file without a row index, or columns whose row index
// cannot be used, read the stripe's streams whole.
#include <mutex>

#include "index/lookup_plan.h"
#include "rap/read/orc_file_reader.h"

namespace rap::index::internal {
namespace {

struct OrcFile {
  int32_t file = 0;
  const std::vector<KeyPiece*>* pieces = nullptr;
  read::RowSelection all;  // every chosen row of the file
  std::shared_ptr<CountingStore> cs;
  std::map<const KeyPiece*, std::vector<std::vector<ArrayPtr>>> parts;  // per key, per stripe
  int rounds = 0;
};

// Stripe `s`'s rows [*first, *first + batch rows) holding every chosen row in [lo, hi).
Result<RecordBatch> ReadStripeRows(read::OrcFileReader& reader, size_t s, const std::vector<int>& fields, int64_t lo,
                                   int64_t hi, int64_t* first) {
  const int64_t s0 = reader.stripe_first_row(s);
  const uint32_t stride = reader.tail().row_index_stride;
  *first = s0;
  if (stride == 0) return reader.ReadStripe(s, fields);
  const size_t g0 = static_cast<size_t>((lo - s0) / stride);
  const size_t g1 = static_cast<size_t>((hi - 1 - s0) / stride) + 1;
  auto index = reader.ReadRowIndex(s, reader.FieldColumns(fields));
  if (!index.ok()) {
    if (index.status().code() != StatusCode::kNotSupported) return index.status();
    return reader.ReadStripe(s, fields);
  }
  auto groups = reader.ReadRowGroups(s, fields, *index, g0, g1);
  if (!groups.ok() && groups.status().code() == StatusCode::kNotSupported) return reader.ReadStripe(s, fields);
  if (groups.ok()) *first = s0 + static_cast<int64_t>(g0) * stride;
  return groups;
}

Status ReadOrcFile(const DataRequest& rq, OrcFile& f) {
  const FileEntry& fe = rq.snap->manifest.files[static_cast<size_t>(f.file)];
  const std::string path = io::JoinPath(rq.snap->data_root, fe.path);
  const std::string etag = rq.snap->DataEtag(fe);
  read::FileReaderOptions ro;
  if (!etag.empty()) {
    ro.object_info = io::ObjectInfo{path, fe.size, etag, 0};
    ro.io.expected_etag = etag;
  }
  ro.plan = DataPlan(rq);
  RoundCounter rc(*f.cs);
  auto opened = read::OrcFileReader::Open(f.cs, path, ro);
  if (!opened.ok()) return MissingOr(opened.status(), fe);
  read::OrcFileReader& reader = **opened;
  rc.Step();
  const io::ObjectInfo& now = reader.info();
  if (now.size != fe.size || (!etag.empty() && now.etag != etag)) return ChangedFile(fe, now);
  rq.snap->ObserveEtag(fe, now.etag);
  if (reader.num_rows() != fe.num_rows) {
    return Status::Changed("data file " + fe.path + " has " + std::to_string(reader.num_rows()) +
                           " rows, the index recorded " + std::to_string(fe.num_rows));
  }
  std::vector<int> fields;
  for (const std::string& c : rq.data_columns) {
    const int i = reader.FieldIndex(c);
    if (i < 0) return NoColumn(rq.snap->manifest, fe, "no column '" + c + "'");
    fields.push_back(i);
  }
  for (size_t s = 0; s < reader.num_stripes(); ++s) {
    const int64_t s0 = reader.stripe_first_row(s), s1 = s0 + reader.stripe_num_rows(s);
    // Selections sliced to the stripe count its rows from 0.
    const read::RowSelection chosen = f.all.Slice(s0, s1);
    if (chosen.empty()) continue;
    int64_t b0 = s0;
    auto batch = ReadStripeRows(reader, s, fields, s0 + chosen.first(), s0 + chosen.last_end(), &b0);
    if (!batch.ok()) return MissingOr(batch.status(), fe);
    const int64_t held_begin = b0 - s0, held_end = held_begin + batch->num_rows;
    const read::RowSelection held = read::RowSelection::Range(held_begin, held_end);
    for (const KeyPiece* p : *f.pieces) {
      const read::RowSelection rows = p->rows.Slice(s0, s1);
      if (rows.empty()) continue;
      if (rows.first() < held_begin || rows.last_end() > held_end) {
        return Status::Corrupt("data file " + fe.path + ": stripe " + std::to_string(s) +
                               " did not decode the rows its row index places there");
      }
      std::vector<ArrayPtr> cols;
      for (const ArrayPtr& a : batch->columns) {
        RAP_ASSIGN_OR_RETURN(ArrayPtr c, TakeSubset(a, held, rows));
        cols.push_back(std::move(c));
      }
      f.parts[p].push_back(std::move(cols));
    }
  }
  rc.Step();
  f.rounds = rc.rounds();
  return Status::OK();
}

}  // namespace

Status ReadOrc(const DataRequest& rq, const std::map<int32_t, std::vector<KeyPiece*>>& by_file, DataStats* stats) {
  std::vector<OrcFile> files;
  for (const auto& [file, pieces] : by_file) {
    OrcFile f;
    f.file = file;
    f.pieces = &pieces;
    std::vector<read::RowRange> ranges;
    for (const KeyPiece* p : pieces) ranges.insert(ranges.end(), p->rows.ranges().begin(), p->rows.ranges().end());
    f.all = read::RowSelection::FromRanges(std::move(ranges));
    f.cs = std::make_shared<CountingStore>(rq.snap->data_store);
    files.push_back(std::move(f));
  }
  std::vector<Status> errors(files.size());
  std::vector<std::function<void()>> tasks;
  for (size_t j = 0; j < files.size(); ++j) tasks.push_back([&, j] { errors[j] = ReadOrcFile(rq, files[j]); });
  RunData(rq, std::move(tasks));
  for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  int rounds = 0;
  for (OrcFile& f : files) {
    rounds = std::max(rounds, f.rounds);
    stats->requests += f.cs->requests();
    stats->bytes += f.cs->bytes();
    ++stats->files;
    for (KeyPiece* p : *f.pieces) RAP_RETURN_NOT_OK(ConcatInto(f.parts[p], &p->columns));
  }
  stats->rounds += rounds;
  return Status::OK();
}

}  // namespace rap::index::internal
