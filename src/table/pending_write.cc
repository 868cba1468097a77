// The marker of a new table's first write (rap/table/pending_write.h), and the table "format" that
// refuses a root holding it: asked after every real format, so a committed table is read as itself.
#include "rap/table/pending_write.h"

#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "table/formats.h"
#include "table/path_util.h"

namespace rap::table {

namespace {

std::string MarkerPath(const std::string& root) { return io::JoinPath(TrimTrailingSlash(root), std::string(kPendingWriteMarker)); }

class PendingWriteFormat : public TableFormat {
 public:
  std::string_view name() const override { return "pending-write"; }
  Result<bool> Detect(TableProbe& probe) const override {
    for (const std::string& rel : probe.RelativePaths()) {
      if (rel == kPendingWriteMarker) return true;
    }
    return false;
  }
  Result<TableSnapshot> Open(TableProbe& probe, const OpenTableOptions&) const override {
    return Status::NotFound(fmt::format(
        "{}: no table yet: a writer of this new table has begun and not committed (it put {} first and deletes it "
        "after its commit); if no writer is running, it crashed: delete the prefix and write the table again",
        probe.url(), kPendingWriteMarker));
  }
  Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile&) const override {
    return Status::Internal(snapshot.root + ": a table being written has no rows");
  }
};

}  // namespace

const TableFormat& PendingWriteFormat() {
  static const class PendingWriteFormat format;
  return format;
}

Status BeginPendingWrite(io::ObjectStore& store, const std::string& root, std::string_view writer,
                         std::string_view token) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  nlohmann::json j = {{"writer", writer}, {"token", token}, {"startedMillis", now}};
  Status st = store.PutIfAbsent(MarkerPath(root), Buffer::FromString(j.dump()));
  if (st.code() == StatusCode::kChanged) {
    return Status::Changed(fmt::format(
        "{}: another writer is writing this new table ({} exists); if none is running, one crashed: delete the "
        "prefix and run again",
        root, kPendingWriteMarker));
  }
  return st;
}

Status EndPendingWrite(io::ObjectStore& store, const std::string& root) { return store.Delete(MarkerPath(root)); }

}  // namespace rap::table
