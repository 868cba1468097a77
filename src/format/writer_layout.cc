// Row group placement: ordinary pages column after column, framed pages with alignment padding and
// (interleaved) per-key groups of frames bridged by skippable frames. See writer_layout.h.
#include "format/writer_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "rap/format/thrift.h"

namespace rap::parquet::internal {
namespace {

enum class ItemKind { kWhole, kStart, kFrame };

// One placed piece: a whole ordinary page, the header + levels of a framed page, or one frame
// (followed by this column's skippable-frame header when `skip_after`).
struct Item {
  ItemKind kind = ItemKind::kWhole;
  int col = 0;
  int page = 0;
  int frame = 0;
  int group = -1;           // interleaved: the key's ordinal
  bool skip_after = false;  // interleaved frames whose column's next piece is not adjacent
  bool region = false;      // part of the interleaved region
  int64_t next_own = -1;    // interleaved: index of this column's next item in the region (-1: none)
  int64_t pad = 0;          // bytes before the item (alignment)
  int64_t pos = 0;          // file offset after the padding
};

// Padding that keeps [pos + pad, pos + pad + size) inside one `align` block (or, for a piece larger
// than the block, starts it at a boundary). `min_pad`: the smallest non-zero padding possible.
int64_t PadFor(int64_t pos, int64_t size, int64_t align, int64_t min_pad) {
  if (align <= 0) return 0;
  const int64_t off = pos % align;
  if (off == 0 || (size <= align && off + size <= align)) return 0;
  int64_t pad = align - off;
  if (pad < min_pad) {
    // Too small for a skippable frame: pad past the boundary if the piece still fits that block.
    pad = (min_pad - pad + size <= align) ? min_pad : pad + align;
  }
  return pad;
}

bool Crosses(int64_t pos, int64_t size, int64_t align) {
  return align > 0 && size <= align && size > 0 && pos / align != (pos + size - 1) / align;
}

class Placer {
 public:
  Placer(std::vector<ColumnChunkPages>* columns, std::span<const int64_t> key_starts, int64_t start,
         const LayoutOptions& options)
      : cols_(*columns), key_starts_(key_starts), start_(start), opt_(options) {}

  Status Build() {
    std::vector<int> framed;
    for (size_t c = 0; c < cols_.size(); ++c) {
      if (!cols_[c].pages.empty() && cols_[c].pages.back().framed()) framed.push_back(static_cast<int>(c));
    }
    interleave_ = opt_.interleave && framed.size() >= 2;
    header_size_.resize(cols_.size());
    for (size_t c = 0; c < cols_.size(); ++c) header_size_[c].assign(cols_[c].pages.size(), 0);
    if (interleave_) {
      // The row group's first column chunk in the file is that of its first column, as writers
      // place chunks in schema order: parquet-java (Spark, Hive, Trino's older reader) takes a row
      // group's start from column 0's first page and assigns the row group to the split holding
      // start + total_compressed_size / 2; a column 0 placed after the interleaved region puts that
      // point past the end of the file and the row group in no split (Spark read 0 rows). So the
      // ordinary chunks (key and BOOLEAN columns) go before the region when column 0 is one of them.
      const bool whole_first = !IsFramed(0);
      if (whole_first) AddWholeColumns();
      BuildInterleaved(framed);
      if (!whole_first) AddWholeColumns();
    } else {
      for (size_t c = 0; c < cols_.size(); ++c) {
        if (IsFramed(static_cast<int>(c))) {
          AddFramedColumn(static_cast<int>(c));
        } else {
          AddWholeColumn(static_cast<int>(c));
        }
      }
    }
    return Place();
  }

  Result<RowGroupLayout> Emit(ByteSink* sink) {
    RowGroupLayout out;
    out.pages.resize(cols_.size());
    out.frames.resize(cols_.size());
    for (size_t c = 0; c < cols_.size(); ++c) out.pages[c].resize(cols_[c].pages.size());
    for (size_t i = 0; i < items_.size(); ++i) {
      const Item& it = items_[i];
      if (it.pad > 0) {
        out.padding_bytes += it.pad;
        std::string pad(static_cast<size_t>(it.pad), '\0');
        if (!it.region) {  // inside a page body: a skippable frame of the column
          const std::string h = SkippableFrameHeader(static_cast<uint32_t>(it.pad - kSkippableHeaderBytes));
          pad.replace(0, h.size(), h);
          ++out.skippable_frames;
        }
        RAP_RETURN_NOT_OK(sink->Append(pad));
      }
      if (static_cast<int64_t>(sink->position()) != it.pos) {
        return Status::Internal(fmt::format("row group layout: piece {} at {} but the file is at {}", i, it.pos,
                                            sink->position()));
      }
      EncodedPage& p = cols_[it.col].pages[it.page];
      switch (it.kind) {
        case ItemKind::kWhole:
          out.pages[it.col][it.page] = {it.pos, p.compressed_size()};
          RAP_RETURN_NOT_OK(sink->Append(p.header));
          RAP_RETURN_NOT_OK(sink->Append(p.body));
          break;
        case ItemKind::kStart:
          out.pages[it.col][it.page] = {it.pos, static_cast<int64_t>(p.header.size()) + BodySize(i)};
          RAP_RETURN_NOT_OK(sink->Append(p.header));
          RAP_RETURN_NOT_OK(sink->Append(p.levels));
          break;
        case ItemKind::kFrame: {
          const EncodedFrame& f = p.frames[it.frame];
          FrameLocation loc;
          loc.offset = it.pos;
          loc.size = static_cast<int64_t>(f.bytes.size());
          loc.first_row = f.first_row;
          loc.num_rows = f.num_rows;
          loc.num_levels = f.num_levels;
          loc.num_values = f.num_values;
          loc.raw_size = f.raw_size;
          loc.page = it.page;
          loc.levels = f.levels;
          if (Crosses(loc.offset, loc.size, opt_.align) && !interleave_) ++out.misaligned;
          out.frames[it.col].push_back(std::move(loc));
          RAP_RETURN_NOT_OK(sink->Append(f.bytes));
          if (it.skip_after) {
            RAP_RETURN_NOT_OK(sink->Append(SkippableFrameHeader(static_cast<uint32_t>(SkipPayload(i)))));
            ++out.skippable_frames;
          }
          break;
        }
      }
    }
    for (const auto& g : groups_) {
      KeyRange k;
      k.offset = items_[g.first_frame].pos;
      k.size = ItemEnd(g.last_frame, false) - k.offset;
      k.first_row = key_starts_[g.key];
      k.num_rows = KeyEnd(g.key) - k.first_row;
      if (Crosses(items_[g.first].pos, ItemEnd(g.last, true) - items_[g.first].pos, opt_.align)) ++out.misaligned;
      out.keys.push_back(k);
    }
    out.end = static_cast<int64_t>(sink->position());
    return out;
  }

 private:
  struct Group {
    int key = 0;
    size_t first = 0, last = 0;              // items (incl. page starts)
    size_t first_frame = 0, last_frame = 0;  // frame items
  };

  bool IsFramed(int c) const { return !cols_[c].pages.empty() && cols_[c].pages.back().framed(); }

  void AddWholeColumns() {
    for (size_t c = 0; c < cols_.size(); ++c) {
      if (!IsFramed(static_cast<int>(c))) AddWholeColumn(static_cast<int>(c));
    }
  }
  void AddWholeColumn(int c) {
    for (size_t p = 0; p < cols_[c].pages.size(); ++p) items_.push_back({ItemKind::kWhole, c, static_cast<int>(p)});
  }
  void AddFramedColumn(int c) {
    for (size_t p = 0; p < cols_[c].pages.size(); ++p) {
      items_.push_back({ItemKind::kStart, c, static_cast<int>(p)});
      for (size_t f = 0; f < cols_[c].pages[p].frames.size(); ++f) {
        items_.push_back({ItemKind::kFrame, c, static_cast<int>(p), static_cast<int>(f)});
      }
    }
  }

  int KeyOf(int64_t row) const {
    auto it = std::upper_bound(key_starts_.begin(), key_starts_.end(), row);
    return static_cast<int>(it - key_starts_.begin()) - 1;
  }
  int64_t KeyEnd(int key) const {
    if (key + 1 < static_cast<int>(key_starts_.size())) return key_starts_[key + 1];
    const EncodedPage& last = cols_[framed_first_].pages.back();
    return last.first_row + last.num_rows;
  }

  // For key g, every framed column's frames of g in column order (page starts in front of a
  // page's first frame); then each frame learns whether its column's next piece is adjacent.
  void BuildInterleaved(const std::vector<int>& framed) {
    framed_first_ = framed.front();
    struct Cursor {
      size_t page = 0, frame = 0;
    };
    std::vector<Cursor> cur(framed.size());
    region_begin_item_ = items_.size();
    const int num_keys = static_cast<int>(key_starts_.size());
    for (int g = 0; g < num_keys; ++g) {
      Group grp;
      grp.key = g;
      grp.first = items_.size();
      bool any = false;
      for (size_t k = 0; k < framed.size(); ++k) {
        const int c = framed[k];
        auto& pages = cols_[c].pages;
        while (cur[k].page < pages.size()) {
          const EncodedPage& p = pages[cur[k].page];
          if (cur[k].frame >= p.frames.size()) {
            ++cur[k].page;
            cur[k].frame = 0;
            continue;
          }
          if (KeyOf(p.frames[cur[k].frame].first_row) != g) break;
          if (cur[k].frame == 0) items_.push_back({ItemKind::kStart, c, static_cast<int>(cur[k].page)});
          Item f{ItemKind::kFrame, c, static_cast<int>(cur[k].page), static_cast<int>(cur[k].frame)};
          f.group = g;
          if (!any) grp.first_frame = items_.size();
          grp.last_frame = items_.size();
          any = true;
          items_.push_back(f);
          ++cur[k].frame;
        }
      }
      if (!any) continue;
      grp.last = items_.size() - 1;
      for (size_t i = grp.first; i <= grp.last; ++i) items_[i].group = g;
      groups_.push_back(grp);
    }
    region_end_item_ = items_.size();
    std::vector<int64_t> last_of(cols_.size(), -1);
    for (size_t i = region_begin_item_; i < region_end_item_; ++i) {
      items_[i].region = true;
      const int c = items_[i].col;
      if (last_of[c] >= 0) items_[last_of[c]].next_own = static_cast<int64_t>(i);
      last_of[c] = static_cast<int64_t>(i);
    }
    for (size_t i = region_begin_item_; i < region_end_item_; ++i) {
      Item& it = items_[i];
      if (it.kind != ItemKind::kFrame) continue;
      it.skip_after = it.next_own >= 0 ? it.next_own != static_cast<int64_t>(i + 1) : i + 1 != region_end_item_;
    }
  }

  int64_t ItemSize(const Item& it) const {
    const EncodedPage& p = cols_[it.col].pages[it.page];
    switch (it.kind) {
      case ItemKind::kWhole:
        return p.compressed_size();
      case ItemKind::kStart:
        return header_size_[it.col][it.page] + static_cast<int64_t>(p.levels.size());
      case ItemKind::kFrame:
        return static_cast<int64_t>(p.frames[it.frame].bytes.size()) + (it.skip_after ? kSkippableHeaderBytes : 0);
    }
    return 0;
  }
  int64_t ItemEnd(size_t i, bool with_skip) const {
    const Item& it = items_[i];
    int64_t size = ItemSize(it);
    if (!with_skip && it.skip_after) size -= kSkippableHeaderBytes;
    return it.pos + size;
  }
  int64_t RegionEnd() const {
    if (region_end_item_ > region_begin_item_) return ItemEnd(region_end_item_ - 1, true);
    return region_begin_item_ == 0 ? start_ : ItemEnd(region_begin_item_ - 1, true);
  }
  // Payload of the skippable frame after frame item i: up to its column's next piece or the region end.
  int64_t SkipPayload(size_t i) const {
    const Item& it = items_[i];
    const int64_t skip_end = ItemEnd(i, true);
    const int64_t target = it.next_own >= 0 ? items_[it.next_own].pos : RegionEnd();
    return target - skip_end;
  }
  // Body of the framed page started by item i: to the column's next page start, else to the end of
  // the interleaved region (or of the column's last frame).
  int64_t BodySize(size_t i) const {
    const Item& it = items_[i];
    const int64_t body_start = it.pos + header_size_[it.col][it.page];
    size_t j = i + 1;
    int64_t end = -1;
    if (interleave_) {
      for (int64_t k = it.next_own; k >= 0; k = items_[k].next_own) {
        if (items_[k].kind == ItemKind::kStart) {
          end = items_[k].pos;
          break;
        }
      }
      if (end < 0) end = RegionEnd();
    } else {
      while (j < items_.size() && items_[j].col == it.col && items_[j].page == it.page) ++j;
      end = ItemEnd(j - 1, true);
    }
    return end - body_start;
  }

  // Positions (and padding, unless frozen) for the current header sizes.
  void Position(bool frozen) {
    int64_t pos = start_;
    size_t g = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      Item& it = items_[i];
      if (!frozen) {
        it.pad = 0;
        if (opt_.align > 0) {
          if (interleave_ && it.region) {
            if (g < groups_.size() && groups_[g].first == i) {
              int64_t size = 0;
              for (size_t k = groups_[g].first; k <= groups_[g].last; ++k) size += ItemSize(items_[k]);
              it.pad = PadFor(pos, size, opt_.align, 1);
            }
          } else if (it.kind == ItemKind::kFrame) {
            it.pad = PadFor(pos, ItemSize(it), opt_.align, kSkippableHeaderBytes);
          }
        }
      }
      if (g < groups_.size() && groups_[g].last == i) ++g;
      pos += it.pad;
      it.pos = pos;
      pos += ItemSize(it);
    }
  }

  // Encodes the framed pages' headers for the current placement; true when every size held.
  bool EncodeHeaders() {
    bool stable = true;
    for (size_t i = 0; i < items_.size(); ++i) {
      const Item& it = items_[i];
      if (it.kind != ItemKind::kStart) continue;
      EncodedPage& p = cols_[it.col].pages[it.page];
      p.pending.compressed_page_size = static_cast<int32_t>(BodySize(i));
      p.header.clear();
      EncodePageHeader(p.pending, &p.header);
      if (static_cast<int64_t>(p.header.size()) != header_size_[it.col][it.page]) {
        header_size_[it.col][it.page] = static_cast<int64_t>(p.header.size());
        stable = false;
      }
    }
    return stable;
  }

  // Header sizes depend on body sizes, which depend on positions: iterate to a fixed point. With
  // padding fixed, sizes only grow with header sizes, so the frozen phase (from the smallest
  // headers) always converges.
  Status Place() {
    for (int round = 0; round < 6; ++round) {
      Position(false);
      if (EncodeHeaders()) return CheckBodies();
    }
    for (auto& v : header_size_) std::fill(v.begin(), v.end(), 0);
    for (int round = 0; round < 64; ++round) {
      Position(true);
      if (EncodeHeaders()) return CheckBodies();
    }
    return Status::Internal("row group layout: page header sizes did not converge");
  }

  Status CheckBodies() const {
    for (size_t i = 0; i < items_.size(); ++i) {
      const Item& it = items_[i];
      if (it.kind == ItemKind::kStart && BodySize(i) > INT32_MAX) {
        return Status::InvalidArgument(fmt::format(
            "column chunk {}: page {} would span {} bytes (2 GiB Parquet limit); use smaller row groups", it.col,
            it.page, BodySize(i)));
      }
      if (it.skip_after && SkipPayload(i) > UINT32_MAX) {
        return Status::InvalidArgument("interleaved key data exceeds a skippable frame (4 GiB)");
      }
    }
    return Status::OK();
  }

  std::vector<ColumnChunkPages>& cols_;
  std::span<const int64_t> key_starts_;
  const int64_t start_;
  const LayoutOptions opt_;
  bool interleave_ = false;
  int framed_first_ = 0;
  std::vector<Item> items_;
  std::vector<Group> groups_;
  size_t region_begin_item_ = 0;  // interleaved: items [region_begin_item_, region_end_item_) form the region
  size_t region_end_item_ = 0;
  std::vector<std::vector<int64_t>> header_size_;
};

}  // namespace

Result<RowGroupLayout> LayOutRowGroup(std::vector<ColumnChunkPages>* columns, std::span<const int64_t> key_starts,
                                      int64_t start, const LayoutOptions& options, ByteSink* sink) {
  Placer placer(columns, key_starts, start, options);
  RAP_RETURN_NOT_OK(placer.Build());
  return placer.Emit(sink);
}

}  // namespace rap::parquet::internal
