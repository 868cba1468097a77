#include "netsim/config.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "rap/util/units.h"

namespace rap::netsim {

Result<uint64_t> ParseThroughput(std::string_view text) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "unlimited" || t == "inf" || t == "none") return uint64_t{0};
  std::string_view body = t;
  if (body.size() >= 2 && body.substr(body.size() - 2) == "/s") body.remove_suffix(2);
  if (body.empty()) return Status::InvalidArgument(fmt::format("throughput '{}': expected e.g. 128MiB/s or unlimited", text));
  auto bytes = ParseByteSize(body);
  if (!bytes.ok()) {
    return Status::InvalidArgument(fmt::format("throughput '{}': {} (expected e.g. 128MiB/s or unlimited)", text,
                                               bytes.status().message()));
  }
  return *bytes;
}

Result<double> ParseLatency(std::string_view text) {
  RAP_ASSIGN_OR_RETURN(double seconds, ParseDuration(text));
  if (!(seconds >= 0) || seconds > 3600) {
    return Status::InvalidArgument(fmt::format("latency '{}': expected a duration between 0 and 1h", text));
  }
  return seconds;
}

std::string FormatThroughput(uint64_t bytes_per_second) {
  if (bytes_per_second == 0) return "unlimited";
  return FormatBytes(bytes_per_second) + "/s";
}

}  // namespace rap::netsim
