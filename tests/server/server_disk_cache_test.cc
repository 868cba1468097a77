// rap-test-labels: network
// `rap serve` with the disk tier (RAP_CACHE_DIR, as `--cache-dir` sets it) over a remote table
// (S3 on rap-netsim): /metrics has the rap_disk_cache_* series in valid Prometheus text, and a
// restarted server (new in-memory caches) answers the same lookup with the pages from disk — fewer
// requests reach the store, and the same rows.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "rap/io/disk_cache.h"
#include "testing/cli_run.h"
#include "testing/index_table.h"
#include "testing/netsim_fixture.h"
#include "testing/serve_fixture.h"

namespace rap::server {
namespace {

using rap::testing::CurlClient;

uint64_t MetricValue(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return UINT64_MAX;
  return std::stoull(text.substr(at + name.size() + 2));
}

TEST(ServerDiskCache, RestartedServerReadsPagesFromDisk) {
  ASSERT_TRUE(rap::testing::RapBinaryExists());
  rap::testing::TempDir dir, cache;
  rap::testing::IndexTableOptions o;
  o.files = 3;
  o.rows = 2000;
  o.key_space = 100;
  rap::testing::WriteIndexTable(dir.Join("bkt/t"), o);
  auto b = rap::testing::RunCli("index build '" + dir.Join("bkt/t") + "' --key k --cover s,g -q");
  ASSERT_EQ(b.exit_code, 0) << b.out;
  rap::testing::NetsimOptions no;
  no.root = dir.path();
  auto ns = rap::testing::NetsimServer::Start(no);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  rap::testing::NetsimS3Env s3((*ns)->url());  // s3://bkt/t is DIR/bkt/t
  ::setenv("RAP_CACHE_DIR", cache.path().c_str(), 1);  // what `rap serve --cache-dir` does

  std::string rows[2];
  uint64_t requests[2] = {0, 0};
  std::string metrics;
  for (int run = 0; run < 2; ++run) {
    ServerOptions so;
    so.tables = {{"t", "s3://bkt/t", ""}};
    so.access_log = "";
    so.refresh_interval_s = 0;
    auto f = rap::testing::ServeFixture::Start(so);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    ASSERT_TRUE((*ns)->ResetStats().ok());
    auto r = CurlClient((*f)->url()).Get("/v1/tables/t/lookup?key=17&columns=k,s,g");
    ASSERT_EQ(r.status, 200) << r.body;
    rows[run] = nlohmann::json::parse(r.body)["keys"].dump();
    auto st = (*ns)->Stats();
    ASSERT_TRUE(st.ok());
    requests[run] = st->total.requests;
    metrics = CurlClient((*f)->url()).Get("/metrics").body;
  }
  ::unsetenv("RAP_CACHE_DIR");
  EXPECT_EQ(rows[0], rows[1]);
  EXPECT_NE(rows[0].find("\"s17\""), std::string::npos) << rows[0];
  EXPECT_LT(requests[1], requests[0]);
  EXPECT_EQ(rap::testing::PrometheusProblem(metrics), "");
  EXPECT_GT(MetricValue(metrics, "rap_disk_cache_hits_total"), 0u) << metrics;
  EXPECT_NE(MetricValue(metrics, "rap_disk_cache_hits_total"), UINT64_MAX) << metrics;
  EXPECT_GT(MetricValue(metrics, "rap_disk_cache_entries"), 0u);
}

}  // namespace
}  // namespace rap::server
