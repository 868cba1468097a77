// `rap scan` end to end on the generated partitioned table (tests/testing/scan_table.h): --format
// parquet --output writes exactly the scan's rows and values (read back with the FileReader and
// compared with the in-process Scanner); --output with table/jsonl/csv equals what goes to stdout;
// JSON lines agree with `rap cat` (nested values included); a failing scan leaves no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/read/scanner.h"
#include "testing/cli_run.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::read {
namespace {

using rap::testing::CliRun;
using rap::testing::RunCli;

class ScanCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "the rap CLI is not built";
    auto files = rap::testing::MakeScanTable();
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    files_ = std::move(*files);
    for (const auto& f : files_) Put(f.relative_path, f.bytes);
  }

  void Put(const std::string& relative, const std::string& bytes) {
    const std::string path = table() + "/" + relative;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    rap::testing::WriteStringToFile(path, bytes);
  }

  std::string table() const { return dir_.Join("t"); }

  // The same scan in process (the CLI lists the directory in path order: part=a, part=b, part=c).
  Result<rap::testing::ScanRows> InProcess(const std::string& where, const std::vector<std::string>& columns) {
    RAP_ASSIGN_OR_RETURN(io::ResolvedUrl url, io::OpenUrl(table()));
    ScanOptions o;
    RAP_ASSIGN_OR_RETURN(o.filter, ParseExpr(where));
    o.columns = columns;
    return rap::testing::RunScan(rap::testing::ScanTableSource(url.store, url.path, files_), o);
  }

  rap::testing::TempDir dir_;
  std::vector<rap::testing::ScanTableFile> files_;
};

TEST_F(ScanCli, ParquetOutputHoldsTheScanRows) {
  const std::string where = "(v > 50 AND id < 3500) OR s = 'kiwi'";
  const std::vector<std::string> columns = {"part", "id", "s", "v", "d"};
  const std::string out = dir_.Join("out.parquet");
  CliRun r = RunCli("scan '" + table() + "' --columns part,id,s,v,d --where \"" + where +
                    "\" --batch-size 333 --format parquet --output '" + out + "' --fingerprint");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto want = InProcess(where, columns);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_GT(want->values.size(), 1000u);
  EXPECT_EQ(r.out, want->fingerprint + "\n");  // stdout holds only the fingerprint

  // Read the file back: same column names and types, same rows and values in the same order.
  auto file = io::OpenUrl(out);
  ASSERT_TRUE(file.ok());
  auto reader = FileReader::Open(file->store, file->path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), static_cast<int64_t>(want->values.size()));
  const Schema& schema = *(*reader)->arrow_schema();
  ASSERT_EQ(schema.fields.size(), columns.size());
  for (size_t c = 0; c < columns.size(); ++c) EXPECT_EQ(schema.fields[c].name, columns[c]);
  EXPECT_EQ(schema.fields[1].type->id, TypeId::kInt64);
  EXPECT_EQ(schema.fields[4].type->id, TypeId::kDate32);
  auto all = (*reader)->Project();
  ASSERT_TRUE(all.ok());
  auto batches = (*reader)->ReadAll(std::nullopt, *all);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<std::string> got;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) got.push_back(rap::testing::RowText(b, i));
  }
  EXPECT_EQ(got, want->values);
  // The output is itself a scannable table with a page index: a filter on it agrees too.
  CliRun again = RunCli("scan '" + out + "' --where \"id >= 2000 AND id < 2100\" --format csv --columns id");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  std::string expect_csv = "id\n";
  for (const std::string& row : want->values) {
    const size_t a = row.find('|') + 1;
    const int64_t id = std::stoll(row.substr(a, row.find('|', a) - a));
    if (id >= 2000 && id < 2100) expect_csv += std::to_string(id) + "\n";
  }
  EXPECT_EQ(again.out, expect_csv);
}

TEST_F(ScanCli, TextOutputToFileEqualsStdout) {
  for (const std::string format : {"table", "jsonl", "csv"}) {
    SCOPED_TRACE(format);
    const std::string args = "scan '" + table() + "' --columns id,s,d,part --where \"id >= 1990 AND id < 2015\" --format " + format;
    CliRun to_stdout = RunCli(args);
    ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.out;
    const std::string out = dir_.Join("out." + format);
    CliRun to_file = RunCli(args + " --output '" + out + "'");
    ASSERT_EQ(to_file.exit_code, 0) << to_file.out;
    EXPECT_EQ(to_file.out, "");
    EXPECT_EQ(rap::testing::ReadFileToString(out), to_stdout.out);
    const size_t lines = static_cast<size_t>(std::count(to_stdout.out.begin(), to_stdout.out.end(), '\n'));
    EXPECT_EQ(lines, format == "table" ? 27u : format == "csv" ? 26u : 25u);
  }
  CliRun jsonl = RunCli("scan '" + table() + "' --columns id,part --where \"id = 2001\" --format jsonl");
  EXPECT_EQ(jsonl.out, "{\"id\": 2001, \"part\": \"b\"}\n");
}

// One formatter for both commands: scan's JSON lines of a nested file equal cat's.
TEST_F(ScanCli, JsonLinesAgreeWithCat) {
  const std::string file = rap::testing::ParquetTestingData() + "/nullable.impala.parquet";
  CliRun scan = RunCli("scan '" + file + "' --columns id,int_map,nested_struct --limit 4 --format jsonl");
  CliRun cat = RunCli("cat '" + file + "' --columns id,int_map,nested_struct --limit 4 --format jsonl");
  ASSERT_EQ(scan.exit_code, 0) << scan.out;
  ASSERT_EQ(cat.exit_code, 0) << cat.out;
  EXPECT_EQ(scan.out, cat.out);
  EXPECT_EQ(scan.out.rfind("{\"id\": 1, \"int_map\": {\"k1\": 1, \"k2\": 100}, \"nested_struct\": {\"A\": 1, ", 0), 0u) << scan.out;
}

// `rap cat` writes Parquet through the same output: the file holds exactly the rows cat prints.
TEST_F(ScanCli, CatParquetOutputRoundTrips) {
  const std::string file = rap::testing::ParquetTestingData() + "/alltypes_tiny_pages_plain.parquet";
  const std::string out = dir_.Join("cat.parquet");
  const std::string pick = " --columns id,bool_col,float_col,date_string_col,timestamp_col --rows 100:2500";
  CliRun write = RunCli("cat '" + file + "'" + pick + " --format parquet --output '" + out + "'");
  ASSERT_EQ(write.exit_code, 0) << write.out;
  EXPECT_EQ(write.out, "");
  CliRun want = RunCli("cat '" + file + "'" + pick + " --format csv");
  CliRun got = RunCli("cat '" + out + "' --format csv");
  ASSERT_EQ(want.exit_code, 0) << want.out;
  ASSERT_EQ(got.exit_code, 0) << got.out;
  EXPECT_EQ(got.out, want.out);
  EXPECT_EQ(std::count(got.out.begin(), got.out.end(), '\n'), 2401);
}

TEST_F(ScanCli, FailuresLeaveNoOutput) {
  CliRun no_output = RunCli("scan '" + table() + "' --format parquet");
  EXPECT_NE(no_output.exit_code, 0);
  EXPECT_NE(no_output.out.find("--output"), std::string::npos) << no_output.out;
  CliRun bad_dir = RunCli("scan '" + table() + "' --format csv --output '" + dir_.Join("missing/x.csv") + "'");
  EXPECT_NE(bad_dir.exit_code, 0);
  EXPECT_NE(bad_dir.out.find("missing/x.csv"), std::string::npos) << bad_dir.out;
  // A corrupt file after the good ones: rows of the good files were already written when the scan
  // fails, yet neither the output nor a temporary file is left behind.
  Put("part=d/data.parquet", files_[0].bytes.substr(0, files_[0].bytes.size() / 2) + "....PAR1");
  for (const std::string format : {"csv", "parquet"}) {
    const std::string out = dir_.Join("fail/out." + format);
    std::filesystem::create_directories(dir_.Join("fail"));
    CliRun r = RunCli("scan '" + table() + "' --format " + format + " --output '" + out + "'");
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("part=d/data.parquet"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::is_empty(dir_.Join("fail"))) << format;
  }
}

// A typo or a folder without Parquet files is an error naming the URL (exit code non-zero), not an
// empty result.
TEST_F(ScanCli, NothingFoundIsAnError) {
  std::filesystem::create_directories(dir_.Join("nothing/sub"));
  rap::testing::WriteStringToFile(dir_.Join("nothing/readme.txt"), "not parquet");
  for (const std::string& url : {dir_.Join("no/such/path"), dir_.Join("nothing")}) {
    CliRun r = RunCli("scan '" + url + "' --format csv");
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(url + ": no Parquet files found"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace rap::read
