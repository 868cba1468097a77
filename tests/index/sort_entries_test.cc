// SortEntries (fragment entry order: key, file, first_row): its integer fast path and its general
// path both give exactly the order of a plain comparison sort, on shuffled entries with repeated
// keys, files and runs, including negative and extreme integers and bytes above 0x7f.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "rap/index/fragment.h"

namespace rap::index {
namespace {

std::vector<IndexEntry> Shuffled(const std::vector<KeyColumn>& key, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t ints[] = {std::numeric_limits<int64_t>::min(), -5, -1, 0, 1, 7, 1 << 20,
                          std::numeric_limits<int64_t>::max()};
  const std::string strs[] = {"", "a", "ab", "b", std::string("\xff", 1), std::string("\x00\x01", 2)};
  std::vector<IndexEntry> out;
  for (size_t i = 0; i < n; ++i) {
    IndexEntry e;
    for (const KeyColumn& k : key) {
      KeyPart p;
      if (IsIntegerKey(k.type)) p.i = ints[rng() % 8];
      else p.s = strs[rng() % 6];
      e.key.parts.push_back(p);
    }
    e.file = static_cast<int32_t>(rng() % 4);
    e.first_row = static_cast<int64_t>(i);  // unique per entry, as in a data file's runs
    e.num_rows = 1 + static_cast<int64_t>(rng() % 3);
    out.push_back(std::move(e));
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

void ExpectSortedLikeComparison(const std::vector<KeyColumn>& key) {
  for (size_t n : {0u, 1u, 2u, 17u, 3000u}) {
    std::vector<IndexEntry> entries = Shuffled(key, n, static_cast<uint32_t>(n) + 1);
    std::vector<IndexEntry> expected = entries;
    std::sort(expected.begin(), expected.end(), [&](const IndexEntry& a, const IndexEntry& b) {
      const int c = CompareKeys(key, a.key, b.key);
      if (c != 0) return c < 0;
      if (a.file != b.file) return a.file < b.file;
      return a.first_row < b.first_row;
    });
    SortEntries(key, &entries);
    ASSERT_EQ(entries.size(), expected.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      EXPECT_EQ(entries[i].key, expected[i].key) << i;
      EXPECT_EQ(entries[i].file, expected[i].file) << i;
      EXPECT_EQ(entries[i].first_row, expected[i].first_row) << i;
      EXPECT_EQ(entries[i].num_rows, expected[i].num_rows) << i;
    }
    // Sorting sorted entries keeps them.
    SortEntries(key, &entries);
    for (size_t i = 0; i < entries.size(); ++i) EXPECT_EQ(entries[i].first_row, expected[i].first_row) << i;
  }
}

TEST(SortEntriesTest, OneIntegerKey) {
  ExpectSortedLikeComparison({{"k", KeyType::kInt64}});
  ExpectSortedLikeComparison({{"k", KeyType::kInt32}});
}

TEST(SortEntriesTest, StringAndCompoundKeys) {
  ExpectSortedLikeComparison({{"k", KeyType::kString}});
  ExpectSortedLikeComparison({{"k", KeyType::kBinary}});
  ExpectSortedLikeComparison({{"a", KeyType::kInt64}, {"b", KeyType::kString}});
  ExpectSortedLikeComparison({{"a", KeyType::kString}, {"b", KeyType::kInt32}});
}

}  // namespace
}  // namespace rap::index
