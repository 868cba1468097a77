// rap-test-labels: concurrent
// Scanner with ranges decoded by prefetch producers (ScanOptions::prefetch, warmup off): the same
// batches, rows, values, order, statistics and fingerprint as the plain path, for filters,
// projections, limits and batch sizes; errors of any range end the scan cleanly. Also run under
// ThreadSanitizer. (prefetch_test.cc covers warmup and range splitting.)
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/read/scanner.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::read {
namespace {

class ScannerParallelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::ScanTableOptions t;
    t.files = 2;
    t.rows_per_file = 3000;
    t.row_group_rows = 250;  // 12 row groups per file: more ranges than producers
    t.page_rows = 50;
    ASSERT_TRUE(table_.Write(t).ok());
  }

  ScanSource Source() { return table_.Source(); }

  rap::testing::LocalScanTable table_;
};

TEST_F(ScannerParallelTest, SameResultForAnyThreadCount) {
  struct Case {
    std::string filter;
    std::vector<std::string> columns;
    int64_t limit;
    int64_t batch_size;
  };
  const std::vector<Case> cases = {
      {"", {}, -1, 1000},
      {"v > 50 AND s IN ('kiwi', 'plum')", {"id", "d"}, -1, 64},
      {"s IS NULL OR v IS NULL", {"s", "v", "part"}, -1, 7},
      {"id >= 1200 AND id < 4100", {"id"}, 1000, 300},  // the limit ends the scan mid-file
      {"d >= '2022-01-20'", {"id", "s"}, 3, 2},
      {"id < 0", {"id"}, -1, 100},  // nothing selected
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.filter + " limit " + std::to_string(c.limit));
    ScanOptions o;
    if (!c.filter.empty()) o.filter = *ParseExpr(c.filter);
    o.columns = c.columns;
    o.limit = c.limit;
    o.batch_size = c.batch_size;
    o.reader.use_metadata_cache = false;
    o.prefetch.producers = 1;  // the plain sequential path
    o.prefetch.min_file_bytes = 0;
    o.warmup.level = WarmupLevel::kNone;
    auto one = rap::testing::RunScan(Source(), o);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    for (int threads : {2, 3, 8}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      ScanOptions p = o;
      p.prefetch.producers = threads;
      auto many = rap::testing::RunScan(Source(), p);
      ASSERT_TRUE(many.ok()) << many.status().ToString();
      EXPECT_EQ(many->ids, one->ids);
      EXPECT_EQ(many->values, one->values);
      EXPECT_EQ(many->fingerprint, one->fingerprint);
      EXPECT_EQ(many->stats.rows_output, one->stats.rows_output);
      if (c.limit < 0) {  // with a limit, row groups after it may or may not have been evaluated
        EXPECT_EQ(many->stats.row_groups, one->stats.row_groups);
        EXPECT_EQ(many->stats.rows_selected, one->stats.rows_selected);
        EXPECT_EQ(many->stats.pages_read, one->stats.pages_read);
        EXPECT_EQ(many->stats.bytes, one->stats.bytes);
      }
    }
  }
}

// A scan dropped after its first batch, with row groups still in flight: the scanner waits for them
// (ASan/TSan, which run this test, would report a use after free or a race otherwise).
TEST_F(ScannerParallelTest, AbandonedScanWaitsForItsRowGroups) {
  for (int threads : {2, 4}) {
    ScanOptions o;
    o.prefetch.producers = threads;
    o.batch_size = 10;
    auto scanner = Scanner::Make(Source(), o);
    ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
    auto first = (*scanner)->Next();
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    ASSERT_TRUE(first->has_value());
    EXPECT_EQ((*first)->batch.num_rows, 10);
    scanner->reset();
  }
}

TEST_F(ScannerParallelTest, RowGroupErrorEndsTheScan) {
  // Corrupt the second file's column data (its footer stays intact): a row group fails, the error
  // comes back from Next(), and the scan neither hangs nor crashes.
  std::string bytes = table_.files()[1].bytes;
  for (size_t i = 4; i < bytes.size() / 2; i += 7) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  testing::WriteStringToFile(table_.root() + "/" + table_.files()[1].relative_path, bytes);
  ScanOptions o;
  o.filter = *ParseExpr("v > 10");
  o.prefetch.producers = 4;
  o.reader.use_metadata_cache = false;
  auto r = rap::testing::RunScan(Source(), o);
  EXPECT_FALSE(r.ok());
  // The error is sticky: Next() keeps returning it.
  auto scanner = Scanner::Make(Source(), o);
  ASSERT_TRUE(scanner.ok());
  Status first_error;
  for (int i = 0; i < 1000 && first_error.ok(); ++i) {
    auto b = (*scanner)->Next();
    if (!b.ok()) first_error = b.status();
    else if (!b->has_value()) break;
  }
  ASSERT_FALSE(first_error.ok());
  auto again = (*scanner)->Next();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().ToString(), first_error.ToString());
  ScanOptions zero = o;
  zero.prefetch.producers = 0;
  EXPECT_EQ(Scanner::Make(Source(), zero).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rap::read
