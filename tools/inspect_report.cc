// The report of `rap inspect` (tools/inspect_report.h), built once as JSON.
#include "inspect_report.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rap/columnar/array_format.h"
#include "rap/format/footer.h"
#include "rap/format/thrift.h"
#include "rap/io/object_store.h"

#include "inspect_frames.h"
#include "orc_cli.h"

namespace rap::cli {
namespace {

using json = nlohmann::ordered_json;
using namespace rap::parquet;

// The bytes of one object, through the object store that its URL names (local paths included).
class Source {
 public:
  static Result<Source> Open(const std::string& url) {
    Source s;
    s.url_ = url;
    RAP_ASSIGN_OR_RETURN(s.resolved_, io::OpenUrl(url));
    return s;
  }
  // The last min(n, size) bytes and the object size.
  Result<Buffer> Tail(uint64_t n, uint64_t* size) {
    io::ReadStats stats;
    RAP_ASSIGN_OR_RETURN(auto tail, resolved_.store->ReadTail(resolved_.path, n, io::ReadOptions{}, &stats));
    *size = tail.second.size;
    return std::move(tail.first);
  }
  Result<std::vector<Buffer>> Read(const std::vector<ByteRange>& ranges) {
    io::ReadStats stats;
    return resolved_.store->ReadRanges(resolved_.path, ranges, io::ReadOptions{}, &stats);
  }
  const std::string& path() const { return resolved_.path; }
  Result<bool> IsOrc() { return StartsWithOrcMagic(*resolved_.store, resolved_.path); }
  // An ORC file's report (tools/orc_cli.h); the text form is marked by "format": "orc".
  Result<json> InspectOrc(bool streams) {
    RAP_ASSIGN_OR_RETURN(auto reader, OpenOrc(*resolved_.store, resolved_.path, url_));
    return cli::InspectOrc(*reader, streams);
  }

 private:
  std::string url_;
  io::ResolvedUrl resolved_;
};

// One leaf column as inspect needs it: how to show its statistics and whether a data page's value
// count is also its row count (no repetition).
struct Leaf {
  std::string path;
  Type type = Type::BYTE_ARRAY;
  bool string_like = false;
  bool is_unsigned = false;
  int max_repetition = 0;
};

bool IsStringLike(const SchemaElement& e) {
  if (e.logical_type) {
    auto k = e.logical_type->kind;
    if (k == LogicalType::Kind::STRING || k == LogicalType::Kind::ENUM || k == LogicalType::Kind::JSON) return true;
  }
  return e.converted_type == ConvertedType::UTF8 || e.converted_type == ConvertedType::ENUM ||
         e.converted_type == ConvertedType::JSON;
}

bool IsUnsigned(const SchemaElement& e) {
  if (e.logical_type && e.logical_type->kind == LogicalType::Kind::INTEGER) return !e.logical_type->is_signed;
  if (!e.converted_type) return false;
  auto c = *e.converted_type;
  return c == ConvertedType::UINT_8 || c == ConvertedType::UINT_16 || c == ConvertedType::UINT_32 ||
         c == ConvertedType::UINT_64;
}

// Walks the depth-first schema list: the JSON schema entries (with depth) and the leaves in order.
Status WalkSchema(const FileMetaData& md, const std::string& name, json* schema, std::vector<Leaf>* leaves) {
  struct Open {
    int remaining;
    int repetition;
    std::string path;
  };
  std::vector<Open> stack;
  for (size_t i = 0; i < md.schema.size(); ++i) {
    const SchemaElement& e = md.schema[i];
    while (!stack.empty() && stack.back().remaining == 0) stack.pop_back();
    if (i > 0 && stack.empty()) {
      return Status::Corrupt(fmt::format("{}: schema element {} ({}) lies outside the root's {} children", name, i,
                                         e.name, md.schema[0].num_children.value_or(0)));
    }
    int depth = static_cast<int>(stack.size());
    int repetition = stack.empty() ? 0 : stack.back().repetition;
    std::string path = stack.empty() || i == 0 ? "" : stack.back().path;
    if (!stack.empty()) --stack.back().remaining;
    if (i > 0) {
      path += path.empty() ? e.name : "." + e.name;
      if (e.repetition_type == Repetition::REPEATED) ++repetition;
    }
    json j;
    j["name"] = e.name;
    j["depth"] = depth;
    if (e.repetition_type) j["repetition"] = RepetitionName(*e.repetition_type);
    if (e.type) j["type"] = TypeName(*e.type);
    if (e.type_length) j["type_length"] = *e.type_length;
    if (e.logical_type) j["logical_type"] = LogicalTypeToString(*e.logical_type);
    if (e.converted_type) j["converted_type"] = ConvertedTypeName(*e.converted_type);
    if (e.precision) j["precision"] = *e.precision;
    if (e.scale) j["scale"] = *e.scale;
    if (e.field_id) j["field_id"] = *e.field_id;
    if (e.num_children) j["num_children"] = *e.num_children;
    schema->push_back(std::move(j));
    int children = e.num_children.value_or(0);
    if (children < 0 || static_cast<size_t>(children) > md.schema.size() - i - 1) {
      return Status::Corrupt(fmt::format("{}: schema element {} ({}) has num_children {} but only {} elements follow",
                                         name, i, e.name, children, md.schema.size() - i - 1));
    }
    if (children > 0 || i == 0) {
      stack.push_back({children, repetition, path});
    } else {
      leaves->push_back({path, e.type.value_or(Type::BYTE_ARRAY), IsStringLike(e), IsUnsigned(e), repetition});
    }
  }
  return Status::OK();
}

std::string Hex(const std::string& v) {
  std::string s = "0x";
  for (unsigned char c : v) s += fmt::format("{:02x}", c);
  return s;
}

template <typename T>
T Load(const std::string& v) {
  T x;
  std::memcpy(&x, v.data(), sizeof(T));
  return x;
}

// A statistics value decoded for the column's physical type where that is simple, hex otherwise.
std::string FormatValue(const std::string& v, const Leaf& leaf) {
  std::string s;
  switch (leaf.type) {
    case Type::BOOLEAN:
      if (v.size() == 1) return v[0] ? "true" : "false";
      break;
    case Type::INT32:
      if (v.size() == 4) {
        return leaf.is_unsigned ? std::to_string(Load<uint32_t>(v)) : std::to_string(Load<int32_t>(v));
      }
      break;
    case Type::INT64:
      if (v.size() == 8) {
        return leaf.is_unsigned ? std::to_string(Load<uint64_t>(v)) : std::to_string(Load<int64_t>(v));
      }
      break;
    case Type::FLOAT:
      if (v.size() == 4) return fmt::format("{}", Load<float>(v));
      break;
    case Type::DOUBLE:
      if (v.size() == 8) return fmt::format("{}", Load<double>(v));
      break;
    case Type::BYTE_ARRAY: {
      bool printable = true;
      for (unsigned char c : v) printable &= c >= 0x20 && c != 0x7f;  // bytes >= 0x80: UTF-8
      if (leaf.string_like || printable) {
        json j = v.size() > 64 ? v.substr(0, 64) + "..." : v;
        return j.dump(-1, ' ', false, json::error_handler_t::replace);
      }
      break;
    }
    default:
      break;
  }
  return Hex(v.size() > 32 ? v.substr(0, 32) : v) + (v.size() > 32 ? "..." : "");
}

json StatisticsJson(const Statistics& st, const Leaf& leaf) {
  json j = json::object();
  // min_value/max_value follow the column order; min/max are the deprecated signed-order fields.
  if (st.min_value) j["min"] = FormatValue(*st.min_value, leaf);
  if (st.max_value) j["max"] = FormatValue(*st.max_value, leaf);
  if (!st.min_value && st.min) j["min_deprecated"] = FormatValue(*st.min, leaf);
  if (!st.max_value && st.max) j["max_deprecated"] = FormatValue(*st.max, leaf);
  if (st.null_count) j["null_count"] = *st.null_count;
  if (st.distinct_count) j["distinct_count"] = *st.distinct_count;
  if (st.is_min_value_exact) j["min_exact"] = *st.is_min_value_exact;
  if (st.is_max_value_exact) j["max_exact"] = *st.is_max_value_exact;
  return j;
}

// Where the chunk's first page starts: the dictionary page when there is a plausible one.
int64_t ChunkStart(const ColumnMetaData& m) {
  // Some writers leave data_page_offset 0 in a chunk that holds only a dictionary page
  // (column_chunk_key_value_metadata.parquet): no page can start before the 4-byte header magic.
  bool dictionary = m.dictionary_page_offset && *m.dictionary_page_offset >= 4;
  if (dictionary && (*m.dictionary_page_offset < m.data_page_offset || m.data_page_offset < 4)) {
    return *m.dictionary_page_offset;
  }
  return m.data_page_offset;
}

bool RangeInFile(int64_t offset, int64_t length, uint64_t size) {
  return offset >= 0 && length >= 0 && static_cast<uint64_t>(offset) <= size &&
         static_cast<uint64_t>(length) <= size - static_cast<uint64_t>(offset);
}

// Walks the page headers of one column chunk. Rows come from the OffsetIndex when there is one,
// else from v2 headers, else (columns without repetition) from the value count.
Status WalkPages(Source& src, uint64_t file_size, const ColumnMetaData& m, const Leaf& leaf,
                 const std::optional<OffsetIndex>& oi, int64_t rg_rows, const std::string& where, bool list_frames,
                 json* pages) {
  int64_t start = ChunkStart(m);
  if (!RangeInFile(start, m.total_compressed_size, file_size)) {
    return Status::Corrupt(fmt::format("{}: column chunk [{}, +{}) lies outside the file of {} bytes", where, start,
                                       m.total_compressed_size, file_size));
  }
  RAP_ASSIGN_OR_RETURN(
      auto bufs, src.Read({ByteRange{static_cast<uint64_t>(start), static_cast<uint64_t>(m.total_compressed_size)}}));
  std::span<const uint8_t> chunk = bufs[0].span();
  size_t pos = 0;
  size_t next_location = 0;
  while (pos < chunk.size()) {
    uint64_t at = static_cast<uint64_t>(start) + pos;
    size_t header_size = 0;
    auto h = DecodePageHeader(chunk.subspan(pos), &header_size);
    if (!h.ok()) return h.status().WithContext(fmt::format("{}: page header at file offset {}", where, at));
    json p;
    p["offset"] = at;
    p["header_size"] = header_size;
    p["compressed_size"] = h->compressed_page_size;
    p["uncompressed_size"] = h->uncompressed_page_size;
    p["type"] = PageTypeName(h->type);
    if (h->data_page_header) {
      p["encoding"] = EncodingName(h->data_page_header->encoding);
      p["num_values"] = h->data_page_header->num_values;
    } else if (h->data_page_header_v2) {
      p["encoding"] = EncodingName(h->data_page_header_v2->encoding);
      p["num_values"] = h->data_page_header_v2->num_values;
      p["num_nulls"] = h->data_page_header_v2->num_nulls;
      p["num_rows"] = h->data_page_header_v2->num_rows;
    } else if (h->dictionary_page_header) {
      p["encoding"] = EncodingName(h->dictionary_page_header->encoding);
      p["num_values"] = h->dictionary_page_header->num_values;
    }
    bool is_data = h->type == PageType::DATA_PAGE || h->type == PageType::DATA_PAGE_V2;
    if (is_data && oi) {
      const auto& locs = oi->page_locations;
      while (next_location < locs.size() && static_cast<uint64_t>(locs[next_location].offset) < at) ++next_location;
      if (next_location < locs.size() && static_cast<uint64_t>(locs[next_location].offset) == at) {
        int64_t first = locs[next_location].first_row_index;
        int64_t end = next_location + 1 < locs.size() ? locs[next_location + 1].first_row_index : rg_rows;
        p["first_row"] = first;
        p["num_rows"] = end - first;
        ++next_location;
      }
    } else if (is_data && h->data_page_header && leaf.max_repetition == 0) {
      p["num_rows"] = h->data_page_header->num_values;
    }
    if (h->crc) p["crc"] = fmt::format("{:08x}", static_cast<uint32_t>(*h->crc));
    uint64_t next = static_cast<uint64_t>(pos) + header_size + static_cast<uint64_t>(h->compressed_page_size);
    if (next > chunk.size()) {
      return Status::Corrupt(fmt::format("{}: page at file offset {} ({} + {} bytes) runs past the column chunk end {}",
                                         where, at, header_size, h->compressed_page_size, start + chunk.size()));
    }
    if (m.codec == Codec::ZSTD) {  // frame per key: the section's frames and skippable frames
      int64_t levels = 0;
      if (h->data_page_header_v2) {
        levels = std::max(0, h->data_page_header_v2->definition_levels_byte_length) +
                 std::max(0, h->data_page_header_v2->repetition_levels_byte_length);
      }
      if (levels <= h->compressed_page_size) {
        const size_t body = pos + header_size + static_cast<size_t>(levels);
        json f = DescribeFrames(chunk.subspan(body, static_cast<size_t>(h->compressed_page_size - levels)),
                                static_cast<uint64_t>(start) + body, list_frames);
        if (!f.is_null()) p["frames"] = std::move(f);
      }
    }
    pages->push_back(std::move(p));
    pos = static_cast<size_t>(next);
  }
  return Status::OK();
}

// Reads and decodes the page indexes of every column chunk in one round of reads.
struct PageIndexes {
  std::vector<std::vector<std::optional<OffsetIndex>>> offset;
  std::vector<std::vector<std::optional<ColumnIndex>>> column;
};

Result<PageIndexes> ReadPageIndexes(Source& src, uint64_t file_size, const FileMetaData& md, const std::string& name) {
  PageIndexes out;
  std::vector<ByteRange> ranges;
  struct Want {
    size_t rg, col;
    bool offset;
  };
  std::vector<Want> wants;
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const auto& cols = md.row_groups[g].columns;
    out.offset.emplace_back(cols.size());
    out.column.emplace_back(cols.size());
    for (size_t c = 0; c < cols.size(); ++c) {
      const ColumnChunk& cc = cols[c];
      for (bool offset : {true, false}) {
        auto off = offset ? cc.offset_index_offset : cc.column_index_offset;
        auto len = offset ? cc.offset_index_length : cc.column_index_length;
        if (!off || !len) continue;
        if (!RangeInFile(*off, *len, file_size)) {
          return Status::Corrupt(
              fmt::format("{}: row group {} column {}: {} [{}, +{}) lies outside the file of {} bytes", name, g, c,
                          offset ? "OffsetIndex" : "ColumnIndex", *off, *len, file_size));
        }
        ranges.push_back({static_cast<uint64_t>(*off), static_cast<uint64_t>(*len)});
        wants.push_back({g, c, offset});
      }
    }
  }
  if (ranges.empty()) return out;
  RAP_ASSIGN_OR_RETURN(auto bufs, src.Read(ranges));
  for (size_t i = 0; i < wants.size(); ++i) {
    const Want& w = wants[i];
    auto context = fmt::format("{}: row group {} column {}: {} at offset {}", name, w.rg, w.col,
                               w.offset ? "OffsetIndex" : "ColumnIndex", ranges[i].offset);
    if (w.offset) {
      auto oi = DecodeOffsetIndex(bufs[i].span());
      if (!oi.ok()) return oi.status().WithContext(context);
      out.offset[w.rg][w.col] = std::move(*oi);
    } else {
      auto ci = DecodeColumnIndex(bufs[i].span());
      if (!ci.ok()) return ci.status().WithContext(context);
      out.column[w.rg][w.col] = std::move(*ci);
    }
  }
  return out;
}

}  // namespace

Result<nlohmann::ordered_json> InspectReport(const InspectOptions& args, Status* late_error) {
  const std::string& name = args.file;
  RAP_ASSIGN_OR_RETURN(Source src, Source::Open(name));
  if (HasOrcExtension(src.path())) return src.InspectOrc(args.pages);
  uint64_t size = 0;
  RAP_ASSIGN_OR_RETURN(Buffer tail, src.Tail(kDefaultTailRead, &size));
  if (tail.size() < 4 || std::memcmp(tail.data() + tail.size() - 4, "PAR1", 4) != 0) {  // not Parquet: ORC?
    auto orc = src.IsOrc();
    if (orc.ok() && *orc) return src.InspectOrc(args.pages);
  }
  RAP_ASSIGN_OR_RETURN(uint64_t length, ParseFooterLength(tail.span(), size, name));
  if (length + kFooterSize > tail.size()) {
    RAP_ASSIGN_OR_RETURN(auto bufs, src.Read({ByteRange{size - length - kFooterSize, length + kFooterSize}}));
    tail = bufs[0];
  }
  RAP_ASSIGN_OR_RETURN(FileMetaData md, ParseFooter(tail.span(), size, name));

  json j;
  j["file"] = name;
  j["size"] = size;
  j["footer_length"] = length;
  j["version"] = md.version;
  j["num_rows"] = md.num_rows;
  if (md.created_by) j["created_by"] = *md.created_by;
  j["key_value_metadata"] = json::array();
  for (const auto& kv : md.key_value_metadata) {
    j["key_value_metadata"].push_back({{"key", kv.key}, {"value", kv.value ? json(*kv.value) : json(nullptr)}});
  }
  json schema = json::array();
  std::vector<Leaf> leaves;
  RAP_RETURN_NOT_OK(WalkSchema(md, name, &schema, &leaves));
  j["num_columns"] = leaves.size();
  j["schema"] = std::move(schema);
  RAP_ASSIGN_OR_RETURN(PageIndexes indexes, ReadPageIndexes(src, size, md, name));

  j["row_groups"] = json::array();
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const RowGroup& rg = md.row_groups[g];
    if (rg.columns.size() != leaves.size()) {
      return Status::Corrupt(fmt::format("{}: row group {} has {} column chunks, the schema has {} leaf columns", name,
                                         g, rg.columns.size(), leaves.size()));
    }
    json jg;
    jg["index"] = g;
    jg["num_rows"] = rg.num_rows;
    jg["total_byte_size"] = rg.total_byte_size;
    if (rg.total_compressed_size) jg["total_compressed_size"] = *rg.total_compressed_size;
    if (rg.file_offset) jg["file_offset"] = *rg.file_offset;
    if (!rg.sorting_columns.empty()) {
      jg["sorting_columns"] = json::array();
      for (const auto& s : rg.sorting_columns) {
        jg["sorting_columns"].push_back(
            {{"column", s.column_idx}, {"descending", s.descending}, {"nulls_first", s.nulls_first}});
      }
    }
    jg["columns"] = json::array();
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& cc = rg.columns[c];
      const Leaf& leaf = leaves[c];
      json jc;
      jc["index"] = c;
      jc["path"] = leaf.path;
      if (cc.file_path) jc["file_path"] = *cc.file_path;
      if (cc.has_crypto_metadata) jc["encrypted"] = true;
      if (!cc.meta_data) {
        jg["columns"].push_back(std::move(jc));
        continue;
      }
      const ColumnMetaData& m = *cc.meta_data;
      jc["type"] = TypeName(m.type);
      jc["codec"] = CodecName(m.codec);
      jc["encodings"] = json::array();
      for (Encoding e : m.encodings) jc["encodings"].push_back(EncodingName(e));
      jc["num_values"] = m.num_values;
      jc["compressed_size"] = m.total_compressed_size;
      jc["uncompressed_size"] = m.total_uncompressed_size;
      jc["data_page_offset"] = m.data_page_offset;
      if (m.dictionary_page_offset) jc["dictionary_page_offset"] = *m.dictionary_page_offset;
      if (m.statistics) jc["statistics"] = StatisticsJson(*m.statistics, leaf);
      for (const auto& kv : m.key_value_metadata) {
        jc["key_value_metadata"].push_back({{"key", kv.key}, {"value", kv.value ? json(*kv.value) : json(nullptr)}});
      }
      if (m.bloom_filter_offset) {
        jc["bloom_filter"] = {{"offset", *m.bloom_filter_offset}, {"length", m.bloom_filter_length.value_or(-1)}};
      }
      const auto& ci = indexes.column[g][c];
      const auto& oi = indexes.offset[g][c];
      jc["column_index"] = ci ? json{{"offset", *cc.column_index_offset},
                                     {"length", *cc.column_index_length},
                                     {"pages", ci->null_pages.size()},
                                     {"boundary_order", BoundaryOrderName(ci->boundary_order)}}
                              : json(nullptr);
      jc["offset_index"] = oi ? json{{"offset", *cc.offset_index_offset},
                                     {"length", *cc.offset_index_length},
                                     {"pages", oi->page_locations.size()}}
                              : json(nullptr);
      if (args.pages) {
        json pages = json::array();
        auto where = fmt::format("{}: row group {} column {} ({})", name, g, c, leaf.path);
        Status st = WalkPages(src, size, m, leaf, oi, rg.num_rows, where, args.frames, &pages);
        jc["pages"] = std::move(pages);
        if (!st.ok()) {
          jc["pages_error"] = st.ToString();
          if (late_error->ok()) *late_error = st;
        }
      }
      jg["columns"].push_back(std::move(jc));
    }
    j["row_groups"].push_back(std::move(jg));
  }
  return j;
}

}  // namespace rap::cli
