// rap-test-labels: network
// The HTTP store over HTTPS against a real nginx on loopback with a self-signed certificate made
// by openssl at test time: range boundaries, many concurrent ranges multiplexed over one HTTP/2
// connection (curl's CURLINFO_HTTP_VERSION per request, nginx's $connection and $server_protocol
// in its access log), trust through ca_file / RAP_CA_BUNDLE, clear errors for an untrusted
// certificate, and plain http:// still speaking HTTP/1.1.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <memory>
#include <random>
#include <set>
#include <string>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "testing/nginx_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

using rap::testing::NginxLogEntry;
using rap::testing::NginxOptions;
using rap::testing::NginxServer;
using rap::testing::TempDir;

constexpr size_t kObjectSize = 2 * 1024 * 1024 + 333;

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  std::mt19937_64 rng(7);
  for (char& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

// Starts nginx; skips the test only when nginx itself is not installed.
#define START_NGINX(server)                                                         \
  do {                                                                              \
    if (!(server).ok()) {                                                           \
      if ((server).error().find("not installed") != std::string::npos) {            \
        GTEST_SKIP() << (server).error();                                           \
      }                                                                             \
      FAIL() << (server).error();                                                   \
    }                                                                               \
  } while (0)

class HttpsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = new std::string(Pattern(kObjectSize));
    rap::testing::WriteStringToFile(dir_->Join("obj.bin"), *data_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete data_;
  }
  std::string_view Data(const ByteRange& r) { return std::string_view(*data_).substr(r.offset, r.length); }

  HttpOptions Trusting(const NginxServer& server) {
    HttpOptions o;
    o.ca_file = server.ca_file();
    o.max_attempts = 2;
    o.initial_backoff_s = 0.01;
    o.deadline_s = 60;
    return o;
  }

  static std::set<std::string> Protocols(const std::vector<NginxLogEntry>& log) {
    std::set<std::string> out;
    for (const auto& e : log) out.insert(e.protocol);
    return out;
  }

  static TempDir* dir_;
  static std::string* data_;
};
TempDir* HttpsTest::dir_ = nullptr;
std::string* HttpsTest::data_ = nullptr;

TEST_F(HttpsTest, RangesAtBoundariesOverHttp2) {
  NginxServer server(dir_->path(), NginxOptions{.tls = true});
  START_NGINX(server);
  ASSERT_EQ(server.base_url().rfind("https://127.0.0.1:", 0), 0u);
  auto store = MakeHttpStore(server.base_url(), Trusting(server));
  ASSERT_TRUE(store.ok()) << store.status().ToString();

  auto info = (*store)->Head("/obj.bin");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size, kObjectSize);

  const uint64_t n = kObjectSize;
  std::vector<ByteRange> ranges = {{0, 1}, {n - 1, 1}, {0, n}, {1, n - 2}, {16383, 2}, {65535, 65537}};
  ReadStats stats;
  auto bufs = (*store)->ReadRanges("/obj.bin", ranges, ReadOptions{}, &stats);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_EQ((*bufs)[i].view(), Data(ranges[i])) << ranges[i].ToString();
  ASSERT_EQ(stats.requests.size(), ranges.size());
  for (const RequestTiming& t : stats.requests) EXPECT_EQ(t.http_version, 20) << t.range.ToString();
  EXPECT_EQ(stats.payload_bytes, 1 + 1 + n + (n - 2) + 2 + 65537);

  // Suffix ranges: shorter than, equal to and longer than the object.
  for (uint64_t suffix : {uint64_t{1}, uint64_t{8}, n, n + 100}) {
    ReadStats tail_stats;
    auto tail = (*store)->ReadTail("/obj.bin", suffix, ReadOptions{}, &tail_stats);
    ASSERT_TRUE(tail.ok()) << suffix << ": " << tail.status().ToString();
    uint64_t len = std::min(suffix, n);
    EXPECT_EQ(tail->first.view(), Data({n - len, len})) << suffix;
    EXPECT_EQ(tail->second.size, n);
    ASSERT_EQ(tail_stats.requests.size(), 1u);
    EXPECT_EQ(tail_stats.requests[0].http_version, 20);
  }

  // A range past the end is refused, not answered with wrong bytes.
  std::vector<ByteRange> past = {{n - 1, 2}};
  auto bad = (*store)->ReadRanges("/obj.bin", past, ReadOptions{}, nullptr);
  EXPECT_FALSE(bad.ok());

  auto log = server.AccessLog();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(Protocols(log), std::set<std::string>{"HTTP/2.0"});
}

TEST_F(HttpsTest, ManyConcurrentRangesAreMultiplexedOnOneConnection) {
  NginxServer server(dir_->path(), NginxOptions{.tls = true});
  START_NGINX(server);
  auto store = MakeHttpStore(server.base_url(), Trusting(server));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::mt19937_64 rng(11);
  std::vector<ByteRange> ranges;
  for (int i = 0; i < 300; ++i) {
    uint64_t len = 1 + rng() % 40000;
    ranges.push_back({rng() % (kObjectSize - len + 1), len});
  }
  ReadOptions opts;
  opts.max_concurrency = 16;
  for (int round = 0; round < 2; ++round) {  // the second round reuses the first round's connection
    ReadStats stats;
    auto bufs = (*store)->ReadRanges("/obj.bin", ranges, opts, &stats);
    ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
    for (size_t i = 0; i < ranges.size(); ++i) ASSERT_EQ((*bufs)[i].view(), Data(ranges[i])) << ranges[i].ToString();
    ASSERT_EQ(stats.requests.size(), ranges.size());
    for (const RequestTiming& t : stats.requests) ASSERT_EQ(t.http_version, 20) << t.range.ToString();
  }
  // 600 requests, up to 16 at a time, over a single TLS connection: HTTP/2 streams, not 16
  // HTTP/1.1 connections. Both sides agree: curl's connect count and nginx's connection serials.
  EXPECT_EQ(ConnectionsOpened(**store), 1);
  auto log = server.AccessLog();
  EXPECT_EQ(log.size(), 2 * ranges.size());
  EXPECT_EQ(server.DistinctConnections(), 1u);
  EXPECT_EQ(Protocols(log), std::set<std::string>{"HTTP/2.0"});
}

TEST_F(HttpsTest, Http11OverTlsWhenHttp2IsOff) {
  NginxServer server(dir_->path(), NginxOptions{.tls = true});
  START_NGINX(server);
  HttpOptions o = Trusting(server);
  o.http2 = false;
  auto store = MakeHttpStore(server.base_url(), o);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<ByteRange> ranges;
  for (uint64_t i = 0; i < 40; ++i) ranges.push_back({i * 50000, 50000});
  ReadOptions opts;
  opts.max_concurrency = 4;
  ReadStats stats;
  auto bufs = (*store)->ReadRanges("/obj.bin", ranges, opts, &stats);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_EQ((*bufs)[i].view(), Data(ranges[i]));
  for (const RequestTiming& t : stats.requests) EXPECT_EQ(t.http_version, 11);
  EXPECT_EQ(Protocols(server.AccessLog()), std::set<std::string>{"HTTP/1.1"});
  // Keep-alive: at most one connection per concurrent request.
  EXPECT_LE(server.DistinctConnections(), 4u);
}

TEST_F(HttpsTest, PlainHttpStillNegotiatesHttp11) {
  NginxServer server(dir_->path());
  START_NGINX(server);
  ASSERT_EQ(server.base_url().rfind("http://", 0), 0u);
  auto store = MakeHttpStore(server.base_url());  // http2 on by default: must not matter for http://
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<ByteRange> ranges;
  for (uint64_t i = 0; i < 60; ++i) ranges.push_back({i * 30000 + 7, 29000});
  ReadOptions opts;
  opts.max_concurrency = 10;
  ReadStats stats;
  auto bufs = (*store)->ReadRanges("/obj.bin", ranges, opts, &stats);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_EQ((*bufs)[i].view(), Data(ranges[i]));
  ASSERT_EQ(stats.requests.size(), ranges.size());
  for (const RequestTiming& t : stats.requests) EXPECT_EQ(t.http_version, 11);
  EXPECT_EQ(Protocols(server.AccessLog()), std::set<std::string>{"HTTP/1.1"});
  EXPECT_LE(server.DistinctConnections(), 10u);
  EXPECT_LE(ConnectionsOpened(**store), 10);
}

TEST_F(HttpsTest, UntrustedCertificateFailsNamingTheEndpoint) {
  NginxServer server(dir_->path(), NginxOptions{.tls = true});
  START_NGINX(server);
  // Another self-signed certificate, valid for the same address, that did not sign the server's.
  TempDir other;
  ASSERT_EQ(rap::testing::MakeSelfSignedCertificate(other.Join("cert.pem"), other.Join("key.pem")), "");
  struct Case {
    std::string name;
    std::string ca_file;
  };
  // "": the system bundle, which knows nothing of a test certificate.
  for (const Case& c : {Case{"system bundle", ""}, Case{"other CA", other.Join("cert.pem")}}) {
    HttpOptions o;
    o.ca_file = c.ca_file;
    o.max_attempts = 3;
    o.initial_backoff_s = 0.01;
    auto store = MakeHttpStore(server.base_url(), o);
    ASSERT_TRUE(store.ok());
    std::vector<ByteRange> ranges = {{0, 100}};
    auto r = (*store)->ReadRanges("/obj.bin", ranges, ReadOptions{}, nullptr);
    ASSERT_FALSE(r.ok()) << c.name;
    const std::string& msg = r.status().message();
    EXPECT_NE(msg.find("TLS certificate of endpoint " + server.base_url()), std::string::npos) << msg;
    EXPECT_NE(msg.find("not trusted"), std::string::npos) << msg;
    EXPECT_NE(msg.find(server.base_url() + "/obj.bin"), std::string::npos) << msg;  // the object too
    EXPECT_EQ(msg.find("giving up"), std::string::npos) << "a certificate failure is not retried: " << msg;
    auto head = (*store)->Head("/obj.bin");
    ASSERT_FALSE(head.ok());
    EXPECT_NE(head.status().message().find("not trusted"), std::string::npos) << head.status().ToString();
  }
  EXPECT_TRUE(server.AccessLog().empty());  // no request got past the handshake

  // A CA file that cannot be read is named as such.
  HttpOptions missing;
  missing.ca_file = other.Join("no-such-ca.pem");
  auto store = MakeHttpStore(server.base_url(), missing);
  ASSERT_TRUE(store.ok());
  auto head = (*store)->Head("/obj.bin");
  ASSERT_FALSE(head.ok());
  EXPECT_NE(head.status().message().find("cannot load the CA certificates to verify endpoint " + server.base_url()),
            std::string::npos)
      << head.status().ToString();
}

TEST_F(HttpsTest, InsecureOptionSkipsVerification) {
  NginxServer server(dir_->path(), NginxOptions{.tls = true});
  START_NGINX(server);
  HttpOptions o;
  EXPECT_TRUE(o.verify_tls);  // secure by default
  o.verify_tls = false;
  auto store = MakeHttpStore(server.base_url(), o);
  ASSERT_TRUE(store.ok());
  std::vector<ByteRange> ranges = {{100, 1000}};
  auto r = (*store)->ReadRanges("/obj.bin", ranges, ReadOptions{}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].view(), Data(ranges[0]));
}

TEST_F(HttpsTest, CaBundleFromTheEnvironmentServesOpenUrl) {
  NginxServer server(dir_->path(), NginxOptions{.tls = true});
  START_NGINX(server);
  // RAP_CA_BUNDLE wins over CURL_CA_BUNDLE and SSL_CERT_FILE.
  ::setenv("CURL_CA_BUNDLE", "/nonexistent/curl-ca.pem", 1);
  ::setenv("SSL_CERT_FILE", "/nonexistent/ssl-ca.pem", 1);
  ::setenv("RAP_CA_BUNDLE", server.ca_file().c_str(), 1);
  HttpOptions env = HttpOptionsFromEnv();
  EXPECT_EQ(env.ca_file, server.ca_file());
  ::unsetenv("RAP_CA_BUNDLE");
  EXPECT_EQ(HttpOptionsFromEnv().ca_file, "/nonexistent/curl-ca.pem");
  ::unsetenv("CURL_CA_BUNDLE");
  EXPECT_EQ(HttpOptionsFromEnv().ca_file, "/nonexistent/ssl-ca.pem");
  ::setenv("SSL_CERT_FILE", server.ca_file().c_str(), 1);
  auto resolved = OpenUrl(server.base_url() + "/obj.bin");
  ::unsetenv("SSL_CERT_FILE");
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  auto tail = resolved->store->ReadTail(resolved->path, 10, ReadOptions{}, nullptr);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(tail->first.view(), Data({kObjectSize - 10, 10}));
}

}  // namespace
}  // namespace rap::io
