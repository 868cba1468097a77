// The out-of-line parts of the compact-protocol reader: skipping unknown values and error messages.
#include "format/thrift_compact.h"

namespace rap::parquet::thrift {

const char* CTypeName(uint8_t type) {
  switch (type) {
    case kStop:
      return "stop";
    case kBoolTrue:
    case kBoolFalse:
      return "bool";
    case kByte:
      return "i8";
    case kI16:
      return "i16";
    case kI32:
      return "i32";
    case kI64:
      return "i64";
    case kDouble:
      return "double";
    case kBinary:
      return "binary";
    case kList:
      return "list";
    case kSet:
      return "set";
    case kMap:
      return "map";
    case kStruct:
      return "struct";
  }
  return "invalid type";
}

std::string Reader::Path() const {
  std::string p;
  for (int i = 0; i < depth_; ++i) {
    if (i > 0) p += '.';
    p += frames_[i].name;
    if (frames_[i].index >= 0) {
      p += '[';
      p += std::to_string(frames_[i].index);
      p += ']';
    }
  }
  return p;
}

Status Reader::Error(size_t offset, const std::string& what) const {
  return Status::Corrupt(Path() + ": " + what + " at offset " + std::to_string(offset));
}

Status Reader::Skip(uint8_t type) {
  switch (type) {
    case kBoolTrue:
    case kBoolFalse:
      return Status::OK();  // the value is in the field header
    case kByte:
      if (pos_ >= size_) return Truncated("i8");
      ++pos_;
      return Status::OK();
    case kI16:
    case kI32:
    case kI64: {
      uint64_t v = 0;
      return Varint(&v, CTypeName(type));
    }
    case kDouble:
      if (remaining() < 8) return Truncated("double");
      pos_ += 8;
      return Status::OK();
    case kBinary: {
      size_t at = pos_;
      uint64_t n = 0;
      RAP_RETURN_NOT_OK(Varint(&n, "binary length"));
      if (n > remaining()) {
        return Error(at, "binary of " + std::to_string(n) + " bytes does not fit in the " +
                             std::to_string(remaining()) + " bytes left");
      }
      pos_ += n;
      return Status::OK();
    }
    default:
      break;
  }
  if (type != kList && type != kSet && type != kMap && type != kStruct) {
    return Error(pos_, "cannot skip a value of invalid type " + std::to_string(type));
  }
  // Containers nest: bound the recursion by the same depth limit as known structs.
  if (depth_ + skip_depth_ >= limits_.max_depth) {
    return Error(pos_, "values nested deeper than " + std::to_string(limits_.max_depth));
  }
  ++skip_depth_;
  Status st;
  if (type == kStruct) {
    // Unknown structs have their own field-id deltas: use a scratch frame for them.
    int16_t last = 0;
    while (st.ok()) {
      size_t at = pos_;
      if (pos_ >= size_) {
        st = Truncated("field header of a skipped struct");
        break;
      }
      uint8_t b = data_[pos_++];
      if (b == 0) break;
      uint8_t t = b & 0x0f;
      if (t == kStop || t > kStruct) {
        st = Error(at, "invalid field type " + std::to_string(t) + " in a skipped struct");
        break;
      }
      if ((b >> 4) == 0) {
        int64_t id = 0;
        st = ZigZag(&id, "field id");
        if (!st.ok()) break;
        last = static_cast<int16_t>(id);
      } else {
        last = static_cast<int16_t>(last + (b >> 4));
      }
      st = Skip(t);
    }
  } else if (type == kMap) {
    size_t at = pos_;
    uint64_t n = 0;
    st = Varint(&n, "map size");
    if (st.ok() && n > 0) {
      if (pos_ >= size_) {
        st = Truncated("map types");
      } else {
        uint8_t kv = data_[pos_++];
        // Every entry takes at least two bytes (key and value), except bool/bool pairs (one each).
        if (n > remaining()) {
          st = Error(at, "map of " + std::to_string(n) + " entries does not fit in the " + std::to_string(remaining()) +
                             " bytes left");
        }
        for (uint64_t i = 0; st.ok() && i < n; ++i) {
          st = SkipElem(kv >> 4);
          if (st.ok()) st = SkipElem(kv & 0x0f);
        }
      }
    }
  } else {  // list or set
    size_t at = pos_;
    uint8_t et = 0;
    int64_t n = 0;
    st = CollectionHeader("list", &et, &n);
    if (st.ok() && n > static_cast<int64_t>(remaining())) {
      st = Error(at, "list of " + std::to_string(n) + " elements does not fit in the " + std::to_string(remaining()) +
                         " bytes left");
    }
    for (int64_t i = 0; st.ok() && i < n; ++i) st = SkipElem(et);
  }
  --skip_depth_;
  return st;
}

// A container element: bools take one byte here (not a field-header nibble).
Status Reader::SkipElem(uint8_t type) {
  if (type == kBoolTrue || type == kBoolFalse) {
    if (pos_ >= size_) return Truncated("bool element");
    ++pos_;
    return Status::OK();
  }
  return Skip(type);
}

}  // namespace rap::parquet::thrift
