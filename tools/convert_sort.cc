// `rap convert --sort-by`: the whole input in memory, stably sorted by key columns.
#include <algorithm>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "convert_input.h"
#include "rap/columnar/take.h"

namespace rap::cli {
namespace {

// Three-way comparison of rows i and j of a primitive array (nulls first).
int CompareRows(const ArrayData& a, int64_t i, int64_t j) {
  const bool ni = a.IsNull(i), nj = a.IsNull(j);
  if (ni || nj) return ni == nj ? 0 : (ni ? -1 : 1);
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.type->id) {
    case TypeId::kBool: {
      const auto bit = [&](int64_t k) { return (a.buffers[1].data()[(a.offset + k) >> 3] >> ((a.offset + k) & 7)) & 1; };
      return cmp(bit(i), bit(j));
    }
    case TypeId::kInt8: return cmp(a.values<int8_t>()[i], a.values<int8_t>()[j]);
    case TypeId::kInt16: return cmp(a.values<int16_t>()[i], a.values<int16_t>()[j]);
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32:
      return cmp(a.values<int32_t>()[i], a.values<int32_t>()[j]);
    case TypeId::kInt64: case TypeId::kTime64: case TypeId::kTimestamp:
      return cmp(a.values<int64_t>()[i], a.values<int64_t>()[j]);
    case TypeId::kUInt8: return cmp(a.values<uint8_t>()[i], a.values<uint8_t>()[j]);
    case TypeId::kUInt16: return cmp(a.values<uint16_t>()[i], a.values<uint16_t>()[j]);
    case TypeId::kUInt32: return cmp(a.values<uint32_t>()[i], a.values<uint32_t>()[j]);
    case TypeId::kUInt64: return cmp(a.values<uint64_t>()[i], a.values<uint64_t>()[j]);
    case TypeId::kFloat32: return cmp(a.values<float>()[i], a.values<float>()[j]);
    case TypeId::kFloat64: return cmp(a.values<double>()[i], a.values<double>()[j]);
    case TypeId::kString: case TypeId::kBinary: {
      const int32_t* o = a.offsets();
      const std::string_view x(reinterpret_cast<const char*>(a.buffers[2].data()) + o[i], o[i + 1] - o[i]);
      const std::string_view y(reinterpret_cast<const char*>(a.buffers[2].data()) + o[j], o[j + 1] - o[j]);
      return x.compare(y) < 0 ? -1 : (x == y ? 0 : 1);  // std::string_view compares bytes as unsigned char
    }
    default: {  // fixed-size binary, decimal, float16: bytewise
      const int w = a.type->FixedWidth();
      return cmp(std::memcmp(a.buffers[1].data() + (a.offset + i) * w, a.buffers[1].data() + (a.offset + j) * w, w),
                 0);
    }
  }
}

class Sorted : public BatchSource {
 public:
  Sorted(SchemaPtr schema, RecordBatch all, int64_t batch_rows, uint64_t total)
      : schema_(std::move(schema)), all_(std::move(all)), batch_rows_(batch_rows), total_(total) {}
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (pos_ >= all_.num_rows) return std::optional<RecordBatch>();
    const int64_t n = std::min(batch_rows_, all_.num_rows - pos_);
    RecordBatch b;
    b.schema = schema_;
    b.num_rows = n;
    for (const auto& c : all_.columns) b.columns.push_back(SliceArray(c, pos_, n));
    pos_ += n;
    return std::optional<RecordBatch>(std::move(b));
  }
  uint64_t bytes_read() const override { return total_; }
  uint64_t total_bytes() const override { return total_; }

 private:
  SchemaPtr schema_;
  RecordBatch all_;
  int64_t batch_rows_, pos_ = 0;
  uint64_t total_;
};

}  // namespace

std::vector<std::string> SplitLists(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (const auto& k : lists) {
    for (size_t start = 0; start <= k.size();) {
      const size_t comma = std::min(k.find(',', start), k.size());
      if (comma > start) out.push_back(k.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

Result<std::unique_ptr<BatchSource>> SortedSource(std::unique_ptr<BatchSource> inner,
                                                  const std::vector<std::string>& keys, int64_t batch_rows) {
  const SchemaPtr schema = inner->schema();
  std::vector<int> key_idx;
  for (const auto& k : keys) {
    const int i = schema->FieldIndex(k);
    if (i < 0) return Status::InvalidArgument("--sort-by '" + k + "': no such column");
    if (schema->fields[i].type->IsNested()) return Status::InvalidArgument("--sort-by '" + k + "': not a primitive column");
    key_idx.push_back(i);
  }
  std::vector<std::vector<ArrayPtr>> parts(schema->fields.size());
  int64_t rows = 0;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, inner->Next());
    if (!b) break;
    for (size_t c = 0; c < parts.size(); ++c) parts[c].push_back(b->columns[c]);
    rows += b->num_rows;
  }
  RecordBatch all;
  all.schema = schema;
  all.num_rows = rows;
  if (rows == 0) return std::unique_ptr<BatchSource>(new Sorted(schema, std::move(all), batch_rows, 0));
  for (auto& p : parts) {
    RAP_ASSIGN_OR_RETURN(ArrayPtr a, ConcatArrays(p));
    all.columns.push_back(std::move(a));
  }
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    for (int k : key_idx) {
      const int c = CompareRows(*all.columns[k], i, j);
      if (c != 0) return c < 0;
    }
    return false;
  });
  for (auto& c : all.columns) {
    RAP_ASSIGN_OR_RETURN(c, TakeArray(c, order));
  }
  return std::unique_ptr<BatchSource>(new Sorted(schema, std::move(all), batch_rows, inner->total_bytes()));
}

}  // namespace rap::cli
