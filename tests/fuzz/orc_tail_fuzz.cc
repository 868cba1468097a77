// The ORC file tail (postscript, footer, metadata: rap/orc/tail.h), the stripe footers, the row
// indexes, the bloom filters (rap/orc/bloom_filter.h) and reads of row groups from their positions (rap/orc/row_index.h), and the
// decoding of small stripes (at most 65,536 rows and 2^18 values per column, so that one input
// stays within libFuzzer's memory limit: a larger stripe is a legal file that takes memory in
// proportion).
//
// Input: the bytes of an ORC file. Seeds: the Apache ORC example files up to 64 KiB (rap_fuzz_seeds).
#include <algorithm>
#include <map>
#include <string_view>

#include "rap/orc/reader.h"
#include "rap/orc/row_index.h"

#include "fuzz/fuzz_target.h"

RAP_FUZZ_TARGET(orc_tail) {
  auto reader = rap::orc::OrcReader::Open("fuzz.orc", rap::Buffer::Copy(data, size));
  if (!reader.ok()) return 0;
  (*reader)->set_max_stripe_values(1 << 18);  // within libFuzzer's 512 MiB allocation limit
  const rap::orc::FileTail& tail = (*reader)->tail();
  (void)tail.types.ToString();
  (void)(*reader)->schema();
  for (size_t s = 0; s < (*reader)->num_stripes() && s < 8; ++s) {
    if (!(*reader)->StripeFooter(s).ok()) continue;
    if (tail.stripes[s].num_rows > 65536) continue;
    auto batch = (*reader)->ReadStripe(s);
    if (!batch.ok()) continue;
    for (const auto& col : batch->columns) {
      if (!rap::columnar::ValidateArray(*col).ok()) __builtin_trap();  // a decoded stripe is always well-formed
    }
    // Bloom filter streams (both kinds; seeds with them: bad_bloom_filter_1.6.*.orc of ORC C++,
    // over1k_bloom.orc of Hive) parsed and probed with each hash.
    {
      auto sf = (*reader)->StripeFooter(s);
      const rap::Buffer bytes(nullptr, data, size);
      for (const rap::orc::StreamInfo& st : sf->streams) {
        if (st.kind != rap::orc::StreamKind::kBloomFilter && st.kind != rap::orc::StreamKind::kBloomFilterUtf8) continue;
        if (st.offset > size || st.length > size - st.offset) __builtin_trap();  // checked by the footer's parser
        auto filters = rap::orc::ParseBloomFilterIndex(tail, s, st, bytes.Slice(st.offset, st.length));
        if (!filters.ok()) continue;
        for (const rap::orc::BloomFilter& f : *filters) {
          (void)f.MightContainInteger(static_cast<int64_t>(size));
          (void)f.MightContainDouble(1.5);
          (void)f.MightContainBytes(std::string_view(reinterpret_cast<const char*>(data), std::min<size_t>(size, 13)));
        }
      }
    }
    // Row groups read from the row-index positions: the first, the last, and all but the first.
    const size_t groups = rap::orc::NumRowGroups(tail, s);
    if (groups < 2) continue;
    auto footer = (*reader)->StripeFooter(s);
    std::vector<uint32_t> columns;
    for (uint32_t c = 1; c < tail.types.nodes.size(); ++c) columns.push_back(c);
    if (tail.types.nodes[0].kind != rap::orc::TypeKind::kStruct) columns = {0};
    const rap::Buffer file(nullptr, data, size);
    std::map<uint32_t, rap::orc::RowIndexInfo> index;
    for (const auto& st : rap::orc::RowIndexStreams(*footer, columns)) {
      auto idx = rap::orc::ParseRowIndex(tail, s, st, file.Slice(st.offset, st.length));
      if (idx.ok()) index[st.column] = std::move(*idx);
    }
    for (auto [first, last] : {std::pair<size_t, size_t>{0, 1}, {groups - 1, groups}, {1, groups}}) {
      auto parts = rap::orc::PlanRowGroupRead(tail, s, *footer, index, columns, first, last);
      if (!parts.ok()) continue;
      std::vector<std::pair<rap::orc::StreamPart, rap::Buffer>> bytes;
      for (const auto& p : *parts) {
        if (p.offset > size || p.length > size - p.offset) __builtin_trap();  // parts lie inside the file
        bytes.emplace_back(p, file.Slice(p.offset, p.length));
      }
      auto rows = rap::orc::OrcReader::DecodeRowGroups(tail, s, *footer, bytes, {}, first, last, 1 << 18);
      if (!rows.ok()) continue;
      for (const auto& col : rows->columns) {
        if (!rap::columnar::ValidateArray(*col).ok()) __builtin_trap();
      }
    }
  }
  return 0;
}
