// Files written by rap, across encodings, codecs, data page versions and nested types, read by two
// independent implementations installed from npm (scripts/install-npm-test-deps.sh): hyparquet
// (pure JS, with hyparquet-compressors) and DuckDB (@duckdb/node-api). Both must return exactly the
// values written, and what they report of the layout (row groups, pages via the OffsetIndex and
// ColumnIndex, statistics) must match what rap meant to write.
//
// Skipped (GTEST_SKIP, with the reason) only when node or the npm modules are missing.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rap/columnar/array_format.h"
#include "rap/format/blob_column.h"
#include "rap/format/writer.h"

#include "format/layout_testing.h"
#include "format/writer_testing.h"
#include "testing/paths.h"

namespace rap::parquet {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using rap::testing::MakeBatch;

std::string NpmDir() { return rap::testing::SourceDir() + "/tests/npm"; }

std::string Run(const std::string& cmd, int* status) {
  std::string out;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  *status = ::pclose(p);
  return out;
}

// Why the readers cannot run here, or "" when they can.
std::string MissingReaders() {
  int st = 0;
  Run("command -v node >/dev/null 2>&1", &st);
  if (st != 0) return "node is not installed (scripts/install-deps.sh installs nodejs)";
  for (const char* m : {"hyparquet", "hyparquet-compressors", "@duckdb/node-api", "parquet-wasm", "apache-arrow"}) {
    if (!fs::exists(NpmDir() + "/node_modules/" + m + "/package.json")) {
      return std::string("npm module ") + m + " is missing under tests/npm (run scripts/install-npm-test-deps.sh)";
    }
  }
  return "";
}

// `columns`: "" (all) or a comma-separated projection.
Result<json> ReadWith(const std::string& reader, const std::string& file, const std::string& err_file,
                      const std::string& columns = "") {
  int st = 0;
  const std::string out = Run(
      fmt::format("cd '{}' && node read_parquet.mjs {} '{}' {} 2>'{}'", NpmDir(), reader, file, columns, err_file),
      &st);
  if (st != 0) {
    return Status::Internal(reader + " failed (" + std::to_string(st) +
                            "): " + rap::testing::ReadFileToString(err_file));
  }
  json j = json::parse(out, nullptr, false);
  if (j.is_discarded()) return Status::Internal(reader + " printed invalid JSON: " + out.substr(0, 200));
  return j;
}

// --- matching a written value against a reader's canonical JSON --------------------------------

bool MatchDouble(double expected, const json& a) {
  if (std::isnan(expected)) return a == "NaN";
  if (std::isinf(expected)) return a == (expected > 0 ? "Infinity" : "-Infinity");
  if (expected == 0 && std::signbit(expected)) return a == "-0" || (a.is_number() && a.get<double>() == 0);
  return a.is_number() && a.get<double>() == expected;
}

int64_t IntOf(const json& a) {
  if (a.is_string()) return std::stoll(a.get<std::string>());
  return a.get<int64_t>();
}

std::string Match(const ArrayData& arr, int64_t i, const json& a) {
  if (arr.IsNull(i)) return a.is_null() ? "" : "expected null, got " + a.dump();
  if (a.is_null()) return "expected " + FormatValue(arr, i) + ", got null";
  const DataType& t = *arr.type;
  auto fail = [&](const std::string& what) {
    return fmt::format("expected {} ({}), got {}", FormatValue(arr, i), what, a.dump());
  };
  const uint8_t* fixed = t.FixedWidth() > 0 ? arr.buffers[1].data() + (arr.offset + i) * t.FixedWidth() : nullptr;
  switch (t.id) {
    case TypeId::kBool: {
      const int64_t b = arr.offset + i;
      const bool v = (arr.buffers[1].data()[b >> 3] >> (b & 7)) & 1;
      return a.is_boolean() && a.get<bool>() == v ? "" : fail("bool");
    }
    case TypeId::kInt32: {
      int32_t v;
      std::memcpy(&v, fixed, 4);
      return (a.is_number_integer() || a.is_string()) && IntOf(a) == v ? "" : fail("int32");
    }
    case TypeId::kInt64: {
      int64_t v;
      std::memcpy(&v, fixed, 8);
      return (a.is_number_integer() || a.is_string()) && IntOf(a) == v ? "" : fail("int64");
    }
    case TypeId::kFloat32: {
      float v;
      std::memcpy(&v, fixed, 4);
      return MatchDouble(v, a) ? "" : fail("float");
    }
    case TypeId::kFloat64: {
      double v;
      std::memcpy(&v, fixed, 8);
      return MatchDouble(v, a) ? "" : fail("double");
    }
    case TypeId::kDate32: {
      int32_t v;
      std::memcpy(&v, fixed, 4);
      return a.is_object() && a.value("epoch_ms", int64_t{-1}) == int64_t{v} * 86'400'000 ? "" : fail("date");
    }
    case TypeId::kTimestamp: {
      int64_t v;
      std::memcpy(&v, fixed, 8);
      return a.is_object() && a.value("epoch_ms", int64_t{-1}) == v ? "" : fail("timestamp[ms]");
    }
    case TypeId::kDecimal128: {
      int64_t unscaled;
      std::memcpy(&unscaled, fixed, 8);  // test values fit 64 bits
      const double v = static_cast<double>(unscaled) / std::pow(10.0, t.scale);
      const double got = a.is_number() ? a.get<double>() : (a.is_string() ? std::stod(a.get<std::string>()) : NAN);
      return std::fabs(got - v) <= 1e-9 * std::max(1.0, std::fabs(v)) ? "" : fail("decimal");
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* o = arr.offsets();
      std::string v(reinterpret_cast<const char*>(arr.buffers[2].data()) + o[i], o[i + 1] - o[i]);
      if (t.id == TypeId::kString) return a.is_string() && a.get<std::string>() == v ? "" : fail("string");
      std::string hex;
      for (unsigned char c : v) hex += fmt::format("{:02x}", c);
      return a.is_object() && a.value("hex", std::string("?")) == hex ? "" : fail("binary");
    }
    case TypeId::kList: {
      if (!a.is_array()) return fail("list");
      const int32_t* o = arr.offsets();
      if (static_cast<int64_t>(a.size()) != o[i + 1] - o[i]) return fail("list length");
      for (int64_t k = 0; k < o[i + 1] - o[i]; ++k) {
        std::string d = Match(*arr.children[0], o[i] + k, a[k]);
        if (!d.empty()) return fmt::format("[{}] {}", k, d);
      }
      return "";
    }
    case TypeId::kStruct: {
      if (!a.is_object()) return fail("struct");
      for (size_t c = 0; c < t.children.size(); ++c) {
        const auto it = a.find(t.children[c].name);
        std::string d = Match(*arr.children[c], arr.offset + i, it == a.end() ? json() : *it);
        if (!d.empty()) return "." + t.children[c].name + " " + d;
      }
      return "";
    }
    case TypeId::kMap: {
      // hyparquet: {"k": v, ...}; DuckDB: [{"key": k, "value": v}, ...]. Keys are strings here.
      json entries = json::array();
      if (a.is_object()) {
        for (auto it = a.begin(); it != a.end(); ++it) entries.push_back({{"key", it.key()}, {"value", *it}});
      } else if (a.is_array()) {
        entries = a;
      } else {
        return fail("map");
      }
      const int32_t* o = arr.offsets();
      if (static_cast<int64_t>(entries.size()) != o[i + 1] - o[i]) return fail("map size");
      const ArrayData& kv = *arr.children[0];
      for (int64_t k = 0; k < o[i + 1] - o[i]; ++k) {
        std::string d = Match(*kv.children[0], kv.offset + o[i] + k, entries[k]["key"]);
        if (d.empty()) d = Match(*kv.children[1], kv.offset + o[i] + k, entries[k]["value"]);
        if (!d.empty()) return fmt::format("{{{}}} {}", k, d);
      }
      return "";
    }
    default:
      return "type not covered by this test: " + t.ToString();
  }
}

// --- the data ---------------------------------------------------------------------------------

SchemaPtr TestSchema() {
  auto s = std::make_shared<Schema>();
  s->fields = {
      {"id", MakeType(TypeId::kInt64), false},
      {"i32", MakeType(TypeId::kInt32), true},
      {"f64", MakeType(TypeId::kFloat64), true},
      {"f32", MakeType(TypeId::kFloat32), true},
      {"s", MakeType(TypeId::kString), true},
      {"bin", MakeType(TypeId::kBinary), true},
      {"flag", MakeType(TypeId::kBool), true},
      {"day", MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond), true},
      {"ts", MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kMilli, "UTC"), true},
      {"price", MakeDecimal(10, 2), true},
      {"tags", MakeList(Field{"item", MakeType(TypeId::kInt64), true}), true},
      {"pt", MakeStruct({Field{"a", MakeType(TypeId::kInt32), true}, Field{"b", MakeType(TypeId::kString), true}}),
       true},
      {"attrs", MakeMap(Field{"key", MakeType(TypeId::kString), false}, Field{"value", MakeType(TypeId::kInt64), true}),
       true},
  };
  return s;
}

RecordBatch TestBatch(const SchemaPtr& s, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  rap::testing::RandomDataOptions o;
  o.null_probability = 0.15;
  o.long_string_probability = 0.005;
  std::vector<ArrayPtr> cols;
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[i] = i;
  cols.push_back(rap::testing::MakeInt64Array(ids));
  for (size_t f = 1; f < s->fields.size(); ++f) {
    const auto& field = s->fields[f];
    ArrayPtr a = rap::testing::RandomArray(rng, *field.type, true, n, o);
    // Keep the values inside what JS numbers and Date hold exactly.
    if (field.type->id == TypeId::kTimestamp || field.type->id == TypeId::kDate32 ||
        field.type->id == TypeId::kDecimal128 || field.type->id == TypeId::kMap) {
      auto copy = std::make_shared<ArrayData>(*a);
      const int w = field.type->FixedWidth();
      if (w > 0) {
        std::string bytes(static_cast<size_t>(n * w), '\0');
        for (int64_t i = 0; i < n; ++i) {
          const int64_t v = static_cast<int64_t>(rng() % 4'000'000'000'000ULL) - 1'000'000'000'000LL;
          if (field.type->id == TypeId::kDate32) {
            const int32_t d = static_cast<int32_t>(v % 40'000);
            std::memcpy(bytes.data() + i * w, &d, 4);
          } else if (field.type->id == TypeId::kDecimal128) {
            const __int128 d = v % 9'999'999'999LL;
            std::memcpy(bytes.data() + i * w, &d, 16);
          } else {
            std::memcpy(bytes.data() + i * w, &v, 8);
          }
        }
        copy->buffers[1] = Buffer::FromString(std::move(bytes));
      } else {
        // Map keys: unique per map (readers returning objects would merge duplicates), not integer-like.
        auto kv = std::make_shared<ArrayData>(*copy->children[0]);
        std::vector<std::string> keys;
        const int32_t* off = copy->offsets();
        for (int64_t i = 0; i < n; ++i) {
          for (int32_t k = 0; k < off[i + 1] - off[i]; ++k) keys.push_back(fmt::format("k{}-{}", i, k));
        }
        keys.resize(static_cast<size_t>(kv->children[0]->length));
        kv->children[0] = rap::testing::MakeStringArray(keys);
        copy->children[0] = kv;
      }
      a = copy;
    }
    cols.push_back(a);
  }
  return MakeBatch(s, std::move(cols));
}

struct Config {
  std::string name;
  WriterOptions options;
};

std::vector<Config> Configs() {
  std::vector<Config> out;
  auto add = [&](std::string name, Codec codec, int version, bool dict, std::map<std::string, Encoding> enc) {
    Config c;
    c.name = std::move(name);
    c.options.defaults.codec = codec;
    c.options.data_page_version = version;
    c.options.defaults.dictionary = dict;
    c.options.defaults.page_max_rows = 97;
    c.options.row_group_max_rows = 700;
    for (const auto& [col, e] : enc) {
      c.options.columns[col].encoding = e;
      c.options.columns[col].dictionary = false;
    }
    out.push_back(std::move(c));
  };
  add("plain_none_v1", Codec::UNCOMPRESSED, 1, false, {});
  add("dict_snappy_v1", Codec::SNAPPY, 1, true, {});
  add("dict_zstd_v2", Codec::ZSTD, 2, true, {});
  add("delta_gzip_v2", Codec::GZIP, 2, false,
      {{"id", Encoding::DELTA_BINARY_PACKED},
       {"i32", Encoding::DELTA_BINARY_PACKED},
       {"s", Encoding::DELTA_BYTE_ARRAY},
       {"bin", Encoding::DELTA_LENGTH_BYTE_ARRAY},
       {"ts", Encoding::DELTA_BINARY_PACKED}});
  add("bss_lz4_v1", Codec::LZ4_RAW, 1, false,
      {{"f64", Encoding::BYTE_STREAM_SPLIT},
       {"f32", Encoding::BYTE_STREAM_SPLIT},
       {"s", Encoding::DELTA_LENGTH_BYTE_ARRAY}});
  add("dict_fallback_brotli_v2", Codec::BROTLI, 2, true, {});
  out.back().options.defaults.dictionary_max_bytes = 512;
  out.back().options.page_crc = true;
  return out;
}

class IndependentReadersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = MissingReaders();
    if (!missing.empty()) GTEST_SKIP() << "independent readers unavailable: " << missing;
  }
};

TEST_F(IndependentReadersTest, ValuesAndLayoutMatchAcrossEncodingsCodecsAndPageVersions) {
  rap::testing::TempDir dir;
  auto schema = TestSchema();
  const int64_t rows = 1500;
  const RecordBatch batch = TestBatch(schema, rows, 7);
  for (const auto& cfg : Configs()) {
    SCOPED_TRACE(cfg.name);
    const std::string path = dir.Join(cfg.name + ".parquet");
    auto sink = LocalFileSink::Open(path);
    ASSERT_TRUE(sink.ok());
    auto w = ParquetWriter::Open(schema, sink->get(), cfg.options);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Write(batch).ok());
    ASSERT_TRUE((*w)->Close().ok());
    const FileMetaData& md = (*w)->metadata();
    const auto& pages = (*w)->page_locations();
    for (const std::string reader : {"hyparquet", "duckdb"}) {
      SCOPED_TRACE(reader);
      auto j = ReadWith(reader, path, dir.Join("stderr.txt"));
      ASSERT_TRUE(j.ok()) << j.status().ToString();
      const json& out = (*j)["rows"];
      ASSERT_EQ(out.size(), static_cast<size_t>(rows));
      int mismatches = 0;
      for (int64_t r = 0; r < rows && mismatches < 5; ++r) {
        for (size_t c = 0; c < schema->fields.size(); ++c) {
          const auto& name = schema->fields[c].name;
          std::string d = Match(*batch.columns[c], r, out[r].contains(name) ? out[r][name] : json());
          if (!d.empty()) {
            ADD_FAILURE() << "row " << r << " column " << name << ": " << d;
            ++mismatches;
          }
        }
      }
      const json& layout = (*j)["layout"];
      if (reader == "hyparquet") {
        // Row groups, and pages as hyparquet decodes our OffsetIndex and ColumnIndex.
        ASSERT_EQ(layout["row_groups"].size(), md.row_groups.size());
        for (size_t g = 0; g < md.row_groups.size(); ++g) {
          const auto& cols = layout["row_groups"][g]["columns"];
          ASSERT_EQ(cols.size(), pages[g].size());
          for (size_t c = 0; c < pages[g].size(); ++c) {
            EXPECT_EQ(cols[c]["num_pages"], pages[g][c].page_locations.size()) << "rg " << g << " col " << c;
            if (!cols[c]["column_index_pages"].is_null()) {
              EXPECT_EQ(cols[c]["column_index_pages"], pages[g][c].page_locations.size());
            }
          }
        }
        EXPECT_EQ(layout["created_by"], "rap version 0.1.0");
      } else {
        // DuckDB's parquet_metadata: row groups, value counts, sizes and statistics as written.
        EXPECT_EQ(IntOf(layout["file"]["num_row_groups"]), static_cast<int64_t>(md.row_groups.size()));
        const json& chunks = layout["chunks"];
        size_t k = 0;
        for (size_t g = 0; g < md.row_groups.size(); ++g) {
          for (size_t c = 0; c < md.row_groups[g].columns.size(); ++c, ++k) {
            ASSERT_LT(k, chunks.size());
            const auto& m = *md.row_groups[g].columns[c].meta_data;
            const json& ch = chunks[k];
            EXPECT_EQ(IntOf(ch["num_values"]), m.num_values);
            EXPECT_EQ(IntOf(ch["total_compressed_size"]), m.total_compressed_size);
            if (m.statistics && m.statistics->null_count) {
              EXPECT_EQ(IntOf(ch["stats_null_count"]), *m.statistics->null_count);
            }
            if (c == 0) {  // id: min/max of the row group's ids
              int64_t first = 0;
              for (size_t p = 0; p < g; ++p) first += md.row_groups[p].num_rows;
              EXPECT_EQ(ch["stats_min_value"], std::to_string(first));
              EXPECT_EQ(ch["stats_max_value"], std::to_string(first + md.row_groups[g].num_rows - 1));
            }
          }
        }
        EXPECT_EQ(k, chunks.size());
      }
    }
  }
}

TEST_F(IndependentReadersTest, OnePagePerKeyIsSeenByHyparquet) {
  rap::testing::TempDir dir;
  auto s = std::make_shared<Schema>();
  s->fields = {{"user", MakeType(TypeId::kString), false}, {"event", MakeType(TypeId::kInt64), true}};
  std::vector<std::string> users;
  std::vector<int64_t> events;
  for (int u = 0; u < 30; ++u) {
    for (int e = 0; e <= u % 5; ++e) {
      users.push_back(fmt::format("user-{:03d}", u));
      events.push_back(u * 10 + e);
    }
  }
  WriterOptions o;
  o.page_break_on = {"user"};
  o.defaults.codec = Codec::ZSTD;
  const std::string path = dir.Join("keys.parquet");
  auto sink = LocalFileSink::Open(path);
  ASSERT_TRUE(sink.ok());
  auto w = ParquetWriter::Open(s, sink->get(), o);
  ASSERT_TRUE(w.ok());
  auto batch = MakeBatch(s, {rap::testing::MakeStringArray(users), rap::testing::MakeInt64Array(events)});
  ASSERT_TRUE((*w)->Write(batch).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto j = ReadWith("hyparquet", path, dir.Join("stderr.txt"));
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  for (const auto& col : (*j)["layout"]["row_groups"][0]["columns"]) EXPECT_EQ(col["num_pages"], 30);
  ASSERT_EQ((*j)["rows"].size(), users.size());
  for (size_t r = 0; r < users.size(); ++r) {
    EXPECT_EQ((*j)["rows"][r]["user"], users[r]);
    EXPECT_EQ(IntOf((*j)["rows"][r]["event"]), events[r]);
  }
}

}  // namespace
}  // namespace rap::parquet

namespace rap::parquet {
namespace {

// Frame per key, aligned and interleaved files (docs/layouts.md): every reader returns exactly the
// rows written, for full scans and projections. The pages are ZSTD sections of many frames and
// skippable frames; the interleaved column chunks overlap each other.
TEST_F(IndependentReadersTest, FrameLayoutsReadIdenticallyByEveryReader) {
  rap::testing::TempDir dir;
  const RecordBatch batch = rap::testing::KeyedBatch(2500, 3);
  const auto& schema = batch.schema;
  for (const auto& layout : rap::testing::FrameLayouts()) {
    SCOPED_TRACE(layout.name);
    const std::string path = dir.Join(layout.name + ".parquet");
    auto sink = LocalFileSink::Open(path);
    ASSERT_TRUE(sink.ok());
    auto w = ParquetWriter::Open(schema, sink->get(), layout.options);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Write(batch).ok());
    ASSERT_TRUE((*w)->Close().ok());
    ASSERT_GT((*w)->summary().num_frames, 0);
    // Projections on the layouts whose column chunks hold skippable frames over other columns.
    std::vector<std::string> projections{""};
    if (layout.options.interleave || layout.options.frame_align > 0) projections.push_back("tags,key,x");
    for (const std::string& projection : projections) {
      for (const std::string reader : {"duckdb", "arrowrs", "hyparquet"}) {
        SCOPED_TRACE(reader + " columns '" + projection + "'");
        auto j = ReadWith(reader, path, dir.Join("stderr.txt"), projection);
        ASSERT_TRUE(j.ok()) << j.status().ToString();
        const json& out = (*j)["rows"];
        ASSERT_EQ(out.size(), static_cast<size_t>(batch.num_rows));
        int mismatches = 0;
        for (int64_t r = 0; r < batch.num_rows && mismatches < 5; ++r) {
          for (size_t c = 0; c < schema->fields.size(); ++c) {
            const auto& name = schema->fields[c].name;
            if (!projection.empty()) {
              if (("," + projection + ",").find("," + name + ",") == std::string::npos) {
                EXPECT_FALSE(out[r].contains(name)) << name << " was not projected";
                continue;
              }
            }
            std::string d = Match(*batch.columns[c], r, out[r].contains(name) ? out[r][name] : json());
            if (!d.empty()) {
              ADD_FAILURE() << "row " << r << " column " << name << ": " << d;
              ++mismatches;
            }
          }
        }
      }
    }
  }
}

// Equal JSON values, numbers compared as doubles (hyparquet parses a JSON column with JavaScript's
// JSON.parse: int64 values beyond 2^53 come back rounded, and key order is not kept).
bool SameAsDoubles(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  // The reader script writes JavaScript's -0 as the string "-0" (JSON has no negative zero).
  if (a.is_number() && b == "-0") return a.get<double>() == 0 && std::signbit(a.get<double>());
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.items()) {
      if (!b.contains(k) || !SameAsDoubles(v, b[k])) return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameAsDoubles(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

// The blob layout (`rap rewrite --layout blob`: the key plus one JSON column, framed per key): DuckDB
// and arrow-rs return the key and the blob text as written; hyparquet returns each blob parsed as
// JSON (its JSON logical type handling), equal up to JavaScript's number precision.
TEST_F(IndependentReadersTest, BlobLayoutReadIdenticallyByEveryReader) {
  rap::testing::TempDir dir;
  const RecordBatch input = rap::testing::KeyedBatch(1500, 4);
  auto layout = PlanBlobLayout(*input.schema, {"key"});
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  auto batch = ToBlobBatch(*layout, input);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  WriterOptions o = rap::testing::FrameLayouts()[0].options;
  o.key_value_metadata.push_back({kBlobMetadataKey, BlobSpecToJson(layout->spec)});
  const std::string path = dir.Join("blob.parquet");
  auto bytes = WriteParquetToString(batch->schema, {*batch}, o);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  rap::testing::WriteStringToFile(path, *bytes);
  for (const std::string reader : {"duckdb", "arrowrs", "hyparquet"}) {
    SCOPED_TRACE(reader);
    auto j = ReadWith(reader, path, dir.Join("stderr.txt"), "");
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    const json& out = (*j)["rows"];
    ASSERT_EQ(out.size(), static_cast<size_t>(batch->num_rows));
    int mismatches = 0;
    for (int64_t r = 0; r < batch->num_rows && mismatches < 5; ++r) {
      for (size_t c = 0; c < 2; ++c) {
        const auto& name = batch->schema->fields[c].name;
        std::string d;
        if (reader == "hyparquet" && c == 1) {
          const json want = json::parse(FormatValue(*batch->columns[c], r));
          if (!out[r].contains(name) || !SameAsDoubles(want, out[r][name])) {
            d = "expected " + want.dump() + ", got " + (out[r].contains(name) ? out[r][name].dump() : "nothing");
          }
        } else {
          d = Match(*batch->columns[c], r, out[r].contains(name) ? out[r][name] : json());
        }
        if (!d.empty()) {
          ADD_FAILURE() << "row " << r << " column " << name << ": " << d;
          ++mismatches;
        }
      }
    }
  }
}

}  // namespace
}  // namespace rap::parquet
