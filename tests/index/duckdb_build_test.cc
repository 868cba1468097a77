// An index built with DuckDB SQL alone (fragments from read_parquet(..., filename, file_row_number),
// the bucket from md5 as docs/index-format.md gives it) plus a hand-written manifest: rap looks keys
// up in it with the same results as in its own build and as a brute-force scan.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/duckdb_run.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

TEST(DuckDbBuiltIndex, LookupsEqualRapsOwnBuild) {
  const std::string missing = rap::testing::DuckDbMissing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions opts;
  opts.files = 3;
  opts.rows = 2000;
  opts.key_space = 250;
  auto names = rap::testing::WriteIndexTable(root, opts);
  const int buckets = 3;
  const std::string idx_dir = dir.Join("duck_index");
  fs::create_directories(idx_dir + "/fragments");

  std::string files_list, ordinals;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string p = root + "/" + names[i];
    files_list += (i ? ", '" : "'") + p + "'";
    ordinals += (i ? ", ('" : "('") + p + "', " + std::to_string(i) + ")";
  }
  Manifest m;
  m.version = 1;
  m.table_root = root;
  m.key = {{"s", KeyType::kString}};
  m.buckets = buckets;
  for (size_t i = 0; i < names.size(); ++i) {
    FileEntry f;
    f.ordinal = static_cast<int32_t>(i);
    f.path = names[i];
    f.size = fs::file_size(root + "/" + names[i]);
    f.num_rows = opts.rows;
    m.files.push_back(f);
  }
  for (int b = 0; b < buckets; ++b) {
    const std::string frag = "fragments/b" + std::to_string(b) + ".parquet";
    const std::string rows_sql =
        "WITH ords(filename, ord) AS (VALUES " + ordinals + "), "
        "rows AS (SELECT s AS k, ord AS file, file_row_number AS r FROM read_parquet([" + files_list +
        "], filename = true, file_row_number = true) JOIN ords USING (filename) WHERE s IS NOT NULL AND "
        "(('0x' || substr(md5(CAST(s AS VARCHAR)), 1, 15))::BIGINT % " + std::to_string(buckets) + ") = " +
        std::to_string(b) + "), "
        "runs AS (SELECT k, file, r, r - row_number() OVER (PARTITION BY k, file ORDER BY r) AS g FROM rows) "
        "SELECT k AS key0, CAST(file AS INTEGER) AS file, CAST(min(r) AS BIGINT) AS first_row, "
        "CAST(count(*) AS BIGINT) AS num_rows FROM runs GROUP BY k, file, g ORDER BY key0, file, first_row";
    auto r = rap::testing::RunDuckDb(
        {"COPY (" + rows_sql + ") TO '" + idx_dir + "/" + frag + "' (FORMAT parquet)",
         "SELECT count(*) AS n, sum(num_rows) AS rows, min(key0) AS lo, max(key0) AS hi FROM read_parquet('" +
             idx_dir + "/" + frag + "')"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const auto& row = (*r)[0];
    FragmentEntry fe;
    fe.path = frag;
    fe.bucket = b;
    fe.run = 1;
    auto num = [](const nlohmann::json& v) { return v.is_string() ? std::stoll(v.get<std::string>()) : v.get<int64_t>(); };
    fe.entries = num(row["n"]);
    fe.rows = num(row["rows"]);
    fe.size = fs::file_size(idx_dir + "/" + frag);
    fe.min_key.parts = {KeyPart{0, row["lo"].get<std::string>()}};
    fe.max_key.parts = {KeyPart{0, row["hi"].get<std::string>()}};
    fe.files = {{0, static_cast<int32_t>(names.size())}};
    m.fragments.push_back(fe);
  }
  auto store = io::OpenUrl(idx_dir);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(PublishManifest(*store->store, store->path, m).ok());

  BuildOptions o;
  o.key_columns = {"s"};
  o.buckets = buckets;
  ASSERT_TRUE(BuildIndex(root, o).ok());
  auto duck = Index::Open(idx_dir);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  auto own = Index::Open(root);
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  std::vector<Key> keys;
  for (int64_t k = -5; k < opts.key_space + 5; ++k) keys.push_back(*(*duck)->ParseKey({"s" + std::to_string(k)}));
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(root + "/" + n);
  auto bf = rap::testing::BruteForce::Load(paths);
  ASSERT_TRUE(bf.ok());
  for (const std::vector<std::string>& cols : {std::vector<std::string>{}, std::vector<std::string>{"k", "v", "tags"}}) {
    LookupOptions lo;
    lo.columns = cols;
    auto a = (*duck)->Lookup(keys, lo);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    auto b = (*own)->Lookup(keys, lo);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    int64_t rows = 0;
    std::vector<std::string> names_out;
    for (const Field& f : a->schema->fields) names_out.push_back(f.name);
    for (size_t i = 0; i < keys.size(); ++i) {
      auto got = rap::testing::ResultRows(a->keys[i]);
      EXPECT_EQ(got, rap::testing::ResultRows(b->keys[i])) << keys[i].parts[0].s;
      EXPECT_EQ(got, bf->Rows({"s"}, {FormatValue(*MakeKeyArray(KeyType::kString, {&keys[i].parts[0]}), 0)}, names_out)) << keys[i].parts[0].s;
      rows += a->keys[i].rows.num_rows;
    }
    EXPECT_EQ(rows, opts.rows * opts.files);
  }
}

}  // namespace
}  // namespace rap::index
