// Page codecs through their Debian libraries: snappy, libdeflate (GZIP decompression), zlib (GZIP
// compression), zstd, lz4 (block, frame, Hadoop framing) and brotli. Every decompressor writes into
// the caller's exactly-sized buffer and never past it; a size mismatch in either direction is Corrupt.
#include "rap/format/codec.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <libdeflate.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

namespace rap::parquet {

namespace {

std::string Sizes(std::span<const uint8_t> in, std::span<uint8_t> out) {
  return std::to_string(in.size()) + " compressed bytes, " + std::to_string(out.size()) + " expected uncompressed";
}

Status SizeMismatch(const char* codec, size_t got, std::span<const uint8_t> in, std::span<uint8_t> out) {
  return Status::Corrupt(std::string(codec) + ": data decompresses to " + std::to_string(got) + " bytes (" +
                         Sizes(in, out) + ")");
}

bool FitsInt(size_t n) { return n <= static_cast<size_t>(std::numeric_limits<int>::max()); }

uint32_t LoadLE(const uint8_t* p, size_t n) {  // n <= 4 bytes, little-endian
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}

template <size_t N>
inline void Copy(uint8_t* dst, const uint8_t* src) {
  std::memcpy(dst, src, N);  // a fixed-size move: inlined as vector loads and stores
}

// Snappy's raw format (google/snappy format_description.txt): a varint of the uncompressed length,
// then literal and copy tags. Decoded here rather than by libsnappy's RawUncompress, whose Debian
// build calls memmove through the PLT for short literals and copies (a third of a Snappy page's
// decode time on mixed data); compression stays libsnappy's. Away from the end of the output,
// literals of up to 16 bytes and copies (at most 64 bytes) are moved in fixed 16- or 8-byte steps
// that may write past the tag's end but never past the output: bytes written ahead are overwritten
// by the next tags. Every length and offset is checked against the input and output first.
Status DecompressSnappy(std::span<const uint8_t> in, std::span<uint8_t> out) {
  const uint8_t* ip = in.data();
  const uint8_t* const ip_begin = ip;
  const uint8_t* const ip_end = ip + in.size();
  uint64_t len = 0;
  for (int shift = 0;; shift += 7) {
    if (ip == ip_end || shift > 28) {
      return Status::Corrupt("SNAPPY: bad length header at byte 0 (" + Sizes(in, out) + ")");
    }
    const uint8_t b = *ip++;
    len |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) break;
  }
  if (len > std::numeric_limits<uint32_t>::max()) {
    return Status::Corrupt("SNAPPY: bad length header at byte 0 (" + Sizes(in, out) + ")");
  }
  if (len != out.size()) return SizeMismatch("SNAPPY", static_cast<size_t>(len), in, out);
  uint8_t* op = out.data();
  uint8_t* const op_begin = op;
  uint8_t* const op_end = op + out.size();
  auto at = [&](const uint8_t* tag) { return std::to_string(tag - ip_begin); };
  auto too_long = [&](const uint8_t* tag) {
    return Status::Corrupt("SNAPPY: the tag at compressed byte " + at(tag) + " decompresses past the expected " +
                           std::to_string(out.size()) + " bytes (" + Sizes(in, out) + ")");
  };
  while (ip < ip_end) {
    const uint8_t* const tag = ip;
    const uint32_t c = *ip++;
    size_t n = (c >> 2) + 1;
    if ((c & 3) == 0) {  // literal
      if (n <= 16 && ip_end - ip >= 16 && op_end - op >= 16) {
        Copy<16>(op, ip);
        op += n;
        ip += n;
        continue;
      }
      if (n > 60) {
        const size_t extra = n - 60;
        if (static_cast<size_t>(ip_end - ip) < extra) {
          return Status::Corrupt("SNAPPY: literal length at compressed byte " + at(tag) + " is truncated (" +
                                 Sizes(in, out) + ")");
        }
        n = static_cast<size_t>(LoadLE(ip, extra)) + 1;
        ip += extra;
      }
      if (static_cast<size_t>(ip_end - ip) < n) {
        return Status::Corrupt("SNAPPY: literal of " + std::to_string(n) + " bytes at compressed byte " + at(tag) +
                               " runs past the end of the input (" + Sizes(in, out) + ")");
      }
      if (static_cast<size_t>(op_end - op) < n) return too_long(tag);
      std::memcpy(op, ip, n);
      op += n;
      ip += n;
      continue;
    }
    size_t offset = 0;
    const size_t extra = (c & 3) == 1 ? 1 : (c & 3) == 2 ? 2 : 4;
    if (static_cast<size_t>(ip_end - ip) < extra) {
      return Status::Corrupt("SNAPPY: copy tag at compressed byte " + at(tag) + " is truncated (" + Sizes(in, out) +
                             ")");
    }
    if ((c & 3) == 1) {
      n = 4 + ((c >> 2) & 7);
      offset = ((c >> 5) << 8) | ip[0];
    } else {
      offset = LoadLE(ip, extra);
    }
    ip += extra;
    if (offset == 0 || offset > static_cast<size_t>(op - op_begin)) {
      return Status::Corrupt("SNAPPY: copy at compressed byte " + at(tag) + " refers to offset " +
                             std::to_string(offset) + " at output byte " + std::to_string(op - op_begin) +
                             " (before the start of the output or zero; " + Sizes(in, out) + ")");
    }
    if (static_cast<size_t>(op_end - op) < n) return too_long(tag);
    const uint8_t* src = op - offset;
    if (op_end - op >= 64) {  // n <= 64: the fixed steps below stay inside the output
      if (offset >= 16) {
        Copy<16>(op, src);
        for (size_t i = 16; i < n; i += 16) Copy<16>(op + i, src + i);
        op += n;
        continue;
      }
      if (offset >= 8) {
        Copy<8>(op, src);
        for (size_t i = 8; i < n; i += 8) Copy<8>(op + i, src + i);
        op += n;
        continue;
      }
    }
    if (op_end - op >= 80) {
      // Overlapping by less than 8 bytes: a pattern of `offset` bytes repeated. 8-byte moves (load, then
      // store) from `from` to `to` make the bytes [to, to + (to - from)) right, so each step doubles the
      // distance until it is at least 8; then plain 8-byte moves. The writes end before op + 72 (n <= 64),
      // inside the output; what they write past op + n the next tags overwrite.
      const uint8_t* from = src;
      uint8_t* to = op;
      uint8_t* const end = op + n;
      while (to - from < 8) {
        uint64_t v;
        std::memcpy(&v, from, 8);
        std::memcpy(to, &v, 8);
        to += to - from;
      }
      for (; to < end; to += 8, from += 8) Copy<8>(to, from);
      op = end;
      continue;
    }
    for (size_t i = 0; i < n; ++i) op[i] = src[i];  // near the end of the output: byte by byte
    op += n;
  }
  if (op != op_end) return SizeMismatch("SNAPPY", static_cast<size_t>(op - op_begin), in, out);
  return Status::OK();
}

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

Status DecompressZstd(std::span<const uint8_t> in, std::span<uint8_t> out) {
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return Status::Internal("ZSTD: cannot create a decompression context");
  uint8_t dummy = 0;
  const size_t rc = ZSTD_decompressDCtx(ctx.get(), out.empty() ? &dummy : out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(rc)) {
    return Status::Corrupt(std::string("ZSTD: ") + ZSTD_getErrorName(rc) + " (" + Sizes(in, out) + ")");
  }
  if (rc != out.size()) return SizeMismatch("ZSTD", rc, in, out);
  return Status::OK();
}

// Returns the decompressed size of a raw LZ4 block, or -1 when it does not fit `cap` or is malformed.
int Lz4Block(const uint8_t* in, size_t in_size, uint8_t* out, size_t cap) {
  if (!FitsInt(in_size) || !FitsInt(cap)) return -1;
  uint8_t dummy = 0;
  return LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(cap == 0 ? &dummy : out),
                             static_cast<int>(in_size), static_cast<int>(cap));
}

Status DecompressLz4Raw(std::span<const uint8_t> in, std::span<uint8_t> out) {
  const int n = Lz4Block(in.data(), in.size(), out.data(), out.size());
  if (n < 0) return Status::Corrupt("LZ4_RAW: malformed block or larger than expected (" + Sizes(in, out) + ")");
  if (static_cast<size_t>(n) != out.size()) return SizeMismatch("LZ4_RAW", static_cast<size_t>(n), in, out);
  return Status::OK();
}

uint32_t LoadBE32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Hadoop's Lz4Codec framing: blocks of [4-byte BE uncompressed size][4-byte BE compressed size][raw
// block]. Returns false (without an error) when the input is not laid out that way.
bool TryLz4Hadoop(std::span<const uint8_t> in, std::span<uint8_t> out) {
  size_t in_pos = 0, out_pos = 0;
  if (in.size() < 8) return false;
  while (in.size() - in_pos >= 8) {
    const uint32_t raw = LoadBE32(in.data() + in_pos), comp = LoadBE32(in.data() + in_pos + 4);
    in_pos += 8;
    if (comp > in.size() - in_pos || raw > out.size() - out_pos) return false;
    const int n = Lz4Block(in.data() + in_pos, comp, out.data() + out_pos, out.size() - out_pos);
    if (n < 0 || static_cast<uint32_t>(n) != raw) return false;
    in_pos += comp;
    out_pos += raw;
  }
  return in_pos == in.size() && out_pos == out.size();
}

// The LZ4 frame format (magic 0x184D2204), possibly several frames back to back.
Status DecompressLz4Frame(std::span<const uint8_t> in, std::span<uint8_t> out) {
  LZ4F_dctx* dctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
    return Status::Internal("LZ4: cannot create a frame decompression context");
  }
  std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> guard(dctx, LZ4F_freeDecompressionContext);
  size_t in_pos = 0, out_pos = 0;
  uint8_t overflow = 0;
  while (in_pos < in.size()) {
    const bool full = out_pos == out.size();
    size_t dst = full ? 1 : out.size() - out_pos, src = in.size() - in_pos;
    const size_t rc =
        LZ4F_decompress(dctx, full ? &overflow : out.data() + out_pos, &dst, in.data() + in_pos, &src, nullptr);
    if (LZ4F_isError(rc)) {
      return Status::Corrupt(std::string("LZ4: not Hadoop-framed, not a raw block, and not a valid frame: ") +
                             LZ4F_getErrorName(rc) + " at compressed byte " + std::to_string(in_pos) + " (" +
                             Sizes(in, out) + ")");
    }
    if (full && dst > 0) {
      return Status::Corrupt("LZ4: frame decompresses to more than the expected " + std::to_string(out.size()) +
                             " bytes");
    }
    if (!full) out_pos += dst;
    in_pos += src;
    if (src == 0 && dst == 0 && rc != 0) break;  // no progress: input truncated
  }
  if (out_pos != out.size()) return SizeMismatch("LZ4 (frame)", out_pos, in, out);
  return Status::OK();
}

Status DecompressLz4(std::span<const uint8_t> in, std::span<uint8_t> out) {
  if (TryLz4Hadoop(in, out)) return Status::OK();
  const int n = Lz4Block(in.data(), in.size(), out.data(), out.size());
  if (n >= 0 && static_cast<size_t>(n) == out.size()) return Status::OK();
  if (in.size() >= 4 && in[0] == 0x04 && in[1] == 0x22 && in[2] == 0x4d && in[3] == 0x18) {
    return DecompressLz4Frame(in, out);
  }
  return Status::Corrupt("LZ4: data is neither Hadoop-framed, a raw LZ4 block nor an LZ4 frame of the expected size (" +
                         Sizes(in, out) + ")");
}

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

}  // namespace

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
  const size_t base = out->size();
  switch (codec) {
    case Codec::UNCOMPRESSED:
      out->append(reinterpret_cast<const char*>(in.data()), in.size());
      return Status::OK();
    case Codec::SNAPPY: {
      out->resize(base + snappy::MaxCompressedLength(in.size()));
      size_t n = 0;
      snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(), out->data() + base, &n);
      out->resize(base + n);
      return Status::OK();
    }
    case Codec::GZIP: {
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
    case Codec::ZSTD: {
      if (level < 0 || level > ZSTD_maxCLevel()) {
        return Status::InvalidArgument("ZSTD level " + std::to_string(level) + " is not 0 (default) or 1.." +
                                       std::to_string(ZSTD_maxCLevel()));
      }
      out->resize(base + ZSTD_compressBound(in.size()));
      const size_t n = ZSTD_compress(out->data() + base, out->size() - base, in.data(), in.size(),
                                     level == 0 ? ZSTD_CLEVEL_DEFAULT : level);
      if (ZSTD_isError(n)) {
        out->resize(base);
        return Status::Internal(std::string("ZSTD: ") + ZSTD_getErrorName(n));
      }
      out->resize(base + n);
      return Status::OK();
    }
    case Codec::LZ4_RAW: {
      if (!FitsInt(in.size()))
        return Status::InvalidArgument("LZ4_RAW: input of " + std::to_string(in.size()) +
                                       " bytes exceeds the 2 GiB block limit");
      const int bound = LZ4_compressBound(static_cast<int>(in.size()));
      out->resize(base + static_cast<size_t>(bound));
      const char* src = reinterpret_cast<const char*>(in.data());
      const int n = level > 0 ? LZ4_compress_HC(src, out->data() + base, static_cast<int>(in.size()), bound, level)
                              : LZ4_compress_default(src, out->data() + base, static_cast<int>(in.size()), bound);
      if (n <= 0) {
        out->resize(base);
        return Status::Internal("LZ4_RAW: compression failed");
      }
      out->resize(base + static_cast<size_t>(n));
      return Status::OK();
    }
    case Codec::BROTLI: {
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
    case Codec::LZ4:
      return Status::NotSupported("writing LZ4 with Hadoop framing is not supported (use LZ4_RAW)");
    case Codec::LZO:
      return Status::NotSupported("the LZO codec is not supported");
  }
  return Status::InvalidArgument("unknown compression codec " + std::to_string(static_cast<int>(codec)));
}

}  // namespace rap::parquet
