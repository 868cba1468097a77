// ORC's chunked compression framing. Snappy chunks (whose uncompressed length is in their own
// header) and ZSTD chunks with a frame content size go through the shared page codecs
// (rap/codec/codec.h, which need the exact output size); a ZLIB (raw deflate), LZ4 (raw block),
// LZO (LZO1X) or size-less ZSTD chunk records no uncompressed size, so those call zlib, liblz4,
// liblzo2 and libzstd here with the block size as the output bound.
#include "rap/orc/compression.h"

#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "rap/codec/codec.h"

namespace rap::orc {

std::string CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone: return "NONE";
    case Compression::kZlib: return "ZLIB";
    case Compression::kSnappy: return "SNAPPY";
    case Compression::kLzo: return "LZO";
    case Compression::kLz4: return "LZ4";
    case Compression::kZstd: return "ZSTD";
  }
  return "unknown(" + std::to_string(static_cast<uint32_t>(c)) + ")";
}

namespace {

struct ChunkCtx {
  std::string_view what;
  uint64_t offset;  // file offset of the chunk header
  uint64_t block_size;
  std::string Where() const { return std::string(what) + ": compressed chunk at offset " + std::to_string(offset); }
};

// Raw deflate (no zlib or gzip wrapper), streamed so that the output stops at the block size.
Status InflateRaw(const ChunkCtx& c, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return Status::Internal(c.Where() + ": ZLIB: inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  const size_t start = out->size();
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  // One byte more than the block size may be produced: a chunk of exactly the block size then ends
  // cleanly, one byte over is Corrupt.
  const uint64_t limit = c.block_size + 1;
  size_t step = std::min<uint64_t>(limit, std::max<size_t>(in.size() * 4, 64 * 1024));
  for (;;) {
    const size_t produced = out->size() - start;
    if (produced > c.block_size) {
      return Status::Corrupt(c.Where() + ": ZLIB: decompresses to more than the compression block size " +
                             std::to_string(c.block_size));
    }
    const size_t grow = std::min<uint64_t>(step, limit - produced);
    out->resize(out->size() + grow);
    z.next_out = out->data() + out->size() - grow;
    z.avail_out = static_cast<uInt>(grow);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out->resize(out->size() - z.avail_out);
    // Bytes after the end of the deflate stream are ignored, as ORC's own readers do.
    if (rc == Z_STREAM_END) return Status::OK();
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      return Status::Corrupt(c.Where() + ": ZLIB: the deflate stream is truncated");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status::Corrupt(c.Where() + ": ZLIB: " + (z.msg ? std::string(z.msg) : "inflate error " + std::to_string(rc)));
    }
    step *= 2;
  }
}

// LZ4 and LZO1X expand at most ~255 times; the bound keeps a corrupt chunk from allocating a
// whole (possibly huge) block size.
size_t BlockBound(const ChunkCtx& c, size_t in_size) {
  return static_cast<size_t>(std::min<uint64_t>(c.block_size, uint64_t{in_size} * 256 + 64));
}

Status Lz4Chunk(const ChunkCtx& c, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  const size_t cap = BlockBound(c, in.size());
  if (cap > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::Corrupt(c.Where() + ": LZ4: block size too large");
  }
  const size_t start = out->size();
  out->resize(start + cap + 1);
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out->data() + start),
                                    static_cast<int>(in.size()), static_cast<int>(cap));
  if (n < 0) {
    return Status::Corrupt(c.Where() + ": LZ4: malformed block, or larger than the compression block size " +
                           std::to_string(c.block_size));
  }
  out->resize(start + static_cast<size_t>(n));
  return Status::OK();
}

Status LzoChunk(const ChunkCtx& c, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  static const int init = lzo_init();
  if (init != LZO_E_OK) return Status::Internal("liblzo2: lzo_init failed");
  const size_t cap = BlockBound(c, in.size());
  const size_t start = out->size();
  out->resize(start + cap + 1);
  lzo_uint n = cap;
  const int rc = lzo1x_decompress_safe(in.data(), in.size(), out->data() + start, &n, nullptr);
  if (rc != LZO_E_OK) {
    return Status::Corrupt(c.Where() + ": LZO: " +
                           (rc == LZO_E_OUTPUT_OVERRUN ? "decompresses to more than the compression block size " +
                                                             std::to_string(c.block_size)
                                                       : "malformed LZO1X data (liblzo2 error " + std::to_string(rc) + ")"));
  }
  out->resize(start + n);
  return Status::OK();
}

Status ZstdStreaming(const ChunkCtx& c, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
  if (!ds) return Status::Internal("ZSTD: cannot create a decompression stream");
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  const size_t start = out->size();
  const uint64_t limit = c.block_size + 1;  // as for ZLIB: one byte over the block size is Corrupt
  size_t step = std::min<uint64_t>(limit, std::max<size_t>(in.size() * 4, 64 * 1024));
  for (;;) {
    const size_t produced = out->size() - start;
    if (produced > c.block_size) {
      return Status::Corrupt(c.Where() + ": ZSTD: decompresses to more than the compression block size " +
                             std::to_string(c.block_size));
    }
    const size_t grow = std::min<uint64_t>(step, limit - produced);
    out->resize(out->size() + grow);
    ZSTD_outBuffer ob{out->data() + out->size() - grow, grow, 0};
    const size_t rc = ZSTD_decompressStream(ds.get(), &ob, &ib);
    out->resize(out->size() - grow + ob.pos);
    if (ZSTD_isError(rc)) return Status::Corrupt(c.Where() + ": ZSTD: " + ZSTD_getErrorName(rc));
    if (rc == 0 && ib.pos == ib.size) return Status::OK();
    if (ob.pos < grow && ib.pos == ib.size) return Status::Corrupt(c.Where() + ": ZSTD: the frame is truncated");
    step *= 2;
  }
}

// Uses the shared codecs when the chunk states its uncompressed size.
Status SizedChunk(const ChunkCtx& c, codec::Codec codec, const char* name, std::span<const uint8_t> in,
                  uint64_t size, std::vector<uint8_t>* out) {
  if (size > c.block_size) {
    return Status::Corrupt(c.Where() + ": " + name + ": uncompressed length " + std::to_string(size) +
                           " exceeds the compression block size " + std::to_string(c.block_size));
  }
  const size_t start = out->size();
  out->resize(start + size);
  Status st = codec::Decompress(codec, in, std::span<uint8_t>(out->data() + start, size));
  if (!st.ok()) return st.WithContext(c.Where());
  return Status::OK();
}

Status DecompressChunk(Compression kind, const ChunkCtx& c, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  switch (kind) {
    case Compression::kZlib: return InflateRaw(c, in, out);
    case Compression::kLz4: return Lz4Chunk(c, in, out);
    case Compression::kLzo: return LzoChunk(c, in, out);
    case Compression::kSnappy: {
      uint64_t len = 0;
      size_t i = 0;
      for (int shift = 0;; shift += 7) {
        if (i == in.size() || shift > 28) return Status::Corrupt(c.Where() + ": SNAPPY: bad length header");
        len |= uint64_t{in[i] & 0x7fu} << shift;
        if (in[i++] < 0x80) break;
      }
      return SizedChunk(c, codec::Codec::SNAPPY, "SNAPPY", in, len, out);
    }
    case Compression::kZstd: {
      const unsigned long long size = ZSTD_getFrameContentSize(in.data(), in.size());
      if (size == ZSTD_CONTENTSIZE_ERROR) return Status::Corrupt(c.Where() + ": ZSTD: not a zstd frame");
      if (size == ZSTD_CONTENTSIZE_UNKNOWN) return ZstdStreaming(c, in, out);
      return SizedChunk(c, codec::Codec::ZSTD, "ZSTD", in, size, out);
    }
    case Compression::kNone: break;
  }
  return Status::NotSupported(c.Where() + ": compression " + CompressionName(kind) + " is not supported");
}

}  // namespace

Result<Buffer> DecompressStream(Compression compression, uint64_t block_size, const Buffer& in, std::string_view what,
                                uint64_t base_offset) {
  if (compression == Compression::kNone) return in;
  if (block_size == 0) block_size = kDefaultCompressionBlockSize;
  if (block_size > kMaxCompressionBlockSize) {
    return Status::Corrupt(std::string(what) + ": compression block size " + std::to_string(block_size) +
                           " exceeds the " + std::to_string(kMaxCompressionBlockSize) + "-byte maximum");
  }
  std::vector<uint8_t> out;
  size_t pos = 0;
  const uint8_t* p = in.data();
  while (pos < in.size()) {
    ChunkCtx c{what, base_offset + pos, block_size};
    if (in.size() - pos < 3) {
      return Status::Corrupt(c.Where() + ": the 3-byte chunk header is cut off (" + std::to_string(in.size() - pos) +
                             " bytes left in the stream)");
    }
    const uint32_t header = uint32_t{p[pos]} | (uint32_t{p[pos + 1]} << 8) | (uint32_t{p[pos + 2]} << 16);
    const bool original = (header & 1) != 0;
    const size_t len = header >> 1;
    pos += 3;
    if (len > in.size() - pos) {
      return Status::Corrupt(c.Where() + ": chunk length " + std::to_string(len) + " runs past the end of the " +
                             std::to_string(in.size()) + "-byte stream");
    }
    std::span<const uint8_t> chunk(p + pos, len);
    if (original) {
      out.insert(out.end(), chunk.begin(), chunk.end());
    } else {
      RAP_RETURN_NOT_OK(DecompressChunk(compression, c, chunk, &out));
    }
    pos += len;
  }
  return Buffer::FromVector(std::move(out));
}

}  // namespace rap::orc
