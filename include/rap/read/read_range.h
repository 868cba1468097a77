// ReadRange: the unit of prefetch (seed 001) — a run of rows of one row group that one producer
// reads and decodes on its own. PlanReadRanges cuts a file into ranges: one per row group by
// default; with an OffsetIndex, a row group whose projected compressed bytes exceed the natural read
// size is also cut at page boundaries into ranges of about that size, which lifts the row-group-only
// limit of readers that cannot seek inside a row group (Paimon's Parquet reader).
//
// Cuts: a row group of B projected compressed bytes (dictionaries included) becomes about
// ceil(B / natural read size) ranges, cut only at page starts of its dominant column (the projected
// column with the most data-page bytes) into pieces of about equal data bytes of that column. Pages
// of the other columns rarely start on those rows (writers cut pages by bytes), so a page of another
// column may hold rows on both sides of a cut: such a page feeds both ranges (every range it holds
// rows of), and so does every column's dictionary page. These pages are fetched once and decoded
// once through the row group's RowGroupShare (row_group_share.h), which every range of a split row
// group carries: whichever range loads such a page first fetches it in its own planned read and
// decodes it (levels, decompression), the others take the bytes and the decoded page from the
// share; each range materialises only the values of its own rows and steps over the others'.
// A range never crosses a row group. Ranges whose rows are all pruned or deleted produce nothing
// (the range task reads no bytes for them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rap/read/file_reader.h"
#include "rap/read/prefetch_options.h"
#include "rap/read/row_group_share.h"
#include "rap/util/result.h"

namespace rap::read {

struct ReadRange {
  int row_group = 0;
  int64_t begin = 0, end = 0;         // rows within the row group, [begin, end)
  uint64_t compressed_bytes = 0;      // projected compressed bytes (estimate from the page index or chunk sizes)
  bool first_of_row_group = true;     // the row group's first range (row-group counters are counted once)
  std::shared_ptr<RowGroupShare> share;  // the pages shared with the row group's other ranges (null: not split)
  std::string ToString() const;       // "rg 2 rows [0, 5000) 1048576 B"
};

// The ranges of `row_groups` (ascending) for the leaf `columns` (sorted, may be empty: a range per
// row group), in row order. Loads the OffsetIndex of the row groups it may split (one planned read for
// all of them, cached in the reader).
Result<std::vector<ReadRange>> PlanReadRanges(FileReader& reader, const std::vector<int>& row_groups,
                                              const std::vector<int>& columns, const RangeOptions& options);

}  // namespace rap::read
