// Avro object container files written by rap (rap/avro/container_writer.h): read back by rap's
// reader (rap/avro/object_container.h) value for value, and values that do not fit the schema refused.
#include "rap/avro/container_writer.h"

#include <gtest/gtest.h>

#include "rap/avro/object_container.h"

namespace rap::avro {
namespace {

const char* kSchema = R"({"type": "record", "name": "entry", "fields": [
  {"name": "status", "type": "int", "field-id": 0},
  {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
  {"name": "path", "type": "string", "field-id": 100},
  {"name": "blob", "type": ["null", "bytes"], "default": null, "field-id": 131},
  {"name": "sizes", "type": ["null", {"type": "array", "items": {"type": "record", "name": "k_v",
     "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "long"}]}}], "default": null},
  {"name": "props", "type": {"type": "map", "values": "string"}},
  {"name": "flag", "type": "boolean"}]})";

std::span<const uint8_t> Span(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(ContainerWriter, RoundTripsThroughTheReader) {
  std::vector<Value> records;
  records.push_back(Value::Record({{"status", Value::Int(1)},
                                   {"snapshot_id", Value::Long(int64_t{1} << 40)},
                                   {"path", Value::String("s3://b/t/data/a.parquet")},
                                   {"blob", Value::Bytes(std::string("\0\x01\xff", 3))},
                                   {"sizes", Value::Array({Value::Record({{"key", Value::Int(1)},
                                                                         {"value", Value::Long(-7)}})})},
                                   {"props", Value::Map({{"a", Value::String("x")}})},
                                   {"flag", Value::Boolean(true)}}));
  records.push_back(Value::Record({{"status", Value::Int(2)},
                                   {"path", Value::String("")},
                                   {"props", Value::Map({})},
                                   {"flag", Value::Boolean(false)}}));
  auto bytes = WriteContainerFile(kSchema, records, {{"format-version", "2"}}, "m.avro");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto file = ReadContainerFile(Span(*bytes), "m.avro");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->schema_json, kSchema);  // field ids kept as written
  EXPECT_EQ(file->metadata.at("format-version"), "2");
  ASSERT_EQ(file->records.size(), 2u);
  const Value& a = file->records[0];
  int64_t x = 0;
  ASSERT_TRUE(a.GetInt("status", &x));
  EXPECT_EQ(x, 1);
  ASSERT_TRUE(a.GetInt("snapshot_id", &x));
  EXPECT_EQ(x, int64_t{1} << 40);
  EXPECT_EQ(a.Find("path")->bytes, "s3://b/t/data/a.parquet");
  EXPECT_EQ(a.Find("blob")->bytes, std::string("\0\x01\xff", 3));
  ASSERT_EQ(a.Find("sizes")->items.size(), 1u);
  ASSERT_TRUE(a.Find("sizes")->items[0].GetInt("value", &x));
  EXPECT_EQ(x, -7);
  EXPECT_EQ(a.Find("props")->Find("a")->bytes, "x");
  EXPECT_TRUE(a.Find("flag")->boolean);
  const Value& b = file->records[1];
  EXPECT_TRUE(b.Find("snapshot_id")->is_null());
  EXPECT_TRUE(b.Find("blob")->is_null());
  EXPECT_TRUE(b.Find("sizes")->is_null());
  EXPECT_FALSE(b.Find("flag")->boolean);
}

TEST(ContainerWriter, NoRecordsIsAHeaderOnly) {
  auto bytes = WriteContainerFile(kSchema, {}, {}, "m.avro");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto file = ReadContainerFile(Span(*bytes), "m.avro");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE(file->records.empty());
}

TEST(ContainerWriter, RefusesValuesThatDoNotFit) {
  // A required field left out.
  auto missing = WriteContainerFile(kSchema, {Value::Record({{"status", Value::Int(1)}})}, {}, "m.avro");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("record 0.path"), std::string::npos) << missing.status().ToString();
  // A field the schema does not have.
  auto unknown = WriteContainerFile(kSchema, {Value::Record({{"nope", Value::Int(1)}})}, {}, "m.avro");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no field 'nope'"), std::string::npos) << unknown.status().ToString();
  // A string where an int goes; an int out of range.
  auto kind = WriteContainerFile(
      kSchema, {Value::Record({{"status", Value::String("1")}, {"path", Value::String("")}})}, {}, "m.avro");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("record 0.status"), std::string::npos) << kind.status().ToString();
  auto range = WriteContainerFile(
      kSchema, {Value::Record({{"status", Value::Int(int64_t{1} << 33)}, {"path", Value::String("")}})}, {}, "m.avro");
  ASSERT_FALSE(range.ok());
  // A map key with a NUL byte (Avro C takes keys as C strings: it would be cut short).
  auto nul = WriteContainerFile(kSchema,
                                {Value::Record({{"status", Value::Int(1)},
                                                {"path", Value::String("")},
                                                {"props", Value::Map({{std::string("a\0b", 3), Value::String("x")}})},
                                                {"flag", Value::Boolean(true)}})},
                                {}, "m.avro");
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("NUL"), std::string::npos) << nul.status().ToString();
  // A schema that does not parse.
  EXPECT_FALSE(WriteContainerFile(R"({"type": "nope"})", {}, {}, "m.avro").ok());
}

}  // namespace
}  // namespace rap::avro
