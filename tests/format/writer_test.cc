// ParquetWriter: metadata, statistics, layout controls, sinks, and a randomized write -> read-back
// property test over schemas, data and layout settings.
#include "rap/format/writer.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <zlib.h>

#include "rap/format/footer.h"
#include "rap/format/statistics.h"
#include "rap/format/thrift.h"

#include "format/writer_testing.h"
#include "testing/paths.h"

namespace rap::parquet {
namespace {

using rap::testing::CheckPageIndex;
using rap::testing::CompareBatches;
using rap::testing::MakeBatch;
using rap::testing::MakeDoubleArray;
using rap::testing::MakeInt64Array;
using rap::testing::MakeListArray;
using rap::testing::MakeStringArray;
using rap::testing::MakeStructArray;
using rap::columnar::SliceArray;
using rap::testing::ReadBackFormatLevel;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

FileMetaData Footer(const std::string& file) {
  auto md = ParseFooter(Bytes(file), file.size(), "test");
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  return md.ok() ? *md : FileMetaData{};
}

SchemaPtr FlatSchema() {
  auto s = std::make_shared<Schema>();
  s->fields = {{"id", MakeType(TypeId::kInt64), false},
               {"x", MakeType(TypeId::kFloat64), true},
               {"name", MakeType(TypeId::kString), true}};
  return s;
}

RecordBatch FlatBatch(const SchemaPtr& s, int64_t n, int64_t first_id = 0) {
  std::vector<int64_t> ids;
  std::vector<double> xs;
  std::vector<std::string> names;
  std::vector<bool> xv, nv;
  for (int64_t i = 0; i < n; ++i) {
    ids.push_back(first_id + i);
    xs.push_back(static_cast<double>(i) * 0.5 - 3);
    xv.push_back(i % 5 != 0);
    names.push_back("name-" + std::to_string(i % 7));
    nv.push_back(i % 3 != 0);
  }
  return MakeBatch(s, {MakeInt64Array(ids), MakeDoubleArray(xs, xv), MakeStringArray(names, nv)});
}

int64_t Load64(const std::string& s) {
  int64_t v = 0;
  std::memcpy(&v, s.data(), std::min<size_t>(8, s.size()));
  return v;
}
double LoadD(const std::string& s) {
  double v = 0;
  std::memcpy(&v, s.data(), std::min<size_t>(8, s.size()));
  return v;
}

TEST(WriterTest, FooterRowGroupsPagesAndStatistics) {
  auto schema = FlatSchema();
  WriterOptions o;
  o.row_group_max_rows = 400;
  o.defaults.page_max_rows = 100;
  o.key_value_metadata = {{"origin", std::string("test")}};
  auto file = WriteParquetToString(schema, {FlatBatch(schema, 1000)}, o);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->substr(0, 4), "PAR1");
  FileMetaData md = Footer(*file);
  EXPECT_EQ(md.num_rows, 1000);
  EXPECT_EQ(md.created_by.value_or(""), "rap version 0.1.0");
  ASSERT_EQ(md.key_value_metadata.size(), 1u);
  EXPECT_EQ(md.key_value_metadata[0].key, "origin");
  ASSERT_EQ(md.row_groups.size(), 3u);  // 400 + 400 + 200
  EXPECT_EQ(md.row_groups[0].num_rows, 400);
  EXPECT_EQ(md.row_groups[2].num_rows, 200);
  ASSERT_EQ(md.schema.size(), 4u);
  EXPECT_EQ(md.schema[1].repetition_type, Repetition::REQUIRED);
  EXPECT_EQ(md.schema[2].repetition_type, Repetition::OPTIONAL);
  ASSERT_TRUE(md.schema[3].logical_type.has_value());
  EXPECT_EQ(md.schema[3].logical_type->kind, LogicalType::Kind::STRING);
  const auto& id = *md.row_groups[1].columns[0].meta_data;
  ASSERT_TRUE(id.statistics && id.statistics->min_value && id.statistics->max_value);
  EXPECT_EQ(Load64(*id.statistics->min_value), 400);
  EXPECT_EQ(Load64(*id.statistics->max_value), 799);
  EXPECT_EQ(id.statistics->null_count.value_or(-1), 0);
  const auto& x = *md.row_groups[0].columns[1].meta_data;
  EXPECT_EQ(x.statistics->null_count.value_or(-1), 80);
  EXPECT_DOUBLE_EQ(LoadD(*x.statistics->min_value), -2.5);  // row 0 is null
  const auto& name = *md.row_groups[0].columns[2].meta_data;
  EXPECT_EQ(*name.statistics->min_value, "name-0");
  EXPECT_EQ(*name.statistics->max_value, "name-6");
  EXPECT_TRUE(name.dictionary_page_offset.has_value());
  // 4 pages of 100 rows in the first row group, and the page index matches them.
  for (const auto& cc : md.row_groups[0].columns) {
    ASSERT_TRUE(cc.offset_index_offset && cc.column_index_offset);
    auto oi = DecodeOffsetIndex(Bytes(file->substr(*cc.offset_index_offset, *cc.offset_index_length)));
    ASSERT_TRUE(oi.ok());
    ASSERT_EQ(oi->page_locations.size(), 4u);
    EXPECT_EQ(oi->page_locations[3].first_row_index, 300);
  }
  EXPECT_EQ(rap::testing::CheckPageIndex(*file), "");
  auto back = ReadBackFormatLevel(*file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(CompareBatches({FlatBatch(schema, 1000)}, *back), "");
}

TEST(WriterTest, StatisticsOrdering) {
  // Floats: NaN excluded, a zero min written as -0 and a zero max as +0.
  StatsAccumulator f(StatsKind::kDouble, 0);
  const double vals[] = {std::nan(""), 0.0, 3.5, -0.0, std::nan("")};
  f.UpdateFixed(reinterpret_cast<const uint8_t*>(vals), 5);
  ASSERT_TRUE(f.has_min_max());
  EXPECT_TRUE(std::signbit(LoadD(f.EncodedMin())));
  EXPECT_EQ(LoadD(f.EncodedMin()), 0.0);
  EXPECT_EQ(LoadD(f.EncodedMax()), 3.5);
  StatsAccumulator z(StatsKind::kDouble, 0);
  const double zeros[] = {-0.0, -1.0, 0.0};
  z.UpdateFixed(reinterpret_cast<const uint8_t*>(zeros), 3);
  EXPECT_FALSE(std::signbit(LoadD(z.EncodedMax())));
  StatsAccumulator nan_only(StatsKind::kDouble, 0);
  nan_only.UpdateFixed(reinterpret_cast<const uint8_t*>(vals), 1);
  EXPECT_FALSE(nan_only.has_min_max());
  EXPECT_FALSE(nan_only.ToThrift(100).min_value.has_value());
  // Unsigned 32-bit: 0xFFFFFFFF is the max, not -1.
  StatsAccumulator u(StatsKind::kUInt32, 0);
  const uint32_t uv[] = {5, 0xFFFFFFFFu, 7};
  u.UpdateFixed(reinterpret_cast<const uint8_t*>(uv), 3);
  uint32_t umax = 0;
  std::memcpy(&umax, u.EncodedMax().data(), 4);
  EXPECT_EQ(umax, 0xFFFFFFFFu);
  // Signed 32-bit: -1 is the min.
  StatsAccumulator s(StatsKind::kInt32, 0);
  s.UpdateFixed(reinterpret_cast<const uint8_t*>(uv), 3);
  int32_t smin = 0;
  std::memcpy(&smin, s.EncodedMin().data(), 4);
  EXPECT_EQ(smin, -1);
  // Binary: unsigned lexicographic (0xC3 > 'z'), prefix sorts first.
  StatsAccumulator b(StatsKind::kBytesUnsigned, 0);
  const std::string data = std::string("ab") + "a" + "z" + "\xC3\xA9";
  const int32_t offs[] = {0, 2, 3, 4, 6};
  b.UpdateBinary(offs, reinterpret_cast<const uint8_t*>(data.data()), 4);
  EXPECT_EQ(b.EncodedMin(), "a");
  EXPECT_EQ(b.EncodedMax(), "\xC3\xA9");
  // FLBA decimals compare signed big-endian: 0xFF.. (-1) < 0x01.
  StatsAccumulator d(StatsKind::kBytesSigned, 2);
  const uint8_t dv[] = {0x00, 0x01, 0xFF, 0xFF, 0x7F, 0x00};
  d.UpdateFixed(dv, 3);
  EXPECT_EQ(d.EncodedMin(), std::string("\xFF\xFF", 2));
  EXPECT_EQ(d.EncodedMax(), std::string("\x7F\x00", 2));
  // Float16: NaN (0x7E00) excluded, -2.0 (0xC000) < 1.0 (0x3C00).
  StatsAccumulator h(StatsKind::kFloat16, 2);
  const uint16_t hv[] = {0x3C00, 0x7E00, 0xC000};
  h.UpdateFixed(reinterpret_cast<const uint8_t*>(hv), 3);
  EXPECT_EQ(h.EncodedMin(), std::string("\x00\xC0", 2));
  EXPECT_EQ(h.EncodedMax(), std::string("\x00\x3C", 2));
  // Truncated bounds for the column index.
  EXPECT_EQ(TruncateLowerBound("abcdef", 3), "abc");
  EXPECT_EQ(TruncateUpperBound("abcdef", 3).value(), "abd");
  EXPECT_EQ(TruncateUpperBound("a\xFF\xFFzz", 3).value(), "b");
  EXPECT_FALSE(TruncateUpperBound("\xFF\xFF\xFF\x01", 3).has_value());
}

TEST(WriterTest, SchemaMappingOfLogicalTypes) {
  auto s = std::make_shared<Schema>();
  auto uuid = std::make_shared<DataType>(*MakeFixedSizeBinary(16));
  uuid->extension = "uuid";
  auto int96 = std::make_shared<DataType>(*MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kNano));
  int96->extension = "int96";
  s->fields = {{"i8", MakeType(TypeId::kInt8)},
               {"u64", MakeType(TypeId::kUInt64)},
               {"d9", MakeDecimal(9, 2)},
               {"d18", MakeDecimal(18, 3)},
               {"d38", MakeDecimal(38, 10)},
               {"ts", MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kMicro, "UTC")},
               {"ts_local", MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kNano)},
               {"t", MakeTemporal(TypeId::kTime64, rap::TimeUnit::kNano)},
               {"date", MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond)},
               {"uuid", uuid},
               {"half", MakeType(TypeId::kFloat16)},
               {"legacy", int96},
               {"tags", MakeList(Field{"item", MakeType(TypeId::kString), true})},
               {"attrs", MakeMap(Field{"key", MakeType(TypeId::kString), false},
                                 Field{"value", MakeType(TypeId::kInt32), true})}};
  MemorySink sink;
  auto w = ParquetWriter::Open(s, &sink);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::map<std::string, SchemaElement> by_name;
  for (const auto& e : (*w)->parquet_schema()) by_name[e.name] = e;
  EXPECT_EQ(by_name["i8"].type, Type::INT32);
  EXPECT_EQ(by_name["i8"].logical_type->bit_width, 8);
  EXPECT_FALSE(by_name["u64"].logical_type->is_signed);
  EXPECT_EQ(by_name["d9"].type, Type::INT32);
  EXPECT_EQ(by_name["d18"].type, Type::INT64);
  EXPECT_EQ(by_name["d38"].type, Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(by_name["d38"].type_length, 16);
  EXPECT_EQ(by_name["d38"].precision, 38);
  EXPECT_TRUE(by_name["ts"].logical_type->is_adjusted_to_utc);
  EXPECT_EQ(by_name["ts"].logical_type->unit, TimeUnit::MICROS);
  EXPECT_FALSE(by_name["ts_local"].logical_type->is_adjusted_to_utc);
  EXPECT_FALSE(by_name["ts_local"].converted_type.has_value());
  EXPECT_EQ(by_name["t"].logical_type->unit, TimeUnit::NANOS);
  EXPECT_EQ(by_name["date"].logical_type->kind, LogicalType::Kind::DATE);
  EXPECT_EQ(by_name["uuid"].logical_type->kind, LogicalType::Kind::UUID);
  EXPECT_EQ(by_name["half"].logical_type->kind, LogicalType::Kind::FLOAT16);
  EXPECT_EQ(by_name["legacy"].type, Type::INT96);
  EXPECT_EQ(by_name["tags"].converted_type, ConvertedType::LIST);
  EXPECT_EQ(by_name["list"].repetition_type, Repetition::REPEATED);
  EXPECT_EQ(by_name["element"].repetition_type, Repetition::OPTIONAL);
  EXPECT_EQ(by_name["attrs"].converted_type, ConvertedType::MAP);
  EXPECT_EQ(by_name["key_value"].num_children, 2);
  EXPECT_EQ(by_name["key"].repetition_type, Repetition::REQUIRED);
  (*w)->Abort();
}

TEST(WriterTest, NestedListLevelsRoundTrip) {
  // [[1, null, 3], null, [], [4]]
  auto list_t = MakeList(Field{"item", MakeType(TypeId::kInt64), true});
  auto s = std::make_shared<Schema>();
  s->fields = {{"l", list_t, true}};
  auto child = MakeInt64Array({1, 0, 3, 4}, {true, false, true, true});
  auto arr = MakeListArray(list_t, {0, 3, 3, 3, 4}, child, {true, false, true, true});
  for (int version : {1, 2}) {
    WriterOptions o;
    o.data_page_version = version;
    o.defaults.page_max_rows = 2;
    auto file = WriteParquetToString(s, {MakeBatch(s, {arr})}, o);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    FileMetaData md = Footer(*file);
    const auto& cm = *md.row_groups[0].columns[0].meta_data;
    EXPECT_EQ(cm.num_values, 6);  // 4 values + null list + empty list
    EXPECT_EQ(cm.statistics->null_count.value_or(-1), 3);
    auto back = ReadBackFormatLevel(*file);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(CompareBatches({MakeBatch(s, {arr})}, *back), "");
    EXPECT_EQ(CheckPageIndex(*file), "");
  }
}

// A list of structs (the shape of the index's covering records) written through the one-pass list
// shredder (column_writer_shred.cc ShredOneList): null and empty lists, null leaf values, a struct
// child that is a slice of a longer array (its Arrow offset shifts the leaves' indices) and a sliced
// list; and the same with a null struct, which takes the general path. Both read back equal.
TEST(WriterTest, ListOfStructsWithSlicedChildrenRoundTrips) {
  auto a_t = MakeType(TypeId::kInt64);
  auto b_t = MakeType(TypeId::kString);
  auto st_t = MakeStruct({{"a", a_t, false}, {"b", b_t, true}});
  auto list_t = MakeList(Field{"element", st_t, true});
  auto s = std::make_shared<Schema>();
  s->fields = {{"l", list_t, true}};
  // Leaves of 9 structs; the struct array is a slice starting at 2 (7 structs).
  auto a = MakeInt64Array({90, 91, 10, 11, 12, 13, 14, 15, 16}, std::vector<bool>(9, true));
  auto b = MakeStringArray({"x", "y", "p", "", "r", "s", "", "u", "v"},
                           {true, true, true, false, true, true, false, true, true}, TypeId::kString);
  for (bool null_struct : {false, true}) {
    std::vector<bool> valid(9, true);
    if (null_struct) valid[5] = false;
    auto st_full = MakeStructArray(st_t, {a, b}, 9, valid);
    auto st = SliceArray(st_full, 2, 7);
    if (!null_struct) st->null_count = 0;  // known: no nulls, so the one-pass shredder takes it
    // Rows: [s0, s1], null, [], [s2], [s3, s4, s5, s6]; then the list sliced from row 1.
    auto list = MakeListArray(list_t, {0, 2, 2, 2, 3, 7}, st, {true, false, true, true, true});
    for (const ArrayPtr& arr : std::vector<ArrayPtr>{list, SliceArray(list, 1, 4)}) {
      for (int version : {1, 2}) {
        WriterOptions o;
        o.data_page_version = version;
        o.defaults.page_max_rows = 2;
        const RecordBatch batch = MakeBatch(s, {arr});
        auto file = WriteParquetToString(s, {batch}, o);
        ASSERT_TRUE(file.ok()) << file.status().ToString();
        auto back = ReadBackFormatLevel(*file);
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        EXPECT_EQ(CompareBatches({batch}, *back), "") << "null struct " << null_struct << " rows " << arr->length;
        EXPECT_EQ(CheckPageIndex(*file), "");
      }
    }
  }
}

TEST(WriterTest, PageBreakOnKeyGivesOnePagePerKey) {
  auto s = std::make_shared<Schema>();
  s->fields = {{"key", MakeType(TypeId::kString), false}, {"v", MakeType(TypeId::kInt64), false}};
  std::vector<std::string> keys;
  std::vector<int64_t> vals;
  std::vector<int64_t> starts;
  for (int k = 0; k < 20; ++k) {
    starts.push_back(static_cast<int64_t>(keys.size()));
    for (int i = 0; i < 1 + k % 4; ++i) {
      keys.push_back("user-" + std::to_string(k));
      vals.push_back(k * 100 + i);
    }
  }
  // Two batches split in the middle of a key: the key continues across the batch boundary.
  const int64_t split = starts[7] + 1;
  std::vector<std::string> k1(keys.begin(), keys.begin() + split), k2(keys.begin() + split, keys.end());
  std::vector<int64_t> v1(vals.begin(), vals.begin() + split), v2(vals.begin() + split, vals.end());
  WriterOptions o;
  o.page_break_on = {"key"};
  auto file = WriteParquetToString(s,
                                   {MakeBatch(s, {MakeStringArray(k1), MakeInt64Array(v1)}),
                                    MakeBatch(s, {MakeStringArray(k2), MakeInt64Array(v2)})},
                                   o);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  FileMetaData md = Footer(*file);
  ASSERT_EQ(md.row_groups.size(), 1u);
  for (const auto& cc : md.row_groups[0].columns) {
    auto oi = DecodeOffsetIndex(Bytes(file->substr(*cc.offset_index_offset, *cc.offset_index_length)));
    ASSERT_TRUE(oi.ok());
    ASSERT_EQ(oi->page_locations.size(), starts.size());
    for (size_t p = 0; p < starts.size(); ++p) EXPECT_EQ(oi->page_locations[p].first_row_index, starts[p]);
  }
  // Each page of the key column holds exactly one key: min == max in the ColumnIndex.
  const auto& kc = md.row_groups[0].columns[0];
  auto ci = DecodeColumnIndex(Bytes(file->substr(*kc.column_index_offset, *kc.column_index_length)));
  ASSERT_TRUE(ci.ok());
  for (size_t p = 0; p < starts.size(); ++p) EXPECT_EQ(ci->min_values[p], ci->max_values[p]);
  EXPECT_EQ(CheckPageIndex(*file), "");
}

TEST(WriterTest, DictionaryFallsBackToPlainPastTheLimit) {
  auto s = std::make_shared<Schema>();
  s->fields = {{"s", MakeType(TypeId::kString), false}};
  std::vector<std::string> v;
  for (int i = 0; i < 5000; ++i) v.push_back("distinct-value-" + std::to_string(i));
  WriterOptions o;
  o.defaults.dictionary_max_bytes = 4096;
  o.defaults.page_max_rows = 500;
  MemorySink sink;
  auto w = ParquetWriter::Open(s, &sink, o);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(MakeBatch(s, {MakeStringArray(v)})).ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ((*w)->summary().num_dictionary_fallbacks, 1);
  FileMetaData md = Footer(sink.data());
  const auto& cm = *md.row_groups[0].columns[0].meta_data;
  bool dict_pages = false, plain_pages = false;
  for (const auto& es : cm.encoding_stats) {
    if (es.page_type == PageType::DATA_PAGE && es.encoding == Encoding::RLE_DICTIONARY) dict_pages = true;
    if (es.page_type == PageType::DATA_PAGE && es.encoding == Encoding::PLAIN) plain_pages = true;
  }
  EXPECT_TRUE(dict_pages && plain_pages);
  auto back = ReadBackFormatLevel(sink.data());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(CompareBatches({MakeBatch(s, {MakeStringArray(v)})}, *back), "");
}

TEST(WriterTest, PageCrcAndV2Headers) {
  auto schema = FlatSchema();
  WriterOptions o;
  o.page_crc = true;
  o.data_page_version = 2;
  o.defaults.codec = Codec::ZSTD;
  o.defaults.page_max_rows = 64;
  auto file = WriteParquetToString(schema, {FlatBatch(schema, 300)}, o);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  FileMetaData md = Footer(*file);
  const auto& cm = *md.row_groups[0].columns[1].meta_data;
  int64_t pos = cm.dictionary_page_offset.value_or(cm.data_page_offset);
  int64_t rows = 0, pages = 0;
  while (pos < cm.dictionary_page_offset.value_or(cm.data_page_offset) + cm.total_compressed_size) {
    size_t hs = 0;
    auto h = DecodePageHeader(Bytes(*file).subspan(pos), &hs);
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    ASSERT_TRUE(h->crc.has_value());
    const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(file->data() + pos + hs), h->compressed_page_size);
    EXPECT_EQ(static_cast<uint32_t>(*h->crc), static_cast<uint32_t>(crc));
    if (h->type == PageType::DATA_PAGE_V2) {
      rows += h->data_page_header_v2->num_rows;
      EXPECT_TRUE(h->data_page_header_v2->is_compressed);
      ++pages;
    }
    pos += static_cast<int64_t>(hs) + h->compressed_page_size;
  }
  EXPECT_EQ(rows, 300);
  EXPECT_EQ(pages, 5);
  auto back = ReadBackFormatLevel(*file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(CompareBatches({FlatBatch(schema, 300)}, *back), "");
}

TEST(WriterTest, ErrorsAreClearAndLeaveNothingBehind) {
  rap::testing::TempDir dir;
  const std::string out = dir.Join("out.parquet");
  auto schema = FlatSchema();
  {
    auto sink = LocalFileSink::Open(out);
    ASSERT_TRUE(sink.ok());
    auto w = ParquetWriter::Open(schema, sink->get());
    ASSERT_TRUE(w.ok());
    // A null in the non-nullable id column.
    auto bad = MakeBatch(schema,
                         {MakeInt64Array({1, 2}, {true, false}), MakeDoubleArray({1, 2}), MakeStringArray({"a", "b"})});
    Status st = (*w)->Write(bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("column id"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("row 1"), std::string::npos) << st.message();
    EXPECT_FALSE((*w)->Close().ok());  // refuses after an error
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "temporary or partial output left behind";
  // An encoding that does not fit the physical type names the column.
  WriterOptions o;
  o.columns["x"].encoding = Encoding::DELTA_BINARY_PACKED;
  MemorySink ms;
  auto w = ParquetWriter::Open(schema, &ms, o);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("column x"), std::string::npos) << w.status().message();
  // Unknown column in options and page-break key.
  WriterOptions o2;
  o2.page_break_on = {"nope"};
  EXPECT_FALSE(ParquetWriter::Open(schema, &ms, o2).ok());
  // A successful write publishes the file atomically.
  {
    auto sink = LocalFileSink::Open(out);
    ASSERT_TRUE(sink.ok());
    auto w2 = ParquetWriter::Open(schema, sink->get());
    ASSERT_TRUE(w2.ok());
    ASSERT_TRUE((*w2)->Write(FlatBatch(schema, 10)).ok());
    EXPECT_FALSE(std::filesystem::exists(out));
    ASSERT_TRUE((*w2)->Close().ok());
  }
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(WriterTest, CommitSinkPublishesOnlyOnClose) {
  int commits = 0;
  Buffer committed;
  CommitSink sink([&](const Buffer& b) {
    ++commits;
    committed = b;
    return Status::OK();
  });
  auto schema = FlatSchema();
  auto w = ParquetWriter::Open(schema, &sink);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(FlatBatch(schema, 50)).ok());
  EXPECT_EQ(commits, 0);
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(commits, 1);
  EXPECT_EQ(committed.size(), (*w)->summary().file_bytes);
  EXPECT_EQ(committed.view().substr(committed.size() - 4), "PAR1");
}

TEST(WriterTest, ParseCodecAndEncodingText) {
  auto z = ParseCodec("zstd:3");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->first, Codec::ZSTD);
  EXPECT_EQ(z->second, 3);
  EXPECT_FALSE(ParseCodec("zstd:99").ok());
  EXPECT_FALSE(ParseCodec("lzo").ok());
  auto e = ParseEncodingOverride("delta");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e->encoding, Encoding::DELTA_BINARY_PACKED);
  EXPECT_FALSE(*e->dictionary);
  EXPECT_TRUE(*ParseEncodingOverride("dict")->dictionary);
  EXPECT_FALSE(ParseEncodingOverride("zigzag").ok());
}

// Random schemas, data and layouts: what is written reads back equal, and the page index matches the pages.
TEST(WriterPropertyTest, RandomSchemasDataAndLayoutsRoundTrip) {
  const int iterations = std::getenv("RAP_WRITER_ITERATIONS") ? std::atoi(std::getenv("RAP_WRITER_ITERATIONS")) : 50;
  for (int it = 0; it < iterations; ++it) {
    std::mt19937_64 rng(1000 + it);
    auto schema = rap::testing::RandomSchema(rng, 1 + static_cast<int>(rng() % 5), 3);
    rap::testing::RandomDataOptions dopt;
    std::vector<RecordBatch> batches;
    const int nb = 1 + static_cast<int>(rng() % 3);
    for (int b = 0; b < nb; ++b) {
      batches.push_back(rap::testing::RandomBatch(rng, schema, static_cast<int64_t>(rng() % 300), dopt));
    }
    WriterOptions o = rap::testing::RandomOptions(rng, *schema);
    if (rng() % 3 == 0) o.page_break_on = {schema->fields[0].name};
    if (schema->fields[0].type->IsNested()) o.page_break_on.clear();
    std::string desc = "iteration " + std::to_string(it) + " schema:";
    for (const auto& f : schema->fields)
      desc += " " + f.name + ": " + f.type->ToString() + (f.nullable ? "" : " not null") + ";";
    desc += " v" + std::to_string(o.data_page_version) + " codec " + CodecName(o.defaults.codec);
    auto file = WriteParquetToString(schema, batches, o);
    ASSERT_TRUE(file.ok()) << desc << ": " << file.status().ToString();
    auto back = ReadBackFormatLevel(*file);
    ASSERT_TRUE(back.ok()) << desc << ": " << back.status().ToString();
    ASSERT_EQ(CompareBatches(batches, *back), "") << desc;
    ASSERT_EQ(CheckPageIndex(*file), "") << desc;
    if (o.row_group_max_rows > 0) {
      for (const auto& rg : Footer(*file).row_groups) ASSERT_LE(rg.num_rows, o.row_group_max_rows) << desc;
    }
  }
}

}  // namespace
}  // namespace rap::parquet
