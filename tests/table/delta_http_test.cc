// rap-test-labels: network
// Delta tables over plain HTTP that cannot list: nginx (tests/testing/nginx_fixture.h) serves copies
// of ../shared/delta-tables (in a temp dir) without a directory index, so the log is found by probing —
// the checkpoint `_last_checkpoint` names (classic, multi-part, V2), then successive commits until one
// is missing. Every table scans to the same rows as the local copy (which is listed), at the latest
// version and at earlier ones the probed log still reaches; a URL with nothing behind it is an error
// naming it; a catch-all server (200 for every path) and a log longer than the probe bound are errors,
// never an endless loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "rap/columnar/array_format.h"
#include "rap/io/object_store.h"
#include "rap/read/scanner.h"
#include "rap/table/delta_log.h"
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

// The shared tables the tests serve, copied (never served or written in place).
const char* const kTables[] = {"simple_table",
                               "simple_table_with_checkpoint",
                               "multi-part-checkpoint",
                               "checkpoint-v2-table",
                               "table_with_deletion_logs",
                               "table-with-dv-small",
                               "basic-with-inserts-overwrite-restore",
                               "table_with_column_mapping"};

class DeltaHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string shared = rap::testing::SharedDir() + "/delta-tables";
    ASSERT_TRUE(std::filesystem::is_directory(shared)) << shared;
    for (const char* t : kTables) {
      std::error_code ec;
      std::filesystem::copy(shared + "/" + t, Tables() + "/" + t, std::filesystem::copy_options::recursive, ec);
      ASSERT_FALSE(ec) << t << ": " << ec.message();
    }
    rap::testing::NginxOptions o;
    o.autoindex = false;
    server_ = std::make_unique<rap::testing::NginxServer>(Tables(), o);
    ASSERT_TRUE(server_->ok()) << server_->error();
  }
  std::string Tables() const { return copies_.path(); }
  std::string Http(const std::string& table) const { return server_->base_url() + "/" + table; }
  rap::testing::TempDir copies_;
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
                         {"table-with-dv-small", {0}},
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

// The probing is bounded: a log with more commits after its checkpoint than the bound is an error
// naming the log, as is any log on a server that answers 200 for every path.
TEST_F(DeltaHttp, ProbingIsBounded) {
  auto url = io::OpenUrl(Http("simple_table"));
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  DeltaLogOptions few;
  few.max_probed_commits = 2;  // simple_table has commits 0..4 and no checkpoint
  auto capped = ReadDeltaLog(url->store, url->path, few);
  ASSERT_FALSE(capped.ok());
  EXPECT_TRUE(capped.status().Is(StatusCode::kResourceExhausted)) << capped.status().ToString();
  EXPECT_NE(capped.status().message().find("simple_table/_delta_log"), std::string::npos) << capped.status().ToString();
  DeltaLogOptions enough;
  enough.max_probed_commits = 5;
  auto all = ReadDeltaLog(url->store, url->path, enough);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->version, 4);
}

TEST_F(DeltaHttp, CatchAllServerIsAnErrorNotAnEndlessProbe) {
  rap::testing::WriteStringToFile(Tables() + "/index.html", "<html>not found, but 200</html>\n");
  rap::testing::NginxOptions o;
  o.fallback = "index.html";
  rap::testing::NginxServer spa(Tables(), o);
  ASSERT_TRUE(spa.ok()) << spa.error();
  for (const std::string& table : {std::string("simple_table"), std::string("simple_table_with_checkpoint"),
                                   std::string("no-such-table")}) {
    SCOPED_TRACE(table);
    auto snap = OpenTable(spa.base_url() + "/" + table);
    ASSERT_FALSE(snap.ok()) << snap->files.size() << " files";
    EXPECT_TRUE(snap.status().Is(StatusCode::kNotSupported)) << snap.status().ToString();
    EXPECT_NE(snap.status().message().find("answers 200"), std::string::npos) << snap.status().ToString();
  }
  // Fewer than a handful of requests each: no probing loop ran.
  EXPECT_LT(spa.AccessLog().size(), 30u);
  // One Parquet file on that server still reads (its "_delta_log/" answers, but it names a file).
  const std::string file = "simple_table/part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet";
  ASSERT_TRUE(std::filesystem::exists(Tables() + "/" + file));
  auto one = OpenTable(spa.base_url() + "/" + file);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->files.size(), 1u);
}

}  // namespace
}  // namespace rap::table
