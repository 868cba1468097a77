// FaultServer: a small HTTP/1.1 server on 127.0.0.1 (plain sockets, one thread per connection)
// that serves in-memory objects with Range support and injects faults on demand: connection
// resets, 503/429 with Retry-After, truncated or oversized bodies, a lying Content-Range, a
// server that ignores Range, a changing ETag, and stalls. For the retry and integrity tests.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rap::testing {

enum class Fault {
  kNone,
  kReset,          // close the connection with a TCP RST instead of answering
  k503,            // 503 Service Unavailable (Retry-After: retry_after when >= 0)
  k429,            // 429 Too Many Requests (Retry-After: retry_after when >= 0)
  kTruncate,       // announce the full length, send half the body, close
  kOversize,       // Content-Length and body 10 bytes longer than the range asked for
  kLieRange,       // 206 whose Content-Range and body start one byte after the requested offset
  kIgnoreRange,    // 200 with the whole object
  kChangeEtag,     // answers correctly but with a different ETag
  kStall,          // headers and a few bytes, then nothing until the client gives up
  k404,
  k403,
};

struct FaultSpec {
  Fault fault = Fault::kNone;
  int retry_after = -1;  // seconds, for 503/429
};

struct FaultRequest {
  std::string method;
  std::string path;
  std::string range;  // Range header or ""
  std::map<std::string, std::string> headers;  // lowercase names
};

class FaultServer {
 public:
  FaultServer();
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void AddObject(const std::string& path, std::string data);
  // Faults for the next requests, one each, in order; afterwards requests are served normally.
  void QueueFaults(std::vector<FaultSpec> faults);
  // A fault applied to every request (after the queue is empty). kNone clears it.
  void SetPersistentFault(FaultSpec f);

  int requests() const { return requests_.load(); }
  int connections() const { return connections_.load(); }
  // Connections whose serving thread is still running (each open connection holds one thread, so a
  // thread count taken by a test includes these).
  int live_connections() const { return live_connections_.load(); }
  std::vector<FaultRequest> RequestLog() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  FaultSpec NextFault();

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::atomic<int> connections_{0};
  std::atomic<int> live_connections_{0};
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  std::map<std::string, std::string> objects_;
  std::deque<FaultSpec> queue_;
  FaultSpec persistent_;
  std::vector<FaultRequest> log_;
  std::vector<int> client_fds_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace rap::testing
