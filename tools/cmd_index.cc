// `rap index build|update|compact|vacuum|inspect`: the RAP index of a table (docs/index-format.md).
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "output_format.h"
#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/maintenance.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/util/clock.h"
#include "rap/util/units.h"

namespace rap::cli {
namespace {

// `--snapshot`, `--as-of`, `--location-map` of build and update (Iceberg tables; docs/iceberg.md).
struct TableArgs {
  int64_t snapshot = -1;
  std::string as_of;
  std::vector<std::string> location_map;

  void AddTo(CLI::App* cmd) {
    cmd->add_option("--snapshot", snapshot, "Iceberg: index this snapshot id (default: the current snapshot)");
    cmd->add_option("--as-of", as_of,
                    "Iceberg: index the snapshot current at this time (ms since the epoch or UTC 'YYYY-MM-DD HH:MM:SS')");
    cmd->add_option("--location-map", location_map,
                    "Iceberg: OLD=NEW, read paths the metadata names under OLD from NEW (repeatable; docs/iceberg.md)");
  }
  Result<index::IndexTableOptions> Options() const {
    index::IndexTableOptions o;
    if (snapshot >= 0) o.snapshot_id = snapshot;
    if (!as_of.empty()) {
      RAP_ASSIGN_OR_RETURN(int64_t ms, table::iceberg::ParseAsOf(as_of));
      o.as_of_ms = ms;
    }
    if (o.snapshot_id && o.as_of_ms) return Status::InvalidArgument("give --snapshot or --as-of, not both");
    for (const std::string& m : location_map) {
      RAP_ASSIGN_OR_RETURN(auto pair, table::iceberg::ParseLocationMapping(m));
      o.location_map.push_back(std::move(pair));
    }
    return o;
  }
};

// "files 12/40" on one rewritten stderr line when stderr is a terminal.
std::function<void(int64_t, int64_t)> Progress(bool quiet) {
  if (quiet || !::isatty(2)) return nullptr;
  return [](int64_t done, int64_t total) {
    std::fprintf(stderr, "\rindexing files %lld/%lld", static_cast<long long>(done), static_cast<long long>(total));
    if (done == total) std::fprintf(stderr, "\n");
  };
}

struct BuildArgs {
  std::string table;
  std::string key;
  std::string index_url;
  std::string name = index::kDefaultIndexName;
  std::string kind = "hash";
  int buckets = 1;
  std::string cover, hoist;
  int threads = 2;
  int64_t page_rows = 0;  // 0: sized by the entries' width (index::FragmentPageRows)
  std::string memory = "1GiB";
  bool quiet = false;
  TableArgs table_args;
};

Status RunBuild(const BuildArgs& a) {
  index::BuildOptions o;
  o.key_columns = SplitColumns(a.key);
  o.index_url = a.index_url;
  o.name = a.name;
  RAP_ASSIGN_OR_RETURN(o.kind, index::ParseIndexKind(a.kind));
  o.buckets = a.buckets;
  o.cover = SplitColumns(a.cover);
  o.hoist = SplitColumns(a.hoist);
  o.threads = a.threads;
  o.fragment.page_rows = a.page_rows;
  RAP_ASSIGN_OR_RETURN(uint64_t memory, ParseByteSize(a.memory));
  o.memory = static_cast<int64_t>(memory);
  o.progress = Progress(a.quiet);
  RAP_ASSIGN_OR_RETURN(o.table, a.table_args.Options());
  RAP_ASSIGN_OR_RETURN(index::BuildResult r, index::BuildIndex(a.table, o));
  uint64_t bytes = 0;
  for (const auto& f : r.manifest.fragments) bytes += f.size;
  std::printf("%s index %s version %lld: %lld files, %lld key rows, %lld entries in %zu fragment(s), %llu bytes "
              "(%.1f bytes/entry), %.3f s (%.0f key rows/s)\n",
              index::IndexKindName(r.manifest.kind), r.index_url.c_str(), static_cast<long long>(r.manifest.version),
              static_cast<long long>(r.files),
              static_cast<long long>(r.key_rows), static_cast<long long>(r.entries), r.manifest.fragments.size(),
              static_cast<unsigned long long>(bytes), r.entries ? static_cast<double>(bytes) / r.entries : 0.0,
              r.seconds, r.seconds > 0 ? r.key_rows / r.seconds : 0.0);
  if (r.spills > 0) {
    std::printf("entry buffer reached --memory %lld time(s): spilled as extra fragments (rap index compact merges them)\n",
                static_cast<long long>(r.spills));
  }
  return Status::OK();
}

std::string IndexUrlOf(const std::string& url) {
  // A table URL names its default index; an index URL is used as is.
  auto r = io::OpenUrl(url);
  if (r.ok() && index::FindLatestVersion(*r->store, r->path).ok()) return url;
  return index::DefaultIndexUrl(url);
}

struct UpdateArgs {
  std::string url;
  int threads = 2;
  std::string memory = "1GiB";
  bool quiet = false;
  TableArgs table_args;
};

Status RunUpdate(const UpdateArgs& a) {
  index::UpdateOptions o;
  o.threads = a.threads;
  RAP_ASSIGN_OR_RETURN(uint64_t memory, ParseByteSize(a.memory));
  o.memory = static_cast<int64_t>(memory);
  o.progress = Progress(a.quiet);
  RAP_ASSIGN_OR_RETURN(o.table, a.table_args.Options());
  const std::string url = IndexUrlOf(a.url);
  RAP_ASSIGN_OR_RETURN(index::UpdateResult r, index::UpdateIndex(url, o));
  if (!r.changed) {
    std::printf("index %s is up to date (version %lld, table version %lld)\n", url.c_str(),
                static_cast<long long>(r.manifest.version), static_cast<long long>(r.manifest.table_version));
    return Status::OK();
  }
  std::printf("index %s version %lld (table version %lld): %lld files added (%lld key rows), %lld removed, "
              "%lld deletion vectors changed\n",
              url.c_str(), static_cast<long long>(r.manifest.version), static_cast<long long>(r.manifest.table_version),
              static_cast<long long>(r.added_files), static_cast<long long>(r.key_rows),
              static_cast<long long>(r.removed_files), static_cast<long long>(r.deletion_vectors_changed));
  return Status::OK();
}

struct CompactArgs {
  std::string url;
  int threads = 2;
  bool rebalance = false;
  int buckets = 0;
};

Status RunCompact(const CompactArgs& a) {
  index::CompactOptions o;
  o.threads = a.threads;
  o.rebalance = a.rebalance;
  o.partitions = a.buckets;
  const std::string url = IndexUrlOf(a.url);
  RAP_ASSIGN_OR_RETURN(index::CompactResult r, index::CompactIndex(url, o));
  if (!r.changed) {
    std::printf("index %s: nothing to compact (version %lld)\n", url.c_str(), static_cast<long long>(r.manifest.version));
    return Status::OK();
  }
  std::printf("index %s version %lld: %lld fragments merged into %lld, %lld entries kept, %lld dropped (removed files)\n",
              url.c_str(), static_cast<long long>(r.manifest.version), static_cast<long long>(r.fragments_before),
              static_cast<long long>(r.fragments_after), static_cast<long long>(r.entries_kept),
              static_cast<long long>(r.entries_dropped));
  return Status::OK();
}

struct VacuumArgs {
  std::string url;
  std::string retain = "168h";
  bool dry_run = false;
};

Status RunVacuum(const VacuumArgs& a) {
  index::VacuumOptions o;
  RAP_ASSIGN_OR_RETURN(o.retain_seconds, index::ParseDuration(a.retain));
  o.dry_run = a.dry_run;
  const std::string url = IndexUrlOf(a.url);
  RAP_ASSIGN_OR_RETURN(index::VacuumResult r, index::VacuumIndex(url, o));
  for (const std::string& p : r.deleted) std::printf("%s %s\n", a.dry_run ? "would delete" : "deleted", p.c_str());
  std::printf("%zu file(s) %s, %llu bytes; %lld manifest version(s) kept\n", r.deleted.size(),
              a.dry_run ? "to delete" : "deleted", static_cast<unsigned long long>(r.bytes),
              static_cast<long long>(r.manifests_kept));
  return Status::OK();
}

struct InspectArgs {
  std::string url;
  int64_t version = -1;
  bool json = false;
};

Status RunInspect(const InspectArgs& a) {
  const std::string url = IndexUrlOf(a.url);
  RAP_ASSIGN_OR_RETURN(std::string text, index::InspectIndex(url, a.version, a.json));
  std::fputs(text.c_str(), stdout);
  return Status::OK();
}

struct ListArgs {
  std::string table;
  bool json = false;
};

Status RunList(const ListArgs& a) {
  RAP_ASSIGN_OR_RETURN(std::vector<index::IndexListing> list, index::ListIndexes(a.table));
  for (const index::IndexListing& l : list) {
    std::string key;
    for (const index::KeyColumn& k : l.key) key += (key.empty() ? "" : ",") + k.name;
    if (a.json) {
      std::printf("{\"name\":%s,\"kind\":\"%s\",\"key\":%s,\"version\":%lld,\"table_version\":%lld,"
                  "\"buckets\":%d,\"entries\":%lld,\"url\":%s}\n",
                  columnar::JsonQuote(l.name).c_str(), index::IndexKindName(l.kind), columnar::JsonQuote(key).c_str(),
                  static_cast<long long>(l.version), static_cast<long long>(l.table_version), l.buckets,
                  static_cast<long long>(l.entries), columnar::JsonQuote(l.url).c_str());
    } else {
      std::printf("%-16s %-6s key %-20s version %lld (table version %lld), %d %s, %lld entries\n", l.name.c_str(),
                  index::IndexKindName(l.kind), key.c_str(), static_cast<long long>(l.version),
                  static_cast<long long>(l.table_version), l.buckets,
                  l.kind == index::IndexKind::kSorted ? "partitions" : "buckets", static_cast<long long>(l.entries));
    }
  }
  if (list.empty() && !a.json) std::printf("no index under %s/_rap_index/\n", a.table.c_str());
  return Status::OK();
}

CommandRegistrar reg("index", [](CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("index", "Build and maintain the RAP index of a table (docs/index-format.md)");
  cmd->require_subcommand(1);

  auto b = std::make_shared<BuildArgs>();
  CLI::App* build = cmd->add_subcommand("build", "Index a table (Delta, Iceberg, folder/prefix of Parquet files, or one file)");
  build->add_option("table", b->table, "Table URL: path, file://, http(s)://, s3://")->required();
  build->add_option("--key,-k", b->key, "Key column, or two comma-separated columns (compound key)")->required();
  build->add_option("--index", b->index_url, "Index URL (default: <table>/_rap_index/<name>)");
  build->add_option("--name", b->name, "Index name under <table>/_rap_index/")->capture_default_str();
  build->add_option("--kind", b->kind, "hash (exact keys) or sorted (also ranges and prefixes: rap lookup --range)")
      ->capture_default_str()->check(CLI::IsMember({"hash", "sorted"}));
  build->add_option("--buckets", b->buckets,
                    "Hash buckets, or sorted partitions (key ranges of even size); one fragment each per run")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  build->add_option("--cover", b->cover, "Covered columns: page locations in the index (no data-file footer read)");
  build->add_option("--hoist", b->hoist, "Hoisted columns: values in the index (no data read)");
  build->add_option("--threads", b->threads, "Files indexed in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  build->add_option("--page-rows", b->page_rows,
                    "Index entries per fragment page (default: by the entries' width, 32-256: fewer when "
                    "entries carry many covering records; docs/index-format.md)")
      ->check(CLI::Range(int64_t{8}, int64_t{1} << 20));
  build->add_option("--memory", b->memory,
                    "Memory budget of the buffered index entries (e.g. 512MiB; 0: unbounded); past it they are "
                    "written out as one more fragment per bucket")
      ->capture_default_str();
  build->add_flag("-q,--quiet", b->quiet, "No progress on stderr");
  b->table_args.AddTo(build);
  build->callback([b] {
    Status st = RunBuild(*b);
    if (!st.ok()) Fail(st);
  });

  auto l = std::make_shared<ListArgs>();
  CLI::App* list = cmd->add_subcommand("list", "The indexes of a table (<table>/_rap_index/<name>), one per line");
  list->add_option("table", l->table, "Table URL (a store that lists: path, file://, s3://)")->required();
  list->add_flag("--json", l->json, "One JSON object per index");
  list->callback([l] {
    Status st = RunList(*l);
    if (!st.ok()) Fail(st);
  });

  auto u = std::make_shared<UpdateArgs>();
  CLI::App* update = cmd->add_subcommand("update", "Index the files added to the table since the indexed version (Iceberg: up to --snapshot)");
  update->add_option("url", u->url, "Table or index URL")->required();
  update->add_option("--threads", u->threads, "Files indexed in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  update->add_option("--memory", u->memory, "Memory budget of the buffered index entries (as for build)")
      ->capture_default_str();
  update->add_flag("-q,--quiet", u->quiet, "No progress on stderr");
  u->table_args.AddTo(update);
  update->callback([u] {
    Status st = RunUpdate(*u);
    if (!st.ok()) Fail(st);
  });

  auto c = std::make_shared<CompactArgs>();
  CLI::App* compact = cmd->add_subcommand("compact", "Merge each bucket's fragments into one, dropping removed files");
  compact->add_option("url", c->url, "Table or index URL")->required();
  compact->add_option("--threads", c->threads, "Buckets merged in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  compact->add_flag("--rebalance", c->rebalance, "Sorted index: merge everything and choose even partition boundaries again");
  compact->add_option("--buckets", c->buckets, "Sorted index: re-partition into N partitions (implies --rebalance)")
      ->check(CLI::Range(1, 1 << 20));
  compact->callback([c] {
    Status st = RunCompact(*c);
    if (!st.ok()) Fail(st);
  });

  auto v = std::make_shared<VacuumArgs>();
  CLI::App* vacuum = cmd->add_subcommand("vacuum", "Delete index files no manifest within the retention references");
  vacuum->add_option("url", v->url, "Table or index URL")->required();
  vacuum->add_option("--retain", v->retain, "Keep files referenced by manifests newer than this (e.g. 0s, 30m, 168h, 7d)")
      ->capture_default_str();
  vacuum->add_flag("--dry-run", v->dry_run, "List what would be deleted");
  vacuum->callback([v] {
    Status st = RunVacuum(*v);
    if (!st.ok()) Fail(st);
  });

  auto i = std::make_shared<InspectArgs>();
  CLI::App* inspect = cmd->add_subcommand("inspect", "Manifest, fragments, buckets, sizes, entries, coverage");
  inspect->add_option("url", i->url, "Table or index URL")->required();
  inspect->add_option("--version", i->version, "Manifest version (default: the newest)");
  inspect->add_flag("--json", i->json, "Print the manifest JSON");
  inspect->callback([i] {
    Status st = RunInspect(*i);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
