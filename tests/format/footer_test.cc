// Footers, page headers and page indexes of the real files in parquet-testing, and corrupted
// variants of them: every decode either succeeds or fails with a Corrupt status, never crashes.
#include "rap/format/footer.h"

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/format/thrift.h"

#include "testing/paths.h"

namespace rap::parquet {
namespace {

namespace fs = std::filesystem;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::vector<std::string> FilesIn(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string p = e.path().string();
    if (e.is_regular_file() && p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Data(const std::string& name) { return testing::ParquetTestingData() + "/" + name; }

Result<FileMetaData> Footer(const std::string& path) {
  std::string bytes = testing::ReadFileToString(path);
  return ParseFooter(Bytes(bytes), bytes.size(), path);
}

size_t CountLeaves(const FileMetaData& md) {
  size_t n = 0;
  for (const auto& e : md.schema) n += (!e.num_children || *e.num_children == 0) && &e != &md.schema[0];
  return n;
}

// Where the first page of a column chunk starts (the dictionary page when there is a valid one).
int64_t ChunkStart(const ColumnMetaData& m) {
  // Some writers leave data_page_offset 0 in a chunk that holds only a dictionary page
  // (column_chunk_key_value_metadata.parquet): no page can start before the 4-byte header magic.
  bool dictionary = m.dictionary_page_offset && *m.dictionary_page_offset >= 4;
  if (dictionary && (*m.dictionary_page_offset < m.data_page_offset || m.data_page_offset < 4)) {
    return *m.dictionary_page_offset;
  }
  return m.data_page_offset;
}

TEST(Footer, EveryDataFileDecodes) {
  std::vector<std::string> files = FilesIn(testing::ParquetTestingData(), ".parquet");
  for (const auto& f : FilesIn(testing::ParquetTestingData() + "/geospatial", ".parquet")) files.push_back(f);
  ASSERT_GE(files.size(), 60u);
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    auto md = Footer(path);
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    ASSERT_FALSE(md->schema.empty());
    EXPECT_GE(md->version, 1);
    int64_t rows = 0;
    size_t leaves = CountLeaves(*md);
    for (const auto& rg : md->row_groups) {
      rows += rg.num_rows;
      ASSERT_EQ(rg.columns.size(), leaves);
      for (const auto& cc : rg.columns) {
        ASSERT_TRUE(cc.meta_data.has_value());
        EXPECT_FALSE(cc.meta_data->path_in_schema.empty());
        EXPECT_GE(cc.meta_data->total_compressed_size, 0);
        EXPECT_FALSE(cc.has_crypto_metadata);
      }
    }
    // parquet-rs 0.3.0 wrote num_rows = 0 in the file metadata of repeated_no_annotation.parquet
    // (its row group says 6): readers must count rows from the row groups.
    if (path.find("repeated_no_annotation") == std::string::npos) {
      EXPECT_EQ(rows, md->num_rows);
    } else {
      EXPECT_EQ(md->num_rows, 0);
      EXPECT_EQ(rows, 6);
    }
    if (!md->column_orders_type_defined.empty()) {
      EXPECT_EQ(md->column_orders_type_defined.size(), leaves);
    }
  }
}

TEST(Footer, AlltypesPlainFacts) {
  auto md = Footer(Data("alltypes_plain.parquet"));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 8);
  EXPECT_EQ(CountLeaves(*md), 11u);
  ASSERT_EQ(md->schema.size(), 12u);
  EXPECT_EQ(md->schema[0].num_children, 11);
  ASSERT_EQ(md->row_groups.size(), 1u);
  const std::vector<std::pair<std::string, Type>> expected = {{"id", Type::INT32},
                                                              {"bool_col", Type::BOOLEAN},
                                                              {"tinyint_col", Type::INT32},
                                                              {"smallint_col", Type::INT32},
                                                              {"int_col", Type::INT32},
                                                              {"bigint_col", Type::INT64},
                                                              {"float_col", Type::FLOAT},
                                                              {"double_col", Type::DOUBLE},
                                                              {"date_string_col", Type::BYTE_ARRAY},
                                                              {"string_col", Type::BYTE_ARRAY},
                                                              {"timestamp_col", Type::INT96}};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(md->schema[i + 1].name, expected[i].first);
    EXPECT_EQ(md->schema[i + 1].type, expected[i].second);
    EXPECT_EQ(md->schema[i + 1].repetition_type, Repetition::OPTIONAL);
    const auto& m = *md->row_groups[0].columns[i].meta_data;
    EXPECT_EQ(m.type, expected[i].second);
    EXPECT_EQ(m.path_in_schema, std::vector<std::string>{expected[i].first});
    EXPECT_EQ(m.num_values, 8);
    EXPECT_EQ(m.codec, Codec::UNCOMPRESSED);
  }
  ASSERT_TRUE(md->created_by.has_value());
  EXPECT_EQ(md->created_by->rfind("impala version", 0), 0u) << *md->created_by;
}

TEST(Footer, LogicalTypesAndKeyValueMetadata) {
  // int32_decimal.parquet (parquet-mr 1.8): DECIMAL(4, 2) on INT32 as a converted type only.
  auto md = Footer(Data("int32_decimal.parquet"));
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const SchemaElement& e = md->schema.at(1);
  EXPECT_EQ(e.type, Type::INT32);
  EXPECT_EQ(e.converted_type, ConvertedType::DECIMAL);
  EXPECT_EQ(e.precision, 4);
  EXPECT_EQ(e.scale, 2);
  EXPECT_FALSE(e.logical_type.has_value());

  // Logical types: INTEGER(8, signed) next to INT_8, INTEGER(64, unsigned) next to UINT_64,
  // DECIMAL agreeing with the converted precision/scale, FLOAT16, GEOMETRY.
  auto tiny = Footer(Data("alltypes_tiny_pages.parquet"));
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  const SchemaElement& tinyint = tiny->schema.at(3);
  EXPECT_EQ(tinyint.name, "tinyint_col");
  EXPECT_EQ(tinyint.converted_type, ConvertedType::INT_8);
  ASSERT_TRUE(tinyint.logical_type.has_value());
  EXPECT_EQ(tinyint.logical_type->kind, LogicalType::Kind::INTEGER);
  EXPECT_EQ(tinyint.logical_type->bit_width, 8);
  EXPECT_TRUE(tinyint.logical_type->is_signed);

  auto gz = Footer(Data("concatenated_gzip_members.parquet"));
  ASSERT_TRUE(gz.ok()) << gz.status().ToString();
  const SchemaElement& ulong = gz->schema.at(1);
  EXPECT_EQ(ulong.converted_type, ConvertedType::UINT_64);
  ASSERT_TRUE(ulong.logical_type.has_value());
  EXPECT_EQ(ulong.logical_type->kind, LogicalType::Kind::INTEGER);
  EXPECT_EQ(ulong.logical_type->bit_width, 64);
  EXPECT_FALSE(ulong.logical_type->is_signed);

  auto bss = Footer(Data("byte_stream_split_extended.gzip.parquet"));
  ASSERT_TRUE(bss.ok()) << bss.status().ToString();
  int decimals = 0, float16s = 0;
  for (const auto& el : bss->schema) {
    if (!el.logical_type) continue;
    if (el.logical_type->kind == LogicalType::Kind::DECIMAL) {
      ++decimals;
      EXPECT_EQ(el.converted_type, ConvertedType::DECIMAL);
      EXPECT_EQ(el.precision, el.logical_type->decimal_precision);
      EXPECT_EQ(el.scale, el.logical_type->decimal_scale);
      EXPECT_GT(el.logical_type->decimal_precision, 0);
    }
    if (el.logical_type->kind == LogicalType::Kind::FLOAT16) {
      ++float16s;
      EXPECT_EQ(el.type, Type::FIXED_LEN_BYTE_ARRAY);
      EXPECT_EQ(el.type_length, 2);
    }
  }
  EXPECT_EQ(decimals, 2);
  EXPECT_EQ(float16s, 2);

  auto geo = Footer(testing::ParquetTestingData() + "/geospatial/geospatial.parquet");
  ASSERT_TRUE(geo.ok()) << geo.status().ToString();
  bool geometry = false;
  for (const auto& el : geo->schema)
    geometry |= el.logical_type && el.logical_type->kind == LogicalType::Kind::GEOMETRY;
  EXPECT_TRUE(geometry);

  auto kv = Footer(Data("column_chunk_key_value_metadata.parquet"));
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  bool found = false;
  for (const auto& rg : kv->row_groups) {
    for (const auto& cc : rg.columns) found |= !cc.meta_data->key_value_metadata.empty();
  }
  EXPECT_TRUE(found);

  // A logical type from the future is dropped, the column stays readable through its physical type.
  auto unknown = Footer(Data("unknown-logical-type.parquet"));
  ASSERT_TRUE(unknown.ok()) << unknown.status().ToString();
  bool dropped = false;
  for (const auto& el : unknown->schema) dropped |= el.type.has_value() && !el.logical_type.has_value();
  EXPECT_TRUE(dropped);
}

TEST(Footer, EncryptedFilesAreNotSupported) {
  std::vector<std::string> files = FilesIn(testing::ParquetTestingData(), ".parquet.encrypted");
  for (const auto& f : FilesIn(testing::ParquetTestingData() + "/aes256", ".parquet.encrypted")) files.push_back(f);
  ASSERT_GE(files.size(), 8u);
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    auto md = Footer(path);
    ASSERT_FALSE(md.ok());
    EXPECT_EQ(md.status().code(), StatusCode::kNotSupported) << md.status().ToString();
    EXPECT_NE(md.status().message().find("encrypted Parquet is not supported"), std::string::npos);
    EXPECT_NE(md.status().message().find(path), std::string::npos);
  }
  // The plaintext-footer file decodes as thrift and says which columns are encrypted.
  std::string bytes = testing::ReadFileToString(Data("encrypt_columns_plaintext_footer.parquet.encrypted"));
  auto len = ParseFooterLength(Bytes(bytes), bytes.size(), "x");
  ASSERT_TRUE(len.ok()) << len.status().ToString();
  auto raw = DecodeFileMetaData(Bytes(bytes).subspan(bytes.size() - 8 - *len, *len));
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_TRUE(raw->has_encryption_algorithm);
  bool any_encrypted_column = false;
  for (const auto& cc : raw->row_groups.at(0).columns) any_encrypted_column |= cc.has_crypto_metadata;
  EXPECT_TRUE(any_encrypted_column);
}

TEST(Footer, TailErrors) {
  std::string bytes = testing::ReadFileToString(Data("alltypes_plain.parquet"));
  auto tail = Bytes(bytes);
  auto len = ParseFooterLength(tail.subspan(tail.size() - 8), bytes.size(), "f.parquet");
  ASSERT_TRUE(len.ok());
  EXPECT_LT(*len, bytes.size());
  // Only the tail: enough for the metadata.
  auto md = ParseFooter(tail.subspan(tail.size() - 8 - *len), bytes.size(), "f.parquet");
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 8);
  // A tail too short for the metadata.
  auto short_tail = ParseFooter(tail.subspan(tail.size() - 100), bytes.size(), "f.parquet");
  EXPECT_EQ(short_tail.status().code(), StatusCode::kInvalidArgument);

  std::string bad = bytes;
  bad[bad.size() - 1] = 'X';
  auto magic = ParseFooter(Bytes(bad), bad.size(), "f.parquet");
  EXPECT_EQ(magic.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(magic.status().message().find("f.parquet: footer magic at offset"), std::string::npos)
      << magic.status().message();

  bad = bytes;
  bad[bad.size() - 5] = '\x7f';  // length high byte: far beyond the file
  auto huge = ParseFooter(Bytes(bad), bad.size(), "f.parquet");
  EXPECT_EQ(huge.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(huge.status().message().find("footer length"), std::string::npos) << huge.status().message();

  bad = bytes;
  bad[0] = 'Q';
  auto head = ParseFooter(Bytes(bad), bad.size(), "f.parquet");
  EXPECT_EQ(head.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(head.status().message().find("header magic"), std::string::npos);

  std::string tiny = "PAR1PAR1";
  EXPECT_EQ(ParseFooter(Bytes(tiny), tiny.size(), "t").status().code(), StatusCode::kCorrupt);
  std::string zero("PAR1\0\0\0\0PAR1", 12);
  EXPECT_EQ(ParseFooter(Bytes(zero), zero.size(), "t").status().code(), StatusCode::kCorrupt);

  // Truncated metadata: the error names the file, the metadata's offset and the structure.
  bad = bytes;
  size_t meta_at = bytes.size() - 8 - *len;
  bad.erase(meta_at + *len / 2, *len - *len / 2);  // keep the first half of the metadata
  uint32_t half = static_cast<uint32_t>(*len / 2);
  for (int i = 0; i < 4; ++i) bad[bad.size() - 8 + i] = static_cast<char>(half >> (8 * i));
  auto trunc = ParseFooter(Bytes(bad), bad.size(), "f.parquet");
  ASSERT_EQ(trunc.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(trunc.status().message().find("f.parquet: footer metadata at file offset"), std::string::npos);
  EXPECT_NE(trunc.status().message().find("FileMetaData"), std::string::npos) << trunc.status().message();
}

TEST(Footer, PageIndexOfTinyPages) {
  std::string bytes = testing::ReadFileToString(Data("alltypes_tiny_pages.parquet"));
  auto md = ParseFooter(Bytes(bytes), bytes.size(), "alltypes_tiny_pages.parquet");
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->num_rows, 7300);
  size_t indexes = 0, column_indexes = 0;
  for (const auto& rg : md->row_groups) {
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& cc = rg.columns[c];
      SCOPED_TRACE(cc.meta_data->path_in_schema[0]);
      ASSERT_TRUE(cc.offset_index_offset && cc.offset_index_length);
      ASSERT_LE(static_cast<uint64_t>(*cc.offset_index_offset + *cc.offset_index_length), bytes.size());
      auto oi = DecodeOffsetIndex(Bytes(bytes).subspan(*cc.offset_index_offset, *cc.offset_index_length));
      ASSERT_TRUE(oi.ok()) << oi.status().ToString();
      const auto& pages = oi->page_locations;
      ASSERT_FALSE(pages.empty());
      EXPECT_EQ(pages[0].first_row_index, 0);
      // (This writer points data_page_offset at the dictionary page; the first data page follows it.)
      EXPECT_GE(pages[0].offset, ChunkStart(*cc.meta_data));
      EXPECT_LE(pages.back().offset + pages.back().compressed_page_size,
                ChunkStart(*cc.meta_data) + cc.meta_data->total_compressed_size);
      for (size_t i = 1; i < pages.size(); ++i) {
        EXPECT_GT(pages[i].offset, pages[i - 1].offset);
        EXPECT_GE(pages[i].offset, pages[i - 1].offset + pages[i - 1].compressed_page_size);
        EXPECT_GT(pages[i].first_row_index, pages[i - 1].first_row_index);
      }
      EXPECT_LT(pages.back().first_row_index, rg.num_rows);
      // INT96 has no defined sort order, so no ColumnIndex for timestamp_col.
      if (cc.meta_data->type != Type::INT96) {
        ASSERT_TRUE(cc.column_index_offset && cc.column_index_length);
        ASSERT_LE(static_cast<uint64_t>(*cc.column_index_offset + *cc.column_index_length), bytes.size());
        auto ci = DecodeColumnIndex(Bytes(bytes).subspan(*cc.column_index_offset, *cc.column_index_length));
        ASSERT_TRUE(ci.ok()) << ci.status().ToString();
        EXPECT_EQ(ci->null_pages.size(), pages.size());
        EXPECT_EQ(ci->min_values.size(), pages.size());
        EXPECT_EQ(ci->null_counts.size(), pages.size());
        ++column_indexes;
      }
      // Each location points at a page header whose size agrees with it.
      for (const auto& loc : pages) {
        size_t header_size = 0;
        auto ph = DecodePageHeader(Bytes(bytes).subspan(loc.offset), &header_size);
        ASSERT_TRUE(ph.ok()) << ph.status().ToString();
        EXPECT_EQ(ph->type, PageType::DATA_PAGE);
        EXPECT_EQ(static_cast<int64_t>(header_size) + ph->compressed_page_size, loc.compressed_page_size);
      }
      ++indexes;
    }
  }
  EXPECT_EQ(indexes, 13u);
  EXPECT_EQ(column_indexes, 12u);
}

TEST(Footer, FirstPageHeaderOfEveryChunk) {
  for (const char* name : {"alltypes_plain.parquet", "alltypes_dictionary.parquet", "datapage_v2.snappy.parquet",
                           "nested_maps.snappy.parquet", "delta_byte_array.parquet", "byte_stream_split.zstd.parquet",
                           "dict-page-offset-zero.parquet", "large_string_map.brotli.parquet",
                           "column_chunk_key_value_metadata.parquet"}) {
    SCOPED_TRACE(name);
    std::string bytes = testing::ReadFileToString(Data(name));
    auto md = ParseFooter(Bytes(bytes), bytes.size(), name);
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    for (const auto& rg : md->row_groups) {
      for (const auto& cc : rg.columns) {
        const ColumnMetaData& m = *cc.meta_data;
        int64_t start = ChunkStart(m);
        ASSERT_GE(start, 4);
        ASSERT_LT(static_cast<uint64_t>(start), bytes.size());
        size_t header_size = 0;
        auto ph = DecodePageHeader(Bytes(bytes).subspan(start), &header_size);
        ASSERT_TRUE(ph.ok()) << ph.status().ToString();
        EXPECT_GT(header_size, 0u);
        EXPECT_LE(static_cast<int64_t>(header_size) + ph->compressed_page_size, m.total_compressed_size);
        if (start != m.data_page_offset) {
          EXPECT_EQ(ph->type, PageType::DICTIONARY_PAGE);
          EXPECT_TRUE(ph->dictionary_page_header.has_value());
        } else {
          EXPECT_TRUE(ph->type == PageType::DATA_PAGE || ph->type == PageType::DATA_PAGE_V2 ||
                      ph->type == PageType::DICTIONARY_PAGE);
        }
        if (ph->data_page_header_v2) {
          EXPECT_LE(ph->data_page_header_v2->num_nulls, ph->data_page_header_v2->num_values);
        }
      }
    }
  }
}

// Decodes the first page header of every chunk of `md`; returns the number that decoded.
int DecodeFirstPages(const std::string& bytes, const FileMetaData& md) {
  int ok = 0;
  for (const auto& rg : md.row_groups) {
    for (const auto& cc : rg.columns) {
      if (!cc.meta_data) continue;
      int64_t start = ChunkStart(*cc.meta_data);
      if (start < 0 || static_cast<uint64_t>(start) >= bytes.size()) continue;
      size_t header_size = 0;
      auto ph = DecodePageHeader(Bytes(bytes).subspan(start), &header_size);
      if (ph.ok()) {
        ++ok;
      } else {
        EXPECT_EQ(ph.status().code(), StatusCode::kCorrupt) << ph.status().ToString();
      }
    }
  }
  return ok;
}

TEST(Footer, BadDataDecodesOrFailsCleanly) {
  std::vector<std::string> files = FilesIn(testing::ParquetTestingBad(), ".parquet");
  ASSERT_GE(files.size(), 8u);
  int corrupt = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    std::string bytes = testing::ReadFileToString(path);
    auto md = ParseFooter(Bytes(bytes), bytes.size(), path);
    if (!md.ok()) {
      EXPECT_EQ(md.status().code(), StatusCode::kCorrupt) << md.status().ToString();
      EXPECT_NE(md.status().message().find(path), std::string::npos);
      ++corrupt;
      continue;
    }
    DecodeFirstPages(bytes, *md);
  }
  // PARQUET-1481.parquet has a corrupted schema thrift value.
  EXPECT_GE(corrupt, 1);
  auto p1481 = Footer(testing::ParquetTestingBad() + "/PARQUET-1481.parquet");
  EXPECT_EQ(p1481.status().code(), StatusCode::kCorrupt);
}

// Mutations of a real footer: truncations at every position, single-byte flips and random
// overwrites. Every decode returns a value or a Corrupt status (run under ASan/UBSan in CI).
void Mutate(const std::string& file) {
  SCOPED_TRACE(file);
  std::string bytes = testing::ReadFileToString(Data(file));
  auto len = ParseFooterLength(Bytes(bytes), bytes.size(), file);
  ASSERT_TRUE(len.ok());
  const std::string meta = bytes.substr(bytes.size() - 8 - *len, *len);
  ASSERT_TRUE(DecodeFileMetaData(Bytes(meta)).ok());
  auto check = [](const std::string& m) {
    auto r = DecodeFileMetaData(Bytes(m));
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
      EXPECT_NE(r.status().message().find("at offset "), std::string::npos) << r.status().message();
    }
    return r.ok();
  };
  size_t step = std::max<size_t>(1, meta.size() / 1500);
  int truncated_ok = 0;
  for (size_t n = 0; n < meta.size(); n += step) truncated_ok += check(meta.substr(0, n));
  EXPECT_EQ(truncated_ok, 0) << "a truncated footer decoded";
  for (size_t i = 0; i < meta.size(); i += step) {
    for (uint8_t mask : {0x01, 0x10, 0x80, 0xff}) {
      std::string m = meta;
      m[i] = static_cast<char>(m[i] ^ mask);
      check(m);
    }
  }
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::string m = meta;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) m[rng() % m.size()] = static_cast<char>(rng());
    check(m);
  }
}

TEST(Footer, MutatedFootersNeverCrash) {
  for (const char* f : {"alltypes_plain.parquet", "alltypes_tiny_pages.parquet", "nested_maps.snappy.parquet",
                        "data_index_bloom_encoding_stats.parquet", "datapage_v2.snappy.parquet",
                        "column_chunk_key_value_metadata.parquet", "int32_decimal.parquet"}) {
    Mutate(f);
  }
}

TEST(Footer, MutatedPageIndexAndHeadersNeverCrash) {
  std::string bytes = testing::ReadFileToString(Data("alltypes_tiny_pages.parquet"));
  auto md = ParseFooter(Bytes(bytes), bytes.size(), "tiny");
  ASSERT_TRUE(md.ok());
  const ColumnChunk& cc = md->row_groups[0].columns[9];
  std::string oi = bytes.substr(*cc.offset_index_offset, *cc.offset_index_length);
  std::string ci = bytes.substr(*cc.column_index_offset, *cc.column_index_length);
  std::string ph = bytes.substr(cc.meta_data->data_page_offset, 64);
  for (size_t i = 0; i < std::max({oi.size(), ci.size(), ph.size()}); ++i) {
    for (uint8_t mask : {0x01, 0x0f, 0x80, 0xf0}) {
      if (i < oi.size()) {
        std::string m = oi;
        m[i] = static_cast<char>(m[i] ^ mask);
        auto r = DecodeOffsetIndex(Bytes(m));
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
        }
        EXPECT_FALSE(DecodeOffsetIndex(Bytes(oi).subspan(0, i)).ok());
      }
      if (i < ci.size()) {
        std::string m = ci;
        m[i] = static_cast<char>(m[i] ^ mask);
        auto r = DecodeColumnIndex(Bytes(m));
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
        }
      }
      if (i < ph.size()) {
        std::string m = ph;
        m[i] = static_cast<char>(m[i] ^ mask);
        size_t hs = 0;
        auto r = DecodePageHeader(Bytes(m), &hs);
        if (r.ok()) {
          EXPECT_LE(hs, m.size());
        } else {
          EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
        }
      }
    }
  }
}

}  // namespace
}  // namespace rap::parquet
