// A whole Parquet file read from bytes through an in-memory store: footer, schema, page indexes,
// pages, levels, values and nested assembly, for every projection (all columns, then each top-level
// field alone) with and without the page index, and a sparse row selection. Every array returned must
// validate (ValidateArray): bad bytes give an error, never wrong structure.
#include <algorithm>
#include <memory>

#include "fuzz/fuzz_target.h"
#include "fuzz/memory_store.h"
#include "rap/read/file_reader.h"

namespace {

void CheckBatches(const rap::Result<std::vector<rap::RecordBatch>>& batches) {
  if (!batches.ok()) return;
  for (const auto& b : *batches) {
    for (const auto& c : b.columns) {
      if (c == nullptr || c->length != b.num_rows || !rap::columnar::ValidateArray(*c).ok()) __builtin_trap();
    }
  }
}

}  // namespace

RAP_FUZZ_TARGET(file_read) {
  using namespace rap;
  auto store = std::make_shared<fuzz::MemoryStore>();
  store->Set("f.parquet", std::string(reinterpret_cast<const char*>(data), size));
  for (bool page_index : {true, false}) {
    read::FileReaderOptions options;
    options.use_metadata_cache = false;  // one input must not influence the next
    options.max_page_bytes = 16 << 20;
    options.batch_size = 1000;
    options.use_page_index = page_index;
    options.tail_read_size = page_index ? 64 * 1024 : 1024;  // footer in the first read, or a second one
    auto reader = read::FileReader::Open(store, "f.parquet", options);
    if (!reader.ok()) return 0;
    const auto& r = *reader;
    auto all = r->Project();
    if (!all.ok()) return 0;
    CheckBatches(r->ReadAll(std::nullopt, *all));
    if (!page_index) continue;
    // Each top-level field alone (at most 16), over a sparse selection when there are rows.
    const int64_t rows = r->num_rows();
    std::optional<read::RowSelection> sparse;
    if (rows > 2) sparse = read::RowSelection::FromRanges({{0, 1}, {rows / 2, rows / 2 + 1}, {rows - 1, rows}});
    const int fields = std::min(r->schema().num_fields(), 16);
    for (int i = 0; i < fields; ++i) {
      auto one = r->Project({r->schema().field(i).field.name});
      if (!one.ok()) continue;
      CheckBatches(r->ReadAll(sparse, *one));
    }
  }
  return 0;
}
