// Index keys: types, order, text forms, canonical encoding, md5 and the bucket function.
#include "rap/index/key.h"

#include <charconv>
#include <cstring>
#include <openssl/evp.h>

#include "rap/util/hex.h"

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

// ---- md5 (RFC 1321), from OpenSSL's libcrypto (already a dependency of the io module) ----

std::array<uint8_t, 16> Md5(std::string_view data) {
  // OpenSSL 3 looks the algorithm up ("implicit fetch") on every EVP_Digest(EVP_md5()) call, which
  // cost ~3 us per lookup key; the MD5 implementation is fetched once and each thread reuses one
  // digest context. A failure leaves `out` zero, which the md5 test vectors (key_test.cc) catch.
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "MD5", nullptr);
  struct Ctx {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Ctx() { EVP_MD_CTX_free(ctx); }
  };
  thread_local Ctx tl;
  std::array<uint8_t, 16> out{};
  unsigned int len = 0;
  if (md != nullptr && tl.ctx != nullptr && EVP_DigestInit_ex2(tl.ctx, md, nullptr) == 1 &&
      EVP_DigestUpdate(tl.ctx, data.data(), data.size()) == 1) {
    (void)EVP_DigestFinal_ex(tl.ctx, out.data(), &len);
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

int CompareKeyCell(KeyType type, const ArrayData& array, int64_t row, const KeyPart& part) {
  const bool null = array.IsNull(row);
  if (IsIntegerKey(type)) {
    const int64_t v = null ? 0 : type == KeyType::kInt32 ? array.values<int32_t>()[row] : array.values<int64_t>()[row];
    return v < part.i ? -1 : (v > part.i ? 1 : 0);
  }
  std::string_view v;
  if (!null) {
    const int32_t* o = array.offsets();
    v = std::string_view(reinterpret_cast<const char*>(array.buffers[2].data()) + o[row],
                         static_cast<size_t>(o[row + 1] - o[row]));
  }
  const int c = v.compare(part.s);  // char_traits<char>::compare, as CompareKeyPart
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
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
