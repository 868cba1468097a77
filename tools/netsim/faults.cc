#include "netsim/faults.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "netsim/http_util.h"
#include "rap/util/units.h"

namespace rap::netsim {

std::string FaultRule::Name() const {
  switch (kind) {
    case FaultKind::kReset: return "reset";
    case FaultKind::kStatus: return std::to_string(status);
    case FaultKind::kTruncate: return "truncate";
    case FaultKind::kBadRange: return "bad_range";
    case FaultKind::kStall: return "stall";
    case FaultKind::kLost: return "lost";
  }
  return "unknown";
}

static Result<double> ParseNumber(std::string_view spec, const std::string& key, const std::string& value) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size() || !std::isfinite(v)) {
    return Status::InvalidArgument(fmt::format("fault '{}': {}='{}' is not a number", spec, key, value));
  }
  return v;
}

Result<FaultRule> ParseFaultRule(std::string_view spec) {
  RAP_ASSIGN_OR_RETURN(auto kv, ParseQuery(spec));
  FaultRule rule;
  auto kind_it = kv.find("kind");
  if (kind_it == kv.end()) return Status::InvalidArgument(fmt::format("fault '{}': missing kind=", spec));
  const std::string& kind = kind_it->second;
  if (kind == "reset") {
    rule.kind = FaultKind::kReset;
  } else if (kind == "truncate") {
    rule.kind = FaultKind::kTruncate;
  } else if (kind == "bad_range") {
    rule.kind = FaultKind::kBadRange;
  } else if (kind == "stall") {
    rule.kind = FaultKind::kStall;
  } else if (kind == "lost") {
    rule.kind = FaultKind::kLost;
  } else {
    unsigned code = 0;
    auto [ptr, ec] = std::from_chars(kind.data(), kind.data() + kind.size(), code);
    if (ec != std::errc() || ptr != kind.data() + kind.size() || code < 400 || code > 599) {
      return Status::InvalidArgument(fmt::format(
          "fault '{}': kind '{}' is not reset, truncate, bad_range, stall, lost or a 4xx/5xx status", spec, kind));
    }
    rule.kind = FaultKind::kStatus;
    rule.status = code;
  }
  for (const auto& [key, value] : kv) {
    if (key == "kind") continue;
    if (key == "path") {
      rule.path = value;
    } else if (key == "count") {
      RAP_ASSIGN_OR_RETURN(double v, ParseNumber(spec, key, value));
      if (v < -1 || v != std::floor(v)) {
        return Status::InvalidArgument(fmt::format("fault '{}': count must be a whole number >= 0 or -1", spec));
      }
      rule.remaining = static_cast<int64_t>(v);
    } else if (key == "prob" || key == "probability") {
      RAP_ASSIGN_OR_RETURN(rule.probability, ParseNumber(spec, key, value));
      if (rule.probability < 0 || rule.probability > 1) {
        return Status::InvalidArgument(fmt::format("fault '{}': probability must be in [0, 1]", spec));
      }
    } else if (key == "retry_after") {
      RAP_ASSIGN_OR_RETURN(rule.retry_after, ParseDuration(value.find_first_not_of("0123456789.") == std::string::npos
                                                               ? value + "s" : value));
    } else if (key == "seconds") {
      RAP_ASSIGN_OR_RETURN(rule.stall_seconds, ParseDuration(value.find_first_not_of("0123456789.") == std::string::npos
                                                                 ? value + "s" : value));
    } else if (key == "after") {
      RAP_ASSIGN_OR_RETURN(uint64_t after, ParseByteSize(value));
      rule.truncate_after = after;
    } else {
      return Status::InvalidArgument(fmt::format(
          "fault '{}': unknown key '{}' (expected kind, path, count, prob, retry_after, seconds, after)", spec, key));
    }
  }
  if (rule.retry_after < 0 || rule.retry_after > 86400 || rule.stall_seconds < 0 || rule.stall_seconds > 3600) {
    return Status::InvalidArgument(fmt::format("fault '{}': retry_after or seconds out of range", spec));
  }
  return rule;
}

std::optional<FaultRule> FaultInjector::Pick(const std::string& path, bool body_response, bool is_write) {
  for (FaultRule& rule : rules_) {
    if (rule.remaining == 0) continue;
    if (!rule.path.empty() && path.find(rule.path) == std::string::npos) continue;
    bool needs_body = rule.kind == FaultKind::kTruncate || rule.kind == FaultKind::kBadRange ||
                      rule.kind == FaultKind::kStall;
    if (needs_body && !body_response) continue;
    if (rule.kind == FaultKind::kLost && !is_write) continue;
    if (rule.probability < 1.0) {
      std::uniform_real_distribution<double> dist(0.0, 1.0);
      if (dist(rng_) >= rule.probability) continue;
    }
    if (rule.remaining > 0) --rule.remaining;
    ++rule.fired;
    return rule;
  }
  return std::nullopt;
}

std::string FaultInjector::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const FaultRule& r : rules_) {
    nlohmann::json j{{"kind", r.Name()},       {"path", r.path},          {"remaining", r.remaining},
                     {"probability", r.probability}, {"fired", r.fired}};
    if (r.kind == FaultKind::kStatus) j["retry_after"] = r.retry_after;
    if (r.kind == FaultKind::kStall) j["seconds"] = r.stall_seconds;
    if (r.kind == FaultKind::kTruncate && r.truncate_after) j["after"] = *r.truncate_after;
    list.push_back(std::move(j));
  }
  return list.dump();
}

}  // namespace rap::netsim
