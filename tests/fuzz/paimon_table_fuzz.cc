// Paimon tables (src/table/paimon/): a listing of objects under a table root, with their contents
// (fuzz/table_listing.h), probed and opened as a table. Whatever the names and bytes, detection and
// opening must not crash, and a table detected as Paimon is opened as Paimon or refused with an
// error, never read as a folder of Parquet files.
#include "fuzz/fuzz_target.h"
#include "fuzz/table_listing.h"
#include "rap/table/table_format.h"
#include "table/formats.h"

RAP_FUZZ_TARGET(paimon_table) {
  using namespace rap;
  table::TableProbe probe("mem://t", fuzz::StoreFromListing(data, size), "t");
  auto detected = table::PaimonFormat().Detect(probe);
  if (!detected.ok() || !*detected) return 0;
  auto opened = table::PaimonFormat().Open(probe, table::OpenTableOptions{});
  if (opened.ok()) {
    if (opened->format != &table::PaimonFormat()) __builtin_trap();
    for (const table::DataFile& f : opened->files) (void)table::DeletedRows(*opened, f);
  }
  auto format = table::DetectTableFormat(probe);
  if (format.ok() && *format == nullptr) __builtin_trap();  // some format claims it (Delta may come first)
  return 0;
}
