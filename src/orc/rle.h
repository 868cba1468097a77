// ORC's run-length encodings (specification, "Run Length Encoding"): byte RLE, boolean RLE (byte
// RLE of MSB-first bit groups), integer RLE version 1 and version 2 (short repeat, direct, patched
// base, delta). Each function decodes exactly `n` values from the cursor; running out of bytes,
// a bad header or an overflowing value is Corrupt naming the stream and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::orc {

// A read position in one decompressed stream; `what` names the stream in errors.
struct StreamCursor {
  std::string what;
  Buffer data;
  size_t pos = 0;
  // A stream entered at a row-index position: the first `skip` values (bits of a boolean stream)
  // decoded are dropped (the values of the run before the position), and a run may hold more values
  // than wanted (the decode stops inside it).
  uint64_t skip = 0;
  bool partial = false;

  size_t remaining() const { return data.size() - pos; }
  Status Error(const std::string& msg) const;  // Corrupt "<what> at byte <pos>: <msg>"
  Result<uint8_t> Byte();
  Result<uint64_t> VarUint();
  Result<int64_t> VarInt() {  // zigzag
    RAP_ASSIGN_OR_RETURN(uint64_t v, VarUint());
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
};

Status DecodeByteRle(StreamCursor* s, size_t n, uint8_t* out);
// One byte per value (0 or 1).
Status DecodeBoolRle(StreamCursor* s, size_t n, uint8_t* out);
Status DecodeIntRleV1(StreamCursor* s, bool is_signed, size_t n, int64_t* out);
Status DecodeIntRleV2(StreamCursor* s, bool is_signed, size_t n, int64_t* out);
inline Status DecodeIntRle(StreamCursor* s, bool v2, bool is_signed, size_t n, int64_t* out) {
  return v2 ? DecodeIntRleV2(s, is_signed, n, out) : DecodeIntRleV1(s, is_signed, n, out);
}

}  // namespace rap::orc
