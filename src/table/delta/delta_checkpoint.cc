// Parquet checkpoints are read through the FileReader with a projection of just the action fields
// the replay needs; the struct/map/list arrays are then walked row by row (a checkpoint holds one
// action per row, in the column of its type).
#include "table/delta/delta_checkpoint.h"

#include "rap/read/file_reader.h"

namespace rap::table {

namespace {

const ArrayData* Child(const ArrayData* s, const char* name) {
  if (!s || s->type->id != TypeId::kStruct) return nullptr;
  for (size_t k = 0; k < s->type->children.size() && k < s->children.size(); ++k) {
    if (s->type->children[k].name == name) return s->children[k].get();
  }
  return nullptr;
}

// Row `i` of a struct's child: struct children are indexed with the struct's offset added.
struct Cursor {
  const ArrayData* array;
  int64_t row;  // already includes the parents' offsets
  bool valid() const { return array && !array->IsNull(row); }
  Cursor Field(const char* name) const {
    if (!valid()) return {nullptr, 0};
    const ArrayData* c = Child(array, name);
    return {c, row + array->offset};
  }
};

std::optional<std::string> Str(const Cursor& c) {
  if (!c.valid() || !c.array->type->IsBinaryLike()) return std::nullopt;
  const int32_t* off = c.array->offsets();
  return std::string(reinterpret_cast<const char*>(c.array->buffers[2].data()) + off[c.row],
                     static_cast<size_t>(off[c.row + 1] - off[c.row]));
}

std::optional<int64_t> Int(const Cursor& c) {
  if (!c.valid()) return std::nullopt;
  switch (c.array->type->id) {
    case TypeId::kInt32: return c.array->values<int32_t>()[c.row];
    case TypeId::kInt64: return c.array->values<int64_t>()[c.row];
    default: return std::nullopt;
  }
}

std::vector<std::string> StrList(const Cursor& c) {
  std::vector<std::string> out;
  if (!c.valid() || c.array->type->id != TypeId::kList || c.array->children.empty()) return out;
  const int32_t* off = c.array->offsets();
  for (int32_t k = off[c.row]; k < off[c.row + 1]; ++k) {
    if (auto s = Str(Cursor{c.array->children[0].get(), k})) out.push_back(*s);
  }
  return out;
}

// map<string,string>: calls fn(key, optional value) per entry.
template <typename Fn>
void ForEachEntry(const Cursor& c, Fn&& fn) {
  if (!c.valid() || c.array->type->id != TypeId::kMap || c.array->children.empty()) return;
  const ArrayData* entries = c.array->children[0].get();
  const int32_t* off = c.array->offsets();
  for (int32_t k = off[c.row]; k < off[c.row + 1]; ++k) {
    Cursor e{entries, k};
    auto key = Str(e.Field("key"));
    if (key) fn(*key, Str(e.Field("value")));
  }
}

std::optional<DeletionVectorDescriptor> Dv(const Cursor& c) {
  if (!c.valid()) return std::nullopt;
  auto storage = Str(c.Field("storageType"));
  if (!storage) return std::nullopt;
  DeletionVectorDescriptor dv;
  dv.storage_type = *storage;
  dv.path_or_inline = Str(c.Field("pathOrInlineDv")).value_or("");
  dv.offset = Int(c.Field("offset"));
  dv.size_in_bytes = Int(c.Field("sizeInBytes")).value_or(0);
  dv.cardinality = Int(c.Field("cardinality")).value_or(0);
  return dv;
}

std::string DvId(const Cursor& c) {
  auto dv = Dv(c);
  return dv ? dv->UniqueId() : "";
}

// The leaves the replay reads; those a given checkpoint lacks are skipped.
const char* const kPaths[] = {
    "add.path", "add.partitionValues", "add.size", "add.modificationTime", "add.stats",
    "add.deletionVector.storageType", "add.deletionVector.pathOrInlineDv", "add.deletionVector.offset",
    "add.deletionVector.sizeInBytes", "add.deletionVector.cardinality",
    "remove.path", "remove.deletionVector.storageType", "remove.deletionVector.pathOrInlineDv",
    "remove.deletionVector.offset", "metaData.id", "metaData.schemaString", "metaData.partitionColumns",
    "metaData.configuration", "metaData.createdTime", "protocol.minReaderVersion", "protocol.minWriterVersion",
    "protocol.readerFeatures", "protocol.writerFeatures", "sidecar.path", "sidecar.sizeInBytes",
    "checkpointMetadata.version",
};

}  // namespace

Status ReadParquetCheckpointActions(const io::ObjectStorePtr& store, const std::string& path, DeltaActions* out) {
  RAP_ASSIGN_OR_RETURN(std::shared_ptr<read::FileReader> reader, read::FileReader::Open(store, path));
  std::vector<std::string> wanted;
  for (const char* p : kPaths) {
    if (reader->schema().Project({p}).ok()) wanted.push_back(p);
  }
  if (wanted.empty()) return Status::Corrupt(path + ": checkpoint without add/remove/metaData/protocol columns");
  RAP_ASSIGN_OR_RETURN(read::Projection projection, reader->Project(wanted));
  RAP_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, reader->ReadAll(std::nullopt, projection));
  for (const RecordBatch& b : batches) {
    auto column = [&](const char* name) -> const ArrayData* {
      int i = b.schema->FieldIndex(name);
      return i < 0 ? nullptr : b.columns[static_cast<size_t>(i)].get();
    };
    const ArrayData* add = column("add");
    const ArrayData* remove = column("remove");
    const ArrayData* meta = column("metaData");
    const ArrayData* protocol = column("protocol");
    const ArrayData* sidecar = column("sidecar");
    const ArrayData* cpmeta = column("checkpointMetadata");
    for (int64_t r = 0; r < b.num_rows; ++r) {
      auto where = [&] { return path + ": row " + std::to_string(r); };
      if (Cursor a{add, r}; a.valid()) {
        DeltaAddFile f;
        auto p = Str(a.Field("path"));
        if (!p) return Status::Corrupt(where() + ": add without a path");
        f.path = *p;
        f.size = Int(a.Field("size")).value_or(0);
        f.modification_time = Int(a.Field("modificationTime")).value_or(0);
        f.stats = Str(a.Field("stats")).value_or("");
        f.dv = Dv(a.Field("deletionVector"));
        f.deletion_vector = f.dv ? f.dv->UniqueId() : "";
        ForEachEntry(a.Field("partitionValues"),
                     [&](const std::string& k, std::optional<std::string> v) { f.partition_values[k] = std::move(v); });
        out->adds.push_back(std::move(f));
      }
      if (Cursor rm{remove, r}; rm.valid()) {
        auto p = Str(rm.Field("path"));
        if (!p) return Status::Corrupt(where() + ": remove without a path");
        out->removes.push_back(DeltaRemove{*p, DvId(rm.Field("deletionVector"))});
      }
      if (Cursor m{meta, r}; m.valid()) {
        DeltaMetadata md;
        md.id = Str(m.Field("id")).value_or("");
        md.schema_string = Str(m.Field("schemaString")).value_or("");
        if (md.schema_string.empty()) return Status::Corrupt(where() + ": metaData without a schemaString");
        md.partition_columns = StrList(m.Field("partitionColumns"));
        md.created_time = Int(m.Field("createdTime")).value_or(0);
        ForEachEntry(m.Field("configuration"), [&](const std::string& k, std::optional<std::string> v) {
          if (v) md.configuration[k] = *v;
        });
        out->metadata = std::move(md);
      }
      if (Cursor p{protocol, r}; p.valid()) {
        DeltaProtocol pr;
        pr.min_reader_version = static_cast<int32_t>(Int(p.Field("minReaderVersion")).value_or(0));
        pr.min_writer_version = static_cast<int32_t>(Int(p.Field("minWriterVersion")).value_or(0));
        pr.reader_features = StrList(p.Field("readerFeatures"));
        pr.writer_features = StrList(p.Field("writerFeatures"));
        if (pr.min_reader_version < 1) return Status::Corrupt(where() + ": protocol.minReaderVersion missing or < 1");
        out->protocol = std::move(pr);
      }
      if (Cursor s{sidecar, r}; s.valid()) {
        auto p = Str(s.Field("path"));
        if (!p || p->empty()) return Status::Corrupt(where() + ": sidecar without a path");
        out->sidecars.push_back(DeltaSidecar{*p, Int(s.Field("sizeInBytes")).value_or(0)});
      }
      if (Cursor c{cpmeta, r}; c.valid()) out->has_checkpoint_metadata = true;
    }
  }
  return Status::OK();
}

}  // namespace rap::table
