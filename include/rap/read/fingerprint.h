// Result fingerprint: fnv1a64 over row ids, values, order and null positions of a scan's output, so
// two runs (any plan policy, prefetch or warmup setting, or another engine) can be compared with one
// line. The byte stream that is hashed is defined in docs/fingerprint.md; `rap scan --fingerprint`
// prints ToString() ("fnv1a64:<16 hex digits>").
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rap/columnar/array.h"
#include "rap/util/hash.h"
#include "rap/util/result.h"

namespace rap::read {

class Fingerprinter {
 public:
  // Adds the rows of `batch` in order; `row_ids` has one id per row (a scan uses file ordinal * 2^40
  // + row index in the file, see ScanBatch::row_ids).
  Status Add(const RecordBatch& batch, std::span<const uint64_t> row_ids);

  int64_t rows() const { return rows_; }
  // The hash of everything added, finished with the row count (u64 LE).
  uint64_t digest() const;
  std::string ToString() const;  // "fnv1a64:" + 16 lowercase hex digits

 private:
  Fnv1a64 h_;
  int64_t rows_ = 0;
};

// Appends the canonical bytes of row `i` of `array` (null flag, then the value) to the hash.
Status HashValue(const ArrayData& array, int64_t i, Fnv1a64* h);

}  // namespace rap::read
