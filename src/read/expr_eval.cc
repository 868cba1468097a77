// Binding, evaluation (SQL three-valued logic over Arrow-layout columns) and statistics pruning of
// filter predicates.
#include <algorithm>
#include <cmath>
#include <functional>
#include <cstring>

#include "read/expr_compare.h"
#include "rap/read/expr.h"

namespace rap::read {

namespace {

// Three-valued results per row.
constexpr uint8_t kFalse = 0, kTrue = 1, kNull = 2;

// What a predicate can evaluate to over a range of rows.
struct Possible {
  bool t = true, f = true, n = true;
};

int Cmp(const Value& a, const Value& b) {
  switch (a.domain) {
    case Value::Domain::kInt: return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
    case Value::Domain::kDouble: return a.d < b.d ? -1 : a.d > b.d ? 1 : 0;
    case Value::Domain::kString: {
      int c = a.s.compare(b.s);  // char_traits<char> compares as unsigned char, like Parquet's order
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
  }
  return 0;
}

bool ApplyOp(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

bool IsTemporalOrInt(TypeId id) {
  switch (id) {
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kDate32: case TypeId::kTime32: case TypeId::kTime64: case TypeId::kTimestamp:
      return true;
    default:
      return false;
  }
}

Result<std::optional<Value>> ConvertLiteral(const Literal& lit, const Field& field) {
  const DataType& type = *field.type;
  auto bad = [&](const std::string& why) -> Status {
    std::string shown = lit.kind == Literal::Kind::kString ? "'" + lit.text + "'" : lit.text;
    return Status::InvalidArgument("filter: literal " + shown + " does not fit column '" + field.name + "' (" +
                                   type.ToString() + "): " + why);
  };
  if (lit.kind == Literal::Kind::kNull) return std::optional<Value>();
  RAP_ASSIGN_OR_RETURN(Value::Domain domain, DomainOf(type));
  Value v;
  v.domain = domain;
  switch (domain) {
    case Value::Domain::kString:
      if (lit.kind != Literal::Kind::kString) return bad("expected a 'string' literal");
      v.s = lit.text;
      return std::optional<Value>(v);
    case Value::Domain::kDouble: {
      if (lit.kind != Literal::Kind::kNumber) return bad("expected a number");
      auto d = columnar::ParseDouble(lit.text);
      if (!d) return bad("not a number");
      v.d = *d;
      return std::optional<Value>(v);
    }
    case Value::Domain::kInt:
      break;
  }
  if (type.id == TypeId::kBool) {
    if (lit.kind != Literal::Kind::kBool) return bad("expected TRUE or FALSE");
    v.i = lit.text == "true" ? 1 : 0;
    return std::optional<Value>(v);
  }
  if (type.id == TypeId::kDecimal128) {
    auto d = columnar::ParseDecimal(lit.text, type.scale);
    if (lit.kind == Literal::Kind::kBool || !d) return bad("expected a number with at most " + std::to_string(type.scale) +
                                                           " fractional digits");
    v.i = *d;
    return std::optional<Value>(v);
  }
  if (type.id == TypeId::kDate32 && lit.kind == Literal::Kind::kString) {
    auto d = columnar::ParseDate(lit.text);
    if (!d) return bad("expected a date 'YYYY-MM-DD'");
    v.i = *d;
    return std::optional<Value>(v);
  }
  if (type.id == TypeId::kTimestamp && lit.kind == Literal::Kind::kString) {
    auto us = columnar::ParseTimestampMicros(lit.text);
    if (!us) return bad("expected a timestamp 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' within int64 microseconds of 1970");
    __int128 x = *us;
    int64_t per = columnar::UnitsPerSecond(type.unit);
    if (per >= 1000000) {
      x *= per / 1000000;
    } else {
      int64_t div = 1000000 / per;
      if (x % div != 0) return bad("finer than the column's time unit");
      x /= div;
    }
    v.i = x;
    return std::optional<Value>(v);
  }
  if (IsTemporalOrInt(type.id)) {
    if (lit.kind != Literal::Kind::kNumber) return bad("expected an integer");
    auto d = columnar::ParseDecimal(lit.text, 0);
    if (!d) return bad("expected an integer");
    v.i = *d;
    return std::optional<Value>(v);
  }
  return Status::NotSupported("filter: column '" + field.name + "' of type " + type.ToString() +
                              " cannot be compared");
}

}  // namespace

struct Predicate::Node {
  Expr::Kind kind = Expr::Kind::kCompare;
  CompareOp op = CompareOp::kEq;
  bool negated = false;
  int column = -1;
  std::string column_name;
  DataTypePtr type;
  bool is_float = false;
  std::vector<std::optional<Value>> values;
  bool has_null_value = false;
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using Node = Predicate::Node;

Result<std::shared_ptr<const Node>> BindNode(const Expr& e, const Schema& schema, std::vector<int>* columns,
                                             int depth) {
  if (depth > 1000) return Status::InvalidArgument("filter: expression nested too deeply");
  auto n = std::make_shared<Node>();
  n->kind = e.kind;
  n->op = e.op;
  n->negated = e.negated;
  if (e.kind == Expr::Kind::kAnd || e.kind == Expr::Kind::kOr || e.kind == Expr::Kind::kNot) {
    size_t want = e.kind == Expr::Kind::kNot ? 1 : 2;
    if (e.children.size() != want) return Status::InvalidArgument("filter: malformed expression tree");
    for (const ExprPtr& c : e.children) {
      if (!c) return Status::InvalidArgument("filter: malformed expression tree");
      RAP_ASSIGN_OR_RETURN(auto child, BindNode(*c, schema, columns, depth + 1));
      n->children.push_back(std::move(child));
    }
    return std::shared_ptr<const Node>(n);
  }
  int idx = schema.FieldIndex(e.column);
  if (idx < 0) {
    std::string names;
    for (const Field& f : schema.fields) names += (names.empty() ? "" : ", ") + f.name;
    return Status::InvalidArgument("filter: unknown column '" + e.column + "' (columns: " + names + ")");
  }
  const Field& field = schema.fields[idx];
  RAP_ASSIGN_OR_RETURN(Value::Domain domain, DomainOf(*field.type));
  n->column = idx;
  n->column_name = field.name;
  n->type = field.type;
  n->is_float = domain == Value::Domain::kDouble;
  if ((e.kind == Expr::Kind::kCompare && e.values.size() != 1) || (e.kind == Expr::Kind::kIn && e.values.empty())) {
    return Status::InvalidArgument("filter: malformed expression tree");
  }
  for (const Literal& lit : e.values) {
    RAP_ASSIGN_OR_RETURN(std::optional<Value> v, ConvertLiteral(lit, field));
    if (!v) n->has_null_value = true;
    n->values.push_back(std::move(v));
  }
  bool seen = false;
  for (int c : *columns) seen = seen || c == idx;
  if (!seen) columns->push_back(idx);
  return std::shared_ptr<const Node>(n);
}

// ---- evaluation ----

// Calls f(i, value) with the value of every non-null row in the domain's C++ representation.
template <typename Fn>
Status ForEachValue(const ArrayData& a, Fn&& fn) {
  const int64_t n = a.length;
  switch (a.type->id) {
#define RAP_INT_CASE(ID, T)                              \
  case TypeId::ID: {                                     \
    const T* v = a.values<T>();                          \
    for (int64_t i = 0; i < n; ++i) fn(i, static_cast<__int128>(v[i])); \
    return Status::OK();                                 \
  }
    RAP_INT_CASE(kInt8, int8_t)
    RAP_INT_CASE(kInt16, int16_t)
    RAP_INT_CASE(kInt32, int32_t)
    RAP_INT_CASE(kInt64, int64_t)
    RAP_INT_CASE(kUInt8, uint8_t)
    RAP_INT_CASE(kUInt16, uint16_t)
    RAP_INT_CASE(kUInt32, uint32_t)
    RAP_INT_CASE(kUInt64, uint64_t)
    RAP_INT_CASE(kDate32, int32_t)
    RAP_INT_CASE(kTime32, int32_t)
    RAP_INT_CASE(kTime64, int64_t)
    RAP_INT_CASE(kTimestamp, int64_t)
#undef RAP_INT_CASE
    case TypeId::kDecimal128: {
      const uint8_t* base = a.buffers[1].data() + a.offset * 16;
      for (int64_t i = 0; i < n; ++i) {
        __int128 x;
        std::memcpy(&x, base + i * 16, 16);
        fn(i, x);
      }
      return Status::OK();
    }
    case TypeId::kBool: {
      const uint8_t* bits = a.buffers[1].data();
      for (int64_t i = 0; i < n; ++i) {
        int64_t j = i + a.offset;
        fn(i, static_cast<__int128>((bits[j >> 3] >> (j & 7)) & 1));
      }
      return Status::OK();
    }
    case TypeId::kFloat32: {
      const float* v = a.values<float>();
      for (int64_t i = 0; i < n; ++i) fn(i, static_cast<double>(v[i]));
      return Status::OK();
    }
    case TypeId::kFloat64: {
      const double* v = a.values<double>();
      for (int64_t i = 0; i < n; ++i) fn(i, v[i]);
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* off = a.offsets();
      const char* data = reinterpret_cast<const char*>(a.buffers[2].data());
      for (int64_t i = 0; i < n; ++i) fn(i, std::string_view(data + off[i], static_cast<size_t>(off[i + 1] - off[i])));
      return Status::OK();
    }
    default:
      return Status::NotSupported("filter: cannot evaluate over a column of type " + a.type->ToString());
  }
}

int CmpRaw(__int128 x, const Value& v) { return x < v.i ? -1 : x > v.i ? 1 : 0; }
int CmpRaw(double x, const Value& v) { return x < v.d ? -1 : x > v.d ? 1 : 0; }
int CmpRaw(std::string_view x, const Value& v) {
  int c = x.compare(v.s);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}
bool IsNaN(__int128) { return false; }
bool IsNaN(double x) { return std::isnan(x); }
bool IsNaN(std::string_view) { return false; }

Status EvalLeaf(const Node& node, const ArrayData& a, std::vector<uint8_t>* out) {
  const int64_t n = a.length;
  out->assign(static_cast<size_t>(n), kNull);
  if (node.kind == Expr::Kind::kIsNull) {
    for (int64_t i = 0; i < n; ++i) (*out)[i] = (a.IsNull(i) != node.negated) ? kTrue : kFalse;
    return Status::OK();
  }
  if (node.kind == Expr::Kind::kCompare && !node.values[0]) return Status::OK();  // x op NULL is NULL
  const bool has_nulls = !a.buffers.empty() && !a.buffers[0].empty();
  uint8_t* o = out->data();
  Status st;
  if (node.kind == Expr::Kind::kCompare && internal::CompareFast(a, node.op, *node.values[0], o)) {
    // done by the fast path (expr_compare.h)
  } else if (node.kind == Expr::Kind::kCompare) {
    const Value& lit = *node.values[0];
    const CompareOp op = node.op;
    st = ForEachValue(a, [&](int64_t i, auto x) {
      // IEEE: every comparison with NaN is false except !=.
      o[i] = IsNaN(x) ? (op == CompareOp::kNe ? kTrue : kFalse) : (ApplyOp(op, CmpRaw(x, lit)) ? kTrue : kFalse);
    });
  } else {  // IN: TRUE when equal to a value; else NULL when the list holds NULL; else FALSE
    const uint8_t miss = node.has_null_value ? kNull : kFalse;
    const uint8_t hit = node.negated ? kFalse : kTrue;
    const uint8_t no_hit = miss == kNull ? kNull : (node.negated ? kTrue : kFalse);
    st = ForEachValue(a, [&](int64_t i, auto x) {
      bool found = false;
      if (!IsNaN(x)) {
        for (const auto& v : node.values) {
          if (v && CmpRaw(x, *v) == 0) {
            found = true;
            break;
          }
        }
      }
      o[i] = found ? hit : no_hit;
    });
  }
  RAP_RETURN_NOT_OK(st);
  if (has_nulls) {
    for (int64_t i = 0; i < n; ++i) {
      if (a.IsNull(i)) o[i] = kNull;
    }
  }
  return Status::OK();
}

Status Eval(const Node& node, const RecordBatch& batch, const std::vector<int>& batch_index,
            std::vector<uint8_t>* out) {
  switch (node.kind) {
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      RAP_RETURN_NOT_OK(Eval(*node.children[0], batch, batch_index, out));
      std::vector<uint8_t> rhs;
      RAP_RETURN_NOT_OK(Eval(*node.children[1], batch, batch_index, &rhs));
      // Three-valued AND/OR as 3x3 tables indexed by (a, b) in {kFalse, kTrue, kNull}: branch-free.
      static constexpr uint8_t kAndTable[9] = {kFalse, kFalse, kFalse, kFalse, kTrue, kNull, kFalse, kNull, kNull};
      static constexpr uint8_t kOrTable[9] = {kFalse, kTrue, kNull, kTrue, kTrue, kTrue, kNull, kTrue, kNull};
      const uint8_t* table = node.kind == Expr::Kind::kAnd ? kAndTable : kOrTable;
      uint8_t* o = out->data();
      const uint8_t* r = rhs.data();
      for (size_t i = 0; i < out->size(); ++i) o[i] = table[o[i] * 3 + r[i]];
      return Status::OK();
    }
    case Expr::Kind::kNot: {
      RAP_RETURN_NOT_OK(Eval(*node.children[0], batch, batch_index, out));
      for (uint8_t& v : *out) v = v == kNull ? kNull : v == kTrue ? kFalse : kTrue;
      return Status::OK();
    }
    default: {
      int idx = batch_index[static_cast<size_t>(node.column)];
      const ArrayPtr& col = batch.columns[static_cast<size_t>(idx)];
      if (!col || col->length != batch.num_rows) {
        return Status::InvalidArgument("filter: column '" + node.column_name + "' has " +
                                       std::to_string(col ? col->length : 0) + " rows, the batch " +
                                       std::to_string(batch.num_rows));
      }
      if (col->type->id != node.type->id) {
        return Status::InvalidArgument("filter: column '" + node.column_name + "' is " + col->type->ToString() +
                                       " in the batch but was bound as " + node.type->ToString());
      }
      return EvalLeaf(node, *col, out);
    }
  }
}

// ---- pruning ----

Possible LeafBoundsPossible(const Node& node, const std::optional<ColumnStats>& s);

// A leaf from the statistics, then from the membership test: `column = v` or `column IN (...)` is
// never TRUE when none of the values may be in the rows (FALSE and NULL stay as the bounds say).
Possible LeafPossible(const Node& node, const std::optional<ColumnStats>& s) {
  Possible p = LeafBoundsPossible(node, s);
  if (!p.t || !s || !s->might_contain || node.negated) return p;
  const bool equality = node.kind == Expr::Kind::kIn || (node.kind == Expr::Kind::kCompare && node.op == CompareOp::kEq);
  if (!equality) return p;
  for (const auto& v : node.values) {
    if (v && s->might_contain(*v)) return p;
  }
  p.t = false;
  return p;
}

Possible LeafBoundsPossible(const Node& node, const std::optional<ColumnStats>& s) {
  Possible p;
  if (!s) return p;
  if (s->num_values && *s->num_values == 0) return Possible{false, false, false};
  const bool all_null = s->null_count && s->num_values && *s->null_count >= *s->num_values;
  const bool some_null = !s->null_count || *s->null_count > 0;
  if (node.kind == Expr::Kind::kIsNull) {
    p.t = some_null;
    p.f = !all_null;
    p.n = false;
    if (node.negated) std::swap(p.t, p.f);
    return p;
  }
  if (all_null) return Possible{false, false, true};
  p.n = some_null || node.has_null_value;
  if (!s->min || !s->max || (node.is_float && (std::isnan(s->min->d) || std::isnan(s->max->d)))) return p;
  const Value& lo = *s->min;
  const Value& hi = *s->max;
  if (lo.domain != node.values.front().value_or(lo).domain) return p;
  if (node.kind == Expr::Kind::kCompare) {
    if (!node.values[0]) return Possible{false, false, true};
    const Value& v = *node.values[0];
    int cl = Cmp(lo, v), ch = Cmp(hi, v);
    const bool single = cl == 0 && ch == 0;
    const bool inside = cl <= 0 && ch >= 0;
    switch (node.op) {
      case CompareOp::kEq: p.t = inside; p.f = !single; break;
      case CompareOp::kNe: p.t = !single; p.f = inside; break;
      case CompareOp::kLt: p.t = cl < 0; p.f = ch >= 0; break;
      case CompareOp::kLe: p.t = cl <= 0; p.f = ch > 0; break;
      case CompareOp::kGt: p.t = ch > 0; p.f = cl <= 0; break;
      case CompareOp::kGe: p.t = ch >= 0; p.f = cl < 0; break;
    }
    if (node.is_float) {  // NaN rows (not in min/max) are != everything and fail the other comparisons
      if (node.op == CompareOp::kNe) p.t = true;
      p.f = true;
    }
  } else {
    bool any_inside = false, single_in = false;
    for (const auto& v : node.values) {
      if (!v) continue;
      if (Cmp(lo, *v) <= 0 && Cmp(hi, *v) >= 0) any_inside = true;
      if (Cmp(lo, *v) == 0 && Cmp(hi, *v) == 0) single_in = true;
    }
    p.t = any_inside;
    p.f = !single_in;
    if (node.negated) std::swap(p.t, p.f);
    if (node.is_float) {
      if (node.negated) p.t = true;
      p.f = true;
    }
  }
  return p;
}

Possible NodePossible(const Node& node, const Predicate::StatsFn& stats) {
  switch (node.kind) {
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      Possible a = NodePossible(*node.children[0], stats);
      Possible b = NodePossible(*node.children[1], stats);
      Possible r;
      if (node.kind == Expr::Kind::kAnd) {
        r.t = a.t && b.t;
        r.f = a.f || b.f;
        r.n = (a.n && (b.n || b.t)) || (b.n && (a.n || a.t));
      } else {
        r.t = a.t || b.t;
        r.f = a.f && b.f;
        r.n = (a.n && (b.n || b.f)) || (b.n && (a.n || a.f));
      }
      return r;
    }
    case Expr::Kind::kNot: {
      Possible a = NodePossible(*node.children[0], stats);
      return Possible{a.f, a.t, a.n};
    }
    default:
      return LeafPossible(node, stats(node.column));
  }
}

struct RowSets {
  RowSelection t, f;
};

RowSets NodeRows(const Node& node, const Predicate::PagesFn& pages, int64_t num_rows) {
  switch (node.kind) {
    case Expr::Kind::kAnd: {
      RowSets a = NodeRows(*node.children[0], pages, num_rows);
      RowSets b = NodeRows(*node.children[1], pages, num_rows);
      return RowSets{a.t.Intersect(b.t), a.f.Union(b.f)};
    }
    case Expr::Kind::kOr: {
      RowSets a = NodeRows(*node.children[0], pages, num_rows);
      RowSets b = NodeRows(*node.children[1], pages, num_rows);
      return RowSets{a.t.Union(b.t), a.f.Intersect(b.f)};
    }
    case Expr::Kind::kNot: {
      RowSets a = NodeRows(*node.children[0], pages, num_rows);
      return RowSets{a.f, a.t};
    }
    default: {
      auto list = pages(node.column);
      if (!list) return RowSets{RowSelection::All(num_rows), RowSelection::All(num_rows)};
      std::vector<RowRange> t, f;
      int64_t covered = 0;
      for (const PageStats& p : *list) {
        Possible q = LeafPossible(node, p.stats);
        RowRange r{p.first_row, p.first_row + p.num_rows};
        if (q.t) t.push_back(r);
        if (q.f) f.push_back(r);
        covered += p.num_rows;
      }
      RowSets out{RowSelection::FromRanges(std::move(t)), RowSelection::FromRanges(std::move(f))};
      if (covered != num_rows) {  // pages that do not tile the row group: trust nothing
        out = RowSets{RowSelection::All(num_rows), RowSelection::All(num_rows)};
      }
      return out;
    }
  }
}

}  // namespace

Result<Value::Domain> DomainOf(const DataType& type) {
  if (IsTemporalOrInt(type.id) || type.id == TypeId::kBool || type.id == TypeId::kDecimal128) {
    return Value::Domain::kInt;
  }
  if (type.id == TypeId::kFloat32 || type.id == TypeId::kFloat64) return Value::Domain::kDouble;
  if (type.id == TypeId::kString || type.id == TypeId::kBinary) return Value::Domain::kString;
  return Status::NotSupported("filter: columns of type " + type.ToString() + " cannot be filtered");
}

std::optional<Value> ValueAt(const ArrayData& array, int64_t i) {
  if (i < 0 || i >= array.length || array.IsNull(i)) return std::nullopt;
  auto domain = DomainOf(*array.type);
  if (!domain.ok()) return std::nullopt;
  ArrayData one = array;
  one.offset = array.offset + i;
  one.length = 1;
  std::optional<Value> out;
  Status st = ForEachValue(one, [&](int64_t, auto x) {
    Value v;
    v.domain = *domain;
    if constexpr (std::is_same_v<decltype(x), __int128>) v.i = x;
    else if constexpr (std::is_same_v<decltype(x), double>) v.d = x;
    else v.s = std::string(x);
    out = std::move(v);
  });
  return st.ok() ? out : std::nullopt;
}

Result<Predicate> Predicate::Bind(const ExprPtr& expr, const Schema& schema) {
  if (!expr) return Status::InvalidArgument("filter: empty expression");
  Predicate p;
  p.expr_ = expr;
  RAP_ASSIGN_OR_RETURN(p.root_, BindNode(*expr, schema, &p.columns_, 0));
  return p;
}

Result<std::vector<uint8_t>> Predicate::Select(const RecordBatch& batch) const {
  if (!root_) return Status::InvalidArgument("filter: predicate is not bound");
  if (!batch.schema || batch.columns.size() != batch.schema->fields.size()) {
    return Status::InvalidArgument("filter: batch without a schema matching its columns");
  }
  // Map bound column indices to the batch's columns by name (a batch may hold a projection).
  std::vector<int> index(columns_.empty() ? 0 : static_cast<size_t>(*std::max_element(columns_.begin(), columns_.end())) + 1, -1);
  std::vector<std::string> names;
  std::function<void(const Node&)> collect = [&](const Node& n) {
    for (const auto& c : n.children) collect(*c);
    if (n.column >= 0 && index[static_cast<size_t>(n.column)] < 0) {
      int bi = batch.schema->FieldIndex(n.column_name);
      index[static_cast<size_t>(n.column)] = bi;
      if (bi < 0) names.push_back(n.column_name);
    }
  };
  collect(*root_);
  if (!names.empty()) return Status::InvalidArgument("filter: column '" + names[0] + "' is not in the batch");
  std::vector<uint8_t> out;
  RAP_RETURN_NOT_OK(Eval(*root_, batch, index, &out));
  for (uint8_t& v : out) v = v == kTrue ? 1 : 0;
  return out;
}

Match Predicate::CanMatch(const StatsFn& stats) const {
  if (!root_) return Match::kMaybe;
  return NodePossible(*root_, stats).t ? Match::kMaybe : Match::kNever;
}

RowSelection Predicate::PagesMayMatch(const PagesFn& pages, int64_t num_rows) const {
  if (!root_) return RowSelection::All(num_rows);
  return NodeRows(*root_, pages, num_rows).t;
}

}  // namespace rap::read
