// rap-test-labels: network concurrent
// `rap serve` (rap/server/server.h) in process on loopback, driven by a real HTTP client (libcurl):
// the endpoints, scans against a full-scan oracle (JSON and Arrow read back by apache-arrow),
// every kind of malformed request (4xx JSON error, the server keeps serving), Prometheus text,
// keep-alive, slow clients closed by the read timeout, concurrent clients, table refresh.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <thread>

#include "rap/columnar/array_format.h"
#include "rap/read/expr.h"
#include "testing/served_scan_table.h"

namespace rap::server {
namespace {

using json = nlohmann::json;
using rap::testing::CurlClient;
using rap::testing::CurlResponse;

class ServerHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = served_.Prepare();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  std::unique_ptr<rap::testing::ServeFixture> Start(ServerOptions o = {}) {
    auto f = served_.Start(std::move(o));
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? std::move(*f) : nullptr;
  }
  // The expected rows of a scan as JSON objects (each value as FormatJsonValue writes it).
  json Expected(const std::string& where, const std::vector<std::string>& columns, int64_t limit) {
    read::ExprPtr filter;
    if (!where.empty()) filter = *read::ParseExpr(where);
    std::vector<int> idx;
    const std::vector<std::string> names = columns.empty() ? rap::testing::ScanTableColumns() : columns;
    for (const std::string& c : names) idx.push_back(full_.schema->FieldIndex(c));
    // Recompute by hand: filter each batch, take the projected columns.
    json rows = json::array();
    std::optional<read::Predicate> pred;
    if (filter) pred = *read::Predicate::Bind(filter, *full_.schema);
    for (const RecordBatch& b : full_.batches) {
      std::vector<uint8_t> keep(static_cast<size_t>(b.num_rows), 1);
      if (pred) keep = *pred->Select(b);
      for (int64_t r = 0; r < b.num_rows; ++r) {
        if (!keep[static_cast<size_t>(r)]) continue;
        if (limit >= 0 && static_cast<int64_t>(rows.size()) >= limit) return rows;
        std::string obj = "{";
        for (size_t k = 0; k < idx.size(); ++k) {
          obj += (k ? "," : "") + columnar::JsonQuote(names[k]) + ":" + FormatJsonValue(*b.columns[static_cast<size_t>(idx[k])], r);
        }
        rows.push_back(json::parse(obj + "}"));
      }
    }
    return rows;
  }

  rap::testing::ServedScanTable served_;
  const rap::testing::LocalScanTable& table_ = served_.table();
  const rap::testing::FullScan& full_ = served_.full();
};

TEST_F(ServerHttpTest, HealthReadyAndTables) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  EXPECT_EQ(c->Get("/healthz").status, 200);
  CurlResponse ready = c->Get("/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(json::parse(ready.body)["status"], "ready");
  CurlResponse t = c->Get("/v1/tables");
  ASSERT_EQ(t.status, 200) << t.body;
  json j = json::parse(t.body);
  ASSERT_EQ(j["tables"].size(), 1u);
  EXPECT_EQ(j["tables"][0]["name"], "events");
  EXPECT_EQ(j["tables"][0]["files"], 3);
  EXPECT_EQ(j["tables"][0]["kind"], "directory");
  std::vector<std::string> cols;
  for (const auto& col : j["tables"][0]["columns"]) cols.push_back(col["name"]);
  EXPECT_EQ(cols, rap::testing::ScanTableColumns());
}

TEST_F(ServerHttpTest, ScanJsonMatchesFullScanOracle) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  struct Case {
    std::string where;
    std::vector<std::string> columns;
    int64_t limit;
  };
  std::mt19937_64 rng(11);
  std::vector<Case> cases = {{"", {}, -1},
                             {"id >= 1500 AND id < 2600", {"id", "s", "part"}, -1},
                             {"s = 'kiwi'", {"v", "id"}, 37},
                             {"id < 0", {"id"}, -1},
                             {"", {"d"}, 0}};
  for (int i = 0; i < 6; ++i) cases.push_back({rap::testing::RandomScanFilter(rng, 6000), {"id", "v", "s", "d"}, -1});
  for (const Case& k : cases) {
    SCOPED_TRACE("where: " + k.where);
    json body = json::object();
    if (!k.where.empty()) body["where"] = k.where;
    if (!k.columns.empty()) body["columns"] = k.columns;
    if (k.limit >= 0) body["limit"] = k.limit;
    CurlResponse r = c->Post("/v1/tables/events/scan", body.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Header("transfer-encoding"), "chunked");
    json j = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.body.substr(0, 500);
    const json expected = Expected(k.where, k.columns, k.limit);
    EXPECT_EQ(j["row_count"], expected.size());
    EXPECT_EQ(j["truncated"], false);
    EXPECT_TRUE(j.contains("stats"));
    ASSERT_EQ(j["rows"].size(), expected.size());
    EXPECT_EQ(j["rows"], expected);
  }
}

TEST_F(ServerHttpTest, ScanArrowReadByApacheArrow) {
  if (std::system("command -v node >/dev/null 2>&1") != 0 ||
      !std::filesystem::exists(rap::testing::SourceDir() + "/tests/npm/node_modules/apache-arrow/package.json")) {
    GTEST_SKIP() << "node or apache-arrow (tests/npm) is missing";
  }
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  CurlResponse r = c->Post("/v1/tables/events/scan", R"({"where": "id >= 100 AND id < 4100", "columns": ["id", "s", "part"]})",
                           {"Accept: application/vnd.apache.arrow.stream"});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "application/vnd.apache.arrow.stream");
  rap::testing::TempDir dir;
  rap::testing::WriteStringToFile(dir.Join("r.arrows"), r.body);
  const std::string cmd = "cd '" + rap::testing::SourceDir() + "/tests/npm' && node read_arrow_stream.mjs '" +
                          dir.Join("r.arrows") + "'";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  json j = json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out.substr(0, 300);
  EXPECT_EQ(j["fields"].dump(), R"(["id:Int64:false","s:Utf8:true","part:Utf8:true"])");
  const json expected = Expected("id >= 100 AND id < 4100", {"id", "s", "part"}, -1);
  ASSERT_EQ(j["rows"].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(j["rows"][i][0], std::to_string(expected[i]["id"].get<int64_t>()));
    EXPECT_EQ(j["rows"][i][1], expected[i]["s"]);
    EXPECT_EQ(j["rows"][i][2], expected[i]["part"]);
  }
}

TEST_F(ServerHttpTest, MalformedRequestsGetJsonErrorsAndTheServerKeepsServing) {
  ServerOptions o;
  o.limits.max_body_bytes = 4096;
  o.limits.max_header_bytes = 2048;
  auto f = Start(o);
  ASSERT_TRUE(f);
  struct Case {
    std::string method, path, body;
    std::vector<std::string> headers;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"POST", "/v1/tables/events/scan", "{bad json", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", "[1,2]", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"columns": "id"})", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"columns": [1]})", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"limit": -1})", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"limit": "5"})", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"colums": ["id"]})", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"columns": ["nope"]})", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", R"({"where": "id >"})", {}, 400, "bad_filter"},
      {"POST", "/v1/tables/events/scan", R"({"where": "nope = 1"})", {}, 400, "bad_request"},
      {"GET", "/v1/tables/events/scan", "", {}, 405, "method_not_allowed"},
      {"POST", "/v1/tables/nope/scan", "{}", {}, 404, "unknown_table"},
      {"GET", "/v1/tables/events/frobnicate", "", {}, 404, "not_found"},
      {"GET", "/nothing-here", "", {}, 404, "not_found"},
      {"GET", "/v1/tables/%zz/scan", "", {}, 400, "bad_request"},
      {"POST", "/v1/tables/events/scan", std::string(5000, ' '), {}, 413, "body_too_large"},
      {"GET", "/healthz", "", {"X-Big: " + std::string(4000, 'a')}, 431, "header_too_large"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.method + " " + k.path + " " + k.body.substr(0, 40));
    CurlClient c(f->url());
    CurlResponse r = c.Do(k.method, k.path, k.body, k.headers);
    EXPECT_EQ(r.status, k.status) << r.body;
    EXPECT_EQ(r.Header("content-type"), "application/json");
    json j = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.body;
    EXPECT_EQ(j["error"]["status"], k.status);
    EXPECT_EQ(j["error"]["code"], k.code);
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
    EXPECT_EQ(CurlClient(f->url()).Get("/healthz").status, 200);
  }
}

TEST_F(ServerHttpTest, MetricsAreValidPrometheusText) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  ASSERT_EQ(c->Post("/v1/tables/events/scan", R"({"limit": 10})").status, 200);
  ASSERT_EQ(c->Post("/v1/tables/nope/scan", "{}").status, 404);
  CurlResponse m = c->Get("/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_EQ(m.Header("content-type").rfind("text/plain; version=0.0.4", 0), 0u);
  EXPECT_EQ(rap::testing::PrometheusProblem(m.body), "") << m.body;
  EXPECT_EQ(rap::testing::PrometheusValue(m.body, R"(rap_http_requests_total{endpoint="scan",status="200"})"), 1);
  EXPECT_EQ(rap::testing::PrometheusValue(m.body, R"(rap_http_requests_total{endpoint="scan",status="404"})"), 1);
  EXPECT_EQ(rap::testing::PrometheusValue(
                m.body, R"(rap_http_request_duration_seconds_count{endpoint="scan",status="200"})"), 1);
  EXPECT_GT(rap::testing::PrometheusValue(m.body, R"(rap_store_requests_total{store="local"})"), 0);
  EXPECT_GE(rap::testing::PrometheusValue(m.body, "rap_metadata_cache_entries"), 0);
  EXPECT_EQ(rap::testing::PrometheusValue(m.body, "rap_http_in_flight_requests"), 1);  // this request
}

TEST_F(ServerHttpTest, KeepAliveReusesTheConnection) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  EXPECT_EQ(c->Get("/healthz").connects, 1);
  for (int i = 0; i < 5; ++i) {
    CurlResponse r = i % 2 ? c->Get("/v1/tables") : c->Post("/v1/tables/events/scan", R"({"limit": 3})");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.connects, 0) << "request " << i << " opened a new connection";
  }
}

// Opens a TCP connection to the server and returns the fd.
int Connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

TEST_F(ServerHttpTest, SlowAndIdleClientsAreClosedAndDoNotHoldWorkers) {
  ServerOptions o;
  o.limits.max_in_flight = 1;
  o.limits.read_timeout_s = 0.3;
  o.limits.idle_timeout_s = 0.3;
  auto f = Start(o);
  ASSERT_TRUE(f);
  // A client that sends half a request line and stops; one that connects and sends nothing.
  const int slow = Connect(f->port()), idle = Connect(f->port());
  ASSERT_GE(slow, 0);
  ASSERT_GE(idle, 0);
  ASSERT_EQ(::send(slow, "GET /hea", 8, 0), 8);
  // The only worker is free: requests from other clients are answered meanwhile.
  EXPECT_EQ(CurlClient(f->url()).Get("/healthz").status, 200);
  char buf[256];
  EXPECT_EQ(::recv(slow, buf, sizeof(buf), 0), 0) << "the half-sent request was not closed";
  EXPECT_EQ(::recv(idle, buf, sizeof(buf), 0), 0) << "the idle connection was not closed";
  ::close(slow);
  ::close(idle);
  EXPECT_EQ(CurlClient(f->url()).Get("/healthz").status, 200);
}

TEST_F(ServerHttpTest, ConcurrentClientsGetCorrectResults) {
  ServerOptions o;
  o.limits.max_in_flight = 4;
  auto f = Start(o);
  ASSERT_TRUE(f);
  const json expected = Expected("id >= 1000 AND id < 1300", {"id", "v"}, -1);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      CurlClient c(f->url());
      for (int i = 0; i < 5; ++i) {
        CurlResponse r = c.Post("/v1/tables/events/scan", R"({"where": "id >= 1000 AND id < 1300", "columns": ["id", "v"]})");
        json j = json::parse(r.body, nullptr, false);
        if (r.status == 200 && !j.is_discarded() && j["rows"] == expected) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 30);
}

TEST_F(ServerHttpTest, RefreshPicksUpNewFilesWhileServing) {
  ServerOptions o;
  o.refresh_interval_s = 0.1;
  auto f = Start(o);
  ASSERT_TRUE(f);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, answered{0};
  // Traffic during the refresh: every scan sees either the old or the new version, never a mix.
  std::thread traffic([&] {
    CurlClient c(f->url());
    while (!stop.load()) {
      CurlResponse r = c.Post("/v1/tables/events/scan", R"({"columns": ["id"]})");
      json j = json::parse(r.body, nullptr, false);
      if (r.status != 200 || j.is_discarded() || (j["row_count"] != 6000 && j["row_count"] != 8000)) ++bad;
      ++answered;
    }
  });
  // A fourth file (another partition) appears.
  rap::testing::ScanTableOptions more;
  more.files = 4;
  auto files = rap::testing::MakeScanTable(more);
  ASSERT_TRUE(files.ok());
  const std::string tmp = table_.root() + "/../part_d_tmp.parquet";
  rap::testing::WriteStringToFile(tmp, (*files)[3].bytes);
  std::filesystem::create_directories(table_.root() + "/part=d");
  std::filesystem::rename(tmp, table_.root() + "/part=d/data.parquet");
  auto c = f->Client();
  int64_t rows = 0;
  for (int i = 0; i < 200 && rows != 8000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    json j = json::parse(c->Post("/v1/tables/events/scan", R"({"columns": ["id"]})").body, nullptr, false);
    if (!j.is_discarded()) rows = j["row_count"].get<int64_t>();
  }
  stop.store(true);
  traffic.join();
  EXPECT_EQ(rows, 8000);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(answered.load(), 0);
  json t = json::parse(c->Get("/v1/tables").body);
  EXPECT_EQ(t["tables"][0]["files"], 4);
}

}  // namespace
}  // namespace rap::server
