// ReadKeyFrame: one key's frame (and its levels from the index) decoded as a one-page column chunk.
#include <fmt/format.h>

#include "rap/format/frame_layout.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"

namespace rap::parquet {

Result<LeafColumnData> ReadKeyFrame(const ColumnDescriptor& column, std::span<const uint8_t> frame,
                                    const FrameLocation& loc, const ColumnReadOptions& options) {
  if (static_cast<int64_t>(frame.size()) != loc.size) {
    return Status::InvalidArgument(fmt::format("column {}: frame at offset {} has {} bytes, its location says {}",
                                               column.dotted_path, loc.offset, frame.size(), loc.size));
  }
  RAP_ASSIGN_OR_RETURN(KeyLevels lv, DecodeKeyLevels(loc.levels, loc.num_rows, column.max_repetition_level,
                                                     column.max_definition_level));
  if (lv.num_levels != loc.num_levels) {
    return Status::Corrupt(fmt::format("column {}: frame at offset {}: {} levels decoded, the location says {}",
                                       column.dotted_path, loc.offset, lv.num_levels, loc.num_levels));
  }
  // The key as a data page v2 of its own: its levels re-encoded, then the frame as the compressed
  // section, so the ordinary page decoder (and its checks) does the rest.
  std::string rep, def;
  if (column.max_repetition_level > 0) {
    RleBitPackedEncoder e(BitWidth(static_cast<uint64_t>(column.max_repetition_level)));
    e.PutBatch(lv.rep.data(), static_cast<int64_t>(lv.rep.size()));
    e.Finish(&rep);
  }
  int64_t nulls = 0;
  if (column.max_definition_level > 0) {
    RleBitPackedEncoder e(BitWidth(static_cast<uint64_t>(column.max_definition_level)));
    e.PutBatch(lv.def.data(), static_cast<int64_t>(lv.def.size()));
    e.Finish(&def);
    for (int16_t d : lv.def) nulls += d != column.max_definition_level;
  }
  PageHeader h;
  h.type = PageType::DATA_PAGE_V2;
  h.compressed_page_size = static_cast<int32_t>(rep.size() + def.size() + frame.size());
  h.uncompressed_page_size = static_cast<int32_t>(rep.size() + def.size() + loc.raw_size);
  DataPageHeaderV2 dh;
  dh.num_values = static_cast<int32_t>(lv.num_levels);
  dh.num_nulls = static_cast<int32_t>(nulls);
  dh.num_rows = static_cast<int32_t>(loc.num_rows);
  dh.encoding = Encoding::PLAIN;
  dh.definition_levels_byte_length = static_cast<int32_t>(def.size());
  dh.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
  dh.is_compressed = true;
  h.data_page_header_v2 = dh;
  std::string page;
  EncodePageHeader(h, &page);
  page += rep;
  page += def;
  page.append(reinterpret_cast<const char*>(frame.data()), frame.size());
  ColumnChunkInput input;
  input.spans.push_back(PageSpan{Buffer::FromString(std::move(page)), static_cast<uint64_t>(loc.offset), 0});
  input.num_rows = loc.num_rows;
  auto out = ReadColumnChunk(column, Codec::ZSTD, input, {{0, loc.num_rows}}, options);
  if (!out.ok()) return out.status().WithContext(fmt::format("key frame at offset {}", loc.offset));
  return out;
}

}  // namespace rap::parquet
