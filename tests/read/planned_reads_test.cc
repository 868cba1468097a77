// Every multi-range read of the FileReader runs through the range planner (seed 000): column pages
// and page indexes are planned reads with the default policy of the store (exact for local files),
// page-index bytes inside the footer tail read are sliced from it without a request, and a scan can
// scope the planner's learning to itself or share the endpoint's estimator.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/plan/estimator.h"
#include "rap/plan/plan_record.h"
#include "rap/read/fingerprint.h"
#include "rap/read/file_reader.h"
#include "rap/read/scanner.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::read {
namespace {

class PlannedReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto files = rap::testing::MakeScanTable();
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    files_ = std::move(*files);
    rap::testing::WriteScanTable(dir_.Join("t"), files_);
    auto store = io::OpenUrl(dir_.Join("t"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = store->store;
    root_ = store->path;
  }

  // Rows 150..349 and 1450..1460 of the first file, columns id and s.
  Result<std::vector<RecordBatch>> ReadSome(FileReaderOptions options, ReaderStats* stats) {
    options.use_metadata_cache = false;  // every reader reads its own footer
    RAP_ASSIGN_OR_RETURN(auto reader, FileReader::Open(store_, io::JoinPath(root_, files_[0].relative_path), options));
    RAP_ASSIGN_OR_RETURN(Projection proj, reader->Project({"id", "s"}));
    RowSelection sel = RowSelection::FromRanges({{150, 350}, {1450, 1461}});
    auto batches = reader->ReadAll(sel, proj);
    *stats = reader->stats();
    return batches;
  }

  testing::TempDir dir_;
  std::vector<rap::testing::ScanTableFile> files_;
  io::ObjectStorePtr store_;
  std::string root_;
};

int64_t Rows(const std::vector<RecordBatch>& batches) {
  int64_t n = 0;
  for (const auto& b : batches) n += b.num_rows;
  return n;
}

std::string Fingerprint(const std::vector<RecordBatch>& batches) {
  Fingerprinter fp;
  uint64_t next = 0;
  for (const auto& b : batches) {
    std::vector<uint64_t> ids(static_cast<size_t>(b.num_rows));
    for (auto& id : ids) id = next++;
    EXPECT_TRUE(fp.Add(b, ids).ok());
  }
  return fp.ToString();
}

TEST_F(PlannedReadsTest, ColumnDataIsPlannedWithTheLocalDefaultPolicy) {
  plan::PlanLog log;
  FileReaderOptions o;
  o.plan.log = &log;  // no policy: the store's default
  ReaderStats stats;
  auto batches = ReadSome(o, &stats);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(Rows(*batches), 211);
  const auto records = log.Records();
  ASSERT_EQ(records.size(), 2u);  // one planned read per row group with selected rows
  uint64_t planned_requests = 0;
  for (const auto& r : records) {
    EXPECT_EQ(r.purpose, "data");
    EXPECT_EQ(r.policy, plan::PlanPolicy::Exact());  // local files: exact
    EXPECT_EQ(r.decided_by, plan::DecidedBy::kForcedPolicy);
    EXPECT_EQ(r.chosen_requests, r.exact_requests);
    EXPECT_EQ(r.outcome, plan::PlanOutcomeKind::kSuccess);
    planned_requests += r.chosen_requests;
  }
  // Every request of the read is either the footer tail or part of a logged plan.
  EXPECT_EQ(stats.requests, stats.tail_requests + static_cast<int64_t>(planned_requests));
}

TEST_F(PlannedReadsTest, PageIndexInsideTheTailNeedsNoRequest) {
  plan::PlanLog log;
  FileReaderOptions o;
  o.plan.log = &log;
  ReaderStats stats;
  ASSERT_TRUE(ReadSome(o, &stats).ok());
  // The test file is smaller than the 64 KiB tail read: the whole page index is in it.
  ASSERT_LT(files_[0].bytes.size(), o.tail_read_size);
  EXPECT_EQ(stats.tail_requests, 1);
  EXPECT_EQ(stats.page_index_from_tail, 4);  // offset indexes of id and s in two row groups
  for (const auto& r : log.Records()) EXPECT_NE(r.purpose, "page_index");
}

TEST_F(PlannedReadsTest, PageIndexOutsideTheTailIsOnePlannedRead) {
  plan::PlanLog log;
  FileReaderOptions small;
  small.tail_read_size = 8;  // only the footer length and magic: everything else is requested
  small.plan.log = &log;
  small.plan.policy = plan::PlanPolicy::FixedGap(1 << 20);
  ReaderStats stats;
  auto got = ReadSome(small, &stats);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(stats.page_index_from_tail, 0);
  int index_plans = 0, data_plans = 0;
  for (const auto& r : log.Records()) {
    if (r.purpose == "page_index") {
      ++index_plans;
      EXPECT_EQ(r.policy, plan::PlanPolicy::FixedGap(1 << 20));
      EXPECT_EQ(r.chosen_requests, 1u);  // two adjacent offset indexes, merged by the policy
      EXPECT_EQ(r.exact_requests, 2u);
    } else {
      EXPECT_EQ(r.purpose, "data");
      ++data_plans;
    }
  }
  EXPECT_EQ(index_plans, 2);  // the page index of each row group is loaded when the row group is read
  EXPECT_EQ(data_plans, 2);

  // Same rows and values as with the index taken from the tail.
  ReaderStats stats2;
  auto ref = ReadSome(FileReaderOptions{}, &stats2);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(Rows(*got), 211);
  EXPECT_EQ(Fingerprint(*got), Fingerprint(*ref));
}

TEST_F(PlannedReadsTest, ScanEstimatorScope) {
  // Local files report latency but never a throughput sample (no payload delivery time to measure
  // beyond the eligibility bound), so a trained state is made by hand: 3 + 3 samples.
  auto endpoint = plan::EstimatorRegistry::Global().Get(store_->endpoint());
  auto train = [&] {
    endpoint->Reset();
    for (int i = 0; i < 3; ++i) {
      endpoint->Report({plan::PlanOutcomeKind::kSuccess, 0.001, 4 << 20, 0.02});
    }
    ASSERT_TRUE(endpoint->Estimate().Trained(3));
  };
  auto run = [&](ScanOptions::EstimatorScope scope, plan::PlanLog* log) {
    ScanOptions o;
    o.filter = *ParseExpr("id < 3000");
    o.columns = {"id", "s"};
    o.estimator_scope = scope;
    o.reader.use_metadata_cache = false;
    o.reader.plan.policy = plan::PlanPolicy::Auto();
    o.reader.plan.log = log;
    auto rows = rap::testing::RunScan(rap::testing::ScanTableSource(store_, root_, files_), std::move(o));
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  };
  // kEndpoint: plans from the trained endpoint estimator.
  train();
  plan::PlanLog shared_log;
  run(ScanOptions::EstimatorScope::kEndpoint, &shared_log);
  ASSERT_GT(shared_log.size(), 0u);
  for (const auto& r : shared_log.Records()) {
    EXPECT_GE(r.throughput_samples, 3u);
    EXPECT_NE(r.decided_by, plan::DecidedBy::kColdStart);
  }
  // kScan: starts cold although the endpoint is trained, and still teaches the endpoint.
  train();
  const size_t before = endpoint->Estimate().latency_samples;
  plan::PlanLog scan_log;
  run(ScanOptions::EstimatorScope::kScan, &scan_log);
  const auto records = scan_log.Records();
  ASSERT_GT(records.size(), 0u);
  EXPECT_EQ(records[0].latency_samples, 0u);
  for (const auto& r : records) EXPECT_EQ(r.decided_by, plan::DecidedBy::kColdStart);
  EXPECT_EQ(endpoint->Estimate().latency_samples, std::min<size_t>(9, before + records.size()))
      << "a scan-scoped estimator still reports to the endpoint's";
  endpoint->Reset();
}

}  // namespace
}  // namespace rap::read
