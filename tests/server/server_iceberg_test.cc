// rap-test-labels: network
// `rap serve` over an Iceberg table (a copy of ../shared/iceberg-tables/impala_v2_pos_deletes_parquet:
// Hive position delete files) with its RAP index: lookups return the rows of the current snapshot
// (deleted rows never), the table list names the index's snapshot, and a scan gives the same rows.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "rap/index/build.h"
#include "testing/paths.h"
#include "testing/serve_fixture.h"

namespace rap::server {
namespace {

using json = nlohmann::json;

TEST(ServerIceberg, LookupsHideDeletedRows) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("ice");
  std::filesystem::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v2_pos_deletes_parquet", t,
                        std::filesystem::copy_options::recursive);
  index::BuildOptions bo;
  bo.key_columns = {"i"};
  auto built = index::BuildIndex(t, bo);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ServerOptions o;
  o.tables = {{"ice", t, ""}};
  o.access_log = "";
  auto f = rap::testing::ServeFixture::Start(o);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto c = (*f)->Client();
  // The table holds (1,a) (2,b) (3,c) (4,d) (5,X) (6,f); its Parquet files also hold deleted rows
  // ((7,d) (8,e) (9,f) and the old (5,e)).
  auto g = c->Get("/v1/tables/ice/lookup?key=5&key=7&key=1&key=8&columns=i,s");
  ASSERT_EQ(g.status, 200) << g.body;
  const json j = json::parse(g.body);
  ASSERT_EQ(j["keys"].size(), 4u);
  EXPECT_EQ(j["keys"][0]["rows"], json::parse(R"([{"i": 5, "s": "X"}])")) << g.body;
  EXPECT_EQ(j["keys"][1]["rows"].size(), 0u) << g.body;
  EXPECT_EQ(j["keys"][2]["rows"], json::parse(R"([{"i": 1, "s": "a"}])")) << g.body;
  EXPECT_EQ(j["keys"][3]["rows"].size(), 0u) << g.body;
  const json tables = json::parse(c->Get("/v1/tables").body);
  EXPECT_EQ(tables["tables"][0]["index"]["table_version"].get<int64_t>(), built->manifest.table_version);
  auto s = c->Post("/v1/tables/ice/scan", R"({"where": "i = 5"})");
  ASSERT_EQ(s.status, 200) << s.body;
  EXPECT_NE(s.body.find("\"X\""), std::string::npos) << s.body;
  EXPECT_EQ(s.body.find("\"e\""), std::string::npos) << s.body;
}

// A table served at a pinned snapshot through a location map (the config's `snapshot` and
// `location_map`): the Spark DV table with its data/ folder moved within it, served at its first
// snapshot (i = 1..5, before the deletion vectors) with an index built at that snapshot.
TEST(ServerIceberg, PinnedSnapshotThroughALocationMap) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("ice");
  std::filesystem::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v3_deletion_vectors", t,
                        std::filesystem::copy_options::recursive);
  std::filesystem::rename(t + "/data", t + "/moved");
  const int64_t first = 2700858159721908397;
  const std::vector<std::pair<std::string, std::string>> map = {
      {"hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors/data", t + "/moved"}};
  index::BuildOptions bo;
  bo.key_columns = {"i"};
  bo.table.snapshot_id = first;
  bo.table.location_map = map;
  auto built = index::BuildIndex(t, bo);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ServerOptions o;
  TableConfig tc{"ice", t, ""};
  tc.snapshot_id = first;
  tc.location_map = map;
  o.tables = {tc};
  o.access_log = "";
  auto f = rap::testing::ServeFixture::Start(o);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto c = (*f)->Client();
  auto g = c->Get("/v1/tables/ice/lookup?key=2&key=4&key=9");
  ASSERT_EQ(g.status, 200) << g.body;
  const json j = json::parse(g.body);
  ASSERT_EQ(j["keys"].size(), 3u);
  EXPECT_EQ(j["keys"][0]["rows"], json::parse(R"([{"i": 2}])")) << g.body;
  EXPECT_EQ(j["keys"][1]["rows"], json::parse(R"([{"i": 4}])")) << g.body;
  EXPECT_EQ(j["keys"][2]["rows"].size(), 0u) << g.body;
  const json tables = json::parse(c->Get("/v1/tables").body);
  EXPECT_EQ(tables["tables"][0]["version"].get<int64_t>(), first) << tables.dump();
  EXPECT_EQ(tables["tables"][0]["index"]["table_version"].get<int64_t>(), first) << tables.dump();
  auto s = c->Post("/v1/tables/ice/scan", R"({})");
  ASSERT_EQ(s.status, 200) << s.body;
  const json rows = json::parse(s.body)["rows"];
  std::vector<int64_t> got;
  for (const json& r : rows) got.push_back(r["i"].get<int64_t>());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4, 5})) << s.body;
}

}  // namespace
}  // namespace rap::server
