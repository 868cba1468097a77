#include "table/iceberg/iceberg_partition.h"

#include <climits>
#include <cstdlib>

#include "rap/columnar/literal.h"
#include "rap/util/civil_date.h"
#include "table/iceberg/iceberg_stats.h"

namespace rap::table::iceberg {

namespace {

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// A partition value or summary bound in the source column's domain.
struct PartValue {
  bool null = true;
  bool is_int = true;
  __int128 i = 0;
  std::string s;
};

bool Temporal(const std::string& kind) { return kind == "year" || kind == "month" || kind == "day" || kind == "hour"; }

// Units of the source column per day (date: 1; timestamps: their unit); 0 when not temporal.
int64_t UnitsPerDay(const DataType& t) {
  if (t.id == TypeId::kDate32) return 1;
  if (t.id != TypeId::kTimestamp) return 0;
  switch (t.unit) {
    case TimeUnit::kSecond: return 86400;
    case TimeUnit::kMilli: return int64_t{86400} * 1000;
    case TimeUnit::kMicro: return int64_t{86400} * 1000000;
    case TimeUnit::kNano: return int64_t{86400} * 1000000000;
  }
  return 0;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The source-column statistics a transformed value (or the range [lo, hi] of transformed values)
// implies; nullopt when nothing is known.
std::optional<read::ColumnStats> SourceRange(const std::string& kind, int64_t param, const DataType& type,
                                             const PartValue& lo, const PartValue& hi) {
  if (lo.null || hi.null || lo.is_int != hi.is_int) return std::nullopt;
  read::ColumnStats s;
  auto int_value = [](__int128 v) {
    read::Value out;
    out.domain = read::Value::Domain::kInt;
    out.i = v;
    return out;
  };
  if (kind == "identity") {
    if (lo.is_int) {
      if (type.id != TypeId::kInt32 && type.id != TypeId::kInt64 && type.id != TypeId::kDate32 &&
          type.id != TypeId::kTimestamp && type.id != TypeId::kTime64 && type.id != TypeId::kDecimal128) {
        return std::nullopt;
      }
      s.min = int_value(lo.i);
      s.max = int_value(hi.i);
    } else {
      if (type.id != TypeId::kString) return std::nullopt;
      read::Value a, b;
      a.domain = b.domain = read::Value::Domain::kString;
      a.s = lo.s;
      b.s = hi.s;
      s.min = a;
      s.max = b;
    }
    return s;
  }
  if (kind == "truncate") {
    if (lo.is_int) {
      if (type.id != TypeId::kInt32 && type.id != TypeId::kInt64 && type.id != TypeId::kDecimal128) return std::nullopt;
      s.min = int_value(lo.i);
      s.max = int_value(hi.i + param - 1);
    } else {
      if (type.id != TypeId::kString) return std::nullopt;
      read::Value a;  // every value starts with the (truncated) lower bound: it is a lower bound
      a.domain = read::Value::Domain::kString;
      a.s = lo.s;
      s.min = a;
    }
    return s;
  }
  if (Temporal(kind) && lo.is_int) {
    const int64_t per_day = UnitsPerDay(type);
    if (per_day == 0 || (kind == "hour" && type.id != TypeId::kTimestamp)) return std::nullopt;
    const int64_t a = static_cast<int64_t>(lo.i), b = static_cast<int64_t>(hi.i);
    if (a < -1000000 || b > 1000000) return std::nullopt;  // far outside any calendar: do not prune
    __int128 first = 0, end = 0;  // [first, end) in source units
    if (kind == "hour") {
      const int64_t per_hour = per_day / 24;
      first = static_cast<__int128>(a) * per_hour;
      end = static_cast<__int128>(b + 1) * per_hour;
    } else {
      int64_t d0 = 0, d1 = 0;
      if (kind == "year") {
        d0 = DaysFromCivil(1970 + a, 1, 1);
        d1 = DaysFromCivil(1970 + b + 1, 1, 1);
      } else if (kind == "month") {
        d0 = DaysFromCivil(1970 + FloorDiv(a, 12), static_cast<unsigned>(a - 12 * FloorDiv(a, 12) + 1), 1);
        const int64_t n = b + 1;
        d1 = DaysFromCivil(1970 + FloorDiv(n, 12), static_cast<unsigned>(n - 12 * FloorDiv(n, 12) + 1), 1);
      } else {
        d0 = a;
        d1 = b + 1;
      }
      first = static_cast<__int128>(d0) * per_day;
      end = static_cast<__int128>(d1) * per_day;
    }
    s.min = int_value(first);
    s.max = int_value(end - 1);
    return s;
  }
  return std::nullopt;
}

// A partition tuple's value (Avro) as a PartValue.
PartValue FromAvro(const avro::Value& v, const DataType& source, const std::string& kind) {
  PartValue p;
  switch (v.kind) {
    case avro::Kind::kInt: case avro::Kind::kLong:
      p.null = false;
      p.i = v.integer;
      break;
    case avro::Kind::kString:
      p.null = false;
      p.is_int = false;
      p.s = v.bytes;
      break;
    case avro::Kind::kBytes: case avro::Kind::kFixed:
      if (source.id == TypeId::kDecimal128 && (kind == "identity" || kind == "truncate")) {
        if (auto d = BigEndianInt(v.bytes)) {
          p.null = false;
          p.i = *d;
        }
      }
      break;
    default:
      break;
  }
  return p;
}

// A summary bound (single-value serialization of the field's result type) as a PartValue.
PartValue FromBound(const std::string& bytes, const DataType& source, const std::string& kind) {
  PartValue p;
  if (Temporal(kind)) {
    if (bytes.size() == 4) {
      p.null = false;
      p.i = *LittleEndianInt(bytes);
    }
    return p;
  }
  switch (source.id) {
    case TypeId::kInt32: case TypeId::kInt64: case TypeId::kDate32: case TypeId::kTimestamp: case TypeId::kTime64:
      if (auto v = LittleEndianInt(bytes)) {
        p.null = false;
        p.i = *v;
      }
      break;
    case TypeId::kDecimal128:
      if (auto v = BigEndianInt(bytes)) {
        p.null = false;
        p.i = *v;
      }
      break;
    case TypeId::kString:
      p.null = false;
      p.is_int = false;
      p.s = bytes;
      break;
    default:
      break;
  }
  return p;
}

// The 16 bytes of a UUID written "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (hex digits in any case).
std::optional<std::string> UuidBytes(const std::string& s) {
  if (s.size() != 36) return std::nullopt;
  std::string out;
  int hi = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return std::nullopt;
      continue;
    }
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) return std::nullopt;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

}  // namespace

std::string MinimalBigEndian(__int128 v) {
  std::string b;
  for (int i = 15; i >= 0; --i) b.push_back(static_cast<char>((static_cast<unsigned __int128>(v) >> (8 * i)) & 0xff));
  size_t skip = 0;
  while (skip + 1 < b.size()) {
    const auto c = static_cast<unsigned char>(b[skip]);
    const auto next = static_cast<unsigned char>(b[skip + 1]);
    if ((c == 0x00 && !(next & 0x80)) || (c == 0xff && (next & 0x80))) {
      ++skip;
    } else {
      break;
    }
  }
  return b.substr(skip);
}

int32_t Murmur3Hash(std::string_view bytes) {
  constexpr uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  uint32_t h = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t k = static_cast<uint32_t>(p[i]) | (static_cast<uint32_t>(p[i + 1]) << 8) |
                 (static_cast<uint32_t>(p[i + 2]) << 16) | (static_cast<uint32_t>(p[i + 3]) << 24);
    k *= c1;
    k = Rotl(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  uint32_t k = 0;
  switch (n & 3) {
    case 3: k ^= static_cast<uint32_t>(p[i + 2]) << 16; [[fallthrough]];
    case 2: k ^= static_cast<uint32_t>(p[i + 1]) << 8; [[fallthrough]];
    case 1:
      k ^= p[i];
      k *= c1;
      k = Rotl(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

int32_t IcebergHashLong(int64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return Murmur3Hash(std::string_view(b, 8));
}

int32_t IcebergBucket(int32_t hash, int32_t n) { return n <= 0 ? 0 : (hash & 0x7fffffff) % n; }

// The bucket hash of a literal for a column of `type` (int, long, date, string, decimal, timestamp(tz)
// in µs, uuid, binary, fixed); nullopt otherwise.
std::optional<int32_t> BucketHashOfLiteral(const read::Literal& lit, const DataType& type) {
  if ((type.id == TypeId::kInt32 || type.id == TypeId::kInt64) && lit.kind == read::Literal::Kind::kNumber) {
    const std::optional<int64_t> v = columnar::ParseInt64(lit.text);
    if (!v || (type.id == TypeId::kInt32 && (*v < INT32_MIN || *v > INT32_MAX))) return std::nullopt;
    return IcebergHashLong(*v);
  }
  if (type.id == TypeId::kDate32 && lit.kind == read::Literal::Kind::kString) {
    const std::optional<int32_t> days = columnar::ParseDate(lit.text);
    if (!days) return std::nullopt;
    return IcebergHashLong(*days);
  }
  if (type.id == TypeId::kString && lit.kind == read::Literal::Kind::kString) return Murmur3Hash(lit.text);
  if (type.id == TypeId::kDecimal128 && lit.kind == read::Literal::Kind::kNumber) {
    const std::optional<__int128> unscaled = columnar::ParseDecimal(lit.text, type.scale);  // exact at the scale
    if (!unscaled) return std::nullopt;
    return Murmur3Hash(MinimalBigEndian(*unscaled));
  }
  if (type.id == TypeId::kTimestamp && type.unit == TimeUnit::kMicro && lit.kind == read::Literal::Kind::kString) {
    columnar::TimestampLiteral ts;
    if (!columnar::ParseTimestamp(lit.text, &ts).ok() || ts.nanos % 1000 != 0) return std::nullopt;
    if (ts.seconds > INT64_MAX / 1000000 || ts.seconds < INT64_MIN / 1000000 + 1) return std::nullopt;
    return IcebergHashLong(ts.seconds * 1000000 + ts.nanos / 1000);
  }
  if (type.id == TypeId::kFixedSizeBinary && type.extension == "uuid" && lit.kind == read::Literal::Kind::kString) {
    const std::optional<std::string> b = UuidBytes(lit.text);
    if (!b) return std::nullopt;
    return Murmur3Hash(*b);
  }
  if ((type.id == TypeId::kBinary || type.id == TypeId::kFixedSizeBinary) && type.extension.empty() &&
      lit.kind == read::Literal::Kind::kString) {
    return Murmur3Hash(lit.text);
  }
  return std::nullopt;
}


PartitionPruner::PartitionPruner(const TableMetadata& meta, const IcebergSchema& schema, const read::ExprPtr& filter)
    : schema_(schema) {
  if (!filter || !schema.schema) return;
  auto bound = read::Predicate::Bind(filter, *schema.schema);
  if (!bound.ok()) return;  // the scan reports it
  predicate_ = std::move(*bound);
  const auto& fields = schema.schema->fields;
  for (const PartitionSpec& spec : meta.specs) {
    std::vector<Field> out;
    for (const PartitionField& pf : spec.fields) {
      Field f;
      for (size_t i = 0; i < schema.field_ids.size() && i < fields.size(); ++i) {
        if (schema.field_ids[i].id && *schema.field_ids[i].id == pf.source_id) f.column = static_cast<int>(i);
      }
      const std::string& t = pf.transform;
      const size_t open = t.find('[');
      f.kind = open == std::string::npos ? t : t.substr(0, open);
      if (open != std::string::npos) f.param = std::strtoll(t.c_str() + open + 1, nullptr, 10);
      if ((f.kind == "truncate" || f.kind == "bucket") && f.param <= 0) f.column = -1;
      out.push_back(f);
    }
    specs_.push_back({spec.spec_id, std::move(out)});
  }
  // `col = v` and `col IN (...)` conjuncts of the top-level AND: the hashes bucket[N] sees.
  allowed_hashes_.resize(fields.size());
  std::vector<const read::Expr*> stack = {filter.get()};
  while (!stack.empty()) {
    const read::Expr* e = stack.back();
    stack.pop_back();
    if (e->kind == read::Expr::Kind::kAnd) {
      for (const read::ExprPtr& c : e->children) stack.push_back(c.get());
      continue;
    }
    const bool eq = e->kind == read::Expr::Kind::kCompare && e->op == read::CompareOp::kEq;
    const bool in = e->kind == read::Expr::Kind::kIn && !e->negated;
    if (!eq && !in) continue;
    const int c = schema.schema->FieldIndex(e->column);
    if (c < 0 || allowed_hashes_[static_cast<size_t>(c)]) continue;
    std::vector<int32_t> hashes;
    bool all = true;
    for (const read::Literal& lit : e->values) {
      auto h = BucketHashOfLiteral(lit, *fields[static_cast<size_t>(c)].type);
      if (!h) {
        all = false;
        break;
      }
      hashes.push_back(*h);
    }
    if (all) allowed_hashes_[static_cast<size_t>(c)] = std::move(hashes);
  }
}

const std::vector<PartitionPruner::Field>* PartitionPruner::Spec(int32_t spec_id) const {
  for (const auto& [id, fields] : specs_) {
    if (id == spec_id) return &fields;
  }
  return nullptr;
}

bool PartitionPruner::SkipManifest(const ManifestFile& m) const {
  if (!predicate_ || m.content != 0) return false;
  const std::vector<Field>* spec = Spec(m.spec_id);
  if (!spec || m.partitions.size() != spec->size()) return false;
  const auto& fields = schema_.schema->fields;
  std::vector<std::optional<read::ColumnStats>> stats(fields.size());
  for (size_t k = 0; k < spec->size(); ++k) {
    const Field& f = (*spec)[k];
    const FieldSummary& s = m.partitions[k];
    if (f.column < 0 || f.kind == "bucket" || !s.lower || !s.upper) continue;
    const DataType& type = *fields[static_cast<size_t>(f.column)].type;
    auto st = SourceRange(f.kind, f.param, type, FromBound(*s.lower, type, f.kind), FromBound(*s.upper, type, f.kind));
    if (st && !stats[static_cast<size_t>(f.column)]) stats[static_cast<size_t>(f.column)] = std::move(st);
  }
  return predicate_->CanMatch([&](int c) { return stats[static_cast<size_t>(c)]; }) == read::Match::kNever;
}

bool PartitionPruner::SkipFile(const ContentFile& file) const {
  if (!predicate_ || file.content != 0) return false;
  const std::vector<Field>* spec = Spec(file.spec_id);
  if (!spec || file.partition.size() != spec->size()) return false;
  const auto& fields = schema_.schema->fields;
  std::vector<std::optional<read::ColumnStats>> stats(fields.size());
  std::vector<bool> not_null(fields.size(), false);  // a non-void transform of the column is not NULL
  for (size_t k = 0; k < spec->size(); ++k) {
    const Field& f = (*spec)[k];
    if (f.column < 0) continue;
    const size_t c = static_cast<size_t>(f.column);
    const avro::Value& v = file.partition[k];
    if (f.kind != "void" && !v.is_null()) not_null[c] = true;
    if (f.kind == "bucket") {
      if (!allowed_hashes_[c]) continue;
      if (v.kind != avro::Kind::kInt && v.kind != avro::Kind::kLong) {
        if (v.is_null()) return true;  // the column is NULL in every row: `=` and IN never hold
        continue;
      }
      bool any = false;
      for (int32_t h : *allowed_hashes_[c]) any = any || IcebergBucket(h, static_cast<int32_t>(f.param)) == v.integer;
      if (!any) return true;
      continue;
    }
    if (f.kind != "identity" && f.kind != "truncate" && !Temporal(f.kind)) continue;
    if (stats[c]) continue;
    if (v.is_null()) {  // the transform of NULL is NULL: every row's source value is NULL
      read::ColumnStats s;
      s.null_count = file.record_count;
      s.num_values = file.record_count;
      stats[c] = s;
      continue;
    }
    const DataType& type = *fields[c].type;
    const PartValue p = FromAvro(v, type, f.kind);
    stats[c] = SourceRange(f.kind, f.param, type, p, p);
  }
  // The transform of NULL is NULL: a column with a non-NULL transformed value has no NULL row.
  for (size_t c = 0; c < fields.size(); ++c) {
    if (!not_null[c]) continue;
    if (!stats[c]) stats[c] = read::ColumnStats{};
    stats[c]->null_count = 0;
    stats[c]->num_values = file.record_count;
  }
  return predicate_->CanMatch([&](int c) { return stats[static_cast<size_t>(c)]; }) == read::Match::kNever;
}

}  // namespace rap::table::iceberg
