#include "rap/util/buffer.h"

#include <algorithm>

namespace rap {

Buffer Buffer::FromVector(std::vector<uint8_t>&& bytes) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  const uint8_t* data = owner->data();
  size_t size = owner->size();
  return Buffer(std::move(owner), data, size);
}

Buffer Buffer::FromString(std::string&& bytes) {
  auto owner = std::make_shared<std::string>(std::move(bytes));
  auto* data = reinterpret_cast<const uint8_t*>(owner->data());
  size_t size = owner->size();
  return Buffer(std::move(owner), data, size);
}

Buffer Buffer::Copy(const void* data, size_t size) {
  Buffer b = Allocate(size);
  if (size) std::memcpy(b.mutable_data(), data, size);
  return b;
}

Buffer Buffer::Allocate(size_t size) {
  // new[] without value-initialisation: callers fill the bytes.
  std::shared_ptr<uint8_t[]> owner(new uint8_t[size == 0 ? 1 : size]);
  const uint8_t* data = owner.get();
  return Buffer(std::shared_ptr<const void>(owner, owner.get()), data, size);
}

Buffer Buffer::Slice(size_t offset, size_t length) const {
  if (offset > size_) offset = size_;
  length = std::min(length, size_ - offset);
  return Buffer(owner_, data_ + offset, length);
}

}  // namespace rap
