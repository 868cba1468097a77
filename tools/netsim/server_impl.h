// The state of a running rap-netsim server (Server::Impl), shared by the connections (server.cc)
// and the control endpoint (control.cc). Private to tools/netsim.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "netsim/faults.h"
#include "netsim/server.h"
#include "netsim/stats.h"
#include "netsim/throttle.h"

namespace rap::netsim {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

inline constexpr std::string_view kControlPrefix = "/_netsim/";

class Session;

struct Server::Impl {
  explicit Impl(ServerOptions o)
      : options(std::move(o)), acceptor(io), signals(io), parent_timer(io),
        throttle(io, options.profile.throughput_bps, options.chunk), faults(options.seed) {}

  void Accept();
  void WatchParent();
  void StopOnIoThread();
  void Log(const std::string& what) const {
    if (!options.quiet) std::fprintf(stderr, "rap-netsim: %s\n", what.c_str());
  }
  std::string ConfigJson() const;

  ServerOptions options;
  asio::io_context io;  // declared before everything that uses it
  tcp::acceptor acceptor;
  asio::signal_set signals;
  asio::steady_timer parent_timer;
  Throttle throttle;
  Stats stats;
  FaultInjector faults;
  bool stopping = false;
  uint64_t next_session_id = 0;
  std::unordered_map<uint64_t, std::weak_ptr<Session>> sessions;
};

// The answer of the control endpoint /_netsim/CMD?QUERY: an HTTP status and a JSON body. `path` is
// the request's path, for the message of an unknown command.
struct ControlAnswer {
  int status = 200;
  std::string json;
};
ControlAnswer AnswerControl(Server::Impl& srv, std::string_view cmd, const std::string& path, const std::string& query);

}  // namespace rap::netsim
