// rap-test-labels: network concurrent
// Hedged range reads (HedgeOptions, src/io/hedge_policy.h) against rap-netsim with injected stalls
// (headers, then nothing for 1.5 s): every read returns exactly its bytes, reads held up by a
// stall are far fewer with hedging than without, the duplicates stay within the cap, cancelled
// losers leave nothing behind, and the policy's estimator learns only from successful winners.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "io/hedge_policy.h"
#include "io/http_client.h"
#include "rap/io/http_store.h"
#include "rap/io/store_metrics.h"
#include "rap/util/clock.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"
#include "testing/result_check.h"

namespace rap::io {
namespace {

constexpr int kReads = 300;

struct RunResult {
  int slow_reads = 0;      // reads that took longer than 0.75 s (a 1.5 s stall held them up)
  int stalls = 0;          // stalls rap-netsim injected
  uint64_t hedges_sent = 0, hedges_won = 0;
  uint64_t requests = 0;   // requests rap-netsim saw
  bool bytes_ok = true;
};

class HedgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(3);
    data_.resize(256 << 10);
    for (char& c : data_) c = static_cast<char>(rng());
    rap::testing::WriteStringToFile(dir_.Join("obj.bin"), data_);
  }

  RunResult Run(bool hedge) {
    rap::testing::NetsimOptions no;
    no.root = dir_.path();
    no.latency = "5ms";
    no.extra_args = {"--seed", "17"};
    auto srv = rap::testing::NetsimServer::Start(no);
    EXPECT_TRUE(srv.ok()) << srv.status().ToString();
    RunResult r;
    if (!srv.ok()) return r;
    HttpOptions ho;
    ho.hedge.enabled = hedge;
    auto store = MakeHttpStore((*srv)->url(), ho);
    RAP_TEST_CHECK_OK(store);
    // Warm-up (trains the estimator), then stalls on 3% of the requests.
    std::mt19937_64 rng(5);
    auto read_one = [&](double* seconds) {
      const uint64_t off = rng() % (data_.size() - 4096), len = 1 + rng() % 4096;
      const ByteRange range{off, len};
      const double t0 = NowSeconds();
      auto bufs = (*store)->ReadRanges("/obj.bin", std::span<const ByteRange>(&range, 1), ReadOptions{}, nullptr);
      *seconds = NowSeconds() - t0;
      if (!bufs.ok() || bufs->size() != 1 ||
          std::string(reinterpret_cast<const char*>((*bufs)[0].data()), (*bufs)[0].size()) != data_.substr(off, len)) {
        r.bytes_ok = false;
      }
    };
    double s = 0;
    for (int i = 0; i < 40; ++i) read_one(&s);
    EXPECT_TRUE((*srv)->ResetStats().ok());
    EXPECT_TRUE((*srv)->AddFault("kind=stall&seconds=1.5&prob=0.03&count=-1").ok());
    const auto before = StoreMetrics::Global().Snapshot(StoreKind::kHttp);
    for (int i = 0; i < kReads; ++i) {
      read_one(&s);
      if (s > 0.75) ++r.slow_reads;
    }
    const auto after = StoreMetrics::Global().Snapshot(StoreKind::kHttp);
    r.hedges_sent = after.hedges_sent - before.hedges_sent;
    r.hedges_won = after.hedges_won - before.hedges_won;
    auto stats = (*srv)->Stats();
    EXPECT_TRUE(stats.ok());
    if (stats.ok()) {
      r.requests = stats->total.requests;
      r.stalls = static_cast<int>(stats->faults["stall"]);
    }
    return r;
  }

  rap::testing::TempDir dir_;
  std::string data_;
};

TEST_F(HedgeTest, FewerSlowReadsSameBytesWithinTheCap) {
  const RunResult plain = Run(false), hedged = Run(true);
  EXPECT_TRUE(plain.bytes_ok);
  EXPECT_TRUE(hedged.bytes_ok);
  // Without hedging every stalled request is a slow read.
  EXPECT_EQ(plain.hedges_sent, 0u);
  ASSERT_GE(plain.stalls, 3) << "too few stalls injected for the comparison";
  EXPECT_GE(plain.slow_reads, plain.stalls);
  // With hedging a stalled request gets a duplicate that answers first.
  EXPECT_GE(hedged.hedges_won, 1u);
  EXPECT_LT(hedged.slow_reads * 3, plain.slow_reads) << "hedged " << hedged.slow_reads << ", plain " << plain.slow_reads;
  // The cap: duplicates <= 5% of the requests (+ a burst of 2), counted by the server as well.
  const HedgeOptions defaults;
  EXPECT_LE(static_cast<double>(hedged.hedges_sent), defaults.max_fraction * (kReads + 40) + defaults.burst);
  // The server saw no request the client did not count: at most the reads and their duplicates, and
  // at least the reads plus the duplicates that won. (Not always all duplicates: one abandoned when
  // its original answered first may be cancelled before rap-netsim counts it — a fresh-clone run saw
  // 313 requests for 300 reads and 14 duplicates, 13 of them won.)
  EXPECT_LE(hedged.requests, static_cast<uint64_t>(kReads) + hedged.hedges_sent);
  EXPECT_GE(hedged.requests, static_cast<uint64_t>(kReads) + hedged.hedges_won);
  std::printf("plain: %d slow of %d reads (%d stalls); hedged: %d slow, %llu hedges sent, %llu won (%d stalls)\n",
              plain.slow_reads, kReads, plain.stalls, hedged.slow_reads,
              static_cast<unsigned long long>(hedged.hedges_sent), static_cast<unsigned long long>(hedged.hedges_won),
              hedged.stalls);
}

// One HttpClient with hedging over rap-netsim (5 ms), warmed up with 30 reads; `fault` then makes
// the next requests stall (rap-netsim counts the duplicates as requests too).
class HedgeClientTest : public HedgeTest {
 protected:
  struct Read {
    double seconds = 0;
    uint64_t sent = 0, won = 0;
    bool ok = false;
  };
  Read StalledRead(int max_duplicates, const std::string& fault, double* delay_before = nullptr,
                   double* last_sample = nullptr) {
    Read out;
    rap::testing::NetsimOptions no;
    no.root = dir_.path();
    no.latency = "5ms";
    auto srv = rap::testing::NetsimServer::Start(no);
    EXPECT_TRUE(srv.ok()) << srv.status().ToString();
    if (!srv.ok()) return out;
    HttpOptions ho;
    ho.hedge.enabled = true;
    ho.hedge.max_duplicates = max_duplicates;
    HttpClient client((*srv)->url(), ho);
    auto read = [&](uint64_t off) {
      HttpRequest r;
      r.url = (*srv)->url() + "/obj.bin";
      r.object = "obj.bin";
      r.kind = HttpRequest::Kind::kRange;
      r.range = ByteRange{off, 1000};
      auto resp = client.Run({r}, ReadOptions{}, nullptr);
      return resp.ok() && resp->size() == 1 &&
             std::string(reinterpret_cast<const char*>((*resp)[0].body.data()), (*resp)[0].body.size()) ==
                 data_.substr(off, 1000);
    };
    for (int i = 0; i < 30; ++i) EXPECT_TRUE(read(1000 * i));
    if (delay_before) *delay_before = client.hedge_policy()->Delay();
    EXPECT_TRUE((*srv)->AddFault(fault).ok());
    const auto before = StoreMetrics::Global().Snapshot(StoreKind::kHttp);
    const double t0 = NowSeconds();
    out.ok = read(77777);
    out.seconds = NowSeconds() - t0;
    const auto after = StoreMetrics::Global().Snapshot(StoreKind::kHttp);
    out.sent = after.hedges_sent - before.hedges_sent;
    out.won = after.hedges_won - before.hedges_won;
    if (last_sample) *last_sample = client.hedge_policy()->last_sample();
    return out;
  }
};

// A stalled request whose duplicate answered counts in the delay's window with the time its
// original had been outstanding (delay + the duplicate's own latency), not with the duplicate's
// own few milliseconds: otherwise every hedged stall leaves the tail it belongs to.
TEST_F(HedgeClientTest, HedgedStallCountsWithTheOriginalsOutstandingTime) {
  double delay = 0, last = 0;
  const Read r = StalledRead(2, "kind=stall&seconds=1.5&count=1", &delay, &last);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.sent, 1u);
  EXPECT_EQ(r.won, 1u);
  EXPECT_LT(r.seconds, 0.75);
  ASSERT_GT(delay, 0);
  EXPECT_GE(last, delay + 0.004) << "the sample is the duplicate's own latency, not the original's wait";
}

// The original and its first duplicate both stall: the first duplicate, unanswered after the delay,
// gets a second one, which answers. With max_duplicates = 1 the read waits out the stall.
TEST_F(HedgeClientTest, StalledDuplicateGetsTheNextOne) {
  const Read two = StalledRead(2, "kind=stall&seconds=1.5&count=2");
  EXPECT_TRUE(two.ok);
  EXPECT_EQ(two.sent, 2u);
  EXPECT_EQ(two.won, 1u);
  EXPECT_LT(two.seconds, 0.75);
  const Read one = StalledRead(1, "kind=stall&seconds=1.5&count=2");
  EXPECT_TRUE(one.ok);
  EXPECT_EQ(one.sent, 1u);
  EXPECT_EQ(one.won, 0u);
  EXPECT_GE(one.seconds, 1.4);
}

TEST(HedgePolicy, DelayIsTheQuantileOfWinnersAndTheBudgetHolds) {
  HedgeOptions o;
  o.enabled = true;
  o.quantile = 0.95;
  o.min_samples = 10;
  o.min_delay_s = 0.001;
  HedgePolicy p(o);
  for (int i = 0; i < 9; ++i) p.Observe(0.010);
  EXPECT_LT(p.Delay(), 0) << "no delay before min_samples observations";
  for (int i = 1; i <= 91; ++i) p.Observe(0.001 * i);  // 100 samples: 9 x 10 ms and 1..91 ms
  EXPECT_NEAR(p.Delay(), 0.086, 0.002);
  HedgePolicy floor_policy(o);
  for (int i = 0; i < 20; ++i) floor_policy.Observe(0.0001);
  EXPECT_DOUBLE_EQ(floor_policy.Delay(), 0.001);
  // Budget: 5% of requests + a burst of 2.
  for (int i = 0; i < 100; ++i) p.CountRequest();
  int granted = 0;
  for (int i = 0; i < 50; ++i) granted += p.TryHedge() ? 1 : 0;
  EXPECT_EQ(granted, 7);
  // A long quiet run banks no more than the bucket holds (2 + 5% of 200 requests), not 5% of it all.
  for (int i = 0; i < 100000; ++i) p.CountRequest();
  granted = 0;
  for (int i = 0; i < 1000; ++i) granted += p.TryHedge() ? 1 : 0;
  EXPECT_EQ(granted, 12);
  // Then 5% of the requests again: 1 per 20.
  for (int i = 0; i < 40; ++i) p.CountRequest();
  granted = 0;
  for (int i = 0; i < 10; ++i) granted += p.TryHedge() ? 1 : 0;
  EXPECT_EQ(granted, 2);
}

// Requests just past the delay may use only the unreserved share of the budget; requests that
// waited reserve_after x the delay (stalls) may use all of it, so the tail cannot starve a stall.
TEST(HedgePolicy, ReserveIsKeptForLateRequests) {
  HedgeOptions o;
  o.enabled = true;
  o.max_fraction = 0.10;
  o.burst = 0;
  o.reserve_fraction = 0.5;
  HedgePolicy p(o);
  for (int i = 0; i < 1000; ++i) p.CountRequest();  // a full bucket of 20: 10 ordinary, 10 reserved
  int ordinary = 0;
  for (int i = 0; i < 200; ++i) ordinary += p.TryHedge(/*late=*/false) ? 1 : 0;
  EXPECT_EQ(ordinary, 10);
  int late = 0;
  for (int i = 0; i < 200; ++i) late += p.TryHedge(/*late=*/true) ? 1 : 0;
  EXPECT_EQ(late, 10);
  EXPECT_EQ(p.hedges(), 20u);
  o.reserve_fraction = 0;  // no reserve: ordinary requests may use everything
  HedgePolicy q(o);
  for (int i = 0; i < 1000; ++i) q.CountRequest();
  int all = 0;
  for (int i = 0; i < 200; ++i) all += q.TryHedge(/*late=*/false) ? 1 : 0;
  EXPECT_EQ(all, 20);
}

}  // namespace
}  // namespace rap::io
