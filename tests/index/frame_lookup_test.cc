// Index build + covered lookups over every frame layout (docs/layouts.md): the build finds each
// key's ZSTD frame in framed pages (covering records of kind 1, levels in `aux`), the lookup reads
// only those frames (interleaved: one range per key and file) and decodes them; results equal a
// brute-force scan, and the bytes and requests per key show that only frames were read.
#include <gtest/gtest.h>

#include <random>

#include "index/file_indexer.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/index_writer.h"
#include "rap/table/table.h"
#include "testing/index_table.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

struct Layout {
  const char* name;
  bool framed;
  int64_t align;
  bool interleave;
};

const Layout kLayouts[] = {
    {"standard", false, 0, false}, {"frame", true, 0, false},          {"frame_align4k", true, 4096, false},
    {"interleaved", true, 0, true}, {"interleaved_align512", true, 512, true},
};

constexpr int kFiles = 3;
constexpr int64_t kRows = 2000;
constexpr int64_t kKeySpace = 300;

// A bool column (NULL where `v` is nullopt).
ArrayPtr Bools(const std::vector<std::optional<bool>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kBool);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8), bits = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  std::memset(bits.mutable_data(), 0, bits.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i]) {
      ++a->null_count;
      continue;
    }
    validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    if (*v[i]) bits.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  a->buffers = {validity, bits};
  return a;
}

// Sorted files: k int64 (the key), g int32 (k / 2: a coarser key), v double (15% NULL), name string
// (20% NULL), b binary, tags list<int32> (nested, not covered), flag bool (10% NULL; never framed:
// its records are pages).
std::vector<std::string> WriteTable(const std::string& dir, const Layout& layout) {
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(7);
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"k", MakeType(TypeId::kInt64), false},
                    {"g", MakeType(TypeId::kInt32), false},
                    {"v", MakeType(TypeId::kFloat64), true},
                    {"name", MakeType(TypeId::kString), true},
                    {"b", MakeType(TypeId::kBinary), false},
                    {"tags", MakeList({"element", MakeType(TypeId::kInt32), true}), true},
                    {"flag", MakeType(TypeId::kBool), true}};
  std::vector<std::string> names;
  for (int f = 0; f < kFiles; ++f) {
    std::vector<int64_t> keys;
    for (int64_t r = 0; r < kRows; ++r) keys.push_back(static_cast<int64_t>(rng() % kKeySpace));
    std::sort(keys.begin(), keys.end());
    std::vector<std::optional<int64_t>> k;
    std::vector<std::optional<int32_t>> g;
    std::vector<std::optional<double>> v;
    std::vector<std::optional<std::string>> name, b;
    std::vector<std::optional<std::vector<int32_t>>> tags;
    std::vector<std::optional<bool>> flag;
    for (int64_t key : keys) {
      if (rng() % 10 == 0) flag.push_back(std::nullopt); else flag.push_back(rng() % 2 == 0);
      k.push_back(key);
      g.push_back(static_cast<int32_t>(key / 2));
      if (rng() % 100 < 15) v.push_back(std::nullopt); else v.push_back(static_cast<double>(rng() % 10000) / 8.0);
      if (rng() % 100 < 20) name.push_back(std::nullopt); else name.push_back("n" + std::to_string(rng() % 5000));
      b.push_back(std::string(static_cast<size_t>(rng() % 9), static_cast<char>('a' + key % 26)));
      if (rng() % 4 == 0) {
        tags.push_back(std::nullopt);
      } else {
        std::vector<int32_t> t;
        for (uint64_t i = 0; i < rng() % 3; ++i) t.push_back(static_cast<int32_t>(rng() % 100));
        tags.push_back(t);
      }
    }
    RecordBatch batch;
    batch.schema = schema;
    batch.num_rows = kRows;
    auto bin = rap::testing::Strings(b);
    bin->type = MakeType(TypeId::kBinary);
    batch.columns = {rap::testing::Fixed<int64_t>(schema->fields[0].type, k),
                     rap::testing::Fixed<int32_t>(schema->fields[1].type, g),
                     rap::testing::Fixed<double>(schema->fields[2].type, v), rap::testing::Strings(name), bin,
                     rap::testing::IntList(tags), Bools(flag)};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = 900;  // keys cross row groups
    wo.defaults.page_max_rows = 100;  // and pages
    wo.defaults.codec = parquet::Codec::ZSTD;
    if (layout.framed) {
      wo.frame_break_on = {"k"};
      wo.frame_align = layout.align;
      wo.interleave = layout.interleave;
    }
    auto bytes = parquet::WriteParquetToString(schema, {batch}, wo);
    RAP_TEST_CHECK_OK(bytes);
    const std::string n = rap::testing::IndexTableFileName(f);
    rap::testing::WriteStringToFile(dir + "/" + n, *bytes);
    names.push_back(n);
  }
  return names;
}

class FrameLookupTest : public ::testing::TestWithParam<Layout> {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    std::vector<std::string> paths;
    for (const std::string& n : WriteTable(root_, GetParam())) paths.push_back(root_ + "/" + n);
    auto bf = BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    bf_ = std::move(*bf);
  }

  std::shared_ptr<Index> Build(const std::string& key, const std::string& name, int64_t data_cache_bytes = 0) {
    BuildOptions o;
    o.key_columns = {key};
    o.index_url = dir_.Join(name);
    o.buckets = 2;
    o.cover = {"v", "name", "b", "g", "flag"};
    auto r = BuildIndex(root_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return nullptr;
    // No dictionary cache: the byte counts below compare whole pages (with their dictionary
    // pages, read by every lookup) against frames.
    IndexOpenOptions oo;
    oo.dictionary_cache_bytes = 0;
    oo.data_cache_bytes = data_cache_bytes;
    auto idx = Index::Open(o.index_url, oo);
    EXPECT_TRUE(idx.ok()) << idx.status().ToString();
    return idx.ok() ? *idx : nullptr;
  }

  // Looks `keys` up (covered) and compares every key with the brute force; returns the stats.
  LookupStats Check(Index& idx, const std::vector<std::string>& keys, const std::vector<std::string>& columns,
                    int64_t limit = -1) {
    std::vector<Key> ks;
    for (const std::string& k : keys) ks.push_back(*idx.ParseKey({k}));
    LookupOptions lo;
    lo.columns = columns;
    lo.limit_per_key = limit;
    auto res = idx.Lookup(ks, lo);
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    if (!res.ok()) return {};
    std::vector<std::string> names;
    for (const Field& f : res->schema->fields) names.push_back(f.name);
    const std::string key_column = idx.info().key[0].name;
    for (size_t i = 0; i < ks.size(); ++i) {
      auto want = bf_.Rows({key_column}, {keys[i]}, names);
      if (limit >= 0 && static_cast<int64_t>(want.size()) > limit) want.resize(static_cast<size_t>(limit));
      EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), want) << GetParam().name << " key " << keys[i];
    }
    EXPECT_EQ(res->stats.covered_files, res->stats.data_files);
    return res->stats;
  }

  rap::testing::TempDir dir_;
  std::string root_;
  BruteForce bf_;
};

TEST_P(FrameLookupTest, CoveredLookupsEqualBruteForce) {
  auto idx = Build("k", "idx_k");
  ASSERT_TRUE(idx);
  std::vector<std::string> keys;
  for (int64_t k = -2; k < kKeySpace + 2; k += 7) keys.push_back(std::to_string(k));
  Check(*idx, keys, {"v", "name", "b", "g"});
  Check(*idx, keys, {"flag", "v", "name"});  // frame records and (BOOLEAN) page records together
  Check(*idx, keys, {"name"});
  Check(*idx, keys, {"b", "v"}, /*limit=*/2);
  // One key at a time, warm (index pages cached): only data requests remain.
  uint64_t bytes = 0;
  int64_t requests = 0, files = 0;
  for (int64_t k = 3; k < kKeySpace; k += 37) {
    Check(*idx, {std::to_string(k)}, {"v", "name", "b"});
    LookupStats st = Check(*idx, {std::to_string(k)}, {"v", "name", "b"});
    EXPECT_EQ(st.index_pages_read, 0);
    bytes += st.bytes;
    requests += st.requests;
    files += st.data_files;
  }
  ASSERT_GT(files, 0);
  const double bytes_per_file = static_cast<double>(bytes) / static_cast<double>(files);
  std::printf("%s: %.0f bytes and %.2f requests per (key, file)\n", GetParam().name, bytes_per_file,
              static_cast<double>(requests) / static_cast<double>(files));
  // About 7 rows of a key per file: frames of a few dozen bytes per column, pages of ~100 rows.
  if (GetParam().framed) {
    EXPECT_LT(bytes_per_file, 600) << GetParam().name;
  } else {
    EXPECT_GT(bytes_per_file, 1500) << GetParam().name;
  }
  if (GetParam().interleave) {
    EXPECT_EQ(requests, files) << "interleaved: one data request per (key, file)";
  } else {
    EXPECT_GT(requests, files) << "columns in separate chunks: more than one range per (key, file)";
  }
}

// A batch of keys on many index pages decodes each fetched index page once: as many index data
// pages as the same keys looked up one at a time (no page cache), not a page walk per key that
// restarts at the row group's first fetched page (issue 36: 100 keys took 12x the time of 100
// single lookups, decompressing the same pages over and over).
// The data cache (IndexOpenOptions::data_cache_bytes) keeps frame records and pages decoded whole:
// the answers equal the brute force, and a repeated lookup decodes nothing and reads no data.
TEST_P(FrameLookupTest, DataCacheKeepsFramesAndPages) {
  auto idx = Build("k", "idx_cached", 64ll << 20);
  ASSERT_TRUE(idx);
  for (int64_t k = 3; k < kKeySpace; k += 37) {
    const LookupStats first = Check(*idx, {std::to_string(k)}, {"flag", "v", "name", "b"});
    const LookupStats again = Check(*idx, {std::to_string(k)}, {"flag", "v", "name", "b"});
    if (first.rows == 0) continue;
    EXPECT_GT(first.data_pages_decoded, 0) << "key " << k;
    EXPECT_EQ(again.data_pages_decoded, 0) << "key " << k;
    EXPECT_GT(again.data_page_cache_hits, 0) << "key " << k;
    EXPECT_EQ(again.requests, 0) << "key " << k;
  }
  EXPECT_GT((*idx).data_cache_stats().entries, 0);
}

TEST_P(FrameLookupTest, BatchDecodesEachIndexPageOnce) {
  BuildOptions o;
  o.key_columns = {"k"};
  o.index_url = dir_.Join("idx_small_pages");
  o.cover = {"v", "name", "b", "g", "flag"};  // nested entries (list of locations)
  o.fragment.page_rows = 8;                   // many index pages in one row group
  ASSERT_TRUE(BuildIndex(root_, o).ok());
  IndexOpenOptions oo;
  oo.page_cache_bytes = 0;
  auto idx = Index::Open(o.index_url, oo);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  std::vector<std::string> keys;
  for (int64_t k = 1; k < kKeySpace; k += 5) keys.push_back(std::to_string(k));
  const LookupStats batch = Check(**idx, keys, {"v", "name"});
  int64_t singles = 0, single_pages = 0;
  for (const std::string& k : keys) {
    const LookupStats one = Check(**idx, {k}, {"v", "name"});
    singles += one.index_data_pages_decoded;
    single_pages += one.index_pages_read;
  }
  ASSERT_GE(batch.index_pages_read, 20) << "the keys should lie on many index pages";
  EXPECT_LE(batch.index_pages_read, single_pages);
  EXPECT_GT(batch.index_data_pages_decoded, 0);
  EXPECT_LE(batch.index_data_pages_decoded, singles)
      << "batch of " << keys.size() << " keys on " << batch.index_pages_read << " index pages";
}

// An index keyed on a coarser column (g = k / 2) finds no frame per key: its records are whole
// pages (kind 0), and lookups stay correct.
TEST_P(FrameLookupTest, CoarserKeyFallsBackToPages) {
  auto idx = Build("g", "idx_g");
  ASSERT_TRUE(idx);
  std::vector<std::string> keys;
  for (int64_t g = 0; g < kKeySpace / 2; g += 11) keys.push_back(std::to_string(g));
  Check(*idx, keys, {"v", "name", "b"});
  Check(*idx, {"10"}, {"v", "name", "b"});
  LookupStats st = Check(*idx, {"10"}, {"v", "name", "b"});
  EXPECT_GT(static_cast<double>(st.bytes) / static_cast<double>(std::max<int64_t>(1, st.data_files)), 1000);
}

// Corrupt frame records (garbage levels, a record naming another byte range, rows outside the file)
// fail the lookup with kCorrupt naming the file; nothing crashes or allocates without bound.
TEST_P(FrameLookupTest, CorruptFrameRecordsFailCleanly) {
  if (!GetParam().framed) GTEST_SKIP() << "no frame records";
  auto snap = table::OpenTable(root_);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  internal::FileIndexSpec spec{{"k"}, {"v", "name"}, {}, {}};
  auto indexed = internal::IndexDataFile(snap->store, snap->files[0], 0, spec);
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  using Mutation = std::function<void(Location&)>;
  const std::vector<std::pair<const char*, Mutation>> mutations = {
      {"levels", [](Location& l) { l.aux = "\xff\xff\xff\x01"; }},
      {"huge levels", [](Location& l) { l.aux = std::string("\xff\xff\xff\xff\x0f\x00\x03\x01", 8); }},
      {"offset", [](Location& l) { l.offset += 1; }},
      {"rows", [](Location& l) { l.num_rows = int64_t{1} << 40; }},
  };
  for (const auto& [what, mutate] : mutations) {
    const std::string url = dir_.Join(std::string("idx_bad_") + (what[0] == 'h' ? "huge" : what));
    IndexWriterOptions wo;
    wo.key = indexed->key;
    wo.cover = {"v", "name"};
    auto w = IndexWriter::Make(url, wo, std::nullopt);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    (*w)->AddFile(indexed->file, indexed->schema_file);
    int mutated = 0;
    for (size_t i = 0; i < indexed->num_entries(); ++i) {
      IndexEntry e;
      indexed->EntryAt(i, &e);
      for (Location& l : e.cover) {
        if (l.kind == static_cast<int32_t>(LocationKind::kZstdFrame)) {
          mutate(l);
          ++mutated;
        }
      }
      ASSERT_TRUE((*w)->AddEntry(std::move(e)).ok());
    }
    ASSERT_GT(mutated, 0);
    ASSERT_TRUE((*w)->Commit(root_, "directory", -1).ok());
    auto idx = Index::Open(url);
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    const Key key = *(*idx)->ParseKey({"5"});
    LookupOptions lo;
    lo.columns = {"v", "name"};
    auto res = (*idx)->Lookup({&key, 1}, lo);
    ASSERT_FALSE(res.ok()) << what;
    EXPECT_EQ(res.status().code(), StatusCode::kCorrupt) << what << ": " << res.status().ToString();
    EXPECT_NE(res.status().message().find("f00.parquet"), std::string::npos) << what << ": " << res.status().ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, FrameLookupTest, ::testing::ValuesIn(kLayouts),
                         [](const ::testing::TestParamInfo<Layout>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace rap::index
