// A keyed test table for the frame-per-key layouts (frame_layout_test, independent_readers_test):
// rows sorted by `key`, 1-6 rows per key, and value columns of every kind a frame holds (fixed
// width, byte arrays, nulls, lists) plus a BOOLEAN one (which stays unframed).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "rap/format/writer_options.h"

#include "format/writer_testing.h"

namespace rap::testing {

inline SchemaPtr KeyedSchema() {
  auto s = std::make_shared<Schema>();
  s->fields = {
      {"key", MakeType(TypeId::kInt64), false},
      {"n", MakeType(TypeId::kInt32), false},
      {"s", MakeType(TypeId::kString), true},
      {"x", MakeType(TypeId::kFloat64), true},
      {"tags", MakeList(Field{"item", MakeType(TypeId::kInt64), true}), true},
      {"flag", MakeType(TypeId::kBool), true},
  };
  return s;
}

inline RecordBatch KeyedBatch(int64_t rows, uint64_t seed) {
  auto s = KeyedSchema();
  std::mt19937_64 rng(seed);
  std::vector<int64_t> keys;
  int64_t key = 1000;
  while (static_cast<int64_t>(keys.size()) < rows) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 6);
    for (int64_t i = 0; i < n && static_cast<int64_t>(keys.size()) < rows; ++i) keys.push_back(key);
    key += 1 + static_cast<int64_t>(rng() % 3);
  }
  RandomDataOptions o;
  o.null_probability = 0.15;
  o.long_string_probability = 0.002;
  std::vector<ArrayPtr> cols{MakeInt64Array(keys)};
  for (size_t f = 1; f < s->fields.size(); ++f) {
    cols.push_back(RandomArray(rng, *s->fields[f].type, s->fields[f].nullable, rows, o));
  }
  return MakeBatch(s, std::move(cols));
}

struct NamedLayout {
  std::string name;
  parquet::WriterOptions options;
};

// The frame-per-key layouts (small pages and row groups so keys cross both).
inline std::vector<NamedLayout> FrameLayouts() {
  std::vector<NamedLayout> out;
  auto add = [&](std::string name, int64_t align, bool interleave) {
    NamedLayout l;
    l.name = std::move(name);
    l.options.frame_break_on = {"key"};
    l.options.frame_align = align;
    l.options.interleave = interleave;
    l.options.defaults.page_max_rows = 333;
    l.options.row_group_max_rows = 1500;
    out.push_back(std::move(l));
  };
  add("frame_per_key", 0, false);
  add("frame_per_key_align4k", 4096, false);
  add("interleaved", 0, true);
  add("interleaved_align4k", 4096, true);
  add("interleaved_align512", 512, true);
  return out;
}

}  // namespace rap::testing
