#include "rap/table/table.h"

#include <string>
#include <string_view>

#include "rap/io/store_options.h"
#include "rap/table/file_listing.h"
#include "rap/table/table_format.h"
#include "table/path_util.h"

namespace rap::table {

Result<TableSnapshot> OpenTable(const std::string& url, const OpenTableOptions& options) {
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl resolved, options.store ? io::OpenUrl(url, *options.store) : io::OpenUrl(url));
  TableProbe probe(url, resolved.store, TrimTrailingSlash(resolved.path));
  RAP_ASSIGN_OR_RETURN(const TableFormat* format, DetectTableFormat(probe));
  // Snapshots and location maps are Iceberg's (snapshots Paimon's too): never silently ignored.
  const std::string_view name = format ? format->name() : std::string_view("directory");
  if ((options.snapshot_id || options.as_of_ms) && name != "iceberg" && name != "paimon") {
    return Status::InvalidArgument(url + ": a snapshot (--snapshot, --as-of) was given but this is a " +
                                   std::string(name) + " table (Iceberg and Paimon tables have snapshots)");
  }
  if (!options.location_map.empty() && name != "iceberg") {
    return Status::InvalidArgument(url + ": a location map was given but this is a " + std::string(name) +
                                   " table (only Iceberg metadata names absolute locations)");
  }
  if (options.tag && name != "paimon") {
    return Status::InvalidArgument(url + ": a tag ('" + *options.tag + "') was given but this is not a Paimon table");
  }
  if (format) return format->Open(probe, options);
  if (options.version) {
    return Status::InvalidArgument(url + ": a version was given but this is not a Delta table (no _delta_log/)");
  }
  const std::string nothing = url + ": no Parquet files found: no such file, folder or prefix, or nothing in it "
                                    "ends in .parquet (outside hidden _ and . folders), and no Delta log (_delta_log/)";
  auto snap = ListDirectoryTable(probe);
  if (!snap.ok()) {
    // A folder the store answers 404 (or 403, a static server or web endpoint that may not list)
    // for: nothing was found, and the listing's answer says why.
    if (snap.status().Is(StatusCode::kNotFound) || snap.status().Is(StatusCode::kAccessDenied)) {
      return Status::NotFound(nothing + " (listing it: " + snap.status().message() +
                              "; over plain HTTP a folder lists only with a JSON directory index, name the files)");
    }
    return snap.status();
  }
  if (snap->files.empty()) {
    // A typo and an empty folder must not look like an empty table (an empty Delta table, a log
    // without live files, is a valid empty result and never gets here).
    return Status::NotFound(nothing);
  }
  return snap;
}

}  // namespace rap::table
