// A random table for index tests (header-only; tests that link rap::index include it) and the
// brute-force reference lookup: every file read whole, each key's rows collected in (file, row)
// order and rendered as text ("v1|v2|...|").
//
// Files "f<NN>.parquet" below a directory, each `rows` rows in row groups of `row_group_rows` and pages
// of `page_rows`. Columns: k int64 (keys drawn from [0, key_space): duplicates inside and across
// files; file 0 sorted by k, the others shuffled), s string ("s<k>", the string form of the key),
// g int32 (k % 3, for compound keys (s, g)), v double (15% NULL), name string (20% NULL), b binary
// (bytes of k), tags list<int32> (nested; NULL or 0..2 items).
#pragma once

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "rap/columnar/array_format.h"
#include "rap/format/writer.h"
#include "rap/index/index.h"
#include "rap/read/file_reader.h"
#include "testing/arrays.h"
#include "testing/paths.h"

namespace rap::testing {

struct IndexTableOptions {
  int files = 4;
  int64_t rows = 3000;
  int64_t key_space = 400;
  int64_t row_group_rows = 1000;
  int64_t page_rows = 128;
  uint64_t seed = 11;
  int first_file = 0;  // file names start at f<first_file>
};

inline ArrayPtr IntList(const std::vector<std::optional<std::vector<int32_t>>>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeList({"element", MakeType(TypeId::kInt32), true});
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  std::vector<int32_t> offsets{0};
  std::vector<std::optional<int32_t>> items;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      for (int32_t x : *v[i]) items.push_back(x);
    } else {
      ++a->null_count;
    }
    offsets.push_back(static_cast<int32_t>(items.size()));
  }
  a->buffers = {validity, Buffer::Copy(offsets.data(), offsets.size() * 4)};
  a->children = {Fixed<int32_t>(MakeType(TypeId::kInt32), items)};
  return a;
}

inline SchemaPtr IndexTableSchema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"k", MakeType(TypeId::kInt64), false},
                    {"s", MakeType(TypeId::kString), false},
                    {"g", MakeType(TypeId::kInt32), false},
                    {"v", MakeType(TypeId::kFloat64), true},
                    {"name", MakeType(TypeId::kString), true},
                    {"b", MakeType(TypeId::kBinary), false},
                    {"tags", MakeList({"element", MakeType(TypeId::kInt32), true}), true}};
  return schema;
}

inline std::string IndexTableFileName(int f) {
  char n[32];
  std::snprintf(n, sizeof(n), "f%02d.parquet", f);
  return n;
}

// Writes the files below `dir`; returns their names.
inline std::vector<std::string> WriteIndexTable(const std::string& dir, const IndexTableOptions& o) {
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(o.seed);
  SchemaPtr schema = IndexTableSchema();
  std::vector<std::string> names;
  for (int f = o.first_file; f < o.first_file + o.files; ++f) {
    std::vector<int64_t> keys;
    for (int64_t r = 0; r < o.rows; ++r) keys.push_back(static_cast<int64_t>(rng() % o.key_space));
    if (f == 0) std::sort(keys.begin(), keys.end());
    std::vector<std::optional<int64_t>> k;
    std::vector<std::optional<std::string>> s, name, b;
    std::vector<std::optional<int32_t>> g;
    std::vector<std::optional<double>> v;
    std::vector<std::optional<std::vector<int32_t>>> tags;
    for (int64_t key : keys) {
      k.push_back(key);
      s.push_back("s" + std::to_string(key));
      g.push_back(static_cast<int32_t>(key % 3));
      if (rng() % 100 < 15) v.push_back(std::nullopt); else v.push_back(static_cast<double>(rng() % 10000) / 8.0);
      if (rng() % 100 < 20) name.push_back(std::nullopt); else name.push_back("n" + std::to_string(rng() % 50));
      std::string bytes(8, '\0');
      std::memcpy(bytes.data(), &key, 8);
      b.push_back(bytes);
      if (rng() % 4 == 0) {
        tags.push_back(std::nullopt);
      } else {
        std::vector<int32_t> t;
        for (uint64_t i = 0; i < rng() % 3; ++i) t.push_back(static_cast<int32_t>(rng() % 100));
        tags.push_back(t);
      }
    }
    RecordBatch batch;
    batch.schema = schema;
    batch.num_rows = o.rows;
    auto bin = Strings(b);
    bin->type = MakeType(TypeId::kBinary);
    batch.columns = {Fixed<int64_t>(schema->fields[0].type, k), Strings(s), Fixed<int32_t>(schema->fields[2].type, g),
                     Fixed<double>(schema->fields[3].type, v),  Strings(name), bin, IntList(tags)};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = o.row_group_rows;
    wo.defaults.page_max_rows = o.page_rows;
    auto bytes = parquet::WriteParquetToString(schema, {batch}, wo);
    if (!bytes.ok()) throw std::runtime_error(bytes.status().ToString());
    const std::string n = IndexTableFileName(f);
    WriteStringToFile(dir + "/" + n, *bytes);
    names.push_back(n);
  }
  return names;
}

// Brute force: for each file (in the given order) every row, keyed by the text of the key columns.
class BruteForce {
 public:
  // `files`: paths in file-ordinal order; `deleted`: per path, deleted rows.
  static Result<BruteForce> Load(const std::vector<std::string>& paths,
                                 const std::map<std::string, std::vector<uint64_t>>& deleted = {}) {
    BruteForce bf;
    for (const std::string& p : paths) {
      RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(p));
      read::FileReaderOptions ro;
      ro.use_metadata_cache = false;
      RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(r.store, r.path, ro));
      RAP_ASSIGN_OR_RETURN(auto proj, reader->Project({}));
      RAP_ASSIGN_OR_RETURN(auto batches, reader->ReadAll(std::nullopt, proj));
      auto it = deleted.find(p);
      int64_t row = 0;
      for (const RecordBatch& b : batches) {
        for (int64_t i = 0; i < b.num_rows; ++i, ++row) {
          if (it != deleted.end() && std::binary_search(it->second.begin(), it->second.end(), static_cast<uint64_t>(row))) {
            continue;
          }
          bf.rows_.push_back({b, i});
        }
      }
      bf.schema_ = proj.schema;
    }
    return bf;
  }
  // Rows whose key columns (names) render as `key_text` (FormatValue of each, joined with '|'),
  // rendered for `columns` (names).
  std::vector<std::string> Rows(const std::vector<std::string>& key_columns, const std::vector<std::string>& key_text,
                                const std::vector<std::string>& columns) const {
    std::vector<std::string> out;
    for (const auto& [b, i] : rows_) {
      bool match = true;
      for (size_t k = 0; k < key_columns.size() && match; ++k) {
        const int c = b.schema->FieldIndex(key_columns[k]);
        match = FormatValue(*b.columns[static_cast<size_t>(c)], i) == key_text[k];
      }
      if (!match) continue;
      std::string line;
      for (const std::string& col : columns) {
        const int c = b.schema->FieldIndex(col);
        line += FormatValue(*b.columns[static_cast<size_t>(c)], i) + "|";
      }
      out.push_back(line);
    }
    return out;
  }
  const SchemaPtr& schema() const { return schema_; }

 private:
  std::vector<std::pair<RecordBatch, int64_t>> rows_;
  SchemaPtr schema_;
};

inline std::vector<std::string> ResultRows(const index::KeyRows& k) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < k.rows.num_rows; ++r) out.push_back(RowText(k.rows, r));
  return out;
}

}  // namespace rap::testing
