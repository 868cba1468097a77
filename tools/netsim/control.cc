// The control endpoint of rap-netsim (/_netsim/...): statistics, reset, the transport profile
// (latency, throughput) and fault rules, changed while the server runs (README.md).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "netsim/http_util.h"
#include "netsim/server_impl.h"

namespace rap::netsim {

std::string Server::Impl::ConfigJson() const {
  return nlohmann::json{{"root", options.root.string()},
                        {"port", acceptor.is_open() ? acceptor.local_endpoint().port() : 0},
                        {"latency_seconds", options.profile.latency_seconds},
                        {"throughput_bytes_per_second", options.profile.throughput_bps},
                        {"throughput", FormatThroughput(options.profile.throughput_bps)},
                        {"chunk_bytes", options.chunk},
                        {"quantum_bytes", throttle.quantum()}}
      .dump();
}

ControlAnswer AnswerControl(Server::Impl& srv, std::string_view cmd, const std::string& path, const std::string& query) {
  auto ok = [](std::string json) { return ControlAnswer{200, std::move(json)}; };
  auto bad = [](const Status& st) { return ControlAnswer{400, nlohmann::json{{"error", st.message()}}.dump()}; };
  if (cmd == "stats") return ok(srv.stats.ToJson());
  if (cmd == "health") return ok(R"({"ok":true})");
  if (cmd == "reset") {
    srv.stats.Reset();
    return ok(R"({"ok":true})");
  }
  if (cmd == "config") {
    auto kv = ParseQuery(query);
    if (!kv.ok()) return bad(kv.status());
    TransportProfile next = srv.options.profile;
    for (const auto& [key, value] : *kv) {
      if (key == "latency") {
        auto v = ParseLatency(value);
        if (!v.ok()) return bad(v.status());
        next.latency_seconds = *v;
      } else if (key == "throughput") {
        auto v = ParseThroughput(value);
        if (!v.ok()) return bad(v.status());
        next.throughput_bps = *v;
      } else {
        return bad(Status::InvalidArgument(
            fmt::format("config: unknown key '{}' (expected latency, throughput)", key)));
      }
    }
    if (next.throughput_bps != srv.options.profile.throughput_bps) srv.throttle.SetRate(next.throughput_bps);
    srv.options.profile = next;
    return ok(srv.ConfigJson());
  }
  if (cmd == "fault") {
    auto rule = ParseFaultRule(query);
    if (!rule.ok()) return bad(rule.status());
    srv.faults.Add(std::move(*rule));
    return ok(srv.faults.ToJson());
  }
  if (cmd == "faults") return ok(srv.faults.ToJson());
  if (cmd == "faults/clear") {
    srv.faults.Clear();
    return ok(srv.faults.ToJson());
  }
  const std::string message = fmt::format(
      "unknown control path '{}' (expected stats, reset, config, fault, faults, faults/clear, health)", path);
  return {404, nlohmann::json{{"error", message}}.dump()};
}

}  // namespace rap::netsim
