// `rap scan URL`: a projection and a filter over a table (a Delta table, a folder/prefix of Parquet
// files, or one file), printed as an aligned table, JSON lines or CSV or written as Parquet
// (--format, --output; tools/output_format.h), optionally with the scan's statistics (--stats) and
// the result fingerprint (--fingerprint, docs/fingerprint.md).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "output_format.h"
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
  OutputFlags output;
  int64_t batch_size = 64 * 1024;
  bool stats = false;
  bool fingerprint = false;
  bool no_statistics = false;
  bool no_page_index = false;
  bool no_dictionary_filter = false;
  int threads = 1;
  PlanFlags plan;
};

Status RunScan(const ScanArgs& args) {
  const double t0 = NowSeconds();
  table::OpenTableOptions to;
  if (args.version >= 0) to.version = args.version;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(args.url, to));
  const double t_open = NowSeconds();
  read::ScanOptions so;
  so.columns = SplitColumns(args.columns);
  so.limit = args.limit;
  so.batch_size = args.batch_size;
  so.use_statistics = !args.no_statistics;
  so.use_page_index = !args.no_page_index;
  so.dictionary_filter = !args.no_dictionary_filter;
  so.threads = args.threads;
  RAP_ASSIGN_OR_RETURN(so.reader.plan, args.plan.Options());
  if (!args.where.empty()) {
    auto e = read::ParseExpr(args.where);
    if (!e.ok()) return Status::InvalidArgument("--where: " + e.status().message());
    so.filter = *e;
  }
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(so)));
  std::unique_ptr<BatchOutput> out;
  if (args.output.format != "none") {
    RAP_ASSIGN_OR_RETURN(out, OpenBatchOutput(args.output, scanner->schema()));
  }
  read::Fingerprinter fp;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, scanner->Next());
    if (!batch) break;
    if (args.fingerprint) RAP_RETURN_NOT_OK(fp.Add(batch->batch, batch->row_ids));
    if (out) RAP_RETURN_NOT_OK(out->Write(batch->batch));
  }
  if (out) RAP_RETURN_NOT_OK(out->Close());
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
  args->output.AddTo(cmd, /*allow_none=*/true);
  cmd->add_option("--batch-size", args->batch_size, "Rows per batch")->capture_default_str();
  cmd->add_flag("--stats", args->stats, "Print pruning, request and byte counts and times to stderr");
  cmd->add_flag("--fingerprint", args->fingerprint, "Print the result fingerprint (fnv1a64:<16 hex>)");
  cmd->add_flag("--no-statistics", args->no_statistics, "Do not prune row groups by statistics");
  cmd->add_flag("--no-page-index", args->no_page_index, "Do not use ColumnIndex/OffsetIndex");
  cmd->add_flag("--no-dictionary-filter", args->no_dictionary_filter,
                "Evaluate the filter on decoded values only, never once per dictionary entry");
  cmd->add_option("--threads", args->threads,
                  "Row groups decoded in parallel (the output is the same for any value)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  args->plan.AddTo(cmd);
  cmd->callback([args] {
    Status st = RunScan(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
