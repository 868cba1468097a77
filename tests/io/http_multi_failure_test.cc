// rap-test-labels: network concurrent
// A read that fails while several of its requests finish at the same moment must return its error,
// not hang. Regression test for the fix in d2ba4ef: HttpClient::Run took every finished exchange
// off the batch at once, and on the first fatal verdict stopped looking at the rest, which then
// stayed "in flight" forever while Run waited for the engine to hand them back.
//
// rap-netsim (tools/netsim) injects the faults on loopback; its latency holds every response of a
// wave back until all ten requests have arrived, so they complete together. Each read runs under a
// watchdog: a hang fails the test within seconds instead of at CTest's timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

using rap::testing::NetsimServer;
using rap::testing::TempDir;

constexpr double kWatchdogSeconds = 30;

// Runs `read` on its own thread. If it has not returned after kWatchdogSeconds the process exits
// with a message: a hung read cannot be abandoned (its thread blocks forever), and waiting for
// CTest's 20-minute timeout would hide which case hung.
Status WithinWatchdog(const std::string& what, std::function<Status()> read) {
  std::promise<Status> promise;
  std::future<Status> done = promise.get_future();
  std::thread worker([&promise, read = std::move(read)] { promise.set_value(read()); });
  if (done.wait_for(std::chrono::duration<double>(kWatchdogSeconds)) != std::future_status::ready) {
    std::fprintf(stderr, "FATAL: %s did not return within %.0f s (HttpClient::Run hang)\n", what.c_str(),
                 kWatchdogSeconds);
    std::fflush(stderr);
    std::_Exit(1);
  }
  worker.join();
  return done.get();
}

class MultiFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::WriteStringToFile(dir_.Join("obj.bin"), std::string(1 << 20, 'x'));
    rap::testing::WriteStringToFile(dir_.Join("other.bin"), std::string(1 << 20, 'y'));
    rap::testing::NetsimOptions options;
    options.root = dir_.path();
    options.latency = "30ms";
    auto server = NetsimServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    for (uint64_t i = 0; i < 10; ++i) ranges_.push_back({i * 4096, 4096});
  }

  // Reads the ten ranges (all in flight at once) `rounds` times with a fresh store each time (so
  // no connection is warm and nothing finishes early), expecting every read to fail with `code`
  // and a message containing `needle`.
  void ExpectEveryReadFails(const HttpOptions& options, StatusCode code, const std::string& needle, int rounds) {
    for (int round = 0; round < rounds; ++round) {
      auto store = MakeHttpStore(server_->url(), options);
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      Status st = WithinWatchdog(needle + " (round " + std::to_string(round) + ")", [&]() -> Status {
        ReadOptions opts;
        opts.max_concurrency = 10;
        auto r = (*store)->ReadRanges("/obj.bin", ranges_, opts, nullptr);
        return r.ok() ? Status::OK() : r.status();
      });
      ASSERT_FALSE(st.ok()) << "round " << round;
      EXPECT_TRUE(st.Is(code)) << st.ToString();
      EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
      EXPECT_NE(st.message().find(server_->url() + "/obj.bin"), std::string::npos) << st.ToString();
    }
  }

  HttpOptions FastOptions() {
    HttpOptions o;
    o.initial_backoff_s = 0.001;
    o.max_backoff_s = 0.002;
    o.deadline_s = 20;
    return o;
  }

  TempDir dir_;
  std::unique_ptr<NetsimServer> server_;
  std::vector<ByteRange> ranges_;
};

// Every way a finished exchange can end the read, each with ten failures arriving together.
TEST_F(MultiFailureTest, SimultaneousFailuresEndTheRead) {
  struct Case {
    const char* fault;                  // rap-netsim rule
    std::function<void(HttpOptions*)> configure;
    StatusCode code;
    const char* needle;                 // in the message
  };
  const Case cases[] = {
      // A final 4xx is not retried: the first of the simultaneous 404s fails the read.
      {"kind=404&count=-1", [](HttpOptions*) {}, StatusCode::kNotFound, "not found"},
      // Retryable errors with no attempts left.
      {"kind=503&count=-1&retry_after=0", [](HttpOptions* o) { o->max_attempts = 1; }, StatusCode::kIOError,
       "giving up after 1 attempts"},
      // A Retry-After longer than allowed fails at once.
      {"kind=429&count=-1&retry_after=3600", [](HttpOptions* o) { o->max_retry_after_s = 5; }, StatusCode::kIOError,
       "server asked to retry after"},
      // A Retry-After that would end past the read's deadline fails with a timeout.
      {"kind=503&count=-1&retry_after=2", [](HttpOptions* o) { o->deadline_s = 1; }, StatusCode::kTimeout,
       "deadline"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fault);
    ASSERT_TRUE(server_->ClearFaults().ok());
    ASSERT_TRUE(server_->AddFault(c.fault).ok());
    HttpOptions o = FastOptions();
    c.configure(&o);
    ExpectEveryReadFails(o, c.code, c.needle, 20);
  }
}

// The store (engine, connections) stays usable after a failed wave.
TEST_F(MultiFailureTest, StoreRecoversAfterAFailedWave) {
  ASSERT_TRUE(server_->AddFault("kind=404&count=-1&path=/obj.bin").ok());
  auto store = MakeHttpStore(server_->url(), FastOptions());
  ASSERT_TRUE(store.ok());
  ReadOptions opts;
  opts.max_concurrency = 10;
  Status first = WithinWatchdog("404 wave", [&]() -> Status {
    auto r = (*store)->ReadRanges("/obj.bin", ranges_, opts, nullptr);
    return r.ok() ? Status::OK() : r.status();
  });
  EXPECT_TRUE(first.Is(StatusCode::kNotFound)) << first.ToString();
  Status second = WithinWatchdog("read after the 404 wave", [&]() -> Status {
    auto r = (*store)->ReadRanges("/other.bin", ranges_, opts, nullptr);
    if (!r.ok()) return r.status();
    for (const Buffer& b : *r) {
      if (b.view() != std::string(4096, 'y')) return Status::Corrupt("wrong bytes");
    }
    return Status::OK();
  });
  EXPECT_TRUE(second.ok()) << second.ToString();
}

}  // namespace
}  // namespace rap::io
