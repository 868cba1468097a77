// StoreOptions (rap/io/store_options.h): per-call store settings over the environment.
#include "rap/io/store_options.h"

#include <cstdlib>
#include <cstring>

#include "rap/io/sigv4.h"

namespace rap::io {

namespace {

// The field that carries environment variable `name`, or null.
const std::optional<std::string>* FieldOf(const StoreOptions& o, const char* name) {
  struct Entry {
    const char* var;
    std::optional<std::string> StoreOptions::*field;
  };
  static const Entry kEntries[] = {
      {"AWS_ENDPOINT_URL_S3", &StoreOptions::endpoint},
      {"AWS_ENDPOINT_URL", &StoreOptions::endpoint},
      {"AWS_REGION", &StoreOptions::region},
      {"AWS_DEFAULT_REGION", &StoreOptions::region},
      {"AWS_ACCESS_KEY_ID", &StoreOptions::access_key_id},
      {"AWS_SECRET_ACCESS_KEY", &StoreOptions::secret_access_key},
      {"AWS_SESSION_TOKEN", &StoreOptions::session_token},
      {"AWS_PROFILE", &StoreOptions::profile},
      {"AWS_SHARED_CREDENTIALS_FILE", &StoreOptions::shared_credentials_file},
      {"AWS_CONFIG_FILE", &StoreOptions::config_file},
      {"RAP_S3_ANONYMOUS", &StoreOptions::anonymous},
      {"RAP_CA_BUNDLE", &StoreOptions::ca_bundle},
      {"CURL_CA_BUNDLE", &StoreOptions::ca_bundle},
      {"SSL_CERT_FILE", &StoreOptions::ca_bundle},
      {"SSL_CERT_DIR", &StoreOptions::ca_dir},
      {"RAP_HTTP_INSECURE", &StoreOptions::insecure},
      {"RAP_HTTP_CONNECT_TIMEOUT_S", &StoreOptions::connect_timeout},
      {"RAP_HTTP_DEADLINE_S", &StoreOptions::timeout},
      {"RAP_HTTP_LOW_SPEED_TIME_S", &StoreOptions::low_speed_time},
      {"RAP_HTTP_MAX_ATTEMPTS", &StoreOptions::max_attempts},
      {"RAP_HTTP_MAX_CONCURRENCY", &StoreOptions::max_concurrency},
      {"RAP_HTTP_HEDGE", &StoreOptions::hedge},
      {"RAP_CACHE_DIR", &StoreOptions::cache_dir},
      {"RAP_CACHE_SIZE", &StoreOptions::cache_size},
  };
  for (const Entry& e : kEntries) {
    if (std::strcmp(e.var, name) == 0) return &(o.*e.field);
  }
  return nullptr;
}

}  // namespace

std::string StoreOptions::Get(const char* name) const {
  if (const std::optional<std::string>* f = FieldOf(*this, name); f && f->has_value()) return **f;
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool StoreOptions::empty() const { return CacheKey().empty(); }

std::string StoreOptions::CacheKey() const {
  std::string plain;
  for (const auto* f : {&endpoint, &region, &access_key_id, &profile, &shared_credentials_file, &config_file, &anonymous,
                        &ca_bundle, &ca_dir, &insecure, &connect_timeout, &timeout, &low_speed_time, &max_attempts,
                        &max_concurrency, &hedge, &cache_dir, &cache_size}) {
    plain += f->has_value() ? "=" + **f + "\x1f" : std::string("-\x1f");
  }
  const bool any = plain.find('=') != std::string::npos || secret_access_key || session_token;
  if (!any) return "";
  return plain + sigv4::Sha256Hex(secret_access_key.value_or("") + "\n" + session_token.value_or(""));
}

}  // namespace rap::io
