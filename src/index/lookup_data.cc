// The data phase of Index::Lookup: the chosen rows of every key read in parallel across files —
// through the data files' (cached) footers and page indexes, through covering data (page locations
// in the index: no footer, no page index), or from hoisted values (no data read at all).
#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "rap/columnar/take.h"
#include "index/frame_locations.h"
#include "index/lookup_plan.h"
#include "rap/format/column_reader.h"
#include "rap/read/orc_file_reader.h"
#include "rap/read/scanner.h"

namespace rap::index::internal {

Status ChangedFile(const FileEntry& fe, const io::ObjectInfo& now) {
  return Status::Changed("data file " + fe.path + " changed since it was indexed (now " + std::to_string(now.size) +
                         " bytes, ETag " + now.etag + "; indexed: " + std::to_string(fe.size) + " bytes, ETag " +
                         fe.etag + "); run `rap index update`");
}

std::string SchemaEvolutionHint(const Manifest& m) {
  if (m.table_kind != "iceberg" && m.table_kind != "paimon") return {};
  return "; data files written under an earlier schema of the " + m.table_kind +
         " table (a column renamed or added since) are read by column name by index lookups, which do not map "
         "columns by field id yet — ask for other columns, or rewrite the files under the current schema" +
         (m.table_kind == "iceberg" ? std::string(" (rap rewrite --in-place)") : std::string());
}

Status NoColumn(const Manifest& m, const FileEntry& fe, const std::string& detail) {
  return Status::NotFound("data file " + fe.path + ": " + detail + SchemaEvolutionHint(m));
}

Result<const FileEntry*> EntryFile(const Manifest& m, const IndexEntry& e, const std::string& fragment_path) {
  if (e.file < 0 || static_cast<size_t>(e.file) >= m.files.size()) {
    return Status::Corrupt("index fragment " + fragment_path + ": an entry names file ordinal " +
                           std::to_string(e.file) + ", the file table has " + std::to_string(m.files.size()));
  }
  const FileEntry& fe = m.files[static_cast<size_t>(e.file)];
  if (fe.removed) return static_cast<const FileEntry*>(nullptr);
  if (e.first_row + e.num_rows > fe.num_rows) {
    return Status::Corrupt("index fragment " + fragment_path + ": an entry names rows [" +
                           std::to_string(e.first_row) + ", " + std::to_string(e.first_row + e.num_rows) + ") of " +
                           fe.path + ", which has " + std::to_string(fe.num_rows));
  }
  return &fe;
}

Status MissingOr(const Status& st, const FileEntry& fe) {
  if (st.code() == StatusCode::kNotFound) {
    return Status::NotFound("data file " + fe.path + " (file ordinal " + std::to_string(fe.ordinal) +
                            " of the index) is gone: " + st.message() + "; run `rap index update`");
  }
  if (st.code() == StatusCode::kChanged) {
    return Status::Changed("data file " + fe.path + " changed since it was indexed: " + st.message() +
                           "; run `rap index update`");
  }
  return st;
}

namespace {

struct Accounting {
  std::mutex mu;
  int max_rounds = 0;
  int64_t requests = 0;
  uint64_t bytes = 0;
  int64_t pages_decoded = 0, page_cache_hits = 0;
  void Add(const CountingStore& cs, int rounds, int64_t decoded = 0, int64_t hits = 0) {
    std::lock_guard<std::mutex> lock(mu);
    max_rounds = std::max(max_rounds, rounds);
    requests += cs.requests();
    bytes += cs.bytes();
    pages_decoded += decoded;
    page_cache_hits += hits;
  }
};

}  // namespace

// The rows of `sub` (a subset of `all`'s rows) taken from `values`, which holds `all`'s rows in
// order: keys of one batch often share pages, so a page is decoded once for the union of their rows
// and each key slices its own out (zero-copy when its rows are one run).
Result<ArrayPtr> TakeSubset(const ArrayPtr& values, const read::RowSelection& all, const read::RowSelection& sub) {
  std::vector<ArrayPtr> parts;
  const std::vector<read::RowRange>& u = all.ranges();
  size_t k = 0;
  int64_t before = 0;  // rows of `all` before u[k]
  for (const read::RowRange& r : sub) {
    while (k < u.size() && u[k].end <= r.begin) before += u[k].end - u[k].begin, ++k;
    if (k == u.size() || r.begin < u[k].begin || r.end > u[k].end) {
      return Status::Internal("index: rows " + sub.ToString() + " are not within the decoded rows " + all.ToString());
    }
    parts.push_back(SliceArray(values, before + (r.begin - u[k].begin), r.end - r.begin));
  }
  if (parts.size() == 1) return parts[0];
  return ConcatArrays(parts);
}

// Columns of `batch` (fields named as in the projection) in `order`.
Result<std::vector<ArrayPtr>> Reorder(const RecordBatch& batch, const std::vector<std::string>& order) {
  std::vector<ArrayPtr> out;
  for (const std::string& name : order) {
    const int i = batch.schema->FieldIndex(name);
    if (i < 0) return Status::Internal("column " + name + " missing from a decoded batch");
    out.push_back(batch.columns[static_cast<size_t>(i)]);
  }
  return out;
}

Status ConcatInto(std::vector<std::vector<ArrayPtr>>& parts, std::vector<ArrayPtr>* out) {
  out->clear();
  if (parts.empty()) return Status::OK();
  for (size_t c = 0; c < parts[0].size(); ++c) {
    std::vector<ArrayPtr> col;
    for (auto& p : parts) col.push_back(p[c]);
    if (col.size() == 1) {
      out->push_back(col[0]);
    } else {
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, ConcatArrays(col));
      out->push_back(a);
    }
  }
  return Status::OK();
}

// A local data store (pread from the page cache): a lookup's reads cost a system call each and no
// waiting, so the per-file steps run one after another on the calling thread (no hand-off to the
// pool and back: on a loaded server that costs more than the reads), and the pages a plain lookup
// reads through a file's footer are read in planned ranges merged across gaps up to kLocalGap
// (lookup_plan.h), instead of one pread per page. Covered reads keep exact ranges: their requests
// and bytes are what the layout tests and benchmarks compare (a frame record is a few hundred bytes).

bool LocalData(const DataRequest& rq) { return rq.snap->data_store && !rq.snap->data_store->is_remote(); }

void RunData(const DataRequest& rq, std::vector<std::function<void()>> tasks) {
  if (LocalData(rq)) {
    for (auto& t : tasks) t();
    return;
  }
  rq.impl->RunAll(std::move(tasks));
}

// The lookup rule: how a lookup's reads of a remote object (a data file's pages, an index
// fragment's key pages) are planned. They are latency-bound: seed 000's cold-start rule (exact plans
// up to PlannerConfig::cold_start_request_bound = 64 requests, made for a scan's first reads) sent
// one request per covered page — 40-56 per file of a pyarrow-written table with 8 KiB pages (issue
// 36: 99 requests for one key over 6 files). A lookup instead merges the smallest gaps one at a time
// while it reads at most kLookupColdSlack more bytes than the exact ranges and no request grows past
// kLookupColdMaxRequest: one request per small data file, a few per large one. The slack is about
// what the shortest latency of an object store (5 ms, rap-netsim's low profile) transfers at
// 50 MB/s, so reading it costs less than one more request would; the cap keeps a plain lookup's
// megabyte-sized column chunks in parallel requests (merging them was ~10% slower at 5 ms in
// bench_lookup; docs/benchmarks/lookup.md, "Cold-start merging"). A plan still above one wave of
// requests after that (a 100-key batch: tens of pages a file, or hundreds of index pages) merges its
// gaps of up to kLookupWaveGap on to one wave (PlannerConfig::cold_start_fill_wave_max_gap): each
// more wave costs a full latency, a megabyte of gap a few milliseconds of transfer.
//
// The rule holds once the endpoint's estimator is trained too (fewest_requests_when_trained): seed
// 000's cost model plans each read as if it were alone, while a batch's reads of many files and
// fragments run side by side, and it charges a request nothing but latency; with it (and a 64x byte
// bound) the 100-key batches of bench/peers made 398-1,384 requests and the plain, covered and
// interleaved ones were 1.25-1.44x slower at 5 ms than with this rule (docs/benchmarks/peers.md,
// "Run of 7 Dec 2026, evening").
constexpr uint64_t kLookupColdStartRequestBound = 1;
constexpr uint64_t kLookupColdSlack = 256 << 10;
constexpr uint64_t kLookupColdMaxRequest = 1 << 20;
constexpr uint64_t kLookupWaveGap = 1 << 20;

io::PlanOptions LookupPlanOptions(io::PlanOptions po) {
  po.planner.cold_start_request_bound = std::min(po.planner.cold_start_request_bound, kLookupColdStartRequestBound);
  po.planner.cold_start_fewest_requests = true;
  po.planner.cold_start_slack_bytes = kLookupColdSlack;
  po.planner.cold_start_max_request_bytes = kLookupColdMaxRequest;
  po.planner.cold_start_fill_wave_max_gap = kLookupWaveGap;
  po.planner.fewest_requests_when_trained = true;
  return po;
}

io::PlanOptions LookupPlan(const DataRequest& rq) { return LookupPlanOptions(rq.impl->options.plan); }

io::PlanOptions DataPlan(const DataRequest& rq) {
  io::PlanOptions po = LookupPlan(rq);
  if (!po.policy && LocalData(rq)) po.policy = plan::PlanPolicy::FixedGap(kLocalGap);
  return po;
}

namespace {

// ---- through the data files' metadata ----

// One data file of a full read: its reader and projection, every chosen row and the row groups
// holding them.
struct FullFile {
  int32_t file = 0;
  std::shared_ptr<read::FileReader> reader;
  read::Projection proj;
  read::RowSelection all;
  std::vector<int> rgs;
  std::shared_ptr<CountingStore> cs;
};

// Step 1 of a full read, per file: footer (cached: no request), checks against the index's record,
// and the page index of the projected columns.
Status OpenFullFile(const DataRequest& rq, FullFile& fs, RoundCounter& rc) {
  const FileEntry& fe = rq.snap->manifest.files[static_cast<size_t>(fs.file)];
  read::FileReaderOptions ro;
  const std::string path = io::JoinPath(rq.snap->data_root, fe.path);
  const std::string etag = rq.snap->DataEtag(fe);
  if (!etag.empty()) {
    ro.object_info = io::ObjectInfo{path, fe.size, etag, 0};
    ro.io.expected_etag = etag;
  }
  ro.plan = DataPlan(rq);
  ro.dictionary_cache = rq.impl->dictionaries;
  auto reader = read::FileReader::Open(fs.cs, path, ro);
  if (!reader.ok()) return MissingOr(reader.status(), fe);
  fs.reader = *reader;
  rc.Step();
  const io::ObjectInfo& now = fs.reader->info();
  if (now.size != fe.size || (!etag.empty() && now.etag != etag)) return ChangedFile(fe, now);
  rq.snap->ObserveEtag(fe, now.etag);
  if (fs.reader->num_rows() != fe.num_rows) {
    return Status::Changed("data file " + fe.path + " has " + std::to_string(fs.reader->num_rows()) +
                           " rows, the index recorded " + std::to_string(fe.num_rows));
  }
  auto proj = fs.reader->Project(rq.data_columns);
  if (!proj.ok() && proj.status().code() == StatusCode::kNotFound) {
    return NoColumn(rq.snap->manifest, fe, proj.status().message());
  }
  RAP_ASSIGN_OR_RETURN(fs.proj, std::move(proj));
  for (int rg = 0; rg < fs.reader->num_row_groups(); ++rg) {
    const int64_t first = fs.reader->row_group_first_row(rg);
    if (fs.all.Intersects(first, first + fs.reader->row_group_num_rows(rg))) fs.rgs.push_back(rg);
  }
  if (fs.reader->options().use_page_index) {
    // The projected columns' OffsetIndexes of every row group, not only of this lookup's: one
    // read now, and later lookups of other keys in this file need no metadata read at all.
    std::vector<int> all_rgs;
    for (int rg = 0; rg < fs.reader->num_row_groups(); ++rg) all_rgs.push_back(rg);
    Status st = fs.reader->LoadPageIndex(all_rgs, fs.proj.columns, true, false);
    if (!st.ok()) return MissingOr(st, fe);
  }
  rc.Step();
  return Status::OK();
}

// Results of a full read per (piece, row group).
using RowGroupParts = std::map<std::pair<const KeyPiece*, int>, std::vector<ArrayPtr>>;

// Step 2 of a full read, per (file, row group): the row group fetched and every key's rows decoded
// from it at once, then split per key into `parts` (under `mu`).
Status ReadRowGroupPieces(const DataRequest& rq, const std::vector<KeyPiece*>& pieces, FullFile& fs, int rg,
                          RowGroupParts& parts, std::mutex& mu) {
  const FileEntry& fe = rq.snap->manifest.files[static_cast<size_t>(fs.file)];
  const int64_t first = fs.reader->row_group_first_row(rg);
  const int64_t end = first + fs.reader->row_group_num_rows(rg);
  const read::RowSelection all = fs.all.Slice(first, end);
  auto fetched = fs.reader->FetchRowGroup(rg, all, fs.proj);
  if (!fetched.ok()) return MissingOr(fetched.status(), fe);
  RAP_ASSIGN_OR_RETURN(RecordBatch decoded, (*fetched)->Read(all, fs.proj));
  RAP_ASSIGN_OR_RETURN(auto all_cols, Reorder(decoded, rq.data_columns));
  for (const KeyPiece* p : pieces) {
    read::RowSelection rows = p->rows.Slice(first, end);
    if (rows.empty()) continue;
    std::vector<ArrayPtr> cols;
    for (const ArrayPtr& a : all_cols) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr c, TakeSubset(a, all, rows));
      cols.push_back(std::move(c));
    }
    std::lock_guard<std::mutex> lock(mu);
    parts[{p, rg}] = std::move(cols);
  }
  return Status::OK();
}

// The pages of one flat column chunk located through the file's OffsetIndex (cached with its footer).
struct CachedChunk {
  int leaf = 0;
  const parquet::ColumnMetaData* meta = nullptr;
  std::shared_ptr<const parquet::OffsetIndex> oi;
  int64_t rg_rows = 0;
  int64_t PageEnd(size_t i) const {
    return i + 1 < oi->page_locations.size() ? oi->page_locations[i + 1].first_row_index : rg_rows;
  }
};

// Plain lookups through the data page cache: every page a key's rows touch is taken decoded from
// the cache, or read (all of a file's missing pages and their dictionaries in one planned read),
// decoded whole and put there; each key slices its rows out. False (nothing read) when a projected
// column is nested or a chunk has no OffsetIndex: the row-group path then reads it.
Result<bool> ReadFullCached(const DataRequest& rq, const std::map<int32_t, std::vector<KeyPiece*>>& by_file,
                            std::vector<FullFile>& files, RowGroupParts& parts, DataStats* stats) {
  DataPageCache& cache = *rq.impl->data_pages;
  // (file, row group, data column) -> chunk
  std::vector<std::map<std::pair<int, size_t>, CachedChunk>> chunks(files.size());
  std::vector<std::vector<const parquet::FieldNode*>> nodes(files.size());
  for (size_t j = 0; j < files.size(); ++j) {
    FullFile& fs = files[j];
    if (!fs.reader->options().use_page_index) return false;
    for (const std::string& name : rq.data_columns) {
      const parquet::FieldNode* node = nullptr;
      for (const parquet::FieldNode& n : fs.proj.fields) {
        if (n.field.name == name) node = &n;
      }
      if (!node || !node->children.empty() || node->columns.size() != 1 ||
          fs.reader->schema().column(node->columns[0]).max_repetition_level != 0) {
        return false;
      }
      nodes[j].push_back(node);
    }
    for (int rg : fs.rgs) {
      for (size_t c = 0; c < nodes[j].size(); ++c) {
        CachedChunk ch;
        ch.leaf = nodes[j][c]->columns[0];
        const auto& cc = fs.reader->metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(ch.leaf)];
        if (!cc.meta_data) return false;
        ch.meta = &*cc.meta_data;
        if (ch.meta->dictionary_page_offset && *ch.meta->dictionary_page_offset >= ch.meta->data_page_offset) return false;
        auto oi = fs.reader->GetOffsetIndex(rg, ch.leaf);
        if (!oi.ok() || !*oi || (*oi)->page_locations.empty()) return false;
        ch.oi = *oi;
        ch.rg_rows = fs.reader->row_group_num_rows(rg);
        chunks[j][{rg, c}] = std::move(ch);
      }
    }
  }
  int64_t pages_decoded = 0, hits = 0;
  for (size_t j = 0; j < files.size(); ++j) {
    FullFile& fs = files[j];
    const FileEntry& fe = rq.snap->manifest.files[static_cast<size_t>(fs.file)];
    const std::string path = io::JoinPath(rq.snap->data_root, fe.path);
    parquet::ColumnReadOptions cro;
    cro.file_name = path;
    cro.dictionary_cache = rq.impl->dictionaries.get();
    cro.dictionary_file = fmt::format("{}|{}|{}", path, fe.size, rq.snap->DataEtag(fe));
    const uint64_t file_id = cache.Intern(cro.dictionary_file);
    // Decoded pages by (row group, column, page), and the pages to read.
    std::map<std::tuple<int, size_t, size_t>, ArrayPtr> pages;
    std::vector<std::tuple<int, size_t, size_t>> missing;
    std::map<int64_t, ByteRange> reads;  // by offset: missing pages and their dictionaries
    std::map<int64_t, parquet::DictionaryCache::Value> dicts;  // dictionaries found decoded, by offset
    for (auto& [rc, ch] : chunks[j]) {
      const int rg = rc.first;
      const int64_t first = fs.reader->row_group_first_row(rg);
      const read::RowSelection rows = fs.all.Slice(first, first + ch.rg_rows);
      for (size_t i = 0; i < ch.oi->page_locations.size(); ++i) {
        const parquet::PageLocation& pl = ch.oi->page_locations[i];
        if (!rows.Intersects(pl.first_row_index, ch.PageEnd(i))) continue;
        if (ArrayPtr a = cache.Get({file_id, pl.offset})) {
          pages[{rg, rc.second, i}] = std::move(a);
          ++hits;
          continue;
        }
        missing.push_back({rg, rc.second, i});
        reads[pl.offset] = {static_cast<uint64_t>(pl.offset), static_cast<uint64_t>(pl.compressed_page_size)};
        if (ch.meta->dictionary_page_offset) {
          const int64_t d = *ch.meta->dictionary_page_offset;
          if (dicts.count(d) || reads.count(d)) continue;
          if (cro.dictionary_cache) {
            if (auto dv = cro.dictionary_cache->Get(cro.dictionary_file, static_cast<uint64_t>(d))) {
              dicts[d] = std::move(dv);
              continue;
            }
          }
          reads[d] = {static_cast<uint64_t>(d), static_cast<uint64_t>(ch.meta->data_page_offset - d)};
        }
      }
    }
    std::map<int64_t, Buffer> bufs;
    if (!reads.empty()) {
      std::vector<ByteRange> ranges;
      for (auto& [o, r] : reads) ranges.push_back(r);
      io::PlanOptions po = DataPlan(rq);
      po.expected_etag = rq.snap->DataEtag(fe);
      auto got = io::ReadPlanned(*fs.cs, path, ranges, po);
      if (!got.ok()) return MissingOr(got.status(), fe);
      size_t bi = 0;
      for (auto& [o, r] : reads) bufs[o] = (*got)[bi++];
    }
    for (const auto& mk : missing) {
      const auto& [rg, c, i] = mk;
      const CachedChunk& ch = chunks[j].at({rg, c});
      const parquet::PageLocation& pl = ch.oi->page_locations[i];
      const int64_t n = ch.PageEnd(i) - pl.first_row_index;
      parquet::ColumnChunkInput in;
      in.num_rows = n;
      if (ch.meta->dictionary_page_offset) {
        const int64_t d = *ch.meta->dictionary_page_offset;
        auto b = bufs.find(d);
        if (b != bufs.end()) {
          in.dictionary = {b->second, static_cast<uint64_t>(d), 0};
        } else {
          in.decoded_dictionary = dicts.at(d);
        }
      }
      in.spans.push_back({bufs.at(pl.offset), static_cast<uint64_t>(pl.offset), 0});
      const parquet::SchemaDescriptor& sd = fs.reader->schema();
      RAP_ASSIGN_OR_RETURN(parquet::LeafColumnData data,
                           parquet::ReadColumnChunk(sd.column(ch.leaf), ch.meta->codec, in, {{0, n}}, cro));
      std::vector<const parquet::LeafColumnData*> leaves(static_cast<size_t>(sd.num_columns()), nullptr);
      leaves[static_cast<size_t>(ch.leaf)] = &data;
      RAP_ASSIGN_OR_RETURN(ArrayPtr values, parquet::AssembleField(*nodes[j][c], leaves, n));
      cache.Put({file_id, pl.offset}, values);
      pages[mk] = std::move(values);
      ++pages_decoded;
    }
    // Each key's rows, per row group and column, sliced out of the pages.
    for (const KeyPiece* p : by_file.at(fs.file)) {
      for (int rg : fs.rgs) {
        const int64_t first = fs.reader->row_group_first_row(rg);
        const read::RowSelection rows = p->rows.Slice(first, first + fs.reader->row_group_num_rows(rg));
        if (rows.empty()) continue;
        std::vector<ArrayPtr> cols;
        for (size_t c = 0; c < nodes[j].size(); ++c) {
          const CachedChunk& ch = chunks[j].at({rg, c});
          std::vector<ArrayPtr> col;
          for (size_t i = 0; i < ch.oi->page_locations.size(); ++i) {
            const int64_t pf = ch.oi->page_locations[i].first_row_index, pe = ch.PageEnd(i);
            const read::RowSelection sub = rows.Slice(pf, pe);
            if (sub.empty()) continue;
            RAP_ASSIGN_OR_RETURN(ArrayPtr a, TakeSubset(pages.at({rg, c, i}), read::RowSelection::All(pe - pf), sub));
            col.push_back(std::move(a));
          }
          if (col.size() == 1) {
            cols.push_back(std::move(col[0]));
          } else {
            RAP_ASSIGN_OR_RETURN(ArrayPtr a, ConcatArrays(col));
            cols.push_back(std::move(a));
          }
        }
        parts[{p, rg}] = std::move(cols);
      }
    }
  }
  stats->pages_decoded += pages_decoded;
  stats->page_cache_hits += hits;
  return true;
}

Status ReadFull(const DataRequest& rq, const std::map<int32_t, std::vector<KeyPiece*>>& by_file, DataStats* stats) {
  std::vector<FullFile> files;
  for (const auto& [f, ps] : by_file) {
    FullFile fs;
    fs.file = f;
    std::vector<read::RowRange> ranges;
    for (const KeyPiece* p : ps) ranges.insert(ranges.end(), p->rows.begin(), p->rows.end());
    fs.all = read::RowSelection::FromRanges(std::move(ranges));
    files.push_back(std::move(fs));
  }
  // Step 1 per file: footer and page index.
  Accounting acc1;
  std::vector<Status> errors(files.size());
  std::vector<std::function<void()>> tasks;
  for (size_t j = 0; j < files.size(); ++j) {
    tasks.push_back([&, j] {
      FullFile& fs = files[j];
      fs.cs = std::make_shared<CountingStore>(rq.snap->data_store);
      RoundCounter rc(*fs.cs);
      errors[j] = OpenFullFile(rq, fs, rc);
      acc1.Add(*fs.cs, rc.rounds());
    });
  }
  RunData(rq, std::move(tasks));
  for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  int64_t req_before = 0;
  for (auto& fs : files) req_before += fs.cs->requests();
  RowGroupParts parts;
  bool done = false;
  if (rq.impl->data_pages && LocalData(rq)) {
    RAP_ASSIGN_OR_RETURN(done, ReadFullCached(rq, by_file, files, parts, stats));
  }
  if (!done) {
    // Step 2: every (file, row group) fetched in parallel, each key's rows decoded from it.
    std::vector<std::pair<size_t, int>> rg_tasks;  // (file, row group)
    for (size_t j = 0; j < files.size(); ++j) {
      for (int rg : files[j].rgs) rg_tasks.push_back({j, rg});
    }
    std::mutex parts_mu;
    errors.assign(rg_tasks.size(), Status::OK());
    tasks.clear();
    for (size_t t = 0; t < rg_tasks.size(); ++t) {
      tasks.push_back([&, t] {
        FullFile& fs = files[rg_tasks[t].first];
        errors[t] = ReadRowGroupPieces(rq, by_file.at(fs.file), fs, rg_tasks[t].second, parts, parts_mu);
      });
    }
    RunData(rq, std::move(tasks));
    for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  }
  int64_t req_after = 0;
  uint64_t bytes_after = 0;
  for (auto& fs : files) {
    req_after += fs.cs->requests();
    bytes_after += fs.cs->bytes();
  }
  stats->rounds += acc1.max_rounds + (req_after > req_before ? 1 : 0);
  stats->requests += req_after;
  stats->bytes += bytes_after;
  stats->files += static_cast<int64_t>(files.size());
  for (auto& [f, ps] : by_file) {
    for (KeyPiece* p : ps) {
      std::vector<std::vector<ArrayPtr>> pp;
      for (auto it = parts.lower_bound({p, INT32_MIN}); it != parts.end() && it->first.first == p; ++it) {
        pp.push_back(std::move(it->second));
      }
      RAP_RETURN_NOT_OK(ConcatInto(pp, &p->columns));
    }
  }
  return Status::OK();
}

// ---- through covering data ----

struct PageKey {
  int64_t offset, size;
  bool operator<(const PageKey& o) const { return offset != o.offset ? offset < o.offset : size < o.size; }
};

// One covered file of a read: its keys' pieces, the covered columns' schema nodes, and the pages
// and frame records they need (fetched into the buffers).
struct CoveredFile {
  const FileEntry* fe = nullptr;
  const std::vector<KeyPiece*>* pieces = nullptr;
  std::string path;
  const parquet::SchemaDescriptor* sd = nullptr;
  std::vector<parquet::FieldNode> nodes;  // per data column
  std::vector<int32_t> cover_of;          // data column -> index in the manifest's cover
  std::map<PageKey, Buffer> bufs, frame_bufs;
  // Data pages found decoded whole in the Index's data page cache (not fetched), by location.
  std::map<PageKey, ArrayPtr> cached;
  DataPageCache* data_cache = nullptr;  // the Index's, or null
  uint64_t cache_file = 0;              // the file's interned identity in data_cache
  int64_t pages_decoded = 0, page_cache_hits = 0;
  // Dictionary pages found decoded in the cache (not fetched), by location.
  std::map<PageKey, parquet::DictionaryCache::Value> dicts;
  std::shared_ptr<parquet::DictionaryCache> dictionaries;  // the Index's, or one for this read
  parquet::ColumnReadOptions cro;
};

// The covered columns' schema nodes, from the file's schema file.
Status ProjectCovered(const DataRequest& rq, CoveredFile* f) {
  const FileEntry& fe = *f->fe;
  if (fe.schema < 0 || !rq.snap->schemas[static_cast<size_t>(fe.schema)]) {
    return Status::Corrupt("index: covered file " + fe.path + " has no schema file");
  }
  f->sd = &rq.snap->schemas[static_cast<size_t>(fe.schema)]->schema();
  for (const std::string& c : rq.data_columns) {
    auto projected = f->sd->Project({c});
    if (!projected.ok() && projected.status().code() == StatusCode::kNotFound) {
      return NoColumn(rq.snap->manifest, fe, projected.status().message());
    }
    RAP_ASSIGN_OR_RETURN(auto fields, std::move(projected));
    if (fields.size() != 1 || fields[0].columns.size() != 1) {
      return Status::Corrupt("index: covered column " + c + " is not one flat column in " + fe.path);
    }
    f->nodes.push_back(std::move(fields[0]));
  }
  return Status::OK();
}

// A covering location checked against its file's size and rows and the known kinds.
Status CheckLocation(const Location& l, const FileEntry& fe) {
  if (l.offset < 0 || l.size <= 0 || static_cast<uint64_t>(l.offset + l.size) > fe.size) {
    return Status::Corrupt("index: a covering location [" + std::to_string(l.offset) + ", +" + std::to_string(l.size) +
                           ") lies outside " + fe.path + " (" + std::to_string(fe.size) + " bytes)");
  }
  if (l.first_row < 0 || l.num_rows <= 0 || (fe.num_rows > 0 && l.num_rows > fe.num_rows - l.first_row)) {
    return Status::Corrupt("index: a covering location's rows [" + std::to_string(l.first_row) + ", +" +
                           std::to_string(l.num_rows) + ") lie outside " + fe.path + " (" +
                           std::to_string(fe.num_rows) + " rows)");
  }
  if (l.kind < 0 || l.kind > static_cast<int32_t>(LocationKind::kDictionaryPage)) {
    return Status::Corrupt("index: covering location kind " + std::to_string(l.kind) + " at offset " +
                           std::to_string(l.offset) + " of " + fe.path + " (expected 0, 1 or 2)");
  }
  return Status::OK();
}

// The pages needed: every data page and frame overlapping a chosen row (a data page found in the
// data page cache is not fetched), and the dictionary pages of the chunks of the data pages that
// are to be decoded.
Status ChooseCoveredPages(CoveredFile* f) {
  for (const KeyPiece* p : *f->pieces) {
    for (const Location& l : p->entry->cover) {
      RAP_RETURN_NOT_OK(CheckLocation(l, *f->fe));
      if (std::find(f->cover_of.begin(), f->cover_of.end(), l.column) == f->cover_of.end()) continue;
      if (l.kind == static_cast<int32_t>(LocationKind::kDictionaryPage)) continue;
      if (!p->rows.Intersects(l.first_row, l.first_row + l.num_rows)) continue;
      const PageKey k{l.offset, l.size};
      const bool frame = l.kind == static_cast<int32_t>(LocationKind::kZstdFrame);
      if (f->cached.count(k) || f->bufs.count(k) || f->frame_bufs.count(k)) continue;
      if (f->data_cache) {
        if (ArrayPtr a = f->data_cache->Get({f->cache_file, l.offset})) {
          f->cached[k] = std::move(a);
          continue;
        }
      }
      if (frame) {
        f->frame_bufs[k] = Buffer();
        continue;
      }
      f->bufs[k] = Buffer();
    }
  }
  // Dictionaries: the one before a data page in the entry's cover (per column), when it covers the
  // page's rows and the page is to be decoded.
  for (const KeyPiece* p : *f->pieces) {
    std::map<int32_t, const Location*> dict;  // per cover column
    for (const Location& l : p->entry->cover) {
      if (std::find(f->cover_of.begin(), f->cover_of.end(), l.column) == f->cover_of.end()) continue;
      if (l.kind == static_cast<int32_t>(LocationKind::kDictionaryPage)) {
        dict[l.column] = &l;
        continue;
      }
      if (l.kind != static_cast<int32_t>(LocationKind::kDataPage) || !f->bufs.count({l.offset, l.size})) continue;
      auto d = dict.find(l.column);
      if (d == dict.end()) continue;
      const Location& dl = *d->second;
      if (!(dl.first_row <= l.first_row && l.first_row < dl.first_row + dl.num_rows)) continue;
      const PageKey dk{dl.offset, dl.size};
      if (f->dicts.count(dk) || f->bufs.count(dk)) continue;
      if (auto dv = f->dictionaries->Get(f->cro.dictionary_file, static_cast<uint64_t>(dl.offset))) {
        f->dicts[dk] = std::move(dv);
      } else {
        f->bufs[dk] = Buffer();
      }
    }
  }
  return Status::OK();
}

// The chosen pages and frame records in one planned read (adjacent frames, an interleaved key's
// columns, as one range).
Status FetchCovered(const DataRequest& rq, CountingStore& cs, RoundCounter& rc, CoveredFile* f) {
  std::vector<ByteRange> ranges;
  for (auto& [k, b] : f->bufs) ranges.push_back({static_cast<uint64_t>(k.offset), static_cast<uint64_t>(k.size)});
  std::vector<ByteRange> frame_ranges;
  for (auto& [k, b] : f->frame_bufs) {
    frame_ranges.push_back({static_cast<uint64_t>(k.offset), static_cast<uint64_t>(k.size)});
  }
  frame_ranges = MergeFrameRanges(std::move(frame_ranges));
  const size_t num_page_ranges = ranges.size();
  ranges.insert(ranges.end(), frame_ranges.begin(), frame_ranges.end());
  io::PlanOptions po = LookupPlan(rq);
  po.expected_etag = rq.snap->DataEtag(*f->fe);
  po.purpose = "covered";
  auto got = io::ReadPlanned(cs, f->path, ranges, po);
  if (!got.ok()) return MissingOr(got.status(), *f->fe);
  rc.Step();
  size_t bi = 0;
  for (auto& [k, b] : f->bufs) b = (*got)[bi++];
  for (auto& [k, b] : f->frame_bufs) {
    const uint64_t off = static_cast<uint64_t>(k.offset);
    auto r = std::upper_bound(frame_ranges.begin(), frame_ranges.end(), off,
                              [](uint64_t v, const ByteRange& x) { return v < x.offset; });
    const size_t ri = static_cast<size_t>(r - frame_ranges.begin()) - 1;
    b = (*got)[num_page_ranges + ri].Slice(static_cast<size_t>(off - frame_ranges[ri].offset),
                                           static_cast<size_t>(k.size));
  }
  return Status::OK();
}

// One data page decoded once, for the rows every key of the batch needs from it.
struct PageDecode {
  std::vector<read::RowRange> ranges;  // rows needed, relative to the page
  read::RowSelection rows;
  const Location* loc = nullptr;
  const Location* dict = nullptr;
  ArrayPtr values;
};
using PageDecodes = std::map<std::tuple<size_t, int64_t, int64_t>, PageDecode>;  // (column, offset, size)

// A page or frame record taken decoded from the data page cache holds exactly the rows its location
// says (the cache is keyed by file identity and offset, so anything else is a bug, not bad input).
Status CheckCachedRows(const columnar::ArrayData& values, const Location& l, const CoveredFile& f, const char* what) {
  if (values.length == l.num_rows) return Status::OK();
  return Status::Internal("index: a cached " + std::string(what) + " at offset " + std::to_string(l.offset) + " of " +
                          f.fe->path + " holds " + std::to_string(values.length) + " rows, not " +
                          std::to_string(l.num_rows));
}

Result<PageDecodes> DecodeCoveredPages(const DataRequest& rq, CoveredFile& f) {
  PageDecodes decodes;
  for (KeyPiece* p : *f.pieces) {
    for (size_t c = 0; c < rq.data_columns.size(); ++c) {
      const Location* dict = nullptr;
      for (const Location& l : p->entry->cover) {
        if (l.column != f.cover_of[c]) continue;
        if (l.kind == static_cast<int32_t>(LocationKind::kDictionaryPage)) {
          dict = &l;
          continue;
        }
        if (l.kind != static_cast<int32_t>(LocationKind::kDataPage)) continue;
        const read::RowSelection rows = p->rows.Slice(l.first_row, l.first_row + l.num_rows);
        if (rows.empty()) continue;
        PageDecode& d = decodes[{c, l.offset, l.size}];
        if (!d.loc) {
          d.loc = &l;
          d.dict = dict;
        }
        d.ranges.insert(d.ranges.end(), rows.begin(), rows.end());
      }
    }
  }
  const parquet::SchemaDescriptor& sd = *f.sd;
  for (auto& [key, d] : decodes) {
    const parquet::FieldNode& node = f.nodes[std::get<0>(key)];
    const int leaf = node.columns[0];
    const Location& l = *d.loc;
    auto hit = f.cached.find({l.offset, l.size});
    if (hit != f.cached.end()) {
      // Decoded whole by an earlier lookup: this one slices its rows out (AssembleCovered).
      RAP_RETURN_NOT_OK(CheckCachedRows(*hit->second, l, f, "data page"));
      d.rows = read::RowSelection::All(l.num_rows);
      d.values = hit->second;
      ++f.page_cache_hits;
      continue;
    }
    // With the data page cache on, the page is decoded whole and kept; off, only the rows needed.
    d.rows = f.data_cache ? read::RowSelection::All(l.num_rows) : read::RowSelection::FromRanges(std::move(d.ranges));
    parquet::ColumnChunkInput in;
    in.num_rows = l.num_rows;
    if (d.dict && d.dict->first_row <= l.first_row && l.first_row < d.dict->first_row + d.dict->num_rows) {
      auto cached = f.dicts.find({d.dict->offset, d.dict->size});
      if (cached != f.dicts.end()) {
        in.decoded_dictionary = cached->second;
      } else {
        in.dictionary = {f.bufs.at({d.dict->offset, d.dict->size}), static_cast<uint64_t>(d.dict->offset), 0};
      }
    }
    in.spans.push_back({f.bufs.at({l.offset, l.size}), static_cast<uint64_t>(l.offset), 0});
    RAP_ASSIGN_OR_RETURN(parquet::LeafColumnData data,
                         parquet::ReadColumnChunk(sd.column(leaf), static_cast<parquet::Codec>(l.codec), in,
                                                  d.rows.ranges(), f.cro));
    std::vector<const parquet::LeafColumnData*> leaves(static_cast<size_t>(sd.num_columns()), nullptr);
    leaves[static_cast<size_t>(leaf)] = &data;
    RAP_ASSIGN_OR_RETURN(d.values, parquet::AssembleField(node, leaves, d.rows.Count()));
    ++f.pages_decoded;
    if (f.data_cache) f.data_cache->Put({f.cache_file, l.offset}, d.values);
  }
  return decodes;
}

// Each key's columns: its rows of the decoded pages and of its frame records, in location order.
Status AssembleCovered(const DataRequest& rq, CoveredFile& f, const PageDecodes& decodes) {
  const parquet::SchemaDescriptor& sd = *f.sd;
  for (KeyPiece* p : *f.pieces) {
    std::vector<std::vector<ArrayPtr>> per_column(rq.data_columns.size());
    for (size_t c = 0; c < rq.data_columns.size(); ++c) {
      const parquet::FieldNode& node = f.nodes[c];
      const int leaf = node.columns[0];
      for (const Location& l : p->entry->cover) {
        if (l.column != f.cover_of[c] || l.kind == static_cast<int32_t>(LocationKind::kDictionaryPage)) continue;
        const read::RowSelection rows = p->rows.Slice(l.first_row, l.first_row + l.num_rows);
        if (rows.empty()) continue;
        if (l.kind == static_cast<int32_t>(LocationKind::kZstdFrame)) {
          // A frame record found in the data cache, or decoded whole (and kept) when the cache is
          // on; off, only the rows needed.
          auto hit = f.cached.find({l.offset, l.size});
          if (hit == f.cached.end() && f.data_cache) {
            RAP_ASSIGN_OR_RETURN(ArrayPtr whole,
                                 DecodeFrameRecord(node, sd.column(leaf), sd.num_columns(), l,
                                                   f.frame_bufs.at({l.offset, l.size}),
                                                   read::RowSelection::All(l.num_rows), f.cro));
            ++f.pages_decoded;
            f.data_cache->Put({f.cache_file, l.offset}, whole);
            hit = f.cached.emplace(PageKey{l.offset, l.size}, std::move(whole)).first;
          } else if (hit != f.cached.end()) {
            ++f.page_cache_hits;
          }
          if (hit != f.cached.end()) {
            RAP_RETURN_NOT_OK(CheckCachedRows(*hit->second, l, f, "frame record"));
            RAP_ASSIGN_OR_RETURN(ArrayPtr a, TakeSubset(hit->second, read::RowSelection::All(l.num_rows), rows));
            per_column[c].push_back(std::move(a));
            continue;
          }
          RAP_ASSIGN_OR_RETURN(ArrayPtr a, DecodeFrameRecord(node, sd.column(leaf), sd.num_columns(), l,
                                                             f.frame_bufs.at({l.offset, l.size}), rows, f.cro));
          ++f.pages_decoded;
          per_column[c].push_back(std::move(a));
          continue;
        }
        const PageDecode& d = decodes.at({c, l.offset, l.size});
        RAP_ASSIGN_OR_RETURN(ArrayPtr a, TakeSubset(d.values, d.rows, rows));
        per_column[c].push_back(std::move(a));
      }
    }
    p->columns.clear();
    for (size_t c = 0; c < per_column.size(); ++c) {
      int64_t n = 0;
      for (const ArrayPtr& a : per_column[c]) n += a->length;
      if (n != p->rows.Count()) {
        return Status::Corrupt("index: the covering data of column " + rq.data_columns[c] + " in " + f.fe->path +
                               " does not hold rows " + p->rows.ToString());
      }
      if (per_column[c].size() == 1) {
        p->columns.push_back(per_column[c][0]);
      } else {
        RAP_ASSIGN_OR_RETURN(ArrayPtr a, ConcatArrays(per_column[c]));
        p->columns.push_back(a);
      }
    }
  }
  return Status::OK();
}

// One covered file: schema nodes, pages chosen, fetched in one planned read, decoded, assembled.
Status ReadCoveredFile(const DataRequest& rq, const std::vector<int32_t>& cover_of, const FileEntry& fe,
                       const std::vector<KeyPiece*>& pieces, CountingStore& cs, RoundCounter& rc,
                       int64_t* pages_decoded, int64_t* page_cache_hits) {
  CoveredFile f;
  f.fe = &fe;
  f.pieces = &pieces;
  f.cover_of = cover_of;
  f.path = io::JoinPath(rq.snap->data_root, fe.path);
  f.cro.file_name = f.path;
  // Dictionaries: the Index's cache, else one for this read, so that the pages of one chunk share
  // a single decode of its dictionary.
  f.dictionaries = rq.impl->dictionaries ? rq.impl->dictionaries : std::make_shared<parquet::DictionaryCache>(64ll << 20);
  f.cro.dictionary_cache = f.dictionaries.get();
  f.cro.dictionary_file = fmt::format("{}|{}|{}", f.path, fe.size, rq.snap->DataEtag(fe));
  if (rq.impl->data_pages) {
    f.data_cache = rq.impl->data_pages.get();
    f.cache_file = f.data_cache->Intern(f.cro.dictionary_file);
  }
  RAP_RETURN_NOT_OK(ProjectCovered(rq, &f));
  RAP_RETURN_NOT_OK(ChooseCoveredPages(&f));
  if (!f.bufs.empty() || !f.frame_bufs.empty()) RAP_RETURN_NOT_OK(FetchCovered(rq, cs, rc, &f));
  RAP_ASSIGN_OR_RETURN(const PageDecodes decodes, DecodeCoveredPages(rq, f));
  RAP_RETURN_NOT_OK(AssembleCovered(rq, f, decodes));
  *pages_decoded = f.pages_decoded;
  *page_cache_hits = f.page_cache_hits;
  return Status::OK();
}

Status ReadCovered(const DataRequest& rq, const std::map<int32_t, std::vector<KeyPiece*>>& by_file, DataStats* stats) {
  const Manifest& m = rq.snap->manifest;
  std::vector<int32_t> cover_of;  // data column -> index in m.cover
  for (const std::string& c : rq.data_columns) {
    cover_of.push_back(static_cast<int32_t>(std::find(m.cover.begin(), m.cover.end(), c) - m.cover.begin()));
  }
  std::vector<std::pair<int32_t, std::vector<KeyPiece*>>> files(by_file.begin(), by_file.end());
  std::vector<Status> errors(files.size());
  Accounting acc;
  std::vector<std::function<void()>> tasks;
  for (size_t j = 0; j < files.size(); ++j) {
    tasks.push_back([&, j] {
      const FileEntry& fe = m.files[static_cast<size_t>(files[j].first)];
      auto cs = std::make_shared<CountingStore>(rq.snap->data_store);
      RoundCounter rc(*cs);
      int64_t decoded = 0, hits = 0;
      errors[j] = ReadCoveredFile(rq, cover_of, fe, files[j].second, *cs, rc, &decoded, &hits);
      acc.Add(*cs, rc.rounds(), decoded, hits);
    });
  }
  RunData(rq, std::move(tasks));
  for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  stats->rounds += acc.max_rounds;
  stats->requests += acc.requests;
  stats->bytes += acc.bytes;
  stats->files += static_cast<int64_t>(files.size());
  stats->covered_files += static_cast<int64_t>(files.size());
  stats->pages_decoded += acc.pages_decoded;
  stats->page_cache_hits += acc.page_cache_hits;
  return Status::OK();
}

// ---- from hoisted values ----

Status ReadHoisted(const DataRequest& rq) {
  const Manifest& m = rq.snap->manifest;
  for (KeyPiece& p : *rq.pieces) {
    p.columns.clear();
    std::vector<int64_t> idx;
    for (const read::RowRange& r : p.rows) {
      for (int64_t row = r.begin; row < r.end; ++row) idx.push_back(row - p.entry->first_row);
    }
    for (const std::string& c : rq.data_columns) {
      const size_t h = static_cast<size_t>(std::find(m.hoist.begin(), m.hoist.end(), c) - m.hoist.begin());
      if (h >= p.entry->hoisted.size()) return Status::Corrupt("index: an entry lacks hoisted column " + c);
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, columnar::TakeArray(*p.entry->hoisted[h], idx));
      p.columns.push_back(std::move(a));
    }
  }
  return Status::OK();
}

}  // namespace

Status ReadData(const DataRequest& rq, DataStats* stats) {
  if (rq.mode == DataMode::kNone) {
    for (KeyPiece& p : *rq.pieces) p.columns.clear();
    return Status::OK();
  }
  if (rq.mode == DataMode::kHoisted) return ReadHoisted(rq);
  std::map<int32_t, std::vector<KeyPiece*>> by_file, orc_by_file;
  for (KeyPiece& p : *rq.pieces) {
    const FileEntry& fe = rq.snap->manifest.files[static_cast<size_t>(p.entry->file)];
    (read::IsOrcPath(fe.path) ? orc_by_file : by_file)[p.entry->file].push_back(&p);
  }
  if (!orc_by_file.empty()) RAP_RETURN_NOT_OK(ReadOrc(rq, orc_by_file, stats));
  if (by_file.empty()) return Status::OK();
  if (rq.mode == DataMode::kCovered) {
    bool all_covered = true;
    for (auto& [f, ps] : by_file) {
      for (const KeyPiece* p : ps) all_covered = all_covered && !p->entry->cover.empty();
      all_covered = all_covered && rq.snap->manifest.files[static_cast<size_t>(f)].schema >= 0;
    }
    if (all_covered) return ReadCovered(rq, by_file, stats);
  }
  return ReadFull(rq, by_file, stats);
}

}  // namespace rap::index::internal
