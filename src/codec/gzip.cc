// GZIP / zlib (deflate): libdeflate decompresses, zlib compresses.
#include "codec/codec_internal.h"

#include <algorithm>
#include <memory>

#include <libdeflate.h>
#include <zlib.h>

namespace rap::codec::internal {

// A GZIP page is one or more members back to back (as written by concatenating gzip files), each
// continuing the output; a member is gzip-wrapped (magic 1f 8b) or zlib-wrapped (what zlib's inflate
// accepts with header detection, and what some writers put in GZIP pages). Trailing zero padding, as
// some writers leave, ends the data. libdeflate inflates each member in one call into the known-size
// output (and checks its CRC-32 / Adler-32 and length trailer).
Status DecompressGzip(std::span<const uint8_t> in, std::span<uint8_t> out) {
  thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  if (!d) return Status::Internal("GZIP: cannot allocate a libdeflate decompressor");
  if (in.empty()) return Status::Corrupt("GZIP: no compressed data (" + Sizes(in, out) + ")");
  size_t in_pos = 0, out_pos = 0;
  uint8_t dummy = 0;
  while (in_pos < in.size()) {
    const uint8_t* p = in.data() + in_pos;
    const size_t left = in.size() - in_pos;
    const bool gzip = left >= 2 && p[0] == 0x1f && p[1] == 0x8b;
    uint8_t* dst = out_pos < out.size() ? out.data() + out_pos : &dummy;
    size_t used = 0, produced = 0;
    const libdeflate_result r =
        gzip ? libdeflate_gzip_decompress_ex(d.get(), p, left, dst, out.size() - out_pos, &used, &produced)
             : libdeflate_zlib_decompress_ex(d.get(), p, left, dst, out.size() - out_pos, &used, &produced);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      // Also what a cut-off member yields: libdeflate reads zero bits past the end of its input.
      return Status::Corrupt("GZIP: " + std::string(gzip ? "gzip" : "zlib") + " member at compressed byte " +
                             std::to_string(in_pos) + " decompresses to more than the expected " +
                             std::to_string(out.size()) + " bytes, or is truncated or malformed (" + Sizes(in, out) +
                             ")");
    }
    if (r != LIBDEFLATE_SUCCESS || used == 0) {
      return Status::Corrupt("GZIP: malformed or truncated " + std::string(gzip ? "gzip" : "zlib") +
                             " member at compressed byte " + std::to_string(in_pos) + " (" + Sizes(in, out) + ")");
    }
    in_pos += used;
    out_pos += produced;
    if (std::all_of(in.begin() + static_cast<std::ptrdiff_t>(in_pos), in.end(), [](uint8_t b) { return b == 0; }))
      break;
  }
  if (out_pos != out.size()) return SizeMismatch("GZIP", out_pos, in, out);
  return Status::OK();
}


Status CompressGzip(int level, std::span<const uint8_t> in, std::string* out) {
  const size_t base = out->size();

  if (level < 0 || level > 9)
    return Status::InvalidArgument("GZIP level " + std::to_string(level) + " is not 0 (default) or 1..9");
  z_stream zs{};
  if (deflateInit2(&zs, level == 0 ? Z_DEFAULT_COMPRESSION : level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return Status::Internal("GZIP: deflateInit2 failed");
  }
  const uLong bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  out->resize(base + bound);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data() + base);
  zs.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&zs, Z_FINISH);
  const size_t n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    out->resize(base);
    return Status::Internal("GZIP: deflate did not finish (" + std::to_string(rc) + ")");
  }
  out->resize(base + n);
  return Status::OK();
}

}  // namespace rap::codec::internal
