// The `--where` filter language (read/expr.h): parsing, binding to a schema of every literal domain
// (integers, floats, strings, dates, timestamps, decimals), row evaluation and statistics pruning.
#include <optional>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "rap/read/expr.h"
#include "testing/arrays.h"

RAP_FUZZ_TARGET(where) {
  using namespace rap;
  auto expr = read::ParseExpr(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!expr.ok()) return 0;
  (void)read::ReferencedColumns(**expr);
  static const Schema schema{{
      {"id", MakeType(TypeId::kInt64)},
      {"x", MakeType(TypeId::kInt32)},
      {"d", MakeType(TypeId::kFloat64)},
      {"s", MakeType(TypeId::kString)},
      {"day", MakeType(TypeId::kDate32)},
      {"ts", MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC")},
      {"dec", MakeDecimal(18, 2)},
  }};
  auto pred = read::Predicate::Bind(*expr, schema);
  if (!pred.ok()) return 0;
  RecordBatch batch;
  batch.schema = std::make_shared<Schema>(schema);
  batch.num_rows = 3;
  batch.columns = {
      testing::Fixed<int64_t>(schema.fields[0].type, {1, std::nullopt, -5}),
      testing::Fixed<int32_t>(schema.fields[1].type, {7, 0, std::nullopt}),
      testing::Fixed<double>(schema.fields[2].type, {0.5, std::nullopt, -1e300}),
      testing::Strings({"a", std::nullopt, "zz"}),
      testing::Fixed<int32_t>(schema.fields[4].type, {0, 19000, std::nullopt}),
      testing::Fixed<int64_t>(schema.fields[5].type, {std::nullopt, 0, 1700000000000000}),
      testing::Fixed<__int128>(schema.fields[6].type, {12345, std::nullopt, -1}),
  };
  auto selected = pred->Select(batch);
  if (selected.ok() && selected->size() != 3) __builtin_trap();
  (void)pred->CanMatch([](int) { return std::optional<read::ColumnStats>(); });
  (void)pred->PagesMayMatch([](int) { return std::optional<std::vector<read::PageStats>>(); }, 10);
  return 0;
}
