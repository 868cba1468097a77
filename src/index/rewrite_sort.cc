// BucketSorter (rewrite_sort.h): buffered batches -> per-bucket sorted runs spilled to temporary
// Parquet files -> per-bucket MergeReader streams.
#include "index/rewrite_sort.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "rap/columnar/take.h"
#include "rap/format/writer.h"
#include "rap/io/object_store.h"
#include "rap/read/merge_reader.h"

namespace rap::index::internal {
namespace {

// One batch, then the end.
class OneBatch : public columnar::RecordBatchReader {
 public:
  explicit OneBatch(RecordBatch b) : batch_(std::move(b)) {}
  SchemaPtr schema() const override { return batch_.schema; }
  Result<std::optional<RecordBatch>> Next() override {
    if (done_) return std::optional<RecordBatch>();
    done_ = true;
    return std::optional<RecordBatch>(std::move(batch_));
  }

 private:
  RecordBatch batch_;
  bool done_ = false;
};

class Merged : public columnar::RecordBatchReader {
 public:
  explicit Merged(std::unique_ptr<read::MergeReader> m) : merge_(std::move(m)) {}
  SchemaPtr schema() const override { return merge_->schema(); }
  Result<std::optional<RecordBatch>> Next() override { return merge_->Next(); }

 private:
  std::unique_ptr<read::MergeReader> merge_;
};

}  // namespace

Result<RecordBatch> TakeBatch(const RecordBatch& batch, std::span<const int64_t> rows) {
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = static_cast<int64_t>(rows.size());
  for (const ArrayPtr& c : batch.columns) {
    RAP_ASSIGN_OR_RETURN(ArrayPtr t, TakeArray(c, rows));
    out.columns.push_back(std::move(t));
  }
  return out;
}

uint64_t ArrayBytes(const ArrayData& a) {
  uint64_t n = 0;
  for (const Buffer& b : a.buffers) n += b.size();
  for (const ArrayPtr& c : a.children) n += ArrayBytes(*c);
  return n;
}

Result<std::unique_ptr<BucketSorter>> BucketSorter::Make(SchemaPtr schema, SorterOptions options) {
  if (options.memory < 1) return Status::InvalidArgument("--memory must be positive");
  if (options.temp_dir.empty()) return Status::InvalidArgument("BucketSorter: no temporary folder");
  for (int i : options.key_index) {
    if (!read::IsSupportedKeyType(*schema->fields[static_cast<size_t>(i)].type)) {
      return Status::NotSupported("key column '" + schema->fields[static_cast<size_t>(i)].name + "' cannot be merged");
    }
  }
  std::unique_ptr<BucketSorter> s(new BucketSorter());
  s->schema_ = std::move(schema);
  s->options_ = std::move(options);
  s->runs_.resize(static_cast<size_t>(s->options_.buckets));
  return s;
}

BucketSorter::~BucketSorter() {
  if (!created_dir_) return;
  std::error_code ec;
  std::filesystem::remove_all(options_.temp_dir, ec);
}

Status BucketSorter::Add(RecordBatch batch) {
  if (batch.num_rows == 0) return Status::OK();
  for (const ArrayPtr& c : batch.columns) buffered_ += ArrayBytes(*c);
  peak_ = std::max(peak_, buffered_);
  buffer_.push_back(std::move(batch));
  if (buffered_ > static_cast<uint64_t>(options_.memory)) return Spill();
  return Status::OK();
}

Status BucketSorter::SortBuffer(RecordBatch* all, std::vector<std::vector<int64_t>>* bucket_rows) {
  all->schema = schema_;
  all->num_rows = 0;
  all->columns.clear();
  for (const RecordBatch& b : buffer_) all->num_rows += b.num_rows;
  for (size_t c = 0; c < schema_->fields.size(); ++c) {
    std::vector<ArrayPtr> parts;
    for (const RecordBatch& b : buffer_) parts.push_back(b.columns[c]);
    RAP_ASSIGN_OR_RETURN(ArrayPtr a, parts.size() == 1 ? Result<ArrayPtr>(parts[0]) : ConcatArrays(parts));
    all->columns.push_back(std::move(a));
  }
  buffer_.clear();
  buffered_ = 0;
  const auto& key = options_.key;
  const size_t n = static_cast<size_t>(all->num_rows);
  std::vector<Key> keys(n);
  std::vector<uint8_t> valid(n, 1);
  for (size_t r = 0; r < n; ++r) {
    keys[r].parts.resize(key.size());
    for (size_t k = 0; k < key.size(); ++k) {
      if (!KeyPartAt(key[k].type, *all->columns[static_cast<size_t>(options_.key_index[k])], static_cast<int64_t>(r),
                     &keys[r].parts[k])) {
        valid[r] = 0;
      }
    }
  }
  bucket_rows->assign(static_cast<size_t>(options_.buckets), {});
  for (size_t r = 0; r < n; ++r) {
    const int32_t b = valid[r] ? BucketOf(key, keys[r], options_.buckets) : 0;
    (*bucket_rows)[static_cast<size_t>(b)].push_back(static_cast<int64_t>(r));
  }
  const auto less = [&](int64_t a, int64_t b) {
    if (valid[size_t(a)] != valid[size_t(b)]) return valid[size_t(a)] < valid[size_t(b)];
    if (!valid[size_t(a)]) return false;
    return CompareKeys(key, keys[size_t(a)], keys[size_t(b)]) < 0;
  };
  for (auto& rows : *bucket_rows) std::stable_sort(rows.begin(), rows.end(), less);
  return Status::OK();
}

Status BucketSorter::Spill() {
  if (buffer_.empty()) return Status::OK();
  RecordBatch all;
  std::vector<std::vector<int64_t>> bucket_rows;
  RAP_RETURN_NOT_OK(SortBuffer(&all, &bucket_rows));
  if (!created_dir_) {
    std::error_code ec;
    std::filesystem::create_directories(options_.temp_dir, ec);
    if (ec) return Status::IOError(options_.temp_dir + ": cannot create the temporary folder: " + ec.message());
    created_dir_ = true;
  }
  parquet::WriterOptions wo;
  wo.defaults.codec = parquet::Codec::ZSTD;
  wo.defaults.codec_level = 1;
  wo.write_page_index = false;
  for (size_t b = 0; b < bucket_rows.size(); ++b) {
    if (bucket_rows[b].empty()) continue;
    RAP_ASSIGN_OR_RETURN(RecordBatch run, TakeBatch(all, bucket_rows[b]));
    const std::string path = fmt::format("{}/run-{:06d}-b{:05d}.parquet", options_.temp_dir, spills_, b);
    RAP_ASSIGN_OR_RETURN(auto sink, parquet::LocalFileSink::Open(path));
    RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(schema_, sink.get(), wo));
    RAP_RETURN_NOT_OK(writer->Write(run));
    RAP_RETURN_NOT_OK(writer->Close());
    std::error_code ec;
    bytes_spilled_ += std::filesystem::file_size(path, ec);
    runs_[b].push_back(path);
    ++runs_spilled_;
  }
  ++spills_;
  return Status::OK();
}

Status BucketSorter::Finish() {
  if (runs_spilled_ > 0) return Spill();
  if (buffer_.empty()) return Status::OK();  // no row (every one deleted): every bucket is empty
  return SortBuffer(&all_, &bucket_rows_);
}

Result<std::unique_ptr<columnar::RecordBatchReader>> BucketSorter::OpenBucket(int32_t b) {
  const size_t bi = static_cast<size_t>(b);
  if (runs_spilled_ == 0) {
    if (bi >= bucket_rows_.size() || bucket_rows_[bi].empty()) return std::unique_ptr<columnar::RecordBatchReader>();
    RAP_ASSIGN_OR_RETURN(RecordBatch batch, TakeBatch(all_, bucket_rows_[bi]));
    bucket_rows_[bi].clear();
    bucket_rows_[bi].shrink_to_fit();
    return std::unique_ptr<columnar::RecordBatchReader>(new OneBatch(std::move(batch)));
  }
  if (bi >= runs_.size() || runs_[bi].empty()) return std::unique_ptr<columnar::RecordBatchReader>();
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(options_.temp_dir));
  std::vector<read::MergeRun> runs;
  for (const std::string& p : runs_[bi]) {
    read::MergeRun run;
    read::ScanFile f;
    f.path = io::JoinPath(r.path, std::filesystem::path(p).filename().string());
    run.files.push_back(std::move(f));
    runs.push_back(std::move(run));
  }
  read::MergeOptions mo;
  for (const KeyColumn& k : options_.key) mo.key_columns.push_back(k.name);
  mo.batch_size = 64 * 1024;
  mo.reader.batch_size = 16 * 1024;
  mo.reader.use_metadata_cache = false;
  mo.warmup_threads = 2;
  RAP_ASSIGN_OR_RETURN(auto merge, read::MergeReader::Make(r.store, std::move(runs), std::move(mo)));
  return std::unique_ptr<columnar::RecordBatchReader>(new Merged(std::move(merge)));
}

}  // namespace rap::index::internal
