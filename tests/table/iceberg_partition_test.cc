// Iceberg partition pruning (src/table/iceberg/iceberg_partition.h): murmur3_x86_32 and the bucket
// transform against the table spec's Appendix B test vectors, and OpenTable with a filter over the
// committed tables (an hour + identity partitioned v1 table, identity partitions with equality
// deletes): fewer files listed, the same rows scanned as without pruning.
#include <gtest/gtest.h>

#include "rap/columnar/array_format.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/table/iceberg_metadata.h"
#include "table/iceberg/iceberg_manifest.h"
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

}  // namespace
}  // namespace rap::table
