// ColumnChunkWriter: levels + physical values -> encoded, compressed pages of one column chunk,
// with dictionary encoding (and fallback), page size limits, forced page breaks, page statistics
// and optional CRCs. Pages always start at row boundaries, so every page can be located by row
// through the OffsetIndex.
#include "format/column_writer.h"

#include <cstring>

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include "rap/codec/codec.h"
#include "rap/format/frame_layout.h"
#include "rap/format/levels.h"
#include "rap/format/thrift.h"

namespace rap::parquet::internal {
namespace {

void AppendLE32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 4);
}

// The values of a dictionary, in insertion order, with an open-addressing hash index.
// Hand-written: std::unordered_map would need a string copy per distinct value for its keys, and
// the values already live in the PLAIN-encodable storage below.
class Dictionary {
 public:
  explicit Dictionary(int width) : width_(width) {}  // width < 0: BYTE_ARRAY
  int32_t size() const { return count_; }
  // PLAIN-encoded size of the dictionary page.
  int64_t plain_bytes() const { return width_ < 0 ? static_cast<int64_t>(data_.size()) + 4LL * count_ : data_.size(); }
  std::string_view Get(int32_t i) const {
    if (width_ >= 0) return std::string_view(data_).substr(static_cast<size_t>(i) * width_, width_);
    return std::string_view(data_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  int32_t Insert(std::string_view v) {
    if ((count_ + 1) * 2 > static_cast<int64_t>(slots_.size())) Grow();
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t h = Hash(v) & mask;; h = (h + 1) & mask) {
      const int32_t s = slots_[h];
      if (s < 0) {
        slots_[h] = count_;
        if (width_ < 0) {
          if (offsets_.empty()) offsets_.push_back(0);
          data_.append(v);
          offsets_.push_back(data_.size());
        } else {
          data_.append(v);
        }
        return count_++;
      }
      if (Get(s) == v) return s;
    }
  }
  // PLAIN encoding of the dictionary values through `enc`.
  void Encode(ValueEncoder* enc) const {
    if (count_ == 0) return;
    if (width_ >= 0) {
      enc->PutFixed(reinterpret_cast<const uint8_t*>(data_.data()), count_);
    } else {
      std::vector<int32_t> offs(offsets_.begin(), offsets_.end());
      enc->PutBinary(offs.data(), reinterpret_cast<const uint8_t*>(data_.data()), count_);
    }
  }

 private:
  static uint64_t Hash(std::string_view v) {
    if (v.size() == 8 || v.size() == 4) {  // numbers: one multiply instead of a byte-wise hash
      uint64_t x = 0;
      std::memcpy(&x, v.data(), v.size());
      x *= 0x9E3779B97F4A7C15ULL;
      return x ^ (x >> 32);  // the table masks low bits: fold the well-mixed high half in
    }
    return std::hash<std::string_view>{}(v)*0x9E3779B97F4A7C15ULL >> 7;
  }
  void Grow() {
    std::vector<int32_t> next(std::max<size_t>(1024, slots_.size() * 2), -1);
    const uint64_t mask = next.size() - 1;
    for (int32_t i = 0; i < count_; ++i) {
      uint64_t h = Hash(Get(i)) & mask;
      while (next[h] >= 0) h = (h + 1) & mask;
      next[h] = i;
    }
    slots_.swap(next);
  }
  int width_;
  int32_t count_ = 0;
  std::string data_;
  std::vector<size_t> offsets_;
  std::vector<int32_t> slots_;
};

}  // namespace

class ColumnChunkWriter::Impl {
 public:
  Impl(const LeafColumn& leaf, const ColumnLayout& layout, int version, bool crc, bool framed)
      : leaf_(leaf),
        layout_(framed ? FramedLayout(layout) : layout),
        version_(framed ? 2 : version),
        framed_(framed),
        crc_(crc),
        width_(PhysicalWidth(leaf.physical, leaf.type_length)),
        dict_(width_),
        def_bw_(BitWidth(static_cast<uint64_t>(leaf.max_def))),
        rep_bw_(BitWidth(static_cast<uint64_t>(leaf.max_rep))) {
    use_dict_ = layout.dictionary && leaf.physical != Type::BOOLEAN;
    page_stats_ = StatsAccumulator(leaf.stats_kind, leaf.type_length);
    chunk_stats_ = StatsAccumulator(leaf.stats_kind, leaf.type_length);
  }

  // A frame per key: PLAIN values (a frame decodes without its predecessors), ZSTD.
  static ColumnLayout FramedLayout(ColumnLayout l) {
    l.dictionary = false;
    l.encoding = Encoding::PLAIN;
    l.codec = Codec::ZSTD;
    return l;
  }

  Status Init() {
    if (framed_ && leaf_.physical == Type::BOOLEAN) {
      return Status::InvalidArgument(fmt::format(
          "column {}: BOOLEAN values cannot be framed per key (PLAIN booleans are bit-packed across keys)",
          leaf_.dotted));
    }
    RAP_ASSIGN_OR_RETURN(value_encoder_, MakeValueEncoder(layout_.encoding, leaf_.physical, leaf_.type_length));
    if (layout_.codec != Codec::UNCOMPRESSED && !IsCodecSupported(layout_.codec)) {
      return Status::NotSupported(
          fmt::format("column {}: codec {} cannot be written", leaf_.dotted, CodecName(layout_.codec)));
    }
    return Status::OK();
  }

  Status AddRows(const LeafBatch& b, std::span<const int64_t> breaks, std::span<const int64_t> frame_breaks) {
    const int64_t n = b.num_rows;
    size_t bi = 0, fi = 0;
    // Average bytes per row of this batch, to size the steps between page-size checks.
    const int64_t value_bytes = width_ >= 0
                                    ? b.num_values * width_
                                    : (b.num_values ? b.offsets[b.num_values] - b.offsets[0] + 4 * b.num_values : 0);
    const double row_bytes = std::max(1.0, static_cast<double>(value_bytes + b.num_levels) / std::max<int64_t>(1, n));
    int64_t row = 0;
    while (row < n) {
      while (bi < breaks.size() && breaks[bi] < row) ++bi;
      if (bi < breaks.size() && breaks[bi] == row) {
        if (page_rows_ > 0) RAP_RETURN_NOT_OK(FlushPage());
        ++bi;
      }
      while (fi < frame_breaks.size() && frame_breaks[fi] < row) ++fi;
      if (framed_ && fi < frame_breaks.size() && frame_breaks[fi] == row) {
        RAP_RETURN_NOT_OK(CloseFrame());
        ++fi;
      }
      int64_t end = n;
      if (bi < breaks.size()) end = std::min(end, breaks[bi]);
      if (framed_ && fi < frame_breaks.size()) end = std::min(end, frame_breaks[fi]);
      if (layout_.page_max_rows > 0) end = std::min(end, row + (layout_.page_max_rows - page_rows_));
      if (layout_.page_max_bytes > 0) {
        const double room = static_cast<double>(layout_.page_max_bytes - PageBytes());
        end = std::min(end, row + std::max<int64_t>(1, static_cast<int64_t>(room / row_bytes)));
      }
      end = std::max(end, row + 1);
      RAP_RETURN_NOT_OK(Append(b, row, end));
      row = end;
      if ((layout_.page_max_rows > 0 && page_rows_ >= layout_.page_max_rows) ||
          (layout_.page_max_bytes > 0 && PageBytes() >= layout_.page_max_bytes)) {
        RAP_RETURN_NOT_OK(FlushPage());
      }
    }
    return Status::OK();
  }

  int64_t BufferedBytes() const { return finished_bytes_ + PageBytes() + (use_dict_ ? dict_.plain_bytes() : 0); }

  Result<ColumnChunkPages> Finish() {
    if (page_rows_ > 0 || pages_.empty()) RAP_RETURN_NOT_OK(FlushPage());
    ColumnChunkPages out;
    if (dict_pages_ > 0) {
      RAP_ASSIGN_OR_RETURN(EncodedPage dp, DictionaryPage());
      out.pages.push_back(std::move(dp));
    }
    for (auto& p : pages_) out.pages.push_back(std::move(p));
    out.stats = chunk_stats_;
    out.num_levels = chunk_levels_;
    out.fell_back = fell_back_;
    // Reset for the next chunk.
    pages_.clear();
    dict_ = Dictionary(width_);
    use_dict_ = layout_.dictionary && leaf_.physical != Type::BOOLEAN;
    dict_pages_ = 0;
    fell_back_ = false;
    chunk_stats_.Reset();
    chunk_rows_ = 0;
    chunk_levels_ = 0;
    finished_bytes_ = 0;
    return out;
  }

 private:
  int64_t LevelBytes(int64_t levels) const { return (levels * (def_bw_ + rep_bw_) + 7) / 8; }
  int64_t PageBytes() const {
    int64_t values = use_dict_ ? (static_cast<int64_t>(indices_.size()) * BitWidth(std::max(1, dict_.size())) + 7) / 8
                               : static_cast<int64_t>(value_encoder_->EstimatedSize());
    return LevelBytes(page_levels_) + values + frame_raw_bytes_;
  }

  // Appends rows [r0, r1) of the batch to the open page.
  Status Append(const LeafBatch& b, int64_t r0, int64_t r1) {
    const int64_t l0 = b.LevelStart(r0), l1 = b.LevelStart(r1);
    const int64_t v0 = b.row_value_start[r0], v1 = b.row_value_start[r1];
    if (!b.def.empty()) def_.insert(def_.end(), b.def.begin() + l0, b.def.begin() + l1);
    if (!b.rep.empty()) rep_.insert(rep_.end(), b.rep.begin() + l0, b.rep.begin() + l1);
    page_levels_ += l1 - l0;
    page_rows_ += r1 - r0;
    const int64_t nv = v1 - v0;
    page_values_ += nv;
    page_stats_.AddNulls((l1 - l0) - nv);
    if (nv == 0) return Status::OK();
    if (width_ >= 0) {
      const uint8_t* vals = b.fixed + v0 * width_;
      page_stats_.UpdateFixed(vals, nv);
      if (use_dict_) {
        for (int64_t i = 0; i < nv; ++i) {
          indices_.push_back(dict_.Insert(std::string_view(reinterpret_cast<const char*>(vals) + i * width_, width_)));
        }
      } else {
        value_encoder_->PutFixed(vals, nv);
      }
    } else {
      const int32_t* offs = b.offsets + v0;
      page_stats_.UpdateBinary(offs, b.data, nv);
      if (use_dict_) {
        for (int64_t i = 0; i < nv; ++i) {
          indices_.push_back(dict_.Insert(std::string_view(reinterpret_cast<const char*>(b.data) + offs[i],
                                                           static_cast<size_t>(offs[i + 1] - offs[i]))));
        }
      } else {
        value_encoder_->PutBinary(offs, b.data, nv);
      }
    }
    if (use_dict_ &&
        (dict_.plain_bytes() > layout_.dictionary_max_bytes || dict_.size() > layout_.dictionary_max_entries)) {
      // The dictionary is full: this page still uses it, the rest of the chunk does not.
      RAP_RETURN_NOT_OK(FlushPage());
      use_dict_ = false;
      fell_back_ = true;
    }
    return Status::OK();
  }

  Status Compress(std::string_view in, std::string* out) const {
    if (layout_.codec == Codec::UNCOMPRESSED) {
      out->append(in);
      return Status::OK();
    }
    return rap::codec::Compress(layout_.codec, layout_.codec_level,
                             std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in.data()), in.size()), out)
        .WithContext("column " + leaf_.dotted);
  }

  Status CheckPageSize(int64_t size) const {
    if (size > INT32_MAX) {
      return Status::InvalidArgument(
          fmt::format("column {}: a page of {} bytes exceeds the 2 GiB Parquet limit; "
                      "use a smaller page size",
                      leaf_.dotted, size));
    }
    return Status::OK();
  }

  // Frame per key: the open frame's values become one independent ZSTD frame.
  Status CloseFrame() {
    if (page_rows_ == frame_row0_) return Status::OK();
    EncodedFrame f;
    std::string raw;
    value_encoder_->Finish(&raw);
    thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx) return Status::Internal("ZSTD: cannot create a compression context");
    f.bytes.resize(ZSTD_compressBound(raw.size()));
    const size_t n = ZSTD_compressCCtx(cctx.get(), f.bytes.data(), f.bytes.size(), raw.data(), raw.size(),
                                       layout_.codec_level == 0 ? ZSTD_CLEVEL_DEFAULT : layout_.codec_level);
    if (ZSTD_isError(n)) {
      return Status::Internal(fmt::format("column {}: ZSTD: {}", leaf_.dotted, ZSTD_getErrorName(n)));
    }
    f.bytes.resize(n);
    f.first_row = chunk_rows_ + frame_row0_;
    f.num_rows = page_rows_ - frame_row0_;
    f.num_levels = page_levels_ - frame_level0_;
    f.num_values = page_values_ - frame_value0_;
    f.raw_size = static_cast<int64_t>(raw.size());
    const auto slice = [&](const std::vector<int16_t>& v) {
      return v.empty() ? std::span<const int16_t>() : std::span<const int16_t>(v).subspan(frame_level0_);
    };
    f.levels = EncodeKeyLevels(slice(rep_), slice(def_), leaf_.max_rep, leaf_.max_def);
    frame_raw_bytes_ += f.raw_size;
    frames_.push_back(std::move(f));
    frame_row0_ = page_rows_;
    frame_level0_ = page_levels_;
    frame_value0_ = page_values_;
    return Status::OK();
  }

  Status FlushPage() {
    if (framed_) return FlushFramedPage();
    // Values section.
    std::string values;
    Encoding encoding = layout_.encoding;
    if (use_dict_ && (page_values_ > 0 || dict_.size() > 0)) {
      encoding = Encoding::RLE_DICTIONARY;
      RAP_ASSIGN_OR_RETURN(auto enc, MakeValueEncoder(Encoding::RLE_DICTIONARY, leaf_.physical, leaf_.type_length,
                                                      std::max(1, dict_.size())));
      enc->PutIndices(indices_.data(), static_cast<int64_t>(indices_.size()));
      enc->Finish(&values);
      ++dict_pages_;
    } else {
      value_encoder_->Finish(&values);
    }
    indices_.clear();
    // Levels.
    std::string rep_bytes, def_bytes;
    EncodePageLevels(&rep_bytes, &def_bytes);
    EncodedPage page;
    page.encoding = encoding;
    page.first_row = chunk_rows_;
    page.num_rows = page_rows_;
    page.num_levels = page_levels_;
    page.stats = page_stats_;
    PageHeader h;
    std::optional<Statistics> stats;
    if (layout_.page_statistics) stats = page_stats_.ToThrift(layout_.max_statistics_bytes);
    if (version_ == 1) {
      std::string raw;
      if (leaf_.max_rep > 0) {
        AppendLE32(&raw, static_cast<uint32_t>(rep_bytes.size()));
        raw += rep_bytes;
      }
      if (leaf_.max_def > 0) {
        AppendLE32(&raw, static_cast<uint32_t>(def_bytes.size()));
        raw += def_bytes;
      }
      raw += values;
      RAP_RETURN_NOT_OK(CheckPageSize(static_cast<int64_t>(raw.size())));
      page.uncompressed_body = static_cast<int64_t>(raw.size());
      RAP_RETURN_NOT_OK(Compress(raw, &page.body));
      h.type = PageType::DATA_PAGE;
      DataPageHeader dh;
      dh.num_values = static_cast<int32_t>(page_levels_);
      dh.encoding = encoding;
      dh.definition_level_encoding = Encoding::RLE;
      dh.repetition_level_encoding = Encoding::RLE;
      dh.statistics = stats;
      h.data_page_header = dh;
    } else {
      page.body = rep_bytes + def_bytes;
      page.uncompressed_body = static_cast<int64_t>(page.body.size() + values.size());
      RAP_RETURN_NOT_OK(CheckPageSize(page.uncompressed_body));
      const bool compressed = layout_.codec != Codec::UNCOMPRESSED;
      RAP_RETURN_NOT_OK(Compress(values, &page.body));
      h.type = PageType::DATA_PAGE_V2;
      DataPageHeaderV2 dh;
      dh.num_values = static_cast<int32_t>(page_levels_);
      dh.num_nulls = static_cast<int32_t>(page_levels_ - page_values_);
      dh.num_rows = static_cast<int32_t>(page_rows_);
      dh.encoding = encoding;
      dh.definition_levels_byte_length = static_cast<int32_t>(def_bytes.size());
      dh.repetition_levels_byte_length = static_cast<int32_t>(rep_bytes.size());
      dh.is_compressed = compressed;
      dh.statistics = stats;
      h.data_page_header_v2 = dh;
    }
    RAP_RETURN_NOT_OK(CheckPageSize(static_cast<int64_t>(page.body.size())));
    FinishHeader(&h, &page);
    finished_bytes_ += page.uncompressed_size();
    chunk_stats_.Merge(page_stats_);
    chunk_rows_ += page_rows_;
    chunk_levels_ += page_levels_;
    pages_.push_back(std::move(page));
    def_.clear();
    rep_.clear();
    page_rows_ = page_levels_ = page_values_ = 0;
    page_stats_.Reset();
    return Status::OK();
  }

  // The page's repetition and definition levels, RLE/bit-packed (empty when the leaf has none).
  void EncodePageLevels(std::string* rep_bytes, std::string* def_bytes) const {
    if (leaf_.max_rep > 0) {
      RleBitPackedEncoder e(rep_bw_);
      e.PutBatch(rep_.data(), static_cast<int64_t>(rep_.size()));
      e.Finish(rep_bytes);
    }
    if (leaf_.max_def > 0) {
      RleBitPackedEncoder e(def_bw_);
      e.PutBatch(def_.data(), static_cast<int64_t>(def_.size()));
      e.Finish(def_bytes);
    }
  }

  // A data page v2 whose compressed section is the page's frames; the layout finishes its header.
  Status FlushFramedPage() {
    RAP_RETURN_NOT_OK(CloseFrame());
    EncodedPage page;
    page.encoding = Encoding::PLAIN;
    page.first_row = chunk_rows_;
    page.num_rows = page_rows_;
    page.num_levels = page_levels_;
    page.stats = page_stats_;
    std::string rep_bytes, def_bytes;
    EncodePageLevels(&rep_bytes, &def_bytes);
    page.levels = rep_bytes + def_bytes;
    page.uncompressed_body = static_cast<int64_t>(page.levels.size()) + frame_raw_bytes_;
    RAP_RETURN_NOT_OK(CheckPageSize(page.uncompressed_body));
    page.frames = std::move(frames_);
    frames_.clear();
    PageHeader& h = page.pending;
    h.type = PageType::DATA_PAGE_V2;
    h.uncompressed_page_size = static_cast<int32_t>(page.uncompressed_body);
    DataPageHeaderV2 dh;
    dh.num_values = static_cast<int32_t>(page_levels_);
    dh.num_nulls = static_cast<int32_t>(page_levels_ - page_values_);
    dh.num_rows = static_cast<int32_t>(page_rows_);
    dh.encoding = Encoding::PLAIN;
    dh.definition_levels_byte_length = static_cast<int32_t>(def_bytes.size());
    dh.repetition_levels_byte_length = static_cast<int32_t>(rep_bytes.size());
    dh.is_compressed = true;
    if (layout_.page_statistics) dh.statistics = page_stats_.ToThrift(layout_.max_statistics_bytes);
    h.data_page_header_v2 = dh;
    page.type = PageType::DATA_PAGE_V2;
    finished_bytes_ += page.uncompressed_body;
    chunk_stats_.Merge(page_stats_);
    chunk_rows_ += page_rows_;
    chunk_levels_ += page_levels_;
    pages_.push_back(std::move(page));
    def_.clear();
    rep_.clear();
    page_rows_ = page_levels_ = page_values_ = 0;
    frame_row0_ = frame_level0_ = frame_value0_ = frame_raw_bytes_ = 0;
    page_stats_.Reset();
    return Status::OK();
  }

  void FinishHeader(PageHeader* h, EncodedPage* page) const {
    h->uncompressed_page_size = static_cast<int32_t>(page->uncompressed_body);
    h->compressed_page_size = static_cast<int32_t>(page->body.size());
    if (crc_) {
      const uLong c = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(page->body.data()),
                            static_cast<uInt>(page->body.size()));
      h->crc = static_cast<int32_t>(static_cast<uint32_t>(c));
    }
    page->type = h->type;
    EncodePageHeader(*h, &page->header);
  }

  Result<EncodedPage> DictionaryPage() const {
    RAP_ASSIGN_OR_RETURN(auto enc, MakeValueEncoder(Encoding::PLAIN, leaf_.physical, leaf_.type_length));
    dict_.Encode(enc.get());
    std::string raw;
    enc->Finish(&raw);
    RAP_RETURN_NOT_OK(CheckPageSize(static_cast<int64_t>(raw.size())));
    EncodedPage page;
    page.encoding = Encoding::PLAIN;
    page.uncompressed_body = static_cast<int64_t>(raw.size());
    RAP_RETURN_NOT_OK(Compress(raw, &page.body));
    PageHeader h;
    h.type = PageType::DICTIONARY_PAGE;
    DictionaryPageHeader dh;
    dh.num_values = dict_.size();
    dh.encoding = Encoding::PLAIN;
    h.dictionary_page_header = dh;
    FinishHeader(&h, &page);
    return page;
  }

  const LeafColumn& leaf_;
  const ColumnLayout layout_;
  const int version_;
  const bool framed_;
  const bool crc_;
  const int width_;  // physical width, -1 for BYTE_ARRAY
  Dictionary dict_;
  const int def_bw_;
  const int rep_bw_;
  bool use_dict_ = false;
  bool fell_back_ = false;
  int64_t dict_pages_ = 0;  // data pages that used the dictionary
  std::unique_ptr<ValueEncoder> value_encoder_;
  // The open page.
  std::vector<int16_t> def_, rep_;
  std::vector<int32_t> indices_;
  int64_t page_rows_ = 0, page_levels_ = 0, page_values_ = 0;
  StatsAccumulator page_stats_;
  // Frame per key: the page's closed frames and where the open frame starts in the page.
  std::vector<EncodedFrame> frames_;
  int64_t frame_row0_ = 0, frame_level0_ = 0, frame_value0_ = 0, frame_raw_bytes_ = 0;
  // The open chunk.
  std::vector<EncodedPage> pages_;
  StatsAccumulator chunk_stats_;
  int64_t chunk_rows_ = 0, chunk_levels_ = 0, finished_bytes_ = 0;
};

Result<std::unique_ptr<ColumnChunkWriter>> ColumnChunkWriter::Make(const LeafColumn& leaf, const ColumnLayout& layout,
                                                                   int data_page_version, bool page_crc, bool framed) {
  auto impl = std::make_unique<Impl>(leaf, layout, data_page_version, page_crc, framed);
  RAP_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<ColumnChunkWriter>(new ColumnChunkWriter(std::move(impl)));
}

ColumnChunkWriter::ColumnChunkWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ColumnChunkWriter::~ColumnChunkWriter() = default;
Status ColumnChunkWriter::AddRows(const LeafBatch& batch, std::span<const int64_t> breaks,
                                  std::span<const int64_t> frame_breaks) {
  return impl_->AddRows(batch, breaks, frame_breaks);
}
int64_t ColumnChunkWriter::BufferedBytes() const { return impl_->BufferedBytes(); }
Result<ColumnChunkPages> ColumnChunkWriter::Finish() { return impl_->Finish(); }

}  // namespace rap::parquet::internal
