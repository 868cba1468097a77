// Iceberg partition pruning (src/table/iceberg/iceberg_partition.h): murmur3_x86_32 and the bucket
// transform against the table spec's Appendix B test vectors, and OpenTable with a filter over the
// committed tables (an hour + identity partitioned v1 table, identity partitions with equality
// deletes): fewer files listed, the same rows scanned as without pruning.
#include <gtest/gtest.h>

#include <cmath>

#include "rap/avro/container_writer.h"
#include "rap/avro/object_container.h"
#include "rap/columnar/array_format.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/table/iceberg_metadata.h"
#include "table/iceberg/iceberg_commit_partition.h"
#include "table/iceberg/iceberg_manifest.h"
#include "table/iceberg/iceberg_manifest_schemas.h"
#include "table/iceberg/iceberg_partition.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

TEST(IcebergPartition, Murmur3SpecVectors) {
  using iceberg::IcebergHashLong;
  using iceberg::Murmur3Hash;
  // The Iceberg table spec, Appendix B ("32-bit Hash Requirements").
  EXPECT_EQ(IcebergHashLong(34), 2017239379);                      // int 34 and long 34L
  EXPECT_EQ(IcebergHashLong(17486), -653330422);                   // date 2017-11-16
  EXPECT_EQ(IcebergHashLong(81068000000LL), -662762989);           // time 22:31:08
  EXPECT_EQ(IcebergHashLong(1510871468000000LL), -2047944441);     // timestamp 2017-11-16T22:31:08
  EXPECT_EQ(Murmur3Hash("iceberg"), 1210000089);                   // string
  EXPECT_EQ(Murmur3Hash(std::string("\x00\x01\x02\x03", 4)), -188683207);  // binary / fixed
  EXPECT_EQ(Murmur3Hash(std::string("\x05\x8c", 2)), -500754589);  // decimal 14.20 (unscaled 1420)
  EXPECT_EQ(Murmur3Hash(std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16)),
            1488055340);  // uuid f79c3e09-677c-4bbd-a479-3f349cb785e7
  // bucket[N] drops the sign bit first.
  EXPECT_EQ(iceberg::IcebergBucket(-653330422, 16), static_cast<int32_t>((-653330422 & 0x7fffffff) % 16));
  EXPECT_EQ(iceberg::IcebergBucket(2017239379, 16), 2017239379 % 16);
}

TEST(IcebergPartition, BucketHashOfWhereLiteralsIsTheSpecs) {
  using iceberg::BucketHashOfLiteral;
  using K = read::Literal::Kind;
  auto lit = [](K k, std::string t) { return read::Literal{k, std::move(t)}; };
  // The Appendix B vectors, from the literals a --where filter holds.
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "14.20"), *MakeDecimal(9, 2)), -500754589);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "14.2"), *MakeDecimal(38, 2)), -500754589);  // same value
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, "2017-11-16T22:31:08"), *MakeTemporal(TypeId::kTimestamp,
                                                                                       TimeUnit::kMicro)),
            -2047944441);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, "2017-11-16T14:31:08-08:00"),
                                *MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC")),
            -2047944441);  // timestamptz: the zone applied
  auto uuid = std::make_shared<DataType>(*MakeFixedSizeBinary(16));
  uuid->extension = "uuid";
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, "f79c3e09-677c-4bbd-a479-3f349cb785e7"), *uuid), 1488055340);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, "F79C3E09-677C-4BBD-A479-3F349CB785E7"), *uuid), 1488055340);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, std::string("\x00\x01\x02\x03", 4)), *MakeType(TypeId::kBinary)),
            -188683207);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "34"), *MakeType(TypeId::kInt32)), 2017239379);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, "iceberg"), *MakeType(TypeId::kString)), 1210000089);
  // Decimals use the minimal two's-complement bytes (Java's BigInteger.toByteArray): -1 is 0xff, -129
  // is 0xff 0x7f, -128 is 0x80, 128 is 0x00 0x80.
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "-0.01"), *MakeDecimal(9, 2)),
            iceberg::Murmur3Hash(std::string("\xff", 1)));
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "-1.29"), *MakeDecimal(9, 2)),
            iceberg::Murmur3Hash(std::string("\xff\x7f", 2)));
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "-1.28"), *MakeDecimal(9, 2)),
            iceberg::Murmur3Hash(std::string("\x80", 1)));
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "1.28"), *MakeDecimal(9, 2)),
            iceberg::Murmur3Hash(std::string("\x00\x80", 2)));
  // Literals that are no value of the column give no hash (no pruning).
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kNumber, "14.205"), *MakeDecimal(9, 2)));
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kString, "not-a-uuid"), *uuid));
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kString, "2017-11-16T22:31:08.0000005"),
                                   *MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro)));
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kString, "2017-11-16T22:31:08"),
                                   *MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano)));
  // Dates and longs through the one literal grammar (columnar/literal.h): a day past the month's end
  // or a number past int32 for an int column is no value of the column.
  const auto date = MakeTemporal(TypeId::kDate32, TimeUnit::kSecond);
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kString, "2017-11-16"), *date), -653330422);
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kString, "2017-02-31"), *date));
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kString, "2017-11-16x"), *date));
  EXPECT_EQ(BucketHashOfLiteral(lit(K::kNumber, "34"), *MakeType(TypeId::kInt64)), 2017239379);
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kNumber, "2147483648"), *MakeType(TypeId::kInt32)));
  EXPECT_FALSE(BucketHashOfLiteral(lit(K::kNumber, "34x"), *MakeType(TypeId::kInt64)));
}

struct Scanned {
  size_t files = 0;
  std::vector<std::string> rows;
};

Scanned ScanWith(const std::string& url, const std::string& where, bool prune) {
  Scanned out;
  OpenTableOptions o;
  auto filter = read::ParseExpr(where);
  EXPECT_TRUE(filter.ok()) << filter.status().ToString();
  if (prune) o.filter = *filter;
  auto snap = OpenTable(url, o);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return out;
  out.files = snap->files.size();
  auto src = ToScanSource(*snap);
  EXPECT_TRUE(src.ok()) << src.status().ToString();
  read::ScanOptions so;
  so.filter = *filter;
  auto scanner = read::Scanner::Make(std::move(*src), so);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  if (!scanner.ok()) return out;
  while (true) {
    auto b = (*scanner)->Next();
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok() || !*b) break;
    const RecordBatch& batch = (*b)->batch;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      std::string line;
      for (const ArrayPtr& c : batch.columns) line += FormatValue(*c, r) + "|";
      out.rows.push_back(line);
    }
  }
  std::sort(out.rows.begin(), out.rows.end());
  return out;
}

TEST(IcebergPartition, FiltersPruneFilesByPartitionValues) {
  const std::string root = rap::testing::SharedDir() + "/iceberg-tables/";
  struct Case {
    std::string table, where;
    size_t files;  // listed with pruning
    size_t rows;
  };
  for (const Case& c : {
           // identity(action): the 20 one-row files hold 3 actions.
           Case{"impala_v1_hour_identity_partitioned", "action = 'view'", 8, 8},
           Case{"impala_v1_hour_identity_partitioned", "action IN ('click', 'nothing')", 6, 6},
           // hour(event_time): the filter's instant lies inside one hour's partition.
           Case{"impala_v1_hour_identity_partitioned", "event_time = '2020-01-01 10:00:00Z'", 6, 6},
           Case{"impala_v1_hour_identity_partitioned", "event_time < '2020-01-01 09:00:00Z'", 8, 8},
           // identity(name) with equality deletes in the partitions.
           Case{"duckdb_equality_deletes/mytable_partitioned", "name = 'd'", 1, 1},
       }) {
    SCOPED_TRACE(c.table + " WHERE " + c.where);
    const Scanned all = ScanWith(root + c.table, c.where, false);
    const Scanned pruned = ScanWith(root + c.table, c.where, true);
    EXPECT_EQ(pruned.rows, all.rows);
    EXPECT_EQ(pruned.rows.size(), c.rows);
    EXPECT_LT(pruned.files, all.files);
    EXPECT_EQ(pruned.files, c.files);
  }
}

// The manifest list's partition summaries: of the current snapshot's data manifests of the identity
// partitioned table, the filter keeps those whose [lower, upper] of `name` holds 'd' (and every
// delete manifest).
TEST(IcebergPartition, ManifestSummariesPruneManifests) {
  const std::string t = rap::testing::SharedDir() + "/iceberg-tables/duckdb_equality_deletes/mytable_partitioned";
  const std::string meta_text = rap::testing::ReadFileToString(t + "/metadata/v6.metadata.json");
  auto meta = iceberg::ParseTableMetadata(meta_text, "v6");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  const std::string list =
      rap::testing::ReadFileToString(t + "/metadata/snap-3138177759849079112-1-ff275eec-b23b-435f-a6a5-1ab7ce1c8749.avro");
  auto manifests = iceberg::ParseManifestList(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(list.data()), list.size()), "list");
  ASSERT_TRUE(manifests.ok()) << manifests.status().ToString();
  const iceberg::IcebergSchema& schema = *meta->Schema(meta->current_schema_id);
  int data = 0, summarised = 0;
  for (const iceberg::ManifestFile& m : *manifests) {
    if (m.content != 0) continue;
    ++data;
    summarised += m.partitions.size() == 1 && m.partitions[0].lower ? 1 : 0;
  }
  ASSERT_GE(data, 2);
  ASSERT_EQ(summarised, data);
  auto skipped = [&](const std::string& where, const std::string& value = "") -> int {
    const iceberg::PartitionPruner pruner(*meta, schema, *read::ParseExpr(where));
    int n = 0;
    for (const iceberg::ManifestFile& m : *manifests) {
      const bool skip = pruner.SkipManifest(m);
      if (m.content != 0) {
        EXPECT_FALSE(skip);  // delete manifests are always read
      }
      if (skip) {
        // Only a manifest whose name range excludes the value is skipped.
        EXPECT_FALSE(value.empty()) << where;
        EXPECT_TRUE(*m.partitions[0].upper < value || *m.partitions[0].lower > value) << where;
      }
      n += skip;
    }
    return n;
  };
  EXPECT_GE(skipped("name = 'd'", "d"), 1);
  EXPECT_EQ(skipped("name = 'zzz'", "zzz"), data);
  EXPECT_EQ(skipped("id = 4"), 0);      // not a partition column
  EXPECT_EQ(skipped("name >= 'a'"), 0);  // every manifest may match
}

// A replace commit's partition struct (iceberg_commit_partition.h) for a spec of every transform:
// tuples written as records of the derived Avro type read back the same (Avro C accepts the type:
// optional fields with the partition field ids, a fixed per decimal and uuid, a field name made
// valid); the summaries bound each field in the single-value serialization of its result type
// (little-endian ints, minimal big-endian decimals, the bytes of strings), void fields and NULLs
// counted as contains_null, a float NaN as contains_nan.
TEST(IcebergPartition, ReplacePartitionStructAndSummaries) {
  auto meta = iceberg::ParseTableMetadata(R"json({"format-version": 2, "location": "/t", "current-schema-id": 0,
    "schemas": [{"schema-id": 0, "type": "struct", "fields": [
      {"id": 1, "name": "id", "required": false, "type": "long"},
      {"id": 2, "name": "name", "required": false, "type": "string"},
      {"id": 3, "name": "amount", "required": false, "type": "decimal(9, 2)"},
      {"id": 4, "name": "ts", "required": false, "type": "timestamptz"},
      {"id": 5, "name": "u", "required": false, "type": "uuid"},
      {"id": 6, "name": "f", "required": false, "type": "float"},
      {"id": 7, "name": "d", "required": false, "type": "date"}]}],
    "default-spec-id": 3, "partition-specs": [{"spec-id": 3, "fields": [
      {"name": "name", "transform": "identity", "source-id": 2, "field-id": 1000},
      {"name": "id_bucket", "transform": "bucket[4]", "source-id": 1, "field-id": 1001},
      {"name": "amount_trunc", "transform": "truncate[10]", "source-id": 3, "field-id": 1002},
      {"name": "ts_day", "transform": "day", "source-id": 4, "field-id": 1003},
      {"name": "ts.hour", "transform": "hour", "source-id": 4, "field-id": 1004},
      {"name": "u", "transform": "identity", "source-id": 5, "field-id": 1005},
      {"name": "id_null", "transform": "void", "source-id": 1, "field-id": 1006},
      {"name": "f", "transform": "identity", "source-id": 6, "field-id": 1007},
      {"name": "d_month", "transform": "month", "source-id": 7, "field-id": 1008}]}]})json",
                                          "metadata");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->default_spec_id, 3);
  const iceberg::PartitionSpec& spec = *meta->Spec(3);
  const iceberg::IcebergSchema& schema = *meta->Schema(0);
  auto type = iceberg::PartitionStructSchema(spec, schema, "t");
  ASSERT_TRUE(type.ok()) << type.status().ToString();
  EXPECT_NE(type->find(R"("name":"ts_x2Ehour")"), std::string::npos) << *type;
  EXPECT_NE(type->find(R"("logicalType":"decimal","precision":9,"scale":2)"), std::string::npos) << *type;
  EXPECT_NE(type->find(R"("field-id":1008)"), std::string::npos) << *type;
  auto fixed = [](std::string bytes) {
    avro::Value v;
    v.kind = avro::Kind::kFixed;
    v.bytes = std::move(bytes);
    return v;
  };
  auto real = [](double x) {
    avro::Value v;
    v.kind = avro::Kind::kFloat;
    v.real = x;
    return v;
  };
  const std::string uuid(16, '\x11');
  const std::vector<std::vector<avro::Value>> tuples = {
      {avro::Value::String("b"), avro::Value::Int(3), fixed(std::string("\x00\x00\x01\x2c", 4)),
       avro::Value::Int(19700), avro::Value::Int(472800), fixed(uuid), avro::Value::Null(), real(1.5),
       avro::Value::Int(600)},
      {avro::Value::String("a"), avro::Value::Int(0), fixed(std::string("\xff\xff\xff\x9c", 4)),
       avro::Value::Int(19701), avro::Value::Int(472830), fixed(uuid), avro::Value::Null(), real(NAN),
       avro::Value::Int(-5)},
      {avro::Value::Null(), avro::Value::Int(1), fixed(std::string("\x00\x00\x00\x0a", 4)), avro::Value::Int(19699),
       avro::Value::Int(472810), fixed(uuid), avro::Value::Null(), real(-2), avro::Value::Int(601)}};
  std::vector<avro::Value> records;
  for (const auto& t : tuples) records.push_back(iceberg::PartitionRecord(spec, t));
  auto bytes = avro::WriteContainerFile(*type, records, {}, "partitions.avro");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto read = avro::ReadContainerFile(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()), "partitions.avro");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->records.size(), tuples.size());
  for (size_t r = 0; r < tuples.size(); ++r) {
    ASSERT_EQ(read->records[r].items.size(), spec.fields.size());
    for (size_t k = 0; k < spec.fields.size(); ++k) {
      const avro::Value& got = read->records[r].items[k];
      const avro::Value& want = tuples[r][k];
      EXPECT_EQ(got.is_null(), want.is_null()) << r << " " << k;
      EXPECT_EQ(got.integer, want.integer) << r << " " << k;
      EXPECT_EQ(got.bytes, want.bytes) << r << " " << k;
      if (want.kind == avro::Kind::kFloat && !std::isnan(want.real)) {
        EXPECT_EQ(got.real, want.real) << r << " " << k;
      }
    }
  }
  auto summaries = iceberg::PartitionSummaries(spec, schema, tuples, "t");
  ASSERT_TRUE(summaries.ok()) << summaries.status().ToString();
  ASSERT_EQ(summaries->items.size(), spec.fields.size());
  auto bound = [&](size_t k, const char* which) {
    const avro::Value* b = summaries->items[k].Find(which);
    return b && !b->is_null() ? b->bytes : std::string("<null>");
  };
  auto flag = [&](size_t k, const char* which) { return summaries->items[k].Find(which)->boolean; };
  auto le32 = [](uint32_t v) {  // the single-value serialization of an int
    return std::string{char(v & 0xff), char(v >> 8 & 0xff), char(v >> 16 & 0xff), char(v >> 24)};
  };
  EXPECT_EQ(bound(0, "lower_bound"), "a");
  EXPECT_EQ(bound(0, "upper_bound"), "b");
  EXPECT_TRUE(flag(0, "contains_null"));
  EXPECT_EQ(bound(1, "lower_bound"), le32(0));
  EXPECT_EQ(bound(1, "upper_bound"), le32(3));
  EXPECT_FALSE(flag(1, "contains_null"));
  EXPECT_EQ(bound(2, "lower_bound"), std::string("\x9c", 1));      // -100 (-1.00), minimal bytes
  EXPECT_EQ(bound(2, "upper_bound"), std::string("\x01\x2c", 2));  // 300 (3.00)
  EXPECT_EQ(bound(3, "lower_bound"), le32(19699));
  EXPECT_EQ(bound(3, "upper_bound"), le32(19701));
  EXPECT_EQ(bound(4, "upper_bound"), le32(472830));
  EXPECT_EQ(bound(5, "lower_bound"), uuid);
  EXPECT_EQ(bound(6, "lower_bound"), "<null>");  // void: always null
  EXPECT_TRUE(flag(6, "contains_null"));
  EXPECT_TRUE(flag(7, "contains_nan"));
  EXPECT_FALSE(flag(1, "contains_nan"));
  const float lo = -2, hi = 1.5;
  EXPECT_EQ(bound(7, "lower_bound"), std::string(reinterpret_cast<const char*>(&lo), 4));
  EXPECT_EQ(bound(7, "upper_bound"), std::string(reinterpret_cast<const char*>(&hi), 4));
  EXPECT_EQ(bound(8, "lower_bound"), le32(static_cast<uint32_t>(-5)));
  EXPECT_EQ(bound(8, "upper_bound"), le32(601));
  // A value not of the field's type is Corrupt naming the field.
  std::vector<std::vector<avro::Value>> bad = {tuples[0]};
  bad[0][1] = avro::Value::String("3");
  auto refused = iceberg::PartitionSummaries(spec, schema, bad, "t");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("id_bucket"), std::string::npos) << refused.status().ToString();
}

// A manifest of the derived partition type (ManifestEntrySchema + PartitionStructSchema) reads back
// through the manifest reader with its tuples, and tuples of doubles equal to 6 digits are distinct
// partitions (the partition key the rewrite groups files by, and equality deletes match partitions
// by, is exact).
TEST(IcebergPartition, ManifestTuplesOfDoublesStayDistinct) {
  auto meta = iceberg::ParseTableMetadata(R"json({"format-version": 2, "location": "/t", "current-schema-id": 0,
    "schemas": [{"schema-id": 0, "type": "struct", "fields": [
      {"id": 1, "name": "x", "required": false, "type": "double"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": [
      {"name": "x", "transform": "identity", "source-id": 1, "field-id": 1000}]}]})json",
                                          "metadata");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  const iceberg::PartitionSpec& spec = *meta->Spec(0);
  auto type = iceberg::PartitionStructSchema(spec, *meta->Schema(0), "t");
  ASSERT_TRUE(type.ok()) << type.status().ToString();
  std::vector<avro::Value> entries;
  for (double x : {1.000000001, 1.000000002, 1.000000001}) {
    avro::Value v;
    v.kind = avro::Kind::kDouble;
    v.real = x;
    entries.push_back(avro::Value::Record(
        {{"status", avro::Value::Int(1)},
         {"snapshot_id", avro::Value::Long(7)},
         {"data_file", avro::Value::Record({{"content", avro::Value::Int(0)},
                                            {"file_path", avro::Value::String("/t/data/f.parquet")},
                                            {"file_format", avro::Value::String("PARQUET")},
                                            {"partition", iceberg::PartitionRecord(spec, {v})},
                                            {"record_count", avro::Value::Long(1)},
                                            {"file_size_in_bytes", avro::Value::Long(10)}})}}));
  }
  auto bytes = avro::WriteContainerFile(iceberg::ManifestEntrySchema(2, *type), entries,
                                        {{"partition-spec-id", "0"}, {"format-version", "2"}}, "m.avro");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  iceberg::ManifestFile m;
  m.sequence_number = 1;
  auto files = iceberg::ParseManifest(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()), m, "m.avro");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 3u);
  ASSERT_EQ((*files)[0].partition.size(), 1u);
  EXPECT_EQ((*files)[0].partition[0].real, 1.000000001);
  EXPECT_EQ((*files)[1].partition[0].real, 1.000000002);
  EXPECT_NE((*files)[0].partition_key, (*files)[1].partition_key);
  EXPECT_EQ((*files)[0].partition_key, (*files)[2].partition_key);
}

}  // namespace
}  // namespace rap::table
