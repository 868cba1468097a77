// Sorted indexes and range / prefix lookups against brute force: random bounds (inclusive,
// exclusive, open, empty, outside the data) over int64, string (byte collation: "s10" < "s2"),
// binary and a nullable string key (NULL keys never returned), compound (s, g) keys bound on the
// leading column or both, prefixes; pagination with range tokens; after an update (a second fragment
// per partition, equal keys across fragments) and a compaction; a hash index answers ranges too (by
// reading every fragment); a Delta table with deletion vectors; secondary indexes listed by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/key_range.h"
#include "rap/index/maintenance.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;
using rap::testing::BruteForce;

// The oracle's own order: each part as a string that sorts bytewise like the value (integers offset
// and zero-padded), compared part by part over the bound's parts.
using OracleKey = std::vector<std::string>;

std::string OraclePart(KeyType t, const KeyPart& p) {
  if (IsIntegerKey(t)) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%020llu",
                  static_cast<unsigned long long>(static_cast<uint64_t>(p.i) + (uint64_t{1} << 63)));
    return buf;
  }
  return p.s;
}

OracleKey Oracle(const std::vector<KeyColumn>& kc, const Key& k) {
  OracleKey o;
  for (size_t i = 0; i < k.parts.size(); ++i) o.push_back(OraclePart(kc[i].type, k.parts[i]));
  return o;
}

int OracleCompare(const OracleKey& key, const OracleKey& bound) {
  for (size_t i = 0; i < bound.size(); ++i) {
    if (key[i] != bound[i]) return key[i] < bound[i] ? -1 : 1;
  }
  return 0;
}

bool OracleIn(const std::vector<KeyColumn>& kc, const Key& key, const KeyRange& r) {
  const OracleKey k = Oracle(kc, key);
  if (r.lo) {
    const int c = OracleCompare(k, Oracle(kc, r.lo->key));
    if (c < 0 || (c == 0 && !r.lo->inclusive)) return false;
  }
  if (r.hi) {
    const int c = OracleCompare(k, Oracle(kc, r.hi->key));
    if (c > 0 || (c == 0 && !r.hi->inclusive)) return false;
  }
  return true;
}

std::vector<std::string> KeyText(const std::vector<KeyColumn>& kc, const Key& k) {
  std::vector<std::string> out;
  for (size_t i = 0; i < kc.size(); ++i) out.push_back(FormatValue(*MakeKeyArray(kc[i].type, {&k.parts[i]}), 0));
  return out;
}

std::string LittleEndian(int64_t v) {
  std::string b(8, '\0');
  std::memcpy(b.data(), &v, 8);
  return b;
}

// Every key value the generated table can hold in the index's key columns.
std::vector<Key> Universe(const std::vector<KeyColumn>& kc, int64_t key_space) {
  std::vector<Key> out;
  if (kc[0].name == "name") {
    for (int n = 0; n < 50; ++n) out.push_back(Key{{KeyPart{0, "n" + std::to_string(n)}}});
    return out;
  }
  for (int64_t k = 0; k < key_space; ++k) {
    Key key;
    for (const KeyColumn& c : kc) {
      if (c.name == "k") key.parts.push_back({k, {}});
      if (c.name == "s") key.parts.push_back({0, "s" + std::to_string(k)});
      if (c.name == "g") key.parts.push_back({k % 3, {}});
      if (c.name == "b") key.parts.push_back({0, LittleEndian(k)});
    }
    out.push_back(std::move(key));
  }
  return out;
}

// Brute force for ranges: every universe key's rows (once), ordered by the oracle.
class RangeOracle {
 public:
  RangeOracle(const BruteForce& bf, const std::vector<KeyColumn>& kc, int64_t key_space,
              const std::vector<std::string>& out_columns)
      : kc_(kc) {
    std::vector<std::string> names;
    for (const KeyColumn& k : kc) names.push_back(k.name);
    // Every row once: its key columns' text and its output text, in (file, row) order.
    const std::vector<std::string> key_lines = bf.Rows({}, {}, names);
    const std::vector<std::string> row_lines = bf.Rows({}, {}, out_columns);
    std::map<std::string, std::vector<std::string>> by_key;
    for (size_t i = 0; i < key_lines.size(); ++i) by_key[key_lines[i]].push_back(row_lines[i]);
    for (Key& k : Universe(kc, key_space)) {
      std::string text;
      for (const std::string& t : KeyText(kc, k)) text += t + "|";
      auto it = by_key.find(text);
      if (it != by_key.end()) keys_.push_back({std::move(k), it->second});
    }
    std::sort(keys_.begin(), keys_.end(), [&](const auto& a, const auto& b) { return Oracle(kc_, a.first) < Oracle(kc_, b.first); });
  }
  std::vector<std::string> Rows(const KeyRange& r) const {
    std::vector<std::string> out;
    for (const auto& [k, rows] : keys_) {
      if (OracleIn(kc_, k, r)) out.insert(out.end(), rows.begin(), rows.end());
    }
    return out;
  }
  const std::vector<std::pair<Key, std::vector<std::string>>>& keys() const { return keys_; }

 private:
  std::vector<KeyColumn> kc_;
  std::vector<std::pair<Key, std::vector<std::string>>> keys_;
};

std::vector<std::string> BatchRows(const RecordBatch& b) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < b.num_rows; ++r) out.push_back(rap::testing::RowText(b, r));
  return out;
}

const std::vector<std::string> kColumns = {"v", "name"};

// All rows of `range` through pages of `limit` rows, concatenated.
Result<std::vector<std::string>> Paged(const Index& idx, const KeyRange& range, int64_t limit, int* pages) {
  RangeLookupOptions o;
  o.columns = kColumns;
  o.limit = limit;
  std::vector<std::string> out;
  *pages = 0;
  while (true) {
    RAP_ASSIGN_OR_RETURN(RangeResult r, idx.LookupRange(range, o));
    ++*pages;
    if (limit >= 0 && r.rows.num_rows > limit) return Status::Internal("page larger than the limit");
    for (std::string& s : BatchRows(r.rows)) out.push_back(std::move(s));
    if (r.next_page_token.empty()) break;
    if (r.rows.num_rows == 0) return Status::Internal("empty page with a next token");
    o.page_token = r.next_page_token;
    if (*pages > 10000) return Status::Internal("too many pages");
  }
  return out;
}

// A random bound value for column `c` of the universe: a value of the data, or near one, or
// outside it.
KeyPart RandomPart(std::mt19937_64& rng, const KeyColumn& c, int64_t key_space) {
  KeyPart p;
  const int pick = static_cast<int>(rng() % 8);
  if (c.name == "k" || c.name == "g") {
    const int64_t span = c.name == "g" ? 3 : key_space;
    p.i = pick == 0 ? -static_cast<int64_t>(rng() % 50) - 1 : pick == 1 ? span + static_cast<int64_t>(rng() % 50)
                                                                        : static_cast<int64_t>(rng() % span);
    return p;
  }
  if (c.name == "b") {
    if (pick == 0) p.s = "";
    else if (pick == 1) p.s = std::string(1, static_cast<char>(rng() % 256));
    else if (pick == 2) p.s = std::string(9, '\xff');
    else p.s = LittleEndian(static_cast<int64_t>(rng() % key_space));
    return p;
  }
  const std::string base = c.name == "name" ? "n" : "s";
  const int64_t space = c.name == "name" ? 50 : key_space;
  if (pick == 0) p.s = "";
  else if (pick == 1) p.s = base;
  else if (pick == 2) p.s = "t";
  else if (pick == 3) p.s = base + std::to_string(rng() % 10);
  else if (pick == 4) p.s = base + std::to_string(rng() % space) + "~";
  else p.s = base + std::to_string(rng() % space);
  return p;
}

KeyRange RandomRange(std::mt19937_64& rng, const std::vector<KeyColumn>& kc, int64_t key_space) {
  KeyRange r;
  auto bound = [&]() {
    KeyBound b;
    const size_t parts = 1 + static_cast<size_t>(rng() % kc.size());
    for (size_t i = 0; i < parts; ++i) b.key.parts.push_back(RandomPart(rng, kc[i], key_space));
    b.inclusive = rng() % 3 != 0;
    return b;
  };
  if (rng() % 6 != 0) r.lo = bound();
  if (rng() % 6 != 0) r.hi = bound();
  return r;
}

// Ranges, prefixes and pages of one index equal the oracle.
void CheckIndex(const std::string& url, const BruteForce& bf, int64_t key_space, uint64_t seed, int ranges) {
  auto opened = Index::Open(url);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const Index& idx = **opened;
  const std::vector<KeyColumn>& kc = idx.info().key;
  RangeLookupOptions o;
  o.columns = kColumns;
  // The output columns: the key columns not requested, then the requested ones.
  std::vector<std::string> names;
  for (const KeyColumn& k : kc) {
    if (std::find(kColumns.begin(), kColumns.end(), k.name) == kColumns.end()) names.push_back(k.name);
  }
  names.insert(names.end(), kColumns.begin(), kColumns.end());
  RangeOracle oracle(bf, kc, key_space, names);
  {
    auto all = idx.LookupRange(KeyRange{}, o);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    std::vector<std::string> got_names;
    for (const Field& f : all->schema->fields) got_names.push_back(f.name);
    ASSERT_EQ(got_names, names);
    EXPECT_EQ(BatchRows(all->rows), oracle.Rows(KeyRange{})) << url << ": every key";
    EXPECT_EQ(all->keys, static_cast<int64_t>(oracle.keys().size()));
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < ranges; ++i) {
    const KeyRange r = RandomRange(rng, kc, key_space);
    SCOPED_TRACE(url + " range " + FormatKeyRange(kc, r));
    auto got = idx.LookupRange(r, o);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const std::vector<std::string> want = oracle.Rows(r);
    ASSERT_EQ(BatchRows(got->rows), want);
    if (i % 8 == 0) {
      int pages = 0;
      const int64_t limit = 1 + static_cast<int64_t>(rng() % 400);
      auto paged = Paged(idx, r, limit, &pages);
      ASSERT_TRUE(paged.ok()) << paged.status().ToString();
      EXPECT_EQ(*paged, want) << "pages of " << limit;
      EXPECT_EQ(static_cast<size_t>(pages), std::max<size_t>(1, (want.size() + static_cast<size_t>(limit) - 1) /
                                                                     static_cast<size_t>(limit)));
    }
  }
  // Prefixes of the last key column bound (strings and binary: byte prefixes).
  std::vector<std::vector<std::string>> prefixes;
  if (kc[0].type == KeyType::kString) {
    prefixes = {{""}, {kc[0].name == "name" ? "n" : "s"}, {"s1"}, {"s29"}, {"s2999"}, {"n4"}, {"x"}, {"\xff"}};
    if (kc.size() == 2) prefixes.push_back({"s12", "0"}), prefixes.push_back({"s12", "1"});
  } else if (kc[0].type == KeyType::kBinary) {
    prefixes = {{""}, {"0a"}, {"0a00"}, {"ff"}, {"2c01"}};
  } else {
    prefixes = {{"7"}, {"-1"}};
  }
  for (const auto& p : prefixes) {
    auto r = PrefixRange(kc, p);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    SCOPED_TRACE(url + " prefix " + p[0]);
    // The oracle of a prefix: leading parts equal, the last one starts with the prefix.
    std::vector<std::string> want;
    for (const auto& [k, rows] : oracle.keys()) {
      bool match = true;
      for (size_t i = 0; i < p.size() && match; ++i) {
        auto part = ParseKey({kc[i]}, {p[i]});
        ASSERT_TRUE(part.ok());
        const KeyPart& pp = part->parts[0];
        if (IsIntegerKey(kc[i].type)) match = k.parts[i].i == pp.i;
        else if (i + 1 == p.size()) match = k.parts[i].s.compare(0, pp.s.size(), pp.s) == 0;
        else match = k.parts[i].s == pp.s;
      }
      if (match) want.insert(want.end(), rows.begin(), rows.end());
    }
    auto got = idx.LookupRange(*r, o);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(BatchRows(got->rows), want);
  }
}

class RangeLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    opts_.files = 3;
    opts_.rows = 1200;
    opts_.key_space = 300;
    names_ = rap::testing::WriteIndexTable(root_, opts_);
  }
  Result<BruteForce> Reference() {
    std::vector<std::string> paths;
    for (const std::string& n : names_) paths.push_back(root_ + "/" + n);
    return BruteForce::Load(paths);
  }
  Status Build(const std::string& name, std::vector<std::string> key, IndexKind kind, int buckets) {
    BuildOptions o;
    o.name = name;
    o.key_columns = std::move(key);
    o.kind = kind;
    o.buckets = buckets;
    o.cover = {"v"};
    o.fragment.page_rows = 16;  // many index pages: ranges cross page and fragment boundaries
    auto built = BuildIndex(root_, o);
    if (!built.ok()) return built.status();
    return Status::OK();
  }
  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_;
  std::vector<std::string> names_;
};

TEST_F(RangeLookupTest, SortedBuildRecordsKindAndEvenBoundaries) {
  ASSERT_TRUE(Build("by_k", {"k"}, IndexKind::kSorted, 4).ok());
  auto r = io::OpenUrl(DefaultIndexUrl(root_, "by_k"));
  ASSERT_TRUE(r.ok());
  auto m = ReadManifest(*r->store, r->path, 1);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->kind, IndexKind::kSorted);
  EXPECT_EQ(m->name, "by_k");
  EXPECT_EQ(m->bucket_function, "range");
  ASSERT_EQ(m->buckets, 4);
  ASSERT_EQ(m->boundaries.size(), 3u);
  ASSERT_EQ(m->fragments.size(), 4u);
  int64_t total = 0, largest = 0;
  for (const FragmentEntry& f : m->fragments) {
    total += f.entries;
    largest = std::max(largest, f.entries);
    // Every key of partition p is in [boundaries[p-1], boundaries[p]).
    if (f.bucket > 0) {
      EXPECT_GE(CompareKeys(m->key, f.min_key, m->boundaries[static_cast<size_t>(f.bucket - 1)]), 0);
    }
    if (f.bucket < 3) {
      EXPECT_LT(CompareKeys(m->key, f.max_key, m->boundaries[static_cast<size_t>(f.bucket)]), 0);
    }
  }
  // Even partitions: none holds more than a third of the entries (a quarter each, give or take a key).
  EXPECT_LT(largest, total / 3) << "entries " << total;
  // The manifest round-trips, and a manifest without "kind" (written before the sorted kind) is hash.
  auto again = ManifestFromJson(ManifestToJson(*m), "m");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->boundaries, m->boundaries);
  Manifest h = *m;
  h.kind = IndexKind::kHash;
  h.bucket_function = kBucketFunction;
  h.boundaries.clear();
  std::string text = ManifestToJson(h);
  const size_t at = text.find("\"kind\": \"hash\",");
  ASSERT_NE(at, std::string::npos) << text.substr(0, 400);
  text.erase(at, std::string("\"kind\": \"hash\",").size());
  auto old = ManifestFromJson(text, "old");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->kind, IndexKind::kHash);
  // A sorted manifest with the wrong number of boundaries is refused, naming the field.
  Manifest bad = *m;
  bad.boundaries.pop_back();
  auto refused = ManifestFromJson(ManifestToJson(bad), "bad");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("/boundaries"), std::string::npos) << refused.status().ToString();
}

TEST_F(RangeLookupTest, RangesAndPrefixesEqualBruteForceThroughUpdateAndCompaction) {
  ASSERT_TRUE(Build("by_k", {"k"}, IndexKind::kSorted, 4).ok());
  ASSERT_TRUE(Build("by_s", {"s"}, IndexKind::kSorted, 3).ok());
  ASSERT_TRUE(Build("by_b", {"b"}, IndexKind::kSorted, 3).ok());
  ASSERT_TRUE(Build("by_name", {"name"}, IndexKind::kSorted, 3).ok());
  ASSERT_TRUE(Build("by_sg", {"s", "g"}, IndexKind::kSorted, 5).ok());
  ASSERT_TRUE(Build("hash_k", {"k"}, IndexKind::kHash, 2).ok());
  const std::vector<std::string> indexes = {"by_k", "by_s", "by_b", "by_name", "by_sg", "hash_k"};
  {
    auto bf = Reference();
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    uint64_t seed = 1;
    for (const std::string& n : indexes) CheckIndex(DefaultIndexUrl(root_, n), *bf, opts_.key_space, seed++, 25);
  }
  // One more file, indexed by updates: a second fragment per partition, the same keys in both.
  rap::testing::IndexTableOptions more = opts_;
  more.files = 1;
  more.first_file = 3;
  more.seed = 77;
  auto added = rap::testing::WriteIndexTable(root_, more);
  names_.insert(names_.end(), added.begin(), added.end());
  for (const std::string& n : indexes) {
    auto up = UpdateIndex(DefaultIndexUrl(root_, n), {});
    ASSERT_TRUE(up.ok()) << up.status().ToString();
    EXPECT_TRUE(up->changed);
    if (n == "by_k") {
      EXPECT_EQ(up->manifest.kind, IndexKind::kSorted);
      EXPECT_EQ(up->manifest.fragments.size(), 8u);
    }
  }
  auto bf = Reference();
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();
  uint64_t seed = 100;
  for (const std::string& n : indexes) CheckIndex(DefaultIndexUrl(root_, n), *bf, opts_.key_space, seed++, 20);
  for (const std::string n : {"by_k", "by_sg"}) {
    auto c = CompactIndex(DefaultIndexUrl(root_, n), {});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_TRUE(c->changed);
    CheckIndex(DefaultIndexUrl(root_, n), *bf, opts_.key_space, seed++, 12);
  }
  // Exact lookups through a sorted index route by partition.
  auto idx = Index::Open(DefaultIndexUrl(root_, "by_k"));
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  std::vector<Key> keys;
  for (int64_t k = -3; k < 305; k += 7) keys.push_back(Key{{KeyPart{k, {}}}});
  LookupOptions lo;
  lo.columns = kColumns;
  auto res = (*idx)->Lookup(keys, lo);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  std::vector<std::string> names;
  for (const Field& f : res->schema->fields) names.push_back(f.name);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), bf->Rows({"k"}, {std::to_string(keys[i].parts[0].i)}, names));
  }
}

// Updates with skewed keys fill one partition; compaction with rebalance chooses even boundaries
// again (here into 5 partitions), and ranges still equal brute force. A hash index refuses it.
TEST_F(RangeLookupTest, CompactionRebalancesSkewedPartitions) {
  ASSERT_TRUE(Build("by_k", {"k"}, IndexKind::kSorted, 4).ok());
  ASSERT_TRUE(Build("hash_k", {"k"}, IndexKind::kHash, 2).ok());
  rap::testing::IndexTableOptions more = opts_;
  more.files = 1;
  more.first_file = 3;
  more.rows = 3000;
  more.key_space = 30;  // every new key in the first partition
  more.seed = 5;
  auto added = rap::testing::WriteIndexTable(root_, more);
  names_.insert(names_.end(), added.begin(), added.end());
  const std::string url = DefaultIndexUrl(root_, "by_k");
  auto up = UpdateIndex(url, {});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  auto entries_of = [](const Manifest& m) {
    std::map<int32_t, int64_t> per;
    int64_t total = 0;
    for (const FragmentEntry& f : m.fragments) per[f.bucket] += f.entries, total += f.entries;
    int64_t largest = 0;
    for (auto& [b, n] : per) largest = std::max(largest, n);
    return std::make_pair(largest, total);
  };
  const auto [skewed, total] = entries_of(up->manifest);
  EXPECT_GT(skewed, total / 3) << "the update should have skewed a partition";
  CompactOptions co;
  co.rebalance = true;
  co.partitions = 5;
  auto c = CompactIndex(url, co);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->changed);
  EXPECT_EQ(c->manifest.buckets, 5);
  EXPECT_EQ(c->manifest.boundaries.size(), 4u);
  EXPECT_EQ(c->manifest.fragments.size(), 5u);
  const auto [largest, after_total] = entries_of(c->manifest);
  EXPECT_EQ(after_total, total);
  EXPECT_LT(largest, total / 4);
  auto bf = Reference();
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();
  CheckIndex(url, *bf, opts_.key_space, 9, 15);
  auto refused = CompactIndex(DefaultIndexUrl(root_, "hash_k"), co);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(RangeLookupTest, SecondaryIndexesAreListedByName) {
  ASSERT_TRUE(Build("by_k", {"k"}, IndexKind::kSorted, 2).ok());
  ASSERT_TRUE(Build("by_sg", {"s", "g"}, IndexKind::kHash, 2).ok());
  auto list = ListIndexes(root_);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "by_k");
  EXPECT_EQ((*list)[0].kind, IndexKind::kSorted);
  EXPECT_EQ((*list)[1].name, "by_sg");
  EXPECT_EQ((*list)[1].kind, IndexKind::kHash);
  ASSERT_EQ((*list)[1].key.size(), 2u);
  EXPECT_EQ((*list)[1].key[1].name, "g");
  EXPECT_GT((*list)[0].entries, 0);
  auto none = ListIndexes(dir_.Join("nothing"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
}

TEST_F(RangeLookupTest, BadTokensAndBoundsAreRefused) {
  ASSERT_TRUE(Build("by_k", {"k"}, IndexKind::kSorted, 2).ok());
  auto idx = Index::Open(DefaultIndexUrl(root_, "by_k"));
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  RangeLookupOptions o;
  for (const char* t : {"p1:0:3", "r1:zz:0:1", "r1:00:0:1", "r1:8000000000000007:0", "r1:8000000000000007:-1:2"}) {
    o.page_token = t;
    auto r = (*idx)->LookupRange(KeyRange{}, o);
    ASSERT_FALSE(r.ok()) << t;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << t;
  }
  o.page_token.clear();
  KeyRange too_long;
  too_long.lo = KeyBound{Key{{KeyPart{1, {}}, KeyPart{2, {}}}}, true};
  EXPECT_FALSE((*idx)->LookupRange(too_long, o).ok());
}

// A Delta table with deletion vectors: a sorted index built at version 5, updated to the newest
// version, compacted; every range equals a scan of the table's current version.
TEST(DeltaRangeIndex, DeletionVectorsAndUpdates) {
  rap::testing::TempDir dir;
  const std::string src = rap::testing::SharedDir() + "/delta-tables/table_with_deletion_logs";
  const std::string t = dir.Join("t");
  fs::create_directories(t + "/_delta_log");
  for (const auto& e : fs::directory_iterator(src)) {
    if (e.is_regular_file()) fs::copy_file(e.path(), t + "/" + e.path().filename().string());
  }
  auto copy_log = [&](int64_t upto) {
    for (const auto& e : fs::directory_iterator(src + "/_delta_log")) {
      const std::string n = e.path().filename().string();
      if (n.size() < 20 || n[0] < '0' || n[0] > '9') continue;
      const int64_t v = std::stoll(n.substr(0, 20));
      if (v <= upto && !fs::exists(t + "/_delta_log/" + n)) fs::copy_file(e.path(), t + "/_delta_log/" + n);
    }
  };
  // id -> its rows ("id|name|age|", sorted) in the table's current version.
  auto reference = [&]() -> Result<std::map<int64_t, std::vector<std::string>>> {
    RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(t));
    RAP_ASSIGN_OR_RETURN(read::ScanSource source, table::ToScanSource(snap));
    read::ScanOptions so;
    so.columns = {"id", "name", "age"};
    RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), so));
    std::map<int64_t, std::vector<std::string>> out;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
      if (!b) break;
      for (int64_t r = 0; r < b->batch.num_rows; ++r) {
        KeyPart p;
        KeyPartAt(KeyType::kInt64, *b->batch.columns[0], r, &p);
        out[p.i].push_back(rap::testing::RowText(b->batch, r));
      }
    }
    for (auto& [k, v] : out) std::sort(v.begin(), v.end());
    return out;
  };
  auto check = [&](uint64_t seed) {
    auto ref = reference();
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    auto idx = Index::Open(DefaultIndexUrl(t, "by_id"));
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    std::mt19937_64 rng(seed);
    RangeLookupOptions o;
    o.columns = {"id", "name", "age"};
    for (int i = 0; i < 25; ++i) {
      KeyRange r;
      const int64_t a = static_cast<int64_t>(rng() % 130) - 10, b = static_cast<int64_t>(rng() % 130) - 10;
      if (i % 7 != 1) r.lo = KeyBound{Key{{KeyPart{a, {}}}}, rng() % 2 == 0};
      if (i % 7 != 2) r.hi = KeyBound{Key{{KeyPart{b, {}}}}, rng() % 2 == 0};
      SCOPED_TRACE(FormatKeyRange((*idx)->info().key, r));
      o.limit = i % 3 == 0 ? 7 : -1;
      o.page_token.clear();
      std::map<int64_t, std::vector<std::string>> got;
      int64_t last = INT64_MIN;
      for (int page = 0; page < 1000; ++page) {
        auto res = (*idx)->LookupRange(r, o);
        ASSERT_TRUE(res.ok()) << res.status().ToString();
        for (int64_t row = 0; row < res->rows.num_rows; ++row) {
          KeyPart p;
          ASSERT_TRUE(KeyPartAt(KeyType::kInt64, *res->rows.columns[0], row, &p));
          EXPECT_GE(p.i, last) << "rows in key order";
          last = p.i;
          got[p.i].push_back(rap::testing::RowText(res->rows, row));
        }
        if (res->next_page_token.empty()) break;
        o.page_token = res->next_page_token;
      }
      for (auto& [k, v] : got) std::sort(v.begin(), v.end());
      std::map<int64_t, std::vector<std::string>> want;
      for (const auto& [k, v] : *ref) {
        if (KeyInRange((*idx)->info().key, Key{{KeyPart{k, {}}}}, r)) want[k] = v;
      }
      EXPECT_EQ(got, want);
    }
  };
  copy_log(5);
  BuildOptions o;
  o.name = "by_id";
  o.key_columns = {"id"};
  o.kind = IndexKind::kSorted;
  o.buckets = 3;
  auto built = BuildIndex(t, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.kind, IndexKind::kSorted);
  check(1);
  copy_log(20);
  auto up = UpdateIndex(DefaultIndexUrl(t, "by_id"), {});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_TRUE(up->changed);
  EXPECT_EQ(up->manifest.kind, IndexKind::kSorted);
  check(2);
  auto c = CompactIndex(DefaultIndexUrl(t, "by_id"), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  check(3);
}

}  // namespace
}  // namespace rap::index
