// Append compaction of a Paimon table (rap/table/paimon_compact.h): plan the bins of each bucket,
// rewrite each through a Scanner (prefetch queue of three batches, RAW warmup), and commit a
// COMPACT snapshot: a delta manifest per partition (DELETE entries of the inputs, ADD entries of the
// outputs) and a base manifest list of every manifest the compacted snapshot had.
#include "rap/table/paimon_compact.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "rap/avro/container_writer.h"
#include "rap/avro/object_container.h"
#include "rap/format/writer.h"
#include "rap/io/crash_point.h"
#include "rap/read/object_store_sink.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/clock.h"
#include "rap/util/units.h"
#include "rap/util/uuid.h"
#include "table/paimon/paimon_table.h"
#include "table/path_util.h"

namespace rap::table {
namespace {

using paimon::BucketFile;
using paimon::PaimonState;
constexpr uint64_t kMaxManifestBytes = uint64_t{256} << 20;
// A BinaryRow of no fields (4-byte arity 0, then one 8-byte word of header and null bits): the
// empty key and the empty statistics of append files, as Paimon and pypaimon write them.
const std::string kEmptyRow(12, '\0');

// Whether field `i` of a serialized BinaryRow (4-byte big-endian arity, then the row: null bits
// after the 8 header bits, least significant bit first) is null.
bool BinaryRowFieldIsNull(const std::string& row, size_t i) {
  const size_t bit = i + 8;
  const size_t at = 4 + bit / 8;
  return at < row.size() && (static_cast<uint8_t>(row[at]) >> (bit % 8)) & 1;
}

avro::Value EmptyStats() {
  return avro::Value::Record({{"_MIN_VALUES", avro::Value::Bytes(kEmptyRow)},
                              {"_MAX_VALUES", avro::Value::Bytes(kEmptyRow)},
                              {"_NULL_COUNTS", avro::Value::Array({})}});
}

struct Container {
  std::string schema_json;
  std::vector<avro::Value> records;
};

Result<Container> ReadAvro(const TableSnapshot& snap, const std::string& name) {
  const std::string path = snap.root + "/manifest/" + name;
  RAP_ASSIGN_OR_RETURN(std::string bytes, paimon::ReadObject(snap.store, path, kMaxManifestBytes));
  RAP_ASSIGN_OR_RETURN(
      avro::ContainerFile file,
      avro::ReadContainerFile({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, path));
  return Container{std::move(file.schema_json), std::move(file.records)};
}

// One output file: consecutive small files of a bucket (in sequence-number order).
struct Bin {
  const paimon::Bucket* bucket = nullptr;
  std::vector<const BucketFile*> inputs;
  std::string dir;   // the bucket's folder (in the store)
  std::string name;  // the new file's name
  int64_t size = 0, rows = 0;
};

// The snapshot's deletion vectors (its index manifest): the manifest as read (to write the next one
// without the index files compaction makes obsolete), its entries parsed in the same order, and the
// deleted-row count of each data file with a live vector (nullopt: the entry gives no cardinality).
struct DvIndex {
  Container manifest;
  std::vector<paimon::IndexManifestEntry> entries;
  std::map<std::string, std::optional<int64_t>> deleted;  // data file name -> rows its vector deletes
  bool Has(const std::string& data_file) const { return deleted.count(data_file) > 0; }
};

// The deletion-vector index of the snapshot; refuses other index types (HASH: dynamic bucket mode)
// and index files at external paths.
Result<DvIndex> ReadDvIndex(const TableSnapshot& snap, const PaimonState& state, const std::string& url) {
  DvIndex dv;
  const std::string& name = state.snapshot.index_manifest;
  if (name.empty()) return dv;
  RAP_ASSIGN_OR_RETURN(dv.manifest, ReadAvro(snap, name));
  RAP_ASSIGN_OR_RETURN(dv.entries, paimon::ParseIndexManifest(dv.manifest.records, snap.root + "/manifest/" + name));
  for (const paimon::IndexManifestEntry& e : dv.entries) {
    if (e.index_type != "DELETION_VECTORS") {
      return Status::NotSupported(url + ": the snapshot has a " + e.index_type + " index (" + e.file_name +
                                  "); rap compact handles deletion-vector indexes only");
    }
    if (e.external_path) {
      return Status::NotSupported(url + ": index file " + e.file_name + " has an external path; not compacted yet");
    }
  }
  for (const paimon::IndexManifestEntry* e : paimon::LiveIndexEntries(dv.entries)) {
    for (const paimon::DeletionVectorRange& r : e->deletion_vectors) dv.deleted[r.data_file] = r.cardinality;
  }
  return dv;
}

// The compactable table or why not.
Status CheckCompactable(const TableSnapshot& snap, const PaimonState& state, const std::string& url) {
  if (state.primary_key) {
    return Status::NotSupported(url + ": a primary-key table: rap compact compacts Paimon append tables (a "
                                      "primary-key table's compaction merges sorted runs; Paimon's own job does it)");
  }
  for (const char* opt : {"row-tracking.enabled", "data-evolution.enabled"}) {
    if (state.schema.Option(opt, "false") == "true") {
      return Status::NotSupported(url + ": " + opt + " is on (row ids must be carried over); not compacted yet");
    }
  }
  if (const std::string f = state.schema.Option("manifest.format", "avro"); f != "avro") {
    return Status::NotSupported(url + ": manifest.format is " + f + "; rap writes Avro manifests only");
  }
  for (const DataFile& f : snap.files) {
    if (!EndsWith(f.relative_path, ".parquet") && !EndsWith(f.relative_path, ".orc")) {
      return Status::NotSupported(url + ": " + f.relative_path + " is neither a Parquet nor an ORC file");
    }
  }
  return Status::OK();
}

// Bins of each bucket: its files under the target size, and every file with a deletion vector
// whatever its size (its deleted rows are dropped in the rewrite, and the bucket's vectors with
// them), packed in sequence-number order up to the target size. A bin of one file is kept only when
// that file has a vector.
std::vector<Bin> PlanBins(const PaimonState& state, uint64_t target, int min_files, const DvIndex& dv) {
  std::vector<Bin> bins;
  for (const paimon::Bucket& b : state.buckets) {
    std::vector<const BucketFile*> small;
    bool has_vectors = false;
    for (const BucketFile& f : b.files) {
      const bool vector = dv.Has(f.meta.file_name);
      has_vectors = has_vectors || vector;
      if (vector || static_cast<uint64_t>(f.meta.file_size) < target) small.push_back(&f);
    }
    if (!has_vectors && small.size() < static_cast<size_t>(std::max(min_files, 2))) continue;
    std::sort(small.begin(), small.end(), [](const BucketFile* x, const BucketFile* y) {
      return x->meta.min_sequence_number < y->meta.min_sequence_number;
    });
    Bin cur;
    bool cur_vectors = false;
    auto flush = [&] {
      if (cur.inputs.size() >= 2 || (cur_vectors && !cur.inputs.empty())) bins.push_back(std::move(cur));
      cur = Bin{};
      cur_vectors = false;
    };
    for (const BucketFile* f : small) {
      cur.bucket = &b;
      cur.inputs.push_back(f);
      cur.size += f->meta.file_size;
      cur_vectors = cur_vectors || dv.Has(f->meta.file_name);
      if (static_cast<uint64_t>(cur.size) >= target) flush();
    }
    flush();
  }
  for (Bin& bin : bins) {
    const std::string& p = bin.inputs.front()->path;
    bin.dir = p.substr(0, p.rfind('/'));
    bin.name = "data-" + RandomUuid() + "-0.parquet";
  }
  return bins;
}

// Reads a bin's files in order through a Scanner (a prefetch queue of three batches, RAW warmup of
// the next file: the seed's settings for compaction) and writes them as one Parquet file — also in a
// table of ORC files (file.format orc): rap has no ORC writer, and Paimon readers (pypaimon, Java
// Paimon 0.9) read each data file by its own format, the extension of its name
// (test_compact_orc_append_tables_read_by_pypaimon, test_compact_orc_append_table_read_by_java_paimon).
// `scan` is the table's scan without its files; `files` its files by path (each bin takes its own).
Status WriteBin(const TableSnapshot& snap, const read::ScanSource& scan, std::map<std::string, read::ScanFile>& files,
                Bin& bin, const DvIndex& dv, const PaimonCompactOptions& options, PaimonCompactResult* res,
                std::vector<std::string>* written) {
  read::ScanSource src = scan;
  for (const BucketFile* f : bin.inputs) {
    auto it = files.find(f->path);
    if (it == files.end()) return Status::Internal(f->path + ": a file of the bin is not in the scan");
    src.files.push_back(std::move(it->second));
    files.erase(it);
  }
  read::ScanOptions so;
  // The seed's queue of three batches is per prefetch queue; rap's queue_batches counts every
  // producer's queue together (docs/paimon.md "Append compaction").
  so.prefetch.queue_batches = 3 * std::max(1, so.prefetch.producers);
  so.warmup.level = read::WarmupLevel::kRaw;
  so.file_parallelism = 1;
  so.cancel = options.cancel;
  if (options.batch_rows > 0) so.batch_size = options.batch_rows;
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), so));
  const std::string path = bin.dir + "/" + bin.name;
  auto sink = read::MakeObjectStoreSink(snap.store, path);
  RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(scanner->schema(), sink.get()));
  written->push_back(path);
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    bin.rows += b->batch.num_rows;
    RAP_RETURN_NOT_OK(writer->Write(b->batch));
  }
  RAP_RETURN_NOT_OK(writer->Close());
  RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, snap.store->Head(path));
  // The manifests' row counts less the rows the deletion vectors delete (exact when every vector
  // gives its cardinality, else an upper bound).
  int64_t expected_rows = 0;
  bool exact = true;
  for (const BucketFile* f : bin.inputs) {
    expected_rows += f->meta.row_count;
    if (auto it = dv.deleted.find(f->meta.file_name); it != dv.deleted.end()) {
      if (it->second) {
        expected_rows -= *it->second;
      } else {
        exact = false;
      }
    }
  }
  if (exact ? bin.rows != expected_rows : bin.rows > expected_rows) {
    return Status::Corrupt(fmt::format("{}: read {} rows from {} files whose manifests and deletion vectors count {}",
                                       bin.dir, bin.rows, bin.inputs.size(), expected_rows));
  }
  const read::ScanStats& st = scanner->stats();
  res->warmup_files += st.warmup_files;
  res->warmup_bytes += st.warmup_bytes;
  res->files_parallel += st.prefetch.files_parallel;
  res->adaptive_disabled += st.prefetch.adaptive_disabled;
  res->files_read += static_cast<int64_t>(bin.inputs.size());
  for (const BucketFile* f : bin.inputs) res->bytes_read += static_cast<uint64_t>(f->meta.file_size);
  res->bytes_written += info.size;
  res->rows += bin.rows;
  bin.size = static_cast<int64_t>(info.size);
  return Status::OK();
}


std::string Str(const avro::Value* v) { return v ? v->bytes : std::string(); }

Status PutNew(const TableSnapshot& snap, const std::string& path, std::string bytes, std::vector<std::string>* written) {
  RAP_RETURN_NOT_OK(snap.store->PutIfAbsent(path, Buffer::FromString(std::move(bytes))));
  written->push_back(path);
  return Status::OK();
}

// The manifest entries of one partition's bins: a DELETE copy of each input's ADD entry, an ADD
// entry of each output (the first input's entry as the template: partition, bucket, total buckets).
Result<std::vector<avro::Value>> PartitionEntries(const std::vector<const Bin*>& bins,
                                                  const std::map<std::string, avro::Value>& adds, int64_t schema_id,
                                                  const std::string& what) {
  std::vector<avro::Value> out;
  const int64_t now = UnixMillis();
  for (const Bin* bin : bins) {
    int64_t min_seq = INT64_MAX, max_seq = INT64_MIN;
    for (const BucketFile* f : bin->inputs) {
      auto it = adds.find(f->meta.file_name);
      if (it == adds.end()) return Status::Corrupt(what + ": no ADD entry of " + f->meta.file_name);
      avro::Value del = it->second;
      del.Set("_KIND", avro::Value::Int(1));
      out.push_back(std::move(del));
      min_seq = std::min(min_seq, f->meta.min_sequence_number);
      max_seq = std::max(max_seq, f->meta.max_sequence_number);
    }
    avro::Value add = adds.at(bin->inputs.front()->meta.file_name);
    add.Set("_KIND", avro::Value::Int(0));
    const avro::Value* tmpl = add.Find("_FILE");
    if (!tmpl || tmpl->kind != avro::Kind::kRecord) return Status::Corrupt(what + ": an entry without _FILE");
    avro::Value file = *tmpl;
    file.Set("_FILE_NAME", avro::Value::String(bin->name));
    file.Set("_FILE_SIZE", avro::Value::Long(bin->size));
    file.Set("_ROW_COUNT", avro::Value::Long(bin->rows));
    file.Set("_MIN_KEY", avro::Value::Bytes(kEmptyRow));
    file.Set("_MAX_KEY", avro::Value::Bytes(kEmptyRow));
    file.Set("_KEY_STATS", EmptyStats());
    file.Set("_VALUE_STATS", EmptyStats());
    file.Set("_MIN_SEQUENCE_NUMBER", avro::Value::Long(min_seq));
    file.Set("_MAX_SEQUENCE_NUMBER", avro::Value::Long(max_seq));
    file.Set("_SCHEMA_ID", avro::Value::Long(schema_id));
    file.Set("_LEVEL", avro::Value::Int(0));
    file.Set("_EXTRA_FILES", avro::Value::Array({}));
    file.Set("_CREATION_TIME", avro::Value::Long(now));
    file.Set("_DELETE_ROW_COUNT", avro::Value::Long(0));
    file.Set("_EMBEDDED_FILE_INDEX", avro::Value::Null());
    file.Set("_FILE_SOURCE", avro::Value::Int(1));  // COMPACT
    file.Set("_VALUE_STATS_COLS", avro::Value::Array({}));
    file.Set("_EXTERNAL_PATH", avro::Value::Null());
    file.Set("_FIRST_ROW_ID", avro::Value::Null());
    file.Set("_WRITE_COLS", avro::Value::Null());
    file.Set("_WRITE_COLS_SEQUENCES", avro::Value::Null());
    add.Set("_FILE", std::move(file));
    out.push_back(std::move(add));
  }
  return out;
}

// The manifest list entry of one partition's delta manifest.
avro::Value ListEntry(const avro::Value& tmpl, const std::string& name, int64_t size,
                      const std::vector<const Bin*>& bins, const std::vector<avro::Value>& entries,
                      size_t partition_fields, int64_t schema_id) {
  avro::Value e = tmpl;
  int64_t added = 0, deleted = 0;
  int32_t min_bucket = INT32_MAX, max_bucket = INT32_MIN;
  for (const Bin* b : bins) {
    ++added;
    deleted += static_cast<int64_t>(b->inputs.size());
    min_bucket = std::min(min_bucket, b->bucket->bucket);
    max_bucket = std::max(max_bucket, b->bucket->bucket);
  }
  const std::string& partition = bins.front()->bucket->partition;
  std::vector<avro::Value> nulls;
  for (size_t i = 0; i < partition_fields; ++i) {
    nulls.push_back(avro::Value::Long(BinaryRowFieldIsNull(partition, i) ? static_cast<int64_t>(entries.size()) : 0));
  }
  int64_t total_buckets = 0;
  if (const avro::Value* first = entries.empty() ? nullptr : entries.front().Find("_TOTAL_BUCKETS")) {
    total_buckets = first->integer;
  }
  e.Set("_FILE_NAME", avro::Value::String(name));
  e.Set("_FILE_SIZE", avro::Value::Long(size));
  e.Set("_NUM_ADDED_FILES", avro::Value::Long(added));
  e.Set("_NUM_DELETED_FILES", avro::Value::Long(deleted));
  e.Set("_PARTITION_STATS", avro::Value::Record({{"_MIN_VALUES", avro::Value::Bytes(partition)},
                                                       {"_MAX_VALUES", avro::Value::Bytes(partition)},
                                                       {"_NULL_COUNTS", avro::Value::Array(std::move(nulls))}}));
  e.Set("_SCHEMA_ID", avro::Value::Long(schema_id));
  e.Set("_MIN_BUCKET", avro::Value::Int(min_bucket));
  e.Set("_MAX_BUCKET", avro::Value::Int(max_bucket));
  e.Set("_MIN_LEVEL", avro::Value::Int(0));
  e.Set("_MAX_LEVEL", avro::Value::Int(0));
  e.Set("_MIN_ROW_ID", avro::Value::Null());
  e.Set("_MAX_ROW_ID", avro::Value::Null());
  e.Set("_TOTAL_BUCKETS", total_buckets ? avro::Value::Int(total_buckets) : avro::Value::Null());
  e.Set("_EXTRA_FILES", avro::Value::Null());
  return e;
}

// The next index manifest: the snapshot's records without the deletion-vector index files whose
// every data file is gone (compacted now, or no longer live). "" when no record is left.
Result<std::string> NextIndexManifest(const TableSnapshot& snap, const PaimonState& state, const DvIndex& dv,
                                      const std::vector<Bin>& bins, PaimonCompactResult* res,
                                      std::vector<std::string>* written) {
  std::set<std::string> remaining;  // data files live after the compaction
  for (const paimon::Bucket& b : state.buckets) {
    for (const BucketFile& f : b.files) remaining.insert(f.meta.file_name);
  }
  for (const Bin& b : bins) {
    for (const BucketFile* f : b.inputs) remaining.erase(f->meta.file_name);
  }
  // An entry (ADD or DELETE) goes when its index file holds no vector of a remaining file; the
  // vectors an index file holds are the same in each of its entries.
  std::vector<avro::Value> keep;
  std::set<std::string> dropped;
  for (size_t i = 0; i < dv.entries.size(); ++i) {
    const paimon::IndexManifestEntry& e = dv.entries[i];
    const bool used = std::any_of(e.deletion_vectors.begin(), e.deletion_vectors.end(),
                                  [&](const paimon::DeletionVectorRange& r) { return remaining.count(r.data_file); });
    if (used) {
      keep.push_back(dv.manifest.records[i]);
    } else {
      dropped.insert(e.file_name);
    }
  }
  res->index_files_dropped = static_cast<int64_t>(dropped.size());
  if (keep.empty()) return std::string();
  if (keep.size() == dv.entries.size()) return state.snapshot.index_manifest;
  const std::string name = "index-manifest-" + RandomUuid() + "-0";
  RAP_ASSIGN_OR_RETURN(std::string bytes, avro::WriteContainerFile(dv.manifest.schema_json, keep, {}, name));
  RAP_RETURN_NOT_OK(PutNew(snap, snap.root + "/manifest/" + name, std::move(bytes), written));
  return name;
}

// The COMPACT snapshot: delta manifests per partition, the new base list (every manifest of the
// compacted snapshot), the delta list, the next index manifest, then snapshot-<id+1> created if
// absent and LATEST.
Status CommitPaimonCompact(const TableSnapshot& snap, const PaimonState& state, const std::vector<Bin>& bins,
                           const DvIndex& dv, const PaimonCompactOptions& options, PaimonCompactResult* res,
                           std::vector<std::string>* written) {
  const paimon::Snapshot& s = state.snapshot;
  const std::string what = snap.root + ": snapshot " + std::to_string(s.id);
  RAP_ASSIGN_OR_RETURN(Container base, ReadAvro(snap, s.base_manifest_list));
  std::vector<avro::Value> lists = base.records;
  if (!s.delta_manifest_list.empty()) {
    RAP_ASSIGN_OR_RETURN(Container delta, ReadAvro(snap, s.delta_manifest_list));
    lists.insert(lists.end(), delta.records.begin(), delta.records.end());
  }
  if (lists.empty()) return Status::Corrupt(what + ": no manifests, but live files");
  // The ADD entries of the inputs (the DELETE entries copy them; the outputs' entries start from them).
  std::set<std::string> wanted;
  for (const Bin& b : bins) {
    for (const BucketFile* f : b.inputs) wanted.insert(f->meta.file_name);
  }
  std::map<std::string, avro::Value> adds;
  std::string entry_schema;
  for (const avro::Value& m : lists) {
    RAP_ASSIGN_OR_RETURN(Container manifest, ReadAvro(snap, Str(m.Find("_FILE_NAME"))));
    if (entry_schema.empty()) entry_schema = manifest.schema_json;
    for (avro::Value& e : manifest.records) {
      const avro::Value* file = e.Find("_FILE");
      const std::string name = file ? Str(file->Find("_FILE_NAME")) : std::string();
      if (!wanted.count(name)) continue;
      int64_t kind = 0;
      e.GetInt("_KIND", &kind);
      if (kind == 0) {
        adds[name] = std::move(e);
      } else {
        adds.erase(name);
      }
    }
  }
  // One delta manifest per partition.
  std::map<std::string, std::vector<const Bin*>> by_partition;
  for (const Bin& b : bins) by_partition[b.bucket->partition].push_back(&b);
  std::vector<avro::Value> delta_list;
  for (const auto& [partition, pbins] : by_partition) {
    RAP_ASSIGN_OR_RETURN(std::vector<avro::Value> entries, PartitionEntries(pbins, adds, state.schema.id, what));
    const std::string name = "manifest-" + RandomUuid() + "-0";
    RAP_ASSIGN_OR_RETURN(std::string bytes, avro::WriteContainerFile(entry_schema, entries, {}, name));
    const int64_t size = static_cast<int64_t>(bytes.size());
    RAP_RETURN_NOT_OK(PutNew(snap, snap.root + "/manifest/" + name, std::move(bytes), written));
    delta_list.push_back(ListEntry(lists.front(), name, size, pbins, entries, state.schema.partition_keys.size(),
                                   state.schema.id));
  }
  const std::string list_id = RandomUuid();
  const std::string base_name = "manifest-list-" + list_id + "-0", delta_name = "manifest-list-" + list_id + "-1";
  RAP_ASSIGN_OR_RETURN(std::string base_bytes, avro::WriteContainerFile(base.schema_json, lists, {}, base_name));
  RAP_ASSIGN_OR_RETURN(std::string delta_bytes,
                       avro::WriteContainerFile(base.schema_json, delta_list, {}, delta_name));
  const int64_t base_size = static_cast<int64_t>(base_bytes.size());
  const int64_t delta_size = static_cast<int64_t>(delta_bytes.size());
  RAP_RETURN_NOT_OK(PutNew(snap, snap.root + "/manifest/" + base_name, std::move(base_bytes), written));
  RAP_RETURN_NOT_OK(PutNew(snap, snap.root + "/manifest/" + delta_name, std::move(delta_bytes), written));

  std::string index_manifest = state.snapshot.index_manifest;
  if (!index_manifest.empty()) {
    RAP_ASSIGN_OR_RETURN(index_manifest, NextIndexManifest(snap, state, dv, bins, res, written));
  }

  // The snapshot: the compacted one's JSON with what changed.
  const std::string old_path = snap.root + "/snapshot/snapshot-" + std::to_string(s.id);
  RAP_ASSIGN_OR_RETURN(std::string old_text, paimon::ReadObject(snap.store, old_path, kMaxManifestBytes));
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(old_text, nullptr, false);
  if (!j.is_object()) return Status::Corrupt(old_path + ": not a JSON object");
  const int64_t id = s.id + 1;
  j["id"] = id;
  j["schemaId"] = state.schema.id;
  j["baseManifestList"] = base_name;
  j["baseManifestListSize"] = base_size;
  j["deltaManifestList"] = delta_name;
  j["deltaManifestListSize"] = delta_size;
  j.erase("changelogManifestList");
  j.erase("changelogManifestListSize");
  if (index_manifest.empty()) {
    j.erase("indexManifest");
  } else {
    j["indexManifest"] = index_manifest;
  }
  j["deltaRecordCount"] = 0;
  j["changelogRecordCount"] = 0;
  j["commitUser"] = RandomUuid();
  j["commitIdentifier"] = INT64_MAX;
  j["commitKind"] = "COMPACT";
  j["timeMillis"] = UnixMillis();
  j["uuid"] = RandomUuid();
  j["writerVersion"] = "rap compact";
  if (options.before_commit) options.before_commit();
  const std::string path = snap.root + "/snapshot/snapshot-" + std::to_string(id);
  if (Status st = snap.store->PutIfAbsent(path, Buffer::Copy(j.dump(2))); !st.ok()) {
    if (st.code() == StatusCode::kChanged) {
      return Status::Changed(fmt::format("{}: another commit took snapshot {} first; nothing was committed",
                                         snap.root, id));
    }
    return st;
  }
  written->clear();  // committed: the files are the table's now
  io::CrashPoint("paimon-commit", path);
  res->snapshot_id = id;
  // LATEST is a hint (readers list snapshot/ past it): a failure to update it is reported, not undone.
  if (Status st = snap.store->Put(snap.root + "/snapshot/LATEST", Buffer::Copy(std::to_string(id))); !st.ok()) {
    return st.WithContext(path + " is committed, but snapshot/LATEST could not be updated");
  }
  return Status::OK();
}

}  // namespace

Result<PaimonCompactResult> CompactPaimonTable(const std::string& url, const PaimonCompactOptions& options) {
  const double t0 = NowSeconds();
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url));
  auto state = std::dynamic_pointer_cast<const PaimonState>(snap.format_state);
  if (!state) return Status::InvalidArgument(url + ": not a Paimon table (rap compact compacts Paimon append tables)");
  RAP_RETURN_NOT_OK(CheckCompactable(snap, *state, url));
  if (options.min_files < 2) return Status::InvalidArgument("--min-files must be at least 2");
  uint64_t target = options.target_file_size;
  if (target == 0) {
    const std::string opt = state->schema.Option("target-file-size", "");
    auto parsed = opt.empty() ? Result<uint64_t>(uint64_t{256} << 20) : ParseByteSize(opt);
    if (!parsed.ok()) return parsed.status().WithContext(url + ": target-file-size");
    target = *parsed;
  }
  PaimonCompactResult res;
  res.base_snapshot_id = snap.version;
  RAP_ASSIGN_OR_RETURN(DvIndex dv, ReadDvIndex(snap, *state, url));
  std::vector<Bin> bins = PlanBins(*state, target, options.min_files, dv);
  std::set<const paimon::Bucket*> buckets;
  for (const Bin& b : bins) buckets.insert(b.bucket);
  res.buckets = static_cast<int64_t>(buckets.size());
  if (bins.empty() || options.dry_run) {
    for (const Bin& b : bins) {
      res.files_read += static_cast<int64_t>(b.inputs.size());
      for (const BucketFile* f : b.inputs) res.bytes_read += static_cast<uint64_t>(f->meta.file_size);
    }
    res.files_written = static_cast<int64_t>(bins.size());
    res.seconds = NowSeconds() - t0;
    return res;
  }
  std::vector<std::string> written;
  auto fail = [&](Status st) {
    for (const std::string& p : written) (void)snap.store->Delete(p);
    return st;
  };
  RAP_ASSIGN_OR_RETURN(read::ScanSource scan, ToScanSource(snap));
  std::map<std::string, read::ScanFile> files;
  for (read::ScanFile& sf : scan.files) files.emplace(sf.path, std::move(sf));
  scan.files.clear();
  for (size_t i = 0; i < bins.size(); ++i) {
    if (Status st = WriteBin(snap, scan, files, bins[i], dv, options, &res, &written); !st.ok()) return fail(st);
    if (options.progress) options.progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(bins.size()));
  }
  res.files_written = static_cast<int64_t>(bins.size());
  Status committed = CommitPaimonCompact(snap, *state, bins, dv, options, &res, &written);
  if (!committed.ok()) return fail(committed);
  res.seconds = NowSeconds() - t0;
  return res;
}

}  // namespace rap::table
