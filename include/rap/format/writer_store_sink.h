// A ByteSink that publishes the written Parquet file to an ObjectStore with one atomic Put.
// Header-only so that rap::format stays free of any dependency on rap::io: only code that already
// holds an ObjectStore (and links rap::io) includes this.
#pragma once

#include <memory>
#include <string>

#include "rap/format/writer_sink.h"
#include "rap/io/object_store.h"

namespace rap::parquet {

// The file is buffered in memory and Put as a whole on Close(): the store's Put is atomic, so
// readers see the old object or the complete new one, never a partial file.
inline std::unique_ptr<ByteSink> MakeObjectStoreSink(io::ObjectStorePtr store, std::string path) {
  return std::make_unique<CommitSink>([store = std::move(store), path = std::move(path)](const Buffer& file) {
    return store->Put(path, file).WithContext(path);
  });
}

}  // namespace rap::parquet
