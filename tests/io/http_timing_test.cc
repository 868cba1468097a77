// rap-test-labels: network
// What a request's timing measures (RequestTiming): latency ends and delivery begins when the
// response begins (its status line), so the delivery interval holds the transfer of the whole body.
// The range planner's throughput samples are payload bytes over that interval; measured from the
// first body bytes instead, it would miss the first network read and overstate the rate of short
// responses. rap-netsim delivers the body in 16 KiB grants at a fixed rate, each released only when
// its link time has passed, so the two definitions differ by one grant (15.6 ms at 1 MiB/s).
// Only lower bounds are asserted: a loaded machine makes both intervals longer, never shorter.
#include <gtest/gtest.h>

#include <string>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

TEST(HttpTiming, DeliveryStartsAtTheStatusLine) {
  rap::testing::TempDir dir;
  rap::testing::WriteStringToFile(dir.Join("obj.bin"), std::string(256 * 1024, 'x'));
  rap::testing::NetsimOptions options;
  options.root = dir.path();
  options.latency = "40ms";
  options.throughput = "1MiB/s";
  options.extra_args = {"--chunk", "16384"};
  auto server = rap::testing::NetsimServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto store = MakeHttpStore((*server)->url(), HttpOptions{});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const std::vector<ByteRange> ranges = {{0, 64 * 1024}};  // 62.5 ms of link time, four grants
  ReadStats stats;
  auto r = (*store)->ReadRanges("/obj.bin", ranges, ReadOptions{}, &stats);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(stats.requests.size(), 1u);
  const RequestTiming& t = stats.requests[0];
  EXPECT_GE(t.latency_s(), 0.040);
  // All four grants: >= 0.9 x 62.5 ms. From the first body bytes it would be 3 grants (46.9 ms).
  EXPECT_GE(t.delivery_s(), 0.9 * 0.0625) << "latency " << t.latency_s();
  EXPECT_GE(stats.payload_wall_s, 0.9 * 0.0625);
}

}  // namespace
}  // namespace rap::io
