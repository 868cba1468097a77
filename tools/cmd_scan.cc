// `rap scan URL`: a projection and a filter over a table (a Delta table, a folder/prefix of Parquet
// files, or one file), printed as an aligned table, JSON lines or CSV or written as Parquet
// (--format, --output; tools/output_format.h), optionally with the scan's statistics (--stats) and
// the result fingerprint (--fingerprint, docs/fingerprint.md); parallel ordered prefetch and warmup
// (--prefetch, --warmup; docs/prefetch.md); a merge of sorted files by a key (--merge-key).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "output_format.h"
#include "plan_flags.h"
#include "rap/index/indexed_scan.h"
#include "rap/read/fingerprint.h"
#include "rap/read/merge_reader.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/table/paimon.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/table/table_format.h"
#include "rap/util/clock.h"
#include "rap/util/units.h"

namespace rap::cli {
namespace {

struct ScanArgs {
  std::string url;
  std::string columns;
  std::string where;
  int64_t limit = -1;
  int64_t version = -1;
  int64_t snapshot = -1;
  std::string as_of;
  std::string tag;
  std::vector<std::string> location_map;
  OutputFlags output;
  int64_t batch_size = 64 * 1024;
  bool stats = false;
  bool fingerprint = false;
  bool no_statistics = false;
  bool no_page_index = false;
  bool no_bloom_filter = false;
  bool no_dictionary_filter = false;
  int prefetch = 3;
  std::string warmup = "raw";
  uint64_t natural_read_size = uint64_t{1} << 20;
  bool no_split = false;
  int fetch_ahead = read::PrefetchOptions{}.fetch_ahead;
  uint64_t min_file_bytes = read::PrefetchOptions{}.min_file_bytes;
  uint64_t pre_buffer_limit = uint64_t{256} << 20;
  std::string memory_limit = "2GiB";
  std::vector<std::string> merge_key;
  bool keep_last = false;
  std::string index_name;
  bool no_index = false;
  PlanFlags plan;
};

Result<read::WarmupLevel> ParseWarmup(const std::string& s) {
  if (s == "none") return read::WarmupLevel::kNone;
  if (s == "raw") return read::WarmupLevel::kRaw;
  if (s == "decoded") return read::WarmupLevel::kDecoded;
  return Status::InvalidArgument("--warmup: '" + s + "' is not none, raw or decoded");
}

// --merge-key: every data file is one sorted run, merged by the key (MergeReader).
// Writes every batch `next()` returns (Result<optional<batch with .batch and .row_ids>>) to the
// output of `args` and, with --fingerprint, into `fp`: the one output loop of a scan and a merge.
template <typename NextFn>
Status WriteBatches(const ScanArgs& args, const SchemaPtr& schema, NextFn next, read::Fingerprinter* fp) {
  std::unique_ptr<BatchOutput> out;
  if (args.output.format != "none") {
    RAP_ASSIGN_OR_RETURN(out, OpenBatchOutput(args.output, schema));
  }
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, next());
    if (!batch) break;
    if (args.fingerprint) RAP_RETURN_NOT_OK(fp->Add(batch->batch, batch->row_ids));
    if (out) RAP_RETURN_NOT_OK(out->Write(batch->batch));
  }
  return out ? out->Close() : Status::OK();
}

Status RunMerge(const ScanArgs& args, const table::TableSnapshot& snap, const read::ScanSource& src, double t0,
                double t_open) {
  if (!args.where.empty()) return Status::InvalidArgument("--merge-key: --where is not supported with a merge");
  if (!args.index_name.empty()) return Status::InvalidArgument("--merge-key: --index is not supported with a merge");
  if (!src.partition_columns.empty()) {
    return Status::InvalidArgument("--merge-key: partitioned tables are not supported with a merge");
  }
  for (const read::ScanFile& f : src.files) {
    if (!f.deleted_rows.empty() || f.deleted_rows_loader) {
      return Status::InvalidArgument("--merge-key: " + f.path + " has deleted rows");
    }
  }
  // The merge reads the files' own column names: with Delta column mapping they are not the table's.
  bool mapped = !src.field_ids.empty() || !src.physical_types.empty();
  for (size_t i = 0; i < src.physical_names.size() && src.schema && i < src.schema->fields.size(); ++i) {
    mapped = mapped || src.physical_names[i] != src.schema->fields[i].name;
  }
  if (mapped) return Status::InvalidArgument("--merge-key: Delta column mapping is not supported with a merge");
  read::MergeOptions mo;
  mo.key_columns = args.merge_key;
  mo.columns = SplitColumns(args.columns);
  mo.keep_last_per_key = args.keep_last;
  mo.batch_size = args.batch_size;
  mo.limit = args.limit;
  mo.reader.use_page_index = !args.no_page_index;
  RAP_ASSIGN_OR_RETURN(mo.reader.plan, args.plan.Options());
  std::vector<read::MergeRun> runs;
  for (const read::ScanFile& f : src.files) runs.push_back(read::MergeRun{{f}});
  RAP_ASSIGN_OR_RETURN(auto merge, read::MergeReader::Make(src.store, std::move(runs), std::move(mo)));
  read::Fingerprinter fp;
  RAP_RETURN_NOT_OK(WriteBatches(args, merge->schema(), [&] { return merge->NextWithRowIds(); }, &fp));
  const double t_end = NowSeconds();
  if (args.fingerprint) std::printf("%s\n", fp.ToString().c_str());
  if (args.stats) {
    std::fprintf(stderr, "table %s, %zu live files merged as sorted runs\n", snap.root.c_str(), snap.files.size());
    std::fprintf(stderr, "%s", merge->stats().ToString().c_str());
    std::fprintf(stderr, "%s", args.plan.Summary().c_str());
    std::fprintf(stderr, "open_s %.6f\nscan_s %.6f\n", t_open - t0, t_end - t_open);
  }
  return args.plan.WriteLog();
}

Status RunScan(const ScanArgs& args) {
  const double t0 = NowSeconds();
  table::OpenTableOptions to;
  if (args.version >= 0) to.version = args.version;
  if (args.snapshot >= 0) to.snapshot_id = args.snapshot;
  if (!args.tag.empty()) to.tag = args.tag;
  if (!args.as_of.empty()) {
    RAP_ASSIGN_OR_RETURN(int64_t as_of_ms, table::iceberg::ParseAsOf(args.as_of));
    to.as_of_ms = as_of_ms;
  }
  for (const std::string& m : args.location_map) {
    RAP_ASSIGN_OR_RETURN(auto pair, table::iceberg::ParseLocationMapping(m));
    to.location_map.push_back(std::move(pair));
  }
  if (!args.where.empty() && args.merge_key.empty()) {
    // Partition pruning while listing (Iceberg); a filter that does not parse is reported below.
    if (auto e = read::ParseExpr(args.where); e.ok()) to.filter = *e;
  }
  // An index of the table that answers the filter names the only rows that can match (indexed_scan.h);
  // the listing of the table's indexes runs while the table opens.
  index::IndexedScanOptions io;
  io.disabled = args.no_index;
  io.name = args.index_name;
  io.open.preload = false;
  RAP_ASSIGN_OR_RETURN(io.open.plan, args.plan.Options());
  index::PrefetchIndexListing(args.url, !args.where.empty() && args.merge_key.empty(), &io);
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(args.url, to));
  const double t_open = NowSeconds();
  read::ScanOptions so;
  so.columns = SplitColumns(args.columns);
  so.limit = args.limit;
  so.batch_size = args.batch_size;
  so.use_statistics = !args.no_statistics;
  so.use_page_index = !args.no_page_index;
  so.use_bloom_filters = !args.no_bloom_filter;
  so.dictionary_filter = !args.no_dictionary_filter;
  so.prefetch.producers = args.prefetch;
  so.prefetch.ranges.natural_read_size = args.natural_read_size;
  so.prefetch.ranges.split_row_groups = !args.no_split;
  so.prefetch.fetch_ahead = args.fetch_ahead;
  so.prefetch.min_file_bytes = args.min_file_bytes;
  RAP_ASSIGN_OR_RETURN(so.warmup.level, ParseWarmup(args.warmup));
  so.warmup.pre_buffer_limit = args.pre_buffer_limit;
  RAP_ASSIGN_OR_RETURN(so.memory_limit, ParseByteSize(args.memory_limit));
  RAP_ASSIGN_OR_RETURN(so.reader.plan, args.plan.Options());
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
  if (!args.merge_key.empty()) return RunMerge(args, snap, src, t0, t_open);
  if (args.keep_last) return Status::InvalidArgument("--keep-last needs --merge-key");
  if (!args.index_name.empty() && args.no_index) return Status::InvalidArgument("give --index or --no-index, not both");
  if (!args.where.empty()) {
    auto e = read::ParseExpr(args.where);
    if (!e.ok()) return Status::InvalidArgument("--where: " + e.status().message());
    so.filter = *e;
  }
  RAP_ASSIGN_OR_RETURN(const index::IndexedScanReport indexed, index::ApplyIndex(args.url, snap, so.filter, &src, io));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(so)));
  read::Fingerprinter fp;
  RAP_RETURN_NOT_OK(WriteBatches(args, scanner->schema(), [&] { return scanner->Next(); }, &fp));
  const double t_end = NowSeconds();
  if (args.fingerprint) std::printf("%s\n", fp.ToString().c_str());
  if (args.stats) {
    const read::ScanStats& s = scanner->stats();
    std::fprintf(stderr, "table %s (%s%s), %zu live files\n", snap.root.c_str(),
                 std::string(table::FormatName(snap)).c_str(),
                 snap.format ? fmt::format(" version {}", snap.version).c_str() : "",
                 snap.files.size());
    std::fprintf(stderr, "%s", indexed.ToString().c_str());
    std::fprintf(stderr, "%s", s.ToString().c_str());
    if (auto paimon = table::PaimonInfo(snap); paimon.ok()) {  // merge-on-read of a primary-key table
      const table::PaimonMergeCounters& m = paimon->merge;
      std::fprintf(stderr,
                   "paimon_buckets %lld\npaimon_buckets_merged %lld\npaimon_runs %lld\npaimon_runs_warmed %lld\n"
                   "paimon_merge_rows_in %lld\npaimon_rows_deleted %lld\npaimon_deletion_vectors %lld\n"
                   "paimon_rows_dv_deleted %lld\n",
                   static_cast<long long>(m.buckets), static_cast<long long>(m.buckets_merged),
                   static_cast<long long>(m.runs), static_cast<long long>(m.runs_warmed),
                   static_cast<long long>(m.rows_in), static_cast<long long>(m.rows_deleted),
                   static_cast<long long>(m.deletion_vectors), static_cast<long long>(m.rows_dv_deleted));
    }
    std::fprintf(stderr, "%s", args.plan.Summary().c_str());
    std::fprintf(stderr, "open_s %.6f\nscan_s %.6f\n", t_open - t0, t_end - t_open);
  }
  return args.plan.WriteLog();
}

CommandRegistrar reg("scan", [](CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  CLI::App* cmd = app.add_subcommand("scan", "Scan a table (Delta, Iceberg, Paimon, folder/prefix of Parquet and ORC files, or one file)");
  cmd->add_option("url", args->url, "Table URL: path, file://, http(s)://, s3://")->required();
  cmd->add_option("--columns,-c", args->columns, "Comma-separated output columns (default: all)");
  cmd->add_option("--where,-w", args->where, "Filter, e.g. \"id = 5 AND name IN ('a','b') AND ts >= '2024-01-01'\"");
  cmd->add_option("--limit,-n", args->limit, "Stop after N rows");
  cmd->add_option("--version", args->version, "Delta table version (time travel)");
  cmd->add_option("--snapshot", args->snapshot, "Iceberg or Paimon snapshot id (time travel)");
  cmd->add_option("--tag", args->tag, "Paimon: the snapshot of this tag (time travel)");
  cmd->add_option("--as-of", args->as_of,
                  "Iceberg, Paimon: the snapshot current at this time (ms since the epoch or UTC 'YYYY-MM-DD HH:MM:SS')");
  cmd->add_option("--location-map", args->location_map,
                  "Iceberg: OLD=NEW, read paths the metadata names under OLD from NEW (repeatable; docs/iceberg.md)");
  args->output.AddTo(cmd, /*allow_none=*/true);
  cmd->add_option("--batch-size", args->batch_size, "Rows per batch")->capture_default_str();
  cmd->add_flag("--stats", args->stats, "Print pruning, request and byte counts and times to stderr");
  cmd->add_flag("--fingerprint", args->fingerprint, "Print the result fingerprint (fnv1a64:<16 hex>)");
  cmd->add_flag("--no-statistics", args->no_statistics, "Do not prune row groups by statistics");
  cmd->add_flag("--no-page-index", args->no_page_index, "Do not use ColumnIndex/OffsetIndex");
  cmd->add_flag("--no-bloom-filter", args->no_bloom_filter, "Do not use ORC bloom filters for = and IN");
  cmd->add_flag("--no-dictionary-filter", args->no_dictionary_filter,
                "Evaluate the filter on decoded values only, never once per dictionary entry");
  cmd->add_option("--prefetch,--threads", args->prefetch,
                  "Producer threads reading a file's ranges in parallel; 1: in the scanning thread (the output is the "
                  "same for any value)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--warmup", args->warmup,
                  "Prepare the next file while one is read: none, raw (fetch its footer, page indexes and first "
                  "ranges) or decoded (also start decoding it)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "raw", "decoded"}));
  cmd->add_option("--natural-read-size", args->natural_read_size,
                  "Projected compressed bytes per read range; larger row groups are cut at page boundaries")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  cmd->add_flag("--no-split", args->no_split, "One read range per row group (do not cut row groups)");
  cmd->add_option("--prefetch-min-bytes", args->min_file_bytes,
                  "Files (Parquet or ORC) whose selected compressed bytes are below this are read without prefetch "
                  "threads (seed 001's enabling rule)")
      ->capture_default_str();
  cmd->add_option("--fetch-ahead", args->fetch_ahead,
                  "Ranges each producer keeps fetched ahead while it decodes (first reads; 0: off)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  cmd->add_option("--pre-buffer-limit", args->pre_buffer_limit, "Bytes warmed ahead for the next file, at most")
      ->capture_default_str();
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Memory budget of the scan (decompressed pages, queued batches, warmed bytes), e.g. 512MiB; "
                  "producers wait for room, a page larger than it is an error; 0: no budget")
      ->capture_default_str();
  cmd->add_option("--merge-key", args->merge_key,
                  "Merge the data files, each sorted by this key, into one stream in key order (repeat for a "
                  "two-column key; ties keep file order)")
      ->delimiter(',')
      ->expected(1, 2);
  cmd->add_flag("--keep-last", args->keep_last, "With --merge-key: only the last row of each key (the latest file wins)");
  cmd->add_option("--index", args->index_name,
                  "Answer --where through this index of the table (<url>/_rap_index/NAME); default: any index under "
                  "_rap_index/ that answers it (docs/scan-index.md)");
  cmd->add_flag("--no-index", args->no_index, "Never use an index: read every file");
  args->plan.AddTo(cmd);
  cmd->callback([args] {
    Status st = RunScan(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
