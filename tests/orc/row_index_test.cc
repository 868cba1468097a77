// Reading only some row groups of a stripe from the row-index positions (PlanRowGroupRead +
// OrcReader::DecodeRowGroups) gives exactly the rows of those groups of the whole stripe's read,
// on the Apache ORC example files (../shared/orc): files of ORC Java (0.11 with RLE v1 and 0.12
// with RLE v2; ZLIB, Snappy, LZO, LZ4, ZSTD, uncompressed; PRESENT streams suppressed and not,
// nested types, dictionary and direct strings) and of ORC C++. Every value compared as
// orc-contents prints it. Also: bad positions are Corrupt, not a crash.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/orc/reader.h"
#include "rap/orc/row_index.h"

#include "orc/orc_json.h"
#include "testing/paths.h"

namespace rap::orc {
namespace {

std::string Example(const std::string& name) { return rap::testing::SharedDir() + "/orc/examples/" + name; }

struct Opened {
  Buffer file;
  std::unique_ptr<OrcReader> reader;
  std::vector<uint32_t> columns;  // every column of the top-level fields
};

Opened OpenExample(const std::string& name) {
  Opened o;
  o.file = Buffer::FromString(rap::testing::ReadFileToString(Example(name)));
  auto r = OrcReader::Open(name, o.file);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return o;
  o.reader = std::move(*r);
  const FileTail& tail = o.reader->tail();
  const bool struct_root = tail.types.nodes[0].kind == TypeKind::kStruct;
  const size_t fields = struct_root ? tail.types.nodes[0].subtypes.size() : 1;
  for (size_t f = 0; f < fields; ++f) {
    for (uint32_t c : SubtreeColumns(tail.types, OrcReader::FieldColumn(tail, static_cast<int>(f)))) {
      o.columns.push_back(c);
    }
  }
  std::sort(o.columns.begin(), o.columns.end());
  o.columns.erase(std::unique(o.columns.begin(), o.columns.end()), o.columns.end());
  return o;
}

std::map<uint32_t, RowIndexInfo> Indexes(const Opened& o, size_t stripe, const StripeFooterInfo& footer) {
  std::map<uint32_t, RowIndexInfo> out;
  for (const StreamInfo& s : RowIndexStreams(footer, o.columns)) {
    auto idx = ParseRowIndex(o.reader->tail(), stripe, s, o.file.Slice(s.offset, s.length));
    EXPECT_TRUE(idx.ok()) << idx.status().ToString();
    if (idx.ok()) out[s.column] = std::move(*idx);
  }
  return out;
}

Result<RecordBatch> ReadGroups(const Opened& o, size_t stripe, const StripeFooterInfo& footer,
                               const std::map<uint32_t, RowIndexInfo>& idx, size_t first, size_t last) {
  RAP_ASSIGN_OR_RETURN(std::vector<StreamPart> parts,
                       PlanRowGroupRead(o.reader->tail(), stripe, footer, idx, o.columns, first, last));
  std::vector<std::pair<StreamPart, Buffer>> bytes;
  for (const StreamPart& p : parts) {
    EXPECT_GE(p.offset, p.stream.offset);
    EXPECT_LE(p.offset + p.length, p.stream.offset + p.stream.length);
    bytes.emplace_back(p, o.file.Slice(p.offset, p.length));
  }
  return OrcReader::DecodeRowGroups(o.reader->tail(), stripe, footer, bytes, {}, first, last);
}

// Checks runs of row groups of every stripe against the whole stripe; the number of runs checked.
// `require`: every run must be readable from the row index (else NotSupported is allowed).
size_t CheckFile(const std::string& name, bool require) {
  Opened o = OpenExample(name);
  if (!o.reader) return 0;
  const FileTail& tail = o.reader->tail();
  const bool struct_root = tail.types.nodes[0].kind == TypeKind::kStruct;
  std::mt19937 rng(31);
  size_t checked = 0;
  for (size_t s = 0; s < o.reader->num_stripes(); ++s) {
    const size_t groups = NumRowGroups(tail, s);
    if (groups < 2) continue;
    auto whole = o.reader->ReadStripe(s);
    if (!whole.ok()) {
      EXPECT_FALSE(require) << whole.status().ToString();
      return checked;
    }
    auto footer = o.reader->StripeFooter(s);
    EXPECT_TRUE(footer.ok());
    const auto idx = Indexes(o, s, *footer);
    // First, last, inner and random runs (at most 8 groups long: a few seconds for the largest file).
    const size_t span = std::min<size_t>(groups, 8);
    std::set<std::pair<size_t, size_t>> runs{
        {0, 1}, {1, 2}, {groups - 1, groups}, {1, span}, {groups - span, groups - 1}};
    for (int k = 0; k < 4; ++k) {
      const size_t a = rng() % groups;
      runs.insert({a, std::min(groups, a + 1 + rng() % span)});
    }
    for (const auto& [first, last] : runs) {
      auto part = ReadGroups(o, s, *footer, idx, first, last);
      if (!part.ok()) {
        EXPECT_FALSE(require) << name << " stripe " << s << " groups [" << first << ", " << last
                              << "): " << part.status().ToString();
        EXPECT_TRUE(part.status().Is(StatusCode::kNotSupported)) << part.status().ToString();
        return checked;
      }
      const int64_t begin = static_cast<int64_t>(first * tail.row_index_stride);
      const int64_t end = std::min<int64_t>(whole->num_rows, static_cast<int64_t>(last * tail.row_index_stride));
      EXPECT_EQ(part->num_rows, end - begin) << name << " stripe " << s;
      if (part->num_rows != end - begin) return checked;
      for (int64_t r = begin; r < end; ++r) {
        const std::string got = testing::OrcRowJson(*part, r - begin, struct_root);
        const std::string want = testing::OrcRowJson(*whole, r, struct_root);
        if (got != want) {
          ADD_FAILURE() << name << " stripe " << s << " groups [" << first << ", " << last << ") row " << r << ": "
                        << got << " != " << want;
          return checked;
        }
      }
      ++checked;
    }
  }
  return checked;
}

TEST(OrcRowIndex, JavaAndCppExampleFilesReadByRowGroups) {
  // Files every run of which must read from the row index.
  for (const char* name : {"TestOrcFile.testSeek.orc", "TestOrcFile.columnProjection.orc",
                           "TestOrcFile.testPredicatePushdown.orc", "TestStringDictionary.testRowIndex.orc",
                           "nulls-at-end-snappy.orc", "orc_index_int_string.orc", "orc_split_elim_new.orc",
                           "orc_split_elim_cpp.orc", "demo-12-zlib.orc"}) {
    SCOPED_TRACE(name);
    EXPECT_GT(CheckFile(name, /*require=*/true), 0u) << name << ": no stripe of several row groups";
  }
}

TEST(OrcRowIndex, BadPositionsAreCorrupt) {
  Opened o = OpenExample("nulls-at-end-snappy.orc");
  ASSERT_TRUE(o.reader);
  auto footer = o.reader->StripeFooter(0);
  ASSERT_TRUE(footer.ok());
  auto idx = Indexes(o, 0, *footer);
  ASSERT_FALSE(idx.empty());
  const size_t groups = NumRowGroups(o.reader->tail(), 0);
  ASSERT_GE(groups, 2u);
  // A chunk offset past its stream.
  for (auto& [column, index] : idx) {
    if (!index.entries[1].positions.empty()) index.entries[1].positions[0] = uint64_t{1} << 40;
  }
  auto r = ReadGroups(o, 0, *footer, idx, 1, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kCorrupt)) << r.status().ToString();
  EXPECT_NE(r.status().message().find("nulls-at-end-snappy.orc: stripe 0 column"), std::string::npos)
      << r.status().ToString();
  // An offset in the decompressed chunk past its end.
  idx = Indexes(o, 0, *footer);
  for (auto& [column, index] : idx) {
    if (index.entries[1].positions.size() >= 2) index.entries[1].positions[1] = uint64_t{1} << 30;
  }
  r = ReadGroups(o, 0, *footer, idx, 1, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kCorrupt)) << r.status().ToString();
  // Entries of another number of positions: not usable.
  idx = Indexes(o, 0, *footer);
  idx.begin()->second.entries[0].positions.push_back(0);
  r = ReadGroups(o, 0, *footer, idx, 0, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kNotSupported)) << r.status().ToString();
}

}  // namespace
}  // namespace rap::orc
