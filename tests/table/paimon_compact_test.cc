// rap compact of Paimon append tables written by pypaimon (tests/python/paimon_writer.py, run once
// by the Paimon virtual environment's Python, scripts/install-paimon-venv.sh): the COMPACT snapshot
// reads with the rows of the snapshot it compacted; a commit that lands first (another writer's
// snapshot of the same id) and a cancelled compaction leave nothing behind; planning limits.
// pypaimon's and Java Paimon's own readings of rap's snapshots: tests/python/test_paimon.py and
// test_paimon_spark.py.
#include "rap/table/paimon_compact.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/arrays.h"
#include "testing/paimon_tables.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

namespace fs = std::filesystem;

// Every row of the table's latest snapshot as text, sorted.
std::vector<std::string> Rows(const std::string& url) {
  auto snap = OpenTable(url);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return {};
  auto src = ToScanSource(*snap);
  EXPECT_TRUE(src.ok()) << src.status().ToString();
  auto scanner = read::Scanner::Make(std::move(*src), {});
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<std::string> rows;
  while (true) {
    auto b = (*scanner)->Next();
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok() || !*b) break;
    for (int64_t r = 0; r < (*b)->batch.num_rows; ++r) rows.push_back(testing::RowText((*b)->batch, r));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Every file under the table's folder (relative paths).
std::set<std::string> Files(const std::string& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
  }
  return out;
}

class PaimonCompact : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    written_ = new testing::TempDir();
    status_ = testing::WritePaimonTables(written_->path());
  }
  static void TearDownTestSuite() {
    delete written_;
    written_ = nullptr;
  }
  void SetUp() override {
    ASSERT_EQ(status_, 0) << "pypaimon did not write the tables (" << testing::PaimonPython()
                          << "; run scripts/install-paimon-venv.sh)";
  }
  // A copy of the pypaimon table `name` of this test's own.
  std::string Copy(const std::string& name) {
    const std::string to = dir_.Join(name);
    fs::copy(written_->path() + "/warehouse/db.db/" + name, to, fs::copy_options::recursive);
    return to;
  }
  static testing::TempDir* written_;
  static int status_;
  testing::TempDir dir_;
};

testing::TempDir* PaimonCompact::written_ = nullptr;
int PaimonCompact::status_ = -1;

// Also tables of ORC files (file.format orc, one with a renamed and an added column): read through
// the ORC reader, written as Parquet (rap has no ORC writer), so the table's files are then a mix
// (pypaimon and Java Paimon read it: test_paimon.py).
TEST_F(PaimonCompact, CompactSnapshotKeepsTheRows) {
  for (const char* name : {"compact_bucketed", "compact_parts", "append_orc", "evolve_append_orc"}) {
    SCOPED_TRACE(name);
    const std::string t = Copy(name);
    const auto before = Rows(t);
    ASSERT_FALSE(before.empty());
    auto r = CompactPaimonTable(t, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->snapshot_id, r->base_snapshot_id + 1);
    EXPECT_GE(r->files_read, 4);
    EXPECT_LT(r->files_written, r->files_read);
    EXPECT_GE(r->warmup_files, r->files_read - r->files_written);  // every input after a bin's first
    EXPECT_EQ(Rows(t), before);
    auto snap = OpenTable(t);
    ASSERT_TRUE(snap.ok());
    EXPECT_EQ(snap->version, r->snapshot_id);
    if (std::string(name).find("orc") != std::string::npos) {
      int64_t parquet = 0;
      for (const DataFile& f : snap->files) parquet += f.relative_path.ends_with(".parquet");
      EXPECT_EQ(parquet, r->files_written);
    }
    const std::string json = testing::ReadFileToString(t + "/snapshot/snapshot-" + std::to_string(r->snapshot_id));
    EXPECT_NE(json.find("\"commitKind\": \"COMPACT\""), std::string::npos) << json;
    EXPECT_EQ(testing::ReadFileToString(t + "/snapshot/LATEST"), std::to_string(r->snapshot_id));
    // Compacted again: nothing left to do.
    auto again = CompactPaimonTable(t, {});
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(again->snapshot_id, -1);
    EXPECT_EQ(again->files_read, 0);
  }
}

TEST_F(PaimonCompact, ACommitThatLandsFirstWinsAndNothingIsLeft) {
  const std::string t = Copy("compact_bucketed");
  const auto before = Rows(t);
  const auto files = Files(t);
  auto snap = OpenTable(t);
  ASSERT_TRUE(snap.ok());
  const std::string next = "snapshot/snapshot-" + std::to_string(snap->version + 1);
  PaimonCompactOptions o;
  // Another writer's commit of the same id (here: the compacted snapshot again, under the next id).
  o.before_commit = [&] {
    std::string json = testing::ReadFileToString(t + "/snapshot/snapshot-" + std::to_string(snap->version));
    const std::string id = "\"id\": " + std::to_string(snap->version) + ",";
    ASSERT_NE(json.find(id), std::string::npos) << json;
    json.replace(json.find(id), id.size(), "\"id\": " + std::to_string(snap->version + 1) + ",");
    testing::WriteStringToFile(t + "/" + next, json);
  };
  auto r = CompactPaimonTable(t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kChanged) << r.status().ToString();
  auto expected = files;
  expected.insert(next);
  EXPECT_EQ(Files(t), expected);  // data files, manifests and lists written by rap are gone
  EXPECT_EQ(Rows(t), before);
}

TEST_F(PaimonCompact, CancelledBeforeTheCommitLeavesNothing) {
  const std::string t = Copy("compact_parts");
  const auto files = Files(t);
  auto cancel = std::make_shared<io::CancellationToken>();
  PaimonCompactOptions o;
  o.cancel = cancel;
  o.progress = [&](int64_t, int64_t) { cancel->Cancel(); };  // after the first output file
  auto r = CompactPaimonTable(t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
  EXPECT_EQ(Files(t), files);
}

TEST_F(PaimonCompact, PlanningLimits) {
  const std::string t = Copy("compact_bucketed");
  const auto files = Files(t);
  PaimonCompactOptions many;
  many.min_files = 100;  // no bucket has that many small files
  auto r = CompactPaimonTable(t, many);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_read, 0);
  PaimonCompactOptions tiny;
  tiny.target_file_size = 1;  // every file is already at least the target
  r = CompactPaimonTable(t, tiny);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_read, 0);
  PaimonCompactOptions dry;
  dry.dry_run = true;
  r = CompactPaimonTable(t, dry);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshot_id, -1);
  EXPECT_GE(r->files_read, 4);
  EXPECT_EQ(Files(t), files);
  PaimonCompactOptions bad;
  bad.min_files = 1;
  EXPECT_EQ(CompactPaimonTable(t, bad).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(PaimonCompact, RefusesWhatItDoesNotCompact) {
  const std::string pk = Copy("pk_multi");
  auto r = CompactPaimonTable(pk, {});
  EXPECT_EQ(r.status().code(), StatusCode::kNotSupported) << r.status().ToString();
  EXPECT_NE(r.status().message().find("primary-key"), std::string::npos);
  // pypaimon's deletion-vector append table tracks row ids (its deletes by row id need them).
  const std::string tracked = Copy("dv_append");
  r = CompactPaimonTable(tracked, {});
  EXPECT_EQ(r.status().code(), StatusCode::kNotSupported) << r.status().ToString();
  EXPECT_NE(r.status().message().find("row-tracking.enabled"), std::string::npos);
  r = CompactPaimonTable(testing::SharedDir() + "/delta-tables", {});
  EXPECT_FALSE(r.ok());
}

// The seed's rule in compaction: with a queue of three batches per producer, an input whose first
// read range (pypaimon's 3.9 MB files of 120,000 rows, cut into ranges of about 1 MiB) holds more
// than three batches of 4,000 rows is read on the plain path (adaptive_disabled), one whose first
// range holds at most three batches of 20,000 rows by the producers (files_parallel); the second
// input is warmed either way (RAW warmup does not go through the prefetch reader in rap), and the
// rows are the same. docs/paimon.md "Append compaction".
TEST_F(PaimonCompact, ThreeBatchRuleDecidesTheProducers) {
  for (const int64_t batch : {int64_t{20000}, int64_t{4000}}) {
    SCOPED_TRACE(batch);
    testing::TempDir copy;
    const std::string t = copy.Join("t");
    fs::copy(written_->path() + "/warehouse/db.db/compact_large", t, fs::copy_options::recursive);
    const auto before = Rows(t);
    PaimonCompactOptions o;
    o.batch_rows = batch;
    auto r = CompactPaimonTable(t, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->files_read, 2);
    EXPECT_EQ(r->warmup_files, 1);  // the second input, while the first is read
    if (batch == 20000) {
      EXPECT_EQ(r->files_parallel, 2);
      EXPECT_EQ(r->adaptive_disabled, 0);
    } else {
      EXPECT_EQ(r->files_parallel, 0);
      EXPECT_EQ(r->adaptive_disabled, 2);
    }
    EXPECT_EQ(Rows(t), before);
  }
}

}  // namespace
}  // namespace rap::table
