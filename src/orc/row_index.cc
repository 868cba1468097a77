// Row indexes: parsing, and planning the reads of some row groups of a stripe from the positions.
#include "rap/orc/row_index.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "orc/proto_util.h"
#include "orc_metadata.pb.h"

namespace rap::orc {

namespace {

// Bytes past an uncompressed stream's position that the run at that position may take: an RLE v2
// run of 512 64-bit values with its header and patch list, an RLE v1 literal of 128 varints.
constexpr uint64_t kMaxRunBytes = 8 * 1024;

// A stream whose positions the row index holds, and how many run-length values follow its byte
// position(s): 0 (bytes: floats, string blobs, decimal varints), 1 (byte and integer RLE), 2
// (boolean RLE: bytes of the byte run, bits).
struct Positioned {
  StreamKind kind;
  int rle;
};

Result<std::vector<Positioned>> PositionedStreams(const FileTail& tail, const StripeFooterInfo& footer,
                                                  uint32_t column, const std::string& where) {
  const OrcType& t = tail.types.nodes.at(column);
  const EncodingKind enc = footer.encodings.at(column).kind;
  const bool dictionary = enc == EncodingKind::kDictionary || enc == EncodingKind::kDictionaryV2;
  switch (t.kind) {
    case TypeKind::kBoolean:
      return std::vector<Positioned>{{StreamKind::kData, 2}};
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInt:
    case TypeKind::kLong:
    case TypeKind::kDate:
      return std::vector<Positioned>{{StreamKind::kData, 1}};
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      return std::vector<Positioned>{{StreamKind::kData, 0}};
    case TypeKind::kString:
    case TypeKind::kVarchar:
    case TypeKind::kChar:
    case TypeKind::kBinary:
      if (dictionary) return std::vector<Positioned>{{StreamKind::kData, 1}};
      return std::vector<Positioned>{{StreamKind::kData, 0}, {StreamKind::kLength, 1}};
    case TypeKind::kDecimal:
      if (tail.version.size() >= 2 && tail.version[0] == 1 && tail.version[1] == 9999) {
        return Status::NotSupported(where + ": row-group reads of UNSTABLE-PRE-2.0 decimals");
      }
      return std::vector<Positioned>{{StreamKind::kData, 0}, {StreamKind::kSecondary, 1}};
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampInstant:
      return std::vector<Positioned>{{StreamKind::kData, 1}, {StreamKind::kSecondary, 1}};
    case TypeKind::kStruct:
      return std::vector<Positioned>{};
    case TypeKind::kList:
    case TypeKind::kMap:
      return std::vector<Positioned>{{StreamKind::kLength, 1}};
    case TypeKind::kUnion:
      break;
  }
  return Status::NotSupported(where + ": row-group reads of union columns");
}

const StreamInfo* FindStream(const StripeFooterInfo& footer, uint32_t column, StreamKind kind) {
  for (const StreamInfo& s : footer.streams) {
    if (s.column == column && s.kind == kind) return &s;
  }
  return nullptr;
}

std::vector<StreamInfo> StreamsOfKind(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns,
                                      StreamKind kind) {
  std::vector<StreamInfo> out;
  for (const StreamInfo& s : footer.streams) {
    if (s.kind == kind && s.length > 0 && std::binary_search(columns.begin(), columns.end(), s.column)) {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

size_t NumRowGroups(const FileTail& tail, size_t stripe) {
  if (tail.row_index_stride == 0 || stripe >= tail.stripes.size()) return 0;
  const uint64_t rows = tail.stripes[stripe].num_rows;
  return static_cast<size_t>((rows + tail.row_index_stride - 1) / tail.row_index_stride);
}

std::vector<StreamInfo> RowIndexStreams(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns) {
  return StreamsOfKind(footer, columns, StreamKind::kRowIndex);
}

Result<RowIndexInfo> ParseRowIndex(const FileTail& tail, size_t stripe, const StreamInfo& stream, const Buffer& raw) {
  const std::string where = tail.name + ": stripe " + std::to_string(stripe) + " column " +
                            std::to_string(stream.column) + " ROW_INDEX stream at offset " +
                            std::to_string(stream.offset);
  if (raw.size() != stream.length) {
    return Status::IOError(where + ": " + std::to_string(raw.size()) + " bytes read, the stream has " +
                           std::to_string(stream.length));
  }
  RAP_ASSIGN_OR_RETURN(Buffer bytes,
                       DecompressStream(tail.compression, tail.compression_block_size, raw, where, stream.offset));
  proto::RowIndex index;
  RAP_RETURN_NOT_OK(ParseProto(&index, bytes, where));
  RowIndexInfo out;
  out.entries.reserve(static_cast<size_t>(index.entry_size()));
  for (const auto& e : index.entry()) {
    RowIndexEntryInfo entry;
    entry.positions.assign(e.positions().begin(), e.positions().end());
    if (e.has_statistics()) entry.stats = ConvertStats(e.statistics());
    out.entries.push_back(std::move(entry));
  }
  return out;
}

Result<std::vector<StreamPart>> PlanRowGroupRead(const FileTail& tail, size_t stripe, const StripeFooterInfo& footer,
                                                 const std::map<uint32_t, RowIndexInfo>& indexes,
                                                 const std::vector<uint32_t>& columns, size_t first, size_t last) {
  const size_t groups = NumRowGroups(tail, stripe);
  const std::string stripe_where = tail.name + ": stripe " + std::to_string(stripe);
  if (groups == 0) return Status::NotSupported(stripe_where + ": the file has no row index");
  if (first >= last || last > groups) {
    return Status::InvalidArgument(stripe_where + ": row groups [" + std::to_string(first) + ", " +
                                   std::to_string(last) + ") of " + std::to_string(groups));
  }
  const bool compressed = tail.compression != Compression::kNone;
  const size_t per_stream = compressed ? 2 : 1;
  std::vector<StreamPart> out;
  for (uint32_t column : columns) {
    const std::string where = stripe_where + " column " + std::to_string(column) + " (" +
                              tail.types.ToString(column) + ")";
    RAP_ASSIGN_OR_RETURN(std::vector<Positioned> kinds, PositionedStreams(tail, footer, column, where));
    auto it = indexes.find(column);
    if (it == indexes.end()) return Status::NotSupported(where + ": no row index");
    std::vector<RowIndexEntryInfo> entries = it->second.entries;
    if (entries.size() != groups) {
      return Status::NotSupported(where + ": the row index has " + std::to_string(entries.size()) +
                                  " entries, the stripe " + std::to_string(groups) + " row groups");
    }
    size_t without = 0;
    for (const Positioned& p : kinds) without += per_stream + static_cast<size_t>(p.rle);
    const size_t with = without + per_stream + 2;
    const size_t count = entries.back().positions.size();
    // ORC Java leaves the first entry's positions out (they are the streams' starts) when a string
    // column fell back from dictionary to direct encoding.
    if (entries[0].positions.empty()) entries[0].positions.assign(count, 0);
    for (const RowIndexEntryInfo& e : entries) {
      if (e.positions.size() != count) {
        return Status::NotSupported(where + ": row index entries with different numbers of positions");
      }
    }
    // Writers leave out a suppressed PRESENT stream's positions (ORC Java) or keep them.
    if (count == with) {
      kinds.insert(kinds.begin(), Positioned{StreamKind::kPresent, 2});
    } else if (const StreamInfo* present = FindStream(footer, column, StreamKind::kPresent);
               present && present->length > 0 && count == without) {
      return Status::NotSupported(where + ": the row index has no positions of the PRESENT stream");
    } else if (count != without) {
      return Status::NotSupported(where + ": " + std::to_string(count) + " positions per row index entry, " +
                                  std::to_string(without) + " or " + std::to_string(with) + " expected");
    }
    std::set<StreamKind> positioned;
    size_t at = 0;
    for (const Positioned& p : kinds) {
      const size_t width = per_stream + static_cast<size_t>(p.rle);
      const size_t idx = at;
      at += width;
      positioned.insert(p.kind);
      const StreamInfo* s = FindStream(footer, column, p.kind);
      if (!s || s->length == 0) continue;
      auto pos = [&](size_t g, size_t k) { return entries[g].positions[idx + k]; };
      auto rle_zero = [&](size_t g) {
        for (size_t k = per_stream; k < width; ++k) {
          if (pos(g, k) != 0) return false;
        }
        return true;
      };
      StreamPart part;
      part.stream = *s;
      part.positioned = true;
      const uint64_t begin = pos(first, 0);
      part.skip_bytes = compressed ? pos(first, 1) : 0;
      if (p.rle == 1) part.skip_values = pos(first, per_stream);
      if (p.rle == 2) part.skip_values = pos(first, per_stream) * 8 + pos(first, per_stream + 1);
      uint64_t end = s->length;
      if (last < groups) {
        const uint64_t q = pos(last, 0);
        // The run at the next group's position may hold the last wanted values and go on past it.
        const bool spill = p.rle > 0 && !rle_zero(last);
        if (!compressed) {
          end = spill ? std::min<uint64_t>(s->length, q + kMaxRunBytes) : q;
        } else if (!spill && pos(last, 1) == 0) {
          end = q;  // the wanted values end before that chunk
        } else {
          // The chunk at q is needed whole, and with a spilling run the chunks the run may reach
          // (writers fill every chunk but a stream's last to the block size): up to the chunk start
          // after them that a later group's position names (a known start after the k-th next
          // chunk is at or past its end).
          std::set<uint64_t> starts;
          for (size_t g = last + 1; g < groups; ++g) {
            if (pos(g, 0) > q) starts.insert(pos(g, 0));
          }
          const uint64_t block = tail.compression_block_size == 0 ? kDefaultCompressionBlockSize
                                                                  : tail.compression_block_size;
          const uint64_t more = spill ? (pos(last, 1) + kMaxRunBytes) / block : 0;
          if (more < starts.size()) {
            end = std::min<uint64_t>(*std::next(starts.begin(), static_cast<long>(more)), s->length);
          }
        }
      }
      if (begin > end || end > s->length) {
        return Status::Corrupt(where + ": the row index positions " + StreamKindName(p.kind) + " bytes [" +
                               std::to_string(begin) + ", " + std::to_string(end) + ") of row groups [" +
                               std::to_string(first) + ", " + std::to_string(last) + "), the stream has " +
                               std::to_string(s->length));
      }
      part.offset = s->offset + begin;
      part.length = end - begin;
      out.push_back(part);
    }
    // The streams without positions (dictionaries) are read whole.
    for (const StreamInfo& s : DataStreams(footer, {column})) {
      if (positioned.count(s.kind)) continue;
      StreamPart part;
      part.stream = s;
      part.offset = s.offset;
      part.length = s.length;
      out.push_back(part);
    }
  }
  std::sort(out.begin(), out.end(), [](const StreamPart& a, const StreamPart& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace rap::orc
