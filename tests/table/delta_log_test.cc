// Delta log replay against every table in ../shared/delta-tables (file counts, versions, partition
// values, refusals) and against small hand-written logs (escaping, nulls, reconciliation, gaps).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "rap/io/object_store.h"
#include "rap/table/delta_log.h"
#include "rap/table/table.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

std::string TablePath(const std::string& name) {
  std::string base = testing::SharedDir() + "/delta-tables/" + name;
  return std::filesystem::is_directory(base + "/delta") ? base + "/delta" : base;
}

Result<TableSnapshot> Open(const std::string& name, std::optional<int64_t> version = std::nullopt) {
  OpenTableOptions o;
  o.version = version;
  return OpenTable(TablePath(name), o);
}

struct Expect {
  std::string table;
  std::optional<int64_t> version;
  int64_t resolved_version;
  size_t files;
  int64_t stats_rows;  // sum of numRecords, -1 when the writer kept no stats
};

// Independently worked out by replaying the JSON commits (see docs/delta.md).
const Expect kSupported[] = {
    {"simple_table", std::nullopt, 4, 5, -1},
    {"simple_table", 0, 0, 6, -1},
    {"simple_table", 1, 1, 22, -1},
    {"delta-0.8.0-partitioned", std::nullopt, 0, 6, -1},
    {"delta-0.8.0-null-partition", std::nullopt, 0, 2, -1},
    {"delta-2.2.0-partitioned-types", std::nullopt, 0, 3, 3},
    {"partition-type-primitives", std::nullopt, 0, 16, 16},
    {"simple_table_with_checkpoint", std::nullopt, 10, 11, -1},
    {"simple_table_with_checkpoint", 3, 3, 4, -1},
    {"python-0.25.5-checkpoint", std::nullopt, 1, 2, 6},
    {"python-0.25.5-checkpoint", 0, 0, 1, 3},
    {"multi-part-checkpoint", std::nullopt, 1, 10, 31},
    {"multi-part-checkpoint", 0, 0, 1, 1},
    {"basic-with-inserts-overwrite-restore", std::nullopt, 3, 4, 200},
    {"basic-with-inserts-overwrite-restore", 2, 2, 2, 500},
    {"basic-with-inserts-overwrite-restore", 1, 1, 4, 200},
    {"checkpoint-v2-table", std::nullopt, 9, 8, 44},
    {"checkpoint-v2-table", 7, 7, 6, 33},
    {"checkpoint-v2-table", 0, 0, 0, 0},
    {"table_with_deletion_logs", 1, 1, 1, 100},
    {"table_with_column_mapping", std::nullopt, 0, 2, 5},
    {"type-widening", 0, 0, 1, 1},
    {"type-widening", std::nullopt, 2, 2, 2},
    {"parquet-all-types", std::nullopt, 0, 1, 200},
    {"table-with-dv-small", std::nullopt, 1, 1, 10},
    {"table_with_deletion_logs", std::nullopt, 20, 1, 100},
};

TEST(DeltaLog, EveryTableFilesAndVersions) {
  for (const Expect& e : kSupported) {
    SCOPED_TRACE(e.table + " @ " + (e.version ? std::to_string(*e.version) : "latest"));
    auto snap = Open(e.table, e.version);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ(snap->kind, TableKind::kDelta);
    EXPECT_EQ(snap->version, e.resolved_version);
    EXPECT_EQ(snap->files.size(), e.files);
    if (e.stats_rows >= 0) {
      int64_t sum = 0;
      for (const DataFile& f : snap->files) {
        ASSERT_TRUE(f.num_records.has_value()) << f.relative_path;
        sum += *f.num_records;
      }
      EXPECT_EQ(sum, e.stats_rows);
    }
    for (const DataFile& f : snap->files) {
      EXPECT_EQ(f.partition_values.size(), snap->partition_columns.size());
      // Every live file exists (the log never names a vacuumed file in these tables).
      EXPECT_TRUE(std::filesystem::exists(f.path)) << f.path;
    }
  }
}

TEST(DeltaLog, DeletionVectorDescriptors) {
  auto snap = Open("table-with-dv-small");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->files.size(), 1u);
  ASSERT_TRUE(snap->files[0].deletion_vector.has_value());
  const DeletionVectorDescriptor& dv = *snap->files[0].deletion_vector;
  EXPECT_EQ(dv.storage_type, "u");
  EXPECT_EQ(dv.cardinality, 2);
  EXPECT_EQ(dv.size_in_bytes, 36);
  auto v0 = Open("table-with-dv-small", 0);
  ASSERT_TRUE(v0.ok());
  EXPECT_FALSE(v0->files[0].deletion_vector.has_value());
}

TEST(DeltaLog, TimeTravelBeyondLatestIsNotFound) {
  auto snap = Open("simple_table", 5);
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.status().code(), StatusCode::kNotFound);
}

TEST(DeltaLog, PartitionValuesAndTypes) {
  auto snap = Open("delta-2.2.0-partitioned-types");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->partition_columns.size(), 2u);
  EXPECT_EQ(snap->partition_columns[0].name, "c1");
  EXPECT_EQ(snap->partition_columns[0].type->id, TypeId::kInt32);
  EXPECT_EQ(snap->partition_columns[1].type->id, TypeId::kString);
  ASSERT_EQ(snap->schema->fields.size(), 3u);
  ASSERT_EQ(snap->files.size(), 3u);
  EXPECT_EQ(snap->files[0].relative_path.substr(0, 10), "c1=4/c2=c/");
  EXPECT_EQ(snap->files[0].partition_values[0], std::optional<std::string>("4"));
  EXPECT_EQ(snap->files[0].partition_values[1], std::optional<std::string>("c"));

  auto nulls = Open("delta-0.8.0-null-partition");
  ASSERT_TRUE(nulls.ok()) << nulls.status().ToString();
  ASSERT_EQ(nulls->files.size(), 2u);
  EXPECT_EQ(nulls->files[0].partition_values[0], std::optional<std::string>("A"));
  EXPECT_EQ(nulls->files[1].partition_values[0], std::nullopt);
}

TEST(DeltaLog, ColumnMappingNameModeUsesPhysicalNames) {
  auto snap = Open("table_with_column_mapping");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->schema->fields.size(), 2u);
  EXPECT_EQ(snap->schema->fields[0].name, "Company Very Short");
  EXPECT_EQ(snap->physical_names[0], "col-173b4db9-b5ad-427f-9e75-516aae37fbbb");
  ASSERT_EQ(snap->partition_columns.size(), 1u);
  EXPECT_EQ(snap->partition_columns[0].name, "Company Very Short");
  std::vector<std::string> values;
  for (const DataFile& f : snap->files) values.push_back(f.partition_values[0].value_or("NULL"));
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<std::string>{"BME", "BMS"}));
}

// Every checkpoint kind (classic single-part, multi-part, V2 JSON manifest with Parquet sidecars)
// is read, and gives exactly the files of a replay of the JSON commits alone.
TEST(DeltaLog, CheckpointsAgreeWithJsonReplay) {
  struct Case {
    std::string table;
    int64_t version;
    int64_t checkpoint;
  };
  const Case kCases[] = {
      {"simple_table_with_checkpoint", 10, 10}, {"python-0.25.5-checkpoint", 0, 0},
      {"python-0.25.5-checkpoint", 1, 0},       {"multi-part-checkpoint", 1, 1},
      {"basic-with-inserts-overwrite-restore", 3, 3}, {"checkpoint-v2-table", 6, 6},
      {"checkpoint-v2-table", 7, 6},            {"checkpoint-v2-table", 9, 8},
      {"table_with_deletion_logs", 10, 10},     {"table_with_deletion_logs", 15, 10},
      {"table_with_deletion_logs", 20, 20},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.table + " @ " + std::to_string(c.version));
    auto store = io::OpenUrl(TablePath(c.table));
    ASSERT_TRUE(store.ok());
    DeltaLogOptions with_cp;
    with_cp.version = c.version;
    auto log = ReadDeltaLog(store->store, store->path, with_cp);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE(log->checkpoint_version.has_value()) << log->checkpoint_error;
    EXPECT_EQ(*log->checkpoint_version, c.checkpoint);
    EXPECT_EQ(log->commits_read, c.version - c.checkpoint);
    DeltaLogOptions json_only = with_cp;
    json_only.use_checkpoints = false;
    auto ref = ReadDeltaLog(store->store, store->path, json_only);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    EXPECT_EQ(ref->commits_read, c.version + 1);
    ASSERT_EQ(log->files.size(), ref->files.size());
    for (size_t i = 0; i < ref->files.size(); ++i) {
      EXPECT_EQ(log->files[i].path, ref->files[i].path);
      EXPECT_EQ(log->files[i].size, ref->files[i].size);
      EXPECT_EQ(log->files[i].partition_values, ref->files[i].partition_values);
      EXPECT_EQ(log->files[i].deletion_vector, ref->files[i].deletion_vector);
      EXPECT_EQ(log->files[i].stats.empty(), ref->files[i].stats.empty());
    }
    EXPECT_EQ(log->protocol.min_reader_version, ref->protocol.min_reader_version);
    EXPECT_EQ(log->protocol.reader_features, ref->protocol.reader_features);
    EXPECT_EQ(log->metadata.schema_string, ref->metadata.schema_string);
    EXPECT_EQ(log->metadata.partition_columns, ref->metadata.partition_columns);
    EXPECT_EQ(log->metadata.configuration, ref->metadata.configuration);
  }
}

// ---- hand-written logs ----

class SyntheticLog : public ::testing::Test {
 protected:
  void Commit(int64_t v, const std::string& lines) {
    std::filesystem::create_directories(dir_.Join("t/_delta_log"));
    char name[40];
    std::snprintf(name, sizeof name, "%020lld.json", static_cast<long long>(v));
    testing::WriteStringToFile(dir_.Join("t/_delta_log/") + name, lines);
  }
  std::string Root() const { return dir_.Join("t"); }
  static std::string Meta(const std::string& schema_fields, const std::string& parts) {
    std::string schema = "{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[" + schema_fields + "]}";
    return R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"
           "\n"
           R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":")" +
           schema + R"(","partitionColumns":[)" + parts + R"(],"configuration":{}}})" + "\n";
  }
  testing::TempDir dir_;
};

const char* kFields =
    R"({\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},)"
    R"({\"name\":\"v\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}})";

TEST_F(SyntheticLog, EscapedPathsNullsAndReconciliation) {
  Commit(0, Meta(kFields, R"("p")") +
                R"({"add":{"path":"p=a%2Fb%20c/f1.parquet","partitionValues":{"p":"a/b c"},"size":10,"modificationTime":1,"dataChange":true}})"
                "\n"
                R"({"add":{"path":"p=__HIVE_DEFAULT_PARTITION__/f2.parquet","partitionValues":{"p":null},"size":11,"modificationTime":1,"dataChange":true}})"
                "\n"
                R"({"add":{"path":"p=/f3.parquet","partitionValues":{"p":""},"size":12,"modificationTime":1,"dataChange":true}})"
                "\n"
                R"({"commitInfo":{"operation":"WRITE"}})"
                "\n"
                R"({"someFutureAction":{"x":1}})"
                "\n");
  Commit(1, R"({"remove":{"path":"p=a%2Fb%20c/f1.parquet","dataChange":true}})"
            "\n"
            R"({"add":{"path":"p=z/f4.parquet","partitionValues":{"p":"z"},"size":13,"modificationTime":2,"dataChange":true,"stats":"{\"numRecords\":7}"}})"
            "\n");
  auto v1 = OpenTable(Root());
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  ASSERT_EQ(v1->files.size(), 3u);
  EXPECT_EQ(v1->files[0].relative_path, "p=/f3.parquet");
  EXPECT_EQ(v1->files[0].partition_values[0], std::nullopt);  // "" is NULL
  EXPECT_EQ(v1->files[1].relative_path, "p=__HIVE_DEFAULT_PARTITION__/f2.parquet");
  EXPECT_EQ(v1->files[1].partition_values[0], std::nullopt);
  EXPECT_EQ(v1->files[2].partition_values[0], std::optional<std::string>("z"));
  EXPECT_EQ(v1->files[2].num_records, std::optional<int64_t>(7));
  EXPECT_EQ(v1->files[2].size, 13u);

  OpenTableOptions at0;
  at0.version = 0;
  auto v0 = OpenTable(Root(), at0);
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  ASSERT_EQ(v0->files.size(), 3u);
  EXPECT_EQ(v0->files[0].relative_path, "p=/f3.parquet");
  EXPECT_EQ(v0->files[1].relative_path, "p=__HIVE_DEFAULT_PARTITION__/f2.parquet");
  EXPECT_EQ(v0->files[2].relative_path, "p=a/b c/f1.parquet");  // %-decoded
  EXPECT_EQ(v0->files[2].path, Root() + "/p=a/b c/f1.parquet");
  EXPECT_EQ(v0->files[2].partition_values[0], std::optional<std::string>("a/b c"));
}

TEST_F(SyntheticLog, MissingCommitIsCorrupt) {
  Commit(0, Meta(kFields, ""));
  Commit(2, R"({"add":{"path":"f.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}})"
            "\n");
  auto snap = OpenTable(Root());
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(snap.status().message().find("00000000000000000001.json"), std::string::npos)
      << snap.status().ToString();
}

TEST_F(SyntheticLog, MalformedLineNamesFileAndLine) {
  Commit(0, Meta(kFields, "") + "{\"add\": {\"path\": \n");
  auto snap = OpenTable(Root());
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(snap.status().message().find("00000000000000000000.json: line 3"), std::string::npos)
      << snap.status().ToString();
}

TEST_F(SyntheticLog, FeatureGate) {
  Commit(0, R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["someNewFeature"]}})"
            "\n" +
                Meta(kFields, "").substr(Meta(kFields, "").find('\n') + 1));
  auto snap = OpenTable(Root());
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(snap.status().message().find("someNewFeature"), std::string::npos);
}

TEST_F(SyntheticLog, AbsentLogIsNotDelta) {
  std::filesystem::create_directories(dir_.Join("t"));
  auto store = io::OpenUrl(Root());
  ASSERT_TRUE(store.ok());
  auto is = IsDeltaTable(store->store, store->path);
  ASSERT_TRUE(is.ok());
  EXPECT_FALSE(*is);
}

}  // namespace
}  // namespace rap::table
