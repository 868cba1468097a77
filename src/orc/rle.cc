// ORC run-length decoders, written from the specification's description of each header.
#include "orc/rle.h"

#include <algorithm>
#include <cstring>

namespace rap::orc {

Status StreamCursor::Error(const std::string& msg) const {
  return Status::Corrupt(what + " at byte " + std::to_string(pos) + ": " + msg);
}

Result<uint8_t> StreamCursor::Byte() {
  if (pos >= data.size()) return Error("the stream ends early (" + std::to_string(data.size()) + " bytes)");
  return data[pos++];
}

Result<uint64_t> StreamCursor::VarUint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= data.size()) return Error("a base-128 varint is cut off by the end of the stream");
    const uint8_t b = data[pos++];
    if (shift == 63 && (b & 0x7e)) return Error("a base-128 varint overflows 64 bits");
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return v;
  }
  return Error("a base-128 varint is longer than 10 bytes");
}

namespace {

inline int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// The 5-bit width code of RLE v2 direct / patched base / delta headers.
inline uint32_t DecodeWidth(uint32_t code) {
  static constexpr uint8_t kWidths[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64};
  return kWidths[code & 31];
}

// The smallest width of the set {1..24, 26, 28, 30, 32, 40, 48, 56, 64} that holds `bits`.
inline uint32_t ClosestFixedBits(uint32_t bits) {
  if (bits == 0) return 1;
  if (bits <= 24) return bits;
  if (bits <= 26) return 26;
  if (bits <= 28) return 28;
  if (bits <= 30) return 30;
  if (bits <= 32) return 32;
  if (bits <= 40) return 40;
  if (bits <= 48) return 48;
  if (bits <= 56) return 56;
  return 64;
}

// Reads `count` big-endian bit-packed values of `width` bits (1..64) into out (as uint64).
Status UnpackBits(StreamCursor* s, uint32_t width, size_t count, uint64_t* out) {
  const uint64_t bits = uint64_t{width} * count;
  const uint64_t bytes = (bits + 7) / 8;
  if (bytes > s->remaining()) {
    return s->Error(std::to_string(count) + " values of " + std::to_string(width) + " bits need " +
                    std::to_string(bytes) + " bytes, " + std::to_string(s->remaining()) + " are left");
  }
  const uint8_t* p = s->data.data() + s->pos;
  if (width == 8) {
    for (size_t i = 0; i < count; ++i) out[i] = p[i];
  } else if (width % 8 == 0) {
    const uint32_t nb = width / 8;
    for (size_t i = 0; i < count; ++i) {
      uint64_t v = 0;
      for (uint32_t k = 0; k < nb; ++k) v = (v << 8) | p[i * nb + k];
      out[i] = v;
    }
  } else {
    uint64_t acc = 0;  // holds `have` unread bits at its bottom
    uint32_t have = 0;
    size_t byte = 0;
    for (size_t i = 0; i < count; ++i) {
      uint64_t v = 0;
      uint32_t need = width;
      while (need > 0) {
        if (have == 0) {
          acc = p[byte++];
          have = 8;
        }
        const uint32_t take = std::min(need, have);
        v = (v << take) | ((acc >> (have - take)) & ((1u << take) - 1));
        have -= take;
        need -= take;
      }
      out[i] = v;
    }
  }
  s->pos += bytes;
  return Status::OK();
}

Result<uint64_t> BigEndian(StreamCursor* s, uint32_t nbytes) {
  if (nbytes > s->remaining()) return s->Error(std::to_string(nbytes) + "-byte value is cut off");
  uint64_t v = 0;
  for (uint32_t i = 0; i < nbytes; ++i) v = (v << 8) | s->data[s->pos + i];
  s->pos += nbytes;
  return v;
}

Status PatchedBase(StreamCursor* s, uint8_t first, bool is_signed, size_t n, int64_t* out, size_t* produced) {
  RAP_ASSIGN_OR_RETURN(uint8_t b1, s->Byte());
  RAP_ASSIGN_OR_RETURN(uint8_t b2, s->Byte());
  RAP_ASSIGN_OR_RETURN(uint8_t b3, s->Byte());
  const uint32_t width = DecodeWidth((first >> 1) & 31);
  const size_t len = ((size_t{first} & 1) << 8 | b1) + 1;
  const uint32_t base_bytes = ((b2 >> 5) & 7) + 1;
  const uint32_t patch_width = DecodeWidth(b2 & 31);
  const uint32_t gap_width = ((b3 >> 5) & 7) + 1;
  const uint32_t patch_count = b3 & 31;
  if (len > n)
    return s->Error("patched-base run of " + std::to_string(len) + " values, only " + std::to_string(n) + " wanted");
  if (gap_width + patch_width > 64) return s->Error("patch gap width + patch width exceed 64 bits");
  RAP_ASSIGN_OR_RETURN(uint64_t base_raw, BigEndian(s, base_bytes));
  const uint64_t sign = uint64_t{1} << (base_bytes * 8 - 1);
  const int64_t base =
      (base_raw & sign) ? -static_cast<int64_t>(base_raw & (sign - 1)) : static_cast<int64_t>(base_raw);
  uint64_t vals[512];
  RAP_RETURN_NOT_OK(UnpackBits(s, width, len, vals));
  if (patch_count > 0) {
    const uint32_t entry_width = ClosestFixedBits(gap_width + patch_width);
    uint64_t patches[32];
    RAP_RETURN_NOT_OK(UnpackBits(s, entry_width, patch_count, patches));
    size_t at = 0;
    for (uint32_t i = 0; i < patch_count; ++i) {
      const uint64_t gap = patches[i] >> patch_width;
      const uint64_t patch = patch_width == 64 ? patches[i] : patches[i] & ((uint64_t{1} << patch_width) - 1);
      at += gap;
      if (at >= len)
        return s->Error("patch position " + std::to_string(at) + " is past the run of " + std::to_string(len));
      if (patch != 0) {
        if (width + patch_width > 64) return s->Error("a patched value has more than 64 bits");
        vals[at] |= patch << width;
      }
    }
  }
  for (size_t i = 0; i < len; ++i) out[i] = static_cast<int64_t>(static_cast<uint64_t>(base) + vals[i]);
  (void)is_signed;  // patched-base values are base + offset; the base carries the sign
  *produced = len;
  return Status::OK();
}

Status Delta(StreamCursor* s, uint8_t first, bool is_signed, size_t n, int64_t* out, size_t* produced) {
  RAP_ASSIGN_OR_RETURN(uint8_t b1, s->Byte());
  const uint32_t code = (first >> 1) & 31;
  const uint32_t width = code == 0 ? 0 : DecodeWidth(code);
  const size_t len = ((size_t{first} & 1) << 8 | b1) + 1;
  if (len > n)
    return s->Error("delta run of " + std::to_string(len) + " values, only " + std::to_string(n) + " wanted");
  int64_t base;
  if (is_signed) {
    RAP_ASSIGN_OR_RETURN(base, s->VarInt());
  } else {
    RAP_ASSIGN_OR_RETURN(uint64_t u, s->VarUint());
    base = static_cast<int64_t>(u);
  }
  RAP_ASSIGN_OR_RETURN(int64_t delta, s->VarInt());
  out[0] = base;
  if (len >= 2) {
    if (width == 0) {
      for (size_t i = 1; i < len; ++i)
        out[i] = static_cast<int64_t>(static_cast<uint64_t>(out[i - 1]) + static_cast<uint64_t>(delta));
    } else {
      out[1] = static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(delta));
      uint64_t deltas[512];
      RAP_RETURN_NOT_OK(UnpackBits(s, width, len - 2, deltas));
      for (size_t i = 2; i < len; ++i) {
        const uint64_t prev = static_cast<uint64_t>(out[i - 1]);
        out[i] = static_cast<int64_t>(delta < 0 ? prev - deltas[i - 2] : prev + deltas[i - 2]);
      }
    }
  }
  *produced = len;
  return Status::OK();
}

Status ByteRle(StreamCursor* s, size_t n, uint8_t* out) {
  size_t i = 0;
  while (i < n) {
    RAP_ASSIGN_OR_RETURN(uint8_t h, s->Byte());
    if (h < 0x80) {  // a run of h + 3 copies
      RAP_ASSIGN_OR_RETURN(uint8_t v, s->Byte());
      const size_t run = std::min<size_t>(size_t{h} + 3, n - i);
      std::memset(out + i, v, run);
      i += run;
    } else {  // 256 - h literal bytes
      const size_t lit = 256 - size_t{h};
      if (lit > s->remaining()) return s->Error("a literal of " + std::to_string(lit) + " bytes is cut off");
      const size_t take = std::min(lit, n - i);
      std::memcpy(out + i, s->data.data() + s->pos, take);
      s->pos += lit;
      i += take;
    }
  }
  return Status::OK();
}

Status BoolRle(StreamCursor* s, size_t n, uint8_t* out) {
  const size_t nbytes = (n + 7) / 8;
  std::vector<uint8_t> bytes(nbytes);
  RAP_RETURN_NOT_OK(ByteRle(s, nbytes, bytes.data()));
  for (size_t i = 0; i < n; ++i) out[i] = (bytes[i >> 3] >> (7 - (i & 7))) & 1;
  return Status::OK();
}

Status IntRleV1(StreamCursor* s, bool is_signed, size_t n, int64_t* out) {
  size_t i = 0;
  auto read = [&]() -> Result<int64_t> {
    if (is_signed) return s->VarInt();
    RAP_ASSIGN_OR_RETURN(uint64_t u, s->VarUint());
    return static_cast<int64_t>(u);
  };
  while (i < n) {
    RAP_ASSIGN_OR_RETURN(uint8_t h, s->Byte());
    if (h < 0x80) {  // run: h + 3 values, a signed byte delta, then the base
      RAP_ASSIGN_OR_RETURN(uint8_t d, s->Byte());
      const int64_t delta = static_cast<int8_t>(d);
      RAP_ASSIGN_OR_RETURN(int64_t v, read());
      const size_t run = std::min<size_t>(size_t{h} + 3, n - i);
      for (size_t k = 0; k < run; ++k) {
        out[i + k] = static_cast<int64_t>(static_cast<uint64_t>(v) + static_cast<uint64_t>(delta) * k);
      }
      i += run;
    } else {
      const size_t lit = std::min<size_t>(256 - size_t{h}, n - i);
      for (size_t k = 0; k < lit; ++k) {
        RAP_ASSIGN_OR_RETURN(out[i + k], read());
      }
      i += lit;
      // A literal longer than needed leaves its remaining values unread; the stream is consumed
      // once per stripe, so nothing reads after it.
    }
  }
  return Status::OK();
}

// One RLE v2 run (at most 512 values) into `out`.
Status IntRleV2Run(StreamCursor* s, bool is_signed, int64_t* out, size_t* produced);

Status IntRleV2(StreamCursor* s, bool is_signed, size_t n, int64_t* out) {
  size_t i = 0;
  uint64_t tmp[512];
  int64_t scratch[512];
  while (i < n) {
    if (s->partial && n - i < 512) {
      // Entered at a row-index position: the last run may go on past the wanted values.
      s->partial = false;
      size_t got = 0;
      Status st = IntRleV2Run(s, is_signed, scratch, &got);
      s->partial = true;
      RAP_RETURN_NOT_OK(st);
      const size_t take = std::min(got, n - i);
      std::copy(scratch, scratch + take, out + i);
      i += take;
      continue;
    }
    RAP_ASSIGN_OR_RETURN(uint8_t first, s->Byte());
    const uint32_t kind = first >> 6;
    size_t produced = 0;
    if (kind == 0) {  // short repeat
      const uint32_t nbytes = ((first >> 3) & 7) + 1;
      const size_t count = (first & 7) + 3;
      if (count > n - i)
        return s->Error("short repeat of " + std::to_string(count) + " values, only " + std::to_string(n - i) +
                        " wanted");
      RAP_ASSIGN_OR_RETURN(uint64_t v, BigEndian(s, nbytes));
      const int64_t value = is_signed ? UnZigZag(v) : static_cast<int64_t>(v);
      std::fill(out + i, out + i + count, value);
      produced = count;
    } else if (kind == 1) {  // direct
      RAP_ASSIGN_OR_RETURN(uint8_t b1, s->Byte());
      const uint32_t width = DecodeWidth((first >> 1) & 31);
      const size_t len = ((size_t{first} & 1) << 8 | b1) + 1;
      if (len > n - i)
        return s->Error("direct run of " + std::to_string(len) + " values, only " + std::to_string(n - i) + " wanted");
      RAP_RETURN_NOT_OK(UnpackBits(s, width, len, tmp));
      for (size_t k = 0; k < len; ++k) out[i + k] = is_signed ? UnZigZag(tmp[k]) : static_cast<int64_t>(tmp[k]);
      produced = len;
    } else if (kind == 2) {
      RAP_RETURN_NOT_OK(PatchedBase(s, first, is_signed, n - i, out + i, &produced));
    } else {
      RAP_RETURN_NOT_OK(Delta(s, first, is_signed, n - i, out + i, &produced));
    }
    i += produced;
  }
  return Status::OK();
}


Status IntRleV2Run(StreamCursor* s, bool is_signed, int64_t* out, size_t* produced) {
  // A run says its own length (at most 512 values): decode it whole by asking for exactly that.
  const size_t start = s->pos;
  RAP_ASSIGN_OR_RETURN(uint8_t first, s->Byte());
  const uint32_t kind = first >> 6;
  size_t len = 0;
  if (kind == 0) {
    len = (first & 7) + 3;
  } else {
    RAP_ASSIGN_OR_RETURN(uint8_t b1, s->Byte());
    len = ((size_t{first} & 1) << 8 | b1) + 1;  // direct, patched base and delta: 9 bits of length - 1
  }
  s->pos = start;
  *produced = len;
  return IntRleV2(s, is_signed, len, out);
}

// Decodes `skip` + n values and drops the first `skip` when the cursor was entered at a position.
template <typename T, typename F>
Status WithSkip(StreamCursor* s, size_t n, T* out, F decode) {
  if (s->skip == 0) return decode(n, out);
  const size_t k = static_cast<size_t>(s->skip);
  if (k > (size_t{1} << 31)) return s->Error("a row-index position skips " + std::to_string(k) + " values");
  s->skip = 0;
  std::vector<T> tmp(k + n);
  RAP_RETURN_NOT_OK(decode(k + n, tmp.data()));
  std::copy(tmp.begin() + static_cast<std::ptrdiff_t>(k), tmp.end(), out);
  return Status::OK();
}

}  // namespace

Status DecodeByteRle(StreamCursor* s, size_t n, uint8_t* out) {
  return WithSkip(s, n, out, [&](size_t m, uint8_t* o) { return ByteRle(s, m, o); });
}
Status DecodeBoolRle(StreamCursor* s, size_t n, uint8_t* out) {
  return WithSkip(s, n, out, [&](size_t m, uint8_t* o) { return BoolRle(s, m, o); });
}
Status DecodeIntRleV1(StreamCursor* s, bool is_signed, size_t n, int64_t* out) {
  return WithSkip(s, n, out, [&](size_t m, int64_t* o) { return IntRleV1(s, is_signed, m, o); });
}
Status DecodeIntRleV2(StreamCursor* s, bool is_signed, size_t n, int64_t* out) {
  return WithSkip(s, n, out, [&](size_t m, int64_t* o) { return IntRleV2(s, is_signed, m, o); });
}

}  // namespace rap::orc
