// Frame per key, alignment and interleaving (rap/format/frame_layout.h): every layout reads back
// identically through rap's reader; the pages really are concatenations of one ZSTD frame per key
// (with skippable frames); each reported frame decodes alone to exactly its key's values and
// levels; no key crosses an alignment boundary; an interleaved key is one contiguous range.
#include "rap/format/frame_layout.h"

#include <zstd.h>

#include <gtest/gtest.h>

#include "rap/format/column_reader.h"
#include "rap/format/encoding.h"
#include "rap/format/footer.h"
#include "rap/format/schema.h"
#include "rap/format/thrift.h"
#include "rap/format/writer.h"

#include "format/layout_testing.h"
#include "format/writer_testing.h"

namespace rap::parquet {
namespace {

using rap::testing::CheckPageIndex;
using rap::testing::CompareBatches;
using rap::testing::FrameLayouts;
using rap::testing::KeyedBatch;
using rap::testing::KeyedSchema;
using rap::testing::MakeBatch;
using rap::testing::ReadBackFormatLevel;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

struct Written {
  std::string file;
  FileMetaData md;
  std::vector<std::vector<std::vector<FrameLocation>>> frames;
  std::vector<std::vector<KeyRange>> keys;
  WriteSummary summary;
};

Written Write(const RecordBatch& batch, const WriterOptions& options) {
  MemorySink sink;
  auto w = ParquetWriter::Open(batch.schema, &sink, options);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return {};
  EXPECT_TRUE((*w)->Write(batch).ok());
  Status st = (*w)->Close();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return {sink.data(), (*w)->metadata(), (*w)->frame_locations(), (*w)->key_ranges(), (*w)->summary()};
}

std::string Decompress(std::string_view frame, int64_t size) {
  std::string out(static_cast<size_t>(size), '\0');
  const size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  EXPECT_EQ(n, static_cast<size_t>(size));
  return out;
}

// Rows of each key of the batch (key column 0), as [first, end) in batch rows.
std::vector<std::pair<int64_t, int64_t>> KeyRuns(const RecordBatch& b) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  const auto* k = reinterpret_cast<const int64_t*>(b.columns[0]->buffers[1].data());
  for (int64_t i = 0; i < b.num_rows; ++i) {
    if (i == 0 || k[i] != k[i - 1]) runs.push_back({i, i + 1});
    runs.back().second = i + 1;
  }
  return runs;
}

class FrameLayoutTest : public ::testing::TestWithParam<size_t> {};

TEST_P(FrameLayoutTest, ReadsBackAndEveryFrameHoldsExactlyItsKey) {
  const auto layout = FrameLayouts()[GetParam()];
  SCOPED_TRACE(layout.name);
  const RecordBatch batch = KeyedBatch(5000, 11);
  const Written w = Write(batch, layout.options);
  ASSERT_FALSE(w.file.empty());

  // rap's reader: the same rows; the OffsetIndex matches a walk over the pages.
  EXPECT_EQ(CheckPageIndex(w.file), "");
  auto back = ReadBackFormatLevel(w.file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(CompareBatches({batch}, *back), "");

  auto desc = SchemaDescriptor::Make(w.md.schema, "t");
  ASSERT_TRUE(desc.ok());
  const auto runs = KeyRuns(batch);
  const int64_t align = layout.options.frame_align;
  int64_t rg_first = 0, frames = 0;
  ASSERT_EQ(w.frames.size(), w.md.row_groups.size());
  for (size_t g = 0; g < w.md.row_groups.size(); ++g) {
    const auto& rg = w.md.row_groups[g];
    // Keys of this row group (row-group relative).
    std::vector<std::pair<int64_t, int64_t>> keys;
    for (const auto& [a, b] : runs) {
      const int64_t lo = std::max(a, rg_first), hi = std::min(b, rg_first + rg.num_rows);
      if (lo < hi) keys.push_back({lo - rg_first, hi - rg_first});
    }
    for (int c = 0; c < desc->num_columns(); ++c) {
      const auto& col = desc->column(c);
      const auto& locs = w.frames[g][c];
      // BOOLEAN columns and the frame key's own columns keep the ordinary layout.
      const auto& keys_opt = layout.options.frame_break_on;
      const bool is_key = std::find(keys_opt.begin(), keys_opt.end(), batch.schema->fields[size_t(col.field)].name) !=
                          keys_opt.end();
      if (col.physical_type == Type::BOOLEAN || is_key) {
        EXPECT_TRUE(locs.empty()) << col.dotted_path;
        continue;
      }
      // Frames tile the rows in key order, never crossing a key.
      int64_t row = 0;
      size_t k = 0;
      for (const auto& f : locs) {
        ASSERT_EQ(f.first_row, row) << "column " << col.dotted_path;
        while (k < keys.size() && keys[k].second <= f.first_row) ++k;
        ASSERT_LT(k, keys.size());
        EXPECT_LE(f.first_row + f.num_rows, keys[k].second) << "a frame crosses a key";
        row += f.num_rows;
        ++frames;
        if (align > 0 && !layout.options.interleave && f.size <= align) {
          EXPECT_EQ(f.offset / align, (f.offset + f.size - 1) / align) << "frame crosses an alignment boundary";
        }
        // The frame alone decodes to its PLAIN values; its levels give the key's nulls.
        const std::string raw = Decompress(std::string_view(w.file).substr(f.offset, f.size), f.raw_size);
        auto lv = DecodeKeyLevels(f.levels, f.num_rows, col.max_repetition_level, col.max_definition_level);
        ASSERT_TRUE(lv.ok()) << lv.status().ToString();
        EXPECT_EQ(lv->num_levels, f.num_levels);
        int64_t non_null = 0;
        for (int16_t d : lv->def) non_null += d == col.max_definition_level;
        if (col.max_definition_level == 0) non_null = f.num_levels;
        EXPECT_EQ(non_null, f.num_values);
        // A lookup's decode: the key's rows of this leaf from the frame alone.
        auto leaf = ReadKeyFrame(col, Bytes(w.file).subspan(f.offset, f.size), f);
        ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
        if (col.max_repetition_level == 0) {
          const int top = col.field;
          std::vector<const LeafColumnData*> leaves(static_cast<size_t>(desc->num_columns()), nullptr);
          leaves[c] = &*leaf;  // AssembleField takes every leaf by ordinal; this field has one
          auto arr = AssembleField(desc->field(top), leaves, f.num_rows);
          ASSERT_TRUE(arr.ok()) << arr.status().ToString();
          for (int64_t r = 0; r < f.num_rows; ++r) {
            ASSERT_EQ(rap::testing::CompareValues(*batch.columns[top], rg_first + f.first_row + r, **arr, r), "")
                << col.dotted_path << " row " << f.first_row + r;
          }
        } else {
          EXPECT_EQ(leaf->num_levels, f.num_levels);
          EXPECT_EQ(leaf->rep_levels, lv->rep);
        }
        if (col.dotted_path == "n") {  // required INT32: the frame is the key's values, byte for byte
          const auto* v = reinterpret_cast<const char*>(batch.columns[1]->buffers[1].data());
          EXPECT_EQ(raw, std::string(v + (rg_first + f.first_row) * 4, f.num_rows * 4));
        }
        if (col.dotted_path == "x") {  // nullable DOUBLE: nulls where the input has them
          for (int64_t r = 0; r < f.num_rows; ++r) {
            EXPECT_EQ(lv->def[r] == 1, !batch.columns[3]->IsNull(rg_first + f.first_row + r));
          }
        }
      }
      EXPECT_EQ(row, rg.num_rows);
    }
    // Interleaved: one contiguous range per key covers every framed column's frame of the key.
    if (layout.options.interleave) {
      const auto& kr = w.keys[g];
      ASSERT_EQ(kr.size(), keys.size());
      for (size_t k = 0; k < kr.size(); ++k) {
        EXPECT_EQ(kr[k].first_row, keys[k].first);
        EXPECT_EQ(kr[k].num_rows, keys[k].second - keys[k].first);
        if (align > 0 && kr[k].size <= align) {
          EXPECT_EQ(kr[k].offset / align, (kr[k].offset + kr[k].size - 1) / align) << "key " << k << " crosses";
        }
      }
      for (int c = 0; c < desc->num_columns(); ++c) {
        for (const auto& f : w.frames[g][c]) {
          auto it = std::upper_bound(kr.begin(), kr.end(), f.first_row,
                                     [](int64_t r, const KeyRange& x) { return r < x.first_row; });
          ASSERT_NE(it, kr.begin());
          --it;
          EXPECT_GE(f.offset, it->offset);
          EXPECT_LE(f.offset + f.size, it->offset + it->size);
        }
      }
    } else {
      EXPECT_TRUE(w.keys[g].empty());
    }
    rg_first += rg.num_rows;
  }
  EXPECT_EQ(frames, w.summary.num_frames);
  EXPECT_EQ(w.summary.misaligned_keys, 0);
  if (align > 0 || layout.options.interleave) {
    EXPECT_GT(w.summary.num_skippable_frames, 0);
  }
}

TEST_P(FrameLayoutTest, PagesAreManyFramesSoAReaderSizingFromTheFirstFrameFails) {
  const auto layout = FrameLayouts()[GetParam()];
  SCOPED_TRACE(layout.name);
  const RecordBatch batch = KeyedBatch(3000, 5);
  const Written w = Write(batch, layout.options);
  ASSERT_FALSE(w.file.empty());
  const auto& cc = w.md.row_groups[0].columns[1];  // "n": required INT32, no levels
  size_t hsize = 0;
  auto h = DecodePageHeader(Bytes(w.file).subspan(cc.meta_data->data_page_offset), &hsize);
  ASSERT_TRUE(h.ok());
  ASSERT_TRUE(h->data_page_header_v2.has_value());
  const auto section = Bytes(w.file).subspan(cc.meta_data->data_page_offset + hsize, h->compressed_page_size);
  auto frames = ListFrames(section);
  ASSERT_TRUE(frames.ok()) << frames.status().ToString();
  int64_t zstd = 0, skippable = 0, content = 0;
  for (const auto& f : *frames) {
    (f.skippable ? skippable : zstd) += 1;
    if (!f.skippable) content += f.content_size;
  }
  EXPECT_GT(zstd, 20);  // one per key of the page
  EXPECT_EQ(content, h->uncompressed_page_size);
  if (layout.options.interleave) {
    EXPECT_GT(skippable, 0);
  }
  // A whole-section decoder gets every value; one that sizes its output from the first frame's
  // declared size (Velox issue 18714) cannot decode the page.
  std::string all(static_cast<size_t>(h->uncompressed_page_size), '\0');
  EXPECT_EQ(ZSTD_decompress(all.data(), all.size(), section.data(), section.size()), all.size());
  std::string first(static_cast<size_t>((*frames)[0].content_size), '\0');
  EXPECT_TRUE(ZSTD_isError(ZSTD_decompress(first.data(), first.size(), section.data(), section.size())));
}

// parquet-java (Spark's reader) assigns a row group to the input split that holds the byte
// start + RowGroup.total_compressed_size / 2, where start is column 0's first page: a row group whose
// point lies outside its own bytes is read by no split (Spark read 0 rows of interleaved files whose
// key column, column 0, was placed after the interleaved region). So column 0's first page is the
// row group's first page, file_offset names it, and the point lies inside the row group's bytes.
void ExpectSplitReadersFindEveryRowGroup(const Written& w) {
  auto start_of = [](const ColumnChunk& cc) {
    const ColumnMetaData& md = *cc.meta_data;
    return md.dictionary_page_offset ? std::min(md.data_page_offset, *md.dictionary_page_offset) : md.data_page_offset;
  };
  int64_t prev_end = 4;
  ASSERT_FALSE(w.md.row_groups.empty());
  for (size_t g = 0; g < w.md.row_groups.size(); ++g) {
    SCOPED_TRACE("row group " + std::to_string(g));
    const RowGroup& rg = w.md.row_groups[g];
    int64_t lo = INT64_MAX, hi = 0;
    for (const auto& cc : rg.columns) {
      ASSERT_TRUE(cc.meta_data.has_value());
      lo = std::min(lo, start_of(cc));
      hi = std::max(hi, start_of(cc) + cc.meta_data->total_compressed_size);
    }
    EXPECT_EQ(start_of(rg.columns[0]), lo);
    EXPECT_EQ(rg.file_offset, lo);
    ASSERT_TRUE(rg.total_compressed_size.has_value());
    EXPECT_EQ(*rg.total_compressed_size, hi - lo) << "the row group's bytes, each counted once";
    const int64_t mid = start_of(rg.columns[0]) + *rg.total_compressed_size / 2;
    EXPECT_GE(lo, prev_end);
    EXPECT_LT(mid, hi);
    prev_end = hi;
  }
}

TEST_P(FrameLayoutTest, SplitReadersFindEveryRowGroup) {
  const auto layout = FrameLayouts()[GetParam()];
  SCOPED_TRACE(layout.name);
  const RecordBatch batch = KeyedBatch(5000, 3);
  ExpectSplitReadersFindEveryRowGroup(Write(batch, layout.options));
  // The same with the key last: column 0 is framed (inside the interleaved region).
  auto schema = std::make_shared<Schema>();
  std::vector<ArrayPtr> cols;
  for (size_t f = 1; f <= batch.schema->fields.size(); ++f) {
    const size_t i = f % batch.schema->fields.size();
    schema->fields.push_back(batch.schema->fields[i]);
    cols.push_back(batch.columns[i]);
  }
  const Written last = Write(MakeBatch(schema, std::move(cols)), layout.options);
  ExpectSplitReadersFindEveryRowGroup(last);
  if (layout.options.interleave) {
    EXPECT_FALSE(last.keys.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, FrameLayoutTest, ::testing::Range<size_t>(0, FrameLayouts().size()),
                         [](const auto& info) { return FrameLayouts()[info.param].name; });

TEST(FrameLayout, KeyLevelsRoundTrip) {
  const std::vector<int16_t> rep{0, 1, 1, 0, 0, 1}, def{3, 3, 1, 0, 3, 2};
  const std::string enc = EncodeKeyLevels(rep, def, 1, 3);
  auto back = DecodeKeyLevels(enc, 4, 1, 3);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rep, rep);
  EXPECT_EQ(back->def, def);
  // Flat, no nulls: nothing stored.
  const std::vector<int16_t> full{1, 1, 1};
  EXPECT_EQ(EncodeKeyLevels({}, full, 0, 1), "");
  auto trivial = DecodeKeyLevels("", 3, 0, 1);
  ASSERT_TRUE(trivial.ok());
  EXPECT_EQ(trivial->def, full);
  EXPECT_FALSE(DecodeKeyLevels("\x05\x40", 1, 1, 1).ok());  // repetition bytes past the end
  // A flat column has one level per row: any other declared count is refused before decoding.
  const std::vector<int16_t> flat{1, 0, 1};
  const std::string three = EncodeKeyLevels({}, flat, 0, 1);
  ASSERT_TRUE(DecodeKeyLevels(three, 3, 0, 1).ok());
  auto wrong = DecodeKeyLevels(three, 2, 0, 1);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("3 levels for 2 rows"), std::string::npos) << wrong.status().ToString();
}

TEST(FrameLayout, OptionsAreChecked) {
  auto schema = KeyedSchema();
  WriterOptions o;
  o.interleave = true;
  EXPECT_FALSE(o.Validate().ok());  // interleaving needs a frame key
  o.frame_break_on = {"key"};
  o.frame_align = 1000;
  EXPECT_FALSE(o.Validate().ok());  // not a power of two
  o.frame_align = 4096;
  EXPECT_TRUE(o.Validate().ok());
  o.frame_break_on = {"nope"};
  MemorySink sink;
  EXPECT_FALSE(ParquetWriter::Open(schema, &sink, o).ok());
}

TEST(FrameLayout, ListFramesNamesTheBadOffset) {
  std::string section = SkippableFrameHeader(3) + "abc" + "garbage!";
  auto r = ListFrames(Bytes(section));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("offset 11"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace rap::parquet
