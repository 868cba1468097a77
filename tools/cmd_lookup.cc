// `rap lookup TABLE|INDEX_URL --key V ...`: point lookups through the RAP index (index.h). The rows
// of each key in request order, written as a table, JSON lines, CSV or Parquet; --stats prints the
// lookup's rounds, requests and bytes; a key cut by --limit prints its next page token to stderr.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "output_format.h"
#include "plan_flags.h"
#include "rap/index/index.h"

namespace rap::cli {
namespace {

struct LookupArgs {
  std::string url;
  std::vector<std::string> keys;
  std::string keys_file;
  std::string columns;
  int64_t limit = -1;
  std::vector<std::string> page_tokens;
  OutputFlags output;
  bool stats = false;
  bool no_cover = false;
  int repeat = 1;
  PlanFlags plan;
};

// One key per --key; a compound key's parts are separated by commas ("a,1"), so a string key with a
// comma needs --keys-file (one key per line, parts separated by tabs).
std::vector<std::string> SplitKeyText(const std::string& text, size_t parts, char sep) {
  if (parts <= 1) return {text};
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t i = 0; i + 1 < parts; ++i) {
    const size_t p = text.find(sep, at);
    if (p == std::string::npos) break;
    out.push_back(text.substr(at, p - at));
    at = p + 1;
  }
  out.push_back(text.substr(at));
  return out;
}

Status RunLookup(const LookupArgs& a) {
  index::IndexOpenOptions oo;
  RAP_ASSIGN_OR_RETURN(oo.plan, a.plan.Options());
  RAP_ASSIGN_OR_RETURN(auto idx, index::Index::Open(a.url, oo));
  const size_t nparts = idx->info().key.size();
  std::vector<index::Key> keys;
  for (const std::string& k : a.keys) {
    auto key = idx->ParseKey(SplitKeyText(k, nparts, ','));
    if (!key.ok()) return Status::InvalidArgument("--key '" + k + "': " + key.status().message());
    keys.push_back(std::move(*key));
  }
  if (!a.keys_file.empty()) {
    std::ifstream in(a.keys_file);
    if (!in) return Status::IOError(a.keys_file + ": cannot open the keys file");
    std::string line;
    int64_t n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      auto key = idx->ParseKey(SplitKeyText(line, nparts, '\t'));
      if (!key.ok()) return Status::InvalidArgument(a.keys_file + ":" + std::to_string(n) + ": " + key.status().message());
      keys.push_back(std::move(*key));
    }
  }
  if (keys.empty()) return Status::InvalidArgument("no key given (--key or --keys-file)");
  index::LookupOptions lo;
  lo.columns = SplitColumns(a.columns);
  lo.limit_per_key = a.limit;
  lo.page_tokens = a.page_tokens;
  lo.use_cover = !a.no_cover;
  index::LookupResult res;
  for (int i = 0; i < a.repeat; ++i) {
    RAP_ASSIGN_OR_RETURN(res, idx->Lookup(keys, lo));
    if (a.stats && a.repeat > 1) {
      std::fprintf(stderr, "lookup %d: rounds %d, requests %lld, bytes %llu, %.6f s\n", i + 1,
                   res.stats.dependent_rounds, static_cast<long long>(res.stats.requests),
                   static_cast<unsigned long long>(res.stats.bytes), res.stats.seconds);
    }
  }
  if (a.output.format != "none") {
    RAP_ASSIGN_OR_RETURN(auto out, OpenBatchOutput(a.output, res.schema));
    for (const index::KeyRows& k : res.keys) {
      if (k.rows.num_rows > 0) RAP_RETURN_NOT_OK(out->Write(k.rows));
    }
    RAP_RETURN_NOT_OK(out->Close());
  }
  for (const index::KeyRows& k : res.keys) {
    if (!k.next_page_token.empty()) {
      std::fprintf(stderr, "key %s: more rows, --page-token %s\n", index::FormatKey(idx->info().key, k.key).c_str(),
                   k.next_page_token.c_str());
    }
  }
  if (a.stats) {
    const index::IndexInfo& info = idx->info();
    std::fprintf(stderr, "index %s (manifest version %lld, %lld files, %lld fragments)\n", info.index_url.c_str(),
                 static_cast<long long>(info.manifest_version), static_cast<long long>(info.files),
                 static_cast<long long>(info.fragments));
    std::fprintf(stderr, "keys %zu\n%s", keys.size(), res.stats.ToString().c_str());
  }
  return a.plan.WriteLog();
}

CommandRegistrar reg("lookup", [](CLI::App& app) {
  auto args = std::make_shared<LookupArgs>();
  CLI::App* cmd = app.add_subcommand("lookup", "Look keys up through the RAP index of a table (rap index build)");
  cmd->add_option("url", args->url, "Table URL (its default index) or index URL")->required();
  cmd->add_option("--key,-k", args->keys, "A key (repeatable); a compound key as \"a,b\"");
  cmd->add_option("--keys-file", args->keys_file, "Keys, one per line (compound parts separated by tabs)");
  cmd->add_option("--columns,-c", args->columns, "Comma-separated output columns (default: all)");
  cmd->add_option("--limit,-n", args->limit, "At most N rows per key (then a page token is printed)");
  cmd->add_option("--page-token", args->page_tokens, "Resume a key where its last page ended (one per key)");
  args->output.AddTo(cmd, /*allow_none=*/true);
  cmd->add_flag("--stats", args->stats, "Print dependent rounds, requests, bytes and index page counts to stderr");
  cmd->add_flag("--no-cover", args->no_cover, "Read data files through their footers even when the index covers the columns");
  cmd->add_option("--repeat", args->repeat, "Run the lookup N times in this process (warm-cache measurements)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  args->plan.AddTo(cmd);
  cmd->callback([args] {
    Status st = RunLookup(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
