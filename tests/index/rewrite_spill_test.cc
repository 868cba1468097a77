// `rap rewrite` in bounded memory (src/index/rewrite_sort.h): with a budget of a few KiB the input is
// spilled as sorted runs to temporary Parquet files and merged per bucket; the output files hold
// exactly the rows of the in-memory path in the same order (every layout, co-grouping included),
// the index built in the same pass answers the same, and the temporary folder is gone afterwards.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/index/index.h"
#include "rap/index/rewrite.h"
#include "rap/read/file_reader.h"
#include "testing/index_table.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

// Every row of a file, in order, as text.
std::vector<std::string> FileRows(const std::string& path) {
  auto r = io::OpenUrl(path);
  RAP_TEST_CHECK_OK(r);
  read::FileReaderOptions ro;
  ro.use_metadata_cache = false;
  auto reader = read::FileReader::Open(r->store, r->path, ro);
  RAP_TEST_CHECK_OK(reader);
  auto proj = (*reader)->Project({});
  auto batches = (*reader)->ReadAll(std::nullopt, *proj);
  RAP_TEST_CHECK_OK(batches);
  std::vector<std::string> out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) out.push_back(rap::testing::RowText(b, i));
  }
  return out;
}

struct Case {
  const char* name;
  RewriteLayout layout;
  bool cogroup;
};

class RewriteSpillTest : public ::testing::TestWithParam<Case> {};

TEST_P(RewriteSpillTest, TinyBudgetSpillsAndEqualsTheInMemoryPath) {
  rap::testing::TempDir dir;
  const std::string in = dir.Join("in");
  rap::testing::IndexTableOptions to;
  to.files = 3;
  to.rows = 900;
  to.key_space = 150;
  rap::testing::WriteIndexTable(in, to);
  RewriteOptions o;
  o.key_columns = {"k"};
  o.layout = GetParam().layout;
  o.cogroup = GetParam().cogroup;
  o.buckets = 3;
  o.writer.row_group_max_rows = 400;
  auto mem = RewriteTable(in, dir.Join("mem"), o);
  ASSERT_TRUE(mem.ok()) << mem.status().ToString();
  EXPECT_EQ(mem->runs_spilled, 0);
  o.memory = 8 << 10;
  o.temp_dir = dir.Join("tmp");
  fs::create_directories(o.temp_dir);
  auto spill = RewriteTable(in, dir.Join("spill"), o);
  ASSERT_TRUE(spill.ok()) << spill.status().ToString();
  // Runs were spilled (several per bucket), and the buffer stayed near the budget.
  EXPECT_GE(spill->runs_spilled, 3 * 4) << "at least 4 runs per bucket";
  EXPECT_GT(spill->bytes_spilled, 0u);
  EXPECT_LT(spill->peak_buffered_bytes, mem->peak_buffered_bytes / 2);
  EXPECT_TRUE(fs::is_empty(o.temp_dir)) << "temporary runs left behind";
  ASSERT_EQ(spill->files, mem->files);
  EXPECT_EQ(spill->rows, mem->rows);
  EXPECT_EQ(spill->entries, mem->entries);
  for (const std::string& f : mem->files) {
    const auto want = FileRows(dir.Join("mem/" + f)), got = FileRows(dir.Join("spill/" + f));
    EXPECT_EQ(got.size(), want.size()) << f;
    EXPECT_EQ(got, want) << f;
  }
  // The index of the spilled output answers like the in-memory one.
  auto a = Index::Open(dir.Join("mem")), b = Index::Open(dir.Join("spill"));
  ASSERT_TRUE(a.ok() && b.ok());
  for (int k : {0, 17, 99, 149, 151}) {
    auto ka = *(*a)->ParseKey({std::to_string(k)}), kb = *(*b)->ParseKey({std::to_string(k)});
    auto ra = (*a)->Lookup({&ka, 1}, {}), rb = (*b)->Lookup({&kb, 1}, {});
    ASSERT_TRUE(ra.ok() && rb.ok());
    EXPECT_EQ(rap::testing::ResultRows(rb->keys[0]), rap::testing::ResultRows(ra->keys[0])) << "key " << k;
  }
}

const Case kCases[] = {{"sorted", RewriteLayout::kSorted, false},
                       {"frame", RewriteLayout::kFramePerKey, false},
                       {"interleaved", RewriteLayout::kInterleaved, false},
                       {"page_cogroup", RewriteLayout::kPagePerKey, true}};
INSTANTIATE_TEST_SUITE_P(Layouts, RewriteSpillTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rap::index
