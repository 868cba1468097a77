// Delta commits: actions -> JSON, schemaString, file stats, the create-if-absent commit write
// (rap/table/delta_commit.h).
#include "rap/table/delta_commit.h"
#include "rap/util/uuid.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "rap/columnar/array_format.h"
#include "rap/io/object_store.h"

namespace rap::table {
namespace {

using json = nlohmann::ordered_json;

Result<json> DeltaType(const Field& f, bool* ntz) {
  const DataType& t = *f.type;
  auto unsupported = [&] {
    return Status::NotSupported("column '" + f.name + "' of type " + t.ToString() +
                                " has no Delta type (write a folder of Parquet instead)");
  };
  switch (t.id) {
    case TypeId::kBool: return json("boolean");
    case TypeId::kInt8: return json("byte");
    case TypeId::kInt16: return json("short");
    case TypeId::kInt32: return json("integer");
    case TypeId::kInt64: return json("long");
    case TypeId::kFloat32: return json("float");
    case TypeId::kFloat64: return json("double");
    case TypeId::kString: return json("string");
    case TypeId::kBinary: return json("binary");
    case TypeId::kDecimal128: return json(fmt::format("decimal({},{})", t.precision, t.scale));
    case TypeId::kDate32: return json("date");
    case TypeId::kTimestamp:
      if (t.unit != TimeUnit::kMicro) return unsupported();
      if (t.timezone.empty()) {
        *ntz = true;
        return json("timestamp_ntz");
      }
      return json("timestamp");
    case TypeId::kList: {
      RAP_ASSIGN_OR_RETURN(json e, DeltaType(t.children[0], ntz));
      return json{{"type", "array"}, {"elementType", std::move(e)}, {"containsNull", t.children[0].nullable}};
    }
    case TypeId::kMap: {
      const DataType& entries = *t.children[0].type;
      RAP_ASSIGN_OR_RETURN(json k, DeltaType(entries.children[0], ntz));
      RAP_ASSIGN_OR_RETURN(json v, DeltaType(entries.children[1], ntz));
      return json{{"type", "map"}, {"keyType", std::move(k)}, {"valueType", std::move(v)},
                  {"valueContainsNull", entries.children[1].nullable}};
    }
    case TypeId::kStruct: {
      json fields = json::array();
      for (const Field& c : t.children) {
        RAP_ASSIGN_OR_RETURN(json ct, DeltaType(c, ntz));
        fields.push_back(json{{"name", c.name}, {"type", std::move(ct)}, {"nullable", c.nullable}, {"metadata", json::object()}});
      }
      return json{{"type", "struct"}, {"fields", std::move(fields)}};
    }
    default: return unsupported();
  }
}

json DvJson(const DeletionVectorDescriptor& dv) {
  json j{{"storageType", dv.storage_type}, {"pathOrInlineDv", dv.path_or_inline}};
  if (dv.offset) j["offset"] = *dv.offset;
  j["sizeInBytes"] = dv.size_in_bytes;
  j["cardinality"] = dv.cardinality;
  return j;
}


}  // namespace

Result<std::string> DeltaSchemaString(const Schema& schema, bool* uses_timestamp_ntz) {
  *uses_timestamp_ntz = false;
  auto s = std::make_shared<DataType>(*MakeStruct(schema.fields));
  RAP_ASSIGN_OR_RETURN(json j, DeltaType(Field{"", s, false}, uses_timestamp_ntz));
  return j.dump();
}

DeltaProtocol NewTableProtocol(bool uses_timestamp_ntz) {
  DeltaProtocol p;
  p.min_reader_version = 1;
  p.min_writer_version = 2;
  if (uses_timestamp_ntz) {
    p.min_reader_version = 3;
    p.min_writer_version = 7;
    p.reader_features = {"timestampNtz"};
    p.writer_features = {"timestampNtz"};
  }
  return p;
}

void DeltaStatsBuilder::Add(const RecordBatch& batch) {
  rows_ += batch.num_rows;
  if (columns_.empty()) columns_.resize(batch.schema->fields.size());
  for (size_t c = 0; c < batch.columns.size() && c < columns_.size(); ++c) {
    const Field& f = batch.schema->fields[c];
    const ArrayData& a = *batch.columns[c];
    Column& col = columns_[c];
    col.name = f.name;
    if (f.type->IsNested()) {
      col.nested = true;
      continue;
    }
    const TypeId id = f.type->id;
    col.type = f.type;
    const bool is_int = id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
                        id == TypeId::kInt64 || id == TypeId::kDate32;
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.IsNull(i)) {
        ++col.nulls;
        continue;
      }
      if (is_int) {
        int64_t v = 0;
        switch (id) {
          case TypeId::kInt8: v = a.values<int8_t>()[i]; break;
          case TypeId::kInt16: v = a.values<int16_t>()[i]; break;
          case TypeId::kInt32: case TypeId::kDate32: v = a.values<int32_t>()[i]; break;
          default: v = a.values<int64_t>()[i]; break;
        }
        if (!col.int_min || v < *col.int_min) col.int_min = v;
        if (!col.int_max || *col.int_max < v) col.int_max = v;
      } else if (id == TypeId::kString) {
        const int32_t* o = a.offsets();
        const std::string_view v(reinterpret_cast<const char*>(a.buffers[2].data()) + o[i],
                                 static_cast<size_t>(o[i + 1] - o[i]));
        if (!col.str_min || v < *col.str_min) col.str_min = std::string(v);
        if (!col.str_max || *col.str_max < v) col.str_max = std::string(v);
      }
    }
  }
}

std::string DeltaStatsBuilder::Json() const {
  json nulls = json::object(), mins = json::object(), maxs = json::object();
  for (const Column& col : columns_) {
    if (col.nested || !col.type) continue;
    nulls[col.name] = col.nulls;
    if (col.int_min && col.type->id == TypeId::kDate32) {
      // The same text FormatValue prints for a date32.
      auto date = [&](int64_t d) {
        auto arr = std::make_shared<ArrayData>();
        arr->type = col.type;
        arr->length = 1;
        const int32_t v32 = static_cast<int32_t>(d);
        arr->buffers = {Buffer(), Buffer::Copy(&v32, 4)};
        return FormatValue(*arr, 0);
      };
      mins[col.name] = date(*col.int_min);
      maxs[col.name] = date(*col.int_max);
    } else if (col.int_min) {
      mins[col.name] = *col.int_min;
      maxs[col.name] = *col.int_max;
    } else if (col.str_min) {
      mins[col.name] = *col.str_min;
      maxs[col.name] = *col.str_max;
    }
  }
  json j{{"numRecords", rows_}};
  if (!mins.empty()) j["minValues"] = std::move(mins);
  if (!maxs.empty()) j["maxValues"] = std::move(maxs);
  j["nullCount"] = std::move(nulls);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string DeltaFileStats(const RecordBatch& batch) {
  DeltaStatsBuilder b;
  b.Add(batch);
  return b.Json();
}

Status CheckWriterSupport(const DeltaProtocol& p, const std::string& table) {
  if (p.min_writer_version < 7) {
    if (p.min_writer_version > 4) {
      return Status::NotSupported(fmt::format("{}: Delta writer version {} (column mapping or identity columns) is "
                                              "not supported by rap's writer",
                                              table, p.min_writer_version));
    }
    return Status::OK();
  }
  static const std::set<std::string> kSafe = {"appendOnly",      "invariants",      "checkConstraints",
                                              "changeDataFeed",  "generatedColumns", "deletionVectors",
                                              "timestampNtz",    "vacuumProtocolCheck"};
  for (const std::string& f : p.writer_features) {
    if (!kSafe.count(f)) return Status::NotSupported(table + ": Delta writer feature '" + f + "' is not supported by rap's writer");
  }
  return Status::OK();
}

std::string DeltaCommitJson(const DeltaCommitActions& a, int64_t ts) {
  std::string out;
  auto line = [&](const json& j) { out += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; };
  line(json{{"commitInfo", json{{"timestamp", ts}, {"operation", a.operation},
                                {"operationParameters", json::object()}, {"isBlindAppend", a.removes.empty()},
                                {"engineInfo", "rap"}}}});
  if (a.protocol) {
    json p{{"minReaderVersion", a.protocol->min_reader_version}, {"minWriterVersion", a.protocol->min_writer_version}};
    if (a.protocol->min_reader_version >= 3) p["readerFeatures"] = a.protocol->reader_features;
    if (a.protocol->min_writer_version >= 7) p["writerFeatures"] = a.protocol->writer_features;
    line(json{{"protocol", std::move(p)}});
  }
  if (a.metadata) {
    const DeltaMetadata& m = *a.metadata;
    json conf = json::object();
    for (const auto& [k, v] : m.configuration) conf[k] = v;
    line(json{{"metaData", json{{"id", m.id.empty() ? RandomUuid() : m.id},
                                {"format", json{{"provider", "parquet"}, {"options", json::object()}}},
                                {"schemaString", m.schema_string},
                                {"partitionColumns", m.partition_columns},
                                {"configuration", std::move(conf)},
                                {"createdTime", m.created_time ? m.created_time : ts}}}});
  }
  for (const DeltaRemoveFile& r : a.removes) {
    json j{{"path", r.path}, {"deletionTimestamp", r.deletion_timestamp ? r.deletion_timestamp : ts},
           {"dataChange", r.data_change}, {"extendedFileMetadata", true}, {"partitionValues", json::object()},
           {"size", r.size}};
    if (r.dv) j["deletionVector"] = DvJson(*r.dv);
    line(json{{"remove", std::move(j)}});
  }
  for (const DeltaAddFile& f : a.adds) {
    json j{{"path", f.path}, {"partitionValues", json::object()}, {"size", f.size},
           {"modificationTime", f.modification_time ? f.modification_time : ts}, {"dataChange", a.data_change}};
    if (!f.stats.empty()) j["stats"] = f.stats;
    line(json{{"add", std::move(j)}});
  }
  return out;
}

std::string DeltaCommitPath(const std::string& root, int64_t version) {
  return io::JoinPath(root, fmt::format("_delta_log/{:020d}.json", version));
}

Status WriteDeltaCommit(const io::ObjectStorePtr& store, const std::string& root, int64_t version,
                        const std::string& json_text) {
  const std::string path = DeltaCommitPath(root, version);
  Status st = store->PutIfAbsent(path, Buffer::Copy(json_text.data(), json_text.size()));
  if (st.code() == StatusCode::kChanged) {
    return Status::Changed(fmt::format("{}: Delta version {} was committed by another writer first", root, version));
  }
  return st;
}

}  // namespace rap::table
