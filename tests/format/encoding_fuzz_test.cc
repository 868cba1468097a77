// Robustness: valid sections that are then truncated or have bytes flipped, and plain random bytes,
// are fed to every decoder, the hybrid decoder and every codec. Any outcome is fine except a crash,
// a hang, or a read or write outside the buffers (checked under AddressSanitizer in CI), and every
// error is Corrupt with a message.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rap/codec/codec.h"
#include "rap/format/encoding.h"
#include "rap/format/levels.h"
#include "testing/result_check.h"

namespace rap::parquet {
namespace {

struct Combo {
  Encoding encoding;
  Type type;
  int32_t type_length;
};

const Combo kCombos[] = {
    {Encoding::PLAIN, Type::BOOLEAN, 0},
    {Encoding::PLAIN, Type::INT32, 0},
    {Encoding::PLAIN, Type::INT96, 0},
    {Encoding::PLAIN, Type::BYTE_ARRAY, 0},
    {Encoding::PLAIN, Type::FIXED_LEN_BYTE_ARRAY, 5},
    {Encoding::RLE_DICTIONARY, Type::DOUBLE, 0},
    {Encoding::RLE, Type::BOOLEAN, 0},
    {Encoding::DELTA_BINARY_PACKED, Type::INT32, 0},
    {Encoding::DELTA_BINARY_PACKED, Type::INT64, 0},
    {Encoding::DELTA_LENGTH_BYTE_ARRAY, Type::BYTE_ARRAY, 0},
    {Encoding::DELTA_BYTE_ARRAY, Type::BYTE_ARRAY, 0},
    {Encoding::DELTA_BYTE_ARRAY, Type::FIXED_LEN_BYTE_ARRAY, 3},
    {Encoding::BYTE_STREAM_SPLIT, Type::FLOAT, 0},
    {Encoding::BYTE_STREAM_SPLIT, Type::FIXED_LEN_BYTE_ARRAY, 7},
};

// A valid section of n values for the combination (random values).
std::string ValidSection(const Combo& c, int64_t n, std::mt19937_64& rng) {
  auto enc = MakeValueEncoder(c.encoding, c.type, c.type_length, 300);
  RAP_TEST_CHECK_OK(enc);
  const int w = PhysicalWidth(c.type, c.type_length);
  if (c.encoding == Encoding::RLE_DICTIONARY) {
    std::vector<int32_t> idx(static_cast<size_t>(n));
    for (auto& v : idx) v = static_cast<int32_t>(rng() % 300);
    (*enc)->PutIndices(idx.data(), n);
  } else if (w < 0) {
    std::vector<int32_t> offsets{0};
    std::vector<uint8_t> data;
    for (int64_t i = 0; i < n; ++i) {
      const size_t len = rng() % 12;
      for (size_t j = 0; j < len; ++j) data.push_back(static_cast<uint8_t>('a' + rng() % 3));
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    (*enc)->PutBinary(offsets.data(), data.data(), n);
  } else {
    std::vector<uint8_t> v(static_cast<size_t>(n * w));
    for (auto& b : v) b = c.type == Type::BOOLEAN ? rng() % 2 : static_cast<uint8_t>(rng() % 7);
    (*enc)->PutFixed(v.data(), n);
  }
  std::string out;
  (*enc)->Finish(&out);
  return out;
}

// Runs a decoder over `data` with random calls until it fails or the values run out.
void Exercise(const Combo& c, const std::vector<uint8_t>& data, int64_t num_values, std::mt19937_64& rng) {
  auto dec = MakeValueDecoder(c.encoding, c.type, c.type_length, data, num_values);
  if (!dec.ok()) {
    EXPECT_TRUE(dec.status().Is(StatusCode::kCorrupt)) << dec.status().ToString();
    return;
  }
  const int w = PhysicalWidth(c.type, c.type_length);
  for (int call = 0; call < 50; ++call) {
    const int64_t n = static_cast<int64_t>(rng() % 200);
    Status st;
    if (rng() % 4 == 0) {
      st = (*dec)->Skip(n);
    } else if (c.encoding == Encoding::RLE_DICTIONARY) {
      std::vector<int32_t> out(static_cast<size_t>(n));
      st = (*dec)->DecodeIndices(out.data(), n);
    } else if (w < 0) {
      rap::UninitVector<int32_t> offsets{0};
      rap::ByteVector bytes;
      st = (*dec)->DecodeBinary(n, {&offsets, &bytes});
      if (st.ok()) {
        ASSERT_EQ(offsets.size(), static_cast<size_t>(n) + 1);
        ASSERT_EQ(static_cast<size_t>(offsets.back()), bytes.size());
      }
    } else {
      std::vector<uint8_t> out(static_cast<size_t>(n * w));
      st = (*dec)->DecodeFixed(out.data(), n);
    }
    if (!st.ok()) {
      EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
      EXPECT_FALSE(st.message().empty());
      return;
    }
  }
}

TEST(EncodingFuzz, MutatedAndRandomSections) {
  std::mt19937_64 rng(123);
  for (int iter = 0; iter < 3000; ++iter) {
    const Combo& c = kCombos[rng() % std::size(kCombos)];
    const int64_t n = static_cast<int64_t>(rng() % 700);
    std::string section;
    switch (rng() % 4) {
      case 0: {  // random bytes
        section.resize(rng() % 300);
        for (auto& ch : section) ch = static_cast<char>(rng());
        break;
      }
      case 1:  // truncated
        section = ValidSection(c, n, rng);
        section.resize(section.empty() ? 0 : rng() % section.size());
        break;
      default: {  // a few flipped bytes
        section = ValidSection(c, n, rng);
        for (int k = 0; k < 3 && !section.empty(); ++k) section[rng() % section.size()] ^= static_cast<char>(1 + rng() % 255);
      }
    }
    // Exactly sized heap copy, so that any overread is caught by the sanitizer.
    const std::vector<uint8_t> data(section.begin(), section.end());
    const int64_t claimed = rng() % 8 == 0 ? (int64_t{1} << 40) : n + static_cast<int64_t>(rng() % 3);
    Exercise(c, data, claimed, rng);
  }
}

TEST(EncodingFuzz, HybridDecoderRandomBytes) {
  std::mt19937_64 rng(5);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> data(rng() % 64);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    const int width = static_cast<int>(rng() % 34);
    RleBitPackedDecoder dec(data.data(), data.size(), width);
    std::vector<int32_t> out(4096);
    for (int call = 0; call < 10; ++call) {
      auto r = rng() % 3 == 0 ? dec.Skip(static_cast<int64_t>(rng() % 5000))
                              : dec.GetBatch(out.data(), static_cast<int64_t>(rng() % out.size()));
      if (!r.ok() || *r == 0) break;
    }
  }
}

TEST(EncodingFuzz, CodecsOnMutatedInput) {
  std::mt19937_64 rng(77);
  std::vector<uint8_t> plain(3000);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<uint8_t>(i % 17 == 0 ? rng() : i / 100);
  for (Codec c : {Codec::SNAPPY, Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW, Codec::BROTLI}) {
    std::string comp;
    ASSERT_TRUE(Compress(c, 0, plain, &comp).ok());
    for (int iter = 0; iter < 300; ++iter) {
      std::string m = comp;
      if (iter % 2) {
        m.resize(rng() % m.size());
      } else {
        for (int k = 0; k < 2; ++k) m[rng() % m.size()] ^= static_cast<char>(1 + rng() % 255);
      }
      const std::vector<uint8_t> in(m.begin(), m.end());
      std::vector<uint8_t> out(plain.size() + (rng() % 3) - 1);
      for (Codec as : {c, Codec::LZ4}) {
        Status st = Decompress(as, in, out);
        if (!st.ok()) {
          EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
        }
      }
    }
  }
}

}  // namespace
}  // namespace rap::parquet
