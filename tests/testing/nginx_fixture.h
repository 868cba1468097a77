// NginxServer: a real nginx (Debian's /usr/sbin/nginx) serving a directory on 127.0.0.1 at a free
// port, started as a child process for a test and stopped by the destructor. Its access log
// records nginx's connection serial number, so tests can count the connections a client opened.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "testing/paths.h"

namespace rap::testing {

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0). `count` > 1 asks for that
// many consecutive free ports and returns the first.
int PickFreePort(int count = 1);

// Waits until something accepts TCP connections on 127.0.0.1:port; false after `timeout_s`.
bool WaitForPort(int port, double timeout_s);

struct NginxLogEntry {
  long connection = 0;  // nginx's connection serial number ($connection)
  std::string protocol;  // $server_protocol: "HTTP/1.1", "HTTP/2.0"
  std::string method;
  int status = 0;
  std::string range;    // the request's Range header, "-" when absent
};

struct NginxOptions {
  // HTTPS with HTTP/2 (ALPN h2, HTTP/1.1 as fallback) instead of plain HTTP. The server's
  // certificate is self-signed for 127.0.0.1 and generated at start by the `openssl` tool; its PEM
  // file (ca_file()) is the only CA that trusts it.
  bool tls = false;
  // Directory listings as nginx autoindex JSON (what HttpStore::List understands). Off: a plain
  // static server that cannot list (a GET of a directory is 403, of a missing one 404).
  bool autoindex = true;
  // Non-empty: a catch-all server (a single-page-app fallback) that answers every path that is not a
  // file with 200 and this file (relative to the root) instead of 404. Implies no directory index.
  std::string fallback = {};
  // Non-empty: a reverse proxy (load balancer) over these 127.0.0.1 ports instead of a file server
  // (round robin, keep-alive upstream connections, a failed or 502/503 upstream retried on the next).
  std::vector<int> upstream_ports = {};
  // Non-empty: the upstream picks its server by this hash instead of round robin, e.g.
  // "$arg_key consistent" (key-affinity routing: one key always reaches the same server).
  std::string upstream_hash = {};
};

// Runs `openssl req` to write a self-signed EC certificate for IP 127.0.0.1 (and localhost) to
// cert_path and its key to key_path. "" on success, else what went wrong.
std::string MakeSelfSignedCertificate(const std::string& cert_path, const std::string& key_path);

class NginxServer {
 public:
  // Serves `root` (a directory). Check ok() / error() after construction.
  explicit NginxServer(const std::string& root, const NginxOptions& options = NginxOptions());
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  bool ok() const { return pid_ > 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  std::string base_url() const { return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_); }
  // TLS: the server's self-signed certificate (PEM), to be trusted as a CA file.
  std::string ca_file() const { return tls_ ? dir_.Join("cert.pem") : std::string(); }

  // Parsed access log so far, and the number of distinct connections in it.
  std::vector<NginxLogEntry> AccessLog() const;
  size_t DistinctConnections() const;

 private:
  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool tls_ = false;
  std::string error_;
};

}  // namespace rap::testing
