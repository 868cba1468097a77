// rap._rap.Reader and rap._rap.Batch: the Arrow PyCapsule interface (__arrow_c_stream__,
// __arrow_c_schema__, __arrow_c_array__) over rap's zero-copy C Data Interface export.
#include <cstdlib>
#include <utility>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "binding.h"
#include "rap/columnar/arrow_c.h"

namespace rap::py {
namespace {

void DeleteSchemaCapsule(PyObject* capsule) {
  auto* s = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, "arrow_schema"));
  if (s == nullptr) return;
  if (s->release) s->release(s);
  std::free(s);
}
void DeleteArrayCapsule(PyObject* capsule) {
  auto* a = static_cast<ArrowArray*>(PyCapsule_GetPointer(capsule, "arrow_array"));
  if (a == nullptr) return;
  if (a->release) a->release(a);
  std::free(a);
}
void DeleteStreamCapsule(PyObject* capsule) {
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (s == nullptr) return;
  if (s->release) {
    // Releasing a scan's stream joins its threads: not while holding the GIL.
    PyThreadState* ts = PyEval_SaveThread();
    s->release(s);
    PyEval_RestoreThread(ts);
  }
  std::free(s);
}

template <typename T>
T* AllocReleased() {
  auto* p = static_cast<T*>(std::calloc(1, sizeof(T)));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

nb::object Capsule(void* p, const char* name, PyCapsule_Destructor d) {
  PyObject* c = PyCapsule_New(p, name, d);
  if (c == nullptr) throw nb::python_error();
  return nb::steal(c);
}

class VectorReader : public columnar::RecordBatchReader {
 public:
  VectorReader(SchemaPtr schema, std::vector<RecordBatch> batches) : schema_(std::move(schema)), batches_(std::move(batches)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ >= batches_.size()) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(std::move(batches_[next_++]));
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatch> batches_;
  size_t next_ = 0;
};

// The requested_schema argument of the PyCapsule protocol: rap casts nothing, so it is accepted only
// when absent (None), as the protocol allows a producer to ignore it.
void IgnoreRequestedSchema(const nb::handle&) {}

}  // namespace

std::unique_ptr<columnar::RecordBatchReader> MakeVectorReader(SchemaPtr schema, std::vector<RecordBatch> batches) {
  return std::make_unique<VectorReader>(std::move(schema), std::move(batches));
}

nb::object SchemaCapsule(const Schema& schema) {
  auto* s = AllocReleased<ArrowSchema>();
  Status st = columnar::ExportSchema(schema, s);
  if (!st.ok()) {
    std::free(s);
    Raise(st);
  }
  return Capsule(s, "arrow_schema", DeleteSchemaCapsule);
}

nb::object BatchCapsules(const RecordBatch& batch) {
  auto* s = AllocReleased<ArrowSchema>();
  auto* a = AllocReleased<ArrowArray>();
  Status st = columnar::ExportRecordBatch(batch, a, s);
  if (!st.ok()) {
    std::free(s);
    std::free(a);
    Raise(st);
  }
  nb::object sc = Capsule(s, "arrow_schema", DeleteSchemaCapsule);
  nb::object ac = Capsule(a, "arrow_array", DeleteArrayCapsule);
  return nb::make_tuple(sc, ac);
}

Reader::Reader(std::unique_ptr<columnar::RecordBatchReader> source, SchemaPtr schema, std::shared_ptr<StatsHolder> stats,
               std::shared_ptr<io::CancellationToken> cancel)
    : source_(std::move(source)), schema_(std::move(schema)), stats_(std::move(stats)), cancel_(std::move(cancel)) {}

Reader::~Reader() {
  // A reader dropped without close(): its source's threads are joined here. The GIL is held when
  // Python frees the object; release it while joining (a producer never takes it, but other Python
  // threads should go on).
  if (source_) {
    if (PyGILState_Check()) {
      PyThreadState* ts = PyEval_SaveThread();
      source_.reset();
      PyEval_RestoreThread(ts);
    } else {
      source_.reset();
    }
  }
}

std::optional<RecordBatch> Reader::Next() {
  using R = Result<std::optional<RecordBatch>>;
  R r = std::optional<RecordBatch>();
  {
    nb::gil_scoped_release release;
    std::unique_lock<std::mutex> lock(mu_);
    if (closed_) return std::nullopt;
    if (consumed_ || !source_) {
      r = Status::InvalidArgument("the reader was handed to an Arrow consumer (__arrow_c_stream__); it yields no more batches");
    } else if (!cancel_) {
      r = source_->Next();
    } else {
      // A scan: Ctrl-C while it waits for the batch cancels its reads (RunInterruptible).
      columnar::RecordBatchReader* source = source_.get();
      nb::gil_scoped_acquire gil;
      try {
        r = RunInterruptible<R>([source] { return source->Next(); }, cancel_.get());
      } catch (nb::python_error& err) {
        lock.unlock();
        Close();
        throw;
      }
    }
  }
  // Ctrl-C: a pending signal (the handler ran while Next was busy) stops the scan here.
  if (PyErr_CheckSignals() != 0) {
    nb::python_error err;
    Close();
    throw err;
  }
  if (!r.ok()) {
    Close();
    Raise(r.status());
  }
  if (!*r) Close();
  return std::move(*r);
}

nb::object Reader::ExportStream() {
  std::unique_ptr<columnar::RecordBatchReader> source;
  bool was_closed = false;
  {
    nb::gil_scoped_release release;  // (Next may hold mu_ while it takes the GIL)
    std::lock_guard<std::mutex> lock(mu_);
    was_closed = closed_;
    if (!closed_ && !consumed_ && source_) {
      consumed_ = true;
      source = std::move(source_);
    }
  }
  if (was_closed) Raise(Status::InvalidArgument("the reader is closed"));
  if (!source) Raise(Status::InvalidArgument("the reader was already handed to an Arrow consumer"));
  auto* s = AllocReleased<ArrowArrayStream>();
  Status st = columnar::ExportRecordBatchReader(std::move(source), s);
  if (!st.ok()) {
    std::free(s);
    Raise(st);
  }
  return Capsule(s, "arrow_array_stream", DeleteStreamCapsule);
}

nb::object Reader::ExportSchema() const { return SchemaCapsule(*schema_); }

nb::dict Reader::Stats() const {
  nb::dict d;
  if (!stats_) return d;
  for (const StatsValue& v : stats_->Get()) {
    if (v.text) {
      d[v.name.c_str()] = *v.text;
    } else if (v.is_list) {
      nb::list l;
      for (double x : v.list) l.append(x);
      d[v.name.c_str()] = l;
    } else if (v.is_int) {
      d[v.name.c_str()] = static_cast<long long>(v.number);
    } else {
      d[v.name.c_str()] = v.number;
    }
  }
  return d;
}

void Reader::Close() {
  std::unique_ptr<columnar::RecordBatchReader> source;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    source = std::move(source_);
    source.reset();  // cancels and joins the scan's threads
  }
}

void BindReader(nb::module_& m) {
  nb::class_<RecordBatch>(m, "Batch")
      .def_prop_ro("num_rows", [](const RecordBatch& b) { return b.num_rows; })
      .def_prop_ro("num_columns", [](const RecordBatch& b) { return b.columns.size(); })
      .def_prop_ro("column_names",
                   [](const RecordBatch& b) {
                     std::vector<std::string> names;
                     for (const Field& f : b.schema->fields) names.push_back(f.name);
                     return names;
                   })
      .def("__arrow_c_schema__", [](const RecordBatch& b) { return SchemaCapsule(*b.schema); })
      .def(
          "__arrow_c_array__",
          [](const RecordBatch& b, nb::handle requested_schema) {
            IgnoreRequestedSchema(requested_schema);
            return BatchCapsules(b);
          },
          nb::arg("requested_schema") = nb::none());

  nb::class_<Reader>(m, "Reader")
      .def("next", &Reader::Next)
      .def("close", &Reader::Close)
      .def_prop_ro("closed", &Reader::closed)
      .def_prop_ro("column_names",
                   [](const Reader& r) {
                     std::vector<std::string> names;
                     for (const Field& f : r.schema()->fields) names.push_back(f.name);
                     return names;
                   })
      .def("stats", &Reader::Stats)
      .def("__arrow_c_schema__", &Reader::ExportSchema)
      .def(
          "__arrow_c_stream__",
          [](Reader& r, nb::handle requested_schema) {
            IgnoreRequestedSchema(requested_schema);
            return r.ExportStream();
          },
          nb::arg("requested_schema") = nb::none());
}

}  // namespace rap::py
