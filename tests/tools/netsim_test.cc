// Tests of rap-netsim (tools/netsim), the controlled HTTP server of the benchmarks, run as a child
// process through tests/testing/netsim_fixture.h and observed with a raw HTTP client. Timing is only
// checked against generous lower bounds (a loaded machine makes things slower, never faster); the
// precise latency and throughput accuracy is measured by bench/netsim.cc.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rap/util/clock.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap::testing {
namespace {

std::string Pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed;
  for (char& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

class NetsimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.Join("sub/dir"));
    big_ = Pattern(1 << 20, 1);
    WriteStringToFile(dir_.Join("big.bin"), big_);
    WriteStringToFile(dir_.Join("small.txt"), "0123456789abcdefghij");
    WriteStringToFile(dir_.Join("empty"), "");
    WriteStringToFile(dir_.Join("sub/dir/x.bin"), Pattern(1000, 2));
    WriteStringToFile(outside_.Join("secret"), "secret");
    std::filesystem::create_symlink(outside_.Join("secret"), dir_.Join("link-out"));
  }

  std::unique_ptr<NetsimServer> StartServer(NetsimOptions options = {}) {
    options.root = dir_.path();
    options.extra_args.push_back("--quiet");
    auto server = NetsimServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    return server.ok() ? std::move(*server) : nullptr;
  }

  std::unique_ptr<RawHttpClient> Connect(const NetsimServer& server) {
    auto client = RawHttpClient::Connect(server.port());
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(*client) : nullptr;
  }

  static HttpResponse Get(RawHttpClient& c, const std::string& target, const std::string& range = "") {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!range.empty()) headers.emplace_back("Range", range);
    auto r = c.Request("GET", target, headers);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : HttpResponse{};
  }

  TempDir dir_;
  TempDir outside_;
  std::string big_;
};

TEST_F(NetsimTest, HeadAndGetOverOneKeepAliveConnection) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  auto head = c->Request("HEAD", "/big.bin");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("Content-Length"), std::to_string(big_.size()));
  EXPECT_EQ(head->Header("Accept-Ranges"), "bytes");
  EXPECT_FALSE(head->Header("ETag").empty());
  EXPECT_TRUE(head->body.empty());

  HttpResponse full = Get(*c, "/big.bin");
  EXPECT_EQ(full.status, 200);
  EXPECT_TRUE(full.complete);
  EXPECT_EQ(full.body, big_);
  EXPECT_EQ(full.Header("Content-Range"), "");

  HttpResponse nested = Get(*c, "/sub/dir/x.bin");
  EXPECT_EQ(nested.status, 200);
  EXPECT_EQ(nested.body, Pattern(1000, 2));
  HttpResponse empty = Get(*c, "/empty");
  EXPECT_EQ(empty.status, 200);
  EXPECT_TRUE(empty.complete);
  EXPECT_TRUE(empty.body.empty());
  EXPECT_TRUE(c->connected());  // all of it on one connection
}

TEST_F(NetsimTest, SingleRangesAndUnsatisfiableRanges) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  const std::string n = std::to_string(big_.size());
  struct Case {
    std::string range;
    int status;
    size_t first, last;  // expected bytes (inclusive) for 206
  };
  const size_t size = big_.size();
  std::vector<Case> cases = {
      {"bytes=10-19", 206, 10, 19},
      {"bytes=0-0", 206, 0, 0},
      {"bytes=1000-", 206, 1000, size - 1},
      {"bytes=-100", 206, size - 100, size - 1},
      {"bytes=-" + std::to_string(size + 5), 206, 0, size - 1},    // suffix longer than the file
      {"bytes=5-" + std::to_string(size + 100), 206, 5, size - 1},  // last clipped to the end
      {"bytes=" + std::to_string(size - 1) + "-", 206, size - 1, size - 1},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.range);
    HttpResponse r = Get(*c, "/big.bin", k.range);
    ASSERT_EQ(r.status, k.status);
    EXPECT_EQ(r.Header("Content-Range"), "bytes " + std::to_string(k.first) + "-" + std::to_string(k.last) + "/" + n);
    EXPECT_EQ(r.Header("Content-Length"), std::to_string(k.last - k.first + 1));
    EXPECT_EQ(r.body, big_.substr(k.first, k.last - k.first + 1));
  }
  for (std::string bad : {"bytes=" + n + "-", "bytes=" + n + "-" + std::to_string(size + 10), std::string("bytes=5-2"),
                          std::string("bytes=-0"), std::string("bytes=x-3")}) {
    SCOPED_TRACE(bad);
    HttpResponse r = Get(*c, "/big.bin", bad);
    EXPECT_EQ(r.status, 416);
    EXPECT_EQ(r.Header("Content-Range"), "bytes */" + n);
    EXPECT_TRUE(r.body.empty());
  }
  HttpResponse on_empty = Get(*c, "/empty", "bytes=0-");
  EXPECT_EQ(on_empty.status, 416);
  // Several ranges are not supported: the header is ignored and the whole file is served.
  HttpResponse multi = Get(*c, "/small.txt", "bytes=0-1,4-5");
  EXPECT_EQ(multi.status, 200);
  EXPECT_EQ(multi.body, "0123456789abcdefghij");
  EXPECT_TRUE(c->connected());
}

TEST_F(NetsimTest, MissingFilesAndNoEscapeFromTheRoot) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  EXPECT_EQ(Get(*c, "/missing.bin").status, 404);
  EXPECT_EQ(Get(*c, "/sub").status, 404);  // a directory is not an object
  EXPECT_EQ(Get(*c, "/").status, 404);
  EXPECT_EQ(Get(*c, "/../" + std::filesystem::path(outside_.path()).filename().string() + "/secret").status, 403);
  EXPECT_EQ(Get(*c, "/sub/../small.txt").status, 403);
  EXPECT_EQ(Get(*c, "/%2e%2e/etc/passwd").status, 403);
  EXPECT_EQ(Get(*c, "/link-out").status, 403);  // a symlink that leaves the root
  EXPECT_EQ(Get(*c, "/bad%zzescape").status, 400);
  HttpResponse ok = Get(*c, "/small.txt");  // errors keep the connection usable
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "0123456789abcdefghij");
  auto post = c->Request("POST", "/small.txt");
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->status, 405);
}

TEST_F(NetsimTest, CountersPerPathAndReset) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  Get(*c, "/big.bin");
  Get(*c, "/big.bin", "bytes=0-99");
  Get(*c, "/small.txt", "bytes=-5");
  ASSERT_TRUE(c->Request("HEAD", "/small.txt").ok());
  Get(*c, "/missing");
  ASSERT_TRUE(server->Control("config").ok());  // control requests are not counted

  auto stats = server->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->total.requests, 5u);
  EXPECT_EQ(stats->total.gets, 4u);
  EXPECT_EQ(stats->total.heads, 1u);
  EXPECT_EQ(stats->total.range_gets, 2u);
  EXPECT_EQ(stats->total.payload_bytes, big_.size() + 100 + 5);
  EXPECT_EQ(stats->paths["/big.bin"].requests, 2u);
  EXPECT_EQ(stats->paths["/big.bin"].payload_bytes, big_.size() + 100);
  EXPECT_EQ(stats->paths["/small.txt"].requests, 2u);
  EXPECT_EQ(stats->paths["/small.txt"].payload_bytes, 5u);
  EXPECT_EQ(stats->paths["/missing"].requests, 1u);
  EXPECT_EQ(stats->status["206"], 2u);
  EXPECT_EQ(stats->status["404"], 1u);
  EXPECT_EQ(stats->paths.count("/_netsim/config"), 0u);

  ASSERT_TRUE(server->ResetStats().ok());
  stats = server->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->total.requests, 0u);
  EXPECT_EQ(stats->total.payload_bytes, 0u);
  EXPECT_TRUE(stats->paths.empty());
  Get(*c, "/small.txt");
  stats = server->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->total.requests, 1u);
  EXPECT_EQ(stats->total.payload_bytes, 20u);
}

TEST_F(NetsimTest, LatencyPrecedesEveryCountedResponseButNotControlRequests) {
  NetsimOptions options;
  options.latency = "5s";
  auto server = StartServer(options);
  ASSERT_TRUE(server);
  // Control requests get no latency: with 5 s configured, one must not take anywhere near that.
  Stopwatch control;
  ASSERT_TRUE(server->SetProfile("50ms", "unlimited").ok());  // reconfigured at run time
  EXPECT_LT(control.ElapsedSeconds(), 4.0);
  auto config = server->Control("config");
  ASSERT_TRUE(config.ok());
  EXPECT_NE(config->find("\"latency_seconds\":0.05"), std::string::npos) << *config;

  auto c = Connect(*server);
  ASSERT_TRUE(c);
  for (int i = 0; i < 5; ++i) {
    HttpResponse r = Get(*c, i % 2 ? "/small.txt" : "/missing", "");
    EXPECT_GE(r.first_byte_seconds, 0.050) << "request " << i;
  }
  auto head = c->Request("HEAD", "/big.bin");
  ASSERT_TRUE(head.ok());
  EXPECT_GE(head->first_byte_seconds, 0.050);
  EXPECT_FALSE(server->SetProfile("-5ms", "1MiB/s").ok());
  EXPECT_FALSE(server->Control("config?throughput=fast").ok());
  EXPECT_FALSE(server->Control("config?bogus=1").ok());
}

TEST_F(NetsimTest, ThroughputIsSharedFairlyByConcurrentResponses) {
  const size_t size = 4 << 20;
  std::string data = Pattern(size, 3);
  WriteStringToFile(dir_.Join("4m.bin"), data);
  NetsimOptions options;
  options.throughput = "16MiB/s";
  auto server = StartServer(options);
  ASSERT_TRUE(server);
  // 10 x 4 MiB at 16 MiB/s shared: about 2.5 s in total, not the 0.25 s of one response alone.
  constexpr int kClients = 10;
  std::vector<HttpResponse> results(kClients);
  std::vector<double> done(kClients, 0);
  Stopwatch watch;
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      auto c = RawHttpClient::Connect(server->port());
      if (!c.ok()) return;
      auto r = (*c)->Request("GET", "/4m.bin");
      if (r.ok()) results[i] = std::move(*r);
      done[i] = watch.ElapsedSeconds();
    });
  }
  for (auto& t : threads) t.join();
  double total = watch.ElapsedSeconds();
  for (int i = 0; i < kClients; ++i) {
    EXPECT_TRUE(results[i].complete) << i;
    EXPECT_TRUE(results[i].body == data) << i;
  }
  EXPECT_GE(total, 2.0);
  // Fair sharing: no response is served ahead of the others, so even the first one to finish
  // took far longer than a single response alone (0.25 s).
  EXPECT_GE(*std::min_element(done.begin(), done.end()), 1.2);
  auto stats = server->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->total.payload_bytes, uint64_t{kClients} * size);
  EXPECT_GE(stats->max_active_responses, 2u);
}

TEST_F(NetsimTest, ResetAndStatusFaults) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  ASSERT_TRUE(server->AddFault("kind=reset&count=1&path=/small").ok());
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  HttpResponse reset = Get(*c, "/big.bin", "bytes=0-9");  // path filter: not affected
  EXPECT_EQ(reset.status, 206);
  reset = Get(*c, "/small.txt");
  EXPECT_FALSE(reset.headers_received);
  EXPECT_TRUE(reset.reset);
  EXPECT_FALSE(c->connected());
  c = Connect(*server);
  ASSERT_TRUE(c);
  EXPECT_EQ(Get(*c, "/small.txt").status, 200);  // count exhausted

  ASSERT_TRUE(server->AddFault("kind=503&count=1&retry_after=2").ok());
  ASSERT_TRUE(server->AddFault("kind=429&count=1&retry_after=3").ok());
  ASSERT_TRUE(server->AddFault("kind=500&count=1").ok());
  HttpResponse r = Get(*c, "/small.txt");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.Header("Retry-After"), "2");
  r = Get(*c, "/small.txt");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.Header("Retry-After"), "3");
  r = Get(*c, "/small.txt");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.Header("Retry-After"), "");
  r = Get(*c, "/small.txt");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(c->connected());  // status faults keep the connection

  ASSERT_TRUE(server->AddFault("kind=503&count=-1&prob=0").ok());  // never fires
  EXPECT_EQ(Get(*c, "/small.txt").status, 200);
  auto stats = server->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->faults["reset"], 1u);
  EXPECT_EQ(stats->faults["503"], 1u);
  EXPECT_EQ(stats->faults["429"], 1u);
  EXPECT_EQ(stats->faults["500"], 1u);
  ASSERT_TRUE(server->ClearFaults().ok());
  auto list = server->Control("faults");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(*list, "[]\n");
  EXPECT_FALSE(server->AddFault("kind=explode").ok());
  EXPECT_FALSE(server->AddFault("kind=503&cuont=1").ok());
  EXPECT_FALSE(server->AddFault("kind=503&prob=2").ok());
}

TEST_F(NetsimTest, TruncatedBodyWrongContentRangeAndStall) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  ASSERT_TRUE(server->AddFault("kind=truncate&count=1&after=1000").ok());
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  HttpResponse t = Get(*c, "/big.bin");
  EXPECT_EQ(t.status, 200);
  EXPECT_EQ(t.Header("Content-Length"), std::to_string(big_.size()));
  EXPECT_FALSE(t.complete);
  EXPECT_TRUE(t.closed);
  EXPECT_EQ(t.body, big_.substr(0, 1000));

  ASSERT_TRUE(server->AddFault("kind=bad_range&count=1").ok());
  c = Connect(*server);
  ASSERT_TRUE(c);
  HttpResponse b = Get(*c, "/big.bin", "bytes=100-199");
  EXPECT_EQ(b.status, 206);
  EXPECT_EQ(b.Header("Content-Range"), "bytes 101-200/" + std::to_string(big_.size()));
  EXPECT_EQ(b.body, big_.substr(100, 100));

  ASSERT_TRUE(server->AddFault("kind=stall&count=1&seconds=1").ok());
  HttpResponse s = Get(*c, "/small.txt");
  EXPECT_EQ(s.status, 200);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.body, "0123456789abcdefghij");
  // Headers first, the body a second later. The client stamps the headers' arrival a little after
  // the server sent them, so the gap it sees can be a hair under the second (0.9995 s in an ASan
  // run): the bound leaves a tenth.
  EXPECT_GE(s.total_seconds - s.first_byte_seconds, 0.9);

  // A stalled response and its client time-out, as an object store would see it.
  ASSERT_TRUE(server->AddFault("kind=stall&count=1&seconds=30").ok());
  auto impatient = RawHttpClient::Connect(server->port(), /*timeout_seconds=*/0.3);
  ASSERT_TRUE(impatient.ok());
  auto stalled = (*impatient)->Request("GET", "/small.txt");
  ASSERT_TRUE(stalled.ok());
  EXPECT_TRUE(stalled->headers_received);
  EXPECT_TRUE(stalled->timed_out);
  EXPECT_FALSE(stalled->complete);
  auto stats = server->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->faults["truncate"], 1u);
  EXPECT_EQ(stats->faults["bad_range"], 1u);
  EXPECT_EQ(stats->faults["stall"], 2u);
  EXPECT_EQ(stats->paths["/big.bin"].payload_bytes, 1000u + 100u);
}

TEST_F(NetsimTest, FaultsFromTheCommandLineAndCleanShutdown) {
  NetsimOptions options;
  options.faults = {"kind=503,count=1,path=/small.txt", "kind=stall,count=1,seconds=60,path=/big"};
  auto server = StartServer(options);
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  EXPECT_EQ(Get(*c, "/small.txt").status, 503);
  EXPECT_EQ(Get(*c, "/small.txt").status, 200);
  // SIGTERM ends the server cleanly (exit 0) even while a response is stalled.
  auto stalled_client = RawHttpClient::Connect(server->port(), 30);
  ASSERT_TRUE(stalled_client.ok());
  std::thread t([&] { (void)(*stalled_client)->Request("GET", "/big.bin"); });
  auto until = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < until) {
    auto stats = server->Stats();
    if (stats.ok() && stats->faults["stall"] == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Status st = server->Stop();
  EXPECT_TRUE(st.ok()) << st.ToString();
  t.join();
}

TEST(NetsimStartup, BadArgumentsFailToStart) {
  TempDir dir;
  NetsimOptions options;
  options.root = dir.path();
  options.throughput = "fast";
  EXPECT_FALSE(NetsimServer::Start(options).ok());
  options.throughput = "1MiB/s";
  options.faults = {"kind=nope"};
  EXPECT_FALSE(NetsimServer::Start(options).ok());
  options.faults.clear();
  options.root = dir.Join("does-not-exist");
  EXPECT_FALSE(NetsimServer::Start(options).ok());
}

}  // namespace
}  // namespace rap::testing
