// Sparse row selections (a point lookup's few rows per page) read from written files of every value
// encoding, data page v1 and v2, with nulls in RLE and bit-packed runs of definition levels: the
// selected rows equal the same rows of a whole read. Guards the skip paths (ValueDecoder::Skip, the
// lazily decoded flat definition levels and RleBitPackedDecoder::SkipCountingOnes).
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "format/writer_testing.h"
#include "rap/format/footer.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"
#include "rap/format/writer.h"

namespace rap::parquet {
namespace {

// Nulls in long runs (RLE runs of definition levels) and scattered (bit-packed runs).
std::vector<bool> Validity(int64_t rows, std::mt19937_64& rng) {
  std::vector<bool> valid(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) valid[static_cast<size_t>(i)] = (i / 37) % 4 != 1 && rng() % 5 != 0;
  return valid;
}

RecordBatch MakeTable(int64_t rows) {
  std::mt19937_64 rng(5);
  std::vector<int64_t> i64;
  std::vector<double> f64;
  std::vector<std::string> str;
  for (int64_t i = 0; i < rows; ++i) {
    i64.push_back(static_cast<int64_t>(rng() % 1000) - 500);
    f64.push_back(static_cast<double>(rng() % 100000) / 7.0);
    str.push_back("v" + std::to_string(rng() % 300) + std::string(static_cast<size_t>(rng() % 5), 'x'));
  }
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"a", MakeType(TypeId::kInt64), true},
                    {"d", MakeType(TypeId::kFloat64), true},
                    {"s", MakeType(TypeId::kString), true},
                    {"full", MakeType(TypeId::kInt64), true}};  // nullable, never null
  return testing::MakeBatch(schema, {testing::MakeInt64Array(i64, Validity(rows, rng)),
                                     testing::MakeDoubleArray(f64, Validity(rows, rng)),
                                     testing::MakeStringArray(str, Validity(rows, rng)), testing::MakeInt64Array(i64)});
}

struct Case {
  const char* name;
  bool dictionary;
  Encoding ints, doubles, strings;
};

// A few rows per page, at page starts and ends, single rows and short ranges crossing a page end.
std::vector<RowRange> SparseSelection(int64_t rows, int64_t page_rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<RowRange> sel;
  int64_t at = 0;
  while (at < rows) {
    const int64_t page_end = std::min(rows, (at / page_rows + 1) * page_rows);
    const int64_t pick = static_cast<int64_t>(rng() % 4);
    int64_t b = pick == 0 ? at : pick == 1 ? page_end - 1 : at + static_cast<int64_t>(rng() % (page_end - at));
    b = std::max(b, at);
    const int64_t len = rng() % 3 == 0 ? 1 + static_cast<int64_t>(rng() % 12) : 1;
    const int64_t e = std::min(rows, b + len);
    sel.push_back({b, e});
    at = e + 1 + static_cast<int64_t>(rng() % (page_rows / 2));
  }
  return sel;
}

TEST(SparseRead, EveryEncodingEqualsWholeRead) {
  const int64_t rows = 1200, page_rows = 100;
  const RecordBatch batch = MakeTable(rows);
  const std::vector<Case> cases = {
      {"dictionary", true, Encoding::PLAIN, Encoding::PLAIN, Encoding::PLAIN},
      {"plain", false, Encoding::PLAIN, Encoding::PLAIN, Encoding::PLAIN},
      {"delta", false, Encoding::DELTA_BINARY_PACKED, Encoding::BYTE_STREAM_SPLIT, Encoding::DELTA_LENGTH_BYTE_ARRAY},
      {"delta_bytes", false, Encoding::DELTA_BINARY_PACKED, Encoding::PLAIN, Encoding::DELTA_BYTE_ARRAY},
  };
  for (const Case& c : cases) {
    for (int version : {1, 2}) {
      WriterOptions wo;
      wo.data_page_version = version;
      wo.defaults.page_max_rows = page_rows;
      wo.defaults.dictionary = c.dictionary;
      wo.columns["a"].encoding = c.ints;
      wo.columns["full"].encoding = c.ints;
      wo.columns["d"].encoding = c.doubles;
      wo.columns["s"].encoding = c.strings;
      auto file = WriteParquetToString(batch.schema, {batch}, wo);
      ASSERT_TRUE(file.ok()) << file.status().ToString();
      auto md = ParseFooter({reinterpret_cast<const uint8_t*>(file->data()), file->size()}, file->size(), "t");
      ASSERT_TRUE(md.ok()) << md.status().ToString();
      auto desc = SchemaDescriptor::Make(md->schema, "t");
      ASSERT_TRUE(desc.ok());
      ASSERT_EQ(md->row_groups.size(), 1u);
      const auto& rg = md->row_groups[0];
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        const std::vector<RowRange> sel = SparseSelection(rows, page_rows, seed + static_cast<uint64_t>(version));
        for (int col = 0; col < desc->num_columns(); ++col) {
          SCOPED_TRACE(fmt::format("{} v{} seed {} column {}", c.name, version, seed, col));
          ColumnChunkStats stats;
          auto leaf = testing::detail::ReadChunkRows(*file, desc->column(col), rg.columns[static_cast<size_t>(col)],
                                                     rows, sel, &stats);
          ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
          std::vector<const LeafColumnData*> leaves(static_cast<size_t>(desc->num_columns()), nullptr);
          leaves[static_cast<size_t>(col)] = &*leaf;
          int64_t n = 0;
          for (const RowRange& r : sel) n += r.size();
          auto got = AssembleField(desc->field(col), leaves, n);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          EXPECT_GT(stats.values_skipped, 0);
          int64_t k = 0;
          for (const RowRange& r : sel) {
            for (int64_t row = r.begin; row < r.end; ++row, ++k) {
              const std::string diff = testing::CompareValues(*batch.columns[static_cast<size_t>(col)], row, **got, k);
              ASSERT_EQ(diff, "") << "row " << row;
            }
          }
        }
      }
    }
  }
}

// SkipCountingOnes against GetBatch: every split of a level sequence of RLE and bit-packed runs
// (run boundaries, group boundaries, a truncated last group) gives the same count and position.
TEST(SparseRead, SkipCountingOnesMatchesDecoding) {
  std::mt19937_64 rng(9);
  std::vector<int16_t> levels;
  for (int run = 0; run < 40; ++run) {
    const int len = 1 + static_cast<int>(rng() % 30);
    const int16_t v = static_cast<int16_t>(rng() % 2);
    const bool pure = run % 2 == 0;  // an RLE run when long enough; else bit-packed values
    for (int i = 0; i < len; ++i) levels.push_back(pure ? v : static_cast<int16_t>(rng() % 2));
  }
  RleBitPackedEncoder enc(1);
  enc.PutBatch(levels.data(), static_cast<int64_t>(levels.size()));
  std::string bytes;
  enc.Finish(&bytes);
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const int64_t total = static_cast<int64_t>(levels.size());
  for (int64_t step : std::vector<int64_t>{1, 3, 7, 8, 9, 16, 31, 64, total}) {
    RleBitPackedDecoder skipper(data, bytes.size(), 1);
    int64_t at = 0;
    bool decode = false;
    while (at < total) {
      const int64_t n = std::min(step, total - at);
      int64_t want = 0;
      for (int64_t i = at; i < at + n; ++i) want += levels[static_cast<size_t>(i)];
      if (decode) {  // alternate decoding and skipping, as a sparse read does
        std::vector<int16_t> out(static_cast<size_t>(n));
        auto got = skipper.GetBatch(out.data(), n);
        ASSERT_TRUE(got.ok());
        ASSERT_EQ(*got, n);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[static_cast<size_t>(i)], levels[static_cast<size_t>(at + i)]);
      } else {
        int64_t ones = 0;
        auto got = skipper.SkipCountingOnes(n, &ones);
        ASSERT_TRUE(got.ok());
        ASSERT_EQ(*got, n) << "step " << step << " at " << at;
        ASSERT_EQ(ones, want) << "step " << step << " at " << at;
      }
      decode = !decode;
      at += n;
    }
    int64_t ones = 0;
    auto past = skipper.SkipCountingOnes(16, &ones);  // at most the last group's padding is left
    ASSERT_TRUE(past.ok());
    EXPECT_LT(*past, 8);
  }
  RleBitPackedDecoder wide(data, bytes.size(), 2);
  int64_t ones = 0;
  EXPECT_FALSE(wide.SkipCountingOnes(1, &ones).ok());  // bit width 1 only
}

}  // namespace
}  // namespace rap::parquet
