// A minimal Flatbuffers writer for the Arrow IPC metadata (arrow_ipc.cc): tables with scalar,
// string, union and vector fields, written front to back. A node is built as a tree first, then
// serialised: each table is preceded by its vtable, and its children (strings, vectors, tables)
// follow it, so every uoffset points forward as the Flatbuffers format requires. Scalars are always
// written, even when equal to the schema default, so readers never depend on defaults.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace rap::server::fb {

struct Node;
using NodePtr = std::shared_ptr<Node>;

struct Node {
  enum class Kind { kTable, kString, kTableVector, kStructVector };
  struct Slot {
    int id = 0;
    std::string scalar;  // little-endian bytes of a scalar field (empty for a child)
    NodePtr child;       // an offset field
  };
  Kind kind = Kind::kTable;
  std::vector<Slot> slots;         // kTable
  std::string bytes;               // kString: the text; kStructVector: the packed structs
  uint32_t count = 0;              // kStructVector: number of structs
  std::vector<NodePtr> elements;   // kTableVector

  template <typename T>
  Node& Scalar(int id, T value) {
    Slot s;
    s.id = id;
    s.scalar.resize(sizeof(T));
    std::memcpy(s.scalar.data(), &value, sizeof(T));
    slots.push_back(std::move(s));
    return *this;
  }
  Node& Child(int id, NodePtr child) {
    Slot s;
    s.id = id;
    s.child = std::move(child);
    slots.push_back(std::move(s));
    return *this;
  }
};

inline NodePtr Table() { return std::make_shared<Node>(); }
inline NodePtr String(std::string text) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kString;
  n->bytes = std::move(text);
  return n;
}
inline NodePtr TableVector(std::vector<NodePtr> elements) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kTableVector;
  n->elements = std::move(elements);
  return n;
}
// Structs of 8-byte-aligned fields (Arrow's FieldNode and Buffer: two int64 each).
inline NodePtr StructVector(std::string packed, uint32_t count) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kStructVector;
  n->bytes = std::move(packed);
  n->count = count;
  return n;
}

class Builder {
 public:
  // The finished buffer: a root uoffset followed by `root` and everything it references.
  static std::string Finish(const NodePtr& root) {
    Builder b;
    b.out_.assign(4, '\0');
    const uint32_t pos = b.Write(*root);
    b.Patch(0, pos);
    b.Pad(8);
    return std::move(b.out_);
  }

 private:
  void Pad(size_t align) {
    while (out_.size() % align) out_.push_back('\0');
  }
  template <typename T>
  void Put(T v) {
    char tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    out_.append(tmp, sizeof(T));
  }
  void Patch(uint32_t at, uint32_t target) {  // uoffset at `at` pointing to `target`
    const uint32_t rel = target - at;
    std::memcpy(out_.data() + at, &rel, 4);
  }

  uint32_t Write(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kString: {
        Pad(4);
        const uint32_t pos = static_cast<uint32_t>(out_.size());
        Put<uint32_t>(static_cast<uint32_t>(n.bytes.size()));
        out_ += n.bytes;
        out_.push_back('\0');
        return pos;
      }
      case Node::Kind::kStructVector: {
        while ((out_.size() + 4) % 8) out_.push_back('\0');
        const uint32_t pos = static_cast<uint32_t>(out_.size());
        Put<uint32_t>(n.count);
        out_ += n.bytes;
        return pos;
      }
      case Node::Kind::kTableVector: {
        Pad(4);
        const uint32_t pos = static_cast<uint32_t>(out_.size());
        Put<uint32_t>(static_cast<uint32_t>(n.elements.size()));
        std::vector<uint32_t> slots;
        for (size_t i = 0; i < n.elements.size(); ++i) {
          slots.push_back(static_cast<uint32_t>(out_.size()));
          Put<uint32_t>(0);
        }
        for (size_t i = 0; i < n.elements.size(); ++i) Patch(slots[i], Write(*n.elements[i]));
        return pos;
      }
      case Node::Kind::kTable: break;
    }
    // Inline layout: soffset (4 bytes), then each slot aligned to its size (offsets: 4 bytes).
    int num_ids = 0;
    for (const auto& s : n.slots) num_ids = std::max(num_ids, s.id + 1);
    std::vector<uint16_t> field_offset(static_cast<size_t>(num_ids), 0);
    std::vector<uint32_t> slot_at(n.slots.size(), 0);
    uint32_t size = 4;
    for (size_t i = 0; i < n.slots.size(); ++i) {
      const uint32_t width = n.slots[i].child ? 4 : static_cast<uint32_t>(n.slots[i].scalar.size());
      size = (size + width - 1) / width * width;
      slot_at[i] = size;
      field_offset[static_cast<size_t>(n.slots[i].id)] = static_cast<uint16_t>(size);
      size += width;
    }
    size = (size + 3) / 4 * 4;
    const uint32_t vtable_size = 4 + 2 * static_cast<uint32_t>(num_ids);
    Pad(2);
    while ((out_.size() + vtable_size) % 8) out_.push_back('\0');
    const uint32_t vtable_pos = static_cast<uint32_t>(out_.size());
    Put<uint16_t>(static_cast<uint16_t>(vtable_size));
    Put<uint16_t>(static_cast<uint16_t>(size));
    for (uint16_t o : field_offset) Put<uint16_t>(o);
    const uint32_t table_pos = static_cast<uint32_t>(out_.size());
    out_.resize(out_.size() + size, '\0');
    const int32_t soffset = static_cast<int32_t>(table_pos - vtable_pos);
    std::memcpy(out_.data() + table_pos, &soffset, 4);
    for (size_t i = 0; i < n.slots.size(); ++i) {
      if (!n.slots[i].child) {
        std::memcpy(out_.data() + table_pos + slot_at[i], n.slots[i].scalar.data(), n.slots[i].scalar.size());
      }
    }
    for (size_t i = 0; i < n.slots.size(); ++i) {
      if (n.slots[i].child) Patch(table_pos + slot_at[i], Write(*n.slots[i].child));
    }
    return table_pos;
  }

  std::string out_;
};

}  // namespace rap::server::fb
