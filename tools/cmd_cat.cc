// `rap cat FILE`: prints rows of a Parquet file as an aligned table, JSON lines or CSV. Only the
// pages holding the requested rows (--rows, --limit) of the requested columns are read.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "plan_flags.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"

namespace rap::cli {
namespace {

struct CatArgs {
  std::string file;
  std::string columns;
  std::string rows;
  int64_t limit = -1;
  std::string format = "table";
  PlanFlags plan;
  int64_t batch_size = 64 * 1024;
  bool no_crc = false;
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string part = s.substr(start, comma - start);
    if (!part.empty()) out.push_back(part);
    start = comma + 1;
  }
  return out;
}

Result<int64_t> ParseRow(std::string_view s, const char* what) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) {
    return Status::InvalidArgument(fmt::format("--rows: {} row '{}' is not a non-negative integer", what, s));
  }
  return v;
}

// "FIRST:LAST" (half-open, either side may be empty) -> [first, last) clamped to the file.
Result<read::RowSelection> ParseRows(const std::string& text, int64_t num_rows) {
  if (text.empty()) return read::RowSelection::All(num_rows);
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--rows '" + text + "': expected FIRST:LAST (e.g. 100:200, 100:, :50)");
  }
  int64_t first = 0, last = num_rows;
  if (colon > 0) {
    RAP_ASSIGN_OR_RETURN(first, ParseRow(std::string_view(text).substr(0, colon), "first"));
  }
  if (colon + 1 < text.size()) {
    RAP_ASSIGN_OR_RETURN(last, ParseRow(std::string_view(text).substr(colon + 1), "last"));
  }
  if (first > last) return Status::InvalidArgument(fmt::format("--rows: first row {} is after last row {}", first, last));
  return read::RowSelection::Range(std::min(first, num_rows), std::min(last, num_rows));
}

// The first `limit` rows of a selection.
read::RowSelection Limit(const read::RowSelection& sel, int64_t limit) {
  if (limit < 0) return sel;
  std::vector<read::RowRange> out;
  for (const auto& r : sel) {
    if (limit <= 0) break;
    const int64_t n = std::min(limit, r.size());
    out.push_back({r.begin, r.begin + n});
    limit -= n;
  }
  return read::RowSelection::FromRanges(std::move(out));
}

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

std::string JsonValue(const ArrayData& a, int64_t i) {
  if (a.IsNull(i)) return "null";
  std::string v = FormatValue(a, i);
  switch (a.type->id) {
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return (v == "NaN" || v == "inf" || v == "-inf") ? JsonQuote(v) : v;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return JsonQuote(v);
    default:
      return v;
  }
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

class TablePrinter {
 public:
  explicit TablePrinter(std::vector<std::string> header) : header_(std::move(header)) {}
  void Add(std::vector<std::string> row) {
    if (flushed_) {
      Print(row);
    } else {
      pending_.push_back(std::move(row));
      if (pending_.size() >= 1000) Flush();
    }
  }
  void Flush() {
    if (flushed_) return;
    widths_.assign(header_.size(), 0);
    for (size_t c = 0; c < header_.size(); ++c) widths_[c] = header_[c].size();
    for (const auto& r : pending_) {
      for (size_t c = 0; c < r.size(); ++c) widths_[c] = std::max(widths_[c], std::min<size_t>(r[c].size(), 60));
    }
    Print(header_);
    std::string rule;
    for (size_t c = 0; c < widths_.size(); ++c) rule += (c ? "-+-" : "") + std::string(widths_[c], '-');
    std::printf("%s\n", rule.c_str());
    for (const auto& r : pending_) Print(r);
    pending_.clear();
    flushed_ = true;
  }

 private:
  void Print(const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) line += " | ";
      line += row[c];
      if (c + 1 < row.size() && row[c].size() < widths_[c]) line.append(widths_[c] - row[c].size(), ' ');
    }
    std::printf("%s\n", line.c_str());
  }
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> pending_;
  std::vector<size_t> widths_;
  bool flushed_ = false;
};

Status RunCat(const CatArgs& args) {
  if (args.format != "table" && args.format != "jsonl" && args.format != "csv") {
    return Status::InvalidArgument("--format '" + args.format + "': expected table, jsonl or csv");
  }
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl url, io::OpenUrl(args.file));
  read::FileReaderOptions options;
  options.batch_size = args.batch_size;
  options.verify_crc = !args.no_crc;
  RAP_ASSIGN_OR_RETURN(options.plan, args.plan.Options());
  RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(url.store, url.path, options));
  RAP_ASSIGN_OR_RETURN(read::Projection projection, reader->Project(SplitComma(args.columns)));
  RAP_ASSIGN_OR_RETURN(read::RowSelection rows, ParseRows(args.rows, reader->num_rows()));
  RAP_ASSIGN_OR_RETURN(auto batches, reader->NewBatchReader(Limit(rows, args.limit), projection));
  std::vector<std::string> names;
  for (const auto& f : projection.schema->fields) names.push_back(f.name);
  TablePrinter table(names);
  if (args.format == "csv") {
    std::string line;
    for (size_t c = 0; c < names.size(); ++c) {
      line += (c ? "," : "") + names[c];
    }
    std::printf("%s\n", line.c_str());
  }
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, batches->Next());
    if (!batch) break;
    for (int64_t i = 0; i < batch->num_rows; ++i) {
      if (args.format == "table") {
        std::vector<std::string> row;
        for (const auto& col : batch->columns) row.push_back(FormatValue(*col, i));
        table.Add(std::move(row));
      } else if (args.format == "jsonl") {
        std::string line = "{";
        for (size_t c = 0; c < batch->columns.size(); ++c) {
          line += (c ? ", " : "") + JsonQuote(names[c]) + ": " + JsonValue(*batch->columns[c], i);
        }
        std::printf("%s}\n", line.c_str());
      } else {
        std::string line;
        for (size_t c = 0; c < batch->columns.size(); ++c) line += (c ? "," : "") + CsvValue(*batch->columns[c], i);
        std::printf("%s\n", line.c_str());
      }
    }
  }
  if (args.format == "table") table.Flush();
  return args.plan.WriteLog();
}

CommandRegistrar registrar("cat", [](CLI::App& app) {
  auto args = std::make_shared<CatArgs>();
  CLI::App* cmd = app.add_subcommand("cat", "Print rows of a Parquet file (only the needed pages are read)");
  cmd->add_option("file", args->file, "Parquet file: path, file://, http(s):// or s3:// URL")->required();
  cmd->add_option("--columns", args->columns, "Comma-separated columns (top-level names or dotted paths like a.b)");
  cmd->add_option("--rows", args->rows, "Row range FIRST:LAST, half-open (e.g. 100:200, 100:, :50)");
  cmd->add_option("--limit", args->limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
  cmd->add_option("--format", args->format, "Output format: table, jsonl or csv")
      ->check(CLI::IsMember({"table", "jsonl", "csv"}));
  cmd->add_option("--batch-size", args->batch_size, "Rows per decoded batch")->check(CLI::PositiveNumber);
  cmd->add_flag("--no-crc", args->no_crc, "Do not verify page checksums");
  args->plan.AddTo(cmd);
  cmd->callback([args]() {
    Status st = RunCat(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
