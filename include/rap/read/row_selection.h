// RowSelection: which rows of a file (or row group) to read, as sorted, disjoint, non-adjacent
// [begin, end) ranges. Built from any list of ranges (normalised), combined by union/intersection.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/format/column_reader.h"

namespace rap::read {

using RowRange = parquet::RowRange;

class RowSelection {
 public:
  RowSelection() = default;  // selects nothing

  // Sorts, drops empty ranges and merges overlapping or touching ones.
  static RowSelection FromRanges(std::vector<RowRange> ranges);
  static RowSelection All(int64_t num_rows) { return FromRanges({{0, num_rows}}); }
  static RowSelection Range(int64_t begin, int64_t end) { return FromRanges({{begin, end}}); }

  const std::vector<RowRange>& ranges() const { return ranges_; }
  bool empty() const { return ranges_.empty(); }
  int64_t Count() const;                  // number of selected rows
  bool Contains(int64_t row) const;       // O(log n)
  bool Intersects(int64_t begin, int64_t end) const;  // any selected row in [begin, end)
  int64_t first() const { return ranges_.empty() ? 0 : ranges_.front().begin; }
  int64_t last_end() const { return ranges_.empty() ? 0 : ranges_.back().end; }

  RowSelection Union(const RowSelection& other) const;
  RowSelection Intersect(const RowSelection& other) const;
  // The selected rows inside [begin, end), shifted by -begin (e.g. a file selection -> one row group).
  RowSelection Slice(int64_t begin, int64_t end) const;
  // The selection shifted by +delta.
  RowSelection Shift(int64_t delta) const;

  std::vector<RowRange>::const_iterator begin() const { return ranges_.begin(); }
  std::vector<RowRange>::const_iterator end() const { return ranges_.end(); }
  bool operator==(const RowSelection& o) const { return ranges_ == o.ranges_; }

  std::string ToString() const;  // "[0, 10) [20, 25)"

 private:
  std::vector<RowRange> ranges_;
};

}  // namespace rap::read
