// LZ4 through liblz4: raw blocks (LZ4_RAW), and for LZ4 the Hadoop framing, a raw block or frames.
#include "codec/codec_internal.h"

#include <memory>

#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>

namespace rap::codec::internal {

namespace {

// Returns the decompressed size of a raw LZ4 block, or -1 when it does not fit `cap` or is malformed.
int Lz4Block(const uint8_t* in, size_t in_size, uint8_t* out, size_t cap) {
  if (!FitsInt(in_size) || !FitsInt(cap)) return -1;
  uint8_t dummy = 0;
  return LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(cap == 0 ? &dummy : out),
                             static_cast<int>(in_size), static_cast<int>(cap));
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

}  // namespace

Status DecompressLz4Raw(std::span<const uint8_t> in, std::span<uint8_t> out) {
  const int n = Lz4Block(in.data(), in.size(), out.data(), out.size());
  if (n < 0) return Status::Corrupt("LZ4_RAW: malformed block or larger than expected (" + Sizes(in, out) + ")");
  if (static_cast<size_t>(n) != out.size()) return SizeMismatch("LZ4_RAW", static_cast<size_t>(n), in, out);
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


Status CompressLz4Raw(int level, std::span<const uint8_t> in, std::string* out) {
  const size_t base = out->size();

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

}  // namespace rap::codec::internal
