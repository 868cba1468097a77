// ZSTD through libzstd.
#include "codec/codec_internal.h"

#include <memory>

#include <zstd.h>

namespace rap::codec::internal {

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


Status CompressZstd(int level, std::span<const uint8_t> in, std::string* out) {
  const size_t base = out->size();

  if (level < 0 || level > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("ZSTD level " + std::to_string(level) + " is not 0 (default) or 1.." +
                                   std::to_string(ZSTD_maxCLevel()));
  }
  // One context per thread, reused: ZSTD_compress allocates and initialises a fresh one per call,
  // which dominated compressing many small pages (an index fragment's 256-row pages).
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!ctx) return Status::Internal("ZSTD: cannot create a compression context");
  out->resize(base + ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compressCCtx(ctx.get(), out->data() + base, out->size() - base, in.data(), in.size(),
                                     level == 0 ? ZSTD_CLEVEL_DEFAULT : level);
  if (ZSTD_isError(n)) {
    out->resize(base);
    return Status::Internal(std::string("ZSTD: ") + ZSTD_getErrorName(n));
  }
  out->resize(base + n);
  return Status::OK();
}

}  // namespace rap::codec::internal
