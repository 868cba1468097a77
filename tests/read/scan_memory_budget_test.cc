// rap-test-labels: concurrent
// ScanOptions::memory_limit over a multi-file table: 3 producers with RAW and DECODED warmup under a
// budget much smaller than what the scan would hold unbounded return exactly the rows, order and
// fingerprint of the unbounded plain scan (the producers and the warmup back off, they never fail);
// the budget's peak is reported; a budget smaller than one decompressed page is ResourceExhausted
// naming the file, the column, the page offset and the sizes. Also run under ThreadSanitizer.
#include <gtest/gtest.h>

#include <iostream>

#include "rap/read/scanner.h"
#include "testing/scan_table.h"

namespace rap::read {
namespace {

class ScanMemoryBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::ScanTableOptions t;
    t.files = 3;
    t.rows_per_file = 6000;
    t.row_group_rows = 500;
    t.page_rows = 100;
    ASSERT_TRUE(table_.Write(t).ok());
  }
  ScanOptions Base() const {
    ScanOptions o;
    o.reader.use_metadata_cache = false;
    o.batch_size = 200;
    return o;
  }
  rap::testing::LocalScanTable table_;
};

TEST_F(ScanMemoryBudgetTest, SmallBudgetGivesTheSameRows) {
  ScanOptions plain = Base();
  plain.prefetch.producers = 1;
  plain.warmup.level = WarmupLevel::kNone;
  plain.memory_limit = 0;
  auto expected = rap::testing::RunScan(table_.Source(), plain);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_EQ(expected->ids.size(), 18000u);

  ScanOptions unbounded = Base();
  unbounded.prefetch.producers = 3;
  unbounded.prefetch.min_file_bytes = 0;
  unbounded.prefetch.ranges.natural_read_size = 4 << 10;
  unbounded.memory_limit = uint64_t{1} << 40;
  auto big = rap::testing::RunScan(table_.Source(), unbounded);
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->fingerprint, expected->fingerprint);

  for (WarmupLevel level : {WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
    for (const char* filter : {"", "v > 30 AND s IN ('kiwi', 'plum')"}) {
      SCOPED_TRACE(std::string("warmup ") + (level == WarmupLevel::kRaw ? "raw" : "decoded") + " filter " + filter);
      ScanOptions o = unbounded;
      o.warmup.level = level;
      // A quarter of what the unbounded scan held at its peak: the producers must wait for room.
      o.memory_limit = std::max<uint64_t>(big->stats.memory_peak / 4, 1);
      ScanOptions p = plain;
      if (*filter) {
        o.filter = *ParseExpr(filter);
        p.filter = o.filter;
      }
      auto want = rap::testing::RunScan(table_.Source(), p);
      ASSERT_TRUE(want.ok());
      auto got = rap::testing::RunScan(table_.Source(), o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->ids, want->ids);
      EXPECT_EQ(got->values, want->values);
      EXPECT_EQ(got->fingerprint, want->fingerprint);
      EXPECT_GT(got->stats.memory_peak, 0u);
      std::cout << "budget " << o.memory_limit << " (unbounded peak " << big->stats.memory_peak << "): peak "
                << got->stats.memory_peak << ", producer waits " << got->stats.memory_waits << ", warmup partial "
                << got->stats.warmup_partial << "\n";
      EXPECT_EQ(got->stats.prefetch.files_parallel, 3);
    }
  }
}

TEST_F(ScanMemoryBudgetTest, BudgetSmallerThanOnePageIsResourceExhausted) {
  ScanOptions o = Base();
  o.prefetch.min_file_bytes = 0;
  o.memory_limit = 16;  // every compressed page decompresses to more
  auto got = rap::testing::RunScan(table_.Source(), o);
  ASSERT_FALSE(got.ok());
  const Status& st = got.status();
  EXPECT_TRUE(st.Is(StatusCode::kResourceExhausted)) << st.ToString();
  EXPECT_NE(st.message().find("part=a/data.parquet: column '"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("page at offset "), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(" bytes, more than the memory budget of 16 bytes"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace rap::read
