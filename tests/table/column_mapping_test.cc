// Delta column mapping (modes name and id) with physical names inside nested fields — what Spark and
// Databricks write for any table with column mapping and a nested column: structs, arrays of
// structs and maps whose fields carry `delta.columnMapping.physicalName`s unlike their logical names,
// then a rename (logical names change, physical ones stay), a dropped nested field, a dropped
// top-level column and added fields (older files read them as NULL).
//
// The data files are written by DuckDB with the physical names (and, for id mode, Parquet field
// ids); the log is written here. Skipped (with the reason) only when node or DuckDB is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
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

Result<Scanned> ScanAll(const std::string& root, std::optional<int64_t> version) {
  OpenTableOptions to;
  to.version = version;
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(root, to));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), {}));
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
}

INSTANTIATE_TEST_SUITE_P(Modes, ColumnMapping, ::testing::Values("name", "id"));

}  // namespace
}  // namespace rap::table
