// Blob columns decoded back on lookup (rap/format/blob_column.h, docs/layouts.md "A blob column"):
// a table whose non-key columns are folded into one JSON column, with the folded schema in the
// footer's key-value metadata, looks up to the original columns — every supported type, nulls,
// nested lists and structs, NaN/inf, binary and JSON text — equal byte for byte to the input rows,
// through the footer path and the covered path (standard and interleaved frame layouts), with
// projections of folded columns and the raw blob by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "format/writer_testing.h"
#include "rap/columnar/array_format.h"
#include "rap/format/blob_column.h"
#include "rap/format/writer.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/rewrite.h"
#include "rap/read/file_reader.h"
#include "testing/duckdb_run.h"
#include "testing/cli_run.h"
#include "testing/paths.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

constexpr int64_t kRows = 500;
constexpr int64_t kKeySpace = 60;

DataTypePtr Temporal(TypeId id, rap::TimeUnit unit, const std::string& tz = "") {
  auto t = std::make_shared<DataType>(*MakeType(id));
  t->unit = unit;
  t->timezone = tz;
  return t;
}

// The original (unfolded) schema: every type the blob encoding supports.
SchemaPtr FoldedSchema() {
  auto json_type = std::make_shared<DataType>(*MakeType(TypeId::kString));
  json_type->extension = "json";
  auto uuid = std::make_shared<DataType>(*MakeFixedSizeBinary(16));
  uuid->extension = "uuid";
  auto s = std::make_shared<Schema>();
  s->fields = {
      {"b", MakeType(TypeId::kBool), true},
      {"i8", MakeType(TypeId::kInt8), true},
      {"i16", MakeType(TypeId::kInt16), true},
      {"i32", MakeType(TypeId::kInt32), false},
      {"i64", MakeType(TypeId::kInt64), true},
      {"u8", MakeType(TypeId::kUInt8), true},
      {"u16", MakeType(TypeId::kUInt16), true},
      {"u32", MakeType(TypeId::kUInt32), true},
      {"u64", MakeType(TypeId::kUInt64), true},
      {"f32", MakeType(TypeId::kFloat32), true},
      {"f64", MakeType(TypeId::kFloat64), true},
      {"s", MakeType(TypeId::kString), true},
      {"bin", MakeType(TypeId::kBinary), true},
      {"fixed", MakeFixedSizeBinary(5), true},
      {"id", uuid, true},
      {"dec", MakeDecimal(20, 4), true},
      {"dec38", MakeDecimal(38, 0), true},
      {"d", MakeType(TypeId::kDate32), true},
      {"t32", Temporal(TypeId::kTime32, rap::TimeUnit::kMilli), true},
      {"t64", Temporal(TypeId::kTime64, rap::TimeUnit::kNano, "UTC"), true},
      {"ts_ms", Temporal(TypeId::kTimestamp, rap::TimeUnit::kMilli), true},
      {"ts_us", Temporal(TypeId::kTimestamp, rap::TimeUnit::kMicro, "UTC"), true},
      {"ts_ns", Temporal(TypeId::kTimestamp, rap::TimeUnit::kNano), true},
      {"js", json_type, true},
      {"tags", MakeList({"element", MakeType(TypeId::kInt32), true}), true},
      {"pt", MakeStruct({{"x", MakeType(TypeId::kFloat64), true},
                         {"names", MakeList({"element", MakeType(TypeId::kString), false}), false},
                         {"when", Temporal(TypeId::kTime64, rap::TimeUnit::kMicro), true}}),
       true},
      {"lst", MakeList({"element", MakeStruct({{"a", MakeType(TypeId::kInt64), false}, {"c", MakeType(TypeId::kBinary), true}}), true}),
       true},
  };
  return s;
}

// Timestamps within years 1900..2100 (the blob's range is 0000..9999), NULL 1 in 5.
ArrayPtr Timestamps(std::mt19937_64& rng, DataTypePtr type, int64_t n) {
  const int64_t per = type->unit == rap::TimeUnit::kMilli ? 1000 : type->unit == rap::TimeUnit::kMicro ? 1000000 : 1000000000;
  std::string bytes;
  std::vector<bool> valid;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = (static_cast<int64_t>(rng() % (200ull * 365 * 86400)) - 70ll * 365 * 86400) * per +
                      static_cast<int64_t>(rng() % static_cast<uint64_t>(per));
    bytes.append(reinterpret_cast<const char*>(&v), 8);
    valid.push_back(rng() % 5 != 0);
  }
  return rap::testing::MakeFixedArray(type, bytes, n, valid);
}

ArrayPtr JsonTexts(std::mt19937_64& rng, DataTypePtr type, int64_t n) {
  const char* texts[] = {R"({"a": 1, "b": [true, null]})", R"("just a string")", "[1,2,3]", "42", "{}", R"({"x":"\u00e9"})"};
  std::vector<std::string> v;
  std::vector<bool> valid;
  for (int64_t i = 0; i < n; ++i) {
    v.push_back(texts[rng() % std::size(texts)]);
    valid.push_back(rng() % 4 != 0);
  }
  auto a = rap::testing::MakeStringArray(v, valid);
  a->type = type;
  return a;
}

struct Table {
  SchemaPtr folded;                             // original columns without the key
  std::vector<std::vector<int64_t>> keys;       // per file
  std::vector<std::vector<ArrayPtr>> columns;   // per file, per folded field
  std::vector<std::string> paths;
};

// Two files: k int64 + blob; file 0 unsorted and standard, file 1 sorted and interleaved frames. The
// same rows unfolded (k and every folded column) go to `wide_dir`.
Table WriteTable(const std::string& dir, const std::string& wide_dir) {
  std::filesystem::create_directories(dir);
  std::filesystem::create_directories(wide_dir);
  Table t;
  t.folded = FoldedSchema();
  std::mt19937_64 rng(11);
  rap::testing::RandomDataOptions ro;
  for (int f = 0; f < 2; ++f) {
    std::vector<int64_t> k;
    for (int64_t r = 0; r < kRows; ++r) k.push_back(static_cast<int64_t>(rng() % kKeySpace));
    if (f == 1) std::sort(k.begin(), k.end());
    std::vector<ArrayPtr> cols;
    for (const Field& field : t.folded->fields) {
      if (field.type->id == TypeId::kTimestamp) {
        cols.push_back(Timestamps(rng, field.type, kRows));
      } else if (field.type->extension == "json") {
        cols.push_back(JsonTexts(rng, field.type, kRows));
      } else {
        cols.push_back(rap::testing::RandomArray(rng, *field.type, field.nullable, kRows, ro));
      }
    }
    parquet::BlobSpec spec;
    spec.fields = t.folded->fields;
    auto blob = parquet::EncodeBlob(spec, cols, kRows);
    RAP_TEST_CHECK_OK(blob);
    auto schema = std::make_shared<Schema>();
    schema->fields = {{"k", MakeType(TypeId::kInt64), false}, {"blob", (*blob)->type, false}};
    RecordBatch batch;
    batch.schema = schema;
    batch.num_rows = kRows;
    batch.columns = {rap::testing::MakeInt64Array(k), *blob};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = 200;
    wo.defaults.page_max_rows = 50;
    wo.defaults.codec = parquet::Codec::ZSTD;
    wo.key_value_metadata.push_back({parquet::kBlobMetadataKey, parquet::BlobSpecToJson(spec)});
    if (f == 1) {
      wo.frame_break_on = {"k"};
      wo.interleave = true;
    }
    auto bytes = parquet::WriteParquetToString(schema, {batch}, wo);
    RAP_TEST_CHECK_OK(bytes);
    t.paths.push_back(dir + "/part-" + std::to_string(f) + ".parquet");
    rap::testing::WriteStringToFile(t.paths.back(), *bytes);
    auto wide_schema = std::make_shared<Schema>(*t.folded);
    wide_schema->fields.insert(wide_schema->fields.begin(), schema->fields[0]);
    RecordBatch wide;
    wide.schema = wide_schema;
    wide.num_rows = kRows;
    wide.columns = cols;
    wide.columns.insert(wide.columns.begin(), batch.columns[0]);
    auto wide_bytes = parquet::WriteParquetToString(wide_schema, {wide}, parquet::WriterOptions());
    RAP_TEST_CHECK_OK(wide_bytes);
    rap::testing::WriteStringToFile(wide_dir + "/part-" + std::to_string(f) + ".parquet", *wide_bytes);
    t.keys.push_back(std::move(k));
    t.columns.push_back(std::move(cols));
  }
  return t;
}

class BlobLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    wide_ = dir_.Join("wide");
    table_ = WriteTable(root_, wide_);
  }
  std::shared_ptr<Index> Build(const std::string& name, std::vector<std::string> cover) {
    BuildOptions o;
    o.key_columns = {"k"};
    o.index_url = dir_.Join(name);
    o.cover = std::move(cover);
    auto r = BuildIndex(root_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return nullptr;
    auto idx = Index::Open(o.index_url);
    EXPECT_TRUE(idx.ok()) << idx.status().ToString();
    return idx.ok() ? *idx : nullptr;
  }
  // Looks every key up (plus absent ones) with `columns` and compares each returned value with the
  // input's rows of that key (file, row order) byte for byte.
  void Check(Index& idx, const std::vector<std::string>& columns, bool covered) {
    std::vector<Key> ks;
    for (int64_t k = 0; k < kKeySpace + 3; ++k) ks.push_back(*idx.ParseKey({std::to_string(k)}));
    LookupOptions lo;
    lo.columns = columns;
    auto res = idx.Lookup(ks, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->stats.covered_files > 0, covered);
    std::vector<std::string> names;
    for (const Field& f : res->schema->fields) names.push_back(f.name);
    if (columns.empty()) {
      std::vector<std::string> want{"k"};
      for (const Field& f : table_.folded->fields) want.push_back(f.name);
      ASSERT_EQ(names, want);
    }
    int64_t total = 0;
    for (size_t i = 0; i < ks.size(); ++i) {
      const RecordBatch& got = res->keys[i].rows;
      int64_t r = 0;
      for (size_t f = 0; f < table_.keys.size(); ++f) {
        for (int64_t row = 0; row < kRows; ++row) {
          if (table_.keys[f][static_cast<size_t>(row)] != static_cast<int64_t>(i)) continue;
          ASSERT_LT(r, got.num_rows) << "key " << i;
          for (size_t c = 0; c < names.size(); ++c) {
            if (names[c] == "k") continue;
            const int fi = table_.folded->FieldIndex(names[c]);
            ASSERT_GE(fi, 0) << names[c];
            ASSERT_EQ(got.schema->fields[c].type->ToString(), table_.folded->fields[size_t(fi)].type->ToString());
            const std::string diff =
                rap::testing::CompareValues(*table_.columns[f][size_t(fi)], row, *got.columns[c], r);
            ASSERT_EQ(diff, "") << "key " << i << " file " << f << " row " << row << " column " << names[c];
          }
          ++r;
        }
      }
      EXPECT_EQ(r, got.num_rows) << "key " << i;
      total += r;
    }
    EXPECT_EQ(total, 2 * kRows);
  }
  rap::testing::TempDir dir_;
  std::string root_, wide_;
  Table table_;
};

TEST_F(BlobLookupTest, FooterPathDecodesEveryColumn) {
  auto idx = Build("plain", {});
  ASSERT_TRUE(idx);
  Check(*idx, {}, false);
  Check(*idx, {"pt", "f64", "k", "bin", "ts_ns"}, false);
}

TEST_F(BlobLookupTest, CoveredPathDecodesEveryColumn) {
  auto idx = Build("covered", {"blob"});
  ASSERT_TRUE(idx);
  Check(*idx, {}, true);
  Check(*idx, {"lst", "js", "dec38"}, true);
}

// `rap rewrite` keeps the blob metadata: its output (interleaved frames, covered) decodes the same.
TEST_F(BlobLookupTest, RewrittenTableDecodesTheSame) {
  RewriteOptions o;
  o.key_columns = {"k"};
  o.layout = RewriteLayout::kInterleaved;
  auto r = RewriteTable(root_, dir_.Join("rw"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto idx = Index::Open(r->index_url);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  Check(**idx, {}, true);
}

// `rap rewrite --layout blob` of the unfolded table: a Delta table of k + blob (framed per key, with
// the rap.blob metadata) whose lookups decode every row back equal to the input, and whose blob
// column DuckDB reads as the encoding of the input rows.
TEST_F(BlobLookupTest, RewriteToBlobLayoutDecodesEveryRow) {
  RewriteOptions o;
  o.key_columns = {"k"};
  o.layout = RewriteLayout::kBlob;
  const std::string out = dir_.Join("blob");
  auto r = RewriteTable(wide_, out, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->table_version, 0);
  EXPECT_GE(r->frames, kKeySpace);
  ASSERT_EQ(r->files.size(), 1u);
  auto url = io::OpenUrl(out + "/" + r->files[0]);
  ASSERT_TRUE(url.ok());
  auto reader = read::FileReader::Open(url->store, url->path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto proj = (*reader)->Project({});
  ASSERT_TRUE(proj.ok());
  ASSERT_EQ(proj->schema->fields.size(), 2u);
  EXPECT_EQ(proj->schema->fields[1].name, "blob");
  auto spec = parquet::FindBlobSpec((*reader)->metadata().key_value_metadata);
  ASSERT_TRUE(spec.ok() && *spec) << spec.status().ToString();
  EXPECT_EQ((*spec)->fields.size(), table_.folded->fields.size());
  auto idx = Index::Open(r->index_url);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  Check(**idx, {}, true);
  Check(**idx, {"lst", "u64", "ts_ns"}, true);
  // A folded column is not a column of the output any more.
  o.cover = {"i32"};
  EXPECT_EQ(RewriteTable(wide_, dir_.Join("bad"), o).status().code(), StatusCode::kInvalidArgument);
  // DuckDB reads the blob column: "k|blob" lines equal to the input rows' encoding.
  if (const std::string why = rap::testing::DuckDbMissing(); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::string> want;
  for (size_t f = 0; f < table_.keys.size(); ++f) {
    parquet::BlobSpec all;
    all.fields = table_.folded->fields;
    auto enc = parquet::EncodeBlob(all, table_.columns[f], kRows);
    ASSERT_TRUE(enc.ok());
    for (int64_t row = 0; row < kRows; ++row) {
      want.push_back(std::to_string(table_.keys[f][size_t(row)]) + "|" + FormatValue(**enc, row));
    }
  }
  auto duck = rap::testing::RunDuckDb(
      {"SELECT k::VARCHAR || '|' || blob::VARCHAR AS line FROM read_parquet('" + out + "/*.parquet')"});
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  std::vector<std::string> got;
  for (const auto& row : *duck) got.push_back(row["line"].get<std::string>());
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got, want);
}

TEST_F(BlobLookupTest, RawBlobByNameAndUnknownColumns) {
  auto idx = Build("raw", {"blob"});
  ASSERT_TRUE(idx);
  LookupOptions lo;
  lo.columns = {"blob", "i32"};
  auto key = *idx->ParseKey({"3"});
  auto res = idx->Lookup({&key, 1}, lo);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_EQ(res->schema->fields.size(), 3u);
  EXPECT_EQ(res->schema->fields[1].name, "blob");
  ASSERT_GT(res->keys[0].rows.num_rows, 0);
  EXPECT_EQ(FormatValue(*res->keys[0].rows.columns[1], 0).substr(0, 5), "{\"b\":");
  lo.columns = {"nope"};
  EXPECT_EQ(idx->Lookup({&key, 1}, lo).status().code(), StatusCode::kNotFound);
}

TEST(BlobSpecTest, RoundTripsAndRejects) {
  parquet::BlobSpec spec;
  spec.fields = FoldedSchema()->fields;
  auto back = parquet::ParseBlobSpec(parquet::BlobSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->fields.size(), spec.fields.size());
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    EXPECT_EQ(back->fields[i].name, spec.fields[i].name);
    EXPECT_EQ(back->fields[i].nullable, spec.fields[i].nullable);
    EXPECT_EQ(back->fields[i].type->ToString(), spec.fields[i].type->ToString());
    EXPECT_EQ(back->fields[i].type->extension, spec.fields[i].type->extension);
  }
  for (const char* bad : {"", "[]", R"({"column":"blob"})", R"({"column":"blob","fields":[{"name":"x"}]})",
                          R"({"column":"blob","fields":[{"name":"x","type":{"id":"nope"}}]})",
                          R"({"column":"blob","fields":[{"name":"x","type":{"id":"list"}}]})",
                          R"({"column":"blob","fields":[{"name":"x","type":{"id":"decimal","precision":99}}]})"}) {
    EXPECT_EQ(parquet::ParseBlobSpec(bad).status().code(), StatusCode::kCorrupt) << bad;
  }
  EXPECT_EQ(parquet::CheckBlobField({"m", MakeMap({"key", MakeType(TypeId::kString), false},
                                                  {"value", MakeType(TypeId::kInt32), true}), true})
                .code(),
            StatusCode::kNotSupported);
  // A blob that is not an object, or a value of the wrong type, names the row and field.
  auto bad = rap::testing::MakeStringArray({R"({"i32": 1})", R"({"i32": "x"})"});
  parquet::BlobSpec one;
  one.fields = {{"i32", MakeType(TypeId::kInt32), true}};
  const int wanted[] = {0};
  auto r = parquet::DecodeBlob(one, *bad, wanted);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("row 1: field 'i32'"), std::string::npos) << r.status().ToString();
}

// `rap convert --blob` writes the metadata, and `rap lookup` prints the original columns.
TEST(BlobCliTest, ConvertThenLookupShowsColumns) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  const std::string in = dir.Join("in.jsonl"), out = dir.Join("t/part-0.parquet");
  std::filesystem::create_directories(dir.Join("t"));
  rap::testing::WriteStringToFile(in, R"({"k": 1, "name": "a", "v": 1.5, "tags": [1, 2]}
{"k": 2, "name": null, "v": 2.5, "tags": []}
{"k": 1, "name": "c", "v": null, "tags": null}
)");
  auto c = rap::testing::RunCli("convert '" + in + "' '" + out + "' --blob k --sort-by k");
  ASSERT_EQ(c.exit_code, 0) << c.out;
  auto ix = rap::testing::RunCli("index build '" + dir.Join("t") + "' --key k --cover blob");
  ASSERT_EQ(ix.exit_code, 0) << ix.out;
  auto l = rap::testing::RunCli("lookup '" + dir.Join("t") + "' --key 1 --format csv", false);
  ASSERT_EQ(l.exit_code, 0) << l.out;
  EXPECT_NE(l.out.find("k,name,v,tags"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("1,a,1.5"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("1,c,"), std::string::npos) << l.out;
}

}  // namespace
}  // namespace rap::index
