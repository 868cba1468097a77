// TakeArray (rap/columnar/take.h): gathers rows of an Arrow-layout array by index. The one gather
// kernel of rap: the scanner's late materialisation and dictionary filters, the index's lookups,
// sorting a table by key before writing a point-lookup layout (docs/layouts.md).
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "rap/columnar/take.h"

namespace rap::columnar {
namespace {

bool Bit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }

// `idx` are logical positions in `a` (a.offset not applied yet).
Result<ArrayPtr> Take(const ArrayData& a, std::span<const int64_t> idx) {
  const auto n = static_cast<int64_t>(idx.size());
  auto out = std::make_shared<ArrayData>();
  out->type = a.type;
  out->length = n;
  const TypeId id = a.type->id;
  if (id == TypeId::kNull) {
    out->null_count = n;
    return out;
  }
  out->buffers.emplace_back();
  if (!a.buffers.empty() && !a.buffers[0].empty()) {
    Buffer bm = Buffer::Allocate(static_cast<size_t>((n + 7) / 8));
    std::memset(bm.mutable_data(), 0, bm.size());
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (Bit(a.buffers[0].data(), a.offset + idx[i])) {
        SetBit(bm.mutable_data(), i);
      } else {
        ++nulls;
      }
    }
    out->null_count = nulls;
    out->buffers[0] = std::move(bm);
  }
  const int width = a.type->FixedWidth();
  if (id == TypeId::kBool) {
    Buffer v = Buffer::Allocate(static_cast<size_t>((n + 7) / 8));
    std::memset(v.mutable_data(), 0, v.size());
    for (int64_t i = 0; i < n; ++i) {
      if (Bit(a.buffers[1].data(), a.offset + idx[i])) SetBit(v.mutable_data(), i);
    }
    out->buffers.push_back(std::move(v));
  } else if (id == TypeId::kStruct) {
    std::vector<int64_t> shifted(idx.begin(), idx.end());
    for (auto& i : shifted) i += a.offset;
    for (const auto& child : a.children) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr c, Take(*child, shifted));
      out->children.push_back(std::move(c));
    }
  } else if (width >= 0) {
    Buffer v = Buffer::Allocate(static_cast<size_t>(n * width));
    const uint8_t* src = a.buffers[1].data() + a.offset * width;
    for (int64_t i = 0; i < n; ++i) std::memcpy(v.mutable_data() + i * width, src + idx[i] * width, width);
    out->buffers.push_back(std::move(v));
  } else {  // string/binary/list/map: offsets, then data or child rows
    const int32_t* o = a.offsets();
    Buffer offs = Buffer::Allocate(static_cast<size_t>((n + 1) * 4));
    auto* no = reinterpret_cast<int32_t*>(offs.mutable_data());
    no[0] = 0;
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      total += o[idx[i] + 1] - o[idx[i]];
      if (total > INT32_MAX) return Status::ResourceExhausted("TakeArray: result exceeds 2^31-1 offsets");
      no[i + 1] = static_cast<int32_t>(total);
    }
    out->buffers.push_back(std::move(offs));
    if (a.type->IsBinaryLike()) {
      Buffer d = Buffer::Allocate(static_cast<size_t>(total));
      for (int64_t i = 0; i < n; ++i) {
        const int32_t len = o[idx[i] + 1] - o[idx[i]];
        if (len) std::memcpy(d.mutable_data() + no[i], a.buffers[2].data() + o[idx[i]], static_cast<size_t>(len));
      }
      out->buffers.push_back(std::move(d));
    } else {
      std::vector<int64_t> child_idx;
      child_idx.reserve(static_cast<size_t>(total));
      for (int64_t i = 0; i < n; ++i) {
        for (int32_t j = o[idx[i]]; j < o[idx[i] + 1]; ++j) child_idx.push_back(j);
      }
      RAP_ASSIGN_OR_RETURN(ArrayPtr c, Take(*a.children[0], child_idx));
      out->children.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

Result<ArrayPtr> TakeArray(const ArrayData& array, std::span<const int64_t> indices) {
  if (!array.type) return Status::InvalidArgument("TakeArray: null array or type");
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= array.length) {
      return Status::InvalidArgument(fmt::format("TakeArray: index {} at position {} is outside the array of {} rows",
                                                 indices[i], i, array.length));
    }
  }
  return Take(array, indices);
}

Result<ArrayPtr> TakeArray(const ArrayPtr& array, std::span<const int64_t> indices) {
  if (!array) return Status::InvalidArgument("TakeArray: null array or type");
  return TakeArray(*array, indices);
}

Result<ArrayPtr> RepeatValue(const ArrayData& value, int64_t length) {
  if (value.length != 1) return Status::InvalidArgument("RepeatValue: expected a 1-row array");
  std::vector<int64_t> idx(static_cast<size_t>(length), 0);
  return TakeArray(value, idx);
}

}  // namespace rap::columnar
