// `rap cat FILE`: prints rows of a Parquet file as an aligned table, JSON lines or CSV, or writes them
// as Parquet (--format parquet --output FILE). Only the pages holding the requested rows (--rows,
// --limit) of the requested columns are read.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "orc_cli.h"
#include "output_format.h"
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
  OutputFlags output;
  PlanFlags plan;
  int64_t batch_size = 64 * 1024;
  bool no_crc = false;
};

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

// An ORC file (src/orc): read whole, printed in stripe-aligned batches.
Status RunCatOrc(const CatArgs& args, const io::ResolvedUrl& url) {
  RAP_ASSIGN_OR_RETURN(auto reader, OpenOrc(*url.store, url.path, args.file));
  RAP_ASSIGN_OR_RETURN(read::RowSelection rows, ParseRows(args.rows, static_cast<int64_t>(reader->tail().num_rows)));
  return CatOrc(*reader, SplitColumns(args.columns), Limit(rows, args.limit), args.output);
}

Status RunCat(const CatArgs& args) {
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl url, io::OpenUrl(args.file));
  if (HasOrcExtension(url.path)) return RunCatOrc(args, url);
  read::FileReaderOptions options;
  options.batch_size = args.batch_size;
  options.verify_crc = !args.no_crc;
  RAP_ASSIGN_OR_RETURN(options.plan, args.plan.Options());
  auto opened = read::FileReader::Open(url.store, url.path, options);
  if (!opened.ok() && opened.status().Is(StatusCode::kCorrupt)) {  // not Parquet: maybe ORC by its magic
    auto orc = StartsWithOrcMagic(*url.store, url.path);
    if (orc.ok() && *orc) return RunCatOrc(args, url);
  }
  RAP_ASSIGN_OR_RETURN(auto reader, std::move(opened));
  RAP_ASSIGN_OR_RETURN(read::Projection projection, reader->Project(SplitColumns(args.columns)));
  RAP_ASSIGN_OR_RETURN(read::RowSelection rows, ParseRows(args.rows, reader->num_rows()));
  RAP_ASSIGN_OR_RETURN(auto batches, reader->NewBatchReader(Limit(rows, args.limit), projection));
  RAP_ASSIGN_OR_RETURN(auto out, OpenBatchOutput(args.output, projection.schema));
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, batches->Next());
    if (!batch) break;
    RAP_RETURN_NOT_OK(out->Write(*batch));
  }
  RAP_RETURN_NOT_OK(out->Close());
  return args.plan.WriteLog();
}

CommandRegistrar registrar("cat", [](CLI::App& app) {
  auto args = std::make_shared<CatArgs>();
  CLI::App* cmd = app.add_subcommand("cat", "Print rows of a Parquet or ORC file (only the needed pages are read)");
  cmd->add_option("file", args->file, "Parquet or ORC file: path, file://, http(s):// or s3:// URL")->required();
  cmd->add_option("--columns", args->columns, "Comma-separated columns (top-level names or dotted paths like a.b)");
  cmd->add_option("--rows", args->rows, "Row range FIRST:LAST, half-open (e.g. 100:200, 100:, :50)");
  cmd->add_option("--limit", args->limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
  args->output.AddTo(cmd, /*allow_none=*/false);
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
