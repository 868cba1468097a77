// `rap inspect FILE [--pages] [--json]`: what a Parquet file holds, from its metadata alone: schema
// tree, key-value metadata, row groups, and per column chunk the codec, encodings, sizes,
// statistics and page index; --pages walks every page header of every column chunk.
//
// The report is built once as JSON (the --json output) and the text form is rendered from it, so
// both always say the same thing.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "inspect_frames.h"
#include "inspect_report.h"
#include "orc_cli.h"

namespace rap::cli {
namespace {

using json = nlohmann::ordered_json;
using InspectArgs = InspectOptions;

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string Bytes(const json& v) {
  int64_t n = v.get<int64_t>();
  if (n < 10 * 1024) return fmt::format("{} B", n);
  if (n < 10 * 1024 * 1024) return fmt::format("{} B ({:.1f} KiB)", n, n / 1024.0);
  return fmt::format("{} B ({:.1f} MiB)", n, n / (1024.0 * 1024.0));
}

void PrintText(const json& j, std::FILE* out) {
  if (j.value("format", "") == "orc") {
    PrintOrcText(j, out);
    return;
  }
  fmt::print(out, "file        {} ({}, footer {} B)\n", Str(j["file"]), Bytes(j["size"]), Str(j["footer_length"]));
  if (j.contains("created_by")) fmt::print(out, "created_by  {}\n", Str(j["created_by"]));
  fmt::print(out, "version     {}\nrows        {}\nrow groups  {}\ncolumns     {}\n", Str(j["version"]),
             Str(j["num_rows"]), j["row_groups"].size(), Str(j["num_columns"]));
  fmt::print(out, "\nkey-value metadata ({})\n", j["key_value_metadata"].size());
  for (const auto& kv : j["key_value_metadata"]) {
    std::string v = kv["value"].is_null() ? "(null)" : Str(kv["value"]);
    if (v.size() > 200) v = v.substr(0, 200) + fmt::format("... ({} bytes)", v.size());
    for (char& ch : v) ch = (ch == '\n' || ch == '\r') ? ' ' : ch;
    fmt::print(out, "  {} = {}\n", Str(kv["key"]), v);
  }
  fmt::print(out, "\nschema\n");
  for (const auto& e : j["schema"]) {
    std::string line = std::string(2 + 2 * e["depth"].get<size_t>(), ' ') + Str(e["name"]);
    std::string desc;
    if (e.contains("repetition")) desc += Str(e["repetition"]);
    desc += e.contains("type") ? " " + Str(e["type"]) : (e["depth"] == 0 ? "" : " group");
    if (e.contains("type_length")) desc += fmt::format("({})", Str(e["type_length"]));
    if (e.contains("logical_type")) desc += " " + Str(e["logical_type"]);
    if (e.contains("converted_type")) {
      std::string decimal = e.contains("precision") ? fmt::format("({},{})", Str(e["precision"]),
                                                                  e.contains("scale") ? Str(e["scale"]) : "0")
                                                    : "";
      desc += " [" + Str(e["converted_type"]) + decimal + "]";
    }
    if (e.contains("field_id")) desc += " id=" + Str(e["field_id"]);
    fmt::print(out, "{:<40} {}\n", line, desc);
  }
  for (const auto& g : j["row_groups"]) {
    fmt::print(out, "\nrow group {}: {} rows, {} total", Str(g["index"]), Str(g["num_rows"]),
               Bytes(g["total_byte_size"]));
    if (g.contains("file_offset")) fmt::print(out, ", file offset {}", Str(g["file_offset"]));
    if (g.contains("sorting_columns")) fmt::print(out, ", sorted by {}", g["sorting_columns"].dump());
    fmt::print(out, "\n");
    for (const auto& c : g["columns"]) {
      fmt::print(out, "  [{}] {}", Str(c["index"]), Str(c["path"]));
      if (!c.contains("type")) {
        fmt::print(out, "  (no metadata{})\n", c.contains("encrypted") ? ": encrypted" : "");
        continue;
      }
      std::string encodings;
      for (const auto& e : c["encodings"]) encodings += (encodings.empty() ? "" : ",") + Str(e);
      fmt::print(out, "  {} {} {}\n", Str(c["type"]), Str(c["codec"]), encodings);
      fmt::print(out, "      values {}, compressed {}, uncompressed {}, data page @{}", Str(c["num_values"]),
                 Bytes(c["compressed_size"]), Bytes(c["uncompressed_size"]), Str(c["data_page_offset"]));
      if (c.contains("dictionary_page_offset"))
        fmt::print(out, ", dictionary page @{}", Str(c["dictionary_page_offset"]));
      fmt::print(out, "\n");
      if (c.contains("statistics")) {
        std::string s;
        for (const auto& [k, v] : c["statistics"].items()) s += (s.empty() ? "" : ", ") + k + " " + Str(v);
        fmt::print(out, "      statistics: {}\n", s.empty() ? "(empty)" : s);
      }
      if (c.contains("key_value_metadata")) {
        std::string s;
        for (const auto& kv : c["key_value_metadata"]) {
          s += (s.empty() ? "" : ", ") + Str(kv["key"]) + " = " + (kv["value"].is_null() ? "(null)" : Str(kv["value"]));
        }
        fmt::print(out, "      key-value metadata: {}\n", s);
      }
      auto index = [](const json& v) {
        return v.is_null() ? std::string("no")
                           : fmt::format("yes ({} pages @{}+{})", Str(v["pages"]), Str(v["offset"]), Str(v["length"]));
      };
      fmt::print(out, "      page index: column index {}, offset index {}", index(c["column_index"]),
                 index(c["offset_index"]));
      if (c.contains("bloom_filter")) fmt::print(out, ", bloom filter @{}", Str(c["bloom_filter"]["offset"]));
      fmt::print(out, "\n");
      if (c.contains("pages")) {
        fmt::print(out, "      {:>12} {:>6} {:>10} {:>12} {:<15} {:<23} {:>8} {:>10} {:>8}\n", "offset", "header",
                   "compressed", "uncompressed", "type", "encoding", "values", "first_row", "rows");
        for (const auto& p : c["pages"]) {
          auto opt = [&](const char* k) { return p.contains(k) ? Str(p[k]) : std::string("-"); };
          fmt::print(out, "      {:>12} {:>6} {:>10} {:>12} {:<15} {:<23} {:>8} {:>10} {:>8}\n", Str(p["offset"]),
                     Str(p["header_size"]), Str(p["compressed_size"]), Str(p["uncompressed_size"]), Str(p["type"]),
                     opt("encoding"), opt("num_values"), opt("first_row"), opt("num_rows"));
          if (p.contains("frames")) PrintFrames(p["frames"], out);
        }
        if (c.contains("pages_error")) fmt::print(out, "      error: {}\n", Str(c["pages_error"]));
      }
    }
  }
}

CommandRegistrar registrar("inspect", [](CLI::App& app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show the metadata of a Parquet or ORC file: schema, row groups / stripes, columns");
  cmd->description(
      "Show what a Parquet file holds, from its footer: the schema tree (name, repetition, physical, logical and\n"
      "converted type), key-value metadata, created_by, row groups and, per column chunk, the codec, encodings,\n"
      "compressed/uncompressed sizes, value count, statistics (min/max decoded for ints, floats and strings, hex\n"
      "otherwise) and whether a ColumnIndex / OffsetIndex exists. Reads only the footer and the page indexes,\n"
      "plus the column chunks with --pages.\n"
      "ORC files (a .orc name or the ORC magic) show their postscript, schema, user metadata, column and stripe\n"
      "statistics and stripes; --pages adds each stripe's column encodings and streams.");
  cmd->add_option("file", args->file, "Parquet or ORC file: path, file://, http(s):// or s3:// URL")->required();
  cmd->add_flag("--pages", args->pages,
                "Also list every page of every column chunk, walking the page headers from the chunk start: offset, "
                "header size, compressed/uncompressed size, page type, encoding, values, and first row and row count "
                "(from the OffsetIndex when present)");
  cmd->add_flag("--frames", args->frames,
                "With --pages: list every ZSTD frame and skippable frame of multi-frame pages (a frame per key); "
                "without it each such page gets a one-line summary");
  cmd->add_flag("--json", args->json, "Print the report as one JSON object instead of text");
  cmd->footer(
      "Examples:\n"
      "  rap inspect data.parquet\n"
      "  rap inspect --pages data.parquet      # every page, with its first row and row count\n"
      "  rap inspect --pages --frames keyed.parquet   # and every ZSTD / skippable frame of each page\n"
      "  rap inspect --json http://host/data.parquet | jq '.row_groups[0].columns[0].statistics'\n"
      "Exit status: 0 on success; 1 when the file cannot be read or is malformed (the message on stderr\n"
      "names the file, the structure and the byte offset).");
  cmd->callback([args]() {
    Status late;
    auto report = InspectReport(*args, &late);
    if (!report.ok()) {
      Fail(report.status());
      return;
    }
    if (args->json) {
      std::fputs(report->dump(2, ' ', false, json::error_handler_t::replace).c_str(), stdout);
      std::fputc('\n', stdout);
    } else {
      PrintText(*report, stdout);
    }
    std::fflush(stdout);
    if (!late.ok()) Fail(late);
  });
});

}  // namespace
}  // namespace rap::cli
