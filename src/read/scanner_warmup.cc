// Warmup of the scan's next file (seed 001): while file i is read, a thread prepares file i + 1 —
// pruning, footer and page indexes, range planning — and, at RAW, fetches the bytes of its first
// ranges (as many as there are producers, within the pre-buffer limit) into the file's
// ReadAheadCache; at DECODED it also starts the file's PrefetchReader, whose producers begin
// decoding (bounded by their queues) and take the warmed bytes as they arrive. The fetches are on
// this thread, so they never delay the consumer, for local files too. One file ahead only and never
// past the scan's last file; a scan that stops first (a limit, an error) cancels the thread's reads
// through the file's CancellationToken and joins it without waiting for them to complete.
// The same planning serves the producers' fetch-ahead (PlanFetchAhead): a producer's next range's
// first read, fetched while it decodes the current one (prefetch_reader.h).
// The warmed file is also taken early (StartWarmedFileEarly): once it is prepared — at RAW when
// every producer of the current file has begun its last range (so all of that file's reads are
// issued), at DECODED at once — its producers
// start (their threads and I/O would otherwise sit unused while the consumer drains the queues;
// bounded by the queue budget) and the warmup moves on to the file after it, while the consumer is
// still on the current file. Without this, a consumer that drains a decoded-ahead file in no time
// waited at its end for the whole warmup (footer, page index, fetch) of the file after it, which
// began only when the consumer reached the file before (DECODED's boundary wait of 57-203 ms in
// docs/benchmarks/prefetch.md). So producers work on at most two files (the consumer's and the
// next), and one more file is warmed (its footer and first bytes, within the pre-buffer limit); a
// scan with a limit warms one file ahead of the consumer only. (RAW waited until the current file's
// producers were idle — every range produced — until 2026-12-02: each file's producers then began
// their reads a round trip after the previous file's last range arrived, and the link idled for it;
// at 50 ms / 64 MiB/s the filtered scan went from 1.22 s to 0.92 s with the earlier start.)
#include <fmt/format.h>

#include <set>

#include "read/scanner_impl.h"

namespace rap::read {

void Scanner::Impl::StartWarmup(size_t index, bool decode) {
  if (options.warmup.level == WarmupLevel::kNone || index >= source.files.size() || done) return;
  if (warming && warming->index == index) return;  // begun early (StartWarmedFileEarly)
  StopWarmup();
  auto w = std::make_unique<Warming>();
  w->index = index;
  w->decode.store(decode);
  w->cancel = std::make_shared<io::CancellationToken>();
  Warming* raw = w.get();
  w->thread = std::thread([this, raw] {
    raw->status = WarmFile(raw);
    raw->ready.store(true, std::memory_order_release);
  });
  warming = std::move(w);
}

Projection Scanner::Impl::FirstReadProjection(const OpenedFile& file) const {
  Projection projection;
  if (!predicate) {
    projection.columns = file.leaves;
    return projection;
  }
  for (int l : file.filter_leaf) {
    if (l >= 0) projection.columns.push_back(l);
  }
  std::sort(projection.columns.begin(), projection.columns.end());
  projection.columns.erase(std::unique(projection.columns.begin(), projection.columns.end()), projection.columns.end());
  return projection;
}

Projection Scanner::Impl::SecondReadProjection(const OpenedFile& file) const {
  Projection projection;
  if (!predicate) return projection;
  const Projection first = FirstReadProjection(file);
  for (int l : file.leaves) {
    if (!std::binary_search(first.columns.begin(), first.columns.end(), l)) projection.columns.push_back(l);
  }
  return projection;
}

Result<std::vector<ByteRange>> Scanner::Impl::RangeReadBytes(const OpenedFile& file, const ReadRange& r,
                                                             const RowSelection& rows, const Projection& projection,
                                                             std::set<std::pair<uint64_t, uint64_t>>& seen) const {
  std::vector<ByteRange> out;
  if (projection.columns.empty() || rows.empty()) return out;
  RAP_ASSIGN_OR_RETURN(std::vector<ChunkRanges> plan, file.reader->PlanRowGroup(r.row_group, rows, projection));
  auto add = [&](const ByteRange& b) {
    if (seen.insert({b.offset, b.length}).second) out.push_back(b);
  };
  for (ChunkRanges& cr : plan) {
    // The ranges the reader will request: a page shared with another range on its own.
    if (r.share) r.share->CutAtSharedPages(cr);
    if (cr.dictionary) add(*cr.dictionary);
    for (const ByteRange& b : cr.runs) add(b);
  }
  return out;
}

std::function<void()> Scanner::Impl::PlanFetchAhead(OpenedFile& file, const std::vector<const ReadRange*>& ranges) const {
  if (!file.cache || RoomHint() == 0) return nullptr;
  std::vector<ByteRange> cached;
  std::vector<std::pair<std::shared_ptr<RowGroupShare>, ByteRange>> claimed;
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (const ReadRange* r : ranges) {
    if (r->end <= r->begin) continue;
    // The same rows and pages the range task's first read will ask for; an error here is left to it.
    ScanStats scratch;
    Result<RowSelection> rows = RangeCandidates(file.index, *file.reader, *r, file.filter_leaf, scratch);
    if (!rows.ok()) continue;
    Result<std::vector<ByteRange>> bytes = RangeReadBytes(file, *r, *rows, FirstReadProjection(file), seen);
    if (!bytes.ok()) continue;
    std::vector<ByteRange> mine;
    for (const ByteRange& b : *bytes) {
      if (r->share && r->share->Shares(b)) {
        // A page of several ranges: fetched here only when no range fetched it and the warmup does
        // not hold it (else it would be requested twice); its users take it from the share. (A range
        // claims such a page before it takes it from the cache, so one of the two checks sees it.)
        if (!file.cache->Holds(b) && r->share->ClaimIfFree(b)) claimed.emplace_back(r->share, b);
      } else {
        mine.push_back(b);
      }
    }
    const size_t fit = file.cache->Reserve(mine, /*fetch_ahead=*/true);
    cached.insert(cached.end(), mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(fit));
    if (fit < mine.size()) break;  // the cache's limit or the memory budget: the rest reads normally
  }
  if (cached.empty() && claimed.empty()) return nullptr;
  return [reader = file.reader, cache = file.cache, cached = std::move(cached), claimed = std::move(claimed)] {
    // A failed fetch is only a miss: the range reads those bytes itself.
    (void)reader->FetchInto(cached, *cache, "fetch_ahead", claimed);
  };
}

Status Scanner::Impl::WarmFile(Warming* w) const {
  RAP_ASSIGN_OR_RETURN(std::shared_ptr<OpenedFile> file, PrepareFile(w->index, w->cancel));
  w->file = file;
  if (file->pruned) return Status::OK();
  if (file->orc) return WarmOrcFile(w, file);  // scanner_orc.cc
  file->counts.warmup_files = 1;
  // The first round trip of each of the first ranges over its candidate rows: the filter columns
  // when there is a filter (read 1), else the output columns. With a filter, the first range's read
  // 2 (the other output columns, over the candidate rows: a superset of the pages of the rows the
  // filter will select) too, so the consumer's first range of the file needs no dependent round
  // trip; bytes of pages the filter then leaves out are counted as unused.
  const Projection first = FirstReadProjection(*file);
  const Projection second = SecondReadProjection(*file);
  const size_t want = std::min(file->ranges.size(), static_cast<size_t>(std::max(1, options.prefetch.producers)));
  std::vector<ByteRange> reserved;
  std::set<std::pair<uint64_t, uint64_t>> seen;  // a dictionary or a page feeding two ranges: reserved once
  for (size_t i = 0; i < want; ++i) {
    const ReadRange& r = file->ranges[i];
    if (r.end <= r.begin) continue;
    ScanStats scratch;
    // (The page index this may load is kept by the reader; an error is left to the range task.)
    Result<RowSelection> candidates = RangeCandidates(file->index, *file->reader, r, file->filter_leaf, scratch);
    if (!candidates.ok()) break;
    const RowSelection& rows = *candidates;
    RAP_ASSIGN_OR_RETURN(std::vector<ByteRange> ranges, RangeReadBytes(*file, r, rows, first, seen));
    if (i == 0) {
      RAP_ASSIGN_OR_RETURN(std::vector<ByteRange> more, RangeReadBytes(*file, r, rows, second, seen));
      ranges.insert(ranges.end(), more.begin(), more.end());
    }
    const size_t fit = file->cache->Reserve(ranges);
    reserved.insert(reserved.end(), ranges.begin(), ranges.begin() + static_cast<std::ptrdiff_t>(fit));
    if (fit < ranges.size()) {
      file->counts.warmup_partial = 1;  // the pre-buffer limit: the leading ranges that fit
      break;
    }
  }
  file->counts.warmup_bytes = file->cache->bytes_reserved();
  // DECODED: the producers start now; the reserved ranges they ask for wait for the fetch below.
  // (Not for a file warmed two ahead of the consumer: its producers start when it is taken early.)
  if (options.warmup.level == WarmupLevel::kDecoded && w->decode.load()) StartReading(*file, true);
  w->prepared.store(true, std::memory_order_release);
  if (reserved.empty()) return Status::OK();
  Status st = file->reader->FetchInto(reserved, *file->cache);
  // A failed warmup is only a miss: the reader requests those bytes itself (and reports a
  // persistent error then). A cancelled one means the scan ended.
  (void)st;
  return Status::OK();
}

void Scanner::Impl::StartWarmedFileEarly() {
  if (started || !warming || !current || !current->prefetch || warming->index != current->index + 1) return;
  if (!warming->prepared.load(std::memory_order_acquire)) return;  // (an error or a pruned file: taken as it is)
  // DECODED decodes the next file alongside the current one; RAW starts it once every producer of
  // the current file is on its last range: its reads then overlap the current file's last ones.
  if (options.warmup.level != WarmupLevel::kDecoded && !current->prefetch->on_last_ranges()) return;
  started = std::move(warming);  // its thread may still be fetching the reserved bytes
  if (started->ahead) ++stats.warmup_ahead;
  StartReading(*started->file, true);
  // The file after it is warmed now, while the consumer is still on the current file: taking the
  // started file then waits for nothing (its first ranges are decoded, the next one's bytes are
  // fetched). A scan with a limit warms one file ahead of the consumer only.
  if (options.limit < 0 && started->index + 1 < source.files.size()) {
    StartWarmup(started->index + 1, /*decode=*/false);
    if (warming) warming->ahead = true;
  }
}

void Scanner::Impl::StopWarmup() {
  if (!warming) return;
  if (warming->cancel) warming->cancel->Cancel();
  if (warming->thread.joinable()) warming->thread.join();
  if (warming->file && !warming->file->pruned) {
    OpenedFile& f = *warming->file;
    stats.warmup_files += f.counts.warmup_files;
    stats.warmup_bytes += f.counts.warmup_bytes;
    stats.warmup_partial += f.counts.warmup_partial;
    FinishFile(f);  // its requests were made; everything it fetched is unused
  }
  warming.reset();
}

}  // namespace rap::read
