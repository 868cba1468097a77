#include "avro/datum.h"

#include "avro/binary.h"

namespace rap::avro {

namespace {

// The schema walk of CheckBlockDatums. `budget` bounds the items visited (zero-byte items, such as
// nulls in an array, would otherwise let a count of 2^62 spin).
class DatumChecker {
 public:
  DatumChecker(BinaryReader& r, const ReadLimits& limits, uint64_t budget) : r_(r), limits_(limits), budget_(budget) {}

  Status Check(avro_schema_t s, int depth) {
    if (depth > limits_.max_depth) return r_.Error("datum", "nested deeper than " + std::to_string(limits_.max_depth));
    if (budget_ == 0) return r_.Error("datum", "more values than the block's bytes can hold");
    --budget_;
    switch (avro_typeof(s)) {
      case AVRO_NULL:
        return Status::OK();
      case AVRO_BOOLEAN:
        if (r_.left() < 1) return r_.Error("boolean", "past the end of the block");
        if (*r_.here() > 1) return r_.Error("boolean", "byte " + std::to_string(*r_.here()) + " is neither 0 nor 1");
        return r_.Skip(1, "boolean");
      case AVRO_INT32: {
        RAP_ASSIGN_OR_RETURN(int64_t v, r_.Long("int"));
        if (v < INT32_MIN || v > INT32_MAX) return r_.Error("int", "value " + std::to_string(v) + " overflows 32 bits");
        return Status::OK();
      }
      case AVRO_INT64:
        return r_.Long("long").status();
      case AVRO_FLOAT:
        return r_.Skip(4, "float");
      case AVRO_DOUBLE:
        return r_.Skip(8, "double");
      case AVRO_STRING:
      case AVRO_BYTES: {
        RAP_ASSIGN_OR_RETURN(size_t n, r_.Length(avro_typeof(s) == AVRO_STRING ? "string length" : "bytes length"));
        return r_.Skip(n, "string");
      }
      case AVRO_FIXED: {
        const int64_t n = avro_schema_fixed_size(s);
        if (n < 0) return r_.Error("fixed", "negative size in the schema");
        return r_.Skip(static_cast<size_t>(n), "fixed");
      }
      case AVRO_ENUM: {
        RAP_ASSIGN_OR_RETURN(int64_t v, r_.Long("enum index"));
        if (v < 0 || v >= avro_schema_enum_number_of_symbols(s)) {
          return r_.Error("enum", "symbol index " + std::to_string(v) + " out of range");
        }
        return Status::OK();
      }
      case AVRO_RECORD: {
        const size_t n = avro_schema_record_size(s);
        for (size_t i = 0; i < n; ++i) {
          RAP_RETURN_NOT_OK(Check(avro_schema_record_field_get_by_index(s, static_cast<int>(i)), depth + 1));
        }
        return Status::OK();
      }
      case AVRO_ARRAY:
        return Collection(avro_schema_array_items(s), false, depth);
      case AVRO_MAP:
        return Collection(avro_schema_map_values(s), true, depth);
      case AVRO_UNION: {
        RAP_ASSIGN_OR_RETURN(int64_t b, r_.Long("union branch"));
        if (b < 0 || static_cast<uint64_t>(b) >= avro_schema_union_size(s)) {
          return r_.Error("union", "branch " + std::to_string(b) + " out of range");
        }
        return Check(avro_schema_union_branch(s, static_cast<int>(b)), depth + 1);
      }
      case AVRO_LINK:
        return Check(avro_schema_link_target(s), depth + 1);
      default:
        return r_.Error("datum", "unsupported schema type");
    }
  }

 private:
  // Array and map blocks: a count (negative: its absolute value, then the block's byte size), the
  // items, until a zero count.
  Status Collection(avro_schema_t item, bool is_map, int depth) {
    while (true) {
      RAP_ASSIGN_OR_RETURN(int64_t count, r_.Long(is_map ? "map block count" : "array block count"));
      if (count == 0) return Status::OK();
      if (count == INT64_MIN) return r_.Error("collection block", "count out of range");
      if (count < 0) {
        count = -count;
        RAP_ASSIGN_OR_RETURN(size_t bytes, r_.Length("collection block size"));
        (void)bytes;
      }
      if (static_cast<uint64_t>(count) > budget_) {
        return r_.Error("collection block", std::to_string(count) + " items, more than the block's bytes can hold");
      }
      for (int64_t i = 0; i < count; ++i) {
        if (is_map) {
          RAP_ASSIGN_OR_RETURN(size_t n, r_.Length("map key length"));
          RAP_RETURN_NOT_OK(r_.Skip(n, "map key"));
        }
        RAP_RETURN_NOT_OK(Check(item, depth + 1));
      }
    }
  }

  BinaryReader& r_;
  const ReadLimits& limits_;
  uint64_t budget_;
};

Status ToValue(avro_value_t* v, int depth, Value* out);

Status Child(avro_value_t* v, size_t i, int depth, Value* out, std::string* name) {
  avro_value_t child;
  const char* child_name = nullptr;
  if (avro_value_get_by_index(v, i, &child, &child_name) != 0) return Status::Corrupt(avro_strerror());
  if (name) *name = child_name ? child_name : "";
  return ToValue(&child, depth + 1, out);
}

Status ToValue(avro_value_t* v, int depth, Value* out) {
  if (depth > 256) return Status::Corrupt("datum nested too deeply");
  int rc = 0;
  switch (avro_value_get_type(v)) {
    case AVRO_NULL:
      out->kind = Kind::kNull;
      break;
    case AVRO_BOOLEAN: {
      int b = 0;
      rc = avro_value_get_boolean(v, &b);
      out->kind = Kind::kBoolean;
      out->boolean = b != 0;
      break;
    }
    case AVRO_INT32: {
      int32_t x = 0;
      rc = avro_value_get_int(v, &x);
      out->kind = Kind::kInt;
      out->integer = x;
      break;
    }
    case AVRO_INT64: {
      int64_t x = 0;
      rc = avro_value_get_long(v, &x);
      out->kind = Kind::kLong;
      out->integer = x;
      break;
    }
    case AVRO_FLOAT: {
      float x = 0;
      rc = avro_value_get_float(v, &x);
      out->kind = Kind::kFloat;
      out->real = x;
      break;
    }
    case AVRO_DOUBLE:
      rc = avro_value_get_double(v, &out->real);
      out->kind = Kind::kDouble;
      break;
    case AVRO_STRING: {
      const char* s = nullptr;
      size_t n = 0;
      rc = avro_value_get_string(v, &s, &n);
      out->kind = Kind::kString;
      if (rc == 0 && s && n > 0) out->bytes.assign(s, n - 1);  // Avro C counts the terminating NUL
      break;
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
      const void* p = nullptr;
      size_t n = 0;
      const bool fixed = avro_value_get_type(v) == AVRO_FIXED;
      rc = fixed ? avro_value_get_fixed(v, &p, &n) : avro_value_get_bytes(v, &p, &n);
      out->kind = fixed ? Kind::kFixed : Kind::kBytes;
      if (rc == 0 && p) out->bytes.assign(static_cast<const char*>(p), n);
      break;
    }
    case AVRO_ENUM: {
      int x = 0;
      rc = avro_value_get_enum(v, &x);
      out->kind = Kind::kEnum;
      out->integer = x;
      const char* symbol = rc == 0 ? avro_schema_enum_get(avro_value_get_schema(v), x) : nullptr;
      if (symbol) out->bytes = symbol;
      break;
    }
    case AVRO_ARRAY:
    case AVRO_MAP:
    case AVRO_RECORD: {
      const avro_type_t t = avro_value_get_type(v);
      out->kind = t == AVRO_ARRAY ? Kind::kArray : t == AVRO_MAP ? Kind::kMap : Kind::kRecord;
      size_t n = 0;
      rc = avro_value_get_size(v, &n);
      if (rc != 0) break;
      out->items.resize(n);
      if (t != AVRO_ARRAY) out->names.resize(n);
      for (size_t i = 0; i < n; ++i) {
        RAP_RETURN_NOT_OK(Child(v, i, depth, &out->items[i], t == AVRO_ARRAY ? nullptr : &out->names[i]));
      }
      break;
    }
    case AVRO_UNION: {
      avro_value_t branch;
      rc = avro_value_get_current_branch(v, &branch);
      if (rc == 0) return ToValue(&branch, depth + 1, out);
      break;
    }
    default:
      return Status::Corrupt("datum of an unsupported Avro type");
  }
  if (rc != 0) return Status::Corrupt(std::string("Avro C: ") + avro_strerror());
  return Status::OK();
}

}  // namespace

Status CheckBlockDatums(avro_schema_t schema, std::span<const uint8_t> block, uint64_t count, uint64_t base,
                        const std::string& what, const ReadLimits& limits) {
  BinaryReader r(block, what, base);
  DatumChecker checker(r, limits, uint64_t{8} * block.size() + 1024);
  for (uint64_t i = 0; i < count; ++i) RAP_RETURN_NOT_OK(checker.Check(schema, 0));
  if (r.left() != 0) {
    return r.Error("block", std::to_string(r.left()) + " bytes left after its " + std::to_string(count) + " datums");
  }
  return Status::OK();
}

Status DecodeBlockDatums(avro_value_iface_t* iface, std::span<const uint8_t> block, uint64_t count, uint64_t base,
                         const std::string& what, std::vector<Value>* out) {
  avro_reader_t reader = avro_reader_memory(reinterpret_cast<const char*>(block.data()),
                                            static_cast<int64_t>(block.size()));
  if (!reader) return Status::ResourceExhausted(what + ": Avro C reader");
  avro_value_t value;
  if (avro_generic_value_new(iface, &value) != 0) {
    avro_reader_free(reader);
    return Status::ResourceExhausted(what + ": Avro C value");
  }
  Status st;
  for (uint64_t i = 0; i < count && st.ok(); ++i) {
    avro_value_reset(&value);
    if (avro_value_read(reader, &value) != 0) {
      st = Status::Corrupt(what + ": block at byte offset " + std::to_string(base) + ": datum " + std::to_string(i) +
                           ": Avro C: " + avro_strerror());
      break;
    }
    Value v;
    st = ToValue(&value, 0, &v);
    if (!st.ok()) st = st.WithContext(what + ": block at byte offset " + std::to_string(base));
    out->push_back(std::move(v));
  }
  avro_value_decref(&value);
  avro_reader_free(reader);
  return st;
}

}  // namespace rap::avro
