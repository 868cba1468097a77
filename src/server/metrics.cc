// Server metrics (src/server/metrics.h).
#include "server/metrics.h"

#include <algorithm>

#include <fmt/format.h>

namespace rap::server {

void Metrics::RecordRequest(const std::string& endpoint, int status, double seconds, uint64_t bytes) {
  const auto& bounds = RequestLatencyBounds();
  const size_t b = static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), seconds) - bounds.begin());
  std::lock_guard<std::mutex> lock(mu_);
  Histogram& h = requests_[{endpoint, status}];
  if (h.buckets.empty()) h.buckets.assign(bounds.size() + 1, 0);
  ++h.buckets[b];
  h.sum += seconds;
  ++h.count;
  h.bytes += bytes;
}

void Metrics::RecordRejected(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++rejected_[reason];
}

void Metrics::RecordLookup(int64_t keys, int64_t store_requests, int64_t rows) {
  std::lock_guard<std::mutex> lock(mu_);
  ++lookup_requests_;
  lookup_keys_ += static_cast<uint64_t>(std::max<int64_t>(0, keys));
  lookup_store_requests_ += static_cast<uint64_t>(std::max<int64_t>(0, store_requests));
  lookup_rows_ += static_cast<uint64_t>(std::max<int64_t>(0, rows));
}

void Metrics::RecordRefresh(const std::string& table, bool changed, bool failed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& r = refreshes_[table];
  if (changed) ++r.first;
  if (failed) ++r.second;
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  out += "# HELP rap_http_requests_total HTTP requests answered, by endpoint and status.\n";
  out += "# TYPE rap_http_requests_total counter\n";
  for (const auto& [k, h] : requests_) {
    out += fmt::format("rap_http_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", k.first, k.second, h.count);
  }
  out += "# HELP rap_http_request_duration_seconds Time from a request's arrival to its last byte sent.\n";
  out += "# TYPE rap_http_request_duration_seconds histogram\n";
  const auto& bounds = RequestLatencyBounds();
  for (const auto& [k, h] : requests_) {
    uint64_t cum = 0;
    const std::string labels = fmt::format("endpoint=\"{}\",status=\"{}\"", k.first, k.second);
    for (size_t i = 0; i < bounds.size(); ++i) {
      cum += h.buckets[i];
      out += fmt::format("rap_http_request_duration_seconds_bucket{{{},le=\"{}\"}} {}\n", labels, bounds[i], cum);
    }
    cum += h.buckets.back();
    out += fmt::format("rap_http_request_duration_seconds_bucket{{{},le=\"+Inf\"}} {}\n", labels, cum);
    out += fmt::format("rap_http_request_duration_seconds_sum{{{}}} {:.6f}\n", labels, h.sum);
    out += fmt::format("rap_http_request_duration_seconds_count{{{}}} {}\n", labels, h.count);
  }
  out += "# HELP rap_http_response_bytes_total Response body bytes sent, by endpoint and status.\n";
  out += "# TYPE rap_http_response_bytes_total counter\n";
  for (const auto& [k, h] : requests_) {
    out += fmt::format("rap_http_response_bytes_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", k.first, k.second,
                       h.bytes);
  }
  out += "# HELP rap_http_rejected_requests_total Requests refused by a limit, by reason.\n";
  out += "# TYPE rap_http_rejected_requests_total counter\n";
  for (const char* reason : {"overload", "deadline", "shutdown", "header_too_large", "body_too_large", "too_many_keys",
                             "response_too_large", "bad_request"}) {
    auto it = rejected_.find(reason);
    out += fmt::format("rap_http_rejected_requests_total{{reason=\"{}\"}} {}\n", reason,
                       it == rejected_.end() ? 0 : it->second);
  }
  out += "# HELP rap_lookup_requests_total Lookup requests that ran.\n# TYPE rap_lookup_requests_total counter\n";
  out += fmt::format("rap_lookup_requests_total {}\n", lookup_requests_);
  out += "# HELP rap_lookup_keys_total Keys looked up.\n# TYPE rap_lookup_keys_total counter\n";
  out += fmt::format("rap_lookup_keys_total {}\n", lookup_keys_);
  out += "# HELP rap_lookup_rows_total Rows returned by lookups.\n# TYPE rap_lookup_rows_total counter\n";
  out += fmt::format("rap_lookup_rows_total {}\n", lookup_rows_);
  out += "# HELP rap_lookup_store_requests_total Object-store requests made by lookups.\n";
  out += "# TYPE rap_lookup_store_requests_total counter\n";
  out += fmt::format("rap_lookup_store_requests_total {}\n", lookup_store_requests_);
  out += "# HELP rap_refresh_changes_total Refreshes that picked up a new table or index version.\n";
  out += "# TYPE rap_refresh_changes_total counter\n";
  for (const auto& [t, r] : refreshes_) out += fmt::format("rap_refresh_changes_total{{table=\"{}\"}} {}\n", t, r.first);
  out += "# HELP rap_refresh_failures_total Refreshes that failed (the previous version keeps serving).\n";
  out += "# TYPE rap_refresh_failures_total counter\n";
  for (const auto& [t, r] : refreshes_) out += fmt::format("rap_refresh_failures_total{{table=\"{}\"}} {}\n", t, r.second);
  return out;
}

}  // namespace rap::server
