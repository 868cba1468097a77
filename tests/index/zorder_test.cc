// Z-ordered layouts (rap/index/zorder.h, `rap rewrite --layout zorder --cluster-by`): the
// normalisation keeps each type's order on edge values (negative numbers, -0.0, infinities, NaN,
// NULL, empty and long strings), the Z-value is monotone in each column, and a Z-ordered rewrite
// holds exactly the input's rows, in Z order, and answers box queries with exactly the rows of a
// brute-force filter while reading fewer pages than the unsorted input (scan counters).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <random>

#include "rap/format/writer.h"
#include "rap/index/rewrite.h"
#include "rap/index/zorder.h"
#include "rap/read/expr.h"
#include "rap/read/file_reader.h"
#include "rap/io/object_store.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/arrays.h"
#include "testing/cli_run.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::index {
namespace {

using rap::testing::Fixed;
using rap::testing::Strings;

// Non-decreasing, and strictly increasing where `strict` says so (pairs i-1, i).
void ExpectMonotone(const std::vector<uint64_t>& v, const std::vector<bool>& strict, const std::string& what) {
  for (size_t i = 1; i < v.size(); ++i) {
    EXPECT_LE(v[i - 1], v[i]) << what << " at " << i;
    if (strict[i]) {
      EXPECT_LT(v[i - 1], v[i]) << what << " at " << i;
    }
  }
}

TEST(ZOrderTest, IntegersKeepTheirOrder) {
  const std::vector<int64_t> xs = {std::numeric_limits<int64_t>::min(), -(int64_t{1} << 40), -2, -1, 0, 1, 2,
                                   int64_t{1} << 40, std::numeric_limits<int64_t>::max()};
  std::vector<uint64_t> n;
  for (int64_t x : xs) n.push_back(ZNormalizeInt(x));
  ExpectMonotone(n, std::vector<bool>(n.size(), true), "int64");
  EXPECT_EQ(ZNormalizeInt(std::numeric_limits<int64_t>::min()), 0u);
  EXPECT_EQ(ZNormalizeInt(std::numeric_limits<int64_t>::max()), UINT64_MAX);
}

TEST(ZOrderTest, DoublesKeepTheirOrderNaNLastNegativeZeroIsZero) {
  const double inf = std::numeric_limits<double>::infinity();
  const double dmin = std::numeric_limits<double>::denorm_min();
  const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::min();
  const std::vector<double> xs = {-inf, -big, -1e10, -1, -tiny, -dmin, -0.0, 0.0, dmin, tiny, 0.5, 1, 1e10, big, inf};
  std::vector<uint64_t> n;
  std::vector<bool> strict;
  for (size_t i = 0; i < xs.size(); ++i) {
    n.push_back(ZNormalizeDouble(xs[i]));
    strict.push_back(!(i > 0 && xs[i] == xs[i - 1]));  // -0.0 == 0.0
  }
  ExpectMonotone(n, strict, "double");
  EXPECT_EQ(ZNormalizeDouble(-0.0), ZNormalizeDouble(0.0));
  // Random pairs, float32 through the array path too.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int i = 0; i < 2000; ++i) {
    const double a = u(rng), b = u(rng);
    EXPECT_EQ(a < b, ZNormalizeDouble(a) < ZNormalizeDouble(b)) << a << " " << b;
  }
  const float finf = std::numeric_limits<float>::infinity();
  auto f = Fixed<float>(MakeType(TypeId::kFloat32),
                        {-finf, -1.5f, std::nullopt, 2.5f, std::nanf(""), -std::nanf(""), finf});
  EXPECT_EQ(ZNormalAt(*f, 2).kind, ZNormal::kNull);
  EXPECT_EQ(ZNormalAt(*f, 4).kind, ZNormal::kNaN);
  EXPECT_EQ(ZNormalAt(*f, 5).kind, ZNormal::kNaN);  // a negative NaN is NaN too, not the smallest value
  EXPECT_LT(ZNormalAt(*f, 0).value, ZNormalAt(*f, 1).value);
  EXPECT_LT(ZNormalAt(*f, 1).value, ZNormalAt(*f, 3).value);
  EXPECT_LT(ZNormalAt(*f, 3).value, ZNormalAt(*f, 6).value);
}

TEST(ZOrderTest, StringsOrderByTheirFirstEightBytes) {
  const std::vector<std::string> xs = {"", std::string(1, '\0') + "x", "a", "ab", "abcdefg", "abcdefgh",
                                       "abcdefgi", "b", std::string(300, 'b'), "\x7f", "\x80", "\xff\xff"};
  std::vector<uint64_t> n;
  for (const std::string& s : xs) n.push_back(ZNormalizeBytes(s));
  // "" and "\0x" share the prefix 0; "b" and a long run of b's differ from the 2nd byte on.
  std::vector<bool> strict(xs.size(), true);
  strict[1] = false;
  ExpectMonotone(n, strict, "bytes");
  // Beyond 8 bytes: equal (not reordered).
  EXPECT_EQ(ZNormalizeBytes("abcdefgh1"), ZNormalizeBytes("abcdefgh2"));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {
    std::string a(rng() % 12, ' '), b(rng() % 12, ' ');
    for (char& c : a) c = static_cast<char>(rng() % 4 + 'a');
    for (char& c : b) c = static_cast<char>(rng() % 4 + 'a');
    if (a < b) {
      EXPECT_LE(ZNormalizeBytes(a), ZNormalizeBytes(b)) << a << " " << b;
    }
  }
  auto s = Strings({"", std::nullopt, "zz"});
  EXPECT_EQ(ZNormalAt(*s, 0).kind, ZNormal::kValue);
  EXPECT_EQ(ZNormalAt(*s, 1).kind, ZNormal::kNull);
}

TEST(ZOrderTest, DatesTimestampsUnsignedAndBoolKeepTheirOrder) {
  const auto ascending = [](const ArrayPtr& a, const std::string& what) {
    for (int64_t i = 1; i < a->length; ++i) {
      EXPECT_LT(ZNormalAt(*a, i - 1).value, ZNormalAt(*a, i).value) << what << " at " << i;
    }
  };
  ascending(Fixed<int32_t>(MakeType(TypeId::kDate32), {-719162, -1, 0, 19000, 2932896}), "date32");
  ascending(Fixed<int64_t>(columnar::MakeTemporal(TypeId::kTimestamp, columnar::TimeUnit::kMicro, "UTC"),
                           {std::numeric_limits<int64_t>::min(), -1, 0, 1'700'000'000'000'000}),
            "timestamp");
  ascending(Fixed<uint64_t>(MakeType(TypeId::kUInt64), {0, 1, uint64_t{1} << 63, UINT64_MAX}), "uint64");
  ascending(Fixed<int8_t>(MakeType(TypeId::kInt8), {-128, -1, 0, 127}), "int8");
  auto b = std::make_shared<ArrayData>();  // bool: false, true (a bitmap)
  b->type = MakeType(TypeId::kBool);
  b->length = 2;
  const uint8_t bits = 0b10;
  b->buffers = {Buffer(), Buffer::Copy(&bits, 1)};
  ascending(b, "bool");
  EXPECT_TRUE(CheckZOrderType("t", *MakeType(TypeId::kTimestamp)).ok());
  EXPECT_EQ(CheckZOrderType("d", *columnar::MakeDecimal(10, 2)).code(), StatusCode::kNotSupported);
  EXPECT_EQ(CheckZOrderType("l", *MakeList(Field{"element", MakeType(TypeId::kInt64), true})).code(),
            StatusCode::kNotSupported);
}

TEST(ZOrderTest, CurveScalesInterleavesAndIsMonotoneInEachColumn) {
  ZRange rx, ry;
  rx.Add({ZNormal::kValue, ZNormalizeInt(-1000)});
  rx.Add({ZNormal::kValue, ZNormalizeInt(1000)});
  ry.Add({ZNormal::kValue, ZNormalizeDouble(-1.0)});
  ry.Add({ZNormal::kValue, ZNormalizeDouble(1.0)});
  ry.Add({ZNormal::kNaN, UINT64_MAX});  // NaN does not widen the range
  EXPECT_EQ(ry.max, ZNormalizeDouble(1.0));
  auto curve = ZOrderCurve::Make({rx, ry});
  ASSERT_TRUE(curve.ok()) << curve.status().ToString();
  EXPECT_EQ(curve->bits_per_column(), 32);
  // NULL first, NaN last, out-of-range values clamped, the range's top bit on the column's top bit.
  EXPECT_EQ(curve->Scale(0, {}), 0u);
  EXPECT_EQ(curve->Scale(1, {ZNormal::kNaN, UINT64_MAX}), 0xffffffffu);
  EXPECT_EQ(curve->Scale(0, {ZNormal::kValue, ZNormalizeInt(-5000)}), 0u);
  EXPECT_EQ(curve->Scale(0, {ZNormal::kValue, ZNormalizeInt(-1000)}), 0u);
  EXPECT_GE(curve->Scale(0, {ZNormal::kValue, ZNormalizeInt(1000)}), 0x80000000u);
  EXPECT_EQ(curve->Scale(0, {ZNormal::kValue, ZNormalizeInt(5000)}),
            curve->Scale(0, {ZNormal::kValue, ZNormalizeInt(1000)}));
  // The first column's bit comes first.
  const uint64_t a[] = {0x80000000u, 0}, b[] = {0, 0x80000000u}, c[] = {1, 1};
  EXPECT_EQ(curve->Interleave(a), uint64_t{1} << 63);
  EXPECT_EQ(curve->Interleave(b), uint64_t{1} << 62);
  EXPECT_EQ(curve->Interleave(c), 3u);
  // Monotone in x with y fixed and in y with x fixed, over the array path (NULLs, NaN included).
  std::mt19937_64 rng(11);
  std::vector<std::optional<int64_t>> xs;
  std::vector<std::optional<double>> ys;
  for (int i = 0; i < 400; ++i) {
    xs.push_back(rng() % 20 == 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(rng() % 4001) - 2000));
    const uint64_t k = rng() % 20;
    const double y = std::ldexp(static_cast<double>(rng() % 2001) - 1000, -9);
    ys.push_back(k == 0 ? std::nullopt : k == 1 ? std::optional<double>(std::nan("")) : std::optional<double>(y));
  }
  auto x = Fixed<int64_t>(MakeType(TypeId::kInt64), xs);
  auto y = Fixed<double>(MakeType(TypeId::kFloat64), ys);
  auto z = curve->ZValues({x, y}, 400);
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  auto key = [&](const std::optional<int64_t>& xv) { return xv ? ZNormalizeInt(*xv) : 0; };
  for (int i = 0; i < 400; ++i) {
    for (int j = 0; j < 400; ++j) {
      const int64_t zi = (*z)->values<int64_t>()[i], zj = (*z)->values<int64_t>()[j];
      const bool same_y = ys[size_t(i)].has_value() == ys[size_t(j)].has_value() &&
                          (!ys[size_t(i)] || std::isnan(*ys[size_t(i)]) == std::isnan(*ys[size_t(j)])) &&
                          (!ys[size_t(i)] || std::isnan(*ys[size_t(i)]) || *ys[size_t(i)] == *ys[size_t(j)]);
      if (same_y && key(xs[size_t(i)]) < key(xs[size_t(j)])) {
        ASSERT_LE(zi, zj) << i << " " << j;
      }
      if (xs[size_t(i)] == xs[size_t(j)] && ys[size_t(i)] && ys[size_t(j)] && !std::isnan(*ys[size_t(j)]) &&
          (std::isnan(*ys[size_t(i)]) ? false : *ys[size_t(i)] < *ys[size_t(j)])) {
        ASSERT_LE(zi, zj) << i << " " << j;
      }
      if (xs[size_t(i)] == xs[size_t(j)] && !ys[size_t(i)] && ys[size_t(j)]) {
        ASSERT_LE(zi, zj);  // NULL y first
      }
    }
  }
  EXPECT_FALSE(ZOrderCurve::Make({}).ok());
  EXPECT_FALSE(ZOrderCurve::Make(std::vector<ZRange>(9)).ok());
}

// A table of two files in random order: x int64 (-50000..50000, 1% NULL), y double (-1..1, 1% NULL,
// 1% NaN), s string; pages of 200 rows with a page index.
struct Row {
  std::optional<int64_t> x;
  std::optional<double> y;
  std::string text;
};

void WriteInput(const std::string& dir, std::vector<Row>* rows) {
  std::filesystem::create_directories(dir);
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"x", MakeType(TypeId::kInt64), true},
                    {"y", MakeType(TypeId::kFloat64), true},
                    {"s", MakeType(TypeId::kString), true}};
  std::mt19937_64 rng(42);
  for (int f = 0; f < 2; ++f) {
    std::vector<std::optional<int64_t>> x;
    std::vector<std::optional<double>> y;
    std::vector<std::optional<std::string>> s;
    for (int i = 0; i < 6000; ++i) {
      const int64_t xv = static_cast<int64_t>(rng() % 100001) - 50000;
      x.push_back(rng() % 100 == 0 ? std::nullopt : std::optional<int64_t>(xv));
      const uint64_t k = rng() % 100;
      const double yv = std::ldexp(static_cast<double>(rng() % (1 << 21)), -20) - 1.0;
      y.push_back(k == 0 ? std::nullopt : k == 1 ? std::optional<double>(std::nan("")) : std::optional<double>(yv));
      s.push_back("r" + std::to_string(f) + "-" + std::to_string(i));
    }
    RecordBatch b;
    b.schema = schema;
    b.num_rows = 6000;
    b.columns = {Fixed<int64_t>(MakeType(TypeId::kInt64), x), Fixed<double>(MakeType(TypeId::kFloat64), y), Strings(s)};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = 3000;
    wo.defaults.page_max_rows = 200;
    wo.write_page_index = true;
    auto sink = parquet::LocalFileSink::Open(dir + "/part-" + std::to_string(f) + ".parquet");
    ASSERT_TRUE(sink.ok());
    auto w = parquet::ParquetWriter::Open(schema, sink->get(), wo);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Write(b).ok());
    ASSERT_TRUE((*w)->Close().ok());
    for (int i = 0; i < 6000; ++i) rows->push_back({x[size_t(i)], y[size_t(i)], rap::testing::RowText(b, i)});
  }
}

struct ScanResult {
  std::vector<std::string> rows;  // in scan order
  read::ScanStats stats;
};

Result<ScanResult> ScanTable(const std::string& url, const std::string& where) {
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(url));
  RAP_ASSIGN_OR_RETURN(read::ScanSource source, table::ToScanSource(snap));
  read::ScanOptions so;
  so.columns = {"x", "y", "s"};
  if (!where.empty()) {
    RAP_ASSIGN_OR_RETURN(so.filter, read::ParseExpr(where));
  }
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), so));
  ScanResult out;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    for (int64_t r = 0; r < b->batch.num_rows; ++r) out.rows.push_back(rap::testing::RowText(b->batch, r));
  }
  out.stats = scanner->stats();
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class ZOrderRewriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    in_ = dir_.Join("in");
    WriteInput(in_, &rows_);
  }
  RewriteOptions Options() const {
    RewriteOptions o;
    o.layout = RewriteLayout::kZOrder;
    o.cluster_by = {"x", "y"};
    o.writer.row_group_max_rows = 3000;
    o.writer.defaults.page_max_rows = 200;
    return o;
  }
  rap::testing::TempDir dir_;
  std::string in_;
  std::vector<Row> rows_;
};

TEST_F(ZOrderRewriteTest, SameRowsInZOrderAndBoxesPrunePages) {
  const std::string out = dir_.Join("z");
  RewriteOptions o = Options();
  o.memory = 64 << 10;  // spilled runs, merged
  auto r = RewriteTable(in_, out, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 12000);
  EXPECT_EQ(r->files.size(), 1u);
  EXPECT_TRUE(r->index_url.empty());
  EXPECT_GT(r->runs_spilled, 1);
  EXPECT_EQ(r->table_version, 0);
  EXPECT_FALSE(std::filesystem::exists(out + "/_rap_index"));

  // Exactly the input's rows.
  auto all_in = ScanTable(in_, "");
  auto all_out = ScanTable(out, "");
  ASSERT_TRUE(all_in.ok() && all_out.ok());
  std::vector<std::string> expected;
  for (const Row& row : rows_) expected.push_back(row.text);
  EXPECT_EQ(Sorted(all_in->rows), Sorted(expected));
  ASSERT_EQ(Sorted(all_out->rows), Sorted(expected));

  // In Z order: the curve of the input's ranges, recomputed here, is non-decreasing over the output.
  ZRange rx, ry;
  for (const Row& row : rows_) {
    if (row.x) rx.Add({ZNormal::kValue, ZNormalizeInt(*row.x)});
    if (row.y && !std::isnan(*row.y)) ry.Add({ZNormal::kValue, ZNormalizeDouble(*row.y)});
  }
  auto curve = ZOrderCurve::Make({rx, ry});
  ASSERT_TRUE(curve.ok());
  std::map<std::string, uint64_t> z_of;
  for (const Row& row : rows_) {
    const ZNormal nx = row.x ? ZNormal{ZNormal::kValue, ZNormalizeInt(*row.x)} : ZNormal{};
    const ZNormal ny = !row.y ? ZNormal{} : std::isnan(*row.y) ? ZNormal{ZNormal::kNaN, UINT64_MAX}
                                                                 : ZNormal{ZNormal::kValue, ZNormalizeDouble(*row.y)};
    const uint64_t s[] = {curve->Scale(0, nx), curve->Scale(1, ny)};
    z_of[row.text] = curve->Interleave(s);
  }
  for (size_t i = 1; i < all_out->rows.size(); ++i) {
    ASSERT_LE(z_of[all_out->rows[i - 1]], z_of[all_out->rows[i]]) << i;
  }

  // Box queries: exactly the brute-force rows, and (boxes up to ~5% of the area) fewer pages read.
  std::mt19937_64 rng(9);
  int64_t pages_in = 0, pages_out = 0;
  for (int q = 0; q < 12; ++q) {
    const int64_t x0 = static_cast<int64_t>(rng() % 90000) - 50000;
    const int64_t x1 = x0 + 1000 + static_cast<int64_t>(rng() % 20000);
    const double y0 = static_cast<double>(rng() % 1800) / 1000 - 1;
    const double y1 = y0 + 0.02 + static_cast<double>(rng() % 400) / 1000;
    const std::string where = "x BETWEEN " + std::to_string(x0) + " AND " + std::to_string(x1) + " AND y BETWEEN " +
                              fmt::format("{}", y0) + " AND " + fmt::format("{}", y1);
    std::vector<std::string> brute;
    for (const Row& row : rows_) {
      if (row.x && *row.x >= x0 && *row.x <= x1 && row.y && !std::isnan(*row.y) && *row.y >= y0 && *row.y <= y1) {
        brute.push_back(row.text);
      }
    }
    auto a = ScanTable(in_, where);
    auto b = ScanTable(out, where);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(Sorted(a->rows), Sorted(brute)) << where;
    EXPECT_EQ(Sorted(b->rows), Sorted(brute)) << where;
    pages_in += a->stats.pages_read;
    pages_out += b->stats.pages_read;
    EXPECT_LT(b->stats.pages_read, a->stats.pages_read) << where;
  }
  // The unsorted input's pages all span the whole box range: every page is read. Z-ordered pages
  // cover small cells of the plane.
  EXPECT_LT(pages_out * 4, pages_in) << pages_out << " vs " << pages_in;

  // Row groups cut on the curve: between half the limit (1500) and the limit (3000) rows, the last
  // excepted, each a cell of the plane: their x-by-y statistics boxes together cover the plane
  // about once (cut by row count, groups that straddle a quadrant boundary have wide boxes).
  auto io = io::OpenUrl(out);
  ASSERT_TRUE(io.ok());
  auto reader = read::FileReader::Open(io->store, io::JoinPath(io->path, r->files[0]));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const auto& groups = (*reader)->metadata().row_groups;
  ASSERT_GE(groups.size(), 4u);
  double area = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g + 1 < groups.size()) {
      EXPECT_GE(groups[g].num_rows, 1500) << g;
      EXPECT_LE(groups[g].num_rows, 3000) << g;
    }
    const parquet::Statistics& sx = *groups[g].columns[0].meta_data->statistics;
    const parquet::Statistics& sy = *groups[g].columns[1].meta_data->statistics;
    int64_t x0, x1;
    double y0, y1;
    std::memcpy(&x0, sx.min_value->data(), 8);
    std::memcpy(&x1, sx.max_value->data(), 8);
    std::memcpy(&y0, sy.min_value->data(), 8);
    std::memcpy(&y1, sy.max_value->data(), 8);
    area += static_cast<double>(x1 - x0) / 100000.0 * (y1 - y0) / 2.0;
  }
  EXPECT_LT(area, 1.5) << groups.size() << " row groups";
}

// A Hive-partitioned folder: the partition column becomes an ordinary column of the output and can
// cluster (its range comes from the partition values, not from the files).
TEST(ZOrderPartitionedTest, PartitionColumnClusters) {
  rap::testing::LocalScanTable t;
  rap::testing::ScanTableOptions so;
  so.files = 3;
  so.rows_per_file = 1500;
  ASSERT_TRUE(t.Write(so).ok());
  rap::testing::TempDir dir;
  RewriteOptions o;
  o.layout = RewriteLayout::kZOrder;
  o.cluster_by = {"part", "d", "v"};
  o.delta = false;
  o.writer.defaults.page_max_rows = 100;
  auto r = RewriteTable(t.root(), dir.Join("z"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 4500);
  const auto all = [](const std::string& url, const std::string& where) -> Result<std::vector<std::string>> {
    RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(url));
    RAP_ASSIGN_OR_RETURN(read::ScanSource source, table::ToScanSource(snap));
    read::ScanOptions sc;
    sc.columns = {"id", "v", "s", "d", "part"};
    if (!where.empty()) {
      RAP_ASSIGN_OR_RETURN(sc.filter, read::ParseExpr(where));
    }
    RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), sc));
    std::vector<std::string> rows;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
      if (!b) break;
      for (int64_t i = 0; i < b->batch.num_rows; ++i) rows.push_back(rap::testing::RowText(b->batch, i));
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  auto in = all(t.root(), "");
  auto out = all(dir.Join("z"), "");
  ASSERT_TRUE(in.ok() && out.ok());
  ASSERT_EQ(in->size(), 4500u);
  EXPECT_EQ(*out, *in);
  const std::string where = "part = 'b' AND d BETWEEN 19005 AND 19010 AND v BETWEEN 0 AND 100";
  auto in_box = all(t.root(), where);
  auto out_box = all(dir.Join("z"), where);
  ASSERT_TRUE(in_box.ok() && out_box.ok());
  EXPECT_FALSE(in_box->empty());
  EXPECT_EQ(*out_box, *in_box);
}

TEST_F(ZOrderRewriteTest, RefusesWhatDoesNotApply) {
  RewriteOptions o = Options();
  o.cluster_by = {};
  auto r = RewriteTable(in_, dir_.Join("a"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("needs --cluster-by"), std::string::npos) << r.status().ToString();
  o = Options();
  o.key_columns = {"x"};
  r = RewriteTable(in_, dir_.Join("b"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("give no --key"), std::string::npos) << r.status().ToString();
  o = Options();
  o.cluster_by = {"x", "nope"};
  r = RewriteTable(in_, dir_.Join("c"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'nope': no such column"), std::string::npos) << r.status().ToString();
  o = Options();
  o.buckets = 2;
  EXPECT_FALSE(RewriteTable(in_, dir_.Join("d"), o).ok());
  o = RewriteOptions();
  o.key_columns = {"x"};
  o.cluster_by = {"x", "y"};
  r = RewriteTable(in_, dir_.Join("e"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("applies to --layout zorder"), std::string::npos) << r.status().ToString();
}

TEST_F(ZOrderRewriteTest, CliRewritesAndScanPrunes) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  const std::string out = dir_.Join("cli");
  auto r = rap::testing::RunCli("rewrite '" + in_ + "' '" + out +
                                "' --layout zorder --cluster-by x,y --page-rows 200 --row-group-rows 3000 "
                                "--no-delta -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("12000 rows of 2 file(s) into 1 file(s), layout zorder"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no index"), std::string::npos) << r.out;
  auto s = rap::testing::RunCli("scan '" + out +
                                "' --where 'x BETWEEN -10000 AND 0 AND y BETWEEN 0 AND 0.2' --stats --format csv");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  EXPECT_NE(s.out.find("pages_skipped"), std::string::npos) << s.out;
  auto bad = rap::testing::RunCli("rewrite '" + in_ + "' '" + dir_.Join("bad") + "' --layout zorder -q");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("needs --cluster-by"), std::string::npos) << bad.out;
  auto nokey = rap::testing::RunCli("rewrite '" + in_ + "' '" + dir_.Join("bad2") + "' -q");
  EXPECT_EQ(nokey.exit_code, 1);
  EXPECT_NE(nokey.out.find("--key is required"), std::string::npos) << nokey.out;
}

}  // namespace
}  // namespace rap::index
