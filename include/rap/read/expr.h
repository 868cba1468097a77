// Filter expressions over columns: the tree (=, !=, <, <=, >, >=, IN, IS [NOT] NULL, AND, OR, NOT),
// a small SQL-like parser for the CLI, evaluation over RecordBatch columns with SQL NULL semantics,
// and pruning from min/max/null-count statistics (row groups, ColumnIndex pages, partition values).
//
//   ExprPtr e = *ParseExpr("event_id = 5 AND name IN ('a','b') AND ts >= '2024-01-01'");
//   Predicate p = *Predicate::Bind(e, schema);      // literals converted to the column types
//   std::vector<uint8_t> keep = *p.Select(batch);   // 1 where the filter is TRUE (NULL and FALSE drop)
//   if (p.CanMatch(row_group_stats) == Match::kNever) skip the row group;
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/columnar/literal.h"
#include "rap/format/metadata.h"
#include "rap/read/row_selection.h"
#include "rap/util/result.h"

namespace rap::read {

// ---- The expression tree (untyped: literals are kept as written) ----

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

struct Literal {
  enum class Kind { kNull, kBool, kNumber, kString };
  Kind kind = Kind::kNull;
  std::string text;  // number as written, string unquoted, "true"/"false"
  bool operator==(const Literal&) const = default;
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind { kCompare, kIn, kIsNull, kAnd, kOr, kNot };
  Kind kind = Kind::kCompare;
  std::string column;             // kCompare, kIn, kIsNull
  CompareOp op = CompareOp::kEq;  // kCompare: column op values[0]
  std::vector<Literal> values;    // kCompare: 1, kIn: >= 1
  bool negated = false;           // kIn: NOT IN; kIsNull: IS NOT NULL
  std::vector<ExprPtr> children;  // kAnd, kOr: 2; kNot: 1

  // SQL text that ParseExpr reads back to an equal tree.
  std::string ToString() const;
};

ExprPtr MakeCompare(std::string column, CompareOp op, Literal value);
ExprPtr MakeIn(std::string column, std::vector<Literal> values, bool negated = false);
ExprPtr MakeIsNull(std::string column, bool negated = false);
ExprPtr MakeAnd(ExprPtr a, ExprPtr b);
ExprPtr MakeOr(ExprPtr a, ExprPtr b);
ExprPtr MakeNot(ExprPtr a);
Literal NumberLit(std::string text);
Literal StringLit(std::string text);

// Parses the CLI syntax:
//   expr    := term (OR term)* ;  term := factor (AND factor)* ;  factor := NOT factor | '(' expr ')' | pred
//   pred    := column op literal | literal op column | column [NOT] IN '(' literal, ... ')'
//            | column IS [NOT] NULL | column [NOT] BETWEEN literal AND literal
//            | column [NOT] LIKE 'prefix%'     (sugar: BETWEEN is >= AND <=; LIKE 'p%' is >= 'p' AND < the
//              next prefix in byte order, LIKE 'text' is = 'text'; other LIKE patterns are refused)
//   op      := = | == | != | <> | < | <= | > | >=
//   column  := identifier | "quoted" | `quoted`      literal := number | 'text' ('' escapes ')
//            | TRUE | FALSE | NULL | DATE 'YYYY-MM-DD' | TIMESTAMP '...'
// Keywords are case-insensitive. An error is InvalidArgument whose message says what was expected,
// gives the 1-based character position, and shows the text with a caret under that character.
Result<ExprPtr> ParseExpr(std::string_view text);

// Column names the expression reads, in first-use order, without duplicates.
std::vector<std::string> ReferencedColumns(const Expr& expr);

// ---- Typed values (a column's comparison domain) ----

// A value of a column in the domain its comparisons use: integers, dates, times, timestamps and
// unsigned integers as `i`; decimals as the unscaled `i`; floats as `d`; strings/binary as `s`
// (unsigned byte order); booleans as i = 0/1.
struct Value {
  enum class Domain { kInt, kDouble, kString };
  Domain domain = Domain::kInt;
  __int128 i = 0;
  double d = 0;
  std::string s;
};

// The comparison domain of a column type; NotSupported for nested, interval and similar types.
Result<Value::Domain> DomainOf(const DataType& type);
// The value of row `i` of a (non-nested) array, or nullopt when it is NULL.
std::optional<Value> ValueAt(const ArrayData& array, int64_t i);
// Decodes a Parquet statistics value (min_value/max_value, ColumnIndex min/max) of a column with
// physical type `physical` and rap type `type`; nullopt when it cannot be used (INT96, bad length).
std::optional<Value> DecodeStatValue(const std::string& bytes, parquet::Type physical, const DataType& type);

// What is known about one column over a range of rows (a row group, a page, a file, a partition).
struct ColumnStats {
  std::optional<Value> min, max;       // bounds of the non-null values, when known
  std::optional<int64_t> null_count;   // when known
  std::optional<int64_t> num_values;   // rows in the range (NULLs included), when known
  // A membership test (an ORC bloom filter): false when a value (in the column's domain) is surely
  // in none of the rows. Prunes `column = v` and `column IN (...)`; unset: nothing known.
  std::function<bool(const Value&)> might_contain;
};

// Row-group statistics of a column chunk decoded into ColumnStats. Legacy min/max (Statistics
// fields 1-2) are used only for signed numeric types, where their order is right.
ColumnStats StatsFromParquet(const parquet::Statistics& stats, parquet::Type physical, const DataType& type,
                             int64_t num_values);
// A partition value (one row of a constant column) as statistics: min = max = the value.
ColumnStats StatsFromValue(const std::optional<Value>& value);

// One page of a ColumnIndex with its rows (from the OffsetIndex).
struct PageStats {
  int64_t first_row = 0;  // within the row group
  int64_t num_rows = 0;
  ColumnStats stats;
};
// Per-page statistics from a ColumnIndex + OffsetIndex pair of one column chunk.
std::vector<PageStats> PageStatsFromIndex(const parquet::ColumnIndex& column_index,
                                          const parquet::OffsetIndex& offset_index, int64_t row_group_rows,
                                          parquet::Type physical, const DataType& type);

enum class Match { kNever, kMaybe };

// ---- A bound predicate ----

class Predicate {
 public:
  // Resolves the columns of `expr` in `schema` and converts every literal to its column's domain.
  // InvalidArgument for unknown columns, literals that do not fit the type (e.g. 'abc' for an int,
  // 1.5 for an int, a decimal with too many fractional digits), or unsupported column types.
  static Result<Predicate> Bind(const ExprPtr& expr, const Schema& schema);

  const ExprPtr& expr() const { return expr_; }
  // Indices (in the bound schema) of the columns the predicate reads.
  const std::vector<int>& columns() const { return columns_; }

  // Evaluates over `batch` (whose schema has the bound columns by name). The result has one byte
  // per row: 1 when the predicate is TRUE, 0 when FALSE or NULL.
  Result<std::vector<uint8_t>> Select(const RecordBatch& batch) const;

  // Whether rows described by the statistics can satisfy the predicate. `stats(column_index)` gives
  // what is known about a bound column (nullopt: nothing known).
  using StatsFn = std::function<std::optional<ColumnStats>(int column_index)>;
  Match CanMatch(const StatsFn& stats) const;

  // Rows of a row group (of `num_rows`) in pages that may hold a match. `pages(column_index)` gives
  // the pages of a bound column (nullopt: no ColumnIndex, every row may match).
  using PagesFn = std::function<std::optional<std::vector<PageStats>>(int column_index)>;
  RowSelection PagesMayMatch(const PagesFn& pages, int64_t num_rows) const;

  struct Node;  // bound tree (defined in expr_eval.cc)

 private:
  ExprPtr expr_;
  std::shared_ptr<const Node> root_;
  std::vector<int> columns_;
};

}  // namespace rap::read
