// rap-test-labels: concurrent
// Scanner reading several files at once (ScanOptions::file_parallelism, src/read/scanner_fanout.cc):
// the same rows, row ids, values, order and fingerprint as file at a time, for filters, projections,
// limits, batch sizes and small queues; a scan dropped mid-way or cancelled through its token ends
// with every thread joined; an error of a later file surfaces in order. Also run under ThreadSanitizer.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/read/scanner.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::read {
namespace {

class ScannerFanOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::ScanTableOptions t;
    t.files = 5;
    t.rows_per_file = 1200;
    t.row_group_rows = 300;
    t.page_rows = 50;
    ASSERT_TRUE(table_.Write(t).ok());
  }
  rap::testing::LocalScanTable table_;
};

TEST_F(ScannerFanOutTest, SameResultAsFileAtATime) {
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
      {"id >= 1200 AND id < 4100", {"id"}, 1000, 300},  // the limit ends the scan in a later file
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
    o.file_parallelism = 1;
    auto one = rap::testing::RunScan(table_.Source(), o);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    for (int files : {2, 3, 8}) {
      for (int64_t queue : {int64_t{1}, int64_t{600}}) {
        SCOPED_TRACE("files " + std::to_string(files) + " queue " + std::to_string(queue));
        ScanOptions p = o;
        p.file_parallelism = files;
        p.prefetch.queue_batches = queue;
        auto many = rap::testing::RunScan(table_.Source(), p);
        ASSERT_TRUE(many.ok()) << many.status().ToString();
        EXPECT_EQ(many->ids, one->ids);
        EXPECT_EQ(many->values, one->values);
        EXPECT_EQ(many->fingerprint, one->fingerprint);
        EXPECT_EQ(many->stats.rows_output, one->stats.rows_output);
        if (c.limit < 0) {
          EXPECT_EQ(many->stats.files, one->stats.files);
          EXPECT_EQ(many->stats.rows_selected, one->stats.rows_selected);
          EXPECT_EQ(many->stats.pages_read, one->stats.pages_read);
        }
      }
    }
  }
}

TEST_F(ScannerFanOutTest, DroppedMidScanJoinsEveryThread) {
  for (int taken : {0, 1, 5}) {
    ScanOptions o;
    o.file_parallelism = 4;
    o.batch_size = 100;
    o.prefetch.queue_batches = 4;  // the files' threads wait for room
    auto s = Scanner::Make(table_.Source(), o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (int i = 0; i < taken; ++i) {
      auto b = (*s)->Next();
      ASSERT_TRUE(b.ok() && b->has_value());
    }
    s->reset();  // must return: every file thread stopped and joined
  }
}

TEST_F(ScannerFanOutTest, CancelledTokenEndsTheScan) {
  auto token = std::make_shared<io::CancellationToken>();
  ScanOptions o;
  o.file_parallelism = 3;
  o.batch_size = 50;
  o.prefetch.queue_batches = 3;
  o.cancel = token;
  auto s = Scanner::Make(table_.Source(), o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto b = (*s)->Next();
  ASSERT_TRUE(b.ok() && b->has_value()) << (b.ok() ? "end" : b.status().ToString());
  token->Cancel();
  Status end;
  int64_t batches = 0;
  for (;;) {  // batches queued before the cancel may still come; then Cancelled
    auto n = (*s)->Next();
    if (!n.ok()) {
      end = n.status();
      break;
    }
    if (!n->has_value()) break;
    ASSERT_LT(++batches, 10000);
  }
  EXPECT_TRUE(end.Is(StatusCode::kCancelled)) << end.ToString();
}

TEST_F(ScannerFanOutTest, LaterFileErrorComesInOrder) {
  ScanSource src = table_.Source();
  src.files[3].path += ".missing";
  ScanOptions o;
  o.file_parallelism = 4;
  o.columns = {"id"};
  o.batch_size = 100;
  auto s = Scanner::Make(src, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int64_t rows = 0;
  Status end;
  for (;;) {
    auto n = (*s)->Next();
    if (!n.ok()) {
      end = n.status();
      break;
    }
    ASSERT_TRUE(n->has_value()) << "the scan ended without the missing file's error";
    rows += (*n)->batch.num_rows;
  }
  EXPECT_EQ(rows, 3 * 1200);  // the three files before it, whole
  EXPECT_TRUE(end.Is(StatusCode::kNotFound)) << end.ToString();
  EXPECT_NE(end.message().find(".missing"), std::string::npos) << end.message();
  EXPECT_FALSE((*s)->Next().ok());  // the error stays
}

}  // namespace
}  // namespace rap::read
