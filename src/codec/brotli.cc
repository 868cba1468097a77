// Brotli through libbrotli.
#include "codec/codec_internal.h"

#include <brotli/decode.h>
#include <brotli/encode.h>

namespace rap::codec::internal {

Status DecompressBrotli(std::span<const uint8_t> in, std::span<uint8_t> out) {
  uint8_t dummy = 0;
  size_t decoded = out.size();
  const BrotliDecoderResult r =
      BrotliDecoderDecompress(in.size(), in.data(), &decoded, out.empty() ? &dummy : out.data());
  if (r != BROTLI_DECODER_RESULT_SUCCESS) {
    return Status::Corrupt("BROTLI: malformed, truncated or larger than expected (" + Sizes(in, out) + ")");
  }
  if (decoded != out.size()) return SizeMismatch("BROTLI", decoded, in, out);
  return Status::OK();
}


Status CompressBrotli(int level, std::span<const uint8_t> in, std::string* out) {
  const size_t base = out->size();

  if (level < 0 || level > BROTLI_MAX_QUALITY) {
    return Status::InvalidArgument("BROTLI level " + std::to_string(level) + " is not in 0..11");
  }
  // 0 selects quality 8, as parquet-cpp does: the library default (11) is very slow.
  const int quality = level == 0 ? 8 : level;
  size_t n = BrotliEncoderMaxCompressedSize(in.size());
  if (n == 0) n = in.size() + (in.size() >> 2) + 1024;
  out->resize(base + n);
  if (!BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in.size(), in.data(), &n,
                             reinterpret_cast<uint8_t*>(out->data() + base))) {
    out->resize(base);
    return Status::Internal("BROTLI: compression failed");
  }
  out->resize(base + n);
  return Status::OK();
}

}  // namespace rap::codec::internal
