// RLE/bit-packed hybrid and level decoding: spec byte vectors, encoder/decoder round trips over
// bit widths 0..32, run boundaries, skipping, and malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rap/format/levels.h"

namespace rap::parquet {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::vector<int32_t> DecodeAll(const std::string& enc, int bit_width, int64_t n) {
  RleBitPackedDecoder dec(reinterpret_cast<const uint8_t*>(enc.data()), enc.size(), bit_width);
  std::vector<int32_t> out(static_cast<size_t>(n) + 5, -1);
  auto got = dec.GetBatch(out.data(), n + 5);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return {};
  out.resize(static_cast<size_t>(*got));
  return out;
}

TEST(BitWidth, Values) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(3), 2);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(256), 9);
  EXPECT_EQ(BitWidth(~uint64_t{0}), 64);
}

// Encodings.md: values 0..7 with bit width 3 bit-pack to 10001000 11000110 11111010.
TEST(RleBitPacked, SpecBitPackedExample) {
  const std::string enc = std::string("\x03\x88\xc6\xfa", 4);
  EXPECT_EQ(DecodeAll(enc, 3, 8), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  RleBitPackedEncoder e(3);
  for (int i = 0; i < 8; ++i) e.Put(static_cast<uint64_t>(i));
  std::string out;
  e.Finish(&out);
  EXPECT_EQ(out, enc);
}

TEST(RleBitPacked, RleRunBytes) {
  // 100 copies of 5 with bit width 3: header varint(100 << 1) = c8 01, value 05.
  RleBitPackedEncoder e(3);
  for (int i = 0; i < 100; ++i) e.Put(5);
  std::string out;
  e.Finish(&out);
  EXPECT_EQ(out, std::string("\xc8\x01\x05", 3));
  EXPECT_EQ(DecodeAll(out, 3, 100), std::vector<int32_t>(100, 5));
  // Width 0: the run has no value bytes.
  RleBitPackedEncoder z(0);
  for (int i = 0; i < 10; ++i) z.Put(0);
  out.clear();
  z.Finish(&out);
  EXPECT_EQ(out, std::string("\x14", 1));
  EXPECT_EQ(DecodeAll(out, 0, 10), std::vector<int32_t>(10, 0));
  // Width 17: three value bytes.
  RleBitPackedEncoder w(17);
  for (int i = 0; i < 9; ++i) w.Put(0x1abcd);
  out.clear();
  w.Finish(&out);
  EXPECT_EQ(out, std::string("\x12\xcd\xab\x01", 4));
}

TEST(RleBitPacked, RoundTripAllWidths) {
  std::mt19937_64 rng(42);
  for (int width = 0; width <= 32; ++width) {
    const uint64_t mask = width == 0 ? 0 : (width == 64 ? ~0ull : ((1ull << width) - 1));
    for (int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 5003}) {
      std::vector<int32_t> values(static_cast<size_t>(n));
      // Mix of literal stretches and long runs.
      for (int64_t i = 0; i < n;) {
        const int64_t run = std::min<int64_t>(n - i, 1 + rng() % 40);
        const bool repeat = rng() % 2;
        const uint32_t v = static_cast<uint32_t>(rng() & mask);
        for (int64_t j = 0; j < run; ++j, ++i) values[i] = static_cast<int32_t>(repeat ? v : (rng() & mask));
      }
      RleBitPackedEncoder e(width);
      e.PutBatch(values.data(), n);
      const size_t estimate = e.EstimatedSize();
      std::string enc;
      e.Finish(&enc);
      EXPECT_LE(enc.size(), estimate) << "width " << width << " n " << n;
      std::vector<int32_t> got = DecodeAll(enc, width, n);
      got.resize(std::min<size_t>(got.size(), static_cast<size_t>(n)));  // trailing padding of the last group
      ASSERT_EQ(got, values) << "width " << width << " n " << n;
      // Decode in odd-sized batches with skips interleaved.
      RleBitPackedDecoder dec(reinterpret_cast<const uint8_t*>(enc.data()), enc.size(), width);
      int64_t i = 0;
      while (i < n) {
        const int64_t k = std::min<int64_t>(n - i, 1 + rng() % 23);
        if (rng() % 3 == 0) {
          auto s = dec.Skip(k);
          ASSERT_TRUE(s.ok());
          ASSERT_EQ(*s, k);
        } else {
          std::vector<int32_t> part(static_cast<size_t>(k));
          auto g = dec.GetBatch(part.data(), k);
          ASSERT_TRUE(g.ok());
          ASSERT_EQ(*g, k);
          for (int64_t j = 0; j < k; ++j) ASSERT_EQ(part[j], values[i + j]) << "width " << width << " at " << i + j;
        }
        i += k;
      }
    }
  }
}

// PutBatch counts the rest of a long run in one loop: the bytes are those of a Put per value, also
// when runs continue across batches of odd sizes.
TEST(RleBitPacked, PutBatchEncodesAsPutPerValue) {
  std::mt19937_64 rng(7);
  for (int width : {1, 2, 3, 8}) {
    std::vector<int16_t> values;
    while (values.size() < 20000) {
      const size_t run = rng() % 4 == 0 ? 1 + rng() % 3000 : 1 + rng() % 12;
      const auto v = static_cast<int16_t>(rng() & ((1u << width) - 1));
      const bool repeat = rng() % 3 != 0;
      for (size_t j = 0; j < run; ++j) values.push_back(repeat ? v : static_cast<int16_t>(rng() & ((1u << width) - 1)));
    }
    RleBitPackedEncoder one(width), batch(width);
    for (int16_t v : values) one.Put(static_cast<uint16_t>(v));
    for (size_t i = 0; i < values.size();) {
      const size_t k = std::min<size_t>(values.size() - i, 1 + rng() % 5000);
      batch.PutBatch(values.data() + i, static_cast<int64_t>(k));
      i += k;
    }
    std::string a, b;
    one.Finish(&a);
    batch.Finish(&b);
    EXPECT_EQ(a, b) << "width " << width;
    std::vector<int32_t> got = DecodeAll(b, width, static_cast<int64_t>(values.size()));
    got.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(got[i], values[i]) << "width " << width << " at " << i;
  }
}

TEST(RleBitPacked, Int16AndUint8Outputs) {
  std::vector<int16_t> levels = {0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 0, 2, 2};
  RleBitPackedEncoder e(2);
  e.PutBatch(levels.data(), static_cast<int64_t>(levels.size()));
  std::string enc;
  e.Finish(&enc);
  RleBitPackedDecoder dec(reinterpret_cast<const uint8_t*>(enc.data()), enc.size(), 2);
  std::vector<int16_t> out(levels.size());
  auto got = dec.GetBatch(out.data(), static_cast<int64_t>(out.size()));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(out, levels);

  RleBitPackedDecoder wide(reinterpret_cast<const uint8_t*>(enc.data()), enc.size(), 9);
  std::vector<uint8_t> bytes(4);
  EXPECT_TRUE(wide.GetBatch(bytes.data(), 4).status().Is(StatusCode::kCorrupt));  // width 9 > 8 bits
}

TEST(RleBitPacked, MalformedInput) {
  int32_t out[16];
  {  // Truncated varint header.
    const uint8_t d[] = {0x80};
    RleBitPackedDecoder dec(d, sizeof d, 3);
    EXPECT_TRUE(dec.GetBatch(out, 4).status().Is(StatusCode::kCorrupt));
  }
  {  // RLE value bytes missing.
    const uint8_t d[] = {0x10};
    RleBitPackedDecoder dec(d, sizeof d, 9);
    auto r = dec.GetBatch(out, 4);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("byte 1"), std::string::npos) << r.status().ToString();
  }
  {  // RLE value wider than the bit width.
    const uint8_t d[] = {0x10, 0x09};
    RleBitPackedDecoder dec(d, sizeof d, 3);
    EXPECT_TRUE(dec.GetBatch(out, 4).status().Is(StatusCode::kCorrupt));
  }
  {  // Header larger than 32 bits.
    const uint8_t d[] = {0xff, 0xff, 0xff, 0xff, 0x7f, 0x00};
    RleBitPackedDecoder dec(d, sizeof d, 1);
    EXPECT_TRUE(dec.GetBatch(out, 4).status().Is(StatusCode::kCorrupt));
  }
  {  // Bit width out of range.
    const uint8_t d[] = {0x02, 0x00};
    RleBitPackedDecoder dec(d, sizeof d, 33);
    EXPECT_TRUE(dec.GetBatch(out, 1).status().Is(StatusCode::kCorrupt));
  }
  {  // A huge bit-packed run over few bytes yields only the values present, never more.
    const uint8_t d[] = {0xff, 0xff, 0xff, 0xff, 0x07, 0xab};
    RleBitPackedDecoder dec(d, sizeof d, 4);
    auto r = dec.GetBatch(out, 16);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, 2);
    EXPECT_EQ(out[0], 0xb);
    EXPECT_EQ(out[1], 0xa);
  }
  {  // A huge RLE run is just a count: skipping it allocates nothing.
    const uint8_t d[] = {0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01};
    RleBitPackedDecoder dec(d, sizeof d, 1);
    auto r = dec.Skip(int64_t{1} << 31);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, (int64_t{1} << 31) - 1);
  }
}

TEST(Levels, V1Rle) {
  std::vector<int16_t> levels(300);
  for (size_t i = 0; i < levels.size(); ++i) levels[i] = static_cast<int16_t>(i % 7 == 0 ? 0 : (i / 50) % 4);
  RleBitPackedEncoder e(2);
  e.PutBatch(levels.data(), static_cast<int64_t>(levels.size()));
  std::string body;
  e.Finish(&body);
  std::string section;
  const uint32_t len = static_cast<uint32_t>(body.size());
  section.append(reinterpret_cast<const char*>(&len), 4);
  section += body;
  section += "trailing value bytes";
  std::vector<uint8_t> data = Bytes(section);
  std::vector<int16_t> out(levels.size());
  auto used = DecodeLevelsV1(Encoding::RLE, 2, data, static_cast<int64_t>(levels.size()), out.data());
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, body.size() + 4);
  EXPECT_EQ(out, levels);
  // Asking for more levels than the section holds fails.
  std::vector<int16_t> more(1000);
  EXPECT_TRUE(DecodeLevelsV1(Encoding::RLE, 2, data, 1000, more.data()).status().Is(StatusCode::kCorrupt));
  // Length prefix past the end.
  std::vector<uint8_t> bad = {0xff, 0x00, 0x00, 0x00, 0x01};
  EXPECT_TRUE(DecodeLevelsV1(Encoding::RLE, 2, bad, 1, out.data()).status().Is(StatusCode::kCorrupt));
  std::vector<uint8_t> tiny = {0x01, 0x00};
  EXPECT_TRUE(DecodeLevelsV1(Encoding::RLE, 2, tiny, 1, out.data()).status().Is(StatusCode::kCorrupt));
  // V2: same body, no prefix.
  std::vector<uint8_t> v2 = Bytes(body);
  std::vector<int16_t> out2(levels.size());
  ASSERT_TRUE(DecodeLevelsV2(2, v2, static_cast<int64_t>(levels.size()), out2.data()).ok());
  EXPECT_EQ(out2, levels);
  EXPECT_FALSE(DecodeLevelsV2(2, v2, 5000, more.data()).ok());
  EXPECT_FALSE(DecodeLevelsV2(17, v2, 1, out2.data()).ok());
  EXPECT_FALSE(DecodeLevelsV2(2, v2, -1, out2.data()).ok());
}

// Encodings.md, deprecated BIT_PACKED: 0..7 with bit width 3 is 00000101 00111001 01110111.
TEST(Levels, V1BitPackedSpecExample) {
  std::vector<uint8_t> data = {0x05, 0x39, 0x77, 0xee};
  std::vector<int16_t> out(8);
  auto used = DecodeLevelsV1(Encoding::BIT_PACKED, 3, data, 8, out.data());
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(*used, 3u);
  EXPECT_EQ(out, (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // 9 values need 27 bits = 4 bytes.
  std::vector<int16_t> out9(9);
  auto used9 = DecodeLevelsV1(Encoding::BIT_PACKED, 3, data, 9, out9.data());
  ASSERT_TRUE(used9.ok());
  EXPECT_EQ(*used9, 4u);
  EXPECT_EQ(out9[8], 7);  // 0xee = 111 01110
  std::vector<int16_t> out20(20);
  EXPECT_TRUE(DecodeLevelsV1(Encoding::BIT_PACKED, 3, data, 20, out20.data()).status().Is(StatusCode::kCorrupt));
  // Width 0 consumes nothing.
  auto used0 = DecodeLevelsV1(Encoding::BIT_PACKED, 0, data, 8, out.data());
  ASSERT_TRUE(used0.ok());
  EXPECT_EQ(*used0, 0u);
  EXPECT_EQ(out, std::vector<int16_t>(8, 0));
  EXPECT_FALSE(DecodeLevelsV1(Encoding::PLAIN, 3, data, 8, out.data()).ok());
}

}  // namespace
}  // namespace rap::parquet
