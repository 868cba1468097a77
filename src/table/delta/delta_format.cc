// Delta Lake through the table-format seam (rap/table/table_format.h): detected by its log
// (`_delta_log/`, probed where the store cannot list), opened by replaying the log (delta_log.cc),
// deletes from deletion vectors (deletion_vector.cc).
#include "rap/table/deletion_vector.h"
#include "rap/table/delta_log.h"
#include "table/formats.h"

namespace rap::table {

namespace {

class DeltaTableFormat : public TableFormat {
 public:
  std::string_view name() const override { return "delta"; }
  Result<bool> Detect(TableProbe& probe) const override { return IsDeltaTable(probe.store(), probe.root()); }
  Result<TableSnapshot> Open(TableProbe& probe, const OpenTableOptions& options) const override {
    DeltaLogOptions delta;
    delta.version = options.version;
    return OpenDeltaTable(probe.store(), probe.root(), delta);
  }
  Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file) const override {
    if (!file.deletion_vector) return std::vector<uint64_t>{};
    return LoadDeletionVector(snapshot.store, snapshot.root, *file.deletion_vector);
  }
};

}  // namespace

const TableFormat& DeltaFormat() {
  static const DeltaTableFormat format;
  return format;
}

}  // namespace rap::table
