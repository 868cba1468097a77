// `rap rewrite TABLE OUTPUT --key K`: the table's live rows bucketed and sorted by key into a lookup
// layout, one Parquet file per bucket, with the RAP index built in the same pass (docs/layouts.md).
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "command.h"
#include "output_format.h"
#include "rap/index/rewrite.h"
#include "rap/util/units.h"

namespace rap::cli {
namespace {

struct RewriteArgs {
  std::string table, output, output_flag, key, layout = "frame", align, cover, compression = "zstd", memory = "512MiB",
                                                                                   temp_dir;
  std::string index_kind = "hash", cluster_by;
  int buckets = 1;
  std::optional<int64_t> row_group_rows, page_rows;
  bool no_cover = false, cogroup = false, quiet = false, no_delta = false, in_place = false;
};

Status RunRewrite(const RewriteArgs& a) {
  const std::string output = !a.output_flag.empty() ? a.output_flag : a.output;
  if (output.empty() && !a.in_place) return Status::InvalidArgument("give the output folder (OUTPUT or --output), or --in-place");
  if (a.in_place && a.no_delta) {
    return Status::InvalidArgument("--in-place writes a new version of the table; --no-delta excludes it");
  }
  if (!a.output_flag.empty() && !a.output.empty() && a.output != a.output_flag) {
    return Status::InvalidArgument("OUTPUT and --output differ");
  }
  index::RewriteOptions o;
  o.key_columns = SplitColumns(a.key);
  RAP_ASSIGN_OR_RETURN(o.layout, index::ParseRewriteLayout(a.layout));
  o.cluster_by = SplitColumns(a.cluster_by);
  if (o.layout != index::RewriteLayout::kZOrder && o.key_columns.empty()) {
    return Status::InvalidArgument("--key is required (except with --layout zorder)");
  }
  if (!a.align.empty()) {
    RAP_ASSIGN_OR_RETURN(uint64_t b, ParseByteSize(a.align));
    o.align = static_cast<int64_t>(b);
    if (o.layout != index::RewriteLayout::kFramePerKey && o.layout != index::RewriteLayout::kInterleaved &&
        o.layout != index::RewriteLayout::kBlob) {
      return Status::InvalidArgument("--align applies to --layout frame, interleaved and blob");
    }
  }
  o.buckets = a.buckets;
  RAP_ASSIGN_OR_RETURN(o.index_kind, index::ParseIndexKind(a.index_kind));
  RAP_ASSIGN_OR_RETURN(uint64_t memory, ParseByteSize(a.memory));
  o.memory = static_cast<int64_t>(memory);
  o.temp_dir = a.temp_dir;
  o.delta = !a.no_delta;
  o.in_place = a.in_place;
  o.cogroup = a.cogroup;
  o.cover = SplitColumns(a.cover);
  o.cover_all = !a.no_cover;
  if (a.no_cover && !o.cover.empty()) return Status::InvalidArgument("--cover and --no-cover exclude each other");
  RAP_ASSIGN_OR_RETURN(auto codec, parquet::ParseCodec(a.compression));
  o.writer.defaults.codec = codec.first;
  o.writer.defaults.codec_level = codec.second;
  if (a.row_group_rows) o.writer.row_group_max_rows = *a.row_group_rows;
  if (a.page_rows) o.writer.defaults.page_max_rows = *a.page_rows;
  if (!a.quiet && ::isatty(2)) {
    o.progress = [](int64_t done, int64_t total) {
      if (total >= 0) {
        std::fprintf(stderr, "\rreading files %lld/%lld", static_cast<long long>(done), static_cast<long long>(total));
        if (done == total) std::fprintf(stderr, "\n");
      } else {
        std::fprintf(stderr, "\rwritten files %lld", static_cast<long long>(done));
      }
    };
  }
  RAP_ASSIGN_OR_RETURN(index::RewriteResult r, index::RewriteTable(a.table, output, o));
  if (o.progress) std::fprintf(stderr, "\n");
  const std::string what =
      r.table_version < 0 ? std::string("folder")
      : (r.table_format == "iceberg" ? "Iceberg snapshot " : "Delta version ") + std::to_string(r.table_version);
  const std::string index_text =
      r.index_url.empty() ? std::string("no index")
                          : "index " + r.index_url + " (" + std::to_string(r.entries) + " entries)";
  std::printf("rewrote %s -> %s (%s): %lld rows of %lld file(s) into %zu file(s), layout %s, %s, %lld frames; %s; "
              "%.2f s\n",
              a.table.c_str(), r.output_url.c_str(), what.c_str(), static_cast<long long>(r.rows),
              static_cast<long long>(r.input_files), r.files.size(), index::RewriteLayoutName(o.layout),
              FormatBytes(r.bytes).c_str(), static_cast<long long>(r.frames), index_text.c_str(), r.seconds);
  if (r.runs_spilled > 0) {
    std::printf("sorted in bounded memory: %lld run(s) spilled, %s\n", static_cast<long long>(r.runs_spilled),
                FormatBytes(r.bytes_spilled).c_str());
  }
  return Status::OK();
}

CommandRegistrar reg("rewrite", [](CLI::App& app) {
  auto args = std::make_shared<RewriteArgs>();
  auto* cmd = app.add_subcommand(
      "rewrite", "Rewrite a table sorted and bucketed by a key into a lookup layout, with its RAP index");
  cmd->add_option("table", args->table,
                  "Input table: a Delta or Iceberg table, a folder/prefix of Parquet files, or a file")
      ->required();
  cmd->add_option("output", args->output,
                  "Output: a new Delta table (folder or prefix that must not hold files; written atomically)");
  cmd->add_flag("--in-place", args->in_place,
                "Write a new version of the input table instead: Delta, removes + adds with dataChange=false; "
                "Iceberg (v1/v2; partitioned: partition by partition), a replace snapshot with the new files "
                "under data/. Committed "
                "create-if-absent: a concurrent commit makes it fail cleanly");
  cmd->add_flag("--no-delta", args->no_delta, "Write a plain folder of Parquet files instead of a Delta table");
  cmd->add_option("--output", args->output_flag, "The output folder (same as OUTPUT)");
  cmd->add_option("--key", args->key,
                  "Key column(s), one or two, comma-separated (required except with --layout zorder)");
  cmd->add_option("--layout", args->layout, "sorted, page (a page per key), frame (a ZSTD frame per key), interleaved, blob (the key "
                  "columns plus one JSON column 'blob' of every other column, framed per key; lookups decode it), or "
                  "zorder (rows in Z-order of --cluster-by, for box queries; no index)")
      ->capture_default_str();
  cmd->add_option("--cluster-by", args->cluster_by,
                  "--layout zorder: the columns whose interleaved bits order the rows, e.g. x,y (1 to 8 columns: "
                  "integers, floats, dates, times, timestamps, strings by their first 8 bytes, binary)");
  cmd->add_option("--align", args->align, "Frame layouts: no key's data crosses a multiple of this, e.g. 4KiB");
  cmd->add_option("--buckets", args->buckets,
                  "Output files: one per bucket of the index's bucket function (each key in exactly one file)")
      ->capture_default_str();
  cmd->add_option("--index-kind", args->index_kind,
                  "Kind of the index built with the rewrite: hash (exact keys) or sorted (also ranges and prefixes; "
                  "--buckets partitions)")
      ->capture_default_str();
  cmd->add_flag("--cogroup", args->cogroup,
                "Co-group (a schema change): one row per key and file, every other column a list of its values");
  cmd->add_option("--cover", args->cover, "Covered columns of the index (default: every flat non-key column)");
  cmd->add_flag("--no-cover", args->no_cover, "No covering data in the index");
  cmd->add_option("--compression", args->compression, "Codec of the layouts that are not framed")
      ->capture_default_str();
  cmd->add_option("--memory", args->memory,
                  "Input buffered before a sorted run is spilled to a temporary file (runs are merged per bucket)")
      ->capture_default_str();
  cmd->add_option("--temp-dir", args->temp_dir, "Local folder for the spilled runs (default: the system's)");
  cmd->add_option("--row-group-rows", args->row_group_rows, "Rows per row group");
  cmd->add_option("--page-rows", args->page_rows, "Rows per page");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  cmd->callback([args] {
    Status st = RunRewrite(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
