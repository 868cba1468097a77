// The latest bundle `_manifest/_latest.json` (index/latest_bundle.h): written with every published
// version, opened in one round, and only a cache — a stale bundle (a writer stopped after its
// manifest) is caught by the probe of its next version and the lookup answers from the newest
// version; a damaged or missing one falls back to the hint. Every lookup is checked against the
// brute-force reference of the files the newest version indexes.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/latest_bundle.h"
#include "rap/index/maintenance.h"
#include "rap/io/object_store.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

class LatestBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    rap::testing::IndexTableOptions to;
    to.files = 3;
    to.rows = 1500;
    to.key_space = 200;
    files_ = rap::testing::WriteIndexTable(root_, to);
    BuildOptions o;
    o.key_columns = {"k"};
    o.buckets = 4;
    o.cover = {"v"};
    auto built = BuildIndex(root_, o);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    url_ = DefaultIndexUrl(root_);
  }

  // The reference rows of `key` over the table's files f00..f<n-1>.
  std::vector<std::string> Want(int files, const std::string& key) const {
    std::vector<std::string> paths;
    for (int f = 0; f < files; ++f) paths.push_back(root_ + "/" + rap::testing::IndexTableFileName(f));
    auto bf = rap::testing::BruteForce::Load(paths);
    EXPECT_TRUE(bf.ok());
    return bf->Rows({"k"}, {key}, {"k", "v"});
  }

  static std::vector<std::string> Got(Index& idx, const std::string& key) {
    const Key k = *idx.ParseKey({key});
    LookupOptions lo;
    lo.columns = {"k", "v"};
    auto res = idx.Lookup({&k, 1}, lo);
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    if (!res.ok() || res->keys.empty()) return {};
    return rap::testing::ResultRows(res->keys[0]);
  }

  static Result<std::shared_ptr<Index>> OpenCold(const std::string& url) {
    IndexOpenOptions oo;
    oo.preload = false;
    return Index::Open(url, oo);
  }

  rap::testing::TempDir dir_;
  std::string root_, url_;
  std::vector<std::string> files_;
};

TEST_F(LatestBundleTest, PublishingWritesItAndAColdOpenTakesOneRound) {
  const std::string text = rap::testing::ReadFileToString(url_ + "/_manifest/_latest.json");
  auto b = LatestBundleFromJson(text, "bundle");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->manifest.version, 1);
  // Every schema file, byte for byte.
  ASSERT_EQ(b->schema_files.size(), b->manifest.schemas.size());
  for (const std::string& s : b->manifest.schemas) {
    ASSERT_TRUE(b->schema_files.count(s)) << s;
    EXPECT_EQ(std::string(b->schema_files.at(s).view()), rap::testing::ReadFileToString(url_ + "/" + s));
  }
  // The manifest exactly as published.
  EXPECT_EQ(ManifestToJson(b->manifest), rap::testing::ReadFileToString(ManifestPath(url_, 1)));
  EXPECT_EQ(LatestBundleToJson(*b), text);

  for (const std::string& url : {url_, root_}) {
    auto idx = OpenCold(url);
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    EXPECT_TRUE((*idx)->info().opened_from_bundle) << url;
    EXPECT_EQ((*idx)->info().open_rounds, 1) << url;
    for (const char* key : {"3", "77", "150"}) EXPECT_EQ(Got(**idx, key), Want(3, key)) << url << " key " << key;
  }
}

TEST_F(LatestBundleTest, AStaleBundleIsCaughtByTheProbeAndTheLookupAnswersFromTheNewestVersion) {
  const std::string bundle_path = url_ + "/_manifest/_latest.json";
  const std::string hint_path = url_ + "/_manifest/_last_version.json";
  const std::string v1_bundle = rap::testing::ReadFileToString(bundle_path);
  const std::string v1_hint = rap::testing::ReadFileToString(hint_path);
  // Version 2 indexes a fourth file.
  rap::testing::IndexTableOptions more;
  more.files = 1;
  more.first_file = 3;
  more.rows = 1500;
  more.key_space = 200;
  more.seed = 99;
  rap::testing::WriteIndexTable(root_, more);
  UpdateOptions uo;
  auto up = UpdateIndex(url_, uo);
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  ASSERT_TRUE(up->changed);
  ASSERT_EQ(up->manifest.version, 2);
  // Its bundle lost (a writer stopped after the hint): the hint is newer, so the bundle is ignored.
  rap::testing::WriteStringToFile(bundle_path, v1_bundle);
  {
    auto by_hint = OpenCold(url_);
    ASSERT_TRUE(by_hint.ok()) << by_hint.status().ToString();
    EXPECT_FALSE((*by_hint)->info().opened_from_bundle);
    EXPECT_EQ((*by_hint)->info().manifest_version, 2);
    EXPECT_EQ(Got(**by_hint, "5"), Want(4, "5"));
  }
  // Hint and bundle both lost (a writer stopped right after its manifest): the bundle answers the
  // open, and the probe of version 2 corrects the first lookup.
  rap::testing::WriteStringToFile(hint_path, v1_hint);

  auto idx = OpenCold(url_);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  EXPECT_TRUE((*idx)->info().opened_from_bundle);
  EXPECT_EQ((*idx)->info().manifest_version, 1) << "the stale bundle answered the open";
  for (const char* key : {"5", "120", "199"}) {
    const std::vector<std::string> want = Want(4, key);
    ASSERT_NE(want, Want(3, key)) << "key " << key << " has rows in the new file";
    EXPECT_EQ(Got(**idx, key), want) << "key " << key;
  }
  EXPECT_EQ((*idx)->info().manifest_version, 2) << "the first lookup's probe found version 2";

  // The same through LookupRange and Locate (each settles its own open's probe).
  auto idx2 = OpenCold(url_);
  ASSERT_TRUE(idx2.ok());
  KeyRange all;
  auto located = (*idx2)->Locate({&all, 1});
  ASSERT_TRUE(located.ok()) << located.status().ToString();
  EXPECT_EQ(located->manifest->version, 2);
  auto idx3 = OpenCold(url_);
  ASSERT_TRUE(idx3.ok());
  RangeLookupOptions ro;
  ro.columns = {"k"};
  auto range = (*idx3)->LookupRange(all, ro);
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(range->manifest_version, 2);
  EXPECT_EQ(range->rows.num_rows, 4 * 1500);
}

TEST_F(LatestBundleTest, ADamagedOrMissingBundleFallsBackToTheHint) {
  const std::string bundle_path = url_ + "/_manifest/_latest.json";
  const std::string good = rap::testing::ReadFileToString(bundle_path);
  for (const std::string& bad : {std::string("{{{"), good.substr(0, good.size() / 2),
                                 std::string("{\"bundle_format\": 7, \"version\": 1}"), std::string()}) {
    SCOPED_TRACE(bad.substr(0, 40));
    if (bad.empty()) {
      fs::remove(bundle_path);
    } else {
      rap::testing::WriteStringToFile(bundle_path, bad);
    }
    auto idx = OpenCold(url_);
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    EXPECT_FALSE((*idx)->info().opened_from_bundle);
    EXPECT_EQ((*idx)->info().open_rounds, 2);
    EXPECT_EQ(Got(**idx, "42"), Want(3, "42"));
  }
}

TEST_F(LatestBundleTest, ParsingNamesWhatIsWrong) {
  const std::string good = rap::testing::ReadFileToString(url_ + "/_manifest/_latest.json");
  auto b = LatestBundleFromJson(good, "b.json");
  ASSERT_TRUE(b.ok());
  struct Case {
    std::string text, needle;
  };
  const std::string schema = b->manifest.schemas.at(0);
  std::string bad_b64 = good;
  const size_t at = bad_b64.find("\"" + schema + "\":\"") + schema.size() + 4;
  bad_b64.replace(at, 1, "!");
  std::string wrong_version = good;
  wrong_version.replace(wrong_version.find("\"version\":1"), 11, "\"version\":9");
  std::string foreign = good;
  foreign.replace(foreign.find("\"" + schema + "\""), schema.size() + 2, "\"schemas/other.parquet\"");
  for (const Case& c : std::vector<Case>{{"[1]", "not a JSON object"},
                                         {"{\"bundle_format\": 1", "at byte"},
                                         {"{\"version\": 1}", "/bundle_format"},
                                         {"{\"bundle_format\": 1, \"version\": 1}", "/manifest"},
                                         {bad_b64, "base64"},
                                         {wrong_version, "/version 9"},
                                         {foreign, "not a schema file of the manifest"}}) {
    auto r = LatestBundleFromJson(c.text, "b.json");
    ASSERT_FALSE(r.ok()) << c.needle;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt) << r.status().ToString();
    EXPECT_NE(r.status().message().find("b.json"), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().ToString();
  }
}

TEST_F(LatestBundleTest, VacuumKeepsItCurrent) {
  // Version 2 (a rebuild), then the bundle is lost; a vacuum that deletes version 1 writes it again.
  BuildOptions o;
  o.key_columns = {"k"};
  o.buckets = 2;
  ASSERT_TRUE(BuildIndex(root_, o).ok());
  const std::string bundle_path = url_ + "/_manifest/_latest.json";
  fs::remove(bundle_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // version 1 superseded before the cutoff
  VacuumOptions vo;
  vo.retain_seconds = 0;
  auto v = VacuumIndex(url_, vo);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_FALSE(fs::exists(ManifestPath(url_, 1)));
  auto b = LatestBundleFromJson(rap::testing::ReadFileToString(bundle_path), "bundle");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->manifest.version, 2);
  EXPECT_EQ(b->manifest.buckets, 2);
}

}  // namespace
}  // namespace rap::index
