// `rap convert` end to end (runs the built CLI): CSV and JSON lines in with inferred or given
// schemas, layout flags reflected in the file, clear errors naming line and column with nothing
// left at OUTPUT, and parquet-testing files rewritten with a new layout reading back the same.
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rap/columnar/array_format.h"
#include "rap/format/footer.h"
#include "rap/format/thrift.h"

#include "format/writer_testing.h"
#include "testing/paths.h"

namespace rap::parquet {
namespace {

namespace fs = std::filesystem;

std::string RapBinary() { return rap::testing::BinaryDir() + "/tools/rap"; }

struct RunResult {
  int status = 0;
  std::string out;
  std::string err;
};

RunResult Rap(const std::string& args, const rap::testing::TempDir& dir) {
  RunResult r;
  const std::string err_file = dir.Join("stderr.txt");
  std::FILE* p = ::popen(fmt::format("'{}' {} 2>'{}'", RapBinary(), args, err_file).c_str(), "r");
  char buf[4096];
  size_t n;
  while (p && (n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  r.status = p ? ::pclose(p) : -1;
  r.err = rap::testing::ReadFileToString(err_file);
  fs::remove(err_file);
  return r;
}

std::string Q(const std::string& s) { return "'" + s + "'"; }

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fs::exists(RapBinary())) << "the rap CLI is not built at " << RapBinary(); }
  rap::testing::TempDir dir_;
};

std::vector<RecordBatch> ReadBack(const std::string& path) {
  auto b = rap::testing::ReadBackFormatLevel(rap::testing::ReadFileToString(path));
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : std::vector<RecordBatch>{};
}

std::string Cell(const std::vector<RecordBatch>& batches, int64_t row, const std::string& column) {
  for (const auto& b : batches) {
    if (row < b.num_rows) return FormatValue(*b.columns[b.schema->FieldIndex(column)], row);
    row -= b.num_rows;
  }
  return "<no such row>";
}

TEST_F(ConvertTest, CsvWithInferredSchema) {
  const std::string in = dir_.Join("in.csv"), out = dir_.Join("out.parquet");
  rap::testing::WriteStringToFile(in,
                                  "id,price,name,day,ok\n"
                                  "1,2.5,alice,2024-01-31,true\n"
                                  "2,,\"bob, \"\"the builder\"\"\",2024-02-01,false\n"
                                  "3,-1e3,\"multi\nline\",,true\n"
                                  "4,7,\"\",2000-01-01,\n");
  auto r = Rap("convert -q " + Q(in) + " " + Q(out), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("4 rows"), std::string::npos) << r.out;
  auto b = ReadBack(out);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].schema->fields[0].type->id, TypeId::kInt64);
  EXPECT_EQ(b[0].schema->fields[1].type->id, TypeId::kFloat64);
  EXPECT_EQ(b[0].schema->fields[2].type->id, TypeId::kString);
  EXPECT_EQ(b[0].schema->fields[3].type->id, TypeId::kDate32);
  EXPECT_EQ(b[0].schema->fields[4].type->id, TypeId::kBool);
  EXPECT_EQ(Cell(b, 1, "price"), "null");
  const ArrayData& names = *b[0].columns[2];
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(names.buffers[2].data()) + names.offsets()[1],
                        names.offsets()[2] - names.offsets()[1]),
            "bob, \"the builder\"");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(names.buffers[2].data()) + names.offsets()[2],
                        names.offsets()[3] - names.offsets()[2]),
            "multi\nline");
  EXPECT_FALSE(names.IsNull(3));  // a quoted empty field is an empty string
  EXPECT_TRUE(b[0].columns[3]->IsNull(2));
}

TEST_F(ConvertTest, CsvWithSchemaAndLayoutFlags) {
  const std::string in = dir_.Join("in.csv"), out = dir_.Join("out.parquet");
  std::string csv = "id,user,ts\n";
  for (int i = 0; i < 1000; ++i) csv += fmt::format("{},u{},2024-03-0{}T12:00:00.{:06d}Z\n", i, i / 100, 1 + i % 9, i);
  rap::testing::WriteStringToFile(in, csv);
  auto r = Rap("convert -q " + Q(in) + " " + Q(out) +
                   " --schema 'id:int64 not null, user:string not null, ts:timestamp[us, UTC]'"
                   " --row-group-rows 500 --page-rows 1000 --page-break-on user --compression zstd:3"
                   " --encoding id=delta --data-page-version 2 --crc --kv origin=test",
               dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string file = rap::testing::ReadFileToString(out);
  auto md = ParseFooter({reinterpret_cast<const uint8_t*>(file.data()), file.size()}, file.size(), "out");
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  ASSERT_EQ(md->row_groups.size(), 2u);
  EXPECT_EQ(md->key_value_metadata.at(0).key, "origin");
  EXPECT_EQ(md->schema[1].repetition_type, Repetition::REQUIRED);
  EXPECT_TRUE(md->schema[3].logical_type->is_adjusted_to_utc);
  for (const auto& cc : md->row_groups[0].columns) {
    EXPECT_EQ(cc.meta_data->codec, Codec::ZSTD);
    auto oi = DecodeOffsetIndex({reinterpret_cast<const uint8_t*>(file.data()) + *cc.offset_index_offset,
                                 static_cast<size_t>(*cc.offset_index_length)});
    ASSERT_TRUE(oi.ok());
    EXPECT_EQ(oi->page_locations.size(), 5u);  // users u0..u4 in rows 0..499: one page each
  }
  const auto& id = *md->row_groups[0].columns[0].meta_data;
  EXPECT_NE(std::find(id.encodings.begin(), id.encodings.end(), Encoding::DELTA_BINARY_PACKED), id.encodings.end());
  auto b = ReadBack(out);
  EXPECT_EQ(Cell(b, 1, "ts").substr(0, 10), "2024-03-02");
  EXPECT_EQ(rap::testing::CheckPageIndex(file), "");
}

TEST_F(ConvertTest, BadInputNamesLineAndColumnAndLeavesNothing) {
  const std::string out = dir_.Join("out.parquet");
  struct Case {
    std::string name, content, args, expect1, expect2;
  };
  const Case cases[] = {
      {"in.csv", "a,b\n1,2\n3,300\n", "--schema 'a:int64, b:int8'", "line 3", "column 'b'"},
      {"in2.csv", "a,b\n1,2\n3\n", "", "line 3", "expected 2 fields"},
      {"in3.csv", "a\n\"open\n", "", "line 2", "unterminated"},
      {"in.jsonl", "{\"a\": 1}\n{\"a\": 2,}\n", "", "line 2", "malformed JSON"},
      {"in2.jsonl", "{\"a\": 1}\n{\"a\": \"x\"}\n", "--schema 'a:int64'", "line 2", "column 'a'"},
      {"in3.jsonl", "{\"a\": 1}\n{\"b\": 2}\n", "--infer-rows 1", "line 2", "field 'b'"},
      // a day past the end of its month is refused, not rolled into the next month
      {"in4.csv", "d\n2024-02-29\n2023-02-29\n", "--schema 'd:date32'", "line 3", "not a date"},
      {"in5.csv", "d\n2023-04-31\n", "--schema 'd:date32'", "line 2", "not a date"},
  };
  for (const auto& c : cases) {
    const std::string in = dir_.Join(c.name);
    rap::testing::WriteStringToFile(in, c.content);
    auto r = Rap("convert -q " + Q(in) + " " + Q(out) + " " + c.args, dir_);
    EXPECT_NE(r.status, 0) << c.name;
    EXPECT_NE(r.err.find(c.expect1), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect2), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.name;
    for (const auto& e : fs::directory_iterator(dir_.path())) {
      EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "left behind: " << e.path();
    }
    fs::remove(in);
  }
}

TEST_F(ConvertTest, JsonLinesWithNesting) {
  const std::string in = dir_.Join("in.jsonl"), out = dir_.Join("out.parquet");
  rap::testing::WriteStringToFile(
      in,
      "{\"id\": 1, \"tags\": [\"a\", \"b\"], \"pos\": {\"x\": 1.5, \"y\": 2}, \"v\": null}\n"
      "\n"
      "{\"id\": 2, \"tags\": [], \"pos\": null, \"v\": 3}\n"
      "{\"id\": 3, \"pos\": {\"x\": -1}, \"v\": \"text\"}\n");
  auto r = Rap("convert -q " + Q(in) + " " + Q(out) + " --page-rows 1", dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  auto b = ReadBack(out);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(b[0].num_rows, 3);
  EXPECT_EQ(b[0].schema->fields[1].type->id, TypeId::kList);
  EXPECT_EQ(b[0].schema->fields[2].type->id, TypeId::kStruct);
  EXPECT_EQ(Cell(b, 0, "tags"), FormatValue(*b[0].columns[1], 0));
  EXPECT_NE(Cell(b, 0, "tags").find("\"b\""), std::string::npos) << Cell(b, 0, "tags");
  EXPECT_EQ(Cell(b, 2, "tags"), "null");
  EXPECT_EQ(Cell(b, 1, "pos"), "null");
  EXPECT_NE(Cell(b, 2, "v").find("text"), std::string::npos);  // mixed kinds kept as JSON text
}

// parquet-testing files (flat, nested, v2 pages, decimals, INT96, dictionaries) rewritten with a
// different layout read back to the same values; the rewritten file, read by the FileReader, is
// rewritten once more and still holds the same values.
TEST_F(ConvertTest, ParquetTestingFilesRewrittenReadBackEqual) {
  const char* files[] = {"alltypes_plain.parquet",       "alltypes_dictionary.parquet",
                         "alltypes_tiny_pages.parquet",  "datapage_v2.snappy.parquet",
                         "nested_lists.snappy.parquet",  "nested_maps.snappy.parquet",
                         "nonnullable.impala.parquet",   "nullable.impala.parquet",
                         "nulls.snappy.parquet",         "byte_array_decimal.parquet",
                         "fixed_length_decimal.parquet", "int32_decimal.parquet",
                         "int96_from_spark.parquet",     "null_list.parquet",
                         "list_columns.parquet",         "float16_nonzeros_and_nans.parquet",
                         "delta_byte_array.parquet",     "byte_stream_split.zstd.parquet"};
  int checked = 0;
  for (const char* name : files) {
    SCOPED_TRACE(name);
    const std::string in = rap::testing::ParquetTestingData() + "/" + name;
    ASSERT_TRUE(fs::exists(in)) << in;
    const std::string out = dir_.Join(std::string("re_") + name);
    auto r = Rap("convert -q " + Q(in) + " " + Q(out) +
                     " --row-group-rows 3 --page-rows 2 --compression zstd --data-page-version 2 --crc",
                 dir_);
    ASSERT_EQ(r.status, 0) << r.err;
    auto original = rap::testing::ReadBackFormatLevel(rap::testing::ReadFileToString(in));
    ASSERT_TRUE(original.ok()) << original.status().ToString();
    const std::string rewritten = rap::testing::ReadFileToString(out);
    auto back = rap::testing::ReadBackFormatLevel(rewritten);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(rap::testing::CompareBatches(*original, *back), "");
    EXPECT_EQ(rap::testing::CheckPageIndex(rewritten), "");
    // Our file read by the FileReader (page index, tiny pages, v2, CRC) and written again as v1 + dictionary.
    const std::string again = dir_.Join(std::string("again_") + name);
    r = Rap("convert -q " + Q(out) + " " + Q(again) + " --row-group-rows 1000 --compression snappy", dir_);
    ASSERT_EQ(r.status, 0) << r.err;
    auto twice = rap::testing::ReadBackFormatLevel(rap::testing::ReadFileToString(again));
    ASSERT_TRUE(twice.ok()) << twice.status().ToString();
    EXPECT_EQ(rap::testing::CompareBatches(*original, *twice), "");
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(std::size(files)));
}

TEST_F(ConvertTest, SortedFramePerKeyInterleavedAlignedAndBlob) {
  const std::string in = dir_.Join("in.csv"), out = dir_.Join("out.parquet"), blob = dir_.Join("blob.parquet");
  // Keys in descending order, two rows each: --sort-by must reorder them, keeping the input order
  // of a key's rows (stable).
  std::string csv = "user,event,name\n";
  for (int u = 300; u > 0; --u) {
    for (int e = 0; e < 2; ++e) csv += fmt::format("{},{},n{}-{}\n", u, u * 10 + e, u, e);
  }
  rap::testing::WriteStringToFile(in, csv);
  auto r = Rap("convert -q " + Q(in) + " " + Q(out) + " --sort-by user --frame-per-key user --interleave --align 4KiB",
               dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  // 300 keys x the 2 non-key columns (the key column itself keeps the ordinary layout)
  EXPECT_NE(r.out.find("frame per key: 600 frames"), std::string::npos) << r.out;
  auto b = ReadBack(out);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(b[0].num_rows, 600);
  for (int64_t row = 0; row < 600; ++row) {
    const int u = 1 + static_cast<int>(row / 2), e = static_cast<int>(row % 2);
    ASSERT_EQ(Cell(b, row, "user"), std::to_string(u)) << row;
    ASSERT_EQ(Cell(b, row, "event"), std::to_string(u * 10 + e)) << row;
  }
  auto inspect = Rap("inspect --pages " + Q(out), dir_);
  ASSERT_EQ(inspect.status, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("frames: 300 ZSTD"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("crossing 4 KiB: 0, 16 KiB: 0"), std::string::npos) << inspect.out;

  r = Rap("convert -q " + Q(in) + " " + Q(blob) + " --sort-by user --blob user", dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  b = ReadBack(blob);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(b[0].schema->fields.size(), 2u);
  EXPECT_EQ(b[0].schema->fields[1].name, "blob");
  EXPECT_EQ(Cell(b, 0, "user"), "1");
  EXPECT_EQ(Cell(b, 0, "blob"), R"({"event":10,"name":"n1-0"})");
  EXPECT_EQ(Cell(b, 599, "blob"), R"({"event":3001,"name":"n300-1"})");

  r = Rap("convert -q " + Q(in) + " " + Q(out) + " --sort-by nope", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--sort-by 'nope': no such column"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rap::parquet
