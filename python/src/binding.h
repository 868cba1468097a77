// Shared pieces of the Python binding rap._rap (python/, docs/python.md): Status -> Python exception,
// storage options, and the reader object every scan and lookup returns.
#pragma once

#include <nanobind/nanobind.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/io/object_store.h"
#include "rap/io/store_options.h"
#include "rap/columnar/record_batch_reader.h"
#include "rap/index/build.h"
#include "rap/util/result.h"

namespace rap::py {

namespace nb = nanobind;

// Raises the rap.Error subclass of the status code (rap/errors.py) with the status message: the
// message the CLI prints after "rap: <Code>: ".
[[noreturn]] void Raise(const Status& status);
inline void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}
template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}

// storage_options (a dict of str -> str/bool/number) as the environment variables the stores read
// (rap/io/s3_config.h, http_options.h). Unknown keys are InvalidArgument (raised before any I/O).
using EnvOverlay = std::vector<std::pair<std::string, std::optional<std::string>>>;
EnvOverlay ParseStorageOptions(const nb::handle& options);
// A byte count argument: an int (bytes, not negative) or a size such as "512MiB" (util ParseByteSize);
// anything else is InvalidArgument naming the argument `what`.
uint64_t ByteSizeArg(const char* what, nb::handle v);
// snapshot_id / as_of (epoch milliseconds or a timestamp text, table::iceberg::ParseAsOf) /
// location_map ({OLD prefix: NEW prefix}) of rap.scan, build_index and update_index, checked.
index::IndexTableOptions SnapshotArgs(std::optional<int64_t> snapshot_id, std::optional<std::string> as_of,
                                      const std::optional<std::map<std::string, std::string>>& location_map);
// The same dict as the per-call io::StoreOptions that io::OpenUrl takes (rap.scan passes it down;
// None: the environment's). Unknown keys and bad values are InvalidArgument, raised before any I/O.
std::shared_ptr<const io::StoreOptions> ParseStoreOptions(const nb::handle& options);

// Runs `fn` (with the GIL released) while the overlay is the process environment: every open of a
// store by the binding runs under one lock, so that concurrent opens never see each other's
// settings; stores are shared per endpoint and configuration (io::OpenUrl), so the settings stay
// with the store once it is made.
template <typename Fn>
auto WithStorageOptions(const EnvOverlay& overlay, Fn&& fn) -> decltype(fn());
std::mutex& EnvMutex();
void ApplyOverlay(const EnvOverlay& overlay, EnvOverlay* saved);
void RestoreOverlay(const EnvOverlay& saved);

template <typename Fn>
auto WithStorageOptions(const EnvOverlay& overlay, Fn&& fn) -> decltype(fn()) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(EnvMutex());
  EnvOverlay saved;
  ApplyOverlay(overlay, &saved);
  struct Restore {
    EnvOverlay* s;
    ~Restore() { RestoreOverlay(*s); }
  } restore{&saved};
  return fn();
}

// Ctrl-C during long calls: runs `fn` on a thread of its own while the calling thread (GIL
// released) waits for it, taking the GIL every 20 ms to run pending signal handlers
// (PyErr_CheckSignals; signals are handled on the main thread only). When a handler raises
// (KeyboardInterrupt), `cancel` — the work's cancellation hook, which its reads and loops poll — is
// cancelled, the thread is joined (the work stops at its next check) and the exception is raised.
// The thread never outlives the call.
template <typename R>
R RunInterruptible(const std::function<R()>& fn, io::CancellationToken* cancel) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::optional<R> out;
  std::thread worker([&] {
    R r = fn();
    std::lock_guard<std::mutex> lock(mu);
    out.emplace(std::move(r));
    finished = true;
    cv.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      nb::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mu);
      if (cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return finished; })) break;
    }
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      if (cancel) cancel->Cancel();
      break;
    }
  }
  {
    nb::gil_scoped_release release;  // (the work may take the GIL for a progress callback)
    worker.join();
  }
  if (interrupted) throw nb::python_error();
  return std::move(*out);
}

// Counters of a reader's source as (name, value) pairs: integers, floats, or lists of floats.
struct StatsValue {
  std::string name;
  double number = 0;
  bool is_int = true;
  std::vector<double> list;
  bool is_list = false;
  std::optional<std::string> text;  // a text value (e.g. which index a scan used)
};
using StatsList = std::vector<StatsValue>;

// A shared holder of the latest stats of a reader (updated by the source after every batch, so the
// stats stay readable after the stream was handed to a consumer).
struct StatsHolder {
  std::mutex mu;
  StatsList stats;
  void Set(StatsList s) {
    std::lock_guard<std::mutex> lock(mu);
    stats = std::move(s);
  }
  StatsList Get() {
    std::lock_guard<std::mutex> lock(mu);
    return stats;
  }
};

// The reader behind rap.RecordBatchReader: the batches of a scan or a lookup. Thread-safe: calls on
// one object are serialised; Next runs with the GIL released.
class Reader {
 public:
  // `cancel` (optional): the source's cancellation hook (a scan's ScanOptions::cancel), cancelled
  // when a signal handler raises during Next.
  Reader(std::unique_ptr<columnar::RecordBatchReader> source, SchemaPtr schema, std::shared_ptr<StatsHolder> stats,
         std::shared_ptr<io::CancellationToken> cancel = nullptr);
  ~Reader();

  const SchemaPtr& schema() const { return schema_; }
  // The next batch (nullopt at the end). KeyboardInterrupt (a pending signal) closes the reader and
  // raises.
  std::optional<RecordBatch> Next();
  // Hands the source to an ArrowArrayStream (the object is consumed).
  nb::object ExportStream();
  nb::object ExportSchema() const;
  nb::dict Stats() const;
  // Cancels and joins the source's threads (GIL released).
  void Close();
  bool closed() const { return closed_; }

 private:
  std::mutex mu_;
  std::unique_ptr<columnar::RecordBatchReader> source_;
  SchemaPtr schema_;
  std::shared_ptr<StatsHolder> stats_;
  std::shared_ptr<io::CancellationToken> cancel_;
  bool closed_ = false;
  bool consumed_ = false;
};

// Capsules of the Arrow PyCapsule interface.
nb::object SchemaCapsule(const Schema& schema);
nb::object BatchCapsules(const RecordBatch& batch);  // (schema capsule, array capsule)

// The stream of an object with __arrow_c_stream__ (a pyarrow Table or RecordBatchReader, ...),
// taken over (the PyCapsule protocol).
std::unique_ptr<columnar::RecordBatchReader> ImportStream(nb::handle data);

// A reader over batches already in memory (lookup results).
std::unique_ptr<columnar::RecordBatchReader> MakeVectorReader(SchemaPtr schema, std::vector<RecordBatch> batches);

void BindReader(nb::module_& m);
void BindScan(nb::module_& m);
void BindIndex(nb::module_& m);
void BindMaintenance(nb::module_& m);
void BindInspect(nb::module_& m);
void BindWrite(nb::module_& m);

}  // namespace rap::py
