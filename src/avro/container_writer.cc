#include "rap/avro/container_writer.h"

#include <avro.h>

#include <cstring>
#include <random>

#include "avro/schema_check.h"

namespace rap::avro {
namespace {

// The Avro binary encoding of a long (zig-zag varint), for the container's framing.
void PutLong(std::string* out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

void PutBytes(std::string* out, const std::string& s) {
  PutLong(out, static_cast<int64_t>(s.size()));
  out->append(s);
}

bool IsInteger(Kind k) { return k == Kind::kInt || k == Kind::kLong; }

// Whether a value of kind `k` is written as schema type `t` (the union branch choice).
bool Fits(Kind k, avro_type_t t) {
  switch (t) {
    case AVRO_NULL: return k == Kind::kNull;
    case AVRO_BOOLEAN: return k == Kind::kBoolean;
    case AVRO_INT32:
    case AVRO_INT64: return IsInteger(k);
    case AVRO_FLOAT:
    case AVRO_DOUBLE: return k == Kind::kFloat || k == Kind::kDouble;
    case AVRO_STRING: return k == Kind::kString;
    case AVRO_BYTES: return k == Kind::kBytes || k == Kind::kString;
    case AVRO_FIXED: return k == Kind::kFixed || k == Kind::kBytes;
    case AVRO_ENUM: return k == Kind::kEnum || IsInteger(k);
    case AVRO_ARRAY: return k == Kind::kArray;
    case AVRO_MAP: return k == Kind::kMap;
    case AVRO_RECORD: return k == Kind::kRecord;
    default: return false;
  }
}

class Encoder {
 public:
  explicit Encoder(const std::string& what) : what_(what) {}

  Status Set(avro_value_t* v, const Value& x, const std::string& path, int depth) {
    if (depth > 64) return Error(path, "nested deeper than 64");
    const avro_type_t t = avro_value_get_type(v);
    if (t == AVRO_UNION) return SetUnion(v, x, path, depth);
    if (!Fits(x.kind, t)) {
      return Error(path, std::string("a ") + KindName(x.kind) + " value does not fit the schema's type");
    }
    int rc = 0;
    switch (t) {
      case AVRO_NULL: rc = avro_value_set_null(v); break;
      case AVRO_BOOLEAN: rc = avro_value_set_boolean(v, x.boolean ? 1 : 0); break;
      case AVRO_INT32:
        if (x.integer < INT32_MIN || x.integer > INT32_MAX) return Error(path, "out of the int range");
        rc = avro_value_set_int(v, static_cast<int32_t>(x.integer));
        break;
      case AVRO_INT64: rc = avro_value_set_long(v, x.integer); break;
      case AVRO_FLOAT: rc = avro_value_set_float(v, static_cast<float>(x.real)); break;
      case AVRO_DOUBLE: rc = avro_value_set_double(v, x.real); break;
      case AVRO_STRING: rc = avro_value_set_string_len(v, x.bytes.c_str(), x.bytes.size() + 1); break;
      case AVRO_BYTES: rc = avro_value_set_bytes(v, const_cast<char*>(x.bytes.data()), x.bytes.size()); break;
      case AVRO_FIXED: {
        const int64_t size = avro_schema_fixed_size(avro_value_get_schema(v));
        if (static_cast<int64_t>(x.bytes.size()) != size) {
          return Error(path, "a fixed of " + std::to_string(size) + " bytes given " + std::to_string(x.bytes.size()));
        }
        rc = avro_value_set_fixed(v, const_cast<char*>(x.bytes.data()), x.bytes.size());
        break;
      }
      case AVRO_ENUM: rc = avro_value_set_enum(v, static_cast<int>(x.integer)); break;
      case AVRO_ARRAY:
        for (size_t i = 0; i < x.items.size() && rc == 0; ++i) {
          avro_value_t child;
          rc = avro_value_append(v, &child, nullptr);
          if (rc == 0) RAP_RETURN_NOT_OK(Set(&child, x.items[i], path + "[" + std::to_string(i) + "]", depth + 1));
        }
        break;
      case AVRO_MAP:
        for (size_t i = 0; i < x.items.size() && i < x.names.size() && rc == 0; ++i) {
          if (x.names[i].find('\0') != std::string::npos) {
            return Error(path, "a map key with a NUL byte (Avro C takes map keys as C strings)");
          }
          avro_value_t child;
          rc = avro_value_add(v, x.names[i].c_str(), &child, nullptr, nullptr);
          if (rc == 0) RAP_RETURN_NOT_OK(Set(&child, x.items[i], path + "{" + x.names[i] + "}", depth + 1));
        }
        break;
      case AVRO_RECORD: return SetRecord(v, x, path, depth);
      default: return Error(path, "an Avro type rap does not write");
    }
    if (rc != 0) return Error(path, std::string("Avro C: ") + avro_strerror());
    return Status::OK();
  }

 private:
  Status SetRecord(avro_value_t* v, const Value& x, const std::string& path, int depth) {
    avro_schema_t schema = avro_value_get_schema(v);
    const size_t n = avro_schema_record_size(schema);
    for (size_t i = 0; i < x.names.size(); ++i) {
      if (avro_schema_record_field_get_index(schema, x.names[i].c_str()) < 0) {
        return Error(path, "the schema's record has no field '" + x.names[i] + "'");
      }
    }
    for (size_t i = 0; i < n; ++i) {
      avro_value_t child;
      const char* name = nullptr;
      if (avro_value_get_by_index(v, i, &child, &name) != 0) return Error(path, std::string("Avro C: ") + avro_strerror());
      const Value* field = x.Find(name);
      static const Value kNull;
      const std::string child_path = path.empty() ? name : path + "." + name;
      RAP_RETURN_NOT_OK(Set(&child, field ? *field : kNull, child_path, depth + 1));
    }
    return Status::OK();
  }

  Status SetUnion(avro_value_t* v, const Value& x, const std::string& path, int depth) {
    avro_schema_t schema = avro_value_get_schema(v);
    const size_t n = avro_schema_union_size(schema);
    for (size_t i = 0; i < n; ++i) {
      if (!Fits(x.kind, avro_typeof(avro_schema_union_branch(schema, static_cast<int>(i))))) continue;
      avro_value_t branch;
      if (avro_value_set_branch(v, static_cast<int>(i), &branch) != 0) {
        return Error(path, std::string("Avro C: ") + avro_strerror());
      }
      return Set(&branch, x, path, depth + 1);
    }
    return Error(path, std::string("no branch of the union takes a ") + KindName(x.kind) +
                           (x.is_null() ? " (the field is required)" : ""));
  }

  Status Error(const std::string& path, const std::string& problem) const {
    return Status::InvalidArgument(what_ + ": " + (path.empty() ? "record" : path) + ": " + problem);
  }

  const std::string& what_;
};

struct Handles {
  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  avro_value_t value{};
  bool has_value = false;
  ~Handles() {
    if (has_value) avro_value_decref(&value);
    if (iface) avro_value_iface_decref(iface);
    if (schema) avro_schema_decref(schema);
  }
};

}  // namespace

Result<std::string> WriteContainerFile(const std::string& schema_json, const std::vector<Value>& records,
                                       const std::map<std::string, std::string>& metadata, const std::string& what) {
  RAP_RETURN_NOT_OK(CheckSchemaJson(schema_json, 64, what));
  Handles h;
  if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &h.schema) != 0 || !h.schema) {
    return Status::InvalidArgument(what + ": the schema does not parse (Avro C: " + avro_strerror() + ")");
  }
  h.iface = avro_generic_class_from_schema(h.schema);
  if (!h.iface || avro_generic_value_new(h.iface, &h.value) != 0) {
    return Status::InvalidArgument(what + ": the schema: Avro C: " + avro_strerror());
  }
  h.has_value = true;
  // Every record encoded into one block: Avro C sizes each datum, then writes it into its place.
  std::string block;
  Encoder encoder(what);
  for (size_t i = 0; i < records.size(); ++i) {
    avro_value_reset(&h.value);
    RAP_RETURN_NOT_OK(encoder.Set(&h.value, records[i], "record " + std::to_string(i), 0));
    size_t size = 0;
    if (avro_value_sizeof(&h.value, &size) != 0) return Status::Internal(what + ": Avro C: " + avro_strerror());
    const size_t at = block.size();
    block.resize(at + size);
    avro_writer_t writer = avro_writer_memory(block.data() + at, static_cast<int64_t>(size));
    if (!writer) return Status::ResourceExhausted(what + ": Avro C writer");
    const int rc = avro_value_write(writer, &h.value);
    avro_writer_free(writer);
    if (rc != 0) return Status::Internal(what + ": record " + std::to_string(i) + ": Avro C: " + avro_strerror());
  }
  std::string out("Obj\x01", 4);
  std::map<std::string, std::string> meta = metadata;
  meta["avro.schema"] = schema_json;
  meta["avro.codec"] = "null";
  PutLong(&out, static_cast<int64_t>(meta.size()));
  for (const auto& [key, value] : meta) {
    PutBytes(&out, key);
    PutBytes(&out, value);
  }
  PutLong(&out, 0);
  std::string sync(16, '\0');
  std::random_device rd;
  for (size_t i = 0; i < sync.size(); i += 4) {
    const uint32_t r = rd();
    std::memcpy(sync.data() + i, &r, 4);
  }
  out += sync;
  if (!records.empty()) {
    PutLong(&out, static_cast<int64_t>(records.size()));
    PutLong(&out, static_cast<int64_t>(block.size()));
    out += block;
    out += sync;
  }
  return out;
}

}  // namespace rap::avro
