// Index maintenance against brute force: update from a directory table (added and removed files)
// and from a Delta log with deletion vectors, compaction (same results, removed files dropped, an
// older reader keeps working), vacuum, inspect, two racing publishers, and corrupt manifests and
// fragments named in errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/maintenance.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;
using rap::testing::BruteForce;

std::vector<std::string> KeyText(const std::vector<KeyColumn>& kc, const Key& k) {
  std::vector<std::string> out;
  for (size_t i = 0; i < kc.size(); ++i) out.push_back(FormatValue(*MakeKeyArray(kc[i].type, {&k.parts[i]}), 0));
  return out;
}

std::vector<Key> IntKeys(int64_t lo, int64_t hi) {
  std::vector<Key> keys;
  for (int64_t k = lo; k < hi; ++k) keys.push_back(Key{{KeyPart{k, {}}}});
  return keys;
}

// Every key's rows equal the brute force over `paths` (in file-ordinal order).
void ExpectEqual(Index& idx, const BruteForce& bf, const std::vector<Key>& keys, const std::vector<std::string>& cols) {
  LookupOptions lo;
  lo.columns = cols;
  auto res = idx.Lookup(keys, lo);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  std::vector<std::string> names;
  for (const Field& f : res->schema->fields) names.push_back(f.name);
  std::vector<std::string> kn;
  for (const KeyColumn& k : idx.info().key) kn.push_back(k.name);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(rap::testing::ResultRows(res->keys[i]), bf.Rows(kn, KeyText(idx.info().key, keys[i]), names))
        << "key " << FormatKey(idx.info().key, keys[i]);
  }
}

class MaintenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    opts_.files = 3;
    opts_.rows = 2000;
    opts_.key_space = 300;
    names_ = rap::testing::WriteIndexTable(root_, opts_);
  }
  Result<BruteForce> Reference(const std::vector<std::string>& names) {
    std::vector<std::string> paths;
    for (const std::string& n : names) paths.push_back(root_ + "/" + n);
    return BruteForce::Load(paths);
  }
  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_;
  std::vector<std::string> names_;
};

TEST_F(MaintenanceTest, UpdateCompactVacuumKeepResultsEqual) {
  BuildOptions o;
  o.key_columns = {"k"};
  o.buckets = 3;
  o.cover = {"v"};
  o.hoist = {"name"};
  auto built = BuildIndex(root_, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto old_reader = Index::Open(root_);
  ASSERT_TRUE(old_reader.ok()) << old_reader.status().ToString();

  // Two files added, one removed: an update run.
  rap::testing::IndexTableOptions more = opts_;
  more.files = 2;
  more.first_file = 3;
  more.seed = 5;
  auto added = rap::testing::WriteIndexTable(root_, more);
  fs::remove(root_ + "/" + names_[1]);
  const std::string url = DefaultIndexUrl(root_);
  auto up = UpdateIndex(url, {});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_TRUE(up->changed);
  EXPECT_EQ(up->added_files, 2);
  EXPECT_EQ(up->removed_files, 1);
  EXPECT_EQ(up->manifest.version, 2);
  EXPECT_EQ(up->manifest.fragments.size(), built->manifest.fragments.size() + 3);
  // A second update finds nothing to do.
  auto again = UpdateIndex(url, {});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->changed);

  auto bf = Reference({names_[0], names_[2], added[0], added[1]});
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();
  auto idx = Index::Open(root_);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ((*idx)->info().manifest_version, 2);
  const auto keys = IntKeys(-3, opts_.key_space + 3);
  ExpectEqual(**idx, *bf, keys, {});
  ExpectEqual(**idx, *bf, keys, {"v"});
  ExpectEqual(**idx, *bf, keys, {"name"});
  // The reader opened at version 1 refreshes to version 2.
  auto refreshed = (*old_reader)->Refresh();
  ASSERT_TRUE(refreshed.ok());
  EXPECT_TRUE(*refreshed);
  ExpectEqual(**old_reader, *bf, keys, {"v"});

  // Compaction: one fragment per bucket, entries of the removed file dropped, same results; a
  // reader of version 2 keeps working while (and after) version 3 is published.
  auto compacted = CompactIndex(url, {});
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_TRUE(compacted->changed);
  EXPECT_EQ(compacted->fragments_after, 3);
  EXPECT_GT(compacted->entries_dropped, 0);
  ExpectEqual(**idx, *bf, keys, {"v", "name"});
  auto fresh = Index::Open(root_);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->info().manifest_version, 3);
  EXPECT_EQ((*fresh)->info().fragments, 3);
  ExpectEqual(**fresh, *bf, keys, {});
  ExpectEqual(**fresh, *bf, keys, {"v"});
  ExpectEqual(**fresh, *bf, keys, {"name"});

  // Vacuum with zero retention: the fragments of versions 1 and 2 go; the newest version still reads.
  auto dry = VacuumIndex(url, {0, true});
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_FALSE(dry->deleted.empty());
  for (const std::string& p : dry->deleted) EXPECT_TRUE(fs::exists(p)) << p;
  auto vac = VacuumIndex(url, {0, false});
  ASSERT_TRUE(vac.ok()) << vac.status().ToString();
  EXPECT_EQ(vac->deleted.size(), dry->deleted.size());
  for (const std::string& p : vac->deleted) EXPECT_FALSE(fs::exists(p)) << p;
  EXPECT_EQ(vac->manifests_kept, 1);
  auto after = Index::Open(root_);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ExpectEqual(**after, *bf, keys, {"v"});

  auto text = InspectIndex(url);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("fragments  3"), std::string::npos) << *text;
  EXPECT_NE(text->find("4 live"), std::string::npos) << *text;
}

TEST_F(MaintenanceTest, RacingPublishersOneWinsNothingLost) {
  BuildOptions o;
  o.key_columns = {"k"};
  ASSERT_TRUE(BuildIndex(root_, o).ok());
  const std::string url = DefaultIndexUrl(root_);
  rap::testing::IndexTableOptions more = opts_;
  more.files = 1;
  more.first_file = 7;
  rap::testing::WriteIndexTable(root_, more);
  // Both updates start from version 1; exactly one publishes version 2.
  std::vector<Result<UpdateResult>> results(4, Status::Internal("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = UpdateIndex(url, {}); });
  }
  for (auto& t : threads) t.join();
  int won = 0, lost = 0;
  for (auto& r : results) {
    if (r.ok()) {
      if (r->changed) ++won;
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kChanged) << r.status().ToString();
      EXPECT_NE(r.status().message().find("another writer"), std::string::npos);
      ++lost;
    }
  }
  // Updates that read version 2 after it was published find nothing to do.
  EXPECT_GE(won, 1);
  auto idx = Index::Open(root_);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ((*idx)->info().files, opts_.files + 1);
  // Whoever won, the index equals the table.
  std::vector<std::string> names = names_;
  names.push_back(rap::testing::IndexTableFileName(7));
  auto bf = Reference(names);
  ASSERT_TRUE(bf.ok());
  ExpectEqual(**idx, *bf, IntKeys(0, opts_.key_space), {"v"});
  // A publisher of an existing version fails and overwrites nothing.
  auto io = io::OpenUrl(url);
  ASSERT_TRUE(io.ok());
  auto v = FindLatestVersion(*io->store, io->path);
  ASSERT_TRUE(v.ok());
  auto m = ReadManifest(*io->store, io->path, *v);
  ASSERT_TRUE(m.ok());
  Manifest copy = *m;
  copy.name = "intruder";
  Status st = PublishManifest(*io->store, io->path, copy);
  EXPECT_EQ(st.code(), StatusCode::kChanged);
  auto reread = ReadManifest(*io->store, io->path, *v);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(reread->name, m->name);
  (void)lost;
}

TEST_F(MaintenanceTest, StaleHintAndCorruptFilesAreHandled) {
  BuildOptions o;
  o.key_columns = {"k"};
  ASSERT_TRUE(BuildIndex(root_, o).ok());
  ASSERT_TRUE(BuildIndex(root_, o).ok());  // a rebuild: version 2
  const std::string url = DefaultIndexUrl(root_);
  // A stale hint (version 1) only costs a probe: the newest version is still found.
  rap::testing::WriteStringToFile(url + "/_manifest/_last_version.json", "{\"version\": 1}");
  auto idx = Index::Open(root_);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  EXPECT_EQ((*idx)->info().manifest_version, 2);
  // A garbage hint too.
  rap::testing::WriteStringToFile(url + "/_manifest/_last_version.json", "{{{");
  idx = Index::Open(root_);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ((*idx)->info().manifest_version, 2);
  // A corrupt manifest is named with the byte offset (read through the hint: without the latest
  // bundle, which would answer the open in its place).
  std::filesystem::remove(url + "/_manifest/_latest.json");
  const std::string m2 = url + "/_manifest/00000000000000000002.json";
  const std::string good = rap::testing::ReadFileToString(m2);
  rap::testing::WriteStringToFile(m2, good.substr(0, good.size() / 2));
  auto bad = Index::Open(root_);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(bad.status().message().find("00000000000000000002.json"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("at byte"), std::string::npos) << bad.status().ToString();
  rap::testing::WriteStringToFile(m2, good);
  // A truncated fragment is named.
  auto io = io::OpenUrl(url);
  auto man = ReadManifest(*io->store, io->path, 2);
  ASSERT_TRUE(man.ok());
  const std::string frag = url + "/" + man->fragments[0].path;
  const std::string bytes = rap::testing::ReadFileToString(frag);
  rap::testing::WriteStringToFile(frag, bytes.substr(0, bytes.size() - 10));
  read::MetadataCache::Global().Clear();
  bad = Index::Open(root_);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(man->fragments[0].path), std::string::npos) << bad.status().ToString();
}

// A Delta table through its log: build at version 5, update to the newest version (deletes and
// updates through deletion vectors), compact: lookups equal a scan of the same version.
TEST(DeltaIndex, UpdateFromTheLogWithDeletionVectors) {
  rap::testing::TempDir dir;
  const std::string src = rap::testing::SharedDir() + "/delta-tables/table_with_deletion_logs";
  const std::string t = dir.Join("t");
  fs::create_directories(t + "/_delta_log");
  for (const auto& e : fs::directory_iterator(src)) {
    if (e.is_regular_file()) fs::copy_file(e.path(), t + "/" + e.path().filename().string());
  }
  auto copy_log = [&](int64_t upto) {
    for (const auto& e : fs::directory_iterator(src + "/_delta_log")) {
      const std::string n = e.path().filename().string();
      if (n.size() < 20 || n[0] < '0' || n[0] > '9') continue;
      const int64_t v = std::stoll(n.substr(0, 20));
      if (v <= upto && !fs::exists(t + "/_delta_log/" + n)) fs::copy_file(e.path(), t + "/_delta_log/" + n);
    }
  };
  // The scan of the table's current version: rows per id, as "id|...|" texts (sorted).
  auto reference = [&]() -> Result<std::map<int64_t, std::vector<std::string>>> {
    RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(t));
    RAP_ASSIGN_OR_RETURN(read::ScanSource source, table::ToScanSource(snap));
    read::ScanOptions so;
    so.columns = {"id", "name", "age"};
    RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), so));
    std::map<int64_t, std::vector<std::string>> out;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
      if (!b) break;
      for (int64_t r = 0; r < b->batch.num_rows; ++r) {
        KeyPart p;
        KeyPartAt(KeyType::kInt64, *b->batch.columns[0], r, &p);
        out[p.i].push_back(rap::testing::RowText(b->batch, r));
      }
    }
    for (auto& [k, v] : out) std::sort(v.begin(), v.end());
    return out;
  };
  auto check = [&](Index& idx) {
    auto ref = reference();
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    std::vector<Key> keys;
    for (int64_t k = -2; k < 110; ++k) keys.push_back(*idx.ParseKey({std::to_string(k)}));
    LookupOptions lo;
    lo.columns = {"id", "name", "age"};
    auto res = idx.Lookup(keys, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    int64_t rows = 0;
    for (const KeyRows& kr : res->keys) {
      auto got = rap::testing::ResultRows(kr);
      std::sort(got.begin(), got.end());
      auto it = ref->find(kr.key.parts[0].i);
      EXPECT_EQ(got, it == ref->end() ? std::vector<std::string>{} : it->second) << "id " << kr.key.parts[0].i;
      rows += kr.rows.num_rows;
    }
    int64_t want = 0;
    for (auto& [k, v] : *ref) want += static_cast<int64_t>(v.size());
    EXPECT_EQ(rows, want);
  };
  copy_log(5);
  BuildOptions o;
  o.key_columns = {"id"};
  o.buckets = 2;
  auto built = BuildIndex(t, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.table_kind, "delta");
  EXPECT_EQ(built->manifest.table_version, 5);
  auto idx = Index::Open(t);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  check(**idx);
  copy_log(20);
  auto up = UpdateIndex(DefaultIndexUrl(t), {});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_TRUE(up->changed);
  EXPECT_EQ(up->manifest.table_version, 20);
  ASSERT_TRUE((*idx)->Refresh().ok());
  EXPECT_EQ((*idx)->info().table_version, 20);
  check(**idx);
  auto c = CompactIndex(DefaultIndexUrl(t), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE((*idx)->Refresh().ok());
  check(**idx);
}

}  // namespace
}  // namespace rap::index
