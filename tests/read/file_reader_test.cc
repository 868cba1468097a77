#include <gtest/gtest.h>

#include <random>
#include <set>

#include "rap/columnar/array_format.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/paths.h"
#include "testing/result_check.h"

namespace rap::read {
namespace {

std::string DataFile(const std::string& name) { return rap::testing::ParquetTestingData() + "/" + name; }

std::shared_ptr<FileReader> OpenFile(const std::string& path, FileReaderOptions options = {}) {
  auto url = io::OpenUrl(path);
  RAP_TEST_CHECK_OK(url);
  auto r = FileReader::Open(url->store, url->path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

std::vector<std::string> Column(const std::vector<RecordBatch>& batches, int c) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) out.push_back(FormatValue(*b.columns[static_cast<size_t>(c)], i));
  }
  return out;
}

TEST(FileReader, AlltypesPlain) {
  auto r = OpenFile(DataFile("alltypes_plain.parquet"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->num_rows(), 8);
  EXPECT_EQ(r->num_row_groups(), 1);
  auto all = r->Project();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->schema->fields.size(), 11u);
  auto batches = r->ReadAll(std::nullopt, *all);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(Column(*batches, 0), (std::vector<std::string>{"4", "5", "6", "7", "2", "3", "0", "1"}));
  EXPECT_EQ(Column(*batches, 1),
            (std::vector<std::string>{"true", "false", "true", "false", "true", "false", "true", "false"}));
  EXPECT_EQ(Column(*batches, 9),
            (std::vector<std::string>{"0x30", "0x31", "0x30", "0x31", "0x30", "0x31", "0x30", "0x31"}));
  EXPECT_EQ(Column(*batches, 10)[0], "2009-03-01 00:00:00.000000000");
  for (const auto& b : *batches) {
    for (const auto& c : b.columns) EXPECT_TRUE(ValidateArray(*c).ok());
  }
}

TEST(FileReader, ProjectionBatchesAndSelection) {
  FileReaderOptions options;
  options.batch_size = 3;
  auto r = OpenFile(DataFile("alltypes_plain.parquet"), options);
  ASSERT_TRUE(r);
  auto p = r->Project({"string_col", "id"});
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->schema->fields.size(), 2u);
  EXPECT_EQ(p->schema->fields[0].name, "id");  // file order
  auto batches = r->ReadAll(std::nullopt, *p);
  ASSERT_TRUE(batches.ok());
  ASSERT_EQ(batches->size(), 3u);
  EXPECT_EQ((*batches)[0].num_rows, 3);
  EXPECT_EQ((*batches)[2].num_rows, 2);
  EXPECT_EQ(Column(*batches, 0), (std::vector<std::string>{"4", "5", "6", "7", "2", "3", "0", "1"}));
  auto sel = r->ReadAll(RowSelection::FromRanges({{1, 3}, {6, 8}}), *p);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(Column(*sel, 0), (std::vector<std::string>{"5", "6", "0", "1"}));
  EXPECT_TRUE(r->Project({"nope"}).status().Is(StatusCode::kNotFound));
  EXPECT_TRUE(r->ReadAll(RowSelection::Range(0, 9), *p).status().Is(StatusCode::kInvalidArgument));
}

TEST(FileReader, MetadataCacheByEtag) {
  auto url = io::OpenUrl(DataFile("alltypes_plain.snappy.parquet"));
  ASSERT_TRUE(url.ok());
  auto info = url->store->Head(url->path);
  ASSERT_TRUE(info.ok());
  FileReaderOptions options;
  options.object_info = *info;
  auto first = FileReader::Open(url->store, url->path, options);
  ASSERT_TRUE(first.ok());
  auto second = FileReader::Open(url->store, url->path, options);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE((*second)->metadata_from_cache());
  EXPECT_EQ((*second)->stats().read_calls, 0);  // no request at all
  EXPECT_EQ((*first)->file_metadata().get(), (*second)->file_metadata().get());
  // An ETag the cache does not know costs a tail read.
  options.object_info->etag += "-changed";
  auto third = FileReader::Open(url->store, url->path, options);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->stats().read_calls, 1);
}

TEST(FileReader, ChangedFileIsNotServedStale) {
  rap::testing::TempDir dir;
  const std::string path = dir.Join("f.parquet");
  rap::testing::WriteStringToFile(path, rap::testing::ReadFileToString(DataFile("alltypes_plain.parquet")));
  auto a = OpenFile(path);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->num_rows(), 8);
  rap::testing::WriteStringToFile(path, rap::testing::ReadFileToString(DataFile("alltypes_plain.snappy.parquet")));
  auto b = OpenFile(path);
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->metadata_from_cache());
  EXPECT_EQ(b->num_rows(), 2);
}

TEST(MetadataCache, EvictsWithinBudget) {
  MetadataCache cache(12000);
  auto make = [](uint64_t footer) {
    return std::make_shared<FileMetadata>(parquet::FileMetaData{}, parquet::SchemaDescriptor{}, io::ObjectInfo{},
                                          footer);
  };
  cache.Put("a", make(1000));  // charge 5024
  cache.Put("b", make(1000));
  EXPECT_TRUE(cache.Get("a"));  // a is now the most recent
  cache.Put("c", make(1000));   // evicts b
  EXPECT_TRUE(cache.Get("a"));
  EXPECT_FALSE(cache.Get("b"));
  EXPECT_TRUE(cache.Get("c"));
  EXPECT_LE(cache.stats().bytes, 12000u);
  EXPECT_EQ(cache.stats().evictions, 1);
  cache.Put("huge", make(100000));  // larger than the budget: not kept
  EXPECT_FALSE(cache.Get("huge"));
}

TEST(FileReader, SmallTailReadNeedsSecondRead) {
  MetadataCache::Global().Clear();
  FileReaderOptions options;
  options.tail_read_size = 16;
  options.use_metadata_cache = false;
  auto r = OpenFile(DataFile("alltypes_tiny_pages.parquet"), options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats().read_calls, 2);
  EXPECT_EQ(r->num_rows(), 7300);
}

// The page index of every chunk lies back to back after the row groups: loading all of it outside
// the footer tail is one request for the whole region, not one per index.
TEST(FileReader, WholePageIndexIsOneRequest) {
  MetadataCache::Global().Clear();
  FileReaderOptions options;
  options.tail_read_size = 16;  // the tail read holds the footer only
  options.use_metadata_cache = false;
  auto r = OpenFile(DataFile("alltypes_tiny_pages.parquet"), options);
  ASSERT_TRUE(r);
  std::vector<int> rgs, cols;
  for (int rg = 0; rg < r->num_row_groups(); ++rg) rgs.push_back(rg);
  for (int c = 0; c < r->schema().num_columns(); ++c) cols.push_back(c);
  const int64_t before = r->stats().requests;
  ASSERT_TRUE(r->LoadPageIndex(rgs, cols, true, true).ok());
  EXPECT_EQ(r->stats().requests - before, 1);
  for (int c : cols) {
    auto oi = r->GetOffsetIndex(0, c);
    ASSERT_TRUE(oi.ok() && *oi) << c;
    EXPECT_FALSE((*oi)->page_locations.empty());
  }
  EXPECT_EQ(r->stats().requests - before, 1);  // all cached by the one read
}

// Pages (row group, first row) holding at least one selected row, from the OffsetIndex.
std::set<std::pair<int, int64_t>> ExpectedPages(FileReader& r, int column, const RowSelection& sel) {
  std::set<std::pair<int, int64_t>> out;
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    auto oi = r.GetOffsetIndex(rg, column);
    EXPECT_TRUE(oi.ok() && *oi);
    const auto& locs = (*oi)->page_locations;
    const int64_t first = r.row_group_first_row(rg);
    for (size_t k = 0; k < locs.size(); ++k) {
      int64_t b = first + locs[k].first_row_index;
      int64_t e = first + (k + 1 < locs.size() ? locs[k + 1].first_row_index : r.row_group_num_rows(rg));
      if (sel.Intersects(b, e)) out.insert({rg, locs[k].first_row_index});
    }
  }
  return out;
}

TEST(FileReader, RowSelectionReadsExactlyTheNeededPages) {
  for (const char* file : {"alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet"}) {
    SCOPED_TRACE(file);
    auto r = OpenFile(DataFile(file));
    ASSERT_TRUE(r);
    auto p = r->Project();
    ASSERT_TRUE(p.ok());
    auto full = r->ReadAll(std::nullopt, *p);
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    std::vector<std::vector<std::string>> full_cols;
    for (size_t c = 0; c < p->fields.size(); ++c) full_cols.push_back(Column(*full, static_cast<int>(c)));
    ASSERT_EQ(full_cols[0].size(), 7300u);
    std::mt19937_64 rng(7);
    for (int iter = 0; iter < 25; ++iter) {
      std::vector<RowRange> ranges;
      int n = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        int64_t b = static_cast<int64_t>(rng() % 7300);
        ranges.push_back({b, std::min<int64_t>(7300, b + 1 + static_cast<int64_t>(rng() % 200))});
      }
      RowSelection sel = RowSelection::FromRanges(ranges);
      r->ResetStats();
      auto got = r->ReadAll(sel, *p);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ReaderStats st = r->stats();
      for (int c = 0; c < r->schema().num_columns(); ++c) {
        std::set<std::pair<int, int64_t>> read(st.columns[static_cast<size_t>(c)].pages.begin(),
                                               st.columns[static_cast<size_t>(c)].pages.end());
        ASSERT_EQ(read, ExpectedPages(*r, c, sel)) << "column " << c << " selection " << sel.ToString();
        ASSERT_EQ(st.columns[static_cast<size_t>(c)].pages.size(), read.size());  // no page decoded twice
      }
      for (size_t c = 0; c < p->fields.size(); ++c) {
        std::vector<std::string> want;
        for (const auto& rr : sel) {
          for (int64_t row = rr.begin; row < rr.end; ++row) want.push_back(full_cols[c][static_cast<size_t>(row)]);
        }
        ASSERT_EQ(Column(*got, static_cast<int>(c)), want) << "column " << c;
      }
    }
  }
}

TEST(FileReader, ExactRangesWithOffsetIndex) {
  auto r = OpenFile(DataFile("alltypes_tiny_pages_plain.parquet"));
  ASSERT_TRUE(r);
  auto p = r->Project({"id"});
  ASSERT_TRUE(p.ok());
  const int id = r->schema().FindColumn("id");
  auto oi = r->GetOffsetIndex(0, id);
  ASSERT_TRUE(oi.ok() && *oi);
  const auto& locs = (*oi)->page_locations;
  ASSERT_GT(locs.size(), 10u);
  // Rows of pages 2..3 and of page 7: two runs.
  RowSelection sel = RowSelection::FromRanges(
      {{locs[2].first_row_index, locs[4].first_row_index}, {locs[7].first_row_index, locs[7].first_row_index + 1}});
  auto plan = r->PlanRowGroup(0, sel, *p);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->size(), 1u);
  const ChunkRanges& cr = (*plan)[0];
  EXPECT_FALSE(cr.whole_chunk);
  EXPECT_FALSE(cr.dictionary.has_value());  // plain encoding: no dictionary page
  ASSERT_EQ(cr.runs.size(), 2u);
  EXPECT_EQ(cr.runs[0].offset, static_cast<uint64_t>(locs[2].offset));
  EXPECT_EQ(cr.runs[0].end(), static_cast<uint64_t>(locs[3].offset + locs[3].compressed_page_size));
  EXPECT_EQ(cr.runs[1], (ByteRange{static_cast<uint64_t>(locs[7].offset),
                                   static_cast<uint64_t>(locs[7].compressed_page_size)}));
  // One data fetch for the row group.
  r->ResetStats();
  auto batch = r->ReadRowGroup(0, sel, *p);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(r->stats().read_calls, 1);
  EXPECT_EQ(r->stats().data_ranges, cr.runs);

  // Dictionary-encoded file: the dictionary page is fetched as well.
  auto rd = OpenFile(DataFile("alltypes_tiny_pages.parquet"));
  ASSERT_TRUE(rd);
  auto pd = rd->Project({"string_col"});
  ASSERT_TRUE(pd.ok());
  auto plan_d = rd->PlanRowGroup(0, RowSelection::Range(100, 101), *pd);
  ASSERT_TRUE(plan_d.ok());
  ASSERT_TRUE((*plan_d)[0].dictionary.has_value());
  EXPECT_EQ((*plan_d)[0].runs.size(), 1u);
  EXPECT_EQ((*plan_d)[0].pages.size(), 1u);

  // Random selections: exactly the pages holding a selected row (the brute-force rule: a page is
  // chosen iff some selected row lies in [its first row, the next page's first row)), in order.
  std::mt19937_64 rng(5);
  const int64_t rg_rows = r->row_group_num_rows(0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<RowRange> ranges;
    const int n = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      const int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(rg_rows));
      ranges.push_back({b, std::min(rg_rows, b + 1 + static_cast<int64_t>(rng() % 40))});
    }
    const RowSelection rs = RowSelection::FromRanges(ranges);
    auto pl = r->PlanRowGroup(0, rs, *p);
    ASSERT_TRUE(pl.ok());
    std::vector<int64_t> want, got;
    for (size_t k = 0; k < locs.size(); ++k) {
      const int64_t end = k + 1 < locs.size() ? locs[k + 1].first_row_index : rg_rows;
      if (rs.Intersects(locs[k].first_row_index, end)) want.push_back(locs[k].offset);
    }
    for (const auto& pg : (*pl)[0].pages) got.push_back(pg.offset);
    ASSERT_EQ(got, want) << "trial " << trial;
    uint64_t run_bytes = 0, page_bytes = 0;
    for (const ByteRange& br : (*pl)[0].runs) run_bytes += br.length;
    for (const auto& pg : (*pl)[0].pages) page_bytes += static_cast<uint64_t>(pg.compressed_page_size);
    EXPECT_EQ(run_bytes, page_bytes);  // runs cover exactly the chosen pages (plain: contiguous pages)
  }

  // Without the page index: whole chunks.
  FileReaderOptions no_index;
  no_index.use_page_index = false;
  auto rw = OpenFile(DataFile("alltypes_tiny_pages_plain.parquet"), no_index);
  ASSERT_TRUE(rw);
  auto plan_w = rw->PlanRowGroup(0, sel, *p);
  ASSERT_TRUE(plan_w.ok());
  EXPECT_TRUE((*plan_w)[0].whole_chunk);
  const auto& cm = *rw->metadata().row_groups[0].columns[static_cast<size_t>(id)].meta_data;
  EXPECT_EQ((*plan_w)[0].runs[0].length, static_cast<uint64_t>(cm.total_compressed_size));
}

TEST(FileReader, EncryptedFilesAreNotSupported) {
  for (const char* f : {"uniform_encryption.parquet.encrypted", "encrypt_columns_plaintext_footer.parquet.encrypted",
                        "encrypt_columns_and_footer.parquet.encrypted"}) {
    auto url = io::OpenUrl(DataFile(f));
    ASSERT_TRUE(url.ok());
    auto r = FileReader::Open(url->store, url->path);
    ASSERT_FALSE(r.ok()) << f;
    EXPECT_TRUE(r.status().Is(StatusCode::kNotSupported)) << r.status().ToString();
    EXPECT_NE(r.status().message().find("encrypted Parquet is not supported"), std::string::npos)
        << r.status().ToString();
  }
}

// One fetch, then any subset of the fetched rows and columns decoded without another read: values,
// and the dictionary codes of a dictionary-encoded column (which point at the same values).
TEST(FileReader, FetchedRowGroupDecodesSubsetsWithoutReads) {
  auto r = OpenFile(DataFile("alltypes_tiny_pages.parquet"));
  ASSERT_TRUE(r);
  auto both = r->Project({"id", "string_col"});
  auto only_string = r->Project({"string_col"});
  auto only_bool = r->Project({"bool_col"});
  ASSERT_TRUE(both.ok() && only_string.ok() && only_bool.ok());
  const int string_col = r->schema().FindColumn("string_col");
  r->ResetStats();
  auto fetched = r->FetchRowGroup(0, RowSelection::Range(100, 400), *both);
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  const int64_t calls = r->stats().read_calls;
  EXPECT_EQ(calls, 1);

  const RowSelection rows = RowSelection::FromRanges({{120, 180}, {250, 251}, {399, 400}});
  auto values = (*fetched)->Read(rows, *only_string);
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  auto direct = r->ReadRowGroup(0, rows, *only_string);  // the reference (reads again)
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(Column({*values}, 0), Column({*direct}, 0));

  r->ResetStats();
  auto codes = (*fetched)->ReadDictionaryCodes(rows, string_col);
  ASSERT_TRUE(codes.ok()) << codes.status().ToString();
  ASSERT_TRUE(codes->has_value());
  const FileReader::DictionaryCodes& dc = **codes;
  ASSERT_EQ(static_cast<int64_t>(dc.codes.size()), rows.Count());
  const std::vector<std::string> want = Column({*direct}, 0);
  for (size_t i = 0; i < dc.codes.size(); ++i) {
    ASSERT_GE(dc.codes[i], 0);
    ASSERT_LT(dc.codes[i], dc.dictionary->length);
    EXPECT_EQ(FormatValue(*dc.dictionary, dc.codes[i]), want[i]) << "row " << i;
  }
  EXPECT_EQ(r->stats().read_calls, 0);

  // Rows outside the fetch, and columns not fetched, are refused.
  EXPECT_EQ((*fetched)->Read(RowSelection::Range(90, 110), *only_string).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((*fetched)->Read(rows, *only_bool).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*fetched)->ReadDictionaryCodes(rows, r->schema().FindColumn("bool_col")).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(r->FetchRowGroup(5, rows, *both).status().code(), StatusCode::kInvalidArgument);

  // A PLAIN-encoded column has no codes: nullopt, and the caller decodes values.
  auto plain = OpenFile(DataFile("alltypes_tiny_pages_plain.parquet"));
  ASSERT_TRUE(plain);
  auto plain_string = plain->Project({"string_col"});
  ASSERT_TRUE(plain_string.ok());
  auto fp = plain->FetchRowGroup(0, RowSelection::Range(0, 50), *plain_string);
  ASSERT_TRUE(fp.ok()) << fp.status().ToString();
  auto none = (*fp)->ReadDictionaryCodes(RowSelection::Range(0, 50), plain->schema().FindColumn("string_col"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace rap::read
