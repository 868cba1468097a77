// String, char, varchar and binary columns: DIRECT (LENGTH + DATA) and DICTIONARY (DATA holds
// indices into a dictionary of `dictionary_size` entries: LENGTH + DICTIONARY_DATA).
#include <cstring>
#include <limits>

#include "orc/column_decoder.h"

namespace rap::orc {

namespace {

constexpr uint64_t kMaxStringBytes = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

// Offsets of `lengths` into a blob of `blob_size` bytes; Corrupt when they run past it.
Status LengthsToStarts(const StripeContext& ctx, uint32_t column, const char* what, const std::vector<int64_t>& lengths,
                       size_t blob_size, std::vector<uint64_t>* starts) {
  starts->resize(lengths.size() + 1);
  uint64_t acc = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    (*starts)[i] = acc;
    if (lengths[i] < 0) {
      return Status::Corrupt(ctx.Where(column) + ": negative " + what + " length " + std::to_string(lengths[i]) +
                             " at entry " + std::to_string(i));
    }
    const uint64_t l = static_cast<uint64_t>(lengths[i]);
    if (l > blob_size - acc) {
      return Status::Corrupt(ctx.Where(column) + ": " + what + " entry " + std::to_string(i) + " of length " +
                             std::to_string(l) + " runs past the " + std::to_string(blob_size) + "-byte data stream");
    }
    acc += l;
  }
  (*starts)[lengths.size()] = acc;
  return Status::OK();
}

Result<ArrayPtr> Assemble(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type,
                          const uint8_t* blob, const std::vector<uint64_t>& starts, const std::vector<int64_t>* index) {
  auto out = std::make_shared<ArrayData>();
  out->type = std::move(type);
  SetValidity(p, out.get());
  Buffer offsets = Buffer::Allocate((p.size() + 1) * sizeof(int32_t));
  int32_t* off = reinterpret_cast<int32_t*>(offsets.mutable_data());
  uint64_t total = 0;
  size_t k = 0;
  off[0] = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p.valid[i]) {
      const size_t e = index ? static_cast<size_t>((*index)[k]) : k;
      ++k;
      total += starts[e + 1] - starts[e];
      if (total > kMaxStringBytes) {
        return Status::NotSupported(ctx.Where(column) +
                                    ": the stripe's values of this column exceed 2 GiB, more than "
                                    "one Arrow string array holds");
      }
    }
    off[i + 1] = static_cast<int32_t>(total);
  }
  Buffer data = Buffer::Allocate(std::max<uint64_t>(total, 1));
  k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p.valid[i]) continue;
    const size_t e = index ? static_cast<size_t>((*index)[k]) : k;
    ++k;
    const uint64_t len = starts[e + 1] - starts[e];
    if (len > 0) std::memcpy(data.mutable_data() + off[i], blob + starts[e], len);  // blob is null when empty
  }
  out->buffers.push_back(std::move(offsets));
  out->buffers.push_back(data.Slice(0, total));
  return out;
}

}  // namespace

Result<ArrayPtr> DecodeStringColumn(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  const EncodingKind enc = ctx.Encoding(column);
  const bool v2 = ctx.RleV2(column);
  if (enc == EncodingKind::kDirect || enc == EncodingKind::kDirectV2) {
    std::vector<int64_t> lengths(p.count);
    StreamCursor data{"", Buffer(), 0};
    if (p.count > 0) {
      RAP_ASSIGN_OR_RETURN(StreamCursor len, ctx.Required(column, StreamKind::kLength, "StringDirectColumn"));
      RAP_RETURN_NOT_OK(DecodeIntRle(&len, v2, false, p.count, lengths.data()));
      RAP_ASSIGN_OR_RETURN(std::optional<StreamCursor> d, ctx.Stream(column, StreamKind::kData));
      if (d) data = std::move(*d);  // all values may be empty: no DATA stream
    }
    std::vector<uint64_t> starts;
    RAP_RETURN_NOT_OK(LengthsToStarts(ctx, column, "value", lengths, data.data.size(), &starts));
    return Assemble(ctx, column, p, std::move(type), data.data.data(), starts, nullptr);
  }
  const uint32_t dict_size = ctx.footer->encodings[column].dictionary_size;
  std::vector<int64_t> index(p.count);
  if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "StringDictionaryColumn"));
    RAP_RETURN_NOT_OK(DecodeIntRle(&data, v2, false, p.count, index.data()));
    for (size_t i = 0; i < index.size(); ++i) {
      if (index[i] < 0 || static_cast<uint64_t>(index[i]) >= dict_size) {
        return data.Error("dictionary index " + std::to_string(static_cast<uint64_t>(index[i])) + " of value " +
                          std::to_string(i) + " is outside the dictionary of " + std::to_string(dict_size) +
                          " entries");
      }
    }
  }
  if (dict_size == 0) {  // an empty dictionary (every value null) may come without its streams
    if (p.count > 0) return Status::Corrupt(ctx.Where(column) + ": values refer to an empty dictionary");
    return Assemble(ctx, column, p, std::move(type), nullptr, {0}, &index);
  }
  RAP_ASSIGN_OR_RETURN(StreamCursor lens, ctx.Required(column, StreamKind::kLength, "StringDictionaryColumn"));
  // Every dictionary entry takes at least one bit of the LENGTH stream: bounds the allocation.
  if (dict_size / 8 > lens.data.size() * 64) {
    return lens.Error("dictionary size " + std::to_string(dict_size) + " does not fit the " +
                      std::to_string(lens.data.size()) + "-byte LENGTH stream");
  }
  std::vector<int64_t> lengths(dict_size);
  RAP_RETURN_NOT_OK(DecodeIntRle(&lens, v2, false, dict_size, lengths.data()));
  Buffer blob;
  RAP_ASSIGN_OR_RETURN(std::optional<StreamCursor> dict, ctx.Stream(column, StreamKind::kDictionaryData));
  if (dict) {
    blob = dict->data;
  } else {
    for (int64_t l : lengths) {
      if (l != 0)
        return Status::Corrupt(ctx.Where(column) + ": DICTIONARY_DATA stream not found in StringDictionaryColumn");
    }
  }
  std::vector<uint64_t> starts;
  RAP_RETURN_NOT_OK(LengthsToStarts(ctx, column, "dictionary", lengths, blob.size(), &starts));
  return Assemble(ctx, column, p, std::move(type), blob.data(), starts, &index);
}

}  // namespace rap::orc
