// rap-test-labels: network
// The committed Iceberg tables (../shared/iceberg-tables) read as s3:// tables through rap-netsim:
// every table and pinned snapshot gives exactly the rows of the local copy (its deletes applied),
// metadata objects fetched with one suffix-range GET each and the manifests of a snapshot
// concurrently (src/table/iceberg/iceberg_format.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::table {
namespace {

namespace fs = std::filesystem;

Result<rap::testing::ScanRows> Scan(const std::string& url, std::optional<int64_t> snapshot) {
  OpenTableOptions to;
  to.snapshot_id = snapshot;
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url, to));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  return rap::testing::RunScan(std::move(src), read::ScanOptions{});
}

TEST(IcebergS3, CommittedTablesReadAsTheirLocalCopies) {
  rap::testing::TempDir dir;
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables", dir.Join("bkt"), fs::copy_options::recursive);
  rap::testing::NetsimOptions o;
  o.root = dir.path();
  o.latency = "1ms";
  auto server = rap::testing::NetsimServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  rap::testing::NetsimS3Env env((*server)->url());
  struct Case {
    std::string table;
    std::optional<int64_t> snapshot;
    size_t rows;
  };
  for (const Case& c : {Case{"impala_v2_pos_deletes_parquet", std::nullopt, 6},
                        Case{"impala_v2_pos_deletes_parquet", 7490459762454857930, 10},
                        Case{"impala_v3_deletion_vectors", std::nullopt, 3},
                        Case{"impala_v1_hour_identity_partitioned", std::nullopt, 20},
                        Case{"duckdb_equality_deletes/mytable", std::nullopt, 2},
                        Case{"duckdb_equality_deletes/mytable_partitioned", std::nullopt, 3},
                        Case{"duckdb_lineitem_v2", std::nullopt, 51793}}) {
    SCOPED_TRACE(c.table);
    auto local = Scan(dir.Join("bkt/" + c.table), c.snapshot);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    EXPECT_EQ(local->values.size(), c.rows);
    auto remote = Scan("s3://bkt/" + c.table, c.snapshot);
    ASSERT_TRUE(remote.ok()) << remote.status().ToString();
    EXPECT_EQ(remote->values, local->values);
    EXPECT_EQ(remote->fingerprint, local->fingerprint);
  }
}

// A URL naming a metadata file is opened without asking the other formats (no `_delta_log/`
// listing) and without a HEAD: each object of the snapshot's metadata is read once, nothing else.
TEST(IcebergS3, AMetadataFileUrlReadsOnlyTheMetadata) {
  rap::testing::TempDir dir;
  fs::create_directories(dir.Join("bkt"));
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v3_deletion_vectors", dir.Join("bkt/t"),
           fs::copy_options::recursive);
  rap::testing::NetsimOptions o;
  o.root = dir.path();
  auto server = rap::testing::NetsimServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  rap::testing::NetsimS3Env env((*server)->url());
  ASSERT_TRUE((*server)->ResetStats().ok());
  auto snap = OpenTable("s3://bkt/t/metadata/v3.metadata.json");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto local = OpenTable(dir.Join("bkt/t"));
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(snap->files.size(), local->files.size());
  auto stats = (*server)->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->total.heads, 0u) << stats->json;
  EXPECT_GE(stats->paths.size(), 3u) << stats->json;  // metadata.json, the manifest list, a manifest
  for (const auto& [path, c] : stats->paths) {
    EXPECT_EQ(path.rfind("/bkt/t/metadata/", 0), 0u) << path;
    EXPECT_EQ(c.requests, 1u) << path;
  }
  EXPECT_EQ(stats->paths.count("/bkt/t/metadata/v3.metadata.json"), 1u) << stats->json;
}

}  // namespace
}  // namespace rap::table
