// Snappy: decoding hand-written over the raw format (see DecompressSnappy), encoding by libsnappy.
#include "codec/codec_internal.h"

#include <cstring>
#include <limits>

#include <snappy.h>

namespace rap::codec::internal {

namespace {

uint32_t LoadLE(const uint8_t* p, size_t n) {  // n <= 4 bytes, little-endian
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}

template <size_t N>
inline void Copy(uint8_t* dst, const uint8_t* src) {
  std::memcpy(dst, src, N);  // a fixed-size move: inlined as vector loads and stores
}

}  // namespace

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


Status CompressSnappy(std::span<const uint8_t> in, std::string* out) {
  const size_t base = out->size();

  out->resize(base + snappy::MaxCompressedLength(in.size()));
  size_t n = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(), out->data() + base, &n);
  out->resize(base + n);
  return Status::OK();
}

}  // namespace rap::codec::internal
