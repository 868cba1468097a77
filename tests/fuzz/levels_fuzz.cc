// Repetition/definition levels (data page v1 RLE with its length prefix, v1 BIT_PACKED, v2 hybrid)
// and the RLE/bit-packed hybrid decoder itself (also used for dictionary indices and RLE booleans),
// with batches and skips interleaved.
//
// Input: mode (byte), bit width (byte), value count (u16, at most 8192), then the level bytes.
#include <algorithm>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"
#include "rap/format/levels.h"

RAP_FUZZ_TARGET(levels) {
  using namespace rap::parquet;
  rap::fuzz::FuzzInput in(data, size);
  const uint8_t mode = in.Byte();
  const uint8_t width_byte = in.Byte();
  const int64_t num_values = in.U16() % 8193;
  auto bytes = in.Rest();
  std::vector<int16_t> levels(static_cast<size_t>(num_values));
  switch (mode % 4) {
    case 0:
      (void)DecodeLevelsV1(Encoding::RLE, width_byte % 17, bytes, num_values, levels.data());
      break;
    case 1:
      (void)DecodeLevelsV1(Encoding::BIT_PACKED, width_byte % 17, bytes, num_values, levels.data());
      break;
    case 2:
      (void)DecodeLevelsV2(width_byte % 17, bytes, num_values, levels.data());
      break;
    default: {
      // The hybrid decoder directly, 32-bit outputs (dictionary indices), widths 0..32.
      RleBitPackedDecoder decoder(bytes.data(), bytes.size(), width_byte % 33);
      std::vector<int32_t> out(64);
      for (int step = 0; step < 256; ++step) {
        const int64_t n = 1 + (step * 7 + mode) % 64;
        auto got = step % 3 == 1 ? decoder.Skip(n) : decoder.GetBatch(out.data(), n);
        if (!got.ok() || *got < n) break;
      }
      if (decoder.position() > bytes.size()) __builtin_trap();
      break;
    }
  }
  return 0;
}
