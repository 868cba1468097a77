// rap-test-labels: network
// Scans through `rap serve` that an index of the table answers (POST /v1/tables/{name}/scan with a
// "where" on the index's key, docs/server.md): the rows equal the brute-force oracle and the scan
// without the index ("no_index": true), the stats name the index and its candidate rows, and
// "index" / "no_index" are checked like `rap scan --index / --no-index`.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/served_scan_table.h"

namespace rap::server {
namespace {

using json = nlohmann::json;
using rap::testing::CurlResponse;

std::vector<int64_t> Ids(const json& rows) {
  std::vector<int64_t> out;
  for (const json& r : rows) out.push_back(r["id"].get<int64_t>());
  return out;
}

TEST(ServerIndexedScanTest, WhereOnTheKeyGoesThroughTheIndex) {
  rap::testing::ServedScanTable served;
  Status st = served.Prepare("s");
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto f = served.Start();
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto c = (*f)->Client();

  CurlResponse r = c->Post("/v1/tables/events/scan", R"({"where": "s = 'kiwi'", "columns": ["id", "s"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  const std::vector<int64_t> kiwi = served.IdsOf("kiwi");
  ASSERT_FALSE(kiwi.empty());
  EXPECT_EQ(Ids(j["rows"]), kiwi);
  EXPECT_EQ(j["stats"]["index_used"], "default") << j["stats"].dump();
  EXPECT_EQ(j["stats"]["index_kind"], "hash");
  EXPECT_GE(j["stats"]["index_candidate_rows"].get<int64_t>(), static_cast<int64_t>(kiwi.size()));
  EXPECT_GT(j["stats"]["index_requests"].get<int64_t>(), 0);
  EXPECT_EQ(j["stats"]["rows_selected"].get<int64_t>(), static_cast<int64_t>(kiwi.size()));

  // The same rows without the index; the index named explicitly.
  CurlResponse n =
      c->Post("/v1/tables/events/scan", R"({"where": "s = 'kiwi'", "columns": ["id", "s"], "no_index": true})");
  ASSERT_EQ(n.status, 200) << n.body;
  json jn = json::parse(n.body);
  EXPECT_EQ(Ids(jn["rows"]), kiwi);
  EXPECT_TRUE(jn["stats"]["index_used"].is_null());
  EXPECT_EQ(jn["stats"]["index_reason"], "no_index");
  CurlResponse named = c->Post("/v1/tables/events/scan",
                               R"j({"where": "s IN ('kiwi', 'plum')", "columns": ["id"], "index": "default"})j");
  ASSERT_EQ(named.status, 200) << named.body;
  json jd = json::parse(named.body);
  std::vector<int64_t> both = kiwi;
  for (int64_t id : served.IdsOf("plum")) both.push_back(id);
  std::sort(both.begin(), both.end());
  std::vector<int64_t> got = Ids(jd["rows"]);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, both);
  EXPECT_EQ(jd["stats"]["index_used"], "default");

  // A filter the index cannot answer: scanned, with the reason.
  CurlResponse other = c->Post("/v1/tables/events/scan", R"({"where": "id < 10", "columns": ["id"]})");
  ASSERT_EQ(other.status, 200) << other.body;
  json jo = json::parse(other.body);
  EXPECT_EQ(jo["row_count"], 10);
  EXPECT_TRUE(jo["stats"]["index_used"].is_null());
  EXPECT_FALSE(jo["stats"]["index_reason"].get<std::string>().empty());

  // Bad requests.
  CurlResponse unknown = c->Post("/v1/tables/events/scan", R"({"where": "s = 'kiwi'", "index": "nope"})");
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(json::parse(unknown.body)["error"]["code"], "unknown_index") << unknown.body;
  // An index that exists but cannot answer the filter.
  EXPECT_EQ(c->Post("/v1/tables/events/scan", R"({"where": "id < 10", "index": "default"})").status, 400);
  EXPECT_EQ(
      c->Post("/v1/tables/events/scan", R"({"where": "s = 'kiwi'", "index": "default", "no_index": true})").status,
      400);
  EXPECT_EQ(c->Post("/v1/tables/events/scan", R"({"index": "default"})").status, 400);
  EXPECT_EQ(c->Post("/v1/tables/events/scan", R"({"no_index": 1})").status, 400);
}

}  // namespace
}  // namespace rap::server
