#include "output_format.h"

#include <algorithm>
#include <cstdio>

#include "rap/columnar/array_format.h"
#include "rap/format/writer.h"
#include "rap/format/writer_sink.h"
#include "rap/read/object_store_sink.h"
#include "rap/io/object_store.h"

namespace rap::cli {

void OutputFlags::AddTo(CLI::App* cmd, bool allow_none) {
  std::vector<std::string> formats = kOutputFormats;
  if (allow_none) formats.push_back("none");
  std::string names;
  for (size_t i = 0; i < formats.size(); ++i) names += (i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + formats[i];
  cmd->add_option("--format,-f", format, "Output format: " + names + " (parquet needs --output)")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  cmd->add_option("--output,-o", path,
                  "Write the output to this file (local path, file:// or s3:// URL; created atomically) "
                  "instead of stdout");
}

std::vector<std::string> SplitColumns(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string part = list.substr(start, comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) out.push_back(part);
    start = comma + 1;
  }
  return out;
}

std::string CsvValue(const ArrayData& a, int64_t i) {
  if (a.IsNull(i)) return "";
  std::string v = FormatValue(a, i);
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

// stdout as a sink; Close() flushes and reports write errors (a closed pipe, a full disk).
class StdoutSink : public parquet::ByteSink {
 public:
  Status Append(std::span<const uint8_t> bytes) override {
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) {
      return Status::IOError("stdout: write failed");
    }
    position_ += bytes.size();
    return Status::OK();
  }
  uint64_t position() const override { return position_; }
  Status Close() override {
    return std::fflush(stdout) == 0 && !std::ferror(stdout) ? Status::OK() : Status::IOError("stdout: write failed");
  }
  void Abort() override { std::fflush(stdout); }

 private:
  uint64_t position_ = 0;
};

Result<std::unique_ptr<parquet::ByteSink>> OpenSink(const std::string& path) {
  if (path.empty()) return std::unique_ptr<parquet::ByteSink>(std::make_unique<StdoutSink>());
  const bool url = path.find("://") != std::string::npos;
  if (url && path.rfind("file://", 0) != 0) {
    RAP_ASSIGN_OR_RETURN(io::ResolvedUrl resolved, io::OpenUrl(path));
    return read::MakeObjectStoreSink(resolved.store, resolved.path);
  }
  RAP_ASSIGN_OR_RETURN(auto sink, parquet::LocalFileSink::Open(url ? path.substr(7) : path));
  return std::unique_ptr<parquet::ByteSink>(std::move(sink));
}

// Table, JSON lines and CSV: rendered line by line into a buffer that is appended to the sink in
// blocks of about 64 KiB.
class TextOutput : public BatchOutput {
 public:
  TextOutput(std::string format, SchemaPtr schema, std::unique_ptr<parquet::ByteSink> sink)
      : format_(std::move(format)), sink_(std::move(sink)) {
    for (const Field& f : schema->fields) header_.push_back(f.name);
    if (format_ == "csv") {
      std::string line;
      for (size_t c = 0; c < header_.size(); ++c) line += (c ? "," : "") + header_[c];
      buffer_ = line + "\n";
    }
  }
  // Without Close (the command failed): rows already rendered still reach stdout, like rows printed
  // before an error; a file sink drops everything.
  ~TextOutput() override {
    if (closed_) return;
    (void)Drain();
    sink_->Abort();
  }

  Status Write(const RecordBatch& b) override {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (format_ == "table") {
        std::vector<std::string> row;
        row.reserve(b.columns.size());
        for (const ArrayPtr& c : b.columns) row.push_back(FormatValue(*c, r));
        if (pending_) {
          pending_rows_.push_back(std::move(row));
          if (pending_rows_.size() >= kWidthRows) FlushPending();
        } else {
          AddTableLine(row);
        }
      } else if (format_ == "jsonl") {
        buffer_ += '{';
        for (size_t c = 0; c < b.columns.size(); ++c) {
          if (c) buffer_ += ", ";
          buffer_ += columnar::JsonQuote(header_[c]) + ": " + FormatJsonValue(*b.columns[c], r);
        }
        buffer_ += "}\n";
      } else {
        for (size_t c = 0; c < b.columns.size(); ++c) {
          if (c) buffer_ += ',';
          buffer_ += CsvValue(*b.columns[c], r);
        }
        buffer_ += '\n';
      }
      if (buffer_.size() >= (64 << 10)) RAP_RETURN_NOT_OK(Drain());
    }
    return Status::OK();
  }

  Status Close() override {
    if (format_ == "table") FlushPending();
    RAP_RETURN_NOT_OK(Drain());
    closed_ = true;
    return sink_->Close();
  }

 private:
  // The aligned table takes its column widths (at most kMaxCell) from the first kWidthRows rows.
  static constexpr size_t kWidthRows = 1000;
  static constexpr size_t kMaxCell = 60;

  void FlushPending() {
    if (!pending_) return;
    widths_.assign(header_.size(), 0);
    for (size_t c = 0; c < header_.size(); ++c) widths_[c] = std::min(header_[c].size(), kMaxCell);
    for (const auto& r : pending_rows_) {
      for (size_t c = 0; c < r.size(); ++c) widths_[c] = std::max(widths_[c], std::min(r[c].size(), kMaxCell));
    }
    AddTableLine(header_);
    for (size_t c = 0; c < widths_.size(); ++c) buffer_ += (c ? "-+-" : "") + std::string(widths_[c], '-');
    buffer_ += '\n';
    for (const auto& r : pending_rows_) AddTableLine(r);
    pending_rows_.clear();
    pending_ = false;
  }

  // Cells longer than kMaxCell end in "..."; every column but the last is padded to its width.
  void AddTableLine(const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) buffer_ += " | ";
      const std::string& cell = row[c];
      const size_t n = cell.size() > kMaxCell ? kMaxCell : cell.size();
      if (cell.size() > kMaxCell) {
        buffer_.append(cell, 0, kMaxCell - 3).append("...");
      } else {
        buffer_ += cell;
      }
      if (c + 1 < row.size() && n < widths_[c]) buffer_.append(widths_[c] - n, ' ');
    }
    buffer_ += '\n';
  }

  Status Drain() {
    if (buffer_.empty()) return Status::OK();
    Status st = sink_->Append(std::string_view(buffer_));
    buffer_.clear();
    return st;
  }

  std::string format_;
  std::unique_ptr<parquet::ByteSink> sink_;
  std::vector<std::string> header_;
  std::string buffer_;
  bool pending_ = true;
  std::vector<std::vector<std::string>> pending_rows_;
  std::vector<size_t> widths_;
  bool closed_ = false;
};

// Parquet through rap's writer: zstd pages with statistics and a page index, so the output is itself
// a good input for `rap scan`.
class ParquetOutput : public BatchOutput {
 public:
  static Result<std::unique_ptr<BatchOutput>> Open(SchemaPtr schema, std::unique_ptr<parquet::ByteSink> sink) {
    parquet::WriterOptions options;
    options.defaults.codec = parquet::Codec::ZSTD;
    std::unique_ptr<ParquetOutput> out(new ParquetOutput(schema, std::move(sink)));
    RAP_ASSIGN_OR_RETURN(out->writer_, parquet::ParquetWriter::Open(schema, out->sink_.get(), options));
    return std::unique_ptr<BatchOutput>(std::move(out));
  }
  ~ParquetOutput() override {
    if (closed_) return;
    if (writer_) writer_->Abort();
    sink_->Abort();
  }

  Status Write(const RecordBatch& batch) override {
    RecordBatch b{schema_, batch.num_rows, batch.columns};
    return writer_->Write(b);
  }
  Status Close() override {
    closed_ = true;
    return writer_->Close();  // closes (publishes) the sink, or aborts it on error
  }

 private:
  ParquetOutput(SchemaPtr schema, std::unique_ptr<parquet::ByteSink> sink)
      : schema_(std::move(schema)), sink_(std::move(sink)) {}
  SchemaPtr schema_;
  std::unique_ptr<parquet::ByteSink> sink_;
  std::unique_ptr<parquet::ParquetWriter> writer_;
  bool closed_ = false;
};

}  // namespace

Result<std::unique_ptr<BatchOutput>> OpenBatchOutput(const OutputFlags& flags, const SchemaPtr& schema) {
  if (flags.format == "parquet") {
    if (flags.path.empty()) return Status::InvalidArgument("--format parquet needs --output FILE");
    RAP_ASSIGN_OR_RETURN(auto sink, OpenSink(flags.path));
    return ParquetOutput::Open(schema, std::move(sink));
  }
  if (flags.format != "table" && flags.format != "jsonl" && flags.format != "csv") {
    return Status::InvalidArgument("--format '" + flags.format + "': expected table, jsonl, csv or parquet");
  }
  RAP_ASSIGN_OR_RETURN(auto sink, OpenSink(flags.path));
  return std::unique_ptr<BatchOutput>(std::make_unique<TextOutput>(flags.format, schema, std::move(sink)));
}

}  // namespace rap::cli
