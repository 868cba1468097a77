// Delta column mapping (modes name and id) with physical names inside nested fields — what Spark and
// Databricks write for any table with column mapping and a nested column: structs, arrays of
// structs and maps whose fields carry `delta.columnMapping.physicalName`s unlike their logical names,
// then a rename (logical names change, physical ones stay), a dropped nested field, a dropped
// top-level column and added fields (older files read them as NULL).
//
// Then a partitioned table with deletion vectors and add.stats keyed by physical names, whose top-level
// columns keep the physical names they had before column mapping was enabled (physical == logical)
// and are then swapped by two renames; a nested field dropped and re-added under the same logical
// name (a new physical name and id: older files read it as NULL). Filters on renamed columns use
// the statistics of the right physical column. And mode id resolving columns by Parquet field_id
// alone: a file whose names differ from the physical names reads by id, a name match with another
// id reads NULL, a file without field ids is refused. Library and CLI (`rap scan`).
//
// The data files are written by DuckDB with the physical names (and, for id mode, Parquet field
// ids); the log is written here as Spark writes it. Skipped (with the reason) only when node or
// DuckDB is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/columnar/array_format.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/cli_run.h"
#include "testing/duckdb_run.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

using json = nlohmann::json;

// A Delta struct field with column-mapping metadata.
json Field(const std::string& name, json type, const std::string& physical, int id) {
  return {{"name", name},
          {"type", std::move(type)},
          {"nullable", true},
          {"metadata", {{"delta.columnMapping.id", id}, {"delta.columnMapping.physicalName", physical}}}};
}
json Struct(std::vector<json> fields) { return {{"type", "struct"}, {"fields", std::move(fields)}}; }

// Version 0: id, person struct<first name, age>, tags array<struct<tag name, score>>,
// attrs map<string, struct<v>>, legacy string.
json SchemaV0() {
  return Struct({Field("id", "long", "col-id", 1),
                 Field("person", Struct({Field("first name", "string", "col-fn", 3), Field("age", "integer", "col-age", 4)}),
                       "col-person", 2),
                 Field("tags",
                       {{"type", "array"},
                        {"elementType", Struct({Field("tag name", "string", "col-tn", 6), Field("score", "double", "col-sc", 7)})},
                        {"containsNull", true}},
                       "col-tags", 5),
                 Field("attrs",
                       {{"type", "map"},
                        {"keyType", "string"},
                        {"valueType", Struct({Field("v", "long", "col-v", 9)})},
                        {"valueContainsNull", true}},
                       "col-attrs", 8),
                 Field("legacy", "string", "col-legacy", 10)});
}

// Version 1: person.first name renamed to "given name" and person.city added; tags' score dropped;
// attrs renamed to "attributes"; legacy dropped; note added.
json SchemaV1() {
  return Struct({Field("id", "long", "col-id", 1),
                 Field("person",
                       Struct({Field("given name", "string", "col-fn", 3), Field("age", "integer", "col-age", 4),
                               Field("city", "string", "col-city", 11)}),
                       "col-person", 2),
                 Field("tags",
                       {{"type", "array"}, {"elementType", Struct({Field("tag name", "string", "col-tn", 6)})}, {"containsNull", true}},
                       "col-tags", 5),
                 Field("attributes",
                       {{"type", "map"},
                        {"keyType", "string"},
                        {"valueType", Struct({Field("v", "long", "col-v", 9)})},
                        {"valueContainsNull", true}},
                       "col-attrs", 8),
                 Field("note", "string", "col-note", 12)});
}

std::string Commit(const std::string& mode, const json& schema, const std::string& file, int64_t size, bool protocol) {
  std::string out;
  if (protocol) {
    out += json{{"protocol", {{"minReaderVersion", 2}, {"minWriterVersion", 5}}}}.dump() + "\n";
  }
  json md = {{"metaData",
              {{"id", "00000000-0000-0000-0000-000000000001"},
               {"format", {{"provider", "parquet"}, {"options", json::object()}}},
               {"schemaString", schema.dump()},
               {"partitionColumns", json::array()},
               {"configuration", {{"delta.columnMapping.mode", mode}, {"delta.columnMapping.maxColumnId", "12"}}},
               {"createdTime", 0}}}};
  out += md.dump() + "\n";
  out += json{{"add", {{"path", file}, {"partitionValues", json::object()}, {"size", size}, {"modificationTime", 0},
                       {"dataChange", true}}}}
             .dump() +
         "\n";
  return out;
}

// DuckDB statements writing the two data files with physical names (and field ids when `ids`).
std::vector<std::string> WriteFiles(const std::string& dir, bool ids) {
  const std::string v0_ids =
      ", FIELD_IDS {'col-id': 1, 'col-person': {__duckdb_field_id: 2, 'col-fn': 3, 'col-age': 4}, "
      "'col-tags': {__duckdb_field_id: 5, element: {'col-tn': 6, 'col-sc': 7}}, "
      "'col-attrs': {__duckdb_field_id: 8, key: 13, value: {'col-v': 9}}, 'col-legacy': 10}";
  const std::string v1_ids =
      ", FIELD_IDS {'col-id': 1, 'col-person': {__duckdb_field_id: 2, 'col-fn': 3, 'col-age': 4, 'col-city': 11}, "
      "'col-tags': {__duckdb_field_id: 5, element: {'col-tn': 6}}, "
      "'col-attrs': {__duckdb_field_id: 8, key: 13, value: {'col-v': 9}}, 'col-note': 12}";
  return {
      "CREATE TABLE v0 (\"col-id\" BIGINT, \"col-person\" STRUCT(\"col-fn\" VARCHAR, \"col-age\" INTEGER), "
      "\"col-tags\" STRUCT(\"col-tn\" VARCHAR, \"col-sc\" DOUBLE)[], \"col-attrs\" MAP(VARCHAR, STRUCT(\"col-v\" BIGINT)), "
      "\"col-legacy\" VARCHAR)",
      "INSERT INTO v0 VALUES "
      "(1, {'col-fn': 'Ann', 'col-age': 31}, [{'col-tn': 'a', 'col-sc': 1.5}, {'col-tn': 'b', 'col-sc': 2.5}], "
      "MAP {'k': {'col-v': 10}}, 'old1'), "
      "(2, NULL, [], MAP {}, 'old2'), "
      "(3, {'col-fn': NULL, 'col-age': 40}, NULL, NULL, NULL)",
      "COPY v0 TO '" + dir + "/part-0.parquet' (FORMAT parquet" + (ids ? v0_ids : "") + ")",
      "CREATE TABLE v1 (\"col-id\" BIGINT, \"col-person\" STRUCT(\"col-fn\" VARCHAR, \"col-age\" INTEGER, \"col-city\" VARCHAR), "
      "\"col-tags\" STRUCT(\"col-tn\" VARCHAR)[], \"col-attrs\" MAP(VARCHAR, STRUCT(\"col-v\" BIGINT)), \"col-note\" VARCHAR)",
      "INSERT INTO v1 VALUES "
      "(4, {'col-fn': 'Dan', 'col-age': 22, 'col-city': 'Oslo'}, [{'col-tn': 'c'}], NULL, 'x'), "
      "(5, {'col-fn': 'Eve', 'col-age': NULL, 'col-city': NULL}, [{'col-tn': NULL}], MAP {'z': {'col-v': NULL}}, NULL)",
      "COPY v1 TO '" + dir + "/part-1.parquet' (FORMAT parquet" + (ids ? v1_ids : "") + ")",
      "SELECT 1 AS done"};
}

struct Scanned {
  std::vector<std::string> names;
  std::vector<std::string> rows;
};

struct ScanArgs {
  std::optional<int64_t> version;
  std::string where;
  std::vector<std::string> columns;
  bool use_statistics = true;
};

Result<Scanned> ScanAll(const std::string& root, std::optional<int64_t> version, const ScanArgs& args = {},
                        read::ScanStats* stats = nullptr) {
  OpenTableOptions to;
  to.version = version;
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(root, to));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  read::ScanOptions so;
  so.columns = args.columns;
  so.use_statistics = args.use_statistics;
  if (!args.where.empty()) {
    RAP_ASSIGN_OR_RETURN(so.filter, read::ParseExpr(args.where));
  }
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(so)));
  Scanned out;
  for (const auto& f : scanner->schema()->fields) out.names.push_back(f.name);
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
  if (stats) *stats = scanner->stats();
  return out;
}

class ColumnMapping : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string missing = rap::testing::DuckDbMissing();
    if (!missing.empty()) GTEST_SKIP() << missing;
  }
};

TEST_P(ColumnMapping, NestedPhysicalNamesRenamesAndDrops) {
  const std::string mode = GetParam();
  rap::testing::TempDir tmp;
  const std::string root = tmp.Join("table");
  std::filesystem::create_directories(root + "/_delta_log");
  auto made = rap::testing::RunDuckDb(WriteFiles(root, mode == "id"));
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const auto size = [&](const std::string& f) { return static_cast<int64_t>(std::filesystem::file_size(root + "/" + f)); };
  rap::testing::WriteStringToFile(root + "/_delta_log/00000000000000000000.json",
                                  Commit(mode, SchemaV0(), "part-0.parquet", size("part-0.parquet"), true));
  rap::testing::WriteStringToFile(root + "/_delta_log/00000000000000000001.json",
                                  Commit(mode, SchemaV1(), "part-1.parquet", size("part-1.parquet"), false));

  auto v0 = ScanAll(root, 0);
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  EXPECT_EQ(v0->names, (std::vector<std::string>{"id", "person", "tags", "attrs", "legacy"}));
  EXPECT_EQ(v0->rows, (std::vector<std::string>{
                          R"(1 | {"first name": "Ann", "age": 31} | [{"tag name": "a", "score": 1.5}, {"tag name": "b", "score": 2.5}] | {"k": {"v": 10}} | old1)",
                          R"(2 | null | [] | {} | old2)",
                          R"(3 | {"first name": null, "age": 40} | null | null | null)",
                      }));

  auto v1 = ScanAll(root, std::nullopt);
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(v1->names, (std::vector<std::string>{"id", "person", "tags", "attributes", "note"}));
  EXPECT_EQ(v1->rows, (std::vector<std::string>{
                          R"(1 | {"given name": "Ann", "age": 31, "city": null} | [{"tag name": "a"}, {"tag name": "b"}] | {"k": {"v": 10}} | null)",
                          R"(2 | null | [] | {} | null)",
                          R"(3 | {"given name": null, "age": 40, "city": null} | null | null | null)",
                          R"(4 | {"given name": "Dan", "age": 22, "city": "Oslo"} | [{"tag name": "c"}] | null | x)",
                          R"(5 | {"given name": "Eve", "age": null, "city": null} | [{"tag name": null}] | {"z": {"v": null}} | null)",
                      }));
  // Struct fields projected by their logical paths: NULL where the struct is NULL, or the field is
  // absent from an older file.
  ScanArgs nested;
  nested.columns = {"person.given name", "person.city", "id"};
  auto fields = ScanAll(root, std::nullopt, nested);
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  EXPECT_EQ(fields->names, (std::vector<std::string>{"person.given name", "person.city", "id"}));
  EXPECT_EQ(fields->rows, (std::vector<std::string>{"Ann | null | 1", "null | null | 2", "null | null | 3",
                                                    "Dan | Oslo | 4", "Eve | null | 5"}));
  nested.columns = {"person.first name"};  // the old logical name
  EXPECT_EQ(ScanAll(root, std::nullopt, nested).status().code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Modes, ColumnMapping, ::testing::Values("name", "id"));

// The lines of jsonl output as JSON values with their keys in order (the comparison ignores
// spacing); a line that is not JSON stays a string.
std::vector<json> JsonLines(const std::string& text) {
  std::vector<json> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(line, nullptr, false);
    out.push_back(j.is_discarded() ? json(line) : json(j.dump()));
    pos = end + 1;
  }
  return out;
}

// Z85 (ZeroMQ base-85) of bytes whose length is a multiple of 4.
std::string EncodeZ85(const std::string& bytes) {
  static const char* kAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  std::string out;
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) v = v << 8 | static_cast<uint8_t>(bytes[i + k]);
    char chunk[5];
    for (int k = 4; k >= 0; --k) {
      chunk[k] = kAlphabet[v % 85];
      v /= 85;
    }
    out.append(chunk, 5);
  }
  return out;
}

// An inline deletion vector (storage type i) deleting the rows `rows` (< 65536) of a file: a
// RoaringBitmapArray of one bitmap with one array container, as the protocol serialises it.
json InlineDeletionVector(const std::vector<uint16_t>& rows) {
  std::string b;
  auto u16 = [&](uint16_t v) { b.push_back(static_cast<char>(v & 0xff)), b.push_back(static_cast<char>(v >> 8)); };
  auto u32 = [&](uint32_t v) { u16(static_cast<uint16_t>(v)), u16(static_cast<uint16_t>(v >> 16)); };
  u32(1681511377);  // magic
  u32(1), u32(0);   // one bitmap (u64)
  u32(0);           // its high 32 bits
  u32(12346), u32(1);  // no-run cookie, one container
  u16(0), u16(static_cast<uint16_t>(rows.size() - 1));  // key 0, cardinality - 1
  u32(0);                                               // offset header
  for (uint16_t r : rows) u16(r);
  const size_t size = b.size();
  while (b.size() % 4) b.push_back('\0');
  return {{"storageType", "i"},
          {"pathOrInlineDv", EncodeZ85(b)},
          {"sizeInBytes", size},
          {"cardinality", rows.size()}};
}

json MetaData(const std::string& mode, const json& schema, int max_id) {
  return {{"metaData",
           {{"id", "00000000-0000-0000-0000-000000000002"},
            {"format", {{"provider", "parquet"}, {"options", json::object()}}},
            {"schemaString", schema.dump()},
            {"partitionColumns", json::array({"region"})},
            {"configuration",
             {{"delta.columnMapping.mode", mode},
              {"delta.columnMapping.maxColumnId", std::to_string(max_id)},
              {"delta.enableDeletionVectors", "true"}}},
            {"createdTime", 0}}}};
}

json Add(const std::string& path, const std::string& region, int64_t size, const json& stats, const json& dv = nullptr) {
  json a = {{"path", path},
            {"partitionValues", {{"col-region", region}}},
            {"size", size},
            {"modificationTime", 0},
            {"dataChange", true},
            {"stats", stats.dump()}};
  if (!dv.is_null()) a["deletionVector"] = dv;
  return {{"add", a}};
}

std::string Lines(const std::vector<json>& actions) {
  std::string out;
  for (const json& a : actions) out += a.dump() + "\n";
  return out;
}

// Spark's stats: keyed by physical names, nested ones as nested objects.
json Stats(int64_t n, int64_t a_min, int64_t a_max, int64_t b_min, int64_t b_max, const std::string& y) {
  return {{"numRecords", n},
          {"minValues", {{"a", a_min}, {"b", b_min}, {"col-s", {{"col-x", a_min}, {y, "a"}}}}},
          {"maxValues", {{"a", a_max}, {"b", b_max}, {"col-s", {{"col-x", a_max}, {y, "z"}}}}},
          {"nullCount", {{"a", 0}, {"b", 0}, {"col-s", {{"col-x", 0}, {y, 0}}}}}};
}

// Writes the partitioned table: versions 0 (a, b, region, s{x, y}), 1 (a and b swapped by renames:
// logical b is physical a and vice versa), 2 (s.y dropped), 3 (s.y added again: col-y2, id 7, and a
// file holding it), 4 (a deletion vector on part-0 deleting its row 1).
Status WritePartitionedTable(const std::string& root, const std::string& mode) {
  std::filesystem::create_directories(root + "/_delta_log");
  std::filesystem::create_directories(root + "/region=eu");
  std::filesystem::create_directories(root + "/region=us");
  const bool ids = mode == "id";
  const std::string ids_y = ", FIELD_IDS {a: 1, b: 2, 'col-s': {__duckdb_field_id: 4, 'col-x': 5, 'col-y': 6}}";
  const std::string ids_y2 = ", FIELD_IDS {a: 1, b: 2, 'col-s': {__duckdb_field_id: 4, 'col-x': 5, 'col-y2': 7}}";
  auto made = rap::testing::RunDuckDb({
      "CREATE TABLE t0 (a BIGINT, b BIGINT, \"col-s\" STRUCT(\"col-x\" BIGINT, \"col-y\" VARCHAR))",
      "INSERT INTO t0 VALUES (1, 10, {'col-x': 1, 'col-y': 'p'}), (2, 20, {'col-x': 2, 'col-y': 'q'}), "
      "(3, 30, {'col-x': 3, 'col-y': 'r'})",
      "COPY t0 TO '" + root + "/region=eu/part-0.parquet' (FORMAT parquet" + (ids ? ids_y : "") + ")",
      "CREATE TABLE t1 (a BIGINT, b BIGINT, \"col-s\" STRUCT(\"col-x\" BIGINT, \"col-y\" VARCHAR))",
      "INSERT INTO t1 VALUES (4, 40, {'col-x': 4, 'col-y': 's'}), (5, 50, {'col-x': 5, 'col-y': 't'})",
      "COPY t1 TO '" + root + "/region=us/part-1.parquet' (FORMAT parquet" + (ids ? ids_y : "") + ")",
      "CREATE TABLE t2 (a BIGINT, b BIGINT, \"col-s\" STRUCT(\"col-x\" BIGINT, \"col-y2\" VARCHAR))",
      "INSERT INTO t2 VALUES (6, 60, {'col-x': 6, 'col-y2': 'new'})",
      "COPY t2 TO '" + root + "/region=us/part-2.parquet' (FORMAT parquet" + (ids ? ids_y2 : "") + ")",
      "SELECT 1 AS done"});
  RAP_RETURN_NOT_OK(made.status());
  auto size = [&](const std::string& f) { return static_cast<int64_t>(std::filesystem::file_size(root + "/" + f)); };
  auto s_type = [](bool with_y, bool new_y) {
    std::vector<json> f = {Field("x", "long", "col-x", 5)};
    if (with_y) f.push_back(new_y ? Field("y", "string", "col-y2", 7) : Field("y", "string", "col-y", 6));
    return Struct(f);
  };
  auto schema = [&](bool swapped, bool with_y, bool new_y) {
    return Struct({Field(swapped ? "b" : "a", "long", "a", 1), Field(swapped ? "a" : "b", "long", "b", 2),
                   Field("region", "string", "col-region", 3), Field("s", s_type(with_y, new_y), "col-s", 4)});
  };
  const json protocol = {{"protocol",
                          {{"minReaderVersion", 3},
                           {"minWriterVersion", 7},
                           {"readerFeatures", {"columnMapping", "deletionVectors"}},
                           {"writerFeatures", {"columnMapping", "deletionVectors"}}}}};
  const std::string log = root + "/_delta_log/";
  const json stats0 = Stats(3, 1, 3, 10, 30, "col-y");
  rap::testing::WriteStringToFile(
      log + "00000000000000000000.json",
      Lines({protocol, MetaData(mode, schema(false, true, false), 6),
             Add("region=eu/part-0.parquet", "eu", size("region=eu/part-0.parquet"), stats0),
             Add("region=us/part-1.parquet", "us", size("region=us/part-1.parquet"), Stats(2, 4, 5, 40, 50, "col-y"))}));
  rap::testing::WriteStringToFile(log + "00000000000000000001.json", Lines({MetaData(mode, schema(true, true, false), 6)}));
  rap::testing::WriteStringToFile(log + "00000000000000000002.json", Lines({MetaData(mode, schema(true, false, false), 6)}));
  rap::testing::WriteStringToFile(
      log + "00000000000000000003.json",
      Lines({MetaData(mode, schema(true, true, true), 7),
             Add("region=us/part-2.parquet", "us", size("region=us/part-2.parquet"), Stats(1, 6, 6, 60, 60, "col-y2"))}));
  rap::testing::WriteStringToFile(
      log + "00000000000000000004.json",
      Lines({json{{"remove", {{"path", "region=eu/part-0.parquet"}, {"deletionTimestamp", 0}, {"dataChange", true}}}},
             Add("region=eu/part-0.parquet", "eu", size("region=eu/part-0.parquet"), stats0, InlineDeletionVector({1}))}));
  return Status::OK();
}

TEST_P(ColumnMapping, PartitionsDeletionVectorsRenamedSwappedAndReAddedColumns) {
  const std::string mode = GetParam();
  rap::testing::TempDir tmp;
  const std::string root = tmp.Join("parted");
  ASSERT_TRUE(WritePartitionedTable(root, mode).ok());

  const std::vector<std::string> v0_rows = {
      R"(1 | 10 | eu | {"x": 1, "y": "p"})", R"(2 | 20 | eu | {"x": 2, "y": "q"})", R"(3 | 30 | eu | {"x": 3, "y": "r"})",
      R"(4 | 40 | us | {"x": 4, "y": "s"})", R"(5 | 50 | us | {"x": 5, "y": "t"})"};
  auto v0 = ScanAll(root, 0);
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  EXPECT_EQ(v0->names, (std::vector<std::string>{"a", "b", "region", "s"}));
  EXPECT_EQ(v0->rows, v0_rows);
  // Version 1: the columns swapped names; each still reads its own physical column.
  auto v1 = ScanAll(root, 1);
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(v1->names, (std::vector<std::string>{"b", "a", "region", "s"}));
  EXPECT_EQ(v1->rows, v0_rows);
  auto v2 = ScanAll(root, 2);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->rows, (std::vector<std::string>{R"(1 | 10 | eu | {"x": 1})", R"(2 | 20 | eu | {"x": 2})",
                                                R"(3 | 30 | eu | {"x": 3})", R"(4 | 40 | us | {"x": 4})",
                                                R"(5 | 50 | us | {"x": 5})"}));
  // Version 3: s.y is a new field (col-y2): NULL in the files written before it, not their old s.y.
  const std::vector<std::string> v3_rows = {
      R"(1 | 10 | eu | {"x": 1, "y": null})", R"(2 | 20 | eu | {"x": 2, "y": null})", R"(3 | 30 | eu | {"x": 3, "y": null})",
      R"(4 | 40 | us | {"x": 4, "y": null})", R"(5 | 50 | us | {"x": 5, "y": null})",
      R"(6 | 60 | us | {"x": 6, "y": "new"})"};
  auto v3 = ScanAll(root, 3);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ(v3->rows, v3_rows);
  // Version 4: part-0's row 1 is deleted.
  std::vector<std::string> v4_rows = v3_rows;
  v4_rows.erase(v4_rows.begin() + 1);
  read::ScanStats st;
  auto v4 = ScanAll(root, std::nullopt, {}, &st);
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(v4->rows, v4_rows);
  EXPECT_EQ(st.rows_deleted, 1);

  // Filters on the renamed columns, the partition column and both, with and without statistics:
  // the rows are the brute-force selection of the full scan's rows, and add.stats (keyed by physical
  // names) prune the files whose physical column cannot match.
  struct Case {
    std::string where;
    std::vector<size_t> rows;  // indices into v4_rows
    int64_t pruned_by_stats;   // of 3 files
    int64_t pruned_by_partition;
  };
  const std::vector<Case> cases = {
      {"a = 50", {3}, 2, 0},            // logical a is physical b: only part-1's b range holds 50
      {"b = 5", {3}, 2, 0},             // logical b is physical a
      {"a = 20", {}, 2, 0},             // the deleted row
      {"b >= 3 AND region = 'eu'", {1}, 0, 2},
      {"region = 'us' AND a < 55", {2, 3}, 1, 1},
      {"a = 5", {}, 3, 0},              // physical a's values: no file's b range holds 5
  };
  for (const Case& c : cases) {
    std::vector<std::string> expected;
    for (size_t i : c.rows) expected.push_back(v4_rows[i]);
    for (bool use_stats : {true, false}) {
      ScanArgs args;
      args.where = c.where;
      args.use_statistics = use_stats;
      read::ScanStats fs;
      auto got = ScanAll(root, std::nullopt, args, &fs);
      ASSERT_TRUE(got.ok()) << c.where << ": " << got.status().ToString();
      EXPECT_EQ(got->rows, expected) << c.where << (use_stats ? "" : " (no statistics)");
      EXPECT_EQ(fs.files_pruned_by_stats, use_stats ? c.pruned_by_stats : 0) << c.where;
      EXPECT_EQ(fs.files_pruned, c.pruned_by_partition) << c.where;
    }
  }
  // Projection by logical names, in any order.
  ScanArgs proj;
  proj.columns = {"s", "a", "region"};
  proj.where = "b = 4";
  auto p = ScanAll(root, std::nullopt, proj);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->names, (std::vector<std::string>{"s", "a", "region"}));
  EXPECT_EQ(p->rows, (std::vector<std::string>{R"({"x": 4, "y": null} | 40 | us)"}));

  proj.columns = {"s.x", "a", "s.y"};
  proj.where = "region = 'us'";
  p = ScanAll(root, std::nullopt, proj);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->names, (std::vector<std::string>{"s.x", "a", "s.y"}));
  EXPECT_EQ(p->rows, (std::vector<std::string>{"4 | 40 | null", "5 | 50 | null", "6 | 60 | new"}));

  // The CLI: the same table through `rap scan`.
  if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "rap binary not built: " << rap::testing::RapBinary();
  auto cli = rap::testing::RunCli("scan " + rap::testing::ShellQuote(root) +
                                  " --where \"a >= 40 AND region = 'us'\" --columns a,s,b --format jsonl");
  EXPECT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_EQ(JsonLines(cli.out), JsonLines("{\"a\":40,\"s\":{\"x\":4,\"y\":null},\"b\":4}\n"
                                         "{\"a\":50,\"s\":{\"x\":5,\"y\":null},\"b\":5}\n"
                                         "{\"a\":60,\"s\":{\"x\":6,\"y\":\"new\"},\"b\":6}\n"))
      << cli.out;
  cli = rap::testing::RunCli("scan " + rap::testing::ShellQuote(root) + " --where 'a = 60' --columns s.y,s.x --format jsonl");
  EXPECT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_EQ(JsonLines(cli.out), JsonLines("{\"s.y\":\"new\",\"s.x\":6}\n")) << cli.out;
  cli = rap::testing::RunCli("scan " + rap::testing::ShellQuote(root) + " --version 1 --where 'a = 20' --format csv");
  EXPECT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_NE(cli.out.find("2,20,eu,"), std::string::npos) << cli.out;
}

// Mode id reads by Parquet field_id alone. The file's names differ from the physical names (its
// columns are found by id), one nested field has the right physical name but another id (NULL), one
// column has the right name and a foreign id (NULL). Mode name on the same file reads by names.
TEST(ColumnMappingId, ColumnsAreFoundByFieldIdNotName) {
  const std::string missing = rap::testing::DuckDbMissing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  rap::testing::TempDir tmp;
  const std::string root = tmp.Join("ids");
  const std::string bare = tmp.Join("no_ids");
  std::filesystem::create_directories(root + "/_delta_log");
  std::filesystem::create_directories(bare + "/_delta_log");
  auto made = rap::testing::RunDuckDb({
      "CREATE TABLE t (\"other-id\" BIGINT, \"other-p\" STRUCT(\"other-q\" BIGINT, \"col-r\" VARCHAR), \"col-z\" VARCHAR)",
      "INSERT INTO t VALUES (7, {'other-q': 70, 'col-r': 'rr'}, 'zz'), (8, NULL, NULL)",
      "COPY t TO '" + root + "/part-0.parquet' (FORMAT parquet, FIELD_IDS {'other-id': 1, 'other-p': "
      "{__duckdb_field_id: 2, 'other-q': 3, 'col-r': 9}, 'col-z': 99})",
      "COPY t TO '" + bare + "/part-0.parquet' (FORMAT parquet)",
      "SELECT 1 AS done"});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const json schema = Struct({Field("id", "long", "col-id", 1),
                              Field("p", Struct({Field("q", "long", "col-q", 3), Field("r", "string", "col-r", 4)}), "col-p", 2),
                              Field("z", "string", "col-z", 5)});
  auto write_log = [&](const std::string& dir, const std::string& mode) {
    rap::testing::WriteStringToFile(
        dir + "/_delta_log/00000000000000000000.json",
        Commit(mode, schema, "part-0.parquet", static_cast<int64_t>(std::filesystem::file_size(dir + "/part-0.parquet")), true));
  };
  write_log(root, "id");
  auto by_id = ScanAll(root, std::nullopt);
  ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
  EXPECT_EQ(by_id->rows, (std::vector<std::string>{R"(7 | {"q": 70, "r": null} | null)", R"(8 | null | null)"}));
  ScanArgs f;
  f.where = "id = 8";
  auto filtered = ScanAll(root, std::nullopt, f);
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  EXPECT_EQ(filtered->rows, (std::vector<std::string>{R"(8 | null | null)"}));
  if (rap::testing::RapBinaryExists()) {
    auto cli = rap::testing::RunCli("scan " + rap::testing::ShellQuote(root) + " --where 'id = 7' --format jsonl");
    EXPECT_EQ(cli.exit_code, 0) << cli.out;
    EXPECT_EQ(JsonLines(cli.out), JsonLines("{\"id\":7,\"p\":{\"q\":70,\"r\":null},\"z\":null}\n")) << cli.out;
    // A merge reads the files' own names: refused with column mapping.
    cli = rap::testing::RunCli("scan " + rap::testing::ShellQuote(root) + " --merge-key id --format jsonl");
    EXPECT_NE(cli.exit_code, 0) << cli.out;
    EXPECT_NE(cli.out.find("column mapping is not supported"), std::string::npos) << cli.out;
  }

  write_log(root, "name");
  auto by_name = ScanAll(root, std::nullopt);
  ASSERT_TRUE(by_name.ok()) << by_name.status().ToString();
  EXPECT_EQ(by_name->rows, (std::vector<std::string>{R"(null | null | zz)", R"(null | null | null)"}));

  // A file without field ids in mode id: refused, naming the file (the protocol allows refusing).
  write_log(bare, "id");
  auto refused = ScanAll(bare, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kNotSupported) << refused.status().ToString();
  EXPECT_NE(refused.status().ToString().find("part-0.parquet"), std::string::npos) << refused.status().ToString();
  EXPECT_NE(refused.status().ToString().find("field id"), std::string::npos) << refused.status().ToString();
}

}  // namespace
}  // namespace rap::table
