// rap-test-labels: concurrent
// Paimon tables (src/table/paimon/) read through the table seam and the Scanner, every value
// compared with the rows Paimon's own readers give (../shared/paimon-tables/_expected/*.csv, the
// rows paimon-cpp's integration tests assert for tables Java Paimon wrote): a primary-key table
// merged on read (4 level-0 sorted runs in one bucket, updates and deletes across them, Avro
// manifests), an append table with ORC data files and ORC manifests; time travel by snapshot id
// and by time; the warmup of the first file of every sorted run; what rap refuses; a malformed
// snapshot, schema and manifest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

#include <zlib.h>

#include "rap/columnar/array_format.h"
#include "rap/read/scanner.h"
#include "rap/table/deletion_vector.h"
#include "rap/table/paimon.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/table/table_format.h"
#include "table/paimon/paimon_meta.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

namespace fs = std::filesystem;

std::string Pai(const std::string& rel) { return testing::SharedDir() + "/paimon-tables/" + rel; }

// The table's rows as CSV lines (header first, then the rows sorted), values as rap renders them.
Result<std::vector<std::string>> ScanCsv(const std::string& url, const OpenTableOptions& o = {},
                                         const read::ScanOptions& so = {}) {
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url, o));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), so));
  std::string header;
  for (const Field& f : scanner->schema()->fields) header += (header.empty() ? "" : ",") + f.name;
  std::vector<std::string> rows;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, scanner->Next());
    if (!batch) break;
    for (int64_t i = 0; i < batch->batch.num_rows; ++i) {
      std::string line;
      for (size_t c = 0; c < batch->batch.columns.size(); ++c) {
        const std::string v = batch->batch.columns[c]->IsNull(i) ? "" : columnar::FormatValue(*batch->batch.columns[c], i);
        line += (c ? "," : "") + (v.find(',') != std::string::npos ? "\"" + v + "\"" : v);
      }
      rows.push_back(line);
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.insert(rows.begin(), header);
  return rows;
}

std::vector<std::string> Expected(const std::string& name) {
  std::istringstream in(testing::ReadFileToString(Pai("_expected/" + name)));
  std::vector<std::string> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the CSVs end lines with CRLF
    if (!line.empty()) rows.push_back(line);
  }
  if (!rows.empty()) std::sort(rows.begin() + 1, rows.end());
  return rows;
}

TEST(PaimonTable, PrimaryKeyTableIsMergedOnRead) {
  // Its Parquet files hold 19 rows (superseded versions and deletes included); the table has 11.
  auto rows = ScanCsv(Pai("pk_mor_parquet"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, Expected("pk_mor_parquet__snapshot5_latest.csv"));
  EXPECT_EQ(rows->size(), 12u);
}

TEST(PaimonTable, AppendTableWithOrcManifests) {
  auto rows = ScanCsv(Pai("append_orc"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, Expected("append_orc__snapshot5_latest.csv"));
}

TEST(PaimonTable, TimeTravelBySnapshotId) {
  const std::vector<std::tuple<std::string, int64_t, std::string>> cases = {
      {"pk_mor_parquet", 2, "pk_mor_parquet__snapshot2.csv"},
      {"append_orc", 3, "append_orc__snapshot3.csv"},
      {"append_orc", 1, "append_orc__snapshot1.csv"}};
  for (const auto& [table, id, csv] : cases) {
    SCOPED_TRACE(table + " snapshot " + std::to_string(id));
    OpenTableOptions o;
    o.snapshot_id = id;
    auto rows = ScanCsv(Pai(table), o);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, Expected(csv));
    auto snap = OpenTable(Pai(table), o);
    ASSERT_TRUE(snap.ok());
    EXPECT_EQ(snap->version, id);
    if (table == "pk_mor_parquet") {
      // Two buckets of two level-0 runs each (f1=10 bucket-0 and bucket-1). A scan merges a bucket
      // when it reaches the bucket's first file: its first bucket alone, so its first batch waits
      // for one merge.
      auto src = ToScanSource(*snap);
      ASSERT_TRUE(src.ok());
      auto info = PaimonInfo(*snap);
      ASSERT_TRUE(info.ok());
      EXPECT_EQ(info->merge.buckets_merged, 0);
      std::vector<const read::ScanFile*> lazy;
      for (const read::ScanFile& f : src->files) {
        if (f.deleted_rows_loader) lazy.push_back(&f);
      }
      ASSERT_EQ(lazy.size(), 4u);
      ASSERT_TRUE(lazy.front()->deleted_rows_loader().ok());
      EXPECT_EQ(PaimonInfo(*snap)->merge.buckets_merged, 1);
      ASSERT_TRUE(lazy.back()->deleted_rows_loader().ok());
      info = PaimonInfo(*snap);
      EXPECT_EQ(info->merge.buckets_merged, 2);
      EXPECT_EQ(info->merge.runs, 4);
      EXPECT_EQ(info->merge.runs_warmed, 4);
      // Asked for up front (an index build), every bucket is merged at once.
      auto again = OpenTable(Pai(table), o);
      ASSERT_TRUE(again.ok());
      ASSERT_TRUE(DeletedRows(*again, again->files.front()).ok());
      EXPECT_EQ(PaimonInfo(*again)->merge.buckets_merged, 2);
    }
  }
  OpenTableOptions o;
  o.snapshot_id = 6;
  auto missing = OpenTable(Pai("pk_mor_parquet"), o);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().Is(StatusCode::kNotFound)) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("snapshot 6 does not exist"), std::string::npos);
  o = OpenTableOptions{};
  o.version = 2;  // a Delta version
  auto delta = OpenTable(Pai("pk_mor_parquet"), o);
  ASSERT_FALSE(delta.ok());
  EXPECT_TRUE(delta.status().Is(StatusCode::kInvalidArgument)) << delta.status().ToString();
}

TEST(PaimonTable, TimeTravelByTime) {
  // Snapshot 2 of pk_mor_parquet was committed at 1756266932xxx ms; as of its own time it is current.
  auto s2 = paimon::ParseSnapshot(testing::ReadFileToString(Pai("pk_mor_parquet/snapshot/snapshot-2")), "s2");
  ASSERT_TRUE(s2.ok()) << s2.status().ToString();
  OpenTableOptions o;
  o.as_of_ms = s2->time_ms;
  auto snap = OpenTable(Pai("pk_mor_parquet"), o);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, 2);
  auto rows = ScanCsv(Pai("pk_mor_parquet"), o);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, Expected("pk_mor_parquet__snapshot2.csv"));
  o.as_of_ms = 1000;  // before the first commit
  auto before = OpenTable(Pai("pk_mor_parquet"), o);
  ASSERT_FALSE(before.ok());
  EXPECT_TRUE(before.status().Is(StatusCode::kNotFound)) << before.status().ToString();
}

// The scan merges a bucket when it reaches it: its first batch comes after the first bucket's merge,
// not every bucket's (issue 32: the warmup of every run shortens the time to the first merged batch).
TEST(PaimonTable, ScanMergesABucketWhenItReachesIt) {
  OpenTableOptions o;
  o.snapshot_id = 2;  // two buckets of two level-0 runs each
  auto snap = OpenTable(Pai("pk_mor_parquet"), o);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto src = ToScanSource(*snap);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  read::ScanOptions so;
  so.warmup.level = read::WarmupLevel::kNone;  // no thread prepares the next file ahead
  so.file_parallelism = 1;
  so.batch_size = 1;
  auto scanner = read::Scanner::Make(std::move(*src), so);
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  auto first = (*scanner)->Next();
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
  EXPECT_EQ(PaimonInfo(*snap)->merge.buckets_merged, 1);
  int64_t rows = (*first)->batch.num_rows;
  while (true) {
    auto batch = (*scanner)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    rows += (*batch)->batch.num_rows;
  }
  EXPECT_EQ(PaimonInfo(*snap)->merge.buckets_merged, 2);
  auto expected = Expected("pk_mor_parquet__snapshot2.csv");
  EXPECT_EQ(rows, static_cast<int64_t>(expected.size()) - 1);  // the values: TimeTravelBySnapshotId
}

// The buckets' merges run on the threads that prepare files — the warmup thread (RAW, DECODED) and
// the fan-out's file threads — several at once; every setting reads the same rows (TSan: the
// `concurrent` label).
TEST(PaimonTable, BucketsMergedOnWarmupAndFanOutThreadsReadTheSameRows) {
  for (const auto& [id, csv] : std::vector<std::pair<std::optional<int64_t>, std::string>>{
           {2, "pk_mor_parquet__snapshot2.csv"}, {std::nullopt, "pk_mor_parquet__snapshot5_latest.csv"}}) {
    for (const read::WarmupLevel level : {read::WarmupLevel::kNone, read::WarmupLevel::kRaw, read::WarmupLevel::kDecoded}) {
      for (const int files : {1, 3}) {
        SCOPED_TRACE(csv + " warmup " + std::to_string(static_cast<int>(level)) + " files " + std::to_string(files));
        OpenTableOptions o;
        o.snapshot_id = id;
        read::ScanOptions so;
        so.warmup.level = level;
        so.file_parallelism = files;
        so.batch_size = 2;
        auto rows = ScanCsv(Pai("pk_mor_parquet"), o, so);
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        EXPECT_EQ(*rows, Expected(csv));
      }
    }
  }
}

TEST(PaimonTable, FirstFileOfEverySortedRunIsWarmed) {
  auto snap = OpenTable(Pai("pk_mor_parquet"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(FormatName(*snap), "paimon");
  EXPECT_EQ(snap->version, 5);
  auto info = PaimonInfo(*snap);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->primary_keys, (std::vector<std::string>{"f0", "f1", "f2"}));
  EXPECT_EQ(info->partition_keys, (std::vector<std::string>{"f1"}));
  EXPECT_EQ(info->merge_engine, "deduplicate");
  EXPECT_EQ(info->buckets, 2);
  EXPECT_EQ(info->merge.buckets, 3);
  EXPECT_EQ(info->merge.buckets_merged, 0);  // merged when a scan asks
  // f1=10 bucket-1: four level-0 files, each its own sorted run; the other buckets one level-5 file each.
  int merged_files = 0;
  for (const DataFile& f : snap->files) merged_files += f.format_deletes;
  EXPECT_EQ(merged_files, 4);
  EXPECT_EQ(snap->files.size(), 6u);
  auto src = ToScanSource(*snap);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(PaimonInfo(*snap)->merge.buckets_merged, 0);  // merged when the scan reaches the bucket
  size_t deleted = 0;
  for (const read::ScanFile& f : src->files) {
    EXPECT_TRUE(f.deleted_rows.empty());
    if (!f.deleted_rows_loader) continue;
    auto rows = f.deleted_rows_loader();
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    deleted += rows->size();
  }
  info = PaimonInfo(*snap);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->merge.buckets_merged, 1);
  EXPECT_EQ(info->merge.runs, 4);
  EXPECT_EQ(info->merge.runs_warmed, 4);  // the first (only) file of every run, before the merge
  EXPECT_EQ(info->merge.rows_in, 12);     // 5 + 1 + 3 + 3 rows of the four runs
  // 12 rows -> Bob, David, Emily, Marco, Marco2, Skye, Skye2: Alex (+I, +U, -D) and Tony (+I, -D) go.
  EXPECT_EQ(info->merge.rows_deleted, 5);
  EXPECT_EQ(deleted, 5u);
}

TEST(PaimonTable, AppendTableHasNoMerge) {
  auto snap = OpenTable(Pai("append_orc"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto info = PaimonInfo(*snap);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->primary_keys.empty());
  EXPECT_EQ(info->commit_kind, "COMPACT");
  for (const DataFile& f : snap->files) EXPECT_FALSE(f.format_deletes) << f.path;
  int64_t rows = 0;
  for (const DataFile& f : snap->files) rows += f.num_records.value_or(0);
  EXPECT_EQ(rows, 11);
}

// A copy of a shared table to break.
std::string CopyTable(const testing::TempDir& dir, const std::string& table) {
  const std::string t = dir.Join(table);
  fs::copy(Pai(table), t, fs::copy_options::recursive);
  return t;
}

TEST(PaimonTable, RefusedMergeEnginesAndOptions) {
  testing::TempDir dir;
  const std::string t = CopyTable(dir, "pk_mor_parquet");
  const std::string schema = testing::ReadFileToString(t + "/schema/schema-0");
  for (const auto& [option, named] : std::vector<std::pair<std::string, std::string>>{
           {"\"merge-engine\" : \"partial-update\",", "partial-update"},
           {"\"merge-engine\" : \"aggregation\",", "aggregation"},
           {"\"sequence.field\" : \"f3\",", "sequence.field"}}) {
    SCOPED_TRACE(option);
    std::string s = schema;
    s.replace(s.find("\"bucket\" :"), 0, option);
    testing::WriteStringToFile(t + "/schema/schema-0", s);
    auto snap = OpenTable(t);
    ASSERT_FALSE(snap.ok());
    EXPECT_TRUE(snap.status().Is(StatusCode::kNotSupported)) << snap.status().ToString();
    EXPECT_NE(snap.status().message().find(named), std::string::npos) << snap.status().ToString();
  }
}

TEST(PaimonTable, FirstRowEngineReadsLevelsAboveZero) {
  // The same files read with the first-row engine: Paimon's batch scan skips level-0 files, which
  // leaves the level-5 files of f1=10 bucket-0 and f1=20 bucket-0 (no merge: one run, no deletes).
  testing::TempDir dir;
  const std::string t = CopyTable(dir, "pk_mor_parquet");
  std::string schema = testing::ReadFileToString(t + "/schema/schema-0");
  schema.replace(schema.find("\"bucket\" :"), 0, "\"merge-engine\" : \"first-row\",");
  testing::WriteStringToFile(t + "/schema/schema-0", schema);
  auto rows = ScanCsv(t);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{
                       "f0,f1,f2,f3",
                       "\"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the "
                       "difference.\",10,1,11.0",
                       "Alice,10,1,19.1", "Lucy,20,1,14.1", "Paul,20,1,18.1"}));
  auto snap = OpenTable(t);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(PaimonInfo(*snap)->merge_engine, "first-row");
  EXPECT_EQ(snap->files.size(), 2u);
}

TEST(PaimonTable, TimeTravelByTag) {
  // A tag is a snapshot's JSON under tag/ (Java Paimon adds the tag's creation time).
  testing::TempDir dir;
  const std::string t = CopyTable(dir, "pk_mor_parquet");
  std::string json = testing::ReadFileToString(t + "/snapshot/snapshot-2");
  json.insert(json.rfind('}'), ", \"tagCreateTime\" : [ 2026, 12, 5, 22, 0, 0 ]");
  fs::create_directories(t + "/tag");
  testing::WriteStringToFile(t + "/tag/tag-release-1", json);
  OpenTableOptions o;
  o.tag = "release-1";
  auto rows = ScanCsv(t, o);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, Expected("pk_mor_parquet__snapshot2.csv"));
  auto snap = OpenTable(t, o);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->version, 2);
  o.tag = "release-2";
  auto missing = OpenTable(t, o);
  EXPECT_TRUE(missing.status().Is(StatusCode::kNotFound)) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("tag 'release-2' does not exist"), std::string::npos);
  o.tag = "release-1";
  o.snapshot_id = 2;
  EXPECT_TRUE(OpenTable(t, o).status().Is(StatusCode::kInvalidArgument));
  // Not a Paimon table: the tag is refused, not ignored.
  o = OpenTableOptions{};
  o.tag = "release-1";
  auto other = OpenTable(t + "/f1=10", o);
  EXPECT_TRUE(other.status().Is(StatusCode::kInvalidArgument)) << other.status().ToString();
}

TEST(PaimonTable, DeletionVectorModeReadsLevelsAboveZeroWithoutAMerge) {
  // With deletion vectors a batch read skips level 0 (Paimon's batchScanSkipLevel0) and reads the
  // level >= 1 files without a merge, their vectors applied (this snapshot has no index manifest).
  testing::TempDir dir;
  const std::string t = CopyTable(dir, "pk_mor_parquet");
  std::string schema = testing::ReadFileToString(t + "/schema/schema-0");
  schema.replace(schema.find("\"bucket\" :"), 0, "\"deletion-vectors.enabled\" : \"true\",");
  testing::WriteStringToFile(t + "/schema/schema-0", schema);
  auto rows = ScanCsv(t);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 5u);
  auto snap = OpenTable(t);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->files.size(), 2u);
  for (const DataFile& f : snap->files) EXPECT_FALSE(f.format_deletes) << f.path;
}

// One Paimon deletion-vector index file: the version byte, then per vector a u32 BE size, the magic
// 1581511376 (BE), a portable 32-bit Roaring bitmap and a u32 BE CRC-32 of magic and bitmap. The
// bytes of the vector of rows {2, 5} as pypaimon wrote it.
const std::string kDvFile = std::string("\x01", 1) +
                            std::string("\x00\x00\x00\x18" "\x5e\x43\xf2\xd0" "\x3a\x30\x00\x00" "\x01\x00\x00\x00"
                                        "\x00\x00\x01\x00" "\x10\x00\x00\x00" "\x02\x00\x05\x00" "\x9e\xc2\x51\xbb",
                                        32);

Result<std::vector<uint64_t>> ParseDv(const std::string& file, int64_t offset = 1, int64_t length = 24,
                                      std::optional<int64_t> cardinality = 2) {
  paimon::DeletionVectorRange r{"data-0.parquet", offset, length, cardinality};
  return paimon::ParseDeletionVector(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(file.data()), file.size()),
                                     r, 1000, "index-0");
}

TEST(PaimonTable, DeletionVectorFile) {
  auto rows = ParseDv(kDvFile);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<uint64_t>{2, 5}));
  EXPECT_TRUE(ParseDv(kDvFile, 1, 24, std::nullopt).ok());
  // More rows than the data file has: refused before they are held.
  const paimon::DeletionVectorRange one{"data-0.parquet", 1, 24, 2};
  auto capped = paimon::ParseDeletionVector(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(kDvFile.data()), kDvFile.size()), one, 1, "index-0");
  EXPECT_TRUE(capped.status().Is(StatusCode::kResourceExhausted)) << capped.status().ToString();
  // What does not hold is Corrupt (NotSupported: another version), naming the index file, the data
  // file and the byte offset.
  struct Case {
    std::string file;
    int64_t offset, length;
    std::optional<int64_t> cardinality;
    StatusCode code;
    std::string named;
  };
  std::string crc = kDvFile, magic = kDvFile, cookie = kDvFile, version = kDvFile;
  crc[crc.size() - 1] ^= 1;
  magic[6] ^= 1;
  cookie[9] = 0x7f;
  version[0] = 2;
  // The size says 28: the bitmap would run 4 bytes into the CRC (and its own CRC past the file).
  std::string longer = kDvFile;
  longer[4] = 0x1c;
  longer += std::string("\0\0\0\0", 4);
  for (const Case& c : std::vector<Case>{
           {crc, 1, 24, 2, StatusCode::kCorrupt, "CRC-32 mismatch at byte offset 29"},
           {magic, 1, 24, 2, StatusCode::kCorrupt, "CRC-32"},
           {kDvFile, 1, 24, 3, StatusCode::kCorrupt, "holds 2 rows, the index manifest says 3"},
           {kDvFile, 1, 20, 2, StatusCode::kCorrupt, "the size at byte offset 1 is 24, the index manifest says 20"},
           {kDvFile, 9, 24, 2, StatusCode::kCorrupt, "past the file's 33 bytes"},
           {kDvFile, 0, 24, 2, StatusCode::kCorrupt, "byte offset 0"},
           {version, 1, 24, 2, StatusCode::kNotSupported, "version 2 at byte offset 0"},
           {std::string(), 1, 24, 2, StatusCode::kCorrupt, "no version byte"},
       }) {
    auto r = ParseDv(c.file, c.offset, c.length, c.cardinality);
    ASSERT_FALSE(r.ok()) << c.named;
    EXPECT_TRUE(r.status().Is(c.code)) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.named), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find("index-0"), std::string::npos) << r.status().ToString();
  }
  // A malformed bitmap with a right CRC: the roaring parser names its offset.
  auto fix_crc = [](std::string f) {
    const uint32_t c = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(f.data() + 5), 24));
    for (int i = 0; i < 4; ++i) f[29 + i] = static_cast<char>((c >> (24 - 8 * i)) & 0xff);
    return f;
  };
  auto r = ParseDv(fix_crc(cookie));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bitmap at byte offset 9"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("cookie"), std::string::npos) << r.status().ToString();
  std::string bad_magic = kDvFile;
  bad_magic[5] = 0x11;
  r = ParseDv(fix_crc(bad_magic));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at byte offset 5"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("magic"), std::string::npos) << r.status().ToString();
}

TEST(PaimonTable, DeletionVector64BitLayout) {
  // deletion-vectors.bitmap64: the magic 1681511377 little-endian and a RoaringBitmapArray (the
  // layout of Iceberg's and Delta's vectors; this one made by rap's serializer, not by Paimon).
  const std::vector<uint64_t> rows = {0, 7, 70000, (uint64_t{1} << 32) + 3};
  const std::string bitmap = SerializeRoaringBitmapArray(rows);
  std::string file("\x01", 1);
  for (int i = 0; i < 4; ++i) file += static_cast<char>((bitmap.size() >> (24 - 8 * i)) & 0xff);
  file += bitmap;
  const uint32_t c = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(bitmap.data()),
                                                 static_cast<uInt>(bitmap.size())));
  for (int i = 0; i < 4; ++i) file += static_cast<char>((c >> (24 - 8 * i)) & 0xff);
  auto got = ParseDv(file, 1, static_cast<int64_t>(bitmap.size()), 4);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, rows);
}

TEST(PaimonTable, IndexManifestEntries) {
  using avro::Kind;
  using avro::Value;
  auto field = [](Value* rec, const std::string& name, Value v) {
    rec->names.push_back(name);
    rec->items.push_back(std::move(v));
  };
  auto integer = [](int64_t x) {
    Value v;
    v.kind = Kind::kLong;
    v.integer = x;
    return v;
  };
  auto text = [](const std::string& s) {
    Value v;
    v.kind = Kind::kString;
    v.bytes = s;
    return v;
  };
  auto entry = [&](int64_t kind, const std::string& name, int64_t offset) {
    Value e;
    e.kind = Kind::kRecord;
    field(&e, "_KIND", integer(kind));
    field(&e, "_PARTITION", text(std::string(12, '\0')));
    field(&e, "_BUCKET", integer(0));
    field(&e, "_INDEX_TYPE", text("DELETION_VECTORS"));
    field(&e, "_FILE_NAME", text(name));
    field(&e, "_FILE_SIZE", integer(33));
    field(&e, "_ROW_COUNT", integer(1));
    Value ranges;
    ranges.kind = Kind::kArray;
    Value r;
    r.kind = Kind::kRecord;
    field(&r, "f0", text("data-0.parquet"));
    field(&r, "f1", integer(offset));
    field(&r, "f2", integer(24));
    field(&r, "_CARDINALITY", integer(2));
    ranges.items.push_back(r);
    field(&e, "_DELETIONS_VECTORS_RANGES", ranges);
    return e;
  };
  auto parsed = paimon::ParseIndexManifest({entry(0, "index-a-0", 1), entry(1, "index-b-0", 1)}, "im");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].file_name, "index-a-0");
  EXPECT_EQ((*parsed)[1].kind, 1);
  ASSERT_EQ((*parsed)[0].deletion_vectors.size(), 1u);
  EXPECT_EQ((*parsed)[0].deletion_vectors[0].data_file, "data-0.parquet");
  EXPECT_EQ((*parsed)[0].deletion_vectors[0].cardinality, 2);
  for (const auto& [bad, named] : std::vector<std::pair<Value, std::string>>{
           {entry(2, "index-a-0", 1), "_KIND 2"},
           {entry(0, "../index-a-0", 1), "is not a file name"},
           {entry(0, "index-a-0", -4), "offset -4"}}) {
    auto r = paimon::ParseIndexManifest({bad}, "im");
    ASSERT_FALSE(r.ok()) << named;
    EXPECT_TRUE(r.status().Is(StatusCode::kCorrupt)) << r.status().ToString();
    EXPECT_NE(r.status().message().find(named), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find("im: entry 0"), std::string::npos) << r.status().ToString();
  }
}

TEST(PaimonTable, LatestHintThatLagsAndIsMissing) {
  testing::TempDir dir;
  const std::string t = CopyTable(dir, "pk_mor_parquet");
  testing::WriteStringToFile(t + "/snapshot/LATEST", "3");  // a hint behind the last commit
  auto snap = OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, 5);
  fs::remove(t + "/snapshot/LATEST");
  snap = OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, 5);
}

TEST(PaimonTable, MalformedMetadataIsAnErrorNamingTheFile) {
  testing::TempDir dir;
  const std::string t = CopyTable(dir, "pk_mor_parquet");
  testing::WriteStringToFile(t + "/snapshot/snapshot-5", "{\"id\": 5}");
  auto snap = OpenTable(t);
  ASSERT_FALSE(snap.ok());
  EXPECT_TRUE(snap.status().Is(StatusCode::kCorrupt)) << snap.status().ToString();
  EXPECT_NE(snap.status().message().find("snapshot-5"), std::string::npos) << snap.status().ToString();

  const std::string u = CopyTable(dir, "append_orc");
  // The manifests of the latest snapshot: a truncated ORC manifest list.
  const std::string list = u + "/manifest/manifest-list-f2d59cb8-3ec6-4860-b34b-050b1a533416-3";
  const std::string bytes = testing::ReadFileToString(list);
  testing::WriteStringToFile(list, bytes.substr(0, bytes.size() / 2));
  snap = OpenTable(u);
  ASSERT_FALSE(snap.ok());
  EXPECT_NE(snap.status().message().find("manifest-list-f2d59cb8-3ec6-4860-b34b-050b1a533416-3"), std::string::npos)
      << snap.status().ToString();
  testing::WriteStringToFile(list, "not a manifest");
  snap = OpenTable(u);
  ASSERT_FALSE(snap.ok());
  EXPECT_TRUE(snap.status().Is(StatusCode::kCorrupt)) << snap.status().ToString();
}

TEST(PaimonTable, BinaryRowDecoding) {
  // f1 = 10 as Paimon serializes a partition (arity 1, header and null bits, one 8-byte slot).
  const std::string ten("\x00\x00\x00\x01" "\x00\x00\x00\x00\x00\x00\x00\x00" "\x0a\x00\x00\x00\x00\x00\x00\x00", 20);
  auto row = paimon::DecodeBinaryRow(ten, {"INT"}, "p");
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  ASSERT_EQ(row->size(), 1u);
  EXPECT_EQ(std::get<int64_t>((*row)[0]), 10);
  // A string inline (<= 7 bytes, 0x80 | length in the last byte) and one out of line, and a null.
  std::string two("\x00\x00\x00\x03", 4);
  two += std::string("\x00\x04\x00\x00\x00\x00\x00\x00", 8);  // bit 8 + 2 = field 2 null
  two += std::string("Alex\x00\x00\x00\x84", 8);
  const uint64_t off = 8 + 3 * 8, len = 9;
  for (int b = 0; b < 8; ++b) two += static_cast<char>((((off << 32) | len) >> (8 * b)) & 0xff);
  two += std::string(8, '\0');
  two += "Alexander";
  row = paimon::DecodeBinaryRow(two, {"STRING", "VARCHAR", "BIGINT"}, "p");
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(std::get<std::string>((*row)[0]), "Alex");
  EXPECT_EQ(std::get<std::string>((*row)[1]), "Alexander");
  EXPECT_TRUE(std::holds_alternative<std::monostate>((*row)[2]));
  // Out of bounds and wrong arity are Corrupt, an undecoded type NotSupported.
  auto bad = paimon::DecodeBinaryRow(two.substr(0, two.size() - 3), {"STRING", "VARCHAR", "BIGINT"}, "p");
  EXPECT_TRUE(bad.status().Is(StatusCode::kCorrupt)) << bad.status().ToString();
  EXPECT_TRUE(paimon::DecodeBinaryRow(ten, {"INT", "INT"}, "p").status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(paimon::DecodeBinaryRow(ten, {"DECIMAL"}, "p").status().Is(StatusCode::kNotSupported));
}

}  // namespace
}  // namespace rap::table
