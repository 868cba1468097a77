// rap rewrite --in-place of a partitioned Iceberg table (rewrite_plan.h, WritePartitions): the rows of
// each partition of the default spec are bucketed by the key, sorted and written apart, so every new
// file holds one partition's rows and its manifest entry carries that partition's tuple
// (rap/table/iceberg_commit.h). The tuples are the replaced files' own: rows keep their partition.
#include <fmt/format.h>

#include "index/rewrite_plan.h"

namespace rap::index::internal {

Status WritePartitions(const table::TableSnapshot& snap, const RewriteOptions& options, RewriteOutput& out,
                       const WriteBucketsFn& write_buckets) {
  if (out.partitions.empty()) return write_buckets(snap, options);
  table::TableSnapshot base = snap;  // the snapshot without its files; each partition gets its own
  base.files.clear();
  const std::string prefix = out.name_prefix;
  const int64_t total = static_cast<int64_t>(snap.files.size());
  int64_t read_before = 0;  // input files of the partitions written so far (progress counts over all)
  RewriteOptions part_options = options;
  Status st;
  for (size_t p = 0; p < out.partitions.size() && st.ok(); ++p) {
    table::TableSnapshot part = base;
    for (size_t i : out.partitions[p].files) part.files.push_back(snap.files[i]);
    out.partition = p;
    out.name_prefix = fmt::format("{}p{:05d}-", prefix, p);
    if (options.progress) {
      part_options.progress = [&options, read_before, total](int64_t done, int64_t files_total) {
        if (files_total < 0) return options.progress(done, files_total);  // output files: counted by the writer
        options.progress(read_before + done, total);
      };
    }
    st = write_buckets(part, part_options);
    read_before += static_cast<int64_t>(part.files.size());
  }
  out.name_prefix = prefix;
  return st;
}

}  // namespace rap::index::internal
