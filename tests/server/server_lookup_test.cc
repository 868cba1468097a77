// rap-test-labels: network concurrent
// Lookups through `rap serve` (GET and POST, JSON and Arrow) against a brute-force oracle over the
// table, pagination followed to the end, key and token errors, and an index refresh picked up
// while lookups run (each lookup sees one manifest version: the old or the new row count).
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

class ServerLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = served_.Prepare("s");
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  std::vector<int64_t> IdsOf(const std::string& word) const { return served_.IdsOf(word); }
  std::unique_ptr<rap::testing::ServeFixture> Start(ServerOptions o = {}) {
    auto f = served_.Start(std::move(o));
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? std::move(*f) : nullptr;
  }
  const rap::testing::LocalScanTable& table() const { return served_.table(); }
  rap::testing::ServedScanTable served_;
};

std::vector<int64_t> Ids(const json& rows) {
  std::vector<int64_t> out;
  for (const json& r : rows) out.push_back(r["id"].get<int64_t>());
  return out;
}

TEST_F(ServerLookupTest, GetAndPostMatchTheOracle) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  CurlResponse g = c->Get("/v1/tables/events/lookup?key=kiwi&key=nothing&key=plum&columns=id,v");
  ASSERT_EQ(g.status, 200) << g.body;
  json j = json::parse(g.body);
  ASSERT_EQ(j["keys"].size(), 3u);
  EXPECT_EQ(j["keys"][0]["key"], json::array({"kiwi"}));
  EXPECT_EQ(Ids(j["keys"][0]["rows"]), IdsOf("kiwi"));
  EXPECT_EQ(j["keys"][1]["rows"].size(), 0u);
  EXPECT_TRUE(j["keys"][1]["next_page_token"].is_null());
  EXPECT_EQ(Ids(j["keys"][2]["rows"]), IdsOf("plum"));
  CurlResponse p = c->Post("/v1/tables/events/lookup", R"({"keys": ["kiwi", "nothing", "plum"], "columns": ["id", "v"]})");
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_EQ(json::parse(p.body)["keys"], j["keys"]);
  CurlResponse t = c->Get("/v1/tables");
  EXPECT_EQ(json::parse(t.body)["tables"][0]["index"]["key"][0]["name"], "s");
}

// The index page cache is sized by ServerOptions::index_cache_bytes and reported per table in
// /metrics: a repeated lookup is a hit; with the cache off (0) nothing is cached.
TEST_F(ServerLookupTest, IndexPageCacheMetrics) {
  for (int64_t budget : {int64_t{64} << 20, int64_t{0}}) {
    ServerOptions o;
    o.index_cache_bytes = budget;
    auto f = Start(o);
    ASSERT_TRUE(f);
    auto c = f->Client();
    for (int i = 0; i < 3; ++i) ASSERT_EQ(c->Get("/v1/tables/events/lookup?key=kiwi&columns=id").status, 200);
    CurlResponse m = c->Get("/metrics");
    ASSERT_EQ(m.status, 200);
    EXPECT_EQ(rap::testing::PrometheusProblem(m.body), "") << m.body;
    const double hits = rap::testing::PrometheusValue(m.body, R"(rap_index_page_cache_hits_total{table="events"})");
    const double misses = rap::testing::PrometheusValue(m.body, R"(rap_index_page_cache_misses_total{table="events"})");
    const double bytes = rap::testing::PrometheusValue(m.body, R"(rap_index_page_cache_bytes{table="events"})");
    SCOPED_TRACE(budget);
    if (budget > 0) {
      ASSERT_GE(misses, 1);
      EXPECT_GE(hits, 2 * misses);  // the first lookup misses each of its pages, the next two hit them
      EXPECT_GT(bytes, 0);
      EXPECT_LE(bytes, static_cast<double>(budget));
    } else {  // off: nothing is looked up in or kept by the cache
      EXPECT_EQ(hits, 0);
      EXPECT_EQ(misses, 0);
      EXPECT_EQ(bytes, 0);
    }
  }
}

// The hot data cache (ServerOptions::data_cache_bytes, `--data-cache`): answers with it equal the
// answers without it (every column, plain lookups through the data files' page indexes); a
// repeated lookup's pages are hits in /metrics and the cache stays within its budget; off, nothing.
TEST_F(ServerLookupTest, DataCacheAnswersEqualUncached) {
  const std::string q = "/v1/tables/events/lookup?key=kiwi&key=nothing&key=plum";
  std::string uncached;
  for (int64_t budget : {int64_t{0}, int64_t{64} << 20}) {
    SCOPED_TRACE(budget);
    ServerOptions o;
    o.data_cache_bytes = budget;
    auto f = Start(o);
    ASSERT_TRUE(f);
    auto c = f->Client();
    std::vector<json> answers;
    for (int i = 0; i < 3; ++i) {
      CurlResponse r = c->Get(q);
      ASSERT_EQ(r.status, 200) << r.body;
      answers.push_back(json::parse(r.body)["keys"]);
      EXPECT_EQ(answers.back(), answers.front());
    }
    EXPECT_EQ(Ids(answers[0][0]["rows"]), IdsOf("kiwi"));
    EXPECT_EQ(Ids(answers[0][2]["rows"]), IdsOf("plum"));
    if (uncached.empty()) {
      uncached = answers[0].dump();
    } else {
      EXPECT_EQ(answers[0].dump(), uncached);
    }
    CurlResponse m = c->Get("/metrics");
    ASSERT_EQ(m.status, 200);
    EXPECT_EQ(rap::testing::PrometheusProblem(m.body), "") << m.body;
    const double hits = rap::testing::PrometheusValue(m.body, R"(rap_data_cache_hits_total{table="events"})");
    const double misses = rap::testing::PrometheusValue(m.body, R"(rap_data_cache_misses_total{table="events"})");
    const double bytes = rap::testing::PrometheusValue(m.body, R"(rap_data_cache_bytes{table="events"})");
    if (budget > 0) {
      ASSERT_GE(misses, 1);
      EXPECT_GE(hits, 2 * misses);  // the first lookup misses each of its pages, the next two hit them
      EXPECT_GT(bytes, 0);
      EXPECT_LE(bytes, static_cast<double>(budget));
    } else {
      EXPECT_EQ(hits + misses + bytes, 0);
    }
  }
}

// Lookups of a local table run on the io thread (no worker hand-off) unless turned off; the
// answers are the same either way.
TEST_F(ServerLookupTest, LocalLookupsRunOnTheIoThread) {
  std::string first;
  for (bool on : {true, false}) {
    ServerOptions o;
    o.inline_local_lookups = on;
    auto f = Start(o);
    ASSERT_TRUE(f);
    auto c = f->Client();
    for (int i = 0; i < 4; ++i) {
      CurlResponse r = c->Get("/v1/tables/events/lookup?key=kiwi&key=plum&columns=id,v");
      ASSERT_EQ(r.status, 200) << r.body;
      if (first.empty()) first = r.body;
      EXPECT_EQ(json::parse(r.body)["keys"], json::parse(first)["keys"]);
    }
    ASSERT_EQ(c->Post("/v1/tables/events/scan", R"({"limit": 3})").status, 200);  // always a worker
    CurlResponse m = c->Get("/metrics");
    EXPECT_EQ(rap::testing::PrometheusValue(m.body, "rap_http_io_thread_requests_total"), on ? 4 : 0) << on;
  }
}

TEST_F(ServerLookupTest, PaginationToTheEnd) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  for (const char* word : {"apple", "melon"}) {
    std::vector<int64_t> got;
    std::string token;
    int pages = 0;
    while (true) {
      json body = {{"keys", {word}}, {"columns", {"id"}}, {"limit", 300}};
      if (!token.empty()) body["page_tokens"] = {token};
      CurlResponse r = c->Post("/v1/tables/events/lookup", body.dump());
      ASSERT_EQ(r.status, 200) << r.body;
      json j = json::parse(r.body);
      const json& k = j["keys"][0];
      EXPECT_LE(k["rows"].size(), 300u);
      for (int64_t id : Ids(k["rows"])) got.push_back(id);
      ++pages;
      if (k["next_page_token"].is_null()) break;
      token = k["next_page_token"];
      ASSERT_LT(pages, 100);
    }
    EXPECT_EQ(got, IdsOf(word)) << word;
    EXPECT_GT(pages, 1);
  }
}

// GET ?range= / ?prefix=: every key's rows in key order, pages followed to the end; errors are 400.
TEST_F(ServerLookupTest, RangeAndPrefixLookups) {
  auto f = Start();
  ASSERT_TRUE(f);
  auto c = f->Client();
  auto concat = [&](std::initializer_list<const char*> words) {
    std::vector<int64_t> out;
    for (const char* w : words) {
      for (int64_t id : IdsOf(w)) out.push_back(id);
    }
    return out;
  };
  struct Case {
    std::string query;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {{"range=kiwi..%3Cpear", concat({"kiwi", "melon"})},
                                   {"range=kiwi%3C..pear", concat({"melon", "pear"})},
                                   {"range=..b", concat({"apple"})},
                                   {"range=q..", concat({})},
                                   {"prefix=p", concat({"pear", "plum"})}};
  for (const Case& cs : cases) {
    SCOPED_TRACE(cs.query);
    std::vector<int64_t> got;
    std::string token;
    int pages = 0;
    while (true) {
      CurlResponse r = c->Get("/v1/tables/events/lookup?" + cs.query + "&columns=id&limit=500" +
                              (token.empty() ? "" : "&page_token=" + token));
      ASSERT_EQ(r.status, 200) << r.body;
      json j = json::parse(r.body);
      EXPECT_LE(j["rows"].size(), 500u);
      for (int64_t id : Ids(j["rows"])) got.push_back(id);
      ++pages;
      if (j["next_page_token"].is_null()) break;
      token = j["next_page_token"];
      ASSERT_LT(pages, 100);
    }
    EXPECT_EQ(got, cs.want);
  }
  EXPECT_EQ(c->Get("/v1/tables/events/lookup?range=kiwi").status, 400);
  EXPECT_EQ(c->Get("/v1/tables/events/lookup?range=a..b&key=kiwi").status, 400);
  EXPECT_EQ(c->Get("/v1/tables/events/lookup?range=a..b&page_token=p1:0:1").status, 400);
}

TEST_F(ServerLookupTest, ArrowResponseAndErrors) {
  auto f = Start(ServerOptions{});
  ASSERT_TRUE(f);
  auto c = f->Client();
  CurlResponse a = c->Get("/v1/tables/events/lookup?key=pear&key=nothing&columns=id",
                          {"Accept: application/vnd.apache.arrow.stream"});
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.Header("content-type"), "application/vnd.apache.arrow.stream");
  EXPECT_EQ(a.Header("x-rap-key-rows"), std::to_string(IdsOf("pear").size()) + ",0");
  EXPECT_EQ(a.Header("x-rap-next-page-tokens"), "[null,null]");
  if (std::system("command -v node >/dev/null 2>&1") == 0 &&
      std::filesystem::exists(rap::testing::SourceDir() + "/tests/npm/node_modules/apache-arrow/package.json")) {
    rap::testing::TempDir dir;
    rap::testing::WriteStringToFile(dir.Join("r.arrows"), a.body);
    FILE* p = popen(("cd '" + rap::testing::SourceDir() + "/tests/npm' && node read_arrow_stream.mjs '" +
                     dir.Join("r.arrows") + "'").c_str(), "r");
    std::string out;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    pclose(p);
    json j = json::parse(out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << out;
    std::vector<int64_t> ids;
    for (const json& r : j["rows"]) ids.push_back(std::stoll(r[1].get<std::string>()));  // s (key) first, then id
    EXPECT_EQ(ids, IdsOf("pear"));
  }
  struct Case {
    std::string method, path, body;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"GET", "/v1/tables/events/lookup", "", 400, "bad_request"},
      {"POST", "/v1/tables/events/lookup", "{bad", 400, "bad_request"},
      {"POST", "/v1/tables/events/lookup", R"({"keys": "kiwi"})", 400, "bad_request"},
      {"POST", "/v1/tables/events/lookup", R"({"keys": [1.5]})", 400, "bad_request"},
      {"POST", "/v1/tables/events/lookup", R"({"keys": ["kiwi"], "columns": ["nope"]})", 400, "unknown_column"},
      {"POST", "/v1/tables/events/lookup", R"({"keys": ["kiwi"], "page_tokens": ["garbage!"]})", 400, "bad_page_token"},
      {"POST", "/v1/tables/events/lookup", R"({"keys": ["kiwi", "pear"], "page_tokens": [""]})", 400, "bad_page_token"},
      {"GET", "/v1/tables/events/lookup?key=kiwi&frob=1", "", 400, "bad_request"},
      {"GET", "/v1/tables/events/lookup?key=kiwi&limit=x", "", 400, "bad_request"},
      {"DELETE", "/v1/tables/events/lookup?key=kiwi", "", 405, "method_not_allowed"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.method + " " + k.path + " " + k.body);
    CurlClient cc(f->url());
    CurlResponse r = cc.Do(k.method, k.path, k.body, {});
    EXPECT_EQ(r.status, k.status) << r.body;
    json j = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.body;
    EXPECT_EQ(j["error"]["code"], k.code) << r.body;
  }
  std::string many = "/v1/tables/events/lookup?";
  for (int i = 0; i < 1001; ++i) many += "key=k" + std::to_string(i) + "&";
  EXPECT_EQ(c->Get(many).status, 413);
}

TEST_F(ServerLookupTest, IndexRefreshMidTraffic) {
  ServerOptions o;
  o.refresh_interval_s = 0.1;
  auto f = Start(o);
  ASSERT_TRUE(f);
  const size_t before = IdsOf("kiwi").size();
  // A fourth file appears and the index is updated (a new manifest version).
  rap::testing::ScanTableOptions more;
  more.files = 4;
  auto files = rap::testing::MakeScanTable(more);
  ASSERT_TRUE(files.ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, answered{0};
  std::atomic<size_t> after_count{0};
  std::thread traffic([&] {
    CurlClient c(f->url());
    while (!stop.load()) {
      CurlResponse r = c.Get("/v1/tables/events/lookup?key=kiwi&columns=id");
      json j = json::parse(r.body, nullptr, false);
      if (r.status != 200 || j.is_discarded()) {
        ++bad;
      } else {
        const size_t n = j["keys"][0]["rows"].size();
        if (n != before && n != after_count.load()) ++bad;
      }
      ++answered;
    }
  });
  const std::string dir = table().root() + "/part=d";
  std::filesystem::create_directories(dir);
  rap::testing::WriteStringToFile(table().root() + "/../d.tmp", (*files)[3].bytes);
  std::filesystem::rename(table().root() + "/../d.tmp", dir + "/data.parquet");
  // The table's kiwi rows now: a full scan of the four files as listed.
  auto snap = table::OpenTable(table().root());
  ASSERT_TRUE(snap.ok());
  auto src4 = table::ToScanSource(*snap);
  ASSERT_TRUE(src4.ok());
  auto full = rap::testing::ScanEverything(*src4);
  ASSERT_TRUE(full.ok());
  const size_t expected_after = rap::testing::IdsWithWord(*full, "kiwi").size();
  after_count.store(expected_after);
  ASSERT_GT(expected_after, before);
  auto updated = index::UpdateIndex(index::DefaultIndexUrl(table().root()), index::UpdateOptions{});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_TRUE(updated->changed);
  auto c = f->Client();
  size_t now = 0;
  for (int i = 0; i < 200 && now != expected_after; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    json j = json::parse(c->Get("/v1/tables/events/lookup?key=kiwi&columns=id").body, nullptr, false);
    if (!j.is_discarded()) now = j["keys"][0]["rows"].size();
  }
  stop.store(true);
  traffic.join();
  EXPECT_EQ(now, expected_after);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(answered.load(), 0);
}

}  // namespace
}  // namespace rap::server
