#include "orc_cli.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "rap/plan/byte_range.h"

namespace rap::cli {

using json = nlohmann::ordered_json;

bool HasOrcExtension(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".orc";
}

Result<bool> StartsWithOrcMagic(io::ObjectStore& store, const std::string& path) {
  RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, store.Head(path));
  if (info.size < 3) return false;
  io::ReadStats stats;
  const ByteRange range{0, 3};
  RAP_ASSIGN_OR_RETURN(auto bufs,
                       store.ReadRanges(path, std::span<const ByteRange>(&range, 1), io::ReadOptions{}, &stats));
  return orc::HasOrcMagic(bufs.at(0).span());
}

Result<std::unique_ptr<orc::OrcReader>> OpenOrc(io::ObjectStore& store, const std::string& path,
                                                const std::string& name) {
  RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, store.Head(path));
  Buffer bytes;
  if (info.size > 0) {
    io::ReadStats stats;
    const ByteRange range{0, info.size};
    RAP_ASSIGN_OR_RETURN(auto bufs,
                         store.ReadRanges(path, std::span<const ByteRange>(&range, 1), io::ReadOptions{}, &stats));
    bytes = bufs.at(0);
  }
  return orc::OrcReader::Open(name, std::move(bytes));
}

namespace {

json StatsJson(const orc::ColumnStats& s) {
  json j;
  j["values"] = s.num_values;
  if (s.has_null) j["has_null"] = *s.has_null;
  if (!s.kind.empty()) j["kind"] = s.kind;
  if (!s.min.empty()) j["min"] = s.min;
  if (!s.max.empty()) j["max"] = s.max;
  if (!s.sum.empty()) j["sum"] = s.sum;
  return j;
}

json ColumnsJson(const orc::FileTail& t, const std::vector<orc::ColumnStats>& stats) {
  json cols = json::array();
  for (size_t id = 0; id < t.types.nodes.size(); ++id) {
    json c;
    c["id"] = id;
    c["type"] = t.types.ToString(static_cast<uint32_t>(id));
    if (id < stats.size()) c["statistics"] = StatsJson(stats[id]);
    cols.push_back(std::move(c));
  }
  return cols;
}

}  // namespace

Result<json> InspectOrc(const orc::OrcReader& reader, bool streams) {
  const orc::FileTail& t = reader.tail();
  json j;
  j["file"] = t.name;
  j["format"] = "orc";
  j["size"] = t.file_size;
  j["version"] = t.VersionString();
  j["writer"] = t.WriterName();
  j["writer_version"] = t.writer_version;
  if (!t.software_version.empty()) j["software_version"] = t.software_version;
  j["compression"] = orc::CompressionName(t.compression);
  j["compression_block_size"] = t.compression_block_size;
  j["postscript_length"] = t.postscript_length;
  j["footer_length"] = t.footer_length;
  j["metadata_length"] = t.metadata_length;
  if (!t.metadata_status.ok()) j["metadata_error"] = t.metadata_status.ToString();
  j["num_rows"] = t.num_rows;
  j["row_index_stride"] = t.row_index_stride;
  j["schema"] = t.types.ToString();
  j["user_metadata"] = json::array();
  for (const auto& [k, v] : t.user_metadata) j["user_metadata"].push_back({{"key", k}, {"value_bytes", v.size()}});
  j["columns"] = ColumnsJson(t, t.file_stats);
  j["stripes"] = json::array();
  for (size_t s = 0; s < t.stripes.size(); ++s) {
    const orc::StripeInfo& si = t.stripes[s];
    json js{{"index", s},
            {"offset", si.offset},
            {"rows", si.num_rows},
            {"index_length", si.index_length},
            {"data_length", si.data_length},
            {"footer_length", si.footer_length}};
    if (s < t.stripe_stats.size()) js["columns"] = ColumnsJson(t, t.stripe_stats[s]);
    if (streams) {
      RAP_ASSIGN_OR_RETURN(orc::StripeFooterInfo f, reader.StripeFooter(s));
      js["writer_timezone"] = f.writer_timezone;
      js["encodings"] = json::array();
      for (size_t c = 0; c < f.encodings.size(); ++c) {
        json e{{"column", c}, {"kind", orc::EncodingKindName(f.encodings[c].kind)}};
        if (f.encodings[c].dictionary_size) e["dictionary_size"] = f.encodings[c].dictionary_size;
        js["encodings"].push_back(std::move(e));
      }
      js["streams"] = json::array();
      for (const orc::StreamInfo& st : f.streams) {
        js["streams"].push_back({{"column", st.column},
                                 {"kind", orc::StreamKindName(st.kind)},
                                 {"offset", st.offset},
                                 {"length", st.length}});
      }
    }
    j["stripes"].push_back(std::move(js));
  }
  return j;
}

Result<json> InspectOrcObject(io::ObjectStore& store, const std::string& path, const std::string& name, bool streams) {
  RAP_ASSIGN_OR_RETURN(auto reader, OpenOrc(store, path, name));
  return InspectOrc(*reader, streams);
}

namespace {

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string StatsText(const json& s) {
  std::string out = "values=" + Str(s["values"]);
  for (const char* k : {"has_null", "min", "max", "sum"}) {
    if (s.contains(k)) out += std::string(" ") + k + "=" + Str(s[k]);
  }
  return out;
}

}  // namespace

void PrintOrcText(const json& j, std::FILE* out) {
  fmt::print(out, "file: {} (ORC, {} bytes)\n", Str(j["file"]), Str(j["size"]));
  fmt::print(out, "format version: {}  writer: {} (writer version {}){}\n", Str(j["version"]), Str(j["writer"]),
             Str(j["writer_version"]), j.contains("software_version") ? " " + Str(j["software_version"]) : "");
  fmt::print(out, "compression: {} (block size {})\n", Str(j["compression"]), Str(j["compression_block_size"]));
  fmt::print(out, "postscript: {} bytes, footer: {} bytes, metadata: {} bytes\n", Str(j["postscript_length"]),
             Str(j["footer_length"]), Str(j["metadata_length"]));
  if (j.contains("metadata_error")) fmt::print(out, "metadata: unreadable: {}\n", Str(j["metadata_error"]));
  fmt::print(out, "rows: {}  row index stride: {}\n", Str(j["num_rows"]), Str(j["row_index_stride"]));
  fmt::print(out, "schema: {}\n", Str(j["schema"]));
  for (const auto& m : j["user_metadata"])
    fmt::print(out, "user metadata: {} ({} bytes)\n", Str(m["key"]), Str(m["value_bytes"]));
  fmt::print(out, "columns:\n");
  for (const auto& c : j["columns"]) {
    fmt::print(out, "  {:>3} {}{}\n", Str(c["id"]), Str(c["type"]),
               c.contains("statistics") ? "  " + StatsText(c["statistics"]) : "");
  }
  fmt::print(out, "stripes: {}\n", j["stripes"].size());
  for (const auto& s : j["stripes"]) {
    fmt::print(out, "  stripe {}: offset {}, {} rows, index {} + data {} + footer {} bytes\n", Str(s["index"]),
               Str(s["offset"]), Str(s["rows"]), Str(s["index_length"]), Str(s["data_length"]),
               Str(s["footer_length"]));
    if (s.contains("writer_timezone") && !Str(s["writer_timezone"]).empty()) {
      fmt::print(out, "    writer time zone: {}\n", Str(s["writer_timezone"]));
    }
    if (s.contains("encodings")) {
      for (const auto& e : s["encodings"]) {
        fmt::print(out, "    column {:>3} encoding {}{}\n", Str(e["column"]), Str(e["kind"]),
                   e.contains("dictionary_size") ? " (dictionary " + Str(e["dictionary_size"]) + ")" : "");
      }
      for (const auto& st : s["streams"]) {
        fmt::print(out, "    stream column {:>3} {:<17} offset {} length {}\n", Str(st["column"]), Str(st["kind"]),
                   Str(st["offset"]), Str(st["length"]));
      }
    }
  }
}

}  // namespace rap::cli
