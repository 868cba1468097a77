// Writer options: per-column resolution, validation and the CLI text forms.
#include "rap/format/writer_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace rap::parquet {

void ColumnLayoutOverride::ApplyTo(ColumnLayout* l) const {
  if (dictionary) l->dictionary = *dictionary;
  if (dictionary_max_bytes) l->dictionary_max_bytes = *dictionary_max_bytes;
  if (dictionary_max_entries) l->dictionary_max_entries = *dictionary_max_entries;
  if (encoding) l->encoding = *encoding;
  if (codec) l->codec = *codec;
  if (codec_level) l->codec_level = *codec_level;
  if (page_max_rows) l->page_max_rows = *page_max_rows;
  if (page_max_bytes) l->page_max_bytes = *page_max_bytes;
  if (statistics) l->statistics = *statistics;
  if (page_statistics) l->page_statistics = *page_statistics;
  if (max_statistics_bytes) l->max_statistics_bytes = *max_statistics_bytes;
}

ColumnLayout WriterOptions::LayoutFor(const std::string& top_level, const std::string& path) const {
  ColumnLayout l = defaults;
  if (auto it = columns.find(top_level); it != columns.end()) it->second.ApplyTo(&l);
  if (path != top_level) {
    if (auto it = columns.find(path); it != columns.end()) it->second.ApplyTo(&l);
  }
  return l;
}

namespace {
Status CheckLayout(const ColumnLayout& l, const std::string& where) {
  if (l.page_max_rows < 0 || l.page_max_bytes < 0 || l.dictionary_max_bytes < 0 || l.dictionary_max_entries < 0 ||
      l.max_statistics_bytes < 0) {
    return Status::InvalidArgument(where + ": page and dictionary limits must be >= 0");
  }
  if (l.dictionary_max_entries > INT32_MAX)
    return Status::InvalidArgument(where + ": dictionary_max_entries too large");
  switch (l.codec) {
    case Codec::UNCOMPRESSED:
    case Codec::SNAPPY:
    case Codec::GZIP:
    case Codec::BROTLI:
    case Codec::ZSTD:
    case Codec::LZ4_RAW:
      break;
    default:
      return Status::NotSupported(
          fmt::format("{}: codec {} is not written (use none, snappy, gzip, brotli, zstd or "
                      "lz4_raw)",
                      where, CodecName(l.codec)));
  }
  switch (l.encoding) {
    case Encoding::PLAIN:
    case Encoding::DELTA_BINARY_PACKED:
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
    case Encoding::DELTA_BYTE_ARRAY:
    case Encoding::BYTE_STREAM_SPLIT:
    case Encoding::RLE:
      break;
    default:
      return Status::InvalidArgument(
          fmt::format("{}: {} is not a value encoding (dictionary encoding is the "
                      "'dictionary' switch)",
                      where, EncodingName(l.encoding)));
  }
  return Status::OK();
}
}  // namespace

Status WriterOptions::Validate() const {
  if (row_group_max_rows < 0 || row_group_max_bytes < 0) {
    return Status::InvalidArgument("row group limits must be >= 0");
  }
  if (data_page_version != 1 && data_page_version != 2) {
    return Status::InvalidArgument(fmt::format("data page version must be 1 or 2, got {}", data_page_version));
  }
  if (column_index_truncate_bytes < 1) return Status::InvalidArgument("column_index_truncate_bytes must be >= 1");
  if (frame_align < 0 || (frame_align > 0 && (frame_align < 64 || (frame_align & (frame_align - 1)) != 0))) {
    return Status::InvalidArgument(fmt::format("frame alignment {}: expected 0 or a power of two >= 64", frame_align));
  }
  if ((frame_align > 0 || interleave) && frame_break_on.empty()) {
    return Status::InvalidArgument("frame alignment and interleaving need frame_break_on (a frame per key)");
  }
  if (!frame_break_on.empty() && page_crc) {
    return Status::InvalidArgument("page CRCs are not written with a frame per key (a page's bytes change with its "
                                   "placement)");
  }
  RAP_RETURN_NOT_OK(CheckLayout(defaults, "default layout"));
  for (const auto& [name, o] : columns) {
    ColumnLayout l = defaults;
    o.ApplyTo(&l);
    RAP_RETURN_NOT_OK(CheckLayout(l, "column " + name));
  }
  return Status::OK();
}

namespace {
std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
}  // namespace

Result<std::pair<Codec, int>> ParseCodec(const std::string& text) {
  std::string name = Lower(text);
  int level = 0;
  if (auto colon = name.find(':'); colon != std::string::npos) {
    const std::string lv = name.substr(colon + 1);
    auto [p, ec] = std::from_chars(lv.data(), lv.data() + lv.size(), level);
    if (ec != std::errc() || p != lv.data() + lv.size()) {
      return Status::InvalidArgument("compression '" + text + "': level '" + lv + "' is not an integer");
    }
    name = name.substr(0, colon);
  }
  Codec c;
  if (name == "none" || name == "uncompressed")
    c = Codec::UNCOMPRESSED;
  else if (name == "snappy")
    c = Codec::SNAPPY;
  else if (name == "gzip")
    c = Codec::GZIP;
  else if (name == "zstd")
    c = Codec::ZSTD;
  else if (name == "lz4_raw" || name == "lz4")
    c = Codec::LZ4_RAW;
  else if (name == "brotli")
    c = Codec::BROTLI;
  else
    return Status::InvalidArgument("compression '" + text +
                                   "': expected none, snappy, gzip[:1-9], zstd[:1-22], "
                                   "lz4_raw or brotli[:0-11]");
  const int max_level = c == Codec::ZSTD ? 22 : c == Codec::GZIP ? 9 : c == Codec::BROTLI ? 11 : 0;
  if (level != 0 && (max_level == 0 || level < (c == Codec::BROTLI ? 0 : 1) || level > max_level)) {
    return Status::InvalidArgument(
        fmt::format("compression '{}': level {} is out of range for {}", text, level, CodecName(c)));
  }
  return std::make_pair(c, level);
}

Result<ColumnLayoutOverride> ParseEncodingOverride(const std::string& text) {
  const std::string e = Lower(text);
  ColumnLayoutOverride o;
  if (e == "dict" || e == "dictionary" || e == "rle_dictionary") {
    o.dictionary = true;
    return o;
  }
  o.dictionary = false;
  if (e == "plain")
    o.encoding = Encoding::PLAIN;
  else if (e == "delta" || e == "delta_binary_packed")
    o.encoding = Encoding::DELTA_BINARY_PACKED;
  else if (e == "delta_length" || e == "delta_length_byte_array")
    o.encoding = Encoding::DELTA_LENGTH_BYTE_ARRAY;
  else if (e == "delta_byte_array")
    o.encoding = Encoding::DELTA_BYTE_ARRAY;
  else if (e == "bss" || e == "byte_stream_split")
    o.encoding = Encoding::BYTE_STREAM_SPLIT;
  else if (e == "rle")
    o.encoding = Encoding::RLE;
  else
    return Status::InvalidArgument("encoding '" + text +
                                   "': expected plain, dict, delta, delta_length, "
                                   "delta_byte_array, bss or rle");
  return o;
}

}  // namespace rap::parquet
