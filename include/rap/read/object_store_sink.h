// A ByteSink that publishes the written Parquet file to an ObjectStore with one atomic Put. In
// rap::read, the first module above both the Parquet writer (format) and the stores (io), so that
// format depends on neither io nor anything above it.
#pragma once

#include <memory>
#include <string>

#include "rap/format/writer_sink.h"
#include "rap/io/object_store.h"

namespace rap::read {

// The file is buffered in memory and Put as a whole on Close(): the store's Put is atomic, so
// readers see the old object or the complete new one, never a partial file.
inline std::unique_ptr<parquet::ByteSink> MakeObjectStoreSink(io::ObjectStorePtr store, std::string path) {
  return std::make_unique<parquet::CommitSink>([store = std::move(store), path = std::move(path)](const Buffer& file) {
    return store->Put(path, file).WithContext(path);
  });
}

}  // namespace rap::read
