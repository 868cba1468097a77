// Conformance: every file of parquet-testing/data read completely through FileReader (local files),
// values checked against the *_expect.csv files, the notes beside the files and hand-verified facts;
// bad_data/ and self-made corruptions give clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "rap/columnar/array_format.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

namespace fs = std::filesystem;

struct Read {
  Status status;
  std::shared_ptr<FileReader> reader;
  Projection projection;
  std::vector<RecordBatch> batches;
  int64_t rows = 0;

  int Index(const std::string& name) const { return projection.schema->FieldIndex(name); }
  std::vector<std::string> Values(const std::string& name) const {
    std::vector<std::string> out;
    int c = Index(name);
    EXPECT_GE(c, 0) << name;
    if (c < 0) return out;
    for (const auto& b : batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) out.push_back(FormatValue(*b.columns[static_cast<size_t>(c)], i));
    }
    return out;
  }
  int64_t Nulls(const std::string& name) const {
    int64_t n = 0;
    for (const auto& v : Values(name)) n += v == "null" ? 1 : 0;
    return n;
  }
};

Read ReadPath(const std::string& path, FileReaderOptions options = {}) {
  Read r;
  auto url = io::OpenUrl(path);
  if (!url.ok()) {
    r.status = url.status();
    return r;
  }
  options.use_metadata_cache = false;
  auto reader = FileReader::Open(url->store, url->path, options);
  if (!reader.ok()) {
    r.status = reader.status();
    return r;
  }
  r.reader = *reader;
  auto p = r.reader->Project();
  if (!p.ok()) {
    r.status = p.status();
    return r;
  }
  r.projection = *p;
  auto batches = r.reader->ReadAll(std::nullopt, r.projection);
  if (!batches.ok()) {
    r.status = batches.status();
    return r;
  }
  r.batches = std::move(*batches);
  for (const auto& b : r.batches) {
    r.rows += b.num_rows;
    for (const auto& c : b.columns) {
      Status st = ValidateArray(*c);
      if (!st.ok()) r.status = st;
      if (c->length != b.num_rows) r.status = Status::Internal("column length differs from the batch");
    }
  }
  return r;
}

Read ReadData(const std::string& name, FileReaderOptions options = {}) {
  return ReadPath(rap::testing::ParquetTestingData() + "/" + name, options);
}

// Files of data/ that are expected not to read, and why (see docs/conformance.md).
const std::map<std::string, std::pair<StatusCode, std::string>>& ExpectedFailures() {
  static const std::map<std::string, std::pair<StatusCode, std::string>> m = {
      {"datapage_v1-corrupt-checksum.parquet", {StatusCode::kCorrupt, "checksum mismatch"}},
      {"rle-dict-uncompressed-corrupt-checksum.parquet", {StatusCode::kCorrupt, "checksum mismatch"}},
      // Deliberately malformed (a dictionary page whose size disagrees with the column chunk).
      {"nation.dict-malformed.parquet", {StatusCode::kCorrupt, "runs past the end of the column chunk"}},
  };
  return m;
}

TEST(Conformance, EveryDataFileReadsCompletely) {
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(rap::testing::ParquetTestingData())) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    const bool encrypted = name.ends_with(".parquet.encrypted");
    if (!name.ends_with(".parquet") && !encrypted) continue;
    SCOPED_TRACE(entry.path().string());
    ++files;
    Read r = ReadPath(entry.path().string());
    if (encrypted) {
      EXPECT_TRUE(r.status.Is(StatusCode::kNotSupported)) << r.status.ToString();
      EXPECT_NE(r.status.message().find("encrypted Parquet is not supported"), std::string::npos);
      continue;
    }
    // Two 1 GiB strings: needs a page limit above the default 1 GiB and one row per batch (see
    // LargeStringMapInRowWindows); with the defaults it fails on the page limit.
    if (name == "large_string_map.brotli.parquet") {
      EXPECT_TRUE(r.status.Is(StatusCode::kResourceExhausted)) << r.status.ToString();
      EXPECT_NE(r.status.message().find("more than the limit"), std::string::npos) << r.status.ToString();
      continue;
    }
    auto it = ExpectedFailures().find(name);
    if (it != ExpectedFailures().end()) {
      EXPECT_TRUE(r.status.Is(it->second.first)) << r.status.ToString();
      EXPECT_NE(r.status.message().find(it->second.second), std::string::npos) << r.status.ToString();
      EXPECT_NE(r.status.message().find(name), std::string::npos) << "the error names the file";
      continue;
    }
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    // The row groups' counts are the truth: repeated_no_annotation.parquet says num_rows 0 in its footer.
    EXPECT_EQ(r.rows, r.reader->num_rows());
    if (name != "repeated_no_annotation.parquet") {
      EXPECT_EQ(r.rows, r.reader->metadata().num_rows);
    }
    EXPECT_EQ(r.projection.schema->fields.size(), r.reader->arrow_schema()->fields.size());
  }
  EXPECT_GT(files, 80);
}

// More than 2 GiB of string data in one row group (two rows, each a map with one 2^30-byte key "aaa...a"
// and value 1). The first window (both rows, default batch size) outgrows 32-bit offsets; it is
// retried with one row per window, so each batch holds one of the strings.
TEST(Conformance, LargeStringMapInRowWindows) {
  FileReaderOptions options;
  options.max_page_bytes = int64_t{3} << 29;  // 1.5 GiB: the pages decompress to 1 GiB + a few bytes
  options.use_metadata_cache = false;
  auto url = io::OpenUrl(rap::testing::ParquetTestingData() + "/large_string_map.brotli.parquet");
  ASSERT_TRUE(url.ok());
  auto reader = FileReader::Open(url->store, url->path, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->num_rows(), 2);
  auto p = (*reader)->Project();
  ASSERT_TRUE(p.ok());
  auto batches = (*reader)->NewBatchReader(std::nullopt, *p);
  ASSERT_TRUE(batches.ok());
  int64_t rows = 0;
  constexpr int64_t kLen = int64_t{1} << 30;
  while (true) {
    auto b = (*batches)->Next();  // each batch is dropped before the next is decoded
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    if (!*b) break;
    ASSERT_EQ((*b)->num_rows, 1);
    const ArrayData& map = *(*b)->columns[0];
    ASSERT_TRUE(ValidateArray(map).ok());
    ASSERT_FALSE(map.IsNull(0));
    const int32_t* mo = map.offsets();
    ASSERT_EQ(mo[1] - mo[0], 1) << "one entry per map";
    const ArrayData& entries = *map.children[0];
    const ArrayData& keys = *entries.children[0];
    const ArrayData& values = *entries.children[1];
    const int64_t e = entries.offset + mo[0];
    const int32_t* ko = keys.offsets() + e;
    ASSERT_EQ(ko[1] - ko[0], kLen);
    const char* k = reinterpret_cast<const char*>(keys.buffers[2].data()) + ko[0];
    EXPECT_EQ(std::string_view(k, kLen).find_first_not_of('a'), std::string_view::npos);
    EXPECT_FALSE(values.IsNull(e));
    EXPECT_EQ(values.values<int32_t>()[e], 1);
    ++rows;
  }
  EXPECT_EQ(rows, 2);
}

// RFC 4180 CSV: fields, with "" escapes; an unquoted empty field is a null.
std::vector<std::vector<std::optional<std::string>>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::vector<std::optional<std::string>> row;
  std::string field;
  bool quoted = false, in_quotes = false;
  auto end_field = [&] {
    row.push_back(quoted || !field.empty() ? std::optional<std::string>(field) : std::nullopt);
    field.clear();
    quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      in_quotes = quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_field();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      field += c;
    }
  }
  if (!field.empty() || quoted || !row.empty()) {
    end_field();
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(Conformance, ExpectCsvFiles) {
  for (const char* base : {"delta_binary_packed", "delta_byte_array", "delta_encoding_optional_column",
                           "delta_encoding_required_column"}) {
    SCOPED_TRACE(base);
    Read r = ReadData(std::string(base) + ".parquet");
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    auto csv = ParseCsv(rap::testing::ReadFileToString(rap::testing::ParquetTestingData() + "/" + base + "_expect.csv"));
    ASSERT_GE(csv.size(), 2u);
    const auto& header = csv[0];
    ASSERT_EQ(header.size(), r.projection.schema->fields.size());
    ASSERT_EQ(static_cast<int64_t>(csv.size() - 1), r.rows);
    for (size_t c = 0; c < header.size(); ++c) {
      auto values = r.Values(r.projection.schema->fields[c].name);
      for (size_t i = 0; i + 1 < csv.size(); ++i) {
        const auto& want = csv[i + 1][c];
        ASSERT_EQ(values[i], want ? *want : "null") << "column " << r.projection.schema->fields[c].name << " row " << i;
      }
    }
  }
}

TEST(Conformance, AlltypesFacts) {
  for (const char* f : {"alltypes_plain.parquet", "alltypes_plain.snappy.parquet", "alltypes_dictionary.parquet"}) {
    SCOPED_TRACE(f);
    Read r = ReadData(f);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    auto id = r.Values("id");
    if (std::string(f) == "alltypes_plain.parquet") {
      EXPECT_EQ(id, (std::vector<std::string>{"4", "5", "6", "7", "2", "3", "0", "1"}));
    } else if (std::string(f) == "alltypes_plain.snappy.parquet") {
      EXPECT_EQ(id, (std::vector<std::string>{"6", "7"}));
    } else {
      EXPECT_EQ(id, (std::vector<std::string>{"0", "1"}));
    }
    auto ts = r.Values("timestamp_col");
    EXPECT_EQ(r.Values("bool_col")[0], "true");
    EXPECT_EQ(r.Values("double_col")[1], "10.1");
    EXPECT_EQ(r.Values("string_col")[1], "0x31");  // BYTE_ARRAY without a string annotation: binary
    EXPECT_EQ(r.reader->arrow_schema()->fields[10].type->ToString(), "timestamp[ns]");
  }
  Read tiny = ReadData("alltypes_tiny_pages.parquet");
  ASSERT_TRUE(tiny.status.ok());
  EXPECT_EQ(tiny.rows, 7300);
  auto ids = tiny.Values("id");
  std::vector<int64_t> sorted;
  for (const auto& v : ids) sorted.push_back(std::stoll(v));
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 7300; ++i) ASSERT_EQ(sorted[static_cast<size_t>(i)], i);  // ids are 0..7299
  Read plain = ReadData("alltypes_tiny_pages_plain.parquet");
  ASSERT_TRUE(plain.status.ok());
  for (const auto& f : tiny.projection.schema->fields) EXPECT_EQ(tiny.Values(f.name), plain.Values(f.name)) << f.name;
}

TEST(Conformance, NullPagesMatchTheColumnIndex) {
  Read r = ReadData("int32_with_null_pages.parquet");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.rows, 1000);
  EXPECT_EQ(r.Nulls("int32_field"), 275);
  auto ci = r.reader->GetColumnIndex(0, 0);
  auto oi = r.reader->GetOffsetIndex(0, 0);
  ASSERT_TRUE(ci.ok() && *ci && oi.ok() && *oi);
  ASSERT_EQ((*ci)->null_counts.size(), (*oi)->page_locations.size());
  auto values = r.Values("int32_field");
  const auto& locs = (*oi)->page_locations;
  for (size_t k = 0; k < locs.size(); ++k) {
    int64_t end = k + 1 < locs.size() ? locs[k + 1].first_row_index : 1000;
    int64_t nulls = 0;
    for (int64_t i = locs[k].first_row_index; i < end; ++i) nulls += values[static_cast<size_t>(i)] == "null";
    EXPECT_EQ(nulls, (*ci)->null_counts[k]) << "page " << k;
    EXPECT_EQ((*ci)->null_pages[k], nulls == end - locs[k].first_row_index) << "page " << k;
  }
  EXPECT_EQ((*ci)->null_counts[2], 100);  // the all-null page of the notes
}

TEST(Conformance, FixedLengthByteArrayAndDecimals) {
  Read r = ReadData("fixed_length_byte_array.parquet");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.rows, 1000);
  EXPECT_EQ(r.Nulls("flba_field"), 105);
  std::vector<std::string> non_null;
  for (const auto& v : r.Values("flba_field")) {
    if (v != "null") non_null.push_back(v);
  }
  EXPECT_EQ(non_null.front(), "0x000003e8");  // descending from 1000 ...
  EXPECT_EQ(non_null.back(), "0x00000001");   // ... to 1
  EXPECT_TRUE(std::is_sorted(non_null.rbegin(), non_null.rend()));
  for (const char* f : {"int32_decimal.parquet", "int64_decimal.parquet", "fixed_length_decimal.parquet",
                        "fixed_length_decimal_legacy.parquet", "byte_array_decimal.parquet"}) {
    SCOPED_TRACE(f);
    Read d = ReadData(f);
    ASSERT_TRUE(d.status.ok()) << d.status.ToString();
    auto v = d.Values("value");
    ASSERT_EQ(v.size(), 24u);
    for (int i = 0; i < 24; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], std::to_string(i + 1) + ".00");
  }
}

TEST(Conformance, Int96FromSpark) {
  Read r = ReadData("int96_from_spark.parquet");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const ArrayData& a = *r.batches[0].columns[0];
  ASSERT_EQ(a.length, 6);
  // Microseconds from the notes, as nanoseconds (values beyond the int64 nanosecond range wrap).
  EXPECT_EQ(a.values<int64_t>()[0], 1704141296123456LL * 1000);
  EXPECT_EQ(a.values<int64_t>()[1], 1704070800000000LL * 1000);
  EXPECT_EQ(a.values<int64_t>()[3], 1735599600000000LL * 1000);
  EXPECT_TRUE(a.IsNull(4));
}

TEST(Conformance, NestedFiles) {
  Read old = ReadData("old_list_structure.parquet");
  ASSERT_TRUE(old.status.ok());
  EXPECT_EQ(old.Values("a"), (std::vector<std::string>{"[[1, 2], [3, 4]]"}));
  Read nl = ReadData("null_list.parquet");
  ASSERT_TRUE(nl.status.ok());
  EXPECT_EQ(nl.Values("emptylist"), (std::vector<std::string>{"[]"}));
  Read mnv = ReadData("map_no_value.parquet");
  ASSERT_TRUE(mnv.status.ok());
  EXPECT_EQ(mnv.Values("my_map"), (std::vector<std::string>{"{\"1\": null, \"2\": null, \"3\": null}",
                                                            "{\"4\": null, \"5\": null, \"6\": null}",
                                                            "{\"7\": null, \"8\": null, \"9\": null}"}));
  EXPECT_EQ(mnv.Values("my_map_no_v"), mnv.Values("my_list"));
  EXPECT_EQ(mnv.Values("my_list"), (std::vector<std::string>{"[1, 2, 3]", "[4, 5, 6]", "[7, 8, 9]"}));
  Read rp = ReadData("repeated_primitive_no_list.parquet");
  ASSERT_TRUE(rp.status.ok());
  EXPECT_EQ(rp.Values("Int32_list"), (std::vector<std::string>{"[0, 1, 2, 3]", "[]", "[4]", "[5, 6, 7, 8]"}));
  Read lc = ReadData("list_columns.parquet");
  ASSERT_TRUE(lc.status.ok());
  EXPECT_EQ(lc.Values("int64_list"), (std::vector<std::string>{"[1, 2, 3]", "[null, 1]", "[4]"}));
  EXPECT_EQ(lc.Values("utf8_list"),
            (std::vector<std::string>{"[\"abc\", \"efg\", \"hij\"]", "null", "[\"efg\", null, \"hij\", \"xyz\"]"}));
  Read nested = ReadData("nested_lists.snappy.parquet");
  ASSERT_TRUE(nested.status.ok());
  EXPECT_EQ(nested.Values("a")[0], "[[[\"a\", \"b\"], [\"c\"]], [null, [\"d\"]]]");
  Read maps = ReadData("nested_maps.snappy.parquet");
  ASSERT_TRUE(maps.status.ok());
  EXPECT_EQ(maps.Values("a"), (std::vector<std::string>{"{\"a\": {\"1\": true, \"2\": false}}", "{\"b\": {\"1\": true}}",
                                                         "{\"c\": null}", "{\"d\": {}}", "{\"e\": {\"1\": true}}",
                                                         "{\"f\": {\"3\": true, \"4\": false, \"5\": true}}"}));
  Read imp = ReadData("nullable.impala.parquet");
  ASSERT_TRUE(imp.status.ok());
  EXPECT_EQ(imp.Values("id"), (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7"}));
  EXPECT_EQ(imp.Values("int_array")[1], "[null, 1, 2, null, 3, null]");
  EXPECT_EQ(imp.Values("int_array_Array")[1], "[[null, 1, 2, null], [3, null, 4], [], null]");
  EXPECT_EQ(imp.Values("int_map")[1], "{\"k1\": 2, \"k2\": null}");
  EXPECT_EQ(imp.Values("nested_struct")[5], "null");
  Read nonnull = ReadData("nonnullable.impala.parquet");
  ASSERT_TRUE(nonnull.status.ok());
  EXPECT_EQ(nonnull.Values("int_array_array"), (std::vector<std::string>{"[[-1, -2], []]"}));
  EXPECT_EQ(nonnull.Values("int_map_array"), (std::vector<std::string>{"[{}, {\"k1\": 1}, {}, {}]"}));
  Read rna = ReadData("repeated_no_annotation.parquet");
  ASSERT_TRUE(rna.status.ok());
  EXPECT_EQ(rna.Values("phoneNumbers")[0], "null");
  EXPECT_EQ(rna.Values("phoneNumbers")[2], "{\"phone\": []}");
  EXPECT_EQ(rna.Values("phoneNumbers")[3], "{\"phone\": [{\"number\": 5555555555, \"kind\": null}]}");
  Read ims = ReadData("incorrect_map_schema.parquet");
  ASSERT_TRUE(ims.status.ok());
  EXPECT_EQ(ims.Values("my_map"), (std::vector<std::string>{"{\"parent\": \"another\", \"name\": \"report\"}"}));
  Read nulls = ReadData("nulls.snappy.parquet");
  ASSERT_TRUE(nulls.status.ok());
  EXPECT_EQ(nulls.rows, 8);
  for (const auto& v : nulls.Values("b_struct")) EXPECT_EQ(v, "{\"b_c_int\": null}");
}

TEST(Conformance, EncodingsAndCodecs) {
  // BYTE_STREAM_SPLIT columns equal their PLAIN twins.
  Read bss = ReadData("byte_stream_split_extended.gzip.parquet");
  ASSERT_TRUE(bss.status.ok()) << bss.status.ToString();
  const auto& fields = bss.projection.schema->fields;
  ASSERT_EQ(fields.size() % 2, 0u);
  for (size_t c = 0; c < fields.size(); c += 2) {
    EXPECT_EQ(bss.Values(fields[c].name), bss.Values(fields[c + 1].name)) << fields[c].name;
  }
  Read gz = ReadData("concatenated_gzip_members.parquet");
  ASSERT_TRUE(gz.status.ok()) << gz.status.ToString();
  auto g = gz.Values(gz.projection.schema->fields[0].name);
  ASSERT_EQ(g.size(), 513u);
  for (size_t i = 0; i < g.size(); ++i) ASSERT_EQ(g[i], std::to_string(i + 1));
  // The LZ4 variants hold the same data.
  Read h = ReadData("hadoop_lz4_compressed.parquet");
  Read n = ReadData("non_hadoop_lz4_compressed.parquet");
  Read raw = ReadData("lz4_raw_compressed.parquet");
  ASSERT_TRUE(h.status.ok() && n.status.ok() && raw.status.ok());
  EXPECT_EQ(h.rows, 4);
  for (const auto& f : h.projection.schema->fields) {
    EXPECT_EQ(h.Values(f.name), n.Values(f.name));
    EXPECT_EQ(h.Values(f.name), raw.Values(f.name));
  }
  Read rle = ReadData("rle_boolean_encoding.parquet");
  ASSERT_TRUE(rle.status.ok());
  EXPECT_EQ(rle.Values("datatype_boolean")[0], "true");
  EXPECT_EQ(rle.Values("datatype_boolean")[2], "null");
  Read v2 = ReadData("datapage_v2.snappy.parquet");
  ASSERT_TRUE(v2.status.ok());
  EXPECT_EQ(v2.Values("b"), (std::vector<std::string>{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(v2.Values("e")[0], "[1, 2, 3]");
  for (const char* f : {"page_v2_empty_compressed.parquet", "datapage_v2_empty_datapage.snappy.parquet"}) {
    Read e = ReadData(f);
    ASSERT_TRUE(e.status.ok()) << e.status.ToString();
    EXPECT_EQ(e.Nulls(e.projection.schema->fields[0].name), e.rows);
  }
  Read half = ReadData("float16_nonzeros_and_nans.parquet");
  ASSERT_TRUE(half.status.ok());
  EXPECT_EQ(half.Values("x"), (std::vector<std::string>{"null", "1.0", "-2.0", "NaN", "0.0", "-1.0", "-0.0", "2.0"}));
}

TEST(Conformance, ChecksumsAreVerifiedWhenPresent) {
  for (const char* f : {"datapage_v1-corrupt-checksum.parquet", "rle-dict-uncompressed-corrupt-checksum.parquet"}) {
    SCOPED_TRACE(f);
    Read bad = ReadData(f);
    EXPECT_TRUE(bad.status.Is(StatusCode::kCorrupt)) << bad.status.ToString();
    EXPECT_NE(bad.status.message().find("page checksum mismatch"), std::string::npos);
    FileReaderOptions no_crc;
    no_crc.verify_crc = false;
    Read ok = ReadData(f, no_crc);
    ASSERT_TRUE(ok.status.ok()) << ok.status.ToString();
    EXPECT_EQ(ok.rows, ok.reader->num_rows());
  }
  for (const char* f : {"datapage_v1-snappy-compressed-checksum.parquet", "datapage_v1-uncompressed-checksum.parquet",
                        "plain-dict-uncompressed-checksum.parquet", "rle-dict-snappy-checksum.parquet"}) {
    Read ok = ReadData(f);
    EXPECT_TRUE(ok.status.ok()) << f << ": " << ok.status.ToString();
  }
}

TEST(Conformance, BadDataGivesClearErrors) {
  const std::map<std::string, std::string> expected = {
      {"PARQUET-1481.parquet", "unknown physical type"},
      {"ARROW-RS-GH-6229-DICTHEADER.parquet", "does not fit in the file"},
      {"ARROW-RS-GH-6229-LEVELS.parquet", "levels"},
      {"ARROW-GH-41321.parquet", "definition levels"},
      {"ARROW-GH-41317.parquet", "footer metadata"},
      {"ARROW-GH-45185.parquet", "starts with repetition level 1"},
      {"ARROW-GH-47662.parquet", "PLAIN FIXED_LEN_BYTE_ARRAY"},
  };
  for (const auto& entry : fs::directory_iterator(rap::testing::ParquetTestingBad())) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".parquet")) continue;
    SCOPED_TRACE(name);
    Read r = ReadPath(entry.path().string());
    auto it = expected.find(name);
    if (it == expected.end()) {
      // ARROW-GH-43605: RLE dictionary indices of bit width 0 are all 0, which is valid here.
      EXPECT_TRUE(r.status.ok()) << r.status.ToString();
      continue;
    }
    EXPECT_TRUE(r.status.Is(StatusCode::kCorrupt)) << r.status.ToString();
    EXPECT_NE(r.status.message().find(it->second), std::string::npos) << r.status.ToString();
    EXPECT_NE(r.status.message().find(name), std::string::npos) << "the error names the file";
  }
}

TEST(Conformance, SelfMadeCorruptions) {
  const std::string original = rap::testing::ReadFileToString(rap::testing::ParquetTestingData() +
                                                              "/alltypes_tiny_pages_plain.parquet");
  rap::testing::TempDir dir;
  auto try_bytes = [&](const std::string& bytes, FileReaderOptions options = {}) {
    const std::string path = dir.Join("corrupt.parquet");
    rap::testing::WriteStringToFile(path, bytes);
    return ReadPath(path, options).status;
  };
  // Wrong magic, truncated file, footer length past the start of the file.
  std::string s = original;
  s[s.size() - 1] = 'X';
  Status st = try_bytes(s);
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt) && st.message().find("magic") != std::string::npos) << st.ToString();
  st = try_bytes(original.substr(0, 10));
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
  s = original;
  const uint32_t huge = 0x7fffffff;
  std::memcpy(s.data() + s.size() - 8, &huge, 4);
  st = try_bytes(s);
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt) && st.message().find("footer length") != std::string::npos) << st.ToString();
  // Truncated footer: drop bytes from the middle of the metadata.
  uint32_t len;
  std::memcpy(&len, original.data() + original.size() - 8, 4);
  s = original.substr(0, original.size() - 8 - len / 2) + original.substr(original.size() - 8);
  st = try_bytes(s);
  EXPECT_FALSE(st.ok());
  // Every byte of the data pages flipped in turn would be slow; flip a spread of them instead and
  // require an error or a successful read, never a crash (ASan/UBSan check the rest).
  for (size_t pos = 4; pos < original.size() - 8 - len; pos += 4001) {
    s = original;
    s[pos] = static_cast<char>(s[pos] ^ 0x5a);
    (void)try_bytes(s);
  }
  // A page limit smaller than a page.
  FileReaderOptions small;
  small.max_page_bytes = 64;
  st = try_bytes(original, small);
  EXPECT_TRUE(st.Is(StatusCode::kResourceExhausted)) << st.ToString();
}

}  // namespace
}  // namespace rap::read
