// Key ranges over a RAP index (docs/index-format.md, "Ranges and prefixes"): bounds that bind a
// prefix of the key columns (so `user = 42` on a (user, ts) key is the range [42]..[42]), the text
// syntax of `rap lookup --range` / `--prefix`, and the order-preserving normalised key encoding
// (memcmp of NormalizedKey(a), NormalizedKey(b) orders as CompareKeys(a, b)) that page tokens of
// range lookups carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rap/index/key.h"
#include "rap/util/result.h"

namespace rap::index {

// One end of a range: `key` holds the first key.parts.size() (1..all) key columns.
struct KeyBound {
  Key key;
  bool inclusive = true;
};

// Keys k with lo <= k <= hi (as the bounds' inclusive flags say), comparing k on the bound's
// columns only: with a bound [42] on a (user, ts) key, every (42, *) is equal to it. An absent bound
// is open. An empty range (lo above hi) is valid and holds no key.
struct KeyRange {
  std::optional<KeyBound> lo;
  std::optional<KeyBound> hi;
};

// Compares `key` (all columns) with the first bound.parts.size() columns of a bound.
int CompareKeyToPrefix(const std::vector<KeyColumn>& columns, const Key& key, const Key& prefix);
bool KeyInRange(const std::vector<KeyColumn>& columns, const Key& key, const KeyRange& range);
// Whether some key in [min, max] can be in the range (fragment and page pruning).
bool RangeOverlaps(const std::vector<KeyColumn>& columns, const KeyRange& range, const Key& min, const Key& max);

// `rap lookup --range`: "LO..HI" (both inclusive), "LO..<HI" (HI exclusive), "LO<..HI" (LO
// exclusive), "LO<..<HI"; "LO.." and "..HI" are open at the other end, ".." is every key. LO and HI
// are key texts (ParseKey's forms) of the first 1..all key columns, parts separated by commas. The
// first ".." splits the text (a string bound containing ".." needs the library's KeyRange).
Result<KeyRange> ParseKeyRange(const std::vector<KeyColumn>& columns, std::string_view text);
// `--prefix`: `parts` bind the first parts.size() key columns; the last one, when it is a string or
// binary column, matches every value that starts with it (byte prefix), the others are equal.
Result<KeyRange> PrefixRange(const std::vector<KeyColumn>& columns, const std::vector<std::string>& parts);
// The same from key values (`prefix` binds the first 1..all key columns).
Result<KeyRange> PrefixRangeOf(const std::vector<KeyColumn>& columns, Key prefix);
// The text form ParseKeyRange reads.
std::string FormatKeyRange(const std::vector<KeyColumn>& columns, const KeyRange& range);

// The order-preserving encoding of the first `key.parts.size()` columns: an integer as 8 bytes
// big-endian with the sign bit flipped; a string or binary as its bytes with 0x00 written 0x00 0xFF,
// then 0x00 0x00. memcmp order of encodings equals CompareKeys order.
std::string NormalizedKey(const std::vector<KeyColumn>& columns, const Key& key);
// The inverse (InvalidArgument on malformed input).
Result<Key> KeyFromNormalized(const std::vector<KeyColumn>& columns, std::string_view bytes);

}  // namespace rap::index
