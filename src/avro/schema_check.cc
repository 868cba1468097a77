#include "avro/schema_check.h"

#include <nlohmann/json.hpp>

#include <set>

namespace rap::avro {

namespace {

class SchemaWalker {
 public:
  SchemaWalker(int max_depth, const std::string& what) : max_depth_(max_depth), what_(what) {}

  Status Walk(const nlohmann::json& s, const std::string& ns, int depth) {
    if (depth > max_depth_) {
      return Status::Corrupt(what_ + ": avro.schema nests deeper than " + std::to_string(max_depth_) + " levels");
    }
    if (s.is_array()) {  // a union
      for (const auto& branch : s) RAP_RETURN_NOT_OK(Walk(branch, ns, depth + 1));
      return Status::OK();
    }
    if (!s.is_object()) return Status::OK();  // a primitive or a reference by name: Avro C resolves it
    auto type = s.find("type");
    if (type == s.end()) return Status::OK();
    if (!type->is_string()) return Walk(*type, ns, depth + 1);  // {"type": {...}} or {"type": [...]}
    const std::string& t = type->get_ref<const std::string&>();
    std::string inner_ns = ns;
    if (t == "record" || t == "error" || t == "enum" || t == "fixed") {
      RAP_ASSIGN_OR_RETURN(inner_ns, Define(s, ns, t));
    }
    if (t == "record" || t == "error") {
      auto fields = s.find("fields");
      if (fields == s.end() || !fields->is_array()) return Status::OK();
      for (const auto& f : *fields) {
        if (!f.is_object()) continue;
        auto ft = f.find("type");
        if (ft != f.end()) RAP_RETURN_NOT_OK(Walk(*ft, inner_ns, depth + 1));
      }
    } else if (t == "array") {
      auto items = s.find("items");
      if (items != s.end()) RAP_RETURN_NOT_OK(Walk(*items, ns, depth + 1));
    } else if (t == "map") {
      auto values = s.find("values");
      if (values != s.end()) RAP_RETURN_NOT_OK(Walk(*values, ns, depth + 1));
    }
    return Status::OK();
  }

 private:
  // Records the named type's full name; returns the namespace its fields resolve names in.
  Result<std::string> Define(const nlohmann::json& s, const std::string& ns, const std::string& t) {
    auto name = s.find("name");
    if (name == s.end() || !name->is_string()) return ns;  // Avro C rejects it
    const std::string& n = name->get_ref<const std::string&>();
    std::string full;
    std::string own_ns = ns;
    if (n.find('.') != std::string::npos) {
      full = n;
      own_ns = n.substr(0, n.rfind('.'));
    } else {
      auto given = s.find("namespace");
      if (given != s.end() && given->is_string()) own_ns = given->get<std::string>();
      full = own_ns.empty() ? n : own_ns + "." + n;
    }
    if (!defined_.insert(full).second) {
      return Status::Corrupt(what_ + ": avro.schema defines the " + t + " '" + full + "' twice");
    }
    return own_ns;
  }

  int max_depth_;
  const std::string& what_;
  std::set<std::string> defined_;
};

}  // namespace

Status CheckSchemaJson(std::string_view json, int max_depth, const std::string& what) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Corrupt(what + ": avro.schema is not JSON");
  SchemaWalker walker(max_depth, what);
  return walker.Walk(doc, "", 0);
}

}  // namespace rap::avro
