// RowGroupShare: what the read ranges of one split row group (read_range.h) share, so that a page
// needed by more than one range is fetched once and decoded once, whichever range's producer gets
// there first:
//   - bytes: the page's byte range is claimed by the first range that fetches it (it is part of that
//     range's one planned read); a range that needs it later, or while it is in flight, waits for it
//     and takes the bytes with no request of its own;
//   - decoding: a parquet::PageShare (column_reader.h) keeps the decoded page (levels, decompressed
//     values; a dictionary page's values) for the other ranges.
// The shared pages are a column's data pages that hold rows on both sides of a range boundary and
// every column's dictionary page. Each is declared with its rows; when every range that holds some
// of those rows is done (RangeDone, called by the range task whether it read the page or not), the
// page's bytes and decoded form are released. Ranges never started (a limit) leave their pages until
// the share goes away with the file's ranges.
// A claimed fetch always completes (filled) or fails before its claimant waits for anything else, so
// two ranges never wait for each other; a failed or cancelled fetch makes the waiter fetch itself.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "rap/format/column_reader.h"
#include "rap/plan/byte_range.h"
#include "rap/read/file_reader.h"
#include "rap/util/buffer.h"

namespace rap::read {

class RowGroupShare {
 public:
  struct Page {
    ByteRange range;                // page header + body (a dictionary page: from the chunk start to the first data page)
    int64_t first_row = 0, end_row = 0;  // its rows (a dictionary page: the whole row group)
  };
  // `range_bounds`: the first rows of the row group's ranges, ascending, then the row group's end.
  RowGroupShare(const std::vector<Page>& pages, const std::vector<int64_t>& range_bounds);

  // Cuts the runs of `chunk` so that every shared page is a run of its own (what a range of this
  // row group requests; the warmup reserves the same ranges).
  void CutAtSharedPages(ChunkRanges& chunk) const;
  bool Shares(const ByteRange& range) const { return pages_.count(range.offset) > 0 && pages_.at(range.offset).range == range; }
  // Claims `range` (a shared page): true when the caller must fetch it and then Fill or Fail it;
  // false when another range fetched or is fetching it (take it with Wait).
  bool Claim(const ByteRange& range);
  // A fetch-ahead's claim (prefetch_reader.h): claims `range` only when no range fetched it yet.
  bool ClaimIfFree(const ByteRange& range);
  void Fill(const ByteRange& range, Buffer data);
  void Fail(const ByteRange& range);
  // The bytes of a range claimed by another range, once fetched; nullopt when that fetch failed, or
  // the bytes were already released (fetch it yourself).
  std::optional<Buffer> Wait(const ByteRange& range);
  // The read range of rows [begin, end) is done: pages with no rows in a range still to come are released.
  void RangeDone(int64_t begin, int64_t end);

  const std::shared_ptr<parquet::PageShare>& page_share() const { return page_share_; }
  size_t pages() const { return pages_.size(); }
  int64_t fetches_saved() const;  // loads answered by another range's fetch

 private:
  struct Entry {
    ByteRange range;
    int64_t first_row = 0, end_row = 0;
    int users_left = 0;  // ranges holding its rows and not done
    enum class State { kFree, kPending, kReady, kFailed, kReleased } state = State::kFree;
    Buffer data;
  };
  std::map<uint64_t, Entry> pages_;  // by offset (fixed after construction; entries change under mu_)
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t saved_ = 0;
  std::shared_ptr<parquet::PageShare> page_share_;
};

}  // namespace rap::read
