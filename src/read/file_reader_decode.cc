// FileReader: fetching the planned ranges of a row group and decoding them into record batches, in
// row windows of at most batch_size selected rows (each page decoded once, a page spanning two
// windows kept between them), so memory follows the batch size rather than the row group's size.
// A window whose strings outgrow 32-bit offsets is retried with half the rows, down to one row.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "rap/read/file_reader.h"
#include "rap/read/row_group_share.h"

namespace rap::read {

// One row group's fetched column data and a ColumnChunkReader per projected leaf.
class FileReader::RowGroupDecoder {
 public:
  RowGroupDecoder(FileReader* reader, int rg, RowSelection selection, const Projection& projection,
                  std::shared_ptr<RowGroupShare> share = nullptr)
      : reader_(reader), rg_(rg), selection_(std::move(selection)), projection_(projection), share_(std::move(share)) {}

  Status Open() {
    RAP_ASSIGN_OR_RETURN(std::vector<ChunkRanges> plan, reader_->PlanRowGroup(rg_, selection_, projection_));
    if (share_) {
      for (ChunkRanges& cr : plan) share_->CutAtSharedPages(cr);  // shared pages: runs of their own
    }
    // One fetch for every range of the row group.
    std::vector<ByteRange> ranges;
    for (const ChunkRanges& cr : plan) {
      if (cr.dictionary) ranges.push_back(*cr.dictionary);
      ranges.insert(ranges.end(), cr.runs.begin(), cr.runs.end());
    }
    std::vector<Buffer> buffers;
    if (!ranges.empty()) {
      RAP_ASSIGN_OR_RETURN(buffers, Fetch(ranges));
      if (buffers.size() != ranges.size()) {
        return Status::IOError(fmt::format("{}: the store returned {} buffers for {} ranges", reader_->path_,
                                           buffers.size(), ranges.size()));
      }
      for (size_t i = 0; i < ranges.size(); ++i) {
        if (buffers[i].size() != ranges[i].length) {
          return Status::IOError(fmt::format("{}: short read of range {} ({} bytes)", reader_->path_,
                                             ranges[i].ToString(), buffers[i].size()));
        }
      }
    }
    if (share_) copts_.page_share = share_->page_share();
    copts_.verify_crc = reader_->options_.verify_crc;
    copts_.max_page_bytes = reader_->options_.max_page_bytes;
    copts_.memory = reader_->options_.memory.get();
    copts_.file_name = reader_->path_;
    if (reader_->options_.dictionary_cache) {
      copts_.dictionary_cache = reader_->options_.dictionary_cache.get();
      const io::ObjectInfo& info = reader_->info();
      copts_.dictionary_file = fmt::format("{}|{}|{}", reader_->path_, info.size, info.etag);
    }
    readers_.resize(static_cast<size_t>(reader_->schema().num_columns()));
    if (plan.empty()) {
      // Nothing selected: empty arrays of the right types.
      for (int c : projection_.columns) {
        RAP_RETURN_NOT_OK(AddColumn(c, parquet::ColumnChunkInput{}, selection_.ranges()));
      }
    }
    size_t bi = 0;
    for (const ChunkRanges& cr : plan) {
      parquet::ColumnChunkInput input;
      input.num_rows = reader_->row_group_num_rows(rg_);
      if (cr.dictionary) input.dictionary = parquet::PageSpan{buffers[bi++], cr.dictionary->offset, 0};
      if (cr.whole_chunk) {
        input.spans.push_back(parquet::PageSpan{buffers[bi++], cr.runs[0].offset, 0});
      } else {
        size_t page = 0;
        for (const ByteRange& run : cr.runs) {
          const Buffer& buf = buffers[bi++];
          for (; page < cr.pages.size() && static_cast<uint64_t>(cr.pages[page].offset) < run.end(); ++page) {
            const auto& loc = cr.pages[page];
            const uint64_t at = static_cast<uint64_t>(loc.offset);
            input.spans.push_back(parquet::PageSpan{
                buf.Slice(at - run.offset, static_cast<size_t>(loc.compressed_page_size)), at, loc.first_row_index});
          }
        }
      }
      RAP_RETURN_NOT_OK(AddColumn(cr.column, std::move(input), selection_.ranges()));
    }
    return Status::OK();
  }

  int64_t remaining() const { return selection_.Count() - emitted_; }

 private:
  // The bytes of `ranges`: shared pages another range claimed come from it (waiting while in
  // flight); the rest, and the shared pages this range claims, in one planned read. Claimed pages
  // are filled (or failed) before this range waits for any other, so ranges never wait in a cycle.
  Result<std::vector<Buffer>> Fetch(const std::vector<ByteRange>& ranges) {
    if (!share_) return reader_->FetchRanges(ranges);
    std::vector<ByteRange> mine;
    std::vector<size_t> mine_at, claimed, waited;  // claimed / waited: indices into ranges
    for (size_t i = 0; i < ranges.size(); ++i) {
      const bool shared = share_->Shares(ranges[i]);
      if (shared && !share_->Claim(ranges[i])) {
        waited.push_back(i);
        continue;
      }
      if (shared) claimed.push_back(i);
      mine.push_back(ranges[i]);
      mine_at.push_back(i);
    }
    std::vector<Buffer> out(ranges.size());
    if (!mine.empty()) {
      auto fetched = reader_->FetchRanges(mine);
      if (!fetched.ok() || fetched->size() != mine.size()) {
        for (size_t i : claimed) share_->Fail(ranges[i]);
        if (!fetched.ok()) return fetched.status();
        return Status::IOError(fmt::format("{}: the store returned {} buffers for {} ranges", reader_->path_,
                                           fetched->size(), mine.size()));
      }
      for (size_t k = 0; k < mine.size(); ++k) out[mine_at[k]] = std::move((*fetched)[k]);
      for (size_t i : claimed) share_->Fill(ranges[i], out[i]);
    }
    std::vector<ByteRange> again;
    std::vector<size_t> again_at;
    for (size_t i : waited) {
      if (std::optional<Buffer> b = share_->Wait(ranges[i])) {
        out[i] = std::move(*b);
      } else {
        again.push_back(ranges[i]);
        again_at.push_back(i);
      }
    }
    if (!again.empty()) {
      RAP_ASSIGN_OR_RETURN(std::vector<Buffer> fetched, reader_->FetchRanges(again));
      for (size_t k = 0; k < again.size() && k < fetched.size(); ++k) out[again_at[k]] = std::move(fetched[k]);
    }
    return out;
  }

 public:

  // Rebuilds the column readers for the selected rows not returned yet, from the bytes already
  // fetched: after a window failed part-way the readers' state is unusable. Pages before those rows
  // are walked again (skipped undecoded where their row count is known).
  Status Restart() {
    const RowSelection rest =
        selection_.Intersect(RowSelection::Range(NthSelectedRow(emitted_), selection_.last_end()));
    for (auto& r : readers_) r.reset();
    for (const auto& [c, input] : inputs_) RAP_RETURN_NOT_OK(AddColumn(c, input, rest.ranges(), false));
    return Status::OK();
  }

  // `rows` (within the selection) of the fetched columns of `sub`, decoded by fresh column readers
  // from the fetched bytes; the window readers of Next() are not touched.
  Result<RecordBatch> ReadSubset(const RowSelection& rows, const Projection& sub) {
    RAP_RETURN_NOT_OK(CheckWithinSelection(rows));
    std::vector<std::unique_ptr<parquet::ColumnChunkReader>> readers(readers_.size());
    for (int c : sub.columns) {
      RAP_ASSIGN_OR_RETURN(const parquet::ColumnChunkInput* input, FetchedInput(c));
      RAP_ASSIGN_OR_RETURN(readers[static_cast<size_t>(c)], MakeReader(c, *input, rows.ranges(), copts_));
    }
    return Decode(readers, sub, rows.Count(), std::numeric_limits<int64_t>::max());
  }

  Result<std::optional<DictionaryCodes>> ReadCodes(const RowSelection& rows, int c) {
    RAP_RETURN_NOT_OK(CheckWithinSelection(rows));
    RAP_ASSIGN_OR_RETURN(const parquet::ColumnChunkInput* input, FetchedInput(c));
    parquet::ColumnReadOptions opts = copts_;
    opts.dictionary_codes = true;
    auto r = MakeReader(c, *input, rows.ranges(), opts);
    if (!r.ok() && r.status().Is(StatusCode::kNotSupported)) return std::optional<DictionaryCodes>();
    if (!r.ok()) return r.status();
    parquet::ColumnChunkStats cs;
    auto leaf = (*r)->Next(std::numeric_limits<int64_t>::max(), &cs);
    if (!leaf.ok() && leaf.status().Is(StatusCode::kNotSupported)) return std::optional<DictionaryCodes>();
    if (!leaf.ok()) return leaf.status().WithContext(fmt::format("row group {}", rg_));
    AddStats(c, cs);
    // The column reader returned one level per row (flat column) and one code per non-null value;
    // spread the codes over the rows, -1 for NULL.
    DictionaryCodes out;
    out.dictionary = std::move(leaf->dictionary);
    const int16_t max_def = reader_->schema().column(c).max_definition_level;
    std::vector<int32_t>& dc = leaf->dictionary_codes;
    if (max_def == 0 || leaf->def_levels.empty()) {  // empty levels: no NULL among the rows
      if (static_cast<int64_t>(dc.size()) != leaf->num_levels) {
        return Status::Corrupt(fmt::format("{}: row group {}: column '{}': {} values for {} rows", reader_->path_, rg_,
                                           reader_->schema().column(c).dotted_path, dc.size(), leaf->num_levels));
      }
      out.codes = std::move(dc);
    } else {
      const auto& def = leaf->def_levels;
      if (std::count(def.begin(), def.end(), max_def) != static_cast<std::ptrdiff_t>(dc.size())) {
        return Status::Corrupt(fmt::format("{}: row group {}: column '{}': {} values for the non-null rows of {}",
                                           reader_->path_, rg_, reader_->schema().column(c).dotted_path, dc.size(),
                                           def.size()));
      }
      out.codes.resize(def.size());
      size_t k = 0;
      for (size_t i = 0; i < def.size(); ++i) out.codes[i] = def[i] == max_def ? dc[k++] : -1;
    }
    return std::optional<DictionaryCodes>(std::move(out));
  }

  // The next at most max_rows selected rows (fewer only at the end of the selection).
  Result<RecordBatch> Next(int64_t max_rows) {
    const int64_t n = std::min(max_rows, remaining());
    const int64_t end_row = n == remaining() ? std::numeric_limits<int64_t>::max() : WindowEnd(n);
    RAP_ASSIGN_OR_RETURN(RecordBatch batch, Decode(readers_, projection_, n, end_row));
    emitted_ += n;
    return batch;
  }

 private:
  Status CheckWithinSelection(const RowSelection& rows) const {
    if (rows.Intersect(selection_).Count() != rows.Count()) {
      return Status::InvalidArgument(
          fmt::format("{}: row group {}: rows outside the fetched selection requested", reader_->path_, rg_));
    }
    return Status::OK();
  }

  Result<const parquet::ColumnChunkInput*> FetchedInput(int c) const {
    for (const auto& [col, input] : inputs_) {
      if (col == c) return &input;
    }
    return Status::InvalidArgument(fmt::format("{}: row group {}: column '{}' was not fetched", reader_->path_, rg_,
                                               reader_->schema().column(c).dotted_path));
  }

  // The n rows up to end_row of every reader, assembled into the fields of `projection`.
  Result<RecordBatch> Decode(std::vector<std::unique_ptr<parquet::ColumnChunkReader>>& readers,
                             const Projection& projection, int64_t n, int64_t end_row) {
    std::vector<parquet::LeafColumnData> data(readers.size());
    std::vector<const parquet::LeafColumnData*> leaves(readers.size(), nullptr);
    for (size_t c = 0; c < readers.size(); ++c) {
      if (!readers[c]) continue;
      parquet::ColumnChunkStats cs;
      auto leaf = readers[c]->Next(end_row, &cs);
      AddStats(static_cast<int>(c), cs);
      if (!leaf.ok()) return leaf.status().WithContext(fmt::format("row group {}", rg_));
      data[c] = std::move(*leaf);
      leaves[c] = &data[c];
    }
    RecordBatch batch;
    batch.schema = projection.schema;
    batch.num_rows = n;
    for (const auto& field : projection.fields) {
      auto array = parquet::AssembleField(field, leaves, batch.num_rows);
      if (!array.ok()) return array.status().WithContext(fmt::format("{}: row group {}", reader_->path_, rg_));
      batch.columns.push_back(std::move(*array));
    }
    return batch;
  }

  Result<std::unique_ptr<parquet::ColumnChunkReader>> MakeReader(int c, parquet::ColumnChunkInput input,
                                                                const std::vector<RowRange>& selection,
                                                                const parquet::ColumnReadOptions& opts) {
    const auto& md = reader_->metadata();
    const auto& cm = *md.row_groups[static_cast<size_t>(rg_)].columns[static_cast<size_t>(c)].meta_data;
    auto r = parquet::ColumnChunkReader::Make(reader_->schema().column(c), cm.codec, std::move(input), selection, opts);
    if (!r.ok()) return r.status().WithContext(fmt::format("row group {}", rg_));
    return std::move(*r);
  }

  Status AddColumn(int c, parquet::ColumnChunkInput input, const std::vector<RowRange>& selection, bool keep = true) {
    if (keep) inputs_.emplace_back(c, input);  // shares the fetched buffers
    RAP_ASSIGN_OR_RETURN(readers_[static_cast<size_t>(c)], MakeReader(c, std::move(input), selection, copts_));
    return Status::OK();
  }

  // The row (relative to the row group) just after the next n selected rows (n < remaining()).
  int64_t WindowEnd(int64_t n) const { return NthSelectedRow(emitted_ + n); }

  // The k-th selected row (from 0); the end of the selection when k is past it.
  int64_t NthSelectedRow(int64_t k) const {
    for (const RowRange& r : selection_.ranges()) {
      if (k < r.size()) return r.begin + k;
      k -= r.size();
    }
    return selection_.last_end();
  }

  void AddStats(int c, const parquet::ColumnChunkStats& cs) {
    std::lock_guard<std::mutex> lock(reader_->stats_mu_);
    ColumnReadStats& s = reader_->stats_.columns[static_cast<size_t>(c)];
    s.data_pages_read += cs.data_pages_read;
    s.data_pages_skipped += cs.data_pages_skipped;
    s.dictionary_pages += cs.dictionary_pages;
    s.data_pages_shared += cs.data_pages_shared;
    s.dictionary_pages_shared += cs.dictionary_pages_shared;
    s.values_decoded += cs.values_decoded;
    s.values_skipped += cs.values_skipped;
    for (int64_t r : cs.page_first_rows) s.pages.emplace_back(rg_, r);
  }

  FileReader* reader_;
  int rg_;
  RowSelection selection_;
  const Projection& projection_;
  std::shared_ptr<RowGroupShare> share_;  // the split row group's shared pages, or null
  parquet::ColumnReadOptions copts_;
  std::vector<std::unique_ptr<parquet::ColumnChunkReader>> readers_;  // by leaf column index
  std::vector<std::pair<int, parquet::ColumnChunkInput>> inputs_;      // (column, its fetched pages)
  int64_t emitted_ = 0;
};

FileReader::FetchedRowGroup::FetchedRowGroup(int rg, RowSelection selection, Projection projection)
    : rg_(rg), selection_(std::move(selection)), projection_(std::move(projection)) {}

FileReader::FetchedRowGroup::~FetchedRowGroup() = default;

Result<RecordBatch> FileReader::FetchedRowGroup::Read(const RowSelection& rows, const Projection& projection) {
  return decoder_->ReadSubset(rows, projection);
}

Result<std::optional<FileReader::DictionaryCodes>> FileReader::FetchedRowGroup::ReadDictionaryCodes(
    const RowSelection& rows, int column) {
  return decoder_->ReadCodes(rows, column);
}

Result<std::unique_ptr<FileReader::FetchedRowGroup>> FileReader::FetchRowGroup(int rg, const RowSelection& selection,
                                                                               const Projection& projection,
                                                                               std::shared_ptr<RowGroupShare> share) {
  if (rg < 0 || rg >= num_row_groups()) {
    return Status::InvalidArgument(fmt::format("{}: row group {} out of range ({} row groups)", path_, rg,
                                               num_row_groups()));
  }
  std::unique_ptr<FetchedRowGroup> f(new FetchedRowGroup(rg, selection, projection));
  f->decoder_ = std::make_unique<RowGroupDecoder>(this, rg, selection, f->projection_, std::move(share));
  RAP_RETURN_NOT_OK(f->decoder_->Open());
  return f;
}

Result<RecordBatch> FileReader::ReadRowGroup(int rg, const RowSelection& selection, const Projection& projection,
                                             std::shared_ptr<RowGroupShare> share) {
  RowGroupDecoder decoder(this, rg, selection, projection, std::move(share));
  RAP_RETURN_NOT_OK(decoder.Open());
  return decoder.Next(decoder.remaining());
}

class FileReader::BatchReader : public columnar::RecordBatchReader {
 public:
  BatchReader(std::shared_ptr<FileReader> reader, RowSelection selection, Projection projection)
      : reader_(std::move(reader)), selection_(std::move(selection)), projection_(std::move(projection)) {}

  SchemaPtr schema() const override { return projection_.schema; }

  Result<std::optional<RecordBatch>> Next() override {
    while (!current_ || current_->remaining() == 0) {
      current_.reset();
      if (rg_ >= reader_->num_row_groups()) return std::optional<RecordBatch>();
      const int rg = rg_++;
      const int64_t first = reader_->row_group_first_row(rg);
      RowSelection sel = selection_.Slice(first, first + reader_->row_group_num_rows(rg));
      if (sel.empty()) continue;
      auto decoder = std::make_unique<RowGroupDecoder>(reader_.get(), rg, std::move(sel), projection_);
      RAP_RETURN_NOT_OK(decoder->Open());
      current_ = std::move(decoder);
      window_ = std::max<int64_t>(1, reader_->options().batch_size);
    }
    while (true) {
      auto batch = current_->Next(window_);
      if (batch.ok()) return std::optional<RecordBatch>(std::move(*batch));
      // String/binary values of the window outgrew 32-bit offsets: the rest of this row group goes in
      // windows of half as many rows, down to one row (a row that alone does not fit fails).
      const Status& st = batch.status();
      if (window_ <= 1 || !st.Is(StatusCode::kResourceExhausted) ||
          st.message().find(parquet::kOffsetOverflowMessage) == std::string::npos) {
        return st;
      }
      window_ = std::max<int64_t>(1, std::min(window_, current_->remaining()) / 2);
      RAP_RETURN_NOT_OK(current_->Restart());
    }
  }

 private:
  std::shared_ptr<FileReader> reader_;
  RowSelection selection_;
  Projection projection_;
  int rg_ = 0;
  std::unique_ptr<RowGroupDecoder> current_;  // the row group being decoded
  int64_t window_ = 1;                          // rows per batch in this row group
};

Result<std::unique_ptr<columnar::RecordBatchReader>> FileReader::NewBatchReader(std::optional<RowSelection> selection,
                                                                      const Projection& projection) {
  RowSelection sel = selection ? *selection : RowSelection::All(num_rows());
  if (sel.last_end() > num_rows()) {
    return Status::InvalidArgument(fmt::format("{}: the file has {} rows, the selection reaches row {}", path_,
                                               num_rows(), sel.last_end()));
  }
  if (sel.first() < 0) return Status::InvalidArgument(path_ + ": negative row in the selection");
  return std::unique_ptr<columnar::RecordBatchReader>(new BatchReader(shared_from_this(), std::move(sel), projection));
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
