// Deletion vector decoding: z85, UUID paths, RoaringBitmapArray containers (array, bitset, run),
// and malformed input; the encoding of inline vectors (z85, array and bitset containers) the index
// writes for Iceberg deletes.
#include <gtest/gtest.h>

#include "rap/table/deletion_vector.h"

namespace rap::table {
namespace {

struct Bytes {
  std::vector<uint8_t> b;
  Bytes& U16(uint16_t v) {
    b.push_back(static_cast<uint8_t>(v));
    b.push_back(static_cast<uint8_t>(v >> 8));
    return *this;
  }
  Bytes& U32(uint32_t v) {
    U16(static_cast<uint16_t>(v));
    return U16(static_cast<uint16_t>(v >> 16));
  }
  Bytes& U64(uint64_t v) {
    U32(static_cast<uint32_t>(v));
    return U32(static_cast<uint32_t>(v >> 32));
  }
};

TEST(DeletionVector, Z85) {
  // The ZeroMQ RFC 32 test vector.
  auto d = DecodeZ85("HelloWorld");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, std::string("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8));
  EXPECT_FALSE(DecodeZ85("Hell").ok());
  EXPECT_FALSE(DecodeZ85("Hell\"").ok());
}

TEST(DeletionVector, UuidPath) {
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline = "vBn[lx{q8@P<9BNH/isA";  // from table-with-dv-small
  auto p = DeletionVectorPath("/t", dv);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p, "/t/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin");
  dv.path_or_inline = "ab" + dv.path_or_inline;  // a random prefix is a folder
  EXPECT_EQ(*DeletionVectorPath("/t", dv), "/t/ab/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin");
}

TEST(DeletionVector, RoaringContainers) {
  Bytes x;
  x.U32(1681511377).U64(2);
  // Bitmap with high key 0, cookie 12347 (runs), 2 containers: run container key 0, array key 1.
  x.U32(0).U32(12347 | (1u << 16));
  x.b.push_back(0b01);  // container 0 is a run container
  x.U16(0).U16(5);      // key 0, cardinality-1 (ignored for runs)
  x.U16(1).U16(1);      // key 1, 2 values
  x.U16(1).U16(10).U16(2);  // 1 run: 10..12
  x.U16(7).U16(65535);      // array: 65536+7, 65536+65535
  // High key 1: no-run cookie, 1 bitset container (cardinality 4097).
  x.U32(1).U32(12346).U32(1);
  x.U16(3).U16(4096);
  x.U32(0);  // offset header
  for (int w = 0; w < 1024; ++w) x.U64(w < 64 ? ~0ULL : (w == 64 ? 1ULL : 0ULL));
  auto rows = ParseRoaringBitmapArray(x.b, "test", 1 << 20);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u + 2u + 4097u);
  EXPECT_EQ((*rows)[0], 10u);
  EXPECT_EQ((*rows)[2], 12u);
  EXPECT_EQ((*rows)[3], 65536u + 7);
  EXPECT_EQ((*rows)[4], 65536u + 65535);
  EXPECT_EQ((*rows)[5], (1ULL << 32) + (3u << 16));
  EXPECT_EQ(rows->back(), (1ULL << 32) + (3u << 16) + 4096);
  // Every truncation is an error, never a crash.
  for (size_t n = 0; n < x.b.size(); n += 7) {
    std::vector<uint8_t> cut(x.b.begin(), x.b.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(ParseRoaringBitmapArray(cut, "cut", 1 << 20).ok()) << n;
  }
  // A cap on the number of rows.
  EXPECT_EQ(ParseRoaringBitmapArray(x.b, "test", 100).status().code(), StatusCode::kResourceExhausted);
  // Wrong magic.
  x.b[0] ^= 1;
  EXPECT_EQ(ParseRoaringBitmapArray(x.b, "test", 1 << 20).status().code(), StatusCode::kCorrupt);
}

TEST(DeletionVector, Z85Encode) {
  EXPECT_EQ(EncodeZ85(std::string("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8)), "HelloWorld");
  // Padded to whole groups of 4 bytes.
  auto d = DecodeZ85(EncodeZ85("abcde"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, std::string("abcde\0\0\0", 8));
}

TEST(DeletionVector, SerializedBytesFollowTheFormat) {
  // Rows 3 and 65537: one bitmap (high key 0), no-run cookie, two array containers (keys 0 and 1).
  Bytes x;
  x.U32(1681511377).U64(1).U32(0);
  x.U32(12346).U32(2).U16(0).U16(0).U16(1).U16(0).U32(24).U32(26).U16(3).U16(1);
  const std::string got = SerializeRoaringBitmapArray({3, 65537});
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), x.b);
}

TEST(DeletionVector, InlineVectorsRoundTrip) {
  std::vector<std::vector<uint64_t>> cases = {{}, {0}, {5, 6, 7, 65535, 65536}};
  std::vector<uint64_t> dense;  // a bitset container (more than 4096 values in one) beside an array one
  for (uint64_t r = 100; r < 10000; r += 2) dense.push_back(r);
  for (uint64_t r = 70000; r < 70010; ++r) dense.push_back(r);
  dense.push_back((uint64_t{3} << 32) + 9);  // another high key
  cases.push_back(dense);
  std::vector<uint64_t> full;  // a whole container
  for (uint64_t r = 65536; r < 2 * 65536; ++r) full.push_back(r);
  cases.push_back(full);
  for (const auto& rows : cases) {
    const DeletionVectorDescriptor dv = InlineDeletionVector(rows);
    EXPECT_EQ(dv.storage_type, "i");
    EXPECT_EQ(dv.cardinality, static_cast<int64_t>(rows.size()));
    auto back = LoadDeletionVector(nullptr, "/t", dv);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, rows);
  }
}

}  // namespace
}  // namespace rap::table
