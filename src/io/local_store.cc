#include "io/local_store.h"

#include "rap/io/crash_point.h"
#include "rap/io/store_metrics.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "rap/util/clock.h"

namespace rap::io {
namespace fs = std::filesystem;

namespace {

// Changed when the caller expects another version of the object than the one opened.
Status CheckEtag(const std::string& path, const ObjectInfo& info, const ReadOptions& options) {
  if (options.expected_etag.empty() || options.expected_etag == info.etag) return Status::OK();
  return Status::Changed(path + ": object changed while reading (etag " + info.etag + ", expected " +
                         options.expected_etag + ")");
}

std::string ErrnoText(int err) { return std::strerror(err); }

Status ErrnoStatus(const std::string& path, const char* what, int err) {
  std::string msg = path + ": " + what + ": " + ErrnoText(err);
  if (err == ENOENT || err == ENOTDIR) return Status::NotFound(msg);
  if (err == EACCES || err == EPERM) return Status::AccessDenied(msg);
  return Status::IOError(msg);
}

ObjectInfo InfoFromStat(const std::string& path, const struct stat& st) {
  ObjectInfo info;
  info.path = path;
  info.size = static_cast<uint64_t>(st.st_size);
  int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  info.etag = std::to_string(mtime_ns) + "-" + std::to_string(info.size);
  info.mtime_ms = mtime_ns / 1000000;
  return info;
}

// Reads exactly `length` bytes at `offset`; a file shorter than that is an error naming the range.
Status PreadExact(int fd, const std::string& path, uint64_t offset, uint64_t length, uint8_t* out) {
  uint64_t done = 0;
  while (done < length) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(length - done, 1ULL << 30));
    ssize_t n = ::pread(fd, out + done, chunk, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(path, "pread", errno);
    }
    if (n == 0) {
      return Status::IOError(path + ": unexpected end of file at offset " + std::to_string(offset + done) +
                             " while reading [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                             ")");
    }
    done += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

}  // namespace

LocalStore::OpenFile::~OpenFile() {
  if (fd >= 0) ::close(fd);
}

// Why a descriptor cache: a point lookup on local data is one small pread, and opening the file
// for it (openat + newfstatat + close around the pread) was 6.7% of `rap serve`'s CPU per
// interleaved lookup (docs/benchmarks/serve.md). A cached descriptor still costs one stat by path
// per read, which keeps a replaced file visible: a new inode (the atomic rename every writer here
// uses) opens the new file, and the ETag comes from that stat, so a change between a footer and its
// pages is still caught by `expected_etag`. A descriptor cannot outlive its entry's last user
// (shared_ptr), and a file the cache still holds open keeps its inode, so (dev, ino) never matches
// a different file.
Result<std::pair<std::shared_ptr<const LocalStore::OpenFile>, ObjectInfo>> LocalStore::Acquire(
    const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(path, "stat", errno);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = open_.find(path);
    if (it != open_.end() && it->second->dev == st.st_dev && it->second->ino == st.st_ino) {
      return std::make_pair(std::shared_ptr<const OpenFile>(it->second), InfoFromStat(path, st));
    }
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(path, "open", errno);
  auto file = std::make_shared<OpenFile>();
  file->fd = fd;
  // The descriptor's own stat: the file this read will see (it may have been replaced since the
  // stat by path above).
  if (::fstat(fd, &st) != 0) return ErrnoStatus(path, "fstat", errno);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  file->dev = st.st_dev;
  file->ino = st.st_ino;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (open_.size() >= kMaxOpenFiles && open_.find(path) == open_.end()) open_.erase(open_.begin());
    open_[path] = file;
  }
  return std::make_pair(std::shared_ptr<const OpenFile>(std::move(file)), InfoFromStat(path, st));
}

Result<ObjectInfo> LocalStore::Head(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(path, "stat", errno);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  return InfoFromStat(path, st);
}

Result<std::vector<Buffer>> LocalStore::ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                                   const ReadOptions& options, ReadStats* stats) {
  RAP_ASSIGN_OR_RETURN(auto opened, Acquire(path));
  const std::shared_ptr<const OpenFile>& fd = opened.first;
  ObjectInfo& info = opened.second;
  RAP_RETURN_NOT_OK(CheckEtag(path, info, options));
  std::vector<Buffer> out;
  out.reserve(ranges.size());
  ReadStats local;
  for (const ByteRange& r : ranges) {
    if (options.cancel && options.cancel->cancelled()) return Status::Cancelled(path + ": read cancelled");
    if (r.end() < r.offset || r.end() > info.size) {
      return Status::InvalidArgument(path + ": range " + r.ToString() + " is outside the object of " +
                                     std::to_string(info.size) + " bytes");
    }
    RequestTiming t;
    t.range = r;
    t.start_s = NowSeconds();
    Buffer buf = Buffer::Allocate(r.length);
    RAP_RETURN_NOT_OK(PreadExact(fd->fd, path, r.offset, r.length, buf.mutable_data()));
    t.first_byte_s = t.start_s;  // a local read has no separate response latency
    t.end_s = NowSeconds();
    t.bytes = r.length;
    local.requests.push_back(t);
    out.push_back(std::move(buf));
  }
  StoreMetrics::Global().RecordRequests(StoreKind::kLocal, local);
  if (stats) {
    FinalizeReadStats(&local);
    *stats = std::move(local);
  }
  return out;
}

Result<std::pair<Buffer, ObjectInfo>> LocalStore::ReadTail(const std::string& path, uint64_t n,
                                                           const ReadOptions& options, ReadStats* stats) {
  RAP_ASSIGN_OR_RETURN(auto opened, Acquire(path));
  const std::shared_ptr<const OpenFile>& fd = opened.first;
  ObjectInfo& info = opened.second;
  RAP_RETURN_NOT_OK(CheckEtag(path, info, options));
  if (options.cancel && options.cancel->cancelled()) return Status::Cancelled(path + ": read cancelled");
  uint64_t len = std::min(n, info.size);
  RequestTiming t;
  t.range = ByteRange{info.size - len, len};
  t.start_s = NowSeconds();
  Buffer buf = Buffer::Allocate(len);
  RAP_RETURN_NOT_OK(PreadExact(fd->fd, path, info.size - len, len, buf.mutable_data()));
  t.first_byte_s = t.start_s;
  t.end_s = NowSeconds();
  t.bytes = len;
  {
    ReadStats local;
    local.requests.push_back(t);
    StoreMetrics::Global().RecordRequests(StoreKind::kLocal, local);
    if (!stats) return std::make_pair(std::move(buf), std::move(info));
    FinalizeReadStats(&local);
    *stats = std::move(local);
  }
  return std::make_pair(std::move(buf), std::move(info));
}

Result<std::vector<ObjectInfo>> LocalStore::List(const std::string& prefix) {
  // A prefix names a directory (everything below it) or a path prefix within its parent directory
  // ("dir/part-" lists dir/part-0, dir/part-1/x, ...), like an object-store prefix.
  std::error_code ec;
  fs::path root;
  std::string want = prefix;
  if (!prefix.empty() && fs::is_directory(prefix, ec)) {
    root = prefix;
  } else {
    fs::path p(prefix);
    root = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::is_directory(root, ec)) return std::vector<ObjectInfo>{};
  }
  std::vector<ObjectInfo> out;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return ErrnoStatus(root.string(), "list", ec.value());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return ErrnoStatus(root.string(), "list", ec.value());
    const fs::directory_entry& e = *it;
    std::string p = e.path().string();
    if (root == fs::path(".") && p.rfind("./", 0) == 0 && prefix.rfind("./", 0) != 0) p = p.substr(2);
    if (p.compare(0, want.size(), want) != 0) continue;
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back(InfoFromStat(p, st));
  }
  std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.path < b.path; });
  return out;
}

namespace {
// Writes `data` to a fresh temporary sibling of `path` (fsync'ed); returns its name.
Result<std::string> WriteTempSibling(const std::string& path, const Buffer& data) {
  fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) return ErrnoStatus(target.parent_path().string(), "create directories", ec.value());
  }
  std::random_device rd;
  std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(tmp, "create", errno);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return ErrnoStatus(tmp, "write", err);
    }
    done += static_cast<size_t>(n);
  }
  int sync_rc = ::fsync(fd);
  int sync_err = errno;
  int close_rc = ::close(fd);
  if (sync_rc != 0 || close_rc != 0) {
    int err = sync_rc != 0 ? sync_err : errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus(tmp, "fsync/close", err);
  }
  return tmp;
}
}  // namespace

Status LocalStore::Put(const std::string& path, const Buffer& data) {
  // Temp file in the same directory, then rename(2): readers see the old file or the whole new one.
  RAP_ASSIGN_OR_RETURN(std::string tmp, WriteTempSibling(path, data));
  CrashPoint("temp", tmp);
  Forget(path);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus(path, "rename", err);
  }
  CrashPoint("put", path);
  return Status::OK();
}

Status LocalStore::PutIfAbsent(const std::string& path, const Buffer& data) {
  // link(2) creates the name only when it does not exist yet (atomically, also against other
  // processes); the complete temporary file becomes visible under it at once.
  RAP_ASSIGN_OR_RETURN(std::string tmp, WriteTempSibling(path, data));
  CrashPoint("temp", tmp);
  const int rc = ::link(tmp.c_str(), path.c_str());
  const int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (err == EEXIST) return Status::Changed(path + ": already exists (another writer created it first)");
    return ErrnoStatus(path, "link", err);
  }
  CrashPoint("create", path);
  return Status::OK();
}

void LocalStore::Forget(const std::string& path) {
  std::shared_ptr<OpenFile> dropped;  // closed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = open_.find(path);
  if (it == open_.end()) return;
  dropped = std::move(it->second);
  open_.erase(it);
}

Status LocalStore::Delete(const std::string& path) {
  Forget(path);  // a deleted file's blocks are freed now, not when the cache evicts it
  if (::unlink(path.c_str()) != 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such object to delete");
    return ErrnoStatus(path, "unlink", err);
  }
  CrashPoint("delete", path);
  return Status::OK();
}

}  // namespace rap::io
