// PLAIN, dictionary-index and RLE-boolean value encodings: encoder/decoder round trips for every
// physical type, skipping, known byte layouts, and malformed sections.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rap/format/encoding.h"
#include "testing/result_check.h"

namespace rap::parquet {
namespace {

std::span<const uint8_t> AsSpan(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::unique_ptr<ValueDecoder> Decoder(Encoding e, Type t, int32_t len, const std::string& data, int64_t n) {
  auto r = MakeValueDecoder(e, t, len, AsSpan(data), n);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

std::string Encode(Encoding e, Type t, int32_t len, const std::vector<uint8_t>& fixed, int64_t n) {
  auto enc = MakeValueEncoder(e, t, len);
  RAP_TEST_CHECK_OK(enc);
  (*enc)->PutFixed(fixed.data(), n);
  std::string out;
  (*enc)->Finish(&out);
  return out;
}

struct Strings {
  rap::UninitVector<int32_t> offsets{0};
  rap::ByteVector data;
  void Add(const std::string& s) {
    data.insert(data.end(), s.begin(), s.end());
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  std::string Get(size_t i) const { return std::string(data.begin() + offsets[i], data.begin() + offsets[i + 1]); }
  size_t size() const { return offsets.size() - 1; }
};

Strings RandomStrings(size_t n, std::mt19937_64& rng) {
  Strings s;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = i % 17 == 0 ? 0 : (i % 101 == 0 ? 5000 : rng() % 20);
    std::string v(len, '\0');
    for (auto& c : v) c = static_cast<char>('a' + rng() % 26);
    s.Add(v);
  }
  return s;
}

const int64_t kCounts[] = {0, 1, 7, 8, 9, 64, 128, 129, 1000};

TEST(Plain, FixedWidthRoundTripAndSkip) {
  std::mt19937_64 rng(1);
  struct Case {
    Type type;
    int32_t len;
  };
  for (Case c : {Case{Type::INT32, 0}, Case{Type::INT64, 0}, Case{Type::INT96, 0}, Case{Type::FLOAT, 0},
                 Case{Type::DOUBLE, 0}, Case{Type::FIXED_LEN_BYTE_ARRAY, 3}, Case{Type::FIXED_LEN_BYTE_ARRAY, 16}}) {
    const int w = PhysicalWidth(c.type, c.len);
    for (int64_t n : kCounts) {
      std::vector<uint8_t> values(static_cast<size_t>(n * w));
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      const std::string enc = Encode(Encoding::PLAIN, c.type, c.len, values, n);
      ASSERT_EQ(enc.size(), values.size());
      EXPECT_EQ(std::vector<uint8_t>(enc.begin(), enc.end()), values);
      auto dec = Decoder(Encoding::PLAIN, c.type, c.len, enc, n);
      // Decode the first third, skip the second, decode the rest.
      const int64_t a = n / 3, b = n / 3;
      std::vector<uint8_t> out(values.size());
      ASSERT_TRUE(dec->DecodeFixed(out.data(), a).ok());
      ASSERT_TRUE(dec->Skip(b).ok());
      ASSERT_TRUE(dec->DecodeFixed(out.data() + (a + b) * w, n - a - b).ok());
      std::fill(values.begin() + a * w, values.begin() + (a + b) * w, 0);  // the skipped values stay unwritten
      std::fill(out.begin() + a * w, out.begin() + (a + b) * w, 0);
      EXPECT_EQ(out, values);
      // The section is exhausted now.
      EXPECT_TRUE(dec->DecodeFixed(out.data(), 1).Is(StatusCode::kCorrupt));
    }
  }
}

TEST(Plain, FixedWidthTruncated) {
  const std::string enc(10, 'x');  // 2.5 INT32s
  auto dec = Decoder(Encoding::PLAIN, Type::INT32, 0, enc, 3);
  std::vector<uint8_t> out(12);
  ASSERT_TRUE(dec->DecodeFixed(out.data(), 2).ok());
  Status st = dec->DecodeFixed(out.data(), 1);
  ASSERT_TRUE(st.Is(StatusCode::kCorrupt));
  EXPECT_NE(st.message().find("PLAIN INT32"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at byte 8"), std::string::npos) << st.message();
  // A count larger than the page's declared value count is refused before touching the data.
  auto dec2 = Decoder(Encoding::PLAIN, Type::INT32, 0, enc, 1);
  EXPECT_TRUE(dec2->Skip(2).Is(StatusCode::kCorrupt));
  auto dec3 = Decoder(Encoding::PLAIN, Type::INT64, 0, enc, int64_t{1} << 40);
  EXPECT_TRUE(dec3->Skip(int64_t{1} << 40).Is(StatusCode::kCorrupt));
  EXPECT_TRUE(dec3->DecodeBinary(1, {nullptr, nullptr}).Is(StatusCode::kInvalidArgument));
}

TEST(Plain, Boolean) {
  std::mt19937_64 rng(2);
  for (int64_t n : kCounts) {
    std::vector<uint8_t> values(static_cast<size_t>(n));
    for (auto& v : values) v = rng() % 2;
    const std::string enc = Encode(Encoding::PLAIN, Type::BOOLEAN, 0, values, n);
    ASSERT_EQ(enc.size(), static_cast<size_t>((n + 7) / 8));
    for (int64_t skip : {int64_t{0}, int64_t{3}, int64_t{8}}) {
      if (skip > n) continue;
      auto dec = Decoder(Encoding::PLAIN, Type::BOOLEAN, 0, enc, n);
      ASSERT_TRUE(dec->Skip(skip).ok());
      std::vector<uint8_t> out(static_cast<size_t>(n - skip));
      ASSERT_TRUE(dec->DecodeFixed(out.data(), n - skip).ok());
      EXPECT_EQ(out, std::vector<uint8_t>(values.begin() + skip, values.end()));
    }
  }
  // LSB first: 0b00000101 -> true, false, true, false...
  const std::string bits("\x05", 1);  // the decoder references the section: keep it alive
  auto dec = Decoder(Encoding::PLAIN, Type::BOOLEAN, 0, bits, 9);
  std::vector<uint8_t> out(9);
  ASSERT_TRUE(dec->DecodeFixed(out.data(), 8).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(dec->DecodeFixed(out.data(), 1).Is(StatusCode::kCorrupt));
}

TEST(Plain, ByteArray) {
  std::mt19937_64 rng(3);
  for (int64_t n : kCounts) {
    Strings s = RandomStrings(static_cast<size_t>(n), rng);
    auto enc = MakeValueEncoder(Encoding::PLAIN, Type::BYTE_ARRAY, 0);
    ASSERT_TRUE(enc.ok());
    (*enc)->PutBinary(s.offsets.data(), s.data.data(), n);
    EXPECT_EQ((*enc)->EstimatedSize(), s.data.size() + 4 * static_cast<size_t>(n));
    std::string bytes;
    (*enc)->Finish(&bytes);
    auto dec = Decoder(Encoding::PLAIN, Type::BYTE_ARRAY, 0, bytes, n);
    Strings out;
    const int64_t a = n / 2, skip = n / 4;
    ASSERT_TRUE(dec->DecodeBinary(a, {&out.offsets, &out.data}).ok());
    ASSERT_TRUE(dec->Skip(skip).ok());
    ASSERT_TRUE(dec->DecodeBinary(n - a - skip, {&out.offsets, &out.data}).ok());
    ASSERT_EQ(out.size(), static_cast<size_t>(n - skip));
    for (int64_t i = 0; i < n - skip; ++i) {
      EXPECT_EQ(out.Get(static_cast<size_t>(i)), s.Get(static_cast<size_t>(i < a ? i : i + skip)));
    }
  }
  // Known bytes: "ab", "" -> 02 00 00 00 'a' 'b' 00 00 00 00.
  const std::string known("\x02\x00\x00\x00" "ab" "\x00\x00\x00\x00", 10);
  auto dec = Decoder(Encoding::PLAIN, Type::BYTE_ARRAY, 0, known, 2);
  Strings out;
  ASSERT_TRUE(dec->DecodeBinary(2, {&out.offsets, &out.data}).ok());
  EXPECT_EQ(out.offsets, (rap::UninitVector<int32_t>{0, 2, 2}));
  // A length that runs past the end.
  const std::string bad("\x02\x00\x00\x00" "ab" "\x09\x00\x00\x00" "xyz", 13);
  auto dec2 = Decoder(Encoding::PLAIN, Type::BYTE_ARRAY, 0, bad, 2);
  Strings out2;
  Status st = dec2->DecodeBinary(2, {&out2.offsets, &out2.data});
  ASSERT_TRUE(st.Is(StatusCode::kCorrupt));
  EXPECT_NE(st.message().find("at byte 6"), std::string::npos) << st.message();
  EXPECT_EQ(out2.size(), 0u);  // nothing appended on failure
  auto dec3 = Decoder(Encoding::PLAIN, Type::BYTE_ARRAY, 0, bad, 2);
  EXPECT_TRUE(dec3->Skip(2).Is(StatusCode::kCorrupt));
}

TEST(Dictionary, IndicesRoundTrip) {
  std::mt19937_64 rng(4);
  for (int32_t dict_size : {0, 1, 2, 3, 255, 256, 70000}) {
    for (int64_t n : kCounts) {
      if (dict_size == 0 && n > 0) continue;
      std::vector<int32_t> idx(static_cast<size_t>(n));
      for (auto& v : idx) v = dict_size ? static_cast<int32_t>(rng() % 3 == 0 ? 0 : rng() % dict_size) : 0;
      auto enc = MakeValueEncoder(Encoding::RLE_DICTIONARY, Type::INT64, 0, dict_size);
      ASSERT_TRUE(enc.ok());
      (*enc)->PutIndices(idx.data(), n);
      std::string bytes;
      (*enc)->Finish(&bytes);
      ASSERT_GE(bytes.size(), 1u);
      const int width = dict_size <= 1 ? 0 : 64 - __builtin_clzll(static_cast<uint64_t>(dict_size - 1));
      EXPECT_EQ(static_cast<uint8_t>(bytes[0]), width);
      for (Encoding e : {Encoding::RLE_DICTIONARY, Encoding::PLAIN_DICTIONARY}) {
        auto dec = Decoder(e, Type::INT64, 0, bytes, n);
        std::vector<int32_t> out(static_cast<size_t>(n));
        const int64_t skip = n / 5;
        ASSERT_TRUE(dec->Skip(skip).ok());
        ASSERT_TRUE(dec->DecodeIndices(out.data(), n - skip).ok());
        out.resize(static_cast<size_t>(n - skip));
        EXPECT_EQ(out, std::vector<int32_t>(idx.begin() + skip, idx.end()));
        EXPECT_FALSE(dec->DecodeIndices(out.data(), 1).ok());
      }
    }
  }
}

TEST(Dictionary, Malformed) {
  EXPECT_TRUE(MakeValueDecoder(Encoding::RLE_DICTIONARY, Type::INT32, 0, {}, 3).status().Is(StatusCode::kCorrupt));
  const std::string wide("\x21\x02\x00", 3);
  EXPECT_TRUE(MakeValueDecoder(Encoding::RLE_DICTIONARY, Type::INT32, 0, AsSpan(wide), 1).status().Is(StatusCode::kCorrupt));
  // Bit width 2, RLE run of 3 x value 1, then asking for 5 values.
  const std::string short_run("\x02\x06\x01", 3);
  auto dec = Decoder(Encoding::RLE_DICTIONARY, Type::INT32, 0, short_run, 5);
  std::vector<int32_t> out(5);
  Status st = dec->DecodeIndices(out.data(), 5);
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
  std::vector<uint8_t> fixed(20);
  EXPECT_TRUE(dec->DecodeFixed(fixed.data(), 1).Is(StatusCode::kInvalidArgument));
}

TEST(RleBoolean, RoundTripAndLayout) {
  std::mt19937_64 rng(5);
  for (int64_t n : kCounts) {
    std::vector<uint8_t> values(static_cast<size_t>(n));
    for (size_t i = 0; i < values.size(); ++i) values[i] = (i / 50) % 2 ? 1 : rng() % 2;
    const std::string enc = Encode(Encoding::RLE, Type::BOOLEAN, 0, values, n);
    uint32_t len = 0;
    std::memcpy(&len, enc.data(), 4);
    EXPECT_EQ(len + 4, enc.size());
    auto dec = Decoder(Encoding::RLE, Type::BOOLEAN, 0, enc, n);
    const int64_t skip = n / 3;
    ASSERT_TRUE(dec->Skip(skip).ok());
    std::vector<uint8_t> out(static_cast<size_t>(n - skip));
    ASSERT_TRUE(dec->DecodeFixed(out.data(), n - skip).ok());
    EXPECT_EQ(out, std::vector<uint8_t>(values.begin() + skip, values.end()));
  }
  // 10 x true: length 2, RLE header 0x14, value 0x01.
  const std::string known("\x02\x00\x00\x00\x14\x01", 6);
  auto dec = Decoder(Encoding::RLE, Type::BOOLEAN, 0, known, 10);
  std::vector<uint8_t> out(10);
  ASSERT_TRUE(dec->DecodeFixed(out.data(), 10).ok());
  EXPECT_EQ(out, std::vector<uint8_t>(10, 1));
  const std::string bad_len("\x09\x00\x00\x00\x14\x01", 6);
  EXPECT_TRUE(MakeValueDecoder(Encoding::RLE, Type::BOOLEAN, 0, AsSpan(bad_len), 10).status().Is(StatusCode::kCorrupt));
  const std::string bad_value("\x02\x00\x00\x00\x14\x02", 6);
  auto dec2 = Decoder(Encoding::RLE, Type::BOOLEAN, 0, bad_value, 10);
  EXPECT_TRUE(dec2->DecodeFixed(out.data(), 10).Is(StatusCode::kCorrupt));
}

TEST(Factory, UnsupportedCombinations) {
  const std::string d(8, '\0');
  EXPECT_TRUE(MakeValueDecoder(Encoding::RLE, Type::INT32, 0, AsSpan(d), 1).status().Is(StatusCode::kNotSupported));
  EXPECT_TRUE(MakeValueDecoder(Encoding::GROUP_VAR_INT, Type::INT32, 0, AsSpan(d), 1).status().Is(StatusCode::kNotSupported));
  EXPECT_TRUE(MakeValueDecoder(Encoding::PLAIN, Type::FIXED_LEN_BYTE_ARRAY, 0, AsSpan(d), 1).status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(MakeValueEncoder(Encoding::RLE, Type::DOUBLE, 0).status().Is(StatusCode::kNotSupported));
  EXPECT_EQ(PhysicalWidth(Type::BYTE_ARRAY, 0), -1);
  EXPECT_EQ(PhysicalWidth(Type::INT96, 0), 12);
  EXPECT_EQ(PhysicalWidth(Type::FIXED_LEN_BYTE_ARRAY, 7), 7);
}

}  // namespace
}  // namespace rap::parquet
