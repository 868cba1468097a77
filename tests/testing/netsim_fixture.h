// Test and benchmark helpers for rap-netsim (tools/netsim): start the controlled HTTP server as a
// child process on a free port, talk to it with a raw HTTP/1.1 client, and read, reset and
// reconfigure its counters, transport profile and injected faults.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rap/util/result.h"

namespace rap::testing {

// One HTTP response as a raw client saw it. The client is deliberately minimal (raw sockets, no
// retries, Content-Length framing only) so that resets, truncated bodies and stalls stay visible;
// a full client such as libcurl would retry or hide them.
struct HttpResponse {
  int status = 0;                              // 0 if no status line arrived
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;         // empty if the client does not keep bodies
  uint64_t body_bytes = 0;  // body bytes received
  bool headers_received = false;
  bool complete = false;   // the whole announced body arrived
  bool reset = false;      // the peer reset the connection (ECONNRESET)
  bool closed = false;     // the peer closed the connection (EOF) at or before the end of this response
  bool timed_out = false;  // no byte for the client's timeout
  double first_byte_seconds = 0;  // request sent -> first response byte
  double total_seconds = 0;       // request sent -> last body byte (or the failure)

  // The value of a header (name in any case), or "" if absent.
  std::string Header(const std::string& name) const;
};

// A blocking client on one keep-alive TCP connection to 127.0.0.1:port.
class RawHttpClient {
 public:
  static Result<std::unique_ptr<RawHttpClient>> Connect(uint16_t port, double timeout_seconds = 30);
  ~RawHttpClient();
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  // Sends one request ("GET", "/path?query", extra headers such as {"Range", "bytes=0-9"}) and reads
  // its response. Transport failures after the request was sent are reported in the response
  // fields (reset, closed, timed_out), not as an error; an error means the request could not be sent.
  Result<HttpResponse> Request(const std::string& method, const std::string& target,
                               const std::vector<std::pair<std::string, std::string>>& headers = {});
  bool connected() const { return fd_ >= 0; }
  // With false, bodies are counted (body_bytes) but not stored: for benchmarks of large transfers.
  void set_keep_body(bool keep) { keep_body_ = keep; }

 private:
  RawHttpClient(int fd, double timeout_seconds) : fd_(fd), timeout_seconds_(timeout_seconds) {}
  // Appends received bytes to pending_; returns bytes read, 0 on EOF, -1 reset, -2 timeout, -3 other error.
  long Fill();
  int fd_;
  double timeout_seconds_;
  std::string pending_;  // bytes received but not yet consumed
  std::unique_ptr<char[]> buffer_;
  bool keep_body_ = true;
};

struct NetsimOptions {
  std::string root;                   // directory to serve
  std::string latency = "0ms";        // e.g. "50ms"
  std::string throughput = "unlimited";  // e.g. "16MiB/s"
  std::vector<std::string> faults;    // --fault specs, e.g. "kind=503,count=1"
  std::vector<std::string> extra_args;
};

struct NetsimCounters {
  uint64_t requests = 0;
  uint64_t gets = 0;
  uint64_t heads = 0;
  uint64_t range_gets = 0;
  uint64_t payload_bytes = 0;
};

// One file GET as rap-netsim answered it: bytes [first, first + length) of `path`.
struct NetsimRead {
  std::string path;
  uint64_t first = 0;
  uint64_t length = 0;
};

struct NetsimStats {
  NetsimCounters total;
  std::map<std::string, NetsimCounters> paths;  // by URL path, e.g. "/t/part-0.parquet"
  std::map<std::string, uint64_t> status;       // "206" -> count
  std::map<std::string, uint64_t> faults;       // "reset" -> count
  uint64_t max_active_responses = 0;
  std::vector<NetsimRead> reads;  // the most recent file GETs since the last reset, oldest first
  uint64_t reads_dropped = 0;     // older GETs not in `reads` (the log keeps 4,096)
  std::string json;  // the raw document
};

// s3:// URLs of this process go to rap-netsim at `url` (which accepts any signature) while it lives:
// AWS_ENDPOINT_URL, a key pair and the region set, and unset again by the destructor.
class NetsimS3Env {
 public:
  explicit NetsimS3Env(const std::string& url) {
    setenv("AWS_ENDPOINT_URL", url.c_str(), 1);
    setenv("AWS_ACCESS_KEY_ID", "netsim", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "netsim-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
  }
  ~NetsimS3Env() {
    for (const char* v : {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}) unsetenv(v);
  }
  NetsimS3Env(const NetsimS3Env&) = delete;
  NetsimS3Env& operator=(const NetsimS3Env&) = delete;
};

// rap-netsim running as a child process; stopped (SIGTERM, then SIGKILL) by the destructor.
class NetsimServer {
 public:
  // Starts BinaryPath() with --port 0 and a port file, and waits (up to 20 s) until it answers.
  static Result<std::unique_ptr<NetsimServer>> Start(const NetsimOptions& options);
  ~NetsimServer();
  NetsimServer(const NetsimServer&) = delete;
  NetsimServer& operator=(const NetsimServer&) = delete;

  // $RAP_NETSIM_BINARY, else BinaryDir()/tools/rap-netsim.
  static std::string BinaryPath();

  uint16_t port() const { return port_; }
  std::string url() const;  // "http://127.0.0.1:<port>"

  // GET /_netsim/<command> and return the body; an error unless the status is 200.
  Result<std::string> Control(const std::string& command);
  Result<NetsimStats> Stats();
  Status ResetStats();
  Status SetProfile(const std::string& latency, const std::string& throughput);
  Status AddFault(const std::string& spec);  // query syntax: "kind=503&count=1&path=/a"
  Status ClearFaults();

  // Sends SIGTERM and waits for a clean exit (status 0) for up to 10 s.
  Status Stop();

 private:
  NetsimServer() = default;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string log_path_;
  std::string dir_;
};

}  // namespace rap::testing
