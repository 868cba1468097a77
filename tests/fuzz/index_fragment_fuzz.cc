// RAP index fragments (index/fragment.h): a fragment file (Parquet) read from bytes through an
// in-memory store, its columns checked against a manifest (FragmentLayout::Of) and every entry
// decoded (EntryAt, with covering locations and hoisted values), for an int64 key with covering
// columns and a string key without.
#include <algorithm>

#include "fuzz/fuzz_target.h"
#include "fuzz/memory_store.h"
#include "rap/index/fragment.h"
#include "rap/read/file_reader.h"

RAP_FUZZ_TARGET(index_fragment) {
  using namespace rap;
  auto store = std::make_shared<fuzz::MemoryStore>();
  store->Set("f.parquet", std::string(reinterpret_cast<const char*>(data), size));
  read::FileReaderOptions options;
  options.use_metadata_cache = false;
  options.max_page_bytes = 16 << 20;
  auto reader = read::FileReader::Open(store, "f.parquet", options);
  if (!reader.ok()) return 0;
  auto projection = (*reader)->Project();
  if (!projection.ok()) return 0;
  auto batches = (*reader)->ReadAll(std::nullopt, *projection);
  if (!batches.ok()) return 0;
  index::Manifest covered;
  covered.key = {{"id", index::KeyType::kInt64}};
  covered.cover = {"v"};
  covered.hoist = {"h"};
  index::Manifest plain;
  plain.key = {{"name", index::KeyType::kString}, {"n", index::KeyType::kInt32}};
  for (const index::Manifest* m : {&covered, &plain}) {
    auto layout = index::FragmentLayout::Of(*(*reader)->arrow_schema(), *m, "f.parquet");
    if (!layout.ok()) continue;
    for (const RecordBatch& b : *batches) {
      for (int64_t row = 0; row < std::min<int64_t>(b.num_rows, 4096); ++row) {
        index::IndexEntry e;
        if (!index::EntryAt(b, *layout, m->key, row, /*with_payload=*/true, &e, "f.parquet").ok()) break;
      }
    }
  }
  return 0;
}
