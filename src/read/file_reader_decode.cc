// FileReader: fetching the planned ranges of a row group and decoding them into record batches.
#include <fmt/format.h>

#include "rap/read/file_reader.h"

namespace rap::read {

Result<RecordBatch> FileReader::ReadRowGroup(int rg, const RowSelection& selection, const Projection& projection) {
  RAP_ASSIGN_OR_RETURN(std::vector<ChunkRanges> plan, PlanRowGroup(rg, selection, projection));
  // One fetch for every range of the row group.
  std::vector<ByteRange> ranges;
  for (const ChunkRanges& cr : plan) {
    if (cr.dictionary) ranges.push_back(*cr.dictionary);
    ranges.insert(ranges.end(), cr.runs.begin(), cr.runs.end());
  }
  std::vector<Buffer> buffers;
  if (!ranges.empty()) {
    RAP_ASSIGN_OR_RETURN(buffers, FetchRanges(ranges));
    if (buffers.size() != ranges.size()) {
      return Status::IOError(fmt::format("{}: the store returned {} buffers for {} ranges", path_, buffers.size(),
                                         ranges.size()));
    }
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (buffers[i].size() != ranges[i].length) {
        return Status::IOError(fmt::format("{}: short read of range {} ({} bytes)", path_, ranges[i].ToString(),
                                           buffers[i].size()));
      }
    }
  }
  const auto& md = metadata();
  const int64_t rg_rows = row_group_num_rows(rg);
  parquet::ColumnReadOptions copts;
  copts.verify_crc = options_.verify_crc;
  copts.max_page_bytes = options_.max_page_bytes;
  copts.file_name = path_;
  const int num_columns = schema().num_columns();
  std::vector<parquet::LeafColumnData> data(static_cast<size_t>(num_columns));
  std::vector<const parquet::LeafColumnData*> leaves(static_cast<size_t>(num_columns), nullptr);
  size_t bi = 0;
  auto read_one = [&](int c, const parquet::ColumnChunkInput& input) -> Status {
    const auto& cm = *md.row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(c)].meta_data;
    parquet::ColumnChunkStats cs;
    auto leaf = parquet::ReadColumnChunk(schema().column(c), cm.codec, input, selection.ranges(), copts, &cs);
    {
      std::lock_guard<std::mutex> lock(stats_mu_);
      ColumnReadStats& s = stats_.columns[static_cast<size_t>(c)];
      s.data_pages_read += cs.data_pages_read;
      s.data_pages_skipped += cs.data_pages_skipped;
      s.dictionary_pages += cs.dictionary_pages;
      s.values_decoded += cs.values_decoded;
      s.values_skipped += cs.values_skipped;
      for (int64_t r : cs.page_first_rows) s.pages.emplace_back(rg, r);
    }
    if (!leaf.ok()) return leaf.status().WithContext(fmt::format("row group {}", rg));
    data[static_cast<size_t>(c)] = std::move(*leaf);
    leaves[static_cast<size_t>(c)] = &data[static_cast<size_t>(c)];
    return Status::OK();
  };
  if (plan.empty()) {
    // Nothing selected: empty arrays of the right types.
    for (int c : projection.columns) RAP_RETURN_NOT_OK(read_one(c, parquet::ColumnChunkInput{}));
  }
  for (const ChunkRanges& cr : plan) {
    parquet::ColumnChunkInput input;
    input.num_rows = rg_rows;
    if (cr.dictionary) {
      input.dictionary = parquet::PageSpan{buffers[bi], cr.dictionary->offset, 0};
      ++bi;
    }
    if (cr.whole_chunk) {
      input.spans.push_back(parquet::PageSpan{buffers[bi], cr.runs[0].offset, 0});
      ++bi;
    } else {
      size_t page = 0;
      for (const ByteRange& run : cr.runs) {
        const Buffer& buf = buffers[bi++];
        for (; page < cr.pages.size() && static_cast<uint64_t>(cr.pages[page].offset) < run.end(); ++page) {
          const auto& loc = cr.pages[page];
          const uint64_t at = static_cast<uint64_t>(loc.offset);
          input.spans.push_back(parquet::PageSpan{buf.Slice(at - run.offset, static_cast<size_t>(loc.compressed_page_size)),
                                                  at, loc.first_row_index});
        }
      }
    }
    RAP_RETURN_NOT_OK(read_one(cr.column, input));
  }
  RecordBatch batch;
  batch.schema = projection.schema;
  batch.num_rows = selection.Count();
  for (const auto& field : projection.fields) {
    auto array = parquet::AssembleField(field, leaves, batch.num_rows);
    if (!array.ok()) return array.status().WithContext(fmt::format("{}: row group {}", path_, rg));
    batch.columns.push_back(std::move(*array));
  }
  return batch;
}

namespace {

class FileBatchReader : public RecordBatchReader {
 public:
  FileBatchReader(std::shared_ptr<FileReader> reader, RowSelection selection, Projection projection)
      : reader_(std::move(reader)), selection_(std::move(selection)), projection_(std::move(projection)) {}

  SchemaPtr schema() const override { return projection_.schema; }

  Result<std::optional<RecordBatch>> Next() override {
    while (pos_ >= current_.num_rows) {
      if (rg_ >= reader_->num_row_groups()) return std::optional<RecordBatch>();
      const int rg = rg_++;
      const int64_t first = reader_->row_group_first_row(rg);
      RowSelection sel = selection_.Slice(first, first + reader_->row_group_num_rows(rg));
      if (sel.empty()) continue;
      RAP_ASSIGN_OR_RETURN(current_, reader_->ReadRowGroup(rg, sel, projection_));
      pos_ = 0;
    }
    const int64_t n = std::min(reader_->options().batch_size, current_.num_rows - pos_);
    RecordBatch out;
    out.schema = current_.schema;
    out.num_rows = n;
    if (pos_ == 0 && n == current_.num_rows) {
      out.columns = current_.columns;
    } else {
      for (const auto& c : current_.columns) out.columns.push_back(SliceArray(c, pos_, n));
    }
    pos_ += n;
    return std::optional<RecordBatch>(std::move(out));
  }

 private:
  std::shared_ptr<FileReader> reader_;
  RowSelection selection_;
  Projection projection_;
  int rg_ = 0;
  RecordBatch current_;
  int64_t pos_ = 0;
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> FileReader::NewBatchReader(std::optional<RowSelection> selection,
                                                                      const Projection& projection) {
  RowSelection sel = selection ? *selection : RowSelection::All(num_rows());
  if (sel.last_end() > num_rows()) {
    return Status::InvalidArgument(fmt::format("{}: the file has {} rows, the selection reaches row {}", path_,
                                               num_rows(), sel.last_end()));
  }
  if (sel.first() < 0) return Status::InvalidArgument(path_ + ": negative row in the selection");
  return std::unique_ptr<RecordBatchReader>(new FileBatchReader(shared_from_this(), std::move(sel), projection));
}

Result<std::vector<RecordBatch>> FileReader::ReadAll(std::optional<RowSelection> selection,
                                                     const Projection& projection) {
  RAP_ASSIGN_OR_RETURN(auto reader, NewBatchReader(std::move(selection), projection));
  std::vector<RecordBatch> out;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    out.push_back(std::move(*batch));
  }
  return out;
}

}  // namespace rap::read
