// ORC bloom filters (ORC specification v1, "Bloom Filter Index"): a stripe's BLOOM_FILTER_UTF8 (or
// the original BLOOM_FILTER) stream of a column holds one bloom filter per row group, next to the
// column's ROW_INDEX stream in the stripe's index area. A filter is a bit set of m = 64 × words bits
// and k hash functions. A value is hashed to 64 bits — integers (tinyint … bigint, and dates as their
// day number) by Thomas Wang's 64-bit integer hash, doubles (floats promoted) by the same hash of
// their IEEE-754 bits, strings and binary by ORC's 64-bit Murmur3 of their bytes (seed 104729) —
// and the 64 bits are split into two signed 32-bit halves h1 (low) and h2 (high): the value's bits
// are, for i = 1 … k, the position c % m of c = h1 + i·h2 (32-bit arithmetic, c replaced by ~c when
// negative). A value whose bits are not all set is in none of the group's rows.
//
// The original BLOOM_FILTER streams are parsed but not used for pruning: old writers hashed strings
// in their default character set, and Hive's pre-release writers (e.g. the ORC example
// over1k_bloom.orc) wrote a different message under the same stream kind (expected entries, fpp and
// varint words where the number of hash functions and fixed64 words belong).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rap/orc/stripe.h"
#include "rap/orc/tail.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::orc {

// ORC's 64-bit Murmur3 (the spec's string hash): 8-byte little-endian blocks, then the tail, then
// the length and the 64-bit finaliser.
uint64_t Murmur3Hash64(std::string_view bytes, uint64_t seed = 104729);
// Thomas Wang's 64-bit integer hash (the spec's integer hash; shifts right are arithmetic).
uint64_t IntegerHash64(int64_t value);

struct BloomFilter {
  uint32_t num_hash_functions = 0;
  std::vector<uint64_t> words;  // bit p is bit p % 64 of words[p / 64]
  bool utf8 = true;             // from a BLOOM_FILTER_UTF8 stream

  // False when the value with 64-bit hash `hash` is surely absent.
  bool MightContainHash(uint64_t hash) const;
  bool MightContainInteger(int64_t v) const { return MightContainHash(IntegerHash64(v)); }
  bool MightContainDouble(double v) const;
  bool MightContainBytes(std::string_view v) const { return MightContainHash(Murmur3Hash64(v)); }
};

// False for files whose writer is known to have written bad bloom filters: ORC C++ before 1.7
// (the 1.6.x writers; ORC's readers ignore their filters, `bad_bloom_filter_1.6.*.orc` of the ORC
// examples), and ORC C++ files without a software version.
bool BloomFiltersUsable(const FileTail& tail);

// The BLOOM_FILTER_UTF8 streams of `columns` (sorted type ids) in `footer`, in file order.
std::vector<StreamInfo> BloomFilterStreams(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns);

// Parses (decompresses) a BLOOM_FILTER or BLOOM_FILTER_UTF8 stream (`raw`, its bytes) of stripe
// `stripe`: one filter per row group. Corrupt naming the stream and the filter for a filter with no
// hash functions (or more than 1024), no bits, more than 2^31 - 1 bits, or a UTF-8 bit set whose
// length is not a multiple of 8.
Result<std::vector<BloomFilter>> ParseBloomFilterIndex(const FileTail& tail, size_t stripe, const StreamInfo& stream,
                                                       const Buffer& raw);

}  // namespace rap::orc
