#include "rap/read/orc_file_reader.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "rap/io/planned_read.h"
#include "rap/orc/reader.h"
#include "rap/read/read_ahead_cache.h"
#include "read/planned_fetch.h"

namespace rap::read {

bool IsOrcPath(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".orc";
}

Result<std::shared_ptr<OrcFileReader>> OrcFileReader::Open(io::ObjectStorePtr store, const std::string& path,
                                                           FileReaderOptions options) {
  std::shared_ptr<OrcFileReader> r(new OrcFileReader(std::move(store), path, std::move(options)));
  RAP_RETURN_NOT_OK(r->LoadTail());
  auto schema = r->tail_.types.ArrowSchema();
  if (!schema.ok()) return Status(schema.status().code(), path + ": " + schema.status().message());
  r->schema_ = *schema;
  int64_t row = 0;
  for (const orc::StripeInfo& s : r->tail_.stripes) {
    r->first_row_.push_back(row);
    row += static_cast<int64_t>(s.num_rows);
  }
  RAP_RETURN_NOT_OK(r->LoadStripeFooters());
  return r;
}

Status OrcFileReader::LoadTail() {
  auto count = [&](const io::ReadStats& st) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.CountTailRead(st);
  };
  io::ReadStats st;
  auto tail = store_->ReadTail(path_, std::max<uint64_t>(options_.tail_read_size, 16), options_.io, &st);
  count(st);
  if (!tail.ok()) return tail.status();
  auto [buffer, info] = std::move(*tail);
  info_ = info;
  if (buffer.size() > info.size || (buffer.empty() && info.size > 0)) {
    return Status::IOError(fmt::format("{}: the store returned a tail of {} bytes for an object of {} bytes", path_,
                                       buffer.size(), info.size));
  }
  if (info.size < 4) {
    return Status::Corrupt(fmt::format("{}: the file is {} bytes, too small for an ORC file (header and postscript)",
                                       path_, info.size));
  }
  // At most twice: the postscript first when the tail read was shorter than it, then the rest.
  for (int round = 0; round < 2; ++round) {
    RAP_ASSIGN_OR_RETURN(uint64_t need, orc::TailLength(path_, info.size, buffer.span()));
    if (need <= buffer.size()) break;
    ByteRange rest{info.size - need, need - buffer.size()};
    io::ReadStats rest_stats;
    auto more = store_->ReadRanges(path_, std::vector<ByteRange>{rest}, options_.io, &rest_stats);
    count(rest_stats);
    if (!more.ok()) return more.status();
    if (more->size() != 1 || (*more)[0].size() != rest.length) {
      return Status::IOError(fmt::format("{}: short read of the ORC tail range {}", path_, rest.ToString()));
    }
    Buffer whole = Buffer::Allocate(need);
    std::memcpy(whole.mutable_data(), (*more)[0].data(), rest.length);
    std::memcpy(whole.mutable_data() + rest.length, buffer.data(), buffer.size());
    buffer = std::move(whole);
  }
  RAP_ASSIGN_OR_RETURN(tail_, orc::ParseTailFromSuffix(path_, info.size, buffer.span()));
  return Status::OK();
}

Status OrcFileReader::LoadStripeFooters() {
  std::vector<ByteRange> ranges;
  for (size_t s = 0; s < tail_.stripes.size(); ++s) {
    const auto [off, len] = orc::StripeFooterRange(tail_, s);
    ranges.push_back(ByteRange{off, len});
  }
  if (ranges.empty()) return Status::OK();
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bytes, FetchPlanned(ranges, "orc_stripe_footers", /*metadata=*/true));
  if (bytes.size() != ranges.size()) {
    return Status::IOError(fmt::format("{}: the store returned {} buffers for {} stripe footers", path_, bytes.size(),
                                       ranges.size()));
  }
  for (size_t s = 0; s < ranges.size(); ++s) {
    RAP_ASSIGN_OR_RETURN(orc::StripeFooterInfo f, orc::ParseStripeFooterBytes(tail_, s, bytes[s]));
    footers_.push_back(std::move(f));
  }
  return Status::OK();
}

namespace {

std::vector<uint32_t> FieldsColumns(const orc::FileTail& tail, const std::vector<int>& fields) {
  std::vector<uint32_t> columns;
  for (int f : fields) {
    std::vector<uint32_t> sub = orc::SubtreeColumns(tail.types, orc::OrcReader::FieldColumn(tail, f));
    columns.insert(columns.end(), sub.begin(), sub.end());
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  return columns;
}

}  // namespace

std::vector<uint32_t> OrcFileReader::FieldColumns(const std::vector<int>& fields) const {
  return FieldsColumns(tail_, fields);
}

Result<std::map<uint32_t, orc::RowIndexInfo>> OrcFileReader::ReadRowIndex(size_t s,
                                                                          const std::vector<uint32_t>& columns,
                                                                          const std::vector<uint32_t>& bloom_columns) {
  if (s >= footers_.size()) {
    return Status::InvalidArgument(fmt::format("{}: stripe {} does not exist ({} stripes)", path_, s, footers_.size()));
  }
  std::map<uint32_t, orc::RowIndexInfo> out;
  std::vector<orc::StreamInfo> streams = orc::RowIndexStreams(footers_[s], columns);
  if (!bloom_columns.empty()) {
    for (const orc::StreamInfo& st : orc::BloomFilterStreams(footers_[s], bloom_columns)) streams.push_back(st);
    std::sort(streams.begin(), streams.end(),
              [](const orc::StreamInfo& a, const orc::StreamInfo& b) { return a.offset < b.offset; });
  }
  if (streams.empty()) return out;
  std::vector<ByteRange> ranges;
  for (const orc::StreamInfo& st : streams) ranges.push_back(ByteRange{st.offset, st.length});
  int64_t hits = 0;
  auto fetch = [&](const std::vector<ByteRange>& r) { return FetchPlanned(r, "orc_row_index"); };
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bytes, TakeOrFetch(options_.read_ahead.get(), ranges, path_, fetch, &hits));
  if (hits > 0) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.read_ahead_hits += hits;
  }
  if (bytes.size() != ranges.size()) {
    return Status::IOError(fmt::format("{}: the store returned {} buffers for {} row index streams", path_,
                                       bytes.size(), ranges.size()));
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i].kind == orc::StreamKind::kRowIndex) {
      RAP_ASSIGN_OR_RETURN(orc::RowIndexInfo index, orc::ParseRowIndex(tail_, s, streams[i], bytes[i]));
      std::vector<orc::BloomFilter> blooms = std::move(out[streams[i].column].bloom_filters);
      out[streams[i].column] = std::move(index);
      out[streams[i].column].bloom_filters = std::move(blooms);
    } else {
      RAP_ASSIGN_OR_RETURN(out[streams[i].column].bloom_filters,
                           orc::ParseBloomFilterIndex(tail_, s, streams[i], bytes[i]));
    }
  }
  return out;
}

Result<RecordBatch> OrcFileReader::ReadRowGroups(size_t s, const std::vector<int>& fields,
                                                 const std::map<uint32_t, orc::RowIndexInfo>& index, size_t first,
                                                 size_t last) {
  if (s >= footers_.size()) {
    return Status::InvalidArgument(fmt::format("{}: stripe {} does not exist ({} stripes)", path_, s, footers_.size()));
  }
  for (int f : fields) {
    if (f < 0 || static_cast<size_t>(f) >= schema_->fields.size()) {
      return Status::InvalidArgument(fmt::format("{}: field index {} is not in the schema", path_, f));
    }
  }
  RAP_ASSIGN_OR_RETURN(std::vector<orc::StreamPart> parts,
                       orc::PlanRowGroupRead(tail_, s, footers_[s], index, FieldsColumns(tail_, fields), first, last));
  std::vector<ByteRange> ranges;
  for (const orc::StreamPart& p : parts) {
    if (p.length > 0) ranges.push_back(ByteRange{p.offset, p.length});
  }
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.data_ranges.insert(stats_.data_ranges.end(), ranges.begin(), ranges.end());
  }
  int64_t hits = 0;
  auto fetch = [&](const std::vector<ByteRange>& r) { return FetchPlanned(r, "data"); };
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> fetched, TakeOrFetch(options_.read_ahead.get(), ranges, path_, fetch, &hits));
  std::vector<std::pair<orc::StreamPart, Buffer>> bytes;
  size_t k = 0;
  for (const orc::StreamPart& p : parts) {
    Buffer b;
    if (p.length > 0) {
      b = std::move(fetched[k++]);
      if (b.size() != p.length) {
        return Status::IOError(fmt::format("{}: short read of stripe {} stream part [{}, +{})", path_, s, p.offset,
                                           p.length));
      }
    }
    bytes.emplace_back(p, std::move(b));
  }
  if (hits > 0) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.read_ahead_hits += hits;
  }
  return orc::OrcReader::DecodeRowGroups(tail_, s, footers_[s], bytes, fields, first, last);
}

std::vector<ByteRange> OrcFileReader::RowIndexRanges(size_t s, const std::vector<int>& fields,
                                                     const std::vector<uint32_t>& bloom_columns) const {
  std::vector<ByteRange> out;
  for (const orc::StreamInfo& st : orc::RowIndexStreams(footers_[s], FieldsColumns(tail_, fields))) {
    out.push_back(ByteRange{st.offset, st.length});
  }
  if (!bloom_columns.empty()) {
    for (const orc::StreamInfo& st : orc::BloomFilterStreams(footers_[s], bloom_columns)) {
      out.push_back(ByteRange{st.offset, st.length});
    }
    std::sort(out.begin(), out.end(), [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  }
  return out;
}

bool OrcFileReader::HasBloomFilters(size_t s, const std::vector<uint32_t>& columns) const {
  return s < footers_.size() && !columns.empty() && !orc::BloomFilterStreams(footers_[s], columns).empty();
}

bool OrcFileReader::StripeHeld(size_t s, const std::vector<int>& fields) const {
  if (!options_.read_ahead || s >= footers_.size()) return false;
  const std::vector<ByteRange> ranges = StripeRanges(s, fields);
  return !ranges.empty() && options_.read_ahead->Holds(ranges.front());
}

std::vector<ByteRange> OrcFileReader::StripeRanges(size_t s, const std::vector<int>& fields) const {
  std::vector<ByteRange> out;
  for (const orc::StreamInfo& st : orc::DataStreams(footers_[s], FieldsColumns(tail_, fields))) {
    out.push_back(ByteRange{st.offset, st.length});
  }
  return out;
}

Result<RecordBatch> OrcFileReader::ReadStripe(size_t s, const std::vector<int>& fields) {
  if (s >= footers_.size()) {
    return Status::InvalidArgument(fmt::format("{}: stripe {} does not exist ({} stripes)", path_, s, footers_.size()));
  }
  for (int f : fields) {
    if (f < 0 || static_cast<size_t>(f) >= schema_->fields.size()) {
      return Status::InvalidArgument(fmt::format("{}: field index {} is not in the schema", path_, f));
    }
  }
  std::vector<orc::StreamInfo> streams = orc::DataStreams(footers_[s], FieldsColumns(tail_, fields));
  std::vector<ByteRange> ranges;
  for (const orc::StreamInfo& st : streams) ranges.push_back(ByteRange{st.offset, st.length});
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.data_ranges.insert(stats_.data_ranges.end(), ranges.begin(), ranges.end());
  }
  int64_t hits = 0;
  auto fetch = [&](const std::vector<ByteRange>& r) { return FetchPlanned(r, "data"); };
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> fetched, TakeOrFetch(options_.read_ahead.get(), ranges, path_, fetch, &hits));
  std::vector<std::pair<orc::StreamInfo, Buffer>> bytes;
  for (size_t i = 0; i < ranges.size(); ++i) {
    Buffer b = std::move(fetched[i]);
    if (b.size() != ranges[i].length) {
      return Status::IOError(fmt::format("{}: short read of stripe {} stream range {}", path_, s, ranges[i].ToString()));
    }
    bytes.emplace_back(streams[i], std::move(b));
  }
  if (hits > 0) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.read_ahead_hits += hits;
  }
  return orc::OrcReader::DecodeStripe(tail_, s, footers_[s], bytes, fields);
}

Status OrcFileReader::FetchInto(const std::vector<ByteRange>& ranges, ReadAheadCache& cache, const char* purpose) {
  auto r = FetchPlanned(ranges, purpose);
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (r.ok() && i < r->size()) {
      cache.Fill(ranges[i], std::move((*r)[i]));
    } else {
      cache.Fail(ranges[i]);
    }
  }
  return r.ok() ? Status::OK() : r.status();
}

Result<std::vector<Buffer>> OrcFileReader::FetchPlanned(const std::vector<ByteRange>& ranges, const char* purpose,
                                                        bool metadata) {
  const io::PlanOptions po = FilePlanOptions(options_.plan, options_.io, info_.etag, purpose);
  plan::PlanRecord record;
  auto r = io::ReadPlanned(*store_, path_, ranges, po, &record);
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.CountPlannedRead(static_cast<int64_t>(record.chosen_requests), record.payload_bytes, metadata);
  return r;
}

ReaderStats OrcFileReader::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

}  // namespace rap::read
