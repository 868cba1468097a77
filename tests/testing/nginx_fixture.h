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
  std::string method;
  int status = 0;
  std::string range;    // the request's Range header, "-" when absent
};

class NginxServer {
 public:
  // Serves `root` (a directory). Check ok() / error() after construction.
  explicit NginxServer(const std::string& root);
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  bool ok() const { return pid_ > 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Parsed access log so far, and the number of distinct connections in it.
  std::vector<NginxLogEntry> AccessLog() const;
  size_t DistinctConnections() const;

 private:
  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace rap::testing
