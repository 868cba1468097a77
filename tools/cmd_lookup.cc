// `rap lookup TABLE|INDEX_URL [--index NAME] --key V ... | --range LO..HI | --prefix P`: point, range
// and prefix lookups through a RAP index (index.h). The rows of each key in request order (a range:
// every key's rows in key order), written as a table, JSON lines, CSV or Parquet; --stats prints the
// lookup's rounds, requests and bytes; a key cut by --limit prints its next page token to stderr.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "disk_cache_flags.h"
#include "output_format.h"
#include "plan_flags.h"
#include "rap/index/build.h"
#include "rap/index/index.h"

namespace rap::cli {
namespace {

struct LookupArgs {
  std::string url;
  std::string index_name;
  std::string range;
  std::string prefix;
  std::vector<std::string> keys;
  std::string keys_file;
  std::string columns;
  int64_t limit = -1;
  std::vector<std::string> page_tokens;
  OutputFlags output;
  bool stats = false;
  DiskCacheArgs disk_cache;
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

void PrintStats(const index::Index& idx, const std::string& what, const index::LookupStats& stats) {
  const index::IndexInfo& info = idx.info();
  std::fprintf(stderr, "index %s (%s, manifest version %lld, %lld files, %lld fragments)\n", info.index_url.c_str(),
               index::IndexKindName(info.kind), static_cast<long long>(info.manifest_version),
               static_cast<long long>(info.files), static_cast<long long>(info.fragments));
  std::fprintf(stderr, "opened in %d round%s (%s)\n", info.open_rounds, info.open_rounds == 1 ? "" : "s",
               info.opened_from_bundle ? "latest bundle" : "version hint and manifest");
  std::fprintf(stderr, "%s\n%s", what.c_str(), stats.ToString().c_str());
}

// --range / --prefix: the rows of every key in the range, in key order, one page of --limit rows.
Status RunRangeLookup(const LookupArgs& a, const index::Index& idx) {
  const std::vector<index::KeyColumn>& kc = idx.info().key;
  if (!a.keys.empty() || !a.keys_file.empty()) return Status::InvalidArgument("--range/--prefix go without --key/--keys-file");
  if (!a.range.empty() && !a.prefix.empty()) return Status::InvalidArgument("give --range or --prefix, not both");
  if (a.page_tokens.size() > 1) return Status::InvalidArgument("a range lookup takes one --page-token");
  index::KeyRange range;
  if (!a.range.empty()) {
    RAP_ASSIGN_OR_RETURN(range, index::ParseKeyRange(kc, a.range));
  } else {
    RAP_ASSIGN_OR_RETURN(range, index::PrefixRange(kc, SplitKeyText(a.prefix, kc.size(), ',')));
  }
  index::RangeLookupOptions ro;
  ro.columns = SplitColumns(a.columns);
  ro.limit = a.limit;
  if (!a.page_tokens.empty()) ro.page_token = a.page_tokens[0];
  ro.use_cover = !a.no_cover;
  index::RangeResult res;
  for (int i = 0; i < a.repeat; ++i) {
    RAP_ASSIGN_OR_RETURN(res, idx.LookupRange(range, ro));
  }
  if (a.output.format != "none") {
    RAP_ASSIGN_OR_RETURN(auto out, OpenBatchOutput(a.output, res.schema));
    if (res.rows.num_rows > 0) RAP_RETURN_NOT_OK(out->Write(res.rows));
    RAP_RETURN_NOT_OK(out->Close());
  }
  if (!res.next_page_token.empty()) std::fprintf(stderr, "more rows, --page-token %s\n", res.next_page_token.c_str());
  if (a.stats) {
    PrintStats(idx, fmt::format("range {}\nkeys {}", index::FormatKeyRange(kc, range), res.keys), res.stats);
  }
  return a.plan.WriteLog();
}

Status RunLookup(const LookupArgs& a) {
  index::IndexOpenOptions oo;
  RAP_ASSIGN_OR_RETURN(oo.plan, a.plan.Options());
  // One process, one lookup: read only the fragments the keys' buckets name, not every fragment.
  oo.preload = false;
  // --index NAME: the table's index <url>/_rap_index/NAME (a secondary index).
  const std::string url = a.index_name.empty() ? a.url : index::DefaultIndexUrl(a.url, a.index_name);
  RAP_ASSIGN_OR_RETURN(auto idx, index::Index::Open(url, oo));
  if (!a.range.empty() || !a.prefix.empty()) return RunRangeLookup(a, *idx);
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
    PrintStats(*idx, fmt::format("keys {}", keys.size()), res.stats);
    PrintDiskCacheStats();
  }
  return a.plan.WriteLog();
}

CommandRegistrar reg("lookup", [](CLI::App& app) {
  auto args = std::make_shared<LookupArgs>();
  CLI::App* cmd = app.add_subcommand("lookup", "Look keys up through the RAP index of a table (rap index build)");
  cmd->add_option("url", args->url, "Table URL (its default index) or index URL")->required();
  cmd->add_option("--index", args->index_name, "Index name: <url>/_rap_index/NAME (rap index list; default: the URL's index)");
  cmd->add_option("--key,-k", args->keys, "A key (repeatable); a compound key as \"a,b\"");
  cmd->add_option("--range", args->range,
                  "Every key in a range, in key order: LO..HI (inclusive), LO..<HI, LO<..HI, LO.., ..HI; a compound "
                  "key's bounds may give only the leading columns (\"a\" or \"a,b\")");
  cmd->add_option("--prefix", args->prefix,
                  "Every key starting with P (string/binary: byte prefix); compound: \"a\" or \"a,P\" (leading "
                  "columns equal, the last one a prefix)");
  cmd->add_option("--keys-file", args->keys_file, "Keys, one per line (compound parts separated by tabs)");
  cmd->add_option("--columns,-c", args->columns, "Comma-separated output columns (default: all)");
  cmd->add_option("--limit,-n", args->limit, "At most N rows per key (a range: in all); then a page token is printed");
  cmd->add_option("--page-token", args->page_tokens, "Resume a key where its last page ended (one per key)");
  args->output.AddTo(cmd, /*allow_none=*/true);
  cmd->add_flag("--stats", args->stats, "Print dependent rounds, requests, bytes and index page counts to stderr");
  cmd->add_flag("--no-cover", args->no_cover, "Read data files through their footers even when the index covers the columns");
  cmd->add_option("--repeat", args->repeat, "Run the lookup N times in this process (warm-cache measurements)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  args->plan.AddTo(cmd);
  args->disk_cache.AddTo(cmd);
  cmd->callback([args] {
    Status st = args->disk_cache.Apply();
    if (st.ok()) st = RunLookup(*args);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
