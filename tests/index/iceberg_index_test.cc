// The RAP index on Iceberg tables written by other projects' writers (../shared/iceberg-tables: Spark
// deletion vectors, Hive position delete files, Iceberg Java equality deletes, a copy-on-write
// delete): `BuildIndex` at each table version (the metadata files v1, v2, ... in turn, through the
// version hint) and `UpdateIndex` from each version to the next; after every step the lookup of
// every key the table ever held equals a scan of the same snapshot (deleted rows never returned),
// and the manifest records the snapshot id. docs/iceberg.md, docs/index-format.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/maintenance.h"
#include "rap/index/rewrite.h"
#include "rap/read/file_reader.h"
#include "rap/table/iceberg_commit.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/iceberg_hint.h"
#include "table/iceberg/iceberg_manifest.h"
#include "table/iceberg/iceberg_table.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

using KeyText = std::vector<std::string>;
using Rows = std::map<KeyText, std::vector<std::string>>;

struct Scanned {
  int64_t snapshot = -1;
  std::vector<std::string> columns;
  Rows rows;  // sorted row texts per key (rows with a NULL key part are left out, as the index does)
  int64_t total = 0;
};

// A scan of the table's current snapshot: every row, grouped by the key columns.
Result<Scanned> ScanByKey(const std::string& url, const std::vector<std::string>& key,
                          const table::OpenTableOptions& to = {}) {
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(url, to));
  Scanned out;
  out.snapshot = snap.version;
  for (const Field& f : snap.schema->fields) out.columns.push_back(f.name);
  RAP_ASSIGN_OR_RETURN(read::ScanSource source, table::ToScanSource(snap));
  read::ScanOptions so;
  so.columns = out.columns;
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), so));
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    const RecordBatch& batch = b->batch;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      KeyText k;
      bool null = false;
      for (const std::string& name : key) {
        const ArrayData& a = *batch.columns[static_cast<size_t>(batch.schema->FieldIndex(name))];
        null = null || a.IsNull(r);
        k.push_back(FormatValue(a, r));
      }
      if (!null) {
        out.rows[k].push_back(rap::testing::RowText(batch, r));
        ++out.total;
      }
    }
  }
  for (auto& [k, v] : out.rows) std::sort(v.begin(), v.end());
  return out;
}

// Every key of `keys` looks up exactly the scan's rows of it.
void ExpectLookupsEqualScan(const std::string& url, const std::set<KeyText>& keys,
                            const Scanned& ref) {
  auto idx = Index::Open(url);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  EXPECT_EQ((*idx)->info().table_version, ref.snapshot);
  std::vector<Key> parsed;
  for (const KeyText& k : keys) {
    auto p = (*idx)->ParseKey(k);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    parsed.push_back(*p);
  }
  LookupOptions lo;
  lo.columns = ref.columns;
  auto res = (*idx)->Lookup(parsed, lo);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_EQ(res->keys.size(), keys.size());
  int64_t rows = 0;
  size_t i = 0;
  for (const KeyText& k : keys) {
    auto got = rap::testing::ResultRows(res->keys[i++]);
    std::sort(got.begin(), got.end());
    auto it = ref.rows.find(k);
    EXPECT_EQ(got, it == ref.rows.end() ? std::vector<std::string>{} : it->second) << "key " << k[0];
    rows += static_cast<int64_t>(got.size());
  }
  EXPECT_EQ(rows, ref.total);
}

// The table's metadata versions (vN.metadata.json), ascending.
std::vector<int> MetadataVersions(const std::string& table) {
  std::vector<int> out;
  for (const auto& e : fs::directory_iterator(table + "/metadata")) {
    const std::string n = e.path().filename().string();
    if (n.size() > 15 && n[0] == 'v' && n.ends_with(".metadata.json")) out.push_back(std::stoi(n.substr(1)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void PointHintAt(const std::string& table, int version) { rap::testing::PointIcebergAt(table, version); }

struct Case {
  std::string folder;
  std::vector<std::string> key;
  int buckets = 1;
  int updates = 1;  // at least this many update steps
};

// Builds at the first version that has rows and updates through every later one, checking each.
void BuildAndFollow(const Case& c) {
  SCOPED_TRACE(c.folder);
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/" + c.folder, t, fs::copy_options::recursive);
  std::set<KeyText> keys;  // every key any version held (deleted keys included), and one never held
  std::vector<std::pair<int, Scanned>> versions;
  for (int v : MetadataVersions(t)) {
    PointHintAt(t, v);
    auto s = ScanByKey(t, c.key);
    if (!s.ok()) continue;  // duckdb's mytable has one version whose manifest list is missing (README)
    for (const auto& [k, rows] : s->rows) keys.insert(k);
    versions.push_back({v, std::move(*s)});
  }
  ASSERT_GE(versions.size(), 2u);
  KeyText absent;
  for (size_t i = 0; i < c.key.size(); ++i) absent.push_back("-987654");
  keys.insert(absent);
  bool built = false;
  int steps = 0;
  for (const auto& [v, ref] : versions) {
    SCOPED_TRACE("metadata v" + std::to_string(v));
    PointHintAt(t, v);
    if (!built) {
      if (ref.rows.empty()) continue;  // nothing to index yet
      BuildOptions o;
      o.key_columns = c.key;
      o.buckets = c.buckets;
      auto b = BuildIndex(t, o);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      EXPECT_EQ(b->manifest.table_kind, "iceberg");
      EXPECT_EQ(b->manifest.table_version, ref.snapshot);
      built = true;
    } else {
      auto u = UpdateIndex(DefaultIndexUrl(t), {});
      ASSERT_TRUE(u.ok()) << u.status().ToString();
      EXPECT_EQ(u->manifest.table_version, ref.snapshot);
      ++steps;
    }
    ExpectLookupsEqualScan(t, keys, ref);
  }
  EXPECT_GE(steps, c.updates);
  // Compaction keeps the results.
  auto compacted = CompactIndex(DefaultIndexUrl(t), {});
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ExpectLookupsEqualScan(t, keys, versions.back().second);
}

TEST(IcebergIndex, DeletionVectorsOfSpark) { BuildAndFollow({"impala_v3_deletion_vectors", {"i"}}); }

TEST(IcebergIndex, PositionDeleteFiles) {
  BuildAndFollow({"impala_v2_pos_deletes_parquet", {"i"}, 2});
  BuildAndFollow({"impala_v2_pos_deletes_parquet", {"s"}});
}

TEST(IcebergIndex, EqualityDeleteFiles) {
  BuildAndFollow({"duckdb_equality_deletes/mytable", {"id"}});
  BuildAndFollow({"duckdb_equality_deletes/mytable_partitioned", {"id"}, 3});
}

TEST(IcebergIndex, CopyOnWriteDeleteRemovesAFile) {
  BuildAndFollow({"duckdb_lineitem_v2", {"l_orderkey"}, 4});
}

TEST(IcebergIndex, VersionOnePartitionedTable) {
  BuildAndFollow({"impala_v1_hour_identity_partitioned", {"id"}, 2, /*updates=*/0});
}

// `rap index build --snapshot ID --location-map OLD=NEW` and `rap index update --location-map`: the
// Spark DV table with its data and Puffin files moved to another folder of the table (only the map
// finds them; out of the table folder the build is refused: TableFormatCli), indexed at its first snapshot (5 rows) and then updated to the current one (3 rows).
TEST(IcebergIndex, PinnedSnapshotAndLocationMap) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v3_deletion_vectors", t, fs::copy_options::recursive);
  fs::create_directories(t + "/elsewhere");
  fs::rename(t + "/data", t + "/elsewhere/data");
  const int64_t first = 2700858159721908397, current = 3685752423136077685;
  IndexTableOptions mapped;
  mapped.location_map = {{"hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors/data", t + "/elsewhere/data"}};
  table::OpenTableOptions scan_first, scan_current;
  scan_first.snapshot_id = first;
  scan_first.location_map = scan_current.location_map = mapped.location_map;
  auto at_first = ScanByKey(t, {"i"}, scan_first);
  auto at_current = ScanByKey(t, {"i"}, scan_current);
  ASSERT_TRUE(at_first.ok()) << at_first.status().ToString();
  ASSERT_TRUE(at_current.ok()) << at_current.status().ToString();
  ASSERT_EQ(at_first->total, 5);
  ASSERT_EQ(at_current->total, 3);
  std::set<KeyText> keys;
  for (int i = 0; i <= 6; ++i) keys.insert({std::to_string(i)});

  BuildOptions o;
  o.key_columns = {"i"};
  auto unmapped = BuildIndex(t, o);  // the metadata's location is the table folder, which lacks data/
  ASSERT_FALSE(unmapped.ok());
  EXPECT_EQ(unmapped.status().code(), StatusCode::kNotFound) << unmapped.status().ToString();

  o.table = mapped;
  o.table.snapshot_id = first;
  auto b = BuildIndex(t, o);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->manifest.table_version, first);
  ExpectLookupsEqualScan(t, keys, *at_first);

  UpdateOptions u;
  u.table = mapped;
  auto updated = UpdateIndex(DefaultIndexUrl(t), u);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_TRUE(updated->changed);
  EXPECT_EQ(updated->manifest.table_version, current);
  EXPECT_EQ(updated->deletion_vectors_changed, 2);
  ExpectLookupsEqualScan(t, keys, *at_current);

  // Pinned to the snapshot it indexes: nothing to do.
  u.table.snapshot_id = current;
  auto same = UpdateIndex(DefaultIndexUrl(t), u);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_FALSE(same->changed);

  // A snapshot that does not exist, and a snapshot or map for a folder of Parquet files.
  u.table.snapshot_id = 12345;
  auto missing = UpdateIndex(DefaultIndexUrl(t), u);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
  BuildOptions folder;
  folder.key_columns = {"i"};
  folder.index_url = dir.Join("folder_index");
  folder.table.snapshot_id = first;
  auto s = BuildIndex(t + "/elsewhere/data", folder);
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << s.status().ToString();
  folder.table = mapped;
  s = BuildIndex(t + "/elsewhere/data", folder);
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << s.status().ToString();
}

// A copy of the shared Iceberg table `folder` under `dir` (its path in out->table), scanned by `key`
// (out->before, `rows` rows), then rewritten in place into 2 buckets by that key (out->result).
struct InPlaceRun {
  std::string table;
  Scanned before;
  RewriteResult result;
};
void RewriteSharedTableInPlace(const rap::testing::TempDir& dir, const std::string& folder, const std::string& key,
                               int64_t rows, InPlaceRun* out) {
  out->table = dir.Join("t");
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/" + folder, out->table, fs::copy_options::recursive);
  auto before = ScanByKey(out->table, {key});
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_EQ(before->total, rows);
  out->before = std::move(*before);
  RewriteOptions o;
  o.key_columns = {key};
  o.buckets = 2;
  o.in_place = true;
  auto r = RewriteTable(out->table, "", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  out->result = std::move(*r);
}

// `rap rewrite --in-place` of an Iceberg v2 table (Hive's position delete files): a replace snapshot
// in v8.metadata.json (its version hint following) whose data files are rap's only, read with the rows of the snapshot before it;
// the index published with it looks every key up as that scan gives it.
TEST(IcebergRewrite, InPlaceReplaceSnapshotKeepsTheRows) {
  rap::testing::TempDir dir;
  InPlaceRun run;
  ASSERT_NO_FATAL_FAILURE(RewriteSharedTableInPlace(dir, "impala_v2_pos_deletes_parquet", "i", 6, &run));
  const std::string& t = run.table;
  const Scanned* before = &run.before;
  const RewriteResult* r = &run.result;
  EXPECT_EQ(r->table_format, "iceberg");
  EXPECT_EQ(MetadataVersions(t).back(), 8);
  EXPECT_EQ(rap::testing::ReadFileToString(t + "/metadata/version-hint.txt"), "8");
  auto snap = table::OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, r->table_version);
  ASSERT_EQ(snap->files.size(), 2u);
  for (const table::DataFile& f : snap->files) {
    EXPECT_NE(f.relative_path.find("data/part-"), std::string::npos) << f.relative_path;
    EXPECT_FALSE(f.format_deletes) << f.relative_path;  // the delete files left with the old files
  }
  auto after = ScanByKey(t, {"i"});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->rows, before->rows);
  EXPECT_EQ(after->snapshot, r->table_version);
  std::set<KeyText> keys;
  for (const auto& [k, rows] : before->rows) keys.insert(k);
  keys.insert({"-987654"});
  keys.insert({"4"});
  ExpectLookupsEqualScan(t, keys, *after);
}

// A commit that lands while the rewrite runs (another writer's v8) wins: the rewrite fails with
// Changed, and its data files, manifest and manifest list are gone again; the table reads as that
// writer left it. A time-travel snapshot is refused before anything is written.
TEST(IcebergRewrite, ConcurrentCommitWinsAndNothingIsLeft) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v2_pos_deletes_parquet", t,
           fs::copy_options::recursive);
  auto before = ScanByKey(t, {"i"});
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  auto listing = [&](const std::string& sub) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(t + "/" + sub)) names.insert(e.path().filename().string());
    return names;
  };
  const auto data_before = listing("data");
  auto metadata_before = listing("metadata");
  RewriteOptions o;
  o.key_columns = {"i"};
  o.in_place = true;
  o.before_commit = [&] { fs::copy_file(t + "/metadata/v7.metadata.json", t + "/metadata/v8.metadata.json"); };
  auto r = RewriteTable(t, "", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kChanged) << r.status().ToString();
  EXPECT_EQ(listing("data"), data_before);
  metadata_before.insert("v8.metadata.json");
  EXPECT_EQ(listing("metadata"), metadata_before);
  auto after = ScanByKey(t, {"i"});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->rows, before->rows);

  RewriteOptions old = o;
  old.before_commit = nullptr;
  PointHintAt(t, 4);
  auto snap4 = table::OpenTable(t);
  ASSERT_TRUE(snap4.ok());
  PointHintAt(t, 8);
  table::OpenTableOptions at;
  at.snapshot_id = snap4->version;
  // (RewriteTable opens the current snapshot; the check itself refuses an older one.)
  auto older = table::OpenTable(t, at);
  ASSERT_TRUE(older.ok()) << older.status().ToString();
  const Status refused = table::iceberg::CheckReplace(*older, t);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
}

// The columns `columns` of a data file of `snap`, read from the file itself (no table schema).
Result<std::vector<RecordBatch>> FileBatches(const table::TableSnapshot& snap, const table::DataFile& f,
                                             const std::vector<std::string>& columns) {
  RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(snap.store, f.path));
  RAP_ASSIGN_OR_RETURN(read::Projection proj, reader->Project(columns));
  return reader->ReadAll(std::nullopt, proj);
}

// A partitioned table (Impala's v1 table: hour(event_time) + identity(action), 20 one-row files in 3
// partitions) rewritten in place: the rows kept, every key's lookup equal to the scan; each new file
// holds one partition's rows and its manifest entry carries that partition's tuple (hour and action
// of each of its rows, computed here); the manifest list summarises the tuples.
TEST(IcebergRewrite, PartitionedInPlaceFilesCarryTheirPartitionTuples) {
  rap::testing::TempDir dir;
  InPlaceRun run;
  ASSERT_NO_FATAL_FAILURE(RewriteSharedTableInPlace(dir, "impala_v1_hour_identity_partitioned", "user", 20, &run));
  const std::string& t = run.table;
  const Scanned* before = &run.before;
  const RewriteResult* r = &run.result;
  EXPECT_EQ(MetadataVersions(t).back(), 3);
  auto snap = table::OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, r->table_version);
  auto state = std::dynamic_pointer_cast<const table::iceberg::IcebergState>(snap->format_state);
  ASSERT_TRUE(state);
  // hour(2020-01-01 08:00 UTC) = 438296 hours since the epoch.
  const std::set<std::pair<int64_t, std::string>> partitions = {
      {438296, "view"}, {438297, "click"}, {438298, "download"}};
  std::set<std::pair<int64_t, std::string>> seen;
  int64_t rows = 0;
  for (const table::DataFile& f : snap->files) {
    SCOPED_TRACE(f.relative_path);
    EXPECT_EQ(f.relative_path.rfind("data/p0000", 0), 0u);
    const table::iceberg::FilePartition& p = state->partitions.at(f.path);
    EXPECT_EQ(p.spec_id, 0);
    ASSERT_EQ(p.values.size(), 2u);
    ASSERT_EQ(p.values[0].kind, avro::Kind::kInt);
    ASSERT_EQ(p.values[1].kind, avro::Kind::kString);
    const std::pair<int64_t, std::string> tuple = {p.values[0].integer, p.values[1].bytes};
    seen.insert(tuple);
    auto batches = FileBatches(*snap, f, {"event_time", "action"});
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    for (const RecordBatch& batch : *batches) {
      const ArrayData& event_time = *batch.columns[static_cast<size_t>(batch.schema->FieldIndex("event_time"))];
      const ArrayData& action = *batch.columns[static_cast<size_t>(batch.schema->FieldIndex("action"))];
      for (int64_t i = 0; i < batch.num_rows; ++i) {
        const int64_t micros = event_time.values<int64_t>()[i];
        const int64_t hour = micros / 3600000000 - (micros % 3600000000 < 0 ? 1 : 0);
        EXPECT_EQ(std::make_pair(hour, FormatValue(action, i)), tuple) << "row " << i;
        ++rows;
      }
    }
  }
  EXPECT_EQ(rows, 20);
  EXPECT_EQ(seen, partitions);
  // The manifest list: the added manifest (spec 0) summarises hours [438296, 438298] and actions
  // ["click", "view"], without NULLs.
  auto meta = table::iceberg::ParseTableMetadata(state->metadata_json, "metadata");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  std::string list_name;
  for (const table::iceberg::Snapshot& s : meta->snapshots) {
    if (s.snapshot_id == snap->version) list_name = s.manifest_list.substr(s.manifest_list.rfind('/') + 1);
  }
  const std::string list = rap::testing::ReadFileToString(t + "/metadata/" + list_name);
  auto manifests = table::iceberg::ParseManifestList(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(list.data()), list.size()), list_name);
  ASSERT_TRUE(manifests.ok()) << manifests.status().ToString();
  auto le32 = [](uint32_t v) {  // the single-value serialization of an int
    return std::string{char(v & 0xff), char(v >> 8 & 0xff), char(v >> 16 & 0xff), char(v >> 24)};
  };
  int added = 0;
  for (const table::iceberg::ManifestFile& m : *manifests) {
    if (m.path.find("-rap-") == std::string::npos || m.path.find("-m0.avro") == std::string::npos) continue;
    ++added;
    EXPECT_EQ(m.spec_id, 0);
    ASSERT_EQ(m.partitions.size(), 2u);
    EXPECT_FALSE(m.partitions[0].contains_null);
    EXPECT_EQ(m.partitions[0].lower, le32(438296));
    EXPECT_EQ(m.partitions[0].upper, le32(438298));
    EXPECT_FALSE(m.partitions[1].contains_null);
    EXPECT_EQ(m.partitions[1].lower, std::string("click"));
    EXPECT_EQ(m.partitions[1].upper, std::string("view"));
  }
  EXPECT_EQ(added, 1);
  auto after = ScanByKey(t, {"user"});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->rows, before->rows);
  std::set<KeyText> keys;
  for (const auto& [k, v] : before->rows) keys.insert(k);
  keys.insert({"Nobody"});
  ExpectLookupsEqualScan(t, keys, *after);
}

// Identity partitions with equality deletes (DuckDB's committed table, Iceberg Java's deletes): the
// partitions whose every row is deleted write no file; each new file's tuple is the name of each of its
// rows; no delete file is left; the rows and every key's lookup are the scan's.
TEST(IcebergRewrite, PartitionedWithEqualityDeletesKeepsOnlyLivePartitions) {
  rap::testing::TempDir dir;
  InPlaceRun run;
  ASSERT_NO_FATAL_FAILURE(RewriteSharedTableInPlace(dir, "duckdb_equality_deletes/mytable_partitioned", "id", 3, &run));
  const std::string& t = run.table;
  const Scanned* before = &run.before;
  const RewriteResult* r = &run.result;
  auto snap = table::OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->version, r->table_version);
  auto state = std::dynamic_pointer_cast<const table::iceberg::IcebergState>(snap->format_state);
  ASSERT_TRUE(state);
  std::set<std::string> names;
  for (const table::DataFile& f : snap->files) {
    SCOPED_TRACE(f.relative_path);
    EXPECT_FALSE(f.format_deletes);
    const table::iceberg::FilePartition& p = state->partitions.at(f.path);
    ASSERT_EQ(p.values.size(), 1u);
    ASSERT_EQ(p.values[0].kind, avro::Kind::kString);
    names.insert(p.values[0].bytes);
    auto batches = FileBatches(*snap, f, {"name"});
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    for (const RecordBatch& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) EXPECT_EQ(FormatValue(*b.columns[0], i), p.values[0].bytes);
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"a", "d", "e"}));
  auto after = ScanByKey(t, {"id"});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->rows, before->rows);
  ExpectLookupsEqualScan(t, {{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}}, *after);
}

}  // namespace
}  // namespace rap::index
