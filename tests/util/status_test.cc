#include <gtest/gtest.h>

#include "rap/util/buffer.h"
#include "rap/util/hash.h"
#include "rap/util/result.h"
#include "rap/util/units.h"

namespace rap {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  RAP_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(Status, OkAndError) {
  EXPECT_TRUE(Status::OK().ok());
  Status s = Status::Corrupt("x.parquet: footer at offset 12: bad");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_EQ(s.ToString(), "Corrupt: x.parquet: footer at offset 12: bad");
  EXPECT_EQ(s.WithContext("ctx").message(), "ctx: x.parquet: footer at offset 12: bad");
}

TEST(Result, PropagatesErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_FALSE(Quarter(6).ok());
  EXPECT_EQ(Quarter(6).status().message(), "odd");
}

TEST(Buffer, SliceSharesOwner) {
  Buffer b = Buffer::Copy("hello world");
  Buffer s = b.Slice(6, 100);
  EXPECT_EQ(s.view(), "world");
  EXPECT_EQ(s.owner(), b.owner());
  EXPECT_EQ(b.Slice(20).size(), 0u);
}

TEST(Hash, Fnv1a64KnownValues) {
  EXPECT_EQ(HashFnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(HashFnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  Fnv1a64 h;
  h.Update("foobar");
  EXPECT_EQ(h.ToString(), "fnv1a64:85944171f73967e8");
}

TEST(Units, ParseSizesAndDurations) {
  EXPECT_EQ(*ParseByteSize("1MiB"), 1048576u);
  EXPECT_EQ(*ParseByteSize("64KiB"), 65536u);
  EXPECT_EQ(*ParseByteSize("10"), 10u);
  EXPECT_FALSE(ParseByteSize("ten").ok());
  EXPECT_FALSE(ParseByteSize("1XB").ok());
  EXPECT_DOUBLE_EQ(*ParseDuration("20ms"), 0.02);
  EXPECT_DOUBLE_EQ(*ParseDuration("1.5s"), 1.5);
}

}  // namespace
}  // namespace rap
