#include "rap/orc/stripe.h"

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

Result<StripeFooterInfo> ParseStripeFooter(const FileTail& tail, std::span<const uint8_t> file, size_t index) {
  if (index >= tail.stripes.size()) {
    return Status::InvalidArgument(tail.name + ": stripe " + std::to_string(index) + " does not exist (" +
                                   std::to_string(tail.stripes.size()) + " stripes)");
  }
  const StripeInfo& si = tail.stripes[index];
  if (file.size() != tail.file_size) return Status::Internal(tail.name + ": file bytes differ from the parsed tail");
  const uint64_t footer_off = si.offset + si.index_length + si.data_length;  // checked by ParseTail
  const std::string where =
      tail.name + ": stripe " + std::to_string(index) + " footer at offset " + std::to_string(footer_off);
  Buffer raw(nullptr, file.data() + footer_off, si.footer_length);
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
