// PlanReadRanges: a range per row group, large row groups cut at page starts of their dominant
// column, the pages that straddle a cut (and the dictionaries) shared (see read_range.h).
#include "rap/read/read_range.h"

#include <fmt/format.h>

#include <algorithm>

namespace rap::read {

std::string ReadRange::ToString() const {
  return fmt::format("rg {} rows [{}, {}) {} B", row_group, begin, end, compressed_bytes);
}

namespace {

uint64_t ChunkBytes(const FileReader& reader, int rg, int column) {
  const auto& cc = reader.metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(column)];
  return cc.meta_data && cc.meta_data->total_compressed_size > 0 ? static_cast<uint64_t>(cc.meta_data->total_compressed_size)
                                                                 : 0;
}

// The pages of one column chunk from its OffsetIndex, checked: first rows ascending from 0, inside
// the row group.
Result<std::vector<parquet::PageLocation>> Pages(FileReader& reader, int rg, int column, int64_t rows) {
  RAP_ASSIGN_OR_RETURN(auto oi, reader.GetOffsetIndex(rg, column));
  if (!oi || oi->page_locations.empty()) return std::vector<parquet::PageLocation>{};
  const auto& locs = oi->page_locations;
  for (size_t k = 0; k < locs.size(); ++k) {
    const parquet::PageLocation& p = locs[k];
    if (p.first_row_index < 0 || p.first_row_index >= rows || p.compressed_page_size <= 0 || p.offset < 0 ||
        (k == 0 && p.first_row_index != 0) || (k > 0 && p.first_row_index <= locs[k - 1].first_row_index)) {
      return Status::Corrupt(fmt::format("{}: row group {} column {}: offset index page {} at row {} is not in "
                                         "ascending order inside the {} rows",
                                         reader.path(), rg, column, k, p.first_row_index, rows));
    }
  }
  return locs;
}

// Row group `rg` cut into ranges (appended to `out`); false when it cannot be split (a column
// without an OffsetIndex).
Result<bool> Split(FileReader& reader, int rg, const std::vector<int>& columns, uint64_t natural,
                   std::vector<ReadRange>& out) {
  const int64_t rows = reader.row_group_num_rows(rg);
  std::vector<std::vector<parquet::PageLocation>> pages(columns.size());
  size_t dominant = 0;
  uint64_t total = 0, most = 0;  // chunk bytes of all columns; data-page bytes of the dominant one
  for (size_t i = 0; i < columns.size(); ++i) {
    RAP_ASSIGN_OR_RETURN(pages[i], Pages(reader, rg, columns[i], rows));
    if (pages[i].empty()) return false;
    total += ChunkBytes(reader, rg, columns[i]);
    uint64_t data = 0;
    for (const parquet::PageLocation& p : pages[i]) data += static_cast<uint64_t>(p.compressed_page_size);
    if (data > most) most = data, dominant = i;
  }
  // As many ranges as natural sizes in the row group's projected bytes (dictionaries included: each
  // is read once, but its bytes are part of the work), cut at the dominant column's page starts
  // into pieces of equal data bytes of that column.
  const uint64_t pieces = std::max<uint64_t>(1, (total + natural - 1) / natural);
  const double per_range = static_cast<double>(most) / static_cast<double>(pieces);
  std::vector<int64_t> cuts;  // first rows of the ranges after the first
  uint64_t acc = 0;
  for (const parquet::PageLocation& p : pages[dominant]) {
    if (p.first_row_index > 0 && static_cast<double>(acc) + 0.5 * static_cast<double>(p.compressed_page_size) >= per_range &&
        cuts.size() + 1 < pieces) {
      cuts.push_back(p.first_row_index);
      acc = 0;
    }
    acc += static_cast<uint64_t>(p.compressed_page_size);
  }
  if (cuts.empty()) return false;
  const size_t first = out.size();
  int64_t begin = 0;
  for (size_t k = 0; k <= cuts.size(); ++k) {
    const int64_t end = k < cuts.size() ? cuts[k] : rows;
    out.push_back(ReadRange{rg, begin, end, 0, begin == 0, nullptr});
    begin = end;
  }
  // The ranges' projected bytes (a straddling page counted in each range it feeds), the pages that
  // feed more than one range and every column's dictionary page.
  std::vector<RowGroupShare::Page> shared;
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto& locs = pages[i];
    RAP_ASSIGN_OR_RETURN(ByteRange chunk, reader.ChunkRange(rg, columns[i]));
    if (static_cast<uint64_t>(locs[0].offset) > chunk.offset) {
      shared.push_back({ByteRange{chunk.offset, static_cast<uint64_t>(locs[0].offset) - chunk.offset}, 0, rows});
    }
    size_t r = first;  // the range holding the page's first row
    for (size_t k = 0; k < locs.size(); ++k) {
      const int64_t pb = locs[k].first_row_index, pe = k + 1 < locs.size() ? locs[k + 1].first_row_index : rows;
      while (out[r].end <= pb) ++r;
      int users = 0;
      for (size_t q = r; q < out.size() && out[q].begin < pe; ++q) {
        out[q].compressed_bytes += static_cast<uint64_t>(locs[k].compressed_page_size);
        ++users;
      }
      if (users > 1) {
        shared.push_back({ByteRange{static_cast<uint64_t>(locs[k].offset), static_cast<uint64_t>(locs[k].compressed_page_size)},
                          pb, pe});
      }
    }
  }
  std::vector<int64_t> bounds;
  for (size_t q = first; q < out.size(); ++q) bounds.push_back(out[q].begin);
  bounds.push_back(rows);
  auto share = std::make_shared<RowGroupShare>(shared, bounds);
  for (size_t q = first; q < out.size(); ++q) out[q].share = share;
  return true;
}

}  // namespace

Result<std::vector<ReadRange>> PlanReadRanges(FileReader& reader, const std::vector<int>& row_groups,
                                              const std::vector<int>& columns, const RangeOptions& options) {
  std::vector<ReadRange> out;
  const uint64_t natural = std::max<uint64_t>(1, options.natural_read_size);
  std::vector<int> large;  // row groups worth splitting
  std::vector<uint64_t> rg_bytes(static_cast<size_t>(reader.num_row_groups()), 0);
  for (int rg : row_groups) {
    for (int c : columns) rg_bytes[static_cast<size_t>(rg)] += ChunkBytes(reader, rg, c);
    if (options.split_row_groups && reader.options().use_page_index && !columns.empty() &&
        rg_bytes[static_cast<size_t>(rg)] > natural && reader.row_group_num_rows(rg) > 1) {
      large.push_back(rg);
    }
  }
  if (!large.empty()) RAP_RETURN_NOT_OK(reader.LoadPageIndex(large, columns, true, false));
  for (int rg : row_groups) {
    const int64_t rows = reader.row_group_num_rows(rg);
    if (std::find(large.begin(), large.end(), rg) != large.end()) {
      RAP_ASSIGN_OR_RETURN(bool split, Split(reader, rg, columns, natural, out));
      if (split) continue;
    }
    out.push_back(ReadRange{rg, 0, rows, rg_bytes[static_cast<size_t>(rg)], true, nullptr});
  }
  return out;
}

}  // namespace rap::read
