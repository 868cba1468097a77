// The output rules (README "Output values") end to end through the CLI (tools/output_format.cc):
// a Parquet file holding every type the rules name, written by rap's writer, printed by `rap cat`
// and `rap scan` as jsonl (every line parsed by a real JSON parser, nlohmann-json, and checked value
// by value: floats bit-exact and seen as floats, binary as 0x hex, INTERVAL as an ISO 8601 duration,
// TIME with Z exactly when adjusted to UTC, JSON inlined, invalid UTF-8 still valid JSON), csv and
// table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/columnar/array.h"
#include "rap/format/writer.h"
#include "testing/arrays.h"
#include "testing/cli_run.h"
#include "testing/paths.h"

namespace rap {
namespace {

using rap::testing::Fixed;
using rap::testing::RunCli;
using rap::testing::Strings;

constexpr int kRows = 1500;

DataTypePtr Ext(DataTypePtr t, const std::string& extension) {
  auto c = std::make_shared<DataType>(*t);
  c->extension = extension;
  return c;
}

template <typename T>
std::vector<std::optional<T>> Cycle(const std::vector<std::optional<T>>& values) {
  std::vector<std::optional<T>> out;
  for (int i = 0; i < kRows; ++i) out.push_back(values[static_cast<size_t>(i) % values.size()]);
  return out;
}

ArrayPtr Binary(DataTypePtr type, const std::vector<std::optional<std::string>>& v) {
  auto a = std::make_shared<ArrayData>(*Strings(v));
  a->type = std::move(type);
  return a;
}

// Fixed-width values of `width` bytes each, from strings of that length (nullopt: NULL).
ArrayPtr FixedBytes(DataTypePtr type, int width, const std::vector<std::optional<std::string>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = std::move(type);
  a->length = static_cast<int64_t>(v.size());
  std::vector<uint8_t> bits((v.size() + 7) / 8, 0);
  std::string data;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      data += *v[i];
    } else {
      ++a->null_count;
      data += std::string(static_cast<size_t>(width), '\0');
    }
  }
  a->buffers = {Buffer::Copy(bits.data(), bits.size()), Buffer::Copy(data)};
  return a;
}

std::string Interval(uint32_t months, uint32_t days, uint32_t millis) {
  std::string s(12, '\0');
  std::memcpy(s.data(), &months, 4);
  std::memcpy(s.data() + 4, &days, 4);
  std::memcpy(s.data() + 8, &millis, 4);
  return s;
}

class OutputCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "the rap CLI is not built";
    std::mt19937_64 rng(17);
    doubles_ = {-0.0, 13165.0, std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(), 0.1, 1e22};
    floats_ = {-0.0f, 13165.0f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(), 0.1f};
    while (doubles_.size() < static_cast<size_t>(kRows)) {
      uint64_t bits = rng();
      if (doubles_.size() % 5 == 0) bits &= 0x800fffffffffffffull;  // subnormals too
      double v;
      std::memcpy(&v, &bits, 8);
      if (std::isfinite(v)) doubles_.push_back(v);
    }
    while (floats_.size() < static_cast<size_t>(kRows)) {
      const uint32_t bits = static_cast<uint32_t>(rng());
      float v;
      std::memcpy(&v, &bits, 4);
      if (std::isfinite(v)) floats_.push_back(v);
    }
    std::vector<std::optional<double>> d(doubles_.begin(), doubles_.end());
    std::vector<std::optional<float>> f(floats_.begin(), floats_.end());
    d[9] = std::nan("");
    d[10] = -INFINITY;
    d[11] = std::nullopt;
    doubles_[9] = doubles_[10] = doubles_[11] = 0;  // not checked bitwise

    // list<json>: row r holds the JSON values 2r and 2r+1 of `json_items`.
    const std::vector<std::optional<std::string>> json_items = {"{\"a\": [1, 2.50]}", "not json"};
    std::vector<std::optional<std::string>> items;
    std::vector<int32_t> offsets{0};
    for (int r = 0; r < kRows; ++r) {
      items.push_back(json_items[0]);
      items.push_back(json_items[1]);
      offsets.push_back(static_cast<int32_t>(items.size()));
    }
    auto json_item = Binary(Ext(MakeType(TypeId::kString), "json"), items);
    auto list = std::make_shared<ArrayData>();
    list->type = MakeList(Field{"element", json_item->type});
    list->length = kRows;
    list->buffers = {Buffer(), Buffer::Copy(offsets.data(), offsets.size() * 4)};
    list->children = {json_item};

    const std::string uuid = "\x12\x34\x56\x78\x9a\xbc\xde\xf0\x01\x23\x45\x67\x89\xab\xcd\xef";
    const std::vector<std::pair<std::string, ArrayPtr>> columns = {
        {"d", Fixed(MakeType(TypeId::kFloat64), d)},
        {"f", Fixed(MakeType(TypeId::kFloat32), f)},
        {"h", Fixed<uint16_t>(Ext(MakeType(TypeId::kFloat16), "float16"), Cycle<uint16_t>({0x2e66, 0x8000, 0x3c00}))},
        {"b", Binary(MakeType(TypeId::kBinary), Cycle<std::string>({std::string("ab\\\0\xff", 5), "", "0x31"}))},
        {"fb", FixedBytes(MakeFixedSizeBinary(3), 3, Cycle<std::string>({"abc", std::string("\0\1\2", 3)}))},
        {"u", FixedBytes(Ext(MakeFixedSizeBinary(16), "uuid"), 16, Cycle<std::string>({uuid}))},
        {"iv", FixedBytes(Ext(MakeFixedSizeBinary(12), "interval"), 12,
                          Cycle<std::string>({Interval(14, 3, 3723004), Interval(0, 0, 0), std::nullopt}))},
        {"dec", Fixed<__int128>(MakeDecimal(9, 2), Cycle<__int128>({12345, -5}))},
        {"t_ms_utc", Fixed<int32_t>(MakeTemporal(TypeId::kTime32, TimeUnit::kMilli, "UTC"), Cycle<int32_t>({3723004}))},
        {"t_ms", Fixed<int32_t>(MakeTemporal(TypeId::kTime32, TimeUnit::kMilli), Cycle<int32_t>({3723004}))},
        {"t_us_utc",
         Fixed<int64_t>(MakeTemporal(TypeId::kTime64, TimeUnit::kMicro, "UTC"), Cycle<int64_t>({3723000004}))},
        {"t_us", Fixed<int64_t>(MakeTemporal(TypeId::kTime64, TimeUnit::kMicro), Cycle<int64_t>({3723000004}))},
        {"t_ns_utc",
         Fixed<int64_t>(MakeTemporal(TypeId::kTime64, TimeUnit::kNano, "UTC"), Cycle<int64_t>({3723000000004}))},
        {"t_ns", Fixed<int64_t>(MakeTemporal(TypeId::kTime64, TimeUnit::kNano), Cycle<int64_t>({3723000000004}))},
        {"ts", Fixed<int64_t>(MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC"), Cycle<int64_t>({0}))},
        {"j", Binary(Ext(MakeType(TypeId::kString), "json"),
                     Cycle<std::string>({"{\"b\": [1, 2.5],\n \"a\": null, \"n\": 12345678901234567890}", "[1,",
                                         std::nullopt}))},
        {"s", Strings(Cycle<std::string>({"caf\xC3\xA9", std::string("bad\xff", 4)}))},
        {"lj", list},
    };
    auto schema = std::make_shared<Schema>();
    RecordBatch batch;
    batch.num_rows = kRows;
    for (const auto& [name, array] : columns) {
      schema->fields.push_back(Field{name, array->type});
      batch.columns.push_back(array);
    }
    batch.schema = schema;
    auto bytes = parquet::WriteParquetToString(schema, {batch});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    file_ = tmp_.Join("types.parquet");
    std::ofstream(file_, std::ios::binary) << *bytes;
  }

  std::vector<double> doubles_;
  std::vector<float> floats_;
  rap::testing::TempDir tmp_;
  std::string file_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(OutputCli, JsonLinesParseAndFollowTheRules) {
  auto cat = RunCli("cat '" + file_ + "' --format jsonl", false);
  ASSERT_EQ(cat.exit_code, 0) << cat.out.substr(0, 2000);
  auto scan = RunCli("scan '" + file_ + "' --format jsonl", false);
  ASSERT_EQ(scan.exit_code, 0) << scan.out.substr(0, 2000);
  EXPECT_EQ(scan.out, cat.out);  // rap cat and rap scan share the output code
  const std::vector<std::string> lines = Lines(cat.out);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kRows));
  for (size_t r = 0; r < lines.size(); ++r) {
    nlohmann::ordered_json row;
    try {
      row = nlohmann::ordered_json::parse(lines[r]);  // throws on invalid JSON or invalid UTF-8
    } catch (const std::exception& e) {
      FAIL() << "line " << r << ": " << e.what() << ": " << lines[r];
    }
    ASSERT_TRUE(row.is_object()) << lines[r];
    if (r < 9 || r > 11) {
      ASSERT_TRUE(row["d"].is_number_float()) << r << " " << lines[r];
      const double d = row["d"].get<double>();
      ASSERT_EQ(std::memcmp(&d, &doubles_[r], 8), 0) << r << " " << lines[r];
    }
    ASSERT_TRUE(row["f"].is_number_float()) << lines[r];
    const float f = static_cast<float>(row["f"].get<double>());
    ASSERT_EQ(std::memcmp(&f, &floats_[r], 4), 0) << r << " " << lines[r];
    ASSERT_TRUE(row["h"].is_number_float()) << lines[r];
    ASSERT_EQ(row["t_ms_utc"], "01:02:03.004Z");
    ASSERT_EQ(row["t_ms"], "01:02:03.004");
    ASSERT_EQ(row["t_us_utc"], "01:02:03.000004Z");
    ASSERT_EQ(row["t_us"], "01:02:03.000004");
    ASSERT_EQ(row["t_ns_utc"], "01:02:03.000000004Z");
    ASSERT_EQ(row["t_ns"], "01:02:03.000000004");
    ASSERT_EQ(row["ts"], "1970-01-01 00:00:00.000000Z");
    ASSERT_EQ(row["u"], "12345678-9abc-def0-0123-456789abcdef");
  }
  // Whole lines, so that the exact texts (not only their parsed values) are pinned.
  EXPECT_EQ(lines[0],
            "{\"d\": -0.0, \"f\": -0.0, \"h\": 0.1, \"b\": \"0x61625c00ff\", \"fb\": \"0x616263\", "
            "\"u\": \"12345678-9abc-def0-0123-456789abcdef\", \"iv\": \"P1Y2M3DT1H2M3.004S\", \"dec\": 123.45, "
            "\"t_ms_utc\": \"01:02:03.004Z\", \"t_ms\": \"01:02:03.004\", \"t_us_utc\": \"01:02:03.000004Z\", "
            "\"t_us\": \"01:02:03.000004\", \"t_ns_utc\": \"01:02:03.000000004Z\", \"t_ns\": \"01:02:03.000000004\", "
            "\"ts\": \"1970-01-01 00:00:00.000000Z\", "
            "\"j\": {\"b\":[1,2.5],\"a\":null,\"n\":12345678901234567890}, \"s\": \"caf\xC3\xA9\", "
            "\"lj\": [{\"a\":[1,2.50]}, \"not json\"]}");
  EXPECT_EQ(lines[1],
            "{\"d\": 13165.0, \"f\": 13165.0, \"h\": -0.0, \"b\": \"0x\", \"fb\": \"0x000102\", "
            "\"u\": \"12345678-9abc-def0-0123-456789abcdef\", \"iv\": \"PT0S\", \"dec\": -0.05, "
            "\"t_ms_utc\": \"01:02:03.004Z\", \"t_ms\": \"01:02:03.004\", \"t_us_utc\": \"01:02:03.000004Z\", "
            "\"t_us\": \"01:02:03.000004\", \"t_ns_utc\": \"01:02:03.000000004Z\", \"t_ns\": \"01:02:03.000000004\", "
            "\"ts\": \"1970-01-01 00:00:00.000000Z\", \"j\": \"[1,\", \"s\": \"bad\xEF\xBF\xBD\", "
            "\"lj\": [{\"a\":[1,2.50]}, \"not json\"]}");
  const nlohmann::json row2 = nlohmann::json::parse(lines[2]);
  EXPECT_EQ(row2["b"], "0x30783331");  // the text "0x31" as binary: never confused with hex
  EXPECT_EQ(row2["h"].dump(), "1.0");
  EXPECT_TRUE(row2["iv"].is_null());
  EXPECT_TRUE(row2["j"].is_null());
  const nlohmann::json row9 = nlohmann::json::parse(lines[9]), row10 = nlohmann::json::parse(lines[10]);
  EXPECT_EQ(row9["d"], "NaN");
  EXPECT_EQ(row10["d"], "-inf");
  EXPECT_TRUE(nlohmann::json::parse(lines[11])["d"].is_null());
}

TEST_F(OutputCli, CsvAndTableKeepTheText) {
  auto csv = RunCli("cat '" + file_ + "' --format csv --columns d,h,b,fb,iv,t_ns_utc,t_ns,j --limit 3", false);
  ASSERT_EQ(csv.exit_code, 0) << csv.out;
  EXPECT_EQ(csv.out,
            "d,h,b,fb,iv,t_ns_utc,t_ns,j\n"
            "-0.0,0.1,0x61625c00ff,0x616263,P1Y2M3DT1H2M3.004S,01:02:03.000000004Z,01:02:03.000000004,"
            "\"{\"\"b\"\": [1, 2.5],\n \"\"a\"\": null, \"\"n\"\": 12345678901234567890}\"\n"
            "13165.0,-0.0,0x,0x000102,PT0S,01:02:03.000000004Z,01:02:03.000000004,\"[1,\"\n"
            "1.7976931348623157e+308,1.0,0x30783331,0x616263,,01:02:03.000000004Z,01:02:03.000000004,\n");
  auto table = RunCli("scan '" + file_ + "' --columns d,b,iv,t_us_utc --limit 2", false);
  ASSERT_EQ(table.exit_code, 0) << table.out;
  const std::vector<std::string> lines = Lines(table.out);
  ASSERT_EQ(lines.size(), 4u) << table.out;  // header, rule, 2 rows
  EXPECT_NE(lines[2].find("-0.0"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("0x61625c00ff"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("P1Y2M3DT1H2M3.004S"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("01:02:03.000004Z"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("13165.0"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("PT0S"), std::string::npos) << lines[3];
}

}  // namespace
}  // namespace rap
