// `rap convert INPUT OUTPUT`: CSV, JSON lines or Parquet in, Parquet out, with every layout control
// of the writer as a flag. OUTPUT appears atomically (temporary name + rename, or one object Put):
// on any error nothing is left at OUTPUT.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rap/format/blob_column.h"
#include "rap/format/writer.h"
#include "rap/read/object_store_sink.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/util/clock.h"
#include "rap/util/units.h"

#include "command.h"
#include "convert_input.h"

namespace rap::cli {
namespace {

struct ConvertArgs {
  std::string input, output, format, schema, delimiter = ",", null_text;
  int64_t infer_rows = 10'000, batch_rows = 65'536;
  bool no_header = false;
  std::optional<int64_t> row_group_rows, page_rows;
  std::string row_group_bytes, page_bytes, dictionary_limit;
  std::vector<std::string> compression, encoding, page_break_on, frame_per_key, sort_by, blob, kv;
  std::string align;
  bool interleave = false;
  int data_page_version = 1;
  bool no_page_index = false, crc = false, no_dictionary = false, no_statistics = false, quiet = false;
};

class ParquetSource : public BatchSource {
 public:
  static Result<std::unique_ptr<BatchSource>> Open(const std::string& url, int64_t batch_rows) {
    RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(url));
    read::FileReaderOptions o;
    o.batch_size = batch_rows;
    RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(r.store, r.path, o));
    RAP_ASSIGN_OR_RETURN(read::Projection projection, reader->Project());
    RAP_ASSIGN_OR_RETURN(auto batches, reader->NewBatchReader(std::nullopt, projection));
    auto s = std::make_unique<ParquetSource>();
    s->total_ = reader->info().size;
    s->rows_ = reader->num_rows();
    s->reader_ = std::move(reader);
    s->batches_ = std::move(batches);
    return std::unique_ptr<BatchSource>(std::move(s));
  }
  SchemaPtr schema() const override { return batches_->schema(); }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(auto b, batches_->Next());
    if (b) read_rows_ += b->num_rows;
    return b;
  }
  // Progress in proportion to rows (the reader fetches by row group).
  uint64_t bytes_read() const override {
    return rows_ > 0 ? static_cast<uint64_t>(static_cast<double>(total_) * read_rows_ / rows_) : 0;
  }
  uint64_t total_bytes() const override { return total_; }

 private:
  std::shared_ptr<read::FileReader> reader_;
  std::unique_ptr<columnar::RecordBatchReader> batches_;
  uint64_t total_ = 0;
  int64_t rows_ = 0, read_rows_ = 0;
};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::string> DetectFormat(const ConvertArgs& a) {
  if (!a.format.empty()) {
    const std::string f = Lower(a.format);
    if (f == "csv" || f == "json" || f == "parquet" || f == "orc") return f;
    return Status::InvalidArgument("--format '" + a.format + "': expected csv, json, parquet or orc");
  }
  const std::string in = Lower(a.input);
  if (EndsWith(in, ".csv") || EndsWith(in, ".tsv") || EndsWith(in, ".txt")) return std::string("csv");
  if (EndsWith(in, ".json") || EndsWith(in, ".jsonl") || EndsWith(in, ".ndjson")) return std::string("json");
  if (EndsWith(in, ".orc")) return std::string("orc");
  if (EndsWith(in, ".parquet") || EndsWith(in, ".pq") || in.find("://") != std::string::npos)
    return std::string("parquet");
  // Sniff the magic of local files.
  if (std::FILE* f = std::fopen(a.input.c_str(), "rb")) {
    char magic[4] = {0, 0, 0, 0};
    const size_t n = std::fread(magic, 1, 4, f);
    std::fclose(f);
    if (n == 4 && std::string_view(magic, 4) == "PAR1") return std::string("parquet");
    if (n >= 1 && magic[0] == '{') return std::string("json");
    if (n >= 3 && std::string_view(magic, 3) == "ORC") return std::string("orc");
  }
  return std::string("csv");
}

// "col=value" -> (col, value); "value" -> ("", value).
std::pair<std::string, std::string> SplitAssignment(const std::string& s) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos) return {"", s};
  return {s.substr(0, eq), s.substr(eq + 1)};
}

Result<parquet::WriterOptions> BuildOptions(const ConvertArgs& a) {
  parquet::WriterOptions o;
  if (a.row_group_rows) o.row_group_max_rows = *a.row_group_rows;
  if (!a.row_group_bytes.empty()) {
    RAP_ASSIGN_OR_RETURN(uint64_t b, ParseByteSize(a.row_group_bytes));
    o.row_group_max_bytes = static_cast<int64_t>(b);
    if (!a.row_group_rows) o.row_group_max_rows = 0;  // bytes alone decide
  }
  if (a.page_rows) o.defaults.page_max_rows = *a.page_rows;
  if (!a.page_bytes.empty()) {
    RAP_ASSIGN_OR_RETURN(uint64_t b, ParseByteSize(a.page_bytes));
    o.defaults.page_max_bytes = static_cast<int64_t>(b);
    if (!a.page_rows) o.defaults.page_max_rows = 0;
  }
  if (!a.dictionary_limit.empty()) {
    RAP_ASSIGN_OR_RETURN(uint64_t b, ParseByteSize(a.dictionary_limit));
    o.defaults.dictionary_max_bytes = static_cast<int64_t>(b);
  }
  if (a.no_dictionary) o.defaults.dictionary = false;
  if (a.no_statistics) o.defaults.statistics = o.defaults.page_statistics = false;
  for (const auto& c : a.compression) {
    auto [col, text] = SplitAssignment(c);
    RAP_ASSIGN_OR_RETURN(auto codec, parquet::ParseCodec(text));
    if (col.empty()) {
      o.defaults.codec = codec.first;
      o.defaults.codec_level = codec.second;
    } else {
      o.columns[col].codec = codec.first;
      o.columns[col].codec_level = codec.second;
    }
  }
  for (const auto& e : a.encoding) {
    auto [col, text] = SplitAssignment(e);
    RAP_ASSIGN_OR_RETURN(parquet::ColumnLayoutOverride ov, parquet::ParseEncodingOverride(text));
    if (col.empty()) {
      ov.ApplyTo(&o.defaults);
    } else {
      auto& dst = o.columns[col];
      if (ov.dictionary) dst.dictionary = ov.dictionary;
      if (ov.encoding) dst.encoding = ov.encoding;
    }
  }
  o.page_break_on = SplitLists(a.page_break_on);
  o.frame_break_on = SplitLists(a.frame_per_key);
  if (!a.align.empty()) {
    RAP_ASSIGN_OR_RETURN(uint64_t b, ParseByteSize(a.align));
    o.frame_align = static_cast<int64_t>(b);
  }
  o.interleave = a.interleave;
  o.data_page_version = a.data_page_version;
  o.write_page_index = !a.no_page_index;
  o.page_crc = a.crc;
  for (const auto& kv : a.kv) {
    auto [k, v] = SplitAssignment(kv);
    if (k.empty()) return Status::InvalidArgument("--kv '" + kv + "': expected key=value");
    o.key_value_metadata.push_back({k, v});
  }
  RAP_RETURN_NOT_OK(o.Validate());
  return o;
}

Status RunConvert(const ConvertArgs& a) {
  RAP_ASSIGN_OR_RETURN(std::string format, DetectFormat(a));
  RAP_ASSIGN_OR_RETURN(parquet::WriterOptions options, BuildOptions(a));
  std::unique_ptr<BatchSource> source;
  if (format == "parquet") {
    if (!a.schema.empty()) return Status::InvalidArgument("--schema applies to CSV and JSON input only");
    RAP_ASSIGN_OR_RETURN(source, ParquetSource::Open(a.input, a.batch_rows));
  } else if (format == "orc") {
    if (!a.schema.empty()) return Status::InvalidArgument("--schema applies to CSV and JSON input only");
    RAP_ASSIGN_OR_RETURN(source, OpenOrc(a.input, a.batch_rows));
  } else {
    TextInputOptions t;
    if (!a.schema.empty()) {
      auto s = ParseSchemaSpec(a.schema);
      if (!s.ok()) return s.status().WithContext("--schema");
      t.schema = *s;
    }
    t.infer_rows = a.infer_rows;
    t.batch_rows = a.batch_rows;
    if (a.delimiter == "\\t" || a.delimiter == "tab") {
      t.delimiter = '\t';
    } else if (a.delimiter.size() == 1) {
      t.delimiter = a.delimiter[0];
    } else {
      return Status::InvalidArgument("--delimiter must be one character (or 'tab')");
    }
    t.header = !a.no_header;
    t.null_text = a.null_text;
    if (format == "csv") {
      RAP_ASSIGN_OR_RETURN(source, OpenCsv(a.input, t));
    } else {
      RAP_ASSIGN_OR_RETURN(source, OpenJsonLines(a.input, t));
    }
  }
  if (!a.sort_by.empty()) {
    RAP_ASSIGN_OR_RETURN(source, SortedSource(std::move(source), SplitLists(a.sort_by), a.batch_rows));
  }
  if (!a.blob.empty()) {
    std::string spec;
    RAP_ASSIGN_OR_RETURN(source, BlobSource(std::move(source), SplitLists(a.blob), &spec));
    options.key_value_metadata.push_back({parquet::kBlobMetadataKey, spec});
  }
  // The sink: a local file through a temporary sibling, or one atomic Put to an object store.
  std::unique_ptr<parquet::ByteSink> sink;
  const bool remote = a.output.find("://") != std::string::npos && a.output.rfind("file://", 0) != 0;
  if (remote) {
    RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(a.output));
    sink = read::MakeObjectStoreSink(r.store, r.path);
  } else {
    const std::string path = a.output.rfind("file://", 0) == 0 ? a.output.substr(7) : a.output;
    RAP_ASSIGN_OR_RETURN(auto local, parquet::LocalFileSink::Open(path));
    sink = std::move(local);
  }
  RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(source->schema(), sink.get(), options));
  Stopwatch clock;
  double last_report = 0;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, source->Next());
    if (!batch) break;
    RAP_RETURN_NOT_OK(writer->Write(*batch));
    if (!a.quiet && clock.ElapsedSeconds() - last_report >= 2.0) {
      last_report = clock.ElapsedSeconds();
      const uint64_t total = source->total_bytes();
      std::fprintf(stderr, "rap convert: %lld rows, %s of input%s, %.1fs\n",
                   static_cast<long long>(writer->summary().num_rows), FormatBytes(source->bytes_read()).c_str(),
                   total ? fmt::format(" ({:.0f}%)", 100.0 * source->bytes_read() / total).c_str() : "", last_report);
    }
  }
  RAP_RETURN_NOT_OK(writer->Close());
  const auto& s = writer->summary();
  if (s.num_frames > 0) {
    std::printf("frame per key: %lld frames, %lld skippable frames, %s alignment padding%s\n",
                static_cast<long long>(s.num_frames), static_cast<long long>(s.num_skippable_frames),
                FormatBytes(static_cast<uint64_t>(s.padding_bytes)).c_str(), options.interleave ? ", interleaved" : "");
  }
  const auto& l = options.defaults;
  std::printf(
      "wrote %s: %lld rows, %lld columns, %lld row groups, %lld data pages, %lld dictionary pages, %s "
      "(page data %s uncompressed, %s stored), codec %s%s, data page v%d, page index %s%s, %.2fs\n",
      a.output.c_str(), static_cast<long long>(s.num_rows), static_cast<long long>(source->schema()->fields.size()),
      static_cast<long long>(s.num_row_groups), static_cast<long long>(s.num_data_pages),
      static_cast<long long>(s.num_dictionary_pages), FormatBytes(s.file_bytes).c_str(),
      FormatBytes(static_cast<uint64_t>(s.uncompressed_page_bytes)).c_str(),
      FormatBytes(static_cast<uint64_t>(s.compressed_page_bytes)).c_str(),
      s.num_frames > 0 ? "ZSTD (a frame per key)" : rap::codec::CodecName(l.codec),
      l.codec_level ? fmt::format(":{}", l.codec_level).c_str() : "", s.num_frames > 0 ? 2 : options.data_page_version,
      options.write_page_index ? "yes" : "no", options.page_crc ? ", page CRC" : "", clock.ElapsedSeconds());
  return Status::OK();
}

CommandRegistrar reg("convert", [](CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand("convert", "Write CSV, JSON lines or Parquet as Parquet with a chosen layout");
  cmd->add_option("input", args->input, "Input file (CSV, JSON lines, Parquet or ORC path/URL)")->required();
  cmd->add_option("output", args->output, "Output Parquet path or URL (written atomically)")->required();
  cmd->add_option("--format", args->format, "Input format: csv, json, parquet or orc (default: by extension)");
  cmd->add_option("--schema", args->schema, "Column types, e.g. \"id:int64 not null, name:string, ts:timestamp[us]\"");
  cmd->add_option("--infer-rows", args->infer_rows, "Records sampled to infer the schema")->capture_default_str();
  cmd->add_option("--batch-rows", args->batch_rows, "Rows per input batch")->capture_default_str();
  cmd->add_option("--delimiter", args->delimiter, "CSV field delimiter (one character or 'tab')")
      ->capture_default_str();
  cmd->add_flag("--no-header", args->no_header, "CSV has no header line (columns are c0, c1, ...)");
  cmd->add_option("--null", args->null_text, "CSV text that means null (besides an empty field)");
  cmd->add_option("--row-group-rows", args->row_group_rows, "Rows per row group (0 = no limit)");
  cmd->add_option("--row-group-bytes", args->row_group_bytes, "Row group size limit, e.g. 128MiB");
  cmd->add_option("--page-rows", args->page_rows, "Rows per page (0 = no limit)");
  cmd->add_option("--page-bytes", args->page_bytes, "Page size limit, e.g. 1MiB");
  cmd->add_option("--compression", args->compression,
                  "Codec for all columns or one: zstd:3, snappy, gzip, lz4_raw, brotli, none, or col=codec")
      ->allow_extra_args(false);
  cmd->add_option("--encoding", args->encoding,
                  "col=plain|dict|delta|delta_length|delta_byte_array|bss (or a value for every column)")
      ->allow_extra_args(false);
  cmd->add_option("--dictionary-limit", args->dictionary_limit, "Dictionary size before falling back to plain");
  cmd->add_flag("--no-dictionary", args->no_dictionary, "No dictionary encoding");
  cmd->add_option("--page-break-on", args->page_break_on, "Start a new page whenever these columns change value")
      ->allow_extra_args(false);
  cmd->add_option("--sort-by", args->sort_by,
                  "Sort the rows by these columns first (the whole input is held in memory)")
      ->allow_extra_args(false);
  cmd->add_option("--blob", args->blob,
                  "Keep these key columns and serialise every other column of a row into one JSON column 'blob' "
                  "(docs/layouts.md)")
      ->allow_extra_args(false);
  cmd->add_option("--frame-per-key", args->frame_per_key,
                  "A ZSTD frame per key: these columns delimit keys; every non-BOOLEAN column gets PLAIN values, "
                  "ZSTD, data page v2 (docs/layouts.md)")
      ->allow_extra_args(false);
  cmd->add_option("--align", args->align,
                  "With --frame-per-key: skippable frames pad so no key's data crosses a multiple of this, e.g. 4KiB");
  cmd->add_flag("--interleave", args->interleave,
                "With --frame-per-key: a key's frames of all columns adjacent (one range per key)");
  cmd->add_option("--data-page-version", args->data_page_version, "Data page version 1 or 2")->capture_default_str();
  cmd->add_flag("--no-page-index", args->no_page_index, "Do not write ColumnIndex/OffsetIndex");
  cmd->add_flag("--no-statistics", args->no_statistics, "Do not write min/max statistics");
  cmd->add_flag("--crc", args->crc, "Write a CRC32 in every page header");
  cmd->add_option("--kv", args->kv, "Key-value metadata key=value (repeatable)")->allow_extra_args(false);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  cmd->callback([args] {
    Status st = RunConvert(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
