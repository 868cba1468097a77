// rap._rap.build_index / update_index / compact_index / vacuum_index / rewrite / inspect_index: the
// work of `rap index ...` and `rap rewrite`, with the CLI's options as arguments. The GIL is released
// for the work; the progress callback (optional) is called with it held.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "binding.h"
#include "rap/format/writer_options.h"
#include "rap/index/build.h"
#include "rap/index/maintenance.h"
#include "rap/index/rewrite.h"
#include "rap/io/object_store.h"
#include "rap/table/paimon_compact.h"
#include "rap/util/units.h"

namespace rap::py {
namespace {

// A Python callable progress(done, total) for the core's callback. An exception it raises (or a
// Ctrl-C noticed in it) is kept and raised when the work returns.
struct Progress {
  explicit Progress(nb::object f) : fn(std::move(f)) {}
  nb::object fn;
  bool failed = false;
  nb::object type, value, trace;

  std::function<void(int64_t, int64_t)> Callback() {
    if (fn.is_none()) return nullptr;
    return [this](int64_t done, int64_t total) {
      nb::gil_scoped_acquire gil;
      if (failed) return;
      if (PyErr_CheckSignals() == 0) {
        PyObject* r = PyObject_CallFunction(fn.ptr(), "LL", static_cast<long long>(done), static_cast<long long>(total));
        if (r != nullptr) {
          Py_DECREF(r);
          return;
        }
      }
      failed = true;
      PyObject *t = nullptr, *v = nullptr, *tb = nullptr;
      PyErr_Fetch(&t, &v, &tb);
      type = nb::steal(t);
      value = nb::steal(v);
      trace = nb::steal(tb);
    };
  }
  void RaiseIfFailed() {
    if (!failed) return;
    PyErr_Restore(type.release().ptr(), value.release().ptr(), trace.release().ptr());
    throw nb::python_error();
  }
};

// The work under the storage options; with `cancel` (its cancellation hook) on a thread of its own,
// so that Ctrl-C stops it promptly (RunInterruptible).
template <typename Fn>
auto Run(const EnvOverlay& overlay, Progress* progress, Fn&& fn, io::CancellationToken* cancel = nullptr) {
  using R = decltype(fn());
  auto r = WithStorageOptions(overlay, [&]() -> R {
    if (!cancel) return fn();
    nb::gil_scoped_acquire gil;
    return RunInterruptible<R>(std::function<R()>(fn), cancel);
  });
  if (progress) progress->RaiseIfFailed();
  if (!r.ok()) Raise(r.status());
  return std::move(*r);
}

std::string IndexUrlOf(const std::string& url) {
  auto r = io::OpenUrl(url);
  if (r.ok() && index::FindLatestVersion(*r->store, r->path).ok()) return url;
  return index::DefaultIndexUrl(url);
}

void CheckThreads(int threads) {
  if (threads < 1 || threads > 256) Raise(Status::InvalidArgument("threads: " + std::to_string(threads) + " is not in [1, 256]"));
}

nb::dict BuildIndex(const std::string& table, const std::vector<std::string>& key, std::optional<std::string> index_url,
                    const std::string& name, int buckets, std::vector<std::string> cover, std::vector<std::string> hoist,
                    int threads, int64_t page_rows, nb::object progress, nb::handle storage_options,
                    const std::string& kind, std::optional<int64_t> snapshot_id, std::optional<std::string> as_of,
                    std::optional<std::map<std::string, std::string>> location_map) {
  index::BuildOptions o;
  o.table = SnapshotArgs(snapshot_id, as_of, location_map);
  o.kind = Unwrap(index::ParseIndexKind(kind));
  if (key.empty() || key.size() > 2) Raise(Status::InvalidArgument("key: one or two key columns, got " + std::to_string(key.size())));
  if (buckets < 1 || buckets > (1 << 20)) Raise(Status::InvalidArgument("buckets: " + std::to_string(buckets) + " is not in [1, 1048576]"));
  if (page_rows < 8 || page_rows > (int64_t{1} << 20)) Raise(Status::InvalidArgument("page_rows: " + std::to_string(page_rows) + " is not in [8, 1048576]"));
  CheckThreads(threads);
  o.key_columns = key;
  if (index_url) o.index_url = *index_url;
  o.name = name;
  o.buckets = buckets;
  o.cover = std::move(cover);
  o.hoist = std::move(hoist);
  o.threads = threads;
  o.fragment.page_rows = page_rows;
  Progress p(progress);
  o.progress = p.Callback();
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::BuildResult r = Run(overlay, &p, [&] { return index::BuildIndex(table, o); }, cancel.get());
  uint64_t bytes = 0;
  for (const auto& f : r.manifest.fragments) bytes += f.size;
  nb::dict d;
  d["index_url"] = r.index_url;
  d["version"] = r.manifest.version;
  d["table_version"] = r.manifest.table_version;  // Delta version, Iceberg snapshot id, -1 for a folder
  d["files"] = r.files;
  d["key_rows"] = r.key_rows;
  d["entries"] = r.entries;
  d["fragments"] = r.manifest.fragments.size();
  d["kind"] = index::IndexKindName(r.manifest.kind);
  d["bytes"] = bytes;
  d["seconds"] = r.seconds;
  return d;
}

nb::dict UpdateIndex(const std::string& url, int threads, nb::object progress, nb::handle storage_options,
                     std::optional<int64_t> snapshot_id, std::optional<std::string> as_of,
                     std::optional<std::map<std::string, std::string>> location_map) {
  CheckThreads(threads);
  index::UpdateOptions o;
  o.table = SnapshotArgs(snapshot_id, as_of, location_map);
  o.threads = threads;
  Progress p(progress);
  o.progress = p.Callback();
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  std::string index_url;
  index::UpdateResult r = Run(
      overlay, &p,
      [&] {
        index_url = IndexUrlOf(url);
        return index::UpdateIndex(index_url, o);
      },
      cancel.get());
  nb::dict d;
  d["index_url"] = index_url;
  d["changed"] = r.changed;
  d["version"] = r.manifest.version;
  d["table_version"] = r.manifest.table_version;
  d["added_files"] = r.added_files;
  d["removed_files"] = r.removed_files;
  d["deletion_vectors_changed"] = r.deletion_vectors_changed;
  d["key_rows"] = r.key_rows;
  return d;
}

nb::dict CompactIndex(const std::string& url, int threads, nb::handle storage_options) {
  CheckThreads(threads);
  index::CompactOptions o;
  o.threads = threads;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  std::string index_url;
  index::CompactResult r = Run(overlay, nullptr, [&] {
    index_url = IndexUrlOf(url);
    return index::CompactIndex(index_url, o);
  });
  nb::dict d;
  d["index_url"] = index_url;
  d["changed"] = r.changed;
  d["version"] = r.manifest.version;
  d["fragments_before"] = r.fragments_before;
  d["fragments_after"] = r.fragments_after;
  d["entries_kept"] = r.entries_kept;
  d["entries_dropped"] = r.entries_dropped;
  return d;
}

nb::dict VacuumIndex(const std::string& url, const std::string& retain, bool dry_run, nb::handle storage_options) {
  index::VacuumOptions o;
  auto secs = index::ParseDuration(retain);
  if (!secs.ok()) Raise(Status::InvalidArgument("retain: " + secs.status().message()));
  o.retain_seconds = *secs;
  o.dry_run = dry_run;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::VacuumResult r = Run(overlay, nullptr, [&] { return index::VacuumIndex(IndexUrlOf(url), o); });
  nb::dict d;
  d["deleted"] = r.deleted;
  d["bytes"] = r.bytes;
  d["manifests_kept"] = r.manifests_kept;
  return d;
}

std::string InspectIndex(const std::string& url, int64_t version, nb::handle storage_options) {
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  return Run(overlay, nullptr, [&] { return index::InspectIndex(IndexUrlOf(url), version, /*json=*/true); });
}

// rap.compact: `rap compact TABLE` (Paimon append compaction).
nb::dict CompactTable(const std::string& table, nb::handle target_file_size, int min_files, bool dry_run,
                      nb::object progress, nb::handle storage_options) {
  table::PaimonCompactOptions o;
  if (!target_file_size.is_none()) {
    o.target_file_size = ByteSizeArg("target_file_size", target_file_size);
    if (o.target_file_size == 0) Raise(Status::InvalidArgument("target_file_size must be positive"));
  }
  if (min_files < 2) Raise(Status::InvalidArgument("min_files must be at least 2, got " + std::to_string(min_files)));
  o.min_files = min_files;
  o.dry_run = dry_run;
  Progress p(progress);
  o.progress = p.Callback();
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  table::PaimonCompactResult r =
      Run(overlay, &p, [&] { return table::CompactPaimonTable(table, o); }, cancel.get());
  nb::dict d;
  d["snapshot_id"] = r.snapshot_id;
  d["base_snapshot_id"] = r.base_snapshot_id;
  d["buckets"] = r.buckets;
  d["files_read"] = r.files_read;
  d["files_written"] = r.files_written;
  d["rows"] = r.rows;
  d["bytes_read"] = r.bytes_read;
  d["bytes_written"] = r.bytes_written;
  d["warmup_files"] = r.warmup_files;
  d["warmup_bytes"] = r.warmup_bytes;
  d["files_parallel"] = r.files_parallel;
  d["index_files_dropped"] = r.index_files_dropped;
  d["adaptive_disabled"] = r.adaptive_disabled;
  d["seconds"] = r.seconds;
  return d;
}

// What rap.rewrite and rap.spark.rewrite's commit return in common.
nb::dict RewriteResultDict(const index::RewriteResult& r) {
  nb::dict d;
  d["output_url"] = r.output_url;
  d["index_url"] = r.index_url;
  d["files"] = r.files;
  d["input_files"] = r.input_files;
  d["rows"] = r.rows;
  d["entries"] = r.entries;
  d["bytes"] = r.bytes;
  d["frames"] = r.frames;
  d["table_version"] = r.table_version;  // the Delta version or Iceberg snapshot id committed; -1: a folder
  d["table_format"] = r.table_format;    // "delta", "iceberg" or "" (a folder)
  return d;
}

nb::dict Rewrite(const std::string& table, const std::vector<std::string>& key, std::optional<std::string> output,
                 const std::string& layout, nb::handle align, int buckets, bool cogroup,
                 std::optional<std::vector<std::string>> cover, bool delta, bool in_place, const std::string& compression,
                 std::optional<int64_t> row_group_rows, std::optional<int64_t> page_rows, nb::handle memory,
                 std::optional<std::string> temp_dir, int threads, nb::object progress, nb::handle storage_options,
                 const std::string& index_kind, const std::vector<std::string>& cluster_by) {
  // The CLI's checks (tools/cmd_rewrite.cc), before any I/O.
  if (!output && !in_place) Raise(Status::InvalidArgument("give the output folder (output), or in_place=True"));
  if (in_place && !delta) {
    Raise(Status::InvalidArgument("in_place writes a new version of the table; delta=False excludes it"));
  }
  const bool zorder = layout == "zorder";
  if (!zorder && (key.empty() || key.size() > 2)) {
    Raise(Status::InvalidArgument("key: one or two key columns, got " + std::to_string(key.size())));
  }
  if (buckets < 1 || buckets > (1 << 20)) Raise(Status::InvalidArgument("buckets: " + std::to_string(buckets) + " is not in [1, 1048576]"));
  CheckThreads(threads);
  index::RewriteOptions o;
  o.key_columns = key;
  o.layout = Unwrap(index::ParseRewriteLayout(layout));
  o.cluster_by = cluster_by;
  if (!align.is_none()) {
    o.align = static_cast<int64_t>(ByteSizeArg("align", align));
    if (o.layout != index::RewriteLayout::kFramePerKey && o.layout != index::RewriteLayout::kInterleaved &&
        o.layout != index::RewriteLayout::kBlob) {
      Raise(Status::InvalidArgument("align applies to layout frame, interleaved and blob"));
    }
  }
  o.buckets = buckets;
  o.index_kind = Unwrap(index::ParseIndexKind(index_kind));
  o.memory = static_cast<int64_t>(ByteSizeArg("memory", memory));
  if (temp_dir) o.temp_dir = *temp_dir;
  o.delta = delta;
  o.in_place = in_place;
  o.cogroup = cogroup;
  if (cover) {
    o.cover = *cover;
    o.cover_all = !cover->empty();
  }
  auto codec = parquet::ParseCodec(compression);
  if (!codec.ok()) Raise(Status::InvalidArgument("compression: " + codec.status().message()));
  o.writer.defaults.codec = codec->first;
  o.writer.defaults.codec_level = codec->second;
  if (row_group_rows) o.writer.row_group_max_rows = *row_group_rows;
  if (page_rows) o.writer.defaults.page_max_rows = *page_rows;
  o.threads = threads;
  Progress p(progress);
  o.progress = p.Callback();
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::RewriteResult r =
      Run(overlay, &p, [&] { return index::RewriteTable(table, output.value_or(""), o); }, cancel.get());
  nb::dict d = RewriteResultDict(r);
  d["runs_spilled"] = r.runs_spilled;
  d["bytes_spilled"] = r.bytes_spilled;
  d["seconds"] = r.seconds;
  return d;
}

// Distributed builds (rap.spark.build_index; index::PlanBuild / BuildPart / CommitBuild): the plan
// crosses processes as a dict of plain values, a part as its manifest JSON.
nb::dict PlanToDict(const index::BuildPlan& p) {
  nb::dict d;
  d["index_url"] = p.index_url;
  d["table_root"] = p.table_root;
  d["table_kind"] = p.table_kind;
  d["table_version"] = p.table_version;
  d["etag_source"] = p.etag_source;
  d["base_version"] = p.base_version;
  d["run"] = p.run;
  d["paths"] = nb::cast(p.paths);
  d["sizes"] = nb::cast(p.sizes);
  return d;
}

index::BuildPlan PlanFromDict(const nb::dict& d) {
  index::BuildPlan p;
  try {
    p.index_url = nb::cast<std::string>(d["index_url"]);
    p.table_root = nb::cast<std::string>(d["table_root"]);
    p.table_kind = nb::cast<std::string>(d["table_kind"]);
    p.table_version = nb::cast<int64_t>(d["table_version"]);
    p.etag_source = nb::cast<std::string>(d["etag_source"]);
    p.base_version = nb::cast<int64_t>(d["base_version"]);
    p.run = nb::cast<int64_t>(d["run"]);
    p.paths = nb::cast<std::vector<std::string>>(d["paths"]);
    p.sizes = nb::cast<std::vector<uint64_t>>(d["sizes"]);
  } catch (const std::exception& e) {
    Raise(Status::InvalidArgument(std::string("build plan: not a plan of plan_build (") + e.what() + ")"));
  }
  return p;
}

index::BuildOptions PartOptions(const std::vector<std::string>& key, std::optional<std::string> index_url,
                                const std::string& name, int buckets, std::vector<std::string> cover,
                                std::vector<std::string> hoist, int threads, int64_t page_rows) {
  index::BuildOptions o;
  if (key.empty() || key.size() > 2) Raise(Status::InvalidArgument("key: one or two key columns, got " + std::to_string(key.size())));
  if (buckets < 1 || buckets > (1 << 20)) Raise(Status::InvalidArgument("buckets: " + std::to_string(buckets) + " is not in [1, 1048576]"));
  if (page_rows < 8 || page_rows > (int64_t{1} << 20)) Raise(Status::InvalidArgument("page_rows: " + std::to_string(page_rows) + " is not in [8, 1048576]"));
  CheckThreads(threads);
  o.key_columns = key;
  if (index_url) o.index_url = *index_url;
  o.name = name;
  o.buckets = buckets;
  o.cover = std::move(cover);
  o.hoist = std::move(hoist);
  o.threads = threads;
  o.fragment.page_rows = page_rows;
  return o;
}

nb::dict PlanBuild(const std::string& table, const std::vector<std::string>& key, std::optional<std::string> index_url,
                   const std::string& name, nb::handle storage_options) {
  index::BuildOptions o = PartOptions(key, std::move(index_url), name, 1, {}, {}, 1, 256);
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::BuildPlan plan = Run(overlay, nullptr, [&] { return index::PlanBuild(table, o); });
  return PlanToDict(plan);
}

std::string BuildPart(const std::string& table, const nb::dict& plan_dict, const std::vector<int32_t>& ordinals,
                      const std::string& token, const std::vector<std::string>& key, int buckets,
                      std::vector<std::string> cover, std::vector<std::string> hoist, int threads, int64_t page_rows,
                      nb::handle storage_options) {
  const index::BuildPlan plan = PlanFromDict(plan_dict);
  index::BuildOptions o = PartOptions(key, plan.index_url, index::kDefaultIndexName, buckets, std::move(cover), std::move(hoist),
                                      threads, page_rows);
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::Manifest part = Run(overlay, nullptr, [&] { return index::BuildPart(table, plan, ordinals, token, o); },
                             cancel.get());
  return index::ManifestToJson(part);
}

nb::dict CommitBuild(const nb::dict& plan_dict, const std::vector<std::pair<std::string, std::vector<int32_t>>>& parts,
                     nb::handle storage_options) {
  const index::BuildPlan plan = PlanFromDict(plan_dict);
  std::vector<index::BuildPartResult> results;
  for (size_t i = 0; i < parts.size(); ++i) {
    index::BuildPartResult r;
    r.part = Unwrap(index::ManifestFromJson(parts[i].first, "of build part " + std::to_string(i)));
    r.ordinals = parts[i].second;
    results.push_back(std::move(r));
  }
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::Manifest m = Run(overlay, nullptr, [&] { return index::CommitBuild(plan, results); });
  int64_t entries = 0, key_rows = 0;
  uint64_t bytes = 0;
  for (const auto& f : m.fragments) {
    bytes += f.size;
    entries += f.entries;
    key_rows += f.rows;
  }
  nb::dict d;
  d["index_url"] = plan.index_url;
  d["version"] = m.version;
  d["files"] = m.files.size();
  d["key_rows"] = key_rows;
  d["entries"] = entries;
  d["fragments"] = m.fragments.size();
  d["bytes"] = bytes;
  return d;
}

// Distributed updates (rap.spark.update_index; index::PlanUpdate / BuildPart / CommitUpdate): the
// plan is a dict holding the build plan of the parts ("build") and what the parts need.
nb::dict UpdatePlanToDict(const index::UpdatePlan& p) {
  nb::dict d;
  d["build"] = PlanToDict(p.build);
  d["added"] = nb::cast(p.added);
  d["key"] = nb::cast(p.key_columns);
  d["buckets"] = p.buckets;
  d["cover"] = nb::cast(p.cover);
  d["hoist"] = nb::cast(p.hoist);
  d["changed"] = p.changed;
  d["removed_files"] = p.removed_files;
  d["deletion_vectors_changed"] = p.deletion_vectors_changed;
  return d;
}

index::UpdatePlan UpdatePlanFromDict(const nb::dict& d) {
  index::UpdatePlan p;
  try {
    p.build = PlanFromDict(nb::cast<nb::dict>(d["build"]));
    p.added = nb::cast<std::vector<int32_t>>(d["added"]);
    p.key_columns = nb::cast<std::vector<std::string>>(d["key"]);
    p.buckets = nb::cast<int32_t>(d["buckets"]);
    p.cover = nb::cast<std::vector<std::string>>(d["cover"]);
    p.hoist = nb::cast<std::vector<std::string>>(d["hoist"]);
    p.changed = nb::cast<bool>(d["changed"]);
    p.removed_files = nb::cast<int64_t>(d["removed_files"]);
    p.deletion_vectors_changed = nb::cast<int64_t>(d["deletion_vectors_changed"]);
  } catch (const nb::python_error&) {
    throw;
  } catch (const std::exception& e) {
    Raise(Status::InvalidArgument(std::string("update plan: not a plan of plan_update (") + e.what() + ")"));
  }
  return p;
}

// `url`: an index, or a table (its index `name`).
nb::dict PlanUpdate(const std::string& url, const std::string& name, nb::handle storage_options) {
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  std::string index_url;
  index::UpdatePlan plan = Run(overlay, nullptr, [&] {
    auto r = io::OpenUrl(url);
    const bool is_index = r.ok() && index::FindLatestVersion(*r->store, r->path).ok();
    index_url = is_index ? url : index::DefaultIndexUrl(url, name);
    return index::PlanUpdate(index_url);
  });
  nb::dict d = UpdatePlanToDict(plan);
  d["table_url"] = index::ResolveUrl(index_url, plan.build.table_root);
  return d;
}

nb::dict CommitUpdate(const nb::dict& plan_dict, const std::vector<std::pair<std::string, std::vector<int32_t>>>& parts,
                      nb::handle storage_options) {
  const index::UpdatePlan plan = UpdatePlanFromDict(plan_dict);
  std::vector<index::BuildPartResult> results;
  for (size_t i = 0; i < parts.size(); ++i) {
    index::BuildPartResult r;
    r.part = Unwrap(index::ManifestFromJson(parts[i].first, "of update part " + std::to_string(i)));
    r.ordinals = parts[i].second;
    results.push_back(std::move(r));
  }
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::UpdateResult r = Run(overlay, nullptr, [&] { return index::CommitUpdate(plan, results); });
  nb::dict d;
  d["index_url"] = plan.build.index_url;
  d["changed"] = r.changed;
  d["version"] = r.manifest.version;
  d["table_version"] = r.manifest.table_version;
  d["added_files"] = r.added_files;
  d["removed_files"] = r.removed_files;
  d["deletion_vectors_changed"] = r.deletion_vectors_changed;
  d["key_rows"] = r.key_rows;
  return d;
}

// Distributed rewrites (rap.spark.rewrite; index::PlanRewriteJob / CountRewriteBuckets /
// ReadRewriteRows / WriteRewriteBuckets / CommitRewriteJob): the options and the job cross processes
// as dicts of plain values, a task's index part as its manifest JSON.
index::RewriteOptions JobOptionsFromDict(const nb::dict& d) {
  index::RewriteOptions o;
  try {
    o.key_columns = nb::cast<std::vector<std::string>>(d["key"]);
    o.layout = Unwrap(index::ParseRewriteLayout(nb::cast<std::string>(d["layout"])));
    o.buckets = nb::cast<int32_t>(d["buckets"]);
    if (!d["cover"].is_none()) {
      o.cover = nb::cast<std::vector<std::string>>(d["cover"]);
      o.cover_all = !o.cover.empty();
    }
    o.cogroup = nb::cast<bool>(d["cogroup"]);
    if (!d["align"].is_none()) o.align = nb::cast<int64_t>(d["align"]);
    auto codec = parquet::ParseCodec(nb::cast<std::string>(d["compression"]));
    if (!codec.ok()) Raise(Status::InvalidArgument("compression: " + codec.status().message()));
    o.writer.defaults.codec = codec->first;
    o.writer.defaults.codec_level = codec->second;
    if (!d["row_group_rows"].is_none()) o.writer.row_group_max_rows = nb::cast<int64_t>(d["row_group_rows"]);
    if (!d["page_rows"].is_none()) o.writer.defaults.page_max_rows = nb::cast<int64_t>(d["page_rows"]);
    o.memory = nb::cast<int64_t>(d["memory"]);
    if (!d["temp_dir"].is_none()) o.temp_dir = nb::cast<std::string>(d["temp_dir"]);
    o.threads = nb::cast<int>(d["threads"]);
  } catch (const nb::python_error&) {
    throw;
  } catch (const std::exception& e) {
    Raise(Status::InvalidArgument(std::string("rewrite options: not the options of rap.spark.rewrite (") + e.what() + ")"));
  }
  if (o.buckets < 1 || o.buckets > (1 << 20)) Raise(Status::InvalidArgument("buckets: " + std::to_string(o.buckets) + " is not in [1, 1048576]"));
  if (o.memory < 1) Raise(Status::InvalidArgument("memory: not positive"));
  CheckThreads(o.threads);
  return o;
}

nb::dict JobToDict(const index::RewriteJob& j) {
  nb::dict d;
  d["table_url"] = j.table_url;
  d["table_kind"] = j.table_kind;
  d["table_version"] = j.table_version;
  d["paths"] = nb::cast(j.paths);
  d["sizes"] = nb::cast(j.sizes);
  d["output_url"] = j.output_url;
  d["token"] = j.token;
  return d;
}

index::RewriteJob JobFromDict(const nb::dict& d) {
  index::RewriteJob j;
  try {
    j.table_url = nb::cast<std::string>(d["table_url"]);
    j.table_kind = nb::cast<std::string>(d["table_kind"]);
    j.table_version = nb::cast<int64_t>(d["table_version"]);
    j.paths = nb::cast<std::vector<std::string>>(d["paths"]);
    j.sizes = nb::cast<std::vector<uint64_t>>(d["sizes"]);
    j.output_url = nb::cast<std::string>(d["output_url"]);
    j.token = nb::cast<std::string>(d["token"]);
  } catch (const nb::python_error&) {
    throw;
  } catch (const std::exception& e) {
    Raise(Status::InvalidArgument(std::string("rewrite job: not a job of plan_rewrite (") + e.what() + ")"));
  }
  if (j.paths.size() != j.sizes.size()) Raise(Status::InvalidArgument("rewrite job: paths and sizes differ in length"));
  return j;
}

nb::dict PlanRewriteJob(const std::string& table, const std::string& output, const nb::dict& opts,
                        nb::handle storage_options) {
  const index::RewriteOptions o = JobOptionsFromDict(opts);
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  return JobToDict(Run(overlay, nullptr, [&] { return index::PlanRewriteJob(table, output, o); }));
}

std::vector<std::pair<int32_t, int64_t>> CountRewriteBuckets(const nb::dict& job_dict, const nb::dict& opts,
                                                             const std::vector<int32_t>& ordinals,
                                                             nb::handle storage_options) {
  const index::RewriteJob job = JobFromDict(job_dict);
  index::RewriteOptions o = JobOptionsFromDict(opts);
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  std::vector<int64_t> counts =
      Run(overlay, nullptr, [&] { return index::CountRewriteBuckets(job, ordinals, o); }, cancel.get());
  std::vector<std::pair<int32_t, int64_t>> out;
  for (size_t b = 0; b < counts.size(); ++b) {
    if (counts[b] > 0) out.push_back({static_cast<int32_t>(b), counts[b]});
  }
  return out;
}

std::unique_ptr<Reader> ReadRewriteRows(const nb::dict& job_dict, const nb::dict& opts, const std::vector<int32_t>& ordinals,
                                        nb::handle storage_options) {
  const index::RewriteJob job = JobFromDict(job_dict);
  index::RewriteOptions o = JobOptionsFromDict(opts);
  auto cancel = std::make_shared<io::CancellationToken>();
  o.cancel = cancel;
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  auto source = Run(overlay, nullptr, [&] { return index::ReadRewriteRows(job, ordinals, o); });
  SchemaPtr schema = source->schema();
  return std::make_unique<Reader>(std::move(source), schema, std::make_shared<StatsHolder>(), cancel);
}

nb::dict WriteRewritePart(const nb::dict& job_dict, const nb::dict& opts, const std::vector<int32_t>& ordinal_of_bucket,
                          const std::string& token, nb::handle data, nb::handle storage_options) {
  const index::RewriteJob job = JobFromDict(job_dict);
  index::RewriteOptions o = JobOptionsFromDict(opts);
  std::unique_ptr<columnar::RecordBatchReader> rows = ImportStream(data);
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  // Not on a thread of its own: the rows' stream may call back into Python (it takes the GIL).
  index::RewriteTaskResult r =
      Run(overlay, nullptr, [&] { return index::WriteRewriteBuckets(job, o, ordinal_of_bucket, token, *rows); });
  nb::dict d;
  d["part"] = index::ManifestToJson(r.part);
  nb::list files;
  for (size_t i = 0; i < r.ordinals.size(); ++i) {
    nb::dict f;
    f["ordinal"] = r.ordinals[i];
    f["bucket"] = r.buckets[i];
    f["rows"] = r.rows[i];
    f["path"] = r.adds[i].path;
    f["size"] = r.adds[i].size;
    f["stats"] = r.adds[i].stats;
    files.append(f);
  }
  d["files"] = files;
  d["entries"] = r.entries;
  d["frames"] = r.frames;
  return d;
}

nb::dict CommitRewriteJob(const nb::dict& job_dict, const nb::dict& opts, const std::vector<nb::dict>& tasks,
                          nb::handle storage_options) {
  const index::RewriteJob job = JobFromDict(job_dict);
  const index::RewriteOptions o = JobOptionsFromDict(opts);
  std::vector<index::RewriteTaskResult> results;
  try {
    for (size_t i = 0; i < tasks.size(); ++i) {
      const nb::dict& t = tasks[i];
      index::RewriteTaskResult r;
      r.part = Unwrap(index::ManifestFromJson(nb::cast<std::string>(t["part"]), "of rewrite task " + std::to_string(i)));
      r.entries = nb::cast<int64_t>(t["entries"]);
      r.frames = nb::cast<int64_t>(t["frames"]);
      for (nb::handle fh : nb::cast<nb::list>(t["files"])) {
        nb::dict f = nb::cast<nb::dict>(fh);
        r.ordinals.push_back(nb::cast<int32_t>(f["ordinal"]));
        r.buckets.push_back(nb::cast<int32_t>(f["bucket"]));
        r.rows.push_back(nb::cast<int64_t>(f["rows"]));
        table::DeltaAddFile a;
        a.path = nb::cast<std::string>(f["path"]);
        a.size = nb::cast<int64_t>(f["size"]);
        a.stats = nb::cast<std::string>(f["stats"]);
        r.adds.push_back(std::move(a));
      }
      results.push_back(std::move(r));
    }
  } catch (const nb::python_error&) {
    throw;
  } catch (const std::exception& e) {
    Raise(Status::InvalidArgument(std::string("rewrite commit: not the results of write_rewrite_part (") + e.what() + ")"));
  }
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  index::RewriteResult r = Run(overlay, nullptr, [&] { return index::CommitRewriteJob(job, o, results); });
  nb::dict d = RewriteResultDict(r);
  d["index_version"] = r.manifest.version;
  d["fragments"] = r.manifest.fragments.size();
  return d;
}

}  // namespace

void BindMaintenance(nb::module_& m) {
  m.def("plan_build", &PlanBuild, nb::arg("table"), nb::arg("key"), nb::arg("index") = nb::none(),
        nb::arg("name") = "default", nb::arg("storage_options") = nb::none());
  m.def("build_part", &BuildPart, nb::arg("table"), nb::arg("plan"), nb::arg("ordinals"), nb::arg("token"),
        nb::arg("key"), nb::arg("buckets") = 1, nb::arg("cover") = std::vector<std::string>(),
        nb::arg("hoist") = std::vector<std::string>(), nb::arg("threads") = 2, nb::arg("page_rows") = 256,
        nb::arg("storage_options") = nb::none());
  m.def("commit_build", &CommitBuild, nb::arg("plan"), nb::arg("parts"), nb::arg("storage_options") = nb::none());
  m.def("plan_rewrite", &PlanRewriteJob, nb::arg("table"), nb::arg("output"), nb::arg("options"),
        nb::arg("storage_options") = nb::none());
  m.def("count_rewrite_buckets", &CountRewriteBuckets, nb::arg("job"), nb::arg("options"), nb::arg("ordinals"),
        nb::arg("storage_options") = nb::none());
  m.def("read_rewrite_rows", &ReadRewriteRows, nb::arg("job"), nb::arg("options"), nb::arg("ordinals"),
        nb::arg("storage_options") = nb::none());
  m.def("write_rewrite_part", &WriteRewritePart, nb::arg("job"), nb::arg("options"), nb::arg("ordinal_of_bucket"),
        nb::arg("token"), nb::arg("rows"), nb::arg("storage_options") = nb::none());
  m.def("commit_rewrite", &CommitRewriteJob, nb::arg("job"), nb::arg("options"), nb::arg("tasks"),
        nb::arg("storage_options") = nb::none());
  m.def("plan_update", &PlanUpdate, nb::arg("index"), nb::arg("name") = "default", nb::arg("storage_options") = nb::none());
  m.def("commit_update", &CommitUpdate, nb::arg("plan"), nb::arg("parts"), nb::arg("storage_options") = nb::none());
  m.def("build_index", &BuildIndex, nb::arg("table"), nb::arg("key"), nb::arg("index") = nb::none(),
        nb::arg("name") = "default", nb::arg("buckets") = 1, nb::arg("cover") = std::vector<std::string>(),
        nb::arg("hoist") = std::vector<std::string>(), nb::arg("threads") = 2, nb::arg("page_rows") = 256,
        nb::arg("progress") = nb::none(), nb::arg("storage_options") = nb::none(), nb::arg("kind") = "hash",
        nb::arg("snapshot_id") = nb::none(), nb::arg("as_of") = nb::none(), nb::arg("location_map") = nb::none());
  m.def("update_index", &UpdateIndex, nb::arg("url"), nb::arg("threads") = 2, nb::arg("progress") = nb::none(),
        nb::arg("storage_options") = nb::none(), nb::arg("snapshot_id") = nb::none(), nb::arg("as_of") = nb::none(),
        nb::arg("location_map") = nb::none());
  m.def("compact_index", &CompactIndex, nb::arg("url"), nb::arg("threads") = 2, nb::arg("storage_options") = nb::none());
  m.def("vacuum_index", &VacuumIndex, nb::arg("url"), nb::arg("retain") = "168h", nb::arg("dry_run") = false,
        nb::arg("storage_options") = nb::none());
  m.def("inspect_index", &InspectIndex, nb::arg("url"), nb::arg("version") = -1, nb::arg("storage_options") = nb::none());
  m.def("compact_table", &CompactTable, nb::arg("table"), nb::arg("target_file_size") = nb::none(),
        nb::arg("min_files") = 2, nb::arg("dry_run") = false, nb::arg("progress") = nb::none(),
        nb::arg("storage_options") = nb::none());
  m.def("rewrite", &Rewrite, nb::arg("table"), nb::arg("key"), nb::arg("output") = nb::none(),
        nb::arg("layout") = "frame", nb::arg("align") = nb::none(), nb::arg("buckets") = 1, nb::arg("cogroup") = false,
        nb::arg("cover") = nb::none(), nb::arg("delta") = true, nb::arg("in_place") = false,
        nb::arg("compression") = "zstd", nb::arg("row_group_rows") = nb::none(), nb::arg("page_rows") = nb::none(),
        nb::arg("memory") = "512MiB", nb::arg("temp_dir") = nb::none(), nb::arg("threads") = 2,
        nb::arg("progress") = nb::none(), nb::arg("storage_options") = nb::none(), nb::arg("index_kind") = "hash",
        nb::arg("cluster_by") = std::vector<std::string>());
}

}  // namespace rap::py
