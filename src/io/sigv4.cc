#include "rap/io/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <map>

#include "io/http_util.h"
#include "rap/util/hex.h"

namespace rap::io::sigv4 {

std::string Hex(std::string_view bytes) { return LowerHex(bytes); }

std::string Sha256Hex(std::string_view data) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  return Hex(std::string_view(reinterpret_cast<const char*>(md), sizeof(md)));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), md, &len);
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> enc;
  enc.reserve(query.size());
  for (const auto& [k, v] : query) enc.emplace_back(UriEncode(k, false), UriEncode(v, false));
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [k, v] : enc) {
    if (!out.empty()) out += '&';
    out += k + "=" + v;
  }
  return out;
}

static std::string CanonicalHeaderValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string CanonicalRequest(const Request& req, std::string* signed_headers) {
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : req.headers) {
    std::string key = ToLower(name);
    std::string val = CanonicalHeaderValue(value);
    auto it = headers.find(key);
    if (it == headers.end()) {
      headers.emplace(key, val);
    } else {
      it->second += "," + val;
    }
  }
  std::string canon_headers, signed_list;
  for (const auto& [k, v] : headers) {
    canon_headers += k + ":" + v + "\n";
    if (!signed_list.empty()) signed_list += ';';
    signed_list += k;
  }
  if (signed_headers) *signed_headers = signed_list;
  return req.method + "\n" + (req.canonical_uri.empty() ? "/" : req.canonical_uri) + "\n" + CanonicalQuery(req.query) +
         "\n" + canon_headers + "\n" + signed_list + "\n" + req.payload_hash;
}

std::string StringToSign(const std::string& amz_date, const std::string& scope, const std::string& canonical_request) {
  return "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + Sha256Hex(canonical_request);
}

std::string Signature(const std::string& secret, const std::string& date, const std::string& region,
                      const std::string& service, const std::string& string_to_sign) {
  std::string k = HmacSha256("AWS4" + secret, date);
  k = HmacSha256(k, region);
  k = HmacSha256(k, service);
  k = HmacSha256(k, "aws4_request");
  return Hex(HmacSha256(k, string_to_sign));
}

std::string Authorization(const std::string& access_key_id, const std::string& secret, const std::string& region,
                          const std::string& service, const std::string& amz_date, const Request& req) {
  std::string date = amz_date.substr(0, 8);
  std::string scope = date + "/" + region + "/" + service + "/aws4_request";
  std::string signed_headers;
  std::string creq = CanonicalRequest(req, &signed_headers);
  std::string sig = Signature(secret, date, region, service, StringToSign(amz_date, scope, creq));
  return "AWS4-HMAC-SHA256 Credential=" + access_key_id + "/" + scope + ", SignedHeaders=" + signed_headers +
         ", Signature=" + sig;
}

}  // namespace rap::io::sigv4
