// rap-test-labels: concurrent
// The server's concurrency under TSan (the other server tests carry the `network` label, which the
// TSan suite skips): an in-process server on loopback with 2 network threads and 3 workers, driven
// at once by lookup, scan and metrics/tables/readyz clients while the index and the table are
// refreshed (a new file, UpdateIndex, polled every 50 ms) and, last, by a graceful Shutdown with
// requests in flight. Checks: every answer before the shutdown is correct (lookups see the old or
// the new row count, never another), every thread is joined, and after Shutdown the port refuses.
// Bounded: each client stops after 2000 requests or when told.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <thread>

#include "rap/table/scan_source.h"
#include "testing/served_scan_table.h"

namespace rap::server {
namespace {

using json = nlohmann::json;
using rap::testing::CurlClient;
using rap::testing::CurlResponse;

TEST(ServerConcurrencyTest, TrafficRefreshAndShutdown) {
  rap::testing::ServedScanTable served;
  ASSERT_TRUE(served.Prepare("s").ok());
  const size_t before = served.IdsOf("kiwi").size();
  ServerOptions o;
  o.io_threads = 2;
  o.limits.max_in_flight = 3;
  o.limits.max_queued = 64;
  o.refresh_interval_s = 0.05;
  auto started = served.Start(o);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  std::unique_ptr<rap::testing::ServeFixture> f = std::move(*started);
  const std::string url = f->url();
  CurlClient warm(url, 20);  // libcurl's global init on this thread, before the clients start
  ASSERT_EQ(warm.Get("/healthz").status, 200);

  std::atomic<bool> stop{false}, shutting_down{false};
  std::atomic<size_t> after{0};
  std::atomic<int> wrong{0}, answered{0};
  auto client = [&](auto&& one) {
    return std::thread([&, one] {
      CurlClient c(url, 20);
      for (int i = 0; i < 2000 && !stop.load(); ++i) {
        const bool ok = one(c);
        if (!ok && !shutting_down.load()) ++wrong;  // a failure caused by the shutdown comes after the flag
        ++answered;
      }
    });
  };
  std::vector<std::thread> threads;
  for (const char* word : {"kiwi", "kiwi", "plum"}) {
    threads.push_back(client([&, word](CurlClient& c) {
      CurlResponse r = c.Get(std::string("/v1/tables/events/lookup?columns=id&key=") + word);
      json j = json::parse(r.body, nullptr, false);
      if (r.status != 200 || j.is_discarded()) return false;
      if (std::string(word) != "kiwi") return true;
      const size_t n = j["keys"][0]["rows"].size();
      return n == before || n == after.load();
    }));
  }
  threads.push_back(client([&](CurlClient& c) {
    CurlResponse r = c.Post("/v1/tables/events/scan", R"({"columns": ["id", "s"], "where": "v < 500", "limit": 300})");
    return r.status == 200 && r.body.find("\"truncated\":false") != std::string::npos;
  }));
  threads.push_back(client([&](CurlClient& c) {
    const int m = c.Get("/metrics").status, t = c.Get("/v1/tables").status, h = c.Get("/readyz").status;
    return m == 200 && t == 200 && h == 200;
  }));

  // Mid-traffic: a fourth file appears and the index is updated; the refresh thread swaps both in.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  rap::testing::ScanTableOptions more;
  more.files = 4;
  auto files = rap::testing::MakeScanTable(more);
  ASSERT_TRUE(files.ok());
  const std::string root = served.table().root();
  std::filesystem::create_directories(root + "/part=d");
  rap::testing::WriteStringToFile(root + "/../d.tmp", (*files)[3].bytes);
  std::filesystem::rename(root + "/../d.tmp", root + "/part=d/data.parquet");
  auto snap = table::OpenTable(root);
  ASSERT_TRUE(snap.ok());
  auto src = table::ToScanSource(*snap);
  ASSERT_TRUE(src.ok());
  auto full4 = rap::testing::ScanEverything(*src);
  ASSERT_TRUE(full4.ok());
  after.store(rap::testing::IdsWithWord(*full4, "kiwi").size());
  ASSERT_GT(after.load(), before);
  ASSERT_TRUE(index::UpdateIndex(index::DefaultIndexUrl(root), index::UpdateOptions{}).ok());
  size_t now = 0;
  for (int i = 0; i < 200 && now != after.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    json j = json::parse(warm.Get("/v1/tables/events/lookup?key=kiwi&columns=id").body, nullptr, false);
    if (!j.is_discarded()) now = j["keys"][0]["rows"].size();
  }
  EXPECT_EQ(now, after.load());

  // Graceful shutdown with the clients still sending: it returns with every thread joined.
  shutting_down.store(true);
  f->server().Shutdown(5);
  stop.store(true);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(answered.load(), 20);
  CurlClient late(url, 5);
  EXPECT_EQ(late.Get("/healthz").status, 0);  // connection refused
}

}  // namespace
}  // namespace rap::server
