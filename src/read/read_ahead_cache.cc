#include "rap/read/read_ahead_cache.h"

namespace rap::read {

size_t ReadAheadCache::Reserve(std::span<const ByteRange> ranges, bool fetch_ahead) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const ByteRange& r : ranges) {
    if (held_ + r.length > limit_) break;
    Entry e;
    if (memory_ && !memory_->TryCharge(r.length, &e.memory)) break;
    reserved_ += r.length;
    held_ += r.length;
    e.range = r;
    e.fetch_ahead = fetch_ahead;
    entries_.push_back(std::move(e));
    ++n;
  }
  return n;
}

void ReadAheadCache::Fill(const ByteRange& range, Buffer data) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Entry& e : entries_) {
      if (e.state == Entry::State::kPending && e.range == range) {
        if (data.size() == range.length) {
          e.state = Entry::State::kReady;
          filled_ += range.length;
          e.data = std::move(data);
        } else {
          e.state = Entry::State::kFailed;
          e.memory.Release();
          held_ -= range.length;
        }
        break;
      }
    }
  }
  cv_.notify_all();
}

void ReadAheadCache::Fail(const ByteRange& range) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Entry& e : entries_) {
      if (e.state == Entry::State::kPending && e.range == range) {
        e.state = Entry::State::kFailed;
        e.memory.Release();
        held_ -= range.length;
        break;
      }
    }
  }
  cv_.notify_all();
}

std::vector<std::optional<Buffer>> ReadAheadCache::Take(std::span<const ByteRange> ranges) {
  std::vector<std::optional<Buffer>> out(ranges.size());
  std::vector<Entry*> taken;
  std::unique_lock<std::mutex> lock(mu_);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ByteRange& want = ranges[i];
    // By index, not by iterator: the wait below lets go of the lock, and a Reserve meanwhile may
    // grow the deque, which keeps references to its elements but invalidates iterators.
    for (size_t k = 0; k < entries_.size(); ++k) {
      Entry& e = entries_[k];
      if (want.offset < e.range.offset || want.end() > e.range.end()) continue;
      if (e.state == Entry::State::kFailed || e.state == Entry::State::kTaken) continue;
      cv_.wait(lock, [&] { return e.state != Entry::State::kPending; });
      if (e.state != Entry::State::kReady) continue;
      out[i] = e.data.Slice(want.offset - e.range.offset, static_cast<size_t>(want.length));
      if (!e.taken) taken.push_back(&e);
      e.taken = true;
      ++hits_;
      break;
    }
  }
  // This request has its slices: the cache lets go of the ranges it took from.
  for (Entry* e : taken) {
    e->state = Entry::State::kTaken;
    e->data = Buffer();
    e->memory.Release();
    held_ -= e->range.length;
  }
  return out;
}

bool ReadAheadCache::Holds(const ByteRange& range) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_) {
    if ((e.state == Entry::State::kPending || e.state == Entry::State::kReady) && range.offset >= e.range.offset &&
        range.end() <= e.range.end()) {
      return true;
    }
  }
  return false;
}

uint64_t ReadAheadCache::bytes_reserved() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reserved_;
}

uint64_t ReadAheadCache::bytes_held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

uint64_t ReadAheadCache::bytes_filled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return filled_;
}

uint64_t ReadAheadCache::bytes_unused() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  for (const Entry& e : entries_) {
    if (e.state == Entry::State::kReady && !e.taken && !e.fetch_ahead) n += e.range.length;
  }
  return n;
}

int64_t ReadAheadCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

}  // namespace rap::read
