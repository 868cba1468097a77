// ByteRange: [offset, offset + length) of an object.
#pragma once

#include <cstdint>
#include <string>

namespace rap {

struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  bool operator==(const ByteRange&) const = default;
  bool Contains(const ByteRange& o) const { return o.offset >= offset && o.end() <= end(); }
  std::string ToString() const;  // "[offset, end)"
};

}  // namespace rap
