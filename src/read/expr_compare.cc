#include "read/expr_compare.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

namespace rap::read::internal {
namespace {

// out[i] = v[i] op l, for a native type T; the loops are branch-free so the compiler vectorises them.
template <typename T>
void Loop(const T* v, int64_t n, CompareOp op, T l, uint8_t* out) {
  switch (op) {
    case CompareOp::kEq: for (int64_t i = 0; i < n; ++i) out[i] = v[i] == l; break;
    case CompareOp::kNe: for (int64_t i = 0; i < n; ++i) out[i] = v[i] != l; break;
    case CompareOp::kLt: for (int64_t i = 0; i < n; ++i) out[i] = v[i] < l; break;
    case CompareOp::kLe: for (int64_t i = 0; i < n; ++i) out[i] = v[i] <= l; break;
    case CompareOp::kGt: for (int64_t i = 0; i < n; ++i) out[i] = v[i] > l; break;
    case CompareOp::kGe: for (int64_t i = 0; i < n; ++i) out[i] = v[i] >= l; break;
  }
}

// Integers: only when the literal is representable in T (else the generic path decides).
template <typename T>
bool IntLoop(const ArrayData& a, CompareOp op, const Value& lit, uint8_t* out) {
  if (lit.domain != Value::Domain::kInt) return false;
  if (lit.i < static_cast<__int128>(std::numeric_limits<T>::min()) ||
      lit.i > static_cast<__int128>(std::numeric_limits<T>::max())) {
    return false;
  }
  Loop<T>(a.values<T>(), a.length, op, static_cast<T>(lit.i), out);
  return true;
}

// Strings: = and != compare the length first, then the bytes (short literals inline, no memcmp call).
bool StringEquality(const ArrayData& a, CompareOp op, const Value& lit, uint8_t* out) {
  if (lit.domain != Value::Domain::kString || (op != CompareOp::kEq && op != CompareOp::kNe)) return false;
  const int32_t* off = a.offsets();
  const char* data = reinterpret_cast<const char*>(a.buffers[2].data());
  const char* s = lit.s.data();
  const size_t len = lit.s.size();
  const uint8_t hit = op == CompareOp::kEq ? 1 : 0;
  for (int64_t i = 0; i < a.length; ++i) {
    const char* p = data + off[i];
    bool same = static_cast<size_t>(off[i + 1] - off[i]) == len;
    if (same) {
      if (len <= 16) {
        for (size_t k = 0; k < len && same; ++k) same = p[k] == s[k];
      } else {
        same = std::memcmp(p, s, len) == 0;
      }
    }
    out[i] = same ? hit : static_cast<uint8_t>(1 - hit);
  }
  return true;
}

}  // namespace

bool CompareFast(const ArrayData& a, CompareOp op, const Value& lit, uint8_t* out) {
  switch (a.type->id) {
    case TypeId::kInt8: return IntLoop<int8_t>(a, op, lit, out);
    case TypeId::kInt16: return IntLoop<int16_t>(a, op, lit, out);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return IntLoop<int32_t>(a, op, lit, out);
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: return IntLoop<int64_t>(a, op, lit, out);
    case TypeId::kUInt8: return IntLoop<uint8_t>(a, op, lit, out);
    case TypeId::kUInt16: return IntLoop<uint16_t>(a, op, lit, out);
    case TypeId::kUInt32: return IntLoop<uint32_t>(a, op, lit, out);
    case TypeId::kUInt64: return IntLoop<uint64_t>(a, op, lit, out);
    case TypeId::kFloat64:
      // IEEE comparisons give what the generic path gives for NaN values (only != is true), but not
      // for a NaN literal (which the generic three-way compare treats as equal to everything).
      if (lit.domain != Value::Domain::kDouble || std::isnan(lit.d)) return false;
      Loop<double>(a.values<double>(), a.length, op, lit.d, out);
      return true;
    case TypeId::kString:
    case TypeId::kBinary: return StringEquality(a, op, lit, out);
    default: return false;
  }
}

}  // namespace rap::read::internal
