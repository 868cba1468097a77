// Parses the ORC file tail: postscript, footer and metadata, each length checked before use.
#include "rap/orc/tail.h"

#include <string>

#include "orc/proto_util.h"
#include "orc_metadata.pb.h"

namespace rap::orc {

bool HasOrcMagic(std::span<const uint8_t> file) {
  return file.size() >= 3 && file[0] == 'O' && file[1] == 'R' && file[2] == 'C';
}

std::string FileTail::VersionString() const {
  if (version.empty()) return "";
  if (version.size() >= 2 && version[0] == 1 && version[1] == 9999) return "UNSTABLE-PRE-2.0";
  std::string s;
  for (size_t i = 0; i < version.size() && i < 2; ++i) s += (i ? "." : "") + std::to_string(version[i]);
  return s;
}

std::string FileTail::WriterName() const {
  if (!writer) return "ORC Java";  // files before the writer field were written by Hive / ORC Java
  switch (*writer) {
    case 0:
      return "ORC Java";
    case 1:
      return "ORC C++";
    case 2:
      return "Presto";
    case 3:
      return "Scritchley Go";
    case 4:
      return "Trino";
    case 5:
      return "CUDF";
  }
  return "unknown(" + std::to_string(*writer) + ")";
}

namespace {

constexpr uint32_t kMaxTypeDepth = 256;

Status CheckTypes(const std::string& where, const TypeTree& types) {
  if (types.nodes.empty()) return Status::Corrupt(where + ": the footer has no types");
  std::vector<uint8_t> has_parent(types.nodes.size(), 0);
  for (size_t id = 0; id < types.nodes.size(); ++id) {
    const OrcType& t = types.nodes[id];
    const std::string at = where + ": type " + std::to_string(id) + " (" + TypeKindName(t.kind) + ")";
    if (static_cast<uint32_t>(t.kind) > static_cast<uint32_t>(TypeKind::kTimestampInstant)) {
      return Status::Corrupt(at + ": unknown type kind");
    }
    for (uint32_t sub : t.subtypes) {
      if (sub <= id || sub >= types.nodes.size()) {
        return Status::Corrupt(at + ": subtype id " + std::to_string(sub) + " is not in (" + std::to_string(id) + ", " +
                               std::to_string(types.nodes.size()) + ")");
      }
      if (has_parent[sub]++) return Status::Corrupt(at + ": subtype id " + std::to_string(sub) + " has two parents");
    }
    size_t want = SIZE_MAX;
    switch (t.kind) {
      case TypeKind::kList:
        want = 1;
        break;
      case TypeKind::kMap:
        want = 2;
        break;
      case TypeKind::kStruct:
        if (t.field_names.size() != t.subtypes.size()) {
          return Status::Corrupt(at + ": " + std::to_string(t.field_names.size()) + " field names for " +
                                 std::to_string(t.subtypes.size()) + " subtypes");
        }
        break;
      case TypeKind::kUnion:
        break;
      default:
        want = 0;
    }
    if (want != SIZE_MAX && t.subtypes.size() != want) {
      return Status::Corrupt(at + ": has " + std::to_string(t.subtypes.size()) + " subtypes, expected " +
                             std::to_string(want));
    }
    if (t.kind == TypeKind::kDecimal && (t.precision > 38 || t.scale > 38 || (t.precision && t.scale > t.precision))) {
      return Status::Corrupt(at + ": decimal(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) +
                             ") is out of range");
    }
  }
  for (size_t id = 1; id < types.nodes.size(); ++id) {
    if (!has_parent[id]) return Status::Corrupt(where + ": type " + std::to_string(id) + " is not in the type tree");
  }
  // Nesting depth (children have larger ids than their parent, so one pass in id order): the
  // type tree is walked recursively, so its depth is bounded.
  std::vector<uint32_t> depth(types.nodes.size(), 0);
  for (size_t id = 0; id < types.nodes.size(); ++id) {
    if (depth[id] > kMaxTypeDepth) {
      return Status::NotSupported(where + ": type " + std::to_string(id) + " is nested more than " +
                                  std::to_string(kMaxTypeDepth) + " levels deep");
    }
    for (uint32_t sub : types.nodes[id].subtypes) depth[sub] = depth[id] + 1;
  }
  return Status::OK();
}

Status ReadFooter(FileTail* tail, const proto::Footer& f, const std::string& where) {
  tail->header_length = f.header_length();
  tail->content_length = f.content_length();
  tail->num_rows = f.number_of_rows();
  tail->row_index_stride = f.row_index_stride();
  if (f.has_writer()) tail->writer = f.writer();
  tail->software_version = f.software_version();
  if (f.has_encryption()) return Status::NotSupported(where + ": the file uses ORC column encryption");
  for (const auto& t : f.types()) {
    OrcType o;
    o.kind = static_cast<TypeKind>(t.kind());
    o.subtypes.assign(t.subtypes().begin(), t.subtypes().end());
    o.field_names.assign(t.field_names().begin(), t.field_names().end());
    o.maximum_length = t.maximum_length();
    o.precision = t.precision();
    o.scale = t.scale();
    for (const auto& a : t.attributes()) o.attributes.emplace_back(a.key(), a.value());
    tail->types.nodes.push_back(std::move(o));
  }
  RAP_RETURN_NOT_OK(CheckTypes(where, tail->types));
  const uint64_t data_end = tail->file_size - tail->postscript_length - 1 - tail->footer_length - tail->metadata_length;
  uint64_t rows = 0;
  for (int i = 0; i < f.stripes_size(); ++i) {
    const auto& s = f.stripes(i);
    StripeInfo si{s.offset(), s.index_length(), s.data_length(), s.footer_length(), s.number_of_rows()};
    const std::string at = where + ": stripe " + std::to_string(i);
    uint64_t end = si.offset;
    for (uint64_t len : {si.index_length, si.data_length, si.footer_length}) {
      if (len > data_end || end > data_end - len) {
        return Status::Corrupt(at + " at offset " + std::to_string(si.offset) + " (index " +
                               std::to_string(si.index_length) + ", data " + std::to_string(si.data_length) +
                               ", footer " + std::to_string(si.footer_length) +
                               " bytes) runs past the end of the stripe area at offset " + std::to_string(data_end));
      }
      end += len;
    }
    if (si.offset < 3) return Status::Corrupt(at + ": offset " + std::to_string(si.offset) + " is inside the header");
    if (si.num_rows > UINT64_MAX - rows) return Status::Corrupt(at + ": row count overflows");
    rows += si.num_rows;
    tail->stripes.push_back(si);
  }
  if (!f.has_number_of_rows()) tail->num_rows = rows;  // some writers leave it out
  if (rows != tail->num_rows) {
    return Status::Corrupt(where + ": the stripes hold " + std::to_string(rows) + " rows, the footer says " +
                           std::to_string(tail->num_rows));
  }
  for (const auto& m : f.metadata()) tail->user_metadata.emplace_back(m.name(), m.value());
  for (const auto& s : f.statistics()) tail->file_stats.push_back(ConvertStats(s));
  return Status::OK();
}

Status ParseMetadata(FileTail* tail, std::span<const uint8_t> bytes, uint64_t meta_off) {
  const std::string meta_where = tail->name + ": metadata at offset " + std::to_string(meta_off);
  Buffer meta_raw(nullptr, bytes.data(), bytes.size());
  RAP_ASSIGN_OR_RETURN(Buffer meta_bytes, DecompressStream(tail->compression, tail->compression_block_size, meta_raw,
                                                           meta_where, meta_off));
  proto::Metadata meta;
  RAP_RETURN_NOT_OK(ParseProto(&meta, meta_bytes, meta_where));
  for (const auto& ss : meta.stripe_stats()) {
    std::vector<ColumnStats> cols;
    for (const auto& c : ss.col_stats()) cols.push_back(ConvertStats(c));
    tail->stripe_stats.push_back(std::move(cols));
  }
  return Status::OK();
}

}  // namespace

Result<uint64_t> TailLength(std::string_view name, uint64_t file_size, std::span<const uint8_t> suffix) {
  const std::string n(name);
  if (file_size < 4) {
    return Status::Corrupt(n + ": the file is " + std::to_string(file_size) +
                           " bytes, too small for an ORC file (header and postscript)");
  }
  if (suffix.empty() || suffix.size() > file_size) {
    return Status::Internal(n + ": " + std::to_string(suffix.size()) + " tail bytes of a " + std::to_string(file_size) +
                            "-byte file");
  }
  const uint64_t ps_len = suffix.back();
  if (ps_len == 0 || ps_len > file_size - 4) {
    return Status::Corrupt(n + ": postscript length " + std::to_string(ps_len) + " (last byte, at offset " +
                           std::to_string(file_size - 1) + ") does not fit the " + std::to_string(file_size) +
                           "-byte file");
  }
  if (ps_len + 1 > suffix.size()) return ps_len + 1;  // the postscript first
  proto::PostScript ps;
  const uint64_t ps_off = file_size - 1 - ps_len;
  if (!ps.ParseFromArray(suffix.data() + suffix.size() - 1 - ps_len, static_cast<int>(ps_len))) {
    return Status::Corrupt(n + ": postscript at offset " + std::to_string(ps_off) + " (" + std::to_string(ps_len) +
                           " bytes) is not a valid protobuf message");
  }
  const uint64_t avail = ps_off - 3;
  if (ps.footer_length() > avail || ps.metadata_length() > avail - ps.footer_length()) {
    return Status::Corrupt(n + ": postscript at offset " + std::to_string(ps_off) + ": footer length " +
                           std::to_string(ps.footer_length()) + " and metadata length " +
                           std::to_string(ps.metadata_length()) + " exceed the " + std::to_string(avail) +
                           " bytes before the postscript");
  }
  return ps_len + 1 + ps.footer_length() + ps.metadata_length();
}

Result<FileTail> ParseTail(std::string_view name, std::span<const uint8_t> file) {
  const std::string n(name);
  if (file.size() < 4) {
    return Status::Corrupt(n + ": the file is " + std::to_string(file.size()) +
                           " bytes, too small for an ORC file (header and postscript)");
  }
  if (!HasOrcMagic(file)) return Status::Corrupt(n + ": the file does not start with the ORC magic \"ORC\"");
  return ParseTailFromSuffix(name, file.size(), file);
}

Result<FileTail> ParseTailFromSuffix(std::string_view name, uint64_t file_size, std::span<const uint8_t> suffix) {
  RAP_ASSIGN_OR_RETURN(uint64_t need, TailLength(name, file_size, suffix));
  const std::string n(name);
  if (need > suffix.size()) {
    return Status::Internal(n + ": the tail needs the last " + std::to_string(need) + " bytes, " +
                            std::to_string(suffix.size()) + " given");
  }
  FileTail tail;
  tail.name = n;
  tail.file_size = file_size;
  // `at` addresses the suffix by file offsets (only offsets inside the suffix are used below).
  const uint64_t base = file_size - suffix.size();
  auto at = [&](uint64_t off) { return suffix.data() + (off - base); };
  tail.postscript_length = suffix.back();
  const uint64_t ps_len = tail.postscript_length;
  const uint64_t ps_off = file_size - 1 - ps_len;
  proto::PostScript ps;
  if (!ps.ParseFromArray(at(ps_off), static_cast<int>(ps_len))) {
    return Status::Corrupt(n + ": postscript at offset " + std::to_string(ps_off) + " (" + std::to_string(ps_len) +
                           " bytes) is not a valid protobuf message");
  }
  if (ps.has_magic() && ps.magic() != "ORC") {
    return Status::Corrupt(n + ": postscript at offset " + std::to_string(ps_off) + ": magic is not \"ORC\"");
  }
  tail.footer_length = ps.footer_length();
  tail.metadata_length = ps.metadata_length();
  tail.compression = static_cast<Compression>(ps.compression());
  if (ps.compression() > static_cast<uint32_t>(Compression::kZstd)) {
    return Status::NotSupported(n + ": postscript at offset " + std::to_string(ps_off) + ": compression kind " +
                                std::to_string(ps.compression()) + " is unknown");
  }
  tail.has_compression_block_size = ps.has_compression_block_size();
  if (ps.has_compression_block_size() && ps.compression_block_size() > 0) {
    tail.compression_block_size = ps.compression_block_size();
  }
  if (tail.compression_block_size > kMaxCompressionBlockSize) {
    return Status::Corrupt(n + ": postscript at offset " + std::to_string(ps_off) + ": compression block size " +
                           std::to_string(tail.compression_block_size) + " exceeds the maximum " +
                           std::to_string(kMaxCompressionBlockSize));
  }
  tail.version.assign(ps.version().begin(), ps.version().end());
  tail.writer_version = ps.writer_version();
  const uint64_t avail = ps_off - 3;  // bytes between the header and the postscript
  if (tail.footer_length > avail || tail.metadata_length > avail - tail.footer_length) {
    return Status::Corrupt(n + ": postscript at offset " + std::to_string(ps_off) + ": footer length " +
                           std::to_string(tail.footer_length) + " and metadata length " +
                           std::to_string(tail.metadata_length) + " exceed the " + std::to_string(avail) +
                           " bytes before the postscript");
  }
  const uint64_t footer_off = ps_off - tail.footer_length;
  const std::string footer_where = n + ": footer at offset " + std::to_string(footer_off);
  Buffer footer_raw(nullptr, at(footer_off), tail.footer_length);
  RAP_ASSIGN_OR_RETURN(Buffer footer_bytes, DecompressStream(tail.compression, tail.compression_block_size, footer_raw,
                                                             footer_where, footer_off));
  proto::Footer footer;
  RAP_RETURN_NOT_OK(ParseProto(&footer, footer_bytes, footer_where));
  RAP_RETURN_NOT_OK(ReadFooter(&tail, footer, footer_where));
  if (tail.metadata_length > 0) {
    const uint64_t meta_off = footer_off - tail.metadata_length;
    tail.metadata_status = ParseMetadata(&tail, {at(meta_off), tail.metadata_length}, meta_off);
  }
  return tail;
}

}  // namespace rap::orc
