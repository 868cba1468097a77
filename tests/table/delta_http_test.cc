// rap-test-labels: network
// Delta tables over plain HTTP that cannot list: nginx (tests/testing/nginx_fixture.h) serves
// ../shared/delta-tables without a directory index, so the log is found by probing — the checkpoint
// `_last_checkpoint` names (classic, multi-part, V2), then successive commits until one is missing.
// Every table scans to the same rows as the local copy (which is listed), at the latest version and
// at earlier ones the probed log still reaches; a URL with nothing behind it is an error naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/nginx_fixture.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

struct Scanned {
  int64_t version = -1;
  std::vector<std::string> rows;  // sorted
};

Result<Scanned> ScanSorted(const std::string& url, std::optional<int64_t> version = std::nullopt) {
  OpenTableOptions to;
  to.version = version;
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url, to));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), {}));
  Scanned out;
  out.version = snap.version;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, scanner->Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->batch.num_rows; ++r) {
      std::string line;
      for (size_t c = 0; c < batch->batch.columns.size(); ++c) {
        line += (c ? " | " : "") + FormatValue(*batch->batch.columns[c], r);
      }
      out.rows.push_back(std::move(line));
    }
  }
  std::sort(out.rows.begin(), out.rows.end());
  return out;
}

class DeltaHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::NginxOptions o;
    o.autoindex = false;
    server_ = std::make_unique<rap::testing::NginxServer>(Tables(), o);
    ASSERT_TRUE(server_->ok()) << server_->error();
  }
  static std::string Tables() { return rap::testing::SharedDir() + "/delta-tables"; }
  std::string Http(const std::string& table) const { return server_->base_url() + "/" + table; }
  std::unique_ptr<rap::testing::NginxServer> server_;
};

TEST_F(DeltaHttp, TablesReadWithoutListing) {
  // Commits only (with a stray .tmp/ commit), classic checkpoint, multi-part checkpoint, V2
  // checkpoint with sidecars, checkpoints plus deletion vectors, checkpoint after an overwrite.
  struct Case {
    std::string table;
    std::vector<int64_t> earlier;  // versions also compared (at or after the last checkpoint)
  };
  const Case kCases[] = {{"simple_table", {0, 2}},
                         {"simple_table_with_checkpoint", {10}},
                         {"multi-part-checkpoint/delta", {1}},
                         {"checkpoint-v2-table", {8}},
                         {"table_with_deletion_logs", {20}},
                         {"basic-with-inserts-overwrite-restore/delta", {3}},
                         {"table_with_column_mapping", {0}}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.table);
    auto local = ScanSorted(Tables() + "/" + c.table);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    auto remote = ScanSorted(Http(c.table));
    ASSERT_TRUE(remote.ok()) << remote.status().ToString();
    EXPECT_EQ(remote->version, local->version);
    EXPECT_FALSE(remote->rows.empty());
    EXPECT_EQ(remote->rows, local->rows);
    for (int64_t v : c.earlier) {
      auto lv = ScanSorted(Tables() + "/" + c.table, v);
      ASSERT_TRUE(lv.ok()) << lv.status().ToString();
      auto rv = ScanSorted(Http(c.table), v);
      ASSERT_TRUE(rv.ok()) << "version " << v << ": " << rv.status().ToString();
      EXPECT_EQ(rv->rows, lv->rows) << "version " << v;
    }
  }
  // The server really cannot list: a directory GET is refused.
  bool refused = false;
  for (const auto& e : server_->AccessLog()) refused = refused || e.status == 403;
  EXPECT_TRUE(refused);
}

TEST_F(DeltaHttp, NothingThereIsAnErrorNamingTheUrl) {
  for (const std::string& table : {std::string("no-such-table"), std::string("simple_table/_delta_log")}) {
    auto snap = OpenTable(Http(table));
    ASSERT_FALSE(snap.ok()) << table << " opened with " << snap->files.size() << " files";
    EXPECT_NE(snap.status().message().find(Http(table)), std::string::npos) << snap.status().ToString();
  }
}

}  // namespace
}  // namespace rap::table
