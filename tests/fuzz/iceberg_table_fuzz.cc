// Iceberg tables (src/table/iceberg/): a listing of objects under a table root, with contents
// (fuzz/table_listing.h), probed and opened as a table. Whatever the names and bytes (metadata JSON,
// version hints, manifest lists), detection and Open must not crash, hang or allocate without bound,
// and a table some format claims is never read as a folder of Parquet files.
#include "fuzz/fuzz_target.h"
#include "fuzz/table_listing.h"
#include "rap/table/table_format.h"
#include "table/formats.h"

RAP_FUZZ_TARGET(iceberg_table) {
  using namespace rap;
  table::TableProbe probe("mem://t", fuzz::StoreFromListing(data, size), "t");
  auto detected = table::IcebergFormat().Detect(probe);
  if (!detected.ok() || !*detected) return 0;
  auto opened = table::IcebergFormat().Open(probe, table::OpenTableOptions{});
  if (opened.ok()) {
    for (const table::DataFile& f : opened->files) {
      if (f.format_deletes) (void)table::DeletedRows(*opened, f);
    }
  }
  auto format = table::DetectTableFormat(probe);
  if (format.ok() && *format == nullptr) __builtin_trap();  // some format claims it (Delta may come first)
  return 0;
}
