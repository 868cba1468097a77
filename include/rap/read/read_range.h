// ReadRange: the unit of prefetch (seed 001) — a run of rows of one row group that one producer
// reads and decodes on its own. PlanReadRanges cuts a file into ranges: one per row group by
// default; with an OffsetIndex, a row group whose projected compressed bytes exceed the natural read
// size is also cut at page boundaries into ranges of about that size, which lifts the row-group-only
// limit of readers that cannot seek inside a row group (Paimon's Parquet reader).
//
// Pages of different columns rarely start on the same rows (writers cut pages by bytes). A range
// boundary is placed only at a row where a data page of every projected column starts, so no data
// page feeds two ranges: each data page is fetched once and decoded once. A row group whose columns
// share no page boundary near the natural size stays one range (or is cut at the shared boundaries
// there are). The dictionary page of a column chunk is needed by every range of its row group and is
// fetched by each of them (it is small next to the data pages; see docs/prefetch.md).
// A range never crosses a row group. Ranges whose rows are all pruned or deleted produce nothing
// (the range task reads no bytes for them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/read/file_reader.h"
#include "rap/read/prefetch_options.h"
#include "rap/util/result.h"

namespace rap::read {

struct ReadRange {
  int row_group = 0;
  int64_t begin = 0, end = 0;         // rows within the row group, [begin, end)
  uint64_t compressed_bytes = 0;      // projected compressed bytes (estimate from the page index or chunk sizes)
  bool first_of_row_group = true;     // the row group's first range (row-group counters are counted once)
  std::string ToString() const;       // "rg 2 rows [0, 5000) 1048576 B"
};

// The ranges of `row_groups` (ascending) for the leaf `columns` (sorted, may be empty: a range per
// row group), in row order. Loads the OffsetIndex of the row groups it may split (one planned read for
// all of them, cached in the reader).
Result<std::vector<ReadRange>> PlanReadRanges(FileReader& reader, const std::vector<int>& row_groups,
                                              const std::vector<int>& columns, const RangeOptions& options);

}  // namespace rap::read
