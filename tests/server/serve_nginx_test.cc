// rap-test-labels: network
// Scale-out: two `rap serve` processes over one table behind a real nginx upstream on loopback.
// Both answer identically, requests are spread over both, and with one killed (SIGKILL) every
// request still succeeds through the other.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "testing/cli_run.h"
#include "testing/curl_client.h"
#include "testing/nginx_fixture.h"
#include "testing/scan_table.h"
#include "testing/serve_fixture.h"

namespace rap::server {
namespace {

using json = nlohmann::json;
using rap::testing::CurlClient;

pid_t StartServe(const std::string& table, int port) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string bin = rap::testing::RapBinary(), listen = "127.0.0.1:" + std::to_string(port);
    execl(bin.c_str(), bin.c_str(), "serve", "--table", ("events=" + table).c_str(), "--listen", listen.c_str(),
          "--no-access-log", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The rows of a scan response (the stats, which hold timings, left out).
json Rows(const rap::testing::CurlResponse& r) {
  json j = json::parse(r.body, nullptr, false);
  if (r.status != 200 || j.is_discarded()) return json();
  return json{{"columns", j["columns"]}, {"rows", j["rows"]}, {"row_count", j["row_count"]}};
}

TEST(ServeBehindNginx, TwoServersAnswerIdenticallyAndSurviveOneKilled) {
  ASSERT_TRUE(rap::testing::RapBinaryExists());
  rap::testing::LocalScanTable table;
  ASSERT_TRUE(table.Write().ok());
  const int p1 = rap::testing::PickFreePort(), p2 = rap::testing::PickFreePort();
  const pid_t a = StartServe(table.root(), p1), b = StartServe(table.root(), p2);
  ASSERT_TRUE(rap::testing::WaitForPort(p1, 20));
  ASSERT_TRUE(rap::testing::WaitForPort(p2, 20));
  rap::testing::NginxOptions no;
  no.upstream_ports = {p1, p2};
  rap::testing::NginxServer nginx("/nonexistent", no);
  ASSERT_TRUE(nginx.ok()) << nginx.error();
  const std::string query = R"({"where": "id >= 1990 AND id < 2010", "columns": ["id", "s", "part"]})";
  const json direct = Rows(CurlClient("http://127.0.0.1:" + std::to_string(p1)).Post("/v1/tables/events/scan", query));
  ASSERT_FALSE(direct.is_null());
  EXPECT_EQ(direct["row_count"], 20);
  EXPECT_EQ(Rows(CurlClient("http://127.0.0.1:" + std::to_string(p2)).Post("/v1/tables/events/scan", query)), direct);
  CurlClient lb(nginx.base_url());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Rows(lb.Post("/v1/tables/events/scan", query)), direct) << "request " << i;
  // Both servers took part (round robin).
  for (int p : {p1, p2}) {
    const std::string m = CurlClient("http://127.0.0.1:" + std::to_string(p)).Get("/metrics").body;
    EXPECT_GE(rap::testing::PrometheusValue(m, R"(rap_http_requests_total{endpoint="scan",status="200"})"), 2) << p;
  }
  ASSERT_EQ(kill(a, SIGKILL), 0);
  waitpid(a, nullptr, 0);
  for (int i = 0; i < 20; ++i) {
    CurlClient fresh(nginx.base_url());
    EXPECT_EQ(Rows(fresh.Post("/v1/tables/events/scan", query)), direct) << "after the kill, request " << i;
  }
  kill(b, SIGTERM);
  int st = 0;
  waitpid(b, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

// Key-affinity routing (docs/server.md): `hash $arg_key consistent` sends every lookup of one key
// to the same server, so each key's pages sit in one server's hot data cache; different keys spread
// over both; the answers equal a direct lookup's.
TEST(ServeBehindNginx, ConsistentHashSendsAKeyToOneServer) {
  ASSERT_TRUE(rap::testing::RapBinaryExists());
  rap::testing::LocalScanTable table;
  ASSERT_TRUE(table.Write().ok());
  {
    const rap::testing::CliRun built = rap::testing::RunCli("index build '" + table.root() + "' --key s");
    ASSERT_EQ(built.exit_code, 0) << built.out;
  }
  const int p1 = rap::testing::PickFreePort(), p2 = rap::testing::PickFreePort();
  const pid_t a = StartServe(table.root(), p1), b = StartServe(table.root(), p2);
  ASSERT_TRUE(rap::testing::WaitForPort(p1, 20));
  ASSERT_TRUE(rap::testing::WaitForPort(p2, 20));
  rap::testing::NginxOptions no;
  no.upstream_ports = {p1, p2};
  no.upstream_hash = "$arg_key consistent";
  rap::testing::NginxServer nginx("/nonexistent", no);
  ASSERT_TRUE(nginx.ok()) << nginx.error();
  auto lookups = [](int port) {
    const std::string m = CurlClient("http://127.0.0.1:" + std::to_string(port)).Get("/metrics").body;
    const double v = rap::testing::PrometheusValue(m, R"(rap_http_requests_total{endpoint="lookup",status="200"})");
    return v < 0 ? 0.0 : v;  // absent (negative) before a server's first lookup
  };
  const std::vector<std::string> keys = {"kiwi", "plum", "apple", "pear", "melon", "fig", "lime", "nothing"};
  // A request is counted in /metrics just after its response is written: wait (bounded) until
  // both servers have counted every lookup sent so far before taking differences.
  double expected = 0;
  auto settled = [&] {
    for (int i = 0; i < 200 && lookups(p1) + lookups(p2) < expected; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::pair<double, double>{lookups(p1), lookups(p2)};
  };
  std::set<int> used;
  for (const std::string& k : keys) {
    const std::string q = "/v1/tables/events/lookup?key=" + k + "&columns=id";
    const rap::testing::CurlResponse direct = CurlClient("http://127.0.0.1:" + std::to_string(p1)).Get(q);
    ASSERT_EQ(direct.status, 200) << direct.body;
    expected += 1;
    const auto [a0, b0] = settled();
    for (int i = 0; i < 6; ++i) {
      CurlClient fresh(nginx.base_url());
      const rap::testing::CurlResponse r = fresh.Get(q);
      ASSERT_EQ(r.status, 200) << r.body;
      EXPECT_EQ(json::parse(r.body)["keys"], json::parse(direct.body)["keys"]) << k;
    }
    expected += 6;
    const auto [a1, b1] = settled();
    const double da = a1 - a0, db = b1 - b0;
    EXPECT_TRUE((da == 6 && db == 0) || (da == 0 && db == 6)) << k << ": " << da << " / " << db;
    used.insert(da == 6 ? p1 : p2);
  }
  EXPECT_EQ(used.size(), 2u);  // eight keys do not all hash to one of two servers
  for (pid_t pid : {a, b}) {
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
}

}  // namespace
}  // namespace rap::server
