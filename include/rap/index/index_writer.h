// IndexWriter: writes one build run of an index — fragments (one per bucket) from entries, the
// schema files of covered data files, and a new manifest version. It takes entries from anywhere:
// the table builder (build.h) reads them from data files; a data writer (`rap rewrite`) supplies
// the page or frame locations it has just written, so a file is indexed in the same pass.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rap/index/fragment.h"
#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/util/result.h"

namespace rap::index {

struct IndexWriterOptions {
  std::vector<KeyColumn> key;        // one or two columns
  std::string name = kDefaultIndexName;  // Manifest::name of a new index
  IndexKind kind = IndexKind::kHash;
  // Hash: buckets. Sorted: the partitions wanted; the boundaries are chosen at Stage from a sample
  // of the entries so partitions hold about as many entries each (fewer partitions when the sample
  // has fewer distinct keys). With a base manifest, its kind, buckets and boundaries are kept.
  int32_t buckets = 1;
  std::vector<std::string> cover;    // covered columns (Location::column indexes this list)
  std::vector<Field> hoist;          // hoisted columns with their types
  FragmentWriteOptions fragment;
  int threads = 2;                   // fragments written in parallel
  std::string etag_source;           // Manifest::etag_source of the files added (the table's store)
  // Distributed builds (BuildPart, build.h): the run number and the name token of the fragments
  // Stage writes. Defaults: the index's next run and a random token.
  std::optional<int64_t> run;
  std::string token;
  // Memory budget of the buffered entries (bytes, as buffered_bytes() counts them; 0: unbounded). When
  // adding an entry would pass it, the buffered entries are written out as fragments of the run
  // (`r<run>-<token>-b<bucket>-s<n>.parquet`, one per bucket with entries) and the buffer starts
  // empty: a bucket then has one fragment per spill, as after an update or a distributed build
  // (`rap index compact` merges them); lookups are the same. A new sorted (range-partitioned) index
  // chooses its boundaries from all entries and does not spill.
  int64_t memory_budget = 0;
  // Manifest::logical_names of the version written (column mapping: the table version's); unset:
  // a new index has none and an update keeps the base's.
  std::optional<std::map<std::string, std::string>> logical_names;
};

class IndexWriter {
 public:
  // `base`: the manifest this run extends (update), or nullopt for a new index / full rebuild (the
  // new version then replaces every fragment and file of earlier versions).
  ~IndexWriter();
  static Result<std::unique_ptr<IndexWriter>> Make(std::string index_url, IndexWriterOptions options,
                                                   std::optional<Manifest> base);

  // Adds a file to the file table (its ordinal is assigned: returned). `schema_file`: a zero-row
  // Parquet file with the data file's schema, needed for covered lookups (empty: none).
  int32_t AddFile(FileEntry file, const std::string& schema_file = {});
  // Marks a file of the base manifest as removed (its entries are no longer returned).
  Status RemoveFile(int32_t ordinal);
  // Replaces the deletion vector of a file.
  Status SetDeletionVector(int32_t ordinal, std::optional<table::DeletionVectorDescriptor> dv);
  // Adds an entry of a file added in this run (cover locations refer to options.cover).
  Status AddEntry(const IndexEntry& entry);

  int64_t entries() const { return num_entries_; }
  // The bytes the buffered entries take (the allocated capacity of the buckets' columns: keys,
  // packed places, row counts, cover records, hoisted slices and the values they keep alive) now
  // and at most so far (a column's growth counted while old and new slots coexist), and how many
  // times the buffer was spilled.
  int64_t buffered_bytes() const { return buffered_bytes_; }
  int64_t peak_buffered_bytes() const { return peak_bytes_; }
  int64_t spills() const { return spills_; }
  // The bytes one entry adds to the columns (before their growth slack): 12 for its place and row
  // count, 8 an integer key part or the bytes plus 8 a string part, its cover records, its hoisted
  // slices.
  static int64_t EntryHeapBytes(const IndexEntry& e);
  const Manifest& manifest() const { return manifest_; }

  // Writes the fragments and schema files and publishes the next manifest version. kChanged when
  // another writer published that version first (nothing of theirs is touched).
  Result<Manifest> Commit(const std::string& table_root, const std::string& table_kind, int64_t table_version);
  // Commit in two steps, for a writer that must commit its table in between (`rap rewrite` of a
  // Delta table): Stage writes the fragments and schema files (not referenced by any manifest yet,
  // so invisible; `rap index vacuum` deletes them if Publish never follows), Publish the manifest.
  Status Stage();
  Result<Manifest> Publish(const std::string& table_root, const std::string& table_kind, int64_t table_version);
  // Deletes (best effort) the fragments Stage wrote or began to write, for a caller whose table
  // commit failed after Stage, so no orphan is left for vacuum to find. Schema files are named by
  // their content and may be those of published versions too: they are deleted only with
  // `schema_files` (the caller knows the index is new: its output folder was empty).
  void DiscardStaged(bool schema_files);

 private:
  IndexWriter() = default;
  std::string index_url_;
  io::ObjectStorePtr store_;
  std::string dir_;
  IndexWriterOptions options_;
  Manifest manifest_;
  // Per bucket, the buffered entries in columns (no per-entry heap objects): see index_writer.cc.
  struct Bucket;
  std::vector<std::unique_ptr<Bucket>> buckets_;
  Status Append(Bucket& bucket, const IndexEntry& e);
  bool choose_boundaries_ = false;  // sorted kind, new index: every entry waits in buckets_[0]
  void ChooseBoundaries();
  std::vector<std::pair<std::string, std::string>> schema_files_;  // (relative path, bytes) to write
  int64_t num_entries_ = 0;
  int64_t buffered_bytes_ = 0, peak_bytes_ = 0, spills_ = 0;
  int64_t run_ = 0;
  std::string run_token_;  // empty until the first fragment is written
  size_t first_new_fragment_ = 0;  // manifest_.fragments from here on are this run's
  void ChooseRunToken();
  // Writes the buffered buckets as fragments named with `suffix` and empties them.
  Status WriteBuckets(const std::string& suffix);
  bool staged_ = false;
  std::vector<std::string> staged_fragments_, staged_schemas_;  // store paths Stage wrote or began to write
};

}  // namespace rap::index
