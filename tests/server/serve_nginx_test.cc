// rap-test-labels: network
// Scale-out: two `rap serve` processes over one table behind a real nginx upstream on loopback.
// Both answer identically, requests are spread over both, and with one killed (SIGKILL) every
// request still succeeds through the other.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace
}  // namespace rap::server
