// rap-test-labels: network concurrent
// s3:// tables through rap-netsim's S3 calls (ListObjectsV2, HEAD, ranged GET; any signature): a
// directory table lists and scans to the same fingerprint as the local copy for every prefetch and
// warmup setting; rap-netsim counts the listing; a 503 that persists on one file's reads surfaces as
// the scan's error; a limit ends the scan while the next file's responses are stalled.
#include <gtest/gtest.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::table {
namespace {

class S3NetsimScan : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::ScanTableOptions t;
    t.files = 3;
    t.rows_per_file = 3000;
    t.row_group_rows = 700;
    auto files = rap::testing::MakeScanTable(t);
    ASSERT_TRUE(files.ok());
    files_ = *files;
    rap::testing::WriteScanTable(dir_.Join("bkt/t"), files_);
    rap::testing::NetsimOptions o;
    o.root = dir_.path();
    o.latency = "2ms";
    auto s = rap::testing::NetsimServer::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    setenv("AWS_ENDPOINT_URL", server_->url().c_str(), 1);
    setenv("AWS_ACCESS_KEY_ID", "netsim", 1);  // rap-netsim accepts any signature
    setenv("AWS_SECRET_ACCESS_KEY", "netsim-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
  }
  void TearDown() override {
    for (const char* v : {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}) unsetenv(v);
  }

  static Result<rap::testing::ScanRows> Scan(const std::string& url, read::ScanOptions o) {
    RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url));
    RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
    return rap::testing::RunScan(std::move(src), std::move(o));
  }

  rap::testing::TempDir dir_;
  std::vector<rap::testing::ScanTableFile> files_;
  std::unique_ptr<rap::testing::NetsimServer> server_;
};

TEST_F(S3NetsimScan, SameRowsAsLocalForEveryPrefetchSetting) {
  read::ScanOptions plain;
  plain.prefetch.producers = 1;
  plain.warmup.level = read::WarmupLevel::kNone;
  plain.reader.use_metadata_cache = false;
  auto local = Scan(dir_.Join("bkt/t"), plain);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  ASSERT_EQ(local->ids.size(), 9000u);
  for (int producers : {1, 3, 8}) {
    for (read::WarmupLevel level : {read::WarmupLevel::kNone, read::WarmupLevel::kRaw, read::WarmupLevel::kDecoded}) {
      for (const char* where : {"", "v > 50"}) {
        SCOPED_TRACE(fmt::format("P {} warmup {} where '{}'", producers, static_cast<int>(level), where));
        read::ScanOptions o = plain;
        o.prefetch.producers = producers;
        o.prefetch.min_file_bytes = 0;
        o.prefetch.ranges.natural_read_size = 4096;  // split the row groups
        o.warmup.level = level;
        o.batch_size = 500;
        read::ScanOptions ref = plain;
        if (*where) {
          o.filter = *read::ParseExpr(where);
          ref.filter = o.filter;
        }
        auto want = Scan(dir_.Join("bkt/t"), ref);
        ASSERT_TRUE(want.ok());
        ASSERT_TRUE(server_->ResetStats().ok());
        auto got = Scan("s3://bkt/t", o);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_EQ(got->fingerprint, want->fingerprint);
        EXPECT_EQ(got->ids, want->ids);
        auto stats = server_->Stats();
        ASSERT_TRUE(stats.ok());
        EXPECT_GE(nlohmann::json::parse(stats->json)["lists"].get<int>(), 1) << stats->json;  // ListObjectsV2
      }
    }
  }
}

TEST_F(S3NetsimScan, PersistentServerErrorOnOneFileIsTheScansError) {
  ASSERT_TRUE(server_->AddFault("kind=503&count=-1&path=/bkt/t/part=b").ok());
  read::ScanOptions o;
  o.prefetch.producers = 3;
  o.prefetch.min_file_bytes = 0;
  o.prefetch.ranges.natural_read_size = 4096;
  o.reader.use_metadata_cache = false;
  auto r = Scan("s3://bkt/t", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("part=b"), std::string::npos) << r.status().ToString();
}

TEST_F(S3NetsimScan, LimitEndsWhileTheNextFileIsStalled) {
  ASSERT_TRUE(server_->AddFault("kind=stall&seconds=60&count=-1&path=/bkt/t/part=b").ok());
  for (read::WarmupLevel level : {read::WarmupLevel::kRaw, read::WarmupLevel::kDecoded}) {
    read::ScanOptions o;
    o.prefetch.producers = 2;
    o.prefetch.min_file_bytes = 0;
    o.warmup.level = level;
    o.limit = 100;
    o.reader.use_metadata_cache = false;
    auto r = Scan("s3://bkt/t", o);  // returns without waiting for the stalled warmup reads
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->ids.size(), 100u);
  }
}

}  // namespace
}  // namespace rap::table
