#include "rap/read/row_group_share.h"

namespace rap::read {

namespace {

std::vector<uint64_t> Offsets(const std::vector<RowGroupShare::Page>& pages) {
  std::vector<uint64_t> out;
  for (const RowGroupShare::Page& p : pages) out.push_back(p.range.offset);
  return out;
}

}  // namespace

RowGroupShare::RowGroupShare(const std::vector<Page>& pages, const std::vector<int64_t>& range_bounds)
    : page_share_(std::make_shared<parquet::PageShare>(Offsets(pages))) {
  for (const Page& p : pages) {
    Entry& e = pages_[p.range.offset];
    e.range = p.range;
    e.first_row = p.first_row;
    e.end_row = p.end_row;
    for (size_t k = 0; k + 1 < range_bounds.size(); ++k) {
      e.users_left += range_bounds[k] < p.end_row && range_bounds[k + 1] > p.first_row ? 1 : 0;
    }
  }
}

void RowGroupShare::CutAtSharedPages(ChunkRanges& cr) const {
  if (cr.whole_chunk) return;
  std::vector<ByteRange> runs;
  size_t page = 0;
  for (const ByteRange& run : cr.runs) {
    uint64_t at = run.offset;
    for (; page < cr.pages.size() && static_cast<uint64_t>(cr.pages[page].offset) < run.end(); ++page) {
      const ByteRange p{static_cast<uint64_t>(cr.pages[page].offset),
                        static_cast<uint64_t>(cr.pages[page].compressed_page_size)};
      if (!Shares(p)) continue;
      if (p.offset > at) runs.push_back(ByteRange{at, p.offset - at});
      runs.push_back(p);
      at = p.end();
    }
    if (run.end() > at) runs.push_back(ByteRange{at, run.end() - at});
  }
  cr.runs = std::move(runs);
}

bool RowGroupShare::Claim(const ByteRange& range) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = pages_.at(range.offset);
  if (e.state == Entry::State::kFree || e.state == Entry::State::kFailed || e.state == Entry::State::kReleased) {
    if (e.state != Entry::State::kReleased) e.state = Entry::State::kPending;
    return true;
  }
  return false;
}

bool RowGroupShare::ClaimIfFree(const ByteRange& range) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = pages_.at(range.offset);
  if (e.state != Entry::State::kFree) return false;
  e.state = Entry::State::kPending;
  return true;
}

void RowGroupShare::Fill(const ByteRange& range, Buffer data) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = pages_.at(range.offset);
    if (e.state == Entry::State::kPending) {
      if (data.size() == range.length) {
        e.state = Entry::State::kReady;
        e.data = std::move(data);
      } else {
        e.state = Entry::State::kFailed;
      }
    }
  }
  cv_.notify_all();
}

void RowGroupShare::Fail(const ByteRange& range) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& e = pages_.at(range.offset);
    if (e.state == Entry::State::kPending) e.state = Entry::State::kFailed;
  }
  cv_.notify_all();
}

std::optional<Buffer> RowGroupShare::Wait(const ByteRange& range) {
  std::unique_lock<std::mutex> lock(mu_);
  Entry& e = pages_.at(range.offset);
  cv_.wait(lock, [&] { return e.state != Entry::State::kPending; });
  if (e.state != Entry::State::kReady) return std::nullopt;
  ++saved_;
  return e.data;
}

void RowGroupShare::RangeDone(int64_t begin, int64_t end) {
  std::vector<uint64_t> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [offset, e] : pages_) {
      if (e.first_row >= end || e.end_row <= begin || e.users_left <= 0) continue;
      if (--e.users_left > 0) continue;
      // A fetch still in flight is left to its claimant (Fill keeps the bytes until the share goes).
      if (e.state != Entry::State::kPending) {
        e.state = Entry::State::kReleased;
        e.data = Buffer();
      }
      released.push_back(offset);
    }
  }
  for (uint64_t offset : released) page_share_->Release(offset);
}

int64_t RowGroupShare::fetches_saved() const {
  std::lock_guard<std::mutex> lock(mu_);
  return saved_;
}

}  // namespace rap::read
