// rap-test-labels: network concurrent
// The range planner's throughput evidence in a default scan (seed 000 with seed 001's prefetch): the
// default scan cuts row groups into ranges of about 1 MiB of projected bytes and reads them on
// several producers at once, so each of its plans moves less than the 1 MiB a plan needs to be a
// throughput sample on its own (seed 000's rule). Pooled over the scan's concurrent plans
// (plan/throughput_pool.h, ScanOptions::throughput_evidence), the same plans train the estimator;
// with the per-plan rule they never can. Over rap-netsim, whose throttle never delivers faster than
// its rate, so a pooled MiB always takes more than the rule's 10 ms (no timing is asserted).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rap/format/writer.h"
#include "rap/io/http_store.h"
#include "rap/plan/estimator.h"
#include "rap/plan/plan_record.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/util/units.h"
#include "testing/arrays.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

constexpr int kRowGroups = 2;
constexpr int64_t kRowsPerGroup = 1024;
constexpr int kPayloadColumns = 3;
constexpr size_t kValueBytes = 900;  // 3 columns x 1024 rows x 900 B: about 2.6 MiB per row group, 3 ranges
constexpr uint64_t kRate = 32 * kMiB;

// id, key (the filter column) and three string payload columns; PLAIN, uncompressed, 32 rows per
// page, with a page index (so the default scan splits each row group into ranges of about 1 MiB).
Result<std::string> MakeFile() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"id", MakeType(TypeId::kInt64), false}, {"key", MakeType(TypeId::kInt64), false}};
  for (int c = 0; c < kPayloadColumns; ++c) {
    schema->fields.push_back({"p" + std::to_string(c), MakeType(TypeId::kString), true});
  }
  std::mt19937_64 rng(35);
  std::vector<RecordBatch> batches;
  for (int g = 0; g < kRowGroups; ++g) {
    std::vector<std::optional<int64_t>> id, key;
    std::vector<std::vector<std::optional<std::string>>> payload(kPayloadColumns);
    for (int64_t r = 0; r < kRowsPerGroup; ++r) {
      id.push_back(g * kRowsPerGroup + r);
      key.push_back(static_cast<int64_t>(rng() % 1000));
      for (auto& col : payload) {
        std::string v(kValueBytes, 'a');
        for (char& ch : v) ch = static_cast<char>('a' + rng() % 26);
        col.push_back(std::move(v));
      }
    }
    RecordBatch b;
    b.schema = schema;
    b.num_rows = kRowsPerGroup;
    b.columns = {rap::testing::Fixed<int64_t>(schema->fields[0].type, id),
                 rap::testing::Fixed<int64_t>(schema->fields[1].type, key)};
    for (const auto& col : payload) b.columns.push_back(rap::testing::Strings(col));
    batches.push_back(std::move(b));
  }
  parquet::WriterOptions wo;
  wo.row_group_max_rows = kRowsPerGroup;
  wo.row_group_max_bytes = 0;
  wo.defaults.dictionary = false;
  wo.defaults.codec = parquet::Codec::UNCOMPRESSED;
  wo.defaults.page_max_rows = 32;
  wo.defaults.page_max_bytes = 0;
  wo.defaults.max_statistics_bytes = 16;
  return parquet::WriteParquetToString(schema, batches, wo);
}

class ScanThroughputEvidence : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bytes = MakeFile();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    size_ = bytes->size();
    rap::testing::WriteStringToFile(dir_.Join("data.parquet"), *bytes);
    rap::testing::NetsimOptions o;
    o.root = dir_.path();
    o.latency = "2ms";
    o.throughput = "32MiB/s";
    auto s = rap::testing::NetsimServer::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    auto store = io::MakeHttpStore(server_->url());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }

  // Scans every row (filter key >= 0) under `o`, planning from (and teaching) `estimator`; returns the
  // column-data plans.
  std::vector<plan::PlanRecord> Scan(ScanOptions o, const std::shared_ptr<plan::TransportEstimator>& estimator) {
    plan::PlanLog log;
    o.columns = {"id", "p0", "p1", "p2"};
    o.filter = *ParseExpr("key >= 0");
    o.reader.use_metadata_cache = false;
    o.reader.plan.estimator = estimator;
    o.reader.plan.log = &log;
    ScanSource src;
    src.store = store_;
    ScanFile file;
    file.path = "/data.parquet";
    file.size = size_;
    src.files.push_back(std::move(file));
    auto scanner = Scanner::Make(std::move(src), std::move(o));
    EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
    if (!scanner.ok()) return {};
    int64_t rows = 0;
    while (true) {
      auto b = (*scanner)->Next();
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (!b.ok() || !*b) break;
      rows += (*b)->batch.num_rows;
    }
    EXPECT_EQ(rows, kRowGroups * kRowsPerGroup);
    std::vector<plan::PlanRecord> data;
    for (auto& r : log.Records()) {
      if (r.purpose != "page_index") data.push_back(std::move(r));
    }
    return data;
  }

  // The default scan's shape: several plans, each below the per-plan sample size.
  static void ExpectPlansBelowTheSampleSize(const std::vector<plan::PlanRecord>& plans) {
    ASSERT_GE(plans.size(), 2u * kRowGroups) << "the row groups should be split into ranges";
    uint64_t total = 0;
    for (const auto& p : plans) {
      EXPECT_EQ(p.outcome, plan::PlanOutcomeKind::kSuccess);
      EXPECT_LT(p.payload_bytes, plan::EstimatorConfig().min_throughput_bytes) << p.purpose;
      total += p.payload_bytes;
    }
    EXPECT_GE(total, 4 * kMiB);
  }

  rap::testing::TempDir dir_;
  uint64_t size_ = 0;
  std::unique_ptr<rap::testing::NetsimServer> server_;
  io::ObjectStorePtr store_;
};

TEST_F(ScanThroughputEvidence, DefaultScanTrainsTheEstimatorFromPlansBelowTheSampleSize) {
  auto estimator = std::make_shared<plan::TransportEstimator>();
  const std::vector<plan::PlanRecord> plans = Scan(ScanOptions{}, estimator);
  ExpectPlansBelowTheSampleSize(plans);
  size_t pooled = 0;
  for (const auto& p : plans) {
    EXPECT_TRUE(p.throughput_pooled);
    EXPECT_FALSE(p.throughput_sample_added);
    pooled += p.pooled_samples_added;
  }
  const plan::TransportEstimate e = estimator->Estimate();
  EXPECT_GE(e.throughput_samples, 1u) << "no plan of the default scan produced throughput evidence";
  EXPECT_EQ(e.throughput_samples, std::min(pooled, estimator->config().window));
  // Shared throughput of the link, not inflated by small reads (the throttle never exceeds its rate).
  EXPECT_LE(e.throughput_bps, 2.0 * kRate);
}

TEST_F(ScanThroughputEvidence, SeedRuleCannotTrainOnTheSamePlans) {
  auto estimator = std::make_shared<plan::TransportEstimator>();
  ScanOptions o;
  o.throughput_evidence = plan::ThroughputEvidence::kPerPlan;
  const std::vector<plan::PlanRecord> plans = Scan(o, estimator);
  ExpectPlansBelowTheSampleSize(plans);
  for (const auto& p : plans) EXPECT_FALSE(p.throughput_pooled || p.throughput_sample_added);
  EXPECT_EQ(estimator->Estimate().throughput_samples, 0u);
  EXPECT_GE(estimator->Estimate().latency_samples, 1u);
}

}  // namespace
}  // namespace rap::read
