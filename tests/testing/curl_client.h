// A small libcurl client for tests of `rap serve` (header-only: the tests that include it link
// libcurl through rap::io). One CurlClient is one easy handle, so consecutive requests reuse the
// connection (keep-alive); `connects` says how many new connections a request opened.
#pragma once

#include <curl/curl.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rap::testing {

struct CurlResponse {
  long status = 0;                 // 0: transport failure (see error)
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string error;               // curl's message when status == 0 or the transfer broke
  long connects = 0;               // new connections this request opened
  bool complete = true;            // false when the transfer ended early (e.g. an aborted chunked body)
  std::string Header(const std::string& lower) const {
    auto it = headers.find(lower);
    return it == headers.end() ? std::string() : it->second;
  }
};

class CurlClient {
 public:
  explicit CurlClient(std::string base_url, double timeout_s = 30) : base_(std::move(base_url)), timeout_s_(timeout_s) {
    curl_ = curl_easy_init();
  }
  ~CurlClient() { curl_easy_cleanup(curl_); }
  CurlClient(const CurlClient&) = delete;
  CurlClient& operator=(const CurlClient&) = delete;

  CurlResponse Get(const std::string& path, const std::vector<std::string>& headers = {}) {
    return Do("GET", path, "", headers);
  }
  CurlResponse Post(const std::string& path, const std::string& body, const std::vector<std::string>& headers = {}) {
    return Do("POST", path, body, headers);
  }

  CurlResponse Do(const std::string& method, const std::string& path, const std::string& body,
                  const std::vector<std::string>& headers) {
    CurlResponse r;
    curl_easy_reset(curl_);
    const std::string url = base_ + path;
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s_ * 1000));
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &CurlClient::OnBody);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, &CurlClient::OnHeader);
    curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &r.headers);
    if (method == "POST") {
      curl_easy_setopt(curl_, CURLOPT_POST, 1L);
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    } else if (method != "GET") {
      curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    curl_slist* list = nullptr;
    for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
    if (list) curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, list);
    const CURLcode code = curl_easy_perform(curl_);
    if (list) curl_slist_free_all(list);
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_getinfo(curl_, CURLINFO_NUM_CONNECTS, &r.connects);
    if (code != CURLE_OK) {
      r.error = curl_easy_strerror(code);
      r.complete = false;
    }
    return r;
  }

 private:
  static size_t OnBody(char* p, size_t size, size_t n, void* ud) {
    static_cast<std::string*>(ud)->append(p, size * n);
    return size * n;
  }
  static size_t OnHeader(char* p, size_t size, size_t n, void* ud) {
    std::string line(p, size * n);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ')) value.erase(value.begin());
      while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
      (*static_cast<std::map<std::string, std::string>*>(ud))[name] = value;
    }
    return size * n;
  }
  std::string base_;
  double timeout_s_;
  CURL* curl_ = nullptr;
};

}  // namespace rap::testing
