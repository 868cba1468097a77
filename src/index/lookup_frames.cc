// Lookups through frame records (kind 1): the merged ranges of a key's frames, and the decode of one
// frame with its levels from `aux` (rap::parquet::ReadKeyFrame).
#include <fmt/format.h>

#include <algorithm>

#include "rap/columnar/take.h"
#include "index/frame_locations.h"
#include "rap/format/frame_layout.h"
#include "rap/read/scanner.h"

namespace rap::index::internal {

std::vector<ByteRange> MergeFrameRanges(std::vector<ByteRange> ranges, int64_t gap) {
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.offset != b.offset ? a.offset < b.offset : a.length < b.length; });
  std::vector<ByteRange> out;
  for (const ByteRange& r : ranges) {
    if (!out.empty() && r.offset <= out.back().offset + out.back().length + static_cast<uint64_t>(gap)) {
      out.back().length = std::max(out.back().offset + out.back().length, r.offset + r.length) - out.back().offset;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Result<ArrayPtr> DecodeFrameRecord(const parquet::FieldNode& node, const parquet::ColumnDescriptor& column,
                                   int num_leaves, const Location& record, const Buffer& frame,
                                   const read::RowSelection& rows, const parquet::ColumnReadOptions& options) {
  const std::span<const uint8_t> bytes(frame.data(), frame.size());
  const auto where = [&] {
    return fmt::format("{}: frame record of column {} at offset {} (+{})", options.file_name, column.dotted_path,
                       record.offset, record.size);
  };
  if (record.codec != static_cast<int32_t>(parquet::Codec::ZSTD)) {
    return Status::Corrupt(where() + ": codec " + std::to_string(record.codec) + ", expected ZSTD (6)");
  }
  auto listed = parquet::ListFrames(bytes);
  if (!listed.ok()) return listed.status().WithContext(where());
  if (listed->size() != 1 || (*listed)[0].skippable || (*listed)[0].content_size < 0) {
    return Status::Corrupt(where() + ": expected exactly one ZSTD frame with a declared content size");
  }
  parquet::FrameLocation loc;
  loc.offset = record.offset;
  loc.size = record.size;
  loc.first_row = 0;
  loc.num_rows = record.num_rows;
  loc.raw_size = (*listed)[0].content_size;
  loc.levels = record.aux;
  // DecodeKeyLevels checks a flat column's level count against its rows before allocating levels.
  auto levels = parquet::DecodeKeyLevels(record.aux, record.num_rows, column.max_repetition_level,
                                         column.max_definition_level);
  if (!levels.ok()) return levels.status().WithContext(where());
  const parquet::KeyLevels& lv = *levels;
  loc.num_levels = lv.num_levels;
  auto data = parquet::ReadKeyFrame(column, bytes, loc, options);
  if (!data.ok()) return data.status().WithContext(where());
  std::vector<const parquet::LeafColumnData*> leaves(static_cast<size_t>(num_leaves), nullptr);
  leaves[static_cast<size_t>(column.index)] = &*data;
  RAP_ASSIGN_OR_RETURN(ArrayPtr all, parquet::AssembleField(node, leaves, record.num_rows));
  if (rows.Count() == record.num_rows) return all;
  std::vector<int64_t> idx;
  for (const read::RowRange& r : rows) {
    for (int64_t i = r.begin; i < r.end; ++i) idx.push_back(i);
  }
  return columnar::TakeArray(*all, idx);
}

}  // namespace rap::index::internal
