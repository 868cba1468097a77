// rap-test-labels: network
// Range lookups over plain HTTP (rap-netsim serving the table and a sorted index), counted from
// rap-netsim's read log: a covered range lookup makes two dependent rounds — the index pages of the
// partitions the range touches (a task per touched fragment, none of the others read), then the
// data pages — and reads no data-file footer or page index. Results equal exact lookups of every key.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/key_range.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/index_table.h"
#include "testing/netsim_fixture.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;
using rap::testing::NetsimRead;

TEST(RangeNetsim, CoveredRangeReadsTouchedFragmentsThenDataInTwoRounds) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions opts;
  opts.files = 3;
  opts.rows = 2000;
  opts.key_space = 400;
  rap::testing::WriteIndexTable(root, opts);
  BuildOptions o;
  o.key_columns = {"k"};
  o.kind = IndexKind::kSorted;
  o.buckets = 6;
  o.cover = {"v", "name"};
  auto built = BuildIndex(root, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const Manifest& m = built->manifest;
  ASSERT_EQ(m.fragments.size(), 6u);
  // Where each data file's page indexes and footer begin.
  std::map<std::string, uint64_t> tail;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.path().extension() != ".parquet") continue;
    auto store = io::OpenUrl(e.path().string());
    ASSERT_TRUE(store.ok());
    auto reader = read::FileReader::Open(store->store, store->path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    uint64_t t = reader.value()->info().size - 8;
    for (const auto& rg : reader.value()->metadata().row_groups) {
      for (const auto& cc : rg.columns) {
        for (auto off : {cc.column_index_offset, cc.offset_index_offset}) {
          if (off) t = std::min(t, static_cast<uint64_t>(*off));
        }
      }
    }
    tail["/t/" + e.path().filename().string()] = t;
  }
  rap::testing::NetsimOptions no;
  no.root = dir.path();
  no.latency = "2ms";
  auto ns = rap::testing::NetsimServer::Start(no);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  IndexOpenOptions oo;
  oo.page_cache_bytes = 0;  // every lookup reads its index pages
  auto opened = Index::Open((*ns)->url() + "/t/_rap_index/default", oo);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Index& idx = **opened;
  EXPECT_EQ(idx.info().kind, IndexKind::kSorted);
  RangeLookupOptions ro;
  ro.columns = {"v", "name"};
  // Warm the process (data-file metadata would be cached here if the covered path needed it).
  ASSERT_TRUE(idx.LookupRange(*ParseKeyRange(m.key, "0..3"), ro).ok());

  for (const char* text : {"100..140", "5..<6", "150..330", "390..1000", "-50..-1", "..20"}) {
    SCOPED_TRACE(text);
    auto range = ParseKeyRange(m.key, text);
    ASSERT_TRUE(range.ok()) << range.status().ToString();
    std::set<std::string> touched;
    for (const FragmentEntry& f : m.fragments) {
      if (RangeOverlaps(m.key, *range, f.min_key, f.max_key)) touched.insert("/t/_rap_index/default/" + f.path);
    }
    ASSERT_TRUE((*ns)->ResetStats().ok());
    auto res = idx.LookupRange(*range, ro);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    auto stats = (*ns)->Stats();
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    ASSERT_EQ(stats->reads_dropped, 0u);
    std::map<std::string, int> fragment_requests;
    std::set<std::string> data_files;
    for (const NetsimRead& r : stats->reads) {
      if (r.path.find("/_rap_index/") != std::string::npos) {
        ++fragment_requests[r.path];
      } else {
        data_files.insert(r.path);
        EXPECT_LT(r.first + r.length, tail.at(r.path) + 1) << "a footer or page-index read of " << r.path;
      }
    }
    EXPECT_EQ(static_cast<uint64_t>(res->stats.requests), stats->total.requests);
    // Every fragment the range touches is read (its candidate pages: one ranged read per column
    // chunk of the fragment's columns, in the same round), none of the others.
    EXPECT_EQ(fragment_requests.size(), touched.size());
    for (const auto& [path, n] : fragment_requests) EXPECT_TRUE(touched.count(path)) << path;
    EXPECT_EQ(res->stats.covered_files, res->stats.data_files);
    EXPECT_EQ(static_cast<int64_t>(data_files.size()), res->stats.data_files);
    EXPECT_EQ(res->stats.dependent_rounds, touched.empty() ? 0 : (res->stats.rows > 0 ? 2 : 1));
    // The same rows as exact lookups of every key in the range, in key order.
    std::vector<Key> keys;
    for (int64_t k = -50; k < 1000; ++k) {
      if (KeyInRange(m.key, Key{{KeyPart{k, {}}}}, *range)) keys.push_back(Key{{KeyPart{k, {}}}});
    }
    LookupOptions lo;
    lo.columns = ro.columns;
    auto exact = idx.Lookup(keys, lo);
    ASSERT_TRUE(exact.ok()) << exact.status().ToString();
    std::vector<std::string> want, got;
    for (const KeyRows& kr : exact->keys) {
      for (std::string& s : rap::testing::ResultRows(kr)) want.push_back(std::move(s));
    }
    for (int64_t r = 0; r < res->rows.num_rows; ++r) got.push_back(rap::testing::RowText(res->rows, r));
    EXPECT_EQ(got, want);
  }
}

}  // namespace
}  // namespace rap::index
