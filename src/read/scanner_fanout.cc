// Scanner::FanOut (ScanOptions::file_parallelism): a table scan that reads several files at once. Each
// file is scanned by a one-file Scanner of its own on a thread the fan-out owns; a file's thread
// queues the file's batches (bounded: a share of the prefetch queue's batches and bytes), and the
// consumer takes them in file order, so the output is the file-at-a-time scan's: the same batches,
// row ids (file ordinal << 40 | row) and limit. While the consumer is on file i, files i+1 ..
// i+N-1 open, prune, filter and read, so a store's round trips of different files overlap.
//
// Ownership and stops: every file thread belongs to its FileSlot, which the fan-out joins when the
// consumer has taken the file's last batch, or in Stop() (a limit reached, an error, the scanner
// destroyed). Stop() cancels the fan-out's token, the parent of every file scan's read tokens, so
// in-flight reads end at once, wakes the threads waiting for queue room, and joins them.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "rap/read/scanner.h"
#include "read/scanner_impl.h"

namespace rap::read {

namespace {

// Adds a file scan's counters into a table scan's (rows_output excepted: the fan-out counts what it
// hands out, after the limit).
void AddFileStats(ScanStats& to, const ScanStats& s) {
  to.files += s.files;
  to.files_pruned += s.files_pruned;
  to.files_pruned_by_stats += s.files_pruned_by_stats;
  to.files_pruned_by_index += s.files_pruned_by_index;
  to.rows_pruned_by_index += s.rows_pruned_by_index;
  to.row_groups += s.row_groups;
  to.row_groups_pruned += s.row_groups_pruned;
  to.rows_in_row_groups += s.rows_in_row_groups;
  to.row_index_groups += s.row_index_groups;
  to.row_index_groups_pruned += s.row_index_groups_pruned;
  to.bloom_filter_groups_pruned += s.bloom_filter_groups_pruned;
  to.rows_deleted += s.rows_deleted;
  to.rows_candidate += s.rows_candidate;
  to.rows_selected += s.rows_selected;
  to.pages_read += s.pages_read;
  to.pages_skipped += s.pages_skipped;
  to.pages_shared += s.pages_shared;
  to.dictionary_pages_shared += s.dictionary_pages_shared;
  to.dictionary_pages_read += s.dictionary_pages_read;
  to.filter_dictionary_chunks += s.filter_dictionary_chunks;
  to.requests += s.requests;
  to.read_calls += s.read_calls;
  to.bytes += s.bytes;
  to.footer_requests += s.footer_requests;
  to.footer_bytes += s.footer_bytes;
  to.page_index_from_tail += s.page_index_from_tail;
  to.prefetch.Add(s.prefetch);
  to.prefetch_fetch_ahead_bytes += s.prefetch_fetch_ahead_bytes;
  to.file_boundary_wait_s.insert(to.file_boundary_wait_s.end(), s.file_boundary_wait_s.begin(),
                                 s.file_boundary_wait_s.end());
  to.warmup_files += s.warmup_files;
  to.warmup_bytes += s.warmup_bytes;
  to.warmup_bytes_unused += s.warmup_bytes_unused;
  to.warmup_partial += s.warmup_partial;
  to.warmup_ahead += s.warmup_ahead;
  to.warmup_waited += s.warmup_waited;
  to.memory_peak += s.memory_peak;  // the files' peaks summed: a bound of the scan's
  to.memory_waits += s.memory_waits;
}

// One file of the fan-out: its scan runs on `thread` and queues batches for the consumer.
struct FileSlot {
  size_t index = 0;
  std::mutex mu;
  std::condition_variable cv;  // a batch queued or the scan ended (consumer); room or stop (thread)
  std::deque<ScanBatch> queue;
  uint64_t queue_bytes = 0;
  bool done = false;  // the file's scan ended (its scanner destroyed, its threads joined)
  bool stop = false;  // the consumer asks the thread to end
  Status status;      // the file's scan's error
  ScanStats stats;    // the file's counters, set with `done`
  std::thread thread;
};

}  // namespace

struct Scanner::FanOut {
  ScanSource source;        // schema resolved
  ScanOptions file_options;  // a one-file scan's options
  SchemaPtr out_schema;
  ScanStats stats;
  int64_t limit = -1;
  int64_t emitted = 0;
  size_t parallel = 1;
  int64_t cap_batches = 1;  // per file queue
  uint64_t cap_bytes = 1;
  std::shared_ptr<io::CancellationToken> cancel;  // parent of every file scan's reads
  std::unique_ptr<Scanner> first;                 // file 0's scan, made by MakeFanOut
  std::deque<std::unique_ptr<FileSlot>> slots;    // files being read, in file order
  size_t next_start = 0;                          // next file to start
  bool done = false;
  Status failure;

  ~FanOut() { Stop(); }

  void Run(FileSlot* slot, std::unique_ptr<Scanner> scanner) const;
  void Fill();
  void Join(FileSlot& slot);
  void Stop();
};

void Scanner::FanOut::Run(FileSlot* slot, std::unique_ptr<Scanner> scanner) const {
  Status st;
  if (!scanner) {
    ScanSource one = source;
    one.files = {source.files[slot->index]};
    auto made = Scanner::Make(std::move(one), file_options);
    if (made.ok()) {
      scanner = std::move(*made);
    } else {
      st = made.status();
    }
  }
  const uint64_t base = static_cast<uint64_t>(slot->index) << kRowIdFileShift;
  while (scanner) {
    {
      std::unique_lock<std::mutex> lock(slot->mu);
      slot->cv.wait(lock, [&] {
        return slot->stop || slot->queue.empty() ||
               (static_cast<int64_t>(slot->queue.size()) < cap_batches && slot->queue_bytes < cap_bytes);
      });
      if (slot->stop) break;
    }
    auto next = scanner->Next();
    if (!next.ok()) {
      st = next.status();
      break;
    }
    if (!*next) break;
    ScanBatch b = std::move(**next);
    for (uint64_t& id : b.row_ids) id += base;  // the one-file scan's ordinal is 0
    const uint64_t bytes = EstimateBatchBytes(b.batch);
    std::lock_guard<std::mutex> lock(slot->mu);
    slot->queue_bytes += bytes;
    slot->queue.push_back(std::move(b));
    slot->cv.notify_all();
  }
  ScanStats stats;
  if (scanner) stats = scanner->stats();
  scanner.reset();  // cancels and joins the file scan's producers
  std::lock_guard<std::mutex> lock(slot->mu);
  slot->status = st;
  slot->stats = std::move(stats);
  slot->done = true;
  slot->cv.notify_all();
}

void Scanner::FanOut::Fill() {
  while (!done && slots.size() < parallel && next_start < source.files.size()) {
    auto slot = std::make_unique<FileSlot>();
    slot->index = next_start++;
    std::unique_ptr<Scanner> scanner = slot->index == 0 ? std::move(first) : nullptr;
    FileSlot* s = slot.get();
    s->thread = std::thread([this, s, sc = std::move(scanner)]() mutable { Run(s, std::move(sc)); });
    slots.push_back(std::move(slot));
  }
}

void Scanner::FanOut::Join(FileSlot& slot) {
  {
    std::lock_guard<std::mutex> lock(slot.mu);
    slot.stop = true;
    slot.cv.notify_all();
  }
  if (slot.thread.joinable()) slot.thread.join();
  AddFileStats(stats, slot.stats);
}

void Scanner::FanOut::Stop() {
  done = true;
  if (cancel) cancel->Cancel();
  for (auto& s : slots) Join(*s);
  slots.clear();
  first.reset();
}

Scanner::Scanner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scanner::Scanner(std::unique_ptr<FanOut> fanout) : fanout_(std::move(fanout)) {}
Scanner::~Scanner() = default;

Result<std::unique_ptr<Scanner>> Scanner::MakeFanOut(ScanSource source, ScanOptions options) {
  auto f = std::make_unique<FanOut>();
  f->parallel = static_cast<size_t>(options.file_parallelism);
  f->limit = options.limit;
  if (options.prefetch.queue_batches < 1) return Status::InvalidArgument("scan: the prefetch queue must hold a batch");
  const auto n = static_cast<int64_t>(f->parallel);
  f->cap_batches = std::max<int64_t>(1, options.prefetch.queue_batches / n);
  f->cap_bytes = std::max<uint64_t>(1, options.prefetch.queue_bytes / static_cast<uint64_t>(n));
  f->cancel = std::make_shared<io::CancellationToken>(options.cancel.get());
  ScanOptions fo = options;
  fo.file_parallelism = 1;
  fo.cancel = f->cancel;
  fo.warmup.level = WarmupLevel::kNone;  // (one file per scan: there is no next file to warm)
  fo.prefetch.queue_batches = f->cap_batches;
  fo.prefetch.queue_bytes = f->cap_bytes;
  if (options.memory_limit > 0) fo.memory_limit = std::max<uint64_t>(1, options.memory_limit / static_cast<uint64_t>(n));
  // File 0's scan is made here: it checks the columns and the filter before any thread starts and,
  // for a table without a schema, reads the first file's (which every file's scan then shares).
  ScanSource one = source;
  one.files = {source.files[0]};
  RAP_ASSIGN_OR_RETURN(f->first, Scanner::Make(std::move(one), fo));
  if (!source.schema) source.schema = f->first->impl_->table_schema;
  f->out_schema = f->first->schema();
  f->source = std::move(source);
  f->file_options = std::move(fo);
  return std::unique_ptr<Scanner>(new Scanner(std::move(f)));
}

const SchemaPtr& Scanner::FanOutSchema() const { return fanout_->out_schema; }
const ScanStats& Scanner::FanOutStats() const { return fanout_->stats; }

Result<std::optional<ScanBatch>> Scanner::FanOutNext() {
  FanOut& f = *fanout_;
  if (!f.failure.ok()) return f.failure;
  while (!f.done) {
    f.Fill();
    if (f.slots.empty()) {
      f.done = true;  // every file scanned
      break;
    }
    FileSlot& s = *f.slots.front();
    std::optional<ScanBatch> b;
    {
      std::unique_lock<std::mutex> lock(s.mu);
      s.cv.wait(lock, [&] { return !s.queue.empty() || s.done; });
      if (!s.queue.empty()) {
        b = std::move(s.queue.front());
        s.queue.pop_front();
        s.queue_bytes -= std::min(s.queue_bytes, EstimateBatchBytes(b->batch));
        s.cv.notify_all();
      }
    }
    if (!b) {  // the file is done: its thread ended
      Status st = s.status;
      f.Join(s);
      f.slots.pop_front();
      if (!st.ok()) {
        f.failure = st;
        f.Stop();
        return st;
      }
      continue;
    }
    if (f.limit >= 0 && f.emitted + b->batch.num_rows > f.limit) {  // (each file's scan has the limit too)
      const int64_t room = f.limit - f.emitted;
      for (ArrayPtr& c : b->batch.columns) c = SliceArray(c, 0, room);
      b->batch.num_rows = room;
      b->row_ids.resize(static_cast<size_t>(room));
    }
    f.emitted += b->batch.num_rows;
    f.stats.rows_output += b->batch.num_rows;
    if (f.limit >= 0 && f.emitted >= f.limit) f.Stop();  // the other files' reads are cancelled
    return b;
  }
  return std::optional<ScanBatch>();
}

}  // namespace rap::read
