// FileReader: footer and page-index loading (cached), projections and the exact byte ranges of a
// row-group read. Decoding lives in file_reader_decode.cc.
#include "rap/read/file_reader.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "rap/format/footer.h"
#include "rap/format/thrift.h"
#include "rap/read/read_ahead_cache.h"
#include "rap/read/row_group_share.h"
#include "read/planned_fetch.h"

namespace rap::read {

namespace {

std::string ChunkName(const std::string& path, int rg, const parquet::ColumnDescriptor& c) {
  return fmt::format("{}: row group {} column '{}'", path, rg, c.dotted_path);
}

}  // namespace

Result<std::shared_ptr<FileReader>> FileReader::Open(io::ObjectStorePtr store, const std::string& path,
                                                     FileReaderOptions options) {
  if (!store) return Status::InvalidArgument("FileReader::Open: no object store");
  if (options.batch_size <= 0) {
    return Status::InvalidArgument(fmt::format("batch size must be positive, got {}", options.batch_size));
  }
  std::shared_ptr<FileReader> reader(new FileReader(std::move(store), path, std::move(options)));
  RAP_RETURN_NOT_OK(reader->LoadMetadata());
  RAP_RETURN_NOT_OK(reader->Validate());
  return reader;
}

Result<std::vector<Buffer>> FileReader::FetchRanges(const std::vector<ByteRange>& ranges, const char* purpose) {
  if (std::string_view(purpose) == "data") {
    {
      std::lock_guard<std::mutex> lock(stats_mu_);
      stats_.data_ranges.insert(stats_.data_ranges.end(), ranges.begin(), ranges.end());
    }
    if (options_.read_ahead) {
      int64_t hits = 0;
      auto fetch = [&](const std::vector<ByteRange>& r) { return FetchPlanned(r, purpose); };
      RAP_ASSIGN_OR_RETURN(std::vector<Buffer> out, TakeOrFetch(options_.read_ahead.get(), ranges, path_, fetch, &hits));
      std::lock_guard<std::mutex> lock(stats_mu_);
      stats_.read_ahead_hits += hits;
      return out;
    }
  }
  return FetchPlanned(ranges, purpose);
}

Status FileReader::FetchInto(const std::vector<ByteRange>& ranges, ReadAheadCache& cache, const char* purpose,
                             const std::vector<std::pair<std::shared_ptr<RowGroupShare>, ByteRange>>& claimed) {
  std::vector<ByteRange> all = ranges;
  for (const auto& c : claimed) all.push_back(c.second);
  auto r = FetchPlanned(all, purpose);
  for (size_t i = 0; i < all.size(); ++i) {
    const bool got = r.ok() && i < r->size();
    if (i < ranges.size()) {
      if (got) {
        cache.Fill(all[i], std::move((*r)[i]));
      } else {
        cache.Fail(all[i]);
      }
    } else if (got) {
      claimed[i - ranges.size()].first->Fill(all[i], std::move((*r)[i]));
    } else {
      claimed[i - ranges.size()].first->Fail(all[i]);
    }
  }
  return r.ok() ? Status::OK() : r.status();
}

Result<std::vector<Buffer>> FileReader::FetchPlanned(const std::vector<ByteRange>& ranges, const char* purpose) {
  const io::PlanOptions po = FilePlanOptions(options_.plan, options_.io, meta_ ? info().etag : std::string(), purpose);
  plan::PlanRecord record;
  auto r = io::ReadPlanned(*store_, path_, ranges, po, &record);
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.CountPlannedRead(static_cast<int64_t>(record.chosen_requests), record.payload_bytes);
  return r;
}

void ReaderStats::CountTailRead(const io::ReadStats& st) {
  read_calls++;
  requests += static_cast<int64_t>(st.requests.size());
  tail_requests += static_cast<int64_t>(st.requests.size());
  for (const auto& t : st.requests) {
    bytes += t.bytes;
    tail_bytes += t.bytes;
  }
}

void ReaderStats::CountPlannedRead(int64_t n, uint64_t payload, bool tail) {
  read_calls++;
  requests += n;
  bytes += payload;
  if (tail) {
    tail_requests += n;
    tail_bytes += payload;
  }
}

void FileReader::CountFooterRead(const io::ReadStats& st) {
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.CountTailRead(st);
}

Status FileReader::LoadMetadata() {
  MetadataCache& cache = MetadataCache::Global();
  const std::string endpoint = store_->endpoint();
  if (options_.use_metadata_cache && options_.object_info && !options_.object_info->etag.empty()) {
    cache_key_ = MetadataCache::Key(endpoint, path_, options_.object_info->etag);
    if ((meta_ = cache.Get(cache_key_))) {
      from_cache_ = true;
      return Status::OK();
    }
  }
  io::ReadStats st;
  auto tail = store_->ReadTail(path_, std::max<uint64_t>(options_.tail_read_size, parquet::kFooterSize), options_.io,
                               &st);
  CountFooterRead(st);
  if (!tail.ok()) return tail.status();
  auto [buffer, info] = std::move(*tail);
  if (options_.use_metadata_cache && !info.etag.empty()) {
    cache_key_ = MetadataCache::Key(endpoint, path_, info.etag);
    if ((meta_ = cache.Get(cache_key_))) {
      from_cache_ = true;
      return Status::OK();
    }
  }
  if (buffer.size() > info.size) {
    return Status::IOError(fmt::format("{}: the store returned a tail of {} bytes for an object of {} bytes", path_,
                                       buffer.size(), info.size));
  }
  RAP_ASSIGN_OR_RETURN(uint64_t length, parquet::ParseFooterLength(buffer.span(), info.size, path_));
  const uint64_t need = length + parquet::kFooterSize;
  if (need > buffer.size()) {
    // The footer is larger than the first read: fetch the missing front part.
    ByteRange rest{info.size - need, need - buffer.size()};
    io::ReadStats rest_stats;
    auto more_r = store_->ReadRanges(path_, std::vector<ByteRange>{rest}, options_.io, &rest_stats);
    CountFooterRead(rest_stats);
    if (!more_r.ok()) return more_r.status();
    std::vector<Buffer> more = std::move(*more_r);
    if (more.size() != 1 || more[0].size() != rest.length) {
      return Status::IOError(fmt::format("{}: short read of the footer range {}", path_, rest.ToString()));
    }
    Buffer whole = Buffer::Allocate(need);
    std::memcpy(whole.mutable_data(), more[0].data(), more[0].size());
    std::memcpy(whole.mutable_data() + more[0].size(), buffer.data(), buffer.size());
    buffer = std::move(whole);
  }
  tail_offset_ = info.size - buffer.size();
  tail_ = buffer;
  RAP_ASSIGN_OR_RETURN(parquet::FileMetaData md, parquet::ParseFooter(buffer.span(), info.size, path_));
  if (md.has_encryption_algorithm) {
    return Status::NotSupported(path_ + ": encrypted Parquet is not supported (plaintext footer with encryption)");
  }
  RAP_ASSIGN_OR_RETURN(parquet::SchemaDescriptor schema, parquet::SchemaDescriptor::Make(md.schema, path_));
  meta_ = std::make_shared<FileMetadata>(std::move(md), std::move(schema), std::move(info), length);
  if (!cache_key_.empty()) cache.Put(cache_key_, meta_);
  return Status::OK();
}

Status FileReader::Validate() {
  const auto& md = metadata();
  const int num_columns = schema().num_columns();
  rg_first_row_.clear();
  total_rows_ = 0;
  for (size_t i = 0; i < md.row_groups.size(); ++i) {
    const auto& rg = md.row_groups[i];
    if (static_cast<int>(rg.columns.size()) != num_columns) {
      return Status::Corrupt(fmt::format("{}: row group {} has {} column chunks but the schema has {} columns", path_,
                                         i, rg.columns.size(), num_columns));
    }
    if (rg.num_rows < 0 || rg.num_rows > (int64_t{1} << 50)) {
      return Status::Corrupt(fmt::format("{}: row group {} has an invalid row count {}", path_, i, rg.num_rows));
    }
    for (int c = 0; c < num_columns; ++c) {
      const auto& chunk = rg.columns[static_cast<size_t>(c)];
      if (chunk.has_crypto_metadata || chunk.has_encrypted_column_metadata) {
        return Status::NotSupported(path_ + ": encrypted Parquet is not supported (column '" +
                                    schema().column(c).dotted_path + "' is encrypted)");
      }
      if (!chunk.meta_data) {
        return Status::Corrupt(fmt::format("{}: row group {} column '{}' has no column metadata", path_, i,
                                           schema().column(c).dotted_path));
      }
      if (chunk.meta_data->type != schema().column(c).physical_type) {
        return Status::Corrupt(fmt::format("{}: row group {} column '{}' has physical type {} but the schema says {}",
                                           path_, i, schema().column(c).dotted_path,
                                           parquet::TypeName(chunk.meta_data->type),
                                           parquet::TypeName(schema().column(c).physical_type)));
      }
    }
    rg_first_row_.push_back(total_rows_);
    total_rows_ += rg.num_rows;
  }
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.columns.resize(static_cast<size_t>(num_columns));
  return Status::OK();
}

Result<Projection> FileReader::Project(const std::vector<std::string>& columns) const {
  Projection p;
  if (columns.empty()) {
    p.fields = schema().fields();
  } else {
    auto fields = schema().Project(columns);
    if (!fields.ok()) return fields.status().WithContext(path_);
    p.fields = std::move(*fields);
  }
  for (const auto& f : p.fields) p.columns.insert(p.columns.end(), f.columns.begin(), f.columns.end());
  std::sort(p.columns.begin(), p.columns.end());
  p.columns.erase(std::unique(p.columns.begin(), p.columns.end()), p.columns.end());
  p.schema = parquet::MakeArrowSchema(p.fields);
  return p;
}

Result<ByteRange> FileReader::ChunkRange(int rg, int column) const {
  const auto& cm = *metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(column)].meta_data;
  int64_t start = cm.data_page_offset;
  // dictionary_page_offset 0 (or past the data pages) is a known writer bug: the dictionary page, if
  // any, is then found inline at data_page_offset.
  if (cm.dictionary_page_offset && *cm.dictionary_page_offset > 0 && *cm.dictionary_page_offset < start) {
    start = *cm.dictionary_page_offset;
  }
  const uint64_t file_size = info().size;
  if (start < 0 || cm.total_compressed_size <= 0 || static_cast<uint64_t>(start) > file_size ||
      static_cast<uint64_t>(cm.total_compressed_size) > file_size - static_cast<uint64_t>(start)) {
    return Status::Corrupt(fmt::format("{}: column chunk at offset {} with {} compressed bytes does not fit in the "
                                       "file of {} bytes",
                                       ChunkName(path_, rg, schema().column(column)), start,
                                       cm.total_compressed_size, file_size));
  }
  return ByteRange{static_cast<uint64_t>(start), static_cast<uint64_t>(cm.total_compressed_size)};
}

Status FileReader::LoadPageIndex(const std::vector<int>& row_groups, const std::vector<int>& columns, bool offset_index,
                                 bool column_index) {
  std::lock_guard<std::mutex> page_index_lock(page_index_mu_);
  struct Want {
    int rg, col;
    bool is_offset;
  };
  std::vector<Want> wants;
  std::vector<ByteRange> ranges;
  const uint64_t file_size = info().size;
  for (int rg : row_groups) {
    if (rg < 0 || rg >= num_row_groups()) return Status::InvalidArgument(fmt::format("no row group {}", rg));
    for (int c : columns) {
      if (c < 0 || c >= schema().num_columns()) return Status::InvalidArgument(fmt::format("no column {}", c));
      const auto& chunk = metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(c)];
      auto add = [&](const std::optional<int64_t>& off, const std::optional<int32_t>& len, bool is_offset) -> Status {
        if (!off || !len) return Status::OK();
        if (*off < 0 || *len <= 0 || static_cast<uint64_t>(*off) > file_size ||
            static_cast<uint64_t>(*len) > file_size - static_cast<uint64_t>(*off)) {
          return Status::Corrupt(fmt::format("{}: {} index at offset {} of {} bytes does not fit in the file of {} "
                                             "bytes",
                                             ChunkName(path_, rg, schema().column(c)), is_offset ? "offset" : "column",
                                             *off, *len, file_size));
        }
        wants.push_back({rg, c, is_offset});
        ranges.push_back({static_cast<uint64_t>(*off), static_cast<uint64_t>(*len)});
        return Status::OK();
      };
      if (offset_index && !meta_->offset_index(rg, c)) {
        RAP_RETURN_NOT_OK(add(chunk.offset_index_offset, chunk.offset_index_length, true));
      }
      if (column_index && !meta_->column_index(rg, c)) {
        RAP_RETURN_NOT_OK(add(chunk.column_index_offset, chunk.column_index_length, false));
      }
    }
  }
  if (ranges.empty()) return Status::OK();
  // Index bytes inside the footer tail (writers put the page index right before the footer, so a
  // 64 KiB tail often holds all of it) are sliced from that read; the rest is one planned read.
  std::vector<Buffer> buffers(ranges.size());
  std::vector<ByteRange> missing;
  std::vector<size_t> missing_at;
  int64_t from_tail = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!tail_.empty() && ranges[i].offset >= tail_offset_ && ranges[i].end() <= tail_offset_ + tail_.size()) {
      buffers[i] = tail_.Slice(ranges[i].offset - tail_offset_, ranges[i].length);
      ++from_tail;
    } else {
      missing.push_back(ranges[i]);
      missing_at.push_back(i);
    }
  }
  if (from_tail) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.page_index_from_tail += from_tail;
  }
  if (!missing.empty()) {
    // Writers lay the indexes out back to back, so touching (or overlapping) ranges are read as one
    // span: the same bytes in far fewer requests (a fragment of the RAP index with 11 columns and
    // 60 row groups: 1 request instead of ~20). Gaps are left to the planner.
    std::vector<size_t> order(missing.size());
    for (size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return missing[a].offset < missing[b].offset; });
    std::vector<ByteRange> spans;
    std::vector<size_t> span_of(missing.size());
    for (size_t j : order) {
      const ByteRange& r = missing[j];
      if (spans.empty() || r.offset > spans.back().end()) {
        spans.push_back(r);
      } else if (r.end() > spans.back().end()) {
        spans.back().length = r.end() - spans.back().offset;
      }
      span_of[j] = spans.size() - 1;
    }
    RAP_ASSIGN_OR_RETURN(std::vector<Buffer> fetched, FetchRanges(spans, "page_index"));
    if (fetched.size() != spans.size()) {
      return Status::IOError(fmt::format("{}: page-index read returned {} buffers for {} ranges", path_, fetched.size(),
                                         spans.size()));
    }
    for (size_t j = 0; j < missing.size(); ++j) {
      const ByteRange& span = spans[span_of[j]];
      const Buffer& b = fetched[span_of[j]];
      if (b.size() != span.length) {
        return Status::IOError(fmt::format("{}: page-index read at offset {} returned {} bytes, expected {}", path_,
                                           span.offset, b.size(), span.length));
      }
      buffers[missing_at[j]] = b.Slice(missing[j].offset - span.offset, missing[j].length);
    }
  }
  for (size_t i = 0; i < wants.size(); ++i) {
    const Want& w = wants[i];
    const std::string ctx = fmt::format("{}: {} index at offset {}", ChunkName(path_, w.rg, schema().column(w.col)),
                                        w.is_offset ? "offset" : "column", ranges[i].offset);
    if (w.is_offset) {
      auto oi = parquet::DecodeOffsetIndex(buffers[i].span());
      if (!oi.ok()) return oi.status().WithContext(ctx);
      meta_->set_offset_index(w.rg, w.col, std::make_shared<const parquet::OffsetIndex>(std::move(*oi)),
                              ranges[i].length);
    } else {
      auto ci = parquet::DecodeColumnIndex(buffers[i].span());
      if (!ci.ok()) return ci.status().WithContext(ctx);
      meta_->set_column_index(w.rg, w.col, std::make_shared<const parquet::ColumnIndex>(std::move(*ci)),
                              ranges[i].length);
    }
  }
  if (!cache_key_.empty()) MetadataCache::Global().Recharge(cache_key_);
  return Status::OK();
}

Result<std::shared_ptr<const parquet::OffsetIndex>> FileReader::GetOffsetIndex(int rg, int column) {
  if (auto p = meta_->offset_index(rg, column)) return p;
  RAP_RETURN_NOT_OK(LoadPageIndex({rg}, {column}, true, false));
  return meta_->offset_index(rg, column);
}

Result<std::shared_ptr<const parquet::ColumnIndex>> FileReader::GetColumnIndex(int rg, int column) {
  if (auto p = meta_->column_index(rg, column)) return p;
  RAP_RETURN_NOT_OK(LoadPageIndex({rg}, {column}, false, true));
  return meta_->column_index(rg, column);
}

Result<std::vector<ChunkRanges>> FileReader::PlanRowGroup(int rg, const RowSelection& selection,
                                                          const Projection& projection) {
  if (rg < 0 || rg >= num_row_groups()) return Status::InvalidArgument(fmt::format("{}: no row group {}", path_, rg));
  const int64_t rg_rows = row_group_num_rows(rg);
  std::vector<ChunkRanges> out;
  if (selection.empty()) return out;
  if (selection.last_end() > rg_rows) {
    return Status::InvalidArgument(fmt::format("{}: row group {} has {} rows, the selection reaches row {}", path_, rg,
                                               rg_rows, selection.last_end()));
  }
  if (options_.use_page_index) RAP_RETURN_NOT_OK(LoadPageIndex({rg}, projection.columns, true, false));
  for (int c : projection.columns) {
    ChunkRanges cr;
    cr.column = c;
    RAP_ASSIGN_OR_RETURN(ByteRange chunk, ChunkRange(rg, c));
    std::shared_ptr<const parquet::OffsetIndex> oi = options_.use_page_index ? meta_->offset_index(rg, c) : nullptr;
    if (!oi) {
      cr.whole_chunk = true;
      cr.runs.push_back(chunk);
      out.push_back(std::move(cr));
      continue;
    }
    const auto& locs = oi->page_locations;
    const std::string ctx = ChunkName(path_, rg, schema().column(c)) + ": offset index";
    if (locs.empty() || locs[0].first_row_index != 0) {
      return Status::Corrupt(ctx + ": the first page must start at row 0");
    }
    for (size_t k = 0; k < locs.size(); ++k) {
      const auto& l = locs[k];
      if (l.offset < 0 || l.compressed_page_size <= 0 || static_cast<uint64_t>(l.offset) < chunk.offset ||
          static_cast<uint64_t>(l.offset) + static_cast<uint64_t>(l.compressed_page_size) > chunk.end()) {
        return Status::Corrupt(fmt::format("{}: page {} at offset {} of {} bytes lies outside the column chunk {}", ctx,
                                           k, l.offset, l.compressed_page_size, chunk.ToString()));
      }
      if (k > 0 && (l.first_row_index <= locs[k - 1].first_row_index || l.offset <= locs[k - 1].offset)) {
        return Status::Corrupt(fmt::format("{}: page {} (offset {}, first row {}) does not follow page {}", ctx, k,
                                           l.offset, l.first_row_index, k - 1));
      }
      if (l.first_row_index >= rg_rows) {
        return Status::Corrupt(fmt::format("{}: page {} starts at row {} but the row group has {} rows", ctx, k,
                                           l.first_row_index, rg_rows));
      }
    }
    if (static_cast<uint64_t>(locs[0].offset) > chunk.offset) {
      cr.dictionary = ByteRange{chunk.offset, static_cast<uint64_t>(locs[0].offset) - chunk.offset};
    }
    // The pages holding selected rows, found per selected range (not per page, so a point lookup in a
    // chunk of thousands of pages costs a binary search): the page holding the range's first row
    // through the last page starting before its end. Runs of consecutive pages are merged.
    std::vector<size_t> chosen;
    for (const RowRange& r : selection.ranges()) {
      auto it = std::upper_bound(locs.begin(), locs.end(), r.begin, [](int64_t v, const parquet::PageLocation& l) {
        return v < l.first_row_index;
      });
      size_t k = it == locs.begin() ? 0 : static_cast<size_t>(it - locs.begin()) - 1;
      if (!chosen.empty() && k <= chosen.back()) k = chosen.back() + 1;
      for (; k < locs.size() && locs[k].first_row_index < r.end; ++k) chosen.push_back(k);
    }
    for (size_t i = 0; i < chosen.size();) {
      size_t j = i;
      while (j + 1 < chosen.size() && chosen[j + 1] == chosen[j] + 1) ++j;
      const auto& last = locs[chosen[j]];
      const uint64_t begin = static_cast<uint64_t>(locs[chosen[i]].offset);
      const uint64_t end = static_cast<uint64_t>(last.offset) + static_cast<uint64_t>(last.compressed_page_size);
      cr.runs.push_back({begin, end - begin});
      for (size_t x = i; x <= j; ++x) cr.pages.push_back(locs[chosen[x]]);
      i = j + 1;
    }
    out.push_back(std::move(cr));
  }
  return out;
}

ReaderStats FileReader::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

void FileReader::ResetStats() {
  std::lock_guard<std::mutex> lock(stats_mu_);
  size_t n = stats_.columns.size();
  stats_ = ReaderStats{};
  stats_.columns.resize(n);
}

}  // namespace rap::read
