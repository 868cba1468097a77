// rap-test-labels: concurrent
// ORC files in the scan path (issue 31, seed 001 on ORC): a scan of an ORC file returns exactly the
// rows of the whole-file ORC reader (itself checked against the examples' expected rows in
// tests/orc), for every prefetch and warmup setting, over tables of ORC files and tables mixing ORC
// and Parquet files; the prefetch reader's rules count ORC files. The example files one by one and
// malformed files: orc_scan_examples_test.cc.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/format/writer.h"
#include "rap/io/object_store.h"
#include "rap/orc/reader.h"
#include "rap/read/fingerprint.h"
#include "rap/read/orc_file_reader.h"
#include "rap/read/scanner.h"
#include "read/orc_scan_testing.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

using namespace orc_scan_testing;  // NOLINT(build/namespaces)

TEST(OrcScanTest, SameRowsForEveryPrefetchAndWarmupSetting) {
  // A many-stripe ORC file, a few-stripe one, and a Parquet file written from the first.
  // ORC files of 7 stripes of 5000 rows, and a Parquet file written from the first 4 stripes.
  const std::string many = Examples() + "/TestOrcFile.testSeek.orc";
  const std::string few = Examples() + "/demo-11-zlib.orc";
  auto reader = OpenWhole(many);
  ASSERT_TRUE(reader);
  auto batches = reader->ReadAll();
  ASSERT_TRUE(batches.ok());
  std::vector<RecordBatch> head(batches->begin(), batches->begin() + 4);
  auto parquet = parquet::WriteParquetToString(*reader->schema(), head, {});
  ASSERT_TRUE(parquet.ok()) << parquet.status().ToString();
  rap::testing::TempDir dir;
  const std::string pq = dir.Join("part.parquet");
  rap::testing::WriteStringToFile(pq, *parquet);
  std::filesystem::copy_file(many, dir.Join("a.orc"));
  std::filesystem::copy_file(many, dir.Join("b.orc"));
  const std::vector<std::string> mixed = {"a.orc", "part.parquet", "b.orc"};
  std::string want_mixed;
  {
    auto all = reader->ReadAll();
    ASSERT_TRUE(all.ok());
    want_mixed = WholeFingerprint({*all, head, *all});
  }
  const char* filters[] = {"", "int1 > 0 AND long1 < 0"};
  for (const char* filter : filters) {
    std::string base;
    for (int producers : {1, 3}) {
      for (WarmupLevel level : {WarmupLevel::kNone, WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
        for (int64_t batch : {int64_t{777}, int64_t{64} * 1024}) {
          SCOPED_TRACE(std::string(filter) + " P=" + std::to_string(producers) + " warmup " +
                       std::to_string(static_cast<int>(level)) + " batch " + std::to_string(batch));
          ScanOptions o;
          o.prefetch.producers = producers;
          o.prefetch.min_file_bytes = 0;  // the parallel path for every file
          o.warmup.level = level;
          o.batch_size = batch;
          if (*filter) o.filter = *ParseExpr(filter);
          auto r = Scan(dir.path(), mixed, o);
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          if (!*filter) { EXPECT_EQ(r->fingerprint, want_mixed); }
          if (base.empty()) base = r->fingerprint;
          EXPECT_EQ(r->fingerprint, base);
          EXPECT_LE(r->max_batch_rows, batch);
          // The ORC files (the Parquet file is one range).
          if (producers > 1) { EXPECT_GE(r->stats.prefetch.files_parallel, 2); }
          if (level != WarmupLevel::kNone) { EXPECT_GE(r->stats.warmup_files, 2); }
        }
      }
    }
  }
  // A file of 385 stripes of 5000 rows on the parallel path: batches are stripe-aligned.
  auto whole_few = OpenWhole(few);
  ASSERT_TRUE(whole_few);
  auto few_all = whole_few->ReadAll();
  ASSERT_TRUE(few_all.ok());
  for (int producers : {1, 2, 3}) {
    ScanOptions o;
    o.prefetch.producers = producers;
    o.prefetch.min_file_bytes = 0;
    auto few_r = Scan(Examples(), {"demo-11-zlib.orc"}, o);
    ASSERT_TRUE(few_r.ok()) << few_r.status().ToString();
    EXPECT_EQ(few_r->fingerprint, WholeFingerprint({*few_all}));
    EXPECT_EQ(few_r->max_batch_rows, 5000);
    EXPECT_EQ(few_r->stats.prefetch.ranges, 385);
  }
}

TEST(OrcScanTest, LimitStopsTheWarmup) {
  rap::testing::TempDir dir;
  const std::vector<std::string> names = {"a.orc", "b.orc", "c.orc"};
  for (const std::string& n : names) std::filesystem::copy_file(Examples() + "/TestOrcFile.testSeek.orc", dir.Join(n));
  ScanOptions plain;
  plain.prefetch.producers = 1;
  plain.warmup.level = WarmupLevel::kNone;
  plain.limit = 10;
  auto want = Scan(dir.path(), names, plain);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_EQ(want->stats.rows_output, 10);
  for (WarmupLevel level : {WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
    ScanOptions o;
    o.prefetch.min_file_bytes = 0;
    o.warmup.level = level;
    o.limit = 10;
    auto r = Scan(dir.path(), names, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->fingerprint, want->fingerprint);
    EXPECT_EQ(r->stats.rows_output, 10);
    EXPECT_LE(r->stats.warmup_bytes_unused, r->stats.warmup_bytes);
    EXPECT_LE(r->stats.warmup_files, 1);  // one file ahead under a limit, never the third
  }
}

TEST(OrcScanTest, EnablingRuleAndAdaptiveDisableCountOrcFiles) {
  const std::vector<std::string> many = {"demo-11-zlib.orc"};
  // Under the threshold: the plain path (small file).
  ScanOptions o;
  o.prefetch.min_file_bytes = uint64_t{1} << 40;
  auto r = Scan(Examples(), many, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stats.prefetch.small_files, 1);
  EXPECT_EQ(r->stats.prefetch.files_parallel, 0);
  // A first range (a 5000-row stripe) of more batches than a producer's queue holds: adaptive disable.
  ScanOptions a;
  a.prefetch.min_file_bytes = 0;
  a.prefetch.queue_batches = 3;
  a.batch_size = 100;
  r = Scan(Examples(), many, a);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stats.prefetch.adaptive_disabled, 1);
}

}  // namespace
}  // namespace rap::read
