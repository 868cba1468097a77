// Definitions of the writer test helpers (see writer_testing.h). Header-only because every test
// file is its own executable and tests/format has no helper library.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "rap/columnar/array_format.h"
#include "rap/format/column_reader.h"
#include "rap/format/footer.h"
#include "rap/format/schema.h"
#include "rap/format/statistics.h"
#include "rap/format/thrift.h"

namespace rap::testing {

namespace detail {

inline Buffer BitmapOf(const std::vector<bool>& valid, int64_t* null_count) {
  *null_count = 0;
  if (valid.empty()) return Buffer();
  std::vector<uint8_t> bits((valid.size() + 7) / 8, 0);
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) {
      bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    } else {
      ++*null_count;
    }
  }
  return Buffer::FromVector(std::move(bits));
}

inline ArrayPtr NewArray(DataTypePtr type, int64_t length, const std::vector<bool>& valid) {
  auto a = std::make_shared<ArrayData>();
  a->type = std::move(type);
  a->length = length;
  a->buffers.push_back(BitmapOf(valid, &a->null_count));
  return a;
}

}  // namespace detail

inline ArrayPtr MakeInt64Array(const std::vector<int64_t>& values, const std::vector<bool>& valid) {
  auto a = detail::NewArray(MakeType(TypeId::kInt64), static_cast<int64_t>(values.size()), valid);
  a->buffers.push_back(Buffer::Copy(values.data(), values.size() * 8));
  return a;
}

inline ArrayPtr MakeDoubleArray(const std::vector<double>& values, const std::vector<bool>& valid) {
  auto a = detail::NewArray(MakeType(TypeId::kFloat64), static_cast<int64_t>(values.size()), valid);
  a->buffers.push_back(Buffer::Copy(values.data(), values.size() * 8));
  return a;
}

inline ArrayPtr MakeStringArray(const std::vector<std::string>& values, const std::vector<bool>& valid, TypeId id) {
  auto a = detail::NewArray(MakeType(id), static_cast<int64_t>(values.size()), valid);
  std::vector<int32_t> offsets{0};
  std::string data;
  for (const auto& v : values) {
    data += v;
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  a->buffers.push_back(Buffer::Copy(offsets.data(), offsets.size() * 4));
  a->buffers.push_back(Buffer::FromString(std::move(data)));
  return a;
}

inline ArrayPtr MakeFixedArray(DataTypePtr type, const std::string& bytes, int64_t length,
                               const std::vector<bool>& valid) {
  auto a = detail::NewArray(std::move(type), length, valid);
  a->buffers.push_back(Buffer::Copy(bytes));
  return a;
}

inline ArrayPtr MakeListArray(DataTypePtr type, const std::vector<int32_t>& offsets, ArrayPtr child,
                              const std::vector<bool>& valid) {
  auto a = detail::NewArray(std::move(type), static_cast<int64_t>(offsets.size()) - 1, valid);
  a->buffers.push_back(Buffer::Copy(offsets.data(), offsets.size() * 4));
  a->children.push_back(std::move(child));
  return a;
}

inline ArrayPtr MakeStructArray(DataTypePtr type, std::vector<ArrayPtr> children, int64_t length,
                                const std::vector<bool>& valid) {
  auto a = detail::NewArray(std::move(type), length, valid);
  a->children = std::move(children);
  return a;
}

inline RecordBatch MakeBatch(SchemaPtr schema, std::vector<ArrayPtr> columns) {
  RecordBatch b;
  b.schema = std::move(schema);
  b.num_rows = columns.empty() ? 0 : columns[0]->length;
  b.columns = std::move(columns);
  return b;
}

// --- random data ------------------------------------------------------------------------------

inline DataTypePtr RandomType(std::mt19937_64& rng, int depth) {
  const int kinds = depth > 0 ? 27 : 24;
  const int k = static_cast<int>(rng() % kinds);
  switch (k) {
    case 0:
      return MakeType(TypeId::kBool);
    case 1:
      return MakeType(TypeId::kInt8);
    case 2:
      return MakeType(TypeId::kInt16);
    case 3:
      return MakeType(TypeId::kInt32);
    case 4:
    case 5:
      return MakeType(TypeId::kInt64);
    case 6:
      return MakeType(TypeId::kUInt8);
    case 7:
      return MakeType(TypeId::kUInt16);
    case 8:
      return MakeType(TypeId::kUInt32);
    case 9:
      return MakeType(TypeId::kUInt64);
    case 10:
      return MakeType(TypeId::kFloat32);
    case 11:
    case 12:
      return MakeType(TypeId::kFloat64);
    case 13:
    case 14:
      return MakeType(TypeId::kString);
    case 15:
      return MakeType(TypeId::kBinary);
    case 16:
      return MakeFixedSizeBinary(1 + static_cast<int32_t>(rng() % 20));
    case 17: {
      const int32_t p = 1 + static_cast<int32_t>(rng() % 38);
      return MakeDecimal(p, static_cast<int32_t>(rng() % (p + 1)));
    }
    case 18:
      return MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond);
    case 19:
      return MakeTemporal(TypeId::kTime32, rap::TimeUnit::kMilli);
    case 20:
      return MakeTemporal(TypeId::kTime64, rng() % 2 ? rap::TimeUnit::kMicro : rap::TimeUnit::kNano);
    case 21: {
      const rap::TimeUnit units[] = {rap::TimeUnit::kMilli, rap::TimeUnit::kMicro, rap::TimeUnit::kNano};
      return MakeTemporal(TypeId::kTimestamp, units[rng() % 3], rng() % 2 ? "UTC" : "");
    }
    case 22: {
      auto t = std::make_shared<DataType>(*MakeType(TypeId::kFloat16));
      return t;
    }
    case 23: {
      auto t = std::make_shared<DataType>(*MakeFixedSizeBinary(16));
      t->extension = "uuid";
      return t;
    }
    case 24:
      return MakeList(Field{"item", RandomType(rng, depth - 1), rng() % 4 != 0});
    case 25: {
      std::vector<Field> fields;
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i)
        fields.push_back(Field{fmt::format("f{}", i), RandomType(rng, depth - 1), rng() % 3 != 0});
      return MakeStruct(std::move(fields));
    }
    default: {
      const TypeId keys[] = {TypeId::kString, TypeId::kInt32, TypeId::kInt64};
      return MakeMap(Field{"key", MakeType(keys[rng() % 3]), false}, Field{"value", RandomType(rng, depth - 1), true});
    }
  }
}

inline SchemaPtr RandomSchema(std::mt19937_64& rng, int num_fields, int max_depth) {
  auto s = std::make_shared<Schema>();
  for (int i = 0; i < num_fields; ++i) {
    s->fields.push_back(
        Field{fmt::format("c{}", i), RandomType(rng, static_cast<int>(rng() % (max_depth + 1))), rng() % 3 != 0});
  }
  return s;
}

namespace detail {

inline std::vector<bool> RandomValidity(std::mt19937_64& rng, bool nullable, int64_t n, double p) {
  if (!nullable || rng() % 5 == 0) return {};
  std::bernoulli_distribution null(p);
  std::vector<bool> v(static_cast<size_t>(n));
  for (auto&& x : v) x = !null(rng);
  return v;
}

template <typename T>
T RandomInt(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return std::numeric_limits<T>::min();
    case 1:
      return std::numeric_limits<T>::max();
    case 2:
      return 0;
    case 3:
      return static_cast<T>(rng() % 16);  // repeats, good for dictionaries
    default:
      return static_cast<T>(rng());
  }
}

inline double RandomDouble(std::mt19937_64& rng) {
  switch (rng() % 12) {
    case 0:
      return std::numeric_limits<double>::quiet_NaN();
    case 1:
      return std::numeric_limits<double>::infinity();
    case 2:
      return -std::numeric_limits<double>::infinity();
    case 3:
      return -0.0;
    case 4:
      return 0.0;
    case 5:
      return std::numeric_limits<double>::denorm_min();
    case 6:
      return std::numeric_limits<double>::lowest();
    case 7:
      return static_cast<double>(rng() % 10);
    default:
      return std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
  }
}

inline std::string RandomBytes(std::mt19937_64& rng, const RandomDataOptions& o, bool text) {
  size_t len = rng() % (o.max_string_length + 1);
  if (rng() % 6 == 0) len = 0;
  if (std::bernoulli_distribution(o.long_string_probability)(rng)) len = 1000 + rng() % 5000;
  std::string s(len, 'a');
  const bool few = rng() % 3 == 0;  // low-cardinality values repeat (dictionary hits)
  for (auto& c : s) c = text ? static_cast<char>('a' + rng() % (few ? 2 : 26)) : static_cast<char>(rng() % 256);
  if (few && len > 3) s.resize(3);
  return s;
}

// Unscaled decimal with at most `precision` digits, as 16 little-endian bytes.
inline void RandomDecimal(std::mt19937_64& rng, int precision, uint8_t* out) {
  __int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  __int128 v;
  switch (rng() % 4) {
    case 0:
      v = limit - 1;
      break;
    case 1:
      v = -(limit - 1);
      break;
    default: {
      const unsigned __int128 r = (static_cast<unsigned __int128>(rng()) << 64) | rng();
      v = static_cast<__int128>(r % static_cast<unsigned __int128>(limit));
      if (rng() % 2) v = -v;
    }
  }
  std::memcpy(out, &v, 16);
}

}  // namespace detail

inline ArrayPtr RandomArray(std::mt19937_64& rng, const DataType& type, bool nullable, int64_t n,
                            const RandomDataOptions& o) {
  auto valid = detail::RandomValidity(rng, nullable, n, o.null_probability);
  auto tp = std::make_shared<DataType>(type);
  switch (type.id) {
    case TypeId::kBool: {
      std::string bits(static_cast<size_t>((n + 7) / 8), '\0');
      for (auto& b : bits) b = static_cast<char>(rng());
      return MakeFixedArray(tp, bits, n, valid);
    }
    case TypeId::kList:
    case TypeId::kMap: {
      std::vector<int32_t> offsets{0};
      for (int64_t i = 0; i < n; ++i) {
        const bool is_null = !valid.empty() && !valid[i];
        offsets.push_back(offsets.back() + (is_null ? 0 : static_cast<int32_t>(rng() % (o.max_list_length + 1))));
      }
      const Field& f = type.children[0];
      ArrayPtr child;
      if (type.id == TypeId::kMap) {
        const auto& entries = *f.type;
        std::vector<ArrayPtr> kv;
        kv.push_back(RandomArray(rng, *entries.children[0].type, false, offsets.back(), o));
        kv.push_back(RandomArray(rng, *entries.children[1].type, entries.children[1].nullable, offsets.back(), o));
        child = MakeStructArray(f.type, std::move(kv), offsets.back(), {});
      } else {
        child = RandomArray(rng, *f.type, f.nullable, offsets.back(), o);
      }
      return MakeListArray(tp, offsets, child, valid);
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> children;
      for (const auto& f : type.children) children.push_back(RandomArray(rng, *f.type, f.nullable, n, o));
      return MakeStructArray(tp, std::move(children), n, valid);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::vector<std::string> values;
      for (int64_t i = 0; i < n; ++i) values.push_back(detail::RandomBytes(rng, o, type.id == TypeId::kString));
      auto a = MakeStringArray(values, valid, type.id);
      a->type = tp;
      return a;
    }
    default:
      break;
  }
  const int w = type.FixedWidth();
  std::string bytes(static_cast<size_t>(n * w), '\0');
  auto* p = reinterpret_cast<uint8_t*>(bytes.data());
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* v = p + i * w;
    auto put = [&](auto x) { std::memcpy(v, &x, sizeof(x)); };
    switch (type.id) {
      case TypeId::kInt8:
        put(detail::RandomInt<int8_t>(rng));
        break;
      case TypeId::kInt16:
        put(detail::RandomInt<int16_t>(rng));
        break;
      case TypeId::kInt32:
        put(detail::RandomInt<int32_t>(rng));
        break;
      case TypeId::kInt64:
        put(detail::RandomInt<int64_t>(rng));
        break;
      case TypeId::kUInt8:
        put(detail::RandomInt<uint8_t>(rng));
        break;
      case TypeId::kUInt16:
        put(detail::RandomInt<uint16_t>(rng));
        break;
      case TypeId::kUInt32:
        put(detail::RandomInt<uint32_t>(rng));
        break;
      case TypeId::kUInt64:
        put(detail::RandomInt<uint64_t>(rng));
        break;
      case TypeId::kFloat32:
        put(static_cast<float>(detail::RandomDouble(rng)));
        break;
      case TypeId::kFloat64:
        put(detail::RandomDouble(rng));
        break;
      case TypeId::kFloat16:
        put(static_cast<uint16_t>(rng() % 4 == 0 ? 0x7e00 : rng()));
        break;
      case TypeId::kDecimal128:
        detail::RandomDecimal(rng, type.precision, v);
        break;
      case TypeId::kDate32:
        put(static_cast<int32_t>(static_cast<int64_t>(rng() % 200000) - 100000));
        break;
      case TypeId::kTime32:
        put(static_cast<int32_t>(rng() % 86'400'000));
        break;
      case TypeId::kTime64:
        put(static_cast<int64_t>(rng() %
                                 (type.unit == rap::TimeUnit::kMicro ? 86'400'000'000ULL : 86'400'000'000'000ULL)));
        break;
      case TypeId::kTimestamp:
        put(detail::RandomInt<int64_t>(rng));
        break;
      case TypeId::kFixedSizeBinary:
        for (int b = 0; b < w; ++b) v[b] = static_cast<uint8_t>(rng() % 4 == 0 ? 0xff : rng());
        break;
      default:
        break;
    }
  }
  return MakeFixedArray(tp, bytes, n, valid);
}

inline RecordBatch RandomBatch(std::mt19937_64& rng, const SchemaPtr& schema, int64_t rows,
                               const RandomDataOptions& o) {
  std::vector<ArrayPtr> cols;
  for (const auto& f : schema->fields) {
    // Sometimes a sliced array (non-zero Arrow offset) to exercise offset handling.
    if (rows > 4 && rng() % 4 == 0) {
      const int64_t skip = static_cast<int64_t>(rng() % 3) + 1;
      cols.push_back(SliceArray(RandomArray(rng, *f.type, f.nullable, rows + skip, o), skip, rows));
    } else {
      cols.push_back(RandomArray(rng, *f.type, f.nullable, rows, o));
    }
  }
  return MakeBatch(schema, std::move(cols));
}

namespace detail {
inline const DataType* LeafTypeOf(const DataType* t) {
  while (t->IsNested()) {
    // Several leaves (a struct's fields, a map's key and value): keep the default encoding.
    if (t->id == TypeId::kStruct || t->id == TypeId::kMap) return nullptr;
    t = t->children[0].type.get();
  }
  return t;
}
}  // namespace detail

inline parquet::WriterOptions RandomOptions(std::mt19937_64& rng, const Schema& schema) {
  using parquet::Codec;
  using parquet::Encoding;
  parquet::WriterOptions o;
  const int64_t row_limits[] = {0, 1, 7, 100, 1000};
  const int64_t page_rows[] = {0, 1, 3, 50, 20000};
  const int64_t page_bytes[] = {0, 64, 1024, 1 << 20};
  o.row_group_max_rows = row_limits[rng() % 5];
  o.row_group_max_bytes = rng() % 4 == 0 ? 4096 : 0;
  o.defaults.page_max_rows = page_rows[rng() % 5];
  o.defaults.page_max_bytes = page_bytes[rng() % 4];
  o.data_page_version = rng() % 2 ? 2 : 1;
  const Codec codecs[] = {Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW, Codec::BROTLI};
  o.defaults.codec = codecs[rng() % 6];
  o.defaults.dictionary = rng() % 3 != 0;
  if (rng() % 3 == 0) o.defaults.dictionary_max_bytes = 64 + static_cast<int64_t>(rng() % 512);
  o.page_crc = rng() % 2;
  o.write_page_index = rng() % 5 != 0;
  o.column_index_truncate_bytes = rng() % 2 ? 64 : 4;
  for (const auto& f : schema.fields) {
    if (rng() % 2) continue;
    const DataType* t = detail::LeafTypeOf(f.type.get());
    if (!t) continue;
    std::vector<Encoding> choices{Encoding::PLAIN};
    switch (t->id) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kUInt8:
      case TypeId::kUInt16:
      case TypeId::kUInt32:
      case TypeId::kUInt64:
      case TypeId::kDate32:
      case TypeId::kTime32:
      case TypeId::kTime64:
      case TypeId::kTimestamp:
        choices.push_back(Encoding::DELTA_BINARY_PACKED);
        break;
      case TypeId::kFloat32:
      case TypeId::kFloat64:
        choices.push_back(Encoding::BYTE_STREAM_SPLIT);
        break;
      case TypeId::kString:
      case TypeId::kBinary:
        choices.push_back(Encoding::DELTA_LENGTH_BYTE_ARRAY);
        choices.push_back(Encoding::DELTA_BYTE_ARRAY);
        break;
      default:
        break;
    }
    parquet::ColumnLayoutOverride ov;
    ov.encoding = choices[rng() % choices.size()];
    ov.dictionary = rng() % 2 == 0;
    o.columns[f.name] = ov;
  }
  return o;
}

// --- comparison -------------------------------------------------------------------------------

inline std::string CompareValues(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const bool an = a.IsNull(i), bn = b.IsNull(j);
  if (an != bn) return fmt::format("null mismatch: expected {} got {}", an ? "null" : "value", bn ? "null" : "value");
  if (an) return "";
  if (a.type->id != b.type->id) {
    return fmt::format("type mismatch: {} vs {}", a.type->ToString(), b.type->ToString());
  }
  switch (a.type->id) {
    case TypeId::kNull:
      return "";
    case TypeId::kBool: {
      const int64_t x = a.offset + i, y = b.offset + j;
      const bool va = (a.buffers[1].data()[x >> 3] >> (x & 7)) & 1, vb = (b.buffers[1].data()[y >> 3] >> (y & 7)) & 1;
      return va == vb ? "" : fmt::format("bool {} vs {}", va, vb);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* oa = a.offsets();
      const int32_t* ob = b.offsets();
      std::string_view va(reinterpret_cast<const char*>(a.buffers[2].data()) + oa[i], oa[i + 1] - oa[i]);
      std::string_view vb(reinterpret_cast<const char*>(b.buffers[2].data()) + ob[j], ob[j + 1] - ob[j]);
      if (va == vb) return "";
      return fmt::format("bytes differ: expected {} bytes '{}' got {} bytes '{}'", va.size(), va.substr(0, 40),
                         vb.size(), vb.substr(0, 40));
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const int32_t* oa = a.offsets();
      const int32_t* ob = b.offsets();
      const int64_t la = oa[i + 1] - oa[i], lb = ob[j + 1] - ob[j];
      if (la != lb) return fmt::format("list length {} vs {}", la, lb);
      for (int64_t k = 0; k < la; ++k) {
        std::string d = CompareValues(*a.children[0], oa[i] + k, *b.children[0], ob[j] + k);
        if (!d.empty()) return fmt::format("[{}]: {}", k, d);
      }
      return "";
    }
    case TypeId::kStruct: {
      if (a.children.size() != b.children.size()) return "struct field count differs";
      for (size_t c = 0; c < a.children.size(); ++c) {
        std::string d = CompareValues(*a.children[c], a.offset + i, *b.children[c], b.offset + j);
        if (!d.empty()) return fmt::format(".{}: {}", a.type->children[c].name, d);
      }
      return "";
    }
    default: {
      const int w = a.type->FixedWidth();
      const uint8_t* pa = a.buffers[1].data() + (a.offset + i) * w;
      const uint8_t* pb = b.buffers[1].data() + (b.offset + j) * w;
      if (std::memcmp(pa, pb, static_cast<size_t>(w)) == 0) return "";
      return fmt::format("value {} vs {}", FormatValue(a, i), FormatValue(b, j));
    }
  }
}

inline std::string CompareBatches(const std::vector<RecordBatch>& expected, const std::vector<RecordBatch>& actual) {
  // Flatten to (batch, row) pairs.
  std::vector<std::pair<size_t, int64_t>> ea, aa;
  for (size_t b = 0; b < expected.size(); ++b)
    for (int64_t r = 0; r < expected[b].num_rows; ++r) ea.emplace_back(b, r);
  for (size_t b = 0; b < actual.size(); ++b)
    for (int64_t r = 0; r < actual[b].num_rows; ++r) aa.emplace_back(b, r);
  if (ea.size() != aa.size()) return fmt::format("row count: expected {} got {}", ea.size(), aa.size());
  for (size_t r = 0; r < ea.size(); ++r) {
    const auto& eb = expected[ea[r].first];
    const auto& ab = actual[aa[r].first];
    if (eb.columns.size() != ab.columns.size()) return "column count differs";
    for (size_t c = 0; c < eb.columns.size(); ++c) {
      std::string d = CompareValues(*eb.columns[c], ea[r].second, *ab.columns[c], aa[r].second);
      if (!d.empty()) {
        return fmt::format("row {} column {} ({}): {}", r, eb.schema->fields[c].name,
                           eb.schema->fields[c].type->ToString(), d);
      }
    }
  }
  return "";
}

}  // namespace rap::testing

#include "format/writer_testing_readback.h"
