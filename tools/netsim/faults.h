// FaultInjector: failures rap-netsim injects into counted requests, for the fault tests of the
// object stores. A rule names a kind, an optional path filter (substring of the URL path), how many
// times it may fire (count, -1 = unlimited) and the probability it fires on a matching request.
//
// Kinds and what the client observes (latency is applied first in every case):
//   reset      the connection is closed with a TCP RST instead of a response
//   <code>     a 4xx/5xx status such as 503, 429 or 500, with "Retry-After: <retry_after>" for 503 and
//              429; the connection stays usable
//   truncate   headers announce the full length, the body stops after `after` bytes (default half),
//              then the connection closes
//   bad_range  a 206 whose Content-Range names a range shifted by one byte (the body is the one asked)
//   stall      headers are sent, then nothing for `seconds`, then the body
//   lost       writes only (PUT, DELETE): the write is carried out, then the connection is closed
//              with a TCP RST instead of the answer — a client sees a reset and cannot know the
//              write landed (the "lost answer" of docs/reliability.md)
// Spec syntax (query string or CLI, '&' or ','): kind=503&count=2&prob=0.5&path=/t/&retry_after=1
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "rap/util/result.h"

namespace rap::netsim {

enum class FaultKind { kReset, kStatus, kTruncate, kBadRange, kStall, kLost };

struct FaultRule {
  FaultKind kind = FaultKind::kReset;
  unsigned status = 0;          // kStatus: the HTTP status
  std::string path;             // substring filter on the URL path; empty = every path
  int64_t remaining = 1;        // firings left; -1 = unlimited
  double probability = 1.0;     // chance of firing on a matching request
  double retry_after = 1;       // kStatus 503/429: Retry-After seconds (rounded up to whole seconds)
  double stall_seconds = 5;     // kStall
  std::optional<uint64_t> truncate_after;  // kTruncate: body bytes sent before closing (default half)
  uint64_t fired = 0;

  std::string Name() const;  // "reset", "503", "truncate", ...
};

// Parses a rule spec (see above). Unknown keys are an error, so a typo does not silently disable a test.
Result<FaultRule> ParseFaultRule(std::string_view spec);

class FaultInjector {
 public:
  explicit FaultInjector(uint64_t seed = 42) : rng_(seed) {}

  void Add(FaultRule rule) { rules_.push_back(std::move(rule)); }
  void Clear() { rules_.clear(); }
  void Seed(uint64_t seed) { rng_.seed(seed); }

  // The first rule that matches `path`, applies to this response (`body_response`: a GET that
  // would send a 200/206 body; truncate, bad_range and stall need one), has firings left and wins its
  // probability draw. The returned copy describes the firing; the rule's count is decremented.
  std::optional<FaultRule> Pick(const std::string& path, bool body_response, bool is_write = false);

  std::string ToJson() const;  // [{"kind":"503","path":"","remaining":1,"probability":1,"fired":0,...}]

 private:
  std::vector<FaultRule> rules_;
  std::mt19937_64 rng_;
};

}  // namespace rap::netsim
