#include "rap/io/s3_config.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "rap/io/sigv4.h"
#include "rap/io/store_options.h"

namespace rap::io {

namespace {


std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

using Section = std::map<std::string, std::string>;

// Parses an AWS shared INI file: "[section]" headers and "key = value" lines ('#'/';' comments).
// Nested sub-sections (indented "s3 =" blocks) are skipped. Missing file: empty.
std::map<std::string, Section> ParseIni(const std::string& path) {
  std::map<std::string, Section> out;
  std::ifstream in(path);
  std::string line, section;
  while (std::getline(in, line)) {
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) continue;  // nested settings
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      out[section];
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos || section.empty()) continue;
    out[section][Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
  }
  return out;
}

std::string HomeFile(const char* rel) {
  const char* h = std::getenv("HOME");
  std::string home = h ? h : "";
  return home.empty() ? std::string() : home + "/" + rel;
}

}  // namespace

std::string S3Config::DescribeCredentials() const {
  if (anonymous) return "anonymous access (" + credentials_source + ")";
  return "access key id '" + access_key_id + "' (from " + credentials_source + ")";
}

std::string S3Config::CacheKey() const {
  return endpoint_url + "|" + region + "|" + (anonymous ? "anon" : access_key_id) + "|" +
         sigv4::Sha256Hex(secret_access_key + "\n" + session_token);
}

Result<S3Config> LoadS3Config() { return LoadS3Config(StoreOptions{}); }

Result<S3Config> LoadS3Config(const StoreOptions& options) {
  auto Env = [&options](const char* name) { return options.Get(name); };
  S3Config c;
  std::string profile = Env("AWS_PROFILE");
  bool explicit_profile = !profile.empty();
  if (profile.empty()) profile = "default";
  std::string cred_path = Env("AWS_SHARED_CREDENTIALS_FILE");
  if (cred_path.empty()) cred_path = HomeFile(".aws/credentials");
  std::string conf_path = Env("AWS_CONFIG_FILE");
  if (conf_path.empty()) conf_path = HomeFile(".aws/config");
  auto creds = cred_path.empty() ? std::map<std::string, Section>{} : ParseIni(cred_path);
  auto conf = conf_path.empty() ? std::map<std::string, Section>{} : ParseIni(conf_path);
  const Section* cred_sec = creds.count(profile) ? &creds.at(profile) : nullptr;
  std::string conf_name = profile == "default" ? "default" : "profile " + profile;
  const Section* conf_sec = conf.count(conf_name) ? &conf.at(conf_name) : nullptr;
  if (explicit_profile && !cred_sec && !conf_sec) {
    return Status::InvalidArgument("AWS_PROFILE '" + profile + "' not found in " + cred_path + " or " + conf_path);
  }
  auto get = [](const Section* s, const char* key) {
    if (!s) return std::string();
    auto it = s->find(key);
    return it == s->end() ? std::string() : it->second;
  };

  std::string env_key = Env("AWS_ACCESS_KEY_ID"), env_secret = Env("AWS_SECRET_ACCESS_KEY");
  if (!env_key.empty() || !env_secret.empty()) {
    if (env_key.empty() || env_secret.empty()) {
      return Status::InvalidArgument("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together");
    }
    c.access_key_id = env_key;
    c.secret_access_key = env_secret;
    c.session_token = Env("AWS_SESSION_TOKEN");
    c.credentials_source = "environment";
  } else {
    for (auto [sec, path] : {std::pair{cred_sec, cred_path}, std::pair{conf_sec, conf_path}}) {
      std::string k = get(sec, "aws_access_key_id"), s = get(sec, "aws_secret_access_key");
      if (k.empty() && s.empty()) continue;
      if (k.empty() || s.empty()) {
        return Status::InvalidArgument("profile '" + profile + "' in " + path +
                                       ": aws_access_key_id and aws_secret_access_key must be set together");
      }
      c.access_key_id = k;
      c.secret_access_key = s;
      c.session_token = get(sec, "aws_session_token");
      c.credentials_source = "profile '" + profile + "' in " + path;
      break;
    }
  }
  if (c.access_key_id.empty()) {
    c.anonymous = true;
    c.credentials_source = "no credentials found";
  }
  if (Env("RAP_S3_ANONYMOUS") == "1") {
    c.anonymous = true;
    c.credentials_source = "RAP_S3_ANONYMOUS=1";
  }

  c.region = Env("AWS_REGION");
  if (c.region.empty()) c.region = Env("AWS_DEFAULT_REGION");
  if (c.region.empty()) c.region = get(conf_sec, "region");
  if (c.region.empty()) c.region = "us-east-1";

  c.endpoint_url = Env("AWS_ENDPOINT_URL_S3");
  if (c.endpoint_url.empty()) c.endpoint_url = Env("AWS_ENDPOINT_URL");
  if (c.endpoint_url.empty()) c.endpoint_url = get(conf_sec, "endpoint_url");
  while (!c.endpoint_url.empty() && c.endpoint_url.back() == '/') c.endpoint_url.pop_back();
  if (!c.endpoint_url.empty() && c.endpoint_url.rfind("http://", 0) != 0 && c.endpoint_url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("S3 endpoint '" + c.endpoint_url + "' must start with http:// or https://");
  }
  return c;
}

}  // namespace rap::io
