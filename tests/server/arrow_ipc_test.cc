// Arrow IPC stream encoder (rap/server/arrow_ipc.h), checked by an independent reader: the
// apache-arrow npm package (tests/npm/read_arrow_stream.mjs) must read back the same values,
// including nulls, sliced arrays (non-zero offsets), nested types and an empty batch.
// Skipped (GTEST_SKIP) only when node or apache-arrow is missing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

#include "rap/server/arrow_ipc.h"
#include "testing/arrays.h"
#include "testing/paths.h"

namespace rap::server {
namespace {

using rap::testing::Fixed;
using rap::testing::Strings;

std::string NpmDir() { return rap::testing::SourceDir() + "/tests/npm"; }

std::string SkipReason() {
  if (std::system("command -v node >/dev/null 2>&1") != 0) return "node is not installed";
  if (!std::filesystem::exists(NpmDir() + "/node_modules/apache-arrow/package.json")) {
    return "apache-arrow is missing under tests/npm (scripts/install-npm-test-deps.sh)";
  }
  return "";
}

nlohmann::json ReadWithArrowJs(const std::string& bytes) {
  rap::testing::TempDir dir;
  const std::string file = dir.Join("s.arrows");
  rap::testing::WriteStringToFile(file, bytes);
  const std::string cmd = "cd '" + NpmDir() + "' && node read_arrow_stream.mjs '" + file + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << out;
  return j;
}

ArrayPtr Bools(const std::vector<std::optional<bool>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kBool);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8), values = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  std::memset(values.mutable_data(), 0, values.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i]) {
      ++a->null_count;
      continue;
    }
    validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    if (*v[i]) values.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  a->buffers = {validity, values};
  return a;
}

TEST(ArrowIpc, FlatTypesWithNullsAndSlices) {
  const std::string skip = SkipReason();
  if (!skip.empty()) GTEST_SKIP() << skip;
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"i64", MakeType(TypeId::kInt64), false},  {"i8", MakeType(TypeId::kInt8), true},
                    {"u32", MakeType(TypeId::kUInt32), true},  {"f64", MakeType(TypeId::kFloat64), true},
                    {"b", MakeType(TypeId::kBool), true},      {"s", MakeType(TypeId::kString), true},
                    {"d", MakeType(TypeId::kDate32), true},
                    {"ts", MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC"), true}};
  // 11 rows; the second batch is rows 3..9 of the same arrays (offset 3: bitmaps not byte-aligned).
  std::vector<std::optional<int64_t>> i64;
  std::vector<std::optional<int8_t>> i8;
  std::vector<std::optional<uint32_t>> u32;
  std::vector<std::optional<double>> f64;
  std::vector<std::optional<bool>> b;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<int32_t>> d;
  std::vector<std::optional<int64_t>> ts;
  for (int r = 0; r < 11; ++r) {
    i64.push_back(int64_t{1} << (r * 5));
    i8.push_back(r % 3 == 0 ? std::nullopt : std::optional<int8_t>(static_cast<int8_t>(-r)));
    u32.push_back(r % 4 == 1 ? std::nullopt : std::optional<uint32_t>(4000000000u + r));
    f64.push_back(r % 5 == 2 ? std::nullopt : std::optional<double>(r * 0.5));
    b.push_back(r % 6 == 5 ? std::nullopt : std::optional<bool>(r % 2 == 0));
    s.push_back(r % 3 == 1 ? std::nullopt : std::optional<std::string>(std::string(static_cast<size_t>(r), 'x')));
    d.push_back(19000 + r);
    ts.push_back(int64_t{1700000000000000} + r * 1000);
  }
  RecordBatch full{schema, 11,
                   {Fixed<int64_t>(schema->fields[0].type, i64), Fixed<int8_t>(schema->fields[1].type, i8),
                    Fixed<uint32_t>(schema->fields[2].type, u32), Fixed<double>(schema->fields[3].type, f64), Bools(b),
                    Strings(s), Fixed<int32_t>(schema->fields[6].type, d), Fixed<int64_t>(schema->fields[7].type, ts)}};
  RecordBatch sliced{schema, 7, {}};
  for (const ArrayPtr& c : full.columns) sliced.columns.push_back(SliceArray(c, 3, 7));
  RecordBatch empty{schema, 0, {}};
  for (const ArrayPtr& c : full.columns) empty.columns.push_back(SliceArray(c, 0, 0));

  std::string stream = *EncodeIpcSchema(*schema);
  for (const RecordBatch* batch : {&full, &sliced, &empty}) {
    auto m = EncodeIpcRecordBatch(*batch);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    stream += *m;
  }
  stream += IpcEndOfStream();
  const nlohmann::json j = ReadWithArrowJs(stream);
  ASSERT_EQ(j["batches"], 3);
  EXPECT_EQ(j["fields"].dump(),
            R"(["i64:Int64:false","i8:Int8:true","u32:Uint32:true","f64:Float64:true","b:Bool:true",)"
            R"("s:Utf8:true","d:Date32<DAY>:true","ts:Timestamp<MICROSECOND, UTC>:true"])");
  ASSERT_EQ(j["rows"].size(), 18u);
  for (int k = 0; k < 18; ++k) {
    const int r = k < 11 ? k : k - 11 + 3;
    const nlohmann::json& row = j["rows"][static_cast<size_t>(k)];
    SCOPED_TRACE("output row " + std::to_string(k) + " = input row " + std::to_string(r));
    EXPECT_EQ(row[0], std::to_string(int64_t{1} << (r * 5)));
    if (r % 3 == 0) EXPECT_TRUE(row[1].is_null()); else EXPECT_EQ(row[1], -r);
    if (r % 4 == 1) EXPECT_TRUE(row[2].is_null()); else EXPECT_EQ(row[2], 4000000000u + r);
    if (r % 5 == 2) EXPECT_TRUE(row[3].is_null()); else EXPECT_EQ(row[3], r * 0.5);
    if (r % 6 == 5) EXPECT_TRUE(row[4].is_null()); else EXPECT_EQ(row[4], r % 2 == 0);
    if (r % 3 == 1) EXPECT_TRUE(row[5].is_null()); else EXPECT_EQ(row[5], std::string(static_cast<size_t>(r), 'x'));
    EXPECT_EQ(row[6], (19000.0 + r) * 86400000.0);
    EXPECT_EQ(row[7], 1700000000000.0 + r);
  }
}

TEST(ArrowIpc, NestedTypesAndBinary) {
  const std::string skip = SkipReason();
  if (!skip.empty()) GTEST_SKIP() << skip;
  // list<int32>: [[1,2], null, [], [3]] ; struct<a: int32, b: string> ; fixed_size_binary(2) ; binary.
  auto item = Fixed<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3});
  auto list = std::make_shared<ArrayData>();
  list->type = MakeList(Field{"item", MakeType(TypeId::kInt32), true});
  list->length = 4;
  list->null_count = 1;
  const uint8_t list_valid = 0b1101;
  const std::vector<int32_t> offsets = {0, 2, 2, 2, 3};
  list->buffers = {Buffer::Copy(&list_valid, 1), Buffer::Copy(offsets.data(), offsets.size() * 4)};
  list->children = {item};
  auto st = std::make_shared<ArrayData>();
  st->type = MakeStruct({Field{"a", MakeType(TypeId::kInt32), true}, Field{"b", MakeType(TypeId::kString), true}});
  st->length = 4;
  st->buffers = {Buffer()};
  st->children = {Fixed<int32_t>(MakeType(TypeId::kInt32), {7, std::nullopt, 9, 10}), Strings({"p", "q", std::nullopt, "s"})};
  auto fsb = Fixed<uint16_t>(MakeFixedSizeBinary(2), {0x0201, 0x0403, std::nullopt, 0xffff});
  auto bin = Strings({std::string("\x00\x01", 2), "", std::nullopt, "z"});
  auto bin_data = std::make_shared<ArrayData>(*bin);
  bin_data->type = MakeType(TypeId::kBinary);
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"l", list->type, true}, {"st", st->type, true}, {"f", fsb->type, true}, {"bin", bin_data->type, true}};
  RecordBatch batch{schema, 4, {list, st, fsb, bin_data}};
  RecordBatch tail{schema, 2, {}};  // rows 2..3: the list child slice starts at element 2
  for (const ArrayPtr& c : batch.columns) tail.columns.push_back(SliceArray(c, 2, 2));
  std::string stream = *EncodeIpcSchema(*schema);
  stream += *EncodeIpcRecordBatch(batch);
  stream += *EncodeIpcRecordBatch(tail);
  stream += IpcEndOfStream();
  const nlohmann::json j = ReadWithArrowJs(stream);
  EXPECT_EQ(j["fields"].dump(),
            R"(["l:List<Int32>:true","st:Struct<{a:Int32, b:Utf8}>:true","f:FixedSizeBinary[2]:true","bin:Binary:true"])");
  EXPECT_EQ(j["rows"].dump(),
            R"([[[1,2],{"a":7,"b":"p"},"hex:0102","hex:0001"],[null,{"a":null,"b":"q"},"hex:0304","hex:"],)"
            R"([[],{"a":9,"b":null},null,null],[[3],{"a":10,"b":"s"},"hex:ffff","hex:7a"],)"
            R"([[],{"a":9,"b":null},null,null],[[3],{"a":10,"b":"s"},"hex:ffff","hex:7a"]])");
}

TEST(ArrowIpc, MessagesAreEightByteAligned) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"s", MakeType(TypeId::kString), true}};
  RecordBatch b{schema, 3, {Strings({"a", "bb", std::nullopt})}};
  const std::string s = *EncodeIpcSchema(*schema), m = *EncodeIpcRecordBatch(b);
  EXPECT_EQ(s.size() % 8, 0u);
  EXPECT_EQ(m.size() % 8, 0u);
  EXPECT_EQ(static_cast<uint8_t>(m[0]), 0xff);
  int32_t meta_len;
  std::memcpy(&meta_len, m.data() + 4, 4);
  EXPECT_EQ((8 + meta_len) % 8, 0);
  EXPECT_EQ(IpcEndOfStream(), std::string("\xff\xff\xff\xff\0\0\0\0", 8));
}

}  // namespace
}  // namespace rap::server
