// Fragment files: entries -> a sorted Parquet file with a page index; decoded pages -> entries.
#include "rap/index/fragment.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "rap/format/writer.h"
#include "rap/read/object_store_sink.h"

namespace rap::index {

std::string KeyColumnName(size_t i) { return "key" + std::to_string(i); }

namespace {

DataTypePtr CoverStructType() {
  return MakeStruct({{"column", MakeType(TypeId::kInt32), false},
                     {"kind", MakeType(TypeId::kInt32), false},
                     {"codec", MakeType(TypeId::kInt32), false},
                     {"offset", MakeType(TypeId::kInt64), false},
                     {"size", MakeType(TypeId::kInt64), false},
                     {"first_row", MakeType(TypeId::kInt64), false},
                     {"num_rows", MakeType(TypeId::kInt64), false},
                     {"aux", MakeType(TypeId::kBinary), true}});
}

template <typename T>
ArrayPtr FixedArray(TypeId id, const std::vector<T>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(id);
  a->length = static_cast<int64_t>(v.size());
  a->buffers = {Buffer(), Buffer::Copy(v.data(), v.size() * sizeof(T))};
  return a;
}

// Binary values, NULL where `null[i]` (aux: NULL when empty).
ArrayPtr NullableBinary(const std::vector<const std::string*>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kBinary);
  a->length = static_cast<int64_t>(v.size());
  Buffer validity = Buffer::Allocate((v.size() + 7) / 8);
  std::memset(validity.mutable_data(), 0, validity.size());
  std::vector<int32_t> offsets{0};
  std::string data;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i]->empty()) {
      validity.mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      data += *v[i];
    } else {
      ++a->null_count;
    }
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  a->buffers = {a->null_count ? validity : Buffer(), Buffer::Copy(offsets.data(), offsets.size() * 4),
                Buffer::Copy(data)};
  return a;
}

ArrayPtr ListOf(const Field& item, const std::vector<int32_t>& offsets, ArrayPtr child) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeList(item);
  a->length = static_cast<int64_t>(offsets.size()) - 1;
  a->buffers = {Buffer(), Buffer::Copy(offsets.data(), offsets.size() * 4)};
  a->children = {std::move(child)};
  return a;
}

}  // namespace

SchemaPtr FragmentSchema(const std::vector<KeyColumn>& key, bool cover, const std::vector<Field>& hoisted) {
  auto s = std::make_shared<Schema>();
  for (size_t i = 0; i < key.size(); ++i) s->fields.push_back({KeyColumnName(i), ArrowTypeOf(key[i].type), false});
  s->fields.push_back({kFileColumn, MakeType(TypeId::kInt32), false});
  s->fields.push_back({kFirstRowColumn, MakeType(TypeId::kInt64), false});
  s->fields.push_back({kNumRowsColumn, MakeType(TypeId::kInt64), false});
  if (cover) s->fields.push_back({kCoverColumn, MakeList({"element", CoverStructType(), false}), false});
  for (const Field& h : hoisted) {
    s->fields.push_back({kHoistPrefix + h.name, MakeList({"element", h.type, true}), false});
  }
  return s;
}

namespace {

// Applies the permutation `perm` (the new order by old position) to `entries`, moving each entry once.
void Permute(std::vector<IndexEntry>* entries, const std::vector<uint32_t>& perm) {
  std::vector<IndexEntry> out;
  out.reserve(entries->size());
  for (uint32_t i : perm) out.push_back(std::move((*entries)[i]));
  *entries = std::move(out);
}

}  // namespace

void SortEntries(const std::vector<KeyColumn>& key, std::vector<IndexEntry>* entries) {
  const size_t n = entries->size();
  if (n < 2) return;
  // Sorting compact records instead of the entries: one 24-byte record per entry for an integer key
  // (no key-type branches, no entry moves until the one permutation), string views otherwise.
  if (key.size() == 1 && IsIntegerKey(key[0].type) && n <= UINT32_MAX) {
    struct Rec {
      int64_t k;
      int64_t first_row;
      int32_t file;
      uint32_t idx;
    };
    std::vector<Rec> recs(n);
    bool sorted = true;
    for (size_t i = 0; i < n; ++i) {
      const IndexEntry& e = (*entries)[i];
      recs[i] = {e.key.parts[0].i, e.first_row, e.file, static_cast<uint32_t>(i)};
      if (i > 0 && sorted) {
        const Rec& a = recs[i - 1];
        const Rec& b = recs[i];
        sorted = a.k < b.k || (a.k == b.k && (a.file < b.file || (a.file == b.file && a.first_row <= b.first_row)));
      }
    }
    if (sorted) return;
    std::sort(recs.begin(), recs.end(), [](const Rec& a, const Rec& b) {
      if (a.k != b.k) return a.k < b.k;
      if (a.file != b.file) return a.file < b.file;
      return a.first_row < b.first_row;
    });
    std::vector<uint32_t> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = recs[i].idx;
    Permute(entries, perm);
    return;
  }
  if (n > UINT32_MAX) {
    std::sort(entries->begin(), entries->end(), [&](const IndexEntry& a, const IndexEntry& b) {
      const int c = CompareKeys(key, a.key, b.key);
      if (c != 0) return c < 0;
      if (a.file != b.file) return a.file < b.file;
      return a.first_row < b.first_row;
    });
    return;
  }
  std::vector<uint32_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<uint32_t>(i);
  const std::vector<IndexEntry>& es = *entries;
  std::sort(perm.begin(), perm.end(), [&](uint32_t ia, uint32_t ib) {
    const IndexEntry& a = es[ia];
    const IndexEntry& b = es[ib];
    const int c = CompareKeys(key, a.key, b.key);
    if (c != 0) return c < 0;
    if (a.file != b.file) return a.file < b.file;
    return a.first_row < b.first_row;
  });
  Permute(entries, perm);
}

Result<FragmentEntry> WriteFragment(io::ObjectStore& store, const std::string& index_dir,
                                    const std::string& relative_path, const std::vector<KeyColumn>& key, bool cover,
                                    const std::vector<Field>& hoisted, int32_t bucket, int64_t run,
                                    const std::vector<IndexEntry>& entries, const FragmentWriteOptions& options) {
  return WriteFragmentBatches(store, index_dir, relative_path, key, cover, hoisted, bucket, run, entries.size(),
                              [&](size_t begin, size_t, std::vector<IndexEntry>*) { return entries.data() + begin; },
                              options);
}

int64_t FragmentPageRows(double cover_records, double hoisted_values) {
  // key, file, first_row and num_rows; 8 fields per covering record; a hoisted value each.
  const double leaves = 4.0 + 8.0 * std::max(0.0, cover_records) + std::max(0.0, hoisted_values);
  int64_t rows = 256;
  while (rows > 32 && static_cast<double>(rows) * leaves > static_cast<double>(kFragmentPageLeafValues)) rows /= 2;
  return rows;
}

namespace {

// FragmentWriteOptions::page_rows, or (0) the rows for the first batch's average entry.
int64_t PageRowsFor(const FragmentWriteOptions& options, const IndexEntry* batch, size_t n) {
  if (options.page_rows > 0) return options.page_rows;
  double records = 0, hoisted = 0;
  for (size_t i = 0; i < n; ++i) {
    records += static_cast<double>(batch[i].cover.size());
    for (const ArrayPtr& h : batch[i].hoisted) hoisted += h ? static_cast<double>(h->length) : 0.0;
  }
  const double d = n > 0 ? static_cast<double>(n) : 1.0;
  return FragmentPageRows(records / d, hoisted / d);
}

}  // namespace

Result<FragmentEntry> WriteFragmentBatches(io::ObjectStore& store, const std::string& index_dir,
                                           const std::string& relative_path, const std::vector<KeyColumn>& key,
                                           bool cover, const std::vector<Field>& hoisted, int32_t bucket, int64_t run,
                                           size_t num_entries, const EntryBatchSource& source,
                                           const FragmentWriteOptions& options) {
  SchemaPtr schema = FragmentSchema(key, cover, hoisted);
  parquet::WriterOptions wo;
  wo.row_group_max_rows = options.row_group_rows;
  wo.row_group_max_bytes = 0;
  wo.defaults.dictionary = false;
  const size_t kBatch = 64 * 1024;
  std::vector<IndexEntry> scratch;
  // The page size from the entries' width: the first entries' average (the source may be asked again).
  const size_t sample = options.page_rows > 0 ? 0 : std::min<size_t>(num_entries, 4096);
  wo.defaults.page_max_rows = PageRowsFor(options, sample > 0 ? source(0, sample, &scratch) : nullptr, sample);
  wo.defaults.page_max_bytes = 1 << 20;
  wo.defaults.codec = parquet::Codec::ZSTD;
  wo.defaults.codec_level = 1;
  wo.key_value_metadata.push_back({"rap.index.format_version", std::to_string(kIndexFormatVersion)});
  const std::string path = io::JoinPath(index_dir, relative_path);
  auto sink = read::MakeObjectStoreSink(std::shared_ptr<io::ObjectStore>(&store, [](io::ObjectStore*) {}), path);
  RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(schema, sink.get(), wo));

  FragmentEntry fe;
  fe.path = relative_path;
  fe.bucket = bucket;
  fe.run = run;
  fe.entries = static_cast<int64_t>(num_entries);
  std::vector<int32_t> files;
  std::vector<bool> seen_files;
  Key first_key, last_key;
  for (size_t begin = 0; begin < num_entries; begin += kBatch) {
    const size_t end = std::min(num_entries, begin + kBatch);
    const IndexEntry* const batch = source(begin, end, &scratch);  // entries [begin, end)
    RecordBatch b;
    b.schema = schema;
    b.num_rows = static_cast<int64_t>(end - begin);
    for (size_t k = 0; k < key.size(); ++k) {
      std::vector<const KeyPart*> parts;
      for (size_t i = begin; i < end; ++i) parts.push_back(&batch[i - begin].key.parts[k]);
      b.columns.push_back(MakeKeyArray(key[k].type, parts));
    }
    std::vector<int32_t> file;
    std::vector<int64_t> first, num;
    for (size_t i = begin; i < end; ++i) {
      file.push_back(batch[i - begin].file);
      first.push_back(batch[i - begin].first_row);
      num.push_back(batch[i - begin].num_rows);
      fe.rows += batch[i - begin].num_rows;
      const int32_t f = batch[i - begin].file;  // each file ordinal once (not one per entry)
      if (f >= 0) {
        if (static_cast<size_t>(f) >= seen_files.size()) seen_files.resize(static_cast<size_t>(f) + 1, false);
        if (!seen_files[static_cast<size_t>(f)]) files.push_back(f);
        seen_files[static_cast<size_t>(f)] = true;
      } else {
        files.push_back(f);
      }
    }
    b.columns.push_back(FixedArray<int32_t>(TypeId::kInt32, file));
    b.columns.push_back(FixedArray<int64_t>(TypeId::kInt64, first));
    b.columns.push_back(FixedArray<int64_t>(TypeId::kInt64, num));
    if (cover) {
      std::vector<int32_t> offsets{0}, col, kind, codec;
      std::vector<int64_t> off, size, frow, nrows;
      std::vector<const std::string*> aux;
      size_t records = 0;
      for (size_t i = begin; i < end; ++i) records += batch[i - begin].cover.size();
      offsets.reserve(end - begin + 1);
      for (auto* v : {&col, &kind, &codec}) v->reserve(records);
      for (auto* v : {&off, &size, &frow, &nrows}) v->reserve(records);
      aux.reserve(records);
      for (size_t i = begin; i < end; ++i) {
        for (const Location& l : batch[i - begin].cover) {
          col.push_back(l.column);
          kind.push_back(l.kind);
          codec.push_back(l.codec);
          off.push_back(l.offset);
          size.push_back(l.size);
          frow.push_back(l.first_row);
          nrows.push_back(l.num_rows);
          aux.push_back(&l.aux);
        }
        offsets.push_back(static_cast<int32_t>(col.size()));
      }
      auto st = std::make_shared<ArrayData>();
      st->type = CoverStructType();
      st->length = static_cast<int64_t>(col.size());
      st->buffers = {Buffer()};
      st->children = {FixedArray<int32_t>(TypeId::kInt32, col),   FixedArray<int32_t>(TypeId::kInt32, kind),
                      FixedArray<int32_t>(TypeId::kInt32, codec), FixedArray<int64_t>(TypeId::kInt64, off),
                      FixedArray<int64_t>(TypeId::kInt64, size),  FixedArray<int64_t>(TypeId::kInt64, frow),
                      FixedArray<int64_t>(TypeId::kInt64, nrows), NullableBinary(aux)};
      b.columns.push_back(ListOf({"element", CoverStructType(), false}, offsets, st));
    }
    for (size_t h = 0; h < hoisted.size(); ++h) {
      std::vector<int32_t> offsets{0};
      std::vector<ArrayPtr> parts;
      int64_t total = 0;
      for (size_t i = begin; i < end; ++i) {
        if (h >= batch[i - begin].hoisted.size() || batch[i - begin].hoisted[h]->length != batch[i - begin].num_rows) {
          return Status::Internal("index entry without " + std::to_string(batch[i - begin].num_rows) + " values of hoisted column " +
                                  hoisted[h].name);
        }
        parts.push_back(batch[i - begin].hoisted[h]);
        total += batch[i - begin].num_rows;
        offsets.push_back(static_cast<int32_t>(total));
      }
      RAP_ASSIGN_OR_RETURN(ArrayPtr child, ConcatArrays(parts));
      b.columns.push_back(ListOf({"element", hoisted[h].type, true}, offsets, child));
    }
    if (begin == 0) first_key = batch[0].key;
    last_key = batch[end - 1 - begin].key;
    RAP_RETURN_NOT_OK(writer->Write(b));
  }
  RAP_RETURN_NOT_OK(writer->Close());
  fe.size = writer->summary().file_bytes;
  // Format 2: where the page indexes begin (they precede the footer), so that a reader loads them
  // with the footer in one read; 0 (unknown) without a page index.
  uint64_t meta_begin = fe.size;
  for (const auto& rg : writer->metadata().row_groups) {
    for (const auto& cc : rg.columns) {
      for (const auto& off : {cc.column_index_offset, cc.offset_index_offset}) {
        if (off && *off >= 0) meta_begin = std::min(meta_begin, static_cast<uint64_t>(*off));
      }
    }
  }
  fe.meta_bytes = fe.size - meta_begin;
  if (num_entries > 0) {
    fe.min_key = first_key;
    fe.max_key = last_key;
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (int32_t f : files) {
    if (!fe.files.empty() && fe.files.back().end == f) {
      fe.files.back().end = f + 1;
    } else {
      fe.files.push_back({f, f + 1});
    }
  }
  return fe;
}

Result<FragmentLayout> FragmentLayout::Of(const Schema& schema, const Manifest& m, const std::string& what) {
  FragmentLayout l;
  auto need = [&](const std::string& name, TypeId id) -> Result<int> {
    const int i = schema.FieldIndex(name);
    if (i < 0) return Status::Corrupt("index fragment " + what + ": no column '" + name + "'");
    const DataType& t = *schema.fields[static_cast<size_t>(i)].type;
    if (t.id != id) {
      return Status::Corrupt("index fragment " + what + ": column '" + name + "' has type " + t.ToString() +
                             ", expected " + MakeType(id)->ToString());
    }
    return i;
  };
  for (size_t k = 0; k < m.key.size(); ++k) {
    RAP_ASSIGN_OR_RETURN(int i, need(KeyColumnName(k), ArrowTypeOf(m.key[k].type)->id));
    l.key.push_back(i);
  }
  RAP_ASSIGN_OR_RETURN(l.file, need(kFileColumn, TypeId::kInt32));
  RAP_ASSIGN_OR_RETURN(l.first_row, need(kFirstRowColumn, TypeId::kInt64));
  RAP_ASSIGN_OR_RETURN(l.num_rows, need(kNumRowsColumn, TypeId::kInt64));
  if (!m.cover.empty()) {
    RAP_ASSIGN_OR_RETURN(l.cover, need(kCoverColumn, TypeId::kList));
    const DataType& item = *schema.fields[static_cast<size_t>(l.cover)].type->children[0].type;
    const DataTypePtr want_type = CoverStructType();
    const DataType& want = *want_type;
    bool ok = item.id == TypeId::kStruct && item.children.size() == want.children.size();
    for (size_t i = 0; ok && i < want.children.size(); ++i) {
      ok = item.children[i].name == want.children[i].name && item.children[i].type->id == want.children[i].type->id;
    }
    if (!ok) return Status::Corrupt("index fragment " + what + ": column 'cover' is " + item.ToString() +
                                    ", expected list<" + want.ToString() + ">");
  }
  for (const std::string& h : m.hoist) {
    RAP_ASSIGN_OR_RETURN(int i, need(kHoistPrefix + h, TypeId::kList));
    l.hoist.push_back(i);
  }
  return l;
}

Status EntryAt(const RecordBatch& batch, const FragmentLayout& layout, const std::vector<KeyColumn>& key, int64_t row,
               bool with_payload, IndexEntry* e, const std::string& what) {
  e->key.parts.resize(key.size());
  for (size_t k = 0; k < key.size(); ++k) {
    if (!KeyPartAt(key[k].type, *batch.columns[static_cast<size_t>(layout.key[k])], row, &e->key.parts[k])) {
      return Status::Corrupt("index fragment " + what + ": NULL key at index row " + std::to_string(row));
    }
  }
  e->file = batch.columns[static_cast<size_t>(layout.file)]->values<int32_t>()[row];
  e->first_row = batch.columns[static_cast<size_t>(layout.first_row)]->values<int64_t>()[row];
  e->num_rows = batch.columns[static_cast<size_t>(layout.num_rows)]->values<int64_t>()[row];
  if (e->first_row < 0 || e->num_rows <= 0) {
    return Status::Corrupt("index fragment " + what + ": index row " + std::to_string(row) + " has first_row " +
                           std::to_string(e->first_row) + " and num_rows " + std::to_string(e->num_rows) +
                           " (expected >= 0 and > 0)");
  }
  e->cover.clear();
  e->hoisted.clear();
  if (!with_payload) return Status::OK();
  if (layout.cover >= 0) {
    const ArrayData& list = *batch.columns[static_cast<size_t>(layout.cover)];
    const ArrayData& st = *list.children[0];
    const int32_t* lo = list.offsets();
    for (int32_t j = lo[row]; j < lo[row + 1]; ++j) {
      const int64_t r = st.offset + j;
      Location l;
      l.column = st.children[0]->values<int32_t>()[r];
      l.kind = st.children[1]->values<int32_t>()[r];
      l.codec = st.children[2]->values<int32_t>()[r];
      l.offset = st.children[3]->values<int64_t>()[r];
      l.size = st.children[4]->values<int64_t>()[r];
      l.first_row = st.children[5]->values<int64_t>()[r];
      l.num_rows = st.children[6]->values<int64_t>()[r];
      KeyPart aux;
      if (KeyPartAt(KeyType::kBinary, *st.children[7], r, &aux)) l.aux = std::move(aux.s);
      e->cover.push_back(std::move(l));
    }
  }
  for (int h : layout.hoist) {
    const ArrayPtr& list = batch.columns[static_cast<size_t>(h)];
    const int32_t* lo = list->offsets();
    if (lo[row + 1] - lo[row] != e->num_rows) {
      return Status::Corrupt("index fragment " + what + ": index row " + std::to_string(row) + " has " +
                             std::to_string(lo[row + 1] - lo[row]) + " hoisted values, expected num_rows " +
                             std::to_string(e->num_rows));
    }
    e->hoisted.push_back(SliceArray(list->children[0], lo[row], lo[row + 1] - lo[row]));
  }
  return Status::OK();
}

}  // namespace rap::index
