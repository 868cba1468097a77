// Index keys: types, order, text forms, canonical encoding, md5 and the bucket function.
#include "rap/index/key.h"

#include <charconv>
#include <cstring>

namespace rap::index {

const char* KeyTypeName(KeyType type) {
  switch (type) {
    case KeyType::kInt32: return "int32";
    case KeyType::kInt64: return "int64";
    case KeyType::kString: return "string";
    case KeyType::kBinary: return "binary";
  }
  return "?";
}

Result<KeyType> ParseKeyTypeName(std::string_view name) {
  if (name == "int32") return KeyType::kInt32;
  if (name == "int64") return KeyType::kInt64;
  if (name == "string") return KeyType::kString;
  if (name == "binary") return KeyType::kBinary;
  return Status::InvalidArgument("unknown key type '" + std::string(name) +
                                 "' (expected int32, int64, string or binary)");
}

Result<KeyType> KeyTypeOf(const std::string& column, const DataType& type) {
  switch (type.id) {
    case TypeId::kInt32: return KeyType::kInt32;
    case TypeId::kInt64: return KeyType::kInt64;
    case TypeId::kString: return KeyType::kString;
    case TypeId::kBinary: return KeyType::kBinary;
    default: break;
  }
  return Status::NotSupported("key column '" + column + "' has type " + type.ToString() +
                              "; index keys are int32, int64, string or binary columns");
}

DataTypePtr ArrowTypeOf(KeyType type) {
  switch (type) {
    case KeyType::kInt32: return MakeType(TypeId::kInt32);
    case KeyType::kInt64: return MakeType(TypeId::kInt64);
    case KeyType::kString: return MakeType(TypeId::kString);
    case KeyType::kBinary: return MakeType(TypeId::kBinary);
  }
  return MakeType(TypeId::kNull);
}

bool IsIntegerKey(KeyType type) { return type == KeyType::kInt32 || type == KeyType::kInt64; }

int CompareKeyPart(KeyType type, const KeyPart& a, const KeyPart& b) {
  if (IsIntegerKey(type)) return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
  // std::string::compare is char_traits<char>::compare: memcmp order, i.e. unsigned bytewise.
  const int c = a.s.compare(b.s);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int CompareKeys(const std::vector<KeyColumn>& columns, const Key& a, const Key& b) {
  for (size_t i = 0; i < columns.size(); ++i) {
    const int c = CompareKeyPart(columns[i].type, a.parts[i], b.parts[i]);
    if (c != 0) return c;
  }
  return 0;
}

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string LowerHex(std::string_view bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

}  // namespace

Result<Key> ParseKey(const std::vector<KeyColumn>& columns, const std::vector<std::string>& parts) {
  if (parts.size() != columns.size()) {
    return Status::InvalidArgument("a key of this index has " + std::to_string(columns.size()) + " part(s) (" +
                                   columns.front().name + (columns.size() > 1 ? ", " + columns[1].name : "") +
                                   "), got " + std::to_string(parts.size()));
  }
  Key key;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string& t = parts[i];
    KeyPart p;
    switch (columns[i].type) {
      case KeyType::kInt32:
      case KeyType::kInt64: {
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
          return Status::InvalidArgument("key column '" + columns[i].name + "' (" + KeyTypeName(columns[i].type) +
                                         "): '" + t + "' is not a decimal integer in range");
        }
        if (columns[i].type == KeyType::kInt32 && (v < INT32_MIN || v > INT32_MAX)) {
          return Status::InvalidArgument("key column '" + columns[i].name + "' (int32): '" + t +
                                         "' is outside the int32 range");
        }
        p.i = v;
        break;
      }
      case KeyType::kString: p.s = t; break;
      case KeyType::kBinary: {
        std::string_view h = t;
        if (h.size() >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h.remove_prefix(2);
        if (h.size() % 2 != 0) {
          return Status::InvalidArgument("key column '" + columns[i].name + "' (binary): '" + t +
                                         "' is not hex (an odd number of digits)");
        }
        for (size_t j = 0; j < h.size(); j += 2) {
          const int a = HexDigit(h[j]), b = HexDigit(h[j + 1]);
          if (a < 0 || b < 0) {
            return Status::InvalidArgument("key column '" + columns[i].name + "' (binary): '" + t +
                                           "' is not hex (bad digit at " + std::to_string(j) + ")");
          }
          p.s.push_back(static_cast<char>(a * 16 + b));
        }
        break;
      }
    }
    key.parts.push_back(std::move(p));
  }
  return key;
}

std::vector<std::string> KeyTexts(const std::vector<KeyColumn>& columns, const Key& key) {
  std::vector<std::string> out;
  for (size_t i = 0; i < columns.size() && i < key.parts.size(); ++i) {
    switch (columns[i].type) {
      case KeyType::kInt32:
      case KeyType::kInt64: out.push_back(std::to_string(key.parts[i].i)); break;
      case KeyType::kString: out.push_back(key.parts[i].s); break;
      case KeyType::kBinary: out.push_back(LowerHex(key.parts[i].s)); break;
    }
  }
  return out;
}

std::string FormatKey(const std::vector<KeyColumn>& columns, const Key& key) {
  std::string out;
  for (const std::string& t : KeyTexts(columns, key)) out += (out.empty() ? "" : ", ") + t;
  return out;
}

std::string CanonicalKey(const std::vector<KeyColumn>& columns, const Key& key) {
  std::string out;
  std::vector<std::string> texts = KeyTexts(columns, key);
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) out.push_back('|');
    out += texts[i];
  }
  return out;
}

// ---- md5 (RFC 1321) ----

namespace {
inline uint32_t Rotl(uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }
constexpr uint32_t kMd5K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
constexpr int kMd5R[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9,  14, 20, 5, 9,
                           14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                           4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

void Md5Block(const uint8_t* p, uint32_t h[4]) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = uint32_t{p[4 * i]} | (uint32_t{p[4 * i + 1]} << 8) | (uint32_t{p[4 * i + 2]} << 16) |
           (uint32_t{p[4 * i + 3]} << 24);
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    const uint32_t t = d;
    d = c;
    c = b;
    b = b + Rotl(a + f + kMd5K[i] + m[g], kMd5R[i]);
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
}
}  // namespace

std::array<uint8_t, 16> Md5(std::string_view data) {
  uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) Md5Block(p + i, h);
  uint8_t tail[128] = {};
  const size_t rest = n - i;
  std::memcpy(tail, p + i, rest);
  tail[rest] = 0x80;
  const size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(n) * 8;
  for (int j = 0; j < 8; ++j) tail[tail_len - 8 + static_cast<size_t>(j)] = static_cast<uint8_t>(bits >> (8 * j));
  Md5Block(tail, h);
  if (tail_len == 128) Md5Block(tail + 64, h);
  std::array<uint8_t, 16> out{};
  for (int j = 0; j < 4; ++j) {
    for (int k = 0; k < 4; ++k) out[static_cast<size_t>(4 * j + k)] = static_cast<uint8_t>(h[j] >> (8 * k));
  }
  return out;
}

int32_t BucketOfCanonical(std::string_view canonical, int32_t count) {
  if (count <= 1) return 0;
  const std::array<uint8_t, 16> d = Md5(canonical);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | d[static_cast<size_t>(i)];
  v >>= 4;  // the first 15 hex digits: 60 bits, a non-negative BIGINT in every SQL engine
  return static_cast<int32_t>(v % static_cast<uint64_t>(count));
}

int32_t BucketOf(const std::vector<KeyColumn>& columns, const Key& key, int32_t count) {
  return BucketOfCanonical(CanonicalKey(columns, key), count);
}

bool KeyPartAt(KeyType type, const ArrayData& array, int64_t row, KeyPart* out) {
  if (array.IsNull(row)) return false;
  switch (type) {
    case KeyType::kInt32: out->i = array.values<int32_t>()[row]; break;
    case KeyType::kInt64: out->i = array.values<int64_t>()[row]; break;
    case KeyType::kString:
    case KeyType::kBinary: {
      const int32_t* o = array.offsets();
      out->s.assign(reinterpret_cast<const char*>(array.buffers[2].data()) + o[row],
                    static_cast<size_t>(o[row + 1] - o[row]));
      break;
    }
  }
  return true;
}

ArrayPtr MakeKeyArray(KeyType type, const std::vector<const KeyPart*>& parts) {
  auto a = std::make_shared<ArrayData>();
  a->type = ArrowTypeOf(type);
  a->length = static_cast<int64_t>(parts.size());
  const size_t n = parts.size();
  if (IsIntegerKey(type)) {
    const size_t w = type == KeyType::kInt32 ? 4 : 8;
    Buffer values = Buffer::Allocate(n * w);
    for (size_t i = 0; i < n; ++i) {
      if (w == 4) {
        const int32_t v = static_cast<int32_t>(parts[i]->i);
        std::memcpy(values.mutable_data() + i * 4, &v, 4);
      } else {
        std::memcpy(values.mutable_data() + i * 8, &parts[i]->i, 8);
      }
    }
    a->buffers = {Buffer(), values};
    return a;
  }
  std::vector<int32_t> offsets(n + 1, 0);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    total += parts[i]->s.size();
    offsets[i + 1] = static_cast<int32_t>(total);
  }
  Buffer data = Buffer::Allocate(total);
  for (size_t i = 0; i < n; ++i) {
    if (!parts[i]->s.empty()) {
      std::memcpy(data.mutable_data() + offsets[i], parts[i]->s.data(), parts[i]->s.size());
    }
  }
  a->buffers = {Buffer(), Buffer::Copy(offsets.data(), offsets.size() * 4), data};
  return a;
}

}  // namespace rap::index
