// The build's columnar entry buffers (IndexWriter): every fragment a build writes holds its entries
// in (key, file, first_row) order, each entry's packed file ordinal and first row name rows of that
// data file that hold the entry's key (and the rows before and after the run do not), the runs add
// up to the table's non-NULL key rows; a plain integer-key build buffers at most 32 bytes a key row.
#include <gtest/gtest.h>

#include <map>

#include "rap/index/build.h"
#include "rap/index/fragment.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

// Column `column` of every row of a Parquet file as key parts (nullopt: NULL).
std::vector<std::optional<KeyPart>> ReadKeyColumn(const std::string& path, const std::string& column, KeyType type) {
  auto r = io::OpenUrl(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  auto reader = read::FileReader::Open(r->store, r->path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  auto proj = (*reader)->Project({column});
  EXPECT_TRUE(proj.ok());
  auto batches = (*reader)->ReadAll(std::nullopt, *proj);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<std::optional<KeyPart>> out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      KeyPart p;
      if (KeyPartAt(type, *b.columns[0], i, &p)) out.push_back(p); else out.push_back(std::nullopt);
    }
  }
  return out;
}

// Every entry of every fragment of `m` (index at `dir`), per fragment in file order.
std::vector<std::vector<IndexEntry>> ReadFragments(const std::string& dir, const Manifest& m) {
  std::vector<std::vector<IndexEntry>> out;
  auto r = io::OpenUrl(dir);
  EXPECT_TRUE(r.ok());
  for (const FragmentEntry& f : m.fragments) {
    auto reader = read::FileReader::Open(r->store, io::JoinPath(r->path, f.path));
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    auto proj = (*reader)->Project();
    auto batches = (*reader)->ReadAll(std::nullopt, *proj);
    EXPECT_TRUE(batches.ok());
    auto layout = FragmentLayout::Of(*proj->schema, m, f.path);
    EXPECT_TRUE(layout.ok()) << layout.status().ToString();
    out.emplace_back();
    for (const RecordBatch& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        IndexEntry e;
        EXPECT_TRUE(EntryAt(b, *layout, m.key, i, false, &e, f.path).ok());
        out.back().push_back(std::move(e));
      }
    }
    EXPECT_EQ(static_cast<int64_t>(out.back().size()), f.entries);
  }
  return out;
}

void CheckBuild(const std::string& root, const std::vector<std::string>& names, const std::string& key_column,
                KeyType type, int buckets, const std::string& index_dir) {
  BuildOptions o;
  o.key_columns = {key_column};
  o.buckets = buckets;
  o.index_url = index_dir;
  auto built = BuildIndex(root, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const Manifest& m = built->manifest;
  ASSERT_EQ(m.key[0].type, type);
  std::map<std::string, std::vector<std::optional<KeyPart>>> data;
  for (const std::string& n : names) data[n] = ReadKeyColumn(root + "/" + n, key_column, type);
  int64_t rows = 0, entries = 0;
  for (const std::vector<IndexEntry>& frag : ReadFragments(index_dir, m)) {
    for (size_t i = 0; i < frag.size(); ++i) {
      const IndexEntry& e = frag[i];
      if (i > 0) {
        const IndexEntry& p = frag[i - 1];
        const int c = CompareKeys(m.key, p.key, e.key);
        ASSERT_TRUE(c < 0 || (c == 0 && (p.file < e.file || (p.file == e.file && p.first_row < e.first_row))))
            << "entry " << i << " out of (key, file, first_row) order";
      }
      ASSERT_GE(e.file, 0);
      ASSERT_LT(static_cast<size_t>(e.file), m.files.size());
      const auto& col = data.at(m.files[static_cast<size_t>(e.file)].path);
      ASSERT_LE(e.first_row + e.num_rows, static_cast<int64_t>(col.size()));
      for (int64_t r = e.first_row; r < e.first_row + e.num_rows; ++r) {
        ASSERT_TRUE(col[static_cast<size_t>(r)].has_value());
        ASSERT_EQ(CompareKeyPart(type, *col[static_cast<size_t>(r)], e.key.parts[0]), 0)
            << "file " << e.file << " row " << r;
      }
      rows += e.num_rows;
      ++entries;
    }
  }
  int64_t key_rows = 0;
  for (const auto& [n, col] : data) {
    for (const auto& v : col) key_rows += v.has_value();
  }
  EXPECT_EQ(rows, key_rows);
  EXPECT_EQ(rows, built->key_rows);
  EXPECT_EQ(entries, built->entries);
  if (IsIntegerKey(type)) {
    // The target of issue 36: at most 32 buffered bytes a key row for a plain index.
    EXPECT_GT(built->peak_buffered_bytes, 0);
    EXPECT_LE(built->peak_buffered_bytes, 32 * built->key_rows);
  }
}

TEST(BuildEntriesTest, FragmentsHoldSortedEntriesNamingTheirRows) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions topts;
  topts.files = 4;
  topts.rows = 3000;
  topts.key_space = 500;
  const std::vector<std::string> names = rap::testing::WriteIndexTable(root, topts);
  for (int buckets : {1, 5}) {
    SCOPED_TRACE("buckets " + std::to_string(buckets));
    CheckBuild(root, names, "k", KeyType::kInt64, buckets, dir.Join("k" + std::to_string(buckets)));
    CheckBuild(root, names, "s", KeyType::kString, buckets, dir.Join("s" + std::to_string(buckets)));
  }
}

}  // namespace
}  // namespace rap::index
