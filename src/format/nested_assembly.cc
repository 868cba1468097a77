// AssembleField: Arrow arrays from the repetition/definition levels of a field's leaves (Dremel
// record assembly). Every node of the field (schema.h FieldNode) has one element per "slot" of the
// level stream of its first leaf: level i is a slot when rep[i] <= rep_level and def[i] >= slot_def,
// and the element is valid when def[i] >= def_level. A list's elements are the slots of its child
// between two of its own slots; a struct's children have exactly the struct's slots.
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "rap/format/column_reader.h"

namespace rap::parquet {

namespace {

struct Validity {
  std::vector<uint8_t> bits;
  int64_t length = 0;
  int64_t nulls = 0;

  void Append(bool valid) {
    if ((length & 7) == 0) bits.push_back(0);
    if (valid) {
      bits.back() |= static_cast<uint8_t>(1u << (length & 7));
    } else {
      ++nulls;
    }
    ++length;
  }
  // Appends def[i] >= threshold for i < n, eight at a time (the flat nullable case).
  void AppendDefs(const int16_t* def, int64_t n, int16_t threshold) {
    int64_t i = 0;
    for (; i < n && (length & 7) != 0; ++i) Append(def[i] >= threshold);
    bits.reserve(bits.size() + static_cast<size_t>((n - i + 7) / 8));
    for (; i + 8 <= n; i += 8) {
      unsigned byte = 0, valid = 0;
      for (int b = 0; b < 8; ++b) {
        const unsigned bit = def[i + b] >= threshold ? 1u : 0u;
        byte |= bit << b;
        valid += bit;  // not __builtin_popcount: without -mpopcnt that is a libgcc call per byte
      }
      bits.push_back(static_cast<uint8_t>(byte));
      nulls += 8 - valid;
      length += 8;
    }
    for (; i < n; ++i) Append(def[i] >= threshold);
  }
  Buffer Finish() { return nulls == 0 ? Buffer() : Buffer::FromVector(std::move(bits)); }
};

class Assembler {
 public:
  explicit Assembler(const std::vector<const LeafColumnData*>& leaves) : leaves_(leaves) {}

  Result<ArrayPtr> Build(const FieldNode& node) {
    if (node.columns.empty()) return Status::Internal("field '" + node.field.name + "' has no leaf columns");
    const int c = node.columns[0];
    if (c < 0 || static_cast<size_t>(c) >= leaves_.size() || leaves_[static_cast<size_t>(c)] == nullptr) {
      return Status::Internal(fmt::format("field '{}': the data of column {} is missing", node.field.name, c));
    }
    const LeafColumnData& L = *leaves_[static_cast<size_t>(c)];
    if ((!L.def_levels.empty() && static_cast<int64_t>(L.def_levels.size()) != L.num_levels) ||
        (!L.rep_levels.empty() && static_cast<int64_t>(L.rep_levels.size()) != L.num_levels)) {
      return Status::Internal(fmt::format("field '{}': level arrays disagree with the level count", node.field.name));
    }
    if (node.column >= 0) return BuildLeaf(node, L);
    switch (node.field.type->id) {
      case TypeId::kList:
      case TypeId::kMap: return BuildList(node, L);
      case TypeId::kStruct: return BuildStruct(node, L);
      default: return Status::Internal("field '" + node.field.name + "': unexpected non-leaf type");
    }
  }

 private:
  // No definition levels: the column is required throughout, or (flat columns) every level is at the
  // max definition level; either way each level is defined at every node above it.
  static int16_t Def(const LeafColumnData& L, int64_t i) {
    return L.def_levels.empty() ? std::numeric_limits<int16_t>::max() : L.def_levels[static_cast<size_t>(i)];
  }
  static int16_t Rep(const LeafColumnData& L, int64_t i) {
    return L.rep_levels.empty() ? 0 : L.rep_levels[static_cast<size_t>(i)];
  }
  static bool IsSlot(const FieldNode& n, const LeafColumnData& L, int64_t i) {
    return Rep(L, i) <= n.rep_level && Def(L, i) >= n.slot_def;
  }

  Result<ArrayPtr> BuildLeaf(const FieldNode& node, const LeafColumnData& L) {
    const ArrayPtr& values = L.values;
    if (!values) return Status::Internal("column of field '" + node.field.name + "' has no values");
    if (L.def_levels.empty() && L.rep_levels.empty() && node.field.type->id != TypeId::kNull) {
      // Required and not repeated: every level is a non-null value (the common flat case, no copy).
      if (values->length != L.num_levels) {
        return Status::Corrupt(fmt::format("field '{}': {} levels but the pages hold {} values", node.field.name,
                                           L.num_levels, values->length));
      }
      return values;
    }
    Validity validity;
    if (L.rep_levels.empty() && node.slot_def <= 0 && !L.def_levels.empty()) {
      // Flat nullable: every level is a slot. Without nulls the dense values are the array (no copy).
      const int16_t* def = L.def_levels.data();
      // The reader decodes one value per level at the leaf's maximum definition level, so as many
      // values as levels means no nulls without looking at the levels.
      int64_t valid = L.num_levels;
      if (values->length != L.num_levels || node.field.type->id == TypeId::kNull) {
        valid = 0;
        for (int64_t i = 0; i < L.num_levels; ++i) valid += def[i] >= node.def_level ? 1 : 0;
      }
      if (valid == L.num_levels && node.field.type->id != TypeId::kNull) {
        if (values->length != valid) {
          return Status::Corrupt(fmt::format("field '{}': levels define {} values but the pages hold {}",
                                             node.field.name, valid, values->length));
        }
        return values;
      }
      validity.AppendDefs(def, L.num_levels, node.def_level);
    } else {
      for (int64_t i = 0; i < L.num_levels; ++i) {
        if (IsSlot(node, L, i)) validity.Append(Def(L, i) >= node.def_level);
      }
    }
    const int64_t slots = validity.length;
    const DataType& t = *node.field.type;
    if (t.id == TypeId::kNull) {
      auto a = std::make_shared<ArrayData>();
      a->type = node.field.type;
      a->length = slots;
      a->null_count = slots;
      return a;
    }
    const int64_t n_valid = slots - validity.nulls;
    if (n_valid != values->length) {
      return Status::Corrupt(fmt::format("field '{}': levels define {} values but the pages hold {}", node.field.name,
                                         n_valid, values->length));
    }
    if (validity.nulls == 0) return values;
    auto out = std::make_shared<ArrayData>();
    out->type = node.field.type;
    out->length = slots;
    out->null_count = validity.nulls;
    const uint8_t* bits = validity.bits.data();
    auto valid_at = [bits](int64_t k) { return ((bits[k >> 3] >> (k & 7)) & 1) != 0; };
    const int w = t.FixedWidth();
    if (t.id == TypeId::kBool) {
      Buffer vals = Buffer::Allocate(static_cast<size_t>((slots + 7) / 8));
      std::memset(vals.mutable_data(), 0, vals.size());
      const uint8_t* src = values->buffers[1].data();
      int64_t j = values->offset;
      for (int64_t k = 0; k < slots; ++k) {
        if (!valid_at(k)) continue;
        if ((src[j >> 3] >> (j & 7)) & 1) vals.mutable_data()[k >> 3] |= static_cast<uint8_t>(1u << (k & 7));
        ++j;
      }
      out->buffers = {validity.Finish(), std::move(vals)};
    } else if (w > 0) {
      Buffer vals = Buffer::Allocate(static_cast<size_t>(slots) * static_cast<size_t>(w));
      std::memset(vals.mutable_data(), 0, vals.size());
      const uint8_t* src = values->buffers[1].data() + values->offset * w;
      uint8_t* dst = vals.mutable_data();
      int64_t j = 0;
      for (int64_t k = 0; k < slots; ++k) {
        if (!valid_at(k)) continue;
        std::memcpy(dst + k * w, src + j * w, static_cast<size_t>(w));
        ++j;
      }
      out->buffers = {validity.Finish(), std::move(vals)};
    } else if (t.IsBinaryLike()) {
      // Offsets are re-spread; the character data is shared with the dense values (zero-copy).
      Buffer offs = Buffer::Allocate(static_cast<size_t>(slots + 1) * 4);
      auto* o = reinterpret_cast<int32_t*>(offs.mutable_data());
      const int32_t* vo = values->offsets();
      int64_t j = 0;
      o[0] = vo[0];
      for (int64_t k = 0; k < slots; ++k) {
        if (valid_at(k)) ++j;
        o[k + 1] = vo[j];
      }
      out->buffers = {validity.Finish(), std::move(offs), values->buffers[2]};
    } else {
      return Status::Internal("field '" + node.field.name + "': cannot spread values of type " + t.ToString());
    }
    return out;
  }

  Result<ArrayPtr> BuildList(const FieldNode& node, const LeafColumnData& L) {
    if (node.children.size() != 1) return Status::Internal("list field '" + node.field.name + "' needs one child");
    const FieldNode& child = node.children[0];
    Validity validity;
    std::vector<int32_t> offsets;
    int64_t child_count = 0;
    for (int64_t i = 0; i < L.num_levels; ++i) {
      if (IsSlot(node, L, i)) {
        offsets.push_back(static_cast<int32_t>(child_count));
        validity.Append(Def(L, i) >= node.def_level);
      }
      if (IsSlot(child, L, i)) {
        if (++child_count > INT32_MAX) {
          return Status::ResourceExhausted("field '" + node.field.name + "': more than 2^31-1 list elements");
        }
      }
    }
    offsets.push_back(static_cast<int32_t>(child_count));
    RAP_ASSIGN_OR_RETURN(ArrayPtr child_array, Build(child));
    if (child_array->length != child_count) {
      return Status::Corrupt(fmt::format("field '{}': the list has {} elements but its child has {}", node.field.name,
                                         child_count, child_array->length));
    }
    auto out = std::make_shared<ArrayData>();
    out->type = node.field.type;
    out->length = validity.length;
    out->null_count = validity.nulls;
    auto owner = std::make_shared<std::vector<int32_t>>(std::move(offsets));
    Buffer offs(owner, reinterpret_cast<const uint8_t*>(owner->data()), owner->size() * sizeof(int32_t));
    out->buffers = {validity.Finish(), std::move(offs)};
    out->children = {std::move(child_array)};
    return out;
  }

  Result<ArrayPtr> BuildStruct(const FieldNode& node, const LeafColumnData& L) {
    Validity validity;
    for (int64_t i = 0; i < L.num_levels; ++i) {
      if (IsSlot(node, L, i)) validity.Append(Def(L, i) >= node.def_level);
    }
    auto out = std::make_shared<ArrayData>();
    out->type = node.field.type;
    out->length = validity.length;
    out->null_count = validity.nulls;
    out->buffers = {validity.Finish()};
    for (const FieldNode& child : node.children) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, Build(child));
      if (a->length != out->length) {
        return Status::Corrupt(fmt::format("field '{}': member '{}' has {} elements, the struct has {}",
                                           node.field.name, child.field.name, a->length, out->length));
      }
      out->children.push_back(std::move(a));
    }
    return out;
  }

  const std::vector<const LeafColumnData*>& leaves_;
};

}  // namespace

Result<ArrayPtr> AssembleField(const FieldNode& field, const std::vector<const LeafColumnData*>& leaves,
                               int64_t num_rows) {
  Assembler assembler(leaves);
  RAP_ASSIGN_OR_RETURN(ArrayPtr a, assembler.Build(field));
  if (a->length != num_rows) {
    return Status::Corrupt(fmt::format("field '{}': assembled {} rows, expected {}", field.field.name, a->length,
                                       num_rows));
  }
  return a;
}

}  // namespace rap::parquet
