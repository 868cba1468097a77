// Every page codec (codec.h): decompression of arbitrary bytes into a bounded output (the size a
// page header claims, here at most 1 MiB), and compress -> decompress round trips of the input.
//
// Input: codec (byte, mod 8), claimed uncompressed size (u24, at most 1 MiB), then the compressed bytes.
#include <cstring>
#include <string>
#include <vector>

#include <snappy.h>

#include "rap/format/codec.h"

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"

RAP_FUZZ_TARGET(codec) {
  using namespace rap::parquet;
  rap::fuzz::FuzzInput in(data, size);
  const auto codec = static_cast<Codec>(in.Byte() % 8);
  const size_t claimed = in.U24() % ((1u << 20) + 1);
  auto compressed = in.Rest();
  if (!IsCodecSupported(codec)) return 0;
  std::vector<uint8_t> out(claimed);
  const bool ok = Decompress(codec, compressed, out).ok();
  if (codec == Codec::SNAPPY) {
    // rap's own Snappy decoder must agree with libsnappy's: both accept (with equal bytes) or both reject.
    const char* src = reinterpret_cast<const char*>(compressed.data());
    size_t len = 0;
    std::vector<uint8_t> lib(claimed + 1);  // never empty: libsnappy checks the tags of a 0-byte stream too
    const bool lib_ok = snappy::GetUncompressedLength(src, compressed.size(), &len) && len == claimed &&
                        snappy::RawUncompress(src, compressed.size(), reinterpret_cast<char*>(lib.data()));
    lib.pop_back();
    if (ok != lib_ok || (ok && lib != out)) __builtin_trap();
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
