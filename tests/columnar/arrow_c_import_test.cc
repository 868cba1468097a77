// Arrow C Data Interface import: round trips through rap's own export over every type the Parquet
// writer accepts (random nested schemas and data, sliced arrays), streams, and malformed structures.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "format/writer_testing.h"
#include "rap/columnar/arrow_c.h"
#include "rap/columnar/arrow_c_import.h"
#include "rap/columnar/array_format.h"

namespace rap::columnar {
namespace {

using rap::testing::CompareBatches;
using rap::testing::MakeInt64Array;
using rap::testing::MakeListArray;
using rap::testing::MakeStringArray;
using rap::testing::RandomBatch;
using rap::testing::RandomDataOptions;
using rap::testing::RandomSchema;

// The type as the C interface carries it: ids, parameters, field names and nullability (not the
// informational `extension`, which has no Arrow format string).
std::string Shape(const DataType& t) {
  std::string s = fmt::format("{}/{}/{}/{}/{}/{}", static_cast<int>(t.id), t.byte_width, t.precision, t.scale,
                              static_cast<int>(t.unit), t.timezone);
  const bool temporal = t.id == TypeId::kTime32 || t.id == TypeId::kTime64 || t.id == TypeId::kTimestamp;
  if (!temporal) s = fmt::format("{}/{}/{}/{}", static_cast<int>(t.id), t.byte_width, t.precision, t.scale);
  for (const Field& f : t.children) s += fmt::format("({}:{}:{})", f.name, f.nullable, Shape(*f.type));
  return s;
}

std::string Shape(const Schema& schema) {
  std::string s;
  for (const Field& f : schema.fields) s += fmt::format("[{}:{}:{}]", f.name, f.nullable, Shape(*f.type));
  return s;
}

Result<RecordBatch> RoundTrip(const RecordBatch& batch) {
  ArrowArray array{};
  ArrowSchema schema{};
  RAP_RETURN_NOT_OK(ExportRecordBatch(batch, &array, &schema));
  auto out = ImportRecordBatch(&array, &schema);
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(schema.release, nullptr);
  return out;
}

void CollectIds(const DataType& t, std::set<TypeId>* ids) {
  ids->insert(t.id);
  for (const Field& f : t.children) CollectIds(*f.type, ids);
}

TEST(ArrowCImport, RoundTripsRandomNestedBatchesOfEveryWriterType) {
  std::set<TypeId> seen;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    SchemaPtr schema = RandomSchema(rng, 6, 3);
    RandomDataOptions options;
    options.null_probability = seed % 3 == 0 ? 0.0 : 0.25;
    RecordBatch batch = RandomBatch(rng, schema, 1 + static_cast<int64_t>(seed % 7) * 37, options);
    for (const Field& f : schema->fields) CollectIds(*f.type, &seen);
    auto back = RoundTrip(batch);
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.status().ToString();
    EXPECT_EQ(Shape(*back->schema), Shape(*schema)) << "seed " << seed;
    EXPECT_EQ(CompareBatches({batch}, {*back}), "") << "seed " << seed;
    for (const ArrayPtr& c : back->columns) EXPECT_TRUE(ValidateArray(*c).ok()) << ValidateArray(*c).ToString();

    // Sliced columns (non-zero Arrow offsets at every level of the export).
    RecordBatch sliced = batch;
    const int64_t from = batch.num_rows / 3, len = batch.num_rows - batch.num_rows / 3 - 1;
    if (len <= 0) continue;
    sliced.num_rows = len;
    for (ArrayPtr& c : sliced.columns) c = SliceArray(c, from, len);
    auto back_sliced = RoundTrip(sliced);
    ASSERT_TRUE(back_sliced.ok()) << "seed " << seed << ": " << back_sliced.status().ToString();
    EXPECT_EQ(CompareBatches({sliced}, {*back_sliced}), "") << "seed " << seed;
  }
  // Every type RandomType (the writer's accepted types) produces was exercised.
  for (TypeId id : {TypeId::kBool, TypeId::kInt8, TypeId::kInt16, TypeId::kInt32, TypeId::kInt64, TypeId::kUInt8,
                    TypeId::kUInt16, TypeId::kUInt32, TypeId::kUInt64, TypeId::kFloat16, TypeId::kFloat32,
                    TypeId::kFloat64, TypeId::kString, TypeId::kBinary, TypeId::kFixedSizeBinary,
                    TypeId::kDecimal128, TypeId::kDate32, TypeId::kTime32, TypeId::kTime64, TypeId::kTimestamp,
                    TypeId::kList, TypeId::kStruct, TypeId::kMap}) {
    EXPECT_TRUE(seen.count(id)) << "type id " << static_cast<int>(id) << " never generated";
  }
}

TEST(ArrowCImport, TypesOfEveryFormatRoundTrip) {
  const std::vector<DataTypePtr> types = {
      MakeType(TypeId::kNull),
      MakeTemporal(TypeId::kTime32, TimeUnit::kSecond),
      MakeTemporal(TypeId::kTime32, TimeUnit::kMilli),
      MakeTemporal(TypeId::kTime64, TimeUnit::kMicro),
      MakeTemporal(TypeId::kTime64, TimeUnit::kNano),
      MakeTemporal(TypeId::kTimestamp, TimeUnit::kSecond, "Europe/Paris"),
      MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano),
      MakeDecimal(38, 38),
      MakeMap(Field{"k", MakeType(TypeId::kString), false}, Field{"v", MakeType(TypeId::kInt32), true}, false),
  };
  for (const DataTypePtr& t : types) {
    ArrowSchema s{};
    ASSERT_TRUE(ExportType(*t, "x", true, &s).ok()) << t->ToString();
    auto f = ImportField(&s);
    ASSERT_TRUE(f.ok()) << t->ToString() << ": " << f.status().ToString();
    EXPECT_EQ(s.release, nullptr);
    EXPECT_EQ(f->name, "x");
    EXPECT_TRUE(f->nullable);
    EXPECT_EQ(Shape(*f->type), Shape(*t)) << t->ToString();
  }
  // A null-type array: no buffers, every row null.
  auto nulls = MakeNullArray(MakeType(TypeId::kNull), 5);
  ASSERT_TRUE(nulls.ok());
  ArrowArray a{};
  ASSERT_TRUE(ExportArray(*nulls, &a).ok());
  auto back = ImportArray(&a, MakeType(TypeId::kNull));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->length, 5);
  EXPECT_EQ((*back)->null_count, 5);
}

TEST(ArrowCImport, ImportedBuffersAreZeroCopyAndKeepTheProducerAlive) {
  ArrayPtr strings = MakeStringArray({"a", "bb", "", "ccc"}, {true, true, false, true});
  ArrowArray a{};
  ASSERT_TRUE(ExportArray(strings, &a).ok());
  const void* data = a.buffers[2];
  auto back = ImportArray(&a, MakeType(TypeId::kString));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(static_cast<const void*>((*back)->buffers[2].data()), data);
  strings.reset();  // the exported structure (now owned by the import) still holds the buffers
  EXPECT_EQ(FormatValue(**back, 1), "bb");
  EXPECT_EQ(FormatValue(**back, 2), "null");
  EXPECT_EQ((*back)->null_count, 1);
}

// A reader over a fixed list of batches.
class VectorReader : public RecordBatchReader {
 public:
  VectorReader(SchemaPtr schema, std::vector<RecordBatch> batches) : schema_(std::move(schema)), batches_(std::move(batches)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ == batches_.size()) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(batches_[next_++]);
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatch> batches_;
  size_t next_ = 0;
};

TEST(ArrowCImport, StreamRoundTrip) {
  std::mt19937_64 rng(7);
  SchemaPtr schema = RandomSchema(rng, 5, 2);
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 4; ++i) batches.push_back(RandomBatch(rng, schema, 50 + i, RandomDataOptions{}));
  ArrowArrayStream stream{};
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<VectorReader>(schema, batches), &stream).ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(Shape(*(*reader)->schema()), Shape(*schema));
  std::vector<RecordBatch> got;
  while (true) {
    auto b = (*reader)->Next();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    if (!*b) break;
    got.push_back(std::move(**b));
  }
  ASSERT_EQ(got.size(), batches.size());
  EXPECT_EQ(CompareBatches(batches, got), "");
  auto again = (*reader)->Next();  // stays at the end
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
}

// A stream whose get_next fails after one batch, with a message.
class FailingReader : public RecordBatchReader {
 public:
  explicit FailingReader(SchemaPtr schema) : schema_(std::move(schema)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override { return Status::IOError("disk on fire"); }

 private:
  SchemaPtr schema_;
};

TEST(ArrowCImport, StreamErrorsCarryTheProducersMessage) {
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back(Field{"x", MakeType(TypeId::kInt64), true});
  ArrowArrayStream stream{};
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<FailingReader>(schema), &stream).ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto b = (*reader)->Next();
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kIOError);
  EXPECT_NE(b.status().message().find("get_next failed (code " + std::to_string(EIO) + ")"), std::string::npos)
      << b.status().ToString();
  EXPECT_NE(b.status().message().find("disk on fire"), std::string::npos) << b.status().ToString();

  ArrowArrayStream released{};
  EXPECT_FALSE(ImportRecordBatchReader(&released).ok());
  EXPECT_FALSE(ImportRecordBatchReader(nullptr).ok());
}

// Exports `array` as column `name`, lets `corrupt` break the C structure, imports it; the result
// must fail with `code` and a message containing `field` and `what`, and the input must be released.
void ExpectRejected(const ArrayPtr& array, const std::string& name, const std::function<void(ArrowArray*)>& corrupt,
                    StatusCode code, const std::string& field, const std::string& what) {
  ArrowArray a{};
  ASSERT_TRUE(ExportArray(array, &a).ok());
  corrupt(&a);
  auto r = ImportArray(&a, array->type, name);
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_NE(r.status().message().find("field '" + field + "'"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().ToString();
  EXPECT_EQ(a.release, nullptr);
}

TEST(ArrowCImport, MalformedArraysAreInvalidArgumentNamingTheField) {
  const StatusCode kInvalid = StatusCode::kInvalidArgument;
  ArrayPtr ints = MakeInt64Array({1, 2, 3}, {true, false, true});
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->length = -1; }, kInvalid, "n", "length -1");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->offset = -2; }, kInvalid, "n", "offset -2");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->null_count = 2; }, kInvalid, "n",
                 "null_count is 2 but the validity bitmap has 1 nulls");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->null_count = 7; }, kInvalid, "n", "null_count 7 for length 3");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->n_buffers = 3; }, kInvalid, "n", "3 buffers, type int64 has 2");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->buffers = nullptr; }, kInvalid, "n", "buffers pointer is null");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->n_children = 1; }, kInvalid, "n", "1 children");
  ExpectRejected(ints, "n", [](ArrowArray* a) { a->offset = INT64_MAX; }, kInvalid, "n", "overflows");
  // A values buffer that is null while rows need it.
  ExpectRejected(
      ints, "n", [](ArrowArray* a) { const_cast<const void**>(a->buffers)[1] = nullptr; }, kInvalid, "n",
      "values buffer (buffer 1) is null but must hold 24 bytes");
  // Nulls counted without a bitmap.
  ExpectRejected(
      ints, "n", [](ArrowArray* a) { const_cast<const void**>(a->buffers)[0] = nullptr; }, kInvalid, "n",
      "null_count is 1 but there is no validity bitmap");

  // String offsets that decrease.
  auto bad_strings = std::make_shared<ArrayData>(*MakeStringArray({"ab", "cd", "ef"}));
  std::vector<int32_t> offs = {0, 4, 2, 6};
  bad_strings->buffers[1] = Buffer::Copy(offs.data(), offs.size() * 4);
  ExpectRejected(bad_strings, "s", [](ArrowArray*) {}, kInvalid, "s", "offsets decrease at position 2 (4 > 2)");
  std::vector<int32_t> negative = {-1, 2, 4, 6};
  bad_strings->buffers[1] = Buffer::Copy(negative.data(), negative.size() * 4);
  ExpectRejected(bad_strings, "s", [](ArrowArray*) {}, kInvalid, "s", "is negative");

  // List offsets past the child's rows, named by the path of the child.
  DataTypePtr list_type = MakeList(Field{"item", MakeType(TypeId::kInt64), true});
  ArrayPtr list = MakeListArray(list_type, {0, 2, 3}, MakeInt64Array({1, 2, 3}));
  ExpectRejected(
      list, "tags", [](ArrowArray* a) { a->children[0]->length = 2; }, kInvalid, "tags.item",
      "2 rows, the offsets of 'tags' reach 3");
  ExpectRejected(
      list, "tags", [](ArrowArray* a) { a->children[0]->offset = -5; }, kInvalid, "tags.item", "offset -5");
  ExpectRejected(list, "tags", [](ArrowArray* a) { a->n_children = 0; }, kInvalid, "tags", "0 children");
  ExpectRejected(
      list, "tags", [](ArrowArray* a) { a->children[0] = nullptr; }, kInvalid, "tags.item",
      "array structure is null");

  // A dictionary is not supported (NotSupported, not a crash).
  ArrowArray dict{};
  ASSERT_TRUE(ExportArray(MakeInt64Array({0}), &dict).ok());
  ExpectRejected(ints, "d", [&](ArrowArray* a) { a->dictionary = &dict; }, StatusCode::kNotSupported, "d",
                 "dictionary-encoded");
  dict.release(&dict);

  // Released input.
  ArrowArray released{};
  auto r = ImportArray(&released, MakeType(TypeId::kInt64), "r");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("released"), std::string::npos);
}

TEST(ArrowCImport, MalformedSchemasAreRejectedNamingTheField) {
  auto reject = [](const std::string& format, StatusCode code, const std::string& what) {
    ArrowSchema s{};
    ASSERT_TRUE(ExportType(*MakeType(TypeId::kInt64), "col", true, &s).ok());
    // The export's release frees its own copy of the format string (through private_data), so
    // pointing `format` elsewhere is safe.
    s.format = format.c_str();
    auto r = ImportField(&s);
    ASSERT_FALSE(r.ok()) << format;
    EXPECT_EQ(r.status().code(), code) << format << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find("field 'col'"), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().ToString();
    EXPECT_EQ(s.release, nullptr);
  };
  reject("U", StatusCode::kNotSupported, "format 'U' has no rap type");
  reject("+L", StatusCode::kNotSupported, "format '+L' has no rap type");
  reject("vu", StatusCode::kNotSupported, "format 'vu'");
  reject("d:40,2", StatusCode::kInvalidArgument, "bad decimal format 'd:40,2'");
  reject("d:10,2,256", StatusCode::kNotSupported, "only 128-bit decimals");
  reject("d:10", StatusCode::kInvalidArgument, "bad decimal format");
  reject("w:0", StatusCode::kInvalidArgument, "bad fixed-size binary format");
  reject("w:x", StatusCode::kInvalidArgument, "bad fixed-size binary format");
  reject("+l", StatusCode::kInvalidArgument, "needs 1 child, got 0");
  reject("", StatusCode::kNotSupported, "format ''");

  // A schema must be a struct; a map's child must be a struct of two fields.
  ArrowSchema s{};
  ASSERT_TRUE(ExportType(*MakeType(TypeId::kInt64), "x", false, &s).ok());
  auto schema = ImportSchema(&s);
  ASSERT_FALSE(schema.ok());
  EXPECT_NE(schema.status().message().find("must be a struct"), std::string::npos);
  ArrowSchema m{};
  ASSERT_TRUE(ExportType(*MakeList(Field{"item", MakeType(TypeId::kInt32), true}), "m", true, &m).ok());
  m.format = "+m";
  auto map = ImportField(&m);
  ASSERT_FALSE(map.ok());
  EXPECT_NE(map.status().message().find("a map's child must be a struct of 2 fields"), std::string::npos)
      << map.status().ToString();
}

TEST(ArrowCImport, RecordBatchWithNullRowsIsRejected) {
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back(Field{"x", MakeType(TypeId::kInt64), true});
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = 3;
  batch.columns.push_back(MakeInt64Array({1, 2, 3}));
  ArrowArray a{};
  ASSERT_TRUE(ExportRecordBatch(batch, &a).ok());
  // A validity bitmap marking row 1 null on the top-level struct.
  static const uint8_t kBits[1] = {0b101};
  const void** buffers = const_cast<const void**>(a.buffers);
  buffers[0] = kBits;
  a.null_count = 1;
  auto r = ImportRecordBatch(&a, schema);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("has 1 null rows"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(a.release, nullptr);
}

}  // namespace
}  // namespace rap::columnar
