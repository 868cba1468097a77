// Index::Lookup: keys -> candidate index pages (cached or one parallel round) -> entries -> rows per
// key (page tokens, limits, deletion vectors) -> data reads (lookup_data.cc) -> one batch per key.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "index_impl.h"
#include "lookup_plan.h"
#include "rap/read/scanner.h"
#include "rap/table/deletion_vector.h"
#include "rap/util/clock.h"

namespace rap::index {

using internal::KeyPiece;

namespace {

// Page token: "p1:<file ordinal>:<last returned row>".
struct Token {
  bool set = false;
  int32_t file = 0;
  int64_t row = 0;
};

Result<Token> ParseToken(const std::string& t) {
  Token tok;
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

}  // namespace

Result<LookupResult> Index::Lookup(std::span<const Key> keys, const LookupOptions& opt) const {
  const double t0 = NowSeconds();
  std::shared_ptr<const Snapshot> snap = impl_->Current();
  const Manifest& m = snap->manifest;
  const std::vector<KeyColumn>& kc = m.key;
  LookupResult res;
  LookupStats& stats = res.stats;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].parts.size() != kc.size()) {
      return Status::InvalidArgument("key " + std::to_string(i) + " has " + std::to_string(keys[i].parts.size()) +
                                     " part(s); this index's key has " + std::to_string(kc.size()));
    }
  }
  if (!opt.page_tokens.empty() && opt.page_tokens.size() != keys.size()) {
    return Status::InvalidArgument("page_tokens: give none or one per key (" + std::to_string(keys.size()) + "), got " +
                                   std::to_string(opt.page_tokens.size()));
  }
  std::vector<Token> tokens(keys.size());
  for (size_t i = 0; i < opt.page_tokens.size(); ++i) {
    RAP_ASSIGN_OR_RETURN(tokens[i], ParseToken(opt.page_tokens[i]));
  }

  // ---- output columns ----
  std::set<std::string> key_names;
  for (const KeyColumn& k : kc) key_names.insert(k.name);
  // A blob column stands for its folded columns (in its place); it can still be asked for by name.
  const parquet::BlobSpec* blob = snap->blob ? &*snap->blob : nullptr;
  std::vector<std::string> requested = opt.columns;
  if (requested.empty()) {
    for (const KeyColumn& k : kc) requested.push_back(k.name);
    if (snap->table_schema) {
      for (const Field& f : snap->table_schema->fields) {
        if (blob && f.name == blob->column) {
          for (const Field& b : blob->fields) {
            if (!key_names.count(b.name)) requested.push_back(b.name);
          }
        } else if (!key_names.count(f.name)) {
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
  auto schema = std::make_shared<Schema>();
  auto data_schema = std::make_shared<Schema>();
  std::vector<std::string> data_columns;
  // Where each output column comes from: a key part, a data column, or a folded blob field.
  enum class From { kKey, kData, kBlob };
  std::vector<std::pair<From, size_t>> source;
  std::vector<int> folded;  // blob field indexes, in output order
  int blob_data = -1;       // the blob's data column, when a folded field is asked for
  auto add_data = [&](const Field& f) {
    data_schema->fields.push_back(f);
    data_columns.push_back(f.name);
    return data_columns.size() - 1;
  };
  for (const std::string& c : out_names) {
    bool is_key = false;
    for (size_t k = 0; k < kc.size(); ++k) {
      if (kc[k].name == c) {
        schema->fields.push_back({c, ArrowTypeOf(kc[k].type), false});
        source.push_back({From::kKey, k});
        is_key = true;
      }
    }
    if (is_key) continue;
    const int fi = snap->table_schema ? snap->table_schema->FieldIndex(c) : -1;
    int bi = -1;
    for (size_t b = 0; blob && fi < 0 && b < blob->fields.size(); ++b) {
      if (blob->fields[b].name == c) bi = static_cast<int>(b);
    }
    if (fi < 0 && bi < 0) {
      return Status::NotFound("column '" + c + "' is not a column of the indexed table " + snap->info.table_url);
    }
    if (bi >= 0) {
      if (blob_data < 0) {
        const int blob_fi = snap->table_schema->FieldIndex(blob->column);
        if (blob_fi < 0) {
          return Status::Corrupt(snap->info.table_url + ": the blob metadata names column '" + blob->column +
                                 "', which the table does not have");
        }
        blob_data = static_cast<int>(add_data(snap->table_schema->fields[static_cast<size_t>(blob_fi)]));
      }
      schema->fields.push_back(blob->fields[static_cast<size_t>(bi)]);
      source.push_back({From::kBlob, folded.size()});
      folded.push_back(bi);
      continue;
    }
    schema->fields.push_back(snap->table_schema->fields[static_cast<size_t>(fi)]);
    source.push_back({From::kData, add_data(snap->table_schema->fields[static_cast<size_t>(fi)])});
  }
  res.schema = schema;

  // ---- index pages: the candidate page per (key, fragment) ----
  std::vector<std::vector<std::pair<int, int>>> candidates(keys.size());  // (fragment, page)
  std::vector<int> to_load;
  for (size_t i = 0; i < keys.size(); ++i) {
    const int32_t b = BucketOf(kc, keys[i], m.buckets);
    for (int fi : snap->by_bucket[static_cast<size_t>(b)]) {
      const FragmentState& f = *snap->fragments[static_cast<size_t>(fi)];
      if (f.entry.entries <= 0 || CompareKeys(kc, keys[i], f.entry.min_key) < 0 ||
          CompareKeys(kc, keys[i], f.entry.max_key) > 0) {
        continue;
      }
      candidates[i].push_back({fi, -1});
      to_load.push_back(fi);
    }
  }
  std::sort(to_load.begin(), to_load.end());
  to_load.erase(std::unique(to_load.begin(), to_load.end()), to_load.end());
  int rounds = 0;
  {
    // Fragments whose footer and key page index are not loaded yet (no preload): one round.
    std::vector<std::function<void()>> tasks;
    std::vector<Status> errors(to_load.size());
    std::vector<std::shared_ptr<CountingStore>> stores;
    for (size_t j = 0; j < to_load.size(); ++j) {
      FragmentState& f = *snap->fragments[static_cast<size_t>(to_load[j])];
      {
        std::lock_guard<std::mutex> lock(f.mu);
        if (f.loaded) continue;
      }
      auto cs = std::make_shared<CountingStore>(snap->index_store);
      stores.push_back(cs);
      tasks.push_back([&, j, cs, fp = &f] { errors[j] = Impl::EnsureLoaded(*fp, m, cs, *impl_->cache); });
    }
    impl_->RunAll(std::move(tasks));
    RAP_ASSIGN_OR_RETURN(const int64_t req, FinishRound(errors, stores, &stats));
    if (req > 0) rounds += 2;  // footer, then page index
  }
  // Expand to candidate pages: key0 within the page's [min, max].
  std::map<std::pair<int, int>, std::shared_ptr<const RecordBatch>> pages;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::pair<int, int>> expanded;
    for (auto [fi, unused] : candidates[i]) {
      (void)unused;
      const FragmentState& f = *snap->fragments[static_cast<size_t>(fi)];
      // Pages are in key order: with bounds on every page, start at the first page whose max is
      // not below the key (binary search) and stop at the first whose min is above it.
      size_t first = 0;
      if (f.all_bounds) {
        first = static_cast<size_t>(
            std::partition_point(f.pages.begin(), f.pages.end(),
                                 [&](const KeyPage& kp) { return CompareKeyPart(kc[0].type, kp.max, keys[i].parts[0]) < 0; }) -
            f.pages.begin());
      }
      for (size_t p = first; p < f.pages.size(); ++p) {
        const KeyPage& kp = f.pages[p];
        if (f.all_bounds && CompareKeyPart(kc[0].type, keys[i].parts[0], kp.min) < 0) break;
        if (kp.has_bounds && (CompareKeyPart(kc[0].type, keys[i].parts[0], kp.min) < 0 ||
                              CompareKeyPart(kc[0].type, keys[i].parts[0], kp.max) > 0)) {
          continue;
        }
        expanded.push_back({fi, static_cast<int>(p)});
        pages[{fi, static_cast<int>(p)}] = nullptr;
      }
    }
    candidates[i] = std::move(expanded);
  }
  auto cache_key = [&](int fi, int p) {
    return PageKey{snap->fragments[static_cast<size_t>(fi)]->cache_id, p};
  };
  std::map<int, std::vector<int>> missing;  // fragment -> pages
  for (auto& [fp, batch] : pages) {
    if (impl_->options.page_cache_bytes > 0) batch = impl_->cache->Get(cache_key(fp.first, fp.second));
    if (batch) {
      ++stats.index_page_cache_hits;
    } else {
      missing[fp.first].push_back(fp.second);
    }
  }
  {
    std::vector<std::function<void()>> tasks;
    std::vector<Status> errors(missing.size());
    std::vector<std::shared_ptr<CountingStore>> stores;
    std::mutex mu;
    size_t j = 0;
    for (auto& [fi, plist] : missing) {
      auto cs = std::make_shared<CountingStore>(snap->index_store);
      stores.push_back(cs);
      stats.index_pages_read += static_cast<int64_t>(plist.size());
      tasks.push_back([&, j, cs, fi = fi, plist = plist] {
        errors[j] = [&]() -> Status {
          const FragmentState& f = *snap->fragments[static_cast<size_t>(fi)];
          read::FileReaderOptions ro;
          ro.object_info = f.info;
          ro.plan = impl_->options.plan;
          RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(cs, f.path, ro));
          RAP_ASSIGN_OR_RETURN(read::Projection proj, reader->Project({}));
          std::map<int, std::vector<int>> by_rg;
          for (int p : plist) by_rg[f.pages[static_cast<size_t>(p)].rg].push_back(p);
          for (auto& [rg, ps] : by_rg) {
            std::vector<read::RowRange> ranges;
            for (int p : ps) ranges.push_back({f.pages[static_cast<size_t>(p)].begin, f.pages[static_cast<size_t>(p)].end});
            RAP_ASSIGN_OR_RETURN(auto fetched, reader->FetchRowGroup(rg, read::RowSelection::FromRanges(ranges), proj));
            for (int p : ps) {
              const KeyPage& kp = f.pages[static_cast<size_t>(p)];
              RAP_ASSIGN_OR_RETURN(RecordBatch b, fetched->Read(read::RowSelection::Range(kp.begin, kp.end), proj));
              if (b.num_rows != kp.end - kp.begin) {
                return Status::Corrupt("index fragment " + f.path + ": page " + std::to_string(p) + " decoded " +
                                       std::to_string(b.num_rows) + " rows, expected " +
                                       std::to_string(kp.end - kp.begin));
              }
              auto shared = std::make_shared<const RecordBatch>(std::move(b));
              if (impl_->options.page_cache_bytes > 0) {
                impl_->cache->Put(cache_key(fi, p), shared, PageCache::BatchBytes(*shared));
              }
              std::lock_guard<std::mutex> lock(mu);
              pages[{fi, p}] = shared;
            }
          }
          return Status::OK();
        }();
      });
      ++j;
    }
    impl_->RunAll(std::move(tasks));
    RAP_ASSIGN_OR_RETURN(const int64_t req, FinishRound(errors, stores, &stats));
    if (req > 0) ++rounds;
  }

  // ---- entries per key ----
  std::vector<std::vector<IndexEntry>> entries(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    for (auto [fi, p] : candidates[i]) {
      const FragmentState& f = *snap->fragments[static_cast<size_t>(fi)];
      const RecordBatch& b = *pages.at({fi, p});
      int64_t lo = 0, hi = b.num_rows;
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (CompareRow(b, f.layout, kc, mid, keys[i]) < 0) lo = mid + 1; else hi = mid;
      }
      for (int64_t r = lo; r < b.num_rows && CompareRow(b, f.layout, kc, r, keys[i]) == 0; ++r) {
        IndexEntry e;
        RAP_RETURN_NOT_OK(EntryAt(b, f.layout, kc, r, true, &e, f.path));
        if (e.file < 0 || static_cast<size_t>(e.file) >= m.files.size()) {
          return Status::Corrupt("index fragment " + f.path + ": an entry names file ordinal " + std::to_string(e.file) +
                                 ", the file table has " + std::to_string(m.files.size()));
        }
        const FileEntry& fe = m.files[static_cast<size_t>(e.file)];
        if (fe.removed) continue;
        if (e.first_row + e.num_rows > fe.num_rows) {
          return Status::Corrupt("index fragment " + f.path + ": an entry names rows [" + std::to_string(e.first_row) +
                                 ", " + std::to_string(e.first_row + e.num_rows) + ") of " + fe.path + ", which has " +
                                 std::to_string(fe.num_rows));
        }
        entries[i].push_back(std::move(e));
      }
    }
    std::sort(entries[i].begin(), entries[i].end(), [](const IndexEntry& a, const IndexEntry& b) {
      return a.file != b.file ? a.file < b.file : a.first_row < b.first_row;
    });
  }

  // ---- deletion vectors of the files involved (cached per Index) ----
  std::map<int32_t, std::shared_ptr<const std::vector<uint64_t>>> deleted;
  {
    std::vector<int32_t> need;
    for (auto& es : entries) {
      for (const IndexEntry& e : es) {
        const FileEntry& fe = m.files[static_cast<size_t>(e.file)];
        if (fe.deletion_vector && !deleted.count(e.file)) {
          std::lock_guard<std::mutex> lock(impl_->dv_mu);
          auto it = impl_->dvs.find(fe.deletion_vector->UniqueId());
          deleted[e.file] = it == impl_->dvs.end() ? nullptr : it->second;
          if (!deleted[e.file]) need.push_back(e.file);
        }
      }
    }
    std::vector<std::function<void()>> tasks;
    std::vector<Status> errors(need.size());
    std::vector<std::shared_ptr<CountingStore>> stores;
    std::mutex mu;
    for (size_t j = 0; j < need.size(); ++j) {
      auto cs = std::make_shared<CountingStore>(snap->data_store);
      stores.push_back(cs);
      tasks.push_back([&, j, cs] {
        const FileEntry& fe = m.files[static_cast<size_t>(need[j])];
        auto rows = table::LoadDeletionVector(cs, snap->data_root, *fe.deletion_vector);
        if (!rows.ok()) {
          errors[j] = rows.status().WithContext(fe.path);
          return;
        }
        auto shared = std::make_shared<const std::vector<uint64_t>>(std::move(*rows));
        {
          std::lock_guard<std::mutex> lock(impl_->dv_mu);
          impl_->dvs[fe.deletion_vector->UniqueId()] = shared;
        }
        std::lock_guard<std::mutex> lock(mu);
        deleted[need[j]] = shared;
      });
    }
    impl_->RunAll(std::move(tasks));
    RAP_ASSIGN_OR_RETURN(const int64_t req, FinishRound(errors, stores, &stats));
    if (req > 0) ++rounds;
  }

  // ---- rows per key: page token, deletion vectors, limit ----
  std::vector<KeyPiece> pieces;
  res.keys.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    int64_t left = opt.limit_per_key < 0 ? INT64_MAX : opt.limit_per_key;
    int32_t last_file = -1;
    int64_t last_row = -1;
    bool more = false;
    for (const IndexEntry& e : entries[i]) {
      int64_t begin = e.first_row;
      const int64_t end = e.first_row + e.num_rows;
      if (tokens[i].set) {
        if (e.file < tokens[i].file) continue;
        if (e.file == tokens[i].file) begin = std::max(begin, tokens[i].row + 1);
      }
      if (begin >= end) continue;
      // Live rows of [begin, end).
      std::vector<read::RowRange> live;
      auto dit = deleted.find(e.file);
      if (dit != deleted.end() && dit->second) {
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
      if (live.empty()) continue;
      if (left == 0) {
        more = true;
        break;
      }
      std::vector<read::RowRange> take;
      for (const read::RowRange& r : live) {
        if (left == 0) {
          more = true;
          break;
        }
        const int64_t n = std::min(left, r.end - r.begin);
        take.push_back({r.begin, r.begin + n});
        left -= n;
        last_file = e.file;
        last_row = r.begin + n - 1;
        if (n < r.end - r.begin) more = true;
      }
      KeyPiece piece;
      piece.key = i;
      piece.entry = &e;
      piece.rows = read::RowSelection::FromRanges(std::move(take));
      pieces.push_back(std::move(piece));
      if (more) break;
    }
    res.keys[i].key = keys[i];
    if (more) res.keys[i].next_page_token = MakeToken(last_file, last_row);
  }

  // ---- data ----
  internal::DataRequest dr;
  dr.snap = snap.get();
  dr.impl = impl_.get();
  dr.data_columns = data_columns;
  dr.data_schema = data_schema;
  dr.pieces = &pieces;
  auto all_in = [&](const std::vector<std::string>& set) {
    for (const std::string& c : data_columns) {
      if (std::find(set.begin(), set.end(), c) == set.end()) return false;
    }
    return true;
  };
  if (data_columns.empty()) {
    dr.mode = internal::DataMode::kNone;
  } else if (opt.use_cover && all_in(m.hoist)) {
    dr.mode = internal::DataMode::kHoisted;
  } else if (opt.use_cover && all_in(m.cover)) {
    dr.mode = internal::DataMode::kCovered;
  } else {
    dr.mode = internal::DataMode::kFull;
  }
  internal::DataStats ds;
  RAP_RETURN_NOT_OK(internal::ReadData(dr, &ds));
  rounds += ds.rounds;
  stats.requests += ds.requests;
  stats.bytes += ds.bytes;
  stats.data_files = ds.files;
  stats.covered_files = ds.covered_files;

  // ---- blobs decoded back into their folded columns ----
  std::map<const KeyPiece*, std::vector<ArrayPtr>> unfolded;
  if (blob_data >= 0) {
    for (const KeyPiece& p : pieces) {
      auto cols = parquet::DecodeBlob(*blob, *p.columns[static_cast<size_t>(blob_data)], folded);
      if (!cols.ok()) {
        return cols.status().WithContext(snap->manifest.files[static_cast<size_t>(p.entry->file)].path);
      }
      unfolded[&p] = std::move(*cols);
    }
  }

  // ---- one batch per key ----
  std::vector<std::vector<const KeyPiece*>> by_key(keys.size());
  for (const KeyPiece& p : pieces) by_key[p.key].push_back(&p);
  for (size_t i = 0; i < keys.size(); ++i) {
    int64_t n = 0;
    for (const KeyPiece* p : by_key[i]) n += p->rows.Count();
    RecordBatch& out = res.keys[i].rows;
    out.schema = schema;
    out.num_rows = n;
    for (size_t fc = 0; fc < schema->fields.size(); ++fc) {
      const Field& f = schema->fields[fc];
      const auto [from, at] = source[fc];
      if (from == From::kKey) {
        out.columns.push_back(RepeatKeyPart(kc[at].type, keys[i].parts[at], n));
        continue;
      }
      std::vector<ArrayPtr> parts;
      for (const KeyPiece* p : by_key[i]) parts.push_back(from == From::kData ? p->columns[at] : unfolded[p][at]);
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
    if (dr.mode == internal::DataMode::kHoisted && n > 0) ++stats.hoisted_only;
  }
  stats.dependent_rounds = rounds;
  stats.seconds = NowSeconds() - t0;
  return res;
}

}  // namespace rap::index
