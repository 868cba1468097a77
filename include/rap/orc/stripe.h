// A stripe's footer: the directory of its streams (kind, column, length; laid out back to back
// from the stripe's offset, index streams first) and each column's encoding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rap/orc/tail.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::orc {

enum class StreamKind : uint32_t {
  kPresent = 0,
  kData = 1,
  kLength = 2,
  kDictionaryData = 3,
  kDictionaryCount = 4,
  kSecondary = 5,
  kRowIndex = 6,
  kBloomFilter = 7,
  kBloomFilterUtf8 = 8,
  kEncryptedIndex = 9,
  kEncryptedData = 10,
  kStripeStatistics = 100,
  kFileStatistics = 101,
};
std::string StreamKindName(StreamKind kind);

enum class EncodingKind : uint32_t { kDirect = 0, kDictionary = 1, kDirectV2 = 2, kDictionaryV2 = 3 };
std::string EncodingKindName(EncodingKind kind);

struct StreamInfo {
  StreamKind kind = StreamKind::kData;
  uint32_t column = 0;
  uint64_t offset = 0;  // in the file
  uint64_t length = 0;
};

struct ColumnEncodingInfo {
  EncodingKind kind = EncodingKind::kDirect;
  uint32_t dictionary_size = 0;
};

struct StripeFooterInfo {
  std::vector<StreamInfo> streams;
  std::vector<ColumnEncodingInfo> encodings;  // one per type id
  std::string writer_timezone;
};

// Parses (and decompresses) the footer of stripe `index` of `file`. Checks that the streams fit
// the stripe's index and data areas, refer to type ids of the file, and that there is one
// encoding per type id.
Result<StripeFooterInfo> ParseStripeFooter(const FileTail& tail, std::span<const uint8_t> file, size_t index);
// The same from the footer's own bytes (StripeFooterRange of the file), for readers that fetch ranges.
Result<StripeFooterInfo> ParseStripeFooterBytes(const FileTail& tail, size_t index, const Buffer& raw);
// Where stripe `index`'s footer is: {offset, length} in the file.
std::pair<uint64_t, uint64_t> StripeFooterRange(const FileTail& tail, size_t index);

// The type ids of the subtree of `column` (itself and every descendant), ascending.
std::vector<uint32_t> SubtreeColumns(const TypeTree& types, uint32_t column);
// The streams of `footer` that decoding the type ids `columns` (sorted) reads: every stream of
// those columns but the index streams (row index, bloom filters), in file order.
std::vector<StreamInfo> DataStreams(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns);

}  // namespace rap::orc
