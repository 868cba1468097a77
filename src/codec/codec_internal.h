// The per-codec entry points behind rap/codec/codec.h's dispatcher, and the size checks they share.
// Every decompressor writes into the caller's exactly-sized buffer and never past it; a size
// mismatch in either direction is Corrupt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "rap/util/result.h"

namespace rap::codec::internal {

// "N compressed bytes, M expected uncompressed" for messages.
std::string Sizes(std::span<const uint8_t> in, std::span<uint8_t> out);
Status SizeMismatch(const char* codec, size_t got, std::span<const uint8_t> in, std::span<uint8_t> out);
inline bool FitsInt(size_t n) { return n <= static_cast<size_t>(std::numeric_limits<int>::max()); }

Status DecompressSnappy(std::span<const uint8_t> in, std::span<uint8_t> out);
Status CompressSnappy(std::span<const uint8_t> in, std::string* out);
Status DecompressGzip(std::span<const uint8_t> in, std::span<uint8_t> out);
Status CompressGzip(int level, std::span<const uint8_t> in, std::string* out);
Status DecompressZstd(std::span<const uint8_t> in, std::span<uint8_t> out);
Status CompressZstd(int level, std::span<const uint8_t> in, std::string* out);
// LZ4_RAW: one raw block. LZ4: Hadoop framing, else a raw block, else LZ4 frames.
Status DecompressLz4Raw(std::span<const uint8_t> in, std::span<uint8_t> out);
Status DecompressLz4(std::span<const uint8_t> in, std::span<uint8_t> out);
Status CompressLz4Raw(int level, std::span<const uint8_t> in, std::string* out);
Status DecompressBrotli(std::span<const uint8_t> in, std::span<uint8_t> out);
Status CompressBrotli(int level, std::span<const uint8_t> in, std::string* out);

}  // namespace rap::codec::internal
