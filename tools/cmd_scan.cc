// `rap scan URL`: a projection and a filter over a table (a Delta table, a folder/prefix of Parquet
// files, or one file), printed as an aligned table, JSON lines or CSV, optionally with the scan's
// statistics (--stats) and the result fingerprint (--fingerprint, docs/fingerprint.md).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "plan_flags.h"
#include "rap/read/fingerprint.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/clock.h"

namespace rap::cli {
namespace {

struct ScanArgs {
  std::string url;
  std::string columns;
  std::string where;
  int64_t limit = -1;
  int64_t version = -1;
  std::string format = "table";
  int64_t batch_size = 64 * 1024;
  bool stats = false;
  bool fingerprint = false;
  bool no_statistics = false;
  bool no_page_index = false;
  PlanFlags plan;
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string part = s.substr(start, comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) out.push_back(part);
    start = comma + 1;
  }
  return out;
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
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else out.push_back(c);
    }
  }
  return out + "\"";
}

std::string JsonValue(const ArrayData& a, int64_t i) {
  if (a.IsNull(i)) return "null";
  std::string v = FormatValue(a, i);
  switch (a.type->id) {
    case TypeId::kBool: case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
      return v;
    case TypeId::kFloat32: case TypeId::kFloat64:
      return (v == "NaN" || v == "inf" || v == "-inf") ? JsonQuote(v) : v;
    case TypeId::kList: case TypeId::kStruct: case TypeId::kMap:
      return v;  // FormatValue prints nested values JSON-ish
    default:
      return JsonQuote(v);
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

// Aligned columns; widths from the first 1000 rows, then streamed.
class TablePrinter {
 public:
  explicit TablePrinter(std::vector<std::string> header) : header_(std::move(header)) {}
  void Add(std::vector<std::string> row) {
    if (flushed_) return Print(row);
    pending_.push_back(std::move(row));
    if (pending_.size() >= 1000) Flush();
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
      std::string cell = row[c].size() > 60 ? row[c].substr(0, 57) + "..." : row[c];
      line += (c ? " | " : "") + cell + std::string(widths_[c] > cell.size() ? widths_[c] - cell.size() : 0, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> pending_;
  std::vector<size_t> widths_;
  bool flushed_ = false;
};

Status RunScan(const ScanArgs& args) {
  if (args.format != "table" && args.format != "jsonl" && args.format != "csv" && args.format != "none") {
    return Status::InvalidArgument("--format must be table, jsonl, csv or none");
  }
  const double t0 = NowSeconds();
  table::OpenTableOptions to;
  if (args.version >= 0) to.version = args.version;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(args.url, to));
  const double t_open = NowSeconds();
  read::ScanOptions so;
  so.columns = SplitComma(args.columns);
  so.limit = args.limit;
  so.batch_size = args.batch_size;
  so.use_statistics = !args.no_statistics;
  so.use_page_index = !args.no_page_index;
  RAP_ASSIGN_OR_RETURN(so.reader.plan, args.plan.Options());
  if (!args.where.empty()) {
    auto e = read::ParseExpr(args.where);
    if (!e.ok()) return Status::InvalidArgument("--where: " + e.status().message());
    so.filter = *e;
  }
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(so)));
  const Schema& schema = *scanner->schema();
  std::vector<std::string> header;
  for (const Field& f : schema.fields) header.push_back(f.name);
  TablePrinter table(header);
  if (args.format == "csv") {
    std::string line;
    for (size_t c = 0; c < header.size(); ++c) line += (c ? "," : "") + header[c];
    std::printf("%s\n", line.c_str());
  }
  read::Fingerprinter fp;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, scanner->Next());
    if (!batch) break;
    const RecordBatch& b = batch->batch;
    if (args.fingerprint) RAP_RETURN_NOT_OK(fp.Add(b, batch->row_ids));
    if (args.format == "none") continue;
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (args.format == "table") {
        std::vector<std::string> row;
        for (const ArrayPtr& c : b.columns) row.push_back(FormatValue(*c, r));
        table.Add(std::move(row));
      } else if (args.format == "jsonl") {
        std::string line = "{";
        for (size_t c = 0; c < b.columns.size(); ++c) {
          line += (c ? "," : "") + JsonQuote(header[c]) + ":" + JsonValue(*b.columns[c], r);
        }
        std::printf("%s}\n", line.c_str());
      } else {
        std::string line;
        for (size_t c = 0; c < b.columns.size(); ++c) line += (c ? "," : "") + CsvValue(*b.columns[c], r);
        std::printf("%s\n", line.c_str());
      }
    }
  }
  if (args.format == "table") table.Flush();
  const double t_end = NowSeconds();
  if (args.fingerprint) std::printf("%s\n", fp.ToString().c_str());
  if (args.stats) {
    const read::ScanStats& s = scanner->stats();
    std::fprintf(stderr, "table %s (%s%s), %zu live files\n", snap.root.c_str(),
                 snap.kind == table::TableKind::kDelta ? "delta" : "directory",
                 snap.kind == table::TableKind::kDelta ? fmt::format(" version {}", snap.version).c_str() : "",
                 snap.files.size());
    std::fprintf(stderr, "%s", s.ToString().c_str());
    std::fprintf(stderr, "%s", args.plan.Summary().c_str());
    std::fprintf(stderr, "open_s %.6f\nscan_s %.6f\n", t_open - t0, t_end - t_open);
  }
  return args.plan.WriteLog();
}

CommandRegistrar reg("scan", [](CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  CLI::App* cmd = app.add_subcommand("scan", "Scan a table (Delta, folder/prefix of Parquet files, or one file)");
  cmd->add_option("url", args->url, "Table URL: path, file://, http(s)://, s3://")->required();
  cmd->add_option("--columns,-c", args->columns, "Comma-separated output columns (default: all)");
  cmd->add_option("--where,-w", args->where, "Filter, e.g. \"id = 5 AND name IN ('a','b') AND ts >= '2024-01-01'\"");
  cmd->add_option("--limit,-n", args->limit, "Stop after N rows");
  cmd->add_option("--version", args->version, "Delta table version (time travel)");
  cmd->add_option("--format,-f", args->format, "table, jsonl, csv or none")->capture_default_str();
  cmd->add_option("--batch-size", args->batch_size, "Rows per batch")->capture_default_str();
  cmd->add_flag("--stats", args->stats, "Print pruning, request and byte counts and times to stderr");
  cmd->add_flag("--fingerprint", args->fingerprint, "Print the result fingerprint (fnv1a64:<16 hex>)");
  cmd->add_flag("--no-statistics", args->no_statistics, "Do not prune row groups by statistics");
  cmd->add_flag("--no-page-index", args->no_page_index, "Do not use ColumnIndex/OffsetIndex");
  args->plan.AddTo(cmd);
  cmd->callback([args] {
    Status st = RunScan(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
