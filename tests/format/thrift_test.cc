// The compact-thrift codec: round trips of hand-built and real metadata, wire-level details
// (field-id deltas, long field headers, bools, list headers, unknown fields of every type), limits
// and error messages.
#include "rap/format/thrift.h"

#include <climits>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/format/footer.h"

#include "format/thrift_compact.h"
#include "testing/paths.h"

namespace rap::parquet {
namespace {

namespace fs = std::filesystem;
using thrift::Writer;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Statistics RichStats(int seed) {
  Statistics s;
  s.max = std::string("\x00\xff max", 6);
  s.min = "min" + std::to_string(seed);
  s.null_count = seed;
  s.distinct_count = INT64_MAX - seed;
  s.max_value = std::string(300, 'z');  // a two-byte length varint
  s.min_value = "";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  return s;
}

LogicalType Logical(LogicalType::Kind kind) {
  LogicalType lt;
  lt.kind = kind;
  return lt;
}

// Metadata that sets every field the structs have, with values that exercise zigzag signs, long
// varints, long list headers (>= 15 elements) and every LogicalType member.
FileMetaData RichMetadata(int columns, int row_groups) {
  FileMetaData md;
  md.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = columns;
  md.schema.push_back(root);
  const LogicalType::Kind kinds[] = {
      LogicalType::Kind::STRING,   LogicalType::Kind::MAP,     LogicalType::Kind::LIST,    LogicalType::Kind::ENUM,
      LogicalType::Kind::DECIMAL,  LogicalType::Kind::DATE,    LogicalType::Kind::TIME,    LogicalType::Kind::TIMESTAMP,
      LogicalType::Kind::INTEGER,  LogicalType::Kind::UNKNOWN, LogicalType::Kind::JSON,    LogicalType::Kind::BSON,
      LogicalType::Kind::UUID,     LogicalType::Kind::FLOAT16, LogicalType::Kind::VARIANT, LogicalType::Kind::GEOMETRY,
      LogicalType::Kind::GEOGRAPHY};
  for (int c = 0; c < columns; ++c) {
    SchemaElement e;
    e.name = "col_" + std::to_string(c);
    e.type = static_cast<Type>(c % 8);
    e.repetition_type = static_cast<Repetition>(c % 3);
    if (c % 2) e.type_length = 16;
    if (c % 3 == 0) e.converted_type = static_cast<ConvertedType>(c % 22);
    if (c % 4 == 0) {
      e.scale = -c;
      e.precision = c + 1;
    }
    e.field_id = c * 1000 - 7;
    LogicalType lt = Logical(kinds[c % std::size(kinds)]);
    if (lt.kind == LogicalType::Kind::DECIMAL) {
      lt.decimal_scale = 3;
      lt.decimal_precision = 18;
    } else if (lt.kind == LogicalType::Kind::TIME || lt.kind == LogicalType::Kind::TIMESTAMP) {
      lt.is_adjusted_to_utc = c % 2;
      lt.unit = static_cast<TimeUnit>(1 + c % 3);
    } else if (lt.kind == LogicalType::Kind::INTEGER) {
      lt.bit_width = 64;
      lt.is_signed = false;
    }
    e.logical_type = lt;
    md.schema.push_back(e);
  }
  int64_t offset = 4;
  for (int g = 0; g < row_groups; ++g) {
    RowGroup rg;
    rg.num_rows = 1000 + g;
    for (int c = 0; c < columns; ++c) {
      ColumnChunk cc;
      if (c == 1) cc.file_path = "other.parquet";
      cc.file_offset = offset;
      ColumnMetaData m;
      m.type = static_cast<Type>(c % 8);
      m.encodings = {Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY};
      m.path_in_schema = {"col_" + std::to_string(c)};
      if (c == 2) m.path_in_schema = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"};
      m.codec = static_cast<Codec>(c % 8);
      m.num_values = rg.num_rows;
      m.total_compressed_size = 12345 + c;
      m.total_uncompressed_size = 54321 + c;
      if (c % 5 == 0) m.key_value_metadata = {{"k", "v"}, {"novalue", std::nullopt}};
      m.dictionary_page_offset = offset;
      m.data_page_offset = offset + 100;
      if (c % 7 == 0) m.index_page_offset = offset + 50;
      m.statistics = RichStats(c);
      m.encoding_stats = {{PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1},
                          {PageType::DATA_PAGE, Encoding::RLE_DICTIONARY, 17}};
      m.bloom_filter_offset = (int64_t{1} << 40) + c;
      m.bloom_filter_length = 4096;
      SizeStatistics ss;
      ss.unencoded_byte_array_data_bytes = 77;
      ss.repetition_level_histogram = {1, 2, 3};
      ss.definition_level_histogram = std::vector<int64_t>(20, -5);
      m.size_statistics = ss;
      cc.meta_data = m;
      cc.offset_index_offset = offset + 1'000'000;
      cc.offset_index_length = 33;
      cc.column_index_offset = offset + 2'000'000;
      cc.column_index_length = 44;
      offset += 12345 + c;
      rg.columns.push_back(cc);
    }
    rg.total_byte_size = INT64_MAX;
    rg.sorting_columns = {{0, true, false}, {3, false, true}};
    rg.file_offset = 4 + g;
    rg.total_compressed_size = -1;
    rg.ordinal = static_cast<int16_t>(g);
    md.num_rows += rg.num_rows;
    md.row_groups.push_back(rg);
  }
  md.key_value_metadata = {{"ARROW:schema", std::string(1000, 'x')}, {"empty", ""}};
  md.created_by = "rap test";
  md.column_orders_type_defined.assign(columns, true);
  if (columns > 1) md.column_orders_type_defined[1] = false;
  return md;
}

TEST(Thrift, FileMetaDataRoundTrip) {
  for (auto [columns, groups] : {std::pair{1, 1}, {20, 3}, {40, 16}}) {
    FileMetaData md = RichMetadata(columns, groups);
    std::string bytes;
    EncodeFileMetaData(md, &bytes);
    auto back = DecodeFileMetaData(Bytes(bytes));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == md) << columns << "x" << groups;
    // Encoding is deterministic.
    std::string again;
    EncodeFileMetaData(*back, &again);
    EXPECT_EQ(again, bytes);
  }
  FileMetaData minimal;
  minimal.schema.push_back(SchemaElement{});
  std::string bytes;
  EncodeFileMetaData(minimal, &bytes);
  auto back = DecodeFileMetaData(Bytes(bytes));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == minimal);
}

TEST(Thrift, PageHeaderRoundTrip) {
  std::vector<PageHeader> headers(4);
  headers[0].type = PageType::DATA_PAGE;
  headers[0].uncompressed_page_size = 1 << 20;
  headers[0].compressed_page_size = 1000;
  headers[0].crc = -123456789;
  headers[0].data_page_header =
      DataPageHeader{100, Encoding::RLE_DICTIONARY, Encoding::RLE, Encoding::BIT_PACKED, RichStats(1)};
  headers[1].type = PageType::DICTIONARY_PAGE;
  headers[1].dictionary_page_header = DictionaryPageHeader{7, Encoding::PLAIN_DICTIONARY, true};
  headers[2].type = PageType::DATA_PAGE_V2;
  headers[2].uncompressed_page_size = INT32_MAX;
  headers[2].compressed_page_size = 0;
  headers[2].data_page_header_v2 = DataPageHeaderV2{10, 3, 9, Encoding::DELTA_BYTE_ARRAY, 4, 2, false, std::nullopt};
  headers[3].type = PageType::INDEX_PAGE;
  headers[3].has_index_page_header = true;
  std::string all;
  for (const auto& h : headers) EncodePageHeader(h, &all);
  // Headers follow each other: each decode reports its own size.
  size_t at = 0;
  for (const auto& h : headers) {
    size_t size = 0;
    auto back = DecodePageHeader(Bytes(all).subspan(at), &size);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == h);
    at += size;
  }
  EXPECT_EQ(at, all.size());
}

TEST(Thrift, PageIndexRoundTrip) {
  ColumnIndex ci;
  for (int i = 0; i < 40; ++i) {
    ci.null_pages.push_back(i % 3 == 0);
    ci.min_values.push_back(i % 3 == 0 ? "" : "min" + std::to_string(i));
    ci.max_values.push_back(i % 3 == 0 ? "" : "max" + std::to_string(i));
    ci.null_counts.push_back(i);
  }
  ci.boundary_order = BoundaryOrder::ASCENDING;
  ci.repetition_level_histograms = {1, 2};
  ci.definition_level_histograms = {3, 4, 5};
  std::string bytes;
  EncodeColumnIndex(ci, &bytes);
  auto ci2 = DecodeColumnIndex(Bytes(bytes));
  ASSERT_TRUE(ci2.ok()) << ci2.status().ToString();
  EXPECT_TRUE(*ci2 == ci);

  OffsetIndex oi;
  for (int i = 0; i < 100; ++i) oi.page_locations.push_back({(int64_t{1} << 33) + i * 5000, 5000, i * 1000LL});
  oi.unencoded_byte_array_data_bytes = {5, 6};
  bytes.clear();
  EncodeOffsetIndex(oi, &bytes);
  auto oi2 = DecodeOffsetIndex(Bytes(bytes));
  ASSERT_TRUE(oi2.ok()) << oi2.status().ToString();
  EXPECT_TRUE(*oi2 == oi);
}

// Every real footer survives decode -> encode -> decode unchanged, and for footers written by
// Thrift-generated code that holds only fields rap knows, re-encoding gives back the same bytes
// (which shows the encoder writes exactly what other writers write).
TEST(Thrift, RealFootersReencode) {
  int identical = 0, files = 0;
  for (const auto& e : fs::directory_iterator(testing::ParquetTestingData())) {
    std::string path = e.path().string();
    if (path.size() < 8 || path.substr(path.size() - 8) != ".parquet") continue;
    SCOPED_TRACE(path);
    std::string file = testing::ReadFileToString(path);
    auto len = ParseFooterLength(Bytes(file), file.size(), path);
    ASSERT_TRUE(len.ok()) << len.status().ToString();
    std::string meta = file.substr(file.size() - 8 - *len, *len);
    auto md = DecodeFileMetaData(Bytes(meta));
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    std::string bytes;
    EncodeFileMetaData(*md, &bytes);
    auto back = DecodeFileMetaData(Bytes(bytes));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == *md);
    identical += bytes == meta;
    ++files;
  }
  EXPECT_GE(files, 60);
  EXPECT_GE(identical, files - 10) << "of " << files;
  std::printf("%d of %d footers re-encode to identical bytes\n", identical, files);
  std::string tiny = testing::ReadFileToString(testing::ParquetTestingData() + "/alltypes_tiny_pages.parquet");
  auto len = ParseFooterLength(Bytes(tiny), tiny.size(), "tiny");
  ASSERT_TRUE(len.ok());
  std::string meta = tiny.substr(tiny.size() - 8 - *len, *len);
  auto md = DecodeFileMetaData(Bytes(meta));
  ASSERT_TRUE(md.ok());
  std::string bytes;
  EncodeFileMetaData(*md, &bytes);
  EXPECT_EQ(bytes, meta);
}

// Wire details checked byte by byte.
TEST(Thrift, WireFormat) {
  OffsetIndex oi;
  oi.page_locations.push_back({4, 100, 0});
  std::string bytes;
  EncodeOffsetIndex(oi, &bytes);
  // 0x19: field 1 (delta 1) list; 0x1c: 1 element of struct; 0x16 0x08: field 1 i64 = 4 (zigzag 8);
  // 0x15 0xc8 0x01: field 2 i32 = 100 (zigzag 200); 0x16 0x00: field 3 i64 0; 0x00 end of element;
  // 0x00 end of OffsetIndex.
  EXPECT_EQ(bytes, std::string("\x19\x1c\x16\x08\x15\xc8\x01\x16\x00\x00\x00", 11));

  ColumnIndex ci;
  ci.null_pages = {true, false};
  ci.min_values = {"a", "b"};
  ci.max_values = {"c", "d"};
  ci.boundary_order = BoundaryOrder::DESCENDING;
  bytes.clear();
  EncodeColumnIndex(ci, &bytes);
  // Bool list elements are one byte each, 1 = true and 2 = false, element type 1.
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x19\x21\x01\x02", 4));
  EXPECT_EQ(bytes.substr(bytes.size() - 3), std::string("\x15\x04\x00", 3));  // field 4 i32 2, end

  // A bool field carries its value in the type nibble.
  PageHeader h;
  h.type = PageType::DICTIONARY_PAGE;
  h.dictionary_page_header = DictionaryPageHeader{1, Encoding::PLAIN, true};
  bytes.clear();
  EncodePageHeader(h, &bytes);
  EXPECT_NE(bytes.find(std::string("\x15\x02\x15\x00\x11\x00", 6)), std::string::npos);
}

TEST(Thrift, LongFieldHeadersAndUnknownFieldsOfEveryType) {
  std::string bytes;
  Writer w(&bytes);
  w.Begin();
  w.I32(1, 2);                        // version
  w.FieldHeader(thrift::kByte, 100);  // unknown i8 (long header: delta > 15)
  w.Raw("\x7f");
  w.I16(101, -300);                      // unknown i16
  w.I32(102, INT32_MIN);                 // unknown i32
  w.I64(103, INT64_MIN);                 // unknown i64
  w.Double(104, 3.5);                    // unknown double
  w.Binary(105, std::string(200, 'b'));  // unknown binary
  w.Bool(106, true);                     // unknown bool true
  w.Bool(107, false);                    // unknown bool false
  w.ListBegin(108, thrift::kStruct, 2);  // unknown list<struct>
  for (int i = 0; i < 2; ++i) {
    w.StructElemBegin();
    w.I32(1, i);
    w.StructBegin(2);
    w.Binary(1, "deep");
    w.StructEnd();
    w.StructElemEnd();
  }
  w.FieldHeader(thrift::kSet, 109);  // unknown set<bool> of 3
  w.Raw("\x31\x01\x02\x01");
  w.FieldHeader(thrift::kMap, 110);  // unknown map<binary, list<i32>> of 2
  w.Varint(2);
  w.Raw("\x89");
  for (int i = 0; i < 2; ++i) {
    w.Raw("\x01k");
    w.Raw("\x25\x02\x04");  // list of 2 i32: 1, 2
  }
  w.FieldHeader(thrift::kMap, 111);  // an empty map has no type byte
  w.Varint(0);
  w.FieldHeader(thrift::kI32, -5);  // negative field ids are legal in Thrift
  w.Varint(2);                      // zigzag(1)
  // Known fields after the unknown ones (ids below the last one: long headers).
  w.ListBegin(2, thrift::kStruct, 1);
  w.StructElemBegin();
  w.Binary(4, "schema");
  w.StructElemEnd();
  w.I64(3, 0);
  w.ListBegin(4, thrift::kStruct, 0);
  w.Binary(6, "writer");
  w.End();
  auto md = DecodeFileMetaData(Bytes(bytes));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->version, 2);
  ASSERT_EQ(md->schema.size(), 1u);
  EXPECT_EQ(md->schema[0].name, "schema");
  EXPECT_EQ(md->created_by, "writer");
}

// Builds FileMetaData bytes with four row groups of two columns; in row group 3, column 1, the
// meta_data's field 9 is written with the wrong type. *bad_at receives that field header's offset.
std::string MetadataWithBadField(size_t* bad_at) {
  std::string bytes;
  Writer w(&bytes);
  w.Begin();
  w.I32(1, 1);
  w.ListBegin(2, thrift::kStruct, 1);
  w.StructElemBegin();
  w.Binary(4, "schema");
  w.StructElemEnd();
  w.I64(3, 4);
  w.ListBegin(4, thrift::kStruct, 4);
  for (int g = 0; g < 4; ++g) {
    w.StructElemBegin();
    w.ListBegin(1, thrift::kStruct, 2);
    for (int c = 0; c < 2; ++c) {
      w.StructElemBegin();
      w.I64(2, 4);
      w.StructBegin(3);
      w.Enum(1, Type::INT32);
      w.ListBegin(2, thrift::kI32, 1);
      w.I32Elem(0);
      w.ListBegin(3, thrift::kBinary, 1);
      w.BinaryElem("x");
      w.Enum(4, Codec::UNCOMPRESSED);
      w.I64(5, 1);
      w.I64(6, 10);
      w.I64(7, 10);
      if (g == 3 && c == 1) {
        *bad_at = bytes.size();
        w.Binary(9, "oops");
      } else {
        w.I64(9, 4);
      }
      w.StructEnd();
      w.StructElemEnd();
    }
    w.I64(2, 10);
    w.I64(3, 1);
    w.StructElemEnd();
  }
  w.End();
  return bytes;
}

TEST(Thrift, ErrorsNameTheStructurePathAndOffset) {
  size_t bad_at = 0;
  std::string bytes = MetadataWithBadField(&bad_at);
  auto md = DecodeFileMetaData(Bytes(bytes));
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(md.status().message(),
            "FileMetaData.row_groups[3].columns[1].meta_data: field 9 (data_page_offset): expected i64, got binary "
            "at offset " +
                std::to_string(bad_at));

  // A required field that is missing.
  std::string b2;
  Writer w(&b2);
  w.Begin();
  w.I32(1, 1);
  w.ListBegin(2, thrift::kStruct, 0);
  w.ListBegin(4, thrift::kStruct, 0);
  w.End();
  auto missing = DecodeFileMetaData(Bytes(b2));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "FileMetaData: required field 3 (num_rows) is missing at offset " + std::to_string(b2.size() - 1));

  // Truncation inside a nested struct.
  auto truncated = DecodeFileMetaData(Bytes(bytes).subspan(0, bad_at - 3));
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().message().rfind("FileMetaData.row_groups[3].columns[1].meta_data: unexpected end", 0),
            0u)
      << truncated.status().message();
}

TEST(Thrift, LimitsAreEnforced) {
  FileMetaData md = RichMetadata(3, 5);
  std::string bytes;
  EncodeFileMetaData(md, &bytes);
  ThriftLimits small;
  small.max_list_size = 4;
  auto r = DecodeFileMetaData(Bytes(bytes), small);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("row_groups): list of 5 elements exceeds the limit of 4"), std::string::npos)
      << r.status().message();
  small = ThriftLimits{};
  small.max_string_size = 100;  // statistics max_value is 300 bytes
  r = DecodeFileMetaData(Bytes(bytes), small);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("statistics: max_value: binary of 300 bytes exceeds the limit of 100 bytes"),
            std::string::npos)
      << r.status().message();
  small = ThriftLimits{};
  small.max_depth = 3;  // FileMetaData > row_groups > columns > meta_data is deeper
  r = DecodeFileMetaData(Bytes(bytes), small);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nested deeper than 3"), std::string::npos) << r.status().message();

  // A list that claims more elements than there are bytes left: rejected before allocating.
  std::string huge;
  Writer w(&huge);
  w.Begin();
  w.I32(1, 1);
  w.FieldHeader(thrift::kList, 2);
  w.Raw("\xfc");
  w.Varint(1'000'000);
  auto h = DecodeFileMetaData(Bytes(huge));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("FileMetaData: field 2 (schema): list of 1000000 elements does not fit"),
            std::string::npos)
      << h.status().message();

  // A string longer than the bytes left.
  std::string s;
  Writer ws(&s);
  ws.Begin();
  ws.FieldHeader(thrift::kBinary, 6);
  ws.Varint(uint64_t{1} << 20);
  auto sr = DecodeFileMetaData(Bytes(s));
  ASSERT_FALSE(sr.ok());
  EXPECT_NE(sr.status().message().find("created_by: binary of 1048576 bytes does not fit in the 0 bytes left"),
            std::string::npos)
      << sr.status().message();

  // Unknown structs nested 10000 deep: bounded recursion, no stack overflow.
  std::string deep;
  Writer wd(&deep);
  wd.Begin();
  wd.FieldHeader(thrift::kStruct, 100);
  for (int i = 0; i < 10000; ++i) deep += '\x1c';  // field +1, struct
  auto d = DecodeFileMetaData(Bytes(deep));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("nested deeper than 64"), std::string::npos) << d.status().message();

  // A varint longer than 64 bits.
  std::string v;
  Writer wv(&v);
  wv.Begin();
  wv.FieldHeader(thrift::kI64, 3);
  v += std::string(10, '\xff');
  v += '\x01';
  auto vr = DecodeFileMetaData(Bytes(v));
  ASSERT_FALSE(vr.ok());
  EXPECT_NE(vr.status().message().find("overflows 64 bits"), std::string::npos) << vr.status().message();

  // An i32 field whose value does not fit 32 bits.
  std::string i32;
  Writer wi(&i32);
  wi.Begin();
  wi.FieldHeader(thrift::kI32, 1);
  wi.Varint(uint64_t{1} << 40);
  auto ir = DecodeFileMetaData(Bytes(i32));
  ASSERT_FALSE(ir.ok());
  EXPECT_NE(ir.status().message().find("overflows i32"), std::string::npos) << ir.status().message();
}

TEST(Thrift, OptionalFieldOfAnotherTypeIsSkipped) {
  // As Thrift-generated readers do: an optional field of an unexpected type is ignored.
  std::string bytes;
  Writer w(&bytes);
  w.Begin();
  w.FieldHeader(thrift::kI64, 1);  // version must be i32: required, so this is an error
  w.Varint(2);
  auto r = DecodeFileMetaData(Bytes(bytes));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field 1 (version): expected i32, got i64"), std::string::npos);
  // created_by (optional) as an i32: skipped.
  std::string b2;
  Writer w2(&b2);
  w2.Begin();
  w2.I32(1, 1);
  w2.ListBegin(2, thrift::kStruct, 0);
  w2.I64(3, 0);
  w2.ListBegin(4, thrift::kStruct, 0);
  w2.I32(6, 5);
  w2.End();
  auto r2 = DecodeFileMetaData(Bytes(b2));
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_FALSE(r2->created_by.has_value());
}

TEST(Metadata, Names) {
  EXPECT_STREQ(TypeName(Type::FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
  EXPECT_STREQ(TypeName(static_cast<Type>(42)), "UNKNOWN_TYPE");
  EXPECT_STREQ(EncodingName(Encoding::BYTE_STREAM_SPLIT), "BYTE_STREAM_SPLIT");
  EXPECT_STREQ(CodecName(Codec::LZ4_RAW), "LZ4_RAW");
  EXPECT_STREQ(PageTypeName(PageType::DATA_PAGE_V2), "DATA_PAGE_V2");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::INTERVAL), "INTERVAL");
  EXPECT_STREQ(ConvertedTypeName(static_cast<ConvertedType>(-1)), "UNKNOWN_CONVERTED_TYPE");
  EXPECT_STREQ(RepetitionName(Repetition::REPEATED), "REPEATED");
  EXPECT_STREQ(BoundaryOrderName(BoundaryOrder::DESCENDING), "DESCENDING");
  LogicalType lt;
  lt.kind = LogicalType::Kind::DECIMAL;
  lt.decimal_precision = 18;
  lt.decimal_scale = 3;
  EXPECT_EQ(LogicalTypeToString(lt), "DECIMAL(18,3)");
  lt.kind = LogicalType::Kind::TIMESTAMP;
  lt.unit = TimeUnit::NANOS;
  lt.is_adjusted_to_utc = true;
  EXPECT_EQ(LogicalTypeToString(lt), "TIMESTAMP(NANOS,UTC)");
  lt.kind = LogicalType::Kind::INTEGER;
  lt.bit_width = 16;
  lt.is_signed = false;
  EXPECT_EQ(LogicalTypeToString(lt), "INTEGER(16,unsigned)");
}

}  // namespace
}  // namespace rap::parquet
