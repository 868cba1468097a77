#include "table/delta_checkpoint.h"

namespace rap::table {

Status ReadParquetCheckpointActions(const io::ObjectStorePtr& store, const std::string& path, DeltaActions* out) {
  (void)store;
  (void)out;
  // The Parquet FileReader (rap/read/file_reader.h) is not in the tree yet.
  return Status::NotSupported(path + ": reading Parquet checkpoints needs the Parquet FileReader");
}

}  // namespace rap::table
