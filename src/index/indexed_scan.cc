// ApplyIndex (rap/index/indexed_scan.h): pick the index of a table that answers a scan filter, locate
// the rows of the filter's keys, and make them the only candidate rows of the files the index covers.
#include "rap/index/indexed_scan.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rap/index/build.h"
#include "rap/index/maintenance.h"
#include "rap/table/table_format.h"

namespace rap::index {

namespace {

struct Candidate {
  std::string name;
  std::string url;
  IndexKind kind = IndexKind::kHash;
  std::vector<KeyColumn> key;
  std::vector<KeyRange> ranges;
  bool usable = false;
  std::string why;  // when not usable
};

// Whether the index answers the filter, and with which ranges.
void Judge(const read::Expr& filter, Candidate* c) {
  std::vector<std::string> names;
  for (const KeyColumn& k : c->key) names.push_back(k.name);
  std::optional<std::vector<KeyRange>> ranges = FilterKeyRanges(filter, c->key);
  if (!ranges) {
    c->why = fmt::format("the filter does not bound its key column '{}' with =, IN, <, <=, >, >= or a prefix",
                         names[0]);
    return;
  }
  if (c->kind == IndexKind::kHash && !AllExactKeys(c->key, *ranges)) {
    c->why = fmt::format("a hash index answers exact keys only (every key column of ({}) equal to a value)",
                         fmt::join(names, ", "));
    return;
  }
  c->ranges = std::move(*ranges);
  c->usable = true;
}

// The better of two usable candidates: exact keys, then more key columns bound, then sorted, then name.
bool Better(const Candidate& a, const Candidate& b) {
  auto rank = [](const Candidate& c) {
    size_t parts = 0;
    for (const KeyRange& r : c.ranges) {
      parts = std::max({parts, r.lo ? r.lo->key.parts.size() : 0, r.hi ? r.hi->key.parts.size() : 0});
    }
    return std::make_tuple(AllExactKeys(c.key, c.ranges) ? 1 : 0, parts, c.kind == IndexKind::kSorted ? 1 : 0);
  };
  if (rank(a) != rank(b)) return rank(a) > rank(b);
  return a.name < b.name;
}

// The table's indexes: the named one, else every one under _rap_index/ (a store that cannot list:
// the default index only, when it exists).
Result<std::vector<Candidate>> Candidates(const std::string& table_url, const IndexedScanOptions& o,
                                          std::shared_ptr<Index>* opened) {
  std::vector<Candidate> out;
  if (!o.name.empty()) {
    auto idx = Index::Open(DefaultIndexUrl(table_url, o.name), o.open);
    if (!idx.ok()) return idx.status().WithContext("--index " + o.name);
    *opened = *idx;
    const IndexInfo& info = (*idx)->info();
    out.push_back({o.name, info.index_url, info.kind, info.key, {}, false, ""});
    return out;
  }
  auto listing = o.listing ? o.listing->get() : ListIndexes(table_url);
  if (listing.ok()) {
    for (const IndexListing& l : *listing) out.push_back({l.name, l.url, l.kind, l.key, {}, false, ""});
    return out;
  }
  auto idx = Index::Open(DefaultIndexUrl(table_url), o.open);  // e.g. plain HTTP: no listing
  if (idx.ok()) {
    *opened = *idx;
    const IndexInfo& info = (*idx)->info();
    out.push_back({kDefaultIndexName, info.index_url, info.kind, info.key, {}, false, ""});
  }
  return out;
}

std::string DescribeRanges(const std::vector<KeyColumn>& key, const std::vector<KeyRange>& ranges) {
  std::vector<std::string> names;
  for (const KeyColumn& k : key) names.push_back(k.name);
  std::string out = fmt::format("({}) in ", fmt::join(names, ", "));
  if (ranges.empty()) return out + "{} (no key can match)";
  std::vector<std::string> parts;
  for (size_t i = 0; i < ranges.size() && i < 8; ++i) parts.push_back(FormatKeyRange(key, ranges[i]));
  if (ranges.size() > 8) parts.push_back(fmt::format("... {} ranges in all", ranges.size()));
  return out + "{" + fmt::format("{}", fmt::join(parts, ", ")) + "}";
}

// Marks the candidate rows of the files the index covers; counts covered and uncovered files.
Status Restrict(const table::TableSnapshot& snap, const LocatedRows& located, read::ScanSource* source,
                IndexedScanReport* rep) {
  const Manifest& m = *located.manifest;
  if (snap.files.size() != source->files.size()) {
    return Status::Internal("indexed scan: the scan source has " + std::to_string(source->files.size()) +
                            " files, the table " + std::to_string(snap.files.size()));
  }
  std::map<std::string, const FileEntry*> live;
  for (const FileEntry& f : m.files) {
    if (!f.removed) live[f.path] = &f;
  }
  // Paths of Delta and Iceberg files are never reused; in a folder a file may be rewritten in place,
  // so there its ETag is compared too (when the index recorded ETags of this store).
  const bool check_etags = table::FormatName(snap) == "directory" &&
                           (m.etag_source.empty() || m.etag_source == snap.store->endpoint());
  for (size_t i = 0; i < snap.files.size(); ++i) {
    const table::DataFile& df = snap.files[i];
    auto it = live.find(df.relative_path);
    bool covered = it != live.end() && it->second->size == df.size &&
                   (!df.num_records || *df.num_records == it->second->num_rows);
    if (covered && check_etags && !it->second->etag.empty()) {
      RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, snap.store->Head(df.path));
      covered = info.etag == it->second->etag && info.size == df.size;
    }
    if (!covered) {
      ++rep->files_unindexed;
      continue;
    }
    ++rep->files_indexed;
    auto rows = located.rows.find(it->second->ordinal);
    if (rows == located.rows.end()) {
      source->files[i].candidate_rows = read::RowSelection();
    } else {
      ++rep->files_with_rows;
      rep->candidate_rows += rows->second.Count();
      source->files[i].candidate_rows = rows->second;
    }
  }
  return Status::OK();
}

}  // namespace

std::string IndexedScanReport::ToString() const {
  if (!used) return fmt::format("index_used none ({})\n", reason);
  return fmt::format(
      "index_used {} ({}, {})\nindex_files_indexed {}\nindex_files_unindexed {}\nindex_files_with_rows {}\n"
      "index_entries {}\nindex_candidate_rows {}\nindex_requests {}\nindex_bytes {}\nindex_pages_read {}\n"
      "index_rounds {}\nindex_s {:.6f}\n",
      name, kind, predicate, files_indexed, files_unindexed, files_with_rows, entries, candidate_rows, index.requests,
      index.bytes, index.index_pages_read, index.dependent_rounds, index.seconds);
}

void PrefetchIndexListing(const std::string& table_url, bool has_filter, IndexedScanOptions* options) {
  if (!has_filter || options->disabled || !options->name.empty()) return;
  options->listing = std::make_shared<std::shared_future<Result<std::vector<IndexListing>>>>(
      std::async(std::launch::async, [table_url] { return ListIndexes(table_url); }).share());
}

Result<IndexedScanReport> ApplyIndex(const std::string& table_url, const table::TableSnapshot& snapshot,
                                     const read::ExprPtr& filter, read::ScanSource* source,
                                     const IndexedScanOptions& options) {
  IndexedScanReport rep;
  rep.name = options.name;
  if (options.disabled) {
    rep.reason = "--no-index";
    return rep;
  }
  if (!filter) {
    if (!options.name.empty()) return Status::InvalidArgument("--index " + options.name + " needs a --where filter");
    rep.reason = "no filter";
    return rep;
  }
  if (table::FormatName(snapshot) == "paimon") {
    rep.reason = "scans of Paimon tables do not use an index yet (rap lookup does)";
    return rep;
  }
  std::shared_ptr<Index> idx;
  RAP_ASSIGN_OR_RETURN(std::vector<Candidate> cands, Candidates(table_url, options, &idx));
  const Candidate* best = nullptr;
  std::vector<std::string> why;
  for (Candidate& c : cands) {
    Judge(*filter, &c);
    if (!c.usable) why.push_back(c.name + ": " + c.why);
    if (c.usable && (!best || Better(c, *best))) best = &c;
  }
  if (!best) {
    rep.reason = cands.empty() ? "the table has no index under _rap_index/" : fmt::format("{}", fmt::join(why, "; "));
    if (!options.name.empty()) {
      return Status::InvalidArgument("--index " + options.name + " cannot answer the filter: " + cands[0].why);
    }
    return rep;
  }
  // Without --index, an index that fails to open or read leaves the scan to read every file (the
  // reason says why); a named one fails the scan.
  auto fall_back = [&](const Status& st) -> Result<IndexedScanReport> {
    if (!options.name.empty()) return st;
    rep.used = false;
    rep.reason = best->name + ": " + st.ToString();
    return rep;
  };
  if (!idx || idx->info().index_url != best->url) {
    auto opened = Index::Open(best->url, options.open);
    if (!opened.ok()) return fall_back(opened.status());
    idx = *opened;
  }
  rep.name = best->name;
  rep.kind = IndexKindName(best->kind);
  rep.predicate = DescribeRanges(best->key, best->ranges);
  const IndexInfo& info = idx->info();
  if (info.table_kind != table::FormatName(snapshot)) {
    rep.reason = fmt::format("{}: the index is of a {} table, this one is {}", best->name, info.table_kind,
                             table::FormatName(snapshot));
    if (!options.name.empty()) return Status::InvalidArgument("--index " + options.name + ": " + rep.reason);
    return rep;
  }
  auto located_or = idx->Locate(best->ranges);
  if (!located_or.ok()) return fall_back(located_or.status());
  const LocatedRows& located = *located_or;
  rep.entries = located.entries;
  rep.index = located.stats;
  RAP_RETURN_NOT_OK(Restrict(snapshot, located, source, &rep));
  if (rep.files_indexed == 0 && !snapshot.files.empty()) {
    for (read::ScanFile& f : source->files) f.candidate_rows.reset();
    rep.reason = fmt::format("{}: the index covers none of the table's {} files (rap index update)", best->name,
                             snapshot.files.size());
    return rep;
  }
  rep.used = true;
  return rep;
}

}  // namespace rap::index
