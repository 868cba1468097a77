// Key ranges: the --range / --prefix text forms (inclusive, exclusive, open, leading columns,
// errors), prefix successors (0xFF bytes), and the normalised encoding (memcmp order equals key
// order over random keys; round trip; malformed input refused).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "rap/index/key_range.h"

namespace rap::index {
namespace {

const std::vector<KeyColumn> kInt = {{"k", KeyType::kInt64}};
const std::vector<KeyColumn> kStr = {{"s", KeyType::kString}};
const std::vector<KeyColumn> kPair = {{"s", KeyType::kString}, {"g", KeyType::kInt32}};

Key I(int64_t v) { return Key{{KeyPart{v, {}}}}; }
Key S(std::string s) { return Key{{KeyPart{0, std::move(s)}}}; }
Key SG(std::string s, int64_t g) { return Key{{KeyPart{0, std::move(s)}, KeyPart{g, {}}}}; }

TEST(KeyRange, TextForms) {
  auto r = ParseKeyRange(kInt, "3..7");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(KeyInRange(kInt, I(3), *r));
  EXPECT_TRUE(KeyInRange(kInt, I(7), *r));
  EXPECT_FALSE(KeyInRange(kInt, I(8), *r));
  EXPECT_EQ(FormatKeyRange(kInt, *r), "3..7");
  r = ParseKeyRange(kInt, "3<..<7");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(KeyInRange(kInt, I(3), *r));
  EXPECT_TRUE(KeyInRange(kInt, I(4), *r));
  EXPECT_FALSE(KeyInRange(kInt, I(7), *r));
  EXPECT_EQ(FormatKeyRange(kInt, *r), "3<..<7");
  r = ParseKeyRange(kInt, "-5..");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->hi.has_value());
  EXPECT_TRUE(KeyInRange(kInt, I(INT64_MAX), *r));
  EXPECT_FALSE(KeyInRange(kInt, I(-6), *r));
  r = ParseKeyRange(kInt, "..");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kInt, I(INT64_MIN), *r));
  r = ParseKeyRange(kInt, "9..2");  // empty, valid
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(KeyInRange(kInt, I(5), *r));
  for (const char* bad : {"3", "x..4", "<..4", "3..<", "1,2..3"}) EXPECT_FALSE(ParseKeyRange(kInt, bad).ok()) << bad;
  // Strings order by bytes: "s10" < "s2".
  r = ParseKeyRange(kStr, "s1..s2");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kStr, S("s10"), *r));
  EXPECT_FALSE(KeyInRange(kStr, S("s20"), *r));
  // Leading columns of a compound key: "s1" holds every (s1, g); "s1,2" is a full bound.
  r = ParseKeyRange(kPair, "s1..s1");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kPair, SG("s1", -100), *r));
  EXPECT_FALSE(KeyInRange(kPair, SG("s10", 0), *r));
  r = ParseKeyRange(kPair, "s1,2..<s3");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(KeyInRange(kPair, SG("s1", 1), *r));
  EXPECT_TRUE(KeyInRange(kPair, SG("s1", 2), *r));
  EXPECT_TRUE(KeyInRange(kPair, SG("s2", 0), *r));
  EXPECT_FALSE(KeyInRange(kPair, SG("s3", 0), *r));
  EXPECT_FALSE(ParseKeyRange(kPair, "s1,x..s2").ok());
}

TEST(KeyRange, Prefixes) {
  auto r = PrefixRange(kStr, {"ab"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kStr, S("ab"), *r));
  EXPECT_TRUE(KeyInRange(kStr, S("ab\xff\xff"), *r));
  EXPECT_FALSE(KeyInRange(kStr, S("ac"), *r));
  EXPECT_FALSE(KeyInRange(kStr, S("aa\xff"), *r));
  // A prefix ending in 0xFF bytes: the successor drops them ("a\xff" -> "b").
  r = PrefixRange(kStr, {"a\xff"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kStr, S("a\xff\x01"), *r));
  EXPECT_FALSE(KeyInRange(kStr, S("b"), *r));
  // All 0xFF, or empty: open above.
  r = PrefixRange(kStr, {"\xff"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->hi.has_value());
  r = PrefixRange(kStr, {""});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kStr, S(""), *r));
  // Compound: leading part equal, last a prefix; an integer last part is equality.
  r = PrefixRange(kPair, {"s1"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kPair, SG("s17", 4), *r));
  EXPECT_FALSE(KeyInRange(kPair, SG("s2", 4), *r));
  r = PrefixRange(kPair, {"s1", "4"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(KeyInRange(kPair, SG("s1", 4), *r));
  EXPECT_FALSE(KeyInRange(kPair, SG("s1", 5), *r));
  EXPECT_FALSE(KeyInRange(kPair, SG("s17", 4), *r));
  r = PrefixRange({{"b", KeyType::kBinary}, {"g", KeyType::kInt32}}, {"\xff"});
  EXPECT_FALSE(r.ok());  // binary text is hex
  EXPECT_FALSE(PrefixRange(kPair, {"a", "1", "2"}).ok());
}

TEST(KeyRange, NormalizedEncodingOrdersAsKeys) {
  const std::vector<KeyColumn> cols = {{"s", KeyType::kBinary}, {"k", KeyType::kInt64}};
  std::mt19937_64 rng(5);
  std::vector<Key> keys;
  for (int i = 0; i < 400; ++i) {
    Key k;
    std::string s;
    const int n = static_cast<int>(rng() % 4);
    for (int j = 0; j < n; ++j) s.push_back("\x00\x01\xfe\xff"[rng() % 4]);
    k.parts.push_back({0, s});
    const int64_t ints[] = {INT64_MIN, -1, 0, 1, INT64_MAX, static_cast<int64_t>(rng())};
    k.parts.push_back({ints[rng() % 6], {}});
    keys.push_back(std::move(k));
  }
  for (const Key& a : keys) {
    const std::string ea = NormalizedKey(cols, a);
    auto back = KeyFromNormalized(cols, ea);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, a);
    for (size_t j = 0; j < 20; ++j) {
      const Key& b = keys[rng() % keys.size()];
      const int want = CompareKeys(cols, a, b);
      const int got = ea.compare(NormalizedKey(cols, b));
      EXPECT_EQ(want < 0, got < 0);
      EXPECT_EQ(want == 0, got == 0);
    }
  }
  for (const std::string& bad : {std::string("\x00\x01", 2), std::string("ab"), std::string("a\x00\x05", 3),
                                  std::string("a\x00\x00\x01", 4)}) {
    EXPECT_FALSE(KeyFromNormalized(cols, bad).ok());
  }
  // A prefix of the columns decodes to a key of that many parts.
  auto leading = KeyFromNormalized(cols, std::string("a\x00\x00", 3));
  ASSERT_TRUE(leading.ok());
  EXPECT_EQ(leading->parts.size(), 1u);
  // int32 out of range.
  EXPECT_FALSE(KeyFromNormalized({{"i", KeyType::kInt32}}, std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8)).ok());
}

}  // namespace
}  // namespace rap::index
