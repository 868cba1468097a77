#include "netsim/object_put.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include <fmt/format.h>

#include "netsim/http_util.h"

namespace rap::netsim {

namespace fs = std::filesystem;

Status PutObject(const fs::path& root, std::string_view url_path, const std::string& body, bool if_none_match) {
  if (url_path.empty() || url_path.front() != '/') {
    return Status::InvalidArgument(fmt::format("path '{}': expected an absolute URL path", url_path));
  }
  fs::path rel;
  for (size_t pos = 1; pos <= url_path.size();) {
    size_t end = url_path.find('/', pos);
    if (end == std::string_view::npos) end = url_path.size();
    std::string_view seg = url_path.substr(pos, end - pos);
    if (seg == ".." || seg == "." || seg.find('\\') != std::string_view::npos ||
        seg.rfind(kPutTempPrefix, 0) == 0) {
      return Status::AccessDenied(fmt::format("path '{}': segment '{}' is not allowed", url_path, seg));
    }
    if (!seg.empty()) rel /= std::string(seg);
    pos = end + 1;
  }
  if (rel.empty() || url_path.back() == '/') return Status::InvalidArgument(fmt::format("path '{}': not a key", url_path));
  std::error_code ec;
  const fs::path canon_root = fs::canonical(root, ec);
  if (ec) return Status::IOError(fmt::format("root {}: {}", root.string(), ec.message()));
  const fs::path target = canon_root / rel;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return Status::IOError(fmt::format("path '{}': cannot create its directory: {}", url_path, ec.message()));
  const fs::path parent = fs::canonical(target.parent_path(), ec);
  auto [root_end, it] = std::mismatch(canon_root.begin(), canon_root.end(), parent.begin(), parent.end());
  (void)it;
  if (ec || root_end != canon_root.end()) {
    return Status::AccessDenied(fmt::format("path '{}': resolves outside the served root", url_path));
  }
  static std::atomic<uint64_t> counter{0};
  const fs::path temp = parent / fmt::format("{}{}-{}", kPutTempPrefix, ::getpid(), counter.fetch_add(1));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(fmt::format("path '{}': cannot create a temporary file", url_path));
  size_t done = 0;
  while (done < body.size()) {
    const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool written = done == body.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) {
    ::unlink(temp.c_str());
    return Status::IOError(fmt::format("path '{}': short write", url_path));
  }
  const fs::path final_path = parent / target.filename();
  if (if_none_match) {
    // link(2) fails when the key exists: create-if-absent in one step.
    const int rc = ::link(temp.c_str(), final_path.c_str());
    const int err = errno;
    ::unlink(temp.c_str());
    if (rc != 0) {
      if (err == EEXIST) return Status::Changed(fmt::format("path '{}': already exists", url_path));
      return Status::IOError(fmt::format("path '{}': cannot link", url_path));
    }
    return Status::OK();
  }
  if (::rename(temp.c_str(), final_path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return Status::IOError(fmt::format("path '{}': cannot rename into place", url_path));
  }
  return Status::OK();
}

Status DeleteObject(const fs::path& root, std::string_view url_path) {
  Result<fs::path> file = ResolveUnderRoot(root, url_path);
  if (!file.ok()) return file.status().Is(StatusCode::kNotFound) ? Status::OK() : file.status();
  if (::unlink(file->c_str()) != 0 && errno != ENOENT) {
    return Status::IOError(fmt::format("path '{}': cannot delete", url_path));
  }
  return Status::OK();
}

}  // namespace rap::netsim
