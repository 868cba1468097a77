// ParquetWriter: row groups, key-driven page breaks, file layout, page index and footer.
#include "rap/format/writer.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "rap/format/thrift.h"

#include "format/column_writer.h"
#include "format/writer_layout.h"
#include "format/writer_schema.h"

namespace rap::parquet {

using internal::ColumnChunkPages;
using internal::ColumnChunkWriter;
using internal::LeafBatch;
using internal::LeafColumn;

class ParquetWriter::Impl {
 public:
  Impl(SchemaPtr schema, ByteSink* sink, WriterOptions options)
      : schema_(std::move(schema)), sink_(sink), options_(std::move(options)) {}

  Status Init() {
    RAP_RETURN_NOT_OK(options_.Validate());
    RAP_ASSIGN_OR_RETURN(ws_, internal::MapSchema(*schema_));
    std::set<std::string> known;
    for (const auto& f : schema_->fields) known.insert(f.name);
    for (const auto& leaf : ws_.leaves) known.insert(leaf.dotted);
    for (const auto& [name, o] : options_.columns) {
      if (!known.count(name)) {
        return Status::InvalidArgument("column option for '" + name + "': no such column or leaf path");
      }
    }
    RAP_RETURN_NOT_OK(ResolveKeys(options_.page_break_on, "page break key", &key_columns_));
    RAP_RETURN_NOT_OK(ResolveKeys(options_.frame_break_on, "frame key", &frame_key_columns_));
    const bool framing = !frame_key_columns_.empty();
    for (const auto& leaf : ws_.leaves) {
      ColumnLayout layout = options_.LayoutFor(schema_->fields[leaf.top_level].name, leaf.dotted);
      // The frame key's own columns keep the ordinary layout (dictionary, RLE): a lookup knows the key
      // and never reads them, and framing them costs a frame header per key for a repeated value.
      const bool is_key = std::find(frame_key_columns_.begin(), frame_key_columns_.end(), leaf.top_level) !=
                          frame_key_columns_.end();
      const bool framed = framing && leaf.physical != Type::BOOLEAN && !is_key;
      if (framed) {  // a frame decodes without its predecessors: PLAIN values, ZSTD
        layout.dictionary = false;
        layout.encoding = Encoding::PLAIN;
        layout.codec = Codec::ZSTD;
      }
      auto w = ColumnChunkWriter::Make(leaf, layout, options_.data_page_version, options_.page_crc, framed);
      if (!w.ok()) return w.status().WithContext("column " + leaf.dotted);
      layouts_.push_back(layout);
      columns_.push_back(std::move(*w));
    }
    return sink_->Append(std::string_view("PAR1", 4));
  }

  Status ResolveKeys(const std::vector<std::string>& names, const char* what, std::vector<int>* out) const {
    for (const auto& key : names) {
      const int idx = schema_->FieldIndex(key);
      if (idx < 0) return Status::InvalidArgument(fmt::format("{} '{}': no such top-level column", what, key));
      const auto& t = *schema_->fields[idx].type;
      if (t.IsNested()) return Status::InvalidArgument(fmt::format("{} '{}' must be a primitive column", what, key));
      out->push_back(idx);
    }
    return Status::OK();
  }

  Status Write(const RecordBatch& batch) {
    RAP_RETURN_NOT_OK(CheckBatch(batch));
    std::vector<int64_t> breaks = KeyBreaks(batch, key_columns_, &page_key_);
    std::vector<int64_t> frame_breaks = KeyBreaks(batch, frame_key_columns_, &frame_key_);
    // Bytes per row of this batch, to size slices against the row-group byte limit.
    int64_t batch_bytes = 0;
    for (const auto& c : batch.columns) batch_bytes += ArrayBytes(*c);
    const double row_bytes = std::max(1.0, static_cast<double>(batch_bytes) / std::max<int64_t>(1, batch.num_rows));
    int64_t row = 0;
    size_t bi = 0;
    std::vector<int64_t> slice_breaks, slice_frame_breaks;
    size_t fi = 0;
    while (row < batch.num_rows) {
      int64_t end = batch.num_rows;
      if (options_.row_group_max_rows > 0) end = std::min(end, row + options_.row_group_max_rows - rg_rows_);
      if (options_.row_group_max_bytes > 0) {
        const double room = static_cast<double>(options_.row_group_max_bytes - BufferedBytes());
        end = std::min(end, row + std::max<int64_t>(1, static_cast<int64_t>(room / row_bytes)));
      }
      slice_breaks.clear();
      while (bi < breaks.size() && breaks[bi] < end) {
        if (breaks[bi] >= row) slice_breaks.push_back(breaks[bi] - row);
        ++bi;
      }
      slice_frame_breaks.clear();
      while (fi < frame_breaks.size() && frame_breaks[fi] < end) {
        if (frame_breaks[fi] >= row) slice_frame_breaks.push_back(frame_breaks[fi] - row);
        ++fi;
      }
      if (!frame_key_columns_.empty()) {
        if (rg_rows_ == 0) rg_key_starts_.assign(1, 0);
        for (int64_t b : slice_frame_breaks) {
          if (rg_rows_ + b > rg_key_starts_.back()) rg_key_starts_.push_back(rg_rows_ + b);
        }
      }
      for (size_t c = 0; c < columns_.size(); ++c) {
        const LeafColumn& leaf = ws_.leaves[c];
        RAP_RETURN_NOT_OK(internal::ShredLeaf(leaf, *batch.columns[leaf.top_level], row, end, &leaf_batch_));
        RAP_RETURN_NOT_OK(columns_[c]->AddRows(leaf_batch_, slice_breaks, slice_frame_breaks));
      }
      rg_rows_ += end - row;
      summary_.num_rows += end - row;
      row = end;
      if ((options_.row_group_max_rows > 0 && rg_rows_ >= options_.row_group_max_rows) ||
          (options_.row_group_max_bytes > 0 && BufferedBytes() >= options_.row_group_max_bytes)) {
        RAP_RETURN_NOT_OK(FlushRowGroup());
      }
    }
    return Status::OK();
  }

  Status FlushRowGroup() {
    if (rg_rows_ == 0) return Status::OK();
    RowGroup rg;
    rg.num_rows = rg_rows_;
    rg.ordinal = static_cast<int16_t>(std::min<size_t>(metadata_.row_groups.size(), INT16_MAX));
    const int64_t rg_start = static_cast<int64_t>(sink_->position());
    int64_t rg_compressed = 0;
    std::vector<ColumnIndex> cis;
    std::vector<bool> ci_valid;
    std::vector<OffsetIndex> ois;
    std::vector<ColumnChunkPages> chunks;
    for (auto& w : columns_) {
      RAP_ASSIGN_OR_RETURN(ColumnChunkPages pages, w->Finish());
      chunks.push_back(std::move(pages));
    }
    internal::LayoutOptions lo;
    lo.align = options_.frame_align;
    lo.interleave = options_.interleave;
    RAP_ASSIGN_OR_RETURN(internal::RowGroupLayout placed,
                         internal::LayOutRowGroup(&chunks, rg_key_starts_, static_cast<int64_t>(sink_->position()), lo,
                                                  sink_));
    for (size_t c = 0; c < columns_.size(); ++c) {
      const LeafColumn& leaf = ws_.leaves[c];
      ColumnChunkPages& pages = chunks[c];
      ColumnChunk cc;
      ColumnMetaData md;
      md.type = leaf.physical;
      md.path_in_schema = leaf.path;
      md.codec = layouts_[c].codec;
      md.num_values = pages.num_levels;
      cc.file_offset = placed.pages[c].empty() ? 0 : placed.pages[c].front().offset;
      std::set<Encoding> encodings;
      std::map<std::pair<PageType, Encoding>, int32_t> enc_stats;
      OffsetIndex oi;
      ColumnIndex ci;
      bool valid = leaf.stats_kind != StatsKind::kNone;
      bool first_data = true;
      for (size_t pi = 0; pi < pages.pages.size(); ++pi) {
        const auto& p = pages.pages[pi];
        const int64_t offset = placed.pages[c][pi].offset;
        const int64_t stored = placed.pages[c][pi].size;
        md.total_uncompressed_size += p.uncompressed_size();
        md.total_compressed_size += stored;
        encodings.insert(p.encoding);
        ++enc_stats[{p.type, p.encoding}];
        if (p.type == PageType::DICTIONARY_PAGE) {
          md.dictionary_page_offset = offset;
          ++summary_.num_dictionary_pages;
          continue;
        }
        ++summary_.num_data_pages;
        if (first_data) md.data_page_offset = offset;
        first_data = false;
        oi.page_locations.push_back({offset, static_cast<int32_t>(stored), p.first_row});
        AddPageToColumnIndex(leaf, p, &ci, &valid);
      }
      if (leaf.max_def > 0 || leaf.max_rep > 0) encodings.insert(Encoding::RLE);
      md.encodings.assign(encodings.begin(), encodings.end());
      for (const auto& [k, n] : enc_stats) md.encoding_stats.push_back({k.first, k.second, n});
      if (layouts_[c].statistics) md.statistics = pages.stats.ToThrift(layouts_[c].max_statistics_bytes);
      summary_.uncompressed_page_bytes += md.total_uncompressed_size;
      if (!options_.interleave) summary_.compressed_page_bytes += md.total_compressed_size;
      if (pages.fell_back) ++summary_.num_dictionary_fallbacks;
      rg.total_byte_size += md.total_uncompressed_size;
      rg_compressed += md.total_compressed_size;
      ci.boundary_order = BoundaryOrderOf(leaf.stats_kind, ci);
      cc.meta_data = std::move(md);
      rg.columns.push_back(std::move(cc));
      cis.push_back(std::move(ci));
      ci_valid.push_back(valid);
      ois.push_back(std::move(oi));
    }
    // RowGroup.file_offset: the first page's offset (alignment may pad before an interleaved region).
    int64_t first_page = placed.end;
    for (const auto& col : placed.pages) {
      for (const auto& page : col) first_page = std::min(first_page, page.offset);
    }
    rg.file_offset = first_page;
    // Interleaved chunks overlap (each spans the others' frames): count the row group's bytes once.
    rg.total_compressed_size = options_.interleave ? placed.end - first_page : rg_compressed;
    if (options_.interleave) summary_.compressed_page_bytes += placed.end - rg_start;
    for (const auto& f : placed.frames) summary_.num_frames += static_cast<int64_t>(f.size());
    summary_.num_skippable_frames += placed.skippable_frames;
    summary_.padding_bytes += placed.padding_bytes;
    summary_.misaligned_keys += placed.misaligned;
    frame_locations_.push_back(std::move(placed.frames));
    key_ranges_.push_back(std::move(placed.keys));
    rg_key_starts_.clear();
    metadata_.row_groups.push_back(std::move(rg));
    column_indexes_.push_back(std::move(cis));
    column_index_valid_.push_back(std::move(ci_valid));
    page_locations_.push_back(std::move(ois));
    ++summary_.num_row_groups;
    rg_rows_ = 0;
    return Status::OK();
  }

  Status Close() {
    RAP_RETURN_NOT_OK(FlushRowGroup());
    if (options_.write_page_index) {
      // All ColumnIndexes, then all OffsetIndexes, between the last row group and the footer.
      for (size_t r = 0; r < metadata_.row_groups.size(); ++r) {
        for (size_t c = 0; c < columns_.size(); ++c) {
          if (!column_index_valid_[r][c]) continue;
          std::string bytes;
          EncodeColumnIndex(column_indexes_[r][c], &bytes);
          auto& cc = metadata_.row_groups[r].columns[c];
          cc.column_index_offset = static_cast<int64_t>(sink_->position());
          cc.column_index_length = static_cast<int32_t>(bytes.size());
          RAP_RETURN_NOT_OK(sink_->Append(bytes));
        }
      }
      for (size_t r = 0; r < metadata_.row_groups.size(); ++r) {
        for (size_t c = 0; c < columns_.size(); ++c) {
          std::string bytes;
          EncodeOffsetIndex(page_locations_[r][c], &bytes);
          auto& cc = metadata_.row_groups[r].columns[c];
          cc.offset_index_offset = static_cast<int64_t>(sink_->position());
          cc.offset_index_length = static_cast<int32_t>(bytes.size());
          RAP_RETURN_NOT_OK(sink_->Append(bytes));
        }
      }
    }
    metadata_.version = 2;
    metadata_.schema = ws_.elements;
    metadata_.num_rows = summary_.num_rows;
    metadata_.key_value_metadata = options_.key_value_metadata;
    metadata_.created_by = options_.created_by;
    metadata_.column_orders_type_defined.assign(ws_.leaves.size(), true);
    std::string footer;
    EncodeFileMetaData(metadata_, &footer);
    const uint32_t len = static_cast<uint32_t>(footer.size());
    for (int i = 0; i < 4; ++i) footer.push_back(static_cast<char>(len >> (8 * i)));
    footer += "PAR1";
    RAP_RETURN_NOT_OK(sink_->Append(footer));
    summary_.file_bytes = sink_->position();
    return sink_->Close();
  }

  // State shared with the public wrapper.
  bool failed_ = false;
  bool closed_ = false;
  SchemaPtr schema_;
  ByteSink* sink_;
  WriterOptions options_;
  internal::WriterSchema ws_;
  WriteSummary summary_;
  FileMetaData metadata_;
  std::vector<std::vector<OffsetIndex>> page_locations_;
  std::vector<std::vector<std::vector<FrameLocation>>> frame_locations_;
  std::vector<std::vector<KeyRange>> key_ranges_;

 private:
  int64_t BufferedBytes() const {
    int64_t b = 0;
    for (const auto& c : columns_) b += c->BufferedBytes();
    return b;
  }

  static int64_t ArrayBytes(const ArrayData& a) {
    int64_t b = 0;
    for (const auto& buf : a.buffers) b += static_cast<int64_t>(buf.size());
    for (const auto& c : a.children) b += c ? ArrayBytes(*c) : 0;
    return b;
  }

  Status CheckBatch(const RecordBatch& batch) const {
    if (batch.columns.size() != schema_->fields.size()) {
      return Status::InvalidArgument(fmt::format("record batch has {} columns, the writer's schema {}",
                                                 batch.columns.size(), schema_->fields.size()));
    }
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      const auto& f = schema_->fields[i];
      const auto& col = batch.columns[i];
      if (!col || !col->type) return Status::InvalidArgument("column " + f.name + ": missing array");
      if (col->length != batch.num_rows) {
        return Status::InvalidArgument(
            fmt::format("column {}: array has {} rows, the batch {}", f.name, col->length, batch.num_rows));
      }
      if (col->type->ToString() != f.type->ToString()) {
        return Status::InvalidArgument(fmt::format("column {}: array type {} differs from the schema's {}", f.name,
                                                   col->type->ToString(), f.type->ToString()));
      }
      RAP_RETURN_NOT_OK(ValidateArray(*col).WithContext("column " + f.name));
    }
    return Status::OK();
  }

  // Serialised key of row i (null marker + value bytes of every key column).
  void KeyOf(const RecordBatch& batch, const std::vector<int>& columns, int64_t i, std::string* out) const {
    out->clear();
    for (int idx : columns) {
      const ArrayData& a = *batch.columns[idx];
      if (a.IsNull(i)) {
        out->push_back('\0');
        continue;
      }
      out->push_back('\1');
      const int w = a.type->FixedWidth();
      if (a.type->id == TypeId::kBool) {
        const int64_t b = a.offset + i;
        out->push_back(static_cast<char>((a.buffers[1].data()[b >> 3] >> (b & 7)) & 1));
      } else if (w > 0) {
        out->append(reinterpret_cast<const char*>(a.buffers[1].data()) + (a.offset + i) * w, w);
      } else if (a.type->IsBinaryLike()) {
        const int32_t* o = a.offsets();
        const uint32_t len = static_cast<uint32_t>(o[i + 1] - o[i]);
        out->append(reinterpret_cast<const char*>(&len), 4);
        out->append(reinterpret_cast<const char*>(a.buffers[2].data()) + o[i], len);
      }
    }
  }

  // The last key seen by KeyBreaks, across batches.
  struct LastKey {
    std::string key;
    bool has = false;
  };
  // Rows of the batch where the key differs from the previous row (batch-relative).
  std::vector<int64_t> KeyBreaks(const RecordBatch& batch, const std::vector<int>& columns, LastKey* last) const {
    std::vector<int64_t> breaks;
    if (columns.empty()) return breaks;
    std::string key;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      KeyOf(batch, columns, i, &key);
      if (last->has && key != last->key) breaks.push_back(i);
      last->key.swap(key);
      last->has = true;
    }
    return breaks;
  }

  void AddPageToColumnIndex(const LeafColumn& leaf, const internal::EncodedPage& p, ColumnIndex* ci,
                            bool* valid) const {
    const bool null_page = p.stats.num_values() == 0;
    ci->null_pages.push_back(null_page);
    ci->null_counts.push_back(p.stats.null_count());
    if (null_page) {
      ci->min_values.emplace_back();
      ci->max_values.emplace_back();
      return;
    }
    if (!p.stats.has_min_max()) {  // only NaNs: no valid bounds, so no ColumnIndex for this chunk
      *valid = false;
      ci->min_values.emplace_back();
      ci->max_values.emplace_back();
      return;
    }
    std::string lo = p.stats.EncodedMin(), hi = p.stats.EncodedMax();
    const size_t limit = static_cast<size_t>(options_.column_index_truncate_bytes);
    if (leaf.stats_kind == StatsKind::kBytesUnsigned) {
      lo = TruncateLowerBound(lo, limit);
      if (auto t = TruncateUpperBound(hi, limit)) hi = std::move(*t);
    }
    ci->min_values.push_back(std::move(lo));
    ci->max_values.push_back(std::move(hi));
  }

  static BoundaryOrder BoundaryOrderOf(StatsKind kind, const ColumnIndex& ci) {
    bool asc = true, desc = true;
    int64_t prev = -1;
    for (size_t i = 0; i < ci.null_pages.size(); ++i) {
      if (ci.null_pages[i]) continue;
      if (prev >= 0) {
        const int cmin = CompareStatValues(kind, ci.min_values[prev], ci.min_values[i]);
        const int cmax = CompareStatValues(kind, ci.max_values[prev], ci.max_values[i]);
        if (cmin > 0 || cmax > 0) asc = false;
        if (cmin < 0 || cmax < 0) desc = false;
      }
      prev = static_cast<int64_t>(i);
    }
    if (asc) return BoundaryOrder::ASCENDING;
    if (desc) return BoundaryOrder::DESCENDING;
    return BoundaryOrder::UNORDERED;
  }

  std::vector<ColumnLayout> layouts_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> columns_;
  std::vector<int> key_columns_, frame_key_columns_;
  LastKey page_key_, frame_key_;
  std::vector<int64_t> rg_key_starts_;  // frame per key: rows of the open row group where a key starts
  int64_t rg_rows_ = 0;
  LeafBatch leaf_batch_;
  std::vector<std::vector<ColumnIndex>> column_indexes_;
  std::vector<std::vector<bool>> column_index_valid_;
};

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(SchemaPtr schema, ByteSink* sink, WriterOptions options) {
  if (!schema) return Status::InvalidArgument("ParquetWriter: no schema");
  if (!sink) return Status::InvalidArgument("ParquetWriter: no sink");
  auto impl = std::make_unique<Impl>(std::move(schema), sink, std::move(options));
  Status st = impl->Init();
  if (!st.ok()) {
    sink->Abort();
    return st;
  }
  return std::unique_ptr<ParquetWriter>(new ParquetWriter(std::move(impl)));
}

ParquetWriter::ParquetWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ParquetWriter::~ParquetWriter() {
  if (!impl_->closed_) impl_->sink_->Abort();
}

namespace {
Status Guard(ParquetWriter::Impl* impl, const char* what) {
  if (impl->closed_) return Status::InvalidArgument(std::string("ParquetWriter::") + what + " after Close/Abort");
  if (impl->failed_) return Status::InvalidArgument(std::string("ParquetWriter::") + what + " after an earlier error");
  return Status::OK();
}
}  // namespace

Status ParquetWriter::Write(const RecordBatch& batch) {
  RAP_RETURN_NOT_OK(Guard(impl_.get(), "Write"));
  Status st = impl_->Write(batch);
  if (!st.ok()) impl_->failed_ = true;
  return st;
}

Status ParquetWriter::FlushRowGroup() {
  RAP_RETURN_NOT_OK(Guard(impl_.get(), "FlushRowGroup"));
  Status st = impl_->FlushRowGroup();
  if (!st.ok()) impl_->failed_ = true;
  return st;
}

Status ParquetWriter::Close() {
  RAP_RETURN_NOT_OK(Guard(impl_.get(), "Close"));
  Status st = impl_->Close();
  impl_->closed_ = true;
  if (!st.ok()) {
    impl_->failed_ = true;
    impl_->sink_->Abort();
  }
  return st;
}

void ParquetWriter::Abort() {
  if (impl_->closed_) return;
  impl_->closed_ = true;
  impl_->sink_->Abort();
}

const WriteSummary& ParquetWriter::summary() const { return impl_->summary_; }
const std::vector<SchemaElement>& ParquetWriter::parquet_schema() const { return impl_->ws_.elements; }
const FileMetaData& ParquetWriter::metadata() const { return impl_->metadata_; }
const std::vector<std::vector<OffsetIndex>>& ParquetWriter::page_locations() const { return impl_->page_locations_; }
const std::vector<std::vector<std::vector<FrameLocation>>>& ParquetWriter::frame_locations() const {
  return impl_->frame_locations_;
}
const std::vector<std::vector<KeyRange>>& ParquetWriter::key_ranges() const { return impl_->key_ranges_; }

Result<std::string> WriteParquetToString(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                                         const WriterOptions& options) {
  MemorySink sink;
  RAP_ASSIGN_OR_RETURN(auto w, ParquetWriter::Open(schema, &sink, options));
  for (const auto& b : batches) RAP_RETURN_NOT_OK(w->Write(b));
  RAP_RETURN_NOT_OK(w->Close());
  return sink.data();
}

}  // namespace rap::parquet
