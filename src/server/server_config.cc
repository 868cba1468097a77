// `rap serve` configuration file and flag parsing (include/rap/server/server_config.h).
#include "rap/server/server_config.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/table/iceberg_metadata.h"

namespace rap::server {
namespace {

using json = nlohmann::json;

bool ValidTableName(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

template <typename T>
Status ReadNumber(const json& v, const std::string& where, T* out) {
  if (!v.is_number()) return Status::InvalidArgument(where + ": expected a number, got " + v.dump());
  if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer() || (std::is_unsigned_v<T> && v.get<int64_t>() < 0)) {
      return Status::InvalidArgument(where + ": expected a non-negative integer, got " + v.dump());
    }
  }
  *out = v.get<T>();
  return Status::OK();
}

Status ParseLimits(const json& j, const std::string& where, ServerLimits* l) {
  if (!j.is_object()) return Status::InvalidArgument(where + ": expected an object");
  for (const auto& [key, v] : j.items()) {
    const std::string w = where + "." + key;
    if (key == "max_in_flight") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_in_flight));
    else if (key == "max_queued") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_queued));
    else if (key == "max_connections") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_connections));
    else if (key == "max_keys") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_keys));
    else if (key == "max_body_bytes") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_body_bytes));
    else if (key == "max_header_bytes") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_header_bytes));
    else if (key == "max_response_bytes") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_response_bytes));
    else if (key == "max_scan_rows") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->max_scan_rows));
    else if (key == "request_deadline_s") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->request_deadline_s));
    else if (key == "read_timeout_s") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->read_timeout_s));
    else if (key == "idle_timeout_s") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->idle_timeout_s));
    else if (key == "write_timeout_s") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->write_timeout_s));
    else if (key == "retry_after_s") RAP_RETURN_NOT_OK(ReadNumber(v, w, &l->retry_after_s));
    else return Status::InvalidArgument(w + ": unknown limit");
  }
  if (l->max_in_flight < 1 || l->max_in_flight > 1024) {
    return Status::InvalidArgument(where + ".max_in_flight: expected 1..1024");
  }
  return Status::OK();
}

// A table's `snapshot`, `as_of` and `location_map` settings (docs/server.md, docs/iceberg.md).
Status SetTableSnapshot(const std::string& where, int64_t id, TableConfig* tc) {
  if (id < 0) return Status::InvalidArgument(where + ": a snapshot id is not negative, got " + std::to_string(id));
  if (tc->as_of_ms) return Status::InvalidArgument(where + ": give a snapshot or an as-of time, not both");
  tc->snapshot_id = id;
  return Status::OK();
}

Status SetTableAsOf(const std::string& where, const std::string& text, TableConfig* tc) {
  if (tc->snapshot_id) return Status::InvalidArgument(where + ": give a snapshot or an as-of time, not both");
  auto ms = table::iceberg::ParseAsOf(text);
  if (!ms.ok()) return Status::InvalidArgument(where + ": " + ms.status().message());
  tc->as_of_ms = *ms;
  return Status::OK();
}

Status AddTableLocationMapping(const std::string& where, const std::string& text, TableConfig* tc) {
  auto pair = table::iceberg::ParseLocationMapping(text);
  if (!pair.ok()) return Status::InvalidArgument(where + ": " + pair.status().message());
  tc->location_map.push_back(std::move(*pair));
  return Status::OK();
}

Status ParseTableObject(const json& t, const std::string& where, TableConfig* tc) {
  tc->url = t["url"].get<std::string>();
  for (const auto& [tk, tv] : t.items()) {
    const std::string w = where + "." + tk;
    if (tk == "url") continue;
    if (tk == "index") {
      if (!tv.is_string()) return Status::InvalidArgument(w + ": expected a URL string");
      tc->index_url = tv.get<std::string>();
    } else if (tk == "snapshot") {
      if (!tv.is_number_integer()) return Status::InvalidArgument(w + ": expected a snapshot id (an integer), got " + tv.dump());
      RAP_RETURN_NOT_OK(SetTableSnapshot(w, tv.get<int64_t>(), tc));
    } else if (tk == "as_of") {
      if (tv.is_number_integer()) {
        RAP_RETURN_NOT_OK(SetTableAsOf(w, std::to_string(tv.get<int64_t>()), tc));
      } else if (tv.is_string()) {
        RAP_RETURN_NOT_OK(SetTableAsOf(w, tv.get<std::string>(), tc));
      } else {
        return Status::InvalidArgument(w + ": expected ms since the epoch or a UTC time string, got " + tv.dump());
      }
    } else if (tk == "location_map") {
      // An array, applied in its order as repeated --location-map flags are (an object's keys have no order).
      if (!tv.is_array()) return Status::InvalidArgument(w + ": expected an array of \"OLD=NEW\" strings");
      for (size_t i = 0; i < tv.size(); ++i) {
        const std::string wi = w + "[" + std::to_string(i) + "]";
        if (!tv[i].is_string()) return Status::InvalidArgument(wi + ": expected an \"OLD=NEW\" string, got " + tv[i].dump());
        RAP_RETURN_NOT_OK(AddTableLocationMapping(wi, tv[i].get<std::string>(), tc));
      }
    } else {
      return Status::InvalidArgument(w + ": unknown key (url, index, snapshot, as_of, location_map)");
    }
  }
  return Status::OK();
}

}  // namespace

Status ParseServerConfig(const std::string& json_text, const std::string& origin, ServerOptions* o) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument(origin + ": not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument(origin + ": expected a JSON object");
  for (const auto& [key, v] : j.items()) {
    const std::string w = origin + ": " + key;
    if (key == "listen") {
      if (!v.is_string()) return Status::InvalidArgument(w + ": expected a string \"host:port\"");
      RAP_ASSIGN_OR_RETURN(auto hp, ParseListen(v.get<std::string>()));
      o->host = hp.first;
      o->port = hp.second;
    } else if (key == "tables") {
      if (!v.is_object()) return Status::InvalidArgument(w + ": expected an object name -> {url, index}");
      for (const auto& [name, t] : v.items()) {
        TableConfig tc;
        tc.name = name;
        if (!ValidTableName(name)) return Status::InvalidArgument(w + ": table name '" + name + "' is not [A-Za-z0-9_.-]+");
        if (t.is_string()) {
          tc.url = t.get<std::string>();
        } else if (t.is_object() && t.contains("url") && t["url"].is_string()) {
          RAP_RETURN_NOT_OK(ParseTableObject(t, w + "." + name, &tc));
        } else {
          return Status::InvalidArgument(w + "." + name + ": expected a URL string or {\"url\": ..., \"index\": ...}");
        }
        o->tables.push_back(std::move(tc));
      }
    } else if (key == "limits") {
      RAP_RETURN_NOT_OK(ParseLimits(v, w, &o->limits));
    } else if (key == "io_threads") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->io_threads));
    } else if (key == "scan_threads") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->scan_threads));
    } else if (key == "index_cache_bytes") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->index_cache_bytes));
      if (o->index_cache_bytes < 0) return Status::InvalidArgument(w + ": expected a byte count >= 0");
    } else if (key == "data_cache_bytes") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->data_cache_bytes));
      if (o->data_cache_bytes < 0) return Status::InvalidArgument(w + ": expected a byte count >= 0");
    } else if (key == "refresh_interval_s") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->refresh_interval_s));
    } else if (key == "access_log") {
      if (!v.is_string()) return Status::InvalidArgument(w + ": expected a string");
      o->access_log = v.get<std::string>();
    } else if (key == "hedge_reads") {
      if (!v.is_boolean()) return Status::InvalidArgument(w + ": expected true or false");
      o->hedge_reads = v.get<bool>();
    } else if (key == "hedge_quantile") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->hedge_quantile));
      if (!(o->hedge_quantile > 0 && o->hedge_quantile < 1)) return Status::InvalidArgument(w + ": expected a number in (0, 1)");
    } else if (key == "hedge_max_extra") {
      RAP_RETURN_NOT_OK(ReadNumber(v, w, &o->hedge_max_extra));
      if (!(o->hedge_max_extra >= 0 && o->hedge_max_extra <= 1)) return Status::InvalidArgument(w + ": expected a number in [0, 1]");
    } else if (key == "inline_local_lookups") {
      if (!v.is_boolean()) return Status::InvalidArgument(w + ": expected true or false");
      o->inline_local_lookups = v.get<bool>();
    } else if (key == "require_index") {
      if (!v.is_boolean()) return Status::InvalidArgument(w + ": expected true or false");
      o->require_index = v.get<bool>();
    } else {
      return Status::InvalidArgument(w + ": unknown key");
    }
  }
  return Status::OK();
}

Status LoadServerConfig(const std::string& path, ServerOptions* options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("config file " + path + ": cannot be opened");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseServerConfig(ss.str(), path, options);
}

Result<std::pair<std::string, uint16_t>> ParseListen(const std::string& text) {
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Status::InvalidArgument("listen address '" + text + "': expected [v6-address]:port");
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return Status::InvalidArgument("listen address '" + text + "': expected host:port");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) host = "127.0.0.1";
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    return Status::InvalidArgument("listen address '" + text + "': port '" + port + "' is not 0..65535");
  }
  return std::make_pair(host, static_cast<uint16_t>(std::stoi(port)));
}

Result<TableConfig> ParseTableFlag(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return Status::InvalidArgument("--table '" + text + "': expected name=URL");
  TableConfig t;
  t.name = text.substr(0, eq);
  if (!ValidTableName(t.name)) {
    return Status::InvalidArgument("--table: table name '" + t.name + "' is not [A-Za-z0-9_.-]+");
  }
  // The URL, then ",key=value" settings in any order (the first ",<known key>=" ends the URL).
  const std::string rest = text.substr(eq + 1);
  static const char* const kKeys[] = {",index=", ",snapshot=", ",as-of=", ",location-map="};
  auto next_setting = [&](size_t from) {
    size_t best = std::string::npos;
    for (const char* k : kKeys) best = std::min(best, rest.find(k, from));
    return best;
  };
  size_t pos = next_setting(0);
  t.url = rest.substr(0, pos);
  if (t.url.empty()) return Status::InvalidArgument("--table " + t.name + ": empty URL");
  const std::string where = "--table " + t.name;
  while (pos != std::string::npos) {
    const size_t key_end = rest.find('=', pos);
    const std::string key = rest.substr(pos + 1, key_end - pos - 1);
    const size_t next = next_setting(key_end + 1);
    const std::string value = rest.substr(key_end + 1, next == std::string::npos ? std::string::npos : next - key_end - 1);
    const std::string w = where + " " + key;
    if (key == "index") {
      if (value.empty()) return Status::InvalidArgument(w + ": empty URL");
      t.index_url = value;
    } else if (key == "snapshot") {
      int64_t id = -1;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), id);
      if (ec != std::errc() || end != value.data() + value.size()) {
        return Status::InvalidArgument(w + ": '" + value + "' is not a snapshot id");
      }
      RAP_RETURN_NOT_OK(SetTableSnapshot(w, id, &t));
    } else if (key == "as-of") {
      RAP_RETURN_NOT_OK(SetTableAsOf(w, value, &t));
    } else {
      RAP_RETURN_NOT_OK(AddTableLocationMapping(w, value, &t));
    }
    pos = next;
  }
  return t;
}

std::string RedactUrl(const std::string& url) {
  std::string out = url;
  const size_t q = out.find('?');
  if (q != std::string::npos) out = out.substr(0, q) + "?<redacted>";
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t host_begin = scheme + 3;
    const size_t slash = out.find('/', host_begin);
    const size_t at = out.rfind('@', slash == std::string::npos ? out.size() : slash);
    if (at != std::string::npos && at >= host_begin) out = out.substr(0, host_begin) + "<redacted>@" + out.substr(at + 1);
  }
  return out;
}

}  // namespace rap::server
