#include "server/requests.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rap::server {

using json = nlohmann::json;

// Parses the body; "" on success, else the problem (a 400).
std::string ParseScanRequest(const std::string& body, ScanRequest* r) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return "";
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "request body is not valid JSON";
  if (!j.is_object()) return "request body must be a JSON object";
  for (const auto& [key, v] : j.items()) {
    if (key == "columns") {
      if (!v.is_array()) return "\"columns\" must be an array of column names";
      for (const auto& c : v) {
        if (!c.is_string()) return "\"columns\" must be an array of column names, got " + c.dump();
        r->columns.push_back(c.get<std::string>());
      }
    } else if (key == "where") {
      if (!v.is_string()) return "\"where\" must be a string (a filter expression)";
      r->where = v.get<std::string>();
    } else if (key == "limit") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0) return "\"limit\" must be a non-negative integer";
      r->limit = v.get<int64_t>();
    } else if (key == "index") {
      if (!v.is_string() || v.get<std::string>().empty()) return "\"index\" must be an index name (a string)";
      r->index = v.get<std::string>();
    } else if (key == "no_index") {
      if (!v.is_boolean()) return "\"no_index\" must be true or false";
      r->no_index = v.get<bool>();
    } else {
      return "unknown key \"" + key + "\" (expected columns, where, limit, index, no_index)";
    }
  }
  if (r->no_index && !r->index.empty()) return "give \"index\" or \"no_index\", not both";
  return "";
}

namespace {

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(',', pos);
    if (c == std::string::npos) c = s.size();
    if (c > pos) out.push_back(s.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

// A key given as JSON (a number, a string, or an array of those for a compound key); "" on success.
std::string KeyFromJson(const json& v, size_t key_columns, std::vector<std::string>* parts) {
  auto part = [](const json& p, std::string* out) {
    if (p.is_string()) {
      *out = p.get<std::string>();
    } else if (p.is_number_integer()) {
      *out = p.dump();
    } else {
      return false;
    }
    return true;
  };
  if (v.is_array()) {
    for (const json& p : v) {
      std::string t;
      if (!part(p, &t)) return "a key part must be a string or an integer, got " + p.dump();
      parts->push_back(std::move(t));
    }
  } else {
    std::string t;
    if (!part(v, &t)) return "a key must be a string, an integer or an array of those, got " + v.dump();
    parts->push_back(std::move(t));
  }
  if (parts->size() != key_columns) {
    return fmt::format("key {} has {} parts, the index has {} key columns", v.dump(), parts->size(), key_columns);
  }
  return "";
}

}  // namespace

std::string ParseLookupGet(const HttpRequest& req, size_t key_columns, LookupRequest* r) {
  for (const auto& [k, v] : req.query) {
    if (k == "key") {
      std::vector<std::string> parts;
      if (!v.empty() && v[0] == '[') {
        json j = json::parse(v, nullptr, false);
        if (j.is_discarded()) return "key '" + v + "' is not a valid JSON array";
        if (std::string e = KeyFromJson(j, key_columns, &parts); !e.empty()) return e;
      } else if (key_columns == 1) {
        parts.push_back(v);
      } else {
        const size_t c = v.find(',');
        if (c == std::string::npos) return "compound key '" + v + "' needs two parts: key=a,b or key=[\"a\",\"b\"]";
        parts = {v.substr(0, c), v.substr(c + 1)};
      }
      r->keys.push_back(std::move(parts));
    } else if (k == "columns") {
      for (std::string& c : SplitCommas(v)) r->columns.push_back(std::move(c));
    } else if (k == "limit") {
      if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos) {
        return "limit '" + v + "' is not a non-negative integer";
      }
      r->limit = std::stoll(v);
    } else if (k == "page_token") {
      r->page_tokens.push_back(v);
    } else if (k == "range") {
      r->range = v;
    } else if (k == "prefix") {
      r->prefix = v;
    } else {
      return "unknown query parameter '" + k + "' (expected key, range, prefix, columns, limit, page_token)";
    }
  }
  return "";
}

std::string ParseLookupPost(const std::string& body, size_t key_columns, LookupRequest* r) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "request body is not valid JSON";
  if (!j.is_object()) return "request body must be a JSON object";
  for (const auto& [k, v] : j.items()) {
    if (k == "keys") {
      if (!v.is_array()) return "\"keys\" must be an array";
      for (const json& key : v) {
        std::vector<std::string> parts;
        if (std::string e = KeyFromJson(key, key_columns, &parts); !e.empty()) return e;
        r->keys.push_back(std::move(parts));
      }
    } else if (k == "columns") {
      if (!v.is_array()) return "\"columns\" must be an array of column names";
      for (const json& c : v) {
        if (!c.is_string()) return "\"columns\" must be an array of column names, got " + c.dump();
        r->columns.push_back(c.get<std::string>());
      }
    } else if (k == "limit") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0) return "\"limit\" must be a non-negative integer";
      r->limit = v.get<int64_t>();
    } else if (k == "page_tokens") {
      if (!v.is_array()) return "\"page_tokens\" must be an array of strings";
      for (const json& t : v) {
        if (!t.is_string()) return "\"page_tokens\" must be an array of strings, got " + t.dump();
        r->page_tokens.push_back(t.get<std::string>());
      }
    } else {
      return "unknown key \"" + k + "\" (expected keys, columns, limit, page_tokens)";
    }
  }
  return "";
}

}  // namespace rap::server
