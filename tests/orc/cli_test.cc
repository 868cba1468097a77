// `rap cat` and `rap inspect` on ORC files (the Apache ORC examples in ../shared/orc).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "testing/cli_run.h"
#include "testing/paths.h"

namespace rap::orc {
namespace {

using rap::testing::RunCli;

std::string Example(const std::string& name) { return "'" + rap::testing::SharedDir() + "/orc/examples/" + name + "'"; }

TEST(OrcCli, CatJsonLines) {
  auto r = RunCli("cat --format jsonl " + Example("TestOrcFile.test1.orc"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"string1\": \"hi\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"long1\": 9223372036854775807"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2);
}

TEST(OrcCli, CatColumnsRowsAndLimitAcrossStripes) {
  // 5 stripes of 21000 rows in total; rows 4990..5010 cross the first stripe boundary (5000 rows).
  auto r = RunCli("cat --format csv --columns int1 --rows 4995:5010 --limit 10 " +
                  Example("TestOrcFile.columnProjection.orc"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 11) << r.out;  // header + 10 rows
  EXPECT_EQ(r.out.find("string1"), std::string::npos) << r.out;
  auto bad = RunCli("cat --columns nope " + Example("TestOrcFile.columnProjection.orc"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("no top-level column 'nope'"), std::string::npos) << bad.out;
}

TEST(OrcCli, CatByMagicWithoutExtension) {
  rap::testing::TempDir dir;
  const std::string copy = dir.Join("data.bin");
  rap::testing::WriteStringToFile(
      copy, rap::testing::ReadFileToString(rap::testing::SharedDir() + "/orc/examples/TestOrcFile.testSnappy.orc"));
  auto r = RunCli("cat --format csv --limit 3 '" + copy + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
}

TEST(OrcCli, Inspect) {
  auto r = RunCli("inspect --pages " + Example("TestOrcFile.testSnappy.orc"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* s : {"ORC", "compression: SNAPPY", "schema: struct<int1:int,string1:string>",
                        "stripe 0:", "encoding DIRECT_V2", "stream column   1 DATA"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
  auto j = RunCli("inspect --json " + Example("TestVectorOrcFile.testLzo.orc"));
  ASSERT_EQ(j.exit_code, 0) << j.out;
  EXPECT_NE(j.out.find("\"compression\": \"LZO\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"num_rows\": 10000"), std::string::npos) << j.out;
}

// ORC batches are rap's ordinary arrays: written as Parquet by rap and read back, every row prints
// the same (nested types, binary, decimals, timestamps, dates, nulls).
TEST(OrcCli, SameRowsThroughParquet) {
  rap::testing::TempDir dir;
  for (const char* f : {"TestOrcFile.test1.orc", "orc_split_elim.orc", "over1k_bloom.orc",
                        "TestOrcFile.testDate1900.orc", "decimal.orc", "nulls-at-end-snappy.orc"}) {
    const std::string pq = "'" + dir.Join(std::string(f) + ".parquet") + "'";
    auto w = RunCli("cat --format parquet --output " + pq + " " + Example(f));
    ASSERT_EQ(w.exit_code, 0) << f << ": " << w.out;
    auto a = RunCli("cat --format jsonl " + Example(f));
    auto b = RunCli("cat --format jsonl " + pq);
    ASSERT_EQ(a.exit_code, 0) << a.out;
    ASSERT_EQ(b.exit_code, 0) << b.out;
    EXPECT_GT(a.out.size(), 100u) << f;
    EXPECT_TRUE(a.out == b.out) << f << " differs after the Parquet round trip";
  }
}

TEST(OrcCli, MalformedFilesFailClearly) {
  auto z = RunCli("cat " + Example("zero.orc"));
  EXPECT_NE(z.exit_code, 0);
  EXPECT_NE(z.out.find("too small for an ORC file"), std::string::npos) << z.out;
  auto c = RunCli("cat " + Example("corrupt/missing_blob_stream_in_string_dict.orc"));
  EXPECT_NE(c.exit_code, 0);
  EXPECT_NE(c.out.find("DICTIONARY_DATA stream not found"), std::string::npos) << c.out;
  auto u = RunCli("cat " + Example("TestOrcFile.testUnionAndTimestamp.orc"));
  EXPECT_NE(u.exit_code, 0);
  EXPECT_NE(u.out.find("union types are not supported"), std::string::npos) << u.out;
  auto ok =
      RunCli("cat --columns time,decimal --limit 1 --format jsonl " + Example("TestOrcFile.testUnionAndTimestamp.orc"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

}  // namespace
}  // namespace rap::orc
