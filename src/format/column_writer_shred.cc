// Arrow arrays -> definition/repetition levels and physical values of one leaf column (the Dremel
// "shredding" of nested data, with the 3-level LIST and MAP structures of the Parquet spec).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "format/column_writer.h"

namespace rap::parquet::internal {
namespace {

class Shredder {
 public:
  Shredder(const LeafColumn& leaf, LeafBatch* out) : leaf_(leaf), out_(out) {}

  // Walks element i of `arr`, which sits at path step k.
  Status Walk(size_t k, const ArrayData& arr, int64_t i, int16_t rep) {
    const PathStep& s = leaf_.steps[k];
    if (arr.IsNull(i)) {
      if (!s.nullable) {
        return Status::InvalidArgument(
            fmt::format("column {}: null in non-nullable field at row {}", leaf_.dotted, row_));
      }
      Emit(static_cast<int16_t>(s.def_present - 1), rep);
      return Status::OK();
    }
    switch (s.kind) {
      case PathStep::Kind::kLeaf:
        leaf_array_ = &arr;
        slots_.push_back(i);
        Emit(leaf_.max_def, rep);
        return Status::OK();
      case PathStep::Kind::kStruct: {
        if (static_cast<size_t>(s.child_index) >= arr.children.size() || !arr.children[s.child_index]) {
          return Status::InvalidArgument(
              fmt::format("column {}: struct array misses child {}", leaf_.dotted, s.child_index));
        }
        return Walk(k + 1, *arr.children[s.child_index], arr.offset + i, rep);
      }
      case PathStep::Kind::kList: {
        if (arr.children.empty() || !arr.children[0]) {
          return Status::InvalidArgument(fmt::format("column {}: list/map array has no child", leaf_.dotted));
        }
        const int32_t* offs = arr.offsets();
        const int64_t begin = offs[i], end = offs[i + 1];
        if (begin == end) {
          Emit(s.def_present, rep);
          return Status::OK();
        }
        const ArrayData& child = *arr.children[0];
        for (int64_t j = begin; j < end; ++j) {
          RAP_RETURN_NOT_OK(Walk(k + 1, child, j, j == begin ? rep : s.rep_level));
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }

  Status Run(const ArrayData& top, int64_t row_begin, int64_t row_end) {
    const int64_t n = row_end - row_begin;
    out_->row_value_start.reserve(n + 1);
    if (leaf_.max_rep > 0) out_->row_level_start.reserve(n + 1);
    for (int64_t r = row_begin; r < row_end; ++r) {
      row_ = r;
      out_->row_value_start.push_back(static_cast<int64_t>(slots_.size()));
      if (leaf_.max_rep > 0) out_->row_level_start.push_back(out_->num_levels);
      RAP_RETURN_NOT_OK(Walk(0, top, r, 0));
    }
    out_->row_value_start.push_back(static_cast<int64_t>(slots_.size()));
    if (leaf_.max_rep > 0) out_->row_level_start.push_back(out_->num_levels);
    return Status::OK();
  }

  void Emit(int16_t def, int16_t rep) {
    if (leaf_.max_def > 0) out_->def.push_back(def);
    if (leaf_.max_rep > 0) out_->rep.push_back(rep);
    ++out_->num_levels;
  }

  const ArrayData* leaf_array() const { return leaf_array_; }
  std::vector<int64_t>& slots() { return slots_; }

 private:
  const LeafColumn& leaf_;
  LeafBatch* out_;
  const ArrayData* leaf_array_ = nullptr;
  std::vector<int64_t> slots_;
  int64_t row_ = 0;
};

// The levels of a leaf below one list and only structs (list<primitive>, list<struct<...>>: the
// index's covering records, co-grouped columns) in one pass over the list's offsets, when no struct
// on the path has nulls in the batch (the list itself and the leaf may). Shredder::Walk recurses per
// element and pushes one level at a time: for the index fragments' cover column (2 M entries of 6
// records, 8 leaves) it was a third of `rap index build --cover`'s writing time. Returns false
// (nothing written) when the shape does not qualify.
// True when `a` has no null in it (no validity bitmap, or a known null count of 0).
bool NoNulls(const ArrayData& a) { return a.buffers.empty() || a.buffers[0].empty() || a.null_count == 0; }

bool ShredOneList(const LeafColumn& leaf, const ArrayData& top, int64_t row_begin, int64_t row_end, LeafBatch* out,
                  std::vector<int64_t>* slots, const ArrayData** leaf_array, Status* st) {
  const std::vector<PathStep>& steps = leaf.steps;
  if (steps.size() < 2 || steps[0].kind != PathStep::Kind::kList || steps.back().kind != PathStep::Kind::kLeaf) {
    return false;
  }
  if (top.children.empty() || !top.children[0] || top.buffers.size() < 2) return false;
  const ArrayData* arr = top.children[0].get();
  int64_t shift = 0;  // leaf index = list child index + the structs' offsets
  for (size_t k = 1; k + 1 < steps.size(); ++k) {
    if (steps[k].kind != PathStep::Kind::kStruct) return false;
    if (!NoNulls(*arr) || (arr->type && arr->type->id == TypeId::kNull)) return false;
    const auto c = static_cast<size_t>(steps[k].child_index);
    if (c >= arr->children.size() || !arr->children[c]) return false;
    shift += arr->offset;
    arr = arr->children[c].get();
  }
  if (arr->type && arr->type->id == TypeId::kNull) return false;
  const PathStep& list = steps[0];
  const PathStep& last = steps.back();
  const bool leaf_nulls = !NoNulls(*arr);
  const int32_t* offs = top.offsets();
  const int64_t n = row_end - row_begin;
  const int64_t elements = offs[row_end] - offs[row_begin];
  const size_t levels = static_cast<size_t>(std::max<int64_t>(elements, 0) + n);  // an upper bound
  if (leaf.max_def > 0) out->def.reserve(levels);
  out->rep.reserve(levels);
  slots->reserve(static_cast<size_t>(std::max<int64_t>(elements, 0)));
  out->row_value_start.resize(static_cast<size_t>(n + 1));
  out->row_level_start.resize(static_cast<size_t>(n + 1));
  auto emit = [&](int16_t def, int16_t rep) {
    if (leaf.max_def > 0) out->def.push_back(def);
    out->rep.push_back(rep);
  };
  for (int64_t r = row_begin; r < row_end; ++r) {
    out->row_value_start[static_cast<size_t>(r - row_begin)] = static_cast<int64_t>(slots->size());
    out->row_level_start[static_cast<size_t>(r - row_begin)] = static_cast<int64_t>(out->rep.size());
    if (top.IsNull(r)) {
      if (!list.nullable) {
        *st = Status::InvalidArgument(fmt::format("column {}: null in non-nullable field at row {}", leaf.dotted, r));
        return true;
      }
      emit(static_cast<int16_t>(list.def_present - 1), 0);
      continue;
    }
    const int64_t b = offs[r], e = offs[r + 1];
    if (b == e) {
      emit(list.def_present, 0);
      continue;
    }
    for (int64_t j = b; j < e; ++j) {
      const int16_t rep = j == b ? 0 : list.rep_level;
      const int64_t i = j + shift;
      if (leaf_nulls && arr->IsNull(i)) {
        if (!last.nullable) {
          *st = Status::InvalidArgument(fmt::format("column {}: null in non-nullable field at row {}", leaf.dotted, r));
          return true;
        }
        emit(static_cast<int16_t>(last.def_present - 1), rep);
      } else {
        emit(leaf.max_def, rep);
        slots->push_back(i);
      }
    }
  }
  out->row_value_start[static_cast<size_t>(n)] = static_cast<int64_t>(slots->size());
  out->row_level_start[static_cast<size_t>(n)] = static_cast<int64_t>(out->rep.size());
  out->num_levels = static_cast<int64_t>(out->rep.size());
  *leaf_array = arr;
  return true;
}

int PhysicalOutWidth(const LeafColumn& leaf) {
  switch (leaf.physical) {
    case Type::BOOLEAN:
      return 1;
    case Type::INT32:
    case Type::FLOAT:
      return 4;
    case Type::INT64:
    case Type::DOUBLE:
      return 8;
    case Type::INT96:
      return 12;
    case Type::FIXED_LEN_BYTE_ARRAY:
      return leaf.type_length;
    case Type::BYTE_ARRAY:
      return -1;
  }
  return -1;
}

// Converts the leaf values at `slots` (logical indices into `arr`) to the physical representation.
// `slot_at(j)` gives the j-th slot.
// BYTE_ARRAY values: the slots' bytes copied into one owned buffer with fresh offsets.
template <typename SlotAt>
Status ConvertBinary(const LeafColumn& leaf, const ArrayData& arr, int64_t n, SlotAt slot_at, LeafBatch* out) {
  const int32_t* offs = arr.offsets();
  const uint8_t* data = arr.buffers.size() > 2 ? arr.buffers[2].data() : nullptr;
  out->owned_offsets.resize(n + 1);
  int64_t total = 0;
  for (int64_t j = 0; j < n; ++j) total += offs[slot_at(j) + 1] - offs[slot_at(j)];
  if (total > INT32_MAX) {
    return Status::InvalidArgument(
        fmt::format("column {}: {} bytes of binary values in one slice exceed 2 GiB", leaf.dotted, total));
  }
  out->owned_data.resize(static_cast<size_t>(total));
  int32_t pos = 0;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t s = slot_at(j);
    const int32_t len = offs[s + 1] - offs[s];
    out->owned_offsets[j] = pos;
    if (len > 0) std::memcpy(out->owned_data.data() + pos, data + offs[s], static_cast<size_t>(len));
    pos += len;
  }
  out->owned_offsets[n] = pos;
  out->offsets = out->owned_offsets.data();
  out->data = out->owned_data.data();
  return Status::OK();
}

// Timestamps in any unit to INT96: nanoseconds of the day then the Julian day, little-endian.
template <typename SlotAt>
Status ConvertToInt96(const LeafColumn& leaf, const uint8_t* src, int64_t n, SlotAt slot_at, uint8_t* dst) {
  __int128 mult = 1;
  switch (leaf.source_unit) {  // rap::TimeUnit
    case rap::TimeUnit::kSecond:
      mult = 1'000'000'000;
      break;
    case rap::TimeUnit::kMilli:
      mult = 1'000'000;
      break;
    case rap::TimeUnit::kMicro:
      mult = 1'000;
      break;
    case rap::TimeUnit::kNano:
      mult = 1;
      break;
  }
  constexpr int64_t kNanosPerDay = 86'400'000'000'000LL;
  for (int64_t j = 0; j < n; ++j) {
    int64_t v;
    std::memcpy(&v, src + slot_at(j) * 8, 8);
    const __int128 nanos = static_cast<__int128>(v) * mult;
    __int128 days = nanos / kNanosPerDay;
    __int128 rem = nanos % kNanosPerDay;
    if (rem < 0) {
      rem += kNanosPerDay;
      --days;
    }
    const int64_t nod = static_cast<int64_t>(rem);
    const int64_t julian = static_cast<int64_t>(days) + 2'440'588;
    if (julian < INT32_MIN || julian > INT32_MAX) {
      return Status::InvalidArgument(fmt::format("column {}: timestamp {} out of INT96 range", leaf.dotted, v));
    }
    const int32_t jd = static_cast<int32_t>(julian);
    std::memcpy(dst + j * 12, &nod, 8);
    std::memcpy(dst + j * 12 + 8, &jd, 4);
  }
  return Status::OK();
}

template <typename SlotAt>
Status ConvertValues(const LeafColumn& leaf, const ArrayData& arr, int64_t n, SlotAt slot_at, LeafBatch* out) {
  out->num_values = n;
  if (leaf.conversion == ValueConversion::kBinary) return ConvertBinary(leaf, arr, n, slot_at, out);
  const int width = PhysicalOutWidth(leaf);
  out->owned_fixed.resize(static_cast<size_t>(n) * width);
  uint8_t* dst = out->owned_fixed.data();
  out->fixed = dst;
  if (leaf.conversion == ValueConversion::kNull) return Status::OK();
  if (leaf.conversion == ValueConversion::kBool) {
    const uint8_t* bits = arr.buffers[1].data();
    for (int64_t j = 0; j < n; ++j) {
      const int64_t b = arr.offset + slot_at(j);
      dst[j] = (bits[b >> 3] >> (b & 7)) & 1;
    }
    return Status::OK();
  }
  const int sw = leaf.source_width;
  const uint8_t* src = arr.buffers[1].data() + arr.offset * sw;
  switch (leaf.conversion) {
    case ValueConversion::kCopy:
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * width, src + slot_at(j) * sw, static_cast<size_t>(width));
      break;
    case ValueConversion::kInt8:
    case ValueConversion::kInt16:
    case ValueConversion::kUInt8:
    case ValueConversion::kUInt16:
      for (int64_t j = 0; j < n; ++j) {
        const uint8_t* p = src + slot_at(j) * sw;
        int32_t v;
        switch (leaf.conversion) {
          case ValueConversion::kInt8:
            v = static_cast<int8_t>(*p);
            break;
          case ValueConversion::kUInt8:
            v = *p;
            break;
          case ValueConversion::kInt16: {
            int16_t x;
            std::memcpy(&x, p, 2);
            v = x;
            break;
          }
          default: {
            uint16_t x;
            std::memcpy(&x, p, 2);
            v = x;
            break;
          }
        }
        std::memcpy(dst + j * 4, &v, 4);
      }
      break;
    case ValueConversion::kSecondsToMillis32:
      for (int64_t j = 0; j < n; ++j) {
        int32_t v;
        std::memcpy(&v, src + slot_at(j) * 4, 4);
        if (v > INT32_MAX / 1000 || v < INT32_MIN / 1000) {
          return Status::InvalidArgument(
              fmt::format("column {}: time32[s] value {} overflows milliseconds", leaf.dotted, v));
        }
        v *= 1000;
        std::memcpy(dst + j * 4, &v, 4);
      }
      break;
    case ValueConversion::kSecondsToMillis64:
      for (int64_t j = 0; j < n; ++j) {
        int64_t v;
        std::memcpy(&v, src + slot_at(j) * 8, 8);
        if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000) {
          return Status::InvalidArgument(
              fmt::format("column {}: timestamp[s] value {} overflows milliseconds", leaf.dotted, v));
        }
        v *= 1000;
        std::memcpy(dst + j * 8, &v, 8);
      }
      break;
    case ValueConversion::kTimestampToInt96:
      return ConvertToInt96(leaf, src, n, slot_at, dst);
    case ValueConversion::kDecimalToInt32:
    case ValueConversion::kDecimalToInt64:
      // Precision <= 9 (18) guarantees the value fits: the low 4 (8) little-endian bytes.
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * width, src + slot_at(j) * 16, static_cast<size_t>(width));
      break;
    case ValueConversion::kDecimalToFlba:
      // Big-endian two's complement, the low type_length bytes of the 16-byte little-endian value.
      for (int64_t j = 0; j < n; ++j) {
        const uint8_t* p = src + slot_at(j) * 16;
        for (int b = 0; b < width; ++b) dst[j * width + b] = p[width - 1 - b];
      }
      break;
    default:
      return Status::Internal("column " + leaf.dotted + ": unexpected value conversion");
  }
  return Status::OK();
}

}  // namespace

namespace {
// The values at `slots` of `leaf_array` (the leaf array the levels were shredded from) to `out`.
Status ConvertSlots(const LeafColumn& leaf, const ArrayData* leaf_array, const std::vector<int64_t>& slots,
                    LeafBatch* out) {
  if (slots.empty() || leaf_array == nullptr) {
    out->num_values = 0;
    if (leaf.conversion == ValueConversion::kBinary) {
      out->owned_offsets.assign(1, 0);
      out->offsets = out->owned_offsets.data();
    }
    return Status::OK();
  }
  return ConvertValues(
      leaf, *leaf_array, static_cast<int64_t>(slots.size()), [&](int64_t j) { return slots[j]; }, out);
}
}  // namespace

Status ShredLeaf(const LeafColumn& leaf, const ArrayData& top, int64_t row_begin, int64_t row_end, LeafBatch* out) {
  *out = LeafBatch();
  out->num_rows = row_end - row_begin;
  const bool flat = leaf.steps.size() == 1;
  if (flat) {
    // Fast path: one level entry per row.
    const bool has_validity = !top.buffers.empty() && !top.buffers[0].empty();
    const bool all_null = top.type && top.type->id == TypeId::kNull;
    out->num_levels = out->num_rows;
    if (!has_validity && !all_null) {
      if (leaf.max_def > 0) out->def.assign(static_cast<size_t>(out->num_rows), leaf.max_def);
      out->row_value_start.resize(out->num_rows + 1);
      for (int64_t r = 0; r <= out->num_rows; ++r) out->row_value_start[r] = r;
      out->num_values = out->num_rows;
      // Zero-copy when the Arrow values already are the physical values.
      if (leaf.conversion == ValueConversion::kCopy && leaf.source_width == PhysicalOutWidth(leaf)) {
        out->fixed = top.buffers[1].data() + (top.offset + row_begin) * leaf.source_width;
        return Status::OK();
      }
      if (leaf.conversion == ValueConversion::kBinary) {
        out->offsets = top.offsets() + row_begin;
        out->data = top.buffers.size() > 2 ? top.buffers[2].data() : nullptr;
        return Status::OK();
      }
      return ConvertValues(
          leaf, top, out->num_rows, [&](int64_t j) { return row_begin + j; }, out);
    }
    if (!leaf.steps[0].nullable) {
      for (int64_t r = row_begin; r < row_end; ++r) {
        if (top.IsNull(r)) {
          return Status::InvalidArgument(
              fmt::format("column {}: null in non-nullable field at row {}", leaf.dotted, r));
        }
      }
    }
    std::vector<int64_t> slots;
    slots.reserve(static_cast<size_t>(out->num_rows));
    out->def.resize(static_cast<size_t>(out->num_rows));
    out->row_value_start.resize(out->num_rows + 1);
    for (int64_t r = row_begin; r < row_end; ++r) {
      out->row_value_start[r - row_begin] = static_cast<int64_t>(slots.size());
      const bool valid = !top.IsNull(r);
      out->def[r - row_begin] = valid ? leaf.max_def : 0;
      if (valid) slots.push_back(r);
    }
    out->row_value_start[out->num_rows] = static_cast<int64_t>(slots.size());
    return ConvertValues(
        leaf, top, static_cast<int64_t>(slots.size()), [&](int64_t j) { return slots[j]; }, out);
  }
  std::vector<int64_t> list_slots;
  const ArrayData* list_leaf = nullptr;
  Status st;
  if (ShredOneList(leaf, top, row_begin, row_end, out, &list_slots, &list_leaf, &st)) {
    RAP_RETURN_NOT_OK(st);
    return ConvertSlots(leaf, list_leaf, list_slots, out);
  }
  Shredder s(leaf, out);
  RAP_RETURN_NOT_OK(s.Run(top, row_begin, row_end));
  return ConvertSlots(leaf, s.leaf_array(), s.slots(), out);
}

}  // namespace rap::parquet::internal
