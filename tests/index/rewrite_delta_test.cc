// `rap rewrite` writing Delta tables (docs/layouts.md "rap rewrite"): a new table (version 0 with
// protocol, metaData and add actions with stats) and --in-place (a new version of the same table:
// removes + adds with dataChange=false). rap's Delta reader and DuckDB (reading the data files the
// log lists; the delta extension is not available offline) read the same rows as the input; the
// index built in the same pass points at the new files; a concurrent commit of the same version
// makes the rewrite fail with kChanged and leaves no new data file and no new index version.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "rap/index/index.h"
#include "rap/index/rewrite.h"
#include "rap/table/delta_commit.h"
#include "rap/table/table.h"
#include "testing/duckdb_run.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int64_t kKeySpace = 90;

std::vector<json> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

class RewriteDeltaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    in_ = dir_.Join("in");
    rap::testing::IndexTableOptions o;
    o.files = 2;
    o.rows = 700;
    o.key_space = kKeySpace;
    std::vector<std::string> paths;
    for (const std::string& n : rap::testing::WriteIndexTable(in_, o)) paths.push_back(in_ + "/" + n);
    auto bf = rap::testing::BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    input_ = std::move(*bf);
  }
  RewriteOptions Options(RewriteLayout layout) {
    RewriteOptions o;
    o.key_columns = {"k"};
    o.layout = layout;
    o.buckets = 2;
    return o;
  }
  // rap's Delta reader: the table's live files, and their rows equal the input's (per key, as multisets).
  table::TableSnapshot CheckTable(const std::string& url, int64_t version) {
    auto snap = table::OpenTable(url);
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    if (!snap.ok()) return {};
    EXPECT_EQ(snap->kind, table::TableKind::kDelta);
    EXPECT_EQ(snap->version, version);
    std::vector<std::string> paths;
    for (const table::DataFile& f : snap->files) paths.push_back(url + "/" + f.relative_path);
    auto bf = rap::testing::BruteForce::Load(paths);
    EXPECT_TRUE(bf.ok()) << bf.status().ToString();
    if (!bf.ok()) return *snap;
    const std::vector<std::string> cols{"k", "s", "g", "v", "name", "b", "tags"};
    for (int64_t k = 0; k < kKeySpace; ++k) {
      auto want = input_.Rows({"k"}, {std::to_string(k)}, cols), got = bf->Rows({"k"}, {std::to_string(k)}, cols);
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want) << url << " key " << k;
    }
    return *snap;
  }
  // The table's index answers lookups with the input's rows, reading the files of `files`.
  void CheckIndex(const std::string& url, const std::vector<std::string>& files, int64_t version) {
    auto idx = Index::Open(url);
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    EXPECT_EQ((*idx)->info().table_kind, "delta");
    EXPECT_EQ((*idx)->info().table_version, version);
    EXPECT_EQ((*idx)->info().files, static_cast<int64_t>(files.size()));
    for (int64_t k : {0, 7, 44, 89}) {
      auto key = *(*idx)->ParseKey({std::to_string(k)});
      LookupOptions lo;
      lo.columns = {"v", "name"};
      auto res = (*idx)->Lookup({&key, 1}, lo);
      ASSERT_TRUE(res.ok()) << res.status().ToString();
      auto want = input_.Rows({"k"}, {std::to_string(k)}, {"k", "v", "name"});
      auto got = rap::testing::ResultRows(res->keys[0]);
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want) << "key " << k;
    }
  }
  rap::testing::TempDir dir_;
  std::string in_;
  rap::testing::BruteForce input_;
};

TEST_F(RewriteDeltaTest, NewTableIsDeltaVersionZeroReadByRapAndDuckDb) {
  const std::string out = dir_.Join("out");
  auto r = RewriteTable(in_, out, Options(RewriteLayout::kInterleaved));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->table_version, 0);
  const auto actions = ReadLines(out + "/_delta_log/00000000000000000000.json");
  int adds = 0;
  bool protocol = false, metadata = false;
  for (const json& a : actions) {
    if (a.contains("protocol")) {
      protocol = true;
      EXPECT_EQ(a["protocol"]["minReaderVersion"], 1);
    }
    if (a.contains("metaData")) {
      metadata = true;
      EXPECT_EQ(a["metaData"]["format"]["provider"], "parquet");
      EXPECT_NE(a["metaData"]["schemaString"].get<std::string>().find("\"name\":\"tags\""), std::string::npos);
    }
    if (a.contains("add")) {
      ++adds;
      const json& f = a["add"];
      EXPECT_TRUE(f["dataChange"].get<bool>());
      EXPECT_EQ(f["size"].get<int64_t>(), static_cast<int64_t>(fs::file_size(out + "/" + f["path"].get<std::string>())));
      EXPECT_GT(f["modificationTime"].get<int64_t>(), 0);
      const json st = json::parse(f["stats"].get<std::string>());
      EXPECT_GT(st["numRecords"].get<int64_t>(), 0);
      EXPECT_LE(st["minValues"]["k"].get<int64_t>(), st["maxValues"]["k"].get<int64_t>());
      EXPECT_TRUE(st["nullCount"].contains("v"));
    }
  }
  EXPECT_TRUE(protocol && metadata);
  EXPECT_EQ(adds, static_cast<int>(r->files.size()));
  auto snap = CheckTable(out, 0);
  CheckIndex(out, r->files, 0);
  // Stats drive rap's file skipping: a filter on k reads one bucket's file and finds the rows.
  // DuckDB reads the files the log lists (delta_scan is not available offline).
  if (const std::string why = rap::testing::DuckDbMissing(); !why.empty()) GTEST_SKIP() << why;
  std::string list;
  for (const table::DataFile& f : snap.files) list += (list.empty() ? "'" : ", '") + out + "/" + f.relative_path + "'";
  auto duck = rap::testing::RunDuckDb(
      {"SELECT k::BIGINT AS k, count(*)::BIGINT AS n, count(v)::BIGINT AS nv, count(name)::BIGINT AS nn FROM read_parquet([" +
       list + "]) GROUP BY k ORDER BY k"});
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  ASSERT_EQ(duck->size(), static_cast<size_t>(kKeySpace));
  for (const json& row : *duck) {
    const std::string k = row["k"].get<std::string>();
    auto rows = input_.Rows({"k"}, {k}, {"v", "name"});
    EXPECT_EQ(row["n"].get<std::string>(), std::to_string(rows.size())) << "key " << k;
    size_t nv = 0, nn = 0;
    for (const std::string& line : rows) {
      nv += line.rfind("null|", 0) != 0;
      nn += line.size() < 5 || line.substr(line.size() - 5) != "null|";
    }
    EXPECT_EQ(row["nv"].get<std::string>(), std::to_string(nv)) << "key " << k;
    EXPECT_EQ(row["nn"].get<std::string>(), std::to_string(nn)) << "key " << k;
  }
}

TEST_F(RewriteDeltaTest, InPlaceIsANewVersionWithRemovesAndAdds) {
  const std::string t = dir_.Join("t");
  auto first = RewriteTable(in_, t, Options(RewriteLayout::kSorted));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  RewriteOptions o = Options(RewriteLayout::kFramePerKey);
  o.in_place = true;
  o.buckets = 3;
  auto r = RewriteTable(t, "", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->table_version, 1);
  const auto actions = ReadLines(t + "/_delta_log/00000000000000000001.json");
  std::set<std::string> removed, added;
  for (const json& a : actions) {
    EXPECT_FALSE(a.contains("metaData") || a.contains("protocol"));
    if (a.contains("remove")) {
      EXPECT_FALSE(a["remove"]["dataChange"].get<bool>());
      removed.insert(a["remove"]["path"].get<std::string>());
    }
    if (a.contains("add")) {
      EXPECT_FALSE(a["add"]["dataChange"].get<bool>());
      added.insert(a["add"]["path"].get<std::string>());
    }
  }
  EXPECT_EQ(removed, std::set<std::string>(first->files.begin(), first->files.end()));
  EXPECT_EQ(added, std::set<std::string>(r->files.begin(), r->files.end()));
  EXPECT_EQ(added.size(), 3u);
  auto snap = CheckTable(t, 1);
  std::set<std::string> live;
  for (const table::DataFile& f : snap.files) live.insert(f.relative_path);
  EXPECT_EQ(live, added);
  CheckIndex(t, r->files, 1);
  // Version 0 still reads as it was (time travel), from the old files.
  auto v0 = table::OpenTable(t, {.version = 0});
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  EXPECT_EQ(v0->files.size(), first->files.size());
}

// --in-place --layout blob changes the schema: the commit holds the table's metaData (same id) with
// the new schema, and removes + adds with dataChange=true; lookups decode the input's rows.
TEST_F(RewriteDeltaTest, InPlaceBlobIsASchemaChange) {
  const std::string t = dir_.Join("t");
  auto first = RewriteTable(in_, t, Options(RewriteLayout::kSorted));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::string id;
  for (const json& a : ReadLines(t + "/_delta_log/00000000000000000000.json")) {
    if (a.contains("metaData")) id = a["metaData"]["id"].get<std::string>();
  }
  RewriteOptions o = Options(RewriteLayout::kBlob);
  o.in_place = true;
  auto r = RewriteTable(t, "", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->table_version, 1);
  int metadata = 0, removes = 0, adds = 0;
  for (const json& a : ReadLines(t + "/_delta_log/00000000000000000001.json")) {
    if (a.contains("metaData")) {
      ++metadata;
      EXPECT_EQ(a["metaData"]["id"].get<std::string>(), id);
      const json schema = json::parse(a["metaData"]["schemaString"].get<std::string>());
      ASSERT_EQ(schema["fields"].size(), 2u);
      EXPECT_EQ(schema["fields"][0]["name"], "k");
      EXPECT_EQ(schema["fields"][1]["name"], "blob");
    }
    if (a.contains("remove")) removes += a["remove"]["dataChange"].get<bool>();
    if (a.contains("add")) adds += a["add"]["dataChange"].get<bool>();
  }
  EXPECT_EQ(metadata, 1);
  EXPECT_EQ(removes, static_cast<int>(first->files.size()));
  EXPECT_EQ(adds, static_cast<int>(r->files.size()));
  auto snap = table::OpenTable(t);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->schema->fields.size(), 2u);
  CheckIndex(t, r->files, 1);  // v and name decoded from the blob
}

TEST_F(RewriteDeltaTest, ConcurrentCommitFailsCleanly) {
  const std::string t = dir_.Join("t");
  auto first = RewriteTable(in_, t, Options(RewriteLayout::kSorted));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto before = Index::Open(t);
  ASSERT_TRUE(before.ok());
  const int64_t index_version = (*before)->info().manifest_version;
  auto index_files = [&] {
    std::set<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(t + "/_rap_index")) {
      if (e.is_regular_file()) files.insert(fs::relative(e.path(), t).string());
    }
    return files;
  };
  const std::set<std::string> index_before = index_files();
  RewriteOptions o = Options(RewriteLayout::kInterleaved);
  o.in_place = true;
  o.before_commit = [&] {  // another writer commits version 1 first
    std::ofstream(t + "/_delta_log/00000000000000000001.json")
        << R"({"commitInfo":{"timestamp":1,"operation":"WRITE"}})" << "\n";
  };
  auto r = RewriteTable(t, "", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kChanged) << r.status().ToString();
  EXPECT_NE(r.status().message().find("another writer"), std::string::npos) << r.status().ToString();
  // No new data file is left in the table root, the other writer's commit stands, and the index
  // was not republished.
  std::set<std::string> data;
  for (const auto& e : fs::directory_iterator(t)) {
    if (e.is_regular_file()) data.insert(e.path().filename().string());
  }
  EXPECT_EQ(data, std::set<std::string>(first->files.begin(), first->files.end()));
  CheckTable(t, 1);
  auto after = Index::Open(t);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->info().manifest_version, index_version);
  // The fragments the failed rewrite staged are deleted again; the published schema files stay.
  EXPECT_EQ(index_files(), index_before);
}

// A partitioned input (Hive folders here): the partition values become an ordinary column of the
// bucketed output, every row equal to its input row plus its folder's value. --in-place on a
// partitioned Delta table is refused (the bucketed files are not partitioned).
TEST_F(RewriteDeltaTest, PartitionedInputKeepsItsValuesAsAColumn) {
  const std::string hive = dir_.Join("hive");
  std::map<std::string, rap::testing::BruteForce> parts;
  for (const std::string part : {"a", "b"}) {
    rap::testing::IndexTableOptions o;
    o.files = 1;
    o.rows = 400;
    o.key_space = kKeySpace;
    o.seed = part == "a" ? 5 : 6;
    const std::string d = hive + "/p=" + part;
    std::vector<std::string> paths;
    for (const std::string& n : rap::testing::WriteIndexTable(d, o)) paths.push_back(d + "/" + n);
    auto bf = rap::testing::BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    parts.emplace(part, std::move(*bf));
  }
  const std::string out = dir_.Join("out");
  auto r = RewriteTable(hive, out, Options(RewriteLayout::kFramePerKey));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto snap = table::OpenTable(out);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_TRUE(snap->partition_columns.empty());
  std::vector<std::string> paths;
  for (const table::DataFile& f : snap->files) paths.push_back(out + "/" + f.relative_path);
  auto got_bf = rap::testing::BruteForce::Load(paths);
  ASSERT_TRUE(got_bf.ok()) << got_bf.status().ToString();
  ASSERT_EQ(got_bf->schema()->fields.back().name, "p");
  auto idx = Index::Open(out);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  for (int64_t k = 0; k < kKeySpace; ++k) {
    const std::string key = std::to_string(k);
    std::vector<std::string> want;
    for (const auto& [part, bf] : parts) {
      for (const std::string& line : bf.Rows({"k"}, {key}, {"k", "v", "name"})) want.push_back(line + part + "|");
    }
    auto got = got_bf->Rows({"k"}, {key}, {"k", "v", "name", "p"});
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << "key " << k;
    auto pk = *(*idx)->ParseKey({key});
    LookupOptions lo;
    lo.columns = {"v", "name", "p"};
    auto res = (*idx)->Lookup({&pk, 1}, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    auto looked = rap::testing::ResultRows(res->keys[0]);
    std::sort(looked.begin(), looked.end());
    EXPECT_EQ(looked, want) << "key " << k;
  }
  // A partitioned Delta table (one file, partition p), rewritten in place: refused before any write.
  const std::string t = dir_.Join("pdelta");
  fs::create_directories(t + "/_delta_log");
  fs::create_directories(t + "/p=a");
  fs::copy_file(hive + "/p=a/" + fs::directory_iterator(hive + "/p=a")->path().filename().string(), t + "/p=a/f.parquet");
  const std::string schema =
      R"({\"type\":\"struct\",\"fields\":[{\"name\":\"k\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]})";
  std::ofstream(t + "/_delta_log/00000000000000000000.json")
      << R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})" << "\n"
      << R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":")" << schema
      << R"(","partitionColumns":["p"],"configuration":{},"createdTime":1}})" << "\n"
      << R"({"add":{"path":"p=a/f.parquet","partitionValues":{"p":"a"},"size":)" << fs::file_size(t + "/p=a/f.parquet")
      << R"(,"modificationTime":1,"dataChange":true}})" << "\n";
  RewriteOptions o = Options(RewriteLayout::kSorted);
  o.in_place = true;
  auto in_place = RewriteTable(t, "", o);
  ASSERT_FALSE(in_place.ok());
  EXPECT_EQ(in_place.status().code(), StatusCode::kNotSupported) << in_place.status().ToString();
  EXPECT_NE(in_place.status().message().find("partitioned"), std::string::npos) << in_place.status().ToString();
  o.in_place = false;
  auto fresh = RewriteTable(t, dir_.Join("from_delta"), o);  // a new table from it works
  EXPECT_TRUE(fresh.ok()) << fresh.status().ToString();
}

TEST_F(RewriteDeltaTest, RefusalsAndFolderOutput) {
  RewriteOptions o = Options(RewriteLayout::kSorted);
  o.in_place = true;
  auto r = RewriteTable(in_, "", o);  // a folder of Parquet, not Delta
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  o.in_place = false;
  o.delta = false;
  auto folder = RewriteTable(in_, dir_.Join("plain"), o);
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  EXPECT_EQ(folder->table_version, -1);
  EXPECT_FALSE(fs::exists(dir_.Join("plain/_delta_log")));
  // A type with no Delta equivalent fails before anything is written.
  Schema s;
  s.fields = {{"u", MakeType(TypeId::kUInt32), true}};
  bool ntz = false;
  EXPECT_EQ(table::DeltaSchemaString(s, &ntz).status().code(), StatusCode::kNotSupported);
  table::DeltaProtocol p;
  p.min_writer_version = 7;
  p.writer_features = {"rowTracking"};
  EXPECT_EQ(table::CheckWriterSupport(p, "t").code(), StatusCode::kNotSupported);
}

}  // namespace
}  // namespace rap::index
