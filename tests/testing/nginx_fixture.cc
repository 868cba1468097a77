#include "testing/nginx_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace rap::testing {

namespace {

bool PortFree(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

std::string MakeSelfSignedCertificate(const std::string& cert_path, const std::string& key_path) {
  const std::string log_path = cert_path + ".openssl.log";
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execlp("openssl", "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
             "-keyout", key_path.c_str(), "-out", cert_path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (pid < 0) return "fork failed";
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return "cannot run openssl (scripts/install-deps.sh installs the openssl package)";
  }
  return "openssl req failed: " + ReadFileToString(log_path);
}

int PickFreePort(int count) {
  if (count <= 1) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    int port = 0;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = ntohs(addr.sin_port);
    }
    if (fd >= 0) ::close(fd);
    return port;
  }
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> dist(20000, 60000 - count);
  for (int tries = 0; tries < 200; ++tries) {
    int base = dist(rng);
    bool all = true;
    for (int i = 0; i < count && all; ++i) all = PortFree(base + i);
    if (all) return base;
  }
  return 0;
}

bool WaitForPort(int port, double timeout_s) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < until) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (fd >= 0) ::close(fd);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

NginxServer::NginxServer(const std::string& root, const NginxOptions& options) : tls_(options.tls) {
  const char* nginx = "/usr/sbin/nginx";
  if (::access(nginx, X_OK) != 0) {
    error_ = "nginx is not installed (scripts/install-deps.sh installs nginx-light)";
    return;
  }
  if (tls_) {
    error_ = MakeSelfSignedCertificate(dir_.Join("cert.pem"), dir_.Join("key.pem"));
    if (!error_.empty()) return;
  }
  std::filesystem::create_directories(dir_.Join("tmp"));
  for (int attempt = 0; attempt < 3 && pid_ < 0; ++attempt) {
    port_ = PickFreePort();
    std::ostringstream conf;
    if (::geteuid() == 0) conf << "user root root;\n";  // workers must read the test's 0700 temp dirs
    conf << "worker_processes 1;\n"
         << "pid " << dir_.Join("nginx.pid") << ";\n"
         << "error_log " << dir_.Join("error.log") << " warn;\n"
         << "events { worker_connections 1024; }\n"
         << "http {\n"
         << "  log_format rap '$connection $server_protocol $request_method $status \"$http_range\"';\n"
         << "  access_log " << dir_.Join("access.log") << " rap;\n"
         << "  client_body_temp_path " << dir_.Join("tmp/body") << ";\n"
         << "  proxy_temp_path " << dir_.Join("tmp/proxy") << ";\n"
         << "  fastcgi_temp_path " << dir_.Join("tmp/fastcgi") << ";\n"
         << "  uwsgi_temp_path " << dir_.Join("tmp/uwsgi") << ";\n"
         << "  scgi_temp_path " << dir_.Join("tmp/scgi") << ";\n"
         << "  keepalive_requests 100000;\n"
         << "  keepalive_timeout 120s;\n"
         << "  sendfile on;\n"
         << "  server {\n"
         << "    listen 127.0.0.1:" << port_ << (tls_ ? " ssl http2" : "") << ";\n";  // nginx 1.22: http2 is a listen flag
    if (tls_) {
      conf << "    ssl_certificate " << dir_.Join("cert.pem") << ";\n"
           << "    ssl_certificate_key " << dir_.Join("key.pem") << ";\n";
    }
    if (options.upstream_ports.empty()) {
      conf << "    root " << root << ";\n"
           << (!options.fallback.empty() ? "    location / { try_files $uri /" + options.fallback + "; }\n"
               : options.autoindex       ? "    location / { autoindex on; autoindex_format json; }\n"
                                         : std::string());
    } else {
      conf << "    location / { proxy_pass http://rap_upstream; proxy_http_version 1.1;\n"
           << "      proxy_set_header Connection \"\"; proxy_buffering off;\n"
           << "      proxy_next_upstream error timeout http_502 http_503; }\n";
    }
    conf << "  }\n";
    if (!options.upstream_ports.empty()) {
      conf << "  upstream rap_upstream {\n";
      if (!options.upstream_hash.empty()) conf << "    hash " << options.upstream_hash << ";\n";
      for (int p : options.upstream_ports) conf << "    server 127.0.0.1:" << p << " max_fails=1 fail_timeout=30s;\n";
      conf << "    keepalive 16;\n  }\n";
    }
    conf << "}\n";
    WriteStringToFile(dir_.Join("nginx.conf"), conf.str());
    pid_t pid = ::fork();
    if (pid == 0) {
      std::string conf_path = dir_.Join("nginx.conf");
      ::execl(nginx, nginx, "-p", dir_.path().c_str(), "-c", conf_path.c_str(), "-g", "daemon off;",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (pid < 0) {
      error_ = "fork failed";
      return;
    }
    if (WaitForPort(port_, 10)) {
      pid_ = pid;
    } else {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      error_ = "nginx did not start on port " + std::to_string(port_) + ": " + ReadFileToString(dir_.Join("error.log"));
    }
  }
}

NginxServer::~NginxServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::vector<NginxLogEntry> NginxServer::AccessLog() const {
  std::vector<NginxLogEntry> out;
  std::istringstream in(ReadFileToString(dir_.Join("access.log")));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    NginxLogEntry e;
    ls >> e.connection >> e.protocol >> e.method >> e.status;
    std::getline(ls, e.range);
    size_t q1 = e.range.find('"'), q2 = e.range.rfind('"');
    e.range = (q1 != std::string::npos && q2 > q1) ? e.range.substr(q1 + 1, q2 - q1 - 1) : "-";
    out.push_back(e);
  }
  return out;
}

size_t NginxServer::DistinctConnections() const {
  std::set<long> ids;
  for (const auto& e : AccessLog()) ids.insert(e.connection);
  return ids.size();
}

}  // namespace rap::testing
