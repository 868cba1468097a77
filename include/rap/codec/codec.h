// Compression codecs shared by the file formats (Parquet pages; ORC streams and Avro blocks next),
// through their Debian libraries: Snappy, gzip/zlib (libdeflate, zlib), ZSTD, LZ4 (raw blocks,
// frames, Hadoop framing) and Brotli. One file per codec in src/codec/, this dispatcher over them.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rap/util/result.h"

namespace rap::codec {

// The codecs, numbered as Parquet's CompressionCodec (the Parquet module uses this enum as its own;
// other formats map their codec ids onto it).
enum class Codec : int32_t {
  UNCOMPRESSED = 0, SNAPPY = 1, GZIP = 2, LZO = 3, BROTLI = 4, LZ4 = 5, ZSTD = 6, LZ4_RAW = 7,
};

// "UNCOMPRESSED", "SNAPPY", ... (Parquet's names); "UNKNOWN" for other values.
const char* CodecName(Codec c);

// Decompresses `in` into `out`, which has exactly the expected uncompressed size (from the page
// header). Fails with Corrupt if the data does not decompress to exactly out.size() bytes.
// GZIP accepts concatenated members; LZ4 (Hadoop framing) falls back to a raw LZ4 block when the
// framing does not fit.
Status Decompress(Codec codec, std::span<const uint8_t> in, std::span<uint8_t> out);

// Appends the compressed form of `in` to `out`. `level` is codec-specific (ZSTD 1..22, gzip 1..9,
// brotli 0..11); 0 means the codec's default. LZ4 (Hadoop) and LZO are not written.
Status Compress(Codec codec, int level, std::span<const uint8_t> in, std::string* out);

bool IsCodecSupported(Codec codec);

}  // namespace rap::codec
