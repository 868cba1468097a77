// HttpOptions: transport settings of the HTTP(S) and S3 stores: retries with exponential backoff
// and full jitter, the overall deadline of one read, stall detection and concurrency limits.
#pragma once

#include <string>

namespace rap::io {

struct HttpOptions {
  // Attempts per request (first try included). Retried: connection errors, timeouts and stalls,
  // HTTP 5xx and 429 (S3 SlowDown is a 503), and responses that fail the integrity checks.
  int max_attempts = 6;
  double initial_backoff_s = 0.1;  // backoff before retry k is uniform in [0, min(max, initial * 2^k)]
  double max_backoff_s = 5.0;
  double max_retry_after_s = 30.0;  // a longer Retry-After fails the request instead of waiting
  double deadline_s = 300.0;        // overall deadline of one call (all its requests and retries)
  double connect_timeout_s = 10.0;
  // A transfer slower than low_speed_bytes_per_s for low_speed_time_s seconds is aborted and retried.
  long low_speed_bytes_per_s = 1024;
  long low_speed_time_s = 20;
  int max_endpoint_concurrency = 64;  // requests in flight per endpoint, across all reads
  bool http2 = true;                  // HTTP/2 over TLS where the server offers it (ALPN); http:// stays HTTP/1.1
  // TLS trust. Empty: libcurl's built-in system bundle. ca_file is a PEM bundle of trusted
  // certificates (e.g. a private CA or a test server's self-signed certificate), ca_dir an
  // OpenSSL hashed certificate directory; both may be set.
  std::string ca_file;
  std::string ca_dir;
  // false skips certificate and host name verification (insecure; for debugging only).
  bool verify_tls = true;
  std::string user_agent = "rap/0.1";
};

// Reads overrides from the environment: RAP_HTTP_MAX_ATTEMPTS, RAP_HTTP_DEADLINE_S,
// RAP_HTTP_CONNECT_TIMEOUT_S, RAP_HTTP_LOW_SPEED_TIME_S, RAP_HTTP_INSECURE=1; ca_file from
// RAP_CA_BUNDLE, else CURL_CA_BUNDLE, else SSL_CERT_FILE (the variables the curl tool and OpenSSL
// honour; libcurl itself reads none of them), ca_dir from SSL_CERT_DIR.
HttpOptions HttpOptionsFromEnv();

}  // namespace rap::io
