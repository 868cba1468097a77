// ObservedStore: an ObjectStore wrapper for tests that records every range and tail read per path
// and can stall the reads of chosen paths until they are cancelled, or hold the reads of a file's
// tail bytes until the test lets them through.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rap/io/object_store.h"

namespace rap::testing {

class ObservedStore : public io::ObjectStore {
 public:
  explicit ObservedStore(io::ObjectStorePtr inner) : inner_(std::move(inner)) {}
  std::string endpoint() const override { return inner_->endpoint(); }
  bool is_remote() const override { return false; }
  Result<io::ObjectInfo> Head(const std::string& path) override { return inner_->Head(path); }
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const io::ReadOptions& options, io::ReadStats* stats) override {
    RAP_RETURN_NOT_OK(MaybeStall(path, options));
    RAP_RETURN_NOT_OK(MaybeGate(path, ranges, options));
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const ByteRange& r : ranges) ranges_[path].push_back(r);
    }
    return inner_->ReadRanges(path, ranges, options, stats);
  }
  Result<std::pair<Buffer, io::ObjectInfo>> ReadTail(const std::string& path, uint64_t n,
                                                     const io::ReadOptions& options, io::ReadStats* stats) override {
    RAP_RETURN_NOT_OK(MaybeStall(path, options));
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++tails_[path];
    }
    return inner_->ReadTail(path, n, options, stats);
  }
  Result<std::vector<io::ObjectInfo>> List(const std::string& prefix) override { return inner_->List(prefix); }
  Status Put(const std::string& path, const Buffer& data) override { return inner_->Put(path, data); }

  // Reads of paths containing `s` block until their read is cancelled (or 30 s pass).
  void StallPathsContaining(std::string s) { stall_ = std::move(s); }
  bool saw_cancelled_stall() const { return cancelled_stall_.load(); }
  // Reads of `path` that touch a byte at or after `offset` block until OpenGate() (or until their
  // read is cancelled, or 30 s pass); gated_reads() counts the reads that blocked.
  void GateReadsFrom(std::string path, uint64_t offset) {
    std::lock_guard<std::mutex> lock(mu_);
    gate_path_ = std::move(path);
    gate_offset_ = offset;
    gate_open_ = false;
  }
  void OpenGate() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      gate_open_ = true;
    }
    gate_cv_.notify_all();
  }
  int gated_reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return gated_;
  }
  std::map<std::string, std::vector<ByteRange>> ranges() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ranges_;
  }
  std::map<std::string, int> tails() const {
    std::lock_guard<std::mutex> lock(mu_);
    return tails_;
  }

 private:
  Status MaybeStall(const std::string& path, const io::ReadOptions& options) {
    if (stall_.empty() || path.find(stall_) == std::string::npos) return Status::OK();
    for (int i = 0; i < 30000; ++i) {
      if (options.cancel && options.cancel->cancelled()) {
        cancelled_stall_ = true;
        return Status::Cancelled(path + ": read cancelled");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return Status::IOError(path + ": stalled read was never cancelled");
  }

  Status MaybeGate(const std::string& path, std::span<const ByteRange> ranges, const io::ReadOptions& options) {
    std::unique_lock<std::mutex> lock(mu_);
    if (gate_open_ || path != gate_path_) return Status::OK();
    bool touches = false;
    for (const ByteRange& r : ranges) touches = touches || r.end() > gate_offset_;
    if (!touches) return Status::OK();
    ++gated_;
    for (int i = 0; i < 30000 && !gate_open_; ++i) {
      if (options.cancel && options.cancel->cancelled()) return Status::Cancelled(path + ": read cancelled");
      gate_cv_.wait_for(lock, std::chrono::milliseconds(1));
    }
    return gate_open_ ? Status::OK() : Status::IOError(path + ": gated read was never let through");
  }

  io::ObjectStorePtr inner_;
  std::string stall_;
  std::string gate_path_;
  uint64_t gate_offset_ = 0;
  bool gate_open_ = true;
  int gated_ = 0;
  std::condition_variable gate_cv_;
  std::atomic<bool> cancelled_stall_{false};
  mutable std::mutex mu_;
  std::map<std::string, std::vector<ByteRange>> ranges_;
  std::map<std::string, int> tails_;
};

}  // namespace rap::testing
