// Index::LookupRange: a key range -> the fragments and index pages that can hold it (one parallel
// round) -> the entries in the range, grouped by key in key order -> page token and limit over the
// whole range -> the data (lookup.cc's phases) -> one batch.
#include <algorithm>

#include <fmt/format.h>

#include "index/index_impl.h"
#include "index/lookup_plan.h"
#include "rap/util/clock.h"
#include "rap/util/hex.h"

namespace rap::index {

namespace {

using internal::KeyPiece;
using internal::LookupState;

// A range page token: after row `row` of `file` of key `key`.
struct RangeToken {
  bool set = false;
  Key key;
  int32_t file = 0;
  int64_t row = 0;
};

Result<RangeToken> ParseRangeToken(const std::vector<KeyColumn>& kc, const std::string& t) {
  RangeToken tok;
  if (t.empty()) return tok;
  auto bad = [&] {
    return Status::InvalidArgument("page token '" + t + "' is not a range token of this index (expected one returned "
                                   "by a range or prefix lookup)");
  };
  if (t.rfind("r1:", 0) != 0) return bad();
  const size_t a = t.find(':', 3);
  const size_t b = a == std::string::npos ? a : t.find(':', a + 1);
  if (b == std::string::npos) return bad();
  auto bytes = ParseKey({{"token", KeyType::kBinary}}, {t.substr(3, a - 3)});
  if (!bytes.ok()) return bad();
  auto key = KeyFromNormalized(kc, bytes->parts[0].s);
  if (!key.ok() || key->parts.size() != kc.size()) return bad();
  int file = 0;
  long long row = 0;
  char tail = 0;
  if (std::sscanf(t.c_str() + a + 1, "%d:%lld%c", &file, &row, &tail) != 2 || file < 0 || row < 0) return bad();
  tok.set = true;
  tok.key = std::move(*key);
  tok.file = file;
  tok.row = row;
  return tok;
}

std::string MakeRangeToken(const std::vector<KeyColumn>& kc, const Key& key, int32_t file, int64_t row) {
  return fmt::format("r1:{}:{}:{}", LowerHex(NormalizedKey(kc, key)), file, row);
}

// The fragments whose key bounds overlap the range (and the token's rest of it).
std::vector<int> RangeFragments(const LookupState& st, const KeyRange& range) {
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  std::vector<int> out;
  for (size_t i = 0; i < st.snap->fragments.size(); ++i) {
    const FragmentEntry& e = st.snap->fragments[i]->entry;
    if (e.entries > 0 && RangeOverlaps(kc, range, e.min_key, e.max_key)) out.push_back(static_cast<int>(i));
  }
  return out;
}

// The pages of the fragments whose key0 [min, max] can hold keys of the range, into st.pages and
// st.candidates[0].
void RangePages(LookupState& st, const KeyRange& range, const std::vector<int>& fragments) {
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  const KeyType t0 = kc[0].type;
  st.candidates.assign(1, {});
  for (int fi : fragments) {
    std::vector<int> pages;
    internal::PagesOf(*st.snap->fragments[static_cast<size_t>(fi)], t0, range, &pages);
    for (int p : pages) {
      st.candidates[0].push_back({fi, p});
      st.pages[{fi, p}] = nullptr;
    }
  }
}

// Every entry of the candidate pages in the range (and at or after the token's key), of live
// files, sorted by (key, file, first row) and grouped by key into `keys` / st.entries.
Status RangeEntries(LookupState& st, const KeyRange& range, const RangeToken& token, std::vector<Key>* keys) {
  const Manifest& m = st.snap->manifest;
  const std::vector<KeyColumn>& kc = m.key;
  std::vector<IndexEntry> all;
  for (auto [fi, p] : st.candidates[0]) {
    const FragmentState& f = *st.snap->fragments[static_cast<size_t>(fi)];
    const RecordBatch& b = *st.pages.at({fi, p});
    for (int64_t r = 0; r < b.num_rows; ++r) {
      IndexEntry e;
      RAP_RETURN_NOT_OK(EntryAt(b, f.layout, kc, r, false, &e, f.path));
      if (!KeyInRange(kc, e.key, range)) continue;
      if (token.set && CompareKeys(kc, e.key, token.key) < 0) continue;
      RAP_ASSIGN_OR_RETURN(const FileEntry* fe, internal::EntryFile(m, e, f.path));
      if (!fe) continue;  // removed from the table
      // The payload (cover, hoisted values) only for entries in the range.
      RAP_RETURN_NOT_OK(EntryAt(b, f.layout, kc, r, true, &e, f.path));
      all.push_back(std::move(e));
    }
  }
  SortEntries(kc, &all);
  st.entries.clear();
  for (IndexEntry& e : all) {
    if (keys->empty() || CompareKeys(kc, keys->back(), e.key) != 0) {
      keys->push_back(e.key);
      st.entries.emplace_back();
    }
    st.entries.back().push_back(std::move(e));
  }
  return Status::OK();
}

// The pieces: live rows after the token, at most `limit` in all; the next token when rows are left.
void SelectRangeRows(LookupState& st, const RangeToken& token, int64_t limit, std::string* next_token) {
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  int64_t left = limit < 0 ? INT64_MAX : limit;
  internal::RowCursor last;
  bool more = false;
  st.res.keys.resize(st.keys.size());
  for (size_t i = 0; i < st.keys.size() && !more; ++i) {
    st.res.keys[i].key = st.keys[i];
    const bool at_token = token.set && CompareKeys(kc, st.keys[i], token.key) == 0;
    for (const IndexEntry& e : st.entries[i]) {
      if (internal::TakeEntryRows(st, i, e, at_token ? token.file : -1, token.row, &left, &last)) {
        more = true;
        break;
      }
    }
  }
  if (more) *next_token = MakeRangeToken(kc, st.keys[last.key], last.file, last.row);
}

// The keys' batches (lookup.cc's AssembleBatches) concatenated in key order.
Status ConcatKeys(LookupState& st, RangeResult* out) {
  const Schema& schema = *st.out.schema;
  out->schema = st.out.schema;
  out->rows.schema = st.out.schema;
  std::vector<const RecordBatch*> parts;
  for (const KeyRows& k : st.res.keys) {
    if (k.rows.num_rows > 0) parts.push_back(&k.rows);
  }
  out->keys = static_cast<int64_t>(parts.size());
  for (const RecordBatch* b : parts) out->rows.num_rows += b->num_rows;
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    if (parts.empty()) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr e, columnar::MakeNullArray(schema.fields[c].type, 0));
      out->rows.columns.push_back(e);
    } else if (parts.size() == 1) {
      out->rows.columns.push_back(parts[0]->columns[c]);
    } else {
      std::vector<ArrayPtr> cols;
      for (const RecordBatch* b : parts) cols.push_back(b->columns[c]);
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, ConcatArrays(cols));
      out->rows.columns.push_back(a);
    }
  }
  return Status::OK();
}

Status CheckBound(const std::vector<KeyColumn>& kc, const std::optional<KeyBound>& b, const char* which) {
  if (!b) return Status::OK();
  if (b->key.parts.empty() || b->key.parts.size() > kc.size()) {
    return Status::InvalidArgument(std::string("range ") + which + " bound: give 1 to " + std::to_string(kc.size()) +
                                   " key part(s), got " + std::to_string(b->key.parts.size()));
  }
  return Status::OK();
}

}  // namespace

Result<RangeResult> Index::LookupRange(const KeyRange& range, const RangeLookupOptions& opt) const {
  if (auto probe = impl_->TakeProbe(); probe.valid()) {
    return impl_->RunThenSettleProbe<RangeResult>(std::move(probe), [&] { return LookupRange(range, opt); });
  }
  const double t0 = NowSeconds();
  LookupState st;
  st.impl = impl_.get();
  st.snap = impl_->Current();
  const std::vector<KeyColumn>& kc = st.snap->manifest.key;
  RAP_RETURN_NOT_OK(CheckBound(kc, range.lo, "lower"));
  RAP_RETURN_NOT_OK(CheckBound(kc, range.hi, "upper"));
  LookupOptions lo;
  lo.columns = opt.columns;
  lo.use_cover = opt.use_cover;
  st.opt = &lo;
  RAP_ASSIGN_OR_RETURN(const RangeToken token, ParseRangeToken(kc, opt.page_token));
  RAP_RETURN_NOT_OK(internal::ResolveColumns(st));
  // A token narrows the range to keys from its key on (fragments and pages before it are skipped).
  KeyRange rest = range;
  if (token.set && (!rest.lo || CompareKeyToPrefix(kc, token.key, rest.lo->key) >= 0)) {
    rest.lo = KeyBound{token.key, true};
  }
  const std::vector<int> fragments = RangeFragments(st, rest);
  RAP_RETURN_NOT_OK(internal::LoadFragmentList(st, fragments));
  RangePages(st, rest, fragments);
  RAP_RETURN_NOT_OK(internal::ReadIndexPages(st));
  std::vector<Key> keys;
  RAP_RETURN_NOT_OK(RangeEntries(st, range, token, &keys));
  st.keys = keys;
  RAP_RETURN_NOT_OK(internal::LoadDeletionVectors(st));
  RangeResult out;
  out.manifest_version = st.snap->manifest.version;
  SelectRangeRows(st, token, opt.limit, &out.next_page_token);
  RAP_ASSIGN_OR_RETURN(const internal::DataMode mode, internal::ReadDataColumns(st));
  RAP_RETURN_NOT_OK(internal::AssembleBatches(st, mode));
  RAP_RETURN_NOT_OK(ConcatKeys(st, &out));
  out.stats = st.res.stats;
  out.stats.dependent_rounds = st.rounds;
  out.stats.seconds = NowSeconds() - t0;
  return out;
}

}  // namespace rap::index
