// Server: rap-netsim's HTTP/1.1 file server with controlled latency and shared throughput.
//
// Serves the regular files under a root directory: GET and HEAD, keep-alive, single byte ranges
// (206 / 416), 404 for missing files, no access outside the root. Every counted request waits the
// configured latency (an asio timer) before its first response byte; payload bytes are paced by one
// fair Throttle shared by all responses. Control requests under /_netsim/ are neither delayed nor
// counted:
//   GET /_netsim/stats                 counters as JSON (see Stats)
//   GET|POST /_netsim/reset            zero the counters
//   GET /_netsim/config[?latency=20ms&throughput=4MiB/s]   read or change the profile at run time
//   GET /_netsim/fault?kind=503&count=2[&path=..&prob=..]  add a fault rule (see FaultInjector)
//   GET /_netsim/faults                list the rules;  GET|POST /_netsim/faults/clear  remove them
//   GET /_netsim/health                "ok"
//
// Threading: one io_context run by one thread. Counters, fault rules and the throttle need no locks
// and fairness is exact; one loopback core serves well over 1 GiB/s, far above the profiles the
// benchmarks use. Beast is used only in server.cc (it is heavy to compile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "netsim/config.h"
#include "netsim/faults.h"
#include "rap/util/result.h"

namespace rap::netsim {

struct ServerOptions {
  std::filesystem::path root;
  std::string bind = "127.0.0.1";
  uint16_t port = 0;  // 0 = any free port
  TransportProfile profile;
  size_t chunk = 16 * 1024;  // throttle quantum: the payload granted to one response at a time
  std::vector<FaultRule> faults;
  uint64_t seed = 42;  // for probabilistic faults
  bool handle_signals = true;  // stop cleanly on SIGINT/SIGTERM
  bool quiet = false;          // no per-connection error logging on stderr
  int watch_parent = 0;        // if > 0: stop once this process is no longer our parent (it died)
};

class Server {
 public:
  // Binds and listens (so port() is known), but serves nothing until Run().
  static Result<std::unique_ptr<Server>> Create(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;
  // Serves on the calling thread until Stop() or a signal; returns after every connection closed.
  void Run();
  // Thread-safe: asks Run() to close the listener and all connections and return.
  void Stop();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rap::netsim
