// The codec dispatcher (rap/codec/codec.h) and the size checks the codecs share.
#include "rap/codec/codec.h"

#include <cstring>
#include <limits>
#include <string>

#include "codec/codec_internal.h"

namespace rap::codec {

namespace internal {

std::string Sizes(std::span<const uint8_t> in, std::span<uint8_t> out) {
  return std::to_string(in.size()) + " compressed bytes, " + std::to_string(out.size()) + " expected uncompressed";
}

Status SizeMismatch(const char* codec, size_t got, std::span<const uint8_t> in, std::span<uint8_t> out) {
  return Status::Corrupt(std::string(codec) + ": data decompresses to " + std::to_string(got) + " bytes (" +
                         Sizes(in, out) + ")");
}

}  // namespace internal

using namespace internal;  // NOLINT: the per-codec functions

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case Codec::SNAPPY:
      return "SNAPPY";
    case Codec::GZIP:
      return "GZIP";
    case Codec::LZO:
      return "LZO";
    case Codec::BROTLI:
      return "BROTLI";
    case Codec::LZ4:
      return "LZ4";
    case Codec::ZSTD:
      return "ZSTD";
    case Codec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
}

bool IsCodecSupported(Codec codec) {
  switch (codec) {
    case Codec::UNCOMPRESSED:
    case Codec::SNAPPY:
    case Codec::GZIP:
    case Codec::BROTLI:
    case Codec::LZ4:
    case Codec::ZSTD:
    case Codec::LZ4_RAW:
      return true;
    case Codec::LZO:
      return false;
  }
  return false;
}

Status Decompress(Codec codec, std::span<const uint8_t> in, std::span<uint8_t> out) {
  switch (codec) {
    case Codec::UNCOMPRESSED:
      if (in.size() != out.size()) return SizeMismatch("UNCOMPRESSED", in.size(), in, out);
      if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
      return Status::OK();
    case Codec::SNAPPY:
      return DecompressSnappy(in, out);
    case Codec::GZIP:
      return DecompressGzip(in, out);
    case Codec::ZSTD:
      return DecompressZstd(in, out);
    case Codec::LZ4_RAW:
      return DecompressLz4Raw(in, out);
    case Codec::LZ4:
      return DecompressLz4(in, out);
    case Codec::BROTLI:
      return DecompressBrotli(in, out);
    case Codec::LZO:
      return Status::NotSupported("the LZO codec is not supported");
  }
  return Status::Corrupt("unknown compression codec " + std::to_string(static_cast<int>(codec)));
}

Status Compress(Codec codec, int level, std::span<const uint8_t> in, std::string* out) {
  switch (codec) {
    case Codec::UNCOMPRESSED:
      out->append(reinterpret_cast<const char*>(in.data()), in.size());
      return Status::OK();
    case Codec::SNAPPY:
      return CompressSnappy(in, out);
    case Codec::GZIP:
      return CompressGzip(level, in, out);
    case Codec::ZSTD:
      return CompressZstd(level, in, out);
    case Codec::LZ4_RAW:
      return CompressLz4Raw(level, in, out);
    case Codec::BROTLI:
      return CompressBrotli(level, in, out);
    case Codec::LZ4:
      return Status::NotSupported("writing LZ4 with Hadoop framing is not supported (use LZ4_RAW)");
    case Codec::LZO:
      return Status::NotSupported("the LZO codec is not supported");
  }
  return Status::InvalidArgument("unknown compression codec " + std::to_string(static_cast<int>(codec)));
}

}  // namespace rap::codec
