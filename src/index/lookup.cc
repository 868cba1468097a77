// Index::Lookup: keys -> candidate index pages (cached or one parallel round) -> entries -> rows per
// key (page tokens, limits, deletion vectors) -> data reads (lookup_data.cc) -> one batch per key.
// Each phase is one function over the shared LookupState (lookup_plan.h).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "index/index_impl.h"
#include "index/lookup_plan.h"
#include "rap/read/scanner.h"
#include "rap/table/deletion_vector.h"
#include "rap/table/paimon.h"
#include "rap/util/clock.h"

namespace rap::index {

namespace internal {

Result<PageToken> ParseToken(const std::string& t) {
  PageToken tok;
  if (t.empty()) return tok;
  int file = 0;
  long long row = 0;
  char tail = 0;
  if (std::sscanf(t.c_str(), "p1:%d:%lld%c", &file, &row, &tail) != 2 || file < 0 || row < 0) {
    return Status::InvalidArgument("page token '" + t + "' is not a token of this index (expected one returned by a lookup)");
  }
  tok.set = true;
  tok.file = file;
  tok.row = row;
  return tok;
}

std::string MakeToken(int32_t file, int64_t row) { return fmt::format("p1:{}:{}", file, row); }

// Compares row `row` of a fragment batch with `key` (a NULL key cell, which EntryAt rejects as
// corrupt, compares as 0 / the empty string).
int CompareRow(const RecordBatch& b, const FragmentLayout& layout, const std::vector<KeyColumn>& cols, int64_t row,
               const Key& key) {
  for (size_t k = 0; k < cols.size(); ++k) {
    const int c = CompareKeyCell(cols[k].type, *b.columns[static_cast<size_t>(layout.key[k])], row, key.parts[k]);
    if (c != 0) return c;
  }
  return 0;
}

// A constant array of `n` copies of one key part.
ArrayPtr RepeatKeyPart(KeyType type, const KeyPart& part, int64_t n) {
  std::vector<const KeyPart*> parts(static_cast<size_t>(n), &part);
  return MakeKeyArray(type, parts);
}

// The end of one parallel round: the first task error, else the round's requests, after adding the
// requests and bytes read through `stores` to `stats`.
Result<int64_t> FinishRound(const std::vector<Status>& errors, const std::vector<std::shared_ptr<CountingStore>>& stores,
                            LookupStats* stats) {
  for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  int64_t req = 0;
  for (const auto& cs : stores) {
    req += cs->requests();
    stats->requests += cs->requests();
    stats->bytes += cs->bytes();
  }
  return req;
}

// ---- keys and page tokens ----
Status CheckKeys(LookupState& st) {
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  const LookupOptions& opt = *st.opt;
  for (size_t i = 0; i < st.keys.size(); ++i) {
    if (st.keys[i].parts.size() != kc.size()) {
      return Status::InvalidArgument("key " + std::to_string(i) + " has " + std::to_string(st.keys[i].parts.size()) +
                                     " part(s); this index's key has " + std::to_string(kc.size()));
    }
  }
  if (!opt.page_tokens.empty() && opt.page_tokens.size() != st.keys.size()) {
    return Status::InvalidArgument("page_tokens: give none or one per key (" + std::to_string(st.keys.size()) +
                                   "), got " + std::to_string(opt.page_tokens.size()));
  }
  st.tokens.resize(st.keys.size());
  for (size_t i = 0; i < opt.page_tokens.size(); ++i) {
    RAP_ASSIGN_OR_RETURN(st.tokens[i], ParseToken(opt.page_tokens[i]));
  }
  return Status::OK();
}

// ---- output columns ----
// The names of the output columns: the key columns not asked for, then the ones asked for (all
// columns when none are; a blob column stands for its folded columns, in its place).
Result<std::vector<std::string>> OutputNames(const Index::Snapshot& snap, const std::vector<std::string>& columns) {
  const std::vector<KeyColumn>& kc = snap.manifest.key;
  std::set<std::string> key_names;
  for (const KeyColumn& k : kc) key_names.insert(k.name);
  const parquet::BlobSpec* blob = snap.blob ? &*snap.blob : nullptr;
  std::vector<std::string> requested = columns;
  if (requested.empty()) {
    for (const KeyColumn& k : kc) requested.push_back(k.name);
    if (snap.table_schema) {
      for (const Field& f : snap.table_schema->fields) {
        if (blob && f.name == blob->column) {
          for (const Field& b : blob->fields) {
            if (!key_names.count(b.name)) requested.push_back(b.name);
          }
        } else if (!key_names.count(f.name) &&
                   !(snap.manifest.table_kind == "paimon" && table::IsPaimonSystemColumn(f.name))) {
          requested.push_back(f.name);
        }
      }
    }
  }
  std::vector<std::string> out_names;
  for (const KeyColumn& k : kc) {
    if (std::find(requested.begin(), requested.end(), k.name) == requested.end()) out_names.push_back(k.name);
  }
  for (const std::string& c : requested) {
    if (std::find(out_names.begin(), out_names.end(), c) != out_names.end()) {
      return Status::InvalidArgument("column '" + c + "' is listed twice");
    }
    out_names.push_back(c);
  }
  return out_names;
}

// Where each output column comes from: a key part, a data column, or a folded blob field.
Status ResolveColumns(LookupState& st) {
  const Index::Snapshot& snap = *st.snap;
  const std::vector<KeyColumn>& kc = snap.manifest.key;
  const parquet::BlobSpec* blob = snap.blob ? &*snap.blob : nullptr;
  // Column mapping: the requested (logical) names as the files name them; output fields get their
  // logical names back below.
  std::vector<std::string> requested;
  for (const std::string& c : st.opt->columns) requested.push_back(snap.PhysicalName(c));
  RAP_ASSIGN_OR_RETURN(const std::vector<std::string> out_names, OutputNames(snap, requested));
  internal::OutputColumns& out = st.out;
  out.schema = std::make_shared<Schema>();
  out.data_schema = std::make_shared<Schema>();
  auto add_data = [&](const Field& f) {
    out.data_schema->fields.push_back(f);
    out.data_columns.push_back(f.name);
    return out.data_columns.size() - 1;
  };
  for (const std::string& c : out_names) {
    bool is_key = false;
    for (size_t k = 0; k < kc.size(); ++k) {
      if (kc[k].name == c) {
        out.schema->fields.push_back({c, ArrowTypeOf(kc[k].type), false});
        out.source.push_back({ColumnFrom::kKey, k});
        is_key = true;
      }
    }
    if (is_key) continue;
    const int fi = snap.table_schema ? snap.table_schema->FieldIndex(c) : -1;
    int bi = -1;
    for (size_t b = 0; blob && fi < 0 && b < blob->fields.size(); ++b) {
      if (blob->fields[b].name == c) bi = static_cast<int>(b);
    }
    if (fi < 0 && bi < 0) {
      return Status::NotFound("column '" + snap.LogicalName(c) + "' is not a column of the indexed table " +
                              snap.info.table_url + SchemaEvolutionHint(snap.manifest));
    }
    if (bi >= 0) {
      if (out.blob_data < 0) {
        const int blob_fi = snap.table_schema->FieldIndex(blob->column);
        if (blob_fi < 0) {
          return Status::Corrupt(snap.info.table_url + ": the blob metadata names column '" + blob->column +
                                 "', which the table does not have");
        }
        out.blob_data = static_cast<int>(add_data(snap.table_schema->fields[static_cast<size_t>(blob_fi)]));
      }
      out.schema->fields.push_back(blob->fields[static_cast<size_t>(bi)]);
      out.source.push_back({ColumnFrom::kBlob, out.folded.size()});
      out.folded.push_back(bi);
      continue;
    }
    out.schema->fields.push_back(snap.table_schema->fields[static_cast<size_t>(fi)]);
    out.source.push_back({ColumnFrom::kData, add_data(snap.table_schema->fields[static_cast<size_t>(fi)])});
  }
  out.file_types.resize(out.schema->fields.size());
  for (size_t i = 0; i < out.schema->fields.size(); ++i) {
    Field& f = out.schema->fields[i];
    auto ft = snap.file_types.find(f.name);
    if (ft != snap.file_types.end()) out.file_types[i] = ft->second;
    f.name = snap.LogicalName(f.name);
  }
  st.res.schema = out.schema;
  return Status::OK();
}

// ---- index pages ----
Status LoadFragmentList(LookupState& st, std::vector<int> to_load);

// The candidate fragments per key (bucket and key bounds), with the footer and key page index of
// each loaded (one round for those not loaded yet, without preload).
Status LoadFragments(LookupState& st) {
  const Index::Snapshot& snap = *st.snap;
  const Manifest& m = snap.manifest;
  const std::vector<KeyColumn>& kc = m.key;
  st.candidates.assign(st.keys.size(), {});
  std::vector<int> to_load;
  for (size_t i = 0; i < st.keys.size(); ++i) {
    const int32_t b = m.BucketOfKey(st.keys[i]);
    for (int fi : snap.by_bucket[static_cast<size_t>(b)]) {
      const FragmentState& f = *snap.fragments[static_cast<size_t>(fi)];
      if (f.entry.entries <= 0 || CompareKeys(kc, st.keys[i], f.entry.min_key) < 0 ||
          CompareKeys(kc, st.keys[i], f.entry.max_key) > 0) {
        continue;
      }
      st.candidates[i].push_back({fi, -1});
      to_load.push_back(fi);
    }
  }
  return LoadFragmentList(st, std::move(to_load));
}

Status LoadFragmentList(LookupState& st, std::vector<int> to_load) {
  const Index::Snapshot& snap = *st.snap;
  const Manifest& m = snap.manifest;
  std::sort(to_load.begin(), to_load.end());
  to_load.erase(std::unique(to_load.begin(), to_load.end()), to_load.end());
  std::vector<std::function<void()>> tasks;
  std::vector<Status> errors(to_load.size());
  std::vector<std::shared_ptr<CountingStore>> stores;
  for (size_t j = 0; j < to_load.size(); ++j) {
    FragmentState& f = *snap.fragments[static_cast<size_t>(to_load[j])];
    {
      std::lock_guard<std::mutex> lock(f.mu);
      if (f.loaded) continue;
    }
    auto cs = std::make_shared<CountingStore>(snap.index_store);
    stores.push_back(cs);
    tasks.push_back([&, j, cs, fp = &f] { errors[j] = Index::Impl::EnsureLoaded(*fp, m, cs, *st.impl->cache); });
  }
  st.impl->RunAll(std::move(tasks));
  RAP_ASSIGN_OR_RETURN(const int64_t req, FinishRound(errors, stores, &st.res.stats));
  // Footer, then page index; one round when each fragment took one request (format 2: meta_bytes).
  if (req > 0) st.rounds += req > static_cast<int64_t>(stores.size()) ? 2 : 1;
  return Status::OK();
}

// Expands each key's candidate fragments to candidate pages: key part 0 within the page's [min, max].
void ExpandPages(LookupState& st) {
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  for (size_t i = 0; i < st.keys.size(); ++i) {
    const KeyPart& key0 = st.keys[i].parts[0];
    std::vector<std::pair<int, int>> expanded;
    for (auto [fi, unused] : st.candidates[i]) {
      (void)unused;
      const FragmentState& f = *st.snap->fragments[static_cast<size_t>(fi)];
      // Pages are in key order: with bounds on every page, start at the first page whose max is
      // not below the key (binary search) and stop at the first whose min is above it.
      size_t first = 0;
      if (f.all_bounds) {
        first = static_cast<size_t>(
            std::partition_point(f.pages.begin(), f.pages.end(),
                                 [&](const KeyPage& kp) { return CompareKeyPart(kc[0].type, kp.max, key0) < 0; }) -
            f.pages.begin());
      }
      for (size_t p = first; p < f.pages.size(); ++p) {
        const KeyPage& kp = f.pages[p];
        if (f.all_bounds && CompareKeyPart(kc[0].type, key0, kp.min) < 0) break;
        if (kp.has_bounds &&
            (CompareKeyPart(kc[0].type, key0, kp.min) < 0 || CompareKeyPart(kc[0].type, key0, kp.max) > 0)) {
          continue;
        }
        expanded.push_back({fi, static_cast<int>(p)});
        st.pages[{fi, static_cast<int>(p)}] = nullptr;
      }
    }
    st.candidates[i] = std::move(expanded);
  }
}

PageKey CacheKey(const LookupState& st, int fi, int p) {
  return PageKey{st.snap->fragments[static_cast<size_t>(fi)]->cache_id, p};
}

// Reads pages `plist` of fragment `fi` through `store` into st.pages (under `mu`) and the page cache.
Status ReadFragmentPages(LookupState& st, int fi, const std::vector<int>& plist, io::ObjectStorePtr store,
                         std::mutex& mu) {
  const Index::Impl& impl = *st.impl;
  const FragmentState& f = *st.snap->fragments[static_cast<size_t>(fi)];
  read::FileReaderOptions ro;
  ro.object_info = f.info;
  // A key page's rows lie in every column chunk of the fragment (a dozen chunks with covering
  // data), a batch's pages in many: on a remote index they are planned as a lookup's data reads are
  // (LookupPlanOptions: the smallest gaps merged within a slack, then down to one wave): one key of
  // bench/peers' interleaved layout reads 232 KiB where merging every gap up to 1 MiB read 2 MiB
  // (docs/benchmarks/peers.md, "Run of 7 Dec 2026, evening"). A local index merges only small gaps
  // (kLocalGap).
  ro.plan = LookupPlanOptions(impl.options.plan);
  if (!ro.plan.policy && st.snap->index_store && !st.snap->index_store->is_remote()) {
    ro.plan.policy = plan::PlanPolicy::FixedGap(kLocalGap);
  }
  RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(std::move(store), f.path, ro));
  RAP_ASSIGN_OR_RETURN(read::Projection proj, reader->Project({}));
  std::map<int, std::vector<int>> by_rg;
  for (int p : plist) by_rg[f.pages[static_cast<size_t>(p)].rg].push_back(p);
  for (auto& [rg, ps] : by_rg) {
    // The pages of one row group decoded in ONE pass, then cut per page. Decoding each page on its
    // own restarts its column readers at the first fetched page, and the entries' nested columns
    // (cover locations, lists) have pages whose row count is unknown until their levels are
    // decoded, so every earlier fetched page was decompressed again: a batch of k keys on k pages
    // decoded O(k^2) pages (issue 36).
    std::sort(ps.begin(), ps.end(), [&](int a, int b) {
      return f.pages[static_cast<size_t>(a)].begin < f.pages[static_cast<size_t>(b)].begin;
    });
    std::vector<read::RowRange> ranges;
    int64_t want = 0;
    for (int p : ps) {
      const KeyPage& kp = f.pages[static_cast<size_t>(p)];
      ranges.push_back({kp.begin, kp.end});
      want += kp.end - kp.begin;
    }
    const read::RowSelection all = read::RowSelection::FromRanges(ranges);
    if (all.Count() != want) {
      return Status::Corrupt("index fragment " + f.path + ": key pages of row group " + std::to_string(rg) +
                             " overlap in the page directory");
    }
    RAP_ASSIGN_OR_RETURN(auto fetched, reader->FetchRowGroup(rg, all, proj));
    RAP_ASSIGN_OR_RETURN(RecordBatch b, fetched->Read(all, proj));
    if (b.num_rows != want) {
      return Status::Corrupt("index fragment " + f.path + ": row group " + std::to_string(rg) + " decoded " +
                             std::to_string(b.num_rows) + " rows of its key pages, expected " + std::to_string(want));
    }
    int64_t at = 0;  // rows of `b` before page p
    for (int p : ps) {
      const KeyPage& kp = f.pages[static_cast<size_t>(p)];
      const int64_t n = kp.end - kp.begin;
      RecordBatch page;
      page.schema = b.schema;
      page.num_rows = n;
      for (const ArrayPtr& c : b.columns) {
        // A compact copy when the batch holds several pages, so that a cached page owns (and the
        // cache counts) its own bytes; the first page (offset 0) keeps the batch's buffers, which
        // PageCache::BatchBytes then counts in full, as they stay allocated.
        ArrayPtr col = columnar::SliceArray(c, at, n);
        if (ps.size() > 1) {
          RAP_ASSIGN_OR_RETURN(col, columnar::ConcatArrays({col}));
        }
        page.columns.push_back(std::move(col));
      }
      at += n;
      auto shared = std::make_shared<const RecordBatch>(std::move(page));
      if (impl.options.page_cache_bytes > 0) impl.cache->Put(CacheKey(st, fi, p), shared, PageCache::BatchBytes(*shared));
      std::lock_guard<std::mutex> lock(mu);
      st.pages[{fi, p}] = shared;
    }
  }
  int64_t decoded = 0;
  for (const read::ColumnReadStats& cs : reader->stats().columns) decoded += cs.data_pages_read;
  std::lock_guard<std::mutex> lock(mu);
  st.res.stats.index_data_pages_decoded += decoded;
  return Status::OK();
}

// The candidate pages from the page cache, the others in one parallel round (a task per fragment).
Status ReadIndexPages(LookupState& st) {
  LookupStats& stats = st.res.stats;
  std::map<int, std::vector<int>> missing;  // fragment -> pages
  for (auto& [fp, batch] : st.pages) {
    if (st.impl->options.page_cache_bytes > 0) batch = st.impl->cache->Get(CacheKey(st, fp.first, fp.second));
    if (batch) {
      ++stats.index_page_cache_hits;
    } else {
      missing[fp.first].push_back(fp.second);
    }
  }
  std::vector<std::function<void()>> tasks;
  std::vector<Status> errors(missing.size());
  std::vector<std::shared_ptr<CountingStore>> stores;
  std::mutex mu;
  size_t j = 0;
  for (auto& [fi, plist] : missing) {
    auto cs = std::make_shared<CountingStore>(st.snap->index_store);
    stores.push_back(cs);
    stats.index_pages_read += static_cast<int64_t>(plist.size());
    tasks.push_back([&, j, cs, fi = fi, plist = plist] { errors[j] = ReadFragmentPages(st, fi, plist, cs, mu); });
    ++j;
  }
  st.impl->RunAll(std::move(tasks));
  RAP_ASSIGN_OR_RETURN(const int64_t req, FinishRound(errors, stores, &stats));
  if (req > 0) ++st.rounds;
  return Status::OK();
}

// ---- entries per key ----
// The entries of key `i` in its candidate pages (binary search for the first row equal to the key),
// checked against the file table, without those of removed files, by (file, first row).
Status FindKeyEntries(LookupState& st, size_t i) {
  const Manifest& m = st.snap->manifest;
  const std::vector<KeyColumn>& kc = m.key;
  std::vector<IndexEntry>& entries = st.entries[i];
  for (auto [fi, p] : st.candidates[i]) {
    const FragmentState& f = *st.snap->fragments[static_cast<size_t>(fi)];
    const RecordBatch& b = *st.pages.at({fi, p});
    int64_t lo = 0, hi = b.num_rows;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (CompareRow(b, f.layout, kc, mid, st.keys[i]) < 0) lo = mid + 1; else hi = mid;
    }
    for (int64_t r = lo; r < b.num_rows && CompareRow(b, f.layout, kc, r, st.keys[i]) == 0; ++r) {
      IndexEntry e;
      RAP_RETURN_NOT_OK(EntryAt(b, f.layout, kc, r, true, &e, f.path));
      RAP_ASSIGN_OR_RETURN(const FileEntry* fe, EntryFile(m, e, f.path));
      if (!fe) continue;  // removed from the table
      entries.push_back(std::move(e));
    }
  }
  std::sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) {
    return a.file != b.file ? a.file < b.file : a.first_row < b.first_row;
  });
  return Status::OK();
}

Status FindEntries(LookupState& st) {
  st.entries.assign(st.keys.size(), {});
  for (size_t i = 0; i < st.keys.size(); ++i) RAP_RETURN_NOT_OK(FindKeyEntries(st, i));
  return Status::OK();
}

// ---- deletion vectors of the files involved (cached per Index; the others in one round) ----
Status LoadDeletionVectors(LookupState& st) {
  const Manifest& m = st.snap->manifest;
  const Index::Impl& impl = *st.impl;
  std::vector<int32_t> need;
  for (auto& es : st.entries) {
    for (const IndexEntry& e : es) {
      const FileEntry& fe = m.files[static_cast<size_t>(e.file)];
      if (fe.deletion_vector && !st.deleted.count(e.file)) {
        std::lock_guard<std::mutex> lock(impl.dv_mu);
        auto it = impl.dvs.find(fe.deletion_vector->UniqueId());
        st.deleted[e.file] = it == impl.dvs.end() ? nullptr : it->second;
        if (!st.deleted[e.file]) need.push_back(e.file);
      }
    }
  }
  std::vector<std::function<void()>> tasks;
  std::vector<Status> errors(need.size());
  std::vector<std::shared_ptr<CountingStore>> stores;
  std::mutex mu;
  for (size_t j = 0; j < need.size(); ++j) {
    auto cs = std::make_shared<CountingStore>(st.snap->data_store);
    stores.push_back(cs);
    tasks.push_back([&, j, cs] {
      const FileEntry& fe = m.files[static_cast<size_t>(need[j])];
      auto rows = table::LoadDeletionVector(cs, st.snap->data_root, *fe.deletion_vector);
      if (!rows.ok()) {
        errors[j] = rows.status().WithContext(fe.path);
        return;
      }
      auto shared = std::make_shared<const std::vector<uint64_t>>(std::move(*rows));
      {
        std::lock_guard<std::mutex> lock(impl.dv_mu);
        impl.dvs[fe.deletion_vector->UniqueId()] = shared;
      }
      std::lock_guard<std::mutex> lock(mu);
      st.deleted[need[j]] = shared;
    });
  }
  impl.RunAll(std::move(tasks));
  RAP_ASSIGN_OR_RETURN(const int64_t req, FinishRound(errors, stores, &st.res.stats));
  if (req > 0) ++st.rounds;
  return Status::OK();
}

// ---- rows per key: page token, deletion vectors, limit ----
// The live rows of [begin, end) of `file` (without the rows its deletion vector names).
std::vector<read::RowRange> LiveRows(const LookupState& st, int32_t file, int64_t begin, int64_t end) {
  std::vector<read::RowRange> live;
  auto dit = st.deleted.find(file);
  if (dit != st.deleted.end() && dit->second) {
    const auto& del = *dit->second;
    auto it = std::lower_bound(del.begin(), del.end(), static_cast<uint64_t>(begin));
    int64_t at = begin;
    for (; it != del.end() && static_cast<int64_t>(*it) < end; ++it) {
      if (static_cast<int64_t>(*it) > at) live.push_back({at, static_cast<int64_t>(*it)});
      at = static_cast<int64_t>(*it) + 1;
    }
    if (at < end) live.push_back({at, end});
  } else {
    live.push_back({begin, end});
  }
  return live;
}

bool TakeEntryRows(LookupState& st, size_t key, const IndexEntry& e, int32_t after_file, int64_t after_row,
                   int64_t* left, RowCursor* last) {
  int64_t begin = e.first_row;
  const int64_t end = e.first_row + e.num_rows;
  if (e.file < after_file) return false;
  if (e.file == after_file) begin = std::max(begin, after_row + 1);
  if (begin >= end) return false;
  const std::vector<read::RowRange> live = LiveRows(st, e.file, begin, end);
  if (live.empty()) return false;
  if (*left == 0) return true;
  bool more = false;
  std::vector<read::RowRange> take;
  for (const read::RowRange& r : live) {
    if (*left == 0) {
      more = true;
      break;
    }
    const int64_t n = std::min(*left, r.end - r.begin);
    take.push_back({r.begin, r.begin + n});
    *left -= n;
    *last = {key, e.file, r.begin + n - 1};
    if (n < r.end - r.begin) more = true;
  }
  KeyPiece piece;
  piece.key = key;
  piece.entry = &e;
  piece.rows = read::RowSelection::FromRanges(std::move(take));
  st.pieces.push_back(std::move(piece));
  return more;
}

// The pieces of key `i`: its entries' live rows after its page token, up to the limit per key, and
// the next page token when rows are left.
void SelectKeyRows(LookupState& st, size_t i) {
  const PageToken& token = st.tokens[i];
  int64_t left = st.opt->limit_per_key < 0 ? INT64_MAX : st.opt->limit_per_key;
  RowCursor last;
  bool more = false;
  for (const IndexEntry& e : st.entries[i]) {
    if (TakeEntryRows(st, i, e, token.set ? token.file : -1, token.row, &left, &last)) {
      more = true;
      break;
    }
  }
  st.res.keys[i].key = st.keys[i];
  if (more) st.res.keys[i].next_page_token = MakeToken(last.file, last.row);
}

void SelectRows(LookupState& st) {
  st.res.keys.resize(st.keys.size());
  for (size_t i = 0; i < st.keys.size(); ++i) SelectKeyRows(st, i);
}

// ---- data ----
// Reads the data columns of every piece: none, from the hoisted or covering columns of the index
// when they hold every data column (and covering is allowed), else from the data files.
Result<internal::DataMode> ReadDataColumns(LookupState& st) {
  const Manifest& m = st.snap->manifest;
  const std::vector<std::string>& data_columns = st.out.data_columns;
  internal::DataRequest dr;
  dr.snap = st.snap.get();
  dr.impl = st.impl;
  dr.data_columns = data_columns;
  dr.data_schema = st.out.data_schema;
  dr.pieces = &st.pieces;
  auto all_in = [&](const std::vector<std::string>& set) {
    for (const std::string& c : data_columns) {
      if (std::find(set.begin(), set.end(), c) == set.end()) return false;
    }
    return true;
  };
  if (data_columns.empty()) {
    dr.mode = internal::DataMode::kNone;
  } else if (st.opt->use_cover && all_in(m.hoist)) {
    dr.mode = internal::DataMode::kHoisted;
  } else if (st.opt->use_cover && all_in(m.cover)) {
    dr.mode = internal::DataMode::kCovered;
  } else {
    dr.mode = internal::DataMode::kFull;
  }
  internal::DataStats ds;
  RAP_RETURN_NOT_OK(internal::ReadData(dr, &ds));
  LookupStats& stats = st.res.stats;
  st.rounds += ds.rounds;
  stats.requests += ds.requests;
  stats.bytes += ds.bytes;
  stats.data_files = ds.files;
  stats.covered_files = ds.covered_files;
  stats.data_pages_decoded = ds.pages_decoded;
  stats.data_page_cache_hits = ds.page_cache_hits;
  return dr.mode;
}

// ---- output ----
// Blobs decoded back into their folded columns, per piece.
Result<std::map<const KeyPiece*, std::vector<ArrayPtr>>> UnfoldBlobs(const LookupState& st) {
  std::map<const KeyPiece*, std::vector<ArrayPtr>> unfolded;
  if (st.out.blob_data < 0) return unfolded;
  for (const KeyPiece& p : st.pieces) {
    auto cols = parquet::DecodeBlob(*st.snap->blob, *p.columns[static_cast<size_t>(st.out.blob_data)], st.out.folded);
    if (!cols.ok()) {
      return cols.status().WithContext(st.snap->manifest.files[static_cast<size_t>(p.entry->file)].path);
    }
    unfolded[&p] = std::move(*cols);
  }
  return unfolded;
}

// One batch per key: key columns repeated, the others concatenated over the key's pieces.
Status AssembleBatches(LookupState& st, internal::DataMode mode) {
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  const Schema& schema = *st.out.schema;
  LookupStats& stats = st.res.stats;
  RAP_ASSIGN_OR_RETURN(auto unfolded, UnfoldBlobs(st));
  std::vector<std::vector<const KeyPiece*>> by_key(st.keys.size());
  for (const KeyPiece& p : st.pieces) by_key[p.key].push_back(&p);
  std::vector<std::string> type_names;  // with table types: the output types, to compare the decoded ones with
  if (st.snap->table_types) {
    for (const Field& f : schema.fields) type_names.push_back(f.type->ToString());
  }
  for (size_t i = 0; i < st.keys.size(); ++i) {
    int64_t n = 0;
    for (const KeyPiece* p : by_key[i]) n += p->rows.Count();
    RecordBatch& out = st.res.keys[i].rows;
    out.schema = st.out.schema;
    out.num_rows = n;
    for (size_t fc = 0; fc < schema.fields.size(); ++fc) {
      const Field& f = schema.fields[fc];
      const auto [from, at] = st.out.source[fc];
      if (from == ColumnFrom::kKey) {
        out.columns.push_back(RepeatKeyPart(kc[at].type, st.keys[i].parts[at], n));
        continue;
      }
      std::vector<ArrayPtr> parts;
      for (const KeyPiece* p : by_key[i]) parts.push_back(from == ColumnFrom::kData ? p->columns[at] : unfolded[p][at]);
      // A column the table types otherwise than its files (ApplyTableSchema: Spark's INT96 timestamps
      // in a Delta table) as a scan returns it.
      for (ArrayPtr& a : parts) {
        if (!type_names.empty() && a->type != f.type && a->type->ToString() != type_names[fc]) {
          RAP_ASSIGN_OR_RETURN(a, read::ConformArray(a, f.type, st.out.file_types[fc], f.name));
        }
      }
      if (parts.empty()) {
        RAP_ASSIGN_OR_RETURN(ArrayPtr e, columnar::MakeNullArray(f.type, 0));
        out.columns.push_back(e);
      } else if (parts.size() == 1) {
        out.columns.push_back(parts[0]);
      } else {
        RAP_ASSIGN_OR_RETURN(ArrayPtr c, ConcatArrays(parts));
        out.columns.push_back(c);
      }
    }
    stats.rows += n;
    if (mode == internal::DataMode::kHoisted && n > 0) ++stats.hoisted_only;
  }
  return Status::OK();
}

}  // namespace internal

using namespace internal;  // NOLINT(google-build-using-namespace): the phases above

Result<LookupResult> Index::Lookup(std::span<const Key> keys, const LookupOptions& opt) const {
  if (auto probe = impl_->TakeProbe(); probe.valid()) {
    return impl_->RunThenSettleProbe<LookupResult>(std::move(probe), [&] { return Lookup(keys, opt); });
  }
  const double t0 = NowSeconds();
  LookupState st;
  st.impl = impl_.get();
  st.snap = impl_->Current();
  st.keys = keys;
  st.opt = &opt;
  RAP_RETURN_NOT_OK(CheckKeys(st));
  RAP_RETURN_NOT_OK(ResolveColumns(st));
  RAP_RETURN_NOT_OK(LoadFragments(st));
  ExpandPages(st);
  RAP_RETURN_NOT_OK(ReadIndexPages(st));
  RAP_RETURN_NOT_OK(FindEntries(st));
  RAP_RETURN_NOT_OK(LoadDeletionVectors(st));
  SelectRows(st);
  RAP_ASSIGN_OR_RETURN(const internal::DataMode mode, ReadDataColumns(st));
  RAP_RETURN_NOT_OK(AssembleBatches(st, mode));
  st.res.stats.dependent_rounds = st.rounds;
  st.res.stats.seconds = NowSeconds() - t0;
  st.res.manifest_version = st.snap->manifest.version;
  return std::move(st.res);
}

}  // namespace rap::index
