// Merge-on-read of a Paimon primary-key bucket (seed 001): the bucket's files grouped into sorted
// runs (every level-0 file its own run; the files of one level >= 1 one run, in min-key order),
// merged by the primary key through read::MergeReader's loser tree — which warms the first file of
// every run, all runs at once, before the merge begins — reading only the key columns, the
// `_SEQUENCE_NUMBER` and the `_VALUE_KIND` of each row. Of the rows of one key the merge engine keeps
// one: `deduplicate` the highest sequence number, dropped when it is a -U or -D row; `first-row`
// the lowest sequence number among the +I/+U rows. Every other row is a deleted row of its file.
#include <algorithm>
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "rap/read/merge_reader.h"
#include "rap/read/orc_file_reader.h"
#include "table/paimon/paimon_table.h"

namespace rap::table::paimon {

namespace {

constexpr int kRowIdShift = 40;  // read::ScanBatch::row_ids: file ordinal * 2^40 + row
constexpr size_t kMergeThreads = 4;  // buckets merged at once (each merge warms up to 8 runs at once)
constexpr uint64_t kMaxIndexFileBytes = uint64_t{256} << 20;

Result<int64_t> IntAt(const ArrayData& a, int64_t i, const char* column) {
  if (a.IsNull(i)) return Status::Corrupt(fmt::format("{} is null in row {} of a merged batch", column, i));
  switch (a.type->id) {
    case TypeId::kInt8: return a.values<int8_t>()[i];
    case TypeId::kInt16: return a.values<int16_t>()[i];
    case TypeId::kInt32: return a.values<int32_t>()[i];
    case TypeId::kInt64: return a.values<int64_t>()[i];
    default: return Status::Corrupt(fmt::format("{} has type {}, not an integer", column, a.type->ToString()));
  }
}

// The sorted runs of a bucket, in this order: level-0 files (oldest first), then levels 1, 2, ...
std::vector<std::vector<const BucketFile*>> SortedRuns(const Bucket& b, const std::vector<std::string>& key_types,
                                                       const std::string& where) {
  std::vector<std::vector<const BucketFile*>> runs;
  std::vector<const BucketFile*> level0;
  std::map<int32_t, std::vector<const BucketFile*>> levels;
  for (const BucketFile& f : b.files) (f.meta.level == 0 ? level0 : levels[f.meta.level]).push_back(&f);
  std::sort(level0.begin(), level0.end(), [](const BucketFile* x, const BucketFile* y) {
    return x->meta.max_sequence_number < y->meta.max_sequence_number;
  });
  for (const BucketFile* f : level0) runs.push_back({f});
  for (auto& [level, files] : levels) {
    // One run ordered by min key; when a key does not decode, each file its own run (the merge is the
    // same, only more runs are warmed and compared).
    std::vector<std::pair<std::vector<Datum>, const BucketFile*>> keyed;
    bool decoded = true;
    for (const BucketFile* f : files) {
      auto k = DecodeBinaryRow(f->meta.min_key, key_types, where + ": " + f->meta.file_name + " _MIN_KEY");
      if (!k.ok()) {
        decoded = false;
        break;
      }
      keyed.emplace_back(std::move(*k), f);
    }
    if (!decoded) {
      for (const BucketFile* f : files) runs.push_back({f});
      continue;
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) {
      for (size_t i = 0; i < x.first.size() && i < y.first.size(); ++i) {
        const int c = CompareDatum(x.first[i], y.first[i]);
        if (c != 0) return c < 0;
      }
      return false;
    });
    std::vector<const BucketFile*> run;
    for (auto& [k, f] : keyed) run.push_back(f);
    runs.push_back(std::move(run));
  }
  return runs;
}

Status MergeBucket(const TableSnapshot& snapshot, const PaimonState& state, Bucket& b, std::mutex& counters_mu) {
  const std::string where = fmt::format("{}: bucket {}", snapshot.root, b.bucket);
  for (const BucketFile& f : b.files) {
    const bool parquet = f.path.size() >= 8 && f.path.compare(f.path.size() - 8, 8, ".parquet") == 0;
    if (!parquet && !read::IsOrcPath(f.path)) {
      return Status::NotSupported(fmt::format(
          "{}: {} is neither a Parquet nor an ORC file; rap merges Paimon primary-key buckets of Parquet and ORC "
          "files only",
          where, f.path));
    }
  }
  // The deletion vectors' rows are left out of the merge (Paimon applies them to each file's reader).
  std::map<std::string, std::string> index_files;
  std::map<const BucketFile*, std::vector<uint64_t>> dv_rows;
  int64_t dv_files = 0, dv_total = 0;
  for (const BucketFile& f : b.files) {
    if (!f.dv) continue;
    RAP_ASSIGN_OR_RETURN(dv_rows[&f], LoadDeletionVector(snapshot, f, &index_files));
    ++dv_files;
    dv_total += static_cast<int64_t>(dv_rows[&f].size());
  }
  const std::vector<std::vector<const BucketFile*>> groups = SortedRuns(b, state.key_types, where);
  std::vector<read::MergeRun> runs;
  std::vector<const BucketFile*> by_ordinal;
  for (const auto& g : groups) {
    read::MergeRun run;
    for (const BucketFile* f : g) {
      read::ScanFile sf;
      sf.path = f->path;
      sf.size = static_cast<uint64_t>(f->meta.file_size);
      run.files.push_back(std::move(sf));
      by_ordinal.push_back(f);
    }
    runs.push_back(std::move(run));
  }
  read::MergeOptions mo;
  mo.key_columns = state.key_columns;
  mo.columns = state.key_columns;
  mo.columns.push_back("_SEQUENCE_NUMBER");
  mo.columns.push_back("_VALUE_KIND");
  const size_t nk = state.key_columns.size();
  RAP_ASSIGN_OR_RETURN(auto merge, read::MergeReader::Make(snapshot.store, std::move(runs), std::move(mo)));

  const bool first_row = state.merge_engine == "first-row";
  std::vector<std::vector<uint64_t>> keep(by_ordinal.size());
  std::vector<const std::vector<uint64_t>*> dv_of(by_ordinal.size(), nullptr);
  for (size_t o = 0; o < by_ordinal.size(); ++o) {
    if (auto it = dv_rows.find(by_ordinal[o]); it != dv_rows.end()) dv_of[o] = &it->second;
  }
  std::vector<int64_t> seen(by_ordinal.size(), 0);
  struct Best {
    bool has = false;
    int64_t seq = 0;
    int64_t kind = 0;
    uint64_t row_id = 0;
  } best;
  auto finish_key = [&] {
    if (best.has && (best.kind == 0 || best.kind == 2)) {
      keep[best.row_id >> kRowIdShift].push_back(best.row_id & ((uint64_t{1} << kRowIdShift) - 1));
    }
    best = Best{};
  };
  RecordBatch prev;
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<read::ScanBatch> batch, merge->NextWithRowIds());
    if (!batch) break;
    const RecordBatch& rb = batch->batch;
    if (rb.columns.size() != nk + 2 || batch->row_ids.size() != static_cast<size_t>(rb.num_rows)) {
      return Status::Internal(where + ": a merged batch without its key, sequence number and row kind");
    }
    for (int64_t i = 0; i < rb.num_rows; ++i) {
      const RecordBatch& pb = i == 0 ? prev : rb;
      const int64_t pi = i == 0 ? prev.num_rows - 1 : i - 1;
      bool same = pi >= 0;
      for (size_t k = 0; same && k < nk; ++k) {
        same = read::CompareKeyValues(*pb.columns[k], pi, *rb.columns[k], i) == 0;
      }
      if (!same) finish_key();
      const uint64_t row_id = batch->row_ids[static_cast<size_t>(i)];
      const uint64_t ordinal = row_id >> kRowIdShift;
      if (ordinal >= by_ordinal.size()) return Status::Internal(where + ": a row id past the bucket's files");
      ++seen[ordinal];
      const uint64_t row = row_id & ((uint64_t{1} << kRowIdShift) - 1);
      if (dv_of[ordinal] && std::binary_search(dv_of[ordinal]->begin(), dv_of[ordinal]->end(), row)) continue;
      RAP_ASSIGN_OR_RETURN(int64_t seq, IntAt(*rb.columns[nk], i, "_SEQUENCE_NUMBER"));
      RAP_ASSIGN_OR_RETURN(int64_t kind, IntAt(*rb.columns[nk + 1], i, "_VALUE_KIND"));
      if (kind < 0 || kind > 3) {
        return Status::Corrupt(fmt::format("{}: row {} has _VALUE_KIND {} (0 +I, 1 -U, 2 +U, 3 -D)",
                                           by_ordinal[ordinal]->path, row_id & ((uint64_t{1} << kRowIdShift) - 1),
                                           kind));
      }
      if (first_row) {
        if ((kind == 0 || kind == 2) && (!best.has || seq < best.seq)) best = Best{true, seq, kind, row_id};
      } else if (!best.has || seq >= best.seq) {
        best = Best{true, seq, kind, row_id};
      }
    }
    if (rb.num_rows > 0) prev = rb;
  }
  finish_key();
  int64_t deleted_total = 0;
  for (size_t o = 0; o < by_ordinal.size(); ++o) {
    const BucketFile& f = *by_ordinal[o];
    if (seen[o] != f.meta.row_count) {
      return Status::Corrupt(fmt::format("{}: has {} rows, its manifest entry says {}", f.path, seen[o],
                                         f.meta.row_count));
    }
    std::vector<uint64_t>& k = keep[o];
    std::sort(k.begin(), k.end());
    std::vector<uint64_t> deleted;
    size_t j = 0;
    for (uint64_t r = 0; r < static_cast<uint64_t>(f.meta.row_count); ++r) {
      if (j < k.size() && k[j] == r) {
        ++j;
      } else {
        deleted.push_back(r);
      }
    }
    deleted_total += static_cast<int64_t>(deleted.size());
    b.deleted[f.path] = std::move(deleted);
  }
  const read::MergeStats& ms = merge->stats();
  std::lock_guard<std::mutex> lock(counters_mu);
  state.counters.buckets_merged += 1;
  state.counters.runs += ms.runs;
  state.counters.runs_warmed += ms.runs_warmed;
  state.counters.files += ms.files;
  state.counters.rows_in += ms.rows_in;
  state.counters.rows_deleted += deleted_total - dv_total;
  state.counters.deletion_vectors += dv_files;
  state.counters.rows_dv_deleted += dv_total;
  return Status::OK();
}

// A bucket read without a merge: each file's deleted rows are its deletion vector's.
Status LoadBucketVectors(const TableSnapshot& snapshot, const PaimonState& state, Bucket& b, std::mutex& counters_mu) {
  std::map<std::string, std::string> index_files;
  int64_t files = 0, rows = 0;
  for (const BucketFile& f : b.files) {
    RAP_ASSIGN_OR_RETURN(std::vector<uint64_t> deleted, LoadDeletionVector(snapshot, f, &index_files));
    if (f.dv) ++files;
    rows += static_cast<int64_t>(deleted.size());
    b.deleted[f.path] = std::move(deleted);
  }
  std::lock_guard<std::mutex> lock(counters_mu);
  state.counters.deletion_vectors += files;
  state.counters.rows_dv_deleted += rows;
  return Status::OK();
}

}  // namespace

Result<std::vector<uint64_t>> LoadDeletionVector(const TableSnapshot& snapshot, const BucketFile& file,
                                                 std::map<std::string, std::string>* index_files) {
  if (!file.dv) return std::vector<uint64_t>{};
  const std::string& path = file.dv->index_path;
  auto it = index_files->find(path);
  if (it == index_files->end()) {
    auto bytes = ReadObject(snapshot.store, path, kMaxIndexFileBytes);
    if (!bytes.ok()) {
      return Status(bytes.status().code(), "deletion vector of " + file.path + ": index file " + path + ": " +
                                               bytes.status().message());
    }
    it = index_files->emplace(path, std::move(*bytes)).first;
  }
  const std::string& b = it->second;
  const uint64_t rows = static_cast<uint64_t>(file.meta.row_count);
  RAP_ASSIGN_OR_RETURN(std::vector<uint64_t> deleted,
                       ParseDeletionVector(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()),
                                           file.dv->range, rows, path));
  if (!deleted.empty() && deleted.back() >= rows) {
    return Status::Corrupt(fmt::format("{}: the deletion vector of {} deletes row {}; the file has {} rows (manifest)",
                                       path, file.path, deleted.back(), rows));
  }
  return deleted;
}

Result<std::vector<uint64_t>> BucketDeletedRows(const TableSnapshot& snapshot, const PaimonState& state,
                                                const std::string& path, MergeAhead ahead) {
  auto it = state.bucket_of.find(path);
  if (it == state.bucket_of.end()) return Status::Internal(path + ": not a live file of the Paimon snapshot");
  std::lock_guard<std::mutex> lock(state.mu);
  Bucket& b = state.buckets[it->second];
  if (!b.needs_merge && !b.has_dv) return std::vector<uint64_t>{};
  if (!b.merged) {
    // This bucket and others still unmerged are merged now, several at once: every one (kEveryBucket),
    // or this one and the ones after it in file order (kFromThisBucket: the scan reaches them next).
    // A scan's first bucket is merged alone, so its first batch waits for one merge only.
    auto pending = [](const Bucket& x) { return (x.needs_merge || x.has_dv) && !x.merged; };
    std::vector<Bucket*> todo{&b};
    const bool first = std::none_of(state.buckets.begin(), state.buckets.end(),
                                    [](const Bucket& x) { return x.merged; });
    const size_t limit = ahead == MergeAhead::kEveryBucket ? state.buckets.size() : first ? 1 : kMergeThreads;
    auto at = std::find(state.scan_order.begin(), state.scan_order.end(), it->second);
    if (ahead == MergeAhead::kEveryBucket || at == state.scan_order.end()) at = state.scan_order.begin();
    for (; at != state.scan_order.end() && todo.size() < limit; ++at) {
      if (*at != it->second && pending(state.buckets[*at])) todo.push_back(&state.buckets[*at]);
    }
    std::mutex counters_mu;
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k = next++; k < todo.size(); k = next++) {
        todo[k]->merge_status = todo[k]->needs_merge ? MergeBucket(snapshot, state, *todo[k], counters_mu)
                                                     : LoadBucketVectors(snapshot, state, *todo[k], counters_mu);
        todo[k]->merged = true;
      }
    };
    std::vector<std::thread> threads;
    const size_t n = std::min(todo.size(), kMergeThreads);
    for (size_t t = 1; t < n; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
  }
  RAP_RETURN_NOT_OK(b.merge_status);
  auto d = b.deleted.find(path);
  if (d == b.deleted.end()) return Status::Internal(path + ": not merged with its bucket");
  return d->second;
}

}  // namespace rap::table::paimon
