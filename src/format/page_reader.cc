// Page walking, CRC, decompression and level decoding for the column reader.
#include "format/page_reader.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <zlib.h>

#include "format/bit_util.h"
#include "rap/codec/codec.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"

namespace rap::parquet::internal {

std::string PageContext(const ColumnReadOptions& options, const ColumnDescriptor& column, uint64_t offset) {
  return fmt::format("{}{}column '{}' page at offset {}", options.file_name, options.file_name.empty() ? "" : ": ",
                     column.dotted_path, offset);
}

Result<bool> NextPage(const PageSpan& span, size_t* pos, const ColumnDescriptor& column,
                      const ColumnReadOptions& options, RawPage* page) {
  const size_t size = span.bytes.size();
  if (*pos >= size) return false;
  const uint64_t at = span.file_offset + *pos;
  size_t header_size = 0;
  auto header = DecodePageHeader(span.bytes.span().subspan(*pos), &header_size);
  if (!header.ok()) return header.status().WithContext(PageContext(options, column, at) + ": page header");
  const PageHeader& h = *header;
  if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0) {
    return Status::Corrupt(fmt::format("{}: negative page size (compressed {}, uncompressed {})",
                                       PageContext(options, column, at), h.compressed_page_size,
                                       h.uncompressed_page_size));
  }
  const size_t body_at = *pos + header_size;
  if (header_size > size - *pos || static_cast<uint64_t>(h.compressed_page_size) > size - body_at) {
    return Status::Corrupt(fmt::format("{}: page body of {} bytes at offset {} runs past the end of the column "
                                       "chunk data at offset {}",
                                       PageContext(options, column, at), h.compressed_page_size,
                                       span.file_offset + body_at, span.file_offset + size));
  }
  page->header = h;
  page->offset = at;
  page->body = span.bytes.span().subspan(body_at, static_cast<size_t>(h.compressed_page_size));
  *pos = body_at + static_cast<size_t>(h.compressed_page_size);
  if (options.verify_crc && h.crc.has_value()) {
    // zlib's crc32 is the CRC-32 (IEEE) the Parquet spec asks for, over the compressed body.
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t done = 0;
    while (done < page->body.size()) {
      const uInt chunk = static_cast<uInt>(std::min<size_t>(page->body.size() - done, 1u << 30));
      crc = crc32(crc, page->body.data() + done, chunk);
      done += chunk;
    }
    const uint32_t expected = static_cast<uint32_t>(*h.crc);
    if (static_cast<uint32_t>(crc) != expected) {
      return Status::Corrupt(fmt::format("{}: page checksum mismatch (CRC32 of the {}-byte body is {:08x}, header "
                                         "says {:08x})",
                                         PageContext(options, column, at), page->body.size(),
                                         static_cast<uint32_t>(crc), expected));
    }
  }
  return true;
}

namespace {

// Decompresses `in` into a new buffer of `size` bytes, within the configured limit.
Result<Buffer> DecompressTo(Codec codec, std::span<const uint8_t> in, int64_t size, const ColumnReadOptions& options,
                            const ColumnDescriptor& column, uint64_t offset) {
  if (size > options.max_page_bytes) {
    return Status::ResourceExhausted(fmt::format("{}: page decompresses to {} bytes, more than the limit of {} bytes",
                                                 PageContext(options, column, offset), size, options.max_page_bytes));
  }
  Buffer out;
  if (options.memory) {
    // The buffer owns its charge: it is released when the last slice of the page goes away.
    RAP_ASSIGN_OR_RETURN(MemoryCharge charge, options.memory->Charge(static_cast<uint64_t>(size), [&] {
      return PageContext(options, column, offset) + ": decompressed page";
    }));
    struct Owned {
      std::unique_ptr<uint8_t[]> bytes;
      MemoryCharge charge;
    };
    auto owned = std::make_shared<Owned>();
    owned->bytes.reset(new uint8_t[size == 0 ? 1 : static_cast<size_t>(size)]);
    owned->charge = std::move(charge);
    uint8_t* data = owned->bytes.get();
    out = Buffer(std::shared_ptr<const void>(owned, data), data, static_cast<size_t>(size));
  } else {
    out = Buffer::Allocate(static_cast<size_t>(size));
  }
  if (size == 0) return out;  // nothing to decompress (an empty stream may not be valid for the codec)
  Status st = Decompress(codec, in, {out.mutable_data(), out.size()});
  if (!st.ok()) return st.WithContext(PageContext(options, column, offset));
  return out;
}

Status CheckLevelMemory(int64_t n, const ColumnDescriptor& column, const ColumnReadOptions& options, uint64_t offset) {
  if (n < 0) {
    return Status::Corrupt(fmt::format("{}: negative value count {}", PageContext(options, column, offset), n));
  }
  if (options.memory) {
    RAP_RETURN_NOT_OK(options.memory->CheckFits(static_cast<uint64_t>(n) * 4, [&] {
      return fmt::format("{}: {} levels", PageContext(options, column, offset), n);
    }));
  }
  if (n * 4 > options.max_page_bytes) {
    return Status::ResourceExhausted(fmt::format("{}: {} levels need more than the limit of {} bytes",
                                                 PageContext(options, column, offset), n, options.max_page_bytes));
  }
  return Status::OK();
}

// Charges the page's level arrays (2 bytes per level and level kind) to the scan's budget.
Status ChargeLevels(const ColumnDescriptor& column, const ColumnReadOptions& options, DataPage* page) {
  if (!options.memory) return Status::OK();
  const uint64_t kinds = (column.max_definition_level > 0 ? 1 : 0) + (column.max_repetition_level > 0 ? 1 : 0);
  if (kinds == 0) return Status::OK();
  RAP_ASSIGN_OR_RETURN(page->level_memory,
                       options.memory->Charge(static_cast<uint64_t>(page->num_levels) * 2 * kinds, [&] {
                         return fmt::format("{}: {} levels", PageContext(options, column, page->offset),
                                            page->num_levels);
                       }));
  return Status::OK();
}

void CountNonNull(const ColumnDescriptor& column, DataPage* page) {
  if (column.max_definition_level == 0) {
    page->num_non_null = page->num_levels;
    return;
  }
  const int16_t max_def = column.max_definition_level;
  // Counted in blocks with a 16-bit counter: GCC vectorises that loop (compare + add of 16-bit lanes),
  // not one that adds bools into an int64.
  const int16_t* d = page->def.data();
  const size_t size = page->def.size();
  int64_t n = 0;
  constexpr size_t kBlock = 32768;
  for (size_t b = 0; b < size; b += kBlock) {
    const size_t e = std::min(size, b + kBlock);
    uint16_t c = 0;
    for (size_t i = b; i < e; ++i) c = static_cast<uint16_t>(c + (d[i] == max_def ? 1 : 0));
    n += c;
  }
  page->num_non_null = n;
}

Status CheckLevelRange(const UninitVector<int16_t>& levels, int16_t max, const char* what,
                       const ColumnDescriptor& column, const ColumnReadOptions& options, uint64_t offset) {
  // The hybrid and BIT_PACKED decoders yield values below 2^bit_width: when max fills its bit width
  // (max 1, 3, 7, ...) no level can exceed it.
  const int width = BitWidth(static_cast<uint64_t>(std::max<int16_t>(max, 0)));
  if (max >= 0 && static_cast<int>(max) == (1 << width) - 1) return Status::OK();
  // One branch-free pass over the common, valid case: an unsigned maximum, which GCC vectorises
  // (a bool |= reduction it does not); the first bad level is looked for only on failure.
  uint16_t top = 0;
  for (int16_t l : levels) top = std::max(top, static_cast<uint16_t>(l));
  if (top <= static_cast<uint16_t>(max)) return Status::OK();
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] < 0 || levels[i] > max) {
      return Status::Corrupt(fmt::format("{}: {} level {} at index {} exceeds the maximum {}",
                                         PageContext(options, column, offset), what, levels[i], i, max));
    }
  }
  return Status::OK();
}

}  // namespace

int64_t KnownPageRows(const PageHeader& header, const ColumnDescriptor& column) {
  if (header.type == PageType::DATA_PAGE_V2 && header.data_page_header_v2) return header.data_page_header_v2->num_rows;
  if (column.max_repetition_level == 0) {
    if (header.type == PageType::DATA_PAGE && header.data_page_header) return header.data_page_header->num_values;
  }
  return -1;
}

// Lazy definition levels (DataPage::lazy_def): `hybrid` (no length prefix) is kept and its 1s are
// counted without unpacking; Corrupt when it holds fewer than the page's levels.
static Status KeepLazyDef(std::span<const uint8_t> hybrid, const ColumnDescriptor& column, const ColumnReadOptions& options,
                   uint64_t offset, DataPage* page) {
  RleBitPackedDecoder dec(hybrid.data(), hybrid.size(), 1);
  int64_t ones = 0;
  auto got = dec.SkipCountingOnes(page->num_levels, &ones);
  if (!got.ok()) return got.status().WithContext(PageContext(options, column, offset) + ": definition levels");
  if (*got != page->num_levels) {
    return Status::Corrupt(fmt::format("{}: definition levels: expected {} levels, the {}-byte section holds only {}",
                                       PageContext(options, column, offset), page->num_levels, hybrid.size(), *got));
  }
  page->lazy_def = true;
  page->def_hybrid = hybrid;
  page->num_non_null = ones;
  return Status::OK();
}

static bool LazyDef(bool lazy_flat_def, const ColumnDescriptor& column) {
  return lazy_flat_def && column.max_repetition_level == 0 && column.max_definition_level == 1;
}

Status DecodeDataPage(const RawPage& raw, const ColumnDescriptor& column, Codec codec, const ColumnReadOptions& options,
                      DataPage* page, bool lazy_flat_def) {
  const PageHeader& h = raw.header;
  page->offset = raw.offset;
  const int max_def = column.max_definition_level, max_rep = column.max_repetition_level;
  if (h.type == PageType::DATA_PAGE) {
    if (!h.data_page_header) {
      return Status::Corrupt(PageContext(options, column, raw.offset) + ": DATA_PAGE without data_page_header");
    }
    const DataPageHeader& dh = *h.data_page_header;
    page->encoding = dh.encoding;
    page->num_levels = dh.num_values;
    RAP_RETURN_NOT_OK(CheckLevelMemory(dh.num_values, column, options, raw.offset));
    RAP_RETURN_NOT_OK(ChargeLevels(column, options, page));
    std::span<const uint8_t> data = raw.body;
    if (codec != Codec::UNCOMPRESSED) {
      RAP_ASSIGN_OR_RETURN(page->storage, DecompressTo(codec, raw.body, h.uncompressed_page_size, options, column,
                                                       raw.offset));
      data = page->storage.span();
    }
    size_t pos = 0;
    if (max_rep > 0) {
      page->rep.resize(static_cast<size_t>(dh.num_values));
      auto used = DecodeLevelsV1(dh.repetition_level_encoding, BitWidth(static_cast<uint64_t>(max_rep)), data,
                                 dh.num_values, page->rep.data());
      if (!used.ok()) return used.status().WithContext(PageContext(options, column, raw.offset) + ": repetition levels");
      pos += *used;
    }
    if (max_def > 0 && LazyDef(lazy_flat_def, column) && dh.definition_level_encoding == Encoding::RLE) {
      const std::span<const uint8_t> rest = data.subspan(std::min(pos, data.size()));
      if (rest.size() < 4) {
        return Status::Corrupt(PageContext(options, column, raw.offset) +
                               ": definition levels: 4-byte length prefix is truncated");
      }
      const uint32_t len = internal::LoadLE<uint32_t>(rest.data());
      if (len > rest.size() - 4) {
        return Status::Corrupt(fmt::format("{}: definition levels: length prefix {} exceeds the {} bytes that follow it",
                                           PageContext(options, column, raw.offset), len, rest.size() - 4));
      }
      RAP_RETURN_NOT_OK(KeepLazyDef(rest.subspan(4, len), column, options, raw.offset, page));
      pos += static_cast<size_t>(len) + 4;
    } else if (max_def > 0) {
      page->def.resize(static_cast<size_t>(dh.num_values));
      auto used = DecodeLevelsV1(dh.definition_level_encoding, BitWidth(static_cast<uint64_t>(max_def)),
                                 data.subspan(std::min(pos, data.size())), dh.num_values, page->def.data());
      if (!used.ok()) return used.status().WithContext(PageContext(options, column, raw.offset) + ": definition levels");
      pos += *used;
    }
    if (pos > data.size()) {
      return Status::Corrupt(PageContext(options, column, raw.offset) + ": levels run past the end of the page");
    }
    page->values = data.subspan(pos);
  } else if (h.type == PageType::DATA_PAGE_V2) {
    if (!h.data_page_header_v2) {
      return Status::Corrupt(PageContext(options, column, raw.offset) + ": DATA_PAGE_V2 without data_page_header_v2");
    }
    const DataPageHeaderV2& dh = *h.data_page_header_v2;
    page->encoding = dh.encoding;
    page->num_levels = dh.num_values;
    RAP_RETURN_NOT_OK(CheckLevelMemory(dh.num_values, column, options, raw.offset));
    RAP_RETURN_NOT_OK(ChargeLevels(column, options, page));
    const int64_t rep_len = dh.repetition_levels_byte_length, def_len = dh.definition_levels_byte_length;
    if (rep_len < 0 || def_len < 0 || rep_len + def_len > static_cast<int64_t>(raw.body.size()) ||
        rep_len + def_len > h.uncompressed_page_size) {
      return Status::Corrupt(fmt::format("{}: level lengths (repetition {}, definition {}) do not fit in the page of "
                                         "{} bytes",
                                         PageContext(options, column, raw.offset), rep_len, def_len, raw.body.size()));
    }
    if (max_rep > 0) {
      page->rep.resize(static_cast<size_t>(dh.num_values));
      Status st = DecodeLevelsV2(BitWidth(static_cast<uint64_t>(max_rep)),
                                 raw.body.subspan(0, static_cast<size_t>(rep_len)), dh.num_values, page->rep.data());
      if (!st.ok()) return st.WithContext(PageContext(options, column, raw.offset) + ": repetition levels");
    }
    if (max_def > 0 && LazyDef(lazy_flat_def, column)) {
      RAP_RETURN_NOT_OK(KeepLazyDef(raw.body.subspan(static_cast<size_t>(rep_len), static_cast<size_t>(def_len)), column,
                                    options, raw.offset, page));
    } else if (max_def > 0) {
      page->def.resize(static_cast<size_t>(dh.num_values));
      Status st = DecodeLevelsV2(BitWidth(static_cast<uint64_t>(max_def)),
                                 raw.body.subspan(static_cast<size_t>(rep_len), static_cast<size_t>(def_len)),
                                 dh.num_values, page->def.data());
      if (!st.ok()) return st.WithContext(PageContext(options, column, raw.offset) + ": definition levels");
    }
    std::span<const uint8_t> section = raw.body.subspan(static_cast<size_t>(rep_len + def_len));
    if (dh.is_compressed && codec != Codec::UNCOMPRESSED && !section.empty()) {
      RAP_ASSIGN_OR_RETURN(page->storage, DecompressTo(codec, section, h.uncompressed_page_size - rep_len - def_len,
                                                       options, column, raw.offset));
      section = page->storage.span();
    }
    page->values = section;
  } else {
    return Status::Internal(PageContext(options, column, raw.offset) + ": not a data page");
  }
  RAP_RETURN_NOT_OK(CheckLevelRange(page->def, static_cast<int16_t>(max_def), "definition", column, options, raw.offset));
  RAP_RETURN_NOT_OK(CheckLevelRange(page->rep, static_cast<int16_t>(max_rep), "repetition", column, options, raw.offset));
  if (!page->lazy_def) CountNonNull(column, page);
  return Status::OK();
}

Status DecodeDictionaryPage(const RawPage& raw, const ColumnDescriptor& column, Codec codec,
                            const ColumnReadOptions& options, PhysicalValues* dict) {
  const PageHeader& h = raw.header;
  if (!h.dictionary_page_header) {
    return Status::Corrupt(PageContext(options, column, raw.offset) + ": DICTIONARY_PAGE without its header");
  }
  const DictionaryPageHeader& dh = *h.dictionary_page_header;
  if (dh.encoding != Encoding::PLAIN && dh.encoding != Encoding::PLAIN_DICTIONARY) {
    return Status::NotSupported(fmt::format("{}: dictionary page encoding {} is not supported",
                                            PageContext(options, column, raw.offset), EncodingName(dh.encoding)));
  }
  if (dh.num_values < 0) {
    return Status::Corrupt(fmt::format("{}: negative dictionary size {}", PageContext(options, column, raw.offset),
                                       dh.num_values));
  }
  std::span<const uint8_t> data = raw.body;
  Buffer storage;
  if (codec != Codec::UNCOMPRESSED) {
    RAP_ASSIGN_OR_RETURN(storage, DecompressTo(codec, raw.body, h.uncompressed_page_size, options, column, raw.offset));
    data = storage.span();
  }
  const int width = PhysicalWidth(column.physical_type, column.type_length);
  if (options.memory) {
    // Decoded: the fixed-width values, or a 4-byte offset per entry plus the page's bytes.
    const uint64_t decoded = width > 0 ? static_cast<uint64_t>(dh.num_values) * static_cast<uint64_t>(width)
                                       : static_cast<uint64_t>(dh.num_values) * 4 + data.size();
    RAP_RETURN_NOT_OK(options.memory->CheckFits(decoded, [&] {
      return fmt::format("{}: dictionary of {} values", PageContext(options, column, raw.offset), dh.num_values);
    }));
  }
  // Every PLAIN value takes at least one byte (BOOLEAN: one bit; BYTE_ARRAY: a 4-byte length).
  const int64_t min_bits = column.physical_type == Type::BOOLEAN ? 1 : (width > 0 ? width * 8 : 32);
  if (static_cast<int64_t>(dh.num_values) * min_bits > static_cast<int64_t>(data.size()) * 8) {
    return Status::Corrupt(fmt::format("{}: dictionary of {} values cannot fit in {} bytes",
                                       PageContext(options, column, raw.offset), dh.num_values, data.size()));
  }
  auto decoder = MakeValueDecoder(Encoding::PLAIN, column.physical_type, column.type_length, data, dh.num_values);
  if (!decoder.ok()) return decoder.status().WithContext(PageContext(options, column, raw.offset));
  *dict = PhysicalValues{};
  dict->width = width;
  Status st = dict->Append(decoder->get(), dh.num_values);
  if (!st.ok()) return st.WithContext(PageContext(options, column, raw.offset) + ": dictionary values");
  return Status::OK();
}

Status PhysicalValues::Append(ValueDecoder* decoder, int64_t n) {
  if (n <= 0) return Status::OK();
  if (width > 0) {
    RAP_ASSIGN_OR_RETURN(const uint8_t* plain, decoder->TakePlainFixed(n));
    if (plain != nullptr) {  // one copy straight from the page (ByteVector's resize does not zero)
      const size_t old = fixed.size(), bytes = static_cast<size_t>(n) * static_cast<size_t>(width);
      fixed.resize(old + bytes);
      std::memcpy(fixed.data() + old, plain, bytes);
      count += n;
      return Status::OK();
    }
    const size_t old = fixed.size();
    fixed.resize(old + static_cast<size_t>(n) * static_cast<size_t>(width));
    Status st = decoder->DecodeFixed(fixed.data() + old, n);
    if (!st.ok()) {
      fixed.resize(old);
      return st;
    }
  } else {
    RAP_RETURN_NOT_OK(decoder->DecodeBinary(n, BinaryOut{&offsets, &data}));
  }
  count += n;
  return Status::OK();
}

Status CheckDictionaryIndices(const int32_t* indices, int64_t n, int64_t dictionary_size) {
  // One branch-free range check (an unsigned maximum, which GCC vectorises); the first bad index is
  // looked for only on failure.
  uint32_t top = 0;
  for (int64_t i = 0; i < n; ++i) top = std::max(top, static_cast<uint32_t>(indices[i]));
  const bool bad = n > 0 && static_cast<uint64_t>(top) >= static_cast<uint64_t>(dictionary_size);
  for (int64_t i = 0; bad && i < n; ++i) {
    if (indices[i] < 0 || indices[i] >= dictionary_size) {
      return Status::Corrupt(
          fmt::format("dictionary index {} out of range (dictionary has {} values)", indices[i], dictionary_size));
    }
  }
  return Status::OK();
}

Status PhysicalValues::AppendGather(const PhysicalValues& dict, const int32_t* indices, int64_t n) {
  RAP_RETURN_NOT_OK(CheckDictionaryIndices(indices, n, dict.count));
  if (width > 0) {
    const size_t w = static_cast<size_t>(width);
    const size_t old = fixed.size();
    fixed.resize(old + static_cast<size_t>(n) * w);
    uint8_t* out = fixed.data() + old;
    if (w == 4) {
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * 4, dict.fixed.data() + static_cast<size_t>(indices[i]) * 4, 4);
    } else if (w == 8) {
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * 8, dict.fixed.data() + static_cast<size_t>(indices[i]) * 8, 8);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + static_cast<size_t>(i) * w, dict.fixed.data() + static_cast<size_t>(indices[i]) * w, w);
      }
    }
  } else {
    const int32_t* doff = dict.offsets.data();
    int64_t total = static_cast<int64_t>(data.size());
    for (int64_t i = 0; i < n; ++i) total += doff[indices[i] + 1] - doff[indices[i]];
    if (total > INT32_MAX) {
      return Status::ResourceExhausted(std::string("string/binary values of one read ") + kOffsetOverflowMessage);
    }
    const size_t old = data.size();
    // 32 bytes of slack: values of up to 32 bytes are copied as one fixed-size (inlined) 32-byte move
    // when the dictionary has 32 readable bytes there; the slack is cut off at the end. Raw pointers
    // keep the loop free of reloads through the vectors.
    constexpr size_t kShort = 32;
    data.resize(static_cast<size_t>(total) + kShort);
    const size_t first_offset = offsets.size();
    offsets.resize(first_offset + static_cast<size_t>(n));
    uint8_t* out = data.data();
    int32_t* out_offsets = offsets.data() + first_offset;
    const uint8_t* src = dict.data.data();
    const size_t dict_size = dict.data.size();
    size_t pos = old;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t b = doff[indices[i]], e = doff[indices[i] + 1];
      const size_t len = static_cast<size_t>(e - b);
      if (len <= kShort && static_cast<size_t>(b) + kShort <= dict_size) {
        std::memcpy(out + pos, src + b, kShort);
      } else if (len > 0) {
        std::memcpy(out + pos, src + b, len);
      }
      pos += len;
      out_offsets[i] = static_cast<int32_t>(pos);
    }
    data.resize(static_cast<size_t>(total));
  }
  count += n;
  return Status::OK();
}

}  // namespace rap::parquet::internal
