// Scanner on a generated partitioned table: results equal a full scan filtered by hand (random
// filters, projections and limits; with and without statistics and page-index pruning), and late
// materialisation reads exactly the pages that hold candidate/selected rows.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "rap/format/writer.h"
#include "rap/read/fingerprint.h"
#include "rap/read/scanner.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

constexpr int kFiles = 3;
constexpr int64_t kRowsPerFile = 2000;
constexpr int64_t kRowGroupRows = 1000;
constexpr int64_t kPageRows = 100;

template <typename T>
ArrayPtr Fixed(DataTypePtr type, const std::vector<std::optional<T>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = std::move(type);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  Buffer values = Buffer::Allocate(v.size() * sizeof(T));
  std::memset(values.mutable_data(), 0, values.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      std::memcpy(values.mutable_data() + i * sizeof(T), &*v[i], sizeof(T));
    } else {
      ++a->null_count;
    }
  }
  a->buffers = {validity, values};
  return a;
}

ArrayPtr Strings(const std::vector<std::optional<std::string>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kString);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  std::vector<int32_t> offsets{0};
  std::string data;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      data += *v[i];
    } else {
      ++a->null_count;
    }
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  a->buffers = {validity, Buffer::Copy(offsets.data(), offsets.size() * 4), Buffer::Copy(data)};
  return a;
}

class ScannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(7);
    auto schema = std::make_shared<Schema>();
    schema->fields = {{"id", MakeType(TypeId::kInt64), false},
                      {"v", MakeType(TypeId::kFloat64), true},
                      {"s", MakeType(TypeId::kString), true},
                      {"d", MakeType(TypeId::kDate32), true}};
    const char* kWords[] = {"apple", "kiwi", "melon", "pear", "plum"};
    for (int f = 0; f < kFiles; ++f) {
      std::vector<std::optional<int64_t>> id;
      std::vector<std::optional<double>> v;
      std::vector<std::optional<std::string>> s;
      std::vector<std::optional<int32_t>> d;
      for (int64_t r = 0; r < kRowsPerFile; ++r) {
        id.push_back(f * kRowsPerFile + r);  // sorted: pages have narrow id ranges
        if (rng() % 10) v.push_back(static_cast<double>(rng() % 1000) / 10.0);
        else v.push_back(std::nullopt);
        if (rng() % 8) s.push_back(kWords[rng() % 5]);
        else s.push_back(std::nullopt);
        d.push_back(static_cast<int32_t>(19000 + (rng() % 30)));
      }
      RecordBatch b;
      b.schema = schema;
      b.num_rows = kRowsPerFile;
      b.columns = {Fixed<int64_t>(schema->fields[0].type, id), Fixed<double>(schema->fields[1].type, v),
                   Strings(s), Fixed<int32_t>(schema->fields[3].type, d)};
      parquet::WriterOptions wo;
      wo.row_group_max_rows = kRowGroupRows;
      wo.defaults.page_max_rows = kPageRows;
      auto bytes = parquet::WriteParquetToString(schema, {b}, wo);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      std::string dir = dir_.Join(std::string("t/part=") + static_cast<char>('a' + f));
      std::filesystem::create_directories(dir);
      testing::WriteStringToFile(dir + "/data.parquet", *bytes);
    }
  }

  ScanSource Source() {
    ScanSource src;
    auto store = io::OpenUrl(dir_.Join("t"));
    EXPECT_TRUE(store.ok());
    src.store = store->store;
    src.partition_columns = {Field{"part", MakeType(TypeId::kString), true}};
    for (int f = 0; f < kFiles; ++f) {
      ScanFile file;
      file.path = dir_.Join(std::string("t/part=") + static_cast<char>('a' + f) + "/data.parquet");
      std::optional<std::string> p = std::string(1, static_cast<char>('a' + f));
      file.partition_values.push_back(Strings({p}));
      src.files.push_back(file);
    }
    return src;
  }

  struct Rows {
    std::vector<uint64_t> ids;
    std::vector<std::string> values;
    std::string fingerprint;
    ScanStats stats;
  };

  Result<Rows> Run(ScanOptions o) {
    RAP_ASSIGN_OR_RETURN(auto scanner, Scanner::Make(Source(), std::move(o)));
    Rows out;
    Fingerprinter fp;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
      if (!b) break;
      EXPECT_GT(b->batch.num_rows, 0);
      RAP_RETURN_NOT_OK(fp.Add(b->batch, b->row_ids));
      for (int64_t r = 0; r < b->batch.num_rows; ++r) {
        std::string line;
        for (const ArrayPtr& c : b->batch.columns) line += FormatValue(*c, r) + "|";
        out.values.push_back(line);
        out.ids.push_back(b->row_ids[static_cast<size_t>(r)]);
      }
    }
    out.fingerprint = fp.ToString();
    out.stats = scanner->stats();
    return out;
  }

  testing::TempDir dir_;
};

TEST_F(ScannerTest, RandomFiltersEqualFilteredFullScan) {
  // The reference: every column of every row, then filter and project by hand.
  auto full_scanner = Scanner::Make(Source(), ScanOptions{});
  ASSERT_TRUE(full_scanner.ok()) << full_scanner.status().ToString();
  std::vector<RecordBatch> full;
  std::vector<std::vector<uint64_t>> full_ids;
  while (true) {
    auto b = (*full_scanner)->Next();
    ASSERT_TRUE(b.ok());
    if (!*b) break;
    full.push_back((*b)->batch);
    full_ids.push_back((*b)->row_ids);
  }
  const Schema& schema = *(*full_scanner)->schema();
  ASSERT_EQ(schema.fields.size(), 5u);  // id, v, s, d, part
  EXPECT_EQ(full_ids[0][0], 0u);
  EXPECT_EQ(full_ids.back().back(), (uint64_t{2} << 40) + kRowsPerFile - 1);

  std::mt19937_64 rng(11);
  const std::vector<std::string> kFilters = {
      "id >= 1500 AND id < 1720",
      "id = 4321",
      "v > 50 AND s IN ('kiwi', 'plum')",
      "s IS NULL OR v IS NULL",
      "NOT (d >= '2022-01-10') AND part != 'b'",
      "part = 'c' AND id < 4100",
      "v < 0",
      "id > 10000",
      "s >= 'p' AND NOT s = 'pear'",
      "(id < 100 OR id > 5900) AND v IS NOT NULL",
  };
  const std::vector<std::string> names = {"id", "v", "s", "d", "part"};
  for (const std::string& text : kFilters) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(text + " variant " + std::to_string(variant));
      ScanOptions o;
      o.filter = *ParseExpr(text);
      std::vector<int> proj;
      for (int c = 0; c < 5; ++c) {
        if (rng() % 2) proj.push_back(c);
      }
      if (proj.empty()) proj.push_back(static_cast<int>(rng() % 5));
      std::shuffle(proj.begin(), proj.end(), rng);
      for (int c : proj) o.columns.push_back(names[static_cast<size_t>(c)]);
      o.limit = variant == 2 ? static_cast<int64_t>(rng() % 50) : -1;
      o.batch_size = variant == 1 ? 37 : 64 * 1024;
      auto pred = Predicate::Bind(o.filter, schema);
      ASSERT_TRUE(pred.ok());
      std::vector<uint64_t> want_ids;
      std::vector<std::string> want;
      for (size_t bi = 0; bi < full.size(); ++bi) {
        auto keep = pred->Select(full[bi]);
        ASSERT_TRUE(keep.ok());
        for (int64_t r = 0; r < full[bi].num_rows; ++r) {
          if (!(*keep)[static_cast<size_t>(r)]) continue;
          if (o.limit >= 0 && static_cast<int64_t>(want.size()) >= o.limit) break;
          std::string line;
          for (int c : proj) line += FormatValue(*full[bi].columns[static_cast<size_t>(c)], r) + "|";
          want.push_back(line);
          want_ids.push_back(full_ids[bi][static_cast<size_t>(r)]);
        }
      }
      auto got = Run(o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->ids, want_ids);
      EXPECT_EQ(got->values, want);
      // Pruning settings never change the result.
      ScanOptions plain = o;
      plain.use_statistics = false;
      plain.use_page_index = false;
      auto again = Run(plain);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(again->fingerprint, got->fingerprint);
      EXPECT_EQ(again->values, got->values);
    }
  }
}

TEST_F(ScannerTest, PruningCounters) {
  ScanOptions o;
  o.filter = *ParseExpr("part = 'b' AND id >= 2500 AND id < 2650");
  o.columns = {"s", "v"};
  auto r = Run(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->values.size(), 150u);
  EXPECT_EQ(r->stats.files_pruned, 2);
  EXPECT_EQ(r->stats.row_groups, 2);
  EXPECT_EQ(r->stats.row_groups_pruned, 1);  // rows 2000..2999 of file b are row group 0 (ids 2000-2999)
  EXPECT_EQ(r->stats.rows_candidate, 200);    // pages [500,600) and [600,700) of that row group
  EXPECT_EQ(r->stats.rows_selected, 150);
}

// Late materialisation: read 1 decodes only the filter column's candidate pages, read 2 only the
// projected columns' pages that hold selected rows. The writer's page boundaries are every 100 rows,
// so the expected pages are computed from the OffsetIndex of the file by hand.
TEST_F(ScannerTest, LateMaterialisationReadsOnlyNeededPages) {
  ScanSource src = Source();
  auto reader = FileReader::Open(src.store, src.files[0].path);
  ASSERT_TRUE(reader.ok());
  const int v_col = (*reader)->schema().FindColumn("v");
  const int id_col = (*reader)->schema().FindColumn("id");
  ASSERT_GE(v_col, 0);
  // Filter on id selects rows 250..259 and 910 of row group 0 plus 1990 of row group 1.
  ScanOptions o;
  o.filter = *ParseExpr("(id >= 250 AND id < 260) OR id = 910 OR id = 1990");
  o.columns = {"v"};
  std::vector<ScanFile> only_first = {src.files[0]};
  src.files = only_first;
  auto scanner = Scanner::Make(src, o);
  ASSERT_TRUE(scanner.ok());
  int64_t rows = 0;
  while (true) {
    auto b = (*scanner)->Next();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    if (!*b) break;
    rows += (*b)->batch.num_rows;
  }
  EXPECT_EQ(rows, 12);
  // By hand from the OffsetIndex: the pages holding rows 250, 910 (row group 0) and 990 (row group 1).
  int64_t expect_pages = 0;
  for (int rg = 0; rg < 2; ++rg) {
    auto oi = (*reader)->GetOffsetIndex(rg, v_col);
    ASSERT_TRUE(oi.ok() && *oi);
    auto oid = (*reader)->GetOffsetIndex(rg, id_col);
    ASSERT_TRUE(oid.ok() && *oid);
    std::vector<int64_t> wanted_rows = rg == 0 ? std::vector<int64_t>{250, 910} : std::vector<int64_t>{990};
    for (const auto* index : {oi->get(), oid->get()}) {
      const auto& locs = index->page_locations;
      for (size_t k = 0; k < locs.size(); ++k) {
        int64_t end = k + 1 < locs.size() ? locs[k + 1].first_row_index : kRowGroupRows;
        for (int64_t want : wanted_rows) {
          if (want >= locs[k].first_row_index && want < end) ++expect_pages;
        }
      }
    }
  }
  EXPECT_EQ(expect_pages, 6);  // 3 pages of id (read 1) + 3 pages of v (read 2)
  EXPECT_EQ((*scanner)->stats().pages_read, expect_pages);
  EXPECT_EQ((*scanner)->stats().rows_candidate, 300);
}

TEST_F(ScannerTest, Errors) {
  ScanOptions o;
  o.columns = {"nope"};
  EXPECT_EQ(Scanner::Make(Source(), o).status().code(), StatusCode::kInvalidArgument);
  ScanOptions f;
  f.filter = *ParseExpr("id = 'x'");
  EXPECT_EQ(Scanner::Make(Source(), f).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rap::read
