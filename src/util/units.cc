#include "rap/util/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace rap {
namespace {

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Splits "1.5MiB" into 1.5 and "mib".
bool SplitNumber(std::string_view text, double* number, std::string* unit) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return false;
  std::string num(text.substr(0, i));
  char* end = nullptr;
  *number = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return false;
  std::string_view rest = text.substr(i);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  *unit = Lower(rest);
  return true;
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!SplitNumber(text, &n, &unit)) {
    return Status::InvalidArgument(fmt::format("byte size '{}': expected a number with an optional unit (B, KiB, MiB, GiB, KB, MB, GB)", text));
  }
  double mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kib") mult = 1024.0;
  else if (unit == "m" || unit == "mib") mult = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib") mult = 1024.0 * 1024 * 1024;
  else if (unit == "kb") mult = 1e3;
  else if (unit == "mb") mult = 1e6;
  else if (unit == "gb") mult = 1e9;
  else return Status::InvalidArgument(fmt::format("byte size '{}': unknown unit '{}'", text, unit));
  double v = n * mult;
  if (!(v >= 0) || v > 1.8e19) return Status::InvalidArgument(fmt::format("byte size '{}' is out of range", text));
  return static_cast<uint64_t>(std::llround(v));
}

Result<double> ParseDuration(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!SplitNumber(text, &n, &unit)) {
    return Status::InvalidArgument(fmt::format("duration '{}': expected a number with an optional unit (us, ms, s)", text));
  }
  if (unit.empty() || unit == "ms") return n / 1e3;
  if (unit == "s") return n;
  if (unit == "us") return n / 1e6;
  if (unit == "ns") return n / 1e9;
  return Status::InvalidArgument(fmt::format("duration '{}': unknown unit '{}'", text, unit));
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < kMiB) return fmt::format("{:.2f} KiB", bytes / 1024.0);
  if (bytes < kGiB) return fmt::format("{:.2f} MiB", bytes / double(kMiB));
  return fmt::format("{:.2f} GiB", bytes / double(kGiB));
}

}  // namespace rap
