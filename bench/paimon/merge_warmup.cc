// The seed's warmup of the first file of every sorted run, measured on its own (docs/benchmarks/paimon.md):
// each bucket of a Paimon primary-key table whose files are level-0 runs (bench/paimon/pypaimon_side.py
// write) merged through read::MergeReader by the trimmed key, reading the key, _SEQUENCE_NUMBER and
// _VALUE_KIND, as rap's merge-on-read does — with the runs warmed all at once (warmup_threads = 8,
// what rap's Paimon reader uses) and one after another (warmup_threads = 1: the round trips of the
// runs' first reads in sequence, as a merge that opens its runs on demand pays them). Prints, per
// setting, the median and minimum time to the first merged batch and to the end of the merge, over
// every bucket in turn, REPEAT times. The table is a local path or an s3:// URL (the store from the
// environment: AWS_ENDPOINT_URL for rap-netsim).
//
//   bench_paimon_merge_warmup TABLE [--repeat 5] [--key _KEY_id]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rap/read/merge_reader.h"
#include "rap/table/table.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Paimon merge: warmup of every run's first file, all at once against one at a time"};
  std::string url, key = "_KEY_id";
  int repeat = 5;
  app.add_option("table", url)->required();
  app.add_option("--repeat", repeat);
  app.add_option("--key", key);
  CLI11_PARSE(app, argc, argv);
  auto snap = rap::table::OpenTable(url);
  if (!snap.ok()) {
    std::fprintf(stderr, "%s\n", snap.status().ToString().c_str());
    return 1;
  }
  // The bucket of each file: its folder. Every file of these tables is a level-0 run of its own.
  std::map<std::string, std::vector<const rap::table::DataFile*>> buckets;
  for (const rap::table::DataFile& f : snap->files) {
    buckets[f.relative_path.substr(0, f.relative_path.rfind('/'))].push_back(&f);
  }
  std::printf("table %s: %zu buckets, %zu files\n", url.c_str(), buckets.size(), snap->files.size());
  for (int threads : {8, 1}) {
    std::vector<double> first, total;
    int64_t warmed = 0, rows = 0;
    for (int r = 0; r <= repeat; ++r) {
      for (const auto& [dir, files] : buckets) {
        std::vector<rap::read::MergeRun> runs;
        for (const rap::table::DataFile* f : files) {
          rap::read::MergeRun run;
          rap::read::ScanFile sf;
          sf.path = f->path;
          sf.size = f->size;
          run.files.push_back(sf);
          runs.push_back(std::move(run));
        }
        rap::read::MergeOptions mo;
        mo.key_columns = {key};
        mo.columns = {key, "_SEQUENCE_NUMBER", "_VALUE_KIND"};
        mo.warmup_threads = threads;
        const double t0 = Now();
        auto merge = rap::read::MergeReader::Make(snap->store, std::move(runs), mo);
        if (!merge.ok()) {
          std::fprintf(stderr, "%s: %s\n", dir.c_str(), merge.status().ToString().c_str());
          return 1;
        }
        double t_first = -1;
        int64_t n = 0;
        while (true) {
          auto b = (*merge)->Next();
          if (!b.ok()) {
            std::fprintf(stderr, "%s: %s\n", dir.c_str(), b.status().ToString().c_str());
            return 1;
          }
          if (!*b) break;
          if (t_first < 0) t_first = Now() - t0;
          n += (*b)->num_rows;
        }
        if (r == 0) continue;  // untimed
        first.push_back(t_first);
        total.push_back(Now() - t0);
        warmed += (*merge)->stats().runs_warmed;
        rows += n;
      }
    }
    std::printf("warmup_threads %d: first merged batch median %.4f s (min %.4f), merge median %.4f s (min %.4f), "
                "%lld merges, runs warmed %lld, rows %lld\n",
                threads, Median(first), *std::min_element(first.begin(), first.end()), Median(total),
                *std::min_element(total.begin(), total.end()), static_cast<long long>(first.size()),
                static_cast<long long>(warmed), static_cast<long long>(rows));
  }
  return 0;
}
