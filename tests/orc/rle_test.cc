// ORC run-length decoders against the byte sequences of the ORC specification's examples, and
// their errors on cut-off and malformed input.
#include "orc/rle.h"

#include <vector>

#include <gtest/gtest.h>

namespace rap::orc {
namespace {

StreamCursor Cursor(std::vector<uint8_t> bytes) {
  return StreamCursor{"test stream", Buffer::FromVector(std::move(bytes)), 0};
}

std::vector<int64_t> V2(std::vector<uint8_t> bytes, size_t n, bool is_signed = false) {
  StreamCursor s = Cursor(std::move(bytes));
  std::vector<int64_t> out(n);
  Status st = DecodeIntRleV2(&s, is_signed, n, out.data());
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(s.remaining(), 0u) << "every byte consumed";
  return out;
}

TEST(OrcRle, ByteRleRunAndLiterals) {
  StreamCursor s = Cursor({0x61, 0x00, 0xfe, 0x44, 0x45});  // 100 x 0x00, then 0x44 0x45
  std::vector<uint8_t> out(102);
  ASSERT_TRUE(DecodeByteRle(&s, out.size(), out.data()).ok());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], 0);
  EXPECT_EQ(out[100], 0x44);
  EXPECT_EQ(out[101], 0x45);
}

TEST(OrcRle, BooleanRle) {
  StreamCursor s = Cursor({0xff, 0x80});  // one literal byte: true then seven false
  std::vector<uint8_t> out(8);
  ASSERT_TRUE(DecodeBoolRle(&s, 8, out.data()).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(OrcRle, IntegerV1RunAndLiterals) {
  {
    StreamCursor s = Cursor({0x61, 0x00, 0x07});  // 100 x 7
    std::vector<int64_t> out(100);
    ASSERT_TRUE(DecodeIntRleV1(&s, false, 100, out.data()).ok());
    for (int64_t v : out) EXPECT_EQ(v, 7);
  }
  {
    StreamCursor s = Cursor({0x61, 0xff, 0x64});  // 100 values from 100 down by 1
    std::vector<int64_t> out(100);
    ASSERT_TRUE(DecodeIntRleV1(&s, false, 100, out.data()).ok());
    EXPECT_EQ(out[0], 100);
    EXPECT_EQ(out[99], 1);
  }
  {
    StreamCursor s = Cursor({0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b});  // literals 2, 3, 6, 7, 11
    std::vector<int64_t> out(5);
    ASSERT_TRUE(DecodeIntRleV1(&s, false, 5, out.data()).ok());
    EXPECT_EQ(out, (std::vector<int64_t>{2, 3, 6, 7, 11}));
  }
  {
    StreamCursor s = Cursor({0xfe, 0x03, 0x04});  // signed literals: zigzag 3 -> -2, 4 -> 2
    std::vector<int64_t> out(2);
    ASSERT_TRUE(DecodeIntRleV1(&s, true, 2, out.data()).ok());
    EXPECT_EQ(out, (std::vector<int64_t>{-2, 2}));
  }
}

TEST(OrcRle, V2ShortRepeat) { EXPECT_EQ(V2({0x0a, 0x27, 0x10}, 5), (std::vector<int64_t>(5, 10000))); }

TEST(OrcRle, V2Direct) {
  EXPECT_EQ(V2({0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}, 4),
            (std::vector<int64_t>{23713, 43806, 57005, 48879}));
}

TEST(OrcRle, V2PatchedBase) {
  EXPECT_EQ(V2({0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
                0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8},
               20),
            (std::vector<int64_t>{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
                                  2100, 2110, 2120, 2130,    2140, 2150, 2160, 2170, 2180, 2190}));
}

TEST(OrcRle, V2Delta) {
  EXPECT_EQ(V2({0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}, 10),
            (std::vector<int64_t>{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}));
}

TEST(OrcRle, V2FixedDeltaSigned) {
  // delta, width code 0 (fixed), 5 values, base zigzag(-2) = 3, delta zigzag(-3) = 5
  EXPECT_EQ(V2({0xc0, 0x04, 0x03, 0x05}, 5, true), (std::vector<int64_t>{-2, -5, -8, -11, -14}));
}

TEST(OrcRle, V2SignedDirectZigzag) {
  // direct, width 8 (code 7), 3 values: zigzag 1, 2, 255 -> -1, 1, -128
  EXPECT_EQ(V2({0x4e, 0x02, 0x01, 0x02, 0xff}, 3, true), (std::vector<int64_t>{-1, 1, -128}));
}

TEST(OrcRle, TruncatedInputIsCorrupt) {
  const std::vector<std::vector<uint8_t>> cases = {
      {0x5e, 0x03, 0x5c, 0xa1},  // direct cut inside the packed values
      {0x0a, 0x27},              // short repeat cut inside its value
      {0xc6, 0x09, 0x02},        // delta without its delta base
      {0x8e, 0x13, 0x2b, 0x21, 0x07},
      {},
  };
  for (const auto& c : cases) {
    StreamCursor s = Cursor(c);
    std::vector<int64_t> out(20);
    const Status st = DecodeIntRleV2(&s, false, 4, out.data());
    EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
    EXPECT_NE(st.message().find("test stream at byte"), std::string::npos) << st.ToString();
  }
  StreamCursor s = Cursor({0xfb, 0x02});
  std::vector<int64_t> out(5);
  EXPECT_TRUE(DecodeIntRleV1(&s, false, 5, out.data()).Is(StatusCode::kCorrupt));
  StreamCursor b = Cursor({0xf0, 0x01});
  std::vector<uint8_t> bytes(16);
  EXPECT_TRUE(DecodeByteRle(&b, 16, bytes.data()).Is(StatusCode::kCorrupt));
}

TEST(OrcRle, RunLongerThanWantedIsCorrupt) {
  StreamCursor s = Cursor({0x0a, 0x27, 0x10});  // 5 values, only 3 wanted
  std::vector<int64_t> out(3);
  EXPECT_TRUE(DecodeIntRleV2(&s, false, 3, out.data()).Is(StatusCode::kCorrupt));
}

TEST(OrcRle, PatchedBaseSmall) {
  // width 8, 2 values, 1-byte base 0, patch width 1, gap width 8, one patch: gap 1, patch 1 -> the
  // second value gains bit 8.
  EXPECT_EQ(V2({0x8e, 0x01, 0x00, 0xe1, 0x00, 0x05, 0x06, 0x01, 0x80}, 2), (std::vector<int64_t>{5, 6 + 256}));
}

TEST(OrcRle, PatchPastTheRunIsCorrupt) {
  // As above with the patch gap 5, past the run of 2 values.
  StreamCursor s = Cursor({0x8e, 0x01, 0x00, 0xe1, 0x00, 0x05, 0x06, 0x05, 0x80});
  std::vector<int64_t> out(2);
  const Status st = DecodeIntRleV2(&s, false, 2, out.data());
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
}

TEST(OrcRle, VarintOverflowIsCorrupt) {
  StreamCursor s = Cursor({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f});
  EXPECT_TRUE(s.VarUint().status().Is(StatusCode::kCorrupt));
}

}  // namespace
}  // namespace rap::orc
