// BucketSorter: `rap rewrite`'s input, bucketed by the index's bucket function and sorted by the key
// in bounded memory (docs/layouts.md "rap rewrite"). Batches are buffered until they exceed the
// memory budget; then each bucket's buffered rows are sorted (stably, NULL keys first) and spilled
// as one run file (temporary Parquet, ZSTD level 1) per bucket. At the end a bucket is read back
// through read::MergeReader (loser tree) over its runs in spill order, which keeps the order of
// equal keys: the stream equals a stable in-memory sort. When nothing was spilled the buffer is
// sorted in memory and no file is written.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/index/key.h"
#include "rap/columnar/record_batch_reader.h"
#include "rap/util/result.h"

namespace rap::index::internal {

struct SorterOptions {
  std::vector<KeyColumn> key;
  std::vector<int> key_index;  // the key columns' positions in the schema
  int32_t buckets = 1;
  int64_t memory = 512ll << 20;  // buffered input bytes before a spill
  std::string temp_dir;          // a local folder for the run files (created; removed with the sorter)
};

class BucketSorter {
 public:
  static Result<std::unique_ptr<BucketSorter>> Make(SchemaPtr schema, SorterOptions options);
  ~BucketSorter();  // removes the run files and the temporary folder

  Status Add(RecordBatch batch);
  Status Finish();  // after the last Add
  // Bucket b's rows in key order (nullptr when the bucket is empty). After Finish, each bucket once.
  Result<std::unique_ptr<columnar::RecordBatchReader>> OpenBucket(int32_t b);

  int64_t runs_spilled() const { return runs_spilled_; }
  uint64_t bytes_spilled() const { return bytes_spilled_; }
  uint64_t peak_buffered_bytes() const { return peak_; }

 private:
  BucketSorter() = default;
  // The buffered rows, concatenated, with each bucket's row numbers in stable key order.
  Status SortBuffer(RecordBatch* all, std::vector<std::vector<int64_t>>* bucket_rows);
  Status Spill();

  SchemaPtr schema_;
  SorterOptions options_;
  std::vector<RecordBatch> buffer_;
  uint64_t buffered_ = 0, peak_ = 0, bytes_spilled_ = 0;
  int64_t runs_spilled_ = 0;
  int64_t spills_ = 0;
  bool created_dir_ = false;
  std::vector<std::vector<std::string>> runs_;  // per bucket: run files (local paths), in spill order
  // In-memory mode (nothing spilled): the sorted buffer.
  RecordBatch all_;
  std::vector<std::vector<int64_t>> bucket_rows_;
};

// The rows `rows` of `batch`, in that order (copies).
Result<RecordBatch> TakeBatch(const RecordBatch& batch, std::span<const int64_t> rows);

// Bytes held by an array's buffers (children included).
uint64_t ArrayBytes(const ArrayData& array);

}  // namespace rap::index::internal
