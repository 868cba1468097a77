// ReadColumnChunk: pages -> levels + dense values of the selected rows -> Arrow leaf values.
#include "rap/format/column_reader.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "format/page_reader.h"

namespace rap::parquet {

namespace internal {
Result<ArrayPtr> PhysicalToArrow(PhysicalValues&& values, const ColumnDescriptor& column, const DataTypePtr& type);
}  // namespace internal

namespace {

using internal::DataPage;
using internal::PhysicalValues;
using internal::RawPage;

bool IsDictionaryEncoding(Encoding e) { return e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY; }

class ChunkReader {
 public:
  ChunkReader(const ColumnDescriptor& column, Codec codec, const ColumnChunkInput& input,
              const std::vector<RowRange>& selection, const ColumnReadOptions& options, ColumnChunkStats* stats)
      : column_(column), codec_(codec), input_(input), sel_(selection), options_(options), stats_(stats) {
    values_.width = PhysicalWidth(column.physical_type, column.type_length);
    null_type_ = column.arrow_type && column.arrow_type->id == TypeId::kNull;
  }

  Result<LeafColumnData> Run() {
    for (size_t i = 1; i < sel_.size(); ++i) {
      if (sel_[i].begin < sel_[i - 1].end) return Status::InvalidArgument("row selection is not sorted and disjoint");
    }
    if (!input_.dictionary.bytes.empty()) {
      size_t pos = 0;
      RawPage raw;
      RAP_ASSIGN_OR_RETURN(bool got, internal::NextPage(input_.dictionary, &pos, column_, options_, &raw));
      if (!got || raw.header.type != PageType::DICTIONARY_PAGE) {
        return Status::Corrupt(internal::PageContext(options_, column_, input_.dictionary.file_offset) +
                               ": expected a dictionary page");
      }
      RAP_RETURN_NOT_OK(LoadDictionary(raw));
    }
    int64_t want = 0;
    for (const RowRange& r : sel_) want += r.size();
    if (column_.max_repetition_level == 0 && !null_type_ && want <= options_.max_page_bytes) {
      // At most one value per selected row: reserve once instead of growing page by page.
      if (values_.width > 0) {
        values_.fixed.reserve(static_cast<size_t>(want) * static_cast<size_t>(values_.width));
      } else {
        values_.offsets.reserve(static_cast<size_t>(want) + 1);
      }
    }
    for (const PageSpan& span : input_.spans) RAP_RETURN_NOT_OK(ReadSpan(span));
    if (out_.num_rows != want) {
      return Status::Corrupt(fmt::format("{}{}column '{}': the pages hold {} of the {} selected rows",
                                         options_.file_name, options_.file_name.empty() ? "" : ": ",
                                         column_.dotted_path, out_.num_rows, want));
    }
    out_.num_levels = num_levels_;
    if (null_type_) {
      auto a = std::make_shared<ArrayData>();
      a->type = column_.arrow_type;
      out_.values = a;
    } else {
      RAP_ASSIGN_OR_RETURN(out_.values, internal::PhysicalToArrow(std::move(values_), column_, column_.arrow_type));
    }
    return std::move(out_);
  }

 private:
  Status LoadDictionary(const RawPage& raw) {
    RAP_RETURN_NOT_OK(internal::DecodeDictionaryPage(raw, column_, codec_, options_, &dict_));
    has_dict_ = true;
    if (stats_) stats_->dictionary_pages++;
    return Status::OK();
  }

  Status ReadSpan(const PageSpan& span) {
    size_t pos = 0;
    next_row_ = span.first_row;
    row_open_ = false;
    RawPage raw;
    while (true) {
      RAP_ASSIGN_OR_RETURN(bool got, internal::NextPage(span, &pos, column_, options_, &raw));
      if (!got) break;
      switch (raw.header.type) {
        case PageType::DICTIONARY_PAGE:
          if (!has_dict_) RAP_RETURN_NOT_OK(LoadDictionary(raw));
          break;
        case PageType::DATA_PAGE:
        case PageType::DATA_PAGE_V2: {
          const int64_t known = internal::KnownPageRows(raw.header, column_);
          if (known >= 0 && !Intersects(next_row_, next_row_ + known)) {
            next_row_ += known;
            if (stats_) stats_->data_pages_skipped++;
            break;
          }
          RAP_RETURN_NOT_OK(ReadDataPage(raw));
          break;
        }
        default:
          break;  // index pages and unknown page types carry no values
      }
      if (column_.max_repetition_level == 0 && next_row_ >= input_.num_rows && next_row_ >= LastSelectedEnd()) {
        break;  // every row of the chunk is read; anything after is not data of this chunk
      }
    }
    return Status::OK();
  }

  int64_t LastSelectedEnd() const { return sel_.empty() ? 0 : sel_.back().end; }

  bool Intersects(int64_t begin, int64_t end) const {
    auto it = std::upper_bound(sel_.begin(), sel_.end(), begin, [](int64_t v, const RowRange& r) { return v < r.end; });
    return it != sel_.end() && it->begin < end;
  }

  bool Selected(int64_t row) {
    while (sel_idx_ < sel_.size() && sel_[sel_idx_].end <= row) ++sel_idx_;
    return sel_idx_ < sel_.size() && sel_[sel_idx_].begin <= row;
  }

  Status ReadDataPage(const RawPage& raw) {
    DataPage page;
    RAP_RETURN_NOT_OK(internal::DecodeDataPage(raw, column_, codec_, options_, &page));
    if (stats_) {
      stats_->data_pages_read++;
      stats_->page_first_rows.push_back(next_row_);
    }
    std::unique_ptr<ValueDecoder> decoder;
    if (!null_type_ && page.num_non_null > 0) {
      if (IsDictionaryEncoding(page.encoding) && !has_dict_) {
        return Status::Corrupt(internal::PageContext(options_, column_, raw.offset) +
                               ": dictionary-encoded page but the column chunk has no dictionary page");
      }
      auto d = MakeValueDecoder(page.encoding, column_.physical_type, column_.type_length, page.values,
                                page.num_non_null);
      if (!d.ok()) return d.status().WithContext(internal::PageContext(options_, column_, raw.offset));
      decoder = std::move(*d);
    }
    dict_encoded_ = IsDictionaryEncoding(page.encoding);
    const int16_t max_def = column_.max_definition_level;
    const bool nested = column_.max_repetition_level > 0;
    if (!nested) return ReadFlatRuns(page, decoder.get(), max_def, raw.offset);
    // Walk the levels in runs of selected / unselected rows.
    int64_t run_start = 0;
    bool run_selected = false;
    int64_t row = next_row_ - 1;
    for (int64_t i = 0; i < page.num_levels; ++i) {
      bool starts_row = !nested || page.rep[static_cast<size_t>(i)] == 0;
      if (starts_row) {
        row = next_row_++;
        bool sel = Selected(row);
        if (sel) out_.num_rows++;
        if (i == 0) {
          run_selected = sel;
        } else if (sel != run_selected) {
          RAP_RETURN_NOT_OK(FlushRun(page, decoder.get(), run_start, i, run_selected, max_def, raw.offset));
          run_start = i;
          run_selected = sel;
        }
      } else if (i == 0) {
        if (!row_open_) {
          return Status::Corrupt(fmt::format("{}: the page starts with repetition level {}, but the first level of a "
                                             "column chunk (or of a page found through the page index) must be 0",
                                             internal::PageContext(options_, column_, raw.offset),
                                             page.rep[0]));
        }
        run_selected = Selected(row);  // continues a row of the previous page
      }
    }
    if (page.num_levels > 0) {
      row_open_ = true;
      RAP_RETURN_NOT_OK(FlushRun(page, decoder.get(), run_start, page.num_levels, run_selected, max_def, raw.offset));
    }
    return Status::OK();
  }

  // Flat columns: level i is row next_row_ + i, so the runs come straight from the selection.
  Status ReadFlatRuns(const DataPage& page, ValueDecoder* decoder, int16_t max_def, uint64_t offset) {
    const int64_t first = next_row_, end = next_row_ + page.num_levels;
    int64_t pos = first;
    auto it = std::upper_bound(sel_.begin(), sel_.end(), first, [](int64_t v, const RowRange& r) { return v < r.end; });
    for (; it != sel_.end() && it->begin < end && pos < end; ++it) {
      const int64_t b = std::max(it->begin, first), e = std::min(it->end, end);
      if (b > pos) RAP_RETURN_NOT_OK(FlushRun(page, decoder, pos - first, b - first, false, max_def, offset));
      RAP_RETURN_NOT_OK(FlushRun(page, decoder, b - first, e - first, true, max_def, offset));
      out_.num_rows += e - b;
      pos = e;
    }
    if (pos < end) RAP_RETURN_NOT_OK(FlushRun(page, decoder, pos - first, end - first, false, max_def, offset));
    next_row_ = end;
    return Status::OK();
  }

  Status FlushRun(const DataPage& page, ValueDecoder* decoder, int64_t begin, int64_t end, bool selected,
                  int16_t max_def, uint64_t offset) {
    int64_t n_values = end - begin;
    if (max_def > 0) {
      n_values = 0;
      for (int64_t i = begin; i < end; ++i) n_values += page.def[static_cast<size_t>(i)] == max_def ? 1 : 0;
    }
    if (selected) {
      if (max_def > 0) out_.def_levels.insert(out_.def_levels.end(), page.def.begin() + begin, page.def.begin() + end);
      if (!page.rep.empty()) {
        out_.rep_levels.insert(out_.rep_levels.end(), page.rep.begin() + begin, page.rep.begin() + end);
      }
      num_levels_ += end - begin;
    }
    if (n_values == 0 || decoder == nullptr) return Status::OK();
    Status st;
    if (!selected) {
      st = decoder->Skip(n_values);
      if (stats_ && st.ok()) stats_->values_skipped += n_values;
    } else if (dict_encoded_) {
      indices_.resize(static_cast<size_t>(n_values));
      st = decoder->DecodeIndices(indices_.data(), n_values);
      if (st.ok()) st = values_.AppendGather(dict_, indices_.data(), n_values);
      if (stats_ && st.ok()) stats_->values_decoded += n_values;
    } else {
      st = values_.Append(decoder, n_values);
      if (stats_ && st.ok()) stats_->values_decoded += n_values;
    }
    if (!st.ok()) return st.WithContext(internal::PageContext(options_, column_, offset));
    return Status::OK();
  }

  const ColumnDescriptor& column_;
  Codec codec_;
  const ColumnChunkInput& input_;
  const std::vector<RowRange>& sel_;
  const ColumnReadOptions& options_;
  ColumnChunkStats* stats_;
  bool null_type_ = false;
  bool has_dict_ = false;
  bool dict_encoded_ = false;
  PhysicalValues dict_;
  PhysicalValues values_;
  std::vector<int32_t> indices_;
  size_t sel_idx_ = 0;
  int64_t next_row_ = 0;
  bool row_open_ = false;  // a row of this span has started (a page may continue it)
  int64_t num_levels_ = 0;
  LeafColumnData out_;
};

}  // namespace

Result<LeafColumnData> ReadColumnChunk(const ColumnDescriptor& column, Codec codec, const ColumnChunkInput& input,
                                       const std::vector<RowRange>& selection, const ColumnReadOptions& options,
                                       ColumnChunkStats* stats) {
  if (!column.arrow_type) return Status::InvalidArgument("column '" + column.dotted_path + "' has no Arrow type");
  ChunkReader reader(column, codec, input, selection, options, stats);
  return reader.Run();
}

}  // namespace rap::parquet
