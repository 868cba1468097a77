// Key ranges (index/key_range.h): the `--range` / `--prefix` text forms and the normalised key
// encoding that range page tokens carry. The first byte picks the key columns; the rest is parsed
// as a range text, a prefix, and as a normalised key — which, when it decodes, must encode back to
// the same bytes (the encoding is canonical), and ranges must order their keys consistently.
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "rap/index/key_range.h"

RAP_FUZZ_TARGET(key_range) {
  using namespace rap::index;
  if (size == 0) return 0;
  static const std::vector<std::vector<KeyColumn>> kSchemas = {
      {{"k", KeyType::kInt64}},
      {{"s", KeyType::kString}},
      {{"b", KeyType::kBinary}},
      {{"i", KeyType::kInt32}},
      {{"s", KeyType::kString}, {"g", KeyType::kInt32}},
      {{"b", KeyType::kBinary}, {"s", KeyType::kString}},
  };
  const std::vector<KeyColumn>& kc = kSchemas[data[0] % kSchemas.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto range = ParseKeyRange(kc, text);
  if (range.ok()) {
    (void)FormatKeyRange(kc, *range);
    // Bounds of fewer parts than the key compare on their own parts only (no out-of-range access).
    if (range->lo && range->lo->key.parts.size() == kc.size()) {
      (void)RangeOverlaps(kc, *range, range->lo->key, range->lo->key);
      (void)KeyInRange(kc, range->lo->key, *range);
    }
  }
  std::vector<std::string> parts;
  size_t at = 0;
  while (parts.size() + 1 < kc.size()) {
    const size_t p = text.find(',', at);
    if (p == std::string_view::npos) break;
    parts.emplace_back(text.substr(at, p - at));
    at = p + 1;
  }
  parts.emplace_back(text.substr(at));
  auto prefix = PrefixRange(kc, parts);
  if (prefix.ok() && prefix->lo && prefix->lo->key.parts.size() == kc.size()) {
    // A full prefix key is in its own prefix range.
    if (!KeyInRange(kc, prefix->lo->key, *prefix)) __builtin_trap();
  }
  auto key = KeyFromNormalized(kc, text);
  if (key.ok()) {
    if (NormalizedKey(kc, *key) != text) __builtin_trap();
  }
  return 0;
}
