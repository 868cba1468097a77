// A small consumer of the Arrow C Data Interface: it walks exported structures using only the C
// definitions (format strings, buffers, offsets, children) and checks them against rap's arrays.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "rap/columnar/array_format.h"
#include "rap/columnar/arrow_c.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/paths.h"
#include "testing/result_check.h"

namespace rap::columnar {
namespace {

using read::FileReader;
using read::FileReaderOptions;

std::shared_ptr<FileReader> OpenData(const std::string& name, int64_t batch_size = 1 << 16) {
  auto url = io::OpenUrl(rap::testing::ParquetTestingData() + "/" + name);
  RAP_TEST_CHECK_OK(url);
  FileReaderOptions options;
  options.batch_size = batch_size;
  auto r = FileReader::Open(url->store, url->path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

bool CIsValid(const ArrowArray* a, int64_t i) {
  const auto* bits = static_cast<const uint8_t*>(a->buffers[0]);
  if (a->n_buffers == 0) return false;  // null type
  if (bits == nullptr) return true;
  const int64_t j = a->offset + i;
  return (bits[j >> 3] >> (j & 7)) & 1;
}

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// Renders value i like rap's FormatValue (nested values JSON-ish), from the C structures only.
std::string CValue(const ArrowSchema* s, const ArrowArray* a, int64_t i, bool nested) {
  const std::string f = s->format;
  if (f == "n" || !CIsValid(a, i)) return "null";
  const int64_t j = a->offset + i;
  if (f == "b") {
    const auto* bits = static_cast<const uint8_t*>(a->buffers[1]);
    return ((bits[j >> 3] >> (j & 7)) & 1) ? "true" : "false";
  }
  if (f == "i") return std::to_string(static_cast<const int32_t*>(a->buffers[1])[j]);
  if (f == "l") return std::to_string(static_cast<const int64_t*>(a->buffers[1])[j]);
  if (f == "g") return fmt::format("{}", static_cast<const double*>(a->buffers[1])[j]);
  if (f == "L") return std::to_string(static_cast<const uint64_t*>(a->buffers[1])[j]);
  if (f == "u" || f == "z") {
    const auto* o = static_cast<const int32_t*>(a->buffers[1]);
    std::string v(static_cast<const char*>(a->buffers[2]) + o[j], static_cast<size_t>(o[j + 1] - o[j]));
    return nested ? Quote(v) : v;
  }
  if (f == "+l") {
    const auto* o = static_cast<const int32_t*>(a->buffers[1]);
    std::string out = "[";
    for (int32_t k = o[j]; k < o[j + 1]; ++k) {
      if (k != o[j]) out += ", ";
      out += CValue(s->children[0], a->children[0], k, true);
    }
    return out + "]";
  }
  if (f == "+s") {
    std::string out = "{";
    for (int64_t c = 0; c < s->n_children; ++c) {
      if (c) out += ", ";
      out += Quote(s->children[c]->name) + ": " + CValue(s->children[c], a->children[c], j, true);
    }
    return out + "}";
  }
  if (f == "+m") {
    const auto* o = static_cast<const int32_t*>(a->buffers[1]);
    const ArrowSchema* es = s->children[0];
    const ArrowArray* ea = a->children[0];
    std::string out = "{";
    for (int32_t k = o[j]; k < o[j + 1]; ++k) {
      if (k != o[j]) out += ", ";
      std::string key = CValue(es->children[0], ea->children[0], ea->offset + k, true);
      if (key[0] != '"') key = Quote(key);
      out += key + ": " + CValue(es->children[1], ea->children[1], ea->offset + k, true);
    }
    return out + "}";
  }
  return "<unsupported format " + f + ">";
}

int64_t CountNulls(const ArrowArray* a) {
  int64_t n = 0;
  for (int64_t i = 0; i < a->length; ++i) n += CIsValid(a, i) ? 0 : 1;
  return n;
}

TEST(ArrowC, Formats) {
  EXPECT_EQ(*ArrowFormat(*MakeType(TypeId::kInt64)), "l");
  EXPECT_EQ(*ArrowFormat(*MakeType(TypeId::kString)), "u");
  EXPECT_EQ(*ArrowFormat(*MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC")), "tsu:UTC");
  EXPECT_EQ(*ArrowFormat(*MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano)), "tsn:");
  EXPECT_EQ(*ArrowFormat(*MakeTemporal(TypeId::kTime32, TimeUnit::kMilli)), "ttm");
  EXPECT_EQ(*ArrowFormat(*MakeTemporal(TypeId::kDate32, TimeUnit::kSecond)), "tdD");
  EXPECT_EQ(*ArrowFormat(*MakeDecimal(10, 2)), "d:10,2");
  EXPECT_EQ(*ArrowFormat(*MakeFixedSizeBinary(16)), "w:16");
  EXPECT_EQ(*ArrowFormat(*MakeType(TypeId::kFloat16)), "e");
  EXPECT_EQ(*ArrowFormat(*MakeList(Field{"item", MakeType(TypeId::kInt32)})), "+l");
  EXPECT_EQ(*ArrowFormat(*MakeStruct({})), "+s");
  EXPECT_EQ(*ArrowFormat(*MakeMap(Field{"key", MakeType(TypeId::kString)}, Field{"value", MakeType(TypeId::kInt32)})),
            "+m");
}

TEST(ArrowC, ExportsNestedBatchAndReleases) {
  auto r = OpenData("nullable.impala.parquet");
  ASSERT_TRUE(r);
  auto p = r->Project();
  ASSERT_TRUE(p.ok());
  auto batches = r->ReadAll(std::nullopt, *p);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ASSERT_EQ(batches->size(), 1u);
  RecordBatch& batch = (*batches)[0];
  const long uses_before = batch.columns[0].use_count();

  ArrowSchema schema;
  ArrowArray array;
  ASSERT_TRUE(ExportRecordBatch(batch, &array, &schema).ok());
  EXPECT_GT(batch.columns[0].use_count(), uses_before);  // the export holds a reference

  // Schema: a struct of the fields, with nested formats and nullability flags.
  EXPECT_STREQ(schema.format, "+s");
  ASSERT_EQ(schema.n_children, 6);
  EXPECT_STREQ(schema.children[0]->name, "id");
  EXPECT_STREQ(schema.children[0]->format, "l");
  EXPECT_EQ(schema.children[0]->flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
  EXPECT_STREQ(schema.children[1]->format, "+l");
  EXPECT_STREQ(schema.children[1]->children[0]->format, "i");
  const ArrowSchema* int_map = schema.children[3];
  EXPECT_STREQ(int_map->format, "+m");
  ASSERT_EQ(int_map->n_children, 1);
  EXPECT_STREQ(int_map->children[0]->format, "+s");
  EXPECT_EQ(int_map->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
  EXPECT_STREQ(int_map->children[0]->children[0]->format, "u");
  EXPECT_EQ(int_map->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE, 0);  // map keys
  EXPECT_STREQ(int_map->children[0]->children[1]->format, "i");

  // Array: lengths, null counts and every value, through the C structures alone.
  EXPECT_EQ(array.length, 7);
  EXPECT_EQ(array.null_count, 0);
  ASSERT_EQ(array.n_children, 6);
  for (int64_t c = 0; c < array.n_children; ++c) {
    const ArrowArray* col = array.children[c];
    const ArrayData& mine = *batch.columns[static_cast<size_t>(c)];
    EXPECT_EQ(col->length, mine.length);
    EXPECT_EQ(col->n_buffers, static_cast<int64_t>(mine.buffers.size()));
    if (col->null_count >= 0) {
      EXPECT_EQ(col->null_count, CountNulls(col));
    }
    for (int64_t i = 0; i < col->length; ++i) {
      EXPECT_EQ(CValue(schema.children[c], col, i, false), FormatValue(mine, i)) << "column " << c << " row " << i;
    }
  }
  EXPECT_EQ(CValue(schema.children[1], array.children[1], 1, false), "[null, 1, 2, null, 3, null]");

  array.release(&array);
  schema.release(&schema);
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(schema.release, nullptr);
  EXPECT_EQ(batch.columns[0].use_count(), uses_before);  // everything handed back
}

TEST(ArrowC, StreamOfSlicedBatches) {
  auto r = OpenData("alltypes_plain.parquet", 3);
  ASSERT_TRUE(r);
  auto p = r->Project({"id", "bool_col", "string_col"});
  ASSERT_TRUE(p.ok());
  auto reader = r->NewBatchReader(std::nullopt, *p);
  ASSERT_TRUE(reader.ok());
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::move(*reader), &stream).ok());
  ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  EXPECT_STREQ(schema.children[0]->format, "i");
  EXPECT_STREQ(schema.children[1]->format, "b");
  EXPECT_STREQ(schema.children[2]->format, "z");
  std::vector<std::string> ids;
  std::vector<int64_t> lengths;
  while (true) {
    ArrowArray batch;
    ASSERT_EQ(stream.get_next(&stream, &batch), 0);
    if (batch.release == nullptr) break;
    lengths.push_back(batch.length);
    for (int64_t i = 0; i < batch.length; ++i) {
      ids.push_back(CValue(schema.children[0], batch.children[0], i, false));
      EXPECT_EQ(CValue(schema.children[1], batch.children[1], i, false), ids.back() == "4" || ids.back() == "6" ||
                                                                               ids.back() == "2" || ids.back() == "0"
                                                                           ? "true"
                                                                           : "false");
    }
    batch.release(&batch);
  }
  EXPECT_EQ(lengths, (std::vector<int64_t>{3, 3, 2}));
  EXPECT_EQ(ids, (std::vector<std::string>{"4", "5", "6", "7", "2", "3", "0", "1"}));
  schema.release(&schema);
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

TEST(ArrowC, StreamReportsErrors) {
  auto r = OpenData("datapage_v1-corrupt-checksum.parquet");
  ASSERT_TRUE(r);
  auto p = r->Project();
  ASSERT_TRUE(p.ok());
  auto reader = r->NewBatchReader(std::nullopt, *p);
  ASSERT_TRUE(reader.ok());
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::move(*reader), &stream).ok());
  ArrowArray batch;
  EXPECT_NE(stream.get_next(&stream, &batch), 0);
  ASSERT_NE(stream.get_last_error(&stream), nullptr);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("checksum"), std::string::npos);
  stream.release(&stream);
}

}  // namespace
}  // namespace rap::columnar
