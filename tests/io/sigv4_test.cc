// rap-test-labels: concurrent
// SigV4: the independent signer against AWS's published test vectors (aws-sig-v4-test-suite and the
// S3 documentation examples), and against the Authorization headers libcurl actually sent for the
// S3 store (captured by the fault server), so the signing the store relies on is proven twice.
#include <gtest/gtest.h>

#include "io/http_util.h"
#include "rap/io/s3_store.h"
#include "rap/io/sigv4.h"
#include "testing/fault_server.h"

namespace rap::io {
namespace {

const char* kEmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const char* kSuiteKey = "AKIDEXAMPLE";
const char* kSuiteSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const char* kSuiteDate = "20150830T123600Z";
const char* kSuiteScope = "Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ";

sigv4::Request SuiteRequest(const std::string& method, const std::string& uri) {
  sigv4::Request r;
  r.method = method;
  r.canonical_uri = uri;
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}};
  r.payload_hash = kEmptyHash;
  return r;
}

std::string SuiteAuth(const sigv4::Request& r) {
  return sigv4::Authorization(kSuiteKey, kSuiteSecret, "us-east-1", "service", kSuiteDate, r);
}

TEST(SigV4, Primitives) {
  EXPECT_EQ(sigv4::Sha256Hex(""), kEmptyHash);
  // RFC 4231 test case 2.
  EXPECT_EQ(sigv4::Hex(sigv4::HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(sigv4::CanonicalQuery({{"prefix", "a b/c"}, {"list-type", "2"}, {"continuation-token", "x+y="}}),
            "continuation-token=x%2By%3D&list-type=2&prefix=a%20b%2Fc");
}

TEST(SigV4, GetVanilla) {
  sigv4::Request r = SuiteRequest("GET", "/");
  std::string signed_headers;
  std::string creq = sigv4::CanonicalRequest(r, &signed_headers);
  EXPECT_EQ(creq, std::string("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") +
                      kEmptyHash);
  EXPECT_EQ(signed_headers, "host;x-amz-date");
  std::string sts = sigv4::StringToSign(kSuiteDate, "20150830/us-east-1/service/aws4_request", creq);
  EXPECT_EQ(sts,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  EXPECT_EQ(SuiteAuth(r), std::string("AWS4-HMAC-SHA256 ") + kSuiteScope +
                              "SignedHeaders=host;x-amz-date, "
                              "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4, SuiteVectors) {
  struct Case {
    const char* name;
    sigv4::Request req;
    const char* want;  // SignedHeaders + Signature
  };
  std::vector<Case> cases;
  {
    sigv4::Request r = SuiteRequest("GET", "/");
    r.query = {{"Param2", "value2"}, {"Param1", "value1"}};
    cases.push_back({"get-vanilla-query-order-key-case", r,
                     "SignedHeaders=host;x-amz-date, "
                     "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"});
  }
  cases.push_back({"post-vanilla", SuiteRequest("POST", "/"),
                   "SignedHeaders=host;x-amz-date, "
                   "Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"});
  {
    sigv4::Request r = SuiteRequest("POST", "/");
    r.headers.push_back({"My-Header1", "VALUE1"});
    cases.push_back({"post-header-value-case", r,
                     "SignedHeaders=host;my-header1;x-amz-date, "
                     "Signature=cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"});
  }
  {
    sigv4::Request r = SuiteRequest("GET", "/");
    r.headers.push_back({"My-Header1", " value1"});
    r.headers.push_back({"My-Header2", "\"a   b   c\""});
    cases.push_back({"get-header-value-trim", r,
                     "SignedHeaders=host;my-header1;my-header2;x-amz-date, "
                     "Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"});
  }
  cases.push_back({"get-unreserved",
                   SuiteRequest("GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
                   "SignedHeaders=host;x-amz-date, "
                   "Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"});
  for (const Case& c : cases) {
    EXPECT_EQ(SuiteAuth(c.req), std::string("AWS4-HMAC-SHA256 ") + kSuiteScope + c.want) << c.name;
  }
}

TEST(SigV4, S3DocumentationExamples) {
  // The examples of the S3 API reference ("Signature Calculations for the Authorization Header").
  const char* key = "AKIAIOSFODNN7EXAMPLE";
  const char* secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const char* date = "20130524T000000Z";
  auto s3req = [&](std::vector<std::pair<std::string, std::string>> query) {
    sigv4::Request r;
    r.method = "GET";
    r.canonical_uri = "/";
    r.query = std::move(query);
    r.headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"x-amz-date", date}, {"x-amz-content-sha256", kEmptyHash}};
    r.payload_hash = kEmptyHash;
    return r;
  };
  const std::string scope = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                            "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=";
  EXPECT_EQ(sigv4::Authorization(key, secret, "us-east-1", "s3", date, s3req({{"max-keys", "2"}, {"prefix", "J"}})),
            scope + "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  EXPECT_EQ(sigv4::Authorization(key, secret, "us-east-1", "s3", date, s3req({{"lifecycle", ""}})),
            scope + "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

// libcurl signs the store's requests; recompute each captured Authorization header independently.
TEST(SigV4, CurlSignaturesMatchTheIndependentSigner) {
  rap::testing::FaultServer server;
  ASSERT_GT(server.port(), 0);
  server.AddObject("/bucket/dir/a%20b%2Bc.bin", std::string(1000, 'x'));
  S3Config c;
  c.access_key_id = "test:tester";
  c.secret_access_key = "s3cr3t/Key+";
  c.session_token = "session-token-123";
  c.region = "eu-west-3";
  c.endpoint_url = server.base_url();
  c.credentials_source = "test";
  auto store = MakeS3Store("bucket", c);
  ASSERT_TRUE(store.ok());
  std::vector<ByteRange> r = {{10, 20}};
  auto bufs = (*store)->ReadRanges("dir/a b+c.bin", r, ReadOptions{}, nullptr);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  (void)(*store)->List("dir/a b");  // the fault server answers 404; the request is still signed
  ASSERT_TRUE((*store)->Put("dir/new.bin", Buffer::Copy("payload")).ok());

  auto log = server.RequestLog();
  ASSERT_EQ(log.size(), 3u);
  for (const auto& req : log) {
    auto h = req.headers;
    ASSERT_TRUE(h.count("authorization")) << req.path;
    const std::string& auth = h["authorization"];
    size_t sh = auth.find("SignedHeaders=");
    ASSERT_NE(sh, std::string::npos);
    std::string names = auth.substr(sh + 14, auth.find(',', sh) - sh - 14);
    sigv4::Request sreq;
    sreq.method = req.method;
    size_t q = req.path.find('?');
    sreq.canonical_uri = req.path.substr(0, q);
    if (q != std::string::npos) {
      std::string qs = req.path.substr(q + 1);
      for (size_t pos = 0; pos <= qs.size();) {
        size_t amp = qs.find('&', pos);
        if (amp == std::string::npos) amp = qs.size();
        std::string kv = qs.substr(pos, amp - pos);
        size_t eq = kv.find('=');
        auto decode = [](const std::string& s) {
          std::string out;
          for (size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '%' && i + 2 < s.size()) {
              out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
              i += 2;
            } else {
              out += s[i];
            }
          }
          return out;
        };
        sreq.query.emplace_back(decode(kv.substr(0, eq)), eq == std::string::npos ? "" : decode(kv.substr(eq + 1)));
        pos = amp + 1;
      }
    }
    for (size_t pos = 0; pos <= names.size();) {
      size_t semi = names.find(';', pos);
      if (semi == std::string::npos) semi = names.size();
      std::string name = names.substr(pos, semi - pos);
      ASSERT_TRUE(h.count(name)) << name;
      sreq.headers.emplace_back(name, h[name]);
      pos = semi + 1;
    }
    sreq.payload_hash = h["x-amz-content-sha256"];
    if (req.method == "PUT") {
      EXPECT_EQ(sreq.payload_hash, sigv4::Sha256Hex("payload"));
    } else {
      EXPECT_EQ(sreq.payload_hash, "UNSIGNED-PAYLOAD");
    }
    EXPECT_EQ(h["x-amz-security-token"], "session-token-123");
    EXPECT_NE(names.find("x-amz-security-token"), std::string::npos);
    EXPECT_EQ(auth, sigv4::Authorization(c.access_key_id, c.secret_access_key, c.region, "s3", h["x-amz-date"], sreq))
        << req.method << " " << req.path;
  }
  EXPECT_EQ(log[0].path, "/bucket/dir/a%20b%2Bc.bin");
  EXPECT_EQ(log[1].path, "/bucket/?list-type=2&prefix=dir%2Fa%20b");
}

}  // namespace
}  // namespace rap::io
