// Column statistics with the Parquet sort orders (see rap/format/statistics.h).
#include "rap/format/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace rap::parquet {

StatsKind StatsKindFor(Type physical, const std::optional<LogicalType>& logical,
                       const std::optional<ConvertedType>& converted) {
  using K = LogicalType::Kind;
  const bool decimal = (logical && logical->kind == K::DECIMAL) || (converted && *converted == ConvertedType::DECIMAL);
  bool is_unsigned = false;
  if (logical && logical->kind == K::INTEGER) is_unsigned = !logical->is_signed;
  if (converted) {
    switch (*converted) {
      case ConvertedType::UINT_8:
      case ConvertedType::UINT_16:
      case ConvertedType::UINT_32:
      case ConvertedType::UINT_64:
        is_unsigned = true;
        break;
      case ConvertedType::INTERVAL:
        return StatsKind::kNone;
      default:
        break;
    }
  }
  switch (physical) {
    case Type::BOOLEAN:
      return StatsKind::kBool;
    case Type::INT32:
      return is_unsigned ? StatsKind::kUInt32 : StatsKind::kInt32;
    case Type::INT64:
      return is_unsigned ? StatsKind::kUInt64 : StatsKind::kInt64;
    case Type::INT96:
      return StatsKind::kNone;
    case Type::FLOAT:
      return StatsKind::kFloat;
    case Type::DOUBLE:
      return StatsKind::kDouble;
    case Type::BYTE_ARRAY:
      return decimal ? StatsKind::kBytesSigned : StatsKind::kBytesUnsigned;
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (logical && logical->kind == K::FLOAT16) return StatsKind::kFloat16;
      return decimal ? StatsKind::kBytesSigned : StatsKind::kBytesUnsigned;
  }
  return StatsKind::kNone;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

namespace {

template <typename T>
T Load(std::string_view s) {
  T v{};
  std::memcpy(&v, s.data(), std::min(sizeof(T), s.size()));
  return v;
}

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareUnsignedBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp(a.size(), b.size());
}

// Big-endian two's complement integers of possibly different lengths.
int CompareSignedBytes(std::string_view a, std::string_view b) {
  auto sign = [](std::string_view s) { return !s.empty() && (static_cast<uint8_t>(s[0]) & 0x80); };
  const bool na = sign(a), nb = sign(b);
  if (na != nb) return na ? -1 : 1;
  // Same sign: sign-extend the shorter one, then compare unsigned.
  const size_t n = std::max(a.size(), b.size());
  const char pad = na ? static_cast<char>(0xff) : 0;
  std::string ea(n - a.size(), pad), eb(n - b.size(), pad);
  ea.append(a);
  eb.append(b);
  return CompareUnsignedBytes(ea, eb);
}

bool IsNaN(StatsKind kind, const uint8_t* p) {
  switch (kind) {
    case StatsKind::kFloat: {
      float f;
      std::memcpy(&f, p, 4);
      return std::isnan(f);
    }
    case StatsKind::kDouble: {
      double d;
      std::memcpy(&d, p, 8);
      return std::isnan(d);
    }
    case StatsKind::kFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    }
    default:
      return false;
  }
}

}  // namespace

int CompareStatValues(StatsKind kind, std::string_view a, std::string_view b) {
  switch (kind) {
    case StatsKind::kNone:
      return 0;
    case StatsKind::kBool:
      return Cmp(Load<uint8_t>(a) != 0, Load<uint8_t>(b) != 0);
    case StatsKind::kInt32:
      return Cmp(Load<int32_t>(a), Load<int32_t>(b));
    case StatsKind::kUInt32:
      return Cmp(Load<uint32_t>(a), Load<uint32_t>(b));
    case StatsKind::kInt64:
      return Cmp(Load<int64_t>(a), Load<int64_t>(b));
    case StatsKind::kUInt64:
      return Cmp(Load<uint64_t>(a), Load<uint64_t>(b));
    case StatsKind::kFloat:
      return Cmp(Load<float>(a), Load<float>(b));
    case StatsKind::kDouble:
      return Cmp(Load<double>(a), Load<double>(b));
    case StatsKind::kFloat16:
      return Cmp(HalfToFloat(Load<uint16_t>(a)), HalfToFloat(Load<uint16_t>(b)));
    case StatsKind::kBytesUnsigned:
      return CompareUnsignedBytes(a, b);
    case StatsKind::kBytesSigned:
      return CompareSignedBytes(a, b);
  }
  return 0;
}

template <typename T, bool kIsFloat>
void StatsAccumulator::UpdateTyped(const uint8_t* values, int64_t n) {
  T lo{}, hi{};
  bool have = false;
  if (has_min_max_) {
    std::memcpy(&lo, min_.data(), sizeof(T));
    std::memcpy(&hi, max_.data(), sizeof(T));
    have = true;
  }
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, values + i * sizeof(T), sizeof(T));
    if constexpr (kIsFloat) {
      if (std::isnan(v)) continue;
    }
    if (!have) {
      lo = hi = v;
      have = true;
    } else {
      if (v < lo) lo = v;
      if (hi < v) hi = v;
    }
  }
  if (have) {
    min_.assign(reinterpret_cast<const char*>(&lo), sizeof(T));
    max_.assign(reinterpret_cast<const char*>(&hi), sizeof(T));
    has_min_max_ = true;
  }
}

void StatsAccumulator::UpdateBytes(std::string_view v) {
  if (!has_min_max_) {
    min_.assign(v);
    max_.assign(v);
    has_min_max_ = true;
    return;
  }
  if (CompareStatValues(kind_, v, min_) < 0) min_.assign(v);
  if (CompareStatValues(kind_, v, max_) > 0) max_.assign(v);
}

void StatsAccumulator::UpdateFixed(const uint8_t* values, int64_t n) {
  num_values_ += n;
  switch (kind_) {
    case StatsKind::kNone:
      return;
    case StatsKind::kBool:
      return UpdateTyped<uint8_t, false>(values, n);
    case StatsKind::kInt32:
      return UpdateTyped<int32_t, false>(values, n);
    case StatsKind::kUInt32:
      return UpdateTyped<uint32_t, false>(values, n);
    case StatsKind::kInt64:
      return UpdateTyped<int64_t, false>(values, n);
    case StatsKind::kUInt64:
      return UpdateTyped<uint64_t, false>(values, n);
    case StatsKind::kFloat:
      return UpdateTyped<float, true>(values, n);
    case StatsKind::kDouble:
      return UpdateTyped<double, true>(values, n);
    case StatsKind::kFloat16:
    case StatsKind::kBytesUnsigned:
    case StatsKind::kBytesSigned:
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t* p = values + i * type_length_;
        if (IsNaN(kind_, p)) continue;
        UpdateBytes(std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(type_length_)));
      }
      return;
  }
}

void StatsAccumulator::UpdateBinary(const int32_t* offsets, const uint8_t* data, int64_t n) {
  num_values_ += n;
  if (kind_ == StatsKind::kNone || n == 0) return;
  if (kind_ == StatsKind::kBytesUnsigned) {
    // Track the extremes as views first, copying only once per batch.
    std::string_view lo, hi;
    bool have = false;
    for (int64_t i = 0; i < n; ++i) {
      std::string_view v(reinterpret_cast<const char*>(data) + offsets[i],
                         static_cast<size_t>(offsets[i + 1] - offsets[i]));
      if (!have) {
        lo = hi = v;
        have = true;
      } else {
        if (CompareUnsignedBytes(v, lo) < 0) lo = v;
        if (CompareUnsignedBytes(v, hi) > 0) hi = v;
      }
    }
    UpdateBytes(lo);
    UpdateBytes(hi);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    UpdateBytes(std::string_view(reinterpret_cast<const char*>(data) + offsets[i],
                                 static_cast<size_t>(offsets[i + 1] - offsets[i])));
  }
}

void StatsAccumulator::Merge(const StatsAccumulator& other) {
  null_count_ += other.null_count_;
  num_values_ += other.num_values_;
  if (!other.has_min_max_) return;
  if (!has_min_max_) {
    min_ = other.min_;
    max_ = other.max_;
    has_min_max_ = true;
    return;
  }
  if (CompareStatValues(kind_, other.min_, min_) < 0) min_ = other.min_;
  if (CompareStatValues(kind_, other.max_, max_) > 0) max_ = other.max_;
}

void StatsAccumulator::Reset() {
  has_min_max_ = false;
  min_.clear();
  max_.clear();
  null_count_ = 0;
  num_values_ = 0;
}

std::string StatsAccumulator::EncodedMin() const {
  // A zero minimum is written as -0 so that readers filtering on min never skip a -0 value.
  if (kind_ == StatsKind::kFloat && Load<float>(min_) == 0.0f) {
    const float z = -0.0f;
    return std::string(reinterpret_cast<const char*>(&z), 4);
  }
  if (kind_ == StatsKind::kDouble && Load<double>(min_) == 0.0) {
    const double z = -0.0;
    return std::string(reinterpret_cast<const char*>(&z), 8);
  }
  if (kind_ == StatsKind::kFloat16 && (Load<uint16_t>(min_) & 0x7fff) == 0) return std::string("\x00\x80", 2);
  return min_;
}

std::string StatsAccumulator::EncodedMax() const {
  if (kind_ == StatsKind::kFloat && Load<float>(max_) == 0.0f) return std::string(4, '\0');
  if (kind_ == StatsKind::kDouble && Load<double>(max_) == 0.0) return std::string(8, '\0');
  if (kind_ == StatsKind::kFloat16 && (Load<uint16_t>(max_) & 0x7fff) == 0) return std::string(2, '\0');
  return max_;
}

Statistics StatsAccumulator::ToThrift(int64_t max_bytes) const {
  Statistics s;
  s.null_count = null_count_;
  if (has_min_max_ && static_cast<int64_t>(min_.size()) <= max_bytes &&
      static_cast<int64_t>(max_.size()) <= max_bytes) {
    s.min_value = EncodedMin();
    s.max_value = EncodedMax();
    s.is_min_value_exact = true;
    s.is_max_value_exact = true;
  }
  return s;
}

std::string TruncateLowerBound(std::string_view value, size_t max_bytes) {
  return std::string(value.substr(0, std::min(value.size(), max_bytes)));
}

std::optional<std::string> TruncateUpperBound(std::string_view value, size_t max_bytes) {
  if (value.size() <= max_bytes) return std::string(value);
  std::string p(value.substr(0, max_bytes));
  while (!p.empty()) {
    auto& last = reinterpret_cast<uint8_t&>(p.back());
    if (last != 0xff) {
      ++last;
      return p;
    }
    p.pop_back();
  }
  return std::nullopt;
}

}  // namespace rap::parquet
