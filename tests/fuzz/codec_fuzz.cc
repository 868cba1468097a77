// Every page codec (rap/codec/codec.h): decompression of arbitrary bytes into a bounded output (the size a
// page header claims, here at most 1 MiB), and compress -> decompress round trips of the input.
//
// Input: codec (byte, mod 8), claimed uncompressed size (u24, at most 1 MiB), then the compressed bytes.
#include <cstring>
#include <string>
#include <vector>

#include <memory>
#include <span>

#include <sanitizer/asan_interface.h>
#include <snappy.h>

#include "rap/codec/codec.h"

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"

namespace {

// True when the Snappy stream, walked tag by tag up to its end or a truncation, holds a literal whose
// 4 length bytes are ff ff ff ff: a literal of 2^32 bytes, which libsnappy's 32-bit
// `ExtractLowBytes(...) + 1` wraps to an empty literal and so accepts, while rap rejects it (no page
// holds 2^32 bytes). Only there do the two decoders legitimately disagree.
bool HasWrappingLiteral(std::span<const uint8_t> s) {
  size_t i = 0;
  while (i < s.size() && (s[i] & 0x80) != 0) ++i;  // the varint length header
  ++i;
  while (i < s.size()) {
    const uint8_t c = s[i++];
    if ((c & 3) != 0) {
      i += (c & 3) == 1 ? 1 : (c & 3) == 2 ? 2 : 4;
      continue;
    }
    uint64_t n = (c >> 2) + 1;
    if (n > 60) {
      const size_t extra = n - 60;
      if (s.size() - i < extra) return false;
      n = 0;
      for (size_t k = 0; k < extra; ++k) n |= uint64_t{s[i + k]} << (8 * k);
      if (extra == 4 && n == 0xffffffffu) return true;
      n += 1;
      i += extra;
    }
    if (s.size() - i < n) return false;
    i += n;
  }
  return false;
}

// An output buffer reused between inputs: a fresh zeroed buffer of up to 1 MiB per input (which ASan
// maps fresh each time) made this target 5x slower. The bytes past the claimed size are poisoned, so
// a write or read past the output is still an ASan error; bytes left from an earlier input are never
// compared (both decoders write every byte of a stream they accept).
class ReusedBuffer {
 public:
  std::span<uint8_t> Take(size_t n) {
    ASAN_UNPOISON_MEMORY_REGION(bytes_.get(), kCapacity);
    ASAN_POISON_MEMORY_REGION(bytes_.get() + n, kCapacity - n);
    return {bytes_.get(), n};
  }

 private:
  static constexpr size_t kCapacity = (size_t{1} << 20) + 1;
  std::unique_ptr<uint8_t[]> bytes_{new uint8_t[kCapacity]};
};

}  // namespace

RAP_FUZZ_TARGET(codec) {
  using namespace rap::codec;
  rap::fuzz::FuzzInput in(data, size);
  const auto codec = static_cast<Codec>(in.Byte() % 8);
  const size_t claimed = in.U24() % ((1u << 20) + 1);
  auto compressed = in.Rest();
  if (!IsCodecSupported(codec)) return 0;
  static ReusedBuffer out_buffer, lib_buffer;
  const std::span<uint8_t> out = out_buffer.Take(claimed);
  const bool ok = Decompress(codec, compressed, out).ok();
  if (codec == Codec::SNAPPY) {
    // rap's own Snappy decoder must agree with libsnappy's: both accept (with equal bytes) or both reject.
    const char* src = reinterpret_cast<const char*>(compressed.data());
    size_t len = 0;
    // Never empty (claimed + 1): libsnappy checks the tags of a 0-byte stream too.
    const std::span<uint8_t> lib = lib_buffer.Take(claimed + 1);
    const bool lib_ok = snappy::GetUncompressedLength(src, compressed.size(), &len) && len == claimed &&
                        snappy::RawUncompress(src, compressed.size(), reinterpret_cast<char*>(lib.data()));
    if (HasWrappingLiteral(compressed)) {
      if (ok) __builtin_trap();  // a 2^32-byte literal can never fit a page: rap must reject it
    } else if (ok != lib_ok || (ok && claimed > 0 && std::memcmp(lib.data(), out.data(), claimed) != 0)) {
      __builtin_trap();
    }
  }

  // Round trip: what we compress we must decompress to the same bytes.
  std::string packed;
  if (!Compress(codec, 0, compressed, &packed).ok()) return 0;
  std::vector<uint8_t> back(compressed.size());
  auto st =
      Decompress(codec, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(packed.data()), packed.size()), back);
  if (!st.ok() || (!back.empty() && std::memcmp(back.data(), compressed.data(), back.size()) != 0)) __builtin_trap();
  return 0;
}
