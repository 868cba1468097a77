// AWS Signature Version 4: canonical request, string to sign, signature and Authorization header
// (OpenSSL HMAC-SHA256). The S3 store signs through libcurl's CURLOPT_AWS_SIGV4; this independent
// implementation proves the signing rules against AWS's published test vectors and checks the
// headers curl produced in tests (see tests/io/sigv4_test.cc).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rap::io::sigv4 {

std::string Hex(std::string_view bytes);
std::string Sha256Hex(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);  // raw 32 bytes

struct Request {
  std::string method;         // "GET"
  std::string canonical_uri;  // the URI path as sent, already URI-encoded ("/" when empty)
  // Query parameters, not encoded; the signer encodes and sorts them.
  std::vector<std::pair<std::string, std::string>> query;
  // Headers as sent (host and x-amz-date included). Names are case-insensitive; repeated names
  // are joined with ','; values are trimmed and inner runs of spaces collapsed.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_hash;   // hex sha256 of the body, or "UNSIGNED-PAYLOAD"
};

// "Param1=value1&Param2=value2": every name and value URI-encoded, sorted by name then value.
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);
// Also returns the signed header list ("host;x-amz-date") through `signed_headers`.
std::string CanonicalRequest(const Request& req, std::string* signed_headers);
// amz_date: "20150830T123600Z"; scope: "20150830/us-east-1/service/aws4_request".
std::string StringToSign(const std::string& amz_date, const std::string& scope, const std::string& canonical_request);
// Hex signature: HMAC chain over date, region, service, "aws4_request".
std::string Signature(const std::string& secret, const std::string& date, const std::string& region,
                      const std::string& service, const std::string& string_to_sign);
// The whole Authorization header value.
std::string Authorization(const std::string& access_key_id, const std::string& secret, const std::string& region,
                          const std::string& service, const std::string& amz_date, const Request& req);

}  // namespace rap::io::sigv4
