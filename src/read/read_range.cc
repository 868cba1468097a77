// PlanReadRanges: a range per row group, large row groups cut at page boundaries shared by every
// projected column (see read_range.h).
#include "rap/read/read_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

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
    const uint64_t total = rg_bytes[static_cast<size_t>(rg)];
    if (std::find(large.begin(), large.end(), rg) == large.end()) {
      out.push_back(ReadRange{rg, 0, rows, total, true});
      continue;
    }
    // Bytes of the pages starting at each row, over every column; a row is a boundary when every
    // column has a page starting there.
    std::map<int64_t, std::pair<uint64_t, size_t>> starts;  // first row -> (page bytes, columns with a page there)
    bool indexed = true;
    for (int c : columns) {
      RAP_ASSIGN_OR_RETURN(auto oi, reader.GetOffsetIndex(rg, c));
      if (!oi || oi->page_locations.empty()) {
        indexed = false;
        break;
      }
      for (const parquet::PageLocation& p : oi->page_locations) {
        if (p.first_row_index < 0 || p.first_row_index >= rows || p.compressed_page_size < 0) {
          return Status::Corrupt(fmt::format("{}: row group {}: offset index page at row {} outside the {} rows",
                                             reader.path(), rg, p.first_row_index, rows));
        }
        auto& s = starts[p.first_row_index];
        s.first += static_cast<uint64_t>(p.compressed_page_size);
        ++s.second;
      }
    }
    if (!indexed) {
      out.push_back(ReadRange{rg, 0, rows, total, true});
      continue;
    }
    int64_t begin = 0;
    uint64_t acc = 0;
    for (const auto& [row, s] : starts) {
      if (row > begin && s.second == columns.size() && acc >= natural) {
        out.push_back(ReadRange{rg, begin, row, acc, begin == 0});
        begin = row;
        acc = 0;
      }
      acc += s.first;
    }
    out.push_back(ReadRange{rg, begin, rows, acc, begin == 0});
  }
  return out;
}

}  // namespace rap::read
