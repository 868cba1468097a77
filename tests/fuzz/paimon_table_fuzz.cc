// Paimon table detection (src/table/paimon/): a listing of objects under a table root (fuzz/table_listing.h)
// probed as a table. Whatever the names, detection must not crash, and a table detected as Paimon must be
// refused with NotSupported (rap does not read Paimon tables yet), never read as a folder of Parquet files.
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
  if (opened.ok() || opened.status().code() != StatusCode::kNotSupported) __builtin_trap();
  auto format = table::DetectTableFormat(probe);
  if (format.ok() && *format == nullptr) __builtin_trap();  // some format claims it (Delta may come first)
  return 0;
}
