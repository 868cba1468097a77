// rap-test-labels: concurrent
// Read ranges of a split row group share pages (read_range.h, row_group_share.h): a row group whose
// columns' pages are out of step is cut at the dominant column's page starts; every row is in
// exactly one range; a data page that holds rows of two ranges, and each dictionary page, is
// requested once (every byte of the file's column data at most once, in total exactly the bytes of
// an unsplit read) and decoded once (the decode counters equal an unsplit read's, and the later
// ranges take the decoded page); rows and values are those of an unsplit read. Also DECODED warmup
// on the plain path (P = 1): the file's first range is decoded ahead, on its own thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "format/writer_testing.h"
#include "rap/format/writer.h"
#include "rap/read/prefetch_reader.h"
#include "rap/read/read_range.h"
#include "rap/read/scanner.h"
#include "testing/observed_store.h"
#include "testing/paths.h"
#include "testing/scan_table.h"
#include "testing/result_check.h"

namespace rap::read {
namespace {

using rap::testing::ObservedStore;

ScanOptions Plain() {
  ScanOptions o;
  o.prefetch.producers = 1;
  o.prefetch.min_file_bytes = 0;
  o.prefetch.ranges.split_row_groups = false;
  o.warmup.level = WarmupLevel::kNone;
  o.reader.use_metadata_cache = false;
  return o;
}

class ShareTest : public ::testing::Test {
 protected:
  // 2 row groups of 600 rows: id (int64, pages of 16 rows), s (dictionary strings, nulls, pages of
  // 25 rows), v (double, nulls, pages of 37 rows): page starts of different columns rarely coincide.
  void SetUp() override {
    auto schema = std::make_shared<Schema>();
    schema->fields = {{"id", MakeType(TypeId::kInt64), false},
                      {"s", MakeType(TypeId::kString), true},
                      {"v", MakeType(TypeId::kFloat64), true}};
    const size_t n = 1200;
    std::vector<int64_t> ids(n);
    std::vector<std::string> ss(n);
    std::vector<double> vs(n);
    std::vector<bool> s_valid(n), v_valid(n);
    for (size_t i = 0; i < n; ++i) {
      ids[i] = static_cast<int64_t>(i);
      ss[i] = "name-" + std::to_string(i % 23);
      s_valid[i] = i % 7 != 3;
      vs[i] = static_cast<double>(i) * 0.25;
      v_valid[i] = i % 5 != 1;
    }
    RecordBatch b = rap::testing::MakeBatch(schema, {rap::testing::MakeInt64Array(ids),
                                                     rap::testing::MakeStringArray(ss, s_valid),
                                                     rap::testing::MakeDoubleArray(vs, v_valid)});
    parquet::WriterOptions wo;
    wo.row_group_max_rows = 600;
    wo.defaults.dictionary = false;
    wo.columns["s"].dictionary = true;
    wo.columns["id"].page_max_rows = 16;
    wo.columns["s"].page_max_rows = 25;
    wo.columns["v"].page_max_rows = 37;
    wo.columns["v"].codec = parquet::Codec::ZSTD;  // a shared page is decompressed once too
    wo.write_page_index = true;
    auto bytes = parquet::WriteParquetToString(schema, {b}, wo);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    rap::testing::WriteStringToFile(dir_.Join("t.parquet"), *bytes);
    auto store = io::OpenUrl(dir_.path());
    inner_ = store->store;
    path_ = io::JoinPath(store->path, "t.parquet");
  }

  std::shared_ptr<FileReader> Open() {
    FileReaderOptions ro;
    ro.use_metadata_cache = false;
    auto r = FileReader::Open(inner_, path_, ro);
    RAP_TEST_CHECK_OK(r);
    return *r;
  }

  ScanSource Source(io::ObjectStorePtr store) const {
    ScanSource src;
    src.store = std::move(store);
    ScanFile f;
    f.path = path_;
    src.files.push_back(f);
    return src;
  }

  rap::testing::TempDir dir_;
  io::ObjectStorePtr inner_;
  std::string path_;
};

TEST_F(ShareTest, OutOfStepPagesAreSplitAndEveryRowIsInOneRange) {
  auto reader = Open();
  RangeOptions o;
  o.natural_read_size = 600;
  auto ranges = PlanReadRanges(*reader, {0, 1}, {0, 1, 2}, o);
  ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
  ASSERT_GT(ranges->size(), 4u);
  int rg = 0;
  int64_t next = 0;
  size_t straddles = 0;
  for (const ReadRange& r : *ranges) {
    if (r.row_group != rg) {
      EXPECT_EQ(next, 600);
      rg = r.row_group;
      next = 0;
    }
    EXPECT_EQ(r.begin, next) << r.ToString();
    EXPECT_GT(r.end, r.begin);
    EXPECT_EQ(r.first_of_row_group, r.begin == 0);
    ASSERT_NE(r.share, nullptr) << r.ToString();
    // A cut where not every column starts a page: the old rule (shared page starts only) could not
    // cut there.
    if (r.begin > 0 && (r.begin % 16 != 0 || r.begin % 25 != 0 || r.begin % 37 != 0)) ++straddles;
    next = r.end;
  }
  EXPECT_EQ(next, 600);
  EXPECT_GT(straddles, 0u);
  // The shared pages: the dictionary of s per row group plus the straddling pages.
  EXPECT_GT((*ranges)[0].share->pages(), 1u);
}

TEST_F(ShareTest, StraddlingAndDictionaryPagesAreFetchedOnceAndDecodedOnce) {
  auto ref = rap::testing::RunScan(Source(inner_), Plain());
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  ASSERT_EQ(ref->ids.size(), 1200u);
  EXPECT_EQ(ref->stats.dictionary_pages_read, 2);  // s, per row group
  EXPECT_EQ(ref->stats.pages_shared, 0);
  uint64_t ref_bytes = 0;
  {
    auto observed = std::make_shared<ObservedStore>(inner_);
    ASSERT_TRUE(rap::testing::RunScan(Source(observed), Plain()).ok());
    const std::vector<ByteRange> rs = observed->ranges()[path_];
    for (const ByteRange& r : rs) ref_bytes += r.length;
  }
  for (const char* filter : {"", "id < 100 OR v > 200"}) {
    for (int producers : {1, 3, 8}) {
      SCOPED_TRACE(fmt::format("filter '{}' P {}", filter, producers));
      ScanOptions o = Plain();
      if (*filter) o.filter = *ParseExpr(filter);
      auto want = rap::testing::RunScan(Source(inner_), o);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      o.prefetch.producers = producers;
      o.prefetch.ranges.split_row_groups = true;
      o.prefetch.ranges.natural_read_size = 600;
      auto observed = std::make_shared<ObservedStore>(inner_);
      auto got = rap::testing::RunScan(Source(observed), o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_GT(got->stats.prefetch.ranges, 4);
      EXPECT_EQ(got->ids, want->ids);
      EXPECT_EQ(got->values, want->values);
      EXPECT_EQ(got->fingerprint, want->fingerprint);
      // Decoded once: as many data and dictionary pages decoded as by the unsplit read; the other
      // ranges took the straddling pages and the dictionaries decoded.
      EXPECT_EQ(got->stats.pages_read, want->stats.pages_read);
      EXPECT_EQ(got->stats.dictionary_pages_read, want->stats.dictionary_pages_read);
      EXPECT_GT(got->stats.pages_shared, 0);
      EXPECT_GT(got->stats.dictionary_pages_shared, 0);
      // Fetched once: no byte requested twice, and without a filter exactly the unsplit read's bytes.
      std::vector<ByteRange> rs = observed->ranges()[path_];
      std::sort(rs.begin(), rs.end(), [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
      uint64_t bytes = 0;
      for (size_t i = 0; i < rs.size(); ++i) {
        bytes += rs[i].length;
        if (i > 0) {
          EXPECT_LE(rs[i - 1].end(), rs[i].offset) << rs[i].ToString();
        }
      }
      if (!*filter) {
        EXPECT_EQ(bytes, ref_bytes);
      }
    }
  }
}

TEST_F(ShareTest, RawWarmupOfASplitFileReservesEachSharedPageOnce) {
  // Two files (the same bytes under two names): the second is warmed while the first is read. Its
  // dictionaries and straddling pages are reserved once, every warmed byte is used, no byte of either
  // file is requested twice.
  std::filesystem::copy_file(dir_.Join("t.parquet"), dir_.Join("u.parquet"));
  auto observed = std::make_shared<ObservedStore>(inner_);
  ScanSource src = Source(observed);
  ScanFile second = src.files[0];
  second.path = path_.substr(0, path_.size() - std::string("t.parquet").size()) + "u.parquet";
  src.files.push_back(second);
  ScanOptions o = Plain();
  o.prefetch.producers = 3;
  o.prefetch.ranges.split_row_groups = true;
  o.prefetch.ranges.natural_read_size = 600;
  o.warmup.level = WarmupLevel::kRaw;
  auto got = rap::testing::RunScan(src, o);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ids.size(), 2400u);
  EXPECT_GT(got->stats.warmup_bytes, 0u);
  EXPECT_EQ(got->stats.warmup_bytes_unused, 0u);
  EXPECT_GT(got->stats.pages_shared, 0);
  for (const ScanFile& f : src.files) {
    std::vector<ByteRange> rs = observed->ranges()[f.path];
    std::sort(rs.begin(), rs.end(), [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
    for (size_t i = 1; i < rs.size(); ++i) {
      EXPECT_LE(rs[i - 1].end(), rs[i].offset) << f.path << " " << rs[i].ToString();
    }
  }
}

TEST_F(ShareTest, ReadingRangesDirectlyDecodesEachPageOnce) {
  // The ranges of row group 0 read one by one through the FileReader: every page of every column is
  // decoded exactly once over all ranges, and the share holds nothing afterwards.
  auto reader = Open();
  RangeOptions o;
  o.natural_read_size = 600;
  auto ranges = PlanReadRanges(*reader, {0}, {0, 1, 2}, o);
  ASSERT_TRUE(ranges.ok());
  ASSERT_GT(ranges->size(), 2u);
  auto proj = reader->Project({});
  ASSERT_TRUE(proj.ok());
  reader->ResetStats();
  int64_t rows = 0;
  for (const ReadRange& r : *ranges) {
    auto b = reader->ReadRowGroup(0, RowSelection::Range(r.begin, r.end), *proj, r.share);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(b->num_rows, r.end - r.begin);
    r.share->RangeDone(r.begin, r.end);
    rows += b->num_rows;
  }
  EXPECT_EQ(rows, 600);
  const ReaderStats st = reader->stats();
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE("column " + std::to_string(c));
    auto oi = reader->GetOffsetIndex(0, c);
    ASSERT_TRUE(oi.ok() && *oi);
    EXPECT_EQ(st.columns[static_cast<size_t>(c)].data_pages_read, static_cast<int64_t>((*oi)->page_locations.size()));
  }
  EXPECT_EQ(st.columns[1].dictionary_pages, 1);
  EXPECT_EQ(st.columns[1].dictionary_pages_shared, static_cast<int64_t>(ranges->size()) - 1);
  EXPECT_EQ((*ranges)[0].share->page_share()->held(), 0u);
  EXPECT_GT((*ranges)[0].share->fetches_saved(), 0);
}

// ---- DECODED on the plain path ----

TEST(DecodeAheadTest, PlainPathDecodesTheFirstRangeOnItsOwnThread) {
  std::vector<ReadRange> ranges(3);
  for (size_t i = 0; i < ranges.size(); ++i) ranges[i] = ReadRange{static_cast<int>(i), 0, 10, 1000, true, nullptr};
  for (bool ahead : {false, true}) {
    SCOPED_TRACE(ahead ? "ahead" : "not ahead");
    std::atomic<int> ran{0};
    std::atomic<bool> other_thread{false};
    const std::thread::id me = std::this_thread::get_id();
    RangeTask task = [&](const ReadRange& r, RangeOutput* out) {
      if (r.row_group == 0) other_thread = std::this_thread::get_id() != me;
      ++ran;
      ScanBatch b;
      b.batch.num_rows = 0;
      b.row_ids.push_back(static_cast<uint64_t>(r.row_group));
      out->batches.push_back(std::move(b));
      return Status::OK();
    };
    PrefetchOptions po;
    po.producers = 1;
    io::CancellationToken cancel;
    auto reader = PrefetchReader::Make(ranges, task, 10, po, &cancel, ahead);
    EXPECT_EQ(reader->path(), PrefetchReader::Path::kPlain);
    EXPECT_EQ(reader->decoding_ahead(), ahead);
    if (ahead) {
      // The first range runs before anything asks for it.
      for (int i = 0; i < 10000 && ran.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      EXPECT_EQ(ran.load(), 1);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_EQ(ran.load(), 0);
    }
    std::vector<uint64_t> order;
    while (true) {
      auto item = reader->Next();
      ASSERT_TRUE(item.ok());
      if (!*item) break;
      if ((*item)->batch) order.push_back((*item)->batch->row_ids[0]);
    }
    EXPECT_EQ(order, (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_EQ(other_thread.load(), ahead);
    EXPECT_EQ(reader->stats().decoded_ahead, ahead ? 1 : 0);
  }
}

TEST(DecodeAheadTest, DecodedWarmupAtOneProducerDecodesTheNextFileAhead) {
  rap::testing::LocalScanTable table;
  rap::testing::ScanTableOptions t;
  t.files = 3;
  t.rows_per_file = 500;
  ASSERT_TRUE(table.Write(t).ok());
  ScanOptions o = Plain();
  auto want = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(want.ok());
  o.warmup.level = WarmupLevel::kDecoded;
  auto got = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->fingerprint, want->fingerprint);
  EXPECT_EQ(got->ids, want->ids);
  EXPECT_EQ(got->stats.prefetch.decoded_ahead, 2);  // every file after the first
  o.warmup.level = WarmupLevel::kRaw;
  auto raw = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->stats.prefetch.decoded_ahead, 0);
}

}  // namespace
}  // namespace rap::read
