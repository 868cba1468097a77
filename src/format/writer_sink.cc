#include "rap/format/writer_sink.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rap::parquet {

namespace {
Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
}
}  // namespace

Status MemorySink::Append(std::span<const uint8_t> bytes) {
  if (closed_) return Status::Internal("MemorySink: append after Close");
  data_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Status::OK();
}

Status MemorySink::Close() {
  closed_ = true;
  return Status::OK();
}

Result<std::unique_ptr<LocalFileSink>> LocalFileSink::Open(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("output path is empty");
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return ErrnoStatus("cannot create temporary file for", path);
  // mkstemp creates 0600; a published data file is world-readable like any other output file
  // (reading the umask would mean changing it, which races with other threads).
  ::fchmod(fd, 0644);
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) {
    Status st = ErrnoStatus("cannot open", temp);
    ::close(fd);
    ::unlink(temp.c_str());
    return st;
  }
  return std::unique_ptr<LocalFileSink>(new LocalFileSink(path, std::move(temp), f));
}

LocalFileSink::~LocalFileSink() { Abort(); }

Status LocalFileSink::Append(std::span<const uint8_t> bytes) {
  if (done_) return Status::Internal("LocalFileSink " + path_ + ": append after Close/Abort");
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return ErrnoStatus("write failed at offset " + std::to_string(position_) + " of", temp_path_);
  }
  position_ += bytes.size();
  return Status::OK();
}

Status LocalFileSink::Close() {
  if (done_) return Status::Internal("LocalFileSink " + path_ + ": closed twice");
  Status st;
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) st = ErrnoStatus("flush failed for", temp_path_);
  if (std::fclose(file_) != 0 && st.ok()) st = ErrnoStatus("close failed for", temp_path_);
  file_ = nullptr;
  done_ = true;
  if (st.ok() && ::rename(temp_path_.c_str(), path_.c_str()) != 0) st = ErrnoStatus("cannot rename to", path_);
  if (!st.ok()) ::unlink(temp_path_.c_str());
  return st;
}

void LocalFileSink::Abort() {
  if (done_) return;
  done_ = true;
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  ::unlink(temp_path_.c_str());
}

Status CommitSink::Append(std::span<const uint8_t> bytes) {
  if (done_) return Status::Internal("CommitSink: append after Close/Abort");
  data_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Status::OK();
}

Status CommitSink::Close() {
  if (done_) return Status::Internal("CommitSink: closed twice");
  done_ = true;
  Buffer file = Buffer::FromString(std::move(data_));
  data_.clear();
  return commit_(file);
}

void CommitSink::Abort() {
  done_ = true;
  data_.clear();
  data_.shrink_to_fit();
}

}  // namespace rap::parquet
