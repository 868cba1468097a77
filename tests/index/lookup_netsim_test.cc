// rap-test-labels: network
// Lookups over plain HTTP (rap-netsim serving the table and its index), with request accounting
// from rap-netsim's read log: the index is found without listing; a warm covered lookup reads no
// data-file footer or page index and exactly one index page per (key, fragment) of its bucket; a
// repeated key is answered in one dependent round from the index page cache; a plain lookup reads
// each data file's footer once per process. Results always equal a brute-force scan.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/index_table.h"
#include "testing/netsim_fixture.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;
using rap::testing::BruteForce;
using rap::testing::NetsimRead;

class LookupNetsimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    opts_.files = 3;
    opts_.rows = 2000;
    opts_.key_space = 300;
    names_ = rap::testing::WriteIndexTable(root_, opts_);
    BuildOptions o;
    o.key_columns = {"k"};
    o.buckets = 2;
    o.cover = {"v", "name"};
    auto built = BuildIndex(root_, o);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    // A second fragment per bucket: one more file, indexed by an update.
    rap::testing::IndexTableOptions more = opts_;
    more.files = 1;
    more.first_file = 3;
    more.seed = 99;
    auto added = rap::testing::WriteIndexTable(root_, more);
    names_.insert(names_.end(), added.begin(), added.end());
    auto up = UpdateIndex(DefaultIndexUrl(root_), {});
    ASSERT_TRUE(up.ok()) << up.status().ToString();
    ASSERT_EQ(up->manifest.fragments.size(), 4u);
    std::vector<std::string> paths;
    for (const std::string& n : names_) paths.push_back(root_ + "/" + n);
    auto bf = BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    bf_ = std::move(*bf);
    // Where each Parquet file's page indexes and footer begin (everything from there to the end).
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      if (e.path().extension() != ".parquet") continue;
      auto store = io::OpenUrl(e.path().string());
      ASSERT_TRUE(store.ok());
      auto reader = read::FileReader::Open(store->store, store->path);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      uint64_t tail = reader.value()->info().size - 8;
      for (const auto& rg : reader.value()->metadata().row_groups) {
        for (const auto& cc : rg.columns) {
          for (auto off : {cc.column_index_offset, cc.offset_index_offset}) {
            if (off) tail = std::min(tail, static_cast<uint64_t>(*off));
          }
        }
      }
      tail_["/" + fs::relative(e.path(), dir_.path()).string()] = tail;
    }
    rap::testing::NetsimOptions no;
    no.root = dir_.path();
    no.latency = "2ms";
    auto ns = rap::testing::NetsimServer::Start(no);
    ASSERT_TRUE(ns.ok()) << ns.status().ToString();
    netsim_ = std::move(*ns);
    url_ = netsim_->url() + "/t";
  }

  static bool IsFragment(const std::string& path) { return path.find("/_rap_index/") != std::string::npos; }

  // The reads since the last reset that touched a page index or a footer.
  std::string Describe(const std::vector<NetsimRead>& reads) const {
    std::string out;
    for (const NetsimRead& r : reads) {
      out += r.path + " [" + std::to_string(r.first) + ", +" + std::to_string(r.length) + ") tail from " +
             std::to_string(tail_.count(r.path) ? tail_.at(r.path) : 0) + "\n";
    }
    return out;
  }

  std::vector<NetsimRead> TailReads(const std::vector<NetsimRead>& reads) const {
    std::vector<NetsimRead> out;
    for (const NetsimRead& r : reads) {
      auto it = tail_.find(r.path);
      if (it != tail_.end() && r.first + r.length > it->second) out.push_back(r);
    }
    return out;
  }

  void ExpectRowsEqual(Index& idx, const LookupResult& res, const std::vector<Key>& keys) {
    std::vector<std::string> names;
    for (const Field& f : res.schema->fields) names.push_back(f.name);
    ASSERT_EQ(res.keys.size(), keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      auto want = bf_.Rows({"k"}, {FormatKey(idx.info().key, keys[i])}, names);
      EXPECT_EQ(rap::testing::ResultRows(res.keys[i]), want) << "key " << FormatKey(idx.info().key, keys[i]);
    }
  }

  rap::testing::NetsimStats Stats() {
    auto s = netsim_->Stats();
    RAP_TEST_CHECK_OK(s);
    EXPECT_EQ(s->reads_dropped, 0u);
    return s.ok() ? std::move(*s) : rap::testing::NetsimStats{};
  }

  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_, url_;
  std::vector<std::string> names_;
  BruteForce bf_;
  std::map<std::string, uint64_t> tail_;  // netsim path -> first byte of page indexes + footer
  std::unique_ptr<rap::testing::NetsimServer> netsim_;
};

TEST_F(LookupNetsimTest, WarmCoveredLookupReadsOneIndexPagePerFragmentAndNoFooter) {
  IndexOpenOptions oo;
  oo.page_cache_bytes = 0;  // every lookup reads its index pages
  ASSERT_TRUE(netsim_->ResetStats().ok());
  auto opened = Index::Open(url_, oo);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Index& idx = **opened;
  EXPECT_EQ(idx.info().manifest_version, 2);
  EXPECT_EQ(idx.info().fragments, 4);
  // Opening read the manifest and the fragments' footers and page indexes, never a data file.
  for (const NetsimRead& r : Stats().reads) EXPECT_TRUE(r.path.find("/_rap_index/") != std::string::npos) << r.path;

  LookupOptions lo;
  lo.columns = {"v", "name"};
  // Warm the process (the data files' metadata would be cached here if the path needed it).
  auto warm = idx.Lookup(std::vector<Key>{*idx.ParseKey({"7"})}, lo);
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();

  for (const char* text : {"42", "133", "250"}) {
    std::vector<Key> keys{*idx.ParseKey({text})};
    ASSERT_TRUE(netsim_->ResetStats().ok());
    auto res = idx.Lookup(keys, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    ExpectRowsEqual(idx, *res, keys);
    const auto stats = Stats();
    SCOPED_TRACE(std::string("key ") + text);
    ASSERT_GT(res->stats.rows, 0);
    EXPECT_EQ(res->stats.covered_files, res->stats.data_files);
    EXPECT_EQ(res->stats.dependent_rounds, 2);
    EXPECT_TRUE(TailReads(stats.reads).empty()) << "footer or page-index reads:\n" << Describe(TailReads(stats.reads));
    // Both fragments of the key's bucket hold it (every file has every key): one index page each.
    EXPECT_EQ(res->stats.index_pages_read, 2);
    std::set<std::string> fragments, data_files;
    for (const NetsimRead& r : stats.reads) (IsFragment(r.path) ? fragments : data_files).insert(r.path);
    EXPECT_EQ(fragments.size(), 2u);
    EXPECT_EQ(static_cast<int64_t>(data_files.size()), res->stats.data_files);
    EXPECT_EQ(static_cast<uint64_t>(res->stats.requests), stats.total.requests);
  }
}

TEST_F(LookupNetsimTest, CachedIndexPageMakesOneRoundAndPlainLookupReadsFootersOnce) {
  auto opened = Index::Open(url_);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Index& idx = **opened;
  LookupOptions lo;
  lo.columns = {"v", "name"};
  std::vector<Key> keys{*idx.ParseKey({"42"}), *idx.ParseKey({"43"}), *idx.ParseKey({"100000"})};
  auto first = idx.Lookup(keys, lo);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_GT(first->stats.index_pages_read, 0);
  ASSERT_TRUE(netsim_->ResetStats().ok());
  auto again = idx.Lookup(keys, lo);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ExpectRowsEqual(idx, *again, keys);
  EXPECT_EQ(again->stats.index_pages_read, 0);
  EXPECT_GT(again->stats.index_page_cache_hits, 0);
  EXPECT_EQ(again->stats.dependent_rounds, 1);
  for (const NetsimRead& r : Stats().reads) EXPECT_FALSE(IsFragment(r.path)) << r.path;

  // Without covering data: the first lookup reads the data files' footers and page indexes, a
  // later one of other keys in the same files does not.
  lo.use_cover = false;
  lo.columns = {"v", "tags", "s"};
  ASSERT_TRUE(netsim_->ResetStats().ok());
  auto plain = idx.Lookup(keys, lo);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  ExpectRowsEqual(idx, *plain, keys);
  EXPECT_EQ(plain->stats.covered_files, 0);
  EXPECT_FALSE(TailReads(Stats().reads).empty());
  std::vector<Key> others{*idx.ParseKey({"9"}), *idx.ParseKey({"210"})};
  ASSERT_TRUE(netsim_->ResetStats().ok());
  auto later = idx.Lookup(others, lo);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  ExpectRowsEqual(idx, *later, others);
  const auto stats = Stats();
  EXPECT_TRUE(TailReads(stats.reads).empty()) << Describe(TailReads(stats.reads));
  EXPECT_EQ(later->stats.dependent_rounds, 2);

  // The index was built from local files, so their recorded ETags are not rap-netsim's: the lookup
  // pins the ETag it first saw. A file touched since (same size, new ETag) is refused, named.
  const auto f00 = fs::path(root_) / names_[0];
  fs::last_write_time(f00, fs::last_write_time(f00) + std::chrono::seconds(5));
  auto changed = idx.Lookup(others, lo);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), StatusCode::kChanged) << changed.status().ToString();
  EXPECT_NE(changed.status().message().find(names_[0]), std::string::npos) << changed.status().ToString();
}

}  // namespace
}  // namespace rap::index
