// The fingerprint byte stream (docs/fingerprint.md): per row the row id, then per column a null flag
// and the value in a canonical, type-width-independent form.
#include "rap/read/fingerprint.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace rap::read {

namespace {

constexpr int kMaxDepth = 64;

Status Hash(const ArrayData& a, int64_t i, Fnv1a64* h, int depth);

void HashBytes(const uint8_t* p, size_t n, Fnv1a64* h) {
  h->UpdateU64(n);
  h->Update(p, n);
}

Status HashNonNull(const ArrayData& a, int64_t i, Fnv1a64* h, int depth) {
  const DataType& t = *a.type;
  switch (t.id) {
    case TypeId::kNull:
      return Status::OK();
    case TypeId::kBool: {
      int64_t j = i + a.offset;
      h->UpdateU8((a.buffers[1].data()[j >> 3] >> (j & 7)) & 1);
      return Status::OK();
    }
    case TypeId::kInt8: h->UpdateU64(static_cast<uint64_t>(static_cast<int64_t>(a.values<int8_t>()[i]))); return Status::OK();
    case TypeId::kInt16: h->UpdateU64(static_cast<uint64_t>(static_cast<int64_t>(a.values<int16_t>()[i]))); return Status::OK();
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      h->UpdateU64(static_cast<uint64_t>(static_cast<int64_t>(a.values<int32_t>()[i])));
      return Status::OK();
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      h->UpdateU64(static_cast<uint64_t>(a.values<int64_t>()[i]));
      return Status::OK();
    case TypeId::kUInt8: h->UpdateU64(a.values<uint8_t>()[i]); return Status::OK();
    case TypeId::kUInt16: h->UpdateU64(a.values<uint16_t>()[i]); return Status::OK();
    case TypeId::kUInt32: h->UpdateU64(a.values<uint32_t>()[i]); return Status::OK();
    case TypeId::kUInt64: h->UpdateU64(a.values<uint64_t>()[i]); return Status::OK();
    case TypeId::kFloat16:
      h->Update(a.values<uint16_t>() + i, 2);
      return Status::OK();
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double d = t.id == TypeId::kFloat32 ? static_cast<double>(a.values<float>()[i]) : a.values<double>()[i];
      uint64_t bits;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000ULL;  // every NaN hashes alike
      } else {
        std::memcpy(&bits, &d, 8);
      }
      h->UpdateU64(bits);
      return Status::OK();
    }
    case TypeId::kDecimal128:
      h->Update(a.buffers[1].data() + (a.offset + i) * 16, 16);  // little-endian two's complement
      return Status::OK();
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* off = a.offsets();
      HashBytes(a.buffers[2].data() + off[i], static_cast<size_t>(off[i + 1] - off[i]), h);
      return Status::OK();
    }
    case TypeId::kFixedSizeBinary:
      HashBytes(a.buffers[1].data() + (a.offset + i) * t.byte_width, static_cast<size_t>(t.byte_width), h);
      return Status::OK();
    case TypeId::kList:
    case TypeId::kMap: {
      const int32_t* off = a.offsets();
      h->UpdateU64(static_cast<uint64_t>(off[i + 1] - off[i]));
      for (int32_t k = off[i]; k < off[i + 1]; ++k) RAP_RETURN_NOT_OK(Hash(*a.children[0], k, h, depth + 1));
      return Status::OK();
    }
    case TypeId::kStruct:
      for (const ArrayPtr& c : a.children) RAP_RETURN_NOT_OK(Hash(*c, i + a.offset, h, depth + 1));
      return Status::OK();
  }
  return Status::NotSupported("fingerprint: type " + t.ToString());
}

Status Hash(const ArrayData& a, int64_t i, Fnv1a64* h, int depth) {
  if (depth > kMaxDepth) return Status::NotSupported("fingerprint: nesting deeper than 64 levels");
  if (a.IsNull(i)) {
    h->UpdateU8(0);
    return Status::OK();
  }
  h->UpdateU8(1);
  return HashNonNull(a, i, h, depth);
}

}  // namespace

Status HashValue(const ArrayData& array, int64_t i, Fnv1a64* h) { return Hash(array, i, h, 0); }

Status Fingerprinter::Add(const RecordBatch& batch, std::span<const uint64_t> row_ids) {
  if (static_cast<int64_t>(row_ids.size()) != batch.num_rows) {
    return Status::InvalidArgument("fingerprint: " + std::to_string(row_ids.size()) + " row ids for a batch of " +
                                   std::to_string(batch.num_rows) + " rows");
  }
  for (const ArrayPtr& c : batch.columns) {
    if (!c || c->length < batch.num_rows) return Status::InvalidArgument("fingerprint: a column is shorter than the batch");
  }
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    h_.UpdateU64(row_ids[static_cast<size_t>(r)]);
    for (const ArrayPtr& c : batch.columns) RAP_RETURN_NOT_OK(Hash(*c, r, &h_, 0));
  }
  rows_ += batch.num_rows;
  return Status::OK();
}

uint64_t Fingerprinter::digest() const {
  Fnv1a64 done = h_;
  done.UpdateU64(static_cast<uint64_t>(rows_));
  return done.digest();
}

std::string Fingerprinter::ToString() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(digest()));
  return buf;
}

}  // namespace rap::read
