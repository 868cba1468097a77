// Small Arrow-layout array builders for tests: fixed-width values and strings from optionals
// (std::nullopt = NULL; null_count is exact).
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/columnar/array_format.h"

namespace rap::testing {

template <typename T>
ArrayPtr Fixed(DataTypePtr type, const std::vector<std::optional<T>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = std::move(type);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  Buffer values = Buffer::Allocate(v.size() * sizeof(T));
  std::memset(values.mutable_data(), 0, values.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      std::memcpy(values.mutable_data() + i * sizeof(T), &*v[i], sizeof(T));
    } else {
      ++a->null_count;
    }
  }
  a->buffers = {validity, values};
  return a;
}

inline ArrayPtr Strings(const std::vector<std::optional<std::string>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kString);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  std::vector<int32_t> offsets{0};
  std::string data;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      data += *v[i];
    } else {
      ++a->null_count;
    }
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  a->buffers = {validity, Buffer::Copy(offsets.data(), offsets.size() * 4), Buffer::Copy(data)};
  return a;
}

// One row of a batch as text: every column's FormatValue followed by "|" (the row oracle of the
// scan, index and reliability tests).
inline std::string RowText(const RecordBatch& b, int64_t r) {
  std::string line;
  for (const ArrayPtr& c : b.columns) line += FormatValue(*c, r) + "|";
  return line;
}

}  // namespace rap::testing
