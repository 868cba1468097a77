// rap-test-labels: network
// A Paimon table read as an s3:// table through rap-netsim: the same rows as the local copy, and
// every metadata object (LATEST, snapshot, schema, manifest lists, manifests) read with one
// suffix-range GET — no HEAD before it (src/table/small_object.cc).
#include <gtest/gtest.h>

#include <filesystem>
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

Result<rap::testing::ScanRows> Scan(const std::string& url) {
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  return rap::testing::RunScan(std::move(src), read::ScanOptions{});
}

TEST(PaimonS3, MetadataObjectsAreReadWithOneRequestEach) {
  rap::testing::TempDir dir;
  fs::create_directories(dir.Join("bkt"));
  fs::copy(rap::testing::SharedDir() + "/paimon-tables/pk_mor_parquet", dir.Join("bkt/t"),
           fs::copy_options::recursive);
  rap::testing::NetsimOptions o;
  o.root = dir.path();
  auto server = rap::testing::NetsimServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  rap::testing::NetsimS3Env env((*server)->url());
  ASSERT_TRUE((*server)->ResetStats().ok());
  auto remote = Scan("s3://bkt/t");
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  auto stats = (*server)->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  auto local = Scan(dir.Join("bkt/t"));
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(remote->values, local->values);
  EXPECT_FALSE(local->values.empty());
  size_t metadata_objects = 0;
  for (const auto& [path, c] : stats->paths) {
    if (path.find("/manifest/") == std::string::npos && path.find("/schema/") == std::string::npos) continue;
    SCOPED_TRACE(path);
    ++metadata_objects;
    EXPECT_EQ(c.heads, 0u) << stats->json;
    EXPECT_EQ(c.requests, 1u) << stats->json;
  }
  EXPECT_GE(metadata_objects, 3u) << stats->json;  // a schema, a manifest list, a manifest
}

}  // namespace
}  // namespace rap::table
