// rap-test-labels: network
// `rap lookup --cache-dir` over HTTP (rap-netsim), as fresh processes: the first lookup fills the
// disk cache, the next ones read the index and data pages from it — fewer requests and bytes reach
// the server — and every run prints the rows a brute-force read of the files gives. Also `rap
// index` covered lookups, and bad settings fail with a message naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "rap/index/build.h"
#include "testing/cli_run.h"
#include "testing/index_table.h"
#include "testing/netsim_fixture.h"

namespace rap::index {
namespace {

using rap::testing::RunCli;

// CSV rows as BruteForce::Rows renders them ("a|b|c|"), sorted.
std::vector<std::string> CsvRows(const std::string& out) {
  std::vector<std::string> rows = rap::testing::SortedRows(out);
  for (std::string& r : rows) {
    std::replace(r.begin(), r.end(), ',', '|');
    r += "|";
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Served {
  uint64_t requests = 0, bytes = 0;
  std::string out;
};

class DiskCacheCli : public ::testing::TestWithParam<bool> {  // param: a covering index
 protected:
  void SetUp() override {
    ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
    rap::testing::IndexTableOptions o;
    o.files = 3;
    o.rows = 3000;
    o.key_space = 200;
    table_ = dir_.Join("t");
    std::vector<std::string> names = rap::testing::WriteIndexTable(table_, o);
    std::vector<std::string> paths;
    for (const std::string& n : names) paths.push_back(table_ + "/" + n);
    auto bf = rap::testing::BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    bf_ = std::move(*bf);
    const std::string cover = GetParam() ? " --cover s,g" : "";
    auto b = RunCli("index build '" + table_ + "' --key k --buckets 4 -q" + cover);
    ASSERT_EQ(b.exit_code, 0) << b.out;
    rap::testing::NetsimOptions no;
    no.root = dir_.path();
    auto s = rap::testing::NetsimServer::Start(no);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
  }

  Served Lookup(const std::string& key, const std::string& extra) {
    Served r;
    EXPECT_TRUE(server_->ResetStats().ok());
    auto run = RunCli("lookup '" + server_->url() + "/t' --key " + key + " -c k,s,g --format csv --cache-dir '" +
                          cache_.path() + "' " + extra,
                      false);
    EXPECT_EQ(run.exit_code, 0) << run.out;
    r.out = run.out;
    auto st = server_->Stats();
    EXPECT_TRUE(st.ok());
    if (st.ok()) {
      r.requests = st->total.requests;
      r.bytes = st->total.payload_bytes;
    }
    return r;
  }

  rap::testing::TempDir dir_, cache_;
  std::string table_;
  rap::testing::BruteForce bf_;
  std::unique_ptr<rap::testing::NetsimServer> server_;
};

TEST_P(DiskCacheCli, LaterProcessesReadPagesFromDisk) {
  for (const char* key : {"17", "123", "199"}) {
    SCOPED_TRACE(key);
    const std::vector<std::string> want = bf_.Rows({"k"}, {key}, {"k", "s", "g"});
    ASSERT_FALSE(want.empty());
    Served first = Lookup(key, "");
    Served second = Lookup(key, "");
    Served third = Lookup(key, "");
    EXPECT_EQ(CsvRows(first.out), want);
    EXPECT_EQ(CsvRows(second.out), want);
    EXPECT_EQ(CsvRows(third.out), want);
    EXPECT_LT(second.requests, first.requests);
    EXPECT_LT(second.bytes, first.bytes);
    EXPECT_EQ(third.requests, second.requests);  // what is left is what is never cached
  }
  // --stats reports the cache.
  auto stats = RunCli("lookup '" + server_->url() + "/t' --key 17 -c k --format none --stats --cache-dir '" +
                      cache_.path() + "'");
  ASSERT_EQ(stats.exit_code, 0) << stats.out;
  EXPECT_NE(stats.out.find("disk cache " + cache_.path() + ": hits "), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find(": hits 0 "), std::string::npos) << stats.out;
}

TEST_P(DiskCacheCli, BadSettingsFailWithTheirName) {
  auto size = RunCli("lookup '" + server_->url() + "/t' --key 17 --cache-dir '" + cache_.path() + "' --cache-size lots");
  EXPECT_NE(size.exit_code, 0);
  EXPECT_NE(size.out.find("--cache-size"), std::string::npos) << size.out;
  auto under = RunCli("lookup '" + server_->url() + "/t' --key 17 --cache-dir /dev/null/cache");
  EXPECT_NE(under.exit_code, 0);
  EXPECT_NE(under.out.find("--cache-dir"), std::string::npos) << under.out;
}

INSTANTIATE_TEST_SUITE_P(Index, DiskCacheCli, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Covered" : "Plain"; });

}  // namespace
}  // namespace rap::index
