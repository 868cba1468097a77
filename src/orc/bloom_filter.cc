// ORC bloom filters: the specification's hashes, the bit test and the stream parser.
#include "rap/orc/bloom_filter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "orc/proto_util.h"
#include "orc_metadata.pb.h"

namespace rap::orc {

namespace {

constexpr uint64_t kMurmurC1 = 0x87c37b91114253d5ULL;
constexpr uint64_t kMurmurC2 = 0x4cf5ad432745937fULL;

uint64_t MixBlock(uint64_t k) {
  k *= kMurmurC1;
  k = std::rotl(k, 31);
  k *= kMurmurC2;
  return k;
}

uint64_t Finalise(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

constexpr uint32_t kMaxHashFunctions = 1024;

}  // namespace

uint64_t Murmur3Hash64(std::string_view bytes, uint64_t seed) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  uint64_t h = seed;
  const size_t blocks = n / 8;
  for (size_t b = 0; b < blocks; ++b) {
    uint64_t k = 0;
    for (int j = 7; j >= 0; --j) k = (k << 8) | p[b * 8 + static_cast<size_t>(j)];  // little-endian
    h ^= MixBlock(k);
    h = std::rotl(h, 27) * 5 + 0x52dce729;
  }
  const size_t rest = n - blocks * 8;
  if (rest > 0) {
    uint64_t k = 0;
    for (size_t j = rest; j-- > 0;) k = (k << 8) | p[blocks * 8 + j];
    h ^= MixBlock(k);
  }
  h ^= static_cast<uint64_t>(n);
  return Finalise(h);
}

uint64_t IntegerHash64(int64_t value) {
  // Additions and multiplications wrap (unsigned); right shifts keep the sign (arithmetic), as the
  // specification's reference hash does on signed 64-bit integers.
  auto sar = [](uint64_t x, int s) { return static_cast<uint64_t>(static_cast<int64_t>(x) >> s); };
  uint64_t k = static_cast<uint64_t>(value);
  k = ~k + (k << 21);
  k ^= sar(k, 24);
  k = k + (k << 3) + (k << 8);
  k ^= sar(k, 14);
  k = k + (k << 2) + (k << 4);
  k ^= sar(k, 28);
  k += k << 31;
  return k;
}

bool BloomFilter::MightContainHash(uint64_t hash) const {
  if (words.empty() || num_hash_functions == 0) return true;
  const uint64_t bits = words.size() * 64;
  const auto h1 = static_cast<uint32_t>(hash);
  const auto h2 = static_cast<uint32_t>(hash >> 32);
  for (uint32_t i = 1; i <= num_hash_functions; ++i) {
    auto c = static_cast<int32_t>(h1 + i * h2);  // 32-bit two's complement wrap
    if (c < 0) c = ~c;
    const uint64_t pos = static_cast<uint64_t>(c) % bits;
    if ((words[pos / 64] & (uint64_t{1} << (pos % 64))) == 0) return false;
  }
  return true;
}

bool BloomFilter::MightContainDouble(double v) const {
  if (std::isnan(v)) return true;  // NaN has many bit patterns
  return MightContainHash(IntegerHash64(std::bit_cast<int64_t>(v)));
}

bool BloomFiltersUsable(const FileTail& tail) {
  if (tail.writer != 1) return true;  // not ORC C++
  unsigned major = 0, minor = 0;
  if (std::sscanf(tail.software_version.c_str(), "%u.%u", &major, &minor) != 2) return false;
  return major > 1 || (major == 1 && minor >= 7);
}

std::vector<StreamInfo> BloomFilterStreams(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns) {
  std::vector<StreamInfo> out;
  for (const StreamInfo& s : footer.streams) {
    if (s.kind == StreamKind::kBloomFilterUtf8 && s.length > 0 &&
        std::binary_search(columns.begin(), columns.end(), s.column)) {
      out.push_back(s);
    }
  }
  return out;
}

Result<std::vector<BloomFilter>> ParseBloomFilterIndex(const FileTail& tail, size_t stripe, const StreamInfo& stream,
                                                       const Buffer& raw) {
  const bool utf8 = stream.kind == StreamKind::kBloomFilterUtf8;
  const std::string where = tail.name + ": stripe " + std::to_string(stripe) + " column " +
                            std::to_string(stream.column) + " " + StreamKindName(stream.kind) +
                            " stream at offset " + std::to_string(stream.offset);
  if (!utf8 && stream.kind != StreamKind::kBloomFilter) {
    return Status::InvalidArgument(where + ": not a bloom filter stream");
  }
  if (raw.size() != stream.length) {
    return Status::IOError(where + ": " + std::to_string(raw.size()) + " bytes read, the stream has " +
                           std::to_string(stream.length));
  }
  RAP_ASSIGN_OR_RETURN(Buffer bytes,
                       DecompressStream(tail.compression, tail.compression_block_size, raw, where, stream.offset));
  proto::BloomFilterIndex index;
  RAP_RETURN_NOT_OK(ParseProto(&index, bytes, where));
  std::vector<BloomFilter> out;
  out.reserve(static_cast<size_t>(index.bloom_filter_size()));
  for (int i = 0; i < index.bloom_filter_size(); ++i) {
    const proto::BloomFilter& f = index.bloom_filter(i);
    const std::string at = where + ": bloom filter " + std::to_string(i);
    BloomFilter b;
    b.utf8 = utf8;
    b.num_hash_functions = f.num_hash_functions();
    if (b.num_hash_functions == 0 || b.num_hash_functions > kMaxHashFunctions) {
      return Status::Corrupt(at + ": " + std::to_string(b.num_hash_functions) + " hash functions");
    }
    if (utf8) {
      const std::string& bits = f.utf8bitset();
      if (bits.size() % 8 != 0) {
        return Status::Corrupt(at + ": a UTF-8 bit set of " + std::to_string(bits.size()) +
                               " bytes, not a multiple of 8");
      }
      b.words.resize(bits.size() / 8);
      for (size_t w = 0; w < b.words.size(); ++w) {
        uint64_t x = 0;
        for (int j = 7; j >= 0; --j) x = (x << 8) | static_cast<uint8_t>(bits[w * 8 + static_cast<size_t>(j)]);
        b.words[w] = x;
      }
    } else {
      b.words.assign(f.bitset().begin(), f.bitset().end());
    }
    if (b.words.empty()) return Status::Corrupt(at + ": no bits");
    if (b.words.size() > (uint64_t{1} << 31) / 64 - 1) {
      return Status::Corrupt(at + ": " + std::to_string(b.words.size() * 64) + " bits, more than 2^31 - 1");
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace rap::orc
