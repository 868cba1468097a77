// Status -> rap.Error subclass (python/rap/errors.py), and storage_options -> environment overlay.
#include <cstdlib>
#include <map>
#include <string>

#include <nanobind/stl/string.h>

#include "binding.h"
#include "rap/util/units.h"

namespace rap::py {

void Raise(const Status& status) {
  const char* name = "Error";
  switch (status.code()) {
    case StatusCode::kInvalidArgument: name = "InvalidArgument"; break;
    case StatusCode::kCorrupt: name = "Corrupt"; break;
    case StatusCode::kNotFound: name = "NotFound"; break;
    case StatusCode::kAccessDenied: name = "AccessDenied"; break;
    case StatusCode::kIOError: name = "IOError"; break;
    case StatusCode::kTimeout: name = "Timeout"; break;
    case StatusCode::kCancelled: name = "Cancelled"; break;
    case StatusCode::kChanged: name = "Changed"; break;
    case StatusCode::kNotSupported: name = "NotSupported"; break;
    case StatusCode::kResourceExhausted: name = "ResourceExhausted"; break;
    case StatusCode::kInternal: name = "Internal"; break;
    case StatusCode::kOk: name = "Internal"; break;
  }
  nb::gil_scoped_acquire gil;  // callers may hold it already (re-entrant)
  nb::object cls = nb::module_::import_("rap.errors").attr(name);
  PyErr_SetString(cls.ptr(), status.message().c_str());
  throw nb::python_error();
}

namespace {

// storage_options key -> the environment variable(s) it sets (rap/io/s3_config.h, http_store.cc).
const std::map<std::string, std::vector<std::string>>& OptionVariables() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"endpoint", {"AWS_ENDPOINT_URL_S3"}},
      {"endpoint_url", {"AWS_ENDPOINT_URL_S3"}},
      {"region", {"AWS_REGION"}},
      {"access_key_id", {"AWS_ACCESS_KEY_ID"}},
      {"secret_access_key", {"AWS_SECRET_ACCESS_KEY"}},
      {"session_token", {"AWS_SESSION_TOKEN"}},
      {"profile", {"AWS_PROFILE"}},
      {"shared_credentials_file", {"AWS_SHARED_CREDENTIALS_FILE"}},
      {"config_file", {"AWS_CONFIG_FILE"}},
      {"anonymous", {"RAP_S3_ANONYMOUS"}},
      {"ca_bundle", {"RAP_CA_BUNDLE"}},
      {"ca_dir", {"SSL_CERT_DIR"}},
      {"insecure", {"RAP_HTTP_INSECURE"}},
      {"connect_timeout", {"RAP_HTTP_CONNECT_TIMEOUT_S"}},
      {"timeout", {"RAP_HTTP_DEADLINE_S"}},
      {"low_speed_time", {"RAP_HTTP_LOW_SPEED_TIME_S"}},
      {"max_attempts", {"RAP_HTTP_MAX_ATTEMPTS"}},
      {"max_concurrency", {"RAP_HTTP_MAX_CONCURRENCY"}},
      {"hedge", {"RAP_HTTP_HEDGE"}},
      {"cache_dir", {"RAP_CACHE_DIR"}},
      {"cache_size", {"RAP_CACHE_SIZE"}},
  };
  return m;
}

}  // namespace

uint64_t ByteSizeArg(const char* what, nb::handle v) {
  if (nb::isinstance<nb::int_>(v) && !nb::isinstance<nb::bool_>(v)) {
    const long long x = nb::cast<long long>(v);
    if (x < 0) Raise(Status::InvalidArgument(std::string(what) + ": " + std::to_string(x) + " is negative"));
    return static_cast<uint64_t>(x);
  }
  if (!nb::isinstance<nb::str>(v)) {
    Raise(Status::InvalidArgument(std::string(what) + ": expected an int (bytes) or a size such as '512MiB'"));
  }
  auto b = ParseByteSize(nb::cast<std::string>(v));
  if (!b.ok()) Raise(Status::InvalidArgument(std::string(what) + ": " + b.status().message()));
  return *b;
}

EnvOverlay ParseStorageOptions(const nb::handle& options) {
  EnvOverlay out;
  if (options.is_none()) return out;
  if (!nb::isinstance<nb::dict>(options)) {
    Raise(Status::InvalidArgument("storage_options: expected a dict, got " +
                                  nb::cast<std::string>(nb::str(options.type().attr("__name__")))));
  }
  for (auto [k, v] : nb::borrow<nb::dict>(options)) {
    if (!nb::isinstance<nb::str>(k)) Raise(Status::InvalidArgument("storage_options: keys must be strings"));
    const std::string key = nb::cast<std::string>(k);
    auto it = OptionVariables().find(key);
    if (it == OptionVariables().end()) {
      std::string known;
      for (const auto& [name, vars] : OptionVariables()) known += (known.empty() ? "" : ", ") + name;
      Raise(Status::InvalidArgument("storage_options: unknown key '" + key + "' (known: " + known + ")"));
    }
    std::optional<std::string> value;
    if (v.is_none()) {
      value = std::nullopt;  // unset the variable
    } else if (nb::isinstance<nb::bool_>(v)) {
      value = nb::cast<bool>(v) ? "1" : "0";
    } else if (nb::isinstance<nb::int_>(v) || nb::isinstance<nb::float_>(v) || nb::isinstance<nb::str>(v)) {
      value = nb::cast<std::string>(nb::str(v));
    } else {
      Raise(Status::InvalidArgument("storage_options['" + key + "']: expected a str, bool or number"));
    }
    for (const std::string& var : it->second) out.emplace_back(var, value);
    if (key == "endpoint" || key == "endpoint_url") out.emplace_back("AWS_ENDPOINT_URL", value);
    if (key == "region") out.emplace_back("AWS_DEFAULT_REGION", value);
  }
  return out;
}

std::shared_ptr<const io::StoreOptions> ParseStoreOptions(const nb::handle& options) {
  if (options.is_none()) return nullptr;
  static const std::map<std::string, std::optional<std::string> io::StoreOptions::*> fields = {
      {"endpoint", &io::StoreOptions::endpoint},
      {"endpoint_url", &io::StoreOptions::endpoint},
      {"region", &io::StoreOptions::region},
      {"access_key_id", &io::StoreOptions::access_key_id},
      {"secret_access_key", &io::StoreOptions::secret_access_key},
      {"session_token", &io::StoreOptions::session_token},
      {"profile", &io::StoreOptions::profile},
      {"shared_credentials_file", &io::StoreOptions::shared_credentials_file},
      {"config_file", &io::StoreOptions::config_file},
      {"anonymous", &io::StoreOptions::anonymous},
      {"ca_bundle", &io::StoreOptions::ca_bundle},
      {"ca_dir", &io::StoreOptions::ca_dir},
      {"insecure", &io::StoreOptions::insecure},
      {"connect_timeout", &io::StoreOptions::connect_timeout},
      {"timeout", &io::StoreOptions::timeout},
      {"low_speed_time", &io::StoreOptions::low_speed_time},
      {"max_attempts", &io::StoreOptions::max_attempts},
      {"max_concurrency", &io::StoreOptions::max_concurrency},
      {"hedge", &io::StoreOptions::hedge},
      {"cache_dir", &io::StoreOptions::cache_dir},
      {"cache_size", &io::StoreOptions::cache_size},
  };
  auto out = std::make_shared<io::StoreOptions>();
  // The dict's checks and value forms are ParseStorageOptions' (one rule for both).
  const EnvOverlay checked = ParseStorageOptions(options);
  (void)checked;
  for (auto [k, v] : nb::borrow<nb::dict>(options)) {
    const std::string key = nb::cast<std::string>(k);
    std::string value;  // None: "" (the setting unset for this call)
    if (nb::isinstance<nb::bool_>(v)) {
      value = nb::cast<bool>(v) ? "1" : "0";
    } else if (!v.is_none()) {
      value = nb::cast<std::string>(nb::str(v));
    }
    (*out).*(fields.at(key)) = value;
  }
  return out;
}

std::mutex& EnvMutex() {
  static std::mutex mu;
  return mu;
}

void ApplyOverlay(const EnvOverlay& overlay, EnvOverlay* saved) {
  for (const auto& [name, value] : overlay) {
    const char* old = std::getenv(name.c_str());
    saved->emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
}

void RestoreOverlay(const EnvOverlay& saved) {
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
    if (it->second) {
      ::setenv(it->first.c_str(), it->second->c_str(), 1);
    } else {
      ::unsetenv(it->first.c_str());
    }
  }
}

}  // namespace rap::py
