// FindChunkFrames: a framed column chunk's per-key ZSTD frames, found by walking its pages and
// checked against the key's runs and values (docs/index-format.md, "Frame records").
#include "index/frame_locations.h"

#include <fmt/format.h>

#include <cstring>

#include "rap/codec/codec.h"
#include "rap/format/frame_layout.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"
#include "rap/io/planned_read.h"

namespace rap::index::internal {

namespace {

int BitWidthOf(int16_t max_level) {
  int w = 0;
  while ((1 << w) <= max_level) ++w;
  return w;
}

// The PLAIN values in `raw` are exactly `num_values` values of `column`.
bool PlainHolds(const parquet::ColumnDescriptor& column, std::span<const uint8_t> raw, int64_t num_values) {
  using parquet::Type;
  int64_t width = 0;
  switch (column.physical_type) {
    case Type::INT32: case Type::FLOAT: width = 4; break;
    case Type::INT64: case Type::DOUBLE: width = 8; break;
    case Type::INT96: width = 12; break;
    case Type::FIXED_LEN_BYTE_ARRAY: width = column.type_length; break;
    case Type::BYTE_ARRAY: {
      size_t pos = 0;
      for (int64_t i = 0; i < num_values; ++i) {
        if (raw.size() - pos < 4) return false;
        uint32_t len = 0;
        std::memcpy(&len, raw.data() + pos, 4);
        pos += 4;
        if (raw.size() - pos < len) return false;
        pos += len;
      }
      return pos == raw.size();
    }
    default: return false;  // BOOLEAN: never framed
  }
  return width > 0 && static_cast<int64_t>(raw.size()) == num_values * width;
}

// One page: its frame records, or not framed.
Result<PageFrames> PageFramesOf(const parquet::ColumnDescriptor& column, const Buffer& page, int64_t page_offset,
                                int64_t first_row, int64_t num_rows, int32_t cover_index,
                                const std::function<bool(int64_t)>& key_break) {
  PageFrames out;
  const std::span<const uint8_t> bytes(page.data(), page.size());
  size_t header_size = 0;
  auto h = parquet::DecodePageHeader(bytes, &header_size);
  if (!h.ok()) return h.status().WithContext(fmt::format("page header at offset {}", page_offset));
  if (h->type != parquet::PageType::DATA_PAGE_V2 || !h->data_page_header_v2) return out;
  const parquet::DataPageHeaderV2& v2 = *h->data_page_header_v2;
  if (v2.encoding != parquet::Encoding::PLAIN || !v2.is_compressed || v2.num_rows != num_rows ||
      v2.definition_levels_byte_length < 0 || v2.repetition_levels_byte_length < 0 || v2.num_values < num_rows) {
    return out;
  }
  const int64_t rep_len = v2.repetition_levels_byte_length, def_len = v2.definition_levels_byte_length;
  const int64_t body = static_cast<int64_t>(bytes.size()) - static_cast<int64_t>(header_size);
  if (h->compressed_page_size != body || rep_len + def_len > body) return out;
  const uint8_t* levels = bytes.data() + header_size;
  const int64_t n = v2.num_values;
  if (n > (int64_t{1} << 31)) return out;
  std::vector<int16_t> rep, def;
  if (column.max_repetition_level > 0) {
    rep.resize(static_cast<size_t>(n));
    RAP_RETURN_NOT_OK(parquet::DecodeLevelsV2(BitWidthOf(column.max_repetition_level), {levels, size_t(rep_len)}, n,
                                              rep.data()));
  }
  if (column.max_definition_level > 0) {
    def.resize(static_cast<size_t>(n));
    RAP_RETURN_NOT_OK(parquet::DecodeLevelsV2(BitWidthOf(column.max_definition_level),
                                              {levels + rep_len, size_t(def_len)}, n, def.data()));
  }
  const std::span<const uint8_t> section(levels + rep_len + def_len, static_cast<size_t>(body - rep_len - def_len));
  auto listed = parquet::ListFrames(section);
  if (!listed.ok()) return out;  // not a section of ZSTD frames: an ordinary page
  std::vector<parquet::FrameInfo> frames;
  for (const parquet::FrameInfo& f : *listed) {
    if (!f.skippable) frames.push_back(f);
  }
  // The page's runs of one key: [row_begin, row_end) with their level slices.
  struct Run {
    int64_t row = 0, rows = 0, level = 0, levels = 0;
  };
  std::vector<Run> runs;
  int64_t level = 0;
  for (int64_t r = 0; r < num_rows; ++r) {
    if (r == 0 || key_break(first_row + r)) runs.push_back({r, 0, level, 0});
    ++runs.back().rows;
    int64_t l = level + 1;
    if (!rep.empty()) {
      while (l < n && rep[static_cast<size_t>(l)] != 0) ++l;
    }
    if (l > n) return out;
    runs.back().levels += l - level;
    level = l;
  }
  if (level != n || runs.size() != frames.size()) return out;
  std::vector<uint8_t> raw;
  int64_t raw_total = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const parquet::FrameInfo& f = frames[i];
    int64_t values = run.levels;
    if (!def.empty()) {
      values = 0;
      for (int64_t l = run.level; l < run.level + run.levels; ++l) values += def[size_t(l)] == column.max_definition_level;
    }
    if (f.content_size < 0 || f.content_size > h->uncompressed_page_size) return out;
    raw_total += f.content_size;
    if (raw_total > h->uncompressed_page_size) return out;
    raw.resize(static_cast<size_t>(f.content_size));
    if (!rap::codec::Decompress(rap::codec::Codec::ZSTD, section.subspan(size_t(f.offset), size_t(f.size)), raw).ok()) {
      return out;
    }
    if (!PlainHolds(column, raw, values)) return out;
    Location loc;
    loc.column = cover_index;
    loc.kind = static_cast<int32_t>(LocationKind::kZstdFrame);
    loc.codec = static_cast<int32_t>(parquet::Codec::ZSTD);
    loc.offset = page_offset + static_cast<int64_t>(header_size) + rep_len + def_len + f.offset;
    loc.size = f.size;
    loc.first_row = first_row + run.row;
    loc.num_rows = run.rows;
    const auto slice = [&](const std::vector<int16_t>& v) {
      return v.empty() ? std::span<const int16_t>() : std::span<const int16_t>(v).subspan(size_t(run.level), size_t(run.levels));
    };
    loc.aux = parquet::EncodeKeyLevels(slice(rep), slice(def), column.max_repetition_level, column.max_definition_level);
    out.frames.push_back(std::move(loc));
  }
  out.framed = true;
  return out;
}

}  // namespace

Result<std::vector<PageFrames>> FindChunkFrames(io::ObjectStore& store, read::FileReader& reader, int rg, int leaf,
                                                int32_t cover_index, const std::function<bool(int64_t)>& key_break) {
  const auto& chunk = reader.metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(leaf)];
  const parquet::ColumnDescriptor& column = reader.schema().column(leaf);
  RAP_ASSIGN_OR_RETURN(auto oi, reader.GetOffsetIndex(rg, leaf));
  std::vector<PageFrames> out;
  if (!oi) return out;
  out.resize(oi->page_locations.size());
  if (chunk.meta_data->codec != parquet::Codec::ZSTD || column.physical_type == parquet::Type::BOOLEAN) return out;
  const auto& pages = oi->page_locations;
  std::vector<ByteRange> ranges;
  for (const parquet::PageLocation& p : pages) {
    if (p.offset < 0 || p.compressed_page_size <= 0 || static_cast<uint64_t>(p.offset) + p.compressed_page_size >
                                                           reader.info().size) {
      return Status::Corrupt(fmt::format("{}: OffsetIndex page [{}, +{}) of row group {} column {} lies outside the file",
                                         reader.path(), p.offset, p.compressed_page_size, rg, column.dotted_path));
    }
    ranges.push_back({static_cast<uint64_t>(p.offset), static_cast<uint64_t>(p.compressed_page_size)});
  }
  io::PlanOptions po;
  po.expected_etag = reader.info().etag;
  po.purpose = "index_frames";
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> got, io::ReadPlanned(store, reader.path(), ranges, po));
  const int64_t rg_first = reader.row_group_first_row(rg), rg_rows = reader.row_group_num_rows(rg);
  for (size_t p = 0; p < pages.size(); ++p) {
    const int64_t pf = pages[p].first_row_index;
    const int64_t pe = p + 1 < pages.size() ? pages[p + 1].first_row_index : rg_rows;
    if (pe <= pf || pe > rg_rows) continue;
    auto pfr = PageFramesOf(column, got[p], pages[p].offset, rg_first + pf, pe - pf, cover_index, key_break);
    if (!pfr.ok()) return pfr.status().WithContext(reader.path() + ", column " + column.dotted_path);
    out[p] = std::move(*pfr);
  }
  return out;
}

}  // namespace rap::index::internal
