// DiskCache (rap/io/disk_cache.h): entries are whole files renamed into place; the index of what the
// directory holds is in memory and rebuilt from the directory now and then.
#include "rap/io/disk_cache.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <system_error>
#include <vector>

#include "rap/io/sigv4.h"

namespace rap::io {
namespace fs = std::filesystem;

namespace {

// Entry file: magic, key length (u32 LE), CRC-32 of the payload (u32 LE), payload length (u64 LE),
// the key, the payload.
constexpr char kMagic[8] = {'R', 'A', 'P', 'D', 'C', '0', '0', '1'};
constexpr size_t kHeaderBytes = 24;
constexpr const char* kSuffix = ".rdc";
constexpr uint32_t kMaxKeyBytes = 64 * 1024;

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

uint64_t MtimeNs(const struct stat& st) {
  return static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ULL + static_cast<uint64_t>(st.st_mtim.tv_nsec);
}

void PutLe(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t GetLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

uint32_t Crc32(const uint8_t* data, size_t n) { return static_cast<uint32_t>(libdeflate_crc32(0, data, n)); }

// Reads the whole file at `path`; nullopt when it cannot be opened or read. Sets its mtime to now
// (the LRU order across restarts).
std::optional<std::vector<uint8_t>> ReadAndTouch(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::vector<uint8_t>> out;
  if (::fstat(fd, &st) == 0) {
    std::vector<uint8_t> bytes(static_cast<size_t>(std::max<off_t>(st.st_size, 0)));
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    bytes.resize(done);  // a file cut short reads as a corrupt entry
    (void)::futimens(fd, nullptr);
    out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

// Writes all of `iov` to `fd`.
bool WriteAll(int fd, struct iovec* iov, int count) {
  while (count > 0) {
    ssize_t n = ::writev(fd, iov, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    size_t left = static_cast<size_t>(n);
    while (count > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0) {
      iov->iov_base = static_cast<uint8_t*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

std::string RandomHex() {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ NowNs());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

}  // namespace

DiskCache::DiskCache(std::string dir, uint64_t capacity) : dir_(std::move(dir)), capacity_(capacity) {}

Result<std::shared_ptr<DiskCache>> DiskCache::Open(const std::string& dir, uint64_t capacity_bytes) {
  if (dir.empty()) return Status::InvalidArgument("disk cache: empty directory name");
  if (capacity_bytes == 0) return Status::InvalidArgument("disk cache " + dir + ": capacity must be > 0 bytes");
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "tmp", ec);
  if (ec) return Status::IOError("disk cache " + dir + ": cannot create the directory: " + ec.message());
  auto cache = std::make_shared<DiskCache>(dir, capacity_bytes);
  // Leftovers of writes interrupted by a crash: temporary files nobody renamed within an hour.
  const uint64_t hour_ago = NowNs() - 3600ULL * 1000000000ULL;
  for (fs::directory_iterator it(fs::path(dir) / "tmp", ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::stat(it->path().c_str(), &st) == 0 && MtimeNs(st) < hour_ago) fs::remove(it->path(), ec);
  }
  RAP_RETURN_NOT_OK(cache->Rescan());
  std::vector<std::string> doomed;
  {
    std::lock_guard<std::mutex> lock(cache->mu_);
    cache->EvictLocked(&doomed);
  }
  for (const std::string& name : doomed) fs::remove(cache->PathOf(name), ec);
  return cache;
}

Result<std::shared_ptr<DiskCache>> DiskCache::Shared(const std::string& dir, uint64_t capacity_bytes) {
  static std::mutex mu;
  static auto* caches = new std::map<std::string, std::shared_ptr<DiskCache>>();  // lives to process exit
  std::error_code ec;
  std::string key = fs::weakly_canonical(fs::path(dir), ec).string();
  if (ec || key.empty()) key = dir;
  std::lock_guard<std::mutex> lock(mu);
  auto it = caches->find(key);
  if (it != caches->end()) return it->second;
  RAP_ASSIGN_OR_RETURN(std::shared_ptr<DiskCache> cache, Open(dir, capacity_bytes));
  caches->emplace(key, cache);
  return cache;
}

std::string DiskCache::PathOf(const std::string& name) const {
  return dir_ + "/" + name.substr(0, 2) + "/" + name.substr(2) + kSuffix;
}

Status DiskCache::Rescan() {
  std::unordered_map<std::string, Entry> found;
  uint64_t bytes = 0;
  std::error_code ec;
  for (fs::directory_iterator top(dir_, ec), end; !ec && top != end; top.increment(ec)) {
    const std::string sub = top->path().filename().string();
    if (sub.size() != 2 || !top->is_directory(ec)) continue;
    std::error_code ec2;
    for (fs::directory_iterator it(top->path(), ec2); !ec2 && it != end; it.increment(ec2)) {
      std::string file = it->path().filename().string();
      if (file.size() != 62 + std::strlen(kSuffix) || file.compare(62, std::string::npos, kSuffix) != 0) continue;
      struct stat st {};
      if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      Entry e{static_cast<uint64_t>(st.st_size), MtimeNs(st)};
      found[sub + file.substr(0, 62)] = e;
      bytes += e.bytes;
    }
  }
  if (ec) return Status::IOError("disk cache " + dir_ + ": cannot list the directory: " + ec.message());
  std::lock_guard<std::mutex> lock(mu_);
  // Keep this process's more recent use times for entries it knows.
  for (auto& [name, e] : found) {
    auto it = entries_.find(name);
    if (it != entries_.end()) e.last_use = std::max(e.last_use, it->second.last_use);
  }
  entries_ = std::move(found);
  bytes_ = bytes;
  written_since_scan_ = 0;
  return Status::OK();
}

// Chooses the least recently used entries to remove until the bytes fall to 90% of the capacity
// (evicting in batches keeps a full cache from sorting on every write).
void DiskCache::EvictLocked(std::vector<std::string>* doomed) {
  if (bytes_ <= capacity_) return;
  std::vector<std::pair<uint64_t, std::string>> order;
  order.reserve(entries_.size());
  for (const auto& [name, e] : entries_) order.emplace_back(e.last_use, name);
  std::sort(order.begin(), order.end());
  const uint64_t target = capacity_ / 10 * 9;
  for (const auto& [use, name] : order) {
    if (bytes_ <= target) break;
    auto it = entries_.find(name);
    bytes_ -= it->second.bytes;
    entries_.erase(it);
    doomed->push_back(name);
    evictions_.fetch_add(1, std::memory_order_relaxed);
  }
}

void DiskCache::Forget(const std::string& name, bool corrupt) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(name);
    if (it != entries_.end()) {
      bytes_ -= it->second.bytes;
      entries_.erase(it);
    }
  }
  if (corrupt) {
    corrupt_.fetch_add(1, std::memory_order_relaxed);
    std::error_code ec;
    fs::remove(PathOf(name), ec);
  }
}

std::optional<Buffer> DiskCache::Get(const std::string& key) {
  const std::string name = sigv4::Sha256Hex(key);
  std::optional<std::vector<uint8_t>> file = ReadAndTouch(PathOf(name));
  if (!file) {
    Forget(name, false);  // evicted by another process, or never written
    misses_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  const std::vector<uint8_t>& b = *file;
  bool ok = b.size() >= kHeaderBytes && std::memcmp(b.data(), kMagic, sizeof kMagic) == 0;
  const uint64_t key_len = ok ? GetLe(b.data() + 8, 4) : 0;
  const uint64_t payload_len = ok ? GetLe(b.data() + 16, 8) : 0;
  ok = ok && key_len == key.size() && kHeaderBytes + key_len <= b.size() &&
       payload_len == b.size() - kHeaderBytes - key_len &&
       std::memcmp(b.data() + kHeaderBytes, key.data(), key.size()) == 0;
  const uint8_t* payload = ok ? b.data() + kHeaderBytes + key_len : nullptr;
  ok = ok && Crc32(payload, payload_len) == static_cast<uint32_t>(GetLe(b.data() + 12, 4));
  if (!ok) {
    Forget(name, true);
    misses_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = entries_.try_emplace(name, Entry{b.size(), 0});
    if (inserted) bytes_ += b.size();  // written by another process since the last scan
    it->second.last_use = std::max(NowNs(), it->second.last_use + 1);
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  hit_bytes_.fetch_add(payload_len, std::memory_order_relaxed);
  return Buffer::Copy(payload, payload_len);
}

void DiskCache::Put(const std::string& key, const Buffer& data) {
  if (key.size() > kMaxKeyBytes || data.size() > capacity_ / 8) return;
  const std::string name = sigv4::Sha256Hex(key);
  uint8_t header[kHeaderBytes];
  std::memcpy(header, kMagic, sizeof kMagic);
  PutLe(header + 8, key.size(), 4);
  PutLe(header + 12, Crc32(data.data(), data.size()), 4);
  PutLe(header + 16, data.size(), 8);
  const std::string tmp = dir_ + "/tmp/" + RandomHex() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  if (ok) {
    struct iovec iov[3] = {{header, kHeaderBytes},
                           {const_cast<char*>(key.data()), key.size()},
                           {const_cast<uint8_t*>(data.data()), data.size()}};
    ok = WriteAll(fd, iov, 3);
    ok = (::close(fd) == 0) && ok;
  }
  const std::string final_path = PathOf(name);
  if (ok) {
    std::error_code ec;
    fs::create_directories(fs::path(final_path).parent_path(), ec);
    ok = !ec && ::rename(tmp.c_str(), final_path.c_str()) == 0;
  }
  if (!ok) {
    if (fd >= 0) ::unlink(tmp.c_str());
    write_errors_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint64_t file_bytes = kHeaderBytes + key.size() + data.size();
  entries_written_.fetch_add(1, std::memory_order_relaxed);
  written_bytes_.fetch_add(data.size(), std::memory_order_relaxed);
  bool rescan = false;
  std::vector<std::string> doomed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = entries_[name];
    bytes_ = bytes_ - e.bytes + file_bytes;
    e.bytes = file_bytes;
    e.last_use = NowNs();
    written_since_scan_ += file_bytes;
    rescan = written_since_scan_ > capacity_ / 4;
    if (rescan) written_since_scan_ = 0;  // one scan at a time is enough
  }
  if (rescan) (void)Rescan();  // a listing error keeps the old index
  {
    std::lock_guard<std::mutex> lock(mu_);
    EvictLocked(&doomed);
  }
  std::error_code ec;
  for (const std::string& n : doomed) fs::remove(PathOf(n), ec);
}

DiskCacheStats DiskCache::Stats() const {
  DiskCacheStats s;
  s.hits = hits_.load();
  s.misses = misses_.load();
  s.hit_bytes = hit_bytes_.load();
  s.written_bytes = written_bytes_.load();
  s.entries_written = entries_written_.load();
  s.evictions = evictions_.load();
  s.corrupt_entries = corrupt_.load();
  s.write_errors = write_errors_.load();
  std::lock_guard<std::mutex> lock(mu_);
  s.entries = entries_.size();
  s.bytes = bytes_;
  return s;
}

}  // namespace rap::io
