// Keys: parsing, order, canonical encoding, md5 (RFC 1321 vectors) and the bucket function (values
// DuckDB computes with ('0x' || substr(md5(canonical), 1, 15))::BIGINT % count).
#include <gtest/gtest.h>

#include "rap/index/key.h"

namespace rap::index {
namespace {

std::string Hex(const std::array<uint8_t, 16>& d) {
  std::string s;
  char b[3];
  for (uint8_t c : d) {
    std::snprintf(b, sizeof(b), "%02x", c);
    s += b;
  }
  return s;
}

// The in-place compare of a key cell orders exactly as KeyPartAt + CompareKeyPart, for every key type.
TEST(KeyTest, CompareKeyCellAgreesWithCompareKeyPart) {
  for (KeyType type : {KeyType::kInt32, KeyType::kInt64, KeyType::kString, KeyType::kBinary}) {
    std::vector<KeyPart> values(5);
    const int64_t ints[] = {-7, 0, 3, 3, 2147483647};
    const std::string strs[] = {"", "a", "ab", "b", std::string("\xff\x00", 2)};  // last: bytes above 0x7f
    for (size_t i = 0; i < values.size(); ++i) {
      values[i].i = ints[i];
      values[i].s = strs[i];
    }
    std::vector<const KeyPart*> ptrs;
    for (const KeyPart& v : values) ptrs.push_back(&v);
    const ArrayPtr array = MakeKeyArray(type, ptrs);
    for (int64_t row = 0; row < array->length; ++row) {
      KeyPart cell;
      ASSERT_TRUE(KeyPartAt(type, *array, row, &cell));
      for (const KeyPart& probe : values) {
        EXPECT_EQ(CompareKeyCell(type, *array, row, probe), CompareKeyPart(type, cell, probe))
            << "type " << static_cast<int>(type) << " row " << row;
      }
    }
  }
}

TEST(KeyTest, Md5Vectors) {
  EXPECT_EQ(Hex(Md5("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Hex(Md5("abc")), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Hex(Md5("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Hex(Md5(std::string(100, 'a'))), "36a92cc94a9e0fa21f625f8bfb007adf");
  EXPECT_EQ(Hex(Md5("12345678901234567890123456789012345678901234567890123456789012345678901234567890")),
            "57edf4a22be3c955ac49da2e2107b67a");
  EXPECT_EQ(Hex(Md5(std::string(56, 'x'))), Hex(Md5(std::string(56, 'x'))));
}

TEST(KeyTest, BucketMatchesDuckDbExpression) {
  // DuckDB: md5('s42') = 18bbcb6a0c4cf10d6d3261dec664c3b2; ('0x' || substr(.., 1, 15))::BIGINT =
  // 111390108368031504, % 5 = 4.
  EXPECT_EQ(Hex(Md5("s42")), "18bbcb6a0c4cf10d6d3261dec664c3b2");
  EXPECT_EQ(111390108368031504LL % 5, 4);
  EXPECT_EQ(BucketOfCanonical("s42", 5), 4);
  EXPECT_EQ(BucketOfCanonical("s42", 1), 0);
  EXPECT_EQ(static_cast<int64_t>(BucketOfCanonical("s42", 1000000007)), 111390108368031504LL % 1000000007);
}

TEST(KeyTest, ParseFormatCanonicalAndOrder) {
  std::vector<KeyColumn> cols = {{"a", KeyType::kString}, {"b", KeyType::kInt32}};
  auto k = ParseKey(cols, {"x|y", "-7"});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(CanonicalKey(cols, *k), "x|y|-7");
  EXPECT_EQ(FormatKey(cols, *k), "x|y, -7");
  EXPECT_FALSE(ParseKey(cols, {"x", "3000000000"}).ok());  // outside int32
  EXPECT_FALSE(ParseKey(cols, {"x", ""}).ok());
  EXPECT_FALSE(ParseKey(cols, {"x"}).ok());
  std::vector<KeyColumn> bin = {{"b", KeyType::kBinary}};
  auto b = ParseKey(bin, {"0x01FF"});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->parts[0].s, std::string("\x01\xff", 2));
  EXPECT_EQ(CanonicalKey(bin, *b), "01ff");
  EXPECT_FALSE(ParseKey(bin, {"0x1"}).ok());
  EXPECT_FALSE(ParseKey(bin, {"zz"}).ok());
  // Unsigned bytewise order for strings and binary; signed for integers.
  auto hi = ParseKey(bin, {"ff"}), lo = ParseKey(bin, {"7f"});
  EXPECT_GT(CompareKeys(bin, *hi, *lo), 0);
  std::vector<KeyColumn> ints = {{"i", KeyType::kInt64}};
  EXPECT_LT(CompareKeys(ints, *ParseKey(ints, {"-1"}), *ParseKey(ints, {"1"})), 0);
  EXPECT_EQ(ParseKeyTypeName("float").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rap::index
