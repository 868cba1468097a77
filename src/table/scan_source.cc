#include "rap/table/scan_source.h"

#include "rap/table/delta_schema.h"
#include "rap/table/table_format.h"

#include "table/delta/delta_stats.h"

namespace rap::table {

Result<read::ScanSource> ToScanSource(const TableSnapshot& snapshot) {
  read::ScanSource src;
  src.store = snapshot.store;
  src.schema = snapshot.schema;
  src.physical_names = snapshot.physical_names;
  src.physical_types = snapshot.physical_types;
  src.field_ids = snapshot.field_ids;
  src.name_mapping = snapshot.name_mapping;
  src.defaults = snapshot.column_defaults;
  src.partition_columns = snapshot.partition_columns;
  src.files.reserve(snapshot.files.size());
  // Deletes asked file by file as the scan reaches them (TableFormat::DeletesOnDemand): the loaders
  // share one copy of the snapshot without its file list (the format's state, store and schema).
  std::shared_ptr<const TableSnapshot> shared;
  if (snapshot.format && snapshot.format->DeletesOnDemand()) {
    auto copy = std::make_shared<TableSnapshot>(snapshot);  // one copy per scan source
    copy->files.clear();
    copy->files.shrink_to_fit();
    shared = std::move(copy);
  }
  for (const DataFile& f : snapshot.files) {
    read::ScanFile sf;
    sf.path = f.path;
    sf.size = f.size;
    sf.physical_names = f.physical_names;
    if (f.partition_values.size() != snapshot.partition_columns.size()) {
      return Status::Internal(f.path + ": partition values do not match the partition columns");
    }
    for (size_t i = 0; i < f.partition_values.size(); ++i) {
      const Field& col = snapshot.partition_columns[i];
      auto arr = MakePartitionArray(col.name, *col.type, f.partition_values[i], 1);
      if (!arr.ok()) return arr.status().WithContext(f.relative_path);
      sf.partition_values.push_back(*arr);
    }
    if (shared && f.format_deletes && !f.deletion_vector) {
      sf.deleted_rows_loader = [shared, f]() -> Result<std::vector<uint64_t>> {
        auto rows = shared->format->DeletedRowsOnDemand(*shared, f);
        if (!rows.ok()) return rows.status().WithContext(f.relative_path);
        return rows;
      };
    } else if (f.deletion_vector || f.format_deletes) {
      auto rows = DeletedRows(snapshot, f);  // through the table's format (rap/table/table_format.h)
      if (!rows.ok()) return rows.status().WithContext(f.relative_path);
      sf.deleted_rows = std::move(*rows);
    }
    if (!f.column_stats.empty()) {
      sf.column_stats = f.column_stats;
    } else if (snapshot.schema) {
      sf.column_stats = DeltaFileStats(f.stats_json, *snapshot.schema, snapshot.physical_names);
    }
    src.files.push_back(std::move(sf));
  }
  return src;
}

}  // namespace rap::table
