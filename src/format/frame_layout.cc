// Skippable frame headers, the frame walk over a compressed section, and the key-levels codec.
#include "rap/format/frame_layout.h"

#include <fmt/format.h>
#include <zstd.h>

#include "rap/format/levels.h"

#include "format/bit_util.h"

namespace rap::parquet {

std::string SkippableFrameHeader(uint32_t payload) {
  std::string h(kSkippableHeaderBytes, '\0');
  for (int i = 0; i < 4; ++i) {
    h[i] = static_cast<char>(kSkippableMagicRap >> (8 * i));
    h[4 + i] = static_cast<char>(payload >> (8 * i));
  }
  return h;
}

Result<std::vector<FrameInfo>> ListFrames(std::span<const uint8_t> section) {
  std::vector<FrameInfo> out;
  size_t pos = 0;
  while (pos < section.size()) {
    const size_t n = ZSTD_findFrameCompressedSize(section.data() + pos, section.size() - pos);
    if (ZSTD_isError(n) || n == 0) {
      return Status::Corrupt(fmt::format("compressed section of {} bytes: offset {} holds neither a ZSTD frame nor a "
                                         "skippable frame ({})",
                                         section.size(), pos, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "empty"));
    }
    FrameInfo f;
    f.offset = static_cast<int64_t>(pos);
    f.size = static_cast<int64_t>(n);
    uint32_t magic = 0;
    for (int i = 0; i < 4 && pos + i < section.size(); ++i) magic |= static_cast<uint32_t>(section[pos + i]) << (8 * i);
    f.skippable = (magic & 0xFFFFFFF0u) == kSkippableMagicFirst;
    if (!f.skippable) {
      const unsigned long long cs = ZSTD_getFrameContentSize(section.data() + pos, section.size() - pos);
      f.content_size = cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR ? -1 : static_cast<int64_t>(cs);
    }
    out.push_back(f);
    pos += n;
  }
  return out;
}

std::string EncodeKeyLevels(std::span<const int16_t> rep, std::span<const int16_t> def, int16_t max_rep,
                            int16_t max_def) {
  bool trivial = max_rep == 0;
  for (size_t i = 0; trivial && i < def.size(); ++i) trivial = def[i] == max_def;
  if (trivial) return "";
  const size_t n = max_def > 0 ? def.size() : rep.size();
  std::string rep_bytes, def_bytes;
  if (max_rep > 0) {
    RleBitPackedEncoder e(BitWidth(static_cast<uint64_t>(max_rep)));
    e.PutBatch(rep.data(), static_cast<int64_t>(rep.size()));
    e.Finish(&rep_bytes);
  }
  if (max_def > 0) {
    RleBitPackedEncoder e(BitWidth(static_cast<uint64_t>(max_def)));
    e.PutBatch(def.data(), static_cast<int64_t>(def.size()));
    e.Finish(&def_bytes);
  }
  std::string out;
  internal::AppendUleb128(&out, n);
  internal::AppendUleb128(&out, rep_bytes.size());
  out += rep_bytes;
  out += def_bytes;
  return out;
}

Result<KeyLevels> DecodeKeyLevels(std::string_view levels, int64_t num_rows, int16_t max_rep, int16_t max_def) {
  KeyLevels out;
  if (levels.empty()) {
    out.num_levels = num_rows;
    if (max_def > 0) out.def.assign(static_cast<size_t>(num_rows), max_def);
    if (max_rep > 0) out.rep.assign(static_cast<size_t>(num_rows), 0);
    return out;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(levels.data());
  size_t pos = 0;
  uint64_t n = 0, rep_len = 0;
  if (!internal::ReadUleb128(p, levels.size(), &pos, &n) || !internal::ReadUleb128(p, levels.size(), &pos, &rep_len) ||
      rep_len > levels.size() - pos || n > (1ULL << 31)) {
    return Status::Corrupt(fmt::format("key levels of {} bytes: bad level count or repetition length", levels.size()));
  }
  // A flat column has exactly one level per row: checked before the levels are allocated.
  if (max_rep == 0 && n != static_cast<uint64_t>(num_rows)) {
    return Status::Corrupt(fmt::format("key levels declare {} levels for {} rows of a flat column", n, num_rows));
  }
  out.num_levels = static_cast<int64_t>(n);
  auto decode = [&](const uint8_t* data, size_t size, int16_t max, std::vector<int16_t>* dst) -> Status {
    if (max == 0) return Status::OK();
    dst->resize(n);
    RleBitPackedDecoder d(data, size, BitWidth(static_cast<uint64_t>(max)));
    RAP_ASSIGN_OR_RETURN(int64_t got, d.GetBatch(dst->data(), static_cast<int64_t>(n)));
    if (got != static_cast<int64_t>(n)) {
      return Status::Corrupt(fmt::format("key levels: {} of {} levels decoded", got, n));
    }
    for (int16_t v : *dst) {
      if (v < 0 || v > max) return Status::Corrupt(fmt::format("key levels: level {} above the maximum {}", v, max));
    }
    return Status::OK();
  };
  RAP_RETURN_NOT_OK(decode(p + pos, rep_len, max_rep, &out.rep));
  RAP_RETURN_NOT_OK(decode(p + pos + rep_len, levels.size() - pos - rep_len, max_def, &out.def));
  return out;
}

}  // namespace rap::parquet
