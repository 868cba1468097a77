// Iceberg deletes (the table spec's "Delete Formats"): position delete files (Parquet rows
// file_path, pos), equality delete files (rows whose equality_ids columns equal a delete row are
// dropped; null equals null) and v3 deletion vectors (Puffin `deletion-vector-v1` blobs: u32 BE
// length, magic D1 D3 39 64, a portable 64-bit Roaring bitmap, u32 BE CRC-32 of magic and bitmap —
// the bitmap format Delta uses, decoded by ParseRoaringBitmapArray).
#include <zlib.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "rap/columnar/array_format.h"
#include "rap/read/scanner.h"
#include "rap/table/deletion_vector.h"
#include "table/iceberg/iceberg_table.h"

namespace rap::table::iceberg {

namespace {

constexpr uint64_t kMaxDeletedRows = uint64_t{1} << 28;
constexpr uint64_t kRowMask = (uint64_t{1} << 40) - 1;  // ScanBatch::row_ids: the row within its file

// A data file path as position deletes are matched: without "scheme://authority", since writers name
// the same file as "hdfs://host:port/w/t/f.parquet" in one place and "/w/t/f.parquet" in another.
std::string PathKey(std::string_view path) {
  const size_t scheme = path.find("://");
  if (scheme == std::string_view::npos) return std::string(path);
  const size_t slash = path.find('/', scheme + 3);
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(slash));
}

uint32_t BE32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Calls f(batch) for every batch of the given columns of one Parquet file.
template <typename F>
Status ScanFileColumns(const io::ObjectStorePtr& store, const std::string& path, uint64_t size, SchemaPtr schema,
                       std::vector<read::FieldIdTree> ids, std::vector<std::string> columns, F&& f) {
  read::ScanSource src;
  src.store = store;
  src.schema = std::move(schema);
  src.field_ids = std::move(ids);
  read::ScanFile sf;
  sf.path = path;
  sf.size = size;
  src.files.push_back(std::move(sf));
  read::ScanOptions options;
  options.columns = std::move(columns);
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(options)));
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<read::ScanBatch> batch, scanner->Next());
    if (!batch) return Status::OK();
    RAP_RETURN_NOT_OK(f(*batch));
  }
}

Result<std::vector<uint64_t>> DeletionVector(const io::ObjectStorePtr& store, const DeleteRef& d) {
  const std::string what = d.path + ": deletion vector";
  if (!d.file.content_offset || !d.file.content_size) {
    return Status::Corrupt(what + ": the manifest entry has no content_offset/content_size_in_bytes");
  }
  const int64_t offset = *d.file.content_offset, size = *d.file.content_size;
  if (offset < 0 || size < 12 || size > (int64_t{1} << 31)) {
    return Status::Corrupt(what + " at byte offset " + std::to_string(offset) + ": size " + std::to_string(size) +
                           " out of range");
  }
  ByteRange range{static_cast<uint64_t>(offset), static_cast<uint64_t>(size)};
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bufs,
                       store->ReadRanges(d.path, std::span<const ByteRange>(&range, 1), io::ReadOptions{}, nullptr));
  if (bufs.size() != 1 || bufs[0].size() != range.length) return Status::Corrupt(what + ": short read");
  const uint8_t* p = bufs[0].data();
  const uint32_t length = BE32(p);
  const std::string at = what + " at byte offset " + std::to_string(offset);
  if (static_cast<int64_t>(length) != size - 8) {
    return Status::Corrupt(at + ": length " + std::to_string(length) + ", the blob holds " + std::to_string(size - 8));
  }
  if (p[4] != 0xD1 || p[5] != 0xD3 || p[6] != 0x39 || p[7] != 0x64) {
    return Status::Corrupt(at + ": no deletion-vector-v1 magic D1 D3 39 64");
  }
  const uint32_t crc = BE32(p + 4 + length);
  if (static_cast<uint32_t>(crc32(0L, p + 4, length)) != crc) return Status::Corrupt(at + ": CRC-32 mismatch");
  RAP_ASSIGN_OR_RETURN(std::vector<uint64_t> rows,
                       ParseRoaringBitmapArray(std::span<const uint8_t>(p + 4, length), at, kMaxDeletedRows));
  if (static_cast<int64_t>(rows.size()) != d.file.record_count) {
    return Status::Corrupt(at + ": holds " + std::to_string(rows.size()) + " positions, the manifest says " +
                           std::to_string(d.file.record_count));
  }
  return rows;
}

// Every position of a position delete file, by data file path (cached in the state).
Result<const std::map<std::string, std::vector<uint64_t>>*> PositionDeletes(const TableSnapshot& snapshot,
                                                                           const IcebergState& state,
                                                                           const DeleteRef& d) {
  {
    std::lock_guard<std::mutex> lock(state.mu);
    auto it = state.position_cache.find(d.path);
    if (it != state.position_cache.end()) return &it->second;
  }
  std::map<std::string, std::vector<uint64_t>> positions;
  uint64_t total = 0;
  RAP_RETURN_NOT_OK(ScanFileColumns(
      snapshot.store, d.path, static_cast<uint64_t>(d.file.file_size), nullptr, {}, {"file_path", "pos"},
      [&](const read::ScanBatch& b) -> Status {
        const ArrayData& paths = *b.batch.columns[0];
        const ArrayData& pos = *b.batch.columns[1];
        if (pos.type->id != TypeId::kInt64 || !paths.type->IsBinaryLike()) {
          return Status::Corrupt(d.path + ": position delete columns are not file_path string, pos long");
        }
        for (int64_t i = 0; i < b.batch.num_rows; ++i) {
          if (paths.IsNull(i) || pos.IsNull(i) || pos.values<int64_t>()[i] < 0) {
            return Status::Corrupt(d.path + ": position delete row " + std::to_string(i) + " is null or negative");
          }
          if (++total > kMaxDeletedRows) return Status::ResourceExhausted(d.path + ": too many position deletes");
          positions[PathKey(columnar::FormatValue(paths, i))].push_back(static_cast<uint64_t>(pos.values<int64_t>()[i]));
        }
        return Status::OK();
      }));
  std::lock_guard<std::mutex> lock(state.mu);
  auto [it, inserted] = state.position_cache.emplace(d.path, std::move(positions));
  return &it->second;
}

// The equality columns (top-level fields of the schema by id) as a schema and id trees.
Status EqualityColumns(const IcebergState& state, const DeleteRef& d, SchemaPtr* schema,
                       std::vector<read::FieldIdTree>* ids, std::vector<std::string>* names) {
  auto s = std::make_shared<columnar::Schema>();
  for (int32_t id : d.file.equality_ids) {
    bool found = false;
    for (size_t i = 0; i < state.schema.field_ids.size(); ++i) {
      if (state.schema.field_ids[i].id == id) {
        s->fields.push_back(state.schema.schema->fields[i]);
        ids->push_back(state.schema.field_ids[i]);
        names->push_back(state.schema.schema->fields[i].name);
        found = true;
      }
    }
    if (!found) {
      return Status::NotSupported(d.path + ": equality field id " + std::to_string(id) +
                                  " is not a top-level column of the schema");
    }
  }
  *schema = s;
  return Status::OK();
}

std::string RowKey(const RecordBatch& b, int64_t i) {
  std::string key;
  for (const ArrayPtr& c : b.columns) {
    key += c->IsNull(i) ? std::string("\x01N") : "\x02" + columnar::FormatValue(*c, i);
    key.push_back('\0');
  }
  return key;
}

Status EqualityDeletes(const TableSnapshot& snapshot, const IcebergState& state, const DataFile& file,
                       const DeleteRef& d, std::vector<uint64_t>* out) {
  SchemaPtr schema;
  std::vector<read::FieldIdTree> ids;
  std::vector<std::string> names;
  RAP_RETURN_NOT_OK(EqualityColumns(state, d, &schema, &ids, &names));
  std::unordered_set<std::string> keys;
  RAP_RETURN_NOT_OK(ScanFileColumns(snapshot.store, d.path, static_cast<uint64_t>(d.file.file_size), schema, ids,
                                    names, [&](const read::ScanBatch& b) -> Status {
                                      for (int64_t i = 0; i < b.batch.num_rows; ++i) keys.insert(RowKey(b.batch, i));
                                      if (keys.size() > kMaxDeletedRows) {
                                        return Status::ResourceExhausted(d.path + ": too many equality deletes");
                                      }
                                      return Status::OK();
                                    }));
  if (keys.empty()) return Status::OK();
  return ScanFileColumns(snapshot.store, file.path, file.size, schema, ids, names,
                         [&](const read::ScanBatch& b) -> Status {
                           for (int64_t i = 0; i < b.batch.num_rows; ++i) {
                             if (keys.count(RowKey(b.batch, i))) out->push_back(b.row_ids[i] & kRowMask);
                           }
                           return Status::OK();
                         });
}

}  // namespace

Result<std::vector<uint64_t>> IcebergDeletedRows(const TableSnapshot& snapshot, const IcebergState& state,
                                                 const DataFile& file) {
  std::vector<uint64_t> out;
  auto refs = state.deletes.find(file.path);
  if (refs == state.deletes.end()) return out;
  auto original = state.original_paths.find(file.path);
  const std::string& data_path = original == state.original_paths.end() ? file.path : original->second;
  for (const DeleteRef& d : refs->second) {
    if (d.file.content == 1 && d.file.file_format == "PUFFIN") {
      RAP_ASSIGN_OR_RETURN(std::vector<uint64_t> rows, DeletionVector(snapshot.store, d));
      out.insert(out.end(), rows.begin(), rows.end());
    } else if (d.file.content == 1 && d.file.file_format == "PARQUET") {
      RAP_ASSIGN_OR_RETURN(auto positions, PositionDeletes(snapshot, state, d));
      auto it = positions->find(PathKey(data_path));
      if (it != positions->end()) out.insert(out.end(), it->second.begin(), it->second.end());
    } else if (d.file.content == 2 && d.file.file_format == "PARQUET") {
      RAP_RETURN_NOT_OK(EqualityDeletes(snapshot, state, file, d, &out));
    } else {
      return Status::NotSupported(d.path + ": Iceberg delete files in " + d.file.file_format +
                                  " are not read by rap yet");
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (file.num_records && !out.empty() && out.back() >= static_cast<uint64_t>(*file.num_records)) {
    // Positions past the file's rows delete nothing; drop them (a writer may list rows of another copy).
    out.erase(std::lower_bound(out.begin(), out.end(), static_cast<uint64_t>(*file.num_records)), out.end());
  }
  return out;
}

}  // namespace rap::table::iceberg
