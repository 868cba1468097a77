// The table formats (one folder each under src/table/) and what the formats rap does not read yet
// share. Private to rap::table; the interface is rap/table/table_format.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rap/table/table_format.h"

namespace rap::table {

const TableFormat& DeltaFormat();    // delta/delta_format.cc
const TableFormat& IcebergFormat();  // iceberg/iceberg_format.cc
const TableFormat& PaimonFormat();   // paimon/paimon_format.cc
const TableFormat& HudiFormat();     // hudi/hudi_format.cc
const TableFormat& PendingWriteFormat();  // pending_write.cc: a new table before its first commit

// A format rap recognises but does not read yet: its tables are found by a marker among the objects
// under the root (`marks`: given the path segments relative to the root), and opening one is
// NotSupported naming the format and the marker, so its folder is never scanned as plain Parquet
// files (which would return deleted and superseded rows).
class UnreadTableFormat : public TableFormat {
 public:
  using Marks = bool (*)(const std::vector<std::string>& segments);
  UnreadTableFormat(std::string_view name, std::string_view title, Marks marks)
      : name_(name), title_(title), marks_(marks) {}
  std::string_view name() const override { return name_; }
  Result<bool> Detect(TableProbe& probe) const override;
  Result<TableSnapshot> Open(TableProbe& probe, const OpenTableOptions& options) const override;
  Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file) const override;

 private:
  // The first object under the root that marks a table of this format ("" when none).
  std::string FindMarker(TableProbe& probe) const;
  std::string_view name_;
  std::string_view title_;  // as in messages: "Iceberg"
  Marks marks_;
};

}  // namespace rap::table
