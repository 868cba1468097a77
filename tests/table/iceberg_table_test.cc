// Iceberg tables (src/table/iceberg/) read through the table seam and the Scanner, every value
// compared with the rows the writers' own engines give (../shared/iceberg-tables/_expected/*.csv):
// position delete files, equality delete files (sequence-number and partition rules), Puffin
// deletion vectors, v1 metadata with hour + identity partitions, a copy-on-write overwrite; the
// documented historical snapshots; metadata discovery; the location map; malformed metadata.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <tuple>

#include "rap/columnar/array_format.h"
#include "rap/read/scanner.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/table/table_format.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

namespace fs = std::filesystem;

std::string Ice(const std::string& rel) { return testing::SharedDir() + "/iceberg-tables/" + rel; }

// The table's rows as CSV lines (header first, then the rows sorted), values as rap renders them.
Result<std::vector<std::string>> ScanCsv(const std::string& url, const OpenTableOptions& o = {},
                                         const std::string& where = "") {
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url, o));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  read::ScanOptions so;
  if (!where.empty()) {
    RAP_ASSIGN_OR_RETURN(so.filter, read::ParseExpr(where));
  }
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
        line += (c ? "," : "") + columnar::FormatValue(*batch->batch.columns[c], i);
      }
      rows.push_back(line);
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.insert(rows.begin(), header);
  return rows;
}

// An expected CSV (../shared/iceberg-tables/_expected), rows sorted; "+00:00" times as rap prints them.
std::vector<std::string> Expected(const std::string& name) {
  std::istringstream in(testing::ReadFileToString(Ice("_expected/" + name)));
  std::vector<std::string> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const size_t tz = line.find(":00+00:00");
    if (tz != std::string::npos) line.replace(tz, 9, ":00.000000Z");
    rows.push_back(line);
  }
  if (!rows.empty()) std::sort(rows.begin() + 1, rows.end());
  return rows;
}

TEST(IcebergTable, CurrentSnapshotsGiveTheWritersRows) {
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"impala_v2_pos_deletes_parquet", "impala_v2_pos_deletes_parquet.csv"},
      {"impala_v3_deletion_vectors", "impala_v3_deletion_vectors.csv"},
      {"impala_v1_hour_identity_partitioned", "impala_v1_hour_identity_partitioned.csv"},
      {"duckdb_equality_deletes/mytable", "duckdb_equality_deletes__mytable.csv"},
      {"duckdb_equality_deletes/mytable_partitioned", "duckdb_equality_deletes__mytable_partitioned.csv"}};
  for (const auto& [table, csv] : tables) {
    SCOPED_TRACE(table);
    auto rows = ScanCsv(Ice(table));
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, Expected(csv));
  }
}

TEST(IcebergTable, PositionDeletesAreNotASilentWrongAnswer) {
  // Its Parquet files hold 14 rows (data and delete files); the table has 6.
  auto snap = OpenTable(Ice("impala_v2_pos_deletes_parquet"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(FormatName(*snap), "iceberg");
  EXPECT_EQ(snap->version, 1497619269847778439);
  EXPECT_EQ(snap->files.size(), 4u);  // data files only
  int with_deletes = 0;
  for (const DataFile& f : snap->files) {
    auto deleted = DeletedRows(*snap, f);
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    with_deletes += !deleted->empty();
  }
  EXPECT_EQ(with_deletes, 2);  // not every data file has deletes
  auto rows = ScanCsv(Ice("impala_v2_pos_deletes_parquet"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 7u);
}

TEST(IcebergTable, HistoricalSnapshots) {
  OpenTableOptions o;
  o.snapshot_id = 7490459762454857930;
  auto ten = ScanCsv(Ice("impala_v2_pos_deletes_parquet"), o);
  ASSERT_TRUE(ten.ok()) << ten.status().ToString();
  // Before the overwrites: 10 rows, among them the (5,e) a later position delete removes.
  EXPECT_EQ(ten->size(), 11u);
  EXPECT_NE(std::find(ten->begin(), ten->end(), "5,e"), ten->end());
  o.snapshot_id = 752781918366351945;
  auto nine = ScanCsv(Ice("impala_v2_pos_deletes_parquet"), o);
  ASSERT_TRUE(nine.ok()) << nine.status().ToString();
  EXPECT_EQ(nine->size(), 10u);
  o.snapshot_id = 2700858159721908397;
  auto five = ScanCsv(Ice("impala_v3_deletion_vectors"), o);
  ASSERT_TRUE(five.ok()) << five.status().ToString();
  EXPECT_EQ(*five, (std::vector<std::string>{"i", "1", "2", "3", "4", "5"}));
  // As of the first snapshot's commit time: the same 5 rows; before any snapshot: NotFound.
  OpenTableOptions at;
  at.as_of_ms = 1770903464282;
  auto as_of = ScanCsv(Ice("impala_v3_deletion_vectors"), at);
  ASSERT_TRUE(as_of.ok()) << as_of.status().ToString();
  EXPECT_EQ(*as_of, *five);
  at.as_of_ms = 1000;
  EXPECT_TRUE(OpenTable(Ice("impala_v3_deletion_vectors"), at).status().Is(StatusCode::kNotFound));
  OpenTableOptions missing;
  missing.snapshot_id = 42;
  EXPECT_TRUE(OpenTable(Ice("impala_v3_deletion_vectors"), missing).status().Is(StatusCode::kNotFound));
  OpenTableOptions delta_version;
  delta_version.version = 1;
  EXPECT_TRUE(OpenTable(Ice("impala_v3_deletion_vectors"), delta_version).status().Is(StatusCode::kInvalidArgument));
}

TEST(IcebergTable, CopyOnWriteOverwriteAndDecimals) {
  auto snap = OpenTable(Ice("duckdb_lineitem_v2"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  int64_t live = 0;
  for (const DataFile& f : snap->files) live += f.num_records.value_or(0);
  EXPECT_EQ(live, 51793);
  OpenTableOptions o;
  o.snapshot_id = 7817332053627255703;
  auto before = OpenTable(Ice("duckdb_lineitem_v2"), o);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  int64_t all = 0;
  for (const DataFile& f : before->files) all += f.num_records.value_or(0);
  EXPECT_EQ(all, 60175);
  // TPC-H Q6 on the current snapshot: revenue 1077536.9101 (PySpark, the table's README).
  auto rows = ScanCsv(Ice("duckdb_lineitem_v2"), {},
                      "l_shipdate >= '1994-01-01' AND l_shipdate < '1995-01-01' AND l_discount >= 0.05 AND "
                      "l_discount <= 0.07 AND l_quantity < 24");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const std::vector<std::string> header = [&] {
    std::vector<std::string> h;
    std::stringstream ss((*rows)[0]);
    std::string x;
    while (std::getline(ss, x, ',')) h.push_back(x);
    return h;
  }();
  const size_t price = std::find(header.begin(), header.end(), "l_extendedprice") - header.begin();
  const size_t discount = std::find(header.begin(), header.end(), "l_discount") - header.begin();
  ASSERT_LT(price, header.size());
  __int128 revenue = 0;  // in 1/10000
  for (size_t r = 1; r < rows->size(); ++r) {
    std::vector<std::string> v;
    std::stringstream ss((*rows)[r]);
    std::string x;
    while (std::getline(ss, x, ',')) v.push_back(x);
    auto cents = [](const std::string& s) {
      const size_t dot = s.find('.');
      return std::stoll(s.substr(0, dot)) * 100 + std::stoll(s.substr(dot + 1));
    };
    revenue += static_cast<__int128>(cents(v[price])) * cents(v[discount]);
  }
  EXPECT_EQ(static_cast<int64_t>(revenue), 10775369101);
}

TEST(IcebergTable, MetadataDiscoveryAndLocationMap) {
  // A URL naming the metadata file; the version hint named version-hint.txt; the newest by listing.
  auto direct = ScanCsv(Ice("impala_v3_deletion_vectors/metadata/v3.metadata.json"));
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(*direct, Expected("impala_v3_deletion_vectors.csv"));
  testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(Ice("impala_v2_pos_deletes_parquet"), t, fs::copy_options::recursive);
  fs::remove(t + "/metadata/version-hint.txt");
  auto listed = ScanCsv(t);  // v7 is the newest by listing
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  auto listed_snap = OpenTable(t);
  ASSERT_TRUE(listed_snap.ok()) << listed_snap.status().ToString();
  const int64_t listed_version = listed_snap->version;
  EXPECT_EQ(*listed, Expected("impala_v2_pos_deletes_parquet.csv"));
  // A hint behind the newest version: the versions after it are taken (v6, then v7), as Iceberg's
  // file-system tables do (a writer creates vN+1 before it rewrites the hint, and may stop between).
  testing::WriteStringToFile(t + "/metadata/version-hint.text", "6\n");
  auto lagging = OpenTable(t);
  ASSERT_TRUE(lagging.ok()) << lagging.status().ToString();
  EXPECT_EQ(lagging->version, listed_version);
  // The hint wins over the listing: with v6 missing, a hint of 5 reads v5, though v7 is listed.
  fs::rename(t + "/metadata/v6.metadata.json", t + "/metadata/v6.metadata.json.away");
  testing::WriteStringToFile(t + "/metadata/version-hint.text", "5\n");
  auto hinted = OpenTable(t);
  ASSERT_TRUE(hinted.ok()) << hinted.status().ToString();
  EXPECT_NE(hinted->version, listed_version);
  // An explicit location map: the table's files moved into another folder.
  OpenTableOptions o;
  o.location_map = {{"hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors",
                     Ice("impala_v3_deletion_vectors")}};
  auto mapped = ScanCsv(Ice("impala_v3_deletion_vectors"), o);
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ(*mapped, Expected("impala_v3_deletion_vectors.csv"));
  EXPECT_TRUE(iceberg::ParseLocationMapping("no-equals").status().Is(StatusCode::kInvalidArgument));
  auto ms = iceberg::ParseAsOf("2026-02-12 13:37:44.282");
  ASSERT_TRUE(ms.ok()) << ms.status().ToString();
  EXPECT_EQ(*ms, 1770903464282);
  EXPECT_FALSE(iceberg::ParseAsOf("2026-13-01").ok());
  // A year past four digits would overflow the milliseconds (found by the server_config fuzz smoke).
  EXPECT_FALSE(iceberg::ParseAsOf("-195599052118080-01-01").ok());
  EXPECT_FALSE(iceberg::ParseAsOf("195599052118080-01-01").ok());
  EXPECT_FALSE(iceberg::ParseAsOf(" -300000000-01-01").ok());
  EXPECT_FALSE(iceberg::ParseAsOf("1000000-01-01").ok());
  EXPECT_EQ(*iceberg::ParseAsOf("2026-02-12T14:37:44.282+01:00"), 1770903464282);
  auto y0 = iceberg::ParseAsOf("0000-01-01");
  ASSERT_TRUE(y0.ok()) << y0.status().ToString();
  EXPECT_EQ(*y0, -62167219200000);
}

// --where prunes data files by the manifests' column bounds before opening them, as Delta's stats do.
TEST(IcebergTable, ColumnBoundsPruneFiles) {
  for (const auto& [where, rows, pruned] : {std::tuple{std::string("id = 5"), 1, 19},
                                            std::tuple{std::string("user = 'Lisa'"), 6, 14},
                                            std::tuple{std::string("event_time >= '2020-01-01 09:30:00Z'"), 6, 14}}) {
    SCOPED_TRACE(where);
    auto snap = OpenTable(Ice("impala_v1_hour_identity_partitioned"));
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    auto src = ToScanSource(*snap);
    ASSERT_TRUE(src.ok()) << src.status().ToString();
    read::ScanOptions so;
    auto filter = read::ParseExpr(where);
    ASSERT_TRUE(filter.ok()) << filter.status().ToString();
    so.filter = *filter;
    auto scanner = read::Scanner::Make(std::move(*src), so);
    ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
    int64_t n = 0;
    while (true) {
      auto batch = (*scanner)->Next();
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (!*batch) break;
      n += (*batch)->batch.num_rows;
    }
    EXPECT_EQ(n, rows);
    EXPECT_EQ((*scanner)->stats().files_pruned_by_stats, pruned);
  }
}

TEST(IcebergTable, MalformedMetadataGivesClearErrors) {
  testing::TempDir dir;
  const std::string t = dir.Join("t");
  fs::copy(Ice("impala_v3_deletion_vectors"), t, fs::copy_options::recursive);
  testing::WriteStringToFile(t + "/metadata/v3.metadata.json", "{\"format-version\": 3");
  auto bad_json = OpenTable(t);
  ASSERT_FALSE(bad_json.ok());
  EXPECT_TRUE(bad_json.status().Is(StatusCode::kCorrupt)) << bad_json.status().ToString();
  EXPECT_NE(bad_json.status().message().find("v3.metadata.json"), std::string::npos);
  testing::WriteStringToFile(t + "/metadata/v3.metadata.json",
                             "{\"format-version\": 2, \"location\": \"x\", \"schemas\": [{\"schema-id\": 0, \"fields\": "
                             "[{\"id\": 1, \"name\": \"v\", \"required\": false, \"type\": \"variant\"}]}]}");
  auto variant = OpenTable(t);
  EXPECT_TRUE(variant.status().Is(StatusCode::kNotSupported)) << variant.status().ToString();
  // A manifest list cut short: Corrupt naming the file and a byte offset.
  fs::copy(Ice("impala_v3_deletion_vectors/metadata/v3.metadata.json"), t + "/metadata/v3.metadata.json",
           fs::copy_options::overwrite_existing);
  const std::string list =
      t + "/metadata/snap-3685752423136077685-1-e9787b6c-e745-4040-b78f-e4012aa178ab.avro";
  const std::string bytes = testing::ReadFileToString(list);
  testing::WriteStringToFile(list, bytes.substr(0, bytes.size() - 20));
  auto cut = OpenTable(t);
  ASSERT_FALSE(cut.ok());
  EXPECT_TRUE(cut.status().Is(StatusCode::kCorrupt)) << cut.status().ToString();
  EXPECT_NE(cut.status().message().find("snap-3685752423136077685"), std::string::npos) << cut.status().ToString();
  EXPECT_NE(cut.status().message().find("byte offset"), std::string::npos) << cut.status().ToString();
}

}  // namespace
}  // namespace rap::table
