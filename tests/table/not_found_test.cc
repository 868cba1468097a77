// rap-test-labels: network
// A URL with nothing to scan behind it — a typo, a folder or prefix without a single Parquet file —
// is an error naming the URL, for every kind of store: local paths, file://, http(s) (nginx with and
// without a directory index) and s3:// (rap-netsim's S3 calls); through the library (OpenTable) and
// the CLI (`rap scan` exits non-zero). An empty Delta table (a log without live files) stays a valid
// empty result on each store.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/table/table.h"
#include "testing/cli_run.h"
#include "testing/netsim_fixture.h"
#include "testing/nginx_fixture.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

namespace fs = std::filesystem;

// A Delta log whose only commit defines a table without adding a file.
constexpr const char* kEmptyCommit =
    "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
    "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
    "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\","
    "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
    "\"partitionColumns\":[],\"configuration\":{}}}\n";

class NotFound : public ::testing::Test {
 protected:
  void SetUp() override {
    // bkt/ is the S3 bucket of rap-netsim and the folder nginx serves.
    fs::create_directories(dir_.Join("bkt/clutter/sub"));
    rap::testing::WriteStringToFile(dir_.Join("bkt/clutter/readme.txt"), "not parquet");
    rap::testing::WriteStringToFile(dir_.Join("bkt/clutter/sub/data.csv"), "a\n1\n");
    fs::create_directories(dir_.Join("bkt/empty_delta/_delta_log"));
    rap::testing::WriteStringToFile(dir_.Join("bkt/empty_delta/_delta_log/00000000000000000000.json"), kEmptyCommit);
  }

  // The URL is an error naming it, from the library and from `rap scan`.
  void ExpectNothingFound(const std::string& url) {
    SCOPED_TRACE(url);
    auto snap = OpenTable(url);
    ASSERT_FALSE(snap.ok()) << "opened with " << snap->files.size() << " files";
    EXPECT_TRUE(snap.status().Is(StatusCode::kNotFound)) << snap.status().ToString();
    EXPECT_NE(snap.status().message().find(url + ": no Parquet files found"), std::string::npos)
        << snap.status().ToString();
    if (!rap::testing::RapBinaryExists()) return;
    rap::testing::CliRun r = rap::testing::RunCli("scan '" + url + "' --format csv");
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(url + ": no Parquet files found"), std::string::npos) << r.out;
  }

  // An empty Delta table is an empty result (exit 0, only the header).
  void ExpectEmptyTable(const std::string& url) {
    SCOPED_TRACE(url);
    auto snap = OpenTable(url);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ(snap->kind, TableKind::kDelta);
    EXPECT_TRUE(snap->files.empty());
    if (!rap::testing::RapBinaryExists()) return;
    rap::testing::CliRun r = rap::testing::RunCli("scan '" + url + "' --format csv", /*stderr_too=*/false);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, "a\n");
  }

  rap::testing::TempDir dir_;
};

TEST_F(NotFound, LocalPathsAndFileUrls) {
  for (const std::string& prefix : {std::string(), std::string("file://")}) {
    ExpectNothingFound(prefix + dir_.Join("bkt/no/such/path"));
    ExpectNothingFound(prefix + dir_.Join("bkt/no_such_file.parquet"));
    ExpectNothingFound(prefix + dir_.Join("bkt/clutter"));
    ExpectEmptyTable(prefix + dir_.Join("bkt/empty_delta"));
  }
}

TEST_F(NotFound, HttpWithAndWithoutDirectoryIndex) {
  for (bool autoindex : {true, false}) {
    SCOPED_TRACE(autoindex ? "autoindex" : "no directory index");
    rap::testing::NginxOptions o;
    o.autoindex = autoindex;
    rap::testing::NginxServer server(dir_.path(), o);
    ASSERT_TRUE(server.ok()) << server.error();
    const std::string base = server.base_url() + "/bkt";
    ExpectNothingFound(base + "/no/such/path");
    ExpectNothingFound(base + "/no_such_file.parquet");
    ExpectNothingFound(base + "/clutter");
    ExpectEmptyTable(base + "/empty_delta");
  }
}

TEST_F(NotFound, S3Prefixes) {
  rap::testing::NetsimOptions o;
  o.root = dir_.path();
  auto server = rap::testing::NetsimServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  rap::testing::NetsimS3Env s3_env((*server)->url());
  ExpectNothingFound("s3://bkt/no/such/prefix");
  ExpectNothingFound("s3://bkt/no_such_file.parquet");
  ExpectNothingFound("s3://bkt/clutter");
  ExpectNothingFound("s3://bkt/clutter/");
  ExpectEmptyTable("s3://bkt/empty_delta");
}

}  // namespace
}  // namespace rap::table
