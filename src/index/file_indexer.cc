// IndexDataFile: key columns -> sorted runs -> entries, with page locations and hoisted values.
#include "index/file_indexer.h"
#include "rap/columnar/take.h"

#include "index/frame_locations.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string_view>

#include <boost/sort/spreadsort/integer_sort.hpp>
#include <boost/sort/spreadsort/string_sort.hpp>

#include "rap/format/blob_column.h"
#include "rap/format/thrift.h"
#include "rap/format/writer_options.h"
#include "rap/format/writer.h"
#include "rap/format/writer_sink.h"
#include "rap/read/orc_file_reader.h"
#include "rap/read/scanner.h"
#include "rap/util/hash.h"

namespace rap::index::internal {

std::string SchemaFilePath(const std::string& bytes) {
  char name[64];
  std::snprintf(name, sizeof(name), "schemas/%016llx.parquet", static_cast<unsigned long long>(HashFnv1a64(bytes)));
  return name;
}

namespace {

// A key column of the whole file: integers widened to int64, or views into the decoded strings.
struct KeyValues {
  KeyType type = KeyType::kInt64;
  std::vector<int64_t> ints;
  std::vector<std::string_view> strs;
  int Compare(size_t a, size_t b) const {
    if (IsIntegerKey(type)) return ints[a] < ints[b] ? -1 : (ints[a] > ints[b] ? 1 : 0);
    const int c = strs[a].compare(strs[b]);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
};

}  // namespace

Status ChunkLocations(const parquet::ColumnMetaData& md, const parquet::OffsetIndex& oi, int64_t rg_first,
                      int64_t rg_rows, const std::vector<PageFrames>& frames, int32_t cover_index, int64_t begin,
                      int64_t end, std::vector<Location>* out) {
  if (rg_first >= end || rg_first + rg_rows <= begin) return Status::OK();
  const int32_t codec = static_cast<int32_t>(md.codec);
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 && *md.dictionary_page_offset < md.data_page_offset) {
    Location d;
    d.column = cover_index;
    d.kind = static_cast<int32_t>(LocationKind::kDictionaryPage);
    d.codec = codec;
    d.offset = *md.dictionary_page_offset;
    d.size = md.data_page_offset - *md.dictionary_page_offset;
    d.first_row = rg_first;
    d.num_rows = rg_rows;
    out->push_back(std::move(d));
  }
  const auto& pages = oi.page_locations;
  for (size_t p = 0; p < pages.size(); ++p) {
    const int64_t pf = rg_first + pages[p].first_row_index;
    const int64_t pe = rg_first + (p + 1 < pages.size() ? pages[p + 1].first_row_index : rg_rows);
    if (pf >= end || pe <= begin) continue;
    if (p < frames.size() && frames[p].framed) {
      for (const Location& f : frames[p].frames) {
        if (f.first_row < end && f.first_row + f.num_rows > begin) out->push_back(f);
      }
      continue;
    }
    Location l;
    l.column = cover_index;
    l.kind = static_cast<int32_t>(LocationKind::kDataPage);
    l.codec = codec;
    l.offset = pages[p].offset;
    l.size = pages[p].compressed_page_size;
    l.first_row = pf;
    l.num_rows = pe - pf;
    out->push_back(std::move(l));
  }
  return Status::OK();
}

std::string SchemaFileBytes(const parquet::FileMetaData& md, const std::string& table_schema) {
  parquet::FileMetaData schema_only;
  schema_only.version = md.version;
  schema_only.schema = md.schema;
  schema_only.created_by = std::string(parquet::kRapCreatedBy);
  // The blob column's schema (rap/format/blob_column.h), so that covered lookups decode blobs
  // without the data file's footer.
  for (const parquet::KeyValue& kv : md.key_value_metadata) {
    if (kv.key == parquet::kBlobMetadataKey) schema_only.key_value_metadata.push_back(kv);
  }
  if (!table_schema.empty()) schema_only.key_value_metadata.push_back({kTableSchemaKey, table_schema});
  std::string footer;
  parquet::EncodeFileMetaData(schema_only, &footer);
  std::string bytes = "PAR1" + footer;
  const uint32_t len = static_cast<uint32_t>(footer.size());
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>(len >> (8 * i)));
  bytes += "PAR1";
  return bytes;
}

namespace {

// The covering records of one covered column over the whole file, per row group: its dictionary
// page record (if any) and its page or frame records in row order, so that an entry's records are
// found by binary search instead of a walk over every page (ChunkLocations per entry was
// O(pages) per entry).
class CoverTable {
 public:
  // The column's records are appended to `table`; Add gives their ids (positions in it).
  static Result<CoverTable> Make(read::FileReader& reader, int cover_index, int leaf,
                                 const std::vector<std::vector<PageFrames>>& frames, std::vector<Location>* table) {
    CoverTable t;
    for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
      Group g;
      g.first = reader.row_group_first_row(rg);
      g.rows = reader.row_group_num_rows(rg);
      const auto& chunk = reader.metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(leaf)];
      RAP_ASSIGN_OR_RETURN(auto oi, reader.GetOffsetIndex(rg, leaf));
      if (!oi || oi->page_locations.empty()) {
        g.missing = Status::NotSupported(reader.path() + ": covered column chunk (row group " + std::to_string(rg) +
                                         ", column " + std::to_string(leaf) + ") has no OffsetIndex");
      } else {
        std::vector<Location> all;
        RAP_RETURN_NOT_OK(ChunkLocations(*chunk.meta_data, *oi, g.first, g.rows, frames[static_cast<size_t>(rg)],
                                         cover_index, g.first, g.first + g.rows, &all));
        size_t i = 0;
        if (!all.empty() && all[0].kind == static_cast<int32_t>(LocationKind::kDictionaryPage)) {
          g.dict = static_cast<uint32_t>(table->size());
          table->push_back(std::move(all[0]));
          i = 1;
        }
        g.first_id = static_cast<uint32_t>(table->size());
        for (; i < all.size(); ++i) {
          g.ranges.push_back({all[i].first_row, all[i].num_rows});
          table->push_back(std::move(all[i]));
        }
      }
      t.groups_.push_back(std::move(g));
    }
    return t;
  }
  // The ids of the records ChunkLocations gives for file rows [begin, end), appended to `out`.
  Status Add(int64_t begin, int64_t end, std::vector<uint32_t>* out) const {
    auto g = std::partition_point(groups_.begin(), groups_.end(),
                                  [&](const Group& x) { return x.first + x.rows <= begin; });
    for (; g != groups_.end() && g->first < end; ++g) {
      if (!g->missing.ok()) return g->missing;
      if (g->dict) out->push_back(*g->dict);
      auto r = std::partition_point(g->ranges.begin(), g->ranges.end(),
                                    [&](const RowSpan& l) { return l.first + l.rows <= begin; });
      for (; r != g->ranges.end() && r->first < end; ++r) {
        if (r->first + r->rows > begin) out->push_back(g->first_id + static_cast<uint32_t>(r - g->ranges.begin()));
      }
    }
    return Status::OK();
  }

 private:
  struct RowSpan {
    int64_t first, rows;
  };
  struct Group {
    int64_t first = 0, rows = 0;
    Status missing;
    std::optional<uint32_t> dict;  // id of the dictionary page record
    uint32_t first_id = 0;          // id of ranges[0]'s record (a group's records are consecutive)
    std::vector<RowSpan> ranges;    // pages or frames, in row order
  };
  std::vector<Group> groups_;
};

// The key columns of one data file, decoded: values per key column and whether a row's key is
// non-NULL (every key part set).
struct FileKeys {
  std::vector<KeyValues> keys;
  std::vector<uint8_t> valid;
  size_t n = 0;  // rows
  // True where row `r` starts a new run of one key (or of NULL keys).
  bool Breaks(int64_t r) const {
    const size_t row = static_cast<size_t>(r);
    if (row == 0 || row >= n) return true;
    if (valid[row] != valid[row - 1]) return true;
    if (!valid[row]) return false;
    for (const KeyValues& kv : keys) {
      if (kv.Compare(row, row - 1) != 0) return true;
    }
    return false;
  }
};

// A projection lists its fields in file order; the indexer reads them by position in the order the
// columns were named (the key columns first, in key order). Reorders `proj`'s fields to `cols` by
// name (a nested path "a.b" by its top-level field "a"); leaves it as it is when the names do not
// identify one field each.
void RequestedOrder(const std::vector<std::string>& cols, read::Projection* proj) {
  std::vector<parquet::FieldNode> ordered;
  std::vector<bool> used(proj->fields.size(), false);
  for (const std::string& c : cols) {
    int found = -1;
    for (size_t j = 0; j < proj->fields.size() && found < 0; ++j) {
      if (!used[j] && proj->fields[j].field.name == c) found = static_cast<int>(j);
    }
    const std::string top = c.substr(0, c.find('.'));
    for (size_t j = 0; j < proj->fields.size() && found < 0; ++j) {
      if (!used[j] && proj->fields[j].field.name == top) found = static_cast<int>(j);
    }
    if (found < 0) return;
    used[static_cast<size_t>(found)] = true;
    ordered.push_back(proj->fields[static_cast<size_t>(found)]);
  }
  proj->fields = std::move(ordered);
  proj->schema = parquet::MakeArrowSchema(proj->fields);
}

// The file's key and hoisted columns projected, with the key types (out->key) and hoisted fields.
Result<read::Projection> ProjectKeys(read::FileReader& reader, const table::DataFile& file, const FileIndexSpec& spec,
                                     IndexedFile* out) {
  std::vector<std::string> cols = spec.key_columns;
  cols.insert(cols.end(), spec.hoist.begin(), spec.hoist.end());
  RAP_ASSIGN_OR_RETURN(read::Projection proj, reader.Project(cols));
  if (proj.schema->fields.size() != cols.size()) {
    return Status::InvalidArgument(file.path + ": a key or hoisted column is listed twice");
  }
  RequestedOrder(cols, &proj);
  for (size_t k = 0; k < spec.key_columns.size(); ++k) {
    const Field& f = proj.schema->fields[k];
    auto kt = KeyTypeOf(f.name, *f.type);
    if (!kt.ok()) return kt.status().WithContext(file.path);
    out->key.push_back({spec.key_columns[k], *kt});
  }
  for (size_t h = 0; h < spec.hoist.size(); ++h) out->hoisted.push_back(proj.schema->fields[spec.key_columns.size() + h]);
  return proj;
}

// The key values of every row of `batches` (the key columns first), checked against the footer's rows.
Result<FileKeys> DecodeKeys(const std::vector<RecordBatch>& batches, const std::vector<KeyColumn>& key, size_t n,
                            const std::string& path) {
  FileKeys fk;
  fk.n = n;
  fk.keys.resize(key.size());
  fk.valid.assign(n, 1);
  for (size_t k = 0; k < fk.keys.size(); ++k) {
    KeyValues& kv = fk.keys[k];
    kv.type = key[k].type;
    if (IsIntegerKey(kv.type)) kv.ints.resize(n); else kv.strs.resize(n);
    size_t row = 0;
    for (const RecordBatch& b : batches) {
      const ArrayData& a = *b.columns[k];
      for (int64_t r = 0; r < b.num_rows; ++r, ++row) {
        if (row >= n) return Status::Corrupt(path + ": more rows decoded than the footer's num_rows");
        if (a.IsNull(r)) {
          fk.valid[row] = 0;
          continue;
        }
        switch (kv.type) {
          case KeyType::kInt32: kv.ints[row] = a.values<int32_t>()[r]; break;
          case KeyType::kInt64: kv.ints[row] = a.values<int64_t>()[r]; break;
          default: {
            const int32_t* o = a.offsets();
            kv.strs[row] = std::string_view(reinterpret_cast<const char*>(a.buffers[2].data()) + o[r],
                                            static_cast<size_t>(o[r + 1] - o[r]));
          }
        }
      }
    }
    if (row != n) return Status::Corrupt(path + ": fewer rows decoded than the footer's num_rows");
  }
  return fk;
}

// The rows with a non-NULL key in key order (then row order).
// Sorts `order` (ascending row numbers) by `key_less`, rows of equal keys in row order. Radix sorts
// (Boost.Sort's spreadsort, `sort`) are not stable, so each group of equal keys is put back in row
// order afterwards (groups are short: a key's rows in one file).
template <typename SortFn, typename KeyEq>
void SortThenRowOrderTies(std::vector<uint32_t>& order, SortFn sort, KeyEq key_eq) {
  sort();
  for (size_t i = 0; i < order.size();) {
    size_t j = i + 1;
    while (j < order.size() && key_eq(order[i], order[j])) ++j;
    if (j - i > 1) std::sort(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(j));
    i = j;
  }
}

std::vector<uint32_t> KeyOrder(const FileKeys& fk) {
  std::vector<uint32_t> order;
  order.reserve(fk.n);
  for (size_t r = 0; r < fk.n; ++r) {
    if (fk.valid[r]) order.push_back(static_cast<uint32_t>(r));
  }
  auto less = [&](uint32_t a, uint32_t b) {
    for (const KeyValues& kv : fk.keys) {
      const int c = kv.Compare(a, b);
      if (c != 0) return c < 0;
    }
    return a < b;
  };
  // Already sorted files (the common layout for an indexed table) skip the sort.
  if (std::is_sorted(order.begin(), order.end(), less)) return order;
  // One key column (the common case): a radix sort (Boost.Sort spreadsort) of the rows by the key —
  // measured 2-3x faster than std::sort with comparisons on the index build's string keys (memcmp
  // dominated the build's profile) — then equal keys back in row order.
  if (fk.keys.size() == 1 && IsIntegerKey(fk.keys[0].type)) {
    const std::vector<int64_t>& ints = fk.keys[0].ints;
    // The signed key as an unsigned one of the same order (sign bit flipped).
    auto ukey = [&](uint32_t r) { return static_cast<uint64_t>(ints[r]) ^ (uint64_t{1} << 63); };
    SortThenRowOrderTies(
        order,
        [&] {
          boost::sort::spreadsort::integer_sort(
              order.begin(), order.end(), [&](uint32_t r, unsigned shift) { return ukey(r) >> shift; },
              [&](uint32_t a, uint32_t b) { return ukey(a) < ukey(b); });
        },
        [&](uint32_t a, uint32_t b) { return ints[a] == ints[b]; });
    return order;
  }
  if (fk.keys.size() == 1) {
    const std::vector<std::string_view>& strs = fk.keys[0].strs;
    SortThenRowOrderTies(
        order,
        [&] {
          boost::sort::spreadsort::string_sort(
              order.begin(), order.end(),
              [&](uint32_t r, size_t i) { return static_cast<unsigned char>(strs[r][i]); },
              [&](uint32_t r) { return strs[r].size(); },
              [&](uint32_t a, uint32_t b) { return strs[a] < strs[b]; });
        },
        [&](uint32_t a, uint32_t b) { return strs[a] == strs[b]; });
    return order;
  }
  std::sort(order.begin(), order.end(), less);
  return order;
}

// Hoisted values in `order`.
Result<std::vector<ArrayPtr>> HoistedInOrder(const std::vector<RecordBatch>& batches, const FileIndexSpec& spec,
                                             const std::vector<uint32_t>& order) {
  std::vector<ArrayPtr> hoisted;
  if (spec.hoist.empty()) return hoisted;
  std::vector<int64_t> idx(order.begin(), order.end());
  for (size_t h = 0; h < spec.hoist.size(); ++h) {
    std::vector<ArrayPtr> parts;
    for (const RecordBatch& b : batches) parts.push_back(b.columns[spec.key_columns.size() + h]);
    RAP_ASSIGN_OR_RETURN(ArrayPtr all, parts.size() == 1 ? Result<ArrayPtr>(parts[0]) : ConcatArrays(parts));
    RAP_ASSIGN_OR_RETURN(ArrayPtr taken, columnar::TakeArray(*all, idx));
    hoisted.push_back(std::move(taken));
  }
  return hoisted;
}

// Covered columns: flat leaves, with their OffsetIndexes loaded.
Result<std::vector<int>> CoverLeaves(read::FileReader& reader, const FileIndexSpec& spec, const std::string& path) {
  std::vector<int> cover_leaf;
  if (spec.cover.empty()) return cover_leaf;
  for (const std::string& c : spec.cover) {
    RAP_ASSIGN_OR_RETURN(read::Projection cp, reader.Project({c}));
    if (cp.columns.size() != 1 || cp.schema->fields[0].type->IsNested()) {
      return Status::NotSupported(path + ": covered column '" + c +
                                  "' is nested; --cover takes flat (non-nested) columns");
    }
    cover_leaf.push_back(cp.columns[0]);
  }
  std::vector<int> rgs(static_cast<size_t>(reader.num_row_groups()));
  std::iota(rgs.begin(), rgs.end(), 0);
  RAP_RETURN_NOT_OK(reader.LoadPageIndex(rgs, cover_leaf, true, false));
  return cover_leaf;
}

// Frame records where the covered chunks are framed per key (docs/layouts.md): candidates are
// ZSTD chunks without a dictionary page whose only value encoding is PLAIN. Per covered column and
// row group.
Result<std::vector<std::vector<std::vector<PageFrames>>>> CoverFrames(io::ObjectStore& store, read::FileReader& reader,
                                                                      const std::vector<int>& cover_leaf,
                                                                      const FileKeys& fk) {
  const auto key_break = [&](int64_t r) { return fk.Breaks(r); };
  std::vector<std::vector<std::vector<PageFrames>>> frames(cover_leaf.size());
  for (size_t c = 0; c < cover_leaf.size(); ++c) {
    frames[c].resize(static_cast<size_t>(reader.num_row_groups()));
    for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
      const auto& md = *reader.metadata().row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(cover_leaf[c])].meta_data;
      bool plain_only = md.codec == parquet::Codec::ZSTD && !(md.dictionary_page_offset && *md.dictionary_page_offset > 0);
      for (parquet::Encoding e : md.encodings) {
        plain_only = plain_only && (e == parquet::Encoding::PLAIN || e == parquet::Encoding::RLE);
      }
      if (!plain_only) continue;
      RAP_ASSIGN_OR_RETURN(frames[c][static_cast<size_t>(rg)],
                           FindChunkFrames(store, reader, rg, cover_leaf[c], static_cast<int32_t>(c), key_break));
    }
  }
  return frames;
}

// The manifest's record of a data file as it was read.
FileEntry EntryOf(const table::DataFile& file, int32_t ordinal, const io::ObjectInfo& info, int64_t num_rows) {
  FileEntry e;
  e.ordinal = ordinal;
  e.path = file.relative_path;
  e.size = info.size;
  e.etag = info.etag;
  e.num_rows = num_rows;
  e.deletion_vector = file.deletion_vector;
  return e;
}

// The file's entries: runs of one key over consecutive rows of `order`, with their covering records.
Status AddRuns(const FileKeys& fk, const std::vector<uint32_t>& order, const std::vector<CoverTable>& cover_tables,
               bool hoisted, IndexedFile* out_ptr) {
  IndexedFile& out = *out_ptr;
  // Runs of one key over consecutive rows.
  const std::vector<KeyValues>& keys = fk.keys;
  out.ints.resize(keys.size());
  out.strings.resize(keys.size());
  out.string_ends.resize(keys.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i + 1;
    while (j < order.size() && order[j] == order[j - 1] + 1) {
      bool same = true;
      for (const KeyValues& kv : keys) same = same && kv.Compare(order[j], order[i]) == 0;
      if (!same) break;
      ++j;
    }
    const int64_t first = order[i], n = static_cast<int64_t>(j - i);
    out.first_row.push_back(first);
    out.num_rows.push_back(n);
    for (size_t k = 0; k < keys.size(); ++k) {
      if (IsIntegerKey(keys[k].type)) {
        out.ints[k].push_back(keys[k].ints[order[i]]);
      } else {
        out.strings[k] += keys[k].strs[order[i]];
        out.string_ends[k].push_back(out.strings[k].size());
      }
    }
    if (!cover_tables.empty()) {
      for (const CoverTable& t : cover_tables) RAP_RETURN_NOT_OK(t.Add(first, first + n, &out.cover));
      out.cover_ends.push_back(static_cast<uint32_t>(out.cover.size()));
    }
    if (hoisted) out.hoist_offset.push_back(static_cast<int64_t>(i));
    i = j;
  }
  return Status::OK();
}

// An ORC file (rap/read/orc_file_reader.h): its key columns read stripe by stripe; no covering
// (covered locations are Parquet pages) and no hoisting. Lookups read a key's rows through the
// file's row index (src/index/lookup_orc.cc). Its schema file is a zero-row Parquet file of the ORC
// file's columns as rap reads them, so lookups type their output as for Parquet files.
Result<IndexedFile> IndexOrcFile(const io::ObjectStorePtr& store, const table::DataFile& file, int32_t ordinal,
                                 const FileIndexSpec& spec) {
  if (!spec.cover.empty()) {
    return Status::NotSupported(file.path + ": an ORC file: covered columns are built from Parquet page locations; "
                                            "index ORC files without --cover (lookups read a key's row group through "
                                            "the file's row index; --hoist keeps columns' values in the index)");
  }
  RAP_ASSIGN_OR_RETURN(auto reader, read::OrcFileReader::Open(store, file.path));
  IndexedFile out;
  out.file = EntryOf(file, ordinal, reader->info(), reader->num_rows());
  // The key columns, then the hoisted ones: ReadStripe returns them in this order.
  std::vector<int> fields;
  auto add_field = [&](const std::string& name, const char* what) -> Result<const Field*> {
    const int f = reader->FieldIndex(name);
    if (f < 0) return Status::NotFound(file.path + ": no " + what + " column '" + name + "'");
    if (std::find(fields.begin(), fields.end(), f) != fields.end()) {
      return Status::InvalidArgument(file.path + ": a key or hoisted column is listed twice ('" + name + "')");
    }
    fields.push_back(f);
    return &reader->arrow_schema()->fields[static_cast<size_t>(f)];
  };
  for (const std::string& k : spec.key_columns) {
    RAP_ASSIGN_OR_RETURN(const Field* field, add_field(k, "key"));
    auto kt = KeyTypeOf(field->name, *field->type);
    if (!kt.ok()) return kt.status().WithContext(file.path);
    out.key.push_back({k, *kt});
  }
  for (const std::string& h : spec.hoist) {
    RAP_ASSIGN_OR_RETURN(const Field* field, add_field(h, "hoisted"));
    out.hoisted.push_back(*field);
  }
  std::vector<RecordBatch> batches;
  for (size_t s = 0; s < reader->num_stripes(); ++s) {
    RAP_ASSIGN_OR_RETURN(RecordBatch b, reader->ReadStripe(s, fields));
    batches.push_back(std::move(b));
  }
  RAP_ASSIGN_OR_RETURN(const FileKeys fk,
                       DecodeKeys(batches, out.key, static_cast<size_t>(reader->num_rows()), file.path));
  const std::vector<uint32_t> order = KeyOrder(fk);
  out.key_rows = static_cast<int64_t>(order.size());
  RAP_ASSIGN_OR_RETURN(std::vector<ArrayPtr> hoisted, HoistedInOrder(batches, spec, order));
  parquet::WriterOptions wo;
  if (!spec.table_schema.empty()) wo.key_value_metadata.push_back({kTableSchemaKey, spec.table_schema});
  parquet::MemorySink sink;
  RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(reader->arrow_schema(), &sink, wo));
  RAP_RETURN_NOT_OK(writer->Close());
  out.schema_file = sink.data();
  RAP_RETURN_NOT_OK(AddRuns(fk, order, {}, !hoisted.empty(), &out));
  out.hoisted_values = std::move(hoisted);
  return out;
}

}  // namespace

Result<IndexedFile> IndexDataFile(const io::ObjectStorePtr& store, const table::DataFile& file, int32_t ordinal,
                                  const FileIndexSpec& spec) {
  if (read::IsOrcPath(file.path)) return IndexOrcFile(store, file, ordinal, spec);
  read::FileReaderOptions ro;
  ro.batch_size = 1 << 20;
  RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(store, file.path, ro));
  IndexedFile out;
  out.file = EntryOf(file, ordinal, reader->info(), reader->num_rows());
  RAP_ASSIGN_OR_RETURN(read::Projection proj, ProjectKeys(*reader, file, spec, &out));
  RAP_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, reader->ReadAll(std::nullopt, proj));
  RAP_ASSIGN_OR_RETURN(const FileKeys fk,
                       DecodeKeys(batches, out.key, static_cast<size_t>(reader->num_rows()), file.path));
  const std::vector<uint32_t> order = KeyOrder(fk);
  out.key_rows = static_cast<int64_t>(order.size());
  RAP_ASSIGN_OR_RETURN(const std::vector<ArrayPtr> hoisted, HoistedInOrder(batches, spec, order));
  RAP_ASSIGN_OR_RETURN(const std::vector<int> cover_leaf, CoverLeaves(*reader, spec, file.path));
  RAP_ASSIGN_OR_RETURN(const auto frames, CoverFrames(*store, *reader, cover_leaf, fk));
  // The file's schema as a zero-row Parquet file: output types and covered decoding without the
  // data file's footer.
  out.schema_file = SchemaFileBytes(reader->metadata(), spec.table_schema);
  std::vector<CoverTable> cover_tables;
  for (size_t c = 0; c < cover_leaf.size(); ++c) {
    RAP_ASSIGN_OR_RETURN(CoverTable t,
                         CoverTable::Make(*reader, static_cast<int>(c), cover_leaf[c], frames[c], &out.locations));
    cover_tables.push_back(std::move(t));
  }
  RAP_RETURN_NOT_OK(AddRuns(fk, order, cover_tables, !hoisted.empty(), &out));
  out.hoisted_values = hoisted;
  return out;
}

void IndexedFile::EntryAt(size_t i, IndexEntry* e) const {
  e->file = file.ordinal;
  e->first_row = first_row[i];
  e->num_rows = num_rows[i];
  e->key.parts.resize(key.size());
  for (size_t k = 0; k < key.size(); ++k) {
    if (IsIntegerKey(key[k].type)) {
      e->key.parts[k].i = ints[k][i];
    } else {
      const uint64_t b = i == 0 ? 0 : string_ends[k][i - 1];
      e->key.parts[k].s.assign(strings[k], b, string_ends[k][i] - b);
    }
  }
  e->cover.clear();
  if (!cover_ends.empty()) {
    const uint32_t b = i == 0 ? 0 : cover_ends[i - 1];
    for (uint32_t j = b; j < cover_ends[i]; ++j) e->cover.push_back(locations[cover[j]]);
  }
  e->hoisted.clear();
  for (const ArrayPtr& h : hoisted_values) e->hoisted.push_back(SliceArray(h, hoist_offset[i], num_rows[i]));
}

}  // namespace rap::index::internal
