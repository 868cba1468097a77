// rap-netsim configuration: the transport profile (latency, shared throughput) and its parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rap/util/result.h"

namespace rap::netsim {

struct TransportProfile {
  double latency_seconds = 0;       // added before the first response byte of every counted request
  uint64_t throughput_bps = 0;      // bytes per second shared by all responses; 0 = unlimited
};

// "128MiB/s", "4MiB" (per second implied), "1.5GB/s", "0", "unlimited", "inf". Returns bytes per second (0 = unlimited).
Result<uint64_t> ParseThroughput(std::string_view text);
// "50ms", "0.1s", "0". Rejects negative values.
Result<double> ParseLatency(std::string_view text);
// "128.00 MiB/s" or "unlimited".
std::string FormatThroughput(uint64_t bytes_per_second);

}  // namespace rap::netsim
