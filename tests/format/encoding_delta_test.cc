// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT: the spec's
// byte vectors, round trips across block/miniblock boundaries and INT32/INT64 wraparound, skipping,
// and malformed sections.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
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

template <typename T>
std::string EncodeInts(Type type, const std::vector<T>& v) {
  auto enc = MakeValueEncoder(Encoding::DELTA_BINARY_PACKED, type, 0);
  RAP_TEST_CHECK_OK(enc);
  (*enc)->PutFixed(reinterpret_cast<const uint8_t*>(v.data()), static_cast<int64_t>(v.size()));
  EXPECT_GE((*enc)->EstimatedSize() + 1, size_t{1});
  std::string out;
  (*enc)->Finish(&out);
  return out;
}

template <typename T>
std::vector<T> DecodeInts(Type type, const std::string& bytes, int64_t n, int64_t skip_at = -1, int64_t skip = 0) {
  auto dec = MakeValueDecoder(Encoding::DELTA_BINARY_PACKED, type, 0, AsSpan(bytes), n);
  EXPECT_TRUE(dec.ok()) << dec.status().ToString();
  if (!dec.ok()) return {};
  std::vector<T> out(static_cast<size_t>(n - skip));
  if (skip_at < 0) {
    Status st = (*dec)->DecodeFixed(reinterpret_cast<uint8_t*>(out.data()), n);
    EXPECT_TRUE(st.ok()) << st.ToString();
  } else {
    EXPECT_TRUE((*dec)->DecodeFixed(reinterpret_cast<uint8_t*>(out.data()), skip_at).ok());
    EXPECT_TRUE((*dec)->Skip(skip).ok());
    EXPECT_TRUE((*dec)->DecodeFixed(reinterpret_cast<uint8_t*>(out.data() + skip_at), n - skip_at - skip).ok());
  }
  return out;
}

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string h;
  for (unsigned char c : s) {
    h += d[c >> 4];
    h += d[c & 15];
    h += ' ';
  }
  return h;
}

// Encodings.md, example 1: 1, 2, 3, 4, 5 -> header (128, 4, 5, zigzag 1), block min delta 1, widths 0.
TEST(DeltaBinaryPacked, SpecExample1) {
  const std::string expected("\x80\x01\x04\x05\x02" "\x02\x00\x00\x00\x00", 10);
  EXPECT_EQ(Hex(EncodeInts<int32_t>(Type::INT32, {1, 2, 3, 4, 5})), Hex(expected));
  EXPECT_EQ(DecodeInts<int32_t>(Type::INT32, expected, 5), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(DecodeInts<int64_t>(Type::INT64, expected, 5), (std::vector<int64_t>{1, 2, 3, 4, 5}));
}

// Example 2: 7, 5, 3, 1, 2, 3, 4, 5 -> deltas -2 -2 -2 1 1 1 1, min delta -2, relative 0 0 0 3 3 3 3 at
// bit width 2: bytes 0xc0 0x3f then zero padding to 32 values (8 bytes).
TEST(DeltaBinaryPacked, SpecExample2) {
  const std::string expected(
      "\x80\x01\x04\x08\x0e"
      "\x03\x02\x00\x00\x00"
      "\xc0\x3f\x00\x00\x00\x00\x00\x00",
      18);
  const std::vector<int64_t> values = {7, 5, 3, 1, 2, 3, 4, 5};
  EXPECT_EQ(Hex(EncodeInts<int64_t>(Type::INT64, values)), Hex(expected));
  EXPECT_EQ(DecodeInts<int64_t>(Type::INT64, expected, 8), values);
  // Writers may leave out the padding of the last miniblock; the needed bits are enough.
  EXPECT_EQ(DecodeInts<int64_t>(Type::INT64, expected.substr(0, 12), 8), values);
  const std::string cut = expected.substr(0, 11);  // the second byte of packed values is missing
  auto dec = MakeValueDecoder(Encoding::DELTA_BINARY_PACKED, Type::INT64, 0, AsSpan(cut), 8);
  ASSERT_TRUE(dec.ok());
  std::vector<int64_t> out(8);
  EXPECT_TRUE((*dec)->DecodeFixed(reinterpret_cast<uint8_t*>(out.data()), 8).Is(StatusCode::kCorrupt));
}

TEST(DeltaBinaryPacked, RoundTripBoundariesAndWraparound) {
  std::mt19937_64 rng(7);
  for (int64_t n : {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 256, 257, 1000, 4099}) {
    for (int pattern = 0; pattern < 5; ++pattern) {
      std::vector<int64_t> v64(static_cast<size_t>(n));
      std::vector<int32_t> v32(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        switch (pattern) {
          case 0: v64[i] = static_cast<int64_t>(rng()); break;                      // full 64-bit range
          case 1: v64[i] = i % 2 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max(); break;
          case 2: v64[i] = 1000 + i * 3; break;                                     // constant delta (width 0)
          case 3: v64[i] = static_cast<int64_t>(rng() % 100) - 50; break;           // small
          case 4: v64[i] = i % 7 == 0 ? std::numeric_limits<int64_t>::min() : i; break;
        }
        v32[i] = static_cast<int32_t>(pattern == 1 ? (i % 2 ? std::numeric_limits<int32_t>::min()
                                                            : std::numeric_limits<int32_t>::max())
                                                   : v64[i]);
      }
      const std::string e64 = EncodeInts(Type::INT64, v64);
      ASSERT_EQ(DecodeInts<int64_t>(Type::INT64, e64, n), v64) << "n=" << n << " pattern " << pattern;
      const std::string e32 = EncodeInts(Type::INT32, v32);
      ASSERT_EQ(DecodeInts<int32_t>(Type::INT32, e32, n), v32) << "n=" << n << " pattern " << pattern;
      if (n >= 10) {
        const int64_t at = n / 3, skip = n / 2;
        std::vector<int64_t> expect(v64.begin(), v64.begin() + at);
        expect.insert(expect.end(), v64.begin() + at + skip, v64.end());
        ASSERT_EQ(DecodeInts<int64_t>(Type::INT64, e64, n, at, skip), expect);
      }
    }
  }
}

// A writer that computes deltas one bit wider than the type, as DuckDB does (INT32 deltas in 64
// bits, INT64 deltas in 128 bits): miniblocks of extremes then need 33 (INT32) or 65 (INT64) bits.
// `bits` is the type's width; values are given as int64 (INT32 values must fit).
std::string EncodeWide(const std::vector<int64_t>& v, int bits, bool wrap_min_delta) {
  using I = __int128;
  using U = unsigned __int128;
  std::string out;
  auto uleb = [&](U x) {
    do {
      uint8_t b = static_cast<uint8_t>(x & 0x7f);
      x >>= 7;
      out.push_back(static_cast<char>(x ? b | 0x80 : b));
    } while (x);
  };
  auto zigzag = [](I x) { return x < 0 ? static_cast<U>(-x) * 2 - 1 : static_cast<U>(x) * 2; };
  uleb(128);
  uleb(4);
  uleb(v.size());
  uleb(zigzag(v[0]));
  for (size_t start = 1; start < v.size(); start += 128) {
    const size_t end = std::min(v.size(), start + 128);
    std::vector<I> d;
    for (size_t i = start; i < end; ++i) d.push_back(static_cast<I>(v[i]) - static_cast<I>(v[i - 1]));
    const I min = *std::min_element(d.begin(), d.end());
    // The min delta as a zigzag varint, wrapped to the type's width or (DuckDB, INT32) not.
    const I min_wrapped = !wrap_min_delta ? min : bits == 32 ? static_cast<I>(static_cast<int32_t>(static_cast<uint32_t>(min)))
                                     : static_cast<I>(static_cast<int64_t>(static_cast<uint64_t>(min)));
    uleb(zigzag(min_wrapped));
    std::vector<int> widths(4, 0);
    for (size_t m = 0; m < 4; ++m) {
      for (size_t i = m * 32; i < std::min(d.size(), m * 32 + 32); ++i) {
        U rel = static_cast<U>(d[i] - min);
        int w = 0;
        while (rel >> w) ++w;
        widths[m] = std::max(widths[m], w);
      }
      out.push_back(static_cast<char>(widths[m]));
    }
    for (size_t m = 0; m < 4 && m * 32 < d.size(); ++m) {
      std::vector<uint8_t> packed(static_cast<size_t>(32 * widths[m] / 8), 0);
      for (size_t i = 0; i < 32; ++i) {
        const U rel = m * 32 + i < d.size() ? static_cast<U>(d[m * 32 + i] - min) : 0;
        for (int b = 0; b < widths[m]; ++b) {
          const size_t bit = i * static_cast<size_t>(widths[m]) + static_cast<size_t>(b);
          if ((rel >> b) & 1) packed[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
        }
      }
      out.append(packed.begin(), packed.end());
    }
  }
  return out;
}

// PARQUET-2435: 33-bit INT32 and 65-bit INT64 miniblocks decode, wrapping, for extremes and for
// values across the whole range; a skip over such miniblocks lands on the right value.
TEST(DeltaBinaryPacked, WideDeltas) {
  std::mt19937_64 rng(11);
  for (int bits : {32, 64}) {
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::vector<int64_t> v(1000);
      for (size_t i = 0; i < v.size(); ++i) {
        const int64_t lo = bits == 32 ? INT32_MIN : INT64_MIN, hi = bits == 32 ? INT32_MAX : INT64_MAX;
        const uint64_t r = rng();
        switch (pattern) {
          case 0: v[i] = i % 2 ? hi : lo; break;
          case 1: v[i] = bits == 32 ? static_cast<int32_t>(r) : static_cast<int64_t>(r); break;
          case 2: v[i] = i % 64 < 32 ? static_cast<int64_t>(i) : (i % 3 ? hi - static_cast<int64_t>(i) : lo); break;
        }
      }
      const std::string enc = EncodeWide(v, bits, pattern != 1 || bits == 64);
      const size_t n = v.size();
      if (bits == 32) {
        std::vector<int32_t> expect(v.begin(), v.end());
        ASSERT_EQ(DecodeInts<int32_t>(Type::INT32, enc, static_cast<int64_t>(n)), expect) << "pattern " << pattern;
        std::vector<int32_t> skipped(expect.begin(), expect.begin() + 100);
        skipped.insert(skipped.end(), expect.begin() + 400, expect.end());
        ASSERT_EQ(DecodeInts<int32_t>(Type::INT32, enc, static_cast<int64_t>(n), 100, 300), skipped);
      } else {
        ASSERT_EQ(DecodeInts<int64_t>(Type::INT64, enc, static_cast<int64_t>(n)), v) << "pattern " << pattern;
        std::vector<int64_t> skipped(v.begin(), v.begin() + 100);
        skipped.insert(skipped.end(), v.begin() + 400, v.end());
        ASSERT_EQ(DecodeInts<int64_t>(Type::INT64, enc, static_cast<int64_t>(n), 100, 300), skipped);
      }
    }
  }
}

// The byte vectors a writer computing deltas one bit wider produces for min, max, min, written out
// by hand. INT32: deltas +(2^32-1) and -(2^32-1), min delta -(2^32-1), so the first relative delta
// is 2^33-2: a 33-bit miniblock. INT64: the min delta -(2^64-1) wraps to 1 in 64 bits, the relative
// delta is 2^65-2: a 65-bit miniblock. Both decode (wrapping) to the exact values.
TEST(DeltaBinaryPacked, HandBuilt33And65BitMiniblocks) {
  std::string w33("\x80\x01\x04\x03" "\xff\xff\xff\xff\x0f"  // block 128, 4 miniblocks, 3 values, first INT32_MIN
                  "\xfd\xff\xff\xff\x1f"                       // min delta zigzag(-(2^32-1)) = 2^33-3
                  "\x21\x00\x00\x00"                            // widths: 33, 0, 0, 0
                  "\xfe\xff\xff\xff\x01",                      // 2^33-2 at bits 0..32, then 0
                  23);
  w33.append(33 * 4 - 5, '\0');  // the rest of the 32 values x 33 bits
  EXPECT_EQ(DecodeInts<int32_t>(Type::INT32, w33, 3), (std::vector<int32_t>{INT32_MIN, INT32_MAX, INT32_MIN}));
  std::string w65("\x80\x01\x04\x03" "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"  // ..., first INT64_MIN
                  "\x02"                                                     // min delta zigzag(1)
                  "\x41\x00\x00\x00"                                      // widths: 65, 0, 0, 0
                  "\xfe\xff\xff\xff\xff\xff\xff\xff\x01",                  // 2^65-2 at bits 0..64
                  28);
  w65.append(65 * 4 - 9, '\0');
  EXPECT_EQ(DecodeInts<int64_t>(Type::INT64, w65, 3), (std::vector<int64_t>{INT64_MIN, INT64_MAX, INT64_MIN}));
  // Cut short after the last needed value (9 bytes of 33-bit values, 17 of 65-bit ones): still exact.
  EXPECT_EQ(DecodeInts<int32_t>(Type::INT32, w33.substr(0, 18 + 9), 3),
            (std::vector<int32_t>{INT32_MIN, INT32_MAX, INT32_MIN}));
  EXPECT_EQ(DecodeInts<int64_t>(Type::INT64, w65.substr(0, 19 + 17), 3),
            (std::vector<int64_t>{INT64_MIN, INT64_MAX, INT64_MIN}));
}

TEST(DeltaBinaryPacked, Malformed) {
  std::vector<int64_t> out(1000);
  auto* o = reinterpret_cast<uint8_t*>(out.data());
  auto make = [](const std::string& s, int64_t n) {
    return MakeValueDecoder(Encoding::DELTA_BINARY_PACKED, Type::INT64, 0, AsSpan(s), n);
  };
  // Block size not a multiple of 8, zero miniblocks, truncated header.
  EXPECT_TRUE(make(std::string("\x07\x01\x02\x00", 4), 2).status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(make(std::string("\x80\x01\x00\x02\x00", 5), 2).status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(make(std::string("\x80\x01\x04", 3), 2).status().Is(StatusCode::kCorrupt));
  // A total count above the page's value count, or above what the bytes could hold.
  const std::string many("\x80\x01\x04\xff\xff\xff\xff\x0f\x00" "\x02\x00\x00\x00\x00", 14);
  EXPECT_TRUE(make(many, int64_t{1} << 40).status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(make(many, 100).status().Is(StatusCode::kCorrupt));
  // Bit width 66 in a used miniblock (65 is allowed, see WideDeltas).
  const std::string wide("\x80\x01\x04\x03\x00" "\x00\x42\x00\x00\x00", 10);
  auto dec = make(wide, 3);
  ASSERT_TRUE(dec.ok());
  Status st = (*dec)->DecodeFixed(o, 3);
  ASSERT_TRUE(st.Is(StatusCode::kCorrupt));
  EXPECT_NE(st.message().find("DELTA_BINARY_PACKED INT64"), std::string::npos) << st.message();
  // The message names the width, the limit and the byte offset (just past the block's width bytes).
  EXPECT_NE(st.message().find("miniblock bit width 66 exceeds 65 at byte 10"), std::string::npos) << st.message();
  // INT32 streams allow at most 33 bits.
  const std::string w34("\x80\x01\x04\x03\x00" "\x00\x22\x00\x00\x00", 10);
  auto dec32 = MakeValueDecoder(Encoding::DELTA_BINARY_PACKED, Type::INT32, 0, AsSpan(w34), 3);
  ASSERT_TRUE(dec32.ok());
  Status st32 = (*dec32)->DecodeFixed(o, 3);
  EXPECT_TRUE(st32.Is(StatusCode::kCorrupt));
  EXPECT_NE(st32.message().find("miniblock bit width 34 exceeds 33 at byte 10"), std::string::npos) << st32.message();
  // More values asked for than the header holds.
  const std::string five("\x80\x01\x04\x05\x02" "\x02\x00\x00\x00\x00", 10);
  auto dec5 = make(five, 10);
  ASSERT_TRUE(dec5.ok());
  EXPECT_TRUE((*dec5)->DecodeFixed(o, 6).Is(StatusCode::kCorrupt));
  // Missing block after the header.
  const std::string header_only = five.substr(0, 5);
  auto dec_nb = make(header_only, 5);
  ASSERT_TRUE(dec_nb.status().Is(StatusCode::kCorrupt) || !(*dec_nb)->DecodeFixed(o, 5).ok());
  EXPECT_TRUE(MakeValueDecoder(Encoding::DELTA_BINARY_PACKED, Type::DOUBLE, 0, AsSpan(five), 5)
                  .status()
                  .Is(StatusCode::kNotSupported));
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

Strings SortedStrings(size_t n, std::mt19937_64& rng) {
  std::vector<std::string> v;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = i % 13 == 0 ? 0 : (i % 97 == 0 ? 3000 : 1 + rng() % 12);
    std::string s(len, '\0');
    for (auto& c : s) c = static_cast<char>('a' + rng() % 3);
    v.push_back(s);
  }
  std::sort(v.begin(), v.end());
  Strings out;
  for (auto& s : v) out.Add(s);
  return out;
}

std::string EncodeStrings(Encoding e, const Strings& s) {
  auto enc = MakeValueEncoder(e, Type::BYTE_ARRAY, 0);
  RAP_TEST_CHECK_OK(enc);
  (*enc)->PutBinary(s.offsets.data(), s.data.data(), static_cast<int64_t>(s.size()));
  std::string out;
  (*enc)->Finish(&out);
  return out;
}

TEST(DeltaByteArrays, RoundTrip) {
  std::mt19937_64 rng(9);
  for (Encoding e : {Encoding::DELTA_LENGTH_BYTE_ARRAY, Encoding::DELTA_BYTE_ARRAY}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{8}, size_t{128}, size_t{129}, size_t{1000}}) {
      const Strings s = SortedStrings(n, rng);
      const std::string bytes = EncodeStrings(e, s);
      const int64_t at = static_cast<int64_t>(n / 3), skip = static_cast<int64_t>(n / 4);
      auto dec = MakeValueDecoder(e, Type::BYTE_ARRAY, 0, AsSpan(bytes), static_cast<int64_t>(n));
      ASSERT_TRUE(dec.ok()) << dec.status().ToString();
      Strings out;
      ASSERT_TRUE((*dec)->DecodeBinary(at, {&out.offsets, &out.data}).ok());
      ASSERT_TRUE((*dec)->Skip(skip).ok());
      ASSERT_TRUE((*dec)->DecodeBinary(static_cast<int64_t>(n) - at - skip, {&out.offsets, &out.data}).ok());
      ASSERT_EQ(out.size(), n - static_cast<size_t>(skip));
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(out.Get(i), s.Get(i < static_cast<size_t>(at) ? i : i + static_cast<size_t>(skip))) << i;
      }
      EXPECT_FALSE((*dec)->DecodeBinary(1, {&out.offsets, &out.data}).ok());
    }
  }
}

// Encodings.md: DELTA_LENGTH_BYTE_ARRAY of "Hello", "World", "Foobar", "ABCDEF" is
// DeltaEncoding(5, 5, 6, 6) "HelloWorldFoobarABCDEF".
TEST(DeltaByteArrays, SpecExamples) {
  Strings s;
  for (const char* v : {"Hello", "World", "Foobar", "ABCDEF"}) s.Add(v);
  const std::string dlba = EncodeStrings(Encoding::DELTA_LENGTH_BYTE_ARRAY, s);
  // Lengths 5 5 6 6: deltas 0 1 0, min 0, width 1: 0b010 = 0x02 in the first miniblock.
  const std::string lengths("\x80\x01\x04\x04\x0a" "\x00\x01\x00\x00\x00" "\x02\x00\x00\x00", 14);
  EXPECT_EQ(Hex(dlba), Hex(lengths + "HelloWorldFoobarABCDEF"));
  // DELTA_BYTE_ARRAY of "axis", "axle", "babble", "babyhood": prefixes 0 2 0 3, suffixes
  // "axis" "le" "babble" "yhood".
  Strings t;
  for (const char* v : {"axis", "axle", "babble", "babyhood"}) t.Add(v);
  const std::string dba = EncodeStrings(Encoding::DELTA_BYTE_ARRAY, t);
  EXPECT_NE(dba.find("axislebabbleyhood"), std::string::npos);
  auto dec = MakeValueDecoder(Encoding::DELTA_BYTE_ARRAY, Type::BYTE_ARRAY, 0, AsSpan(dba), 4);
  ASSERT_TRUE(dec.ok());
  Strings out;
  ASSERT_TRUE((*dec)->DecodeBinary(4, {&out.offsets, &out.data}).ok());
  EXPECT_EQ(out.Get(3), "babyhood");
}

TEST(DeltaByteArrays, FixedLenByteArray) {
  std::vector<uint8_t> values;
  for (int i = 0; i < 300; ++i) {
    const uint8_t v[4] = {1, 2, static_cast<uint8_t>(i / 16), static_cast<uint8_t>(i)};
    values.insert(values.end(), v, v + 4);
  }
  auto enc = MakeValueEncoder(Encoding::DELTA_BYTE_ARRAY, Type::FIXED_LEN_BYTE_ARRAY, 4);
  ASSERT_TRUE(enc.ok());
  (*enc)->PutFixed(values.data(), 300);
  std::string bytes;
  (*enc)->Finish(&bytes);
  EXPECT_LT(bytes.size(), values.size());
  auto dec = MakeValueDecoder(Encoding::DELTA_BYTE_ARRAY, Type::FIXED_LEN_BYTE_ARRAY, 4, AsSpan(bytes), 300);
  ASSERT_TRUE(dec.ok());
  std::vector<uint8_t> out(values.size());
  ASSERT_TRUE((*dec)->DecodeFixed(out.data(), 100).ok());
  ASSERT_TRUE((*dec)->Skip(50).ok());
  ASSERT_TRUE((*dec)->DecodeFixed(out.data() + 150 * 4, 150).ok());
  std::fill(out.begin() + 400, out.begin() + 600, 0);
  std::fill(values.begin() + 400, values.begin() + 600, 0);
  EXPECT_EQ(out, values);
  // Decoding the same bytes as FLBA(3) finds values of the wrong size.
  auto dec3 = MakeValueDecoder(Encoding::DELTA_BYTE_ARRAY, Type::FIXED_LEN_BYTE_ARRAY, 3, AsSpan(bytes), 300);
  ASSERT_TRUE(dec3.ok());
  EXPECT_TRUE((*dec3)->DecodeFixed(out.data(), 1).Is(StatusCode::kCorrupt));
}

TEST(DeltaByteArrays, Malformed) {
  Strings s;
  for (const char* v : {"Hello", "World", "Foobar", "ABCDEF"}) s.Add(v);
  const std::string dlba = EncodeStrings(Encoding::DELTA_LENGTH_BYTE_ARRAY, s);
  // Bytes cut short: the lengths promise more than is there.
  EXPECT_TRUE(MakeValueDecoder(Encoding::DELTA_LENGTH_BYTE_ARRAY, Type::BYTE_ARRAY, 0,
                               AsSpan(dlba.substr(0, dlba.size() - 1)), 4)
                  .status()
                  .Is(StatusCode::kCorrupt));
  // A negative length: first value -1 (zigzag 1).
  const std::string neg("\x80\x01\x04\x01\x01", 5);
  EXPECT_TRUE(MakeValueDecoder(Encoding::DELTA_LENGTH_BYTE_ARRAY, Type::BYTE_ARRAY, 0, AsSpan(neg), 1)
                  .status()
                  .Is(StatusCode::kCorrupt));
  // DELTA_BYTE_ARRAY whose first prefix length (3) exceeds the (empty) previous value.
  const std::string bad_prefix = std::string("\x80\x01\x04\x01\x06", 5) + std::string("\x80\x01\x04\x01\x02", 5) + "ab";
  auto dec = MakeValueDecoder(Encoding::DELTA_BYTE_ARRAY, Type::BYTE_ARRAY, 0, AsSpan(bad_prefix), 1);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  Strings out;
  EXPECT_TRUE((*dec)->DecodeBinary(1, {&out.offsets, &out.data}).Is(StatusCode::kCorrupt));
  // Prefix and suffix counts differ.
  const std::string mismatch = std::string("\x80\x01\x04\x02\x00" "\x00\x00\x00\x00\x00", 10) +
                               std::string("\x80\x01\x04\x01\x02", 5) + "ab";
  EXPECT_TRUE(MakeValueDecoder(Encoding::DELTA_BYTE_ARRAY, Type::BYTE_ARRAY, 0, AsSpan(mismatch), 2)
                  .status()
                  .Is(StatusCode::kCorrupt));
}

TEST(ByteStreamSplit, RoundTripAllWidths) {
  std::mt19937_64 rng(11);
  struct Case {
    Type type;
    int32_t len;
  };
  for (Case c : {Case{Type::FLOAT, 0}, Case{Type::DOUBLE, 0}, Case{Type::INT32, 0}, Case{Type::INT64, 0},
                 Case{Type::FIXED_LEN_BYTE_ARRAY, 2}, Case{Type::FIXED_LEN_BYTE_ARRAY, 5},
                 Case{Type::FIXED_LEN_BYTE_ARRAY, 16}}) {
    const int w = PhysicalWidth(c.type, c.len);
    for (int64_t n : {0, 1, 8, 129, 1000}) {
      std::vector<uint8_t> values(static_cast<size_t>(n * w));
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      auto enc = MakeValueEncoder(Encoding::BYTE_STREAM_SPLIT, c.type, c.len);
      ASSERT_TRUE(enc.ok());
      (*enc)->PutFixed(values.data(), n);
      std::string bytes;
      (*enc)->Finish(&bytes);
      ASSERT_EQ(bytes.size(), values.size());
      if (n > 1) {
        EXPECT_EQ(static_cast<uint8_t>(bytes[1]), values[static_cast<size_t>(w)]);  // stream 0, value 1
      }
      auto dec = MakeValueDecoder(Encoding::BYTE_STREAM_SPLIT, c.type, c.len, AsSpan(bytes), n);
      ASSERT_TRUE(dec.ok());
      std::vector<uint8_t> out(values.size());
      const int64_t at = n / 2, skip = n / 4;
      ASSERT_TRUE((*dec)->DecodeFixed(out.data(), at).ok());
      ASSERT_TRUE((*dec)->Skip(skip).ok());
      ASSERT_TRUE((*dec)->DecodeFixed(out.data() + (at + skip) * w, n - at - skip).ok());
      std::fill(out.begin() + at * w, out.begin() + (at + skip) * w, 0);
      std::fill(values.begin() + at * w, values.begin() + (at + skip) * w, 0);
      EXPECT_EQ(out, values);
      EXPECT_TRUE((*dec)->DecodeFixed(out.data(), 1).Is(StatusCode::kCorrupt));
    }
  }
}

// Known layout: floats 1.0f (00 00 80 3f) and 2.0f (00 00 00 40) -> streams 00 00 | 00 00 | 80 00 | 3f 40.
TEST(ByteStreamSplit, KnownBytesAndMalformed) {
  const std::string bytes("\x00\x00\x00\x00\x80\x00\x3f\x40", 8);
  auto dec = MakeValueDecoder(Encoding::BYTE_STREAM_SPLIT, Type::FLOAT, 0, AsSpan(bytes), 2);
  ASSERT_TRUE(dec.ok());
  float f[2];
  ASSERT_TRUE((*dec)->DecodeFixed(reinterpret_cast<uint8_t*>(f), 2).ok());
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 2.0f);
  EXPECT_TRUE(MakeValueDecoder(Encoding::BYTE_STREAM_SPLIT, Type::DOUBLE, 0, AsSpan(bytes.substr(0, 7)), 1)
                  .status()
                  .Is(StatusCode::kCorrupt));
  EXPECT_TRUE(MakeValueDecoder(Encoding::BYTE_STREAM_SPLIT, Type::BYTE_ARRAY, 0, AsSpan(bytes), 1)
                  .status()
                  .Is(StatusCode::kNotSupported));
}

}  // namespace
}  // namespace rap::parquet
