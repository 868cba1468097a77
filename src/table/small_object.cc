#include "table/small_object.h"

#include <span>
#include <vector>

#include <fmt/format.h>

namespace rap::table {

namespace {

Status TooLarge(const std::string& path, uint64_t size, uint64_t limit, std::string_view what) {
  return Status::ResourceExhausted(
      fmt::format("{}: {} bytes is larger than the {} byte limit for {}", path, size, limit, what));
}

}  // namespace

Result<std::string> ReadSmallObject(const io::ObjectStorePtr& store, const std::string& path, uint64_t limit,
                                    std::string_view what) {
  auto tail = store->ReadTail(path, limit + 1, io::ReadOptions{}, nullptr);
  if (tail.ok()) {
    const auto& [buf, tail_info] = *tail;
    if (tail_info.size > limit) return TooLarge(path, tail_info.size, limit, what);
    if (buf.size() == tail_info.size) return std::string(buf.view());
  } else if (tail.status().code() == StatusCode::kNotFound) {
    return tail.status();
  }
  RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, store->Head(path));
  if (info.size > limit) return TooLarge(path, info.size, limit, what);
  if (info.size == 0) return std::string();
  ByteRange r{0, info.size};
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bufs,
                       store->ReadRanges(path, std::span<const ByteRange>(&r, 1), io::ReadOptions{}, nullptr));
  if (bufs.size() != 1 || bufs[0].size() != info.size) return Status::IOError(path + ": short read");
  return std::string(bufs[0].view());
}

}  // namespace rap::table
