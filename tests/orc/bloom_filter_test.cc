// ORC bloom filter streams (rap/orc/bloom_filter.h): the parser on hand-encoded BloomFilterIndex
// messages and on the ORC examples' streams (ORC C++ 1.6 UTF-8 filters parse; Hive's pre-release
// layout in over1k_bloom.orc is Corrupt, naming the stream and the filter). That the hashes match
// the writers' is tested against files of pyarrow's ORC writer and pyorc (tests/python/test_orc_bloom.py).
#include <fstream>
#include <limits>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/orc/bloom_filter.h"
#include "testing/paths.h"

namespace rap::orc {
namespace {

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

// BloomFilterIndex { bloom_filter { num_hash_functions: k, utf8bitset: bits } } per filter.
std::string Index(const std::vector<std::pair<uint32_t, std::string>>& filters) {
  std::string out;
  for (const auto& [k, bits] : filters) {
    const std::string inner = "\x08" + Varint(k) + "\x1a" + Varint(bits.size()) + bits;
    out += "\x0a" + Varint(inner.size()) + inner;
  }
  return out;
}

Result<std::vector<BloomFilter>> Parse(const std::string& bytes) {
  FileTail tail;
  tail.name = "t.orc";
  StreamInfo st;
  st.kind = StreamKind::kBloomFilterUtf8;
  st.column = 2;
  st.offset = 100;
  st.length = bytes.size();
  return ParseBloomFilterIndex(tail, 0, st, Buffer::Copy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

TEST(OrcBloomFilter, ParsesUtf8BitSetsAsLittleEndianWords) {
  std::string bits(16, '\0');
  bits[0] = '\x01';   // bit 0
  bits[15] = '\x80';  // bit 127
  auto f = Parse(Index({{3, bits}, {1, std::string(8, '\xff')}}));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->size(), 2u);
  EXPECT_EQ((*f)[0].num_hash_functions, 3u);
  ASSERT_EQ((*f)[0].words.size(), 2u);
  EXPECT_EQ((*f)[0].words[0], 1u);
  EXPECT_EQ((*f)[0].words[1], uint64_t{1} << 63);
  EXPECT_TRUE((*f)[0].utf8);
  // All bits set: everything may be there; no bits set: nothing is.
  EXPECT_TRUE((*f)[1].MightContainBytes("anything"));
  EXPECT_TRUE((*f)[1].MightContainInteger(-7));
  auto empty = Parse(Index({{4, std::string(64, '\0')}}));
  ASSERT_TRUE(empty.ok());
  for (int64_t v : {0, 1, -1, 123456789}) EXPECT_FALSE((*empty)[0].MightContainInteger(v)) << v;
  EXPECT_FALSE((*empty)[0].MightContainBytes(""));
  EXPECT_FALSE((*empty)[0].MightContainDouble(2.5));
  EXPECT_TRUE((*empty)[0].MightContainDouble(std::numeric_limits<double>::quiet_NaN()));
}

TEST(OrcBloomFilter, MalformedFiltersAreCorrupt) {
  auto expect_corrupt = [](const std::string& bytes, const std::string& what) {
    auto f = Parse(bytes);
    ASSERT_FALSE(f.ok()) << what;
    EXPECT_EQ(f.status().code(), StatusCode::kCorrupt) << f.status().ToString();
    EXPECT_NE(f.status().message().find(what), std::string::npos) << f.status().ToString();
    EXPECT_NE(f.status().message().find("t.orc: stripe 0 column 2 BLOOM_FILTER_UTF8 stream at offset 100"),
              std::string::npos)
        << f.status().ToString();
  };
  expect_corrupt(Index({{3, std::string(16, '\0')}, {0, std::string(8, '\0')}}), "bloom filter 1: 0 hash functions");
  expect_corrupt(Index({{2000, std::string(8, '\0')}}), "bloom filter 0: 2000 hash functions");
  expect_corrupt(Index({{3, std::string(12, '\0')}}), "a UTF-8 bit set of 12 bytes, not a multiple of 8");
  expect_corrupt(Index({{3, ""}}), "bloom filter 0: no bits");
  expect_corrupt(std::string("\x0a\x05\x08", 3), "t.orc");  // cut off
}

TEST(OrcBloomFilter, ExampleFiles) {
  auto read = [](const std::string& name) {
    std::ifstream in(rap::testing::SharedDir() + "/orc/examples/" + name, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes;
  };
  // ORC C++ 1.6.11: UTF-8 filters that parse, of a writer whose filters are not used.
  {
    std::vector<uint8_t> file = read("bad_bloom_filter_1.6.11.orc");
    auto tail = ParseTail("bad.orc", file);
    ASSERT_TRUE(tail.ok()) << tail.status().ToString();
    EXPECT_FALSE(BloomFiltersUsable(*tail));
    auto footer = ParseStripeFooter(*tail, file, 0);
    ASSERT_TRUE(footer.ok());
    std::vector<uint32_t> all;
    for (uint32_t c = 0; c < tail->types.nodes.size(); ++c) all.push_back(c);
    const std::vector<StreamInfo> streams = BloomFilterStreams(*footer, all);
    ASSERT_FALSE(streams.empty());
    for (const StreamInfo& st : streams) {
      auto f = ParseBloomFilterIndex(*tail, 0, st, Buffer::Copy(file.data() + st.offset, st.length));
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      EXPECT_FALSE(f->empty());
    }
  }
  // Hive's pre-release layout: original BLOOM_FILTER streams, never selected, Corrupt when parsed.
  {
    std::vector<uint8_t> file = read("over1k_bloom.orc");
    auto tail = ParseTail("over1k.orc", file);
    ASSERT_TRUE(tail.ok()) << tail.status().ToString();
    EXPECT_TRUE(BloomFiltersUsable(*tail));
    auto footer = ParseStripeFooter(*tail, file, 0);
    ASSERT_TRUE(footer.ok());
    EXPECT_TRUE(BloomFilterStreams(*footer, {1, 2, 3, 4}).empty());
    int seen = 0;
    for (const StreamInfo& st : footer->streams) {
      if (st.kind != StreamKind::kBloomFilter || st.column != 1) continue;
      ++seen;
      auto f = ParseBloomFilterIndex(*tail, 0, st, Buffer::Copy(file.data() + st.offset, st.length));
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.status().message(),
                "over1k.orc: stripe 0 column 1 BLOOM_FILTER stream at offset 45: bloom filter 0: 10000 hash functions");
    }
    EXPECT_EQ(seen, 1);
  }
}

}  // namespace
}  // namespace rap::orc
