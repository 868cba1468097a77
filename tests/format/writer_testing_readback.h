// Read-back helpers of the writer tests (see writer_testing.h): whole files through the
// format-level reader, and the page index checked against the pages.
#pragma once

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rap/columnar/array_format.h"
#include "rap/format/column_reader.h"
#include "rap/format/footer.h"
#include "rap/format/schema.h"
#include "rap/format/statistics.h"
#include "rap/format/thrift.h"

namespace rap::testing {

// --- read-back --------------------------------------------------------------------------------

namespace detail {

struct ChunkRange {
  int64_t start = 0;
  int64_t length = 0;
};

inline ChunkRange ChunkBytes(const parquet::ColumnChunk& cc) {
  const auto& md = *cc.meta_data;
  const int64_t start =
      md.dictionary_page_offset ? std::min(*md.dictionary_page_offset, md.data_page_offset) : md.data_page_offset;
  return {start, md.total_compressed_size};
}

inline std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

inline Result<parquet::LeafColumnData> ReadChunkRows(const std::string& file, const parquet::ColumnDescriptor& col,
                                                     const parquet::ColumnChunk& cc, int64_t num_rows,
                                                     std::vector<parquet::RowRange> selection,
                                                     parquet::ColumnChunkStats* stats) {
  const ChunkRange r = ChunkBytes(cc);
  if (r.start < 0 || r.length < 0 || r.start + r.length > static_cast<int64_t>(file.size())) {
    return Status::Corrupt("column chunk outside the file");
  }
  parquet::ColumnChunkInput input;
  input.spans.push_back(parquet::PageSpan{Buffer::Copy(file.data() + r.start, static_cast<size_t>(r.length)),
                                          static_cast<uint64_t>(r.start), 0});
  input.num_rows = num_rows;
  parquet::ColumnReadOptions opts;
  opts.file_name = "written.parquet";
  return parquet::ReadColumnChunk(col, cc.meta_data->codec, input, selection, opts, stats);
}

}  // namespace detail

inline Result<std::vector<RecordBatch>> ReadBackFormatLevel(const std::string& file) {
  RAP_ASSIGN_OR_RETURN(parquet::FileMetaData md, parquet::ParseFooter(detail::Bytes(file), file.size(), "written"));
  RAP_ASSIGN_OR_RETURN(parquet::SchemaDescriptor desc, parquet::SchemaDescriptor::Make(md.schema, "written"));
  std::vector<RecordBatch> out;
  for (const auto& rg : md.row_groups) {
    if (static_cast<int>(rg.columns.size()) != desc.num_columns()) return Status::Corrupt("row group column count");
    std::vector<parquet::LeafColumnData> leaves(rg.columns.size());
    for (int c = 0; c < desc.num_columns(); ++c) {
      RAP_ASSIGN_OR_RETURN(leaves[c], detail::ReadChunkRows(file, desc.column(c), rg.columns[c], rg.num_rows,
                                                            {{0, rg.num_rows}}, nullptr));
    }
    std::vector<const parquet::LeafColumnData*> ptrs;
    for (const auto& l : leaves) ptrs.push_back(&l);
    RecordBatch b;
    b.schema = desc.arrow_schema();
    b.num_rows = rg.num_rows;
    for (int f = 0; f < desc.num_fields(); ++f) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, parquet::AssembleField(desc.field(f), ptrs, rg.num_rows));
      b.columns.push_back(std::move(a));
    }
    out.push_back(std::move(b));
  }
  return out;
}

inline std::string CheckPageIndex(const std::string& file) {
  auto md_r = parquet::ParseFooter(detail::Bytes(file), file.size(), "written");
  if (!md_r.ok()) return md_r.status().ToString();
  const auto& md = *md_r;
  auto desc_r = parquet::SchemaDescriptor::Make(md.schema, "written");
  if (!desc_r.ok()) return desc_r.status().ToString();
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const auto& rg = md.row_groups[g];
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& cc = rg.columns[c];
      const auto& col = desc_r->column(static_cast<int>(c));
      const std::string where = fmt::format("row group {} column {}", g, col.dotted_path);
      if (!cc.offset_index_offset) continue;
      // Walk the page headers of the chunk.
      const auto range = detail::ChunkBytes(cc);
      std::vector<parquet::PageLocation> walked;
      int64_t pos = range.start, levels = 0;
      while (pos < range.start + range.length) {
        size_t header_size = 0;
        auto h = parquet::DecodePageHeader(detail::Bytes(file).subspan(pos), &header_size);
        if (!h.ok()) return where + ": " + h.status().ToString();
        if (h->type != parquet::PageType::DICTIONARY_PAGE) {
          walked.push_back({pos, static_cast<int32_t>(header_size + h->compressed_page_size), -1});
          levels += h->data_page_header ? h->data_page_header->num_values : h->data_page_header_v2->num_values;
        }
        pos += static_cast<int64_t>(header_size) + h->compressed_page_size;
      }
      if (pos != range.start + range.length) return where + ": pages overrun the chunk";
      if (levels != cc.meta_data->num_values) return where + ": page value counts do not add up to num_values";
      const std::string oi_bytes = file.substr(*cc.offset_index_offset, *cc.offset_index_length);
      auto oi = parquet::DecodeOffsetIndex(detail::Bytes(oi_bytes));
      if (!oi.ok()) return where + ": " + oi.status().ToString();
      if (oi->page_locations.size() != walked.size()) {
        return fmt::format("{}: OffsetIndex has {} pages, the chunk {}", where, oi->page_locations.size(),
                           walked.size());
      }
      // First rows as the reader sees them when decoding all pages.
      parquet::ColumnChunkStats stats;
      auto all = detail::ReadChunkRows(file, col, cc, rg.num_rows, {{0, rg.num_rows}}, &stats);
      if (!all.ok()) return where + ": " + all.status().ToString();
      for (size_t p = 0; p < walked.size(); ++p) {
        const auto& loc = oi->page_locations[p];
        if (loc.offset != walked[p].offset || loc.compressed_page_size != walked[p].compressed_page_size) {
          return fmt::format("{}: page {} at {} size {}, OffsetIndex says {} size {}", where, p, walked[p].offset,
                             walked[p].compressed_page_size, loc.offset, loc.compressed_page_size);
        }
        if (p < stats.page_first_rows.size() && stats.page_first_rows[p] != loc.first_row_index) {
          return fmt::format("{}: page {} starts at row {}, OffsetIndex says {}", where, p, stats.page_first_rows[p],
                             loc.first_row_index);
        }
      }
      if (!cc.column_index_offset) continue;
      const std::string ci_bytes = file.substr(*cc.column_index_offset, *cc.column_index_length);
      auto ci = parquet::DecodeColumnIndex(detail::Bytes(ci_bytes));
      if (!ci.ok()) return where + ": " + ci.status().ToString();
      if (ci->null_pages.size() != walked.size()) return where + ": ColumnIndex page count differs";
      // Per page: read its rows, count nulls, check min <= v <= max where Arrow bytes are physical bytes.
      for (size_t p = 0; p < walked.size(); ++p) {
        const int64_t begin = oi->page_locations[p].first_row_index;
        const int64_t end = p + 1 < walked.size() ? oi->page_locations[p + 1].first_row_index : rg.num_rows;
        auto page = detail::ReadChunkRows(file, col, cc, rg.num_rows, {{begin, end}}, nullptr);
        if (!page.ok()) return where + ": " + page.status().ToString();
        int64_t nulls = 0;
        for (int16_t d : page->def_levels) nulls += d < col.max_definition_level ? 1 : 0;
        const int64_t values = page->values ? page->values->length : 0;
        if (!ci->null_counts.empty() && ci->null_counts[p] != nulls) {
          return fmt::format("{}: page {} has {} nulls, ColumnIndex says {}", where, p, nulls, ci->null_counts[p]);
        }
        if (ci->null_pages[p] != (values == 0)) return fmt::format("{}: page {} null_pages flag wrong", where, p);
        if (values == 0) continue;
        const auto kind = parquet::StatsKindFor(
            col.physical_type,
            col.logical_type.kind == parquet::LogicalType::Kind::NONE ? std::nullopt : std::optional(col.logical_type),
            col.converted_type);
        const auto& a = *page->values;
        const TypeId id = a.type->id;
        const bool same_bytes = id == TypeId::kInt32 || id == TypeId::kInt64 || id == TypeId::kUInt32 ||
                                id == TypeId::kUInt64 || id == TypeId::kFloat32 || id == TypeId::kFloat64 ||
                                id == TypeId::kString || id == TypeId::kBinary;
        if (!same_bytes) continue;
        for (int64_t i = 0; i < a.length; ++i) {
          std::string v;
          if (a.type->IsBinaryLike()) {
            const int32_t* o = a.offsets();
            v.assign(reinterpret_cast<const char*>(a.buffers[2].data()) + o[i], o[i + 1] - o[i]);
          } else {
            const int w = a.type->FixedWidth();
            v.assign(reinterpret_cast<const char*>(a.buffers[1].data()) + (a.offset + i) * w, w);
          }
          if ((id == TypeId::kFloat32 && std::isnan(*reinterpret_cast<const float*>(v.data()))) ||
              (id == TypeId::kFloat64 && std::isnan(*reinterpret_cast<const double*>(v.data())))) {
            continue;
          }
          if (parquet::CompareStatValues(kind, ci->min_values[p], v) > 0 ||
              parquet::CompareStatValues(kind, v, ci->max_values[p]) > 0) {
            return fmt::format("{}: page {} value {} outside the ColumnIndex bounds", where, p, FormatValue(a, i));
          }
        }
      }
    }
  }
  return "";
}

}  // namespace rap::testing
