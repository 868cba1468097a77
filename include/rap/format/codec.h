// Page compression codecs (Parquet CompressionCodec), through their Debian libraries.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rap/format/metadata.h"
#include "rap/util/result.h"

namespace rap::parquet {

// Decompresses `in` into `out`, which has exactly the expected uncompressed size (from the page
// header). Fails with Corrupt if the data does not decompress to exactly out.size() bytes.
// GZIP accepts concatenated members; LZ4 (Hadoop framing) falls back to a raw LZ4 block when the
// framing does not fit.
Status Decompress(Codec codec, std::span<const uint8_t> in, std::span<uint8_t> out);

// Appends the compressed form of `in` to `out`. `level` is codec-specific (ZSTD 1..22, gzip 1..9,
// brotli 0..11); 0 means the codec's default. LZ4 (Hadoop) and LZO are not written.
Status Compress(Codec codec, int level, std::span<const uint8_t> in, std::string* out);

bool IsCodecSupported(Codec codec);

}  // namespace rap::parquet
