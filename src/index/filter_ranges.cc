// FilterKeyRanges (rap/index/indexed_scan.h): a scan filter -> key ranges of an index that hold every
// row the filter can select. Per key column, the filter's conditions on it become a union of
// intervals (AND intersects, OR of conditions on the same column unites, anything else constrains
// nothing — always a superset, since the scan applies the whole filter afterwards).
#include <algorithm>

#include "rap/columnar/literal.h"
#include "rap/index/indexed_scan.h"

namespace rap::index {

namespace {

using read::CompareOp;
using read::Expr;
using read::Literal;

// Past this many intervals an AND keeps the smaller side (a superset) instead of the product.
constexpr size_t kMaxIntervals = 100000;

// Intervals on one key column: 1-part KeyRanges, sorted by lower bound, disjoint after Normalize.
using Intervals = std::vector<KeyRange>;

std::optional<KeyPart> LiteralPart(KeyType type, const Literal& lit) {
  KeyPart p;
  if (IsIntegerKey(type)) {
    if (lit.kind != Literal::Kind::kNumber) return std::nullopt;
    auto v = columnar::ParseDecimal(lit.text, 0);  // the scan's own integer literal rule
    if (!v || *v < INT64_MIN || *v > INT64_MAX) return std::nullopt;
    p.i = static_cast<int64_t>(*v);
    return p;
  }
  if (lit.kind != Literal::Kind::kString) return std::nullopt;
  p.s = lit.text;
  return p;
}

KeyRange Point(const KeyPart& p) {
  KeyRange r;
  r.lo = KeyBound{Key{{p}}, true};
  r.hi = r.lo;
  return r;
}

// Lower bounds: which starts later (nullopt = open = earliest). Ties: exclusive is later.
bool LoLess(KeyType t, const std::optional<KeyBound>& a, const std::optional<KeyBound>& b) {
  if (!a || !b) return !a && b;
  const int c = CompareKeyPart(t, a->key.parts[0], b->key.parts[0]);
  return c < 0 || (c == 0 && a->inclusive && !b->inclusive);
}

// Upper bounds: which ends earlier (nullopt = open = latest). Ties: exclusive is earlier.
bool HiLess(KeyType t, const std::optional<KeyBound>& a, const std::optional<KeyBound>& b) {
  if (!a || !b) return a && !b;
  const int c = CompareKeyPart(t, a->key.parts[0], b->key.parts[0]);
  return c < 0 || (c == 0 && !a->inclusive && b->inclusive);
}

bool Empty(KeyType t, const KeyRange& r) {
  if (!r.lo || !r.hi) return false;
  const int c = CompareKeyPart(t, r.lo->key.parts[0], r.hi->key.parts[0]);
  return c > 0 || (c == 0 && !(r.lo->inclusive && r.hi->inclusive));
}

// Sorts and merges overlapping intervals (touching ones too when a bound is inclusive).
Intervals Normalize(KeyType t, Intervals in) {
  std::erase_if(in, [&](const KeyRange& r) { return Empty(t, r); });
  std::sort(in.begin(), in.end(), [&](const KeyRange& a, const KeyRange& b) { return LoLess(t, a.lo, b.lo); });
  Intervals out;
  for (KeyRange& r : in) {
    if (!out.empty()) {
      KeyRange& last = out.back();
      bool overlap = !last.hi || !r.lo;
      if (!overlap) {
        const int c = CompareKeyPart(t, r.lo->key.parts[0], last.hi->key.parts[0]);
        overlap = c < 0 || (c == 0 && (r.lo->inclusive || last.hi->inclusive));
      }
      if (overlap) {
        if (HiLess(t, last.hi, r.hi)) last.hi = r.hi;
        continue;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

Intervals Intersect(KeyType t, const Intervals& a, const Intervals& b) {
  if (a.size() * b.size() > kMaxIntervals) return a.size() <= b.size() ? a : b;
  Intervals out;
  for (const KeyRange& x : a) {
    for (const KeyRange& y : b) {
      KeyRange r;
      r.lo = LoLess(t, x.lo, y.lo) ? y.lo : x.lo;
      r.hi = HiLess(t, x.hi, y.hi) ? x.hi : y.hi;
      if (!Empty(t, r)) out.push_back(std::move(r));
    }
  }
  return Normalize(t, std::move(out));
}

// The intervals of column `col` that hold every row `e` can select; nullopt: no constraint.
std::optional<Intervals> ColumnIntervals(const Expr& e, const KeyColumn& col) {
  const KeyType t = col.type;
  switch (e.kind) {
    case Expr::Kind::kCompare: {
      if (e.column != col.name || e.values.size() != 1 || e.op == CompareOp::kNe) return std::nullopt;
      const std::optional<KeyPart> v = LiteralPart(t, e.values[0]);
      if (!v) return std::nullopt;
      KeyRange r;
      const KeyBound b{Key{{*v}}, e.op == CompareOp::kEq || e.op == CompareOp::kLe || e.op == CompareOp::kGe};
      if (e.op != CompareOp::kLt && e.op != CompareOp::kLe) r.lo = b;
      if (e.op != CompareOp::kGt && e.op != CompareOp::kGe) r.hi = b;
      return Intervals{r};
    }
    case Expr::Kind::kIn: {
      if (e.column != col.name || e.negated) return std::nullopt;
      Intervals out;
      for (const Literal& lit : e.values) {
        if (lit.kind == Literal::Kind::kNull) continue;  // `k IN (.., NULL)` is never TRUE through the NULL
        const std::optional<KeyPart> v = LiteralPart(t, lit);
        if (!v) return std::nullopt;
        out.push_back(Point(*v));
      }
      return Normalize(t, std::move(out));
    }
    case Expr::Kind::kAnd: {
      std::optional<Intervals> a = ColumnIntervals(*e.children[0], col);
      std::optional<Intervals> b = ColumnIntervals(*e.children[1], col);
      if (a && b) return Intersect(t, *a, *b);
      return a ? a : b;
    }
    case Expr::Kind::kOr: {
      std::optional<Intervals> a = ColumnIntervals(*e.children[0], col);
      if (!a) return std::nullopt;
      std::optional<Intervals> b = ColumnIntervals(*e.children[1], col);
      if (!b) return std::nullopt;
      a->insert(a->end(), b->begin(), b->end());
      return Normalize(t, std::move(*a));
    }
    default:
      return std::nullopt;  // NOT, IS NULL: no key range (the index holds no NULL keys either)
  }
}

bool IsPoint(KeyType t, const KeyRange& r) {
  return r.lo && r.hi && r.lo->inclusive && r.hi->inclusive &&
         CompareKeyPart(t, r.lo->key.parts[0], r.hi->key.parts[0]) == 0;
}

}  // namespace

std::optional<std::vector<KeyRange>> FilterKeyRanges(const read::Expr& filter, const std::vector<KeyColumn>& key) {
  if (key.empty()) return std::nullopt;
  std::optional<Intervals> first = ColumnIntervals(filter, key[0]);
  if (!first) return std::nullopt;
  if (key.size() < 2) return first;
  std::optional<Intervals> second = ColumnIntervals(filter, key[1]);
  bool points = true;
  for (const KeyRange& r : *first) points = points && IsPoint(key[0].type, r);
  if (!second || !points || first->size() * second->size() > kMaxIntervals) return first;
  // Leading column equal to a, second column in an interval: the range [a, lo]..[a, hi].
  std::vector<KeyRange> out;
  for (const KeyRange& a : *first) {
    const KeyPart& av = a.lo->key.parts[0];
    for (const KeyRange& b : *second) {
      KeyRange r;
      r.lo = b.lo ? KeyBound{Key{{av, b.lo->key.parts[0]}}, b.lo->inclusive} : KeyBound{Key{{av}}, true};
      r.hi = b.hi ? KeyBound{Key{{av, b.hi->key.parts[0]}}, b.hi->inclusive} : KeyBound{Key{{av}}, true};
      out.push_back(std::move(r));
    }
  }
  return out;
}

bool AllExactKeys(const std::vector<KeyColumn>& key, const std::vector<KeyRange>& ranges) {
  for (const KeyRange& r : ranges) {
    if (!r.lo || !r.hi || !r.lo->inclusive || !r.hi->inclusive || r.lo->key.parts.size() != key.size() ||
        r.hi->key.parts.size() != key.size() || CompareKeys(key, r.lo->key, r.hi->key) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace rap::index
