// ReadColumnChunk: pages -> levels + dense values of the selected rows -> Arrow leaf values.
#include "rap/format/column_reader.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <type_traits>

#include <fmt/format.h>

#include "format/page_reader.h"
#include "rap/format/levels.h"

namespace rap::parquet {

namespace internal {
Result<ArrayPtr> PhysicalToArrow(PhysicalValues&& values, const ColumnDescriptor& column, const DataTypePtr& type);
}  // namespace internal

using internal::DataPage;
using internal::PhysicalValues;

struct PageShare::Impl {
  struct Entry {
    bool decoding = false;
    bool released = false;
    std::shared_ptr<const DataPage> page;
    std::shared_ptr<const PhysicalValues> dictionary;
    Buffer keep;  // the page bytes a shared uncompressed page's values point into
  };
  mutable std::mutex mu;
  std::condition_variable cv;
  std::map<uint64_t, Entry> entries;  // keys fixed at construction
  Counts counts;

  // The decoded object of the declared page at `offset` (`T`: DataPage or PhysicalValues), decoded by
  // `decode` when nobody has; *shared: it came decoded from here.
  template <class T, class F>
  Result<std::shared_ptr<const T>> Obtain(uint64_t offset, const Buffer& bytes, F&& decode, bool* shared) {
    *shared = false;
    auto it = entries.find(offset);
    if (it == entries.end()) return decode();
    Entry& e = it->second;
    auto held = [&]() -> std::shared_ptr<const T> {
      if constexpr (std::is_same_v<T, DataPage>) {
        return e.page;
      } else {
        return e.dictionary;
      }
    };
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return !e.decoding; });
    if (auto p = held()) {
      *shared = true;
      ++counts.taken;
      return p;
    }
    if (e.released) {
      lock.unlock();
      return decode();
    }
    e.decoding = true;
    lock.unlock();
    Result<std::shared_ptr<const T>> r = decode();
    lock.lock();
    e.decoding = false;
    if (r.ok() && !e.released) {
      ++counts.decoded;
      if constexpr (std::is_same_v<T, DataPage>) {
        e.page = *r;
      } else {
        e.dictionary = *r;
      }
      e.keep = bytes;
    }
    lock.unlock();
    cv.notify_all();
    return r;
  }
};

PageShare::PageShare(const std::vector<uint64_t>& offsets) : impl_(std::make_unique<Impl>()) {
  for (uint64_t offset : offsets) impl_->entries[offset];
}

PageShare::~PageShare() = default;

bool PageShare::Shares(uint64_t offset) const { return impl_->entries.count(offset) > 0; }

void PageShare::Release(uint64_t offset) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->entries.find(offset);
  if (it == impl_->entries.end()) return;
  it->second.released = true;
  it->second.page.reset();
  it->second.dictionary.reset();
  it->second.keep = Buffer();
}

PageShare::Counts PageShare::counts() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->counts;
}

size_t PageShare::held() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  size_t n = 0;
  for (const auto& [offset, e] : impl_->entries) n += (e.page || e.dictionary) ? 1 : 0;
  return n;
}

namespace {

using internal::PhysicalValues;
using internal::RawPage;

bool IsDictionaryEncoding(Encoding e) { return e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY; }

class ChunkReader final : public ColumnChunkReader {
 public:
  ChunkReader(const ColumnDescriptor& column, Codec codec, ColumnChunkInput input, std::vector<RowRange> selection,
              ColumnReadOptions options)
      : column_(column),
        codec_(codec),
        input_(std::move(input)),
        sel_(std::move(selection)),
        options_(std::move(options)) {
    values_.width = PhysicalWidth(column.physical_type, column.type_length);
    auto empty = std::make_shared<PhysicalValues>();
    empty->width = values_.width;  // an empty dictionary (none loaded yet) still has the column's width
    dict_ = std::move(empty);
    null_type_ = column.arrow_type && column.arrow_type->id == TypeId::kNull;
    nested_ = column.max_repetition_level > 0;
  }

  Status Init() {
    if (options_.dictionary_codes && (nested_ || null_type_)) {
      return Status::NotSupported("column '" + column_.dotted_path + "': dictionary codes of a nested or null column");
    }
    for (size_t i = 1; i < sel_.size(); ++i) {
      if (sel_[i].begin < sel_[i - 1].end) return Status::InvalidArgument("row selection is not sorted and disjoint");
    }
    return Status::OK();
  }

  Result<LeafColumnData> Next(int64_t end_row, ColumnChunkStats* stats) override {
    stats_ = stats;
    if (end_row < window_end_) return Status::InvalidArgument("ColumnChunkReader::Next: the window end went back");
    const int64_t want = SelectedBetween(window_end_, end_row);
    window_end_ = end_row;
    if (!started_) {
      started_ = true;
      RAP_RETURN_NOT_OK(ReadSeparateDictionary());
    }
    out_ = LeafColumnData{};
    num_levels_ = 0;
    if (options_.dictionary_codes) {
      if (want <= options_.max_page_bytes) out_.dictionary_codes.reserve(static_cast<size_t>(want));
    } else if (!nested_ && !null_type_ && want <= options_.max_page_bytes) {
      // At most one value per selected row: reserve once instead of growing page by page.
      if (values_.width > 0) {
        values_.fixed.reserve(static_cast<size_t>(want) * static_cast<size_t>(values_.width));
      } else {
        values_.offsets.reserve(static_cast<size_t>(want) + 1);
      }
    }
    while (true) {
      if (page_loaded_) {
        RAP_ASSIGN_OR_RETURN(bool window_done, ConsumePage());
        if (window_done) break;
        page_loaded_ = false;
        decoder_.reset();
        page_.reset();
        ReserveStringBytes(want);
      }
      if (!nested_ && next_row_ >= window_end_ && span_started_) break;
      RAP_ASSIGN_OR_RETURN(bool got, LoadNextPage());
      if (!got) break;
    }
    stats_ = nullptr;
    if (out_.num_rows != want) {
      return Status::Corrupt(fmt::format("{}{}column '{}': the pages hold {} of the {} selected rows",
                                         options_.file_name, options_.file_name.empty() ? "" : ": ",
                                         column_.dotted_path, out_.num_rows, want));
    }
    out_.num_levels = num_levels_;
    if (options_.dictionary_codes) {
      // The last window may take the dictionary when nothing else holds it (it was created mutable
      // here); earlier windows, and a dictionary shared with a PageShare or cache, copy it.
      PhysicalValues dict;
      if (end_row == std::numeric_limits<int64_t>::max() && dict_.use_count() == 1) {
        dict = std::move(const_cast<PhysicalValues&>(*dict_));
        auto empty = std::make_shared<PhysicalValues>();
        empty->width = values_.width;
        dict_ = std::move(empty);
        has_dict_ = false;
      } else {
        dict = *dict_;
      }
      RAP_ASSIGN_OR_RETURN(out_.dictionary, internal::PhysicalToArrow(std::move(dict), column_, column_.arrow_type));
    } else if (null_type_) {
      auto a = std::make_shared<ArrayData>();
      a->type = column_.arrow_type;
      out_.values = a;
    } else {
      const int width = values_.width;
      RAP_ASSIGN_OR_RETURN(out_.values, internal::PhysicalToArrow(std::move(values_), column_, column_.arrow_type));
      values_ = PhysicalValues{};
      values_.width = width;
    }
    return std::move(out_);
  }

 private:
  // After the first page of a window of strings: reserve the window's character bytes, estimated
  // from the bytes per value so far, so the buffer is not regrown (and copied) page after page.
  void ReserveStringBytes(int64_t want) {
    if (values_.width >= 0 || nested_ || values_.count == 0 || values_.data.capacity() > values_.data.size() * 2) {
      return;
    }
    const double per_value = static_cast<double>(values_.data.size()) / static_cast<double>(values_.count);
    const double estimate = per_value * static_cast<double>(want) * 1.125;
    if (estimate > static_cast<double>(values_.data.capacity()) &&
        estimate < static_cast<double>(std::min<int64_t>(options_.max_page_bytes, INT32_MAX))) {
      values_.data.reserve(static_cast<size_t>(estimate));
    }
  }

  // Selected rows in [begin, end).
  int64_t SelectedBetween(int64_t begin, int64_t end) const {
    int64_t n = 0;
    for (const RowRange& r : sel_) n += std::max<int64_t>(0, std::min(r.end, end) - std::max(r.begin, begin));
    return n;
  }

  Status ReadSeparateDictionary() {
    if (input_.decoded_dictionary) {
      dict_ = input_.decoded_dictionary;
      has_dict_ = true;
      if (stats_) stats_->dictionary_pages_cached++;
      return Status::OK();
    }
    if (input_.dictionary.bytes.empty()) return Status::OK();
    size_t pos = 0;
    RawPage raw;
    RAP_ASSIGN_OR_RETURN(bool got, internal::NextPage(input_.dictionary, &pos, column_, options_, &raw));
    if (!got || raw.header.type != PageType::DICTIONARY_PAGE) {
      return Status::Corrupt(internal::PageContext(options_, column_, input_.dictionary.file_offset) +
                             ": expected a dictionary page");
    }
    return LoadDictionary(raw, input_.dictionary.bytes);
  }

  // `bytes`: the buffer the page lies in (kept by a PageShare). A dictionary cached in
  // options_.dictionary_cache is taken from there; one decoded here is put there.
  Status LoadDictionary(const RawPage& raw, const Buffer& bytes) {
    DictionaryCache* cache = options_.dictionary_cache;
    if (cache) {
      if (auto d = cache->Get(options_.dictionary_file, raw.offset)) {
        dict_ = std::move(d);
        has_dict_ = true;
        if (stats_) stats_->dictionary_pages_cached++;
        return Status::OK();
      }
    }
    auto decode = [&]() -> Result<std::shared_ptr<const PhysicalValues>> {
      auto d = std::make_shared<PhysicalValues>();
      d->width = values_.width;
      RAP_RETURN_NOT_OK(internal::DecodeDictionaryPage(raw, column_, codec_, options_, d.get()));
      return std::shared_ptr<const PhysicalValues>(std::move(d));
    };
    bool shared = false;
    if (options_.page_share) {
      RAP_ASSIGN_OR_RETURN(dict_, options_.page_share->impl().Obtain<PhysicalValues>(raw.offset, bytes, decode, &shared));
    } else {
      RAP_ASSIGN_OR_RETURN(dict_, decode());
    }
    if (stats_) ++(shared ? stats_->dictionary_pages_shared : stats_->dictionary_pages);
    if (cache && !shared) cache->Put(options_.dictionary_file, raw.offset, dict_);
    has_dict_ = true;
    return Status::OK();
  }

  // Finds the next data page holding a selected row (skipping others undecoded where their row count
  // is known) and decodes its levels; false when every span is exhausted.
  Result<bool> LoadNextPage() {
    while (span_idx_ < input_.spans.size()) {
      const PageSpan& span = input_.spans[span_idx_];
      if (!span_started_) {
        span_started_ = true;
        span_pos_ = 0;
        next_row_ = span.first_row;
        row_open_ = false;
      }
      // Every row of the chunk is read; anything after is not data of this chunk.
      const bool flat_done = !nested_ && next_row_ >= input_.num_rows && next_row_ >= LastSelectedEnd();
      RawPage raw;
      bool got = false;
      if (!flat_done) {
        RAP_ASSIGN_OR_RETURN(got, internal::NextPage(span, &span_pos_, column_, options_, &raw));
      }
      if (!got) {
        ++span_idx_;
        span_started_ = false;
        continue;
      }
      switch (raw.header.type) {
        case PageType::DICTIONARY_PAGE:
          if (!has_dict_) RAP_RETURN_NOT_OK(LoadDictionary(raw, span.bytes));
          break;
        case PageType::DATA_PAGE:
        case PageType::DATA_PAGE_V2: {
          const int64_t known = internal::KnownPageRows(raw.header, column_);
          if (known >= 0 && !Intersects(next_row_, next_row_ + known)) {
            next_row_ += known;
            if (stats_) stats_->data_pages_skipped++;
            break;
          }
          RAP_RETURN_NOT_OK(LoadDataPage(raw, span.bytes));
          return true;
        }
        default:
          break;  // index pages and unknown page types carry no values
      }
    }
    return false;
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

  Status LoadDataPage(const RawPage& raw, const Buffer& bytes) {
    decoder_.reset();
    auto decode = [&]() -> Result<std::shared_ptr<const DataPage>> {
      auto p = std::make_shared<DataPage>();
      RAP_RETURN_NOT_OK(internal::DecodeDataPage(raw, column_, codec_, options_, p.get(), /*lazy_flat_def=*/true));
      return std::shared_ptr<const DataPage>(std::move(p));
    };
    bool shared = false;
    if (options_.page_share) {
      RAP_ASSIGN_OR_RETURN(page_, options_.page_share->impl().Obtain<DataPage>(raw.offset, bytes, decode, &shared));
    } else {
      RAP_ASSIGN_OR_RETURN(page_, decode());
    }
    if (stats_ && shared) {
      stats_->data_pages_shared++;
    } else if (stats_) {
      stats_->data_pages_read++;
      stats_->page_first_rows.push_back(next_row_);
    }
    if (!null_type_ && page_->num_non_null > 0) {
      if (IsDictionaryEncoding(page_->encoding) && !has_dict_) {
        return Status::Corrupt(internal::PageContext(options_, column_, raw.offset) +
                               ": dictionary-encoded page but the column chunk has no dictionary page");
      }
      auto d = MakeValueDecoder(page_->encoding, column_.physical_type, column_.type_length, page_->values,
                                page_->num_non_null);
      if (!d.ok()) return d.status().WithContext(internal::PageContext(options_, column_, raw.offset));
      decoder_ = std::move(*d);
    }
    dict_encoded_ = IsDictionaryEncoding(page_->encoding);
    if (options_.dictionary_codes && !dict_encoded_ && page_->num_non_null > 0) {
      return Status::NotSupported(internal::PageContext(options_, column_, raw.offset) + ": " +
                                  EncodingName(page_->encoding) + " page, not dictionary-encoded (dictionary codes " +
                                  "requested)");
    }
    if (page_->lazy_def) def_dec_ = RleBitPackedDecoder(page_->def_hybrid.data(), page_->def_hybrid.size(), 1);
    def_pos_ = 0;
    page_offset_ = raw.offset;
    page_first_row_ = next_row_;
    level_pos_ = 0;
    page_loaded_ = true;
    return Status::OK();
  }

  // Decodes the loaded page from level_pos_ up to the window end. True when the window ends inside
  // this page (the rest stays for the next window); false when the page is used up.
  Result<bool> ConsumePage() {
    const int16_t max_def = column_.max_definition_level;
    if (!nested_) return ConsumeFlat(max_def);
    // Walk the levels in runs of selected / unselected rows; stop before the first row of the next window.
    const int64_t start = level_pos_;
    int64_t run_start = start;
    bool run_selected = false;
    int64_t row = next_row_ - 1;
    for (int64_t i = start; i < page_->num_levels; ++i) {
      if (page_->rep[static_cast<size_t>(i)] == 0) {
        if (next_row_ >= window_end_) {
          if (i > run_start) RAP_RETURN_NOT_OK(FlushRun(run_start, i, run_selected, max_def));
          level_pos_ = i;
          return true;
        }
        row = next_row_++;
        bool sel = Selected(row);
        if (sel) out_.num_rows++;
        if (i == start) {
          run_selected = sel;
        } else if (sel != run_selected) {
          RAP_RETURN_NOT_OK(FlushRun(run_start, i, run_selected, max_def));
          run_start = i;
          run_selected = sel;
        }
      } else if (i == start) {
        if (!row_open_) {
          return Status::Corrupt(fmt::format("{}: the page starts with repetition level {}, but the first level of a "
                                             "column chunk (or of a page found through the page index) must be 0",
                                             internal::PageContext(options_, column_, page_offset_),
                                             page_->rep[static_cast<size_t>(i)]));
        }
        run_selected = Selected(row);  // continues a row of the previous page
      }
    }
    if (page_->num_levels > start) {
      row_open_ = true;
      RAP_RETURN_NOT_OK(FlushRun(run_start, page_->num_levels, run_selected, max_def));
    }
    level_pos_ = page_->num_levels;
    return false;
  }

  // Flat columns: level i is row page_first_row_ + i, so the runs come straight from the selection.
  Result<bool> ConsumeFlat(int16_t max_def) {
    const int64_t page_end = page_first_row_ + page_->num_levels;
    const int64_t first = page_first_row_ + level_pos_, end = std::min(page_end, std::max(first, window_end_));
    int64_t pos = first;
    auto it = std::upper_bound(sel_.begin(), sel_.end(), first, [](int64_t v, const RowRange& r) { return v < r.end; });
    for (; it != sel_.end() && it->begin < end && pos < end; ++it) {
      const int64_t b = std::max(it->begin, first), e = std::min(it->end, end);
      if (b > pos) RAP_RETURN_NOT_OK(FlushRun(pos - page_first_row_, b - page_first_row_, false, max_def));
      RAP_RETURN_NOT_OK(FlushRun(b - page_first_row_, e - page_first_row_, true, max_def));
      out_.num_rows += e - b;
      pos = e;
    }
    if (pos < end) RAP_RETURN_NOT_OK(FlushRun(pos - page_first_row_, end - page_first_row_, false, max_def));
    level_pos_ = end - page_first_row_;
    next_row_ = end;
    return end < page_end;
  }

  // The levels [begin, end) of the page appended to the window when selected; returns how many
  // values they hold.
  Result<int64_t> RunLevels(int64_t begin, int64_t end, bool selected, int16_t max_def) {
    const DataPage& page = *page_;
    const bool all_values = max_def == 0 || page.num_non_null == page.num_levels;  // every level holds a value
    if (page.lazy_def && !all_values) return LazyRunLevels(begin, end, selected, max_def);
    int64_t n_values = end - begin;
    if (!all_values) {
      n_values = 0;
      for (int64_t i = begin; i < end; ++i) n_values += page.def[static_cast<size_t>(i)] == max_def ? 1 : 0;
    }
    if (selected) {
      if (max_def > 0) {
        // Flat column, no nulls in the page, none in the window so far: the levels are all max_def and
        // are left out (LeafColumnData::def_levels stays empty); written out once a run needs them.
        const bool elide = !nested_ && all_values && out_.def_levels.empty();
        if (!elide) {
          if (out_.def_levels.empty() && num_levels_ > 0) out_.def_levels.assign(static_cast<size_t>(num_levels_), max_def);
          if (page.lazy_def) {  // no null in the page: its levels were not kept
            out_.def_levels.insert(out_.def_levels.end(), static_cast<size_t>(end - begin), max_def);
          } else {
            out_.def_levels.insert(out_.def_levels.end(), page.def.begin() + begin, page.def.begin() + end);
          }
        }
      }
      if (!page.rep.empty()) {
        out_.rep_levels.insert(out_.rep_levels.end(), page.rep.begin() + begin, page.rep.begin() + end);
      }
      num_levels_ += end - begin;
    }
    return n_values;
  }

  // RunLevels of a page with lazy definition levels (flat, max level 1) holding nulls: a selected
  // run's levels are decoded into the window, an unselected run's are skipped, counting its values.
  Result<int64_t> LazyRunLevels(int64_t begin, int64_t end, bool selected, int16_t max_def) {
    if (begin != def_pos_) {
      return Status::Internal(fmt::format("{}: definition levels read out of order (at {}, asked for {})",
                                          internal::PageContext(options_, column_, page_offset_), def_pos_, begin));
    }
    const int64_t n = end - begin;
    int64_t ones = 0;
    Result<int64_t> got = int64_t{0};
    if (selected) {
      if (out_.def_levels.empty() && num_levels_ > 0) out_.def_levels.assign(static_cast<size_t>(num_levels_), max_def);
      const size_t old = out_.def_levels.size();
      out_.def_levels.resize(old + static_cast<size_t>(n));
      got = def_dec_.GetBatch(out_.def_levels.data() + old, n);
      for (size_t i = old; i < out_.def_levels.size(); ++i) ones += out_.def_levels[i];  // levels are 0 or 1
      num_levels_ += n;
    } else {
      got = def_dec_.SkipCountingOnes(n, &ones);
    }
    if (!got.ok()) return got.status().WithContext(internal::PageContext(options_, column_, page_offset_));
    if (*got != n) {
      return Status::Corrupt(fmt::format("{}: definition levels end after {} of {} levels",
                                         internal::PageContext(options_, column_, page_offset_), begin + *got, end));
    }
    def_pos_ = end;
    return ones;
  }

  Status FlushRun(int64_t begin, int64_t end, bool selected, int16_t max_def) {
    RAP_ASSIGN_OR_RETURN(const int64_t n_values, RunLevels(begin, end, selected, max_def));
    ValueDecoder* decoder = decoder_.get();
    if (n_values == 0 || decoder == nullptr) return Status::OK();
    Status st;
    if (!selected) {
      st = decoder->Skip(n_values);
      if (stats_ && st.ok()) stats_->values_skipped += n_values;
    } else if (dict_encoded_ && options_.dictionary_codes) {
      std::vector<int32_t>& codes = out_.dictionary_codes;
      const size_t old = codes.size();
      codes.resize(old + static_cast<size_t>(n_values));
      st = decoder->DecodeIndices(codes.data() + old, n_values);
      if (st.ok()) st = internal::CheckDictionaryIndices(codes.data() + old, n_values, dict_->count);
      if (stats_ && st.ok()) stats_->values_decoded += n_values;
    } else if (dict_encoded_) {
      indices_.resize(static_cast<size_t>(n_values));
      st = decoder->DecodeIndices(indices_.data(), n_values);
      if (st.ok()) st = values_.AppendGather(*dict_, indices_.data(), n_values);
      if (stats_ && st.ok()) stats_->values_decoded += n_values;
    } else {
      st = values_.Append(decoder, n_values);
      if (stats_ && st.ok()) stats_->values_decoded += n_values;
    }
    if (!st.ok()) return st.WithContext(internal::PageContext(options_, column_, page_offset_));
    return Status::OK();
  }

  const ColumnDescriptor& column_;
  Codec codec_;
  const ColumnChunkInput input_;
  const std::vector<RowRange> sel_;
  const ColumnReadOptions options_;
  ColumnChunkStats* stats_ = nullptr;
  bool null_type_ = false;
  bool nested_ = false;
  bool started_ = false;
  bool has_dict_ = false;
  bool dict_encoded_ = false;
  std::shared_ptr<const PhysicalValues> dict_;  // shared with a PageShare or DictionaryCache
  PhysicalValues values_;
  UninitVector<int32_t> indices_;
  size_t sel_idx_ = 0;
  int64_t window_end_ = 0;
  // Position in the spans.
  size_t span_idx_ = 0;
  size_t span_pos_ = 0;
  bool span_started_ = false;
  int64_t next_row_ = 0;   // the next row to start
  bool row_open_ = false;  // a row of this span has started (a page may continue it)
  // The data page being consumed.
  bool page_loaded_ = false;
  std::shared_ptr<const DataPage> page_;  // decoded here or taken from options_.page_share
  std::unique_ptr<ValueDecoder> decoder_;
  RleBitPackedDecoder def_dec_;  // the page's lazy definition levels (DataPage::lazy_def)
  int64_t def_pos_ = 0;          // the next level def_dec_ yields
  uint64_t page_offset_ = 0;
  int64_t page_first_row_ = 0;
  int64_t level_pos_ = 0;
  // The window being built.
  int64_t num_levels_ = 0;
  LeafColumnData out_;
};

}  // namespace

Result<std::unique_ptr<ColumnChunkReader>> ColumnChunkReader::Make(const ColumnDescriptor& column, Codec codec,
                                                                   ColumnChunkInput input,
                                                                   std::vector<RowRange> selection,
                                                                   ColumnReadOptions options) {
  if (!column.arrow_type) return Status::InvalidArgument("column '" + column.dotted_path + "' has no Arrow type");
  auto reader = std::make_unique<ChunkReader>(column, codec, std::move(input), std::move(selection), std::move(options));
  RAP_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<ColumnChunkReader>(std::move(reader));
}

Result<LeafColumnData> ReadColumnChunk(const ColumnDescriptor& column, Codec codec, const ColumnChunkInput& input,
                                       const std::vector<RowRange>& selection, const ColumnReadOptions& options,
                                       ColumnChunkStats* stats) {
  RAP_ASSIGN_OR_RETURN(auto reader, ColumnChunkReader::Make(column, codec, input, selection, options));
  return reader->Next(std::numeric_limits<int64_t>::max(), stats);
}

}  // namespace rap::parquet
