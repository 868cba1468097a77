#include "rap/orc/stripe.h"

#include <algorithm>

#include "orc/proto_util.h"
#include "orc_metadata.pb.h"

namespace rap::orc {

std::string StreamKindName(StreamKind kind) {
  switch (kind) {
    case StreamKind::kPresent:
      return "PRESENT";
    case StreamKind::kData:
      return "DATA";
    case StreamKind::kLength:
      return "LENGTH";
    case StreamKind::kDictionaryData:
      return "DICTIONARY_DATA";
    case StreamKind::kDictionaryCount:
      return "DICTIONARY_COUNT";
    case StreamKind::kSecondary:
      return "SECONDARY";
    case StreamKind::kRowIndex:
      return "ROW_INDEX";
    case StreamKind::kBloomFilter:
      return "BLOOM_FILTER";
    case StreamKind::kBloomFilterUtf8:
      return "BLOOM_FILTER_UTF8";
    case StreamKind::kEncryptedIndex:
      return "ENCRYPTED_INDEX";
    case StreamKind::kEncryptedData:
      return "ENCRYPTED_DATA";
    case StreamKind::kStripeStatistics:
      return "STRIPE_STATISTICS";
    case StreamKind::kFileStatistics:
      return "FILE_STATISTICS";
  }
  return "unknown(" + std::to_string(static_cast<uint32_t>(kind)) + ")";
}

std::string EncodingKindName(EncodingKind kind) {
  switch (kind) {
    case EncodingKind::kDirect:
      return "DIRECT";
    case EncodingKind::kDictionary:
      return "DICTIONARY";
    case EncodingKind::kDirectV2:
      return "DIRECT_V2";
    case EncodingKind::kDictionaryV2:
      return "DICTIONARY_V2";
  }
  return "unknown(" + std::to_string(static_cast<uint32_t>(kind)) + ")";
}

std::pair<uint64_t, uint64_t> StripeFooterRange(const FileTail& tail, size_t index) {
  const StripeInfo& si = tail.stripes[index];
  return {si.offset + si.index_length + si.data_length, si.footer_length};  // checked by ParseTail
}

std::vector<uint32_t> SubtreeColumns(const TypeTree& types, uint32_t column) {
  std::vector<uint32_t> out;
  std::vector<uint32_t> todo{column};
  while (!todo.empty()) {
    const uint32_t c = todo.back();
    todo.pop_back();
    if (c >= types.nodes.size()) continue;
    out.push_back(c);
    for (uint32_t sub : types.nodes[c].subtypes) todo.push_back(sub);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<StreamInfo> DataStreams(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns) {
  std::vector<StreamInfo> out;
  for (const StreamInfo& s : footer.streams) {
    if (s.kind == StreamKind::kRowIndex || s.kind == StreamKind::kBloomFilter ||
        s.kind == StreamKind::kBloomFilterUtf8 || s.length == 0) {
      continue;
    }
    if (std::binary_search(columns.begin(), columns.end(), s.column)) out.push_back(s);
  }
  return out;
}

Result<StripeFooterInfo> ParseStripeFooter(const FileTail& tail, std::span<const uint8_t> file, size_t index) {
  if (index >= tail.stripes.size()) {
    return Status::InvalidArgument(tail.name + ": stripe " + std::to_string(index) + " does not exist (" +
                                   std::to_string(tail.stripes.size()) + " stripes)");
  }
  if (file.size() != tail.file_size) return Status::Internal(tail.name + ": file bytes differ from the parsed tail");
  const auto [footer_off, footer_len] = StripeFooterRange(tail, index);
  return ParseStripeFooterBytes(tail, index, Buffer(nullptr, file.data() + footer_off, footer_len));
}

Result<StripeFooterInfo> ParseStripeFooterBytes(const FileTail& tail, size_t index, const Buffer& raw) {
  if (index >= tail.stripes.size()) {
    return Status::InvalidArgument(tail.name + ": stripe " + std::to_string(index) + " does not exist (" +
                                   std::to_string(tail.stripes.size()) + " stripes)");
  }
  const StripeInfo& si = tail.stripes[index];
  const uint64_t footer_off = StripeFooterRange(tail, index).first;
  const std::string where =
      tail.name + ": stripe " + std::to_string(index) + " footer at offset " + std::to_string(footer_off);
  if (raw.size() != si.footer_length) {
    return Status::IOError(where + ": " + std::to_string(raw.size()) + " bytes read, the footer has " +
                           std::to_string(si.footer_length));
  }
  RAP_ASSIGN_OR_RETURN(Buffer bytes,
                       DecompressStream(tail.compression, tail.compression_block_size, raw, where, footer_off));
  proto::StripeFooter f;
  RAP_RETURN_NOT_OK(ParseProto(&f, bytes, where));
  StripeFooterInfo out;
  out.writer_timezone = f.writer_timezone();
  const size_t ncols = tail.types.nodes.size();
  if (static_cast<size_t>(f.columns_size()) != ncols) {
    return Status::Corrupt(where + ": bad number of column encodings: expected " + std::to_string(ncols) +
                           " (one per type), found " + std::to_string(f.columns_size()));
  }
  for (const auto& c : f.columns()) {
    if (c.kind() > static_cast<uint32_t>(EncodingKind::kDictionaryV2)) {
      return Status::Corrupt(where + ": unknown column encoding kind " + std::to_string(c.kind()));
    }
    out.encodings.push_back(ColumnEncodingInfo{static_cast<EncodingKind>(c.kind()), c.dictionary_size()});
  }
  uint64_t pos = si.offset;
  const uint64_t end = si.offset + si.index_length + si.data_length;
  for (int i = 0; i < f.streams_size(); ++i) {
    const auto& s = f.streams(i);
    if (s.length() > end - pos) {
      return Status::Corrupt(
          where + ": stream " + std::to_string(i) + " (" + StreamKindName(static_cast<StreamKind>(s.kind())) +
          " of column " + std::to_string(s.column()) + ", " + std::to_string(s.length()) + " bytes at offset " +
          std::to_string(pos) + ") runs past the stripe's data, which ends at offset " + std::to_string(end));
    }
    if (s.column() >= ncols) {
      return Status::Corrupt(where + ": stream " + std::to_string(i) + " names column " + std::to_string(s.column()) +
                             ", the file has " + std::to_string(ncols) + " type ids");
    }
    out.streams.push_back(StreamInfo{static_cast<StreamKind>(s.kind()), s.column(), pos, s.length()});
    pos += s.length();
  }
  return out;
}

}  // namespace rap::orc
