// ORC's run-length decoders (src/orc/rle.h): integer RLE v2 (short repeat, direct, patched base,
// delta) and v1, signed and unsigned, byte RLE and boolean RLE, asked for up to 4,096 values.
//
// Input: mode (byte: bit 0 signed, bits 1-2 decoder: 0 = RLE v2, 1 = RLE v1, 2 = byte RLE,
// 3 = boolean RLE), value count (u16, mod 4097), then the encoded stream.
#include <vector>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"
#include "orc/rle.h"

RAP_FUZZ_TARGET(orc_rle) {
  rap::fuzz::FuzzInput in(data, size);
  const uint8_t mode = in.Byte();
  const size_t n = in.U16() % 4097;
  const auto rest = in.Rest();
  rap::orc::StreamCursor s{"fuzz stream", rap::Buffer::Copy(rest.data(), rest.size()), 0};
  const bool is_signed = mode & 1;
  switch ((mode >> 1) & 3) {
    case 0: {
      std::vector<int64_t> out(n);
      (void)rap::orc::DecodeIntRleV2(&s, is_signed, n, out.data());
      break;
    }
    case 1: {
      std::vector<int64_t> out(n);
      (void)rap::orc::DecodeIntRleV1(&s, is_signed, n, out.data());
      break;
    }
    case 2: {
      std::vector<uint8_t> out(n);
      (void)rap::orc::DecodeByteRle(&s, n, out.data());
      break;
    }
    default: {
      std::vector<uint8_t> out(n);
      (void)rap::orc::DecodeBoolRle(&s, n, out.data());
      if (n > 0 && out[0] > 1) __builtin_trap();
      break;
    }
  }
  if (s.pos > s.data.size()) __builtin_trap();  // the cursor never passes the end
  return 0;
}
