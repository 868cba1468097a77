// StoreOptions: per-call settings of the stores io::OpenUrl makes — the settings the environment
// gives (rap/io/s3_config.h, rap/io/http_options.h), one field per setting. A field that is set
// overrides its environment variables for this call; an unset field keeps the environment's value
// (the default), an empty string reads as the variable being unset. Stores are shared per endpoint
// and settings: two calls with different settings get different stores.
#pragma once

#include <optional>
#include <string>

#include "rap/io/http_options.h"
#include "rap/io/object_store.h"
#include "rap/io/s3_config.h"
#include "rap/util/result.h"

namespace rap::io {

struct StoreOptions {
  std::optional<std::string> endpoint;           // AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL
  std::optional<std::string> region;             // AWS_REGION, AWS_DEFAULT_REGION
  std::optional<std::string> access_key_id;      // AWS_ACCESS_KEY_ID
  std::optional<std::string> secret_access_key;  // AWS_SECRET_ACCESS_KEY
  std::optional<std::string> session_token;      // AWS_SESSION_TOKEN
  std::optional<std::string> profile;            // AWS_PROFILE
  std::optional<std::string> shared_credentials_file;  // AWS_SHARED_CREDENTIALS_FILE
  std::optional<std::string> config_file;        // AWS_CONFIG_FILE
  std::optional<std::string> anonymous;          // RAP_S3_ANONYMOUS ("1")
  std::optional<std::string> ca_bundle;          // RAP_CA_BUNDLE, CURL_CA_BUNDLE, SSL_CERT_FILE
  std::optional<std::string> ca_dir;             // SSL_CERT_DIR
  std::optional<std::string> insecure;           // RAP_HTTP_INSECURE ("1")
  std::optional<std::string> connect_timeout;    // RAP_HTTP_CONNECT_TIMEOUT_S (seconds)
  std::optional<std::string> timeout;            // RAP_HTTP_DEADLINE_S (seconds)
  std::optional<std::string> low_speed_time;     // RAP_HTTP_LOW_SPEED_TIME_S (seconds)
  std::optional<std::string> max_attempts;       // RAP_HTTP_MAX_ATTEMPTS
  std::optional<std::string> max_concurrency;    // RAP_HTTP_MAX_CONCURRENCY
  std::optional<std::string> hedge;              // RAP_HTTP_HEDGE ("0"/"1")
  std::optional<std::string> cache_dir;          // RAP_CACHE_DIR (the disk tier, rap/io/disk_cache.h)
  std::optional<std::string> cache_size;         // RAP_CACHE_SIZE ("4GiB" by default)

  // The value of environment variable `name` for this call: the field that carries it when set,
  // else the process environment ("" when neither has it).
  std::string Get(const char* name) const;
  // A key that differs whenever two option sets must not share a store (digests secrets).
  std::string CacheKey() const;
  bool empty() const;
};

// As LoadS3Config() and HttpOptionsFromEnv(), with `options` over the environment.
Result<S3Config> LoadS3Config(const StoreOptions& options);
HttpOptions HttpOptionsFor(const StoreOptions& options);

// As OpenUrl(url), with the stores configured by `options` over the environment.
Result<ResolvedUrl> OpenUrl(const std::string& url, const StoreOptions& options);

}  // namespace rap::io
