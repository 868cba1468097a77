// Scanner on a generated partitioned table: results equal a full scan filtered by hand (random
// filters, projections and limits; with and without statistics and page-index pruning), and late
// materialisation reads exactly the pages that hold candidate/selected rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "rap/format/writer.h"
#include "rap/read/fingerprint.h"
#include "rap/read/scanner.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::read {
namespace {

[[maybe_unused]] constexpr int kFiles = 3;  // MakeScanTable() writes this many files (documents the layout)
constexpr int64_t kRowsPerFile = 2000;
constexpr int64_t kRowGroupRows = 1000;

using rap::testing::ScanRows;

class ScannerTest : public ::testing::Test {
 protected:
  // kFiles x kRowsPerFile, row groups of 1000, pages of 100
  void SetUp() override { ASSERT_TRUE(table_.Write().ok()); }
  ScanSource Source() { return table_.Source(); }
  Result<ScanRows> Run(ScanOptions o) { return rap::testing::RunScan(Source(), std::move(o)); }

  rap::testing::LocalScanTable table_;
};

TEST_F(ScannerTest, RandomFiltersEqualFilteredFullScan) {
  // The reference: every column of every row, then filter and project by hand.
  auto full = rap::testing::ScanEverything(Source());
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  const Schema& schema = *full->schema;
  ASSERT_EQ(schema.fields.size(), 5u);  // id, v, s, d, part
  EXPECT_EQ(full->ids[0][0], 0u);
  EXPECT_EQ(full->ids.back().back(), (uint64_t{2} << 40) + kRowsPerFile - 1);

  std::mt19937_64 rng(11);
  const std::vector<std::string> kFilters = {
      "id >= 1500 AND id < 1720",
      "id = 4321",
      "v > 50 AND s IN ('kiwi', 'plum')",
      "s IS NULL OR v IS NULL",
      "NOT (d >= '2022-01-10') AND part != 'b'",
      "part = 'c' AND id < 4100",
      "v < 0",
      "id > 10000",
      "s >= 'p' AND NOT s = 'pear'",
      "(id < 100 OR id > 5900) AND v IS NOT NULL",
      // single-column conjuncts over nullable dictionary columns (evaluated per dictionary entry)
      "s IS NULL",
      "NOT (s = 'pear') AND d != '2022-01-10'",
      "s IS NOT NULL AND (s < 'm' OR s = 'plum') AND v >= 12.5",
  };
  const std::vector<std::string> names = {"id", "v", "s", "d", "part"};
  for (const std::string& text : kFilters) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(text + " variant " + std::to_string(variant));
      ScanOptions o;
      o.filter = *ParseExpr(text);
      std::vector<int> proj;
      for (int c = 0; c < 5; ++c) {
        if (rng() % 2) proj.push_back(c);
      }
      if (proj.empty()) proj.push_back(static_cast<int>(rng() % 5));
      std::shuffle(proj.begin(), proj.end(), rng);
      for (int c : proj) o.columns.push_back(names[static_cast<size_t>(c)]);
      o.limit = variant == 2 ? static_cast<int64_t>(rng() % 50) : -1;
      o.batch_size = variant == 1 ? 37 : 64 * 1024;
      auto want = rap::testing::FilterByHand(*full, o.filter, proj, o.limit);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      auto got = Run(o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->ids, want->ids);
      EXPECT_EQ(got->values, want->values);
      EXPECT_EQ(got->fingerprint, want->fingerprint);
      // Pruning settings and evaluation by dictionary never change the result.
      ScanOptions plain = o;
      plain.use_statistics = false;
      plain.use_page_index = false;
      plain.dictionary_filter = variant != 0;
      auto again = Run(plain);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(again->fingerprint, got->fingerprint);
      EXPECT_EQ(again->values, got->values);
      ScanOptions by_value = o;
      by_value.dictionary_filter = false;
      auto values_only = Run(by_value);
      ASSERT_TRUE(values_only.ok()) << values_only.status().ToString();
      EXPECT_EQ(values_only->stats.filter_dictionary_chunks, 0);
      EXPECT_EQ(values_only->fingerprint, got->fingerprint);
    }
  }
}

TEST_F(ScannerTest, PruningCounters) {
  ScanOptions o;
  o.filter = *ParseExpr("part = 'b' AND id >= 2500 AND id < 2650");
  o.columns = {"s", "v"};
  auto r = Run(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.size(), 150u);
  EXPECT_EQ(r->stats.files_pruned, 2);
  EXPECT_EQ(r->stats.row_groups, 2);
  EXPECT_EQ(r->stats.row_groups_pruned, 1);  // rows 2000..2999 of file b are row group 0 (ids 2000-2999)
  EXPECT_EQ(r->stats.rows_candidate, 200);    // pages [500,600) and [600,700) of that row group
  EXPECT_EQ(r->stats.rows_selected, 150);
}

// Late materialisation: read 1 decodes only the filter column's candidate pages, read 2 only the
// projected columns' pages that hold selected rows. The writer's page boundaries are every 100 rows,
// so the expected pages are computed from the OffsetIndex of the file by hand.
TEST_F(ScannerTest, LateMaterialisationReadsOnlyNeededPages) {
  ScanSource src = Source();
  auto reader = FileReader::Open(src.store, src.files[0].path);
  ASSERT_TRUE(reader.ok());
  const int v_col = (*reader)->schema().FindColumn("v");
  const int id_col = (*reader)->schema().FindColumn("id");
  ASSERT_GE(v_col, 0);
  // Filter on id selects rows 250..259 and 910 of row group 0 plus 1990 of row group 1.
  ScanOptions o;
  o.filter = *ParseExpr("(id >= 250 AND id < 260) OR id = 910 OR id = 1990");
  o.columns = {"v"};
  std::vector<ScanFile> only_first = {src.files[0]};
  src.files = only_first;
  auto scanner = Scanner::Make(src, o);
  ASSERT_TRUE(scanner.ok());
  int64_t rows = 0;
  while (true) {
    auto b = (*scanner)->Next();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    if (!*b) break;
    rows += (*b)->batch.num_rows;
  }
  EXPECT_EQ(rows, 12);
  // By hand from the OffsetIndex: the pages holding rows 250, 910 (row group 0) and 990 (row group 1).
  int64_t expect_pages = 0;
  for (int rg = 0; rg < 2; ++rg) {
    auto oi = (*reader)->GetOffsetIndex(rg, v_col);
    ASSERT_TRUE(oi.ok() && *oi);
    auto oid = (*reader)->GetOffsetIndex(rg, id_col);
    ASSERT_TRUE(oid.ok() && *oid);
    std::vector<int64_t> wanted_rows = rg == 0 ? std::vector<int64_t>{250, 910} : std::vector<int64_t>{990};
    for (const auto* index : {oi->get(), oid->get()}) {
      const auto& locs = index->page_locations;
      for (size_t k = 0; k < locs.size(); ++k) {
        int64_t end = k + 1 < locs.size() ? locs[k + 1].first_row_index : kRowGroupRows;
        for (int64_t want : wanted_rows) {
          if (want >= locs[k].first_row_index && want < end) ++expect_pages;
        }
      }
    }
  }
  EXPECT_EQ(expect_pages, 6);  // 3 pages of id (read 1) + 3 pages of v (read 2)
  EXPECT_EQ((*scanner)->stats().pages_read, expect_pages);
  EXPECT_EQ((*scanner)->stats().rows_candidate, 300);
}

// A conjunct of one dictionary-encoded column is evaluated on the chunk's dictionary (a projected
// one then takes its output values from the dictionary); a column that shares a conjunct with
// another column is evaluated on values.
TEST_F(ScannerTest, DictionaryFilterCounters) {
  struct Case {
    std::string filter;
    std::vector<std::string> columns;
    int64_t chunks;  // 6 row groups in the 3 files; none pruned by these filters
  };
  const std::vector<Case> cases = {
      {"s IN ('kiwi', 'plum')", {"id"}, 6},
      {"s IN ('kiwi', 'plum') AND d >= '2022-01-20'", {"id", "v"}, 12},
      {"s IN ('kiwi', 'plum') AND d >= '2022-01-20'", {"s", "d", "v"}, 12},  // projected filter columns
      {"(s = 'kiwi' OR d = '2022-01-15') AND v > 30", {"s", "v"}, 6},        // only v by its dictionary
      {"s = 'kiwi' OR d = '2022-01-15'", {"id"}, 0},                      // one conjunct, two columns
      {"(s = 'kiwi' OR s IS NULL) AND NOT v > 20", {"id"}, 12},
      {"(s = 'kiwi' OR s IS NULL) AND NOT v > 20", {"s", "id", "v"}, 12},  // NULLs among the output
      {"v > 10 AND v < 90 AND NOT v = 50", {"id"}, 6},                      // three conjuncts, one chunk each
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.filter);
    ScanOptions o;
    o.filter = *ParseExpr(c.filter);
    o.columns = c.columns;
    o.reader.use_metadata_cache = false;  // both runs read footers and page indexes alike
    auto got = Run(o);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->stats.filter_dictionary_chunks, c.chunks);
    EXPECT_GT(got->stats.rows_selected, 0);
    o.dictionary_filter = false;
    auto want = Run(o);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_EQ(want->stats.filter_dictionary_chunks, 0);
    EXPECT_EQ(got->fingerprint, want->fingerprint);
    EXPECT_EQ(got->values, want->values);
    EXPECT_EQ(got->stats.requests, want->stats.requests);  // the same reads either way
    EXPECT_EQ(got->stats.bytes, want->stats.bytes);
  }
}

TEST_F(ScannerTest, Errors) {
  ScanOptions o;
  o.columns = {"nope"};
  EXPECT_EQ(Scanner::Make(Source(), o).status().code(), StatusCode::kInvalidArgument);
  ScanOptions f;
  f.filter = *ParseExpr("id = 'x'");
  EXPECT_EQ(Scanner::Make(Source(), f).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rap::read
