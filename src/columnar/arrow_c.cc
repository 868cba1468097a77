// Arrow C Data / Stream Interface export. Each exported structure owns a heap-allocated private
// block that holds shared references to rap's arrays (so buffers stay alive without copying), the
// format/name strings and the child structures; release() frees it and marks the structure released.
#include "rap/columnar/arrow_c.h"

#include <cerrno>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace rap::columnar {

namespace {

const char* UnitChar(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "m";
    case TimeUnit::kMicro: return "u";
    case TimeUnit::kNano: return "n";
  }
  return "?";
}

// ---- ArrowSchema ----

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::vector<ArrowSchema> child_storage;
  std::vector<ArrowSchema*> child_pointers;
};

void ReleaseSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* priv = static_cast<SchemaPrivate*>(schema->private_data);
  for (ArrowSchema& child : priv->child_storage) {
    if (child.release != nullptr) child.release(&child);
  }
  delete priv;
  schema->release = nullptr;
}

// ---- ArrowArray ----

struct ArrayPrivate {
  ArrayPtr array;                 // keeps the buffers alive
  std::vector<ArrayPtr> extra;    // record batch columns
  std::vector<const void*> buffers;
  std::vector<ArrowArray> child_storage;
  std::vector<ArrowArray*> child_pointers;
};

void ReleaseArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* priv = static_cast<ArrayPrivate*>(array->private_data);
  for (ArrowArray& child : priv->child_storage) {
    if (child.release != nullptr) child.release(&child);
  }
  delete priv;
  array->release = nullptr;
}

Status FillArray(const ArrayPtr& array, ArrowArray* out) {
  if (!array || !array->type) return Status::InvalidArgument("ExportArray: null array or type");
  const DataType& t = *array->type;
  const size_t n_buffers = static_cast<size_t>(ArrowBufferCount(t.id));
  if (t.id != TypeId::kNull && array->buffers.size() != n_buffers) {
    return Status::InvalidArgument(fmt::format("ExportArray: {} array has {} buffers, expected {}", t.ToString(),
                                               array->buffers.size(), n_buffers));
  }
  auto priv = std::make_unique<ArrayPrivate>();
  priv->array = array;
  for (size_t i = 0; i < n_buffers; ++i) {
    const Buffer& b = array->buffers[i];
    priv->buffers.push_back(b.empty() && i == 0 ? nullptr : static_cast<const void*>(b.data()));
  }
  priv->child_storage.resize(array->children.size());
  for (size_t i = 0; i < array->children.size(); ++i) {
    Status st = FillArray(array->children[i], &priv->child_storage[i]);
    if (!st.ok()) {
      for (size_t j = 0; j < i; ++j) ReleaseArray(&priv->child_storage[j]);
      return st;
    }
    priv->child_pointers.push_back(&priv->child_storage[i]);
  }
  out->length = array->length;
  out->null_count = t.id == TypeId::kNull ? array->length : array->null_count;
  out->offset = array->offset;
  out->n_buffers = static_cast<int64_t>(n_buffers);
  out->n_children = static_cast<int64_t>(array->children.size());
  out->buffers = priv->buffers.empty() ? nullptr : priv->buffers.data();
  out->children = priv->child_pointers.empty() ? nullptr : priv->child_pointers.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = priv.release();
  return Status::OK();
}

// ---- ArrowArrayStream ----

struct StreamPrivate {
  std::unique_ptr<RecordBatchReader> reader;
  std::string last_error;
};

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* priv = static_cast<StreamPrivate*>(stream->private_data);
  Status st = ExportSchema(*priv->reader->schema(), out);
  if (!st.ok()) {
    priv->last_error = st.ToString();
    return EINVAL;
  }
  return 0;
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* priv = static_cast<StreamPrivate*>(stream->private_data);
  auto batch = priv->reader->Next();
  if (!batch.ok()) {
    priv->last_error = batch.status().ToString();
    return EIO;
  }
  if (!*batch) {
    out->release = nullptr;  // end of stream
    return 0;
  }
  Status st = ExportRecordBatch(**batch, out);
  if (!st.ok()) {
    priv->last_error = st.ToString();
    return EINVAL;
  }
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* priv = static_cast<StreamPrivate*>(stream->private_data);
  return priv->last_error.empty() ? nullptr : priv->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<StreamPrivate*>(stream->private_data);
  stream->release = nullptr;
}

}  // namespace

int64_t ArrowBufferCount(TypeId id) {
  switch (id) {
    case TypeId::kNull: return 0;
    case TypeId::kStruct: return 1;
    case TypeId::kString: case TypeId::kBinary: return 3;
    default: return 2;
  }
}

Result<std::string> ArrowFormat(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull: return std::string("n");
    case TypeId::kBool: return std::string("b");
    case TypeId::kInt8: return std::string("c");
    case TypeId::kUInt8: return std::string("C");
    case TypeId::kInt16: return std::string("s");
    case TypeId::kUInt16: return std::string("S");
    case TypeId::kInt32: return std::string("i");
    case TypeId::kUInt32: return std::string("I");
    case TypeId::kInt64: return std::string("l");
    case TypeId::kUInt64: return std::string("L");
    case TypeId::kFloat16: return std::string("e");
    case TypeId::kFloat32: return std::string("f");
    case TypeId::kFloat64: return std::string("g");
    case TypeId::kString: return std::string("u");
    case TypeId::kBinary: return std::string("z");
    case TypeId::kFixedSizeBinary: return fmt::format("w:{}", t.byte_width);
    case TypeId::kDecimal128: return fmt::format("d:{},{}", t.precision, t.scale);
    case TypeId::kDate32: return std::string("tdD");
    case TypeId::kTime32:
    case TypeId::kTime64: return fmt::format("tt{}", UnitChar(t.unit));
    case TypeId::kTimestamp: return fmt::format("ts{}:{}", UnitChar(t.unit), t.timezone);
    case TypeId::kList: return std::string("+l");
    case TypeId::kStruct: return std::string("+s");
    case TypeId::kMap: return std::string("+m");
  }
  return Status::NotSupported("Arrow export: unknown type " + t.ToString());
}

Status ExportType(const DataType& type, const std::string& name, bool nullable, ArrowSchema* out) {
  RAP_ASSIGN_OR_RETURN(std::string format, ArrowFormat(type));
  auto priv = std::make_unique<SchemaPrivate>();
  priv->format = std::move(format);
  priv->name = name;
  priv->child_storage.resize(type.children.size());
  for (size_t i = 0; i < type.children.size(); ++i) {
    const Field& f = type.children[i];
    Status st = f.type ? ExportType(*f.type, f.name, f.nullable, &priv->child_storage[i])
                       : Status::InvalidArgument("Arrow export: field '" + f.name + "' has no type");
    if (!st.ok()) {
      for (size_t j = 0; j < i; ++j) ReleaseSchema(&priv->child_storage[j]);
      return st;
    }
    priv->child_pointers.push_back(&priv->child_storage[i]);
  }
  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = nullptr;
  out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  out->n_children = static_cast<int64_t>(type.children.size());
  out->children = priv->child_pointers.empty() ? nullptr : priv->child_pointers.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = priv.release();
  return Status::OK();
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (!field.type) return Status::InvalidArgument("Arrow export: field '" + field.name + "' has no type");
  return ExportType(*field.type, field.name, field.nullable, out);
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  DataType t;
  t.id = TypeId::kStruct;
  t.children = schema.fields;
  return ExportType(t, "", false, out);
}

Status ExportArray(const ArrayPtr& array, ArrowArray* out) { return FillArray(array, out); }

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* schema_out) {
  auto s = std::make_shared<ArrayData>();
  auto type = std::make_shared<DataType>();
  type->id = TypeId::kStruct;
  if (batch.schema) type->children = batch.schema->fields;
  s->type = type;
  s->length = batch.num_rows;
  s->null_count = 0;
  s->buffers = {Buffer()};
  s->children = batch.columns;
  for (const auto& c : batch.columns) {
    if (!c || c->length < batch.num_rows) {
      return Status::InvalidArgument("Arrow export: a column is shorter than the batch");
    }
  }
  if (schema_out) {
    if (!batch.schema) return Status::InvalidArgument("Arrow export: the batch has no schema");
    RAP_RETURN_NOT_OK(ExportSchema(*batch.schema, schema_out));
  }
  Status st = FillArray(s, out);
  if (!st.ok() && schema_out) ReleaseSchema(schema_out);
  return st;
}

Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out) {
  if (!reader) return Status::InvalidArgument("Arrow export: no reader");
  auto priv = std::make_unique<StreamPrivate>();
  priv->reader = std::move(reader);
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamGetLastError;
  out->release = StreamRelease;
  out->private_data = priv.release();
  return Status::OK();
}

}  // namespace rap::columnar
