// Filter expressions: parser (round trips, error positions), evaluation with SQL NULL semantics
// against a row-by-row reference, literal conversion, and pruning from statistics and page indexes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "rap/read/expr.h"
#include "testing/arrays.h"
#include "testing/result_check.h"

namespace rap::read {
namespace {

// ---- small array builders ----
using rap::testing::Fixed;
using rap::testing::Strings;

RecordBatch Batch(std::vector<Field> fields, std::vector<ArrayPtr> cols) {
  auto s = std::make_shared<Schema>();
  s->fields = std::move(fields);
  RecordBatch b;
  b.schema = s;
  b.num_rows = cols.empty() ? 0 : cols[0]->length;
  b.columns = std::move(cols);
  return b;
}

std::vector<int> Rows(const std::vector<uint8_t>& sel) {
  std::vector<int> out;
  for (size_t i = 0; i < sel.size(); ++i) {
    if (sel[i]) out.push_back(static_cast<int>(i));
  }
  return out;
}

// ---- parser ----

TEST(ExprParse, RoundTrips) {
  const char* kCases[] = {
      "event_id = 5",
      "event_id = 5 AND name IN ('a','b') AND ts >= '2024-01-01'",
      "NOT (a < -1.5e3 OR b IS NOT NULL)",
      "x NOT IN (1, 2, NULL)",
      "\"my col\" <> 'it''s'",
      "5 < x",
      "d = DATE '2024-02-29' or flag = true",
      "((a = 1))",
  };
  for (const char* text : kCases) {
    SCOPED_TRACE(text);
    auto e = ParseExpr(text);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    auto again = ParseExpr((*e)->ToString());
    ASSERT_TRUE(again.ok()) << (*e)->ToString() << ": " << again.status().ToString();
    EXPECT_EQ((*again)->ToString(), (*e)->ToString());
  }
  auto e = ParseExpr("5 < x");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->ToString(), "x > 5");
  e = ParseExpr("a = 1 OR b = 2 AND c = 3");  // AND binds tighter
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->ToString(), "(a = 1 OR (b = 2 AND c = 3))");
  EXPECT_EQ(ReferencedColumns(**ParseExpr("b = 1 AND (a = 2 OR b = 3)")), (std::vector<std::string>{"b", "a"}));
}

TEST(ExprParse, ErrorsPointAtTheCharacter) {
  struct Case {
    const char* text;
    size_t pos;  // 1-based
    const char* expect;
  };
  const Case kCases[] = {
      {"event_id 5", 10, "expected a comparison"},
      {"a = 1 AND", 10, "end of the filter"},
      {"a = 'open", 5, "unterminated string"},
      {"a IN (1, 2", 11, "',' or ')'"},
      {"a = 1 b = 2", 7, "AND, OR"},
      {"a # 1", 3, "unexpected character '#'"},
      {"(a = 1", 7, "')'"},
      {"a IS 5", 6, "NULL or NOT NULL"},
      {"AND = 1", 1, "a column name"},
      {"a = 1.2.3", 5, "malformed number"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    auto e = ParseExpr(c.text);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    const std::string& m = e.status().message();
    EXPECT_NE(m.find("at character " + std::to_string(c.pos)), std::string::npos) << m;
    EXPECT_NE(m.find(c.expect), std::string::npos) << m;
    // The caret line puts '^' under the character.
    size_t last_nl = m.rfind('\n');
    ASSERT_NE(last_nl, std::string::npos);
    EXPECT_EQ(m.substr(last_nl + 1), "  " + std::string(c.pos - 1, ' ') + "^") << m;
  }
  std::string deep(500, '(');
  EXPECT_FALSE(ParseExpr(deep + "a = 1").ok());
}

// ---- evaluation ----

TEST(ExprEval, ThreeValuedLogic) {
  RecordBatch b = Batch({{"x", MakeType(TypeId::kInt64)}, {"s", MakeType(TypeId::kString)}},
                        {Fixed<int64_t>(MakeType(TypeId::kInt64), {1, 2, std::nullopt, 4, 5}),
                         Strings({"a", std::nullopt, "b", "a", "c"})});
  auto sel = [&](const char* text) {
    SCOPED_TRACE(text);
    auto e = ParseExpr(text);
    RAP_TEST_CHECK_OK(e);
    auto p = Predicate::Bind(*e, *b.schema);
    RAP_TEST_CHECK_OK(p);
    auto r = p->Select(b);
    RAP_TEST_CHECK_OK(r);
    return Rows(*r);
  };
  EXPECT_EQ(sel("x = 2"), (std::vector<int>{1}));
  EXPECT_EQ(sel("x != 2"), (std::vector<int>{0, 3, 4}));  // NULL != 2 is NULL
  EXPECT_EQ(sel("NOT x = 2"), (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(sel("x >= 4 OR s = 'a'"), (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(sel("x IS NULL"), (std::vector<int>{2}));
  EXPECT_EQ(sel("s IS NOT NULL AND x < 3"), (std::vector<int>{0}));
  EXPECT_EQ(sel("x IN (1, 5)"), (std::vector<int>{0, 4}));
  EXPECT_EQ(sel("x NOT IN (1, 5)"), (std::vector<int>{1, 3}));
  EXPECT_EQ(sel("x NOT IN (1, NULL)"), (std::vector<int>{}));  // never TRUE with a NULL in the list
  EXPECT_EQ(sel("x = NULL"), (std::vector<int>{}));
  EXPECT_EQ(sel("NOT (x = 1 AND s = 'a')"), (std::vector<int>{1, 2, 3, 4}));  // FALSE AND NULL = FALSE
  EXPECT_EQ(sel("NOT (x = 4 OR s = 'b')"), (std::vector<int>{0, 4}));        // row 1: FALSE OR NULL = NULL
  EXPECT_EQ(sel("x > 100000000000000000000"), (std::vector<int>{}));  // literal beyond int64 compares exactly
}

TEST(ExprEval, TypedLiterals) {
  auto date = MakeType(TypeId::kDate32);
  auto ts = MakeTemporal(TypeId::kTimestamp, TimeUnit::kMilli, "UTC");
  auto dec = MakeDecimal(10, 2);
  auto dbl = MakeType(TypeId::kFloat64);
  int32_t d0 = *columnar::ParseDate("2024-01-01");
  int64_t t0 = *columnar::ParseTimestampMicros("2024-01-01 12:00:00") / 1000;
  RecordBatch b = Batch({{"d", date}, {"t", ts}, {"m", dec}, {"f", dbl}},
                        {Fixed<int32_t>(date, {d0 - 1, d0, d0 + 1}), Fixed<int64_t>(ts, {t0 - 1, t0, t0 + 1}),
                         Fixed<__int128>(dec, {-150, 1999, 250}),
                         Fixed<double>(dbl, {std::nan(""), 0.5, -2.0})});
  auto sel = [&](const char* text) -> Result<std::vector<int>> {
    RAP_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr(text));
    RAP_ASSIGN_OR_RETURN(Predicate p, Predicate::Bind(e, *b.schema));
    RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> r, p.Select(b));
    return Rows(r);
  };
  EXPECT_EQ(*sel("d >= '2024-01-01'"), (std::vector<int>{1, 2}));
  EXPECT_EQ(*sel("d = DATE '2023-12-31'"), (std::vector<int>{0}));
  EXPECT_EQ(*sel("t > '2024-01-01T12:00:00Z'"), (std::vector<int>{2}));
  EXPECT_EQ(*sel("t = '2024-01-01 12:00:00'"), (std::vector<int>{1}));
  EXPECT_EQ(*sel("m < 0"), (std::vector<int>{0}));
  EXPECT_EQ(*sel("m = 19.99"), (std::vector<int>{1}));
  EXPECT_EQ(*sel("m IN ('2.5', -1.5)"), (std::vector<int>{0, 2}));
  EXPECT_EQ(*sel("f < 1"), (std::vector<int>{1, 2}));  // NaN fails comparisons
  EXPECT_EQ(*sel("f != 1"), (std::vector<int>{0, 1, 2}));  // ... except !=
  // Literals that do not fit the column are errors, never silently wrong rows.
  EXPECT_EQ(sel("m = 1.005").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(sel("d = 'yesterday'").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(sel("t = '2024-01-01 00:00:00.0005'").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(sel("nope = 1").status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sel("nope = 1").status().message().find("unknown column 'nope'"), std::string::npos);
}

// Random expressions over random data against a row-at-a-time reference.
TEST(ExprEval, MatchesReferenceOnRandomData) {
  std::mt19937_64 rng(42);
  const int n = 300;
  std::vector<std::optional<int64_t>> xs(n);
  std::vector<std::optional<std::string>> ss(n);
  for (int i = 0; i < n; ++i) {
    if (rng() % 7) xs[i] = static_cast<int64_t>(rng() % 20) - 5;
    if (rng() % 5) ss[i] = std::string(1, static_cast<char>('a' + rng() % 6));
  }
  RecordBatch b = Batch({{"x", MakeType(TypeId::kInt64)}, {"s", MakeType(TypeId::kString)}},
                        {Fixed<int64_t>(MakeType(TypeId::kInt64), xs), Strings(ss)});
  // Reference: returns 0/1/2 (false/true/null).
  std::function<int(const Expr&, int)> ref = [&](const Expr& e, int row) -> int {
    switch (e.kind) {
      case Expr::Kind::kAnd: {
        int a = ref(*e.children[0], row), c = ref(*e.children[1], row);
        return (a == 0 || c == 0) ? 0 : (a == 2 || c == 2) ? 2 : 1;
      }
      case Expr::Kind::kOr: {
        int a = ref(*e.children[0], row), c = ref(*e.children[1], row);
        return (a == 1 || c == 1) ? 1 : (a == 2 || c == 2) ? 2 : 0;
      }
      case Expr::Kind::kNot: {
        int a = ref(*e.children[0], row);
        return a == 2 ? 2 : 1 - a;
      }
      case Expr::Kind::kIsNull: {
        bool isnull = e.column == "x" ? !xs[row] : !ss[row];
        return isnull != e.negated;
      }
      default: {
        bool isnull = e.column == "x" ? !xs[row] : !ss[row];
        if (isnull) return 2;
        auto cmp = [&](const Literal& l) {
          if (e.column == "x") {
            int64_t v = std::stoll(l.text);
            return *xs[row] < v ? -1 : *xs[row] > v ? 1 : 0;
          }
          return ss[row]->compare(l.text) < 0 ? -1 : ss[row]->compare(l.text) > 0 ? 1 : 0;
        };
        if (e.kind == Expr::Kind::kIn) {
          bool found = false;
          for (const Literal& l : e.values) found = found || cmp(l) == 0;
          return found != e.negated;
        }
        int c = cmp(e.values[0]);
        switch (e.op) {
          case CompareOp::kEq: return c == 0;
          case CompareOp::kNe: return c != 0;
          case CompareOp::kLt: return c < 0;
          case CompareOp::kLe: return c <= 0;
          case CompareOp::kGt: return c > 0;
          case CompareOp::kGe: return c >= 0;
        }
        return 0;
      }
    }
  };
  std::function<ExprPtr(int)> gen = [&](int depth) -> ExprPtr {
    int k = static_cast<int>(rng() % (depth > 2 ? 4 : 7));
    bool on_x = rng() % 2;
    auto lit = [&] {
      return on_x ? NumberLit(std::to_string(static_cast<int64_t>(rng() % 20) - 5))
                  : StringLit(std::string(1, static_cast<char>('a' + rng() % 6)));
    };
    std::string col = on_x ? "x" : "s";
    switch (k) {
      case 0: case 1: return MakeCompare(col, static_cast<CompareOp>(rng() % 6), lit());
      case 2: return MakeIn(col, {lit(), lit()}, rng() % 2);
      case 3: return MakeIsNull(col, rng() % 2);
      case 4: return MakeAnd(gen(depth + 1), gen(depth + 1));
      case 5: return MakeOr(gen(depth + 1), gen(depth + 1));
      default: return MakeNot(gen(depth + 1));
    }
  };
  for (int iter = 0; iter < 300; ++iter) {
    ExprPtr e = gen(0);
    SCOPED_TRACE(e->ToString());
    // Through the parser too, so printing and parsing are covered by the same cases.
    auto parsed = ParseExpr(e->ToString());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto p = Predicate::Bind(*parsed, *b.schema);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    auto got = p->Select(b);
    ASSERT_TRUE(got.ok());
    for (int r = 0; r < n; ++r) ASSERT_EQ((*got)[r], ref(*e, r) == 1 ? 1 : 0) << "row " << r;

    // Pruning is sound: over any slice of rows, kNever means no row of the slice matches.
    for (int start = 0; start < n; start += 37) {
      int end = std::min(n, start + 1 + static_cast<int>(rng() % 60));
      auto stats = [&](int column) -> std::optional<ColumnStats> {
        ColumnStats st;
        int64_t nulls = 0;
        std::optional<Value> lo, hi;
        for (int r = start; r < end; ++r) {
          std::optional<Value> v = ValueAt(*b.columns[column], r);
          if (!v) {
            ++nulls;
            continue;
          }
          auto less = [](const Value& a, const Value& c) { return a.domain == Value::Domain::kInt ? a.i < c.i : a.s < c.s; };
          if (!lo || less(*v, *lo)) lo = v;
          if (!hi || less(*hi, *v)) hi = v;
        }
        st.min = lo;
        st.max = hi;
        st.null_count = nulls;
        st.num_values = end - start;
        return st;
      };
      if (p->CanMatch(stats) == Match::kNever) {
        for (int r = start; r < end; ++r) ASSERT_EQ((*got)[r], 0) << "pruned slice [" << start << "," << end << ")";
      }
    }
  }
}

// Comparisons with one literal take native fast paths per type (src/read/expr_compare.cc): they give
// exactly what a value-by-value three-way comparison (ValueAt) gives, for every integer width and
// signedness, literals outside the column's range, dates, timestamps, doubles with NaN, and strings
// shorter and longer than 16 bytes.
TEST(ExprEval, FastComparisonsMatchValueByValue) {
  std::mt19937_64 rng(5);
  const int n = 200;
  auto I = [](__int128 v) { Value x; x.domain = Value::Domain::kInt; x.i = v; return x; };
  auto D = [](double v) { Value x; x.domain = Value::Domain::kDouble; x.d = v; return x; };
  auto S = [](std::string v) { Value x; x.domain = Value::Domain::kString; x.s = std::move(v); return x; };
  struct Case {
    std::string name;
    ArrayPtr array;
    std::vector<std::pair<std::string, Value>> literals;  // text in the filter, the value it means
  };
  std::vector<std::optional<int8_t>> i8(n);
  std::vector<std::optional<uint64_t>> u64(n);
  std::vector<std::optional<int32_t>> days(n);
  std::vector<std::optional<int64_t>> micros(n);
  std::vector<std::optional<double>> dbl(n);
  std::vector<std::optional<std::string>> str(n);
  const std::string long_a(20, 'a'), long_b = std::string(19, 'a') + "b";
  const std::string words[] = {"", "NL", "N", "NLX", long_a, long_b};
  for (int i = 0; i < n; ++i) {
    if (rng() % 9 == 0) continue;  // NULL row
    i8[i] = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
    u64[i] = rng() % 3 == 0 ? ~uint64_t{0} - rng() % 4 : rng() % 10;
    days[i] = static_cast<int32_t>(19723 + rng() % 5);  // 2024-01-01 + 0..4
    micros[i] = int64_t{1704067200000000} + static_cast<int64_t>(rng() % 3) * 500000;
    dbl[i] = rng() % 10 == 0 ? std::nan("") : static_cast<double>(rng() % 7) / 2;
    str[i] = words[rng() % 6];
  }
  auto ts = std::make_shared<DataType>(*MakeType(TypeId::kTimestamp));
  ts->unit = TimeUnit::kMicro;
  const __int128 u64max = static_cast<__int128>(~uint64_t{0});
  std::vector<Case> cases = {
      {"i8", Fixed<int8_t>(MakeType(TypeId::kInt8), i8), {{"-128", I(-128)}, {"0", I(0)}, {"127", I(127)}, {"5", I(5)}}},
      {"u64", Fixed<uint64_t>(MakeType(TypeId::kUInt64), u64), {{"3", I(3)}, {"18446744073709551615", I(u64max)}, {"0", I(0)}}},
      {"d", Fixed<int32_t>(MakeType(TypeId::kDate32), days), {{"'2024-01-02'", I(19724)}, {"'2024-01-04'", I(19726)}}},
      {"t", Fixed<int64_t>(ts, micros), {{"'2024-01-01 00:00:00.5'", I(1704067200500000)}, {"'2024-01-01'", I(1704067200000000)}}},
      {"f", Fixed<double>(MakeType(TypeId::kFloat64), dbl), {{"1.5", D(1.5)}, {"0", D(0)}, {"-1", D(-1)}, {"3", D(3)}}},
      {"s", Strings(str), {{"''", S("")}, {"'NL'", S("NL")}, {"'N'", S("N")}, {"'" + long_a + "'", S(long_a)},
                           {"'" + long_b + "'", S(long_b)}, {"'zz'", S("zz")}}},
  };
  const char* kOps[] = {"=", "!=", "<", "<=", ">", ">="};
  for (const Case& c : cases) {
    RecordBatch b = Batch({{c.name, c.array->type}}, {c.array});
    for (const auto& [text_lit, l] : c.literals) {
      for (const std::string op : kOps) {
        const std::string text = c.name + " " + op + " " + text_lit;
        SCOPED_TRACE(text);
        auto p = Predicate::Bind(*ParseExpr(text), *b.schema);
        ASSERT_TRUE(p.ok()) << p.status().ToString();
        auto got = p->Select(b);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        for (int r = 0; r < n; ++r) {
          std::optional<Value> v = ValueAt(*c.array, r);
          int want = 0;
          if (v) {
            int cmp = 0;
            if (v->domain == Value::Domain::kInt) cmp = v->i < l.i ? -1 : v->i > l.i;
            if (v->domain == Value::Domain::kString) cmp = v->s < l.s ? -1 : v->s > l.s;
            if (v->domain == Value::Domain::kDouble) cmp = v->d < l.d ? -1 : v->d > l.d;
            if (v->domain == Value::Domain::kDouble && std::isnan(v->d)) {
              want = op == "!=";
            } else {
              want = op == "=" ? cmp == 0 : op == "!=" ? cmp != 0 : op == "<" ? cmp < 0 : op == "<=" ? cmp <= 0
                   : op == ">" ? cmp > 0 : cmp >= 0;
            }
          }
          ASSERT_EQ((*got)[r], want) << "row " << r;
        }
      }
    }
  }
  // Literals outside a column's range (the generic path decides): nothing or everything matches.
  RecordBatch b8 = Batch({{"i8", MakeType(TypeId::kInt8)}}, {cases[0].array});
  auto above = Predicate::Bind(*ParseExpr("i8 < 300"), *b8.schema);
  if (above.ok()) {
    auto got = above->Select(b8);
    ASSERT_TRUE(got.ok());
    for (int r = 0; r < n; ++r) EXPECT_EQ((*got)[r], i8[r] ? 1 : 0);
  }
}

// ---- statistics decoding and pruning ----

std::string Bytes(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

TEST(ExprPrune, RowGroupStatistics) {
  Schema s;
  s.fields = {{"x", MakeType(TypeId::kInt32)}, {"name", MakeType(TypeId::kString)}};
  int32_t lo = 10, hi = 20;
  parquet::Statistics st;
  st.min_value = Bytes(&lo, 4);
  st.max_value = Bytes(&hi, 4);
  st.null_count = 0;
  ColumnStats x = StatsFromParquet(st, parquet::Type::INT32, *s.fields[0].type, 100);
  ASSERT_TRUE(x.min && x.max);
  EXPECT_EQ(static_cast<int64_t>(x.min->i), 10);
  parquet::Statistics names;
  names.min_value = "apple";
  names.max_value = "melon";
  names.null_count = 3;
  ColumnStats nm = StatsFromParquet(names, parquet::Type::BYTE_ARRAY, *s.fields[1].type, 100);
  auto stats = [&](int c) -> std::optional<ColumnStats> { return c == 0 ? x : nm; };
  auto can = [&](const char* text) {
    auto p = Predicate::Bind(*ParseExpr(text), s);
    RAP_TEST_CHECK_OK(p);
    return p->CanMatch(stats);
  };
  EXPECT_EQ(can("x = 5"), Match::kNever);
  EXPECT_EQ(can("x = 10"), Match::kMaybe);
  EXPECT_EQ(can("x > 20"), Match::kNever);
  EXPECT_EQ(can("x >= 20"), Match::kMaybe);
  EXPECT_EQ(can("x < 10 OR name = 'zebra'"), Match::kNever);
  EXPECT_EQ(can("x < 10 OR name = 'kiwi'"), Match::kMaybe);
  EXPECT_EQ(can("NOT x >= 10"), Match::kNever);  // no NULLs, all >= 10
  EXPECT_EQ(can("x IS NULL"), Match::kNever);    // null_count 0
  EXPECT_EQ(can("name IS NULL"), Match::kMaybe);
  EXPECT_EQ(can("x IN (1, 2, 30)"), Match::kNever);
  EXPECT_EQ(can("x NOT IN (1, 2)"), Match::kMaybe);
  // Legacy min/max of strings are ignored (signed byte order); of ints they are used.
  parquet::Statistics legacy;
  legacy.min = "a";
  legacy.max = "b";
  EXPECT_FALSE(StatsFromParquet(legacy, parquet::Type::BYTE_ARRAY, *s.fields[1].type, 5).min.has_value());
  // A partition value as statistics: NULL partition.
  auto part = [&](int) -> std::optional<ColumnStats> { return StatsFromValue(std::nullopt); };
  EXPECT_EQ(Predicate::Bind(*ParseExpr("x = 1"), s)->CanMatch(part), Match::kNever);
  EXPECT_EQ(Predicate::Bind(*ParseExpr("x IS NULL"), s)->CanMatch(part), Match::kMaybe);
}

TEST(ExprPrune, DecimalAndUnsignedStatistics) {
  auto dec = MakeDecimal(20, 2);
  std::string be = {'\xff', '\x38'};  // -200 big-endian two's complement = -2.00
  auto v = DecodeStatValue(be, parquet::Type::FIXED_LEN_BYTE_ARRAY, *dec);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(static_cast<int64_t>(v->i), -200);
  uint32_t big = 0xfffffff0u;
  auto u = DecodeStatValue(Bytes(&big, 4), parquet::Type::INT32, *MakeType(TypeId::kUInt32));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(static_cast<int64_t>(u->i), 0xfffffff0ll);
  EXPECT_FALSE(DecodeStatValue("abc", parquet::Type::INT32, *MakeType(TypeId::kInt32)).has_value());
}

TEST(ExprPrune, ColumnIndexPages) {
  Schema s;
  s.fields = {{"x", MakeType(TypeId::kInt64)}, {"y", MakeType(TypeId::kInt64)}};
  auto page_index = [](std::vector<std::pair<int64_t, int64_t>> bounds, std::vector<int64_t> firsts,
                       std::vector<bool> nulls) {
    parquet::ColumnIndex ci;
    parquet::OffsetIndex oi;
    for (size_t k = 0; k < bounds.size(); ++k) {
      ci.null_pages.push_back(nulls[k]);
      ci.min_values.push_back(Bytes(&bounds[k].first, 8));
      ci.max_values.push_back(Bytes(&bounds[k].second, 8));
      ci.null_counts.push_back(nulls[k] ? 10 : 0);
      parquet::PageLocation loc;
      loc.first_row_index = firsts[k];
      oi.page_locations.push_back(loc);
    }
    return std::make_pair(ci, oi);
  };
  auto x = page_index({{0, 9}, {10, 19}, {20, 29}, {0, 0}}, {0, 10, 20, 30}, {false, false, false, true});
  auto y = page_index({{100, 150}, {151, 200}}, {0, 25}, {false, false});
  auto pages = [&](int c) -> std::optional<std::vector<PageStats>> {
    const auto& pr = c == 0 ? x : y;
    return PageStatsFromIndex(pr.first, pr.second, 40, parquet::Type::INT64, *s.fields[c].type);
  };
  auto rows = [&](const char* text) { return Predicate::Bind(*ParseExpr(text), s)->PagesMayMatch(pages, 40).ToString(); };
  EXPECT_EQ(rows("x = 15"), "[10, 20)");
  EXPECT_EQ(rows("x IS NULL"), "[30, 40)");
  EXPECT_EQ(rows("x >= 15 AND y > 160"), "[25, 30)");
  EXPECT_EQ(rows("x < 5 OR y = 170"), "[0, 10) [25, 40)");
  EXPECT_EQ(rows("NOT x < 20"), "[20, 30)");
  // Pages that do not cover the row group are not trusted.
  auto bad = [&](int) -> std::optional<std::vector<PageStats>> {
    return PageStatsFromIndex(x.first, x.second, 35, parquet::Type::INT64, *s.fields[0].type);
  };
  EXPECT_EQ(Predicate::Bind(*ParseExpr("x = 15"), s)->PagesMayMatch(bad, 40).ToString(), "[0, 40)");
}

}  // namespace
}  // namespace rap::read
