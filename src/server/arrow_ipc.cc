// Arrow IPC stream encoding (include/rap/server/arrow_ipc.h). Field ids and enum values are those of
// Arrow's format/Schema.fbs and format/Message.fbs.
#include "rap/server/arrow_ipc.h"

#include <cstring>

#include <fmt/format.h>

#include "server/flatbuffer_builder.h"

namespace rap::server {
namespace {

// Schema.fbs: union Type.
enum TypeTag : uint8_t {
  kTagNull = 1, kTagInt = 2, kTagFloatingPoint = 3, kTagBinary = 4, kTagUtf8 = 5, kTagBool = 6, kTagDecimal = 7,
  kTagDate = 8, kTagTime = 9, kTagTimestamp = 10, kTagList = 12, kTagStruct = 13, kTagFixedSizeBinary = 15,
  kTagMap = 17,
};
constexpr int16_t kMetadataV5 = 4;
constexpr uint8_t kHeaderSchema = 1, kHeaderRecordBatch = 3;

int16_t UnitCode(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return 0;
    case TimeUnit::kMilli: return 1;
    case TimeUnit::kMicro: return 2;
    case TimeUnit::kNano: return 3;
  }
  return 1;
}

Result<std::pair<uint8_t, fb::NodePtr>> TypeNode(const DataType& t) {
  auto n = fb::Table();
  auto int_type = [&](int32_t bits, bool is_signed) {
    n->Scalar<int32_t>(0, bits).Scalar<uint8_t>(1, is_signed ? 1 : 0);
    return std::make_pair(static_cast<uint8_t>(kTagInt), n);
  };
  switch (t.id) {
    case TypeId::kNull: return std::make_pair(static_cast<uint8_t>(kTagNull), n);
    case TypeId::kBool: return std::make_pair(static_cast<uint8_t>(kTagBool), n);
    case TypeId::kInt8: return int_type(8, true);
    case TypeId::kInt16: return int_type(16, true);
    case TypeId::kInt32: return int_type(32, true);
    case TypeId::kInt64: return int_type(64, true);
    case TypeId::kUInt8: return int_type(8, false);
    case TypeId::kUInt16: return int_type(16, false);
    case TypeId::kUInt32: return int_type(32, false);
    case TypeId::kUInt64: return int_type(64, false);
    case TypeId::kFloat16: n->Scalar<int16_t>(0, 0); return std::make_pair(static_cast<uint8_t>(kTagFloatingPoint), n);
    case TypeId::kFloat32: n->Scalar<int16_t>(0, 1); return std::make_pair(static_cast<uint8_t>(kTagFloatingPoint), n);
    case TypeId::kFloat64: n->Scalar<int16_t>(0, 2); return std::make_pair(static_cast<uint8_t>(kTagFloatingPoint), n);
    case TypeId::kString: return std::make_pair(static_cast<uint8_t>(kTagUtf8), n);
    case TypeId::kBinary: return std::make_pair(static_cast<uint8_t>(kTagBinary), n);
    case TypeId::kFixedSizeBinary:
      n->Scalar<int32_t>(0, t.byte_width);
      return std::make_pair(static_cast<uint8_t>(kTagFixedSizeBinary), n);
    case TypeId::kDecimal128:
      n->Scalar<int32_t>(0, t.precision).Scalar<int32_t>(1, t.scale).Scalar<int32_t>(2, 128);
      return std::make_pair(static_cast<uint8_t>(kTagDecimal), n);
    case TypeId::kDate32: n->Scalar<int16_t>(0, 0); return std::make_pair(static_cast<uint8_t>(kTagDate), n);
    case TypeId::kTime32:
    case TypeId::kTime64:
      n->Scalar<int16_t>(0, UnitCode(t.unit)).Scalar<int32_t>(1, t.id == TypeId::kTime32 ? 32 : 64);
      return std::make_pair(static_cast<uint8_t>(kTagTime), n);
    case TypeId::kTimestamp:
      n->Scalar<int16_t>(0, UnitCode(t.unit));
      if (!t.timezone.empty()) n->Child(1, fb::String(t.timezone));
      return std::make_pair(static_cast<uint8_t>(kTagTimestamp), n);
    case TypeId::kList: return std::make_pair(static_cast<uint8_t>(kTagList), n);
    case TypeId::kStruct: return std::make_pair(static_cast<uint8_t>(kTagStruct), n);
    case TypeId::kMap: n->Scalar<uint8_t>(0, 0); return std::make_pair(static_cast<uint8_t>(kTagMap), n);
  }
  return Status::NotSupported("Arrow IPC: type " + t.ToString() + " has no IPC encoding in rap");
}

Result<fb::NodePtr> FieldNode(const Field& f) {
  if (!f.type) return Status::InvalidArgument("Arrow IPC: field '" + f.name + "' has no type");
  RAP_ASSIGN_OR_RETURN(auto type, TypeNode(*f.type));
  std::vector<fb::NodePtr> children;
  for (const Field& c : f.type->children) {
    RAP_ASSIGN_OR_RETURN(auto cn, FieldNode(c));
    children.push_back(std::move(cn));
  }
  auto n = fb::Table();
  n->Child(0, fb::String(f.name))
      .Scalar<uint8_t>(1, f.nullable ? 1 : 0)
      .Scalar<uint8_t>(2, type.first)
      .Child(3, type.second)
      .Child(5, fb::TableVector(std::move(children)));
  return n;
}

// Message table around a header, encapsulated with the continuation marker and length prefix.
std::string Encapsulate(uint8_t header_type, fb::NodePtr header, const std::string& body) {
  auto msg = fb::Table();
  msg->Scalar<int16_t>(0, kMetadataV5)
      .Scalar<uint8_t>(1, header_type)
      .Child(2, std::move(header))
      .Scalar<int64_t>(3, static_cast<int64_t>(body.size()));
  std::string meta = fb::Builder::Finish(msg);  // a multiple of 8 bytes, so the body stays aligned
  std::string out;
  out.reserve(8 + meta.size() + body.size());
  const uint32_t marker = 0xFFFFFFFFu;
  const int32_t len = static_cast<int32_t>(meta.size());
  out.append(reinterpret_cast<const char*>(&marker), 4);
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += meta;
  out += body;
  return out;
}

// Body of a record batch: field nodes and buffers in pre-order, each buffer padded to 8 bytes.
class BodyWriter {
 public:
  Status Add(const ArrayData& a) {
    if (!a.type) return Status::InvalidArgument("Arrow IPC: array without a type");
    const DataType& t = *a.type;
    const int64_t len = a.length, off = a.offset;
    int64_t nulls = a.null_count;
    if (t.id == TypeId::kNull) {
      AddNode(len, len);
      return Status::OK();
    }
    const bool has_validity = !a.buffers.empty() && !a.buffers[0].empty();
    if (!has_validity) {
      nulls = 0;
    } else if (nulls < 0) {
      nulls = 0;
      for (int64_t i = 0; i < len; ++i) nulls += a.IsNull(i) ? 1 : 0;
    }
    AddNode(len, nulls);
    if (nulls > 0) {
      AddBits(a.buffers[0].data(), off, len);
    } else {
      AddBuffer(nullptr, 0);
    }
    auto need = [&](size_t k) -> Status {
      if (a.buffers.size() <= k) {
        return Status::InvalidArgument(fmt::format("Arrow IPC: {} array has {} buffers, expected {}", t.ToString(),
                                                   a.buffers.size(), k + 1));
      }
      return Status::OK();
    };
    switch (t.id) {
      case TypeId::kBool:
        RAP_RETURN_NOT_OK(need(1));
        AddBits(a.buffers[1].data(), off, len);
        return Status::OK();
      case TypeId::kString:
      case TypeId::kBinary:
      case TypeId::kList:
      case TypeId::kMap: {
        RAP_RETURN_NOT_OK(need(1));
        const int32_t* o = a.offsets();
        const int32_t first = len > 0 ? o[0] : 0, last = len > 0 ? o[len] : 0;
        std::string rebased(static_cast<size_t>(len + 1) * 4, '\0');
        for (int64_t i = 0; i <= len; ++i) {
          const int32_t v = len > 0 ? o[i] - first : 0;
          std::memcpy(rebased.data() + i * 4, &v, 4);
        }
        AddBuffer(reinterpret_cast<const uint8_t*>(rebased.data()), rebased.size());
        if (t.IsBinaryLike()) {
          RAP_RETURN_NOT_OK(need(2));
          AddBuffer(a.buffers[2].data() + first, static_cast<size_t>(last - first));
          return Status::OK();
        }
        if (a.children.size() != 1) return Status::InvalidArgument("Arrow IPC: list/map array without one child");
        ArrayData child = *a.children[0];
        child.offset += first;
        child.length = last - first;
        child.null_count = -1;
        return Add(child);
      }
      case TypeId::kStruct: {
        if (a.children.size() != t.children.size()) {
          return Status::InvalidArgument("Arrow IPC: struct array children do not match its type");
        }
        for (const ArrayPtr& c : a.children) {
          ArrayData child = *c;
          child.offset += off;
          child.length = len;
          child.null_count = -1;
          RAP_RETURN_NOT_OK(Add(child));
        }
        return Status::OK();
      }
      default: {
        const int width = t.FixedWidth();
        if (width <= 0) return Status::NotSupported("Arrow IPC: cannot encode " + t.ToString());
        RAP_RETURN_NOT_OK(need(1));
        AddBuffer(a.buffers[1].data() + off * width, static_cast<size_t>(len * width));
        return Status::OK();
      }
    }
  }

  std::string nodes, buffers, body;
  uint32_t num_nodes = 0, num_buffers = 0;

 private:
  void AddNode(int64_t length, int64_t null_count) {
    nodes.append(reinterpret_cast<const char*>(&length), 8);
    nodes.append(reinterpret_cast<const char*>(&null_count), 8);
    ++num_nodes;
  }
  void AddBuffer(const uint8_t* data, size_t size) {
    const int64_t offset = static_cast<int64_t>(body.size()), length = static_cast<int64_t>(size);
    if (size) body.append(reinterpret_cast<const char*>(data), size);
    while (body.size() % 8) body.push_back('\0');
    buffers.append(reinterpret_cast<const char*>(&offset), 8);
    buffers.append(reinterpret_cast<const char*>(&length), 8);
    ++num_buffers;
  }
  // Bits [off, off+len) of a bitmap, re-based to bit 0.
  void AddBits(const uint8_t* bits, int64_t off, int64_t len) {
    const size_t bytes = static_cast<size_t>((len + 7) / 8);
    if (off % 8 == 0) {
      AddBuffer(bits + off / 8, bytes);
      return;
    }
    std::string out(bytes, '\0');
    for (int64_t i = 0; i < len; ++i) {
      const int64_t j = off + i;
      if ((bits[j >> 3] >> (j & 7)) & 1) out[static_cast<size_t>(i >> 3)] |= static_cast<char>(1 << (i & 7));
    }
    AddBuffer(reinterpret_cast<const uint8_t*>(out.data()), bytes);
  }
};

}  // namespace

Result<std::string> EncodeIpcSchema(const Schema& schema) {
  std::vector<fb::NodePtr> fields;
  for (const Field& f : schema.fields) {
    RAP_ASSIGN_OR_RETURN(auto n, FieldNode(f));
    fields.push_back(std::move(n));
  }
  auto s = fb::Table();
  s->Scalar<int16_t>(0, 0).Child(1, fb::TableVector(std::move(fields)));
  return Encapsulate(kHeaderSchema, std::move(s), std::string());
}

Result<std::string> EncodeIpcRecordBatch(const RecordBatch& batch) {
  BodyWriter w;
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    if (!batch.columns[i]) return Status::InvalidArgument(fmt::format("Arrow IPC: column {} is null", i));
    if (batch.columns[i]->length != batch.num_rows) {
      return Status::InvalidArgument(fmt::format("Arrow IPC: column {} has {} rows, the batch {}", i,
                                                 batch.columns[i]->length, batch.num_rows));
    }
    RAP_RETURN_NOT_OK(w.Add(*batch.columns[i]));
  }
  auto rb = fb::Table();
  rb->Scalar<int64_t>(0, batch.num_rows)
      .Child(1, fb::StructVector(std::move(w.nodes), w.num_nodes))
      .Child(2, fb::StructVector(std::move(w.buffers), w.num_buffers));
  return Encapsulate(kHeaderRecordBatch, std::move(rb), w.body);
}

std::string IpcEndOfStream() {
  std::string out(8, '\0');
  const uint32_t marker = 0xFFFFFFFFu;
  std::memcpy(out.data(), &marker, 4);
  return out;
}

}  // namespace rap::server
