// Index::Locate: key ranges -> the fragments that can hold them (an exact key: its bucket's) -> the
// index pages whose key0 [min, max] overlaps a range (one parallel round) -> the entries in a range ->
// per live file, the union of their rows. No data is read and no deletion vector applied: the caller
// (an indexed scan, rap/index/indexed_scan.h) reads the rows through the table's own deletes.
#include <algorithm>
#include <set>

#include "index/index_impl.h"
#include "index/lookup_plan.h"
#include "rap/util/clock.h"

namespace rap::index {

namespace {

using internal::LookupState;

// A range that is one full key (both bounds inclusive and equal): its bucket holds every entry.
bool IsExactKey(const std::vector<KeyColumn>& kc, const KeyRange& r) {
  return r.lo && r.hi && r.lo->inclusive && r.hi->inclusive && r.lo->key.parts.size() == kc.size() &&
         r.hi->key.parts.size() == kc.size() && CompareKeys(kc, r.lo->key, r.hi->key) == 0;
}

Status CheckRange(const std::vector<KeyColumn>& kc, const KeyRange& r) {
  for (const std::optional<KeyBound>* b : {&r.lo, &r.hi}) {
    if (*b && ((*b)->key.parts.empty() || (*b)->key.parts.size() > kc.size())) {
      return Status::InvalidArgument("locate: a range bound gives " + std::to_string((*b)->key.parts.size()) +
                                     " key part(s); the index key has " + std::to_string(kc.size()));
    }
  }
  return Status::OK();
}

// The fragments that can hold keys of range `r`.
std::vector<int> FragmentsOf(const Index::Snapshot& snap, const KeyRange& r) {
  const Manifest& m = snap.manifest;
  std::vector<int> out;
  auto consider = [&](int fi) {
    const FragmentEntry& e = snap.fragments[static_cast<size_t>(fi)]->entry;
    if (e.entries > 0 && RangeOverlaps(m.key, r, e.min_key, e.max_key)) out.push_back(fi);
  };
  if (IsExactKey(m.key, r)) {
    const int32_t b = m.BucketOfKey(r.lo->key);
    if (b >= 0 && static_cast<size_t>(b) < snap.by_bucket.size()) {
      for (int fi : snap.by_bucket[static_cast<size_t>(b)]) consider(fi);
    }
    return out;
  }
  for (size_t fi = 0; fi < snap.fragments.size(); ++fi) consider(static_cast<int>(fi));
  return out;
}

// The entries of one page in any of its ranges, as rows per file ordinal.
Status PageEntries(const LookupState& st, int fi, int p, const std::vector<const KeyRange*>& ranges,
                   std::map<int32_t, std::vector<read::RowRange>>* rows, int64_t* entries) {
  const Manifest& m = st.snap->manifest;
  const FragmentState& f = *st.snap->fragments[static_cast<size_t>(fi)];
  const RecordBatch& b = *st.pages.at({fi, p});
  for (int64_t r = 0; r < b.num_rows; ++r) {
    IndexEntry e;
    RAP_RETURN_NOT_OK(EntryAt(b, f.layout, m.key, r, false, &e, f.path));
    bool in = false;
    for (const KeyRange* kr : ranges) in = in || KeyInRange(m.key, e.key, *kr);
    if (!in) continue;
    if (e.file < 0 || static_cast<size_t>(e.file) >= m.files.size()) {
      return Status::Corrupt("index fragment " + f.path + ": an entry names file ordinal " + std::to_string(e.file) +
                             ", the file table has " + std::to_string(m.files.size()));
    }
    const FileEntry& fe = m.files[static_cast<size_t>(e.file)];
    if (fe.removed) continue;
    if (e.num_rows <= 0 || e.first_row < 0 || e.first_row + e.num_rows > fe.num_rows) {
      return Status::Corrupt("index fragment " + f.path + ": an entry names rows [" + std::to_string(e.first_row) +
                             ", " + std::to_string(e.first_row + e.num_rows) + ") of " + fe.path + ", which has " +
                             std::to_string(fe.num_rows));
    }
    (*rows)[e.file].push_back({e.first_row, e.first_row + e.num_rows});
    ++*entries;
  }
  return Status::OK();
}

}  // namespace

Result<LocatedRows> Index::Locate(std::span<const KeyRange> ranges) const {
  if (auto probe = impl_->TakeProbe(); probe.valid()) {
    return impl_->RunThenSettleProbe<LocatedRows>(std::move(probe), [&] { return Locate(ranges); });
  }
  const double t0 = NowSeconds();
  LookupState st;
  st.impl = impl_.get();
  st.snap = impl_->Current();
  const Manifest& m = st.snap->manifest;
  LocatedRows out;
  out.manifest = std::shared_ptr<const Manifest>(st.snap, &st.snap->manifest);
  std::map<std::pair<int, int>, std::vector<const KeyRange*>> page_ranges;  // (fragment, page) -> ranges
  std::vector<std::vector<int>> fragments(ranges.size());
  std::vector<int> to_load;
  for (size_t i = 0; i < ranges.size(); ++i) {
    RAP_RETURN_NOT_OK(CheckRange(m.key, ranges[i]));
    fragments[i] = FragmentsOf(*st.snap, ranges[i]);
    to_load.insert(to_load.end(), fragments[i].begin(), fragments[i].end());
  }
  std::set<int> used(to_load.begin(), to_load.end());
  out.fragments = static_cast<int64_t>(used.size());
  RAP_RETURN_NOT_OK(internal::LoadFragmentList(st, std::move(to_load)));
  for (size_t i = 0; i < ranges.size(); ++i) {
    for (int fi : fragments[i]) {
      std::vector<int> pages;
      internal::PagesOf(*st.snap->fragments[static_cast<size_t>(fi)], m.key[0].type, ranges[i], &pages);
      for (int p : pages) {
        page_ranges[{fi, p}].push_back(&ranges[i]);
        st.pages[{fi, p}] = nullptr;
      }
    }
  }
  RAP_RETURN_NOT_OK(internal::ReadIndexPages(st));
  std::map<int32_t, std::vector<read::RowRange>> rows;
  for (const auto& [fp, rs] : page_ranges) {
    RAP_RETURN_NOT_OK(PageEntries(st, fp.first, fp.second, rs, &rows, &out.entries));
  }
  for (auto& [file, list] : rows) out.rows[file] = read::RowSelection::FromRanges(std::move(list));
  out.stats = st.res.stats;
  out.stats.dependent_rounds = st.rounds;
  out.stats.seconds = NowSeconds() - t0;
  return out;
}

namespace internal {

// The pages of fragment `f` whose key0 [min, max] can hold keys of `r` (pages without bounds: all).
void PagesOf(const FragmentState& f, KeyType t0, const KeyRange& r, std::vector<int>* out) {
  const KeyPart* lo = r.lo ? &r.lo->key.parts[0] : nullptr;
  const KeyPart* hi = r.hi ? &r.hi->key.parts[0] : nullptr;
  size_t first = 0;
  if (f.all_bounds && lo) {
    auto it = std::partition_point(f.pages.begin(), f.pages.end(),
                                   [&](const KeyPage& kp) { return CompareKeyPart(t0, kp.max, *lo) < 0; });
    first = static_cast<size_t>(it - f.pages.begin());
  }
  for (size_t p = first; p < f.pages.size(); ++p) {
    const KeyPage& kp = f.pages[p];
    if (kp.has_bounds && hi && CompareKeyPart(t0, kp.min, *hi) > 0) {
      if (f.all_bounds) break;
      continue;
    }
    if (kp.has_bounds && lo && CompareKeyPart(t0, kp.max, *lo) < 0) continue;
    out->push_back(static_cast<int>(p));
  }
}

}  // namespace internal

}  // namespace rap::index
