#include "lookup/table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>

#include <fmt/format.h>

#include "rap/format/writer.h"
#include "testing/arrays.h"
#include "testing/paths.h"

namespace rap::bench {

namespace fs = std::filesystem;

namespace {

TypeId ColumnType(int c) {
  switch (c % 5) {
    case 1: return TypeId::kInt64;
    case 2: return TypeId::kFloat64;
    case 3: return TypeId::kString;  // from a small vocabulary (dictionary encoded)
    case 4: return TypeId::kInt32;
    default: return TypeId::kString;  // random text
  }
}

std::string RandomText(std::mt19937_64& rng, size_t min_len, size_t spread) {
  std::string s(min_len + rng() % spread, 'a');
  for (char& ch : s) ch = static_cast<char>('a' + rng() % 26);
  return s;
}

}  // namespace

LookupTable WriteLookupTable(const std::string& dir, const LookupTableOptions& o) {
  if (o.files < o.files_per_key || o.files_per_key < 1 || o.rows_per_key < o.files_per_key) {
    std::fprintf(stderr, "bench_lookup: need files >= files per key >= 1 and rows per key >= files per key\n");
    std::exit(2);
  }
  LookupTable t;
  t.keys = o.rows / o.rows_per_key;
  std::mt19937_64 rng(o.seed);
  // Assign each key's rows to its files: rows_per_key split as evenly as possible over
  // files_per_key distinct files.
  std::vector<std::vector<int64_t>> file_keys(static_cast<size_t>(o.files));
  for (int64_t k = 0; k < t.keys; ++k) {
    std::set<int> chosen;
    while (static_cast<int>(chosen.size()) < o.files_per_key) chosen.insert(static_cast<int>(rng() % static_cast<uint64_t>(o.files)));
    int i = 0;
    for (int f : chosen) {
      const int n = o.rows_per_key / o.files_per_key + (i < o.rows_per_key % o.files_per_key ? 1 : 0);
      for (int r = 0; r < n; ++r) file_keys[static_cast<size_t>(f)].push_back(k);
      ++i;
    }
  }
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back({"k", MakeType(TypeId::kInt64), false});
  for (int c = 1; c < o.columns; ++c) {
    const std::string name = fmt::format("c{:02d}", c);
    t.value_columns.push_back(name);
    schema->fields.push_back({name, MakeType(ColumnType(c)), true});
  }
  std::vector<std::string> vocabulary;
  for (int i = 0; i < 1000; ++i) vocabulary.push_back(RandomText(rng, 6, 10));
  fs::create_directories(dir);
  for (int f = 0; f < o.files; ++f) {
    std::vector<int64_t>& keys = file_keys[static_cast<size_t>(f)];
    std::shuffle(keys.begin(), keys.end(), rng);
    const size_t n = keys.size();
    RecordBatch b;
    b.schema = schema;
    b.num_rows = static_cast<int64_t>(n);
    {
      std::vector<std::optional<int64_t>> v(keys.begin(), keys.end());
      b.columns.push_back(testing::Fixed<int64_t>(schema->fields[0].type, v));
    }
    for (int c = 1; c < o.columns; ++c) {
      const DataTypePtr& type = schema->fields[static_cast<size_t>(c)].type;
      switch (ColumnType(c)) {
        case TypeId::kInt64: {
          std::vector<std::optional<int64_t>> v(n);
          for (auto& x : v) x = static_cast<int64_t>(rng() >> 20);
          b.columns.push_back(testing::Fixed<int64_t>(type, v));
          break;
        }
        case TypeId::kFloat64: {
          std::vector<std::optional<double>> v(n);
          for (auto& x : v) if (rng() % 10) x = static_cast<double>(rng() % 1000000) / 100.0;
          b.columns.push_back(testing::Fixed<double>(type, v));
          break;
        }
        case TypeId::kInt32: {
          std::vector<std::optional<int32_t>> v(n);
          for (auto& x : v) x = static_cast<int32_t>(rng() % 100000);
          b.columns.push_back(testing::Fixed<int32_t>(type, v));
          break;
        }
        default: {
          std::vector<std::optional<std::string>> v(n);
          const bool dict = c % 5 == 3;
          for (auto& x : v) {
            if (dict) x = vocabulary[rng() % vocabulary.size()];
            else if (rng() % 5) x = RandomText(rng, 8, 17);
          }
          b.columns.push_back(testing::Strings(v));
          break;
        }
      }
    }
    auto bytes = parquet::WriteParquetToString(schema, {b}, parquet::WriterOptions{});
    if (!bytes.ok()) {
      std::fprintf(stderr, "bench_lookup: write: %s\n", bytes.status().ToString().c_str());
      std::exit(2);
    }
    const std::string name = fmt::format("part-{:02d}.parquet", f);
    testing::WriteStringToFile(dir + "/" + name, *bytes);
    t.files.push_back(name);
    t.rows += static_cast<int64_t>(n);
    t.bytes += bytes->size();
  }
  return t;
}

std::vector<std::vector<int64_t>> KeyBatches(int count, int size, int64_t keys, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int64_t>> out;
  for (int i = 0; i < count; ++i) {
    std::set<int64_t> s;
    while (static_cast<int>(s.size()) < size && static_cast<int64_t>(s.size()) < keys) s.insert(static_cast<int64_t>(rng() % static_cast<uint64_t>(keys)));
    std::vector<int64_t> b(s.begin(), s.end());
    std::shuffle(b.begin(), b.end(), rng);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace rap::bench
