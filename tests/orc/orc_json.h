// Prints rap arrays the way Apache ORC's orc-contents tool (ColumnPrinter) prints rows, so that
// the example files' expected JSON lines (../shared/orc/examples/expected) compare as text.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "rap/columnar/array.h"

namespace rap::orc::testing {

inline std::string OrcQuote(const char* p, size_t n) {
  std::string s = "\"";
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    switch (c) {
      case '"':
        s += "\\\"";
        break;
      case '\\':
        s += "\\\\";
        break;
      case '\b':
        s += "\\b";
        break;
      case '\f':
        s += "\\f";
        break;
      case '\n':
        s += "\\n";
        break;
      case '\r':
        s += "\\r";
        break;
      case '\t':
        s += "\\t";
        break;
      default:
        s += c;
    }
  }
  return s + "\"";
}

inline std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

inline std::string Decimal(__int128 v, int scale) {
  std::string digits = Int128ToString(v < 0 ? -v : v);
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale))
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return (v < 0 ? "-" : "") + digits;
}

// Days since 1970-01-01 as "YYYY-MM-DD" (proleptic Gregorian; eras of 400 years).
inline std::string Days(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2);
  char buf[96];
  snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld", static_cast<long long>(y), static_cast<long long>(m),
           static_cast<long long>(d));
  return buf;
}

inline std::string Timestamp(int64_t ns) {
  int64_t secs = ns / 1000000000, frac = ns % 1000000000;
  if (frac < 0) {
    frac += 1000000000;
    secs -= 1;
  }
  int64_t days = secs / 86400, rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  char buf[64];
  snprintf(buf, sizeof buf, " %02d:%02d:%02d.%09lld", static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
           static_cast<int>(rem % 60), static_cast<long long>(frac));
  std::string s = Days(days) + buf;
  while (s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return "\"" + s + "\"";
}

inline std::string OrcJson(const ArrayData& a, int64_t i) {
  if (a.IsNull(i)) return "null";
  const int64_t j = i + a.offset;
  switch (a.type->id) {
    case TypeId::kBool:
      return ((a.buffers[1].data()[j >> 3] >> (j & 7)) & 1) ? "true" : "false";
    case TypeId::kInt8:
      return std::to_string(a.values<int8_t>()[i]);
    case TypeId::kInt16:
      return std::to_string(a.values<int16_t>()[i]);
    case TypeId::kInt32:
      return std::to_string(a.values<int32_t>()[i]);
    case TypeId::kInt64:
      return std::to_string(a.values<int64_t>()[i]);
    case TypeId::kFloat32: {  // orc-contents prints floats with 7 significant digits
      char buf[32];
      snprintf(buf, sizeof buf, "%.7g", static_cast<double>(a.values<float>()[i]));
      return buf;
    }
    case TypeId::kFloat64: {  // and doubles with 14
      char buf[40];
      snprintf(buf, sizeof buf, "%.14g", a.values<double>()[i]);
      return buf;
    }
    case TypeId::kDate32:
      return "\"" + Days(a.values<int32_t>()[i]) + "\"";
    case TypeId::kTimestamp:
      return Timestamp(a.values<int64_t>()[i]);
    case TypeId::kDecimal128: {
      __int128 v;
      std::memcpy(&v, a.buffers[1].data() + j * 16, 16);
      return Decimal(v, a.type->scale);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* off = a.offsets();
      const char* data = reinterpret_cast<const char*>(a.buffers[2].data());
      if (a.type->id == TypeId::kString) return OrcQuote(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
      std::string s = "[";
      for (int32_t k = off[i]; k < off[i + 1]; ++k) {
        if (k > off[i]) s += ", ";
        s += std::to_string(static_cast<uint8_t>(data[k]));
      }
      return s + "]";
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const int32_t* off = a.offsets();
      const ArrayData& child = *a.children[0];
      std::string s = "[";
      for (int32_t k = off[i]; k < off[i + 1]; ++k) {
        if (k > off[i]) s += ", ";
        if (a.type->id == TypeId::kMap) {
          s += "{\"key\": " + OrcJson(*child.children[0], k) + ", \"value\": " + OrcJson(*child.children[1], k) + "}";
        } else {
          s += OrcJson(child, k);
        }
      }
      return s + "]";
    }
    case TypeId::kStruct: {
      std::string s = "{";
      for (size_t f = 0; f < a.children.size(); ++f) {
        if (f) s += ", ";
        s += OrcQuote(a.type->children[f].name.data(), a.type->children[f].name.size()) + ": " +
             OrcJson(*a.children[f], i);
      }
      return s + "}";
    }
    default:
      return "?";
  }
}

// One row of a batch as orc-contents prints it (`root_is_struct`: a struct row; else the value).
inline std::string OrcRowJson(const RecordBatch& b, int64_t row, bool root_is_struct) {
  if (!root_is_struct) return OrcJson(*b.columns.at(0), row);
  std::string s = "{";
  for (size_t f = 0; f < b.columns.size(); ++f) {
    if (f) s += ", ";
    const std::string& name = b.schema->fields[f].name;
    s += OrcQuote(name.data(), name.size()) + ": " + OrcJson(*b.columns[f], row);
  }
  return s + "}";
}

}  // namespace rap::orc::testing
