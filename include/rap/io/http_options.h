// HttpOptions: transport settings of the HTTP(S) and S3 stores: retries with exponential backoff
// and full jitter, the overall deadline of one read, stall detection and concurrency limits.
#pragma once

#include <cstdint>
#include <string>

namespace rap::io {

// Hedged range reads (The Tail at Scale): a range request of at most `max_bytes` that has not
// completed `delay` after it was issued gets a duplicate; the first complete response wins and the
// others are cancelled. The delay is the endpoint's observed `quantile` latency (never less than
// `min_delay_s`), where a request whose duplicate won counts with the time its original had been
// outstanding (so hedged stalls stay in the tail they are part of). A duplicate that is itself
// unanswered after the delay gets the next one, up to `max_duplicates`. Duplicates are capped at
// `max_fraction` of the endpoint's requests over any run of them, plus `burst` (a token bucket,
// src/io/hedge_policy.h). Failed and cancelled copies teach
// nothing, and no duplicate is sent before `min_samples` requests were observed. Completion rather
// than the first byte: for the small reads that are hedged the two differ by one network read, and a
// response whose headers arrive but whose body stalls is a slow request too.
//
// The quantile is 97.5%, not The Tail at Scale's 95%: with a 5% cap, a p95 delay makes the
// ordinary 5% tail alone as large as the budget, and the stalled requests compete with it for
// duplicates. bench_serve's stall runs (2% of data requests stalled 1 s, 5 ms latency): p99 177 ms
// at 95%, 86 ms at 97.5% (docs/benchmarks/serve.md).
struct HedgeOptions {
  bool enabled = false;
  double quantile = 0.975;
  double min_delay_s = 0.010;  // the floor; The Tail at Scale hedged BigTable reads after 10 ms
  double max_fraction = 0.05;
  int burst = 2;
  int min_samples = 20;
  uint64_t max_bytes = 1 << 20;
  // The share of the budget kept for requests still unanswered after reserve_after x the delay
  // (~5% of ordinary requests outlive a p95 delay and can spend a 5% budget before a real stall
  // asks). Off by default: with 0.5, bench_serve's stall runs sent half the hedges and got a worse
  // p99 (docs/benchmarks/serve.md), the reserve was hardly used.
  double reserve_fraction = 0.0;
  double reserve_after = 4.0;
  // Duplicates per request: a duplicate that has itself gone unanswered for the delay gets the
  // next one (within the budget). With one, a request whose copy stalls too (p^2 of requests for a
  // stall probability p) keeps the whole stall, and one such request holds back every lookup it
  // belongs to.
  int max_duplicates = 2;
};

// The process-wide default of HttpOptions::hedge for stores created from now on (OpenUrl,
// HttpOptionsFromEnv). `rap serve` enables it; RAP_HTTP_HEDGE=0/1 overrides it.
void SetDefaultHedgeOptions(const HedgeOptions& options);
HedgeOptions DefaultHedgeOptions();

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
  HedgeOptions hedge;  // off unless enabled (see above)
};

// Reads overrides from the environment: RAP_HTTP_MAX_ATTEMPTS, RAP_HTTP_DEADLINE_S,
// RAP_HTTP_CONNECT_TIMEOUT_S, RAP_HTTP_LOW_SPEED_TIME_S, RAP_HTTP_INSECURE=1; ca_file from
// RAP_CA_BUNDLE, else CURL_CA_BUNDLE, else SSL_CERT_FILE (the variables the curl tool and OpenSSL
// honour; libcurl itself reads none of them), ca_dir from SSL_CERT_DIR.
HttpOptions HttpOptionsFromEnv();

}  // namespace rap::io
