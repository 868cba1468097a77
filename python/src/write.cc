// rap._rap.write_parquet: anything with __arrow_c_stream__ (a pyarrow Table, a polars DataFrame, a
// rap reader) -> one Parquet file at a path or URL, with the layout controls of `rap convert`. The
// stream is imported through the Arrow C Data Interface (rap/columnar/arrow_c_import.h, zero-copy)
// and written by the ParquetWriter; the GIL is released while batches are pulled and written.
#include <cstring>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "binding.h"
#include "rap/columnar/arrow_c.h"
#include "rap/columnar/arrow_c_import.h"
#include "rap/format/writer.h"
#include "rap/format/writer_options.h"
#include "rap/read/object_store_sink.h"
#include "rap/io/object_store.h"
#include "rap/util/units.h"

namespace rap::py {
namespace {

int64_t SizeArg(const char* what, nb::handle v) { return static_cast<int64_t>(ByteSizeArg(what, v)); }

// A str applies to every column; a dict {column: value} per column ("" = the default).
std::map<std::string, std::string> PerColumn(const char* what, nb::handle v) {
  std::map<std::string, std::string> out;
  if (v.is_none()) return out;
  if (nb::isinstance<nb::str>(v)) {
    out[""] = nb::cast<std::string>(v);
    return out;
  }
  if (!nb::isinstance<nb::dict>(v)) Raise(Status::InvalidArgument(std::string(what) + ": expected a str or a dict {column: str}"));
  for (auto [k, x] : nb::borrow<nb::dict>(v)) {
    if (!nb::isinstance<nb::str>(k) || !nb::isinstance<nb::str>(x)) {
      Raise(Status::InvalidArgument(std::string(what) + ": expected a dict of str to str"));
    }
    out[nb::cast<std::string>(k)] = nb::cast<std::string>(x);
  }
  return out;
}

parquet::WriterOptions Options(std::optional<int64_t> row_group_rows, nb::handle row_group_bytes,
                               std::optional<int64_t> page_rows, nb::handle page_bytes, nb::handle compression,
                               nb::handle encoding, bool dictionary, bool statistics,
                               const std::vector<std::string>& page_break_on,
                               const std::vector<std::string>& frame_per_key, nb::handle align, bool interleave,
                               int data_page_version, bool page_index, bool crc,
                               const std::map<std::string, std::string>& kv) {
  parquet::WriterOptions o;
  if (row_group_rows) o.row_group_max_rows = *row_group_rows;
  if (!row_group_bytes.is_none()) {
    o.row_group_max_bytes = SizeArg("row_group_bytes", row_group_bytes);
    if (!row_group_rows) o.row_group_max_rows = 0;  // bytes alone decide (as rap convert)
  }
  if (page_rows) o.defaults.page_max_rows = *page_rows;
  if (!page_bytes.is_none()) {
    o.defaults.page_max_bytes = SizeArg("page_bytes", page_bytes);
    if (!page_rows) o.defaults.page_max_rows = 0;
  }
  o.defaults.dictionary = dictionary;
  if (!statistics) o.defaults.statistics = o.defaults.page_statistics = false;
  for (const auto& [col, text] : PerColumn("compression", compression)) {
    auto codec = parquet::ParseCodec(text);
    if (!codec.ok()) Raise(Status::InvalidArgument("compression: " + codec.status().message()));
    if (col.empty()) {
      o.defaults.codec = codec->first;
      o.defaults.codec_level = codec->second;
    } else {
      o.columns[col].codec = codec->first;
      o.columns[col].codec_level = codec->second;
    }
  }
  for (const auto& [col, text] : PerColumn("encoding", encoding)) {
    auto ov = parquet::ParseEncodingOverride(text);
    if (!ov.ok()) Raise(Status::InvalidArgument("encoding: " + ov.status().message()));
    if (col.empty()) {
      ov->ApplyTo(&o.defaults);
    } else {
      auto& dst = o.columns[col];
      if (ov->dictionary) dst.dictionary = ov->dictionary;
      if (ov->encoding) dst.encoding = ov->encoding;
    }
  }
  o.page_break_on = page_break_on;
  o.frame_break_on = frame_per_key;
  if (!align.is_none()) o.frame_align = SizeArg("align", align);
  o.interleave = interleave;
  o.data_page_version = data_page_version;
  o.write_page_index = page_index;
  o.page_crc = crc;
  for (const auto& [k, v] : kv) o.key_value_metadata.push_back({k, v});
  Status st = o.Validate();
  if (!st.ok()) Raise(Status::InvalidArgument(st.message()));
  return o;
}

nb::dict WriteParquet(nb::handle data, const std::string& url, std::optional<int64_t> row_group_rows,
                      nb::handle row_group_bytes, std::optional<int64_t> page_rows, nb::handle page_bytes,
                      nb::handle compression, nb::handle encoding, bool dictionary, bool statistics,
                      const std::vector<std::string>& page_break_on, const std::vector<std::string>& frame_per_key,
                      nb::handle align, bool interleave, int data_page_version, bool page_index, bool crc,
                      const std::map<std::string, std::string>& kv, nb::handle storage_options) {
  parquet::WriterOptions o = Options(row_group_rows, row_group_bytes, page_rows, page_bytes, compression, encoding,
                                     dictionary, statistics, page_break_on, frame_per_key, align, interleave,
                                     data_page_version, page_index, crc, kv);
  const std::shared_ptr<const io::StoreOptions> store = ParseStoreOptions(storage_options);  // per call
  std::unique_ptr<columnar::RecordBatchReader> reader = ImportStream(data);
  io::ResolvedUrl resolved = Unwrap([&] {
    nb::gil_scoped_release release;
    return store ? io::OpenUrl(url, *store) : io::OpenUrl(url);
  }());
  parquet::WriteSummary summary;
  Status st;
  {
    nb::gil_scoped_release release;
    st = [&]() -> Status {
      auto sink = read::MakeObjectStoreSink(resolved.store, resolved.path);
      RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(reader->schema(), sink.get(), o));
      while (true) {
        auto batch = reader->Next();
        if (!batch.ok()) {
          writer->Abort();
          return batch.status();
        }
        if (!*batch) break;
        Status w = writer->Write(**batch);
        if (!w.ok()) {
          writer->Abort();
          return w;
        }
      }
      RAP_RETURN_NOT_OK(writer->Close());
      summary = writer->summary();
      return Status::OK();
    }();
    reader.reset();
  }
  if (!st.ok()) Raise(st.WithContext(url));
  nb::dict d;
  d["rows"] = summary.num_rows;
  d["row_groups"] = summary.num_row_groups;
  d["data_pages"] = summary.num_data_pages;
  d["dictionary_pages"] = summary.num_dictionary_pages;
  d["frames"] = summary.num_frames;
  d["bytes"] = summary.file_bytes;
  return d;
}

}  // namespace

// Moves the producer's stream out of its capsule (the PyCapsule protocol: the consumer takes it and
// marks the capsule's copy released).
std::unique_ptr<columnar::RecordBatchReader> ImportStream(nb::handle data) {
  if (!nb::hasattr(data, "__arrow_c_stream__")) {
    Raise(Status::InvalidArgument("data: expected an object with __arrow_c_stream__ (a pyarrow Table, a polars "
                                  "DataFrame, a rap reader), got " +
                                  nb::cast<std::string>(nb::str(data.type().attr("__name__")))));
  }
  nb::object capsule = data.attr("__arrow_c_stream__")();
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (s == nullptr) throw nb::python_error();
  ArrowArrayStream stream;
  std::memcpy(&stream, s, sizeof(stream));
  s->release = nullptr;
  return Unwrap(columnar::ImportRecordBatchReader(&stream));
}


void BindWrite(nb::module_& m) {
  m.def("write_parquet", &WriteParquet, nb::arg("data"), nb::arg("url"), nb::arg("row_group_rows") = nb::none(),
        nb::arg("row_group_bytes") = nb::none(), nb::arg("page_rows") = nb::none(), nb::arg("page_bytes") = nb::none(),
        nb::arg("compression") = nb::none(), nb::arg("encoding") = nb::none(), nb::arg("dictionary") = true,
        nb::arg("statistics") = true, nb::arg("page_break_on") = std::vector<std::string>(),
        nb::arg("frame_per_key") = std::vector<std::string>(), nb::arg("align") = nb::none(),
        nb::arg("interleave") = false, nb::arg("data_page_version") = 1, nb::arg("page_index") = true,
        nb::arg("crc") = false, nb::arg("kv") = std::map<std::string, std::string>(),
        nb::arg("storage_options") = nb::none());
}

}  // namespace rap::py
