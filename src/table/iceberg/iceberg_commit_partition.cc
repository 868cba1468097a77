// A replace snapshot's partitions (iceberg_commit_partition.h) and the grouping of a snapshot's data
// files by the default spec's tuples (ReplacePartitions, rap/table/iceberg_commit.h).
#include "table/iceberg/iceberg_commit_partition.h"

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "rap/table/iceberg_commit.h"
#include "table/iceberg/iceberg_partition.h"
#include "table/iceberg/iceberg_stats.h"
#include "table/iceberg/iceberg_table.h"

namespace rap::table::iceberg {
namespace {

using ojson = nlohmann::ordered_json;

// The transform without its parameter ("bucket[16]" -> "bucket").
std::string TransformKind(const std::string& transform) { return transform.substr(0, transform.find('[')); }

// The Iceberg type of a partition field's values (the spec's "Partition Transforms": identity,
// truncate and void keep the source's type; bucket, year, month and hour give int; day gives date).
Result<std::string> ResultType(const PartitionField& f, const IcebergSchema& schema, const std::string& what) {
  const std::string kind = TransformKind(f.transform);
  auto source = schema.primitive.find(f.source_id);
  if (kind == "void" && source == schema.primitive.end()) return std::string("int");  // always null
  if (source == schema.primitive.end()) {
    return Status::NotSupported(fmt::format("{}: partition field '{}': its source field {} is not a primitive column "
                                            "of the current schema",
                                            what, f.name, f.source_id));
  }
  if (kind == "identity" || kind == "truncate" || kind == "void") return source->second;
  if (kind == "bucket" || kind == "year" || kind == "month" || kind == "hour") return std::string("int");
  if (kind == "day") return std::string("date");
  return Status::NotSupported(fmt::format("{}: partition field '{}': transform '{}' is not one rap writes", what,
                                          f.name, f.transform));
}

// The bytes of a decimal(P, S) as an Avro fixed (Iceberg's TypeUtil.decimalRequiredBytes: the fewest
// bytes whose largest two's-complement value has P digits).
int DecimalBytes(int precision) {
  int n = 1;
  while (n < 16 && static_cast<int>(std::floor((8 * n - 1) * std::log10(2.0))) < precision) ++n;
  return n;
}

// The Avro type of an Iceberg primitive type (the spec's Avro appendix); fixed types are named `name`.
Result<ojson> AvroType(const std::string& type, const std::string& name, const std::string& what) {
  if (type == "boolean" || type == "int" || type == "long" || type == "float" || type == "double" ||
      type == "string") {
    return ojson(type);
  }
  if (type == "binary") return ojson("bytes");
  if (type == "date") return ojson{{"type", "int"}, {"logicalType", "date"}};
  if (type == "time") return ojson{{"type", "long"}, {"logicalType", "time-micros"}};
  if (type.rfind("timestamp", 0) == 0) {
    const bool nanos = type.size() > 3 && type.compare(type.size() - 3, 3, "_ns") == 0;
    return ojson{{"type", "long"},
                 {"logicalType", nanos ? "timestamp-nanos" : "timestamp-micros"},
                 {"adjust-to-utc", type.rfind("timestamptz", 0) == 0}};
  }
  if (type == "uuid") return ojson{{"type", "fixed"}, {"name", name}, {"size", 16}, {"logicalType", "uuid"}};
  int a = 0, b = 0;
  if (std::sscanf(type.c_str(), "fixed[%d]", &a) == 1 && a > 0) {
    return ojson{{"type", "fixed"}, {"name", name}, {"size", a}};
  }
  if (std::sscanf(type.c_str(), "decimal(%d ,%d)", &a, &b) == 2 && a >= 1 && a <= 38) {
    return ojson{{"type", "fixed"}, {"name", name},   {"size", DecimalBytes(a)},
                 {"logicalType", "decimal"}, {"precision", a}, {"scale", b}};
  }
  return Status::NotSupported(what + ": a partition field of Iceberg type '" + type + "' is not written by rap");
}

// A partition field's name as a valid Avro name, as Iceberg's AvroSchemaUtil.makeCompatibleName makes
// it: a leading digit gets "_" before it, any other byte that is not a letter, digit or '_' becomes
// "_x<HEX>".
std::string AvroName(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool letter = std::isalpha(c) || c == '_';
    if (letter || (i > 0 && std::isdigit(c))) {
      out.push_back(static_cast<char>(c));
    } else if (std::isdigit(c)) {
      out += "_" + std::string(1, static_cast<char>(c));
    } else {
      out += fmt::format("_x{:X}", c);
    }
  }
  return out.empty() ? "_" : out;
}

std::string LittleEndian(uint64_t v, size_t bytes) {
  std::string out(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

bool IsInteger(const avro::Value& v) { return v.kind == avro::Kind::kInt || v.kind == avro::Kind::kLong; }
bool IsReal(const avro::Value& v) { return v.kind == avro::Kind::kFloat || v.kind == avro::Kind::kDouble; }

// A non-null partition value of Iceberg type `type` in the spec's single-value serialization, and a
// key ordering values of that type (integers and decimals by value, reals by value, booleans false
// first, strings and bytes unsigned bytewise). Corrupt naming `what` when the value is not of the type.
struct Serialized {
  std::string bytes;
  __int128 number = 0;  // integers, booleans, decimals (unscaled)
  double real = 0;
};

Result<Serialized> Serialize(const avro::Value& v, const std::string& type, const std::string& what) {
  Serialized s;
  const bool four = type == "int" || type == "date";
  const bool eight = type == "long" || type == "time" || type.rfind("timestamp", 0) == 0;
  if ((four || eight) && IsInteger(v)) {
    s.number = v.integer;
    s.bytes = LittleEndian(static_cast<uint64_t>(v.integer), four ? 4 : 8);
  } else if (type == "boolean" && v.kind == avro::Kind::kBoolean) {
    s.number = v.boolean ? 1 : 0;
    s.bytes = std::string(1, v.boolean ? '\1' : '\0');
  } else if (type == "float" && IsReal(v)) {
    s.real = v.real;
    s.bytes = LittleEndian(std::bit_cast<uint32_t>(static_cast<float>(v.real)), 4);
  } else if (type == "double" && IsReal(v)) {
    s.real = v.real;
    s.bytes = LittleEndian(std::bit_cast<uint64_t>(v.real), 8);
  } else if (type.rfind("decimal", 0) == 0 && (v.kind == avro::Kind::kFixed || v.kind == avro::Kind::kBytes)) {
    const std::optional<__int128> unscaled = BigEndianInt(v.bytes);
    if (!unscaled) {
      return Status::Corrupt(what + ": a decimal partition value of " + std::to_string(v.bytes.size()) + " bytes");
    }
    s.number = *unscaled;
    s.bytes = MinimalBigEndian(*unscaled);
  } else if ((type == "string" && v.kind == avro::Kind::kString) ||
             ((type == "binary" || type == "uuid" || type.rfind("fixed", 0) == 0) &&
              (v.kind == avro::Kind::kBytes || v.kind == avro::Kind::kFixed))) {
    s.bytes = v.bytes;
  } else {
    return Status::Corrupt(fmt::format("{}: a partition value of Avro type {} for a field of Iceberg type {}", what,
                                       avro::KindName(v.kind), type));
  }
  return s;
}

// a < b for values of Iceberg type `type` (Serialize's order).
bool Less(const Serialized& a, const Serialized& b, const std::string& type) {
  if (type == "float" || type == "double") return a.real < b.real;
  if (type == "string" || type == "binary" || type == "uuid" || type.rfind("fixed", 0) == 0) return a.bytes < b.bytes;
  return a.number < b.number;
}

}  // namespace

Result<std::string> PartitionStructSchema(const PartitionSpec& spec, const IcebergSchema& schema,
                                          const std::string& what) {
  ojson fields = ojson::array();
  for (const PartitionField& f : spec.fields) {
    RAP_ASSIGN_OR_RETURN(const std::string type, ResultType(f, schema, what));
    RAP_ASSIGN_OR_RETURN(ojson avro, AvroType(type, fmt::format("partition_{}", f.field_id),
                                              what + ": partition field '" + f.name + "'"));
    fields.push_back({{"name", AvroName(f.name)},
                      {"type", ojson::array({"null", std::move(avro)})},
                      {"default", nullptr},
                      {"field-id", f.field_id}});
  }
  return ojson{{"type", "record"}, {"name", "r102"}, {"fields", std::move(fields)}}.dump();
}

std::string PartitionSpecJson(const PartitionSpec& spec) {
  ojson fields = ojson::array();
  for (const PartitionField& f : spec.fields) {
    fields.push_back(
        {{"name", f.name}, {"transform", f.transform}, {"source-id", f.source_id}, {"field-id", f.field_id}});
  }
  return fields.dump();
}

avro::Value PartitionRecord(const PartitionSpec& spec, const std::vector<avro::Value>& tuple) {
  std::vector<std::pair<std::string, avro::Value>> fields;
  for (size_t k = 0; k < spec.fields.size(); ++k) {
    fields.push_back({AvroName(spec.fields[k].name), k < tuple.size() ? tuple[k] : avro::Value::Null()});
  }
  return avro::Value::Record(std::move(fields));
}

Result<avro::Value> PartitionSummaries(const PartitionSpec& spec, const IcebergSchema& schema,
                                       const std::vector<std::vector<avro::Value>>& tuples, const std::string& what) {
  std::vector<avro::Value> out;
  for (size_t k = 0; k < spec.fields.size(); ++k) {
    const PartitionField& f = spec.fields[k];
    RAP_ASSIGN_OR_RETURN(const std::string type, ResultType(f, schema, what));
    bool nulls = false, nans = false;
    std::optional<Serialized> lo, hi;
    for (const std::vector<avro::Value>& tuple : tuples) {
      if (k >= tuple.size() || tuple[k].is_null()) {
        nulls = true;
        continue;
      }
      RAP_ASSIGN_OR_RETURN(Serialized s, Serialize(tuple[k], type, what + ": partition field '" + f.name + "'"));
      if (IsReal(tuple[k]) && std::isnan(tuple[k].real)) {
        nans = true;
        continue;
      }
      if (!lo || Less(s, *lo, type)) lo = s;
      if (!hi || Less(*hi, s, type)) hi = s;
    }
    out.push_back(avro::Value::Record({{"contains_null", avro::Value::Boolean(nulls)},
                                       {"contains_nan", avro::Value::Boolean(nans)},
                                       {"lower_bound", lo ? avro::Value::Bytes(lo->bytes) : avro::Value::Null()},
                                       {"upper_bound", hi ? avro::Value::Bytes(hi->bytes) : avro::Value::Null()}}));
  }
  return avro::Value::Array(std::move(out));
}

Result<std::vector<ReplacePartition>> ReplacePartitions(const TableSnapshot& snapshot, const std::string& table_url) {
  auto state = std::dynamic_pointer_cast<const IcebergState>(snapshot.format_state);
  if (!state) return Status::InvalidArgument(table_url + ": not an Iceberg table");
  RAP_ASSIGN_OR_RETURN(TableMetadata meta, ParseTableMetadata(state->metadata_json, state->metadata_path));
  const PartitionSpec* spec = meta.Spec(meta.default_spec_id);
  if (!spec || spec->Unpartitioned()) return std::vector<ReplacePartition>{};
  std::map<std::string, ReplacePartition> by_key;  // ordered by the tuples' keys
  for (size_t i = 0; i < snapshot.files.size(); ++i) {
    const DataFile& f = snapshot.files[i];
    auto p = state->partitions.find(f.path);
    if (p == state->partitions.end()) return Status::Internal(f.path + ": an Iceberg data file without its partition");
    if (p->second.spec_id != spec->spec_id) {
      return Status::NotSupported(fmt::format(
          "{}: data file {} is under partition spec {}, not the default spec {}: --in-place rewrites each partition "
          "of the default spec and would have to compute the partitions of files written before the spec changed "
          "(partition evolution; not built). Rewrite the table's files into the default spec first (e.g. Spark's "
          "rewrite_data_files)",
          table_url, f.relative_path, p->second.spec_id, spec->spec_id));
    }
    if (p->second.values.size() != spec->fields.size()) {
      return Status::Corrupt(fmt::format("{}: data file {} has a partition tuple of {} values; its spec {} has {} "
                                         "fields",
                                         table_url, f.relative_path, p->second.values.size(), spec->spec_id,
                                         spec->fields.size()));
    }
    ReplacePartition& group = by_key[p->second.key];
    if (group.files.empty()) group.values = p->second.values;
    group.files.push_back(i);
  }
  std::vector<ReplacePartition> out;
  for (auto& [key, group] : by_key) out.push_back(std::move(group));
  return out;
}

}  // namespace rap::table::iceberg
