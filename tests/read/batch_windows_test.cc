// Row-window decoding: a row group read in batches of any size gives exactly the rows of a whole
// row-group read, decodes every page once, and bounds each batch by batch_size.
#include <gtest/gtest.h>

#include <random>

#include "rap/columnar/array_format.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

std::shared_ptr<FileReader> OpenData(const std::string& name, int64_t batch_size) {
  FileReaderOptions options;
  options.batch_size = batch_size;
  options.use_metadata_cache = false;
  auto url = io::OpenUrl(rap::testing::ParquetTestingData() + "/" + name);
  EXPECT_TRUE(url.ok()) << url.status().ToString();
  if (!url.ok()) return nullptr;
  auto r = FileReader::Open(url->store, url->path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

// Every row as one line of formatted values.
void AppendRows(const RecordBatch& b, std::vector<std::string>* rows) {
  for (int64_t i = 0; i < b.num_rows; ++i) {
    std::string row;
    for (const auto& c : b.columns) {
      EXPECT_EQ(c->length, b.num_rows);
      row += FormatValue(*c, i) + "|";
    }
    rows->push_back(std::move(row));
  }
}

int64_t PagesRead(const ReaderStats& s) {
  int64_t n = 0;
  for (const auto& c : s.columns) n += c.data_pages_read;
  return n;
}

// Whole row groups through ReadRowGroup (one window each) for `selection` (file rows).
std::vector<std::string> WholeRowGroups(FileReader& r, const Projection& p, const RowSelection& selection) {
  std::vector<std::string> rows;
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    const int64_t first = r.row_group_first_row(rg);
    RowSelection sel = selection.Slice(first, first + r.row_group_num_rows(rg));
    if (sel.empty()) continue;
    auto b = r.ReadRowGroup(rg, sel, p);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (b.ok()) AppendRows(*b, &rows);
  }
  return rows;
}

void CheckWindows(const std::string& name, const std::optional<RowSelection>& selection) {
  SCOPED_TRACE(name);
  auto whole = OpenData(name, int64_t{1} << 40);
  ASSERT_TRUE(whole);
  auto p = whole->Project();
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const RowSelection sel = selection ? *selection : RowSelection::All(whole->num_rows());
  whole->ResetStats();
  const std::vector<std::string> want = WholeRowGroups(*whole, *p, sel);
  const int64_t want_pages = PagesRead(whole->stats());
  ASSERT_EQ(static_cast<int64_t>(want.size()), sel.Count());
  for (int64_t batch_size : {1, 2, 7, 100}) {
    SCOPED_TRACE(batch_size);
    auto r = OpenData(name, batch_size);
    ASSERT_TRUE(r);
    auto batches = r->NewBatchReader(selection, *p);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    std::vector<std::string> got;
    while (true) {
      auto b = (*batches)->Next();
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      if (!*b) break;
      EXPECT_GT((*b)->num_rows, 0);
      EXPECT_LE((*b)->num_rows, batch_size);
      for (const auto& c : (*b)->columns) EXPECT_TRUE(ValidateArray(*c).ok());
      AppendRows(**b, &got);
    }
    EXPECT_EQ(got, want);
    EXPECT_EQ(PagesRead(r->stats()), want_pages) << "every page is decoded once";
  }
}

TEST(BatchWindows, FlatAndNestedFilesGiveTheSameRowsInAnyBatchSize) {
  for (const char* f : {"alltypes_plain.parquet", "alltypes_tiny_pages.parquet", "datapage_v2.snappy.parquet",
                        "nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nested_structs.rust.parquet",
                        "repeated_no_annotation.parquet", "nullable.impala.parquet", "list_columns.parquet",
                        "null_list.parquet", "delta_length_byte_array.parquet", "rle_boolean_encoding.parquet"}) {
    CheckWindows(f, std::nullopt);
  }
}

TEST(BatchWindows, RandomSelectionsThroughThePageIndex) {
  std::mt19937 rng(7);
  for (const char* f : {"alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet"}) {
    auto r = OpenData(f, 1);
    ASSERT_TRUE(r);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<RowRange> ranges;
      for (int i = 0; i < 20; ++i) {
        const int64_t b = std::uniform_int_distribution<int64_t>(0, r->num_rows() - 1)(rng);
        ranges.push_back({b, std::min(r->num_rows(), b + std::uniform_int_distribution<int64_t>(1, 300)(rng))});
      }
      CheckWindows(f, RowSelection::FromRanges(ranges));
    }
  }
}

}  // namespace
}  // namespace rap::read
