// PlanRecord, its CSV form and the thread-safe PlanLog.
// rap-test-labels: concurrent
#include "rap/plan/plan_record.h"

#include <cmath>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace rap::plan {
namespace {

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

PlanDecision SampleDecision() {
  std::vector<ByteRange> in;
  for (uint64_t i = 0; i < 20; ++i) in.push_back({i * 2000, 1000});
  RangeSet s = *NormalizeRanges(in);
  TransportEstimate e;
  e.latency_samples = 4;
  e.throughput_samples = 3;
  e.latency_s = 0.03;
  e.throughput_bps = 1e6;
  return RangePlanner().Plan(s, PlanPolicy::Auto(), e);
}

TEST(PlanRecord, FromDecision) {
  PlanRecord r = MakePlanRecord(SampleDecision());
  EXPECT_EQ(r.decided_by, DecidedBy::kCostMerged);
  EXPECT_EQ(r.latency_samples, 4u);
  EXPECT_EQ(r.throughput_samples, 3u);
  EXPECT_EQ(r.exact_requests, 20u);
  EXPECT_EQ(r.exact_bytes, 20'000u);
  EXPECT_EQ(r.chosen_requests, 10u);
  EXPECT_EQ(r.chosen_bytes, 30'000u);
  EXPECT_DOUBLE_EQ(r.estimated_s, 0.06);
  EXPECT_TRUE(std::isnan(r.observed_s));
  SetObservedTime(&r, 0.08);
  EXPECT_DOUBLE_EQ(r.observed_s, 0.08);
  EXPECT_DOUBLE_EQ(r.prediction_error, 0.25);  // (0.08 - 0.06) / 0.08: the model was optimistic
  SetObservedTime(&r, 0.05);
  EXPECT_DOUBLE_EQ(r.prediction_error, -0.2);
}

TEST(PlanRecord, PredictionErrorUnknownWithoutEstimate) {
  PlanRecord r;
  SetObservedTime(&r, 0.1);
  EXPECT_TRUE(std::isnan(r.prediction_error));
}

TEST(PlanRecord, CsvRowMatchesHeader) {
  PlanRecord r = MakePlanRecord(SampleDecision());
  r.object = "dir/a,\"b\".parquet";
  r.endpoint = "http://127.0.0.1:8080";
  r.purpose = "page_index";
  r.outcome = PlanOutcomeKind::kSuccess;
  r.throughput_sample_added = true;
  SetObservedTime(&r, 0.08);
  std::vector<std::string> header = SplitCsv(PlanRecordCsvHeader());
  std::vector<std::string> row = SplitCsv(PlanRecordCsvRow(r));
  ASSERT_EQ(header.size(), row.size());
  auto field = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  EXPECT_EQ(field("object"), "dir/a,\"b\".parquet");
  EXPECT_EQ(field("purpose"), "page_index");
  EXPECT_EQ(field("policy"), "auto");
  EXPECT_EQ(field("decided_by"), "cost_merged");
  EXPECT_EQ(field("exact_requests"), "20");
  EXPECT_EQ(field("chosen_bytes"), "30000");
  EXPECT_EQ(field("typical_latency_s"), "0.03");
  EXPECT_EQ(field("observed_s"), "0.08");
  EXPECT_EQ(field("prediction_error"), "0.25");
  EXPECT_EQ(field("outcome"), "success");
  EXPECT_EQ(field("throughput_sample_added"), "1");
  EXPECT_EQ(field("latency_sample_added"), "0");
  EXPECT_EQ(field("plan_latency_s"), "");  // NaN is an empty field
}

TEST(PlanLog, CollectsFromManyThreadsAndWritesCsv) {
  PlanLog log;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        PlanRecord r;
        r.object = "t" + std::to_string(t);
        r.exact_requests = static_cast<uint64_t>(i);
        log.Add(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(log.size(), 400u);
  std::ostringstream out;
  log.WriteCsv(out);
  std::istringstream in(out.str());
  std::string line;
  size_t lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 401u);
  EXPECT_EQ(out.str().substr(0, 7), "object,");
  log.Clear();
  EXPECT_EQ(log.size(), 0u);
}

}  // namespace
}  // namespace rap::plan
