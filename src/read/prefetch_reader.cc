// PrefetchReader: producers with bounded queues, the ordered consumer, the plain path and the
// adaptive rule (see prefetch_reader.h).
#include "rap/read/prefetch_reader.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "rap/util/clock.h"

namespace rap::read {

void PrefetchStats::Add(const PrefetchStats& o) {
  ranges += o.ranges;
  files_parallel += o.files_parallel;
  adaptive_disabled += o.adaptive_disabled;
  small_files += o.small_files;
  decoded_ahead += o.decoded_ahead;
  fetched_ahead += o.fetched_ahead;
  queue_full += o.queue_full;
  max_queue_depth = std::max(max_queue_depth, o.max_queue_depth);
  batches += o.batches;
  consumer_wait_s += o.consumer_wait_s;
  range_seconds.insert(range_seconds.end(), o.range_seconds.begin(), o.range_seconds.end());
}

namespace {

uint64_t ArrayBytes(const ArrayData& a, int64_t offset, int64_t length) {
  if (!a.type || length <= 0) return 0;
  uint64_t bytes = a.buffers.empty() || a.buffers[0].empty() ? 0 : static_cast<uint64_t>(length + 7) / 8;
  const int64_t at = a.offset + offset;
  const TypeId id = a.type->id;
  if (a.type->IsBinaryLike() || id == TypeId::kList || id == TypeId::kMap) {
    if (a.buffers.size() < 2 || a.buffers[1].size() < static_cast<size_t>(at + length + 1) * 4) return bytes;
    const int32_t* o = reinterpret_cast<const int32_t*>(a.buffers[1].data()) + at;
    bytes += static_cast<uint64_t>(length + 1) * 4;
    const int64_t span = static_cast<int64_t>(o[length]) - o[0];
    if (a.type->IsBinaryLike()) return bytes + static_cast<uint64_t>(std::max<int64_t>(0, span));
    return a.children.empty() ? bytes : bytes + ArrayBytes(*a.children[0], o[0], span);
  }
  if (id == TypeId::kStruct) {
    for (const ArrayPtr& c : a.children) bytes += ArrayBytes(*c, at, length);
    return bytes;
  }
  const int w = a.type->FixedWidth();
  return bytes + (w > 0 ? static_cast<uint64_t>(length) * static_cast<uint64_t>(w) : static_cast<uint64_t>(length + 7) / 8);
}

}  // namespace

uint64_t EstimateBatchBytes(const RecordBatch& batch) {
  uint64_t total = 0;
  for (const ArrayPtr& c : batch.columns) total += ArrayBytes(*c, 0, c->length);
  return total;
}

struct PrefetchReader::Shared {
  struct Queue {
    std::deque<PrefetchItem> items;
    int64_t batches = 0;  // batch items (range ends are not counted against the budget)
    uint64_t bytes = 0;
  };
  std::mutex mu;
  std::condition_variable consumer_cv, producer_cv;
  std::vector<Queue> queues;
  int64_t cap_batches = 1;
  uint64_t cap_bytes = 1;
  bool stop = false;
  Status error;  // the first producer error
  int64_t queue_full = 0, max_depth = 0;
  std::vector<double> range_seconds;
  // The range the consumer waits on (its next one) once it called Next(): that range never waits
  // for the memory budget.
  std::atomic<size_t> head{0};
  std::atomic<bool> consuming{false};
  std::atomic<size_t> producers_done{0};
  std::atomic<size_t> producers_on_last{0};  // producers that began their last range (or ended)
  // Fetch-ahead: per producer, the ranges handed to its fetcher and the one it is reserving.
  struct Fetcher {
    std::deque<size_t> jobs;
    std::vector<size_t> reserving;
    size_t handed = 0;  // ranges below this were handed to the fetcher (or run)
    bool closed = false;  // the producer ended
  };
  std::vector<Fetcher> fetchers;
  std::condition_variable fetch_cv;
  std::atomic<int64_t> fetched_ahead{0};
  std::vector<std::thread> threads;  // last: joined in ~PrefetchReader before the rest goes
};

struct PrefetchReader::Ahead {
  RangeOutput out;
  Status status;
  double seconds = 0;
  std::thread thread;  // joined by the first Next() or the destructor
};

std::unique_ptr<PrefetchReader> PrefetchReader::Make(std::vector<ReadRange> ranges, RangeTask task,
                                                     int64_t batch_size, const PrefetchOptions& options,
                                                     io::CancellationToken* cancel, bool decode_ahead,
                                                     MemoryBudget* memory, FetchAheadTask fetch_ahead) {
  std::unique_ptr<PrefetchReader> r(new PrefetchReader());
  r->memory_ = memory;
  r->ranges_ = std::move(ranges);
  r->task_ = std::move(task);
  r->cancel_ = cancel;
  r->stats_.ranges = static_cast<int64_t>(r->ranges_.size());
  const size_t p = static_cast<size_t>(std::max(1, std::min<int>(options.producers, static_cast<int>(r->ranges_.size()))));
  const int64_t cap_batches = std::max<int64_t>(1, options.queue_batches / std::max(1, options.producers));
  uint64_t selected = 0;
  for (const ReadRange& rr : r->ranges_) selected += rr.compressed_bytes;
  if (options.producers <= 1 || r->ranges_.size() <= 1) {
    r->path_ = Path::kPlain;
  } else if (selected < options.min_file_bytes) {
    r->path_ = Path::kSmallFile;
    r->stats_.small_files = 1;
  } else if (options.adaptive &&
             (r->ranges_[0].end - r->ranges_[0].begin + std::max<int64_t>(1, batch_size) - 1) /
                     std::max<int64_t>(1, batch_size) >
                 cap_batches) {
    r->path_ = Path::kAdaptiveDisabled;
    r->stats_.adaptive_disabled = 1;
  } else {
    r->path_ = Path::kParallel;
  }
  if (r->path_ != Path::kParallel) {
    const int64_t bs = std::max<int64_t>(1, batch_size);
    if (decode_ahead && !r->ranges_.empty() &&
        (r->ranges_[0].end - r->ranges_[0].begin + bs - 1) / bs <= std::max<int64_t>(1, options.queue_batches)) {
      r->ahead_ = std::make_unique<Ahead>();
      r->stats_.decoded_ahead = 1;
      r->ahead_->thread = std::thread([raw = r.get()] {
        const double t0 = NowSeconds();
        raw->ahead_->status = raw->task_(raw->ranges_[0], &raw->ahead_->out);
        raw->ahead_->seconds = NowSeconds() - t0;
      });
    }
    return r;
  }
  r->stats_.files_parallel = 1;
  r->shared_ = std::make_unique<Shared>();
  r->shared_->queues = std::vector<Shared::Queue>(p);  // (a deque of move-only items: no resize)
  r->shared_->cap_batches = cap_batches;
  r->shared_->cap_bytes = std::max<uint64_t>(1, options.queue_bytes / static_cast<uint64_t>(std::max(1, options.producers)));
  if (options.fetch_ahead > 0 && fetch_ahead && r->ranges_.size() > p) {
    r->fetch_ = std::move(fetch_ahead);
    r->fetch_ahead_ = options.fetch_ahead;
    r->shared_->fetchers = std::vector<Shared::Fetcher>(p);
  }
  for (size_t i = 0; i < p; ++i) r->shared_->threads.emplace_back([raw = r.get(), i] { raw->Produce(i); });
  if (r->fetch_) {
    for (size_t i = 0; i < p; ++i) r->shared_->threads.emplace_back([raw = r.get(), i] { raw->FetchAhead(i); });
  }
  return r;
}

PrefetchReader::~PrefetchReader() {
  Cancel();
  if (ahead_ && ahead_->thread.joinable()) ahead_->thread.join();
  if (shared_) {
    for (std::thread& t : shared_->threads) t.join();
  }
}

void PrefetchReader::Cancel() {
  if (ahead_ && cancel_) cancel_->Cancel();
  if (!shared_) return;
  // The token is cancelled even when a producer already set `stop`: its own Cancel() may not have
  // run yet, and a caller that saw the error must find in-flight reads cancelled.
  if (cancel_) cancel_->Cancel();
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (shared_->stop) return;
    shared_->stop = true;
  }
  shared_->producer_cv.notify_all();
  shared_->consumer_cv.notify_all();
  shared_->fetch_cv.notify_all();
}

bool PrefetchReader::on_last_ranges() const {
  return shared_ && shared_->producers_on_last.load(std::memory_order_acquire) == shared_->queues.size();
}

bool PrefetchReader::idle() const {
  return shared_ && shared_->producers_done.load(std::memory_order_acquire) == shared_->queues.size();
}

void PrefetchReader::FetchAhead(size_t producer) {
  Shared& s = *shared_;
  Shared::Fetcher& f = s.fetchers[producer];
  for (;;) {
    std::vector<const ReadRange*> ranges;
    {
      std::unique_lock<std::mutex> lock(s.mu);
      s.fetch_cv.wait(lock, [&] { return s.stop || f.closed || !f.jobs.empty(); });
      if (s.stop || f.closed) return;
      f.reserving.assign(f.jobs.begin(), f.jobs.end());
      f.jobs.clear();
    }
    for (size_t i : f.reserving) ranges.push_back(&ranges_[i]);
    std::function<void()> fetch = fetch_(ranges);
    {
      std::lock_guard<std::mutex> lock(s.mu);
      f.reserving.clear();
    }
    s.fetch_cv.notify_all();
    if (fetch) {
      s.fetched_ahead.fetch_add(static_cast<int64_t>(ranges.size()));
      fetch();
    }
  }
}

void PrefetchReader::TakeBackFromFetcher(size_t producer, size_t i) {
  Shared& s = *shared_;
  Shared::Fetcher& f = s.fetchers[producer];
  std::unique_lock<std::mutex> lock(s.mu);
  auto it = std::find(f.jobs.begin(), f.jobs.end(), i);
  if (it != f.jobs.end()) f.jobs.erase(it);
  s.fetch_cv.wait(lock, [&] { return s.stop || std::find(f.reserving.begin(), f.reserving.end(), i) == f.reserving.end(); });
}

void PrefetchReader::Produce(size_t producer) {
  Shared& s = *shared_;
  struct Done {
    Shared& s;
    size_t producer;
    bool on_last = false;
    ~Done() {
      if (!on_last) s.producers_on_last.fetch_add(1, std::memory_order_release);
      if (!s.fetchers.empty()) {
        std::lock_guard<std::mutex> lock(s.mu);
        s.fetchers[producer].closed = true;
      }
      s.fetch_cv.notify_all();
      s.producers_done.fetch_add(1, std::memory_order_release);
    }
  } done{s, producer};
  const size_t p = s.queues.size();
  Shared::Queue& q = s.queues[producer];
  for (size_t i = producer; i < ranges_.size(); i += p) {
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.stop) return;
    }
    if (memory_) {
      // Back off while the budget has no room for this range, unless the consumer waits on it.
      memory_->WaitForRoom(ranges_[i].compressed_bytes, [&] {
        if (s.consuming.load() && s.head.load() == i) return true;
        std::lock_guard<std::mutex> lock(s.mu);
        return s.stop;
      });
    }
    if (fetch_) {
      // This range is ours now; the next one goes to the fetcher while we read and decode this one.
      TakeBackFromFetcher(producer, i);
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.stop) return;
      Shared::Fetcher& f = s.fetchers[producer];
      f.handed = std::max(f.handed, i + 1);
      for (size_t k = 1; k <= static_cast<size_t>(fetch_ahead_); ++k) {
        const size_t j = i + k * p;
        if (j >= ranges_.size()) break;
        if (j < f.handed) continue;
        f.jobs.push_back(j);
        f.handed = j + 1;
      }
      s.fetch_cv.notify_all();
    }
    if (i + p >= ranges_.size() && !done.on_last) {
      done.on_last = true;
      s.producers_on_last.fetch_add(1, std::memory_order_release);
    }
    RangeOutput out;
    const double t0 = NowSeconds();
    Status st = task_(ranges_[i], &out);
    const double took = NowSeconds() - t0;
    std::unique_lock<std::mutex> lock(s.mu);
    if (!st.ok()) {
      // Cancel the in-flight reads before the error becomes visible to the consumer.
      if (cancel_) cancel_->Cancel();
      if (s.error.ok() && !s.stop) s.error = st;
      s.stop = true;
      lock.unlock();
      s.producer_cv.notify_all();
      s.consumer_cv.notify_all();
      return;
    }
    s.range_seconds.push_back(took);
    for (ScanBatch& b : out.batches) {
      const uint64_t bytes = EstimateBatchBytes(b.batch);
      MemoryCharge charge = memory_ ? memory_->ForceCharge(bytes) : MemoryCharge();
      auto room = [&] { return q.batches == 0 || (q.batches < s.cap_batches && q.bytes + bytes <= s.cap_bytes); };
      if (!room() && !s.stop) {
        ++s.queue_full;
        s.producer_cv.wait(lock, [&] { return s.stop || room(); });
      }
      if (s.stop) return;
      PrefetchItem item;
      item.range = i;
      item.batch = std::move(b);
      item.memory = std::move(charge);
      q.items.push_back(std::move(item));
      ++q.batches;
      q.bytes += bytes;
      s.max_depth = std::max(s.max_depth, q.batches);
      s.consumer_cv.notify_all();
    }
    PrefetchItem end;
    end.range = i;
    end.range_stats = std::move(out.stats);
    q.items.push_back(std::move(end));
    s.consumer_cv.notify_all();
  }
}

Result<std::optional<PrefetchItem>> PrefetchReader::Next() {
  if (!failure_.ok()) return failure_;
  if (next_range_ >= ranges_.size()) return std::optional<PrefetchItem>();
  if (path_ != Path::kParallel) {
    // Plain path: run the next range here, hand out its batches, then its end.
    if (plain_pos_ >= plain_items_.size()) {
      RangeOutput out;
      Status st = RunPlainRange(&out);
      if (!st.ok()) {
        failure_ = st;
        return st;
      }
      plain_items_.clear();
      plain_pos_ = 0;
      for (ScanBatch& b : out.batches) {
        PrefetchItem item;
        item.range = next_range_;
        if (memory_) item.memory = memory_->ForceCharge(EstimateBatchBytes(b.batch));
        item.batch = std::move(b);
        plain_items_.push_back(std::move(item));
      }
      PrefetchItem end;
      end.range = next_range_;
      end.range_stats = std::move(out.stats);
      plain_items_.push_back(std::move(end));
    }
    PrefetchItem item = std::move(*plain_items_[plain_pos_++]);
    if (item.batch) {
      ++stats_.batches;
    } else {
      ++next_range_;
    }
    return std::optional<PrefetchItem>(std::move(item));
  }
  Shared& s = *shared_;
  s.consuming.store(true);
  Shared::Queue& q = s.queues[next_range_ % s.queues.size()];
  std::unique_lock<std::mutex> lock(s.mu);
  if (q.items.empty() && s.error.ok() && !s.stop) {
    const double t0 = NowSeconds();
    s.consumer_cv.wait(lock, [&] { return !q.items.empty() || !s.error.ok() || s.stop; });
    stats_.consumer_wait_s += NowSeconds() - t0;
  }
  if (!s.error.ok()) {
    failure_ = s.error;
    lock.unlock();
    Cancel();
    return failure_;
  }
  if (q.items.empty()) {  // cancelled
    failure_ = Status::Cancelled("prefetch: the reader was cancelled");
    return failure_;
  }
  PrefetchItem item = std::move(q.items.front());
  q.items.pop_front();
  if (item.batch) {
    --q.batches;
    q.bytes -= std::min(q.bytes, EstimateBatchBytes(item.batch->batch));
    ++stats_.batches;
    lock.unlock();
    s.producer_cv.notify_all();
  } else {
    ++next_range_;
    s.head.store(next_range_);
  }
  return std::optional<PrefetchItem>(std::move(item));
}

Status PrefetchReader::RunPlainRange(RangeOutput* out) {
  if (next_range_ == 0 && ahead_ && ahead_->thread.joinable()) {
    const double t0 = NowSeconds();
    ahead_->thread.join();
    stats_.consumer_wait_s += NowSeconds() - t0;
    stats_.range_seconds.push_back(ahead_->seconds);
    *out = std::move(ahead_->out);
    return ahead_->status;
  }
  const double t0 = NowSeconds();
  Status st = task_(ranges_[next_range_], out);
  if (st.ok()) stats_.range_seconds.push_back(NowSeconds() - t0);
  return st;
}

PrefetchStats PrefetchReader::stats() const {
  PrefetchStats out = stats_;
  if (shared_) {
    std::lock_guard<std::mutex> lock(shared_->mu);
    out.queue_full = shared_->queue_full;
    out.max_queue_depth = shared_->max_depth;
    out.range_seconds = shared_->range_seconds;
    out.fetched_ahead = shared_->fetched_ahead.load();
  }
  return out;
}

}  // namespace rap::read
