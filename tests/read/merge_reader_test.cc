// rap-test-labels: concurrent
// LoserTree (random runs against a stable sort, comparisons per replacement) and MergeReader over
// Parquet files: the merged stream equals a stable sort of every row by key (ties in run order) for
// int32/int64/string/binary and two-column keys with NULLs, at several batch sizes; keep-last
// deduplication; one warmup per run; limits; a mis-sorted run and bad options are errors.
// Labelled concurrent: the warmup opens the runs' first files on several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "rap/columnar/array_format.h"
#include "rap/format/writer.h"
#include "rap/read/loser_tree.h"
#include "rap/read/merge_reader.h"
#include "testing/arrays.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

using rap::testing::Fixed;
using rap::testing::Strings;

// ---- LoserTree ----

TEST(LoserTreeTest, RandomRunsMatchAStableSort) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t k = 1 + rng() % 13;
    std::vector<std::vector<int>> runs(k);
    std::vector<std::tuple<int, size_t, size_t>> all;  // key, run, index
    for (size_t r = 0; r < k; ++r) {
      const size_t n = rng() % 20;  // some runs are empty
      for (size_t i = 0; i < n; ++i) runs[r].push_back(static_cast<int>(rng() % 10));  // many ties
      std::sort(runs[r].begin(), runs[r].end());
      for (size_t i = 0; i < n; ++i) all.emplace_back(runs[r][i], r, i);
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a) < std::get<0>(b) || (std::get<0>(a) == std::get<0>(b) && std::get<1>(a) < std::get<1>(b));
    });
    std::vector<size_t> pos(k, 0);
    int64_t comparisons = 0;
    auto less = [&](size_t a, size_t b) {
      ++comparisons;
      return runs[a][pos[a]] < runs[b][pos[b]];
    };
    LoserTree<decltype(less)> tree(k, less);
    std::vector<bool> active;
    for (size_t r = 0; r < k; ++r) active.push_back(!runs[r].empty());
    tree.Build(active);
    std::vector<std::tuple<int, size_t, size_t>> got;
    int64_t replacements = 0;
    comparisons = 0;
    while (tree.top() >= 0) {
      const size_t w = static_cast<size_t>(tree.top());
      got.emplace_back(runs[w][pos[w]], w, pos[w]);
      ++pos[w];
      tree.Replace(pos[w] < runs[w].size());
      ++replacements;
    }
    ASSERT_EQ(got, all) << "trial " << trial << " k " << k;
    const int levels = k <= 1 ? 0 : static_cast<int>(std::ceil(std::log2(static_cast<double>(k))));
    EXPECT_LE(comparisons, replacements * levels) << "k " << k;
  }
}

TEST(LoserTreeTest, EmptyAndAllExhausted) {
  auto less = [](size_t, size_t) { return false; };
  LoserTree<decltype(less)> none(0, less);
  none.Build({});
  EXPECT_EQ(none.top(), -1);
  LoserTree<decltype(less)> idle(4, less);
  idle.Build({false, false, false, false});
  EXPECT_EQ(idle.top(), -1);
  idle.Build({false, false, true, true});
  EXPECT_EQ(idle.top(), 2);  // equal heads: the lower index
  idle.Replace(false);
  EXPECT_EQ(idle.top(), 3);
  idle.Replace(false);
  EXPECT_EQ(idle.top(), -1);
}

// ---- MergeReader ----

enum class KeyKind { kInt32, kInt64, kString, kBinary, kStringInt32 };

// One row of a generated run: the key parts (nullopt = NULL) and a payload.
struct Row {
  std::optional<int64_t> k1;
  std::optional<std::string> ks;
  std::optional<int32_t> k2;
  std::optional<double> v;
  std::string tag;  // "run/file/row"
};

class MergeReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = io::OpenUrl(dir_.path());
    ASSERT_TRUE(s.ok());
    store_ = s->store;
    root_ = s->path;
  }
  std::string StorePath(const std::string& name) const { return io::JoinPath(root_, name); }

  static int CompareRows(KeyKind kind, const Row& a, const Row& b) {
    auto cmp = [](const auto& x, const auto& y) -> int {
      if (!x || !y) return static_cast<int>(x.has_value()) - static_cast<int>(y.has_value());
      return *x < *y ? -1 : (*y < *x ? 1 : 0);
    };
    switch (kind) {
      case KeyKind::kInt32:
      case KeyKind::kInt64: return cmp(a.k1, b.k1);
      case KeyKind::kString:
      case KeyKind::kBinary: return cmp(a.ks, b.ks);  // std::string compares bytes as unsigned char
      case KeyKind::kStringInt32: {
        const int c = cmp(a.ks, b.ks);
        return c != 0 ? c : cmp(a.k2, b.k2);
      }
    }
    return 0;
  }

  static std::vector<std::string> KeyColumns(KeyKind kind) {
    switch (kind) {
      case KeyKind::kInt32:
      case KeyKind::kInt64: return {"k"};
      case KeyKind::kString:
      case KeyKind::kBinary: return {"ks"};
      case KeyKind::kStringInt32: return {"ks", "k2"};
    }
    return {};
  }

  // Writes `rows` (sorted by the caller) as one Parquet file.
  void WriteFile(KeyKind kind, const std::string& name, const std::vector<Row>& rows, int64_t row_group_rows) {
    auto schema = std::make_shared<Schema>();
    const TypeId kt = kind == KeyKind::kInt32 ? TypeId::kInt32 : TypeId::kInt64;
    schema->fields = {{"k", MakeType(kt), true},
                      {"ks", MakeType(kind == KeyKind::kBinary ? TypeId::kBinary : TypeId::kString), true},
                      {"k2", MakeType(TypeId::kInt32), true},
                      {"v", MakeType(TypeId::kFloat64), true},
                      {"tag", MakeType(TypeId::kString), false}};
    std::vector<std::optional<int64_t>> k64;
    std::vector<std::optional<int32_t>> k32, k2;
    std::vector<std::optional<std::string>> ks, tag;
    std::vector<std::optional<double>> v;
    for (const Row& r : rows) {
      k64.push_back(r.k1);
      k32.push_back(r.k1 ? std::optional<int32_t>(static_cast<int32_t>(*r.k1)) : std::nullopt);
      ks.push_back(r.ks);
      k2.push_back(r.k2);
      v.push_back(r.v);
      tag.push_back(r.tag);
    }
    RecordBatch b;
    b.schema = schema;
    b.num_rows = static_cast<int64_t>(rows.size());
    ArrayPtr kcol = kt == TypeId::kInt32 ? Fixed<int32_t>(schema->fields[0].type, k32)
                                         : Fixed<int64_t>(schema->fields[0].type, k64);
    ArrayPtr kscol = Strings(ks);
    if (kind == KeyKind::kBinary) {
      auto copy = std::make_shared<ArrayData>(*kscol);
      copy->type = schema->fields[1].type;
      kscol = copy;
    }
    b.columns = {kcol, kscol, Fixed<int32_t>(schema->fields[2].type, k2), Fixed<double>(schema->fields[3].type, v),
                 Strings(tag)};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = row_group_rows;
    wo.defaults.page_max_rows = 4;
    auto bytes = parquet::WriteParquetToString(schema, {b}, wo);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    rap::testing::WriteStringToFile(dir_.Join(name), *bytes);
  }

  struct Generated {
    std::vector<MergeRun> runs;
    std::vector<std::pair<Row, uint64_t>> rows;  // every row with its row id, in run/file/row order
  };

  // `num_runs` runs of 0-3 files of 0-40 rows each, sorted within the run, with many equal keys.
  Generated Generate(KeyKind kind, int num_runs, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Generated g;
    uint64_t ordinal = 0;
    const char* kWords[] = {"", "a", "ab", "b", "\xc3\xa9t\xc3\xa9", "\xff", "zz"};  // \xff: above every ASCII byte
    for (int r = 0; r < num_runs; ++r) {
      std::vector<Row> run_rows;
      const int files = static_cast<int>(rng() % 4);
      std::vector<size_t> sizes;
      for (int f = 0; f < files; ++f) sizes.push_back(rng() % 41);
      size_t total = 0;
      for (size_t s : sizes) total += s;
      for (size_t i = 0; i < total; ++i) {
        Row row;
        if (rng() % 9) row.k1 = static_cast<int64_t>(rng() % 15) - 7;
        if (rng() % 9) row.ks = kWords[rng() % 7];
        if (rng() % 5) row.k2 = static_cast<int32_t>(rng() % 3);
        if (rng() % 4) row.v = static_cast<double>(rng() % 100);
        run_rows.push_back(row);
      }
      std::stable_sort(run_rows.begin(), run_rows.end(),
                       [kind](const Row& a, const Row& b) { return CompareRows(kind, a, b) < 0; });
      MergeRun run;
      size_t at = 0;
      for (int f = 0; f < files; ++f, ++ordinal) {
        std::vector<Row> file_rows(run_rows.begin() + static_cast<std::ptrdiff_t>(at),
                                   run_rows.begin() + static_cast<std::ptrdiff_t>(at + sizes[static_cast<size_t>(f)]));
        at += sizes[static_cast<size_t>(f)];
        for (size_t i = 0; i < file_rows.size(); ++i) {
          file_rows[i].tag = std::to_string(r) + "/" + std::to_string(f) + "/" + std::to_string(i);
          g.rows.emplace_back(file_rows[i], (ordinal << 40) + i);
        }
        const std::string name = "s" + std::to_string(seed) + "_r" + std::to_string(r) + "_f" + std::to_string(f) + ".parquet";
        WriteFile(kind, name, file_rows, 1 + static_cast<int64_t>(rng() % 16));
        ScanFile sf;
        sf.path = StorePath(name);
        run.files.push_back(sf);
      }
      g.runs.push_back(std::move(run));
    }
    return g;
  }

  struct Merged {
    std::vector<std::string> tags;
    std::vector<uint64_t> ids;
    MergeStats stats;
  };

  Result<Merged> Merge(const Generated& g, MergeOptions o) {
    RAP_ASSIGN_OR_RETURN(auto reader, MergeReader::Make(store_, g.runs, o));
    Merged m;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, reader->NextWithRowIds());
      if (!b) break;
      if (b->batch.num_rows <= 0 || b->batch.num_rows > o.batch_size) return Status::Internal("bad batch size");
      const int t = reader->schema()->FieldIndex("tag");
      for (int64_t r = 0; r < b->batch.num_rows; ++r) {
        m.tags.push_back(FormatValue(*b->batch.columns[static_cast<size_t>(t)], r));
        m.ids.push_back(b->row_ids[static_cast<size_t>(r)]);
      }
    }
    m.stats = reader->stats();
    return m;
  }

  rap::testing::TempDir dir_;
  io::ObjectStorePtr store_;
  std::string root_;
};

TEST_F(MergeReaderTest, EqualsAStableSortForEveryKeyType) {
  for (KeyKind kind : {KeyKind::kInt32, KeyKind::kInt64, KeyKind::kString, KeyKind::kBinary, KeyKind::kStringInt32}) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const int num_runs = 1 + static_cast<int>(seed % 5);
      Generated g = Generate(kind, num_runs, seed * 10 + static_cast<uint64_t>(kind));
      auto expected = g.rows;  // run/file/row order: a stable sort by key keeps ties in run order
      std::stable_sort(expected.begin(), expected.end(),
                       [kind](const auto& a, const auto& b) { return CompareRows(kind, a.first, b.first) < 0; });
      for (int64_t batch : {int64_t{1}, int64_t{7}, int64_t{64 * 1024}}) {
        MergeOptions o;
        o.key_columns = KeyColumns(kind);
        o.batch_size = batch;
        o.reader.batch_size = 3;  // input batches end inside row groups
        auto m = Merge(g, o);
        ASSERT_TRUE(m.ok()) << m.status().ToString();
        ASSERT_EQ(m->tags.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_EQ(m->tags[i], expected[i].first.tag) << "row " << i << " seed " << seed;
          ASSERT_EQ(m->ids[i], expected[i].second);
        }
        EXPECT_EQ(m->stats.rows_in, static_cast<int64_t>(expected.size()));
        EXPECT_EQ(m->stats.rows_out, static_cast<int64_t>(expected.size()));
      }
    }
  }
}

TEST_F(MergeReaderTest, KeepLastPerKeyKeepsTheLatestRun) {
  for (KeyKind kind : {KeyKind::kInt64, KeyKind::kStringInt32}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Generated g = Generate(kind, 4, 100 + seed);
      auto sorted = g.rows;
      std::stable_sort(sorted.begin(), sorted.end(),
                       [kind](const auto& a, const auto& b) { return CompareRows(kind, a.first, b.first) < 0; });
      std::vector<std::string> expected;
      for (size_t i = 0; i < sorted.size(); ++i) {
        if (i + 1 == sorted.size() || CompareRows(kind, sorted[i].first, sorted[i + 1].first) != 0) {
          expected.push_back(sorted[i].first.tag);
        }
      }
      for (int64_t batch : {int64_t{1}, int64_t{7}, int64_t{1024}}) {
        MergeOptions o;
        o.key_columns = KeyColumns(kind);
        o.keep_last_per_key = true;
        o.batch_size = batch;
        o.reader.batch_size = 5;
        auto m = Merge(g, o);
        ASSERT_TRUE(m.ok()) << m.status().ToString();
        EXPECT_EQ(m->tags, expected) << "seed " << seed << " batch " << batch;
        EXPECT_EQ(m->stats.rows_deduplicated, static_cast<int64_t>(sorted.size() - expected.size()));
      }
    }
  }
}

TEST_F(MergeReaderTest, WarmsTheFirstFileOfEveryRunOnce) {
  Generated g = Generate(KeyKind::kInt64, 6, 77);
  int64_t nonempty = 0, files = 0;
  for (const MergeRun& r : g.runs) {
    nonempty += r.files.empty() ? 0 : 1;
    files += static_cast<int64_t>(r.files.size());
  }
  MergeOptions o;
  o.key_columns = {"k"};
  o.warmup_threads = 3;
  auto reader = MergeReader::Make(store_, g.runs, o);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->stats().runs_warmed, nonempty);  // before the first Next()
  EXPECT_EQ((*reader)->stats().files, nonempty);
  while (true) {
    auto b = (*reader)->Next();
    ASSERT_TRUE(b.ok());
    if (!*b) break;
  }
  EXPECT_EQ((*reader)->stats().runs_warmed, nonempty);
  EXPECT_EQ((*reader)->stats().files, files);  // every file opened once
}

TEST_F(MergeReaderTest, ProjectionAndLimit) {
  Generated g = Generate(KeyKind::kString, 3, 5);
  auto expected = g.rows;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return CompareRows(KeyKind::kString, a.first, b.first) < 0; });
  for (int64_t limit : {int64_t{0}, int64_t{1}, int64_t{9}, int64_t{1000}}) {
    MergeOptions o;
    o.key_columns = {"ks"};
    o.columns = {"tag", "v"};  // the key is read but not returned
    o.limit = limit;
    o.batch_size = 4;
    auto reader = MergeReader::Make(store_, g.runs, o);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ASSERT_EQ((*reader)->schema()->fields.size(), 2u);
    EXPECT_EQ((*reader)->schema()->fields[0].name, "tag");
    auto m = Merge(g, o);
    ASSERT_TRUE(m.ok());
    const size_t n = std::min(expected.size(), static_cast<size_t>(limit));
    ASSERT_EQ(m->tags.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(m->tags[i], expected[i].first.tag);
  }
}

TEST_F(MergeReaderTest, MisSortedRunAndBadOptionsAreErrors) {
  std::vector<Row> rows(3);
  rows[0].k1 = 5;
  rows[1].k1 = 2;  // goes down
  rows[2].k1 = 9;
  for (size_t i = 0; i < rows.size(); ++i) rows[i].tag = std::to_string(i);
  WriteFile(KeyKind::kInt64, "bad.parquet", rows, 10);
  MergeRun run;
  ScanFile bad;
  bad.path = StorePath("bad.parquet");
  run.files.push_back(bad);
  MergeOptions o;
  o.key_columns = {"k"};
  auto reader = MergeReader::Make(store_, {run}, o);
  ASSERT_TRUE(reader.ok());
  auto b = (*reader)->Next();
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(b.status().Is(StatusCode::kInvalidArgument)) << b.status().ToString();
  EXPECT_NE(b.status().message().find("bad.parquet row 1"), std::string::npos) << b.status().ToString();
  EXPECT_FALSE((*reader)->Next().ok());  // sticky

  o.key_columns = {};
  EXPECT_FALSE(MergeReader::Make(store_, {run}, o).ok());
  o.key_columns = std::vector<std::string>(kMaxMergeKeyColumns + 1, "k");
  EXPECT_FALSE(MergeReader::Make(store_, {run}, o).ok());
  o.key_columns = {"nope"};
  EXPECT_FALSE(MergeReader::Make(store_, {run}, o).ok());
  o.key_columns = {"v"};
  o.verify_sorted = false;
  EXPECT_TRUE(MergeReader::Make(store_, {run}, o).ok());  // double keys are supported
}

}  // namespace
}  // namespace rap::read
