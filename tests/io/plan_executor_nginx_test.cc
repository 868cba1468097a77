// ReadPlanned against a real nginx on loopback: under every policy the bytes handed back for each exact
// range equal the file's bytes, and successful plans feed the estimator while failed ones do not.
// rap-test-labels: network
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/util/units.h"

#include "testing/nginx_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

using plan::PlanOutcomeKind;
using plan::PlanPolicy;
using plan::TransportEstimator;

std::string Pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = 2463534242u + seed;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s[i] = static_cast<char>(x & 0xff);
  }
  return s;
}

std::vector<ByteRange> RandomRanges(std::mt19937_64& rng, uint64_t size, size_t n) {
  std::vector<ByteRange> out;
  std::uniform_int_distribution<uint64_t> off(0, size - 1);
  for (size_t i = 0; i < n; ++i) {
    ByteRange r{off(rng), 0};
    r.length = std::uniform_int_distribution<uint64_t>(0, std::min<uint64_t>(size - r.offset, 40000))(rng);
    out.push_back(r);
    if (i % 7 == 0) out.push_back(r);
    if (i % 11 == 0 && r.end() + 10 <= size) out.push_back({r.end(), 10});
  }
  return out;
}

void ExpectBytes(const std::string& data, std::span<const ByteRange> ranges, const std::vector<Buffer>& bufs) {
  ASSERT_EQ(bufs.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    ASSERT_EQ(bufs[i].view(), std::string_view(data).substr(ranges[i].offset, ranges[i].length))
        << "range " << i << " " << ranges[i].ToString();
  }
}

TEST(NginxPlannedRead, EveryPolicyReturnsTheFileBytes) {
  rap::testing::TempDir dir;
  const std::string data = Pattern(5 * kMiB + 77, 11);
  rap::testing::WriteStringToFile(dir.Join("obj.bin"), data);
  rap::testing::NginxServer server(dir.path());
  if (!server.ok()) GTEST_SKIP() << server.error();
  auto store = MakeHttpStore(server.base_url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(DefaultPlanPolicy(**store), PlanPolicy::Auto());
  auto est = std::make_shared<TransportEstimator>();
  std::mt19937_64 rng(7);
  for (const char* p : {"exact", "fixed:1MiB", "store", "auto", "auto", "auto", "auto"}) {
    std::vector<ByteRange> ranges = RandomRanges(rng, data.size(), 80);
    PlanOptions opts;
    opts.policy = *plan::ParsePlanPolicy(p);
    opts.estimator = est;
    plan::PlanRecord rec;
    auto bufs = ReadPlanned(**store, "/obj.bin", ranges, opts, &rec);
    ASSERT_TRUE(bufs.ok()) << p << ": " << bufs.status().ToString();
    ASSERT_NO_FATAL_FAILURE(ExpectBytes(data, ranges, *bufs)) << p;
    EXPECT_EQ(rec.outcome, PlanOutcomeKind::kSuccess);
    EXPECT_TRUE(rec.latency_sample_added);
    EXPECT_EQ(rec.payload_bytes, rec.chosen_bytes) << p;
  }
  EXPECT_EQ(est->Estimate().latency_samples, 7u);
  // A missing object fails and adds nothing.
  std::vector<ByteRange> one = {{0, 10}};
  PlanOptions opts;
  opts.estimator = est;
  EXPECT_FALSE(ReadPlanned(**store, "/missing.bin", one, opts).ok());
  EXPECT_EQ(est->Estimate().latency_samples, 7u);
}

}  // namespace
}  // namespace rap::io
