// The Delta log (table/delta_log.h): a table whose `_delta_log/` holds the input's segments, split
// at NUL bytes: segment k is commit k (JSON actions, one per line) or, when it starts with "PAR1",
// a Parquet checkpoint at version k (with `_last_checkpoint` pointing to it). The log is replayed
// (protocol, metadata, schema, add/remove, deletion vector descriptors) and the snapshot built.
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "fuzz/memory_store.h"
#include "rap/table/delta_log.h"

RAP_FUZZ_TARGET(delta_log) {
  using namespace rap;
  auto store = std::make_shared<fuzz::MemoryStore>();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  int version = 0;
  for (size_t start = 0; start <= input.size() && version < 16; ++version) {
    size_t end = input.find('\0', start);
    if (end == std::string_view::npos) end = input.size();
    std::string segment(input.substr(start, end - start));
    char name[64];
    if (segment.compare(0, 4, "PAR1") == 0) {
      std::snprintf(name, sizeof(name), "t/_delta_log/%020d.checkpoint.parquet", version);
      store->Set("t/_delta_log/_last_checkpoint", "{\"version\":" + std::to_string(version) + ",\"size\":1}");
    } else {
      std::snprintf(name, sizeof(name), "t/_delta_log/%020d.json", version);
    }
    store->Set(name, std::move(segment));
    start = end + 1;
  }
  (void)table::OpenDeltaTable(store, "t");
  table::DeltaLogOptions replay;
  replay.use_checkpoints = false;
  (void)table::ReadDeltaLog(store, "t", replay);
  return 0;
}
