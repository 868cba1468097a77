// Decoders on real files from parquet-testing: a minimal page walker for flat columns (dictionary,
// data page v1 and v2, every codec) feeds the value decoders, and the values are checked against
// the _expect.csv files, against a PLAIN twin column, or against facts from the fixtures' README.
// The full column reader lives in read/; this only exercises codecs, levels and encodings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "rap/codec/codec.h"
#include "rap/format/encoding.h"
#include "rap/format/footer.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"
#include "testing/paths.h"
#include "testing/result_check.h"

namespace rap::parquet {
namespace {

using Value = std::optional<std::string>;  // raw value bytes (fixed width LE, or BYTE_ARRAY), nullopt = null

struct FileData {
  std::string bytes;
  FileMetaData md;
  std::vector<const SchemaElement*> leaves;
};

FileData Open(const std::string& name) {
  FileData f;
  f.bytes = testing::ReadFileToString(testing::ParquetTestingData() + "/" + name);
  const std::span<const uint8_t> all(reinterpret_cast<const uint8_t*>(f.bytes.data()), f.bytes.size());
  auto md = ParseFooter(all, all.size(), name);
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  if (md.ok()) f.md = std::move(*md);
  for (size_t i = 1; i < f.md.schema.size(); ++i) {
    if (!f.md.schema[i].num_children.value_or(0)) f.leaves.push_back(&f.md.schema[i]);
  }
  return f;
}

// Decodes n values of a section into `out`; every other chunk is skipped instead when `skip_mask`
// says so (those entries stay as they are in out).
Status DecodeValues(ValueDecoder* dec, Type type, int32_t type_length, bool dict, const std::vector<Value>& dictionary,
                    int64_t n, std::vector<std::string>* out, uint64_t skip_mask) {
  const int w = PhysicalWidth(type, type_length);
  for (int64_t i = 0, chunk = 0; i < n; ++chunk) {
    const int64_t k = std::min<int64_t>(n - i, 1 + (chunk * 7) % 19);
    if ((skip_mask >> (chunk % 64)) & 1) {
      RAP_RETURN_NOT_OK(dec->Skip(k));
      for (int64_t j = 0; j < k; ++j) out->push_back("<skipped>");
    } else if (dict) {
      std::vector<int32_t> idx(static_cast<size_t>(k));
      RAP_RETURN_NOT_OK(dec->DecodeIndices(idx.data(), k));
      for (int32_t x : idx) {
        if (x < 0 || static_cast<size_t>(x) >= dictionary.size()) return Status::Corrupt("index out of range");
        out->push_back(*dictionary[static_cast<size_t>(x)]);
      }
    } else if (w < 0) {
      rap::UninitVector<int32_t> offsets{0};
      rap::ByteVector data;
      RAP_RETURN_NOT_OK(dec->DecodeBinary(k, {&offsets, &data}));
      for (int64_t j = 0; j < k; ++j) out->emplace_back(data.begin() + offsets[j], data.begin() + offsets[j + 1]);
    } else {
      std::vector<uint8_t> buf(static_cast<size_t>(k * w));
      RAP_RETURN_NOT_OK(dec->DecodeFixed(buf.data(), k));
      for (int64_t j = 0; j < k; ++j) out->emplace_back(buf.begin() + j * w, buf.begin() + (j + 1) * w);
    }
    i += k;
  }
  return Status::OK();
}

// All values of leaf column `col` (flat schemas only), decoded page by page.
std::vector<Value> ReadColumn(const FileData& f, size_t col, uint64_t skip_mask = 0) {
  std::vector<Value> values;
  if (col >= f.leaves.size() || f.md.row_groups.empty()) {
    ADD_FAILURE() << "no column " << col << " (the file did not open)";
    return values;
  }
  const SchemaElement& leaf = *f.leaves[col];
  const int max_def = leaf.repetition_type == Repetition::OPTIONAL ? 1 : 0;
  for (const RowGroup& rg : f.md.row_groups) {
    const ColumnMetaData& cm = *rg.columns[col].meta_data;
    int64_t pos = cm.data_page_offset;
    if (cm.dictionary_page_offset && *cm.dictionary_page_offset > 0 && *cm.dictionary_page_offset < pos) {
      pos = *cm.dictionary_page_offset;
    }
    const int64_t end = pos + cm.total_compressed_size;
    std::vector<Value> dictionary;
    int64_t seen = 0;
    while (pos < end && seen < cm.num_values) {
      const auto* base = reinterpret_cast<const uint8_t*>(f.bytes.data()) + pos;
      size_t hsize = 0;
      auto ph = DecodePageHeader({base, static_cast<size_t>(end - pos)}, &hsize);
      EXPECT_TRUE(ph.ok()) << ph.status().ToString();
      if (!ph.ok()) return {};
      const uint8_t* body = base + hsize;
      std::vector<uint8_t> page(static_cast<size_t>(ph->uncompressed_page_size));
      size_t levels_len = 0;
      if (ph->data_page_header_v2) {
        const auto& v2 = *ph->data_page_header_v2;
        levels_len = static_cast<size_t>(v2.definition_levels_byte_length + v2.repetition_levels_byte_length);
        std::memcpy(page.data(), body, levels_len);
      }
      const bool compressed = !ph->data_page_header_v2 || ph->data_page_header_v2->is_compressed;
      Status st = Decompress(compressed ? cm.codec : Codec::UNCOMPRESSED,
                             {body + levels_len, static_cast<size_t>(ph->compressed_page_size) - levels_len},
                             std::span(page).subspan(levels_len));
      EXPECT_TRUE(st.ok()) << st.ToString();
      if (!st.ok()) return {};
      pos += static_cast<int64_t>(hsize) + ph->compressed_page_size;
      if (ph->type == PageType::DICTIONARY_PAGE) {
        auto dec = MakeValueDecoder(Encoding::PLAIN, cm.type, leaf.type_length.value_or(0), page,
                                    ph->dictionary_page_header->num_values);
        RAP_TEST_CHECK_OK(dec);
        std::vector<std::string> d;
        st = DecodeValues(dec->get(), cm.type, leaf.type_length.value_or(0), false, {},
                          ph->dictionary_page_header->num_values, &d, 0);
        EXPECT_TRUE(st.ok()) << st.ToString();
        dictionary.assign(d.begin(), d.end());
        continue;
      }
      if (ph->type != PageType::DATA_PAGE && ph->type != PageType::DATA_PAGE_V2) continue;
      const bool v2 = ph->type == PageType::DATA_PAGE_V2;
      const int64_t n = v2 ? ph->data_page_header_v2->num_values : ph->data_page_header->num_values;
      const Encoding enc = v2 ? ph->data_page_header_v2->encoding : ph->data_page_header->encoding;
      std::vector<int16_t> defs(static_cast<size_t>(n), static_cast<int16_t>(max_def));
      size_t values_at = levels_len;
      if (max_def > 0 && v2) {
        // V2 levels: repetition levels first, then definition levels.
        const auto& h = *ph->data_page_header_v2;
        st = DecodeLevelsV2(1,
                            std::span(page).subspan(static_cast<size_t>(h.repetition_levels_byte_length),
                                                    static_cast<size_t>(h.definition_levels_byte_length)),
                            n, defs.data());
        EXPECT_TRUE(st.ok()) << st.ToString();
      } else if (max_def > 0) {
        auto used = DecodeLevelsV1(ph->data_page_header->definition_level_encoding, 1, page, n, defs.data());
        EXPECT_TRUE(used.ok()) << used.status().ToString();
        if (!used.ok()) return {};
        values_at = *used;
      }
      int64_t non_null = 0;
      for (int16_t d : defs) non_null += d == max_def;
      auto dec = MakeValueDecoder(enc, cm.type, leaf.type_length.value_or(0), std::span(page).subspan(values_at),
                                  non_null);
      EXPECT_TRUE(dec.ok()) << dec.status().ToString();
      if (!dec.ok()) return {};
      std::vector<std::string> vals;
      st = DecodeValues(dec->get(), cm.type, leaf.type_length.value_or(0),
                        enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY, dictionary, non_null,
                        &vals, skip_mask);
      EXPECT_TRUE(st.ok()) << leaf.name << ": " << st.ToString();
      if (!st.ok()) return {};
      size_t k = 0;
      for (int16_t d : defs) values.push_back(d == max_def ? Value(vals[k++]) : std::nullopt);
      seen += n;
    }
  }
  return values;
}

template <typename T>
T As(const Value& v) {
  T x{};
  EXPECT_TRUE(v.has_value() && v->size() == sizeof(T));
  if (v && v->size() == sizeof(T)) std::memcpy(&x, v->data(), sizeof(T));
  return x;
}

// Minimal CSV: quoted fields with "" escapes; an empty unquoted field is null.
std::vector<std::vector<Value>> ReadCsv(const std::string& name) {
  const std::string text = testing::ReadFileToString(testing::ParquetTestingData() + "/" + name);
  std::vector<std::vector<Value>> rows(1);
  Value field = std::string();
  bool quoted = false, was_quoted = false;
  auto end_field = [&] {
    rows.back().push_back(was_quoted || !field->empty() ? field : std::nullopt);
    field = std::string();
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field->push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field->push_back(c);
      }
    } else if (c == '"') {
      quoted = was_quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n') {
      end_field();
      rows.emplace_back();
    } else if (c != '\r') {
      field->push_back(c);
    }
  }
  if (!rows.back().empty() || !field->empty()) end_field();
  if (!rows.empty() && rows.back().empty()) rows.pop_back();
  if (!rows.empty()) rows.erase(rows.begin());  // header
  return rows;
}

// Checks every column of `file` against `csv` (same column order): integers by value, strings by bytes.
void CheckAgainstCsv(const std::string& file, const std::string& csv) {
  const FileData f = Open(file);
  const auto rows = ReadCsv(csv);
  ASSERT_EQ(static_cast<int64_t>(rows.size()), f.md.num_rows);
  for (size_t c = 0; c < f.leaves.size(); ++c) {
    for (uint64_t mask : {uint64_t{0}, uint64_t{0x5555555555555555}}) {
      const std::vector<Value> col = ReadColumn(f, c, mask);
      ASSERT_EQ(col.size(), rows.size()) << f.leaves[c]->name;
      for (size_t r = 0; r < rows.size(); ++r) {
        const Value& want = rows[r][c];
        if (col[r] == "<skipped>") continue;
        ASSERT_EQ(col[r].has_value(), want.has_value()) << f.leaves[c]->name << " row " << r;
        if (!want) continue;
        std::string got = *col[r];
        if (f.leaves[c]->type == Type::INT32) got = std::to_string(As<int32_t>(col[r]));
        if (f.leaves[c]->type == Type::INT64) got = std::to_string(As<int64_t>(col[r]));
        ASSERT_EQ(got, *want) << f.leaves[c]->name << " row " << r;
      }
    }
  }
}

TEST(EncodingFiles, DeltaBinaryPacked) { CheckAgainstCsv("delta_binary_packed.parquet", "delta_binary_packed_expect.csv"); }
TEST(EncodingFiles, DeltaByteArray) { CheckAgainstCsv("delta_byte_array.parquet", "delta_byte_array_expect.csv"); }
TEST(EncodingFiles, DeltaRequired) {
  CheckAgainstCsv("delta_encoding_required_column.parquet", "delta_encoding_required_column_expect.csv");
}
TEST(EncodingFiles, DeltaOptional) {
  CheckAgainstCsv("delta_encoding_optional_column.parquet", "delta_encoding_optional_column_expect.csv");
}

TEST(EncodingFiles, DeltaLengthByteArray) {
  const FileData f = Open("delta_length_byte_array.parquet");
  ASSERT_EQ(f.leaves.size(), 1u);
  const std::vector<Value> col = ReadColumn(f, 0);
  ASSERT_EQ(static_cast<int64_t>(col.size()), f.md.num_rows);
  EXPECT_EQ(ReadColumn(f, 0, 0x3333333333333333).size(), col.size());
}

// Each BYTE_STREAM_SPLIT column has a PLAIN twin with the same values.
TEST(EncodingFiles, ByteStreamSplitMatchesPlainTwin) {
  const FileData f = Open("byte_stream_split_extended.gzip.parquet");
  ASSERT_EQ(f.leaves.size(), 14u);
  for (size_t c = 0; c < 14; c += 2) {
    const auto plain = ReadColumn(f, c), split = ReadColumn(f, c + 1);
    ASSERT_EQ(plain.size(), 200u) << f.leaves[c]->name;
    EXPECT_EQ(plain, split) << f.leaves[c + 1]->name;
  }
  const FileData g = Open("byte_stream_split.zstd.parquet");
  for (size_t c = 0; c < g.leaves.size(); ++c) {
    const auto col = ReadColumn(g, c);
    ASSERT_EQ(static_cast<int64_t>(col.size()), g.md.num_rows);
    for (const Value& v : col) {
      if (!v) continue;
      const double d = v->size() == 4 ? As<float>(v) : As<double>(v);
      EXPECT_TRUE(std::isfinite(d) && std::fabs(d) < 100) << d;  // standard normal samples
    }
  }
}

TEST(EncodingFiles, Lz4Variants) {
  for (const char* name : {"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet",
                           "lz4_raw_compressed.parquet"}) {
    const FileData f = Open(name);
    ASSERT_EQ(f.leaves.size(), 3u) << name;
    const auto c0 = ReadColumn(f, 0), c1 = ReadColumn(f, 1), c2 = ReadColumn(f, 2);
    ASSERT_EQ(c0.size(), 4u) << name;
    EXPECT_EQ(As<int64_t>(c0[0]), 1593604800) << name;
    EXPECT_EQ(As<int64_t>(c0[3]), 1593604801) << name;
    EXPECT_EQ(c1, (std::vector<Value>{"abc", "def", "abc", "def"})) << name;
    EXPECT_EQ(As<double>(c2[0]), 42.0) << name;
    EXPECT_EQ(As<double>(c2[2]), 42.125) << name;
  }
  for (const char* name : {"hadoop_lz4_compressed_larger.parquet", "lz4_raw_compressed_larger.parquet"}) {
    const FileData f = Open(name);
    const auto col = ReadColumn(f, 0);
    ASSERT_EQ(col.size(), 10000u) << name;
    EXPECT_EQ(col[0]->size(), 36u) << name;  // UUID strings
  }
}

TEST(EncodingFiles, ConcatenatedGzipMembers) {
  const FileData f = Open("concatenated_gzip_members.parquet");
  const auto col = ReadColumn(f, 0);
  ASSERT_EQ(col.size(), 513u);
  for (size_t i = 0; i < col.size(); ++i) ASSERT_EQ(As<uint64_t>(col[i]), i + 1);
}

TEST(EncodingFiles, RleBooleans) {
  const FileData f = Open("rle_boolean_encoding.parquet");
  const auto col = ReadColumn(f, 0);
  ASSERT_EQ(col.size(), 68u);
  int nulls = 0, trues = 0;
  for (const Value& v : col) {
    if (!v) {
      ++nulls;
      continue;
    }
    ASSERT_TRUE(*v == std::string(1, '\0') || *v == std::string(1, '\1'));
    trues += (*v)[0];
  }
  EXPECT_GT(nulls, 0);
  EXPECT_GT(trues, 0);
  EXPECT_EQ(ReadColumn(f, 0, 0xf0f0f0f0f0f0f0f0).size(), 68u);
}

TEST(EncodingFiles, DictionaryPages) {
  for (const char* name : {"rle-dict-snappy-checksum.parquet", "plain-dict-uncompressed-checksum.parquet",
                           "alltypes_dictionary.parquet"}) {
    const FileData f = Open(name);
    for (size_t c = 0; c < f.leaves.size(); ++c) {
      const auto full = ReadColumn(f, c);
      ASSERT_EQ(static_cast<int64_t>(full.size()), f.md.num_rows) << name << " " << f.leaves[c]->name;
      const auto skipped = ReadColumn(f, c, 0xaaaaaaaaaaaaaaaa);
      ASSERT_EQ(skipped.size(), full.size());
      for (size_t i = 0; i < full.size(); ++i) {
        if (skipped[i] != "<skipped>") {
          ASSERT_EQ(skipped[i], full[i]) << name << " row " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace rap::parquet
