// `rap compact TABLE`: append compaction of a Paimon table — each bucket's small files bin-packed
// into files of a target size and committed as a COMPACT snapshot (docs/paimon.md).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "rap/table/paimon_compact.h"
#include "rap/util/units.h"

namespace rap::cli {
namespace {

struct CompactArgs {
  std::string table, target;
  int min_files = 2;
  bool dry_run = false, quiet = false;
};

Status RunCompact(const CompactArgs& a) {
  table::PaimonCompactOptions o;
  if (!a.target.empty()) {
    RAP_ASSIGN_OR_RETURN(o.target_file_size, ParseByteSize(a.target));
    if (o.target_file_size == 0) return Status::InvalidArgument("--target-file-size must be positive");
  }
  o.min_files = a.min_files;
  o.dry_run = a.dry_run;
  if (!a.quiet && ::isatty(2)) {
    o.progress = [](int64_t done, int64_t total) {
      std::fprintf(stderr, "\rwritten files %lld/%lld", static_cast<long long>(done), static_cast<long long>(total));
      if (done == total) std::fprintf(stderr, "\n");
    };
  }
  RAP_ASSIGN_OR_RETURN(table::PaimonCompactResult r, table::CompactPaimonTable(a.table, o));
  if (r.files_read == 0) {
    std::printf("%s: nothing to compact at snapshot %lld (no bucket has %d files under the target size, "
                "nor a deletion vector)\n",
                a.table.c_str(), static_cast<long long>(r.base_snapshot_id), a.min_files);
    return Status::OK();
  }
  if (a.dry_run) {
    std::printf("%s: would compact %lld file(s) (%s) of %lld bucket(s) into %lld file(s) at snapshot %lld\n",
                a.table.c_str(), static_cast<long long>(r.files_read), FormatBytes(r.bytes_read).c_str(),
                static_cast<long long>(r.buckets), static_cast<long long>(r.files_written),
                static_cast<long long>(r.base_snapshot_id));
    return Status::OK();
  }
  std::printf("compacted %s: snapshot %lld -> %lld (COMPACT): %lld file(s), %s -> %lld file(s), %s; %lld rows in "
              "%lld bucket(s); %lld file(s) warmed (%s); %.2f s\n",
              a.table.c_str(), static_cast<long long>(r.base_snapshot_id), static_cast<long long>(r.snapshot_id),
              static_cast<long long>(r.files_read), FormatBytes(r.bytes_read).c_str(),
              static_cast<long long>(r.files_written), FormatBytes(r.bytes_written).c_str(),
              static_cast<long long>(r.rows), static_cast<long long>(r.buckets),
              static_cast<long long>(r.warmup_files), FormatBytes(r.warmup_bytes).c_str(), r.seconds);
  if (r.index_files_dropped > 0) {
    std::printf("deletion vectors applied: %lld index file(s) left the index manifest\n",
                static_cast<long long>(r.index_files_dropped));
  }
  return Status::OK();
}

CommandRegistrar reg("compact", [](CLI::App& app) {
  auto args = std::make_shared<CompactArgs>();
  auto* cmd = app.add_subcommand(
      "compact", "Compact a Paimon append table: bin-pack each bucket's small files into files of a target size, "
                 "committed as a COMPACT snapshot (docs/paimon.md)");
  cmd->add_option("table", args->table, "The Paimon table (folder or s3:// prefix)")->required();
  cmd->add_option("--target-file-size", args->target,
                  "Output files of about this size (default: the table's target-file-size, else 256MiB)");
  cmd->add_option("--min-files", args->min_files, "Compact a bucket when it has at least N files under the target")
      ->capture_default_str();
  cmd->add_flag("--dry-run", args->dry_run, "Print what would be compacted; write nothing");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  cmd->callback([args] {
    Status st = RunCompact(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
