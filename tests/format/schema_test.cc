#include <gtest/gtest.h>

#include <cstring>

#include "rap/format/schema.h"
#include "rap/format/thrift.h"
#include "testing/paths.h"

namespace rap::parquet {
namespace {

// Decodes the footer of a parquet-testing file (the footer module is tested on its own).
FileMetaData LoadMetadata(const std::string& name) {
  std::string bytes = rap::testing::ReadFileToString(rap::testing::ParquetTestingData() + "/" + name);
  if (bytes.size() < 12) {
    ADD_FAILURE() << name << ": not a Parquet file of at least 12 bytes (" << bytes.size() << " bytes)";
    return FileMetaData{};
  }
  uint32_t len;
  std::memcpy(&len, bytes.data() + bytes.size() - 8, 4);
  auto md = DecodeFileMetaData({reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size() - 8 - len, len});
  EXPECT_TRUE(md.ok()) << name << ": " << md.status().ToString();
  return md.ok() ? *md : FileMetaData{};
}

std::vector<std::string> FieldStrings(const SchemaDescriptor& s) {
  std::vector<std::string> out;
  if (!s.arrow_schema()) return out;  // the file did not load (that failure is already reported)
  for (const auto& f : s.arrow_schema()->fields) {
    out.push_back(f.name + ": " + f.type->ToString() + (f.nullable ? "" : " not null"));
  }
  return out;
}

SchemaDescriptor Load(const std::string& name) {
  auto s = SchemaDescriptor::Make(LoadMetadata(name).schema, name);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : SchemaDescriptor{};
}

TEST(Schema, FlatTypesAlltypesPlain) {
  SchemaDescriptor s = Load("alltypes_plain.parquet");
  ASSERT_GT(s.num_columns(), 0) << "did not load";
  ASSERT_EQ(s.num_columns(), 11);
  EXPECT_EQ(s.column(0).dotted_path, "id");
  EXPECT_EQ(s.column(0).max_definition_level, 1);
  EXPECT_EQ(s.column(0).max_repetition_level, 0);
  int ts = s.FindColumn("timestamp_col");
  ASSERT_GE(ts, 0);
  EXPECT_EQ(s.column(ts).physical_type, Type::INT96);
  EXPECT_EQ(s.column(ts).arrow_type->ToString(), "timestamp[ns]");
  EXPECT_EQ(s.column(s.FindColumn("bool_col")).arrow_type->ToString(), "bool");
  EXPECT_EQ(s.column(s.FindColumn("string_col")).arrow_type->ToString(), "binary");
  EXPECT_EQ(s.FindColumn("nope"), -1);
}

TEST(Schema, NestedLists) {
  SchemaDescriptor s = Load("nested_lists.snappy.parquet");
  ASSERT_GT(s.num_columns(), 0) << "did not load";
  EXPECT_EQ(FieldStrings(s), (std::vector<std::string>{
                                 "a: list<element: list<element: list<element: string>>>", "b: int32 not null"}));
  ASSERT_EQ(s.num_columns(), 2);
  EXPECT_EQ(s.column(0).dotted_path, "a.list.element.list.element.list.element");
  EXPECT_EQ(s.column(0).max_definition_level, 7);
  EXPECT_EQ(s.column(0).max_repetition_level, 3);
  // Level annotations: the outer list is non-null at def >= 1, has an element at def >= 2.
  const FieldNode& a = s.field(0);
  EXPECT_EQ(a.def_level, 1);
  EXPECT_EQ(a.slot_def, 0);
  EXPECT_EQ(a.rep_level, 0);
  EXPECT_EQ(a.children[0].slot_def, 2);
  EXPECT_EQ(a.children[0].def_level, 3);
  EXPECT_EQ(a.children[0].rep_level, 1);
}

TEST(Schema, NestedMapsAndStructs) {
  EXPECT_EQ(FieldStrings(Load("nested_maps.snappy.parquet")),
            (std::vector<std::string>{"a: map<string, map<int32, bool>>", "b: int32 not null", "c: double not null"}));
  SchemaDescriptor s = Load("nested_structs.rust.parquet");
  ASSERT_GT(s.num_columns(), 0) << "did not load";
  EXPECT_EQ(s.num_fields(), 36);
  EXPECT_EQ(FieldStrings(s)[0],
            "roll_num: struct<min: int64 not null, max: int64 not null, mean: int64 not null, count: uint64 not null, "
            "sum: int64 not null, variance: int64 not null> not null");
  EXPECT_EQ(s.column(s.FindColumn("ul_observation_date.max")).arrow_type->ToString(), "timestamp[us, tz=UTC]");
}

TEST(Schema, BackwardCompatibleLists) {
  EXPECT_EQ(FieldStrings(Load("list_columns.parquet")),
            (std::vector<std::string>{"int64_list: list<item: int64>", "utf8_list: list<item: string>"}));
  // Two-level lists: the repeated group named "array" is the element.
  EXPECT_EQ(FieldStrings(Load("old_list_structure.parquet")),
            (std::vector<std::string>{"a: list<array: list<array: int32 not null> not null> not null"}));
  EXPECT_EQ(FieldStrings(Load("repeated_no_annotation.parquet")),
            (std::vector<std::string>{"id: int32 not null",
                                      "phoneNumbers: struct<phone: list<phone: struct<number: int64 not null, kind: "
                                      "string> not null> not null>"}));
  EXPECT_EQ(FieldStrings(Load("repeated_primitive_no_list.parquet")),
            (std::vector<std::string>{
                "Int32_list: list<Int32_list: int32 not null> not null",
                "String_list: list<String_list: string not null> not null",
                "group_of_lists: struct<Int32_list_in_group: list<Int32_list_in_group: int32 not null> not null, "
                "String_list_in_group: list<String_list_in_group: string not null> not null> not null"}));
  EXPECT_EQ(FieldStrings(Load("null_list.parquet")), (std::vector<std::string>{"emptylist: list<item: null>"}));
}

TEST(Schema, Maps) {
  EXPECT_EQ(FieldStrings(Load("incorrect_map_schema.parquet")),
            (std::vector<std::string>{"my_map: map<string, string>"}));
  EXPECT_EQ(FieldStrings(Load("map_no_value.parquet")),
            (std::vector<std::string>{"my_map: map<int32, int32> not null", "my_map_no_v: list<key: int32 not null> not null",
                                      "my_list: list<element: int32 not null> not null"}));
}

TEST(Schema, Impala) {
  EXPECT_EQ(FieldStrings(Load("nonnullable.impala.parquet")),
            (std::vector<std::string>{
                "ID: int64 not null", "Int_Array: list<element: int32 not null> not null",
                "int_array_array: list<element: list<element: int32 not null> not null> not null",
                "Int_Map: map<string, int32> not null",
                "int_map_array: list<element: map<string, int32> not null> not null",
                "nested_Struct: struct<a: int32 not null, B: list<element: int32 not null> not null, c: struct<D: "
                "list<element: list<element: struct<e: int32 not null, f: string not null> not null> not null> not "
                "null> not null, G: map<string, struct<h: struct<i: list<element: double not null> not null> not "
                "null>> not null> not null"}));
  SchemaDescriptor s = Load("nullable.impala.parquet");
  ASSERT_GT(s.num_columns(), 0) << "did not load";
  EXPECT_EQ(FieldStrings(s),
            (std::vector<std::string>{
                "id: int64", "int_array: list<element: int32>", "int_array_Array: list<element: list<element: int32>>",
                "int_map: map<string, int32>", "int_Map_Array: list<element: map<string, int32>>",
                "nested_struct: struct<A: int32, b: list<element: int32>, C: struct<d: list<element: list<element: "
                "struct<E: int32, F: string>>>>, g: map<string, struct<H: struct<i: list<element: double>>>>>"}));
  EXPECT_EQ(s.column(s.FindColumn("nested_struct.C.d.list.element.list.element.E")).max_definition_level, 8);
}

TEST(Schema, LogicalTypes) {
  auto type_of = [](const std::string& file, const std::string& col) {
    SchemaDescriptor s = Load(file);
    int c = s.num_columns() > 0 ? s.FindColumn(col) : -1;
    return c < 0 ? std::string("missing") : s.column(c).arrow_type->ToString();
  };
  EXPECT_EQ(type_of("int32_decimal.parquet", "value"), "decimal128(4, 2)");
  EXPECT_EQ(type_of("int64_decimal.parquet", "value"), "decimal128(10, 2)");
  EXPECT_EQ(type_of("fixed_length_decimal.parquet", "value"), "decimal128(25, 2)");
  EXPECT_EQ(type_of("byte_array_decimal.parquet", "value"), "decimal128(4, 2)");
  EXPECT_EQ(type_of("float16_nonzeros_and_nans.parquet", "x"), "halffloat (float16)");
}

TEST(Schema, Projection) {
  SchemaDescriptor s = Load("nullable.impala.parquet");
  ASSERT_GT(s.num_columns(), 0) << "did not load";
  auto p = s.Project({"id", "nested_struct.A", "nested_struct.g"});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[1].field.type->ToString(),
            "struct<A: int32, g: map<string, struct<H: struct<i: list<element: double>>>>>");
  EXPECT_EQ((*p)[1].columns.size(), 3u);
  EXPECT_TRUE(s.Project({"nested_struct.zzz"}).status().Is(StatusCode::kNotFound));
}

SchemaElement Group(const std::string& name, int children, std::optional<Repetition> rep = Repetition::REQUIRED) {
  SchemaElement e;
  e.name = name;
  e.num_children = children;
  e.repetition_type = rep;
  return e;
}

SchemaElement Leaf(const std::string& name, Type t, std::optional<Repetition> rep = Repetition::OPTIONAL) {
  SchemaElement e;
  e.name = name;
  e.type = t;
  e.repetition_type = rep;
  return e;
}

TEST(Schema, MalformedTreesAreCorrupt) {
  EXPECT_TRUE(SchemaDescriptor::Make({}, "f").status().Is(StatusCode::kCorrupt));
  // Root claims more children than there are elements.
  Status st = SchemaDescriptor::Make({Group("root", 3), Leaf("a", Type::INT32)}, "f.parquet").status();
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt));
  EXPECT_NE(st.message().find("f.parquet"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("num_children 3"), std::string::npos) << st.ToString();
  // Trailing elements after the tree.
  EXPECT_TRUE(SchemaDescriptor::Make({Group("root", 1), Leaf("a", Type::INT32), Leaf("b", Type::INT32)})
                  .status()
                  .Is(StatusCode::kCorrupt));
  // Negative counts, leaves without type, missing repetition, FLBA without length.
  EXPECT_TRUE(SchemaDescriptor::Make({Group("root", -1)}).status().Is(StatusCode::kCorrupt));
  SchemaElement untyped = Leaf("a", Type::INT32);
  untyped.type.reset();
  EXPECT_TRUE(SchemaDescriptor::Make({Group("root", 1), untyped}).status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(SchemaDescriptor::Make({Group("root", 1), Leaf("a", Type::INT32, std::nullopt)}).status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(SchemaDescriptor::Make({Group("root", 1), Leaf("a", Type::FIXED_LEN_BYTE_ARRAY)}).status().Is(StatusCode::kCorrupt));
  // Very deep nesting is bounded, not a stack overflow.
  std::vector<SchemaElement> deep{Group("root", 1)};
  for (int i = 0; i < 5000; ++i) deep.push_back(Group("g", 1, Repetition::OPTIONAL));
  deep.push_back(Leaf("x", Type::INT32));
  EXPECT_TRUE(SchemaDescriptor::Make(deep).status().Is(StatusCode::kCorrupt));
  // A valid small tree.
  auto ok = SchemaDescriptor::Make({Group("root", 2), Leaf("a", Type::INT32), Group("s", 1, Repetition::OPTIONAL),
                                    Leaf("b", Type::BYTE_ARRAY, Repetition::REPEATED)});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->column(1).dotted_path, "s.b");
  EXPECT_EQ(ok->column(1).max_definition_level, 2);
  EXPECT_EQ(ok->column(1).max_repetition_level, 1);
  EXPECT_EQ(ok->arrow_schema()->fields[1].type->ToString(), "struct<b: list<b: binary not null> not null>");
}

}  // namespace
}  // namespace rap::parquet
