// rap-test-labels: concurrent
// Prefetch and warmup (seed 001). The key oracle: over random tables (nulls, strings, nesting,
// random layouts), rows, values, order and nulls are the same for P in {1, 2, 3, 8}, every warmup
// level, batch sizes 1/7/64Ki, range splitting on and off and limits. Also: read ranges (one per row
// group without a page index, page-aligned pieces with one, every row in exactly one range),
// the adaptive-disable rule at its exact threshold, RAW warmup fetching nothing twice and holding its
// pre-buffer limit, a limit ending promptly while the next file's reads are stalled, no thread left
// behind by a destroyed scanner, and a producer's error returned (sticky) by Next().
#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "format/writer_testing.h"
#include "rap/format/writer.h"
#include "rap/plan/plan_record.h"
#include "rap/read/file_reader.h"
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

int CountThreads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// The process's thread count once it has held still for 100 ms (at most 3 s): threads of earlier
// tests (and a sanitizer's own) may still be ending when a test starts. A flaky TSan run counted one
// such thread in `before` and saw it gone after the reader was destroyed.
int SettledThreadCount() {
  int last = CountThreads(), still = 0;
  for (int i = 0; i < 600 && still < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int now = CountThreads();
    still = now == last ? still + 1 : 0;
    last = now;
  }
  return last;
}

// Whether the thread count comes back to at most `n` within 3 s (a thread of the object under test
// that outlives it keeps it above).
bool ThreadsBackTo(int n) {
  for (int i = 0; i < 600; ++i) {
    if (CountThreads() <= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return CountThreads() <= n;
}

ScanOptions Plain() {
  ScanOptions o;
  o.prefetch.producers = 1;
  o.prefetch.ranges.split_row_groups = false;
  o.warmup.level = WarmupLevel::kNone;
  o.reader.use_metadata_cache = false;
  return o;
}

// ---- the property test ----

// A random table: `id` (int64, the row's ordinal) then random columns, 1-3 files with random layouts.
struct RandomTable {
  rap::testing::TempDir dir;
  ScanSource source;
};

std::unique_ptr<RandomTable> MakeRandomTable(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto t = std::make_unique<RandomTable>();
  SchemaPtr random = rap::testing::RandomSchema(rng, 1 + static_cast<int>(rng() % 4), 2);
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back(Field{"id", MakeType(TypeId::kInt64), false});
  for (const Field& f : random->fields) schema->fields.push_back(f);
  auto store = io::OpenUrl(t->dir.path());
  t->source.store = store->store;
  const int files = 1 + static_cast<int>(rng() % 3);
  int64_t next_id = 0;
  for (int f = 0; f < files; ++f) {
    const int64_t rows = static_cast<int64_t>(rng() % 700);
    rap::testing::RandomDataOptions ro;
    ro.long_string_probability = 0;
    RecordBatch rb = rap::testing::RandomBatch(rng, random, rows, ro);
    std::vector<int64_t> ids(static_cast<size_t>(rows));
    for (auto& v : ids) v = next_id++;
    RecordBatch b;
    b.schema = schema;
    b.num_rows = rows;
    b.columns.push_back(rap::testing::MakeInt64Array(ids));
    for (const ArrayPtr& c : rb.columns) b.columns.push_back(c);
    parquet::WriterOptions wo = rap::testing::RandomOptions(rng, *random);
    wo.row_group_max_rows = 1 + static_cast<int64_t>(rng() % 300);
    wo.defaults.page_max_rows = 1 + static_cast<int64_t>(rng() % 40);
    wo.columns["id"].page_max_rows = 1 + static_cast<int64_t>(rng() % 40);  // pages of id and the others differ
    auto bytes = parquet::WriteParquetToString(schema, {b}, wo);
    RAP_TEST_CHECK_OK(bytes);
    const std::string name = "f" + std::to_string(f) + ".parquet";
    rap::testing::WriteStringToFile(t->dir.Join(name), *bytes);
    ScanFile sf;
    sf.path = io::JoinPath(store->path, name);
    sf.size = bytes->size();
    t->source.files.push_back(sf);
  }
  return t;
}

TEST(PrefetchPropertyTest, SameRowsForEverySetting) {
  const char* filters[] = {"", "id >= 40 AND id < 900", "id < 30 OR id > 1000"};
  const int64_t batches[] = {1, 7, 64 * 1024};
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto table = MakeRandomTable(seed);
    std::mt19937_64 rng(seed * 7919);
    const std::string filter = filters[seed % 3];
    ScanOptions ref_options = Plain();
    if (!filter.empty()) ref_options.filter = *ParseExpr(filter);
    auto ref = rap::testing::RunScan(table->source, ref_options);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    int k = 0;
    for (int producers : {1, 2, 3, 8}) {
      for (WarmupLevel warmup : {WarmupLevel::kNone, WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
        for (bool split : {false, true}) {
          ScanOptions o = ref_options;
          o.prefetch.producers = producers;
          o.prefetch.min_file_bytes = 0;  // small files take the parallel path too
          o.prefetch.queue_batches = 1 + static_cast<int64_t>(rng() % 12);  // full queues happen
          o.prefetch.adaptive = rng() % 2;
          o.prefetch.ranges.split_row_groups = split;
          o.prefetch.ranges.natural_read_size = 64 + rng() % 2048;
          o.prefetch.fetch_ahead = static_cast<int>(rng() % 4);  // 0: off
          o.warmup.level = warmup;
          o.warmup.pre_buffer_limit = rng() % 2 ? (uint64_t{1} << 30) : 512;
          o.batch_size = batches[k++ % 3];
          const int64_t limits[] = {-1, -1, 0, 1, static_cast<int64_t>(rng() % 500)};
          o.limit = limits[rng() % 5];
          SCOPED_TRACE(fmt::format("P {} warmup {} split {} batch {} limit {}", producers, static_cast<int>(warmup),
                                   split, o.batch_size, o.limit));
          auto got = rap::testing::RunScan(table->source, o);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          const size_t n = o.limit < 0 ? ref->ids.size() : std::min(ref->ids.size(), static_cast<size_t>(o.limit));
          ASSERT_EQ(got->ids.size(), n);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(got->ids[i], ref->ids[i]) << "row " << i;
            ASSERT_EQ(got->values[i], ref->values[i]) << "row " << i;
          }
          if (o.limit < 0) {
            EXPECT_EQ(got->fingerprint, ref->fingerprint);
            EXPECT_EQ(got->stats.rows_selected, ref->stats.rows_selected);
            EXPECT_EQ(got->stats.row_groups, ref->stats.row_groups);
            // Pages feeding two ranges are shared: a split read decodes no page more often than an
            // unsplit one (fewer when a range loads a shared page twice, e.g. codes then values).
            EXPECT_LE(got->stats.pages_read, ref->stats.pages_read);
            EXPECT_LE(got->stats.dictionary_pages_read, ref->stats.dictionary_pages_read);
          }
        }
      }
    }
  }
}

// ---- read ranges ----

class RangesTest : public ::testing::Test {
 protected:
  // One file: id (pages of 10 rows), v (pages of 15 rows), 3 row groups of 300 rows.
  std::shared_ptr<FileReader> Write(bool page_index) {
    auto schema = std::make_shared<Schema>();
    schema->fields = {{"id", MakeType(TypeId::kInt64), false}, {"v", MakeType(TypeId::kFloat64), true}};
    std::vector<int64_t> ids(900);
    std::vector<double> vs(900);
    for (size_t i = 0; i < ids.size(); ++i) {
      ids[i] = static_cast<int64_t>(i);
      vs[i] = static_cast<double>(i) * 0.5;
    }
    RecordBatch b = rap::testing::MakeBatch(schema, {rap::testing::MakeInt64Array(ids), rap::testing::MakeDoubleArray(vs)});
    parquet::WriterOptions wo;
    wo.row_group_max_rows = 300;
    wo.defaults.dictionary = false;
    wo.columns["id"].page_max_rows = 10;
    wo.columns["v"].page_max_rows = 15;
    wo.write_page_index = page_index;
    auto bytes = parquet::WriteParquetToString(schema, {b}, wo);
    RAP_TEST_CHECK_OK(bytes);
    const std::string name = page_index ? "indexed.parquet" : "plain.parquet";
    rap::testing::WriteStringToFile(dir_.Join(name), *bytes);
    auto store = io::OpenUrl(dir_.path());
    FileReaderOptions ro;
    ro.use_metadata_cache = false;
    auto r = FileReader::Open(store->store, io::JoinPath(store->path, name), ro);
    RAP_TEST_CHECK_OK(r);
    return *r;
  }
  rap::testing::TempDir dir_;
};

TEST_F(RangesTest, OneRangePerRowGroupWithoutAPageIndex) {
  auto reader = Write(false);
  RangeOptions o;
  o.natural_read_size = 100;  // would split, but there is no OffsetIndex
  auto ranges = PlanReadRanges(*reader, {0, 1, 2}, {0, 1}, o);
  ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
  ASSERT_EQ(ranges->size(), 3u);
  for (int rg = 0; rg < 3; ++rg) {
    EXPECT_EQ((*ranges)[static_cast<size_t>(rg)].row_group, rg);
    EXPECT_EQ((*ranges)[static_cast<size_t>(rg)].begin, 0);
    EXPECT_EQ((*ranges)[static_cast<size_t>(rg)].end, 300);
  }
}

TEST_F(RangesTest, LargeRowGroupsSplitAtTheDominantColumnsPageStarts) {
  auto reader = Write(true);
  RangeOptions o;
  o.natural_read_size = 400;  // a few pages
  for (const std::vector<int>& columns : {std::vector<int>{0, 1}, std::vector<int>{0}}) {
    auto ranges = PlanReadRanges(*reader, {0, 1, 2}, columns, o);
    ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
    ASSERT_GT(ranges->size(), 3u);
    // Every row of every row group in exactly one range, in order; boundaries where a page of the
    // column with the most compressed bytes starts (id: multiples of 10 rows, v: of 15).
    auto chunk_bytes = [&](int c) { return reader->metadata().row_groups[0].columns[static_cast<size_t>(c)].meta_data->total_compressed_size; };
    const int64_t step = columns.size() == 2 && chunk_bytes(1) > chunk_bytes(0) ? 15 : 10;
    int rg = 0;
    int64_t next = 0;
    for (const ReadRange& r : *ranges) {
      if (r.row_group != rg) {
        EXPECT_EQ(next, 300);
        rg = r.row_group;
        next = 0;
      }
      EXPECT_EQ(r.begin, next) << r.ToString();
      EXPECT_EQ(r.first_of_row_group, r.begin == 0);
      EXPECT_EQ(r.begin % step, 0) << r.ToString();
      EXPECT_GT(r.end, r.begin);
      next = r.end;
    }
    EXPECT_EQ(rg, 2);
    EXPECT_EQ(next, 300);
  }
  o.split_row_groups = false;
  auto whole = PlanReadRanges(*reader, {0, 1, 2}, {0, 1}, o);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->size(), 3u);
}

TEST_F(RangesTest, SplitScanFetchesEveryPageOnce) {
  auto reader = Write(true);
  auto inner = io::OpenUrl(dir_.path());
  auto observed = std::make_shared<ObservedStore>(inner->store);
  ScanSource src;
  src.store = observed;
  ScanFile f;
  f.path = io::JoinPath(inner->path, "indexed.parquet");
  src.files.push_back(f);
  ScanOptions o = Plain();
  o.prefetch.producers = 3;
  o.prefetch.min_file_bytes = 0;
  o.prefetch.ranges.split_row_groups = true;
  o.prefetch.ranges.natural_read_size = 400;
  auto got = rap::testing::RunScan(src, o);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ids.size(), 900u);
  EXPECT_GT(got->stats.prefetch.ranges, 3);
  // No byte of column data is requested twice.
  std::vector<ByteRange> rs = observed->ranges()[f.path];
  std::sort(rs.begin(), rs.end(), [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < rs.size(); ++i) EXPECT_LE(rs[i - 1].end(), rs[i].offset) << rs[i].ToString();
}

// ---- adaptive disable ----

TEST(PrefetchAdaptiveTest, FiresExactlyWhenTheFirstRangeOverflowsAQueue) {
  rap::testing::LocalScanTable table;
  rap::testing::ScanTableOptions t;
  t.files = 2;
  t.rows_per_file = 2000;
  t.row_group_rows = 1000;  // first range: 1000 rows = 100 batches of 10
  ASSERT_TRUE(table.Write(t).ok());
  ScanOptions o = Plain();
  o.prefetch.producers = 3;
  o.prefetch.min_file_bytes = 0;
  o.batch_size = 10;
  o.prefetch.queue_batches = 300;  // 100 per producer: the first range fits
  auto fits = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(fits->stats.prefetch.adaptive_disabled, 0);
  EXPECT_EQ(fits->stats.prefetch.files_parallel, 2);
  o.prefetch.queue_batches = 297;  // 99 per producer: it does not
  auto over = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(over->stats.prefetch.adaptive_disabled, 2);
  EXPECT_EQ(over->stats.prefetch.files_parallel, 0);
  EXPECT_EQ(over->fingerprint, fits->fingerprint);
  o.prefetch.adaptive = false;
  auto forced = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->stats.prefetch.adaptive_disabled, 0);
  EXPECT_GT(forced->stats.prefetch.queue_full, 0);
  EXPECT_EQ(forced->fingerprint, fits->fingerprint);
  // A file below min_file_bytes is read on the plain path.
  o.prefetch.min_file_bytes = uint64_t{1} << 30;
  auto small = rap::testing::RunScan(table.Source(), o);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->stats.prefetch.small_files, 2);
  EXPECT_EQ(small->fingerprint, fits->fingerprint);
}

// ---- warmup ----

// Warmup changes when bytes are read, never which: the same rows as the scan without warmup, each
// footer read once, the same bytes, and no byte range requested twice.
template <class Run>
void ExpectSameReadsAsWithoutWarmup(const std::vector<uint64_t>& ids, const ScanStats& st, ObservedStore& store,
                                    const Run& none, ObservedStore& none_store) {
  EXPECT_EQ(ids, none.ids);
  EXPECT_EQ(store.tails(), none_store.tails());
  EXPECT_EQ(st.bytes, none.stats.bytes);
  for (const auto& [path, rs] : store.ranges()) {
    std::set<std::pair<uint64_t, uint64_t>> seen;
    for (const ByteRange& r : rs) EXPECT_TRUE(seen.insert({r.offset, r.length}).second) << path << " " << r.ToString();
  }
}

class WarmupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rap::testing::ScanTableOptions t;
    t.files = 3;
    t.rows_per_file = 3000;
    t.row_group_rows = 500;
    ASSERT_TRUE(table_.Write(t).ok());
  }
  ScanSource Observed(std::shared_ptr<ObservedStore>* out) {
    ScanSource src = table_.Source();
    auto observed = std::make_shared<ObservedStore>(src.store);
    src.store = observed;
    *out = observed;
    return src;
  }
  rap::testing::LocalScanTable table_;
};

TEST_F(WarmupTest, RawFetchesTheNextFileOnceAndTheReaderUsesIt) {
  std::shared_ptr<ObservedStore> none_store, raw_store;
  ScanOptions o = Plain();
  o.prefetch.producers = 3;
  o.prefetch.min_file_bytes = 0;
  auto none = rap::testing::RunScan(Observed(&none_store), o);
  ASSERT_TRUE(none.ok());
  for (WarmupLevel level : {WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
    o.warmup.level = level;
    auto raw = rap::testing::RunScan(Observed(&raw_store), o);
    ASSERT_TRUE(raw.ok()) << raw.status().ToString();
    EXPECT_EQ(raw->fingerprint, none->fingerprint);
    EXPECT_EQ(raw->stats.warmup_files, 2);  // files 1 and 2; never past the last
    EXPECT_GT(raw->stats.warmup_bytes, 0u);
    EXPECT_EQ(raw->stats.warmup_bytes_unused, 0u);
    // The same bytes in total: what was warmed was not requested again.
    EXPECT_EQ(raw->stats.bytes, none->stats.bytes);
    EXPECT_EQ(raw_store->tails(), none_store->tails());  // each footer read as often as without warmup
    for (const auto& [path, rs] : raw_store->ranges()) {
      std::set<std::pair<uint64_t, uint64_t>> seen;
      for (const ByteRange& r : rs) EXPECT_TRUE(seen.insert({r.offset, r.length}).second) << path << " " << r.ToString();
    }
  }
}

TEST_F(WarmupTest, RawWarmsBothReadsOfTheFirstRangeUnderAFilter) {
  // One producer (the plain path: no fetch-ahead), whole row groups: the warmed files' first range
  // makes no data request of its own, read 1 (the filter column) and read 2 (the other output
  // columns) both come from the warmup; before, read 2 was a dependent round trip. 's' = 'kiwi'
  // selects rows in every page, so the warmed read-2 pages are exactly those read.
  plan::PlanLog none_log, raw_log;
  std::shared_ptr<ObservedStore> raw_store, none_store;
  ScanOptions o = Plain();
  o.columns = {"id", "v", "s"};
  o.filter = *ParseExpr("s = 'kiwi'");
  o.reader.plan.log = &none_log;
  auto none = rap::testing::RunScan(Observed(&none_store), o);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  o.warmup.level = WarmupLevel::kRaw;
  o.reader.plan.log = &raw_log;
  auto raw = rap::testing::RunScan(Observed(&raw_store), o);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(raw->fingerprint, none->fingerprint);
  EXPECT_EQ(raw->stats.warmup_files, 2);
  EXPECT_EQ(raw->stats.warmup_bytes_unused, 0u);
  EXPECT_EQ(raw->stats.bytes, none->stats.bytes);
  auto data_reads = [](const plan::PlanLog& log) {
    std::map<std::string, int> n;
    for (const plan::PlanRecord& r : log.Records()) {
      if (r.purpose == "data") ++n[r.object];
    }
    return n;
  };
  const std::map<std::string, int> without = data_reads(none_log), with = data_reads(raw_log);
  ASSERT_EQ(without.size(), 3u);
  int warmed = 0;
  for (const auto& [object, n] : without) {
    const int got = with.count(object) ? with.at(object) : 0;
    if (got == n) continue;  // the first file: not warmed
    EXPECT_EQ(got, n - 2) << object;  // read 1 and read 2 of its first range came from the warmup
    ++warmed;
  }
  EXPECT_EQ(warmed, 2);
  for (const auto& [path, rs] : raw_store->ranges()) {
    std::set<std::pair<uint64_t, uint64_t>> seen;
    for (const ByteRange& r : rs) EXPECT_TRUE(seen.insert({r.offset, r.length}).second) << path << " " << r.ToString();
  }
}

// The regression after fetch-ahead (docs/benchmarks/prefetch.md): the warmup was one file ahead of
// the consumer only, so at DECODED the consumer, done with the decoded-ahead file b in no time,
// waited at b's end for file c's whole warmup (footer, fetch), which began only when it reached b.
// Now the warmed file b is taken early (its producers start: DECODED once it is prepared, RAW once
// a's producers are done) and c's warmup begins then, while the consumer is still on file a. The
// consumer slows down on file a (a sleep between its batches, only to let the threads run: nothing
// here depends on how long anything takes) until c's footer was read, and the test checks that this
// happened before the consumer took its first row of file b, with every byte requested once and the
// same rows.
TEST_F(WarmupTest, TheFileAfterTheNextIsWarmedWhileTheConsumerIsOnTheFirst) {
  for (WarmupLevel level : {WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
    SCOPED_TRACE(static_cast<int>(level));
    ScanOptions o = Plain();
    o.prefetch.producers = 3;
    o.prefetch.min_file_bytes = 0;
    o.batch_size = 50;
    std::shared_ptr<ObservedStore> none_store, store;
    auto none = rap::testing::RunScan(Observed(&none_store), o);
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    o.warmup.level = level;
    auto scanner = Scanner::Make(Observed(&store), o);
    ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
    auto c_footer_read = [&] {
      for (const auto& [path, n] : store->tails()) {
        if (path.find("part=c") != std::string::npos && n > 0) return true;
      }
      return false;
    };
    std::vector<uint64_t> ids;
    bool c_before_b = false, in_b = false;
    while (true) {
      if (!in_b && !c_footer_read()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      auto b = (*scanner)->Next();
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      if (!*b) break;
      if (!in_b && ((*b)->row_ids.front() >> 40) == 1) {
        in_b = true;
        c_before_b = c_footer_read();
      }
      ids.insert(ids.end(), (*b)->row_ids.begin(), (*b)->row_ids.end());
    }
    EXPECT_TRUE(in_b);
    EXPECT_TRUE(c_before_b);  // file c's warmup began before the consumer reached file b
    const ScanStats& st = (*scanner)->stats();
    EXPECT_EQ(st.warmup_ahead, 1);  // c
    EXPECT_EQ(st.warmup_files, 2);  // b and c, once each
    EXPECT_EQ(st.warmup_bytes_unused, 0u);
    ExpectSameReadsAsWithoutWarmup(ids, st, *store, *none, *none_store);
  }
}

// RAW takes the warmed next file early once every producer of the current file has begun its last
// range (all of that file's reads are issued), not only once they have all finished: the next
// file's producers then read while the current file's last reads are in flight, and the file after
// it is warmed (docs/benchmarks/prefetch.md: at 50 ms / 64 MiB/s each file's start waited a round
// trip for the previous file's last range). The reads of file a's last row group are held until
// the test lets them through: file c's footer must be read while they are still held, so the
// scanner moved on while a's last range was in flight. (If it does not, the holder lets the reads
// through after 3 s and the test fails; nothing is measured.)
TEST_F(WarmupTest, RawTakesTheNextFileEarlyOnceEveryProducerIsOnItsLastRange) {
  ScanOptions o = Plain();
  o.prefetch.producers = 3;  // 6 row groups: producer p runs ranges p and p + 3
  o.prefetch.min_file_bytes = 0;
  o.batch_size = 50;
  std::shared_ptr<ObservedStore> none_store, store;
  auto none = rap::testing::RunScan(Observed(&none_store), o);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  o.warmup.level = WarmupLevel::kRaw;
  ScanSource src = Observed(&store);
  const std::string a = src.files[0].path;
  auto reader = FileReader::Open(table_.Source().store, a, FileReaderOptions());  // (not counted)
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  uint64_t last_start = UINT64_MAX;  // the first byte of a's last row group
  for (const parquet::ColumnChunk& c : (*reader)->metadata().row_groups.back().columns) {
    last_start = std::min<uint64_t>(last_start, static_cast<uint64_t>(c.meta_data->dictionary_page_offset.value_or(
                                                    c.meta_data->data_page_offset)));
  }
  store->GateReadsFrom(a, last_start);
  auto c_footer_read = [&] {
    for (const auto& [path, n] : store->tails()) {
      if (path.find("part=c") != std::string::npos && n > 0) return true;
    }
    return false;
  };
  std::atomic<bool> c_while_held{false};
  std::thread holder([&] {
    for (int i = 0; i < 3000 && !c_footer_read(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    c_while_held = c_footer_read() && store->gated_reads() > 0;
    store->OpenGate();
  });
  auto scanner = Scanner::Make(src, o);
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<uint64_t> ids;
  while (true) {
    // Slow on file a until c's footer shows up: only lets the warmup threads run.
    if (ids.size() < 3000 && !c_footer_read()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto b = (*scanner)->Next();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    if (!*b) break;
    ids.insert(ids.end(), (*b)->row_ids.begin(), (*b)->row_ids.end());
  }
  holder.join();
  EXPECT_TRUE(c_while_held);  // c was warmed while a's last range was held
  const ScanStats& st = (*scanner)->stats();
  EXPECT_EQ(st.warmup_ahead, 1);  // c
  EXPECT_EQ(st.warmup_files, 2);
  ExpectSameReadsAsWithoutWarmup(ids, st, *store, *none, *none_store);
}

TEST_F(WarmupTest, PreBufferLimitHolds) {
  ScanOptions o = Plain();
  o.prefetch.producers = 3;
  o.prefetch.min_file_bytes = 0;
  o.warmup.level = WarmupLevel::kRaw;
  o.warmup.pre_buffer_limit = 3000;  // less than the first ranges
  auto small = rap::testing::RunScan(table_.Source(), o);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->stats.warmup_files, 2);
  EXPECT_EQ(small->stats.warmup_partial, 2);
  EXPECT_LE(small->stats.warmup_bytes, 2u * 3000u);
  o.warmup.level = WarmupLevel::kNone;
  auto none = rap::testing::RunScan(table_.Source(), o);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(small->fingerprint, none->fingerprint);
}

TEST_F(WarmupTest, LimitEndsPromptlyWhileTheNextFileIsStalled) {
  for (WarmupLevel level : {WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
    std::shared_ptr<ObservedStore> store;
    ScanSource src = Observed(&store);
    store->StallPathsContaining("part=b");
    ScanOptions o = Plain();
    o.prefetch.producers = 2;
    o.prefetch.min_file_bytes = 0;
    o.warmup.level = level;
    o.limit = 10;
    auto r = rap::testing::RunScan(src, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->ids.size(), 10u);
    EXPECT_TRUE(store->saw_cancelled_stall());  // the warmup was reading part=b and was cancelled
  }
}

TEST_F(WarmupTest, UnusedWarmBytesAreCounted) {
  ScanOptions o = Plain();
  o.prefetch.producers = 2;
  o.prefetch.min_file_bytes = 0;
  o.warmup.level = WarmupLevel::kRaw;
  o.batch_size = 100;
  o.limit = 2999;  // ends inside file a, after the warmup of file b completed (or not)
  auto scanner = Scanner::Make(table_.Source(), o);
  ASSERT_TRUE(scanner.ok());
  int64_t rows = 0;
  while (true) {
    auto b = (*scanner)->Next();
    ASSERT_TRUE(b.ok());
    if (!*b) break;
    rows += (*b)->batch.num_rows;
  }
  EXPECT_EQ(rows, 2999);
  const ScanStats& s = (*scanner)->stats();
  EXPECT_LE(s.warmup_bytes_unused, s.warmup_bytes);
  EXPECT_LE(s.warmup_files, 1);
}

// ---- threads and errors ----

TEST_F(WarmupTest, NoThreadOutlivesADestroyedScanner) {
  const int before = SettledThreadCount();
  for (WarmupLevel level : {WarmupLevel::kNone, WarmupLevel::kRaw, WarmupLevel::kDecoded}) {
    ScanOptions o = Plain();
    o.prefetch.producers = 8;
    o.prefetch.min_file_bytes = 0;
    o.prefetch.queue_batches = 8;
    o.prefetch.adaptive = false;
    o.prefetch.ranges.split_row_groups = true;
    o.prefetch.ranges.natural_read_size = 256;
    o.warmup.level = level;
    o.batch_size = 7;
    auto scanner = Scanner::Make(table_.Source(), o);
    ASSERT_TRUE(scanner.ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*scanner)->Next().ok());
    EXPECT_GT(CountThreads(), before);  // producers (and the warmup) are running
    scanner->reset();
    EXPECT_TRUE(ThreadsBackTo(before)) << CountThreads() << " threads, " << before << " before";
  }
}

// A range task that returns one batch holding its row group number.
Status OneBatch(const ReadRange& r, RangeOutput* out) {
  ScanBatch b;
  b.batch.num_rows = 1;
  b.batch.columns.push_back(rap::testing::MakeInt64Array({r.row_group}));
  b.row_ids = {static_cast<uint64_t>(r.row_group)};
  out->batches.push_back(std::move(b));
  return Status::OK();
}

TEST(PrefetchReaderTest, FetchAheadFetchesTheNextRangesWhileTheCurrentOneRuns) {
  const int n = 12, p = 2;
  std::vector<ReadRange> ranges;
  for (int i = 0; i < n; ++i) ranges.push_back(ReadRange{i, 0, 10, 1000, true, nullptr});
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> handed(n, 0), fetched(n, 0);
  std::vector<bool> handed_before_run(n, false), overlapped(n, false);
  FetchAheadTask fetch = [&](const std::vector<const ReadRange*>& rs) -> std::function<void()> {
    std::vector<int> ids;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (const ReadRange* r : rs) {
        ++handed[static_cast<size_t>(r->row_group)];
        ids.push_back(r->row_group);
      }
    }
    cv.notify_all();
    return [&, ids] {
      {
        std::lock_guard<std::mutex> lock(mu);
        for (int i : ids) ++fetched[static_cast<size_t>(i)];
      }
      cv.notify_all();
    };
  };
  RangeTask task = [&](const ReadRange& r, RangeOutput* out) -> Status {
    const size_t i = static_cast<size_t>(r.row_group);
    std::unique_lock<std::mutex> lock(mu);
    handed_before_run[i] = handed[i] > 0;
    // The producer's next range is fetched by its fetcher while this one runs (bounded wait: a
    // missing fetch fails the test instead of hanging it).
    if (i + p < static_cast<size_t>(n)) {
      overlapped[i] = cv.wait_for(lock, std::chrono::seconds(20), [&] { return fetched[i + p] > 0; });
    }
    lock.unlock();
    return OneBatch(r, out);
  };
  PrefetchOptions po;
  po.producers = p;
  po.min_file_bytes = 0;
  po.adaptive = false;
  po.fetch_ahead = 2;
  io::CancellationToken cancel;
  auto reader = PrefetchReader::Make(ranges, task, 1, po, &cancel, false, nullptr, fetch);
  ASSERT_EQ(reader->path(), PrefetchReader::Path::kParallel);
  std::vector<int64_t> got;
  while (true) {
    auto item = reader->Next();
    ASSERT_TRUE(item.ok()) << item.status().ToString();
    if (!*item) break;
    if ((*item)->batch) got.push_back((*item)->batch->batch.columns[0]->values<int64_t>()[0]);
  }
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], i);  // row order
  EXPECT_EQ(reader->stats().fetched_ahead, n - p);
  reader.reset();
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    // Ranges past each producer's first are handed once and fetched once, before they run.
    EXPECT_EQ(handed[static_cast<size_t>(i)], i < p ? 0 : 1);
    EXPECT_EQ(fetched[static_cast<size_t>(i)], i < p ? 0 : 1);
    EXPECT_EQ(handed_before_run[static_cast<size_t>(i)], i >= p);
    if (i + p < n) {
      EXPECT_TRUE(overlapped[static_cast<size_t>(i)]);
    }
  }
}

TEST(PrefetchReaderTest, DestroyingTheReaderCancelsABlockedFetchAhead) {
  const int before = SettledThreadCount();
  std::vector<ReadRange> ranges;
  for (int i = 0; i < 8; ++i) ranges.push_back(ReadRange{i, 0, 10, 1000, true, nullptr});
  io::CancellationToken cancel;
  std::atomic<bool> started{false}, saw_cancel{false};
  FetchAheadTask fetch = [&](const std::vector<const ReadRange*>&) -> std::function<void()> {
    return [&] {
      started = true;
      // A fetch that only ends when its read is cancelled (at most 20 s).
      for (int k = 0; k < 20000 && !cancel.cancelled(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      saw_cancel = cancel.cancelled();
    };
  };
  PrefetchOptions po;
  po.producers = 2;
  po.min_file_bytes = 0;
  po.adaptive = false;
  // Range 0 runs once its producer's fetcher is inside the blocked fetch (bounded wait).
  RangeTask task = [&](const ReadRange& r, RangeOutput* out) -> Status {
    for (int k = 0; k < 20000 && r.row_group == 0 && !started; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return OneBatch(r, out);
  };
  auto reader = PrefetchReader::Make(ranges, task, 1, po, &cancel, false, nullptr, fetch);
  auto item = reader->Next();
  ASSERT_TRUE(item.ok());
  ASSERT_TRUE(started);
  EXPECT_GT(CountThreads(), before);  // the blocked fetcher at least
  reader.reset();  // cancels the blocked fetch and joins every thread
  EXPECT_TRUE(ThreadsBackTo(before)) << CountThreads() << " threads, " << before << " before";
  EXPECT_TRUE(saw_cancel);
}

TEST(PrefetchReaderTest, AProducerErrorIsStickyAndStopsTheOthers) {
  std::vector<ReadRange> ranges;
  for (int i = 0; i < 40; ++i) ranges.push_back(ReadRange{i, 0, 10, 1000, true, nullptr});
  std::atomic<int> ran{0};
  RangeTask task = [&](const ReadRange& r, RangeOutput* out) -> Status {
    ++ran;
    if (r.row_group == 13) return Status::IOError("range 13 failed (injected)");
    return OneBatch(r, out);
  };
  PrefetchOptions po;
  po.producers = 4;
  po.min_file_bytes = 0;
  po.queue_batches = 8;
  po.adaptive = false;
  io::CancellationToken cancel;
  auto reader = PrefetchReader::Make(ranges, task, 1, po, &cancel);
  ASSERT_EQ(reader->path(), PrefetchReader::Path::kParallel);
  std::vector<int64_t> got;
  Status error;
  while (true) {
    auto item = reader->Next();
    if (!item.ok()) {
      error = item.status();
      break;
    }
    ASSERT_TRUE(item->has_value());
    if ((*item)->batch) got.push_back((*item)->batch->batch.columns[0]->values<int64_t>()[0]);
  }
  EXPECT_TRUE(error.Is(StatusCode::kIOError)) << error.ToString();
  EXPECT_TRUE(cancel.cancelled());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], static_cast<int64_t>(i));  // in order, before 13
  EXPECT_LE(got.size(), 13u);
  EXPECT_EQ(reader->Next().status().ToString(), error.ToString());  // sticky
  reader.reset();
  EXPECT_LT(ran.load(), 40);  // the others stopped
}

}  // namespace
}  // namespace rap::read
