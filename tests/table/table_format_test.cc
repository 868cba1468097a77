// rap-test-labels: network
// The table-format seam (rap/table/table_format.h): a table of a format rap does not read yet
// (Hudi) is refused with NotSupported naming the format and what marks it, on local
// paths, file:// URLs and s3:// prefixes (rap-netsim), instead of being scanned as a folder of its
// Parquet files; look-alike folders stay folders; Delta tables are found through the same seam, and
// Paimon tables (also under an S3 prefix) are read.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/io/object_store.h"
#include "rap/table/file_listing.h"
#include "rap/table/pending_write.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/table/table_format.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"
#include "testing/unread_tables.h"

namespace rap::table {
namespace {

namespace fs = std::filesystem;

void ExpectRefused(const std::string& url, const std::string& format, const std::string& marker) {
  SCOPED_TRACE(url);
  auto snap = OpenTable(url);
  ASSERT_FALSE(snap.ok()) << "opened as a table of " << snap->files.size() << " files";
  EXPECT_TRUE(snap.status().Is(StatusCode::kNotSupported)) << snap.status().ToString();
  const std::string& m = snap.status().message();
  EXPECT_NE(m.find(url + ": this is a"), std::string::npos) << m;
  EXPECT_NE(m.find(format + " table (it has " + marker), std::string::npos) << m;
  EXPECT_NE(m.find("rap does not read " + format + " tables yet"), std::string::npos) << m;
  // A version asked for changes nothing: the format is named, not "not a Delta table".
  OpenTableOptions o;
  o.version = 1;
  auto at = OpenTable(url, o);
  ASSERT_FALSE(at.ok());
  EXPECT_TRUE(at.status().Is(StatusCode::kNotSupported)) << at.status().ToString();
}

TEST(TableFormat, SharedPaimonAndIcebergTablesAreRead) {
  for (const std::string& prefix : {std::string(), std::string("file://")}) {
    auto iceberg = OpenTable(prefix + rap::testing::IcebergTableDir());
    ASSERT_TRUE(iceberg.ok()) << iceberg.status().ToString();
    EXPECT_EQ(FormatName(*iceberg), "iceberg");
    auto paimon = OpenTable(prefix + rap::testing::PaimonTableDir());
    ASSERT_TRUE(paimon.ok()) << paimon.status().ToString();
    EXPECT_EQ(FormatName(*paimon), "paimon");
    EXPECT_EQ(paimon->files.size(), 6u);  // the live files of snapshot 5, not the folder's 8
  }
}

TEST(TableFormat, HudiTableIsRefusedAndWithoutItsFolderIsAFolder) {
  rap::testing::TempDir dir;
  rap::testing::MakeHudiTable(dir.Join("t"));
  ExpectRefused(dir.Join("t"), "Hudi", ".hoodie/hoodie.properties");
  // The same files without .hoodie/ are a folder of one Parquet file.
  fs::remove_all(dir.Join("t/.hoodie"));
  auto snap = OpenTable(dir.Join("t"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->kind, TableKind::kDirectory);
  EXPECT_EQ(snap->format, nullptr);
  EXPECT_EQ(FormatName(*snap), "directory");
  EXPECT_EQ(snap->files.size(), 1u);
}

TEST(TableFormat, LookAlikeFoldersStayFolders) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::create_directories(t + "/metadata");
  fs::create_directories(t + "/snapshot");
  rap::testing::WriteStringToFile(t + "/metadata/notes.json", "{}");        // not *.metadata.json
  rap::testing::WriteStringToFile(t + "/metadata.json", "{}");              // not under metadata/
  rap::testing::WriteStringToFile(t + "/snapshot/snapshot-x", "{}");        // not snapshot-<n>
  rap::testing::WriteStringToFile(t + "/snapshot/EARLIEST", "1");           // not LATEST
  rap::testing::WriteStringToFile(t + "/.hoodie", "");                      // a file, not a folder
  fs::copy_file(rap::testing::ParquetTestingData() + "/alltypes_plain.parquet", t + "/part-0.parquet");
  auto snap = OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->kind, TableKind::kDirectory);
  EXPECT_EQ(snap->files.size(), 1u);
  // One marker more makes it a Paimon table (whose snapshot file is malformed here): never a folder.
  rap::testing::WriteStringToFile(t + "/snapshot/snapshot-12", "{}");
  auto paimon = OpenTable(t);
  ASSERT_FALSE(paimon.ok()) << "opened as a table of " << paimon->files.size() << " files";
  EXPECT_TRUE(paimon.status().Is(StatusCode::kCorrupt)) << paimon.status().ToString();
  EXPECT_NE(paimon.status().message().find("snapshot/snapshot-12"), std::string::npos) << paimon.status().ToString();
}

TEST(TableFormat, DeltaTablesGoThroughTheSeam) {
  const std::string url = rap::testing::SharedDir() + "/delta-tables/delta-0.8.0-partitioned";
  auto resolved = io::OpenUrl(url);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  TableProbe probe(url, resolved->store, resolved->path);
  auto format = DetectTableFormat(probe);
  ASSERT_TRUE(format.ok()) << format.status().ToString();
  ASSERT_NE(*format, nullptr);
  EXPECT_EQ((*format)->name(), "delta");
  auto snap = OpenTable(url);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->format, *format);
  EXPECT_EQ(FormatName(*snap), "delta");
  ASSERT_FALSE(snap->files.empty());
  auto deleted = DeletedRows(*snap, snap->files[0]);  // no deletion vectors in this table
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(deleted->empty());
  // The formats in the order OpenTable asks them: Delta first (a Delta table with Iceberg metadata
  // beside its log, as Delta UniForm writes, is read as Delta).
  ASSERT_EQ(TableFormats().size(), 5u);
  EXPECT_EQ(TableFormats()[0]->name(), "delta");
  EXPECT_EQ(TableFormats().back()->name(), "pending-write");  // asked last: a committed table is itself
}

// A new table whose writer has begun and not committed (rap/table/pending_write.h): refused, never a
// folder of the files written so far; a committed Delta table with a leftover marker reads as Delta.
TEST(TableFormat, PendingWriteIsNoTableYet) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::create_directories(t);
  fs::copy_file(rap::testing::ParquetTestingData() + "/alltypes_plain.parquet", t + "/part-0.parquet");
  auto store = io::OpenUrl(t);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE(BeginPendingWrite(*store->store, store->path, "test", "tok").ok());
  auto snap = OpenTable(t);
  ASSERT_FALSE(snap.ok()) << "opened as a table of " << snap->files.size() << " files";
  EXPECT_TRUE(snap.status().Is(StatusCode::kNotFound)) << snap.status().ToString();
  EXPECT_NE(snap.status().message().find("no table yet"), std::string::npos) << snap.status().ToString();
  // A second writer of the same new table.
  EXPECT_TRUE(BeginPendingWrite(*store->store, store->path, "test", "tok2").Is(StatusCode::kChanged));
  ASSERT_TRUE(EndPendingWrite(*store->store, store->path).ok());
  auto folder = OpenTable(t);
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  EXPECT_EQ(folder->files.size(), 1u);
  // A Delta table with a marker left by a writer killed after its commit.
  const std::string d = dir.Join("d");
  fs::copy(rap::testing::SharedDir() + "/delta-tables/delta-0.8.0-partitioned", d, fs::copy_options::recursive);
  auto dstore = io::OpenUrl(d);
  ASSERT_TRUE(dstore.ok());
  ASSERT_TRUE(BeginPendingWrite(*dstore->store, dstore->path, "test", "tok").ok());
  auto delta = OpenTable(d);
  ASSERT_TRUE(delta.ok()) << delta.status().ToString();
  EXPECT_EQ(FormatName(*delta), "delta");
}

TEST(TableFormat, DeltaTableWithIcebergMetadataIsReadAsDelta) {
  rap::testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(rap::testing::SharedDir() + "/delta-tables/delta-0.8.0-partitioned", t, fs::copy_options::recursive);
  fs::create_directories(t + "/metadata");
  rap::testing::WriteStringToFile(t + "/metadata/v1.metadata.json", "{}");
  auto snap = OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->kind, TableKind::kDelta);
}

TEST(TableFormat, S3PrefixesAreRefused) {
  rap::testing::TempDir dir;
  // bkt/ is rap-netsim's bucket.
  const std::vector<rap::testing::UnreadTable> tables = rap::testing::MakeUnreadTables(dir.Join("bkt"));
  rap::testing::NetsimOptions o;
  o.root = dir.path();
  auto server = rap::testing::NetsimServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  rap::testing::NetsimS3Env s3_env((*server)->url());
  const std::vector<std::string> markers = {".hoodie/hoodie.properties"};
  ASSERT_EQ(tables.size(), markers.size());
  for (size_t i = 0; i < tables.size(); ++i) {
    ExpectRefused("s3://bkt/" + tables[i].folder, tables[i].format, markers[i]);
    ExpectRefused("s3://bkt/" + tables[i].folder + "/", tables[i].format, markers[i]);
  }
  // A Paimon table under an S3 prefix is read: its live files, merged on read.
  fs::copy(rap::testing::PaimonTableDir(), dir.Join("bkt/paimon"), fs::copy_options::recursive);
  for (const std::string url : {"s3://bkt/paimon", "s3://bkt/paimon/"}) {
    SCOPED_TRACE(url);
    auto snap = OpenTable(url);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ(FormatName(*snap), "paimon");
    EXPECT_EQ(snap->files.size(), 6u);
    auto src = ToScanSource(*snap);
    ASSERT_TRUE(src.ok()) << src.status().ToString();
    size_t deleted = 0;
    for (const read::ScanFile& f : src->files) {
      if (!f.deleted_rows_loader) continue;  // the bucket merged when a scan reaches it
      auto rows = f.deleted_rows_loader();
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      deleted += rows->size();
    }
    EXPECT_EQ(deleted, 5u);  // 16 rows in the live files, 11 in the table
  }
}

}  // namespace
}  // namespace rap::table
