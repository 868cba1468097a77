// ORC's compression framing: chunks built here with each codec's library, then decoded.
#include "rap/orc/compression.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

namespace rap::orc {
namespace {

std::string Header(size_t len, bool original) {
  const uint32_t h = static_cast<uint32_t>(len << 1) | (original ? 1u : 0u);
  return std::string{static_cast<char>(h & 0xff), static_cast<char>((h >> 8) & 0xff),
                     static_cast<char>((h >> 16) & 0xff)};
}

std::string Deflate(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Compress(Compression c, const std::string& in) {
  switch (c) {
    case Compression::kZlib:
      return Deflate(in);
    case Compression::kSnappy: {
      std::string out;
      snappy::Compress(in.data(), in.size(), &out);
      return out;
    }
    case Compression::kZstd: {
      std::string out(ZSTD_compressBound(in.size()), '\0');
      out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3));
      return out;
    }
    case Compression::kLz4: {
      std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))), '\0');
      out.resize(static_cast<size_t>(
          LZ4_compress_default(in.data(), out.data(), static_cast<int>(in.size()), static_cast<int>(out.size()))));
      return out;
    }
    case Compression::kLzo: {
      EXPECT_EQ(lzo_init(), LZO_E_OK);
      std::vector<uint8_t> wrk(LZO1X_1_MEM_COMPRESS);
      std::string out(in.size() + in.size() / 16 + 64 + 3, '\0');
      lzo_uint n = out.size();
      lzo1x_1_compress(reinterpret_cast<const uint8_t*>(in.data()), in.size(), reinterpret_cast<uint8_t*>(out.data()),
                       &n, wrk.data());
      out.resize(n);
      return out;
    }
    case Compression::kNone:
      break;
  }
  return in;
}

std::string Data(size_t n, int seed) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>((i * 7 + static_cast<size_t>(seed)) % 13 + 'a');
  return s;
}

Result<Buffer> Decode(Compression c, const std::string& framed, uint64_t block = 4096) {
  return DecompressStream(c, block, Buffer::Copy(framed), "test.orc: test stream", 100);
}

TEST(OrcCompression, EveryCodecWithOriginalChunks) {
  for (Compression c :
       {Compression::kZlib, Compression::kSnappy, Compression::kZstd, Compression::kLz4, Compression::kLzo}) {
    const std::string a = Data(4096, 1), b = Data(1000, 2), d = Data(3000, 3);
    const std::string ca = Compress(c, a), cd = Compress(c, d);
    const std::string framed =
        Header(ca.size(), false) + ca + Header(b.size(), true) + b + Header(cd.size(), false) + cd;
    auto out = Decode(c, framed);
    ASSERT_TRUE(out.ok()) << CompressionName(c) << ": " << out.status().ToString();
    EXPECT_EQ(std::string(out->view()), a + b + d) << CompressionName(c);
    // Larger than the block size: refused.
    auto small = Decode(c, Header(ca.size(), false) + ca, 1024);
    EXPECT_TRUE(small.status().Is(StatusCode::kCorrupt)) << CompressionName(c) << ": " << small.status().ToString();
    // Garbage in a compressed chunk.
    auto bad = Decode(c, Header(8, false) + "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8");
    EXPECT_FALSE(bad.ok()) << CompressionName(c);
  }
}

TEST(OrcCompression, FramingErrorsNameTheOffset) {
  auto cut = Decode(Compression::kZlib, std::string("\x05\x00", 2));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("test.orc: test stream: compressed chunk at offset 100"), std::string::npos)
      << cut.status().ToString();
  EXPECT_NE(cut.status().message().find("3-byte chunk header"), std::string::npos);
  auto past = Decode(Compression::kZlib, Header(50, true) + "abc");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("runs past the end"), std::string::npos) << past.status().ToString();
}

TEST(OrcCompression, NoneIsPassThrough) {
  auto out = Decode(Compression::kNone, "plain bytes");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->view(), "plain bytes");
}

}  // namespace
}  // namespace rap::orc
