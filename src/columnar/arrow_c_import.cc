// Arrow C Data / Stream Interface import (rap/columnar/arrow_c_import.h). The imported ArrowArray is
// moved into one heap block shared by every Buffer made from it; the last Buffer dropped releases it.
// Every length, offset and pointer is checked before any buffer is read.
#include "rap/columnar/arrow_c_import.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace rap::columnar {

namespace {

constexpr int kMaxDepth = 64;

Status Bad(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(fmt::format("Arrow import: field '{}': {}", path, what));
}

std::string ChildPath(const std::string& path, const std::string& name, size_t i) {
  const std::string child = name.empty() ? fmt::format("<{}>", i) : name;
  return path.empty() ? child : path + "." + child;
}

// Consume semantics: releases the structure on every return path unless it was moved from.
struct SchemaGuard {
  ArrowSchema* s;
  ~SchemaGuard() {
    if (s != nullptr && s->release != nullptr) s->release(s);
  }
};
struct ArrayGuard {
  ArrowArray* a;
  ~ArrayGuard() {
    if (a != nullptr && a->release != nullptr) a->release(a);
  }
};

// ---- Types ----

std::optional<TypeId> PrimitiveFormat(std::string_view f) {
  if (f.size() != 1) return std::nullopt;
  switch (f[0]) {
    case 'n': return TypeId::kNull;
    case 'b': return TypeId::kBool;
    case 'c': return TypeId::kInt8;
    case 'C': return TypeId::kUInt8;
    case 's': return TypeId::kInt16;
    case 'S': return TypeId::kUInt16;
    case 'i': return TypeId::kInt32;
    case 'I': return TypeId::kUInt32;
    case 'l': return TypeId::kInt64;
    case 'L': return TypeId::kUInt64;
    case 'e': return TypeId::kFloat16;
    case 'f': return TypeId::kFloat32;
    case 'g': return TypeId::kFloat64;
    case 'u': return TypeId::kString;
    case 'z': return TypeId::kBinary;
    default: return std::nullopt;
  }
}

std::optional<TimeUnit> UnitOf(char c) {
  switch (c) {
    case 's': return TimeUnit::kSecond;
    case 'm': return TimeUnit::kMilli;
    case 'u': return TimeUnit::kMicro;
    case 'n': return TimeUnit::kNano;
    default: return std::nullopt;
  }
}

// Reads a decimal integer in [lo, hi] that spans all of `s`.
std::optional<int32_t> Int(std::string_view s, int32_t lo, int32_t hi) {
  int32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

Result<Field> ParseField(const ArrowSchema* s, const std::string& path, int depth);

Result<std::vector<Field>> ParseChildren(const ArrowSchema* s, const std::string& path, int depth) {
  std::vector<Field> fields;
  for (int64_t i = 0; i < s->n_children; ++i) {
    const ArrowSchema* c = s->children[i];
    const std::string name = c != nullptr && c->name != nullptr ? c->name : "";
    RAP_ASSIGN_OR_RETURN(Field f, ParseField(c, ChildPath(path, name, static_cast<size_t>(i)), depth + 1));
    fields.push_back(std::move(f));
  }
  return fields;
}

Result<DataTypePtr> ParseType(const ArrowSchema* s, const std::string& path, int depth) {
  if (depth > kMaxDepth) return Bad(path, fmt::format("types nest deeper than {} levels", kMaxDepth));
  if (s == nullptr) return Bad(path, "the schema structure is null");
  if (s->release == nullptr) return Bad(path, "the schema structure is released");
  if (s->format == nullptr) return Bad(path, "the format string is null");
  const std::string_view f(s->format);
  if (s->dictionary != nullptr) {
    return Status::NotSupported(fmt::format("Arrow import: field '{}': dictionary-encoded arrays (index format '{}') "
                                            "are not supported",
                                            path, f));
  }
  if (s->n_children < 0 || (s->n_children > 0 && s->children == nullptr)) {
    return Bad(path, fmt::format("n_children is {} with children {}", s->n_children,
                                 s->children == nullptr ? "null" : "set"));
  }
  auto leaf = [&](DataTypePtr t) -> Result<DataTypePtr> {
    if (s->n_children != 0) return Bad(path, fmt::format("format '{}' has no children, got {}", f, s->n_children));
    return t;
  };
  if (auto id = PrimitiveFormat(f)) return leaf(MakeType(*id));
  if (f.starts_with("w:")) {
    auto w = Int(f.substr(2), 1, std::numeric_limits<int32_t>::max());
    if (!w) return Bad(path, fmt::format("bad fixed-size binary format '{}'", f));
    return leaf(MakeFixedSizeBinary(*w));
  }
  if (f.starts_with("d:")) {
    const std::string_view rest = f.substr(2);
    const size_t c1 = rest.find(',');
    const size_t c2 = c1 == std::string_view::npos ? c1 : rest.find(',', c1 + 1);
    if (c1 == std::string_view::npos) return Bad(path, fmt::format("bad decimal format '{}'", f));
    if (c2 != std::string_view::npos && rest.substr(c2 + 1) != "128") {
      return Status::NotSupported(fmt::format("Arrow import: field '{}': decimal format '{}' (only 128-bit decimals)",
                                              path, f));
    }
    auto precision = Int(rest.substr(0, c1), 1, 38);
    auto scale = Int(rest.substr(c1 + 1, c2 == std::string_view::npos ? c2 : c2 - c1 - 1), 0, 38);
    if (!precision || !scale || *scale > *precision) return Bad(path, fmt::format("bad decimal format '{}'", f));
    return leaf(MakeDecimal(*precision, *scale));
  }
  if (f == "tdD") return leaf(MakeTemporal(TypeId::kDate32, TimeUnit::kSecond));
  if (f.size() == 3 && f.starts_with("tt") && UnitOf(f[2])) {
    const TimeUnit u = *UnitOf(f[2]);
    const bool t32 = u == TimeUnit::kSecond || u == TimeUnit::kMilli;
    return leaf(MakeTemporal(t32 ? TypeId::kTime32 : TypeId::kTime64, u));
  }
  if (f.size() >= 4 && f.starts_with("ts") && UnitOf(f[2]) && f[3] == ':') {
    return leaf(MakeTemporal(TypeId::kTimestamp, *UnitOf(f[2]), std::string(f.substr(4))));
  }
  if (f == "+l" || f == "+s" || f == "+m") {
    RAP_ASSIGN_OR_RETURN(std::vector<Field> children, ParseChildren(s, path, depth));
    if (f == "+s") return MakeStruct(std::move(children));
    if (children.size() != 1) return Bad(path, fmt::format("format '{}' needs 1 child, got {}", f, children.size()));
    if (f == "+l") return MakeList(std::move(children[0]));
    const Field& entries = children[0];
    if (entries.type->id != TypeId::kStruct || entries.type->children.size() != 2) {
      return Bad(path, "a map's child must be a struct of 2 fields (key, value), got " + entries.type->ToString());
    }
    auto t = std::make_shared<DataType>();
    t->id = TypeId::kMap;
    t->children.push_back(Field{entries.name, entries.type, false});
    return DataTypePtr(t);
  }
  return Status::NotSupported(fmt::format("Arrow import: field '{}': format '{}' has no rap type", path, f));
}

Result<Field> ParseField(const ArrowSchema* s, const std::string& path, int depth) {
  RAP_ASSIGN_OR_RETURN(DataTypePtr type, ParseType(s, path, depth));
  return Field{s->name != nullptr ? s->name : "", std::move(type), (s->flags & ARROW_FLAG_NULLABLE) != 0};
}

// ---- Arrays ----

struct Owner {
  ArrowArray array;
  ~Owner() {
    if (array.release != nullptr) array.release(&array);
  }
};

int64_t CountNulls(const uint8_t* bits, int64_t begin, int64_t end) {
  int64_t valid = 0;
  int64_t i = begin;
  for (; i < end && (i & 7) != 0; ++i) valid += (bits[i >> 3] >> (i & 7)) & 1;
  for (; i + 64 <= end; i += 64) {
    uint64_t w;
    std::memcpy(&w, bits + (i >> 3), 8);
    valid += std::popcount(w);
  }
  for (; i < end; ++i) valid += (bits[i >> 3] >> (i & 7)) & 1;
  return (end - begin) - valid;
}

class Importer {
 public:
  explicit Importer(std::shared_ptr<const void> owner) : owner_(std::move(owner)) {}

  Result<ArrayPtr> Node(const ArrowArray* a, const DataTypePtr& type, const std::string& path, int depth);

 private:
  Status CheckShape(const ArrowArray* a, const DataType& t, const std::string& path, int64_t* end);
  Result<Buffer> Wrap(const ArrowArray* a, int64_t i, int64_t size, const std::string& path, const char* what);
  Status Validity(const ArrowArray* a, int64_t end, const std::string& path, ArrayData* out);
  Result<int64_t> Offsets(const ArrowArray* a, int64_t end, const std::string& path, ArrayData* out);

  std::shared_ptr<const void> owner_;
};

Status Importer::CheckShape(const ArrowArray* a, const DataType& t, const std::string& path, int64_t* end) {
  if (a == nullptr) return Bad(path, "the array structure is null");
  if (a->release == nullptr) return Bad(path, "the array structure is released");
  if (a->dictionary != nullptr) {
    return Status::NotSupported(fmt::format("Arrow import: field '{}': dictionary-encoded arrays are not supported", path));
  }
  if (a->length < 0 || a->offset < 0) return Bad(path, fmt::format("length {} and offset {}", a->length, a->offset));
  if (a->length > std::numeric_limits<int64_t>::max() - a->offset) {
    return Bad(path, fmt::format("offset {} + length {} overflows", a->offset, a->length));
  }
  *end = a->offset + a->length;
  if (a->null_count < -1 || a->null_count > a->length) {
    return Bad(path, fmt::format("null_count {} for length {}", a->null_count, a->length));
  }
  const int64_t want = ArrowBufferCount(t.id);
  const bool null_ok = t.id == TypeId::kNull && a->n_buffers == 1;  // older producers: one (null) bitmap
  if (a->n_buffers != want && !null_ok) {
    return Bad(path, fmt::format("{} buffers, type {} has {}", a->n_buffers, t.ToString(), want));
  }
  if (a->n_buffers > 0 && a->buffers == nullptr) return Bad(path, "the buffers pointer is null");
  if (a->n_children != static_cast<int64_t>(t.children.size())) {
    return Bad(path, fmt::format("{} children, type {} has {}", a->n_children, t.ToString(), t.children.size()));
  }
  if (a->n_children > 0 && a->children == nullptr) return Bad(path, "the children pointer is null");
  return Status::OK();
}

Result<Buffer> Importer::Wrap(const ArrowArray* a, int64_t i, int64_t size, const std::string& path,
                              const char* what) {
  const void* p = a->buffers[i];
  if (size == 0) return Buffer();
  if (p == nullptr) return Bad(path, fmt::format("the {} buffer (buffer {}) is null but must hold {} bytes", what, i, size));
  return Buffer(owner_, static_cast<const uint8_t*>(p), static_cast<size_t>(size));
}

Status Importer::Validity(const ArrowArray* a, int64_t end, const std::string& path, ArrayData* out) {
  const void* bits = a->buffers[0];
  if (bits == nullptr) {
    if (a->null_count > 0) return Bad(path, fmt::format("null_count is {} but there is no validity bitmap", a->null_count));
    out->null_count = 0;
    out->buffers.emplace_back();
    return Status::OK();
  }
  RAP_ASSIGN_OR_RETURN(Buffer b, Wrap(a, 0, (end + 7) / 8, path, "validity"));
  const int64_t nulls = end == 0 ? 0 : CountNulls(b.data(), a->offset, end);
  if (a->null_count >= 0 && a->null_count != nulls) {
    return Bad(path, fmt::format("null_count is {} but the validity bitmap has {} nulls", a->null_count, nulls));
  }
  out->null_count = nulls;
  out->buffers.push_back(std::move(b));
  return Status::OK();
}

// Checks the offsets [offset, end] and appends their buffer; returns the last offset.
Result<int64_t> Importer::Offsets(const ArrowArray* a, int64_t end, const std::string& path, ArrayData* out) {
  if (a->buffers[1] == nullptr) {
    if (a->length != 0) return Bad(path, "the offsets buffer (buffer 1) is null");
    out->offset = 0;  // an empty array: one zero offset stands for the missing buffer
    out->buffers.push_back(Buffer::Copy("\0\0\0\0", 4));
    return 0;
  }
  if (end > std::numeric_limits<int32_t>::max()) return Bad(path, fmt::format("{} offsets exceed int32", end + 1));
  RAP_ASSIGN_OR_RETURN(Buffer b, Wrap(a, 1, (end + 1) * 4, path, "offsets"));
  const auto* o = reinterpret_cast<const int32_t*>(b.data());
  if (o[a->offset] < 0) return Bad(path, fmt::format("offset {} at position {} is negative", o[a->offset], a->offset));
  for (int64_t i = a->offset; i < end; ++i) {
    if (o[i + 1] < o[i]) return Bad(path, fmt::format("offsets decrease at position {} ({} > {})", i + 1, o[i], o[i + 1]));
  }
  out->buffers.push_back(std::move(b));
  return o[end];
}

Result<ArrayPtr> Importer::Node(const ArrowArray* a, const DataTypePtr& type, const std::string& path, int depth) {
  if (depth > kMaxDepth) return Bad(path, fmt::format("arrays nest deeper than {} levels", kMaxDepth));
  const DataType& t = *type;
  int64_t end = 0;
  RAP_RETURN_NOT_OK(CheckShape(a, t, path, &end));
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = a->length;
  out->offset = a->offset;
  if (t.id == TypeId::kNull) {
    out->null_count = a->length;
    return ArrayPtr(out);
  }
  RAP_RETURN_NOT_OK(Validity(a, end, path, out.get()));
  const int width = t.FixedWidth();
  if (t.id == TypeId::kBool) {
    RAP_ASSIGN_OR_RETURN(Buffer v, Wrap(a, 1, (end + 7) / 8, path, "values"));
    out->buffers.push_back(std::move(v));
  } else if (width > 0) {
    if (end > std::numeric_limits<int64_t>::max() / width) return Bad(path, fmt::format("{} values overflow", end));
    RAP_ASSIGN_OR_RETURN(Buffer v, Wrap(a, 1, end * width, path, "values"));
    out->buffers.push_back(std::move(v));
  } else if (t.IsBinaryLike()) {
    RAP_ASSIGN_OR_RETURN(int64_t bytes, Offsets(a, end, path, out.get()));
    RAP_ASSIGN_OR_RETURN(Buffer d, Wrap(a, 2, bytes, path, "data"));
    out->buffers.push_back(std::move(d));
  } else if (t.id == TypeId::kList || t.id == TypeId::kMap) {
    RAP_ASSIGN_OR_RETURN(int64_t child_rows, Offsets(a, end, path, out.get()));
    const std::string cpath = ChildPath(path, t.children[0].name, 0);
    RAP_ASSIGN_OR_RETURN(ArrayPtr child, Node(a->children[0], t.children[0].type, cpath, depth + 1));
    if (child->length < child_rows) {
      return Bad(cpath, fmt::format("{} rows, the offsets of '{}' reach {}", child->length, path, child_rows));
    }
    out->children.push_back(std::move(child));
  } else if (t.id == TypeId::kStruct) {
    for (size_t i = 0; i < t.children.size(); ++i) {
      const std::string cpath = ChildPath(path, t.children[i].name, i);
      RAP_ASSIGN_OR_RETURN(ArrayPtr child, Node(a->children[i], t.children[i].type, cpath, depth + 1));
      if (child->length < end) {
        return Bad(cpath, fmt::format("{} rows, the struct '{}' needs {} (offset + length)", child->length, path, end));
      }
      out->children.push_back(std::move(child));
    }
  } else {
    return Status::NotSupported(fmt::format("Arrow import: field '{}': type {} cannot be imported", path, t.ToString()));
  }
  return ArrayPtr(out);
}

Result<ArrayPtr> ImportOwned(ArrowArray* array, const DataTypePtr& type, const std::string& path) {
  ArrayGuard guard{array};
  if (array == nullptr) return Bad(path, "the array structure is null");
  if (array->release == nullptr) return Bad(path, "the array structure is released");
  if (!type) return Status::InvalidArgument("Arrow import: field '" + path + "': no type given");
  auto owner = std::make_shared<Owner>();
  owner->array = *array;  // move: the structure now belongs to `owner`
  array->release = nullptr;
  Importer importer(owner);
  RAP_ASSIGN_OR_RETURN(ArrayPtr out, importer.Node(&owner->array, type, path, 0));
  Status st = ValidateArray(*out);
  if (!st.ok()) return Bad(path, st.message());
  return out;
}

// ---- Stream ----

class StreamReader : public RecordBatchReader {
 public:
  explicit StreamReader(ArrowArrayStream stream) : stream_(stream) {}
  ~StreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (done_) return std::optional<RecordBatch>();
    ArrowArray a{};
    const int rc = stream_.get_next(&stream_, &a);
    if (rc != 0) return Error("get_next", rc);
    if (a.release == nullptr) {
      done_ = true;
      return std::optional<RecordBatch>();
    }
    RAP_ASSIGN_OR_RETURN(RecordBatch batch, ImportRecordBatch(&a, schema_));
    return std::optional<RecordBatch>(std::move(batch));
  }

  Status FetchSchema() {
    ArrowSchema s{};
    const int rc = stream_.get_schema(&stream_, &s);
    if (rc != 0) return Error("get_schema", rc);
    RAP_ASSIGN_OR_RETURN(schema_, ImportSchema(&s));
    return Status::OK();
  }

  Status Error(const char* call, int rc) {
    const char* msg = stream_.get_last_error != nullptr ? stream_.get_last_error(&stream_) : nullptr;
    return Status::IOError(fmt::format("Arrow import: the stream's {} failed (code {}): {}", call, rc,
                                       msg != nullptr ? msg : "no message"));
  }

 private:
  ArrowArrayStream stream_;
  SchemaPtr schema_;
  bool done_ = false;
};

}  // namespace

Result<Field> ImportField(ArrowSchema* schema) {
  SchemaGuard guard{schema};
  const std::string path = schema != nullptr && schema->name != nullptr ? schema->name : "";
  return ParseField(schema, path, 0);
}

Result<DataTypePtr> ImportType(ArrowSchema* schema) {
  RAP_ASSIGN_OR_RETURN(Field f, ImportField(schema));
  return f.type;
}

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  RAP_ASSIGN_OR_RETURN(Field f, ImportField(schema));
  if (f.type->id != TypeId::kStruct) {
    return Status::InvalidArgument("Arrow import: a schema must be a struct ('+s'), got " + f.type->ToString());
  }
  auto out = std::make_shared<Schema>();
  out->fields = f.type->children;
  return SchemaPtr(out);
}

Result<ArrayPtr> ImportArray(ArrowArray* array, const DataTypePtr& type, const std::string& name) {
  return ImportOwned(array, type, name);
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, const SchemaPtr& schema) {
  if (!schema) {
    ArrayGuard guard{array};
    return Status::InvalidArgument("Arrow import: no schema for the record batch");
  }
  RAP_ASSIGN_OR_RETURN(ArrayPtr s, ImportOwned(array, MakeStruct(schema->fields), ""));
  if (s->null_count != 0) {
    return Status::InvalidArgument(
        fmt::format("Arrow import: the struct array of a record batch has {} null rows", s->null_count));
  }
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = s->length;
  for (const ArrayPtr& c : s->children) {
    batch.columns.push_back(s->offset == 0 && c->length == s->length ? c : SliceArray(c, s->offset, s->length));
  }
  return batch;
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  ArrayGuard guard{array};
  RAP_ASSIGN_OR_RETURN(SchemaPtr s, ImportSchema(schema));
  return ImportRecordBatch(array, s);
}

Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(ArrowArrayStream* stream) {
  if (stream == nullptr) return Status::InvalidArgument("Arrow import: the stream structure is null");
  if (stream->release == nullptr) return Status::InvalidArgument("Arrow import: the stream structure is released");
  ArrowArrayStream owned = *stream;  // move
  stream->release = nullptr;
  if (owned.get_schema == nullptr || owned.get_next == nullptr) {
    owned.release(&owned);
    return Status::InvalidArgument("Arrow import: the stream has no get_schema or get_next callback");
  }
  auto reader = std::make_unique<StreamReader>(owned);
  RAP_RETURN_NOT_OK(reader->FetchSchema());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

}  // namespace rap::columnar
