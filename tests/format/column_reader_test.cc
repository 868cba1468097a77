// Column chunk reading on hand-built pages: selection skipping, nulls, dictionaries (and bad
// indices), CRCs, the decompressed-size limit, truncation, and nested assembly from levels.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include <zlib.h>

#include "rap/columnar/array_format.h"
#include "rap/codec/codec.h"
#include "rap/format/column_reader.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"
#include "testing/result_check.h"

namespace rap::parquet {
namespace {

SchemaElement Root(int children) {
  SchemaElement e;
  e.name = "root";
  e.num_children = children;
  return e;
}

SchemaElement Leaf(const std::string& name, Type t, Repetition rep) {
  SchemaElement e;
  e.name = name;
  e.type = t;
  e.repetition_type = rep;
  return e;
}

SchemaDescriptor MakeSchema(std::vector<SchemaElement> elements) {
  auto s = SchemaDescriptor::Make(elements, "test.parquet");
  RAP_TEST_CHECK_OK(s);
  return *s;
}

std::string Int32s(const std::vector<int32_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

// RLE/bit-packed hybrid levels with the 4-byte length prefix of data page v1.
std::string LevelsV1(const std::vector<int16_t>& levels, int bit_width) {
  RleBitPackedEncoder e(bit_width);
  e.PutBatch(levels.data(), static_cast<int64_t>(levels.size()));
  std::string body;
  e.Finish(&body);
  std::string out(4, '\0');
  const uint32_t len = static_cast<uint32_t>(body.size());
  std::memcpy(out.data(), &len, 4);
  return out + body;
}

std::string Indices(const std::vector<int32_t>& idx, int bit_width) {
  RleBitPackedEncoder e(bit_width);
  e.PutBatch(idx.data(), static_cast<int64_t>(idx.size()));
  std::string out(1, static_cast<char>(bit_width));
  e.Finish(&out);
  return out;
}

std::string DataPage(int32_t num_values, const std::string& body, Encoding enc = Encoding::PLAIN,
                     std::optional<int32_t> crc = std::nullopt, int32_t uncompressed = -1) {
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.compressed_page_size = static_cast<int32_t>(body.size());
  h.uncompressed_page_size = uncompressed >= 0 ? uncompressed : static_cast<int32_t>(body.size());
  h.crc = crc;
  DataPageHeader d;
  d.num_values = num_values;
  d.encoding = enc;
  h.data_page_header = d;
  std::string out;
  EncodePageHeader(h, &out);
  return out + body;
}

std::string DictPage(int32_t num_values, const std::string& body) {
  PageHeader h;
  h.type = PageType::DICTIONARY_PAGE;
  h.compressed_page_size = h.uncompressed_page_size = static_cast<int32_t>(body.size());
  DictionaryPageHeader d;
  d.num_values = num_values;
  h.dictionary_page_header = d;
  std::string out;
  EncodePageHeader(h, &out);
  return out + body;
}

ColumnChunkInput Input(const std::string& bytes, int64_t rows) {
  ColumnChunkInput in;
  in.spans.push_back(PageSpan{Buffer::Copy(bytes), 4, 0});
  in.num_rows = rows;
  return in;
}

std::vector<std::string> Strings(const ArrayData& a) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < a.length; ++i) out.push_back(FormatValue(a, i));
  return out;
}

TEST(ColumnReader, RequiredPagesWithSelectionSkipping) {
  SchemaDescriptor s = MakeSchema({Root(1), Leaf("x", Type::INT32, Repetition::REQUIRED)});
  std::string chunk = DataPage(4, Int32s({0, 1, 2, 3})) + DataPage(4, Int32s({4, 5, 6, 7})) +
                      DataPage(4, Int32s({8, 9, 10, 11}));
  ColumnChunkStats stats;
  auto leaf = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(chunk, 12), {{1, 3}, {9, 10}}, {}, &stats);
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
  EXPECT_EQ(leaf->num_rows, 3);
  EXPECT_TRUE(leaf->def_levels.empty());
  EXPECT_EQ(Strings(*leaf->values), (std::vector<std::string>{"1", "2", "9"}));
  EXPECT_EQ(stats.data_pages_read, 2);
  EXPECT_EQ(stats.data_pages_skipped, 1);  // rows 4..7: not even decompressed
  EXPECT_EQ(stats.page_first_rows, (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(stats.values_decoded, 3);
  EXPECT_EQ(stats.values_skipped, 2 + 3);  // rows 0 and 3; rows 8, 10 and 11
  auto array = AssembleField(s.field(0), {&*leaf}, 3);
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(Strings(**array), (std::vector<std::string>{"1", "2", "9"}));
}

TEST(ColumnReader, OptionalValuesSpreadWithNulls) {
  SchemaDescriptor s = MakeSchema({Root(1), Leaf("x", Type::INT32, Repetition::OPTIONAL)});
  std::string chunk = DataPage(5, LevelsV1({1, 0, 1, 0, 1}, 1) + Int32s({7, 8, 9}));
  auto leaf = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(chunk, 5), {{0, 5}}, {});
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
  auto array = AssembleField(s.field(0), {&*leaf}, 5);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(Strings(**array), (std::vector<std::string>{"7", "null", "8", "null", "9"}));
  EXPECT_EQ((*array)->null_count, 2);
  EXPECT_TRUE(ValidateArray(**array).ok());
  // Selecting rows 1..3 skips exactly one value (row 0) and decodes one (row 2).
  ColumnChunkStats stats;
  auto part = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(chunk, 5), {{1, 4}}, {}, &stats);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(stats.values_skipped, 2);  // rows 0 and 4
  EXPECT_EQ(stats.values_decoded, 1);
  auto pa = AssembleField(s.field(0), {&*part}, 3);
  ASSERT_TRUE(pa.ok());
  EXPECT_EQ(Strings(**pa), (std::vector<std::string>{"null", "8", "null"}));
}

TEST(ColumnReader, DictionaryAndBadIndex) {
  SchemaDescriptor s = MakeSchema({Root(1), Leaf("x", Type::INT32, Repetition::REQUIRED)});
  std::string dict = DictPage(10, Int32s({10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
  std::string good = dict + DataPage(4, Indices({3, 0, 9, 3}, 4), Encoding::RLE_DICTIONARY);
  auto leaf = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(good, 4), {{0, 4}}, {});
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
  EXPECT_EQ(Strings(*leaf->values), (std::vector<std::string>{"13", "10", "19", "13"}));
  std::string bad = dict + DataPage(4, Indices({3, 17, 0, 1}, 5), Encoding::RLE_DICTIONARY);
  auto err = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(bad, 4), {{0, 4}}, {});
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(err.status().Is(StatusCode::kCorrupt));
  EXPECT_NE(err.status().message().find("dictionary index 17 out of range (dictionary has 10 values)"),
            std::string::npos)
      << err.status().ToString();
  EXPECT_NE(err.status().message().find("column 'x' page at offset"), std::string::npos) << err.status().ToString();
  // A dictionary-encoded page without a dictionary page.
  auto nodict = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED,
                                Input(DataPage(4, Indices({0, 0, 0, 0}, 1), Encoding::RLE_DICTIONARY), 4), {{0, 4}}, {});
  EXPECT_TRUE(nodict.status().Is(StatusCode::kCorrupt));
}

// ColumnReadOptions::dictionary_codes: the dictionary plus one code per non-null selected value,
// in row windows too; out-of-range codes are Corrupt; a page that is not dictionary-encoded and
// nested columns are NotSupported (the caller then decodes values).
TEST(ColumnReader, DictionaryCodesMode) {
  SchemaDescriptor s = MakeSchema({Root(1), Leaf("x", Type::INT32, Repetition::OPTIONAL)});
  ColumnReadOptions codes;
  codes.dictionary_codes = true;
  std::string dict = DictPage(4, Int32s({10, 11, 12, 13}));
  std::string page1 = DataPage(4, LevelsV1({1, 0, 1, 1}, 1) + Indices({3, 0, 2}, 2), Encoding::RLE_DICTIONARY);
  std::string page2 = DataPage(3, LevelsV1({1, 1, 0}, 1) + Indices({1, 1}, 2), Encoding::RLE_DICTIONARY);
  auto reader = ColumnChunkReader::Make(s.column(0), Codec::UNCOMPRESSED, Input(dict + page1 + page2, 7),
                                        {{0, 2}, {3, 6}}, codes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto first = (*reader)->Next(4);  // rows 0, 1, 3
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->values);
  EXPECT_EQ(first->def_levels, (std::vector<int16_t>{1, 0, 1}));
  EXPECT_EQ(first->dictionary_codes, (std::vector<int32_t>{3, 2}));
  ASSERT_TRUE(first->dictionary);
  EXPECT_EQ(Strings(*first->dictionary), (std::vector<std::string>{"10", "11", "12", "13"}));
  auto rest = (*reader)->Next(std::numeric_limits<int64_t>::max());  // rows 4, 5
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_EQ(rest->def_levels, (std::vector<int16_t>{1, 1}));
  EXPECT_EQ(rest->dictionary_codes, (std::vector<int32_t>{1, 1}));
  ASSERT_TRUE(rest->dictionary);
  EXPECT_EQ(Strings(*rest->dictionary), (std::vector<std::string>{"10", "11", "12", "13"}));

  std::string bad = DataPage(2, LevelsV1({1, 1}, 1) + Indices({1, 6}, 3), Encoding::RLE_DICTIONARY);
  auto out_of_range = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(dict + bad, 2), {{0, 2}}, codes);
  EXPECT_TRUE(out_of_range.status().Is(StatusCode::kCorrupt)) << out_of_range.status().ToString();
  std::string plain = DataPage(2, LevelsV1({1, 1}, 1) + Int32s({5, 6}));
  auto fallback = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(dict + page1 + plain, 6), {{0, 6}}, codes);
  EXPECT_TRUE(fallback.status().Is(StatusCode::kNotSupported)) << fallback.status().ToString();
  // The same chunk decodes as values without the option.
  auto values = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(dict + page1 + plain, 6), {{0, 6}}, {});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(Strings(*values->values), (std::vector<std::string>{"13", "10", "12", "5", "6"}));

  SchemaElement list = Leaf("l", Type::INT32, Repetition::OPTIONAL);
  list.type.reset();
  list.num_children = 1;
  SchemaDescriptor nested = MakeSchema({Root(1), list, Leaf("e", Type::INT32, Repetition::REPEATED)});
  auto nested_reader = ColumnChunkReader::Make(nested.column(0), Codec::UNCOMPRESSED, Input(dict, 0), {}, codes);
  EXPECT_TRUE(nested_reader.status().Is(StatusCode::kNotSupported)) << nested_reader.status().ToString();
}

TEST(ColumnReader, CrcIsCheckedUnlessDisabled) {
  SchemaDescriptor s = MakeSchema({Root(1), Leaf("x", Type::INT32, Repetition::REQUIRED)});
  const std::string body = Int32s({1, 2});
  const int32_t crc = static_cast<int32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), 8));
  auto ok = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(DataPage(2, body, Encoding::PLAIN, crc), 2),
                            {{0, 2}}, {});
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  const std::string bad = DataPage(2, body, Encoding::PLAIN, crc ^ 1);
  auto err = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(bad, 2), {{0, 2}}, {});
  EXPECT_TRUE(err.status().Is(StatusCode::kCorrupt));
  EXPECT_NE(err.status().message().find("checksum mismatch"), std::string::npos);
  ColumnReadOptions no_crc;
  no_crc.verify_crc = false;
  EXPECT_TRUE(ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(bad, 2), {{0, 2}}, no_crc).ok());
}

TEST(ColumnReader, DecompressionLimitAndTruncation) {
  SchemaDescriptor s = MakeSchema({Root(1), Leaf("x", Type::INT32, Repetition::REQUIRED)});
  std::vector<int32_t> values(100000, 42);
  const std::string raw = Int32s(values);
  std::string compressed;
  ASSERT_TRUE(Compress(Codec::SNAPPY, 0, {reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, &compressed).ok());
  const std::string page = DataPage(100000, compressed, Encoding::PLAIN, std::nullopt, static_cast<int32_t>(raw.size()));
  auto ok = ReadColumnChunk(s.column(0), Codec::SNAPPY, Input(page, 100000), {{99999, 100000}}, {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Strings(*ok->values), (std::vector<std::string>{"42"}));
  ColumnReadOptions limited;
  limited.max_page_bytes = 100000;
  auto err = ReadColumnChunk(s.column(0), Codec::SNAPPY, Input(page, 100000), {{0, 1}}, limited);
  EXPECT_TRUE(err.status().Is(StatusCode::kResourceExhausted)) << err.status().ToString();
  // A page whose body runs past the bytes available.
  auto cut = ReadColumnChunk(s.column(0), Codec::SNAPPY, Input(page.substr(0, page.size() - 10), 100000), {{0, 1}}, {});
  EXPECT_TRUE(cut.status().Is(StatusCode::kCorrupt));
  EXPECT_NE(cut.status().message().find("runs past the end"), std::string::npos) << cut.status().ToString();
  // Fewer rows in the pages than selected.
  auto few = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(DataPage(2, Int32s({1, 2})), 5), {{0, 5}}, {});
  EXPECT_TRUE(few.status().Is(StatusCode::kCorrupt)) << few.status().ToString();
}

TEST(NestedAssembly, ListsFromLevels) {
  // optional group a (LIST) { repeated group list { optional int32 element } }: def 0..3, rep 0..1.
  SchemaElement a;
  a.name = "a";
  a.num_children = 1;
  a.repetition_type = Repetition::OPTIONAL;
  a.converted_type = ConvertedType::LIST;
  SchemaElement list;
  list.name = "list";
  list.num_children = 1;
  list.repetition_type = Repetition::REPEATED;
  SchemaDescriptor s = MakeSchema({Root(1), a, list, Leaf("element", Type::INT32, Repetition::OPTIONAL)});
  ASSERT_EQ(s.column(0).max_definition_level, 3);
  // Rows: [1, 2], null, [], [null, 3]
  std::vector<int16_t> def{3, 3, 0, 1, 2, 3};
  std::vector<int16_t> rep{0, 1, 0, 0, 0, 1};
  std::string body = LevelsV1(rep, 1) + LevelsV1(def, 2) + Int32s({1, 2, 3});
  auto leaf = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(DataPage(6, body), 4), {{0, 4}}, {});
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
  auto array = AssembleField(s.field(0), {&*leaf}, 4);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_TRUE(ValidateArray(**array).ok());
  EXPECT_EQ(Strings(**array), (std::vector<std::string>{"[1, 2]", "null", "[]", "[null, 3]"}));
  // Rows 1..3 only: whole rows are kept, the values of row 0 are skipped.
  auto part = ReadColumnChunk(s.column(0), Codec::UNCOMPRESSED, Input(DataPage(6, body), 4), {{2, 4}}, {});
  ASSERT_TRUE(part.ok());
  auto pa = AssembleField(s.field(0), {&*part}, 2);
  ASSERT_TRUE(pa.ok()) << pa.status().ToString();
  EXPECT_EQ(Strings(**pa), (std::vector<std::string>{"[]", "[null, 3]"}));
  // Levels that disagree with the row count are Corrupt, not a crash.
  EXPECT_TRUE(AssembleField(s.field(0), {&*part}, 3).status().Is(StatusCode::kCorrupt));
}

}  // namespace
}  // namespace rap::parquet
