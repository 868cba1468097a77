// Scans answered through an index (rap/index/indexed_scan.h): for random filters over int64, string
// and compound (g, k) keys (=, IN, ranges, BETWEEN, prefix LIKE, OR on one column, mixed with
// conditions on other columns), the indexed scan returns exactly the rows, order and row ids of the
// full scan; on a Delta table with deletion vectors, with the index built at an older version (files
// appended since are scanned in full); the fallbacks (--no-index, no usable index, a hash index for a
// range, a named index that cannot answer) and the report.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "rap/index/build.h"
#include "rap/index/indexed_scan.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/iceberg_hint.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

struct ScanOut {
  std::vector<std::string> rows;  // "<row id>:<row text>" in output order
  IndexedScanReport report;
  read::ScanStats stats;
};

Result<ScanOut> Scan(const std::string& url, const std::string& where, const IndexedScanOptions& io,
                     const std::vector<std::string>& columns = {}) {
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(url));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
  read::ScanOptions so;
  so.columns = columns;
  RAP_ASSIGN_OR_RETURN(so.filter, read::ParseExpr(where));
  so.batch_size = 500;
  so.file_parallelism = where.size() % 2 ? 2 : 1;  // the fan-out reads candidate rows too
  ScanOut out;
  RAP_ASSIGN_OR_RETURN(out.report, ApplyIndex(url, snap, so.filter, &src, io));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), so));
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    for (int64_t r = 0; r < b->batch.num_rows; ++r) {
      out.rows.push_back(std::to_string(b->row_ids[static_cast<size_t>(r)]) + ":" + rap::testing::RowText(b->batch, r));
    }
  }
  out.stats = scanner->stats();
  return out;
}

// The indexed scan equals the full scan; returns the indexed one's report.
IndexedScanReport ExpectSame(const std::string& url, const std::string& where, const IndexedScanOptions& io = {}) {
  SCOPED_TRACE(where);
  IndexedScanOptions off;
  off.disabled = true;
  auto full = Scan(url, where, off);
  auto indexed = Scan(url, where, io);
  EXPECT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_TRUE(indexed.ok()) << indexed.status().ToString();
  if (!full.ok() || !indexed.ok()) return {};
  EXPECT_FALSE(full->report.used);
  EXPECT_EQ(indexed->rows, full->rows);
  if (indexed->report.used) {
    EXPECT_LE(indexed->stats.rows_candidate, full->stats.rows_candidate);
  }
  return indexed->report;
}

std::string Lit(bool str, int64_t v) { return str ? fmt::format("'s{}'", v) : std::to_string(v); }

// A random condition on k (int64, str = false) or s (string "s<k>").
std::string RandomKeyCondition(std::mt19937_64& rng, bool str) {
  const std::string c = str ? "s" : "k";
  auto v = [&] { return static_cast<int64_t>(rng() % 440) - 20; };
  switch (rng() % 7) {
    case 0: return fmt::format("{} = {}", c, Lit(str, v()));
    case 1: return fmt::format("{} IN ({}, {}, {})", c, Lit(str, v()), Lit(str, v()), Lit(str, v()));
    case 2: return fmt::format("{} {} {}", c, rng() % 2 ? ">=" : ">", Lit(str, v()));
    case 3: return fmt::format("{} {} {}", c, rng() % 2 ? "<=" : "<", Lit(str, v()));
    case 4: return fmt::format("{} BETWEEN {} AND {}", c, Lit(str, v()), Lit(str, v()));
    case 5: return fmt::format("({} = {} OR {} < {})", c, Lit(str, v()), c, Lit(str, v()));
    default:
      if (str) return fmt::format("s LIKE 's{}%'", rng() % 40);
      return fmt::format("{} >= {} AND {} < {}", c, Lit(str, v()), c, Lit(str, v()));
  }
}

class IndexedScanTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new rap::testing::TempDir();
    rap::testing::IndexTableOptions o;
    o.files = 4;
    o.rows = 2000;
    o.key_space = 400;
    o.row_group_rows = 500;
    o.page_rows = 100;
    rap::testing::WriteIndexTable(dir_->Join("t"), o);
    auto build = [](const std::string& name, std::vector<std::string> key, IndexKind kind, int buckets) {
      BuildOptions b;
      b.name = name;
      b.key_columns = std::move(key);
      b.kind = kind;
      b.buckets = buckets;
      auto r = BuildIndex(dir_->Join("t"), b);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    };
    build("by_k", {"k"}, IndexKind::kHash, 4);
    build("by_s", {"s"}, IndexKind::kSorted, 3);
    build("by_gk", {"g", "k"}, IndexKind::kSorted, 2);
  }
  static void TearDownTestSuite() { delete dir_; }
  static rap::testing::TempDir* dir_;
};
rap::testing::TempDir* IndexedScanTest::dir_ = nullptr;

TEST(FilterKeyRanges, Shapes) {
  const std::vector<KeyColumn> k{{"k", KeyType::kInt64}};
  auto ranges = [&](const std::string& where, const std::vector<KeyColumn>& key) {
    auto e = read::ParseExpr(where);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return FilterKeyRanges(**e, key);
  };
  EXPECT_EQ(ranges("k = 5", k)->size(), 1u);
  EXPECT_TRUE(AllExactKeys(k, *ranges("k IN (3, 1, 3, NULL)", k)));
  EXPECT_EQ(ranges("k IN (3, 1, 3)", k)->size(), 2u);
  EXPECT_TRUE(ranges("k = 1 AND k = 2", k)->empty());
  EXPECT_EQ(ranges("k > 1 AND k <= 9 AND v > 2", k)->size(), 1u);
  EXPECT_FALSE(AllExactKeys(k, *ranges("k > 1", k)));
  EXPECT_FALSE(ranges("k = 1 OR v = 2", k));
  EXPECT_FALSE(ranges("NOT k = 1", k));
  EXPECT_FALSE(ranges("k != 1", k));
  EXPECT_FALSE(ranges("k = 1.5", k));
  EXPECT_FALSE(ranges("k = 'x'", k));
  EXPECT_FALSE(ranges("v = 1", k));
  const std::vector<KeyColumn> gk{{"g", KeyType::kInt32}, {"k", KeyType::kInt64}};
  auto both = ranges("g IN (1, 2) AND k BETWEEN 5 AND 9", gk);
  ASSERT_TRUE(both);
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[0].lo->key.parts.size(), 2u);
  EXPECT_TRUE(AllExactKeys(gk, *ranges("g = 1 AND k = 4", gk)));
  EXPECT_FALSE(ranges("k = 4", gk));  // the leading column is not bound
  EXPECT_EQ((*ranges("g > 0 AND k = 4", gk))[0].lo->key.parts.size(), 1u);
}

TEST(FilterParse, BetweenAndLike) {
  auto e = read::ParseExpr("s LIKE 'ab%' AND k NOT BETWEEN 1 AND 5");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->ToString(), "((s >= 'ab' AND s < 'ac') AND NOT (k >= 1 AND k <= 5))");
  EXPECT_FALSE(read::ParseExpr("s LIKE 'a_c%'").ok());
  EXPECT_FALSE(read::ParseExpr("s LIKE '%a'").ok());
  EXPECT_FALSE(read::ParseExpr("k BETWEEN 1 OR 2").ok());
}

TEST_F(IndexedScanTest, RandomFiltersEqualTheFullScan) {
  const std::string t = dir_->Join("t");
  std::mt19937_64 rng(33);
  int used = 0;
  for (int i = 0; i < 60; ++i) {
    std::string where;
    switch (i % 3) {
      case 0: where = RandomKeyCondition(rng, false); break;
      case 1: where = RandomKeyCondition(rng, true); break;
      default:
        where = fmt::format("g {} AND {}", rng() % 2 ? "= 1" : "IN (0, 2)", RandomKeyCondition(rng, false));
        break;
    }
    if (rng() % 3 == 0) where += rng() % 2 ? " AND v > 400" : " AND name IS NOT NULL";
    const IndexedScanReport rep = ExpectSame(t, where);
    used += rep.used ? 1 : 0;
    if (i % 3 == 1) {
      EXPECT_TRUE(rep.used) << where << ": " << rep.reason;
    }
  }
  EXPECT_GT(used, 30);
}

TEST_F(IndexedScanTest, ChoiceAndReport) {
  const std::string t = dir_->Join("t");
  IndexedScanReport r = ExpectSame(t, "k IN (5, 17)");
  EXPECT_TRUE(r.used);
  EXPECT_EQ(r.name, "by_k");
  EXPECT_EQ(r.kind, "hash");
  EXPECT_EQ(r.files_indexed, 4);
  EXPECT_EQ(r.files_unindexed, 0);
  EXPECT_NE(r.ToString().find("index_used by_k (hash, (k) in {5..5, 17..17})"), std::string::npos) << r.ToString();
  // A range: the hash index cannot, the compound sorted index needs its leading column.
  r = ExpectSame(t, "k > 390");
  EXPECT_FALSE(r.used);
  EXPECT_NE(r.reason.find("by_k: a hash index answers exact keys only"), std::string::npos) << r.reason;
  r = ExpectSame(t, "g = 2 AND k > 390");
  EXPECT_TRUE(r.used);
  EXPECT_EQ(r.name, "by_gk");
  r = ExpectSame(t, "g = 2 AND k = 392");  // exact keys beat the one-column hash index
  EXPECT_EQ(r.name, "by_gk");
  r = ExpectSame(t, "v > 3");
  EXPECT_FALSE(r.used);
  EXPECT_NE(r.ToString().find("index_used none ("), std::string::npos);
  r = ExpectSame(t, "s = 'nope'");  // no key: every file skipped unopened
  EXPECT_TRUE(r.used);
  EXPECT_EQ(r.files_with_rows, 0);
  // Named, disabled, and a named index that cannot answer.
  IndexedScanOptions named;
  named.name = "by_s";
  r = ExpectSame(t, "s >= 's39' AND k = 39", named);
  EXPECT_EQ(r.name, "by_s");
  IndexedScanOptions off;
  off.disabled = true;
  auto none = Scan(t, "k = 5", off);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->report.reason, "--no-index");
  named.name = "by_k";
  EXPECT_EQ(Scan(t, "k < 5", named).status().code(), StatusCode::kInvalidArgument);
  named.name = "missing";
  EXPECT_FALSE(Scan(t, "k = 5", named).ok());
}

// The listing started before the table opens (PrefetchIndexListing, as `rap scan` and rap.scan do)
// is the one ApplyIndex chooses from, and its scan equals the full scan; nothing is listed when no
// listing is needed.
TEST_F(IndexedScanTest, PrefetchedListingIsTheOneUsed) {
  const std::string t = dir_->Join("t");
  IndexedScanOptions io;
  PrefetchIndexListing(t, true, &io);
  ASSERT_TRUE(io.listing);
  IndexedScanReport r = ExpectSame(t, "k IN (5, 17)", io);
  EXPECT_TRUE(r.used);
  EXPECT_EQ(r.name, "by_k");
  // A listing taken before an index existed: ApplyIndex does not list again, so it does not see it.
  rap::testing::TempDir other;
  rap::testing::IndexTableOptions o;
  o.files = 2;
  o.rows = 500;
  rap::testing::WriteIndexTable(other.Join("t"), o);
  IndexedScanOptions early;
  PrefetchIndexListing(other.Join("t"), true, &early);
  ASSERT_TRUE(early.listing);
  early.listing->wait();
  BuildOptions b;
  b.key_columns = {"k"};
  ASSERT_TRUE(BuildIndex(other.Join("t"), b).ok());
  r = ExpectSame(other.Join("t"), "k = 5", early);
  EXPECT_FALSE(r.used);
  EXPECT_EQ(r.reason, "the table has no index under _rap_index/");
  EXPECT_TRUE(ExpectSame(other.Join("t"), "k = 5").used);  // listed now: found
  // Nothing to list: no filter, disabled, or a named index.
  for (int c = 0; c < 3; ++c) {
    IndexedScanOptions none;
    none.disabled = c == 1;
    if (c == 2) none.name = "by_k";
    PrefetchIndexListing(t, c != 0, &none);
    EXPECT_FALSE(none.listing) << c;
  }
}

// A file appended after the index was built is scanned in full; the others through the index.
TEST_F(IndexedScanTest, FilesNewerThanTheIndex) {
  rap::testing::TempDir d;
  const std::string t = d.Join("t");
  rap::testing::IndexTableOptions o;
  o.files = 2;
  o.rows = 1000;
  rap::testing::WriteIndexTable(t, o);
  BuildOptions b;
  b.key_columns = {"k"};
  b.kind = IndexKind::kSorted;
  ASSERT_TRUE(BuildIndex(t, b).ok());
  o.first_file = 2;
  o.files = 1;
  o.seed = 5;
  rap::testing::WriteIndexTable(t, o);
  const IndexedScanReport r = ExpectSame(t, "k BETWEEN 10 AND 30");
  EXPECT_TRUE(r.used);
  EXPECT_EQ(r.files_indexed, 2);
  EXPECT_EQ(r.files_unindexed, 1);
  // A damaged index: the automatic choice falls back to the full scan and says why; a named one fails.
  for (const auto& e : fs::directory_iterator(t + "/_rap_index/default/fragments")) fs::resize_file(e.path(), 10);
  const IndexedScanReport broken = ExpectSame(t, "k BETWEEN 10 AND 30");
  EXPECT_FALSE(broken.used);
  EXPECT_NE(broken.reason.find("default: "), std::string::npos) << broken.reason;
  IndexedScanOptions named;
  named.name = "default";
  EXPECT_FALSE(Scan(t, "k = 10", named).ok());
}

// A copy of a shared Delta table whose log grows by copy_log(upto).
struct DeltaCopy {
  std::string src, t;
  DeltaCopy(const std::string& from, const std::string& to) : src(from), t(to) {
    fs::create_directories(t + "/_delta_log");
    for (const auto& e : fs::directory_iterator(src)) {
      if (e.is_regular_file()) fs::copy_file(e.path(), t + "/" + e.path().filename().string());
    }
  }
  void copy_log(int64_t upto) {
    for (const auto& e : fs::directory_iterator(src + "/_delta_log")) {
      const std::string n = e.path().filename().string();
      if (n.size() < 20 || n[0] < '0' || n[0] > '9') continue;
      if (std::stoll(n.substr(0, 20)) <= upto && !fs::exists(t + "/_delta_log/" + n)) {
        fs::copy_file(e.path(), t + "/_delta_log/" + n);
      }
    }
  }
};

// Random `id` filters through an index equal the full scan; returns the last report.
IndexedScanReport RandomIdScans(const std::string& t, uint64_t seed, int n, int64_t space) {
  std::mt19937_64 rng(seed);
  IndexedScanReport last;
  for (int i = 0; i < n; ++i) {
    const int64_t a = static_cast<int64_t>(rng() % space) - 5, c = static_cast<int64_t>(rng() % space) - 5;
    const std::string where = i % 2 ? fmt::format("id BETWEEN {} AND {}", a, c) : fmt::format("id IN ({}, {})", a, c);
    last = ExpectSame(t, where);
    EXPECT_TRUE(last.used) << where << ": " << last.reason;
  }
  return last;
}

BuildOptions SortedById() {
  BuildOptions b;
  b.name = "by_id";
  b.key_columns = {"id"};
  b.kind = IndexKind::kSorted;
  b.buckets = 2;
  return b;
}

// Delta with deletion vectors: the index built at version 1, before the deletes (versions 2-4 re-add
// the file with deletion vectors): scans through it hide the rows the table deletes now.
TEST(IndexedScanDelta, DeletionVectorsNewerThanTheIndex) {
  rap::testing::TempDir dir;
  DeltaCopy d(rap::testing::SharedDir() + "/delta-tables/table_with_deletion_logs", dir.Join("t"));
  d.copy_log(1);
  ASSERT_TRUE(BuildIndex(d.t, SortedById()).ok());
  RandomIdScans(d.t, 7, 4, 130);
  d.copy_log(20);
  const IndexedScanReport r = RandomIdScans(d.t, 8, 10, 130);
  EXPECT_EQ(r.files_unindexed, 0);
  EXPECT_EQ(r.files_indexed, 1);
}

// Delta appends, an overwrite and a restore after the index (built at version 0): the files added
// since are scanned in full, the others read through the index.
TEST(IndexedScanDelta, AppendsNewerThanTheIndex) {
  rap::testing::TempDir dir;
  DeltaCopy d(rap::testing::SharedDir() + "/delta-tables/basic-with-inserts-overwrite-restore/delta", dir.Join("t"));
  d.copy_log(0);
  ASSERT_TRUE(BuildIndex(d.t, SortedById()).ok());
  IndexedScanReport r = RandomIdScans(d.t, 1, 4, 40);
  EXPECT_EQ(r.files_unindexed, 0);
  d.copy_log(1);
  r = RandomIdScans(d.t, 2, 6, 40);
  EXPECT_EQ(r.files_indexed, 2);
  EXPECT_EQ(r.files_unindexed, 2);
  d.copy_log(3);  // overwrite, then restore
  r = RandomIdScans(d.t, 3, 6, 40);
  EXPECT_GT(r.files_unindexed, 0);
}

// Iceberg with position delete files: the index built at the first metadata version with rows, the
// table then read at its newest (deletes and files added since): scans equal the full scan.
TEST(IndexedScanIceberg, PositionDeletesNewerThanTheIndex) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v2_pos_deletes_parquet", t, fs::copy_options::recursive);
  std::vector<int> versions;
  for (const auto& e : fs::directory_iterator(t + "/metadata")) {
    const std::string n = e.path().filename().string();
    if (n.size() > 15 && n[0] == 'v' && n.ends_with(".metadata.json")) versions.push_back(std::stoi(n.substr(1)));
  }
  std::sort(versions.begin(), versions.end());
  ASSERT_GE(versions.size(), 2u);
  auto point_at = [&](int v) { rap::testing::PointIcebergAt(t, v); };
  bool built = false;
  for (int v : versions) {
    point_at(v);
    if (!built) {
      BuildOptions b;
      b.key_columns = {"i"};
      b.kind = IndexKind::kSorted;
      built = BuildIndex(t, b).ok();  // the first versions may have no rows yet
      continue;
    }
    for (const char* where : {"i = 2", "i IN (1, 3, 5)", "i BETWEEN 2 AND 6", "i > 4"}) {
      const IndexedScanReport r = ExpectSame(t, where);
      EXPECT_TRUE(r.used) << where << ": " << r.reason;
    }
  }
  EXPECT_TRUE(built);
}

}  // namespace
}  // namespace rap::index
