// rap-test-labels: network
// Late materialisation over real remote stores: the generated partitioned table (tests/testing/
// scan_table.h: 3 files x 2 row groups x 10 pages, page index) is served by nginx (http://) and
// uploaded to the Swift s3api server (s3://). For random filters, projections, limits and plan
// policies the scan's rows, values and fingerprint equal a full scan of the local files filtered by
// hand; for id-range filters the pages decoded equal those computed from the OffsetIndex; and every
// scan stays within a bounded number of requests.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "rap/io/object_store.h"
#include "rap/io/s3_store.h"
#include "rap/read/scanner.h"
#include "testing/nginx_fixture.h"
#include "testing/paths.h"
#include "testing/scan_table.h"
#include "testing/swift_fixture.h"

namespace rap::read {
namespace {

using rap::testing::ScanRows;
using rap::testing::SwiftEnvironment;

::testing::Environment* const kSwift = ::testing::AddGlobalTestEnvironment(new SwiftEnvironment());

constexpr int kRandomScans = 16;    // random filter + projection (+ limit, policy) per store
constexpr int kPageChecks = 6;      // id-range scans whose decoded pages are checked per store
const rap::testing::ScanTableOptions kTable;  // 3 files x 2000 rows, row groups of 1000, pages of 100

class ScanRemote : public ::testing::Test {
 protected:
  void SetUp() override {
    auto files = rap::testing::MakeScanTable(kTable);
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    files_ = std::move(*files);
    for (const auto& f : files_) {
      const std::string path = dir_.Join("t/" + f.relative_path);
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      rap::testing::WriteStringToFile(path, f.bytes);
    }
    auto local = io::OpenUrl("file://" + dir_.Join("t"));
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    local_ = rap::testing::ScanTableSource(local->store, local->path, files_);
    auto full = rap::testing::ScanEverything(local_);
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    full_ = std::move(*full);
  }

  // Scans `source` with random filters/projections and compares with the local reference.
  void CheckRandomScans(const ScanSource& source, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int64_t total_rows = kTable.files * kTable.rows_per_file;
    const auto& names = rap::testing::ScanTableColumns();
    const char* kPolicies[] = {"auto", "exact", "fixed:64KiB", "store"};
    for (int i = 0; i < kRandomScans; ++i) {
      const std::string text = rap::testing::RandomScanFilter(rng, total_rows);
      ScanOptions o;
      auto filter = ParseExpr(text);
      ASSERT_TRUE(filter.ok()) << text << ": " << filter.status().ToString();
      o.filter = *filter;
      std::vector<int> proj;
      for (int c = 0; c < static_cast<int>(names.size()); ++c) {
        if (rng() % 2) proj.push_back(c);
      }
      if (proj.empty()) proj.push_back(static_cast<int>(rng() % names.size()));
      std::shuffle(proj.begin(), proj.end(), rng);
      for (int c : proj) o.columns.push_back(names[static_cast<size_t>(c)]);
      o.limit = rng() % 4 == 0 ? static_cast<int64_t>(rng() % 300) : -1;
      o.batch_size = rng() % 2 ? 1000 : 173;
      auto policy = plan::ParsePlanPolicy(kPolicies[rng() % 4]);
      ASSERT_TRUE(policy.ok());
      o.reader.plan.policy = *policy;
      o.reader.use_metadata_cache = false;  // every scan reads its own footers through the store
      std::string what = text + " | columns";
      for (const auto& c : o.columns) what += " " + c;
      what += " | limit " + std::to_string(o.limit) + " | plan " + policy->ToString();
      SCOPED_TRACE(what);

      auto want = rap::testing::FilterByHand(full_, o.filter, proj, o.limit);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      auto got = rap::testing::RunScan(source, o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->ids, want->ids);
      EXPECT_EQ(got->values, want->values);
      EXPECT_EQ(got->fingerprint, want->fingerprint);
      // Bounded requests: per file at most the footer (2 requests: tail, then the rest when the tail
      // was short) and the page index, per row group two planned reads of at most one request per
      // column chunk's page run (5 columns x 2 row groups x 2 reads), never one request per page.
      const int64_t bound = kTable.files * (3 + 2 * 2 * 5);
      EXPECT_LE(got->stats.requests, bound);
      EXPECT_GT(got->stats.requests, 0);
    }
  }

  // Id-range scans: the pages decoded equal those computed from the OffsetIndex.
  void CheckPages(const ScanSource& source, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int64_t total_rows = kTable.files * kTable.rows_per_file;
    const std::vector<std::vector<std::string>> kProjections = {{"v"}, {"s", "d"}, {"id", "v", "s", "d", "part"},
                                                                {"part", "d"}, {"id"}};
    for (int i = 0; i < kPageChecks; ++i) {
      const int64_t lo = static_cast<int64_t>(rng() % static_cast<uint64_t>(total_rows));
      const int64_t hi = lo + 1 + static_cast<int64_t>(rng() % 1500);
      const auto& columns = kProjections[rng() % kProjections.size()];
      SCOPED_TRACE("id in [" + std::to_string(lo) + ", " + std::to_string(hi) + ") columns " +
                   std::to_string(columns.size()));
      ScanOptions o;
      o.filter = *ParseExpr("id >= " + std::to_string(lo) + " AND id < " + std::to_string(hi));
      o.columns = columns;
      auto got = rap::testing::RunScan(source, o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(static_cast<int64_t>(got->ids.size()), std::min(hi, total_rows) - lo);
      auto expect = rap::testing::ExpectedPagesForIdRange(source, kTable, lo, hi, columns);
      ASSERT_TRUE(expect.ok()) << expect.status().ToString();
      EXPECT_GT(*expect, 0);
      EXPECT_EQ(got->stats.pages_read, *expect);
    }
  }

  rap::testing::TempDir dir_;
  std::vector<rap::testing::ScanTableFile> files_;
  ScanSource local_;
  rap::testing::FullScan full_;
};

TEST_F(ScanRemote, LocalFiles) {
  CheckRandomScans(local_, 101);
  CheckPages(local_, 102);
}

TEST_F(ScanRemote, HttpNginx) {
  rap::testing::NginxServer nginx(dir_.path());
  if (!nginx.ok() && !std::filesystem::exists("/usr/sbin/nginx")) GTEST_SKIP() << nginx.error();
  ASSERT_TRUE(nginx.ok()) << nginx.error();
  auto http = io::OpenUrl(nginx.base_url() + "/t");
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  const ScanSource source = rap::testing::ScanTableSource(http->store, http->path, files_);
  CheckRandomScans(source, 201);
  CheckPages(source, 202);
  // Only range GETs of the table's files: no request for anything else.
  for (const auto& e : nginx.AccessLog()) EXPECT_EQ(e.status, 206) << e.method << " " << e.range;
}

TEST_F(ScanRemote, S3Swift) {
  auto* swift = SwiftEnvironment::Get();
  if (!swift || !swift->ok()) {
    if (!std::filesystem::exists("/usr/bin/swift-proxy-server")) {
      GTEST_SKIP() << (swift ? swift->error() : "no Swift environment");
    }
    FAIL() << (swift ? swift->error() : "no Swift environment");
  }
  auto s3 = io::MakeS3Store(SwiftEnvironment::kBucket, swift->s3_config());
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();
  const std::string root = "scan-remote/t";
  for (const auto& f : files_) {
    ASSERT_TRUE((*s3)->Put(io::JoinPath(root, f.relative_path), Buffer::Copy(f.bytes)).ok());
  }
  const ScanSource source = rap::testing::ScanTableSource(*s3, root, files_);
  CheckRandomScans(source, 301);
  CheckPages(source, 302);
}

}  // namespace
}  // namespace rap::read
